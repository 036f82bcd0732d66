"""Campaigns: seeds x a configuration matrix through the differential oracle.

`run_seed(seed, spec)` is the unit of work: generate one kernel, check it at
every configuration of the matrix, return a JSON-able record (status counts,
deduplicated failures with their signatures, the case text when something
failed). The same function runs locally and on Dask workers, so both modes
report the same thing.

`Campaign` drives many seeds:
- locally with `jobs` threads: each thread's `oracle.check` takes one of the
  oracle's worker *processes* (the pool is sized to `jobs`), where the
  vectorizer, the JIT and the kernel runs happen; the threads only generate
  kernels (~25 ms) and wait, so the GIL is not the bottleneck;
- on a Dask cluster with `scheduler=ADDR` (`dask.distributed`, the optional
  `distributed` extra): `run_seed` is submitted per seed, at most a few
  per worker thread in flight so a `--time` budget is honoured.
Every finished seed is appended to the journal at once (fuzz.journal), so
Ctrl-C loses nothing and `resume=True` skips the seeds already done.
"""

from __future__ import annotations

import json
import math
import os
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from typing import Any

from .journal import Journal, JournalError
from .rotation import target_label
from .signature import signature

FAILING = ("mismatch", "vector-fault", "timeout", "vectorizer-error")
# Verdicts of the scalar reference run, which blame the input, never the
# vectorizer (docs/oracle.md). A campaign's input is a generated kernel,
# undefined-behaviour-free by construction (docs/fuzzing.md), so on one of
# them they mean the generator produced UB: a generator defect, recorded
# among the seed's failures (the case text kept, to reduce it) and reported
# on its own line, never as a vectorizer failure nor in the exit status.
GENERATOR_UB = ("scalar-fault", "scalar-race")


class CampaignError(Exception):
    """A campaign cannot start (bad option, missing extra): a clear message, exit 2."""


@dataclass
class Spec:
    """What every seed of a campaign is run with (JSON-able, stored in the journal)."""

    profile: str | None = "default"  # None: rotated per seed (with `rotate`)
    knobs: dict[str, Any] = field(default_factory=dict)
    widths: list[int] | None = None  # None: the case header's (1,4,8,16)
    dims: list[int] | None = None  # None: the case header's
    choices: list[str] | None = None  # None: the case header's
    source: str = "ours"  # ours | csmith | mix
    peer: str | None = None  # command template of another vectorizer
    peer_mux: bool = False  # rename OpenCL work-item builtins to __mux_* for the peer
    mutate: str | None = None  # fuzz.mutation operator applied to our output
    timeout: float = 10.0
    rotate: bool = False  # each seed runs its own point of fuzz.rotation's matrix
    target_features: str | None = None  # None: the host's (rotated with `rotate`); "-fast-gather"...
    # The vectorizer checks its analyses against independent references
    # (vectorizer/verification/): a wrong analysis is a `vectorizer-error`
    # even when the kernel it produced computes the right values.
    # `vecz-fuzz run` turns it on unless --no-verify-analyses.
    verify_analyses: bool = False

    def resolved(self, seed: int) -> Spec:
        """The spec `seed` runs with: the rotation's profile, choices and widths
        filled in where rotating (the axes a user pinned stay), else itself."""
        if not self.rotate:
            return self
        from dataclasses import replace

        from .rotation import seed_config

        cfg = seed_config(seed, self.profile, self.choices, self.widths, self.target_features)
        return replace(self, profile=cfg.profile, rotate=False,
                       choices=[cfg.choices] if cfg.choices is not None else self.choices,
                       widths=list(cfg.widths) if cfg.widths is not None else self.widths,
                       target_features=cfg.target if cfg.target is not None else self.target_features)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Spec:
        """A spec from its journal form."""
        return cls(**{k: v for k, v in d.items() if k in cls.__dataclass_fields__})

    def validate(self) -> None:
        """CampaignError naming the first field no seed could run with (checked
        once up front: inside a seed it would be recorded as a failure of every seed)."""
        from .knobs import make_knobs

        if self.profile is None and not self.rotate:
            raise CampaignError("a campaign without rotation needs a profile")
        try:
            make_knobs(profile=self.profile or "default", **_knobs(self.knobs))
        except (TypeError, ValueError) as exc:
            raise CampaignError(str(exc)) from None
        if self.target_features:
            if self.peer is not None or self.mutate is not None:
                raise CampaignError("target features apply to our vectorizer's own campaigns only")
            from vectorizer.target import host_target, with_features

            try:
                with_features(host_target(), self.target_features)
            except ValueError as exc:
                raise CampaignError(f"target features: {exc}") from None
        if self.widths is not None:
            if not self.widths or any(not 1 <= w <= 64 for w in self.widths):
                raise CampaignError(f"widths {self.widths}: each must be 1..64")
        if self.dims is not None:
            if not self.dims or any(d not in (0, 1, 2) for d in self.dims):
                raise CampaignError(f"dims {self.dims}: each must be 0, 1 or 2")
        for c in self.choices or ():
            from vectorizer.choices import ChoiceError, parse_choices

            try:
                parse_choices(c)
            except ChoiceError as exc:
                raise CampaignError(f"choices {c!r}: {exc}") from None
        if self.source not in ("ours", "csmith", "mix"):
            raise CampaignError(f"unknown source {self.source!r} (ours, csmith or mix)")
        if self.mutate is not None:
            from .mutation import OPERATORS

            if self.mutate not in OPERATORS:
                raise CampaignError(f"unknown mutation operator {self.mutate!r}; known: "
                                    f"{', '.join(OPERATORS)}")
        if self.peer is not None:
            try:
                self.peer.format(kernel="k", width=4, dim=0, choices="", input="in", output="out")
            except (KeyError, IndexError, ValueError) as exc:
                raise CampaignError(f"bad --peer template {self.peer!r}: {type(exc).__name__} {exc}") from None
        if not (isinstance(self.timeout, (int, float)) and math.isfinite(self.timeout) and self.timeout > 0):
            raise CampaignError(f"timeout {self.timeout!r}: expected a positive number of seconds")


