"""Cross-check our scalar reference with Oclgrind, an independent OpenCL
simulator, on every OpenCL C kernel we have source for.

    python -m oracle.crosscheck [--suite bench,csmith,rodinia,...] [--jobs N]
        [--csmith-seeds 0-49] [--ndranges N] [--timeout S] [--json FILE] [-v]

For each kernel: our launch inference (`oracle.infer`) gives the argument
layout and NDRanges; the initial contents of every buffer are the oracle's
own (`oracle.buffers.initial_contents`), written into an Oclgrind simulation
file with the scalar arguments; our scalar reference runs the kernel's LLVM
22 IR natively (`oracle.check_scalar` for its verdict, `oracle.run_scalar`
for the buffers); Oclgrind compiles the OpenCL C source with its own clang
and interprets it with its data-race check on (its uninitialized-value
check too, where the outputs differ: to say why).
Both give a verdict (`Verdict`: clean, out-of-bounds, race, fault, timeout,
unsupported); when both are clean every global buffer is compared, integers
exactly, floating point exactly too unless the kernel calls a builtin that
OpenCL specifies only to an ULP bound (see `ULP_BOUNDS`). Prints one table
per suite (agree, disagree, only-ours, only-oclgrind, neither) and every
reason. Exit 0 when nothing disagrees, 1 when something does, 2 on bad
usage or when Oclgrind is missing and cannot be installed. See
docs/crosscheck.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from .case import ELEM_DTYPES, ArgSpec, Case, CaseError, NDRange, parse_case
from .crosscheck_suites import DEFAULT_SUITES, SUITES, CrossKernel, Prepared, kernels
from .oclgrind import OclgrindError, OclgrindRun, ensure_oclgrind, run_kernel

CATEGORIES = ("agree", "disagree", "only-ours", "only-oclgrind", "neither")

# OpenCL C 1.2, section 7.4 (table 7.1): the largest error, in ULPs, the full
# profile allows for single-precision builtins that need not be correctly
# rounded (double precision allows the same or less). Both references are
# within the bound of the exact result, so they may differ by twice it.
# Not listed: the builtins both compute exactly (fabs, floor, fma, fmin,
# fmod, sqrt and x / y, which both round correctly here, ...). native_X is
# "implementation-defined": both references compute X for it (our runtime
# forwards it to X's intrinsic, Oclgrind to X), so X's bound applies. lgamma
# has no bound in the specification; tgamma's is used.
ULP_BOUNDS: dict[str, float] = {
    "acos": 4, "acosh": 4, "acospi": 5, "asin": 4, "asinh": 4, "asinpi": 5, "atan": 5,
    "atan2": 6, "atanh": 5, "atanpi": 5, "atan2pi": 6, "cbrt": 2, "cos": 4, "cosh": 4,
    "cospi": 4, "erfc": 16, "erf": 16, "exp": 3, "exp2": 3, "exp10": 3, "expm1": 3,
    "hypot": 4, "log": 3, "log2": 3, "log10": 3, "log1p": 2, "pow": 16, "pown": 16,
    "powr": 16, "rootn": 16, "rsqrt": 2, "sin": 4, "sincos": 4, "sinh": 4, "sinpi": 4,
    "tan": 5, "tanh": 5, "tanpi": 6, "tgamma": 16, "lgamma": 16, "lgamma_r": 16,
}
HALF_ULPS = 8192  # half_X: 8192 ULPs (table 7.1)
_INTRINSIC = re.compile(r"@llvm\.(\w+?)\.(?:v\d+)?f(?:16|32|64)\b")
_MANGLED = re.compile(r"@(_Z\d+\w+)\(")


def ulp_bound(ir: str) -> tuple[float, list[str]]:
    """The tolerance (ULPs) for the float outputs of a kernel whose IR is
    `ir`, and the builtins it comes from: twice the largest bound of the
    ULP-bounded builtins it calls (0 when it calls none)."""
    from .runtime import base_name

    names: set[str] = set()
    for m in _MANGLED.finditer(ir):
        b = base_name(m.group(1))
        if b:
            names.add(b)
    names |= {m.group(1) for m in _INTRINSIC.finditer(ir)}
    bounds: dict[str, float] = {}
    for n in names:
        if n.startswith("half_") and n[5:] in ULP_BOUNDS | {"divide": 0, "sqrt": 0, "recip": 0}:
            bounds[n] = HALF_ULPS
        elif n.removeprefix("native_") in ULP_BOUNDS:
            bounds[n] = ULP_BOUNDS[n.removeprefix("native_")]
    if not bounds:
        return 0.0, []
    return 2 * max(bounds.values()), sorted(bounds)


# ---------------------------------------------------------------- verdicts


@dataclass(frozen=True)
class Verdict:
    """What one reference says about one run, in terms both can say.

    kind: `clean` (ran, no defect found), `out-of-bounds`, `race`, `fault`
    (another crash: division by zero ...), `timeout`, `unsupported` (cannot
    run the kernel at all)."""

    kind: str
    detail: str = ""


def our_verdict(status: str, detail: str) -> Verdict:
    """Map our reference's status (`oracle.check_scalar`) to a `Verdict`.

    Today's reference says `scalar-fault` for a guard-page fault or a write
    into a buffer's trailing canary (out of bounds, if the access reaches
    the page next to the buffer), a SIGFPE, a timeout, and for a result that
    changes when the work-items run in the reverse order (a race). The
    sanitized reference (branch `sanitizer`) adds `scalar-race` and
    `scalar-fault` with reason `out-of-bounds`; both are mapped here already."""
    low = detail.lower()
    if status == "match":
        return Verdict("clean", detail)
    if status == "scalar-race":
        return Verdict("race", detail)
    if status == "unsupported-input":
        return Verdict("unsupported", detail)
    if status == "scalar-fault":
        if "out-of-bounds" in low or "sigsegv" in low or "sigbus" in low or "wrote past the end" in low:
            return Verdict("out-of-bounds", detail)
        if "work-items' order" in low or "data race" in low:
            return Verdict("race", detail)
        if "timeout" in low or "no answer within" in low:
            return Verdict("timeout", detail)
        return Verdict("fault", detail)
    if status == "timeout":
        return Verdict("timeout", detail)
    return Verdict("fault", f"{status}: {detail}")


# "'dump' only valid for memory objects": a struct the kernel takes by value
# (Rodinia's heartwall and lavaMD), which our layouts pass as a buffer and a
# simulation file then cannot.
_CANNOT_RUN = re.compile(r"FATAL ERROR|Undefined external function|Failed to create kernel|"
                         r"Unsupported|Unhandled|not implemented|Oclgrind crashed|"
                         r"only valid for memory objects", re.I)


def oclgrind_verdict(run: OclgrindRun) -> Verdict:
    """Map an Oclgrind run to a `Verdict`. Uses of uninitialized values are
    not a verdict (our reference cannot see them); they explain an output
    difference when there is one (`compare_run`)."""
    if run.status == "build-error":
        return Verdict("unsupported", f"build error: {run.detail}")
    if run.status == "timeout":
        return Verdict("timeout", run.detail)
    if run.status == "error" and _CANNOT_RUN.search(run.detail):
        # Its interpreter lacks something the kernel uses: not a verdict on it.
        return Verdict("unsupported", f"cannot run: {run.detail}")
    kinds = run.kinds()
    for kind, verdict in (("out-of-bounds", "out-of-bounds"), ("data-race", "race")):
        if kind in kinds:
            d = next(x for x in run.diagnostics if x.kind == kind)
            return Verdict(verdict, d.short())
    if run.status != "ok":
        other = [d.short() for d in run.diagnostics if d.kind == "other"]
        return Verdict("fault", "; ".join(other[:2]) or run.detail)
    other = [d for d in run.diagnostics if d.kind == "other"]
    if other:
        return Verdict("fault", other[0].short())
    return Verdict("clean")


# ---------------------------------------------------------------- comparison


def _ordered(bits: np.ndarray, width: int) -> np.ndarray:
    """Float bit patterns as integers ordered like the floats (-0 == +0)."""
    signed = bits.astype(np.int64) if width < 64 else bits.view(np.int64)
    sign = np.int64(1) << (width - 1)
    if width < 64:
        signed = np.where(signed >= sign, signed - (sign << 1), signed)
        return np.where(signed < 0, -(signed + sign), signed)
    return np.where(signed < 0, -(signed ^ np.int64(np.iinfo(np.int64).min)), signed)


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per-element distance in ULPs between two float arrays of one dtype
    (0 where both are NaN, infinite where only one is)."""
    width = a.dtype.itemsize * 8
    ui = np.dtype(f"<u{a.dtype.itemsize}")
    oa, ob = _ordered(a.view(ui), width), _ordered(b.view(ui), width)
    # |oa - ob| in wrapping unsigned arithmetic: exact below 2^63 (float64
    # would lose the last ULPs of doubles).
    d = oa.view(np.uint64) - ob.view(np.uint64)
    dist = np.minimum(d, -d).astype(np.float64)
    na, nb = np.isnan(a), np.isnan(b)
    dist[na & nb] = 0.0
    dist[na ^ nb] = np.inf
    return dist


