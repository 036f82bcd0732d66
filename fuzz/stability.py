"""Do two runs give the same verdicts? (issue 20 item 4)

`compare_runs` runs the peer survey (every kernel of a folder of foreign
kernels, checked by the oracle under inferred layouts) and a campaign of
generated seeds twice, each time with fresh oracle workers and a fresh
reference cache (as a rerun in a new process would), `jobs` at a time, and
lists every verdict that differs between the two. `vecz-fuzz stability` is
its command line.

A verdict is keyed by what produced it: (file, kernel, width, dimension,
choices, NDRange) for the survey; the seed for the campaign, whose verdict is
its status counts and its failure signatures.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .campaign import Campaign, Spec


def fresh_oracle() -> None:
    """Forget what this process's oracle learnt: its worker processes (and
    their compiled programs) and the sanitized launches it remembers."""
    import oracle
    from oracle import reference

    oracle.close()
    reference._CLEAN.clear()


def _survey_file(path: Path, root: Path, widths: list[int]) -> dict[str, str]:
    """Every configuration's status for every kernel of one file."""
    from oracle.case import CaseError
    from oracle.check import check
    from oracle.peer_survey import kernels_of
    from vectorizer import IRError, llvm_bridge

    name = str(path.relative_to(root))
    text = path.read_text(errors="replace")
    try:
        canonical = llvm_bridge.canonicalize(text)
    except IRError:
        return {name: "unsupported-input"}
    out: dict[str, str] = {}
    for kernel in kernels_of(canonical):
        try:
            report = check(text, kernel=kernel, widths=widths, timeout=10)
        except CaseError:
            out[f"{name}:{kernel}"] = "unsupported-input"
            continue
        for r in report.results:
            nd = "x".join(map(str, r.global_size)) + "/" + "x".join(map(str, r.local_size))
            out[f"{name}:{kernel} W={r.width} dim={r.dim} {r.choices or '-'} {nd}"] = r.status
    return out


def survey_verdicts(root: Path, widths: list[int], jobs: int, limit: int | None = None,
                    progress: Callable[[str], None] | None = None) -> dict[str, str]:
    """The peer survey of `root` (its first `limit` files), `jobs` files at a time."""
    import os

    files = sorted(root.rglob("*.ll"))[:limit]
    os.environ["VECZ_ORACLE_WORKERS"] = str(jobs)
    fresh_oracle()
    out: dict[str, str] = {}
    with ThreadPoolExecutor(jobs) as pool:
        for i, part in enumerate(pool.map(lambda f: _survey_file(f, root, widths), files), 1):
            out.update(part)
            if progress is not None and i % 25 == 0:
                progress(f"survey: {i}/{len(files)} files")
    return out


def campaign_verdicts(seed: int, count: int, jobs: int, spec: Spec) -> dict[str, str]:
    """Each seed's status counts and failure signatures in one campaign."""
    fresh_oracle()
    out: dict[str, str] = {}

    def keep(rec: dict[str, Any]) -> None:
        sigs = sorted(f["signature"] for f in rec.get("failures", []))
        counts = ",".join(f"{k}={v}" for k, v in sorted(rec.get("summary", {}).items()))
        out[f"seed {rec['seed']}"] = counts + ("; " + " | ".join(sigs) if sigs else "")

    Campaign(spec, seed=seed, count=count, jobs=jobs, progress=False, on_record=keep).run()
    return out


@dataclass
class Comparison:
    """Two runs of the same things and where they disagree."""

    what: str
    verdicts: int
    differences: list[str] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """JSON form for `--json`."""
        return {"what": self.what, "verdicts": self.verdicts, "differences": self.differences,
                "seconds": [round(s, 1) for s in self.seconds]}


def diff(first: dict[str, str], second: dict[str, str]) -> list[str]:
    """One line per key whose verdict differs (or that only one run has)."""
    lines = []
    for key in sorted(set(first) | set(second)):
        a, b = first.get(key, "(absent)"), second.get(key, "(absent)")
        if a != b:
            lines.append(f"{key}: {a} | then {b}")
    return lines


def compare(what: str, run: Callable[[], dict[str, str]]) -> Comparison:
    """Run `run` twice; the comparison of its verdicts."""
    runs, secs = [], []
    for _ in range(2):
        t0 = time.monotonic()
        runs.append(run())
        secs.append(time.monotonic() - t0)
    return Comparison(what, len(runs[0]), diff(runs[0], runs[1]), secs)


def compare_runs(survey_dir: Path | None, survey_widths: list[int], survey_limit: int | None,
                 seed: int, count: int, jobs: int, spec: Spec,
                 progress: Callable[[str], None] | None = None) -> list[Comparison]:
    """The peer survey (unless `survey_dir` is None) and a `count`-seed
    campaign, each run twice; see the module docstring."""
    out = []
    if survey_dir is not None:
        out.append(compare(f"peer survey of {survey_dir}",
                           lambda: survey_verdicts(survey_dir, survey_widths, jobs, survey_limit, progress)))
    if count:
        out.append(compare(f"campaign of {count} seeds from {seed}",
                           lambda: campaign_verdicts(seed, count, jobs, spec)))
    return out
