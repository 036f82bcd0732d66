"""`vecz-fuzz`: the generator's command line.

    vecz-fuzz generate --seed 7 [-o k.ll] [--profile loops] [--knob size=30] [--plan]
    vecz-fuzz coverage --count 1000 [--seed 0] [--plans-only] [--knob ...]
    vecz-fuzz check-scalar --count 1000 [--jobs N]   # UB-freedom: no scalar-fault
    vecz-fuzz [run] --seed 0 --count 500 | --time 600 [--jobs 2] [--profile uniform]
              [--journal J --resume] [--json] [--scheduler ADDR] [--peer CMD] [--source ours]
    vecz-fuzz mutation-score --kernels 500 [--profile uniform] [--json]
    vecz-fuzz report JOURNAL [--json]                 # a journal's report, nothing run
    vecz-fuzz stability [--count 300] [--jobs 2] [--survey DIR | --no-survey]  # two runs, same verdicts?
    vecz-fuzz throughput [--count 100] [--jobs 1] [--profile default] [--rotate]  # configurations/s

Subcommands are registered in `SUBCOMMANDS` (name -> (add_arguments, run)),
so later commands (campaigns) plug in without touching the others.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from oracle.cmdline import (
    ArgumentParser,
    UsageError,
    count_arg,
    int_list_arg,
    long_seconds_arg,
    nonempty_arg,
    parse_args,
    run_command,
    seconds_arg,
    seed_arg,
    write_text,
)
from oracle.worker import MAX_WORKERS, WorkerConfigError, pool_size

from .knobs import PROFILES, make_knobs, parse_knob


def knob_arg(text: str) -> tuple[str, Any]:
    """`--knob name=value` as an argparse type (fuzz.knobs.parse_knob)."""
    try:
        return parse_knob(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def jobs_arg(text: str) -> int:
    """`--jobs`: 0 (all cores) .. MAX_WORKERS."""
    n = count_arg(text)
    if n > MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"at most {MAX_WORKERS} jobs, got {text!r}")
    return n


def widths_arg(text: str) -> list[int]:
    """`--widths 4,8`: a non-empty list of widths 1..64."""
    ws = int_list_arg(text)
    if any(not 1 <= w <= 64 for w in ws):
        raise argparse.ArgumentTypeError(f"expected widths from 1 to 64, got {text!r}")
    return ws


def dims_arg(text: str) -> list[int]:
    """`--dims 0,1`: a non-empty list of dimensions 0..2."""
    ds = int_list_arg(text)
    if any(d not in (0, 1, 2) for d in ds):
        raise argparse.ArgumentTypeError(f"expected dimensions 0, 1 or 2, got {text!r}")
    return ds


def knob_args(ns: argparse.Namespace) -> dict[str, Any]:
    """The generator keywords of `--profile` and `--knob` (checked: UsageError)."""
    out: dict[str, Any] = dict(ns.knob or [])
    if getattr(ns, "profile", None):
        out["profile"] = ns.profile
    try:
        make_knobs(**out)
    except (TypeError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    return out


def _add_knob_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--profile", choices=sorted(PROFILES), help="starting set of knobs")
    p.add_argument("--knob", action="append", type=knob_arg, metavar="NAME=VALUE",
                   help="override one generator knob (repeatable)")


# ---------------------------------------------------------------------------
# generate


def _generate_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=seed_arg, required=True)
    p.add_argument("-o", "--output", type=nonempty_arg, help="write the case here (default: stdout)")
    p.add_argument("--plan", action="store_true", help="print the plan as pseudo C instead")
    _add_knob_options(p)


def _generate(ns: argparse.Namespace) -> int:
    from .generator import KERNEL_NAME, generate_kernel, plan_kernel
    from .pretty import plan_c

    kwargs = knob_args(ns)
    if ns.plan:
        from .choice_source import RandomSource

        text = plan_c(plan_kernel(RandomSource(ns.seed), make_knobs(**kwargs), KERNEL_NAME))
    else:
        text = generate_kernel(ns.seed, **kwargs).text
    if ns.output:
        write_text(ns.output, text)
    else:
        sys.stdout.write(text)
    return 0


# ---------------------------------------------------------------------------
# coverage


def _coverage_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--count", type=count_arg, default=1000)
    p.add_argument("--seed", type=seed_arg, default=0, help="first seed")
    p.add_argument("--plans-only", action="store_true",
                   help="draw plans only (no IR), much faster")
    _add_knob_options(p)


def _coverage(ns: argparse.Namespace) -> int:
    from .coverage import measure

    report = measure(ns.count, ns.seed, emit=not ns.plans_only, **knob_args(ns))
    print(report.table())
    return 0


# ---------------------------------------------------------------------------
# check-scalar


def _check_scalar_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--count", type=count_arg, default=1000)
    p.add_argument("--seed", type=seed_arg, default=0, help="first seed")
    p.add_argument("--jobs", type=jobs_arg, default=0, help="processes (default: all cores)")
    p.add_argument("--determinism", action="store_true",
                   help="also regenerate every kernel and compare the text")
    _add_knob_options(p)


def _check_scalar(ns: argparse.Namespace) -> int:
    import oracle

    from .generator import generate

    knobs = knob_args(ns)
    jobs = ns.jobs or 0
    if jobs:
        os.environ["VECZ_ORACLE_WORKERS"] = str(jobs)
    jobs = jobs or os.cpu_count() or 1

    def one(seed: int) -> tuple[int, dict[str, int], str, bool]:
        text = generate(seed, **knobs)
        same = not ns.determinism or generate(seed, **knobs) == text
        rep = oracle.check_scalar(text)
        bad = next((r.detail for r in rep.results if r.status != "match"), "")
        return seed, rep.summary, bad, same

    counts: Counter[str] = Counter()
    bad: list[str] = []
    t0 = time.monotonic()
    with ThreadPoolExecutor(jobs) as pool:
        for seed, summary, detail, same in pool.map(one, range(ns.seed, ns.seed + ns.count)):
            counts.update(summary)
            if detail:
                bad.append(f"seed {seed}: {detail[:200]}")
            if not same:
                counts["nondeterministic"] += 1
                bad.append(f"seed {seed}: regenerating gives different text")
    dt = time.monotonic() - t0
    print(f"{ns.count} kernels scalar in {dt:.1f}s ({ns.count / dt if dt > 0 else 0:.1f}/s)")
    for st, n in sorted(counts.items()):
        print(f"  {st:<20}{n:>6}")
    for line in bad[:20]:
        print("  " + line)
    return 0 if not bad else 1


# ---------------------------------------------------------------------------
# run (campaigns)


def _run_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=seed_arg, default=0, help="first seed (default 0)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--count", type=count_arg, help="number of seeds")
    g.add_argument("--time", type=long_seconds_arg, help="stop submitting seeds after this many seconds")
    p.add_argument("--jobs", type=jobs_arg, default=0, help="local oracle worker processes (default: all cores)")
    p.add_argument("--scheduler", metavar="ADDR", help="run on a Dask distributed cluster (tcp://host:8786)")
    p.add_argument("--journal", metavar="FILE", type=nonempty_arg,
                   help="append-only JSONL journal (default with --resume: vecz-fuzz-journal.jsonl)")
    p.add_argument("--resume", action="store_true", help="continue the campaign of --journal")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout at the end")
    p.add_argument("--corpus", metavar="DIR", type=nonempty_arg,
                   help="reduce each new failure signature into DIR")
    p.add_argument("--reduce-time", type=long_seconds_arg, default=300.0,
                   help="seconds per reduction (with --corpus)")
    p.add_argument("--widths", type=widths_arg, help="comma list (default: the case's, 1,4,8,16)")
    p.add_argument("--dims", type=dims_arg, help="comma list (default: the case's)")
    p.add_argument("--choices", action="append", help="a Vecz choices string (repeatable; default: the case's)")
    p.add_argument("--target-features", metavar="LIST",
                   help="vectorize for the host adjusted by this feature list, e.g. "
                        "--target-features=-fast-gather (default: rotated, see fuzz.rotation)")
    p.add_argument("--timeout", type=seconds_arg, default=10.0, help="seconds per kernel run")
    p.add_argument("--source", choices=("ours", "csmith", "mix"), default="ours")
    p.add_argument("--peer", metavar="CMD", help="fuzz another vectorizer: a command template with "
                   "{kernel} {width} {dim} {choices} {input} {output}")
    p.add_argument("--peer-mux", action="store_true", help="rename work-item builtins to __mux_* for the peer")
    p.add_argument("--mutate", metavar="OP", help="inject a fuzz.mutation fault into our output")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument("--no-rotate", action="store_true",
                   help="run every seed with the case's own configuration and --profile (default: "
                        "rotate profiles, choices and an extra width across seeds; see fuzz.rotation)")
    p.add_argument("--no-verify-analyses", action="store_true",
                   help="do not have the vectorizer check its analyses against independent references "
                        "(default: checked, a wrong analysis is a vectorizer-error)")
    _add_knob_options(p)


def _run(ns: argparse.Namespace) -> int:
    from .campaign import Campaign, Spec

    if ns.count is None and ns.time is None:
        raise UsageError("give --count N or --time SECONDS")
    if ns.resume and not ns.journal:
        ns.journal = "vecz-fuzz-journal.jsonl"
    rotate = not ns.no_rotate and ns.source == "ours" and ns.peer is None and ns.mutate is None
    spec = Spec(profile=ns.profile if rotate else (ns.profile or "default"), knobs=dict(ns.knob or []),
                widths=ns.widths, dims=ns.dims, choices=ns.choices, source=ns.source, peer=ns.peer,
                peer_mux=ns.peer_mux, mutate=ns.mutate, timeout=ns.timeout, rotate=rotate,
                target_features=ns.target_features, verify_analyses=not ns.no_verify_analyses)
    if ns.corpus:
        try:  # now, not after the campaign, when its failures are to be filed
            os.makedirs(ns.corpus, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot use corpus directory {ns.corpus}: {exc.strerror or exc}") from None
    camp = Campaign(spec, seed=ns.seed, count=ns.count, seconds=ns.time, jobs=ns.jobs,
                    scheduler=ns.scheduler, journal=ns.journal, resume=ns.resume,
                    progress=not ns.no_progress)
    report = camp.run()
    reduced: list[dict[str, Any]] = []
    if ns.corpus and report.failures and not report.interrupted:
        try:
            reduce_failures(report, spec, ns.corpus, ns.reduce_time, reduced)
        except KeyboardInterrupt:
            # The campaign's report (and the reductions done) still go out.
            report.interrupted = True
            print("vecz-fuzz: interrupted while reducing", file=sys.stderr)
    if ns.json:
        out = report.to_json()
        out["reduced"] = reduced
        print(json.dumps(out))
        if report.generator_ub_seeds and sys.stderr is not None:  # the table has it; say it beside the JSON too
            print(f"vecz-fuzz: warning: {report.generator_ub_line()}", file=sys.stderr)
    else:
        print(report.table())
        for r in reduced:
            print(f"reduced {r['signature']}: {r.get('before')} -> {r.get('after')} instructions, "
                  f"{r.get('path') or r.get('error')}")
    return 130 if report.interrupted else (1 if report.failures else 0)


def reduce_failures(report: Any, spec: Any, corpus: str, seconds: float,
                    out: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Reduce the first case of every failure signature into `corpus`,
    appending one entry per signature to `out` as it is done."""
    from .campaign import make_case
    from .corpus import write_case
    from .reduce import ReduceError, reduce_case

    for sig, f in report.failures.items():
        if f["status"] not in ("mismatch", "vector-fault", "timeout", "vectorizer-error"):
            continue
        try:
            seed_spec = spec.resolved(f["seed"])
            text = make_case(f["seed"], seed_spec)
            res = reduce_case(text, seed_spec, seconds=seconds)
        except ReduceError as exc:
            out.append({"signature": sig, "seed": f["seed"], "error": str(exc)})
            continue
        path = write_case(res.text, f["status"], corpus)
        out.append({"signature": sig, "seed": f["seed"], "before": res.before, "after": res.after,
                    "path": str(path)})
    return out