# --------------------------------------------------------------------- one seed


def make_case(seed: int, spec: Spec) -> str:
    """The case text for `seed` under `spec`'s source and knobs."""
    spec = spec.resolved(seed)
    source = spec.source
    if source == "mix":
        source = "csmith" if seed % 2 else "ours"
    if source == "csmith":
        gen = csmith_generator()
        return gen(seed)
    if source != "ours":
        raise CampaignError(f"unknown source {spec.source!r} (ours, csmith or mix)")
    from .generator import generate

    return generate(seed, profile=spec.profile, **_knobs(spec.knobs))


def _knobs(knobs: dict[str, Any]) -> dict[str, Any]:
    # JSON turns tuples into lists; the generator wants tuples.
    return {k: tuple(v) if isinstance(v, list) else v for k, v in knobs.items()}


def csmith_generator() -> Callable[[int], str]:
    """`fuzz.csmith.generate_csmith_kernel` if that bridge exists, else a CampaignError."""
    try:
        from . import csmith
    except Exception as exc:
        raise CampaignError(f"--source csmith needs fuzz.csmith, which does not import: {exc}") from None
    gen = getattr(csmith, "generate_csmith_kernel", None)
    if gen is None:
        raise CampaignError("--source csmith needs fuzz.csmith.generate_csmith_kernel, "
                            "which does not exist yet")

    ensure = getattr(csmith, "ensure_csmith", None)
    if ensure is not None:
        try:
            ensure()
        except Exception as exc:
            raise CampaignError(f"--source csmith: Csmith is not available: {exc}") from None

    def text_of(seed: int) -> str:
        out = gen(seed)
        if isinstance(out, str):
            return out
        return getattr(out, "case_text", None) or out.text

    return text_of


def configurations(case: Any, spec: Spec) -> list[tuple[int, int, str]]:
    """(width, dim, choices) of the matrix for one case."""
    widths = spec.widths or case.widths or [1, 4, 8, 16]
    dims = spec.dims if spec.dims is not None else (case.dims or [0])
    choices = spec.choices if spec.choices is not None else (case.choices or [""])
    return [(w, d, c) for c in choices for d in dims for w in widths]


