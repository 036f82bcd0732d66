"""The reference run of one NDRange: the scalar kernel, sanitized.

`reference_run` decides what the vectorized runs are compared with:

- the first time a kernel runs at a launch (kernel, IR, layout, NDRange,
  seed), it runs sanitized (oracle.sanitizer): an out-of-bounds access is a
  `scalar-fault`, a data race a `scalar-race`;
- when the layout was inferred, that first run is in probe mode: buffers the
  kernel reaches past are grown (at most `MAX_GROWTH` times) and every
  buffer is then sized to the bytes the kernel touched, so the vectorized
  runs' guard pages sit right after the last byte the reference used; the
  reference is then a plain run at that layout;
- when the layout was inferred, integer scalar arguments are first given
  the NDRange's extent along dimension 0 (offset + global size: they are
  most often sizes, row widths or bounds, and 1 would make `out[y * w + x]`
  a race), and the inferred 1 when the kernel does not run cleanly so;
  when both race, each integer scalar is given one of a few values of its
  own (`scalar_mixes`: the extent, 1, or 1, 2 or 4 times the local size:
  Parboil's FFT needs a stride of 1 and a size of the extent, its
  histogram a pitch of the local size and a row twice that), and the first
  combination that runs clean is the launch; an out-of-bounds access with
  integer buffers filled mod 64 (indices read from the data) is tried once
  more with them all 0;
- a launch whose sanitized run passed is remembered (per process): later
  checks of it run the plain, uninstrumented kernel, which is faster.

When the sanitizer cannot run (our IR cannot read the kernel, or the
instrumented run crashed or timed out where the plain one did not), the
plain run is the reference and `Reference.note` says why.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import time
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any

from vectorizer.builtins import async_copy

from . import worker as W
from .case import ArgSpec, NDRange
from .jit import PROBE, SANITIZED
from .sanitizer import PROBE_LIMIT

MAX_GROWTH = 4  # probe runs that may still find a buffer too small
# A sanitized run may take this many times the plain run before it times out.
SANITIZED_SLOWDOWN = 30.0

# Launch key -> the layout its sanitized run passed with (see the docstring).
_CLEAN: OrderedDict[str, tuple[ArgSpec, ...]] = OrderedDict()
_CLEAN_MAX = 4096


@dataclass
class Reference:
    """The outcome of `reference_run`."""

    status: str | None  # None: `result` is the reference; else scalar-fault / scalar-race
    detail: str
    layout: tuple[ArgSpec, ...]  # the layout every run of this NDRange uses
    result: tuple | None = None  # the worker's ("ok", buffers, seconds[, report])
    note: str = ""  # why the reference is not sanitized, when it is not


def launch_key(kernel: str, text: str, args: tuple[ArgSpec, ...], nd: NDRange, seed: int) -> str:
    """The identity of one launch of one kernel."""
    h = hashlib.sha1(kernel.encode() + b"\0" + text.encode())
    h.update(f"|{' '.join(map(str, args))}|{nd}|{nd.offset}|{seed}".encode())
    return h.hexdigest()


def known_clean(key: str) -> bool:
    """Has this launch already passed a sanitized run in this process?"""
    return key in _CLEAN


def _remember(key: str, layout: tuple[ArgSpec, ...]) -> None:
    _CLEAN[key] = layout
    _CLEAN.move_to_end(key)
    while len(_CLEAN) > _CLEAN_MAX:
        _CLEAN.popitem(last=False)


def _elem_bytes(a: ArgSpec) -> int:
    return max(1, a.nbytes // a.count) if a.count else ArgSpec(a.kind, a.elem, 1).nbytes


def _grow(layout: tuple[ArgSpec, ...], extents: list[int | None]) -> tuple[tuple[ArgSpec, ...] | None, str]:
    """The layout with every buffer the kernel reached past made large
    enough (with a quarter more, for data-dependent reaches); None and the
    reason when a buffer would be too large."""
    out = []
    for i, (a, hi) in enumerate(zip(layout, extents, strict=False)):
        if a.kind == "scalar" or hi is None or hi <= a.nbytes or a.image:  # images: read by the runtime
            out.append(a)
            continue
        want = min(PROBE_LIMIT, hi + hi // 4)
        if hi > PROBE_LIMIT:
            return None, (f"launch: buffer {i} is accessed {hi} bytes past its start, more than the"
                          f" oracle's limit of {PROBE_LIMIT >> 20} MiB: its size must come from"
                          " the kernel's arguments (give the layout in an `args:` header)")
        out.append(replace(a, count=math.ceil(want / _elem_bytes(a))))
    out += layout[len(out):]
    return tuple(out), ""


def _tighten(layout: tuple[ArgSpec, ...], extents: list[int | None]) -> tuple[ArgSpec, ...]:
    """Every buffer sized to the bytes the kernel touched (at least one element)."""
    out = []
    for a, hi in zip(layout, extents, strict=False):
        if a.kind == "scalar" or hi is None or a.image:  # an image's size is its format's
            out.append(a)
        else:
            out.append(replace(a, count=max(1, math.ceil(hi / _elem_bytes(a)))))
    out += layout[len(out):]
    return tuple(out)


def _failed(res: Any) -> str | None:
    """The scalar-fault detail of a failed plain run, else None."""
    if isinstance(res, W.Failure):
        return f"scalar run {res.kind}: {res.detail}"
    if res[0] != "ok":
        return f"scalar run: {res[1]}" if len(res) > 1 else f"scalar run: {res[0]}"
    return None


def scalar_candidates(args: tuple[ArgSpec, ...], nd: NDRange) -> list[tuple[ArgSpec, ...]]:
    """Inferred layouts to try, in order: integer scalars set to the
    NDRange's extent along dimension 0, then as inferred."""
    extent = str(nd.offset[0] + nd.global_size[0])
    sized = tuple(replace(a, value=extent) if a.kind == "scalar" and a.lanes == 1 and not a.image
                  and a.base in ("i16", "i32", "i64") else a for a in args)
    return [sized, args] if sized != args else [args]


