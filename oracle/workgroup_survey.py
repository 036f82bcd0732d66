"""Survey of the real kernels with barriers: each vectorized at W = 4, 8, 16
along the dimensions it indexes and judged by the oracle.

    python -m oracle.workgroup_survey [--widths 4,8,16] [--suite S]... [--jobs N] [--json]

The kernels: in `../shared/peer-corpus`, every `spir_kernel` that calls a
work-group barrier (`barrier`, `work_group_barrier`,
`__mux_work_group_barrier`), itself or through a function it calls; in
`../shared/realworld-dev`, every distinct compiled kernel its catalogue
flags as using barriers. Each runs under the launch the oracle infers.

Prints, per suite, the kernels by their worst status and the
configurations by status; then each kernel that did not match everywhere,
with the first detail of its worst status, and the vectorizer's remark for
every configuration it refused. Exit 1 if any configuration is a mismatch, vector-fault, timeout
or vectorizer-error; 2 for bad usage.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .case import CaseError
from .check import FAILING, check

SHARED = Path(__file__).resolve().parents[2] / "shared"
PEER_DIR = SHARED / "peer-corpus"
REALWORLD_DIR = SHARED / "realworld-dev"
DEFAULT_WIDTHS = (4, 8, 16)
# Worst first: a kernel is summarised by the worst status of its configurations.
ORDER = ("mismatch", "vector-fault", "timeout", "vectorizer-error", "scalar-fault", "scalar-race",
         "unsupported-input", "not-vectorized", "match")

_BARRIER = re.compile(r"@(_Z7barrierj|_Z18work_group_barrierj\w*|__mux_work_group_barrier)\(")
_DEFINE = re.compile(r"^define\b[^@]*@\"?([\w.$]+)\"?\(", re.M)
_CALL = re.compile(r"\bcall\b[^@]*@\"?([\w.$]+)\"?\(")


@dataclass
class Target:
    """One kernel to survey: where it is and which suite it counts in."""

    suite: str
    path: Path
    kernel: str
    local_mem: bool | None = None  # the catalogue's flag (None: not catalogued)


@dataclass
class Verdict:
    """The survey's result for one kernel."""

    suite: str
    file: str
    kernel: str
    worst: str
    statuses: dict[str, int] = field(default_factory=dict)
    detail: str = ""
    # The vectorizer's remarks where it refused (whatever the worst status).
    refusals: list[str] = field(default_factory=list)


def barrier_kernels(text: str) -> list[str]:
    """The `spir_kernel` functions of a module that reach a barrier call,
    directly or through functions defined in the module."""
    bodies: dict[str, str] = {}
    kernels: list[str] = []
    starts = list(_DEFINE.finditer(text))
    for i, m in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        bodies[m.group(1)] = text[m.start():end]
        if "spir_kernel" in text[m.start():m.end()]:
            kernels.append(m.group(1))

    def reaches(name: str, seen: set[str]) -> bool:
        body = bodies.get(name, "")
        if _BARRIER.search(body):
            return True
        seen.add(name)
        return any(c in bodies and c not in seen and reaches(c, seen) for c in _CALL.findall(body))

    return [k for k in kernels if reaches(k, set())]


def peer_targets(root: Path = PEER_DIR) -> list[Target]:
    """Kernels of the peer corpus that reach a barrier."""
    out = []
    for path in sorted(root.rglob("*.ll")):
        text = path.read_text(errors="replace")
        if not _BARRIER.search(text):
            continue
        out.extend(Target("peer-corpus", path, k) for k in barrier_kernels(text))
    return out


def realworld_targets(root: Path = REALWORLD_DIR) -> list[Target]:
    """Distinct compiled catalogue kernels flagged as using barriers."""
    from .realworld import suite_of

    entries = json.loads((root / "catalogue.json").read_text())
    out = []
    for e in entries:
        if not e.get("compiled") or not e.get("ir_O1") or e.get("duplicate_of") or not e.get("barriers"):
            continue
        out.append(Target(suite_of(e), root / e["ir_O1"], e["kernel"], bool(e.get("local_mem"))))
    return out


def survey_one(t: Target, widths: list[int], timeout: float = 10.0) -> Verdict:
    """Vectorize and check one kernel at every width and indexed dimension."""
    name = str(t.path.relative_to(SHARED)) if t.path.is_relative_to(SHARED) else str(t.path)
    text = t.path.read_text(errors="replace")
    try:
        report = check(text, kernel=t.kernel, widths=widths, timeout=timeout)
    except CaseError as exc:
        return Verdict(t.suite, name, t.kernel, "unsupported-input", {"unsupported-input": 1}, str(exc))
    except Exception as exc:  # noqa: BLE001 - a survey reports every kernel, whatever happens
        return Verdict(t.suite, name, t.kernel, "vectorizer-error", {"vectorizer-error": 1},
                       f"{type(exc).__name__}: {exc}")
    counts = Counter(r.status for r in report.results)
    worst = next((s for s in ORDER if counts.get(s)), "unsupported-input")
    detail = next((r.detail for r in report.results if r.status == worst), "no configuration ran")
    refusals = sorted({r.detail for r in report.results if r.status == "not-vectorized"})
    return Verdict(t.suite, name, t.kernel, worst, dict(counts), detail, refusals)