def check_case(text: str, spec: Spec, configs: list[tuple[int, int, str]] | None = None) -> list[Any]:
    """Every oracle `Result` of one case under `spec` (ours, a mutant of ours, or a peer)."""
    import oracle

    if spec.mutate is None and spec.peer is None:
        if configs is None:
            return oracle.check(text, widths=spec.widths, dims=spec.dims, choices=spec.choices,
                                timeout=spec.timeout, target_features=spec.target_features or None,
                                verify_analyses=spec.verify_analyses).results
        results = []
        # Group by choices/dim so one check compiles one module for all widths.
        groups: dict[tuple[int, str], list[int]] = {}
        for w, d, c in configs:
            groups.setdefault((d, c), []).append(w)
        for (d, c), ws in groups.items():
            results += oracle.check(text, widths=ws, dims=[d], choices=[c], timeout=spec.timeout,
                                    target_features=spec.target_features or None,
                                    verify_analyses=spec.verify_analyses).results
        return results
    case = oracle.parse_case(text)
    results = []
    for w, d, c in configs or configurations(case, spec):
        results += _check_one_external(case, w, d, c, spec)
    return results


def _rows(case: Any, w: int, d: int, c: str, status: str, detail: str) -> list[Any]:
    from oracle import Result

    return [Result(w, d, c, list(nd.global_size[: nd.work_dim]), list(nd.local_size[: nd.work_dim]),
                   status, detail) for nd in case.ndranges]


def _check_one_external(case: Any, w: int, d: int, c: str, spec: Spec) -> list[Any]:
    """One configuration where the vector function comes from outside `oracle.check`:
    our vectorizer's output mutated, or a peer vectorizer's output."""
    import copy

    import oracle

    if spec.peer is not None:
        from .peer import run_peer

        status, detail, ir, name = run_peer(spec.peer, case, w, d, c, mux=spec.peer_mux,
                                            timeout=max(60.0, spec.timeout * 6))
        if status != "ok":
            return _rows(case, w, d, c, status, detail)
    else:
        status, detail, ir, name = vectorize_here(case, w, d, c, verify_analyses=spec.verify_analyses)
        if status != "ok":
            return _rows(case, w, d, c, status, detail)
        from .mutation import apply

        assert spec.mutate is not None
        mutated = apply(spec.mutate, ir, name)
        if mutated is None:
            return _rows(case, w, d, c, "no-site", f"{spec.mutate} has no site")
        ir = mutated
    vcase = copy.copy(case)
    vcase.ir = ir
    return oracle.check(vcase, vectorized=name, widths=[w], dims=[d], choices=[c],
                        timeout=spec.timeout).results


def vectorize_here(case: Any, w: int, d: int, c: str,
                   verify_analyses: bool = False) -> tuple[str, str, str, str]:
    """Vectorize in this process: (status, detail, module text, function name)."""
    from vectorizer import vectorize

    try:
        r = vectorize(case.ir, kernel=case.kernel, width=w, dim=d, choices=c, verify_analyses=verify_analyses)
    except ValueError as exc:
        return ("unsupported-input", str(exc), "", "")
    except Exception as exc:
        return ("vectorizer-error", f"{type(exc).__name__}: {exc}", "", "")
    if r.vectorized_name is None:
        return ("not-vectorized", "; ".join(r.remarks)[:300], "", "")
    return ("ok", "", r.ir, r.vectorized_name)


def summarize_results(results: list[Any], generated: bool = False) -> tuple[dict[str, int], list[dict[str, Any]]]:
    """Status counts and the failures of one kernel, one per signature.

    With `generated` (the scalar kernel is the generator's own), a
    `GENERATOR_UB` verdict is a failure too, one per status whatever the
    configuration (the scalar run does not depend on it): signature
    `scalar-race | generator UB`."""
    counts = Counter(r.status for r in results)
    seen: dict[str, dict[str, Any]] = {}
    for r in results:
        ub = generated and r.status in GENERATOR_UB
        if r.status in FAILING or ub:
            sig = f"{r.status} | generator UB" if ub else signature(r)
            if sig not in seen:
                seen[sig] = {"signature": sig, "status": r.status, "width": r.width, "dim": r.dim,
                             "choices": r.choices, "global_size": r.global_size,
                             "local_size": r.local_size, "detail": r.detail[:400]}
    return dict(counts), list(seen.values())