# At most this many per-argument combinations are tried after the uniform
# candidates raced (each a short sanitized run that stops at the race).
MAX_MIXES = 24
MIX_SECONDS = 4.0  # all the combinations of one check together


def scalar_mixes(args: tuple[ArgSpec, ...], nd: NDRange) -> list[tuple[ArgSpec, ...]]:
    """Layouts whose integer scalars take values of their own, each from
    the extent along dimension 0, 1, and 1, 2 and 4 times the local size
    (scalars tied to the work-group's shape: a stride, a pitch, a row of
    R work-groups' worth), in a fixed order, without the uniform ones
    `scalar_candidates` tries; at most `MAX_MIXES`."""
    ints = [i for i, a in enumerate(args)
            if a.kind == "scalar" and a.lanes == 1 and a.base in ("i16", "i32", "i64") and not a.image]
    if not ints:
        return []
    loc = nd.local_size[0]
    menu = list(dict.fromkeys([nd.offset[0] + nd.global_size[0], 1, loc, 2 * loc, 4 * loc]))
    uniform = set(menu[:2])
    out: list[tuple[ArgSpec, ...]] = []
    for combo in itertools.product(menu, repeat=len(ints)):
        if len(set(combo)) == 1 and combo[0] in uniform:
            continue
        layout = list(args)
        for i, v in zip(ints, combo, strict=True):
            layout[i] = replace(args[i], value=str(v))
        out.append(tuple(layout))
        if len(out) == MAX_MIXES:
            break
    return out


# A candidate launch that is not the last one gets at most this long: a
# kernel whose loops run forever with sizes for scalars (a lit test's
# `while (n < 3)`) must not cost a full timeout per NDRange.
TRIAL_SECONDS = 2.0


def reference_run(sess: Any, pk: str, pv: list, args: tuple[ArgSpec, ...], nd: NDRange, seed: int,
                  sanitize: bool, size_buffers: bool, state: dict | None = None) -> Reference:
    """The reference of one NDRange (see the module docstring). `sess` is
    the check's session (`oracle.check._Session`); `pk`/`pv` name its
    program; `sanitize` is False when the program has no sanitized copy.
    `state` (one dict per check) remembers which scalar candidate the
    earlier NDRanges settled on: the later ones start there."""
    if not size_buffers:
        return _reference(sess, pk, pv, args, nd, seed, sanitize, False)
    state = {} if state is None else state
    trial = min(sess.timeout, TRIAL_SECONDS)
    mixed = state.get("mixed")
    if mixed is not None:
        # An earlier NDRange settled on a combination: start there.
        mixes = scalar_mixes(args, nd)
        if mixed < len(mixes):
            ref = _reference(sess, pk, pv, mixes[mixed], nd, seed, sanitize, True)
            if ref.status is None:
                return ref
    cands = scalar_candidates(args, nd)
    start = min(state.get("candidate", 0), len(cands) - 1)
    ref = None
    for i in range(start, len(cands)):
        last = i == len(cands) - 1
        ref = _reference(sess, pk, pv, cands[i], nd, seed, sanitize, True, None if last else trial)
        if ref.status is None or last:
            state["candidate"] = i
            break
    assert ref is not None
    if (ref.status == "scalar-fault" and "out-of-bounds" in ref.detail and sanitize
            and not state.get("zero_failed")):
        # Indices read from integer buffers (filled mod 64) may be valid only
        # small (`table[io[0]]` of a 2-entry table): try them all 0.
        zeroed = tuple(replace(a, init="zero") if a.kind == "buf" and a.init == "mod64" else a
                       for a in cands[state["candidate"]])
        if zeroed != cands[state["candidate"]]:
            got = _reference(sess, pk, pv, zeroed, nd, seed, sanitize, True, trial)
            if got.status is None:
                return got
            state["zero_failed"] = True
    if ref.status != "scalar-race" or not sanitize or state.get("mixes_failed"):
        return ref
    # Uniform values race: scalars tied to each other or to the local size?
    # (At most MIX_SECONDS in all: a racy input must not cost a minute.)
    t0 = time.monotonic()
    for j, layout in enumerate(scalar_mixes(args, nd)):
        left = MIX_SECONDS - (time.monotonic() - t0)
        if left <= 0:
            break
        got = _reference(sess, pk, pv, layout, nd, seed, sanitize, True, min(trial, left))
        if got.status is None:
            state["mixed"] = j
            return got
    state["mixes_failed"] = True
    return ref


