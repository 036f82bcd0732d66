"""The mutation score: inject each fuzz.mutation operator into our vectorizer's
output and run generated kernels until the oracle catches it.

Above fuzz.campaign (which runs a seed with a fault injected) and fuzz.reduce
(which shrinks the first witness); fuzz.mutation itself only edits IR.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, replace

from .campaign import Spec, make_case, run_seed
from .corpus import write_case
from .mutation import OPERATORS
from .reduce import ReduceError, reduce_case


def score(operators: list[str], kernels: int = 500, seed: int = 0, profile: str = "default",
          knobs: dict | None = None, widths: list[int] | None = None, choices: list[str] | None = None,
          jobs: int = 0, reduce_seconds: float | None = 120.0, witness_dir: str | None = None,
          progress: object = None) -> dict:
    """Per operator: run seeds `seed..seed+kernels-1` with the fault injected until
    a kernel gives mismatch/vector-fault/timeout; reduce that first witness.

    Operators run in parallel (`jobs` threads, each using one oracle worker
    process). Returns `{"score", "detected", "injected", "operators": [...]}`."""
    for op in operators:
        if op not in OPERATORS:
            raise ValueError(f"unknown mutation operator {op!r}; known: {', '.join(OPERATORS)}")
    jobs = jobs or os.cpu_count() or 1
    os.environ.setdefault("VECZ_ORACLE_WORKERS", str(jobs))
    base = Spec(profile=profile, knobs=dict(knobs or {}), widths=widths or [4], dims=[0],
                choices=choices, timeout=5.0)
    detecting = ("mismatch", "vector-fault", "timeout")

    def one(op: str) -> dict:
        spec = replace(base, mutate=op)
        row: dict = {"operator": op, "detected": False, "after": None, "mutants": 0}
        for i in range(kernels):
            rec = run_seed(seed + i, asdict(spec))
            if rec["summary"].get("no-site", 0) < rec["n"] or rec["n"] == 0:
                row["mutants"] += 1
            hit = [f for f in rec["failures"] if f["status"] in detecting]
            if hit:
                row.update(detected=True, after=i + 1, seed=seed + i, signature=hit[0]["signature"])
                break
        if progress is not None:
            print(f"mutation {op}: {'detected after ' + str(row['after']) if row['detected'] else 'not detected'}"
                  f" ({row['mutants']} kernels with a site)", file=progress, flush=True)  # type: ignore[arg-type]
        if row["detected"] and reduce_seconds:
            try:
                res = reduce_case(make_case(row["seed"], spec), spec, seconds=reduce_seconds)
                row["reduced_instructions"] = res.after
                row["original_instructions"] = res.before
                if witness_dir:
                    row["witness"] = str(write_case(res.text, "mutant", witness_dir, tag=op))
            except ReduceError as exc:
                row["status"] = f"reduce failed: {exc}"
        return row

    with ThreadPoolExecutor(jobs) as pool:
        rows = list(pool.map(one, operators))
    detected = sum(r["detected"] for r in rows)
    return {"score": detected / len(rows) if rows else 0.0, "detected": detected,
            "injected": len(rows), "kernels": kernels, "operators": rows}
