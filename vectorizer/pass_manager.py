"""Passes, analyses and the managers that run them, in the manner of LLVM's
new pass manager.

- An `Analysis` computes a result about the function being vectorized and
  never edits IR. The `AnalysisManager` computes it on first use, caches it
  per function, and drops it when a pass changed the function without
  declaring that it preserves it.
- A `Pass` edits IR. It names the analyses it `requires` (computed before
  it runs, so `--time-passes` charges them to the analysis, not the pass)
  and those it `preserves` when it changes something; `run` returns a
  `PassResult`: whether it changed the function, and whether the pipeline
  stops here (a refusal, or a finished kernel).
- The `PassManager` runs a named sequence over a state object, and offers
  the observation hooks: IR printed after chosen passes, the LLVM verifier
  after every pass, and per-pass and per-analysis timing with the number of
  times each analysis was computed.

The manager knows nothing of kernels: the state, how to print it and how to
verify it come from the caller (vectorizer/passes/).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar


class Analysis:
    """A fact about the function under vectorization, computed on demand.

    Subclasses set `name` and implement `compute(state, am)`; they may ask
    `am` for the analyses they build on."""

    name: ClassVar[str] = ""

    def compute(self, state: Any, am: AnalysisManager) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError


ALL = frozenset({"*"})
"""`preserves = ALL`: the pass keeps every analysis valid even when it changes IR."""


@dataclass
class PassResult:
    """What one run of a pass did: `changed` the function (analyses it does
    not preserve are dropped), and `stop` the pipeline (a refusal or a
    finished kernel: the outcome is in the state)."""

    changed: bool = False
    stop: bool = False


class Pass:
    """One step of the pipeline.

    `name` is the name the textual pipeline uses; `requires` the analyses
    (classes) it reads; `preserves` the names of the analyses that stay
    valid when it reports a change (`ALL` for every one)."""

    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    requires: ClassVar[tuple[type[Analysis], ...]] = ()
    preserves: ClassVar[frozenset[str]] = frozenset()

    def run(self, state: Any, am: AnalysisManager) -> PassResult:  # pragma: no cover - abstract
        raise NotImplementedError


@dataclass
class AnalysisStats:
    """How often an analysis was computed, and the seconds it took in all."""

    computed: int = 0
    seconds: float = 0.0


class AnalysisManager:
    """Computes analyses on first use and caches them for the function they
    describe (`function_of(state)`, compared by identity: a function re-read
    from LLVM is a new function with nothing cached)."""

    def __init__(self, function_of: Callable[[Any], Any]) -> None:
        self._function_of = function_of
        self._cache: dict[str, tuple[Any, Any]] = {}
        self.stats: dict[str, AnalysisStats] = {}
        # Called as `verify(analysis, state, result)` on every result computed
        # (`--verify-analyses`, vectorizer/verification/): raises when it is wrong.
        self.verify: Callable[[type[Analysis], Any, Any], None] | None = None

    def get(self, analysis: type[Analysis], state: Any) -> Any:
        """The result of `analysis` for the state's current function."""
        fn = self._function_of(state)
        hit = self._cache.get(analysis.name)
        if hit is not None and hit[0] is fn:
            return hit[1]
        t0 = time.perf_counter()
        result = analysis().compute(state, self)
        st = self.stats.setdefault(analysis.name, AnalysisStats())
        st.computed += 1
        st.seconds += time.perf_counter() - t0
        if self.verify is not None:
            self.verify(analysis, state, result)
        self._cache[analysis.name] = (fn, result)
        return result

    def cached(self, analysis: type[Analysis], state: Any) -> Any | None:
        """The cached result, or None when it would have to be computed."""
        hit = self._cache.get(analysis.name)
        return hit[1] if hit is not None and hit[0] is self._function_of(state) else None

    def invalidate(self, preserved: Iterable[str] = ()) -> None:
        """Drop every cached analysis not in `preserved`."""
        keep = set(preserved)
        if "*" in keep:
            return
        self._cache = {k: v for k, v in self._cache.items() if k in keep}


@dataclass
class PassTiming:
    """Seconds spent in one pass over a run (several entries if it ran more than once)."""

    name: str
    seconds: float = 0.0
    runs: int = 0
    changed: int = 0  # runs that changed the function (and dropped what they do not preserve)


class PassVerificationError(Exception):
    """The IR was invalid after a pass: `pass_name` names it."""

    def __init__(self, pass_name: str, detail: str) -> None:
        super().__init__(f"invalid IR after pass '{pass_name}': {detail}")
        self.pass_name = pass_name
        self.detail = detail


