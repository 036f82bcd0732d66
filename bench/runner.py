"""Run one benchmark kernel in every configuration: check each against the
scalar run (every output byte), then time them all (median of repeated runs).

The timed runs go round-robin over the configurations (scalar, loopvec, w4,
... scalar, loopvec, w4, ...) rather than one configuration's runs after
another's, so a drift of the machine's speed during the run (frequency,
neighbours on a shared host) falls on every configuration alike and the
ratios between them stay fair.

Configurations, in order:
- `scalar`: the work-item loop at -O3, LoopVectorize and SLP off;
- `loopvec`: the same loop with LoopVectorize and SLP on (PoCL's approach);
- `w4`, `w8`, `w16`..., `auto`: our `vectorize()` output, driven in W-chunks
  plus a scalar remainder, at -O3 without LoopVectorize/SLP;
- `peer`: another vectorizer's output (`--peer` command template).

Each kernel runs in a child process, so a configuration that faults costs
that kernel's row, not the whole benchmark.
"""

from __future__ import annotations

import multiprocessing
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from typing import Any

from . import runtime
from .suite import KERNELS, Kernel

SCALAR = "scalar"
LOOPVEC = "loopvec"


@dataclass
class Measurement:
    """One configuration of one kernel."""

    config: str
    status: str  # ok | refused | mismatch | error | crashed | skipped
    width: int | None = None
    detail: str = ""
    seconds: float | None = None
    items_per_second: float | None = None
    vs_scalar: float | None = None
    vs_loopvec: float | None = None
    vectorize_seconds: float | None = None
    build_seconds: float | None = None
    # Run-to-run spread of the timed runs: (slowest - fastest) / median.
    spread: float | None = None


@dataclass
class KernelResult:
    """Every configuration of one kernel."""

    kernel: str
    description: str
    items: int
    measurements: list[Measurement] = field(default_factory=list)

    def get(self, config: str) -> Measurement | None:
        return next((m for m in self.measurements if m.config == config), None)

    def to_json(self) -> dict[str, Any]:
        return {"kernel": self.kernel, "description": self.description, "items": self.items,
                "results": [asdict(m) for m in self.measurements]}


@dataclass
class Options:
    """What to run."""

    size: str = "default"
    widths: tuple[int, ...] = (4, 8, 16)
    auto: bool = True
    repeat: int = 5
    peer: str | None = None
    peer_width: int = 8
    crashed: tuple[str, ...] = ()  # configurations that crashed an earlier attempt: not run again
    progress_file: str | None = None  # the configuration being run is written here


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _starting(opts: Options, kernel: str, config: str) -> bool:
    """Announce `config`; False when it crashed before and must be skipped."""
    if config in opts.crashed:
        return False
    _log(f"  {kernel}: {config}")
    _progress(opts, config)
    return True


def _progress(opts: Options, config: str) -> None:
    """Record the configuration about to run natively, for crash attribution."""
    if opts.progress_file:
        with open(opts.progress_file, "w") as f:
            f.write(config)


