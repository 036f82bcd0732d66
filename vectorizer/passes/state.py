"""KernelState: what the passes of one vectorization share.

The pipeline threads one state through its passes: the request, the module
and the function being vectorized (our IR), what earlier passes decided
(the width, the name), the counters the outcome reports, and the outcome
itself (remarks; the final text once a pass finishes the kernel).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..analysis.data_layout import DataLayout
from ..ir import values as V
from ..target import TargetInfo


def _unchecked(step: str) -> None:
    """The checkpoint of a run without `verify_analyses`: nothing to check."""


@dataclass
class KernelState:
    """The request being served and everything the passes hand on."""

    text: str  # the canonical input module: returned unchanged on refusal
    request: Any  # pipeline.KernelRequest
    target: TargetInfo
    outcome: Any  # pipeline.KernelOutcome
    module: V.Module
    kernel: V.Function
    fn: V.Function | None = None  # the clone being vectorized
    temp_name: str = ""
    layout: DataLayout | None = None
    datalayout: str | None = None  # the module's `target datalayout` string
    width: int | None = None
    name: str | None = None  # the vectorized kernel's name, once chosen
    interleaved: dict[int, int] = field(default_factory=dict)
    instantiation: Any = None  # InstantiationAnalysis, built once per request
    # What the passes report in the outcome's statistics.
    conversion_stats: dict[str, int] = field(default_factory=dict)
    packetizer_stats: dict[str, Any] = field(default_factory=dict)
    instantiated: int = 0
    scalarized: int = 0
    clamp_versioned_loads: int = 0
    safe_addressed_accesses: int = 0
    result_text: str | None = None  # set by the pass that finishes the kernel
    # The text `module` was last read from (LLVM's output), set by the passes
    # that re-read it: the prepared-kernel cache keeps it (prepared_cache.py).
    module_text: str | None = None
    # The original kernel's body when `module` holds a stub for it (a request
    # resumed from a snapshot, prepared_cache.py): the cleanup puts it back.
    kernel_body: Any = None
    # Set with `verify_analyses`: a pass that runs several transforms calls
    # it with a step's name after each, to have the IR checked there.
    checkpoint: Callable[[str], None] = _unchecked
    t0: float = field(default_factory=time.perf_counter)

    def refuse(self, *remarks: str) -> None:
        """Record why the kernel is not vectorized (the pass then stops the pipeline)."""
        self.outcome.remarks.extend(remarks)

    def current_function(self) -> V.Function | None:
        """The function the analyses describe: the clone once it exists."""
        return self.fn
