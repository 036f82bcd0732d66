"""The registry of pass names and the default pipeline.

A textual pipeline (`veczc -vecz-passes=a,b,c`, `vectorize(passes=...)`) is
a comma-separated list of registered names. It may leave out optional
passes (optimisations: the kernel stays correct without them) but must keep
every required one, and keep the default order: a pass run out of place, or
a required one missing, could produce wrong code, which the vectorizer never
does.
"""

from __future__ import annotations

from ..pass_manager import Pass
from .cleanup import Cleanup, DeadCode, SafeLaneAddressing
from .control_flow import BarrierUniformBranches, ControlFlowConversion
from .packetization import (
    CheckBranches,
    ChooseWidth,
    ClampVersioning,
    InterleavePrivateArrays,
    LaneSafeExtensions,
    NameKernel,
    Packetize,
    Scalarize,
    SquashSmallVectors,
    WidenIndexArithmetic,
)
from .preparation import (
    BuiltinInlining,
    CheckInput,
    CheckVectorizability,
    CloneKernel,
    Prepare,
    PreserveLibraryCalls,
    RemoveIntptr,
)

# The default pipeline, in order.
DEFAULT_PIPELINE: tuple[type[Pass], ...] = (
    CheckInput,
    CloneKernel,
    BuiltinInlining,
    PreserveLibraryCalls,
    Prepare,
    RemoveIntptr,
    CheckVectorizability,
    BarrierUniformBranches,
    ControlFlowConversion,
    SquashSmallVectors,
    Scalarize,
    ClampVersioning,
    WidenIndexArithmetic,
    LaneSafeExtensions,
    ChooseWidth,
    NameKernel,
    InterleavePrivateArrays,
    CheckBranches,
    Packetize,
    DeadCode,
    SafeLaneAddressing,
    Cleanup,
)

PASSES: dict[str, type[Pass]] = {p.name: p for p in DEFAULT_PIPELINE}

# Optimisations: leaving one out gives slower code, never wrong code.
OPTIONAL: frozenset[str] = frozenset({
    RemoveIntptr.name,
    SquashSmallVectors.name,
    ClampVersioning.name,
    WidenIndexArithmetic.name,
    InterleavePrivateArrays.name,
    DeadCode.name,
    SafeLaneAddressing.name,
})

DEFAULT_NAMES: tuple[str, ...] = tuple(p.name for p in DEFAULT_PIPELINE)


class PipelineError(ValueError):
    """A textual pipeline names an unknown pass, misses a required one, or
    puts one out of order."""


def default_pipeline_text() -> str:
    """The default pipeline as `-vecz-passes` takes it."""
    return ",".join(DEFAULT_NAMES)


def parse_pipeline(text: str | list[str] | tuple[str, ...] | None) -> tuple[str, ...]:
    """The pass names of a textual pipeline (None: the default), checked."""
    if text is None:
        return DEFAULT_NAMES
    if isinstance(text, str):
        names = [n.strip() for n in text.split(",") if n.strip()]
    elif isinstance(text, (list, tuple)) and all(isinstance(n, str) for n in text):
        names = [n.strip() for n in text]
    else:
        raise PipelineError(f"passes must be a comma-separated string or a list of names, not {type(text).__name__}")
    if not names:
        raise PipelineError("empty pass pipeline")
    for n in names:
        if n not in PASSES:
            raise PipelineError(f"unknown pass {n!r} (veczc --print-pipeline lists them)")
    seen: set[str] = set()
    last = -1
    for n in names:
        if n in seen:
            raise PipelineError(f"pass {n!r} appears twice")
        seen.add(n)
        at = DEFAULT_NAMES.index(n)
        if at < last:
            raise PipelineError(f"pass {n!r} must come before {DEFAULT_NAMES[last]!r}")
        last = at
    missing = [n for n in DEFAULT_NAMES if n not in seen and n not in OPTIONAL]
    if missing:
        raise PipelineError(f"required pass {missing[0]!r} is missing (only "
                            f"{', '.join(sorted(OPTIONAL))} may be left out)")
    return tuple(names)


def build_passes(names: tuple[str, ...]) -> list[Pass]:
    """Instances of the named passes, in order."""
    return [PASSES[n]() for n in names]


def describe_pipeline() -> str:
    """The default pipeline, one pass a line with what it does (`--print-pipeline`
    prints the comma-separated line first, then this)."""
    width = max(len(n) for n in DEFAULT_NAMES)
    rows = []
    for p in DEFAULT_PIPELINE:
        tag = "optional" if p.name in OPTIONAL else "required"
        rows.append(f"  {p.name:<{width}}  {tag}  {p.summary}")
    return "\n".join(rows)
