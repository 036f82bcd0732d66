"""`vecz-bench divergence`: how much of W a divergent loop can give at most.

A packet runs its loop as long as its slowest lane, so for a kernel whose
output is each work-item's trip count (Mandelbrot's iterations, Collatz
lengths) the best speedup at width W, counting loop iterations alone, is

    cap(W) = sum of all trip counts / sum over packets of the largest count

(W consecutive work-items along dimension 0 form a packet). Comparing a
measured speedup with its cap separates what divergence costs from what the
generated code costs; comparing two vectorizers' numbers means little
unless their images (inputs) have the same cap.

    vecz-bench divergence [--kernels mandelbrot,collatz] [--widths 4,8,16] [--size S] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from . import runtime
from .suite import KERNELS, SIZES


def divergence_cap(counts: np.ndarray, width: int) -> float:
    """`cap(W)` for trip counts laid out as (rows, items along dimension 0)."""
    rows = counts.reshape(-1, counts.shape[-1]).astype(np.float64)
    n = rows.shape[1] - rows.shape[1] % width
    if n == 0:
        return 1.0
    packets = rows[:, :n].reshape(rows.shape[0], n // width, width)
    slowest = packets.max(axis=2).sum()
    return float(packets.sum() / slowest) if slowest else float(width)


def trip_counts(name: str, size: str) -> np.ndarray:
    """Run the scalar kernel once; its first buffer, as (rows, dimension 0)."""
    kernel = KERNELS[name]
    problem = kernel.make(size)
    launch = runtime.Launch(problem.args, problem.nd)
    launch.run(runtime.build(kernel.ir(), name))
    gx, gy, gz = problem.nd.global_size
    out = launch.buffers[0]
    return out.reshape(gz * gy, gx)


def main(argv: list[str]) -> int:
    """The `vecz-bench divergence` command; returns the exit status."""
    from .usage import UsageError, int_list

    counting = [k for k, v in KERNELS.items() if v.trip_count_output]
    p = argparse.ArgumentParser(prog="vecz-bench divergence", description=__doc__.split("\n\n")[0])
    p.add_argument("--kernels", default=",".join(counting), help=f"subset of: {', '.join(counting)}")
    p.add_argument("--widths", default="4,8,16", help="widths (default 4,8,16)")
    p.add_argument("--size", choices=SIZES, default="default", help="problem size (default: default)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = p.parse_args(argv)
    widths = int_list(args.widths, "--widths")
    names = [k.strip() for k in args.kernels.split(",") if k.strip()]
    bad = [k for k in names if k not in counting]
    if bad:
        raise UsageError(f"not a trip-count kernel: {', '.join(bad)}; these are: {', '.join(counting)}")
    rows = []
    for name in names:
        counts = trip_counts(name, args.size)
        rows.append({"kernel": name, "mean_trips": float(counts.mean()),
                     "cap": {str(w): divergence_cap(counts, w) for w in widths}})
    if args.json:
        print(json.dumps({"size": args.size, "kernels": rows}, indent=1))
        return 0
    print(f"Best speedup at width W from loop trips alone (size `{args.size}`):\n")
    print("| kernel | mean trips | " + " | ".join(f"cap w{w}" for w in widths) + " |")
    print("|---|---|" + "---|" * len(widths))
    for r in rows:
        caps = " | ".join(f"{r['cap'][str(w)]:.2f}×" for w in widths)
        print(f"| {r['kernel']} | {r['mean_trips']:.1f} | {caps} |")
    sys.stdout.flush()
    return 0