def _reference(sess: Any, pk: str, pv: list, args: tuple[ArgSpec, ...], nd: NDRange, seed: int,
               sanitize: bool, size_buffers: bool, trial: float | None = None) -> Reference:
    """One launch. `trial`: a candidate's time budget (no fallback to a
    plain run when it does not answer)."""
    key = launch_key(sess.kernel, sess.text, args, nd, seed)
    if not sanitize or key in _CLEAN:
        layout = _CLEAN.get(key, args)
        res = sess.run(pk, pv, "", layout, nd, seed)
        bad = _failed(res)
        if bad:
            return Reference("scalar-fault", bad, layout)
        return Reference(None, "", layout, res, "" if key in _CLEAN else "the sanitizer is not available")
    layout = args
    mode = PROBE if size_buffers else SANITIZED
    for _ in range(MAX_GROWTH + 1):
        res = sess.run(pk, pv, mode, layout, nd, seed, trial)
        if isinstance(res, W.Failure) or res[0] != "ok" or len(res) < 4:
            if trial is not None:
                return Reference("scalar-fault", _failed(res) or "no report", layout)
            return _fallback(sess, pk, pv, layout, nd, seed, res, mode)
        rep = res[3]
        if rep["redirected"] == 0 or rep.get("far"):
            break
        grown, why = _grow(layout, rep["extents"])
        if grown is None:
            return Reference("scalar-fault", why, layout)
        layout = grown
    else:
        return Reference("scalar-fault", "launch: the buffers the kernel reaches keep growing with their"
                         " size (indices read from the buffers?): give the layout in an `args:` header", layout)
    if rep["status"] == "race":
        return Reference("scalar-race", rep["detail"], layout)
    if rep.get("far"):
        return Reference("scalar-fault", f"launch: an inferred buffer would have to exceed {PROBE_LIMIT >> 20} MiB"
                         " (the kernel's indices do not stay within a size the oracle can guess; give the"
                         f" layout in an `args:` header): {rep['detail']}", layout)
    if rep["status"] != "clean":
        return Reference("scalar-fault", rep["detail"], layout)
    if size_buffers and not async_copy.used_by(sess.text):
        # (The runtime's work-group copies reach bytes the sanitizer does not
        # see: a kernel using them keeps the generous inferred sizes.)
        layout = _tighten(layout, rep["extents"])
        res = sess.run(pk, pv, "", layout, nd, seed)
        bad = _failed(res)
        if bad:
            return Reference("scalar-fault", bad, layout)
    _remember(key, layout)
    return Reference(None, "", layout, res)


def _fallback(sess: Any, pk: str, pv: list, layout: tuple[ArgSpec, ...], nd: NDRange, seed: int,
              sres: Any, mode: str) -> Reference:
    """The sanitized run did not answer (crash, timeout): is the kernel at
    fault (the plain run fails too), or only the instrumented run?"""
    if not isinstance(sres, W.Failure) and sres[0] == "overrun":
        return Reference("scalar-fault", f"scalar run: {sres[1]}", layout)
    hung = isinstance(sres, W.Failure) and sres.kind == "timeout"
    plain = sess.run(pk, pv, "", layout, nd, seed, sess.timeout / 4 if hung else None)
    bad = _failed(plain)
    if bad:
        if hung:
            bad = (f"scalar run timeout: the sanitized run gave no answer within {sess.timeout:g}s,"
                   f" the plain one none within {sess.timeout / 4:g}s")
        return Reference("scalar-fault", bad, layout)
    if isinstance(sres, W.Failure) and sres.kind == "timeout":
        # A kernel near the time limit: give the sanitized run time in
        # proportion to the plain run's. (A kernel that hangs costs the plain
        # run's quarter of the limit more.)
        budget = max(sess.timeout, SANITIZED_SLOWDOWN * plain[2])
        again = sess.run(pk, pv, mode, layout, nd, seed, budget)
        if not isinstance(again, W.Failure) and again[0] == "ok" and len(again) >= 4:
            rep = again[3]
            if rep["status"] == "race":
                return Reference("scalar-race", rep["detail"], layout)
            if rep["status"] != "clean":
                return Reference("scalar-fault", rep["detail"], layout)
            if rep["redirected"] == 0:
                return Reference(None, "", layout, plain)
    what = sres.detail if isinstance(sres, W.Failure) else str(sres[:2])
    return Reference(None, "", layout, plain, f"the sanitized run failed where the plain one did not: {what}")
