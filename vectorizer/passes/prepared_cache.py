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

import re
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


_SIMPLE_NAME = re.compile(r"[-a-zA-Z$._][-a-zA-Z$._0-9]*")
_ATTR_OR_STRING = re.compile(r'"[^"]*"|#(\d+)\b')


@dataclass(frozen=True)
class KernelBody:
    """The original kernel's body, left out of the module from `prepare` on
    (no later pass reads it: they work on the clone) and put back into the
    text the cleanup hands to LLVM. The crossings, the re-reads and every
    resumed request then handle a module of about half the size.

    `lines` is LLVM's text of the body (between the `define` line and the
    closing brace), `attributes` the `attributes #N = {...}` lines of the
    groups it names, as the snapshot's text numbered them."""

    kernel: str
    lines: str
    attributes: tuple[tuple[str, str], ...]

    def put_back(self, text: str) -> str:
        """`text` (our print of the module) with the stub's body replaced
        by this one. The groups keep their numbers when `text` still defines
        them alike (our printer keeps a module's groups as it read them);
        else the body names their attributes in place, which LLVM reads as
        the same attribute sets."""
        m = _define(text, self.kernel)
        end = text.find("\n}\n", m.end()) if m is not None else -1
        if m is None or end < 0:
            raise ValueError(f"the stub of '{self.kernel}' is not in the printed module")
        body = self.lines
        if not all(f"\n{line}\n" in text for _, line in self.attributes):
            content = {key: line.split(" = ", 1)[1].strip()[1:-1].strip() for key, line in self.attributes}
            body = _ATTR_OR_STRING.sub(
                lambda a: a.group(0) if a.group(1) is None else content[f"#{a.group(1)}"], body)
        return text[: m.end()] + "\n" + body + text[end + 1:]


def _define(text: str, kernel: str) -> re.Match[str] | None:
    return re.search(rf"^define [^\n]*@{re.escape(kernel)}\([^\n]*\{{$", text, re.M)


def stub_kernel(text: str, kernel: str) -> tuple[str, KernelBody] | None:
    """`text` (LLVM's print of the prepared module) with the body of
    `kernel` replaced by `unreachable`, and the body; None unless putting
    the body back is sure to give LLVM the same module: a plain name that
    nothing but metadata mentions (no pass may look at the body then),
    no metadata in the body, no call to the vectorizer's own builtins (a
    pass may erase one the clone stops using), no named struct types (our
    printer prints those the functions use) and named arguments."""
    if not _SIMPLE_NAME.fullmatch(kernel) or "\n%" in text:
        return None
    m = _define(text, kernel)
    if m is None or re.search(r"%\d", m.group(0)):
        return None
    end = text.find("\n}\n", m.end())
    if end < 0:
        return None
    lines = text[m.end() + 1: end + 1]
    if "!" in lines or "__vecz" in lines:
        return None
    rest = text[: m.start()] + text[end + 3:]
    for ref in re.finditer(rf"@{re.escape(kernel)}(?![-\w$.])", rest):
        if rest[rest.rfind("\n", 0, ref.start()) + 1] != "!":
            return None
    attributes = []
    for key in dict.fromkeys(f"#{a.group(1)}" for a in _ATTR_OR_STRING.finditer(lines) if a.group(1)):
        line = re.search(rf"^attributes {key} = \{{.*\}}$", text, re.M)
        if line is None:
            return None
        attributes.append((key, line.group(0)))
    stub = text[: m.end()] + "\n  unreachable\n" + text[end + 1:]
    return stub, KernelBody(kernel, lines, tuple(attributes))


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
    kernel_body: KernelBody | None = None  # when `module_text` holds a stub of the kernel

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
        state.kernel_body = self.kernel_body


def snapshot_of(state: KernelState, after: int, stopped: bool, stub: bool = False) -> Snapshot:
    """The snapshot of `state` after the pass at index `after`. The module
    holds a stub of the original kernel when `prepare` set its body aside
    (`state.kernel_body`); with `stub`, one is made here if not (for
    pipelines without `prepare`)."""
    from ..ir import print_module

    remarks = tuple(state.outcome.remarks)
    if stopped:
        return Snapshot(after, True, remarks)
    # The text the pass just read the module from, when it says so (the
    # parse of that text is exactly the state; its tokens are still cached).
    text = state.module_text if state.module_text is not None else print_module(state.module)
    body = state.kernel_body  # the module holds a stub already (`prepare` made it)
    if stub and body is None:
        stubbed = stub_kernel(text, state.request.kernel)
        if stubbed is not None:
            text, body = stubbed
    return Snapshot(after, False, remarks, text, state.temp_name, state.datalayout,
                    tuple(state.conversion_stats.items()), body)


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


__all__ = ["CACHE", "LAST_SHARED", "PREPARE", "RESUME_POINTS", "KernelBody", "PreparedCache", "Snapshot",
           "is_resume_point", "snapshot_of", "stub_kernel"]
