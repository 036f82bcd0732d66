"""The vectorization process (seed, "Vectorization process"), for one kernel
at one width and dimension, as a pipeline of passes (vectorizer/passes/,
run by vectorizer/pass_manager.py):

1. check the request, clone the kernel as `__vecz_tmp_<name>` and inline the
   functions it calls (Builtin Inlining), so the clone is self-contained;
2. prepare the clone with LLVM's own passes, run through llvmlite on that
   function only (SROA/mem2reg, instcombine, simplifycfg, loop-simplify...);
3. filter out what cannot be vectorized (Vectorizability Analysis), make
   barrier branches uniform, convert divergent control flow to masks;
4. the scalar rewrites, the width and name, then packetize;
5. clean up with LLVM's passes, which verify the result.

Between our passes the kernel stays in our IR; it crosses to LLVM as text
only where an LLVM pass runs (`prepare`, the SROA at the end of
`control-flow-conversion`, `cleanup`). The original kernel is never touched.
No pass before `choose-width` reads the width, so a kernel's later widths
resume where its first left those passes (vectorizer/passes/prepared_cache.py).
`veczc --print-pipeline` prints the default pipeline.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from . import llvm_bridge
from .choices import VectorizationChoices
from .ir import parse_module, print_module
from .ir.printer import print_function
from .pass_manager import (
    AnalysisManager,
    AnalysisStats,
    Instrumentation,
    PassManager,
    PassTiming,
    PassVerificationError,
    merge_analysis_stats,
    merge_timings,
)
from .passes import build_passes, parse_pipeline
from .passes.cleanup import CLEANUP
from .passes.kernel_extraction import vectorize_split
from .passes.packetization import automatic_width, vectorized_name
from .passes.preparation import PREPARATION
from .passes.prepared_cache import CACHE as PREPARED
from .passes.prepared_cache import LAST_SHARED, PREPARE, is_resume_point, snapshot_of
from .passes.state import KernelState
from .target import TargetInfo, host_target

__all__ = [
    "CLEANUP",
    "PREPARATION",
    "KernelOutcome",
    "KernelRequest",
    "PipelineOptions",
    "AnalysisVerificationError",
    "VectorizerBug",
    "automatic_width",
    "vectorize_kernel",
    "vectorize_module",
    "vectorized_name",
]

MAX_WIDTH = 64


class VectorizerBug(RuntimeError):
    """The vectorizer produced IR that LLVM rejects: always a defect of ours.
    The message names the pass after which the IR was found invalid."""


class AnalysisVerificationError(VectorizerBug):
    """`verify_analyses` found an analysis (or a transform's post-condition)
    wrong: the message names the analysis, the function, the pass after
    which it was checked and the first difference."""


@dataclass
class KernelRequest:
    """One vectorization to perform."""

    kernel: str
    width: int | None  # None: automatic
    dim: int = 0
    choices: VectorizationChoices = field(default_factory=VectorizationChoices)
    # The local size to assume along `dim` (veczc's `-k name:a@N`): the
    # automatic width is then one that divides it, so no packet is partial.
    local_size: int | None = None


@dataclass
class KernelOutcome:
    """What happened to one request."""

    request: KernelRequest
    vectorized_name: str | None
    width: int | None
    remarks: list[str] = field(default_factory=list)
    stats: dict[str, float] = field(default_factory=dict)


@dataclass
class PipelineOptions:
    """How to run the pipeline: which passes (a textual pipeline; None for
    the default) and what to observe. `emit(kernel, pass_name, ir)` receives
    the IR printed after the passes `print_after` names (every pass with
    `print_after_all`); `verify_each` runs LLVM's verifier after every pass.
    The run's pass timings and analysis counts accumulate in `timings` and
    `analyses` (`--time-passes` prints them). `verify_analyses` checks the
    analyses against independent references after every pass
    (vectorizer/verification/) and raises `AnalysisVerificationError` at the
    first difference."""

    passes: str | list[str] | tuple[str, ...] | None = None
    print_after: frozenset[str] = frozenset()
    print_after_all: bool = False
    verify_each: bool = False
    emit: Callable[[str, str, str], None] | None = None
    timings: dict[str, PassTiming] = field(default_factory=dict)
    analyses: dict[str, AnalysisStats] = field(default_factory=dict)
    verify_analyses: bool = False

    def names(self) -> tuple[str, ...]:
        """The checked pass names (raises `PipelineError`, a ValueError)."""
        return parse_pipeline(self.passes)


def _function_text(state: KernelState) -> str:
    """The function under vectorization as text, for `--print-after`."""
    if state.result_text is not None:
        name = state.outcome.vectorized_name or state.name
        m = re.search(rf'^define [^\n]*@"?{re.escape(name or "")}"?\(.*?^}}$', state.result_text, re.M | re.S)
        return m.group(0) if m else state.result_text
    return print_function(state.fn if state.fn is not None else state.kernel)


def _verify(state: KernelState) -> None:
    llvm_bridge.verify(state.result_text if state.result_text is not None else print_module(state.module))


def _find_breaking_pass(text: str, request: KernelRequest, target: TargetInfo, names: tuple[str, ...]) -> None:
    """Rerun a request whose IR LLVM rejected with the verifier after every
    pass; raise VectorizerBug naming the first pass after which it fails."""
    try:
        vectorize_kernel(text, request, target, PipelineOptions(passes=names, verify_each=True))
    except VectorizerBug as exc:
        if "invalid IR after pass" in str(exc):
            raise
    # (the rerun did not reproduce it, or found it only at the crossing: keep the first report)


def _analysis_checker(request: KernelRequest) -> Callable:
    """The pass manager's `checker` for `verify_analyses`: one verifier per
    request, its mismatches reported as `AnalysisVerificationError`."""
    from .verification import AnalysisMismatch, AnalysisVerifier

    verifier = AnalysisVerifier()
    prefix = f"vectorizing '{request.kernel}' at width {request.width}: analysis verification"

    # The report keeps the mismatch's traceback: its innermost frame is the
    # check that failed, which the campaign's failure signature names (one
    # signature per check, not one for every analysis).
    def reported(where: str, run: Callable[[], None]) -> None:
        try:
            run()
        except AnalysisMismatch as exc:
            raise AnalysisVerificationError(f"{prefix} {where}: {exc}").with_traceback(exc.__traceback__) from None

    def check(p, result, state: KernelState, am: AnalysisManager) -> None:
        reported(f"after pass '{p.name}'", lambda: verifier.after_pass(p.name, result.changed, state, am))

    def computed(analysis, state: KernelState, result) -> None:
        reported(f"of {analysis.name} as computed", lambda: verifier.computed(analysis, state, result))

    def before(p, state: KernelState) -> None:
        reported(f"before pass '{p.name}'", lambda: verifier.before_pass(p.name, state))
        state.checkpoint = lambda step: reported(f"after step '{step}' of pass '{p.name}'",
                                                 lambda: verifier.after_step(step, state))

    check.computed = computed  # type: ignore[attr-defined]
    check.before = before  # type: ignore[attr-defined]
    return check


def vectorize_kernel(
    text: str, request: KernelRequest, target: TargetInfo | None = None, options: PipelineOptions | None = None
) -> tuple[str, KernelOutcome]:
    """Vectorize one kernel of a canonical module; returns the new module text and the outcome.

    Builds the pipeline from the request (and `options.passes`) and runs it
    once. On refusal the text is returned unchanged and the outcome carries
    the remarks.
    """
    t0 = time.perf_counter()  # the outcome's "seconds" include reading the module
    options = options or PipelineOptions()
    names = options.names()
    target = target or host_target()
    outcome = KernelOutcome(request, None, request.width)
    observed = options.print_after or options.print_after_all or options.verify_each or options.emit
    # Every width of a kernel shares the passes up to control-flow conversion:
    # start from where an earlier request left them (passes/prepared_cache.py).
    # Not when the passes are observed: each must run to be printed or verified.
    cache_key = None if observed else PREPARED.key(text, request, target, names)
    if cache_key is not None and options.verify_analyses:
        # A verified run resumes only from snapshots of verified runs: the
        # shared prefix it skips was checked when the snapshot was taken.
        cache_key = (*cache_key[:-1], "verified-analyses", cache_key[-1])
    any_dim = PREPARED.any_dimension(cache_key) if cache_key is not None else None
    snapshot = PREPARED.get(cache_key) if cache_key is not None else None
    if snapshot is None and any_dim is not None:
        snapshot = PREPARED.get(any_dim)  # another dimension of the kernel got as far as `prepare`
    if snapshot is not None and snapshot.stopped:
        outcome.remarks.extend(snapshot.remarks)
        return text, outcome
    if snapshot is not None:
        state = KernelState(text, request, target, outcome, None, None, t0=t0)  # type: ignore[arg-type]
        snapshot.restore(state)
        first = snapshot.after + 1
    else:
        module = parse_module(text)
        kernel = module.get_function(request.kernel)
        if kernel is None:
            raise KeyError(f"no function named '{request.kernel}' in the module")
        state = KernelState(text, request, target, outcome, module, kernel, t0=t0)
        first = 0
    emit = None
    if options.emit is not None:
        def emit(pass_name: str, ir: str) -> None:
            options.emit(request.kernel, pass_name, ir)
    after_pass = None
    last_shared = names.index(LAST_SHARED) if LAST_SHARED in names else len(names) - 1
    if cache_key is not None and first <= last_shared:
        prepare_at = names.index(PREPARE) if PREPARE in names else -1

        def after_pass(index: int, p, result, st: KernelState) -> None:
            index += first  # the manager counts from the first pass it runs
            if index > last_shared or not (result.stop or is_resume_point(p.name, result.changed)):
                return
            snap = snapshot_of(st, index, stopped=result.stop, stub=p.name == LAST_SHARED)
            PREPARED.put(cache_key, snap)
            if any_dim is not None and index <= prepare_at:
                PREPARED.put(any_dim, snap)
    checker = _analysis_checker(request) if options.verify_analyses else None
    manager = PassManager(
        build_passes(names[first:]),
        printer=_function_text,
        verifier=_verify,
        instrumentation=Instrumentation(
            frozenset(options.print_after), options.print_after_all, options.verify_each, emit),
        after_pass=after_pass,
        checker=checker,
        pre_checker=checker.before if checker is not None else None,  # type: ignore[attr-defined]
    )
    am = AnalysisManager(KernelState.current_function)
    if checker is not None:
        am.verify = checker.computed  # type: ignore[attr-defined]
    try:
        manager.run(state, am)
    except PassVerificationError as exc:
        raise VectorizerBug(f"vectorizing '{request.kernel}' at width {request.width}: {exc}") from None
    except VectorizerBug as exc:
        if options.verify_each or isinstance(exc, AnalysisVerificationError):
            raise
        # LLVM rejected our IR where it crossed over: run again verifying
        # after every pass, so the report names the pass that broke it (the
        # oracle's `vectorizer-error` detail then carries that name).
        _find_breaking_pass(text, request, target, names)
        raise
    finally:
        merge_timings(options.timings, manager.timings)
        merge_analysis_stats(options.analyses, am.stats)
    if state.result_text is None:
        if not outcome.remarks and outcome.vectorized_name is None:
            outcome.remarks.append(f"the pipeline ended after '{names[-1]}' without a vectorized kernel")
        return text, outcome
    return state.result_text, outcome


LINK_METADATA = "vecz.vectorized"


def link_metadata(text: str, outcomes: list[KernelOutcome]) -> str:
    """Record, in named metadata `!vecz.vectorized`, each vectorized kernel with
    its scalar original, width and dimension: `!{ptr @foo, ptr @__vecz_v8_foo, i32 8, i32 0}`."""
    done = [o for o in outcomes if o.vectorized_name]
    if not done:
        return text
    appended = _append_link_metadata(text, done)
    if appended is not None:
        return appended
    next_id = max((int(m) for m in re.findall(r"^!(\d+) = ", text, re.M)), default=-1) + 1
    nodes, refs = [], []
    for o in done:
        nodes.append(
            f'!{next_id} = !{{ptr @{_quote(o.request.kernel)}, ptr @{_quote(o.vectorized_name)}, '
            f"i32 {o.width}, i32 {o.request.dim}}}"
        )
        refs.append(f"!{next_id}")
        next_id += 1
    m = re.search(rf"^!{re.escape(LINK_METADATA)} = !{{(.*)}}$", text, re.M)
    if m:
        old = [r.strip() for r in m.group(1).split(",") if r.strip()]
        text = text[: m.start()] + text[m.end() + 1 :]
        refs = old + refs
    text = text.rstrip("\n") + "\n\n" + f"!{LINK_METADATA} = !{{{', '.join(refs)}}}\n" + "\n".join(nodes) + "\n"
    return llvm_bridge.canonicalize(text)


_SIMPLE_NAME = re.compile(r"[-a-zA-Z$._][-a-zA-Z$._0-9]*")
_NAMED_MD = re.compile(r"![-a-zA-Z$._][-a-zA-Z$._0-9]* = ")
_NODE = re.compile(r"!(\d+) = (.*)")


def _append_link_metadata(text: str, done: list[KernelOutcome]) -> str | None:
    """`link_metadata`'s result written into LLVM's text directly, when the
    text is laid out so that LLVM's own re-print is known: every metadata
    node hangs off named metadata only (no global, function or instruction
    mentions one), so LLVM numbers the existing nodes as before and the new
    ones next, in order; `!vecz.vectorized` is new (it goes last among the
    named metadata); the names are printed unquoted; no existing node has the
    new nodes' content (LLVM would merge them). Else None (the LLVM round
    trip decides). Saves a parse and a print of the whole module per request."""
    if f"\n!{LINK_METADATA} = " in text or not text.endswith("\n"):
        return None
    if not all(_SIMPLE_NAME.fullmatch(n or "") for o in done for n in (o.request.kernel, o.vectorized_name)):
        return None
    lines = text[:-1].split("\n")
    first = next((i for i, ln in enumerate(lines) if ln.startswith("!")), len(lines))
    body, tail = lines[:first], lines[first:]
    if any("!" in ln for ln in body):
        return None  # metadata mentioned outside named metadata (or a `!` in a string: no matter)
    # LLVM's layout: the named metadata, then a blank line and the numbered nodes.
    named = 0
    while named < len(tail) and _NAMED_MD.match(tail[named]):
        named += 1
    if tail and (not named or body[-1:] != [""]):
        return None
    nodes = tail[named + 1:]
    if named < len(tail) and (tail[named] != "" or not nodes):
        return None
    existing = []
    for i, ln in enumerate(nodes):
        m = _NODE.fullmatch(ln)
        if m is None or int(m.group(1)) != i:
            return None
        existing.append(m.group(2))
    new = [f"!{{ptr @{o.request.kernel}, ptr @{o.vectorized_name}, i32 {o.width}, i32 {o.request.dim}}}"
           for o in done]
    if any(n in existing for n in new) or len(set(new)) != len(new):
        return None
    body = _preds_as_parsed(body)
    if body is None:
        return None
    first_id = len(existing)
    refs = ", ".join(f"!{first_id + i}" for i in range(len(new)))
    out = [*body, *([] if tail else [""]), *tail[:named], f"!{LINK_METADATA} = !{{{refs}}}", "", *nodes,
           *(f"!{first_id + i} = {n}" for i, n in enumerate(new))]
    return "\n".join(out) + "\n"


_LABEL = re.compile(r'("(?:[^"\\]|\\.)*"|[-a-zA-Z$._0-9]+):(?:( +); preds = (.*)|( +; No predecessors!))?')


def _preds_as_parsed(lines: list[str]) -> list[str] | None:
    """`lines` (LLVM's print of a module) with each block's `; preds =`
    comment in the order LLVM prints it for the module freshly parsed from
    them. LLVM lists a block's predecessors in the order of its use list,
    most recent use first: after passes that is the order the passes left,
    after a parse it is the reverse of the text order of the branches.
    Only these comments depend on use-list order. None when a block name
    is not one this reads (the LLVM round trip decides)."""
    out = list(lines)
    index: dict[str, int] = {}
    pending: list[tuple[int, str, str]] = []  # (line, label and padding, preds)
    inside = entry_named = first = False
    for i, ln in enumerate(lines):
        if not inside:
            inside = ln.startswith("define ") and ln.endswith("{")
            index, pending, first, entry_named = {}, [], True, False
            continue
        if ln == "}":
            inside = False
            for at, head, preds in pending:
                names = preds.split(", ")
                unknown = {n for n in names if n not in index}
                if '"' in preds or len(unknown) > (0 if entry_named else 1):
                    return None
                # The one block without a label line is the entry block (first).
                order = sorted(names, key=lambda n: -index.get(n, 0))
                out[at] = f"{head}; preds = {', '.join(order)}"
            continue
        if ln.startswith((" ", ";")) or not ln:
            first = first and not ln.startswith(" ")
            continue
        if first:
            entry_named, first = True, False
        m = _LABEL.fullmatch(ln)
        if m is None:
            return None
        index[f"%{m.group(1)}"] = len(index) + 1
        if m.group(3) is not None:
            pending.append((i, f"{m.group(1)}:{m.group(2)}", m.group(3)))
    return out


def _quote(name: str) -> str:
    return name if re.match(r"^[-a-zA-Z$._][-a-zA-Z$._0-9]*$", name) else '"' + name + '"'


def vectorize_module(
    src, requests: list[KernelRequest], target: TargetInfo | None = None, options: PipelineOptions | None = None
) -> tuple[str, list[KernelOutcome]]:
    """Canonicalise `src` and perform each request in turn; returns the final text."""
    text = llvm_bridge.canonicalize(src)
    for req in requests:
        if req.width is not None and not 1 <= req.width <= MAX_WIDTH:
            raise ValueError(f"width {req.width} is out of range 1..{MAX_WIDTH}")
        if req.dim not in (0, 1, 2):
            raise ValueError(f"dimension {req.dim} is out of range 0..2")
    if options is not None:
        options.names()  # a bad pipeline is an error before any work
    # Each kernel is vectorized on a module holding only what it needs, so
    # time grows linearly with the number of kernels (passes/kernel_extraction.py).
    text, outcomes = vectorize_split(text, requests, lambda t, r: vectorize_kernel(t, r, target, options))
    return link_metadata(text, outcomes), outcomes
