"""`python -m fuzz.csmith`: generate N Csmith kernels, check them, report.

For each seed: a kernel from `generate_csmith_kernel` (so every kept kernel
ran scalar without fault and its work-item 0 matched the C program), its
divergence (distinct path hashes per work-group), and with `--oracle` the
differential oracle at the header's widths (4, 8, 16). Prints the figures
(kernels/s, rejection reasons, divergent share, oracle statuses); `--json`
prints them as one object; `--save DIR` writes each case file.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from .bridge import generate_csmith_kernel
from .runner import CsmithError


def survey(seeds: range, oracle_check: bool, save: Path | None, timeout: float,
           progress: bool = True) -> dict[str, Any]:
    """Generate (and optionally check) one kernel per seed; the figures."""
    rejected: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    kernel_statuses: Counter[str] = Counter()
    refusals: Counter[str] = Counter()
    failures: list[dict[str, Any]] = []
    gen_s = oracle_s = 0.0
    kept = divergent = wi0_ok = 0
    paths_hist: Counter[int] = Counter()
    errors: list[str] = []
    for seed in seeds:
        t0 = time.perf_counter()
        try:
            k = generate_csmith_kernel(seed)
        except CsmithError as exc:
            errors.append(f"seed {seed}: {exc}")
            gen_s += time.perf_counter() - t0
            continue
        gen_s += time.perf_counter() - t0
        kept += 1
        for reason, n in k.stats.get("rejected", {}).items():
            rejected[reason] += n
        wi0_ok += k.checksums[:1] == [k.reference_checksum]
        divergent += k.divergent
        paths_hist[max(k.paths_per_group, default=1)] += 1
        if save is not None:
            save.mkdir(parents=True, exist_ok=True)
            (save / f"csmith_{seed}.ll").write_text(k.case_text)
        line = f"seed {seed}: csmith {k.csmith_seed} paths/group<={max(k.paths_per_group, default=1)}"
        if oracle_check:
            import oracle

            t1 = time.perf_counter()
            rep = oracle.check(k.case_text, timeout=timeout)
            oracle_s += time.perf_counter() - t1
            summ = rep.summary
            statuses.update(summ)
            worst = next((s for s in ("mismatch", "vector-fault", "timeout", "vectorizer-error",
                                      "scalar-fault", "not-vectorized", "match") if s in summ), "none")
            kernel_statuses[worst] += 1
            for r in rep.results:
                if r.status == "not-vectorized":
                    # Drop the "inlined N call(s); " preamble: the reason follows it.
                    refusals[re.sub(r"^inlined \d+ call\(s\); ", "", r.detail)[:120]] += 1
                elif r.status != "match":
                    failures.append({"seed": seed, "csmith_seed": k.csmith_seed, "width": r.width,
                                     "status": r.status, "detail": r.detail[:300]})
            line += f" {summ}"
        if progress:
            print(line, file=sys.stderr, flush=True)
    return {
        "requested": len(seeds), "kernels": kept, "errors": errors,
        "generation_s": round(gen_s, 2), "kernels_per_s": round(kept / gen_s, 3) if gen_s else 0.0,
        "rejected_programs": dict(rejected),
        "wi0_matches_c": wi0_ok, "divergent": divergent,
        "divergent_share": round(divergent / kept, 3) if kept else 0.0,
        "max_paths_per_group": {str(k): v for k, v in sorted(paths_hist.items())},
        "oracle_s": round(oracle_s, 2), "oracle_results": dict(statuses),
        "oracle_kernels_by_worst_status": dict(kernel_statuses),
        "not_vectorized_reasons": dict(refusals.most_common(10)),
        "failures": failures[:50],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m fuzz.csmith", description=__doc__.split("\n\n")[0])
    ap.add_argument("--start", type=int, default=0, help="first seed (default 0)")
    ap.add_argument("--count", type=int, default=20, help="number of kernels (default 20)")
    ap.add_argument("--oracle", action="store_true", help="also run the differential oracle")
    ap.add_argument("--timeout", type=float, default=20.0, help="oracle timeout per run (s)")
    ap.add_argument("--save", type=Path, help="write each case file into this folder")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("-q", "--quiet", action="store_true", help="no per-kernel lines")
    a = ap.parse_args(argv)
    try:
        res = survey(range(a.start, a.start + a.count), a.oracle, a.save, a.timeout, not a.quiet)
    except CsmithError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    if a.json:
        print(json.dumps(res, indent=1))
    else:
        for key, val in res.items():
            if key != "failures" or val:
                print(f"{key}: {val}")
    return 1 if res["failures"] or res["errors"] else 0
