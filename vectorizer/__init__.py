"""An SPMD whole-function vectorizer for GPU-style kernels on CPUs.

`vectorize()` is the entry point; `veczc` is the command-line tool.
"""

from __future__ import annotations

from typing import Any

from .llvm_bridge import IRError

__all__ = ["IRError", "VectorizeResult", "vectorize"]


def __getattr__(name: str) -> Any:
    # Imported lazily: the IR package imports llvm_bridge through this package,
    # and must not pull in the whole pipeline while it is still initialising.
    if name in ("vectorize", "VectorizeResult"):
        from . import api

        return getattr(api, name)
    raise AttributeError(name)