def run_seed(seed: int, spec_json: dict[str, Any]) -> dict[str, Any]:
    """Generate and check one seed; the journal record of the result.

    Never raises for a bad kernel: a generator crash is recorded as a
    `generator-error` failure so a campaign goes on (and reports it)."""
    spec = Spec.from_json(spec_json).resolved(seed)
    t0 = time.perf_counter()
    try:
        text = make_case(seed, spec)
    except CampaignError:
        raise
    except Exception as exc:
        if type(exc).__name__ in ("Rejected", "CsmithError"):  # no usable Csmith program: not a bug
            return {"type": "seed", "seed": seed, "n": 0, "summary": {"rejected": 1},
                    "failures": [], "case": None, "elapsed": time.perf_counter() - t0}
        f = {"signature": f"generator-error | {type(exc).__name__}", "status": "generator-error",
             "detail": f"{type(exc).__name__}: {exc}"[:400]}
        return {"type": "seed", "seed": seed, "n": 0, "summary": {"generator-error": 1},
                "failures": [f], "case": None, "elapsed": time.perf_counter() - t0}
    try:
        results = check_case(text, spec)
    except Exception as exc:  # the oracle rejected the case: a generator bug
        f = {"signature": f"bad-case | {type(exc).__name__}", "status": "bad-case",
             "detail": f"{type(exc).__name__}: {exc}"[:400]}
        return {"type": "seed", "seed": seed, "n": 0, "summary": {"bad-case": 1},
                "failures": [f], "case": text, "elapsed": time.perf_counter() - t0}
    # A peer's module carries the scalar kernel the reference runs: that one
    # is the peer's output, not the generator's alone.
    counts, failures = summarize_results(results, generated=spec.peer is None)
    return {"type": "seed", "seed": seed, "n": len(results), "summary": counts,
            "failures": failures, "case": text if failures else None,
            "elapsed": time.perf_counter() - t0,
            "config": {"profile": spec.profile, "choices": spec.choices, "widths": spec.widths,
                       "target": target_label(spec.target_features)},
            "axes": _axes(results)}


def _axes(results: list[Any]) -> dict[str, dict[str, int]]:
    """Configurations run per choices string, width and dimension."""
    out: dict[str, Counter[str]] = {"choices": Counter(), "width": Counter(), "dim": Counter()}
    for r in results:
        out["choices"][r.choices or "-"] += 1
        out["width"][str(r.width)] += 1
        out["dim"][str(r.dim)] += 1
    return {k: dict(v) for k, v in out.items()}


# --------------------------------------------------------------------- many seeds