# ---------------------------------------------------------------------------
# report


def _report_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("journal", type=nonempty_arg, help="a campaign journal (JSONL)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _report(ns: argparse.Namespace) -> int:
    from .campaign import CampaignReport
    from .journal import Journal

    if not os.path.exists(ns.journal):
        raise UsageError(f"{ns.journal}: no such journal file")
    journal = Journal(ns.journal)
    report = CampaignReport()
    seen: set[int] = set()
    for rec in journal.records():
        if rec.get("type") == "seed" and rec["seed"] not in seen:
            seen.add(rec["seed"])
            report.add(rec)
        elif rec.get("type") == "end" and isinstance(rec.get("seconds"), (int, float)):
            report.seconds = max(report.seconds, float(rec["seconds"]))
        elif rec.get("type") == "start":
            # The last start's spec says whether the vectorizer checked its analyses.
            report.verify_analyses = bool((rec.get("spec") or {}).get("verify_analyses"))
    for problem in journal.problems:
        if sys.stderr is not None:
            print(f"vecz-fuzz: warning: {problem}", file=sys.stderr)
    print(json.dumps(report.to_json()) if ns.json else report.table())
    return 1 if report.failures else 0


# ---------------------------------------------------------------------------
# mutation-score


def _mutation_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--kernels", type=count_arg, default=500, help="kernels per operator at most")
    p.add_argument("--seed", type=seed_arg, default=0, help="first seed")
    p.add_argument("--operators", help="comma list (default: all)")
    p.add_argument("--widths", type=widths_arg, default=[4, 8], help="comma list (default 4,8)")
    p.add_argument("--choices", action="append", help="Vecz choices (repeatable; default: none)")
    p.add_argument("--jobs", type=jobs_arg, default=0, help="operators checked in parallel (default: all cores)")
    p.add_argument("--reduce-time", type=long_seconds_arg, default=120.0, help="seconds to reduce each witness")
    p.add_argument("--no-reduce", action="store_true", help="do not reduce the witnesses")
    p.add_argument("--witness-dir", help="write each reduced witness here")
    p.add_argument("--json", action="store_true", help="one JSON object with score and table")
    _add_knob_options(p)


def _mutation_score(ns: argparse.Namespace) -> int:
    from .campaign import Spec
    from .mutation import OPERATORS
    from .mutation_score import score

    ops = [o.strip() for o in ns.operators.split(",") if o.strip()] if ns.operators else list(OPERATORS)
    unknown = [o for o in ops if o not in OPERATORS]
    if unknown or not ops:
        raise UsageError(f"unknown mutation operator {unknown[0] if unknown else ns.operators!r}; "
                         f"known: {', '.join(OPERATORS)}")
    Spec(profile=ns.profile or "default", knobs=dict(ns.knob or []), widths=ns.widths,
         choices=ns.choices).validate()
    res = score(ops, kernels=ns.kernels, seed=ns.seed, profile=ns.profile or "default",
                knobs=dict(ns.knob or []), widths=ns.widths, choices=ns.choices,
                jobs=ns.jobs, reduce_seconds=None if ns.no_reduce else ns.reduce_time,
                witness_dir=ns.witness_dir, progress=sys.stderr)
    if ns.json:
        print(json.dumps(res))
    else:
        print(format_score(res))
    return 0


def format_score(res: dict[str, Any]) -> str:
    """The mutation-score table."""
    lines = [f"{'operator':<15}{'detected':>9}{'after':>7}{'tried':>7}  {'reduced':>8}  status",
             "-" * 60]
    for row in res["operators"]:
        lines.append(f"{row['operator']:<15}{'yes' if row['detected'] else 'no':>9}"
                     f"{row['after'] if row['detected'] else '-':>7}{row['mutants']:>7}  "
                     f"{row.get('reduced_instructions') or '-':>8}  {row.get('status') or ''}")
    lines.append(f"score: {res['detected']}/{res['injected']} = {res['score']:.2f}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# stability


def _stability_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=seed_arg, default=0, help="first seed of the campaign (default 0)")
    p.add_argument("--count", type=count_arg, default=300, help="campaign seeds (default 300; 0: none)")
    p.add_argument("--jobs", type=jobs_arg, default=2, help="oracle workers, for both (default 2)")
    p.add_argument("--survey", metavar="DIR", type=nonempty_arg,
                   help="folder of foreign .ll kernels (default: the peer corpus)")
    p.add_argument("--survey-limit", type=count_arg, help="survey only the first N files")
    p.add_argument("--survey-widths", type=widths_arg, default=[2, 4, 8, 16],
                   help="the survey's widths (default 2,4,8,16, as python -m oracle.peer_survey)")
    p.add_argument("--no-survey", action="store_true", help="the campaign only")
    p.add_argument("--timeout", type=seconds_arg, default=10.0, help="seconds per kernel run")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _stability(ns: argparse.Namespace) -> int:
    from pathlib import Path

    from oracle.survey import DEFAULT_DIR

    from .campaign import Spec
    from .stability import compare_runs

    survey = None
    if not ns.no_survey:
        survey = Path(ns.survey) if ns.survey else DEFAULT_DIR
        if not survey.is_dir():
            raise UsageError(f"--survey: {survey} is not a folder")
    spec = Spec(profile=None, timeout=ns.timeout, rotate=True)
    jobs = ns.jobs or os.cpu_count() or 1
    comps = compare_runs(survey, ns.survey_widths, ns.survey_limit, ns.seed, ns.count, jobs, spec,
                         progress=lambda m: print(f"vecz-fuzz: {m}", file=sys.stderr))
    if ns.json:
        print(json.dumps([c.to_json() for c in comps], indent=1))
    else:
        for c in comps:
            secs = " and ".join(f"{s:.0f}s" for s in c.seconds)
            print(f"{c.what}: {c.verdicts} verdicts, run twice ({secs}) at {jobs} jobs: "
                  + (f"{len(c.differences)} differ" if c.differences else "identical"))
            for line in c.differences[:50]:
                print("  " + line)
    return 1 if any(c.differences for c in comps) else 0


def _throughput_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=seed_arg, default=0, help="first seed (default 0)")
    p.add_argument("--count", type=count_arg, default=100, help="seeds (default 100)")
    p.add_argument("--jobs", type=jobs_arg, default=1, help="oracle workers (default 1)")
    p.add_argument("--profile", choices=sorted(PROFILES), default="default",
                   help="generator profile (default: default)")
    p.add_argument("--rotate", action="store_true",
                   help="rotate profiles, choices and widths as `vecz-fuzz run` does")
    p.add_argument("--no-verify-analyses", action="store_true",
                   help="the vectorizer does not check its analyses (default: checked, as `vecz-fuzz run`)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _throughput(ns: argparse.Namespace) -> int:
    from .campaign import Spec
    from .throughput import measure

    if ns.count < 1:
        raise UsageError("--count must be at least 1")
    spec = Spec(profile=None if ns.rotate else ns.profile, rotate=ns.rotate,
                verify_analyses=not ns.no_verify_analyses)
    res = measure(spec, ns.seed, ns.count, ns.jobs or os.cpu_count() or 1)
    print(json.dumps(res.to_json()) if ns.json else res.line() + "\n" + res.breakdown())
    return 0


SUBCOMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None],
                             Callable[[argparse.Namespace], int]]] = {
    "generate": ("write one generated kernel (a case file)", _generate_args, _generate),
    "coverage": ("how often each construct appears over N kernels", _coverage_args, _coverage),
    "check-scalar": ("run N kernels scalar under the oracle: no scalar-fault allowed",
                     _check_scalar_args, _check_scalar),
    "run": ("a campaign: seeds x configurations through the oracle (the default command)",
            _run_args, _run),
    "mutation-score": ("inject each fault into our output; is it caught within N kernels?",
                       _mutation_args, _mutation_score),
    "report": ("the report of a campaign journal, without running anything",
               _report_args, _report),
    "throughput": ("kernel-configurations per second per job and per CPU second of a campaign",
                   _throughput_args, _throughput),
    "stability": ("the peer survey and a campaign, each run twice: do the verdicts differ?",
                  _stability_args, _stability),
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `vecz-fuzz` (one subparser per SUBCOMMANDS entry)."""
    parser = ArgumentParser(prog="vecz-fuzz", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (help_text, add_args, _) in SUBCOMMANDS.items():
        add_args(sub.add_parser(name, help=help_text, description=help_text))
    return parser


# Subcommands with a parser of their own: `vecz-fuzz NAME ARGS...` is
# `python -m MODULE ARGS...`.
PASSTHROUGH: dict[str, tuple[str, str]] = {
    "constructs": ("fuzz.constructs", "which constructs of real kernels generated kernels never contain"),
    "pass-mutants": ("fuzz.pass_mutants", "faults injected into the vectorizer's passes: which does the "
                                          "harness catch? (list, run, report)"),
}


def main(argv: list[str] | None = None) -> int:
    """Entry point of `vecz-fuzz` (exit statuses: oracle.cmdline)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "mutation-score" and "--passes" in argv:
        # The spelling: mutants of the passes rather than of the output.
        argv = ["pass-mutants", "run", *[a for a in argv[1:] if a != "--passes"]]
    if argv and argv[0] in PASSTHROUGH:
        import importlib

        module = importlib.import_module(PASSTHROUGH[argv[0]][0])
        try:
            return int(module.main(argv[1:]) or 0)
        except SystemExit as exc:  # argparse's usage errors
            return exc.code if isinstance(exc.code, int) else 2
    if argv and argv[0] in ("-h", "--help"):
        build_parser().print_help()
        print("\nalso: " + "; ".join(f"{n}: {h}" for n, (_, h) in PASSTHROUGH.items()))
        return 0
    # `vecz-fuzz --seed 0 --count 100` (no subcommand) is a campaign, as DESIGN.md says.
    if argv and argv[0] not in SUBCOMMANDS and argv[0] not in ("-h", "--help"):
        argv = ["run", *argv]
    if "--mutation-score" in argv:  # the spelling of the subcommand
        argv = ["mutation-score", *[a for a in argv if a not in ("--mutation-score", "run")]]
    ns = parse_args(build_parser(), argv)
    if isinstance(ns, int):
        return ns
    from .campaign import CampaignError
    from .journal import JournalError

    def body() -> int:
        pool_size()  # a bad VECZ_ORACLE_WORKERS is a usage error, not a failure of every seed
        return SUBCOMMANDS[ns.command][2](ns)

    return run_command("vecz-fuzz", body,
                       expected=(CampaignError, JournalError, WorkerConfigError))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