@dataclass
class Instrumentation:
    """What to observe while the pipeline runs.

    `print_after` names passes after which `emit(pass_name, ir_text)` is
    called with the IR (`print_after_all` for every pass); `verify` is called
    with the state after every pass when `verify_each` is set and raises
    with LLVM's diagnostic."""

    print_after: frozenset[str] = frozenset()
    print_after_all: bool = False
    verify_each: bool = False
    emit: Callable[[str, str], None] | None = None

    def wants_print(self, pass_name: str) -> bool:
        return self.print_after_all or pass_name in self.print_after


@dataclass
class PassManager:
    """Runs `passes` in order over a state, sharing one AnalysisManager."""

    passes: Sequence[Pass]
    printer: Callable[[Any], str] | None = None
    verifier: Callable[[Any], None] | None = None
    instrumentation: Instrumentation = field(default_factory=Instrumentation)
    timings: dict[str, PassTiming] = field(default_factory=dict)
    # Called as `after_pass(index, pass, result, state)` after each pass (and
    # its verification): how the pipeline records where a kernel's shared
    # prefix left it (vectorizer/passes/prepared_cache.py).
    after_pass: Callable[[int, Pass, PassResult, Any], None] | None = None
    # Called as `checker(pass, result, state, am)` after each pass that did
    # not stop the pipeline: the analysis verification (`--verify-analyses`,
    # vectorizer/verification/), which raises at the first wrong analysis.
    checker: Callable[[Pass, PassResult, Any, AnalysisManager], None] | None = None
    # Called as `pre_checker(pass, state)` before each pass: lets the analysis
    # verification record what the pass must keep.
    pre_checker: Callable[[Pass, Any], None] | None = None

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.passes]

    def run(self, state: Any, am: AnalysisManager) -> Any:
        """Run the passes until one stops the pipeline; returns the state."""
        inst = self.instrumentation
        for index, p in enumerate(self.passes):
            for needed in p.requires:
                am.get(needed, state)
            if self.pre_checker is not None:
                self.pre_checker(p, state)
            t0 = time.perf_counter()
            result = p.run(state, am)
            timing = self.timings.setdefault(p.name, PassTiming(p.name))
            timing.seconds += time.perf_counter() - t0
            timing.runs += 1
            if result.changed:
                timing.changed += 1
                am.invalidate(p.preserves)
            if inst.verify_each and self.verifier is not None and not result.stop:
                try:
                    self.verifier(state)
                except Exception as exc:  # noqa: BLE001  any verifier failure is reported against the pass
                    raise PassVerificationError(p.name, " ".join(str(exc).split())) from None
            if self.checker is not None and not result.stop:
                self.checker(p, result, state, am)
            if inst.wants_print(p.name) and inst.emit is not None and self.printer is not None:
                inst.emit(p.name, self.printer(state))
            if self.after_pass is not None:
                self.after_pass(index, p, result, state)
            if result.stop:
                break
        return state


def format_timings(timings: dict[str, PassTiming], analyses: dict[str, AnalysisStats]) -> str:
    """The `--time-passes` report: seconds per pass with how many of its runs
    changed the function, then per analysis the seconds and the number of
    times it was computed."""
    lines = ["=== pass timing ===", f"{'seconds':>10}  {'runs':>5}  {'changed':>7}  pass"]
    total = 0.0
    for t in timings.values():
        lines.append(f"{t.seconds:10.6f}  {t.runs:5d}  {t.changed:7d}  {t.name}")
        total += t.seconds
    lines.append(f"{total:10.6f}  {'':5}  {'':7}  total")
    lines += ["=== analysis timing ===", f"{'seconds':>10}  {'computed':>8}  analysis"]
    for name, st in analyses.items():
        lines.append(f"{st.seconds:10.6f}  {st.computed:8d}  {name}")
    return "\n".join(lines)


def merge_timings(into: dict[str, PassTiming], more: dict[str, PassTiming]) -> None:
    """Add `more`'s pass timings into `into` (one report for several kernels)."""
    for name, t in more.items():
        acc = into.setdefault(name, PassTiming(name))
        acc.seconds += t.seconds
        acc.runs += t.runs
        acc.changed += t.changed


def merge_analysis_stats(into: dict[str, AnalysisStats], more: dict[str, AnalysisStats]) -> None:
    """Add `more`'s analysis counts and times into `into`."""
    for name, st in more.items():
        acc = into.setdefault(name, AnalysisStats())
        acc.computed += st.computed
        acc.seconds += st.seconds