@dataclass
class CampaignReport:
    """What a campaign found."""

    seeds: int = 0
    configurations: int = 0
    seconds: float = 0.0
    summary: Counter[str] = field(default_factory=Counter)
    failures: dict[str, dict[str, Any]] = field(default_factory=dict)  # signature -> first + count
    # The same for the seeds' `GENERATOR_UB` failures, and every seed with one.
    generator_ub: dict[str, dict[str, Any]] = field(default_factory=dict)
    generator_ub_seeds: set[int] = field(default_factory=set)
    interrupted: bool = False
    verify_analyses: bool = False  # the spec's: the vectorizer checked its analyses
    coverage: dict[str, Counter[str]] = field(default_factory=lambda: {
        "profile": Counter(), "choices": Counter(), "width": Counter(), "dim": Counter(),
        "target": Counter()})

    def add(self, rec: dict[str, Any]) -> None:
        """Fold one seed record in."""
        cfg = rec.get("config")
        if cfg:
            self.coverage["profile"][str(cfg.get("profile"))] += rec.get("n", 0)
            self.coverage["target"][target_label(cfg.get("target"))] += rec.get("n", 0)
        for axis, counts in (rec.get("axes") or {}).items():
            if axis in self.coverage:
                self.coverage[axis].update(counts)
        self.seeds += 1
        self.configurations += rec.get("n", 0)
        self.summary.update(rec.get("summary", {}))
        for f in rec.get("failures", []):
            table = self.failures
            if f["status"] in GENERATOR_UB:
                table = self.generator_ub
                self.generator_ub_seeds.add(rec["seed"])
            entry = table.get(f["signature"])
            if entry is None:
                table[f["signature"]] = {**f, "seed": rec["seed"], "count": 1, "seeds": [rec["seed"]]}
            else:
                entry["count"] += 1
                if len(entry["seeds"]) < 20:
                    entry["seeds"].append(rec["seed"])

    @property
    def throughput(self) -> float:
        """Kernel-configurations (oracle results) per second."""
        return self.configurations / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        """The `vecz-fuzz --json` object."""
        return {"seeds": self.seeds, "configurations": self.configurations,
                "seconds": round(self.seconds, 3), "throughput": round(self.throughput, 3),
                "summary": dict(self.summary), "failures": list(self.failures.values()),
                "generator_ub": {"kernels": len(self.generator_ub_seeds),
                                 "seeds": sorted(self.generator_ub_seeds),
                                 "failures": list(self.generator_ub.values())},
                "interrupted": self.interrupted, "verify_analyses": self.verify_analyses,
                "coverage": {k: dict(sorted(v.items())) for k, v in self.coverage.items()}}

    def coverage_lines(self) -> list[str]:
        """The configuration matrix the campaign covered, one line per axis,
        and the points of the rotation it missed."""
        from .rotation import missing

        cov = {k: dict(v) for k, v in self.coverage.items()}
        if not any(cov.values()):
            return []
        lines = ["", "configurations covered:"]
        for axis, counts in cov.items():
            items = ", ".join(f"{k or '-'}: {n}" for k, n in sorted(counts.items()))
            lines.append(f"  {axis:<8} {items}")
        gaps = missing(cov)
        lines.append("  not covered: " + (", ".join(gaps) if gaps else "nothing of the rotation"))
        return lines

    def table(self) -> str:
        """A readable summary."""
        lines = [f"{self.seeds} kernels, {self.configurations} kernel-configurations in "
                 f"{self.seconds:.1f}s: {self.throughput:.2f} configurations/s"
                 + (" (interrupted)" if self.interrupted else ""), "", "status              count"]
        for st, n in sorted(self.summary.items(), key=lambda kv: -kv[1]):
            lines.append(f"{st:<20}{n:>6}")
        if self.failures:
            lines += ["", f"{len(self.failures)} distinct failure signature(s):", "",
                      f"{'count':>5}  {'first seed':>10}  signature"]
            for sig, f in sorted(self.failures.items(), key=lambda kv: -kv[1]["count"]):
                lines.append(f"{f['count']:>5}  {f['seed']:>10}  {sig}")
        else:
            lines += ["", "no failures"]
        if self.generator_ub_seeds:
            lines += ["", self.generator_ub_line()]
        lines += ["", "analysis verification: " + ("on (the vectorizer checked its analyses)"
                                                   if self.verify_analyses else "off")]
        lines += self.coverage_lines()
        return "\n".join(lines)

    def generator_ub_line(self) -> str:
        """`generator produced UB: N kernels, seeds ...`: the generator's
        defects this campaign found (kept apart from the vectorizer's)."""
        seeds = sorted(self.generator_ub_seeds)
        shown = ", ".join(map(str, seeds[:20])) + (f" and {len(seeds) - 20} more" if len(seeds) > 20 else "")
        statuses: Counter[str] = Counter()
        for f in self.generator_ub.values():
            statuses[f["status"]] += f["count"]
        what = ", ".join(f"{st} {n}" for st, n in sorted(statuses.items()))
        n = len(seeds)
        return (f"generator produced UB: {n} kernel{'s' if n != 1 else ''}, seed{'s' if n != 1 else ''} "
                f"{shown} ({what}: a generator defect, not the vectorizer's)")


class Progress:
    """A one-line plain-text progress bar on stderr (redrawn in place on a tty)."""

    def __init__(self, total: int | None, seconds: float | None, stream: Any = None,
                 enabled: bool = True) -> None:
        self.total, self.seconds = total, seconds
        self.stream = stream or sys.stderr
        self.enabled = enabled and self.stream is not None  # no bar when started with 2>&-
        self.t0 = time.monotonic()
        self.tty = getattr(self.stream, "isatty", lambda: False)()
        self._last = 0.0

    def update(self, report: CampaignReport, final: bool = False) -> None:
        """Redraw (at most ~4 times a second, every 25 seeds when not a tty)."""
        if not self.enabled:
            return
        now = time.monotonic()
        if not final and (now - self._last < 0.25 or not self.tty and report.seeds % 25):
            return
        self._last = now
        el = now - self.t0
        frac = (report.seeds / self.total if self.total else el / self.seconds if self.seconds else 0.0)
        frac = min(1.0, frac)
        bar = "#" * int(frac * 30)
        fails = sum(f["count"] for f in report.failures.values())
        ub = f" generator-ub={len(report.generator_ub_seeds)}" if report.generator_ub_seeds else ""
        line = (f"[{bar:<30}] {report.seeds}{'/' + str(self.total) if self.total else ''} kernels "
                f"{el:.0f}s {report.configurations / el if el else 0:.1f} cfg/s failures={fails}{ub}")
        self.stream.write(("\r" + line) if self.tty else line + "\n")
        if final and self.tty:
            self.stream.write("\n")
        self.stream.flush()


