"""OpenCL C -> LLVM IR for Csmith kernels, through the project's front end
(`vectorizer.frontend.opencl`: ziglang's clang 22, kernel stubs inlined)
with this package's prelude instead of the benchmark one."""

from __future__ import annotations

from pathlib import Path

PRELUDE = Path(__file__).resolve().with_name("prelude.h")


def compile_kernel(source: str, opt: str = "-O2") -> str:
    """Canonical LLVM 22 IR text for the generated kernel source.

    Raises `vectorizer.frontend.opencl.OpenCLError` when clang is missing
    (the `ziglang` package) or rejects the source.
    """
    from vectorizer.frontend.opencl import compile_opencl

    # Csmith functions stay `static`: clang may keep some as calls after
    # -O2; that is fine (the vectorizer instantiates or inlines calls).
    return compile_opencl(source, prelude=PRELUDE, opt=opt)
