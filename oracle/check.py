"""`oracle.check`: vectorize a kernel at many configurations and compare every
vectorized run with the scalar run, work-item by work-item, byte by byte.

Order of work for one check (all of it inside one worker process):
1. vectorize every configuration (width, dim, choices);
2. compile ONE program holding the scalar kernel, its sanitized copy and
   every variant;
3. per NDRange: the reference run (oracle.reference: sanitized the first
   time, sizing inferred buffers), the scalar kernel in reverse work-item
   order, then every variant, compared with the reference.
A crash or hang costs the worker, which is replaced; the check goes on.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from . import worker as W
from .case import ArgSpec, Case, CaseError, NDRange, parse_case, parse_ndrange
from .compare import compare
from .jit import REVERSED, SANITIZED, Variant
from .reference import known_clean, launch_key, reference_run
from .spelling import foreign_query_spelling

STATUSES = (
    "match", "mismatch", "not-vectorized", "vectorizer-error", "vector-fault",
    "timeout", "scalar-fault", "scalar-race", "unsupported-input",
)
FAILING = frozenset({"mismatch", "vector-fault", "timeout", "vectorizer-error"})
DEFAULT_WIDTHS = (1, 4, 8, 16)


@dataclass
class Result:
    """The verdict for one configuration at one NDRange."""

    width: int
    dim: int
    choices: str
    global_size: list[int]
    local_size: list[int]
    status: str
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        """The JSON object of the `vecz-oracle --json` contract."""
        return asdict(self)


@dataclass
class CheckReport:
    """All results of one `check` call."""

    kernel: str
    results: list[Result] = field(default_factory=list)
    stats: dict[str, float] = field(default_factory=dict)
    # The crash details of vectorize requests retried in a fresh worker
    # (see `_vectorize`): kept so a crash that did not recur still names its site.
    retried: list[str] = field(default_factory=list)
    # Why some reference runs were not sanitized (oracle.reference), if any.
    notes: list[str] = field(default_factory=list)
    # NDRange -> the argument layout it ran with (an `args:` line's value):
    # with an inferred layout, scalars and buffer sizes differ per NDRange.
    launches: dict[str, str] = field(default_factory=dict)

    @property
    def summary(self) -> dict[str, int]:
        """Status -> number of results."""
        return dict(Counter(r.status for r in self.results))

    @property
    def failed(self) -> bool:
        """True if any result blames the vectorizer."""
        return any(r.status in FAILING for r in self.results)

    def to_json(self) -> dict[str, Any]:
        """The `vecz-oracle --json` object."""
        return {
            "kernel": self.kernel,
            "results": [r.to_json() for r in self.results],
            "summary": self.summary,
        }


def _as_case(src: str | Case) -> Case:
    return src if isinstance(src, Case) else parse_case(src)


def _ndranges(nds: Iterable[NDRange | str] | None) -> list[NDRange] | None:
    if nds is None:
        return None
    return [parse_ndrange(n) if isinstance(n, str) else n for n in nds]


def _predicated(choices: str) -> bool:
    names = [c.strip() for c in choices.replace(",", ";").split(";")]
    return "VectorPredication" in names


class _Session:
    """One kernel in one worker: builds and re-builds its program on demand
    (after a worker was replaced) and runs it."""

    def __init__(self, w: W.Worker, kernel: str, text: str, timeout: float, opt: int) -> None:
        self.w = w
        self.kernel = kernel
        self.text = text
        self.timeout = timeout
        self.opt = opt
        self.stats: Counter[str] = Counter()

    def build(self, key: str, variants: list[Variant]) -> tuple | W.Failure:
        msg = ("build", key, self.kernel, self.text, variants, self.opt)
        # Compilation can be slow for big modules: give it more than a run.
        res = self.w.call(msg, max(60.0, self.timeout * 4))
        if not isinstance(res, W.Failure) and res[0] == "ok":
            self.w.programs.add(key)
            self.stats["compile_s"] += res[2]
            self.stats["builds"] += 1
        return res

    def run(self, key: str, variants: list[Variant], vkey: str, layout: tuple, nd: NDRange, seed: int,
            timeout: float | None = None) -> tuple | W.Failure:
        """Run variant `vkey` of program `key`, building it first when the
        worker does not hold it. Every answer that is not a `Failure` has a
        status and a detail (`res[0]`, `res[1]`): callers read both."""
        for _attempt in range(2):
            if key not in self.w.programs:
                b = self.build(key, variants)
                if isinstance(b, W.Failure) or b[0] != "ok":
                    return b
            res = self.w.call(("run", key, vkey, layout, nd, seed), self.timeout if timeout is None else timeout)
            if isinstance(res, W.Failure) or res[0] != "no-program":
                break
            # The worker dropped it (it keeps its most recent programs only,
            # and a replaced worker none): build it again, once.
            self.w.programs.discard(key)
        else:
            return ("no-program", f"the worker lost program {key[:12]} right after building it")
        if not isinstance(res, W.Failure) and res[0] == "ok":
            self.stats["run_s"] += res[2]
            self.stats["runs"] += 1
        return res


def check(
    ir_text_or_case: str | Case,
    kernel: str | None = None,
    widths: Sequence[int] | None = None,
    dims: Sequence[int] | None = None,
    choices: Sequence[str] | None = None,
    ndranges: Iterable[NDRange | str] | None = None,
    layout: Sequence[ArgSpec | str] | None = None,
    vectorized: str | None = None,
    timeout: float = 10.0,
    seed: int | None = None,
    opt: int = 0,
    target_features: str | None = None,
    verify_analyses: bool = False,
) -> CheckReport:
    """Check `kernel` of a case (or plain IR) at every configuration.

    Options left as None come from the case header, or are inferred for a
    foreign kernel. `vectorized` names a function already in the IR that
    computes `widths[0]` work-items along `dims[0]` (another vectorizer's
    output, or a hand-written one): then the vectorizer is not called.
    `timeout` bounds each run (seconds). `target_features` vectorizes for
    the host adjusted by an LLVM-style feature list (`-fast-gather`: a target
    without fast gathers; the code still runs on the host). `verify_analyses`
    has the vectorizer check its analyses against independent references (a
    wrong one is a `vectorizer-error`). Raises `CaseError` for bad input."""
    from .infer import infer_case, validate_case

    case = _as_case(ir_text_or_case)
    if not case.is_case or case.args is None or kernel is not None and case.kernel != kernel or layout is not None:
        case = infer_case(case, kernel, layout=layout)
    else:
        validate_case(case)
    kernel = case.kernel
    assert kernel is not None
    nds = _ndranges(ndranges) or case.ndranges
    widths = list(widths) if widths else (case.widths or list(DEFAULT_WIDTHS))
    dims = list(dims) if dims is not None and len(dims) else (case.dims or [0])
    choice_list = list(choices) if choices is not None else (case.choices or [""])
    seed = case.seed if seed is None else seed
    args = tuple(case.args or ())
    for w_ in widths:
        if not 1 <= w_ <= 64:
            raise CaseError(f"width {w_} out of range 1..64")
    for d in dims:
        if d not in (0, 1, 2):
            raise CaseError(f"dimension {d} out of range 0..2")
    if not nds:
        raise CaseError("no NDRange to run")
    if target_features is not None:
        from vectorizer.target import host_target, with_features

        try:
            with_features(host_target(), target_features)
        except ValueError as exc:
            raise CaseError(f"target features: {exc}") from None
    if vectorized is not None:
        widths, dims = widths[:1], dims[:1]
        choice_list = choice_list[:1]
    configs = [(w_, d, c) for c in choice_list for d in dims for w_ in widths]

    report = CheckReport(kernel)
    pool = W.get_pool()
    wk = pool.acquire()
    try:
        _check_in(wk, report, case, kernel, configs, nds, args, seed, vectorized, timeout, opt,
                  size_buffers=case.inferred_args, target_features=target_features,
                  verify_analyses=verify_analyses)
    finally:
        pool.release(wk)
    return report


def _check_in(wk: W.Worker, report: CheckReport, case: Case, kernel: str, configs: list,
              nds: list[NDRange], args: tuple, seed: int, vectorized: str | None,
              timeout: float, opt: int, scalar_only: bool = False, size_buffers: bool = False,
              target_features: str | None = None, verify_analyses: bool = False) -> None:
    text = case.ir
    sess = _Session(wk, kernel, text, timeout, opt)
    pre: dict[tuple, tuple[str, str]] = {}  # config -> (status, detail) decided before running
    variants: list[Variant] = []
    vkeys: dict[tuple, str] = {}
    for cfg in configs:
        w_, d, c = cfg
        if vectorized is not None:
            vkeys[cfg] = "v0"
            variants.append(Variant("v0", vectorized, text, w_, d, _predicated(c)))
            continue
        res = _vectorize(wk, ("vectorize", text, kernel, w_, d, c, verify_analyses, target_features),
                         max(60.0, timeout * 6), report)
        if isinstance(res, W.Failure):
            pre[cfg] = ("vectorizer-error", f"vectorizer {res.kind}: {res.detail}")
        elif res[0] == "ok" and (why := foreign_query_spelling(text, res[2])) is not None:
            pre[cfg] = ("vectorizer-error", why)
        elif res[0] == "ok":
            key = f"v{len(variants)}"
            vkeys[cfg] = key
            variants.append(Variant(key, res[1], res[2], w_, d, _predicated(c)))
        else:
            pre[cfg] = (res[0], res[1])
    # Sanitize the reference unless every launch already passed sanitized.
    sanitize = not all(known_clean(launch_key(kernel, text, args, nd, seed)) for nd in nds)
    san = [Variant(SANITIZED, kernel, "", 0, 0, False)] if sanitize else []
    # The kernel is part of the key: a file's kernels share its text.
    digest = hashlib.sha1(kernel.encode() + b"\0" + text.encode() + (b"\0san" if sanitize else b""))
    for v in variants:
        digest.update(f"|{v.key}:{v.function}:{v.width}:{v.dim}:{v.predicated}".encode())
        digest.update(hashlib.sha1(v.text.encode()).digest() if v.text is not text else b"=")
    key = digest.hexdigest()

    def emit(cfg: tuple, nd: NDRange, status: str, detail: str) -> None:
        w_, d, c = cfg
        if case.launch_note and status in ("scalar-fault", "scalar-race"):
            detail = f"{detail} [{case.launch_note}]"  # the input's verdict under a guessed launch
        report.results.append(Result(
            w_, d, c, list(nd.global_size[: nd.work_dim]), list(nd.local_size[: nd.work_dim]), status, detail,
        ))

    all_cfgs = configs or [(0, 0, "")]  # scalar-only checks report one row per NDRange

    def emit_all(status: str, detail: str) -> None:
        # The input itself is bad: every configuration gets its verdict,
        # except where the vectorizer already failed on its own.
        for nd in nds:
            for cfg in all_cfgs:
                emit(cfg, nd, *pre.get(cfg, (status, detail)))

    b = sess.build(key, variants + san)
    isolated = False
    if isinstance(b, W.Failure):
        # The combined module crashed LLVM: build the scalar kernel alone,
        # then each variant alone, to find whom to blame.
        isolated = True
        b = sess.build(key + ":scalar", san)
        if isinstance(b, W.Failure) and san:
            # Perhaps the sanitized copy: go on without it.
            report.notes.append(f"the sanitized kernel crashed LLVM: {b.detail}")
            san, sanitize = [], False
            b = sess.build(key + ":scalar", [])
        if isinstance(b, W.Failure):
            # LLVM itself cannot compile the input (target-specific intrinsics
            # and the like): nothing to blame the vectorizer for.
            emit_all("unsupported-input", f"LLVM {b.kind} compiling the scalar kernel: {b.detail}")
            return
    if b[0] != "ok":
        status = "unsupported-input" if b[0] == "unsupported-input" else "scalar-fault"
        emit_all(status, b[1])
        return
    var_errors: dict[str, tuple[str, str]] = dict(b[1])
    if SANITIZED in var_errors:
        report.notes.append(var_errors.pop(SANITIZED)[1])
        san, sanitize = [], False
    if isolated:
        for v in variants:
            vb = sess.build(f"{key}:{v.key}", [v])
            if isinstance(vb, W.Failure):
                var_errors[v.key] = ("vectorizer-error", f"LLVM {vb.kind} compiling the vectorized kernel: {vb.detail}")
            elif vb[0] != "ok":
                var_errors[v.key] = ("vectorizer-error", vb[1])
            else:
                var_errors.update(vb[1])

    def prog_for(vkey: str) -> tuple[str, list[Variant]]:
        if not isolated:
            return key, variants + san
        if vkey == "":
            return key + ":scalar", san
        v = next(x for x in variants if x.key == vkey)
        return f"{key}:{vkey}", [v]

    launch_state: dict = {}
    # Sub-groups are W work-items along dim: the reference depends on the
    # configuration's width and dimension, so it runs once per geometry.
    geometries = _geometries(text, configs, all_cfgs)
    for nd in nds:
        for geometry, group_cfgs in geometries:
            _check_nd(sess, report, nd, geometry, group_cfgs, configs and group_cfgs, prog_for, args, seed,
                      sanitize, size_buffers, launch_state, scalar_only, pre, vkeys, var_errors, emit, timeout)
    report.stats.update(sess.stats)
    if any(r.status in DAMAGING for r in report.results):
        # A kernel that wrote out of bounds, or read memory it does not own,
        # may have written anywhere in the worker without faulting: the next
        # check gets a fresh process rather than a possibly damaged heap.
        wk.kill()
        report.stats["worker_recycles"] = report.stats.get("worker_recycles", 0) + 1


def _check_nd(sess: _Session, report: CheckReport, nd: NDRange, geometry: tuple[int, int] | None,
              all_cfgs: list, configs: list, prog_for, args: tuple, seed: int, sanitize: bool,
              size_buffers: bool, launch_state: dict, scalar_only: bool, pre: dict, vkeys: dict,
              var_errors: dict, emit, timeout: float) -> None:
    """One NDRange of `_check_in` for the configurations sharing a sub-group geometry."""
    rsess = sess if geometry is None else _GeometrySession(sess, *geometry)
    pk, pv = prog_for("")
    ref = reference_run(rsess, pk, pv, args, nd, seed, sanitize, size_buffers, launch_state)
    if ref.note and ref.note not in report.notes:
        report.notes.append(ref.note)
    if ref.status is not None:
        for cfg in all_cfgs:
            emit(cfg, nd, ref.status, ref.detail)
        return
    sres, nd_args = ref.result, ref.layout
    assert sres is not None
    report.launches[str(nd)] = " ".join(map(str, nd_args))
    # Work-items are unordered: a kernel whose result changes when they
    # run in the opposite order depends on something no vectorizer can be
    # blamed for (a race the sanitizer did not see, private addresses,
    # uninitialised private memory).
    rres = rsess.run(pk, pv, REVERSED, nd_args, nd, seed)
    if not isinstance(rres, W.Failure) and rres[0] == "ok":
        race = compare(nd_args, sres[1], rres[1], nd, 1, 0)
        if race:
            # The sanitizer saw no race (when it ran): atomics whose
            # results the kernel keeps, private addresses or
            # uninitialised private memory make the result depend on the
            # order the work-items run in; no comparison can judge that.
            for cfg in all_cfgs:
                emit(cfg, nd, "scalar-fault", "the result depends on the work-items' order"
                     " (kept results of atomics, private addresses, uninitialised private memory"
                     f"{'' if sanitize else ', or a data race'}): " + race)
            return
    if scalar_only:
        emit(all_cfgs[0], nd, "match", f"scalar run {sres[2] * 1e3:.3f} ms")
        return
    expected = sres[1]
    for cfg in configs:
        if cfg in pre:
            emit(cfg, nd, *pre[cfg])
            continue
        vkey = vkeys[cfg]
        if vkey in var_errors:
            emit(cfg, nd, *var_errors[vkey])
            continue
        pk, pv = prog_for(vkey)
        vres = sess.run(pk, pv, vkey, nd_args, nd, seed, vector_run_budget(timeout, sres[2]))
        if isinstance(vres, W.Failure):
            emit(cfg, nd, "timeout" if vres.kind == "timeout" else "vector-fault", vres.detail)
        elif vres[0] == "overrun":
            emit(cfg, nd, "vector-fault", vres[1])
        elif vres[0] != "ok":
            emit(cfg, nd, "vectorizer-error", f"vector run: {vres}")
        else:
            diff = compare(nd_args, expected, vres[1], nd, cfg[0], cfg[1])
            emit(cfg, nd, "mismatch" if diff else "match", diff or "")


def _geometries(text: str, configs: list, all_cfgs: list) -> list[tuple[tuple[int, int] | None, list]]:
    """The configurations grouped by the sub-group geometry (width, dim)
    their reference needs; one group without a geometry for kernels that
    use no sub-group builtin (and for scalar-only checks)."""
    from .subgroups import text_uses_sub_groups

    if not configs or not text_uses_sub_groups(text):
        return [(None, all_cfgs)]
    groups: dict[tuple[int, int], list] = {}
    for cfg in configs:
        groups.setdefault((cfg[0], cfg[1]), []).append(cfg)
    return list(groups.items())


class _GeometrySession:
    """A session whose scalar runs use sub-groups of `width` along `dim`
    (the worker reads the geometry from the run key: oracle/subgroups.py)."""

    def __init__(self, sess: _Session, width: int, dim: int) -> None:
        self._sess, self._width, self._dim = sess, width, dim

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sess, name)

    @property
    def kernel(self) -> str:
        # Launch keys (oracle.reference) name the geometry too: buffer sizes
        # inferred for one sub-group width do not fit another.
        return f"{self._sess.kernel}@sg{self._width}.{self._dim}"

    def run(self, key: str, variants: list[Variant], vkey: str, layout: tuple, nd: NDRange, seed: int,
            timeout: float | None = None) -> tuple | W.Failure:
        from .subgroups import geometry_key

        return self._sess.run(key, variants, geometry_key(vkey, self._width, self._dim), layout, nd, seed, timeout)


# Verdicts after which the worker's memory is not trusted any more.
DAMAGING = ("scalar-fault", "vector-fault")


# A vectorized run may take this many times the scalar run's time before it
# counts as a timeout: a kernel whose scalar run barely fits the limit (a
# loop of 2^32 iterations in one work-item) must not flip to "timeout" on a
# slower or busier machine, while a vectorized kernel that hangs still does.
VECTOR_SLOWDOWN_ALLOWED = 4.0


def vector_run_budget(timeout: float, scalar_seconds: float) -> float:
    """Seconds a vectorized run gets: the timeout, or more when the scalar
    run of the same NDRange took a good part of it."""
    return max(timeout, VECTOR_SLOWDOWN_ALLOWED * scalar_seconds)


def _vectorize(wk: W.Worker, msg: tuple, timeout: float, report: CheckReport) -> tuple | W.Failure:
    """The vectorize request, retried once in a fresh worker when it crashed
    one that had already run kernels: those kernels (untrusted code sharing
    the process) may have damaged its memory. A crash that happens again in
    a fresh process is the vectorizer's."""
    ran_kernels = wk.kernel_runs > 0
    res = wk.call(msg, timeout)
    if isinstance(res, W.Failure) and res.kind == "crash" and ran_kernels:
        report.stats["vectorize_retries"] = report.stats.get("vectorize_retries", 0) + 1
        report.retried.append(f"W={msg[3]} dim={msg[4]} choices={msg[5]!r}: {res.detail}")
        wk.kill()  # already replaced by call(); make sure the retry starts clean
        res = wk.call(msg, timeout)
    return res