class Campaign:
    """Runs `run_seed` over seeds, journaling each result; see the module doc."""

    def __init__(self, spec: Spec, seed: int = 0, count: int | None = None,
                 seconds: float | None = None, jobs: int = 0, scheduler: str | None = None,
                 journal: str | os.PathLike[str] | None = None, resume: bool = False,
                 progress: bool = True, on_record: Callable[[dict[str, Any]], None] | None = None,
                 warn: Callable[[str], None] | None = None) -> None:
        if count is None and seconds is None:
            raise CampaignError("a campaign needs --count or --time")
        if count is not None and count < 0 or seconds is not None and not (
                math.isfinite(seconds) and seconds > 0):
            raise CampaignError("--count must be 0 or more and --time a positive number of seconds")
        spec.validate()
        if spec.source in ("csmith", "mix"):
            csmith_generator()  # fail now with a clear message, not in every seed
        self.spec, self.seed, self.count, self.seconds = spec, seed, count, seconds
        self.jobs = jobs or os.cpu_count() or 1
        self.scheduler = scheduler
        self.journal = Journal(journal) if journal else None
        self.resume = resume
        self.progress = progress
        self.on_record = on_record  # called after each journaled record (tests inject interrupts here)
        self.warn = warn or _warn
        self.report = CampaignReport(verify_analyses=spec.verify_analyses)

    def _seeds(self, done: set[int]) -> Iterator[int]:
        s = self.seed
        left = self.count
        while left is None or left > 0:
            if s not in done:
                yield s
            if left is not None:
                left -= 1
            s += 1

    def run(self) -> CampaignReport:
        """Run to the end (or Ctrl-C: then the report says `interrupted`)."""
        done: set[int] = set()
        if self.journal is not None:
            try:
                self._open_journal(done)
            except JournalError as exc:
                raise CampaignError(str(exc)) from None
        prior = self.report.seconds
        t0 = time.monotonic()
        bar = Progress(self.count, self.seconds, enabled=self.progress)
        deadline = t0 + self.seconds if self.seconds is not None else None
        seeds = self._seeds(done)
        try:
            if self.scheduler:
                self._run_dask(seeds, deadline, bar)
            else:
                self._run_local(seeds, deadline, bar)
        except KeyboardInterrupt:
            self.report.interrupted = True
        finally:
            self.report.seconds = prior + (time.monotonic() - t0)
            bar.update(self.report, final=True)
            if self.journal is not None:
                if not self.report.interrupted:
                    self.journal.append({"type": "end", "seeds": self.report.seeds,
                                         "seconds": self.report.seconds})
                self.journal.close()
        return self.report

    def _open_journal(self, done: set[int]) -> None:
        """Lock the journal, read what a resumed campaign already did, record the start."""
        assert self.journal is not None
        self.journal.lock()
        try:
            if self.resume:
                for rec in self.journal.seed_records():
                    if rec["seed"] not in done:
                        done.add(rec["seed"])
                        if self.count is None or self.seed <= rec["seed"] < self.seed + self.count:
                            self.report.add(rec)
                for problem in self.journal.problems:
                    self.warn(problem)
                self._compare_spec(self.journal.last_spec())
            elif not self.journal.is_empty():
                raise CampaignError(f"journal {self.journal.path} exists: pass --resume to continue it, "
                                    "or choose another file")
            self.journal.append({"type": "start", "spec": asdict(self.spec), "seed": self.seed,
                                 "count": self.count, "seconds": self.seconds, "resume": self.resume})
        except BaseException:
            self.journal.close()
            raise

    def _compare_spec(self, old: dict[str, Any] | None) -> None:
        """Warn when a resumed campaign generates or checks differently from the journal's."""
        if not old:
            return
        now = json.loads(json.dumps(asdict(self.spec)))  # tuples as the journal has them: lists
        differ = [k for k in now if k != "timeout" and k in old and old[k] != now[k]]
        if differ:
            self.warn(f"the journal's campaign ran with {', '.join(f'{k}={old[k]!r}' for k in differ)}; "
                      f"this run uses {', '.join(f'{k}={now[k]!r}' for k in differ)}: the seeds it "
                      "adds are not comparable with the recorded ones")

    def _record(self, rec: dict[str, Any], bar: Progress) -> None:
        if self.journal is not None:
            self.journal.append(rec)  # on disk before anything else can go wrong
        self.report.add(rec)
        bar.update(self.report)
        if self.on_record is not None:
            self.on_record(rec)

    def _run_local(self, seeds: Iterator[int], deadline: float | None, bar: Progress) -> None:
        import oracle
        from oracle import worker

        # One oracle worker process per job: size the shared pool before first use.
        if worker._POOL is None or worker._POOL.size < self.jobs:
            oracle.close()
            os.environ["VECZ_ORACLE_WORKERS"] = str(self.jobs)
        spec_json = asdict(self.spec)
        stop = threading.Event()
        pool = ThreadPoolExecutor(self.jobs, thread_name_prefix="vecz-fuzz")
        pending: dict[Future[dict[str, Any]], int] = {}
        try:
            while True:
                while len(pending) < self.jobs and (deadline is None or time.monotonic() < deadline):
                    s = next(seeds, None)
                    if s is None:
                        break
                    pending[pool.submit(_guarded, run_seed, s, spec_json, stop)] = s
                if not pending:
                    break
                finished, _ = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                for fut in finished:
                    pending.pop(fut)
                    rec = fut.result()
                    if rec is not None:
                        self._record(rec, bar)
        finally:
            # Results still running are dropped, never journaled half-done: they
            # were interrupted, and --resume runs them again.
            stop.set()
            pool.shutdown(wait=False, cancel_futures=True)
            if pending:
                oracle.close()  # kills the workers the abandoned checks are using

    def _run_dask(self, seeds: Iterator[int], deadline: float | None, bar: Progress) -> None:
        try:
            from dask.distributed import Client, as_completed
        except ImportError:
            raise CampaignError("--scheduler needs Dask distributed: pip install 'vecz-py[distributed]'") from None
        try:
            client = Client(self.scheduler, timeout="20s")
        except Exception as exc:
            raise CampaignError(f"cannot reach Dask scheduler {self.scheduler}: {exc}") from None
        try:
            threads = sum(client.nthreads().values()) or 1
            window = max(2, 2 * threads)
            spec_json = asdict(self.spec)
            ac = as_completed()
            inflight = 0

            def top_up() -> None:
                nonlocal inflight
                while inflight < window and (deadline is None or time.monotonic() < deadline):
                    s = next(seeds, None)
                    if s is None:
                        return
                    # pure=False: a seed re-submitted after a resume must run again.
                    ac.add(client.submit(run_seed, s, spec_json, pure=False, key=f"vecz-seed-{s}-{time.time_ns()}"))
                    inflight += 1

            top_up()
            for fut in ac:
                inflight -= 1
                try:
                    rec = fut.result()
                except CampaignError:
                    raise
                except Exception as exc:  # a Dask worker died: record it, go on
                    rec = None
                    print(f"vecz-fuzz: a Dask task failed: {exc}", file=sys.stderr)
                if rec is not None:
                    self._record(rec, bar)
                top_up()
        finally:
            client.close()


def _warn(message: str) -> None:
    if sys.stderr is not None:  # print(file=None) would write to stdout, into a --json report
        print(f"vecz-fuzz: warning: {message}", file=sys.stderr)


def _guarded(fn: Callable[..., dict[str, Any]], seed: int, spec_json: dict[str, Any],
             stop: threading.Event) -> dict[str, Any] | None:
    """Run one seed; None if the campaign stopped meanwhile (its result is unreliable:
    its oracle worker may have been killed by the shutdown)."""
    if stop.is_set():
        return None
    rec = fn(seed, spec_json)
    return None if stop.is_set() else rec