def _one_line(text: str, limit: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _peer_module(cmd: str, kernel: Kernel, width: int) -> tuple[str | None, str | None, str]:
    """Run the peer command; (module text, vectorized function, detail)."""
    with tempfile.TemporaryDirectory(prefix="vecz-bench-peer-") as tmp:
        out = os.path.join(tmp, f"{kernel.name}.vec.ll")
        line = cmd.format(kernel=kernel.name, width=width, dim=0, input=str(kernel.ir_path), output=out)
        try:
            proc = subprocess.run(shlex.split(line), capture_output=True, text=True, timeout=600)
        except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
            return None, None, f"peer command failed: {exc}"
        if proc.returncode != 0 or not os.path.exists(out):
            return None, None, f"peer exit {proc.returncode}: {_one_line(proc.stderr)}"
        with open(out, "rb") as f:
            data = f.read()
    from vectorizer import llvm_bridge

    try:
        text = llvm_bridge.canonicalize(data)
    except llvm_bridge.IRError as exc:
        return None, None, f"peer output is not valid IR: {exc}"
    m = re.search(rf"^define [^@]*@\"?(__vecz_v\d+_{re.escape(kernel.name)})\"?\(", text, re.M)
    if not m:
        return text, None, "peer did not vectorize the kernel"
    return text, m.group(1), ""


@dataclass
class _Timed:
    """A configuration that passed its check, waiting for its timed runs."""

    measurement: Measurement
    program: runtime.Program
    times: list[float] = field(default_factory=list)


def _check(label: str, launch: runtime.Launch, program: runtime.Program, reference: list[bytes] | None,
           pending: list[_Timed]) -> Measurement:
    """Warm-up and correctness run; a configuration that passes is queued for timing."""
    launch.run(program)
    if reference is not None:
        outs = launch.outputs()
        bad = [i for i, (a, b) in enumerate(zip(outs, reference, strict=True)) if a != b]
        if bad:
            return Measurement(label, "mismatch", detail=f"buffer(s) {bad} differ from the scalar run")
    m = Measurement(label, "ok", build_seconds=program.compile_seconds)
    pending.append(_Timed(m, program))
    return m


def _time_round_robin(pending: list[_Timed], launch: runtime.Launch, opts: Options, items: int) -> None:
    """`opts.repeat` rounds, each running every queued configuration once."""
    for _ in range(opts.repeat):
        for t in pending:
            _progress(opts, t.measurement.config)
            t.times.append(launch.run(t.program))
    for t in pending:
        med = statistics.median(t.times)
        m = t.measurement
        m.seconds = med
        m.items_per_second = items / med if med > 0 else None
        m.spread = (max(t.times) - min(t.times)) / med if med > 0 else None


def run_kernel(name: str, opts: Options) -> KernelResult:
    """Every configuration of kernel `name` (run in the current process)."""
    from vectorizer import vectorize

    kernel = KERNELS[name]
    problem = kernel.make(opts.size)
    text = kernel.ir()
    launch = runtime.Launch(problem.args, problem.nd)
    res = KernelResult(name, kernel.description, problem.nd.items)
    items = problem.nd.items

    pending: list[_Timed] = []
    _starting(opts, name, SCALAR)
    prog = runtime.build(text, name)
    res.measurements.append(_check(SCALAR, launch, prog, None, pending))
    reference = launch.outputs()

    if _starting(opts, name, LOOPVEC):
        res.measurements.append(_check(LOOPVEC, launch, runtime.build(text, name, loop_vectorize=True),
                                       reference, pending))
    else:
        res.measurements.append(Measurement(LOOPVEC, "crashed", detail="the native run crashed"))

    configs: list[tuple[str, int | None]] = [(f"w{w}", w) for w in opts.widths]
    if opts.auto:
        configs.append(("auto", None))
    for label, width in configs:
        if not _starting(opts, name, label):
            res.measurements.append(Measurement(label, "crashed", width, "the native run crashed (vector fault)"))
            continue
        t0 = time.perf_counter()
        try:
            r = vectorize(text, kernel=name, width=width or 4, dim=0, auto=width is None)
        except Exception as exc:  # the vectorizer's own failure is a result, not a crash
            res.measurements.append(Measurement(label, "error", width, f"vectorizer: {_one_line(exc)}"))
            continue
        vsec = time.perf_counter() - t0
        if r.vectorized_name is None:
            res.measurements.append(Measurement(label, "refused", r.width, _one_line("; ".join(r.remarks) or "no reason"),
                                                vectorize_seconds=vsec))
            continue
        res.measurements.append(_run_vector(label, r.ir, name, r.vectorized_name, r.width, launch, reference,
                                            pending, vsec))

    if opts.peer and not _starting(opts, name, "peer"):
        res.measurements.append(Measurement("peer", "crashed", opts.peer_width, "the native run crashed"))
    elif opts.peer:
        ptext, pfn, detail = _peer_module(opts.peer, kernel, opts.peer_width)
        if pfn is None:
            res.measurements.append(Measurement("peer", "refused" if ptext else "error", opts.peer_width, detail))
        else:
            w = int(re.match(r"__vecz_v(\d+)_", pfn).group(1))
            res.measurements.append(_run_vector("peer", ptext, name, pfn, w, launch, reference, pending, None))

    _log(f"  {name}: timing {len(pending)} configuration(s), {opts.repeat} round(s)")
    _time_round_robin(pending, launch, opts, items)
    base = {c: res.get(c) for c in (SCALAR, LOOPVEC)}
    for m in res.measurements:
        if m.status != "ok" or not m.seconds:
            continue
        for key, attr in ((SCALAR, "vs_scalar"), (LOOPVEC, "vs_loopvec")):
            b = base[key]
            if b is not None and b.status == "ok" and b.seconds:
                setattr(m, attr, b.seconds / m.seconds)
    return res


def _run_vector(label: str, text: str, kernel: str, fn: str, width: int | None, launch: runtime.Launch,
                reference: list[bytes], pending: list[_Timed], vsec: float | None) -> Measurement:
    try:
        prog = runtime.build(text, kernel, vector=(fn, int(width or 1)))
    except runtime.BuildFailure as exc:
        return Measurement(label, "error", width, f"build: {_one_line(exc)}", vectorize_seconds=vsec)
    m = _check(label, launch, prog, reference, pending)
    m.width = width
    m.vectorize_seconds = vsec
    return m


def _child(name: str, opts: Options) -> KernelResult:
    return run_kernel(name, opts)


def run_all(names: list[str], opts: Options) -> list[KernelResult]:
    """Run `names` one after the other, each in a fresh child process. A
    configuration that crashes the child is recorded as `crashed` and the
    kernel is run again without it."""
    import dataclasses

    results = []
    ctx = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory(prefix="vecz-bench-") as tmp:
        progress = os.path.join(tmp, "progress")
        for i, name in enumerate(names, 1):
            _log(f"[{i}/{len(names)}] {name}")
            crashed: list[str] = []
            while True:
                kopts = dataclasses.replace(opts, crashed=tuple(crashed), progress_file=progress)
                with ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
                    try:
                        results.append(pool.submit(_child, name, kopts).result())
                        break
                    except BrokenProcessPool:
                        with open(progress) as f:
                            where = f.read().strip()
                        _log(f"  {name}: {where} crashed the process; running the others again")
                        if where == SCALAR or where in crashed:
                            results.append(_failed(name, opts, "crashed", f"{where} crashed the process"))
                            break
                        crashed.append(where)
                    except Exception as exc:  # a harness failure on one kernel keeps the others
                        results.append(_failed(name, opts, "error", _one_line(f"{type(exc).__name__}: {exc}")))
                        break
    return results


def _failed(name: str, opts: Options, status: str, detail: str) -> KernelResult:
    k = KERNELS[name]
    res = KernelResult(name, k.description, k.make(opts.size).nd.items)
    res.measurements.append(Measurement(SCALAR, status, detail=detail))
    return res