def check_scalar(ir_text_or_case: str | Case, kernel: str | None = None,
                 ndranges: Iterable[NDRange | str] | None = None, timeout: float = 10.0,
                 opt: int = 0) -> CheckReport:
    """Run only the scalar kernel at each NDRange: one result per NDRange,
    `match` (it ran cleanly), `scalar-fault` or `unsupported-input`. For
    generator self-checks and corpus surveys."""
    from .infer import infer_case, validate_case

    case = _as_case(ir_text_or_case)
    if not case.is_case or case.args is None or kernel is not None and case.kernel != kernel:
        case = infer_case(case, kernel)
    else:
        validate_case(case)
    nds = _ndranges(ndranges) or case.ndranges
    report = CheckReport(case.kernel or "")
    pool = W.get_pool()
    wk = pool.acquire()
    try:
        _check_in(wk, report, case, case.kernel or "", [], nds, tuple(case.args or ()),
                  case.seed, None, timeout, opt, scalar_only=True, size_buffers=case.inferred_args)
    finally:
        pool.release(wk)
    return report


def run_scalar(ir_text_or_case: str | Case, ndrange: NDRange | str, kernel: str | None = None,
               layout: Sequence[ArgSpec | str] | None = None, seed: int | None = None,
               timeout: float = 10.0, opt: int = 0) -> list[Any]:
    """Run the scalar kernel once and return the final contents of each global
    buffer as a numpy array (None for other arguments). Raises `CaseError`
    for bad input and `RuntimeError` when the run faults or hangs."""
    import numpy as np

    from .case import ELEM_DTYPES
    from .infer import infer_case

    case = _as_case(ir_text_or_case)
    if not case.is_case or case.args is None or kernel is not None and case.kernel != kernel or layout is not None:
        case = infer_case(case, kernel, layout=layout)
    nd = parse_ndrange(ndrange) if isinstance(ndrange, str) else ndrange
    args = tuple(case.args or ())
    pool = W.get_pool()
    wk = pool.acquire()
    try:
        sess = _Session(wk, case.kernel or "", case.ir, timeout, opt)
        # The kernel and -O level are part of the key: a file's kernels share its text.
        key = "run_scalar:" + hashlib.sha1(f"{case.kernel}\0{opt}\0{case.ir}".encode()).hexdigest()
        res = sess.run(key, [], "", args, nd, case.seed if seed is None else seed)
        if isinstance(res, W.Failure) or res[0] != "ok":
            wk.kill()  # as after a scalar fault in `check`
    finally:
        pool.release(wk)
    if isinstance(res, W.Failure):
        raise RuntimeError(f"scalar run {res.kind}: {res.detail}")
    if res[0] != "ok":
        raise RuntimeError(f"scalar run: {res[0]}: {res[1] if len(res) > 1 else ''}")
    return [np.frombuffer(b, ELEM_DTYPES[a.base]).copy() if b is not None else None
            for a, b in zip(args, res[1][:len(args)], strict=True)]
