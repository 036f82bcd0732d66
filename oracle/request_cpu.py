"""CPU time of each worker request, added up per kind of request
(`vectorize`, `build`, `run`), for `vecz-fuzz throughput`'s breakdown.

Read by the parent from `/proc/<pid>/stat` (the worker's user and system
time, every thread, ended ones included) before a request is sent and after
its answer arrives, so the worker's code and protocol stay as they are. The
kernel reports that time in clock ticks (10 ms on most systems): one
request's figure is coarse, the sums over a campaign's hundreds of requests
are not. Off unless `accounting()` is active; then two small file reads a
request. Linux only: elsewhere nothing is recorded.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass
class OpCPU:
    """The requests of one kind and their CPU seconds in the worker."""

    requests: int = 0
    seconds: float = 0.0


_TICK = 1.0 / (os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100)
_LOCK = threading.Lock()
_ACTIVE: dict[str, OpCPU] | None = None


def process_cpu(pid: int) -> float | None:
    """User plus system seconds of process `pid` so far, or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: the
    # fields that follow start after its last ')'.
    fields = raw[raw.rfind(b")") + 2:].split()
    try:
        return (int(fields[11]) + int(fields[12])) * _TICK  # utime, stime: fields 14 and 15
    except (IndexError, ValueError):
        return None


def start(pid: int) -> float | None:
    """What `Worker` reads before sending a request (None when not accounting)."""
    return process_cpu(pid) if _ACTIVE is not None else None


def finish(op: str, pid: int, before: float | None) -> None:
    """Add the request's CPU time, if `start` read one, to `op`'s total."""
    if before is None or _ACTIVE is None:
        return
    after = process_cpu(pid)
    if after is None:
        return
    with _LOCK:
        acc = _ACTIVE.setdefault(op, OpCPU())
        acc.requests += 1
        acc.seconds += max(0.0, after - before)


@contextlib.contextmanager
def accounting() -> Iterator[dict[str, OpCPU]]:
    """While active, every worker request's CPU time is added to the
    yielded dictionary under its kind (one accounting at a time)."""
    global _ACTIVE
    with _LOCK:
        if _ACTIVE is not None:
            raise RuntimeError("request CPU accounting is already active")
        _ACTIVE = totals = {}
    try:
        yield totals
    finally:
        with _LOCK:
            _ACTIVE = None
