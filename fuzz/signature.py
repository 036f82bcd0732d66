"""Failure signatures: what makes two failures "the same bug" for dedup.

A signature is a short string built from one oracle `Result`:

    status | w=<width> d=<dim> c=<choices> | <where>

`<where>` is, by status:
- mismatch: the first differing buffer and the lane hint the oracle gives
  (`buffer 3 lane 1`): the same wrong lane in the same output is the same
  symptom; the element index is not kept (it moves with the NDRange);
- vectorizer-error: the exception type and the innermost frame of the
  vectorizer's stack the oracle reports (`KeyError at .../packetizer.py:120`),
  without the message (it often carries value names that differ per kernel);
- vector-fault: the crash kind (`SIGSEGV`, `SIGFPE`, ...);
- timeout: nothing more.

`coarse=True` drops the buffer/lane part: the reducer uses it, because
deleting arguments renumbers buffers while the bug stays the same.
"""

from __future__ import annotations

import re
from typing import Any

_BUFFER = re.compile(r"buffer (\d+) index")
_LANE = re.compile(r"-> lane (\d+)")
_SIGNAL = re.compile(r"killed by (SIG\w+)|exited with status (-?\d+)")
_EXC = re.compile(r"^(?:vectorizer \w+: )?([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning)?):")
_FRAME = re.compile(r" at (\S+?):(\d+)\s*$")


def _field(r: Any, name: str) -> Any:
    return r[name] if isinstance(r, dict) else getattr(r, name)


def where(status: str, detail: str, coarse: bool = False) -> str:
    """The status-specific part of a signature, from a result's detail text."""
    detail = detail or ""
    if status == "mismatch":
        if coarse:
            return ""
        b = _BUFFER.search(detail)
        lane = _LANE.search(detail)
        parts = []
        if b:
            parts.append(f"buffer {b.group(1)}")
        if lane:
            parts.append(f"lane {lane.group(1)}")
        return " ".join(parts)
    if status == "vectorizer-error":
        first = detail.strip().splitlines()[0] if detail.strip() else ""
        m = _EXC.match(first)
        exc = m.group(1) if m else first.split(":")[0][:60]
        f = _FRAME.search(first)
        if f:
            # Keep the path from the package on: the checkout's location differs per machine.
            path = f.group(1)
            for pkg in ("vectorizer/", "oracle/", "fuzz/"):
                if pkg in path:
                    path = path[path.rindex(pkg):]
                    break
            return f"{exc} at {path}:{f.group(2)}"
        return exc
    if status == "vector-fault":
        m = _SIGNAL.search(detail)
        if m:
            return m.group(1) or f"exit {m.group(2)}"
        return "crash"
    return ""


def signature(result: Any, coarse: bool = False) -> str:
    """The dedup signature of one failing result (a `Result` or its JSON dict)."""
    status = _field(result, "status")
    cfg = f"w={_field(result, 'width')} d={_field(result, 'dim')} c={_field(result, 'choices') or '-'}"
    w = where(status, _field(result, "detail"), coarse)
    return f"{status} | {cfg}" + (f" | {w}" if w else "")


def status_of(sig: str) -> str:
    """The status a signature starts with."""
    return sig.split(" | ", 1)[0]
