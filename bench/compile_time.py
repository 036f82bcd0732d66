"""The vectorizer's own compile time against kernel size.

Two generated kernel families, each at sizes from 10 to 10,000 instructions:
- `straight`: one basic block of dependent float arithmetic on loaded values;
- `loop`: a uniform counted loop whose body is such a block (the body grows);
- `deep`: `straight` as one dependent chain (use-def depth = size).
Chains in `straight` and `loop` are at most 48 deep, summed by a tree.

`vectorize()` is timed at W=8 (median of `--repeat` runs); the table shows
seconds and microseconds per instruction, whose growth with size exposes a
super-linear pass. `--profile` runs cProfile at the largest size and prints
the functions with the most cumulative time, so the pass can be named.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import statistics
import sys
import time

DEFAULT_SIZES = (10, 30, 100, 300, 1000, 3000, 10000)
_HEADER = """target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spir64-unknown-unknown"

declare i64 @_Z13get_global_idj(i32)
declare float @llvm.fmuladd.f32(float, float, float)
"""


CHAIN = 48  # longest dependent chain in the `straight` and `loop` families


def _ops(n: int, first: str, indent: str = "  ", prefix: str = "v", chain: int = CHAIN) -> tuple[list[str], str]:
    """About `n` instructions over `first` and the loaded %x, %y: dependent
    chains of at most `chain` instructions, summed by a balanced tree.
    Returns the lines and the final value."""
    lines: list[str] = []
    kinds = ("fadd", "fmul", "fsub", "fma")
    count = 0
    ends: list[str] = []
    budget = max(1, n)
    while count < budget:
        prev = first
        for _ in range(min(chain, budget - count)):
            k = kinds[count % 4]
            dst = f"%{prefix}{count}"
            if k == "fma":
                lines.append(f"{indent}{dst} = call float @llvm.fmuladd.f32(float {prev}, float %x, float %y)")
            else:
                lines.append(f"{indent}{dst} = {k} float {prev}, {'%x' if count % 3 else '%y'}")
            prev = dst
            count += 1
        ends.append(prev)
        budget -= 1 if len(ends) > 1 else 0  # room for the sum
    level = 0
    while len(ends) > 1:
        nxt = []
        for i in range(0, len(ends) - 1, 2):
            dst = f"%{prefix}s{level}_{i}"
            lines.append(f"{indent}{dst} = fadd float {ends[i]}, {ends[i + 1]}")
            nxt.append(dst)
        if len(ends) % 2:
            nxt.append(ends[-1])
        ends, level = nxt, level + 1
    return lines, ends[0]


def straight_kernel(n: int, chain: int = CHAIN) -> str:
    """A single-block kernel of about `n` instructions."""
    body = [
        "  %gid = call i64 @_Z13get_global_idj(i32 0)",
        "  %px = getelementptr float, ptr addrspace(1) %in, i64 %gid",
        "  %x = load float, ptr addrspace(1) %px, align 4",
        "  %py = getelementptr float, ptr addrspace(1) %in2, i64 %gid",
        "  %y = load float, ptr addrspace(1) %py, align 4",
    ]
    ops, last = _ops(max(1, n - 8), "%x", chain=chain)
    body += ops
    body += [
        "  %po = getelementptr float, ptr addrspace(1) %out, i64 %gid",
        f"  store float {last}, ptr addrspace(1) %po, align 4",
        "  ret void",
    ]
    return (_HEADER + "\ndefine spir_kernel void @straight(ptr addrspace(1) %out, ptr addrspace(1) %in, "
            "ptr addrspace(1) %in2) {\nentry:\n" + "\n".join(body) + "\n}\n")


def loop_kernel(n: int) -> str:
    """A kernel with a uniform 16-trip loop whose body has about `n` instructions."""
    ops, last = _ops(max(1, n - 14), "%acc")
    body = [
        "entry:",
        "  %gid = call i64 @_Z13get_global_idj(i32 0)",
        "  %px = getelementptr float, ptr addrspace(1) %in, i64 %gid",
        "  %x = load float, ptr addrspace(1) %px, align 4",
        "  %py = getelementptr float, ptr addrspace(1) %in2, i64 %gid",
        "  %y = load float, ptr addrspace(1) %py, align 4",
        "  br label %loop",
        "loop:",
        "  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]",
        f"  %acc = phi float [ %x, %entry ], [ {last}, %loop ]",
        *ops,
        "  %i.next = add i32 %i, 1",
        "  %again = icmp slt i32 %i.next, 16",
        "  br i1 %again, label %loop, label %exit",
        "exit:",
        "  %po = getelementptr float, ptr addrspace(1) %out, i64 %gid",
        f"  store float {last}, ptr addrspace(1) %po, align 4",
        "  ret void",
    ]
    return (_HEADER + "\ndefine spir_kernel void @loop(ptr addrspace(1) %out, ptr addrspace(1) %in, "
            "ptr addrspace(1) %in2) {\n" + "\n".join(body) + "\n}\n")


def deep_kernel(n: int) -> str:
    """`straight` as one dependent chain of `n` instructions (deep use-def chains)."""
    return straight_kernel(n, chain=n).replace("@straight(", "@deep(")


FAMILIES = {"straight": straight_kernel, "loop": loop_kernel, "deep": deep_kernel}


def measure(sizes: tuple[int, ...], repeat: int, width: int = 8) -> list[dict]:
    """Time `vectorize()` on every family and size."""
    from vectorizer import vectorize

    rows = []
    for fam, gen in FAMILIES.items():
        for n in sizes:
            text = gen(n)
            times, remarks, vectorized = [], "", False
            for _ in range(repeat):
                t0 = time.perf_counter()
                try:
                    res = vectorize(text, kernel=fam, width=width)
                except Exception as exc:  # a vectorizer failure is a finding, not a crash
                    remarks = f"error: {type(exc).__name__}: {' '.join(str(exc).split())[:100]}"
                    times.append(time.perf_counter() - t0)
                    break
                times.append(time.perf_counter() - t0)
                vectorized, remarks = res.vectorized_name is not None, "; ".join(res.remarks)[:120]
            sec = statistics.median(times)
            rows.append({"family": fam, "instructions": n, "seconds": sec, "us_per_instruction": 1e6 * sec / n,
                         "vectorized": vectorized, "remarks": remarks})
            print(f"  {fam} {n}: {sec:.3f} s {'' if vectorized else remarks}", file=sys.stderr, flush=True)
    return rows


def growth(rows: list[dict]) -> dict[str, float]:
    """Per family, the log-log slope of time against size over the largest decade
    (about 1 for linear, 2 for quadratic)."""
    import math

    out = {}
    for fam in FAMILIES:
        pts = sorted((r["instructions"], r["seconds"]) for r in rows if r["family"] == fam and r["vectorized"])
        if not pts:
            continue
        big = [p for p in pts if p[0] >= pts[-1][0] / 10]
        if len(big) >= 2 and big[0][1] > 0:
            (n0, t0), (n1, t1) = big[0], big[-1]
            out[fam] = math.log(t1 / t0) / math.log(n1 / n0)
    return out


def profile(size: int, family: str = "straight", top: int = 15) -> str:
    """cProfile of one `vectorize()` at `size`: the top functions by cumulative time."""
    from vectorizer import vectorize

    text = FAMILIES[family](size)
    prof = cProfile.Profile()
    prof.enable()
    try:
        vectorize(text, kernel=family, width=8)
    except Exception as exc:  # profile what ran before the failure
        print(f"vectorize() failed: {type(exc).__name__}", file=sys.stderr)
    finally:
        prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(top)
    return buf.getvalue()


def markdown(rows: list[dict], slopes: dict[str, float]) -> str:
    lines = ["| family | instructions | seconds | µs / instruction | vectorized |", "|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['family']} | {r['instructions']} | {r['seconds']:.4f} | {r['us_per_instruction']:.1f} | "
                     f"{'yes' if r['vectorized'] else 'no: ' + r['remarks']} |")
    lines.append("")
    for fam, s in slopes.items():
        verdict = "about linear" if s < 1.25 else "super-linear"
        lines.append(f"- {fam}: time grows as size^{s:.2f} over the largest decade ({verdict})")
    return "\n".join(lines) + "\n"


def plot(rows: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    for fam in FAMILIES:
        pts = sorted((r["instructions"], r["seconds"]) for r in rows if r["family"] == fam)
        ax.loglog([p[0] for p in pts], [p[1] for p in pts], marker="o", label=fam)
    if rows:
        n0 = min(r["instructions"] for r in rows)
        t0 = min(r["seconds"] for r in rows if r["instructions"] == n0)
        xs = sorted({r["instructions"] for r in rows})
        ax.loglog(xs, [t0 * x / n0 for x in xs], "k--", linewidth=0.8, label="linear")
    ax.set_xlabel("kernel instructions")
    ax.set_ylabel("vectorize() seconds (W=8)")
    ax.set_title("vecz-py compile time against kernel size")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str]) -> int:
    """`vecz-bench compile-time`; returns the exit status."""
    from .cli import UsageError, _check_plot_backend, _int_list

    p = argparse.ArgumentParser(prog="vecz-bench compile-time", description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)), help="kernel sizes in instructions")
    p.add_argument("--repeat", type=int, default=3, help="runs per size (median)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    p.add_argument("--plot", metavar="FILE", help="write a PNG log-log plot")
    p.add_argument("--profile", action="store_true", help="cProfile the largest straight-line kernel (stderr)")
    args = p.parse_args(argv)
    sizes = _int_list(args.sizes, "--sizes")
    if args.repeat < 1:
        raise UsageError("--repeat must be at least 1")
    if args.plot:
        _check_plot_backend()
    rows = measure(sizes, args.repeat)
    slopes = growth(rows)
    if args.json:
        print(json.dumps({"rows": rows, "growth_exponent": slopes}, indent=1))
    else:
        sys.stdout.write(markdown(rows, slopes))
    if args.plot:
        plot(rows, args.plot)
        print(f"vecz-bench: wrote {args.plot}", file=sys.stderr)
    if args.profile:
        print(profile(max(sizes)), file=sys.stderr)
    return 0