@dataclass
class BufferDiff:
    """The comparison of all global buffers of one run."""

    equal: bool  # bit-identical (NaN = NaN)
    within: bool  # equal, or float differences within the tolerance
    detail: str = ""
    max_ulps: float = 0.0


def compare_buffers(args: Sequence[ArgSpec], ours: Sequence[bytes | None],
                    theirs: Sequence[bytes | None], tol_ulps: float) -> BufferDiff:
    """Compare every global buffer: integers exactly, floats NaN = NaN and
    within `tol_ulps` ULPs (0: exactly, signed zeros distinct)."""
    res = BufferDiff(True, True)
    first = ""
    for i, (a, o, t) in enumerate(zip(args, ours, theirs, strict=True)):
        if a.kind != "buf" or o is None or t is None or o == t:
            continue
        dtype = np.dtype(ELEM_DTYPES[a.base])
        oa, ta = np.frombuffer(o, dtype), np.frombuffer(t, dtype)
        if dtype.kind == "f":
            dist = ulp_distance(oa, ta)
            both_nan = np.isnan(oa) & np.isnan(ta)
            differ = (oa.view(f"<u{dtype.itemsize}") != ta.view(f"<u{dtype.itemsize}")) & ~both_nan
            if not differ.any():
                continue
            res.equal = False
            worst = float(dist[differ].max())
            res.max_ulps = max(res.max_ulps, worst)
            if worst > tol_ulps:
                res.within = False
            idx = np.flatnonzero(differ)
            k = int(idx[np.argmax(dist[differ])])
            first = first or (f"argument {i} [{k // a.lanes}]: ours {oa[k]!r} ({float(oa[k]).hex()}), "
                              f"oclgrind {ta[k]!r} ({float(ta[k]).hex()}), {worst:g} ulp; "
                              f"{idx.size} of {oa.size} elements differ")
        else:
            differ = oa != ta
            idx = np.flatnonzero(differ)
            res.equal = res.within = False
            k = int(idx[0])
            first = first or (f"argument {i} [{k // a.lanes}]: ours {int(oa[k]):#x}, oclgrind "
                              f"{int(ta[k]):#x}; {idx.size} of {oa.size} elements differ")
    res.detail = first
    return res


