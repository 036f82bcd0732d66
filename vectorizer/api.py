"""The library entry point: `vectorize()`."""

from __future__ import annotations

from dataclasses import dataclass, field

import llvmlite.binding as llvm

from .choices import parse_choices
from .pipeline import KernelRequest, vectorize_module


@dataclass
class VectorizeResult:
    """The outcome of `vectorize()`.

    `ir` is the input module plus the vectorized kernel (the input, canonical,
    when nothing was vectorized); `vectorized_name` is None when the kernel
    was not vectorized, and `remarks` then say why.
    """

    ir: str
    kernel: str
    vectorized_name: str | None
    width: int | None
    dim: int
    remarks: list[str] = field(default_factory=list)
    stats: dict[str, float] = field(default_factory=dict)


def vectorize(
    ir: str | bytes | llvm.ModuleRef,
    kernel: str,
    width: int | None = 4,
    dim: int = 0,
    choices: str = "",
    auto: bool = False,
) -> VectorizeResult:
    """Add to `ir` a version of `kernel` computing `width` consecutive work-items
    along dimension `dim` in SIMD lanes.

    `choices` is a `;`-separated list of Vecz choices (`noX` disables X).
    `auto=True` lets the SIMD width analysis pick the width.

    Raises `vectorizer.IRError` for malformed IR (with LLVM's line:column),
    `ValueError` for bad arguments (unknown kernel or choice, width or
    dimension out of range). A kernel that cannot be vectorized is not an
    error: the result has `vectorized_name=None` and remarks saying why.
    """
    request = KernelRequest(kernel, None if auto else width, dim, parse_choices(choices))
    try:
        text, outcomes = vectorize_module(ir, [request])
    except KeyError as exc:
        raise ValueError(exc.args[0]) from None
    out = outcomes[0]
    return VectorizeResult(text, kernel, out.vectorized_name, out.width, dim, out.remarks, out.stats)
