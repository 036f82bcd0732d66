"""The library entry point: `vectorize()`."""

from __future__ import annotations

import operator
from dataclasses import dataclass, field

import llvmlite.binding as llvm

from .choices import parse_choices
from .pipeline import MAX_WIDTH, KernelRequest, PipelineOptions, vectorize_module
from .target import host_target, with_features


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


def _is_integer(value: object) -> bool:
    """An int or an integer-like value (numpy's), but not a bool."""
    if isinstance(value, bool):
        return False
    try:
        operator.index(value)
    except TypeError:
        return False
    return True


def _check_arguments(ir, kernel, width, dim, choices, auto, passes) -> None:
    """ValueError for an argument of the wrong type (bool is not a width)."""
    if not isinstance(ir, (str, bytes, bytearray, llvm.ModuleRef)):
        raise ValueError(f"ir must be LLVM IR text, bitcode bytes or an llvmlite ModuleRef, not {type(ir).__name__}")
    if not isinstance(kernel, str):
        raise ValueError(f"kernel must be a function name (str), not {type(kernel).__name__}")
    if width is not None and not _is_integer(width):
        raise ValueError(f"width must be an int from 1 to {MAX_WIDTH} or None, not {width!r}")
    if not _is_integer(dim):
        raise ValueError(f"dim must be 0, 1 or 2, not {dim!r}")
    if choices is not None and not isinstance(choices, str):
        raise ValueError(f"choices must be a ';'-separated string, not {type(choices).__name__}")
    if not isinstance(auto, bool):
        raise ValueError(f"auto must be True or False, not {auto!r}")
    if passes is not None and not (
        isinstance(passes, str) or (isinstance(passes, (list, tuple)) and all(isinstance(n, str) for n in passes))
    ):
        raise ValueError(f"passes must be a comma-separated string or a list of pass names, not {passes!r}")


def vectorize(
    ir: str | bytes | llvm.ModuleRef,
    kernel: str,
    width: int | None = 4,
    dim: int = 0,
    choices: str = "",
    auto: bool = False,
    passes: str | list[str] | None = None,
    target_features: str | None = None,
    verify_analyses: bool = False,
) -> VectorizeResult:
    """Add to `ir` a version of `kernel` computing `width` consecutive work-items
    along dimension `dim` in SIMD lanes.

    `choices` is a `;`-separated list of Vecz choices (`noX` disables X).
    `auto=True` lets the SIMD width analysis pick the width. `passes` runs
    a named pass sequence instead of the default pipeline (`veczc
    --print-pipeline` lists it; optional passes may be left out, required
    ones must stay, in order). `target_features` adjusts the host target by
    an LLVM-style feature list, as veczc's `-vecz-target-features` does
    (`-fast-gather`: vectorize for a target without fast gathers).
    `verify_analyses=True` checks the
    vectorizer's analyses against independent reference computations after
    every pass (a debug mode, as LLVM's `-verify-dom-info`): a wrong one
    raises `VectorizerBug` naming it.

    Raises `vectorizer.IRError` for malformed IR (with LLVM's line:column),
    `ValueError` for bad arguments: an argument of the wrong type (`width`
    not an int, a bool included; `ir` not text, bytes or a ModuleRef;
    `choices` not a string...), an unknown kernel, choice or pass, a width
    or dimension out of range. A kernel that cannot be vectorized is not an
    error: the result has `vectorized_name=None` and remarks saying why.
    """
    _check_arguments(ir, kernel, width, dim, choices, auto, passes)
    target = None
    if target_features is not None:
        if not isinstance(target_features, str):
            raise ValueError(f"target_features must be a ','-separated string, not {type(target_features).__name__}")
        target = with_features(host_target(), target_features)
    if not isinstance(verify_analyses, bool):
        raise ValueError(f"verify_analyses must be True or False, not {verify_analyses!r}")
    options = PipelineOptions(passes=passes, verify_analyses=verify_analyses)
    options.names()  # an unknown or misplaced pass is a ValueError before any work
    width = None if width is None else operator.index(width)
    dim = operator.index(dim)
    request = KernelRequest(kernel, None if auto else width, dim, parse_choices(choices))
    try:
        text, outcomes = vectorize_module(ir, [request], target=target, options=options)
    except KeyError as exc:
        raise ValueError(exc.args[0]) from None
    out = outcomes[0]
    return VectorizeResult(text, kernel, out.vectorized_name, out.width, dim, out.remarks, out.stats)