# ---------------------------------------------------------------- one kernel


@dataclass
class RunResult:
    """Both references on one NDRange."""

    ndrange: str
    ours: Verdict
    oclgrind: Verdict
    category: str  # one of CATEGORIES
    reason: str  # short, for the table's reason counts
    detail: str = ""
    max_ulps: float = 0.0
    notes: list[str] = field(default_factory=list)  # Oclgrind warnings that are no verdict


@dataclass
class KernelResult:
    """The cross-check of one kernel: its worst NDRange decides."""

    suite: str
    name: str
    category: str
    reason: str
    detail: str = ""
    runs: list[RunResult] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict (for `--json`)."""
        return asdict(self)


def _queried_dims(ir: str) -> set[int]:
    dims: set[int] = set()
    # Call sites only: a declaration's `(i32 noundef)` names no dimension.
    for m in re.finditer(r"call [^@\n]*@(?:_Z\d+get_\w+?j|__mux_get_\w+)\(i(?:32|64)"
                         r"(?: noundef)?(?: range\([^)]*\))? ([^,)\s]+)\)", ir):
        arg = m.group(1)
        dims |= {int(arg)} if arg.isdigit() else {0, 1, 2}
    return dims & {0, 1, 2}


def pick_ndranges(case: Case, limit: int = 2) -> list[NDRange]:
    """The NDRanges both references run: the case's, with the offset dropped
    and `work_dim` 3 (Oclgrind's simulation files have neither an offset nor
    fewer dimensions); the first one, and the first one that spans
    dimensions 1 or 2 when the kernel queries them. A kernel without a
    global buffer runs one group of 4 work-items."""
    if not any(a.kind == "buf" for a in case.args or ()):
        # No global buffer: only the verdicts can be compared, and tests
        # of builtins (PoCL's) repeat their whole test in every work-item.
        return [NDRange((4, 1, 1), (4, 1, 1), (0, 0, 0), 3)]
    uses_yz = bool(_queried_dims(case.ir) - {0})
    out: list[NDRange] = []
    for nd in case.ndranges:
        multi = nd.global_size[1] > 1 or nd.global_size[2] > 1
        if multi and not uses_yz:
            continue
        cand = NDRange(nd.global_size, nd.local_size, (0, 0, 0), 3)
        if cand in out or out and multi == (out[0].global_size[1:] != (1, 1)):
            continue
        out.append(cand)
        if len(out) >= limit:
            break
    return out


def _short_reason(v: Verdict) -> str:
    if v.kind == "unsupported":
        low = v.detail.lower()
        if "barrier" in low:
            return "unsupported (barriers)"
        if "sub-group" in low or "work-group operations" in low:
            return "unsupported (collectives)"
        m = re.search(r"(?:unsupported builtin|undefined function) (\S+)", v.detail)
        if m:
            from .runtime import base_name

            return f"unsupported (builtin {base_name(m.group(1)) or m.group(1)})"
        if v.detail.startswith("build error"):
            return "build error"
        return "unsupported (" + v.detail[:60] + ")"
    return v.kind


def contents_for(case: Case) -> list[bytes | None]:
    """The initial bytes of every argument as our worker fills them: buffers
    from `initial_contents(spec, seed, index)`, scalars their value, local
    buffers nothing."""
    from .buffers import initial_contents
    from .worker import scalar_bytes

    out: list[bytes | None] = []
    for i, a in enumerate(case.args or ()):
        if a.kind == "scalar":
            out.append(scalar_bytes(a))
        elif a.kind == "buf":
            out.append(initial_contents(a, case.seed, i).tobytes())
        else:
            out.append(None)
    return out


# Our reference runs one kernel at a time (Oclgrind's runs go on in
# parallel): llvmlite's parsing in this process is not thread-safe, and a
# fresh worker (below) must not be taken from under another kernel's run.
_OURS = threading.Lock()


def run_ours(case: Case, nd: NDRange, timeout: float, fresh: bool = False) -> tuple[Verdict, list[bytes | None]]:
    """Our scalar reference: its verdict (with the reversed-order race check)
    and, when clean, the final buffers. `fresh`: in new worker processes.

    The oracle's workers run kernel after kernel and keep programs and
    buffers between them; a kernel that writes out of bounds without
    reaching a guard page can damage a worker's memory, and a stale cache
    entry would run the wrong code (it did: see docs/crosscheck.md, "Defects
    found"). `crosscheck_kernel` therefore re-runs a disagreement in fresh
    workers before reporting it, and notes when the first run differed."""
    import oracle

    with _OURS:
        if fresh:
            oracle.close()
        return _run_ours(case, nd, timeout)


def _run_ours(case: Case, nd: NDRange, timeout: float) -> tuple[Verdict, list[bytes | None]]:
    import oracle

    rep = oracle.check_scalar(case, ndranges=[nd], timeout=timeout)
    r = rep.results[0]
    v = our_verdict(r.status, r.detail)
    if v.kind != "clean":
        return v, []
    try:
        arrays = oracle.run_scalar(case, nd, timeout=timeout)
    except RuntimeError as exc:  # clean once, faulted the second time: say so
        return our_verdict("scalar-fault", str(exc)), []
    return v, [a.tobytes() if a is not None else None for a in arrays]


def compare_run(nd: NDRange, ours: Verdict, our_bufs: list[bytes | None], theirs: OclgrindRun,
                args: Sequence[ArgSpec], tol_ulps: float, tol_from: list[str]) -> RunResult:
    """Classify one NDRange (see docs/crosscheck.md for the categories)."""
    ov = oclgrind_verdict(theirs)
    notes = [d.short() for d in theirs.diagnostics if d.kind == "uninitialized"][:3] + theirs.notes
    nds = str(nd)
    ours_runs = ours.kind != "unsupported"
    # An Oclgrind timeout is the interpreter's speed, not a verdict.
    theirs_runs = ov.kind not in ("unsupported", "timeout")
    if not ours_runs and not theirs_runs:
        return RunResult(nds, ours, ov, "neither", f"ours: {_short_reason(ours)}; oclgrind: {_short_reason(ov)}",
                         f"{ours.detail[:200]} | {ov.detail[:200]}", notes=notes)
    if not theirs_runs:
        return RunResult(nds, ours, ov, "only-ours", f"oclgrind: {_short_reason(ov)}", ov.detail[:300], notes=notes)
    if not ours_runs:
        return RunResult(nds, ours, ov, "only-oclgrind", f"ours: {_short_reason(ours)}", ours.detail[:300], notes=notes)
    if ours.kind != ov.kind:
        return RunResult(nds, ours, ov, "disagree", f"ours: {ours.kind}, oclgrind: {ov.kind}",
                         f"ours: {ours.detail[:200]} | oclgrind: {ov.detail[:300]}", notes=notes)
    if ours.kind != "clean":
        return RunResult(nds, ours, ov, "agree", f"both: {ours.kind}",
                         f"ours: {ours.detail[:150]} | oclgrind: {ov.detail[:200]}", notes=notes)
    diff = compare_buffers(args, our_bufs, theirs.buffers, tol_ulps)
    if diff.equal:
        outputs = any(a.kind == "buf" for a in args)
        return RunResult(nds, ours, ov, "agree", "identical outputs" if outputs else "no global buffer",
                         notes=notes)
    if diff.within:
        return RunResult(nds, ours, ov, "agree", f"within {tol_ulps:g} ulp ({', '.join(tol_from)})",
                         diff.detail, diff.max_ulps, notes)
    why = "outputs differ"
    if any(d.kind == "uninitialized" for d in theirs.diagnostics):
        why += " (oclgrind: uninitialized value used)"
    return RunResult(nds, ours, ov, "disagree", why, diff.detail, diff.max_ulps, notes)


def crosscheck_kernel(k: CrossKernel, timeout: float = 10.0, oclgrind_timeout: float = 120.0,
                      max_ndranges: int = 2) -> KernelResult:
    """Run one kernel in both references on the same inputs and classify it."""
    from .infer import infer_case

    t0 = time.perf_counter()
    res = KernelResult(k.suite, k.name, "neither", "")
    if "images" in k.features:
        res.reason = "images (no image arguments in our layouts or in simulation files)"
        return res
    try:
        # Preparing may use the oracle too (the Csmith bridge verifies its
        # kernels with it): not while a fresh worker pool is being made.
        with _OURS:
            prep: Prepared = k.prepare()
    except Exception as exc:  # a Csmith seed that yields nothing, a missing file ...
        res.reason = f"not prepared: {type(exc).__name__}"
        res.detail = str(exc)[:300]
        return res
    try:
        with _OURS:
            case = infer_case(parse_case(prep.ir), k.kernel)
        # Both references run exactly this layout: the oracle must not size
        # its buffers or guess its scalars anew (oracle.reference).
        case.inferred_args = False
    except CaseError as exc:
        res.reason = "ours: no launch inferred"
        res.detail = str(exc)[:300]
        return res
    nds = pick_ndranges(case, max_ndranges)
    if not nds:
        res.reason = "no NDRange without offset"
        return res
    args = list(case.args or ())
    contents = contents_for(case)
    tol, tol_from = ulp_bound(case.ir)
    for nd in nds:
        ours, bufs = run_ours(case, nd, timeout)
        # The verdict run has no uninitialized-value check: with it on,
        # Oclgrind 21.10 missed races its race detector finds alone (Rodinia
        # leukocyte's IMGVF_kernel, between work-groups), and its reports
        # can fill the error budget. Where the outputs then differ, a run
        # with it says whether an uninitialized value is why.
        theirs = run_kernel(prep.source, k.kernel, nd, args, contents, prep.build_options,
                            timeout=oclgrind_timeout, source_name=prep.source_name, uninitialized=False)
        rr = compare_run(nd, ours, bufs, theirs, args, tol, tol_from)
        if rr.category == "disagree" and theirs.status == "ok":
            checked = run_kernel(prep.source, k.kernel, nd, args, contents, prep.build_options,
                                 timeout=oclgrind_timeout, source_name=prep.source_name)
            theirs.diagnostics += [d for d in checked.diagnostics if d.kind == "uninitialized"]
            rr = compare_run(nd, ours, bufs, theirs, args, tol, tol_from)
        if rr.category == "disagree":
            # Confirm in fresh workers: the first run may have been in a
            # worker an earlier kernel damaged (see `run_ours`).
            ours2, bufs2 = run_ours(case, nd, timeout, fresh=True)
            rr2 = compare_run(nd, ours2, bufs2, theirs, args, tol, tol_from)
            if (rr2.category, rr2.reason) != (rr.category, rr.reason):
                rr2.notes.append(f"our first run, in a worker earlier kernels had used, gave: "
                                 f"{ours.kind} ({rr.reason})")
            rr = rr2
        if "out-of-bounds" in theirs.kinds() and rr.ours.kind not in ("out-of-bounds", "fault"):
            # It went out of bounds in our worker too, unseen: do not let it
            # damage the next kernel.
            with _OURS:
                import oracle

                oracle.close()
        res.runs.append(rr)
        if rr.category != "agree":
            break
    rank = {c: i for i, c in enumerate(("disagree", "only-ours", "only-oclgrind", "neither", "agree"))}
    worst = min(res.runs, key=lambda r: rank[r.category])
    res.category, res.reason, res.detail = worst.category, worst.reason, worst.detail
    res.seconds = time.perf_counter() - t0
    return res


# ---------------------------------------------------------------- table


def table(results: Sequence[KernelResult]) -> str:
    """The agreement table: per suite, kernels in each category, then the
    reasons with their counts (and the kernels that disagree)."""
    suites = list(dict.fromkeys(r.suite for r in results))
    head = f"{'suite':<12}" + "".join(f"{c:>15}" for c in CATEGORIES) + f"{'total':>8}"
    lines = [head, "-" * len(head)]
    total: Counter[str] = Counter()
    for s in suites:
        c = Counter(r.category for r in results if r.suite == s)
        total.update(c)
        lines.append(f"{s:<12}" + "".join(f"{c.get(k, 0):>15}" for k in CATEGORIES) + f"{sum(c.values()):>8}")
    lines.append(f"{'all':<12}" + "".join(f"{total.get(k, 0):>15}" for k in CATEGORIES)
                 + f"{sum(total.values()):>8}")
    lines.append("")
    for s in suites:
        reasons = Counter((r.category, r.reason) for r in results if r.suite == s)
        lines.append(f"{s}:")
        for (cat, why), n in sorted(reasons.items(), key=lambda x: (CATEGORIES.index(x[0][0]), -x[1])):
            lines.append(f"  {cat:<14} {n:>4}  {why}")
        for r in results:
            if r.suite == s and r.category == "disagree":
                lines.append(f"    disagree: {r.name}: {r.reason}: {r.detail[:300]}")
    return "\n".join(lines)


def _seeds(text: str) -> range:
    m = re.fullmatch(r"(\d+)(?:-(\d+))?", text.strip())
    if not m:
        raise argparse.ArgumentTypeError(f"expected N or A-B, got {text!r}")
    if m.group(2) is None:
        return range(int(m.group(1)))
    return range(int(m.group(1)), int(m.group(2)) + 1)


def load_results(paths: Sequence[str]) -> list[KernelResult]:
    """Results saved by `--json`, in order; a later line for the same suite
    and kernel replaces an earlier one."""
    by_key: dict[tuple[str, str], KernelResult] = {}
    for path in paths:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    d = json.loads(line)
                    runs = [RunResult(**{**r, "ours": Verdict(**r["ours"]), "oclgrind": Verdict(**r["oclgrind"])})
                            for r in d.pop("runs")]
                    r = KernelResult(**d, runs=runs)
                except (ValueError, TypeError, KeyError) as exc:
                    raise ValueError(f"{path}:{n}: not a cross-check result ({exc})") from None
                by_key[(r.suite, r.name)] = r
    return list(by_key.values())


def _print_saved(paths: Sequence[str]) -> int:
    try:
        results = load_results(paths)
    except (OSError, ValueError) as exc:
        print(f"oracle.crosscheck: {exc}", file=sys.stderr)
        return 2
    order = {s: i for i, s in enumerate(SUITES)}
    results.sort(key=lambda r: order.get(r.suite, len(order)))
    print(table(results))
    return 1 if any(r.category == "disagree" for r in results) else 0


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    p = argparse.ArgumentParser(prog="python -m oracle.crosscheck",
                                description="Cross-check the oracle's scalar reference with Oclgrind.")
    p.add_argument("--suite", action="append", default=None,
                   help=f"suites, comma-separated or repeated: {', '.join(SUITES)} "
                        f"(default: all but pocl-tests)")
    p.add_argument("--csmith-seeds", type=_seeds, default=range(50), metavar="N|A-B",
                   help="Csmith seeds: the first N, or A to B (default 50)")
    p.add_argument("--kernel", default=None, help="only kernels whose name contains this")
    p.add_argument("--jobs", type=int, default=1, help="kernels checked at once (default 1)")
    p.add_argument("--ndranges", type=int, default=2, help="NDRanges per kernel (default 2)")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds per run of our reference")
    p.add_argument("--oclgrind-timeout", type=float, default=120.0, help="seconds per Oclgrind run")
    p.add_argument("--json", default=None, metavar="FILE", help="write every result as JSON lines")
    p.add_argument("-v", "--verbose", action="store_true", help="print each kernel as it finishes")
    p.add_argument("--table", nargs="+", default=None, metavar="JSONL",
                   help="only print the table of results saved by --json (a later file's result "
                        "for a kernel replaces an earlier one's)")
    try:
        a = p.parse_args(argv)
    except SystemExit as exc:
        return 0 if exc.code == 0 else 2
    if a.table:
        return _print_saved(a.table)
    suites = tuple(s.strip() for v in (a.suite or [",".join(DEFAULT_SUITES)]) for s in v.split(",") if s.strip())
    bad = [s for s in suites if s not in SUITES]
    if bad or a.jobs < 1 or a.ndranges < 1 or not a.timeout > 0 or not a.oclgrind_timeout > 0:
        what = f"unknown suite {bad[0]!r} (known: {', '.join(SUITES)})" if bad else "--jobs, --ndranges and timeouts must be positive"
        print(f"oracle.crosscheck: {what}", file=sys.stderr)
        return 2
    try:
        ensure_oclgrind()
    except OclgrindError as exc:
        print(f"oracle.crosscheck: {exc}", file=sys.stderr)
        return 2
    todo = [k for k in kernels(suites, a.csmith_seeds) if a.kernel is None or a.kernel in k.name]
    results: list[KernelResult] = []
    out = open(a.json, "w") if a.json else None  # noqa: SIM115 (closed below)
    t0 = time.perf_counter()
    try:
        with ThreadPoolExecutor(max_workers=a.jobs) as ex:
            for n, r in enumerate(ex.map(lambda k: crosscheck_kernel(k, a.timeout, a.oclgrind_timeout,
                                                                      a.ndranges), todo), 1):
                results.append(r)
                if out:
                    out.write(json.dumps(r.to_json()) + "\n")
                    out.flush()
                if a.verbose:
                    print(f"[{n}/{len(todo)}] {r.suite} {r.name}: {r.category} ({r.reason}) "
                          f"{r.seconds:.1f}s", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        print(f"oracle.crosscheck: interrupted after {len(results)} of {len(todo)} kernels",
              file=sys.stderr)
    finally:
        if out:
            out.close()
    print(table(results))
    print(f"\n{len(results)} kernels in {time.perf_counter() - t0:.0f}s")
    return 1 if any(r.category == "disagree" for r in results) else 0


def _main() -> int:
    try:
        return main()
    except BrokenPipeError:  # `... | head`: the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(_main())