def run(targets: list[Target], widths: list[int], jobs: int = 2, progress: bool = False) -> list[Verdict]:
    """Survey every target, `jobs` at a time (each check uses its own worker)."""
    done = 0

    def one(t: Target) -> Verdict:
        nonlocal done
        v = survey_one(t, widths)
        done += 1
        if progress:
            print(f"\r[{done}/{len(targets)}] {t.kernel[:50]:50}", end="", file=sys.stderr, flush=True)
        return v

    with ThreadPoolExecutor(max(1, jobs)) as ex:
        out = list(ex.map(one, targets))
    if progress:
        print(file=sys.stderr)
    return out


def table(verdicts: list[Verdict]) -> str:
    """Per suite (and in all): kernels by worst status, configurations by status."""
    suites = sorted({v.suite for v in verdicts}, key=lambda s: (s != "peer-corpus", s))
    rows = [(s, [v for v in verdicts if v.suite == s]) for s in suites] + [("all", verdicts)]
    lines = [f"{'suite':14} {'kernels':>7}  kernels by worst status | configurations by status"]
    for s, vs in rows:
        kernels = Counter(v.worst for v in vs)
        configs: Counter[str] = Counter()
        for v in vs:
            configs.update(v.statuses)
        k_text = ", ".join(f"{st} {kernels[st]}" for st in ORDER if kernels.get(st))
        c_text = ", ".join(f"{st} {configs[st]}" for st in ORDER if configs.get(st))
        lines.append(f"{s:14} {len(vs):7}  {k_text} | {c_text}")
    return "\n".join(lines)


def details(verdicts: list[Verdict]) -> str:
    """One line per kernel that did not match everywhere, worst first."""
    rank = {s: i for i, s in enumerate(ORDER)}
    lines = []
    for v in sorted(verdicts, key=lambda v: (rank.get(v.worst, 0), v.suite, v.file, v.kernel)):
        if v.worst == "match":
            continue
        detail = " ".join(v.detail.split())[:240]
        lines.append(f"{v.worst:17} {v.suite}: {v.file}:{v.kernel}  {detail}")
        for remark in v.refusals:
            if remark != v.detail:
                lines.append(f"{'':17} refused at {v.statuses.get('not-vectorized', 0)} configuration(s): "
                             f"{' '.join(remark.split())[:240]}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """The `python -m oracle.workgroup_survey` command."""
    ap = argparse.ArgumentParser(prog="python -m oracle.workgroup_survey", description=__doc__.split("\n\n")[0])
    ap.add_argument("--widths", default=",".join(map(str, DEFAULT_WIDTHS)),
                    help="comma-separated widths (default 4,8,16)")
    ap.add_argument("--suite", action="append", metavar="S",
                    help="only this suite (peer-corpus, or a catalogue suite; repeatable)")
    ap.add_argument("--jobs", type=int, default=2, help="kernels checked at once (default 2)")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    ns = ap.parse_args(argv)
    try:
        widths = [int(w) for w in ns.widths.split(",") if w]
        if not widths or min(widths) < 1:
            raise ValueError
    except ValueError:
        print(f"workgroup_survey: error: bad --widths {ns.widths!r}", file=sys.stderr)
        return 2
    if not PEER_DIR.is_dir() or not (REALWORLD_DIR / "catalogue.json").is_file():
        print(f"workgroup_survey: error: {PEER_DIR} or {REALWORLD_DIR}/catalogue.json is missing", file=sys.stderr)
        return 2
    targets = peer_targets() + realworld_targets()
    if ns.suite:
        known = {t.suite for t in targets}
        unknown = [s for s in ns.suite if s not in known]
        if unknown:
            print(f"workgroup_survey: error: unknown suite(s) {', '.join(unknown)}; known: "
                  f"{', '.join(sorted(known))}", file=sys.stderr)
            return 2
        targets = [t for t in targets if t.suite in ns.suite]
    verdicts = run(targets, widths, ns.jobs, progress=not ns.json)
    if ns.json:
        print(json.dumps({"widths": widths, "verdicts": [asdict(v) for v in verdicts]}, indent=1))
    else:
        print(table(verdicts))
        text = details(verdicts)
        if text:
            print()
            print(text)
    return 1 if any(v.worst in FAILING for v in verdicts) else 0


if __name__ == "__main__":
    sys.exit(main())
