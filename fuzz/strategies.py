"""Hypothesis strategies over the generator.

`kernels(**knobs)` draws a kernel's case text; `kernel_cases(**knobs)` the
`GeneratedKernel` (text and plan). Every generator decision is one
`st.integers` draw, ordered so that smaller is simpler, so a failing
kernel shrinks to a small one.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from .choice_source import HypothesisSource
from .generator import KERNEL_NAME, GeneratedKernel, build, origin_of
from .knobs import make_knobs


def kernel_cases(**knobs: Any) -> st.SearchStrategy[GeneratedKernel]:
    """Generated kernels (text and plan) for the given knobs."""
    name = knobs.pop("name", KERNEL_NAME)
    k = make_knobs(**knobs)

    @st.composite
    def _cases(draw: Any) -> GeneratedKernel:
        return build(HypothesisSource(draw), k, origin_of(None, k), name)

    return _cases()


def kernels(**knobs: Any) -> st.SearchStrategy[str]:
    """Kernel case texts (header + LLVM IR), as `fuzz.generate` makes them."""
    return kernel_cases(**knobs).map(lambda g: g.text)


def plans(**knobs: Any) -> st.SearchStrategy[Any]:
    """Kernel plans only (no IR): for tests of the plan layer."""
    from .generator import plan_kernel

    name = knobs.pop("name", KERNEL_NAME)
    k = make_knobs(**knobs)

    @st.composite
    def _plans(draw: Any) -> Any:
        return plan_kernel(HypothesisSource(draw), k, name)

    return _plans()
