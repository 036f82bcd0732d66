"""Differential survey of a foreign corpus: every kernel of every file,
vectorized by us at each width along each dimension it indexes, checked by
the oracle under inferred layouts.

    python -m oracle.peer_survey [DIR] [--widths 2,4,8,16] [--json]

Prints one line per kernel (its worst status, and the vectorizer's remark
when it refused) and a summary; exit 1 if any configuration is a mismatch,
vector-fault, timeout or vectorizer-error. `tests/test_peer_corpus.py` runs
the same check file by file.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .case import CaseError
from .check import check
from .infer import spir_kernels
from .survey import DEFAULT_DIR

FAILING = ("mismatch", "vector-fault", "timeout", "vectorizer-error")
# Worst first: a kernel is summarised by the worst status of its configurations.
ORDER = (*FAILING, "scalar-fault", "scalar-race", "unsupported-input", "not-vectorized", "match")



@dataclass
class KernelVerdict:
    """The survey's result for one kernel."""

    file: str
    kernel: str
    worst: str
    statuses: dict[str, int] = field(default_factory=dict)
    detail: str = ""
    # Vectorize requests that crashed a worker which had run kernels and
    # then succeeded in a fresh one (see oracle.check._vectorize).
    retries: int = 0
    retried: list[str] = field(default_factory=list)  # their first crash's details


def kernels_of(text: str) -> list[str]:
    """The `spir_kernel` functions defined in `text`."""
    return spir_kernels(text)


def survey_file(
    path: Path, widths: list[int], root: Path | None = None, choices: list[str] | None = None
) -> list[KernelVerdict]:
    """Check every kernel of one file; never raises for bad input."""
    from vectorizer import IRError, llvm_bridge

    name = str(path.relative_to(root)) if root else path.name
    text = path.read_text(errors="replace")
    try:
        canonical = llvm_bridge.canonicalize(text)
    except IRError as exc:
        return [KernelVerdict(name, "-", "unsupported-input", detail=f"LLVM rejects the file: {exc}")]
    out = []
    for kernel in kernels_of(canonical):
        try:
            # Dimensions: those whose ids the kernel queries (oracle.infer).
            report = check(text, kernel=kernel, widths=widths, choices=choices, timeout=10)
        except CaseError as exc:
            out.append(KernelVerdict(name, kernel, "unsupported-input", detail=str(exc)))
            continue
        counts = Counter(r.status for r in report.results)
        worst = next((s for s in ORDER if counts.get(s)), "match")
        detail = next((r.detail for r in report.results if r.status == worst), "")
        retries = int(report.stats.get("vectorize_retries", 0))
        out.append(KernelVerdict(name, kernel, worst, dict(counts), detail, retries, list(report.retried)))
    return out


def main(argv: list[str] | None = None) -> int:
    """The `python -m oracle.peer_survey` command."""
    ap = argparse.ArgumentParser(prog="python -m oracle.peer_survey", description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", nargs="?", default=str(DEFAULT_DIR), help="folder of .ll files (default: the peer corpus)")
    ap.add_argument("--widths", default="2,4,8,16", help="comma-separated widths (default 2,4,8,16)")
    ap.add_argument("--choices", action="append", metavar="CHOICES",
                    help="a Vecz choices string to check (repeatable; default: none)")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of lines")
    ns = ap.parse_args(argv)
    root = Path(ns.dir)
    if not root.is_dir():
        print(f"peer_survey: error: {root} is not a folder", file=sys.stderr)
        return 2
    try:
        widths = [int(w) for w in ns.widths.split(",") if w]
    except ValueError:
        print(f"peer_survey: error: bad --widths {ns.widths!r}", file=sys.stderr)
        return 2
    verdicts: list[KernelVerdict] = []
    files = sorted(root.rglob("*.ll"))
    for i, f in enumerate(files, 1):
        print(f"\r[{i}/{len(files)}] {f.name[:60]:60}", end="", file=sys.stderr, flush=True)
        verdicts.extend(survey_file(f, widths, root, ns.choices))
    print(file=sys.stderr)
    kernels = Counter(v.worst for v in verdicts)
    configs: Counter[str] = Counter()
    for v in verdicts:
        configs.update(v.statuses)
    retries = sum(v.retries for v in verdicts)
    if ns.json:
        print(json.dumps({
            "widths": widths,
            "kernels": dict(kernels),
            "configurations": dict(configs),
            "vectorize_retries": retries,
            "verdicts": [v.__dict__ for v in verdicts],
        }, indent=1))
    else:
        for v in verdicts:
            note = f"  {v.detail[:150]}" if v.worst != "match" else ""
            print(f"{v.worst:18} {v.file}:{v.kernel}{note}")
        print(f"kernels by worst status: {dict(kernels)}")
        print(f"configurations: {dict(configs)}")
        if retries:
            print(f"vectorize requests retried in a fresh worker after a crash: {retries}"
                  f" ({', '.join(f'{v.file}:{v.kernel}' for v in verdicts if v.retries)})")
    return 1 if any(kernels.get(s) for s in FAILING) else 0


if __name__ == "__main__":
    sys.exit(main())
