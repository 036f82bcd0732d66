"""Prepared kernels, remembered across the configurations of one kernel.

The oracle and the campaigns vectorize one kernel at several widths (and
the fixture script and `veczc` at several widths and choices). Everything
up to and including control-flow conversion is the same at every width:
no pass before `choose-width` reads it. Those passes are also the costly
part of the pipeline (parsing the input, cloning, inlining, two crossings
to LLVM and back, the uniformity analysis twice), so the pipeline records
where they left the kernel and later requests start from there.

A *resume point* is a pass after which the module was just re-read from
LLVM's text (`prepare`; `control-flow-conversion` when it changed the
kernel): at that point the state is the module (no analysis survives a
re-read, the function is new) and a few plain fields. The snapshot keeps the
module as text, re-parsed for each request that resumes
there, so no request ever shares IR objects with another: the text is
the one the pass read (LLVM's output, `KernelState.module_text`), so the
re-read module is the one the pass made. A prefix that
stopped the pipeline (a refusal) is remembered as its remarks.

The key is everything those passes read: the input text, the kernel, the
dimension, the choices, the local size, the target, and the pass names up
to the resume point. The passes up to `prepare` do not read the dimension
either: their snapshot is also kept under a key without it, from which a
kernel's other dimensions resume. Only the most recent few kernels are kept.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from ..analysis.data_layout import DataLayout
from ..ir import parse_module
from ..target import TargetInfo
from .state import KernelState

# Passes after which the module has just been re-read from LLVM's text
# (when they report a change), in pipeline order.
RESUME_POINTS = ("prepare", "control-flow-conversion")
# The last pass that reads neither the width nor the dimension.
PREPARE = "prepare"
# The last pass that does not read the width: resuming later would not be shared.
LAST_SHARED = "control-flow-conversion"

MAX_ENTRIES = 4


@dataclass(frozen=True)
class Snapshot:
    """Where the shared prefix left one kernel: after pass `after` (its index
    in the pipeline's names), either stopped with `remarks`, or with the
    module as text and the fields the passes so far set."""

    after: int
    stopped: bool
    remarks: tuple[str, ...]
    module_text: str | None = None
    temp_name: str = ""
    datalayout: str | None = None
    conversion_stats: tuple[tuple[str, Any], ...] = ()

    def restore(self, state: KernelState) -> None:
        """Put the snapshot into a fresh state, whose outcome has no remarks
        yet (`state.module` is replaced: the caller's may be a placeholder)."""
        state.outcome.remarks.extend(self.remarks)
        if self.stopped:
            return
        assert self.module_text is not None
        module = parse_module(self.module_text)
        kernel = module.get_function(state.request.kernel)
        fn = module.get_function(self.temp_name)
        assert kernel is not None and fn is not None
        state.module, state.kernel, state.fn = module, kernel, fn
        state.temp_name = self.temp_name
        state.datalayout = self.datalayout
        state.layout = DataLayout.parse(self.datalayout)
        state.conversion_stats = dict(self.conversion_stats)


def snapshot_of(state: KernelState, after: int, stopped: bool) -> Snapshot:
    """The snapshot of `state` after the pass at index `after`."""
    from ..ir import print_module

    remarks = tuple(state.outcome.remarks)
    if stopped:
        return Snapshot(after, True, remarks)
    # The text the pass just read the module from, when it says so (the
    # parse of that text is exactly the state; its tokens are still cached).
    text = state.module_text if state.module_text is not None else print_module(state.module)
    return Snapshot(after, False, remarks, text, state.temp_name, state.datalayout,
                    tuple(state.conversion_stats.items()))


class PreparedCache:
    """The most recent snapshots, by key (least recently used dropped first).
    Safe to share between threads (campaign threads vectorize in-process for
    mutants and peers): snapshots are immutable and each request re-reads its
    own module."""

    def __init__(self, size: int = MAX_ENTRIES) -> None:
        self.size = size
        self._entries: OrderedDict[tuple, Snapshot] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(text: str, request: Any, target: TargetInfo, names: tuple[str, ...]) -> tuple | None:
        """The key of a request, or None when the pipeline shares no prefix
        worth keeping (it has no resume point)."""
        if not any(n in names for n in RESUME_POINTS):
            return None
        shared = names[: names.index(LAST_SHARED) + 1] if LAST_SHARED in names else names
        return (text, request.kernel, request.dim, request.choices, request.local_size, target, shared)

    @staticmethod
    def any_dimension(key: tuple) -> tuple | None:
        """The key under which a snapshot after `prepare` serves every
        dimension (no pass up to it reads the dimension), or None when the
        pipeline has no `prepare`."""
        names = key[-1]
        if PREPARE not in names:
            return None
        return (*key[:2], None, *key[3:-1], names[: names.index(PREPARE) + 1])

    def get(self, key: tuple) -> Snapshot | None:
        """The snapshot for `key`, if remembered."""
        with self._lock:
            snap = self._entries.get(key)
            if snap is None:
                self.misses += 1
                return None
            self.hits += 1
            self._entries.move_to_end(key)
            return snap

    def put(self, key: tuple, snap: Snapshot) -> None:
        """Remember `snap` for `key` (a later, deeper snapshot replaces an earlier one)."""
        with self._lock:
            self._entries[key] = snap
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        """Forget every snapshot."""
        with self._lock:
            self._entries.clear()


CACHE = PreparedCache()


def is_resume_point(name: str, changed: bool) -> bool:
    """Whether the module was just re-read from LLVM after pass `name`."""
    return changed and name in RESUME_POINTS


__all__ = ["CACHE", "LAST_SHARED", "PREPARE", "RESUME_POINTS", "PreparedCache", "Snapshot", "is_resume_point", "snapshot_of"]
