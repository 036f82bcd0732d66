"""What the sanitized reference costs: the oracle's scalar reference run of
every benchmark kernel, plain and sanitized (oracle.sanitizer: bounds and
race checks on every access), on the benchmark's own inputs.

    python -m bench.sanitizer_cost [--size small|default] [--repeat N] [--opt 0-3] [KERNEL...]

Both runs use one program, compiled as the oracle compiles it (`--opt`, by
default 0 like `vecz-oracle`), and the same buffers. Prints per kernel the
best-of-N time of each run and their ratio (sanitized / plain), then the
largest ratio; exit 1 if a sanitized run reports a fault or a race (the
benchmark's inputs are valid).

Times are the running thread's CPU time (`--wall`: elapsed time): on a
shared machine other processes stretch the elapsed time of a run by a
factor that changes from run to run (measured under a load of 12 on 2
cores: saxpy's plain run 4 to 90 ms elapsed, 5 to 12 ms of CPU), which a
ratio of two such times does not survive. Work-group kernels
(bench/kernels/workgroup) run on the oracle's fibers, both runs.
"""

from __future__ import annotations

import argparse
import ctypes
import struct
import sys
import time

import numpy as np

from oracle import jit
from oracle.buffers import GuardedBuffer
from oracle.case import ArgSpec
from oracle.runtime import ARG_SLOT, CFG_SLOTS

from .runtime import Buffer, Local
from .suite import KERNELS, SIZES

_ELEM = {"float32": "f32", "int32": "i32", "uint32": "i32", "float64": "f64", "int64": "i64", "uint64": "i64"}


def _layout(problem) -> tuple[list[ArgSpec], list[np.ndarray | None]]:
    specs, data = [], []
    for a in problem.args:
        if isinstance(a, Local):
            specs.append(ArgSpec("local", "i8", a.nbytes))
            data.append(np.zeros(a.nbytes, np.uint8))
        elif isinstance(a, Buffer):
            specs.append(ArgSpec("buf", _ELEM[a.data.dtype.name], int(a.data.size)))
            data.append(a.data)
        else:
            specs.append(ArgSpec("scalar", _ELEM[np.dtype(a.dtype).name], value=str(a.value)))
            data.append(None)
    return specs, data


class _Launch:
    """The oracle's argument blob and NDRange configuration over guarded buffers."""

    def __init__(self, specs: list[ArgSpec], data: list[np.ndarray | None], nd, wall: bool = False) -> None:
        self.bufs = [GuardedBuffer(s) if s.kind != "scalar" else None for s in specs]
        self.data = data
        self.clock = time.perf_counter if wall else time.thread_time
        self.blob = (ctypes.c_uint8 * (ARG_SLOT * max(1, len(specs))))()
        for i, (s, b) in enumerate(zip(specs, self.bufs, strict=True)):
            at = ctypes.addressof(self.blob) + ARG_SLOT * i
            if b is not None:
                ctypes.memmove(at, struct.pack("<Q", b.address), 8)
            else:
                raw = np.array([float(s.value) if s.base.startswith("f") else int(s.value)],
                               dtype={"f32": "<f4", "f64": "<f8", "i32": "<i4", "i64": "<i8"}[s.base]).tobytes()
                ctypes.memmove(at, raw, len(raw))
        # Local buffers: (address, bytes) pairs after the fixed slots, as
        # the oracle's workers pass them (the drivers zero them per group).
        locals_ = [(b.address, s.nbytes) for s, b in zip(specs, self.bufs, strict=True) if s.kind == "local"]
        self.cfg = (ctypes.c_uint64 * (CFG_SLOTS + 2 * len(locals_)))()
        for d in range(3):
            self.cfg[d] = nd.local_size[d]
            self.cfg[3 + d] = nd.global_size[d] // nd.local_size[d]
        self.cfg[9] = nd.work_dim
        self.cfg[10] = len(locals_)
        for k, (addr, nbytes) in enumerate(locals_):
            self.cfg[CFG_SLOTS + 2 * k] = addr
            self.cfg[CFG_SLOTS + 2 * k + 1] = nbytes

    def run(self, prog: jit.Program, key: str) -> tuple[float, dict | None]:
        for b, d in zip(self.bufs, self.data, strict=True):
            if b is not None:
                b.array[...] = d.view(b.array.dtype)
        t0 = self.clock()
        rep = prog.run(key, ctypes.addressof(self.blob), ctypes.addressof(self.cfg), self.bufs)
        return self.clock() - t0, rep


MIN_SECONDS = 0.2  # sanitized seconds a kernel is run for at least (up to MAX_REPEAT runs)
MAX_REPEAT = 100


def measure(name: str, size: str, repeat: int, opt: int, wall: bool = False) -> tuple[float, float, str]:
    """(plain seconds, sanitized seconds, sanitizer verdict) of one kernel."""
    k = KERNELS[name]
    problem = k.make(size)
    prog = jit.build(name, k.ir(), [jit.Variant(jit.SANITIZED, name, "", 0, 0, False)], opt)
    if prog.sanitizer is None:
        raise RuntimeError(f"{name}: {prog.errors.get(jit.SANITIZED)}")
    specs, data = _layout(problem)
    launch = _Launch(specs, data, problem.nd, wall)
    # Plain and sanitized runs alternate, so that both meet the same
    # machine; a short kernel runs more times (until MIN_SECONDS of each
    # kind), a run of tens of microseconds being easily disturbed.
    plain = best = float("inf")
    verdict, spent, n = "clean", 0.0, 0
    while n < repeat or (spent < MIN_SECONDS and n < MAX_REPEAT):
        dt, _ = launch.run(prog, "")
        plain = min(plain, dt)
        dt, rep = launch.run(prog, jit.SANITIZED)
        best = min(best, dt)
        spent += dt
        n += 1
        if rep and rep["status"] != "clean":
            verdict = rep["status"] + ": " + rep["detail"]
    return plain, best, verdict


def main(argv: list[str] | None = None) -> int:
    """`python -m bench.sanitizer_cost`."""
    ap = argparse.ArgumentParser(prog="python -m bench.sanitizer_cost", description=__doc__.split("\n\n")[0])
    ap.add_argument("kernels", nargs="*", help="benchmark kernels (default: all)")
    ap.add_argument("--size", choices=SIZES, default="small")
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs of each kind at least (more for short kernels); the best counts (default 3)")
    ap.add_argument("--opt", type=int, choices=range(4), default=0, help="JIT optimisation level (default 0)")
    ap.add_argument("--wall", action="store_true", help="time elapsed seconds, not the thread's CPU time")
    ns = ap.parse_args(argv)
    names = ns.kernels or list(KERNELS)
    unknown = [n for n in names if n not in KERNELS]
    if unknown:
        print(f"sanitizer_cost: error: unknown kernel(s) {', '.join(unknown)}", file=sys.stderr)
        return 2
    jit.initialize()
    worst, bad = 0.0, False
    print(f"{'kernel':14} {'plain ms':>10} {'sanitized ms':>13} {'ratio':>7}   ({'elapsed' if ns.wall else 'CPU'} time)")
    for n in names:
        plain, san, verdict = measure(n, ns.size, max(1, ns.repeat), ns.opt, ns.wall)
        ratio = san / plain if plain > 0 else float("inf")
        worst = max(worst, ratio)
        note = "" if verdict == "clean" else f"  {verdict[:120]}"
        bad |= verdict != "clean"
        print(f"{n:14} {plain * 1e3:10.2f} {san * 1e3:13.2f} {ratio:6.2f}x{note}")
    print(f"largest ratio: {worst:.2f}x")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
