"""The vectorizer's own compile time against kernel size.

Two generated kernel families, each at sizes from 10 to 10,000 instructions:
- `straight`: one basic block of dependent float arithmetic on loaded values;
- `loop`: a uniform counted loop whose body is such a block (the body grows);
- `deep`: `straight` as one dependent chain (use-def depth = size).
Chains in `straight` and `loop` are at most 48 deep, summed by a tree.

`vectorize()` is timed at W=8 (median of `--repeat` runs); the table shows
seconds and microseconds per instruction, whose growth with size exposes a
super-linear pass. `--profile` runs cProfile on the family that grows
fastest (or `--profile-family`) at the largest size, the packetizer's helper
thread included, and prints the functions with the most cumulative time and
those whose own and cumulative time grow faster than the kernel, so the pass
and its hot spot can be named.
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


_WAIT = "<method 'acquire' of '_thread.lock' objects>"


def profile_stats(size: int, family: str) -> pstats.Stats:
    """cProfile of one `vectorize()` of the `family` kernel of `size` instructions.

    The packetizer runs on a helper thread with a big stack
    (`vectorizer.deep_recursion.call_with_deep_stack`), which a profiler of
    the calling thread does not see: that thread gets its own profiler
    (`on_worker_thread`) and the two are merged. The calling thread's wait
    for the helper is then taken out of the lock's own time, where it would
    count the helper's work a second time.
    """
    from vectorizer import vectorize
    from vectorizer.deep_recursion import on_worker_thread

    text = FAMILIES[family](size)
    caller = cProfile.Profile()
    helpers: list[cProfile.Profile] = []
    helper_seconds = 0.0

    def in_helper(fn):
        nonlocal helper_seconds
        prof = cProfile.Profile()
        helpers.append(prof)
        t0 = time.perf_counter()
        try:
            return prof.runcall(fn)
        finally:
            helper_seconds += time.perf_counter() - t0

    with on_worker_thread(in_helper):
        try:
            caller.runcall(vectorize, text, kernel=family, width=8)
        except Exception as exc:  # profile what ran before the failure
            print(f"vectorize() failed: {type(exc).__name__}", file=sys.stderr)
    stats = pstats.Stats(caller)
    for prof in helpers:
        stats.add(prof)
    _discount_wait(stats, helper_seconds)
    return stats


def _discount_wait(stats: pstats.Stats, seconds: float) -> None:
    """Take `seconds` of waiting for the helper thread (`Thread.join`) out of
    the lock's own time."""
    for func, (cc, nc, tt, ct, callers) in stats.stats.items():  # type: ignore[attr-defined]
        if func[2] != _WAIT:
            continue
        for who, (c_cc, c_nc, c_tt, c_ct) in callers.items():
            if who[2] == "_wait_for_tstate_lock":
                cut = min(c_tt, seconds)
                callers[who] = (c_cc, c_nc, c_tt - cut, c_ct - cut)
                stats.stats[func] = (cc, nc, tt - cut, ct - cut, callers)  # type: ignore[attr-defined]
                stats.total_tt -= cut  # type: ignore[attr-defined]
                return


def _label(func: tuple[str, int, str]) -> str:
    path, line, name = func
    if path == "~":
        return name
    parts = path.replace("\\", "/").split("/")
    for root in ("vectorizer", "bench", "llvmlite", "threading.py"):
        if root in parts:
            path = "/".join(parts[parts.index(root):])
            break
    else:
        path = parts[-1]
    return f"{path}:{line}({name})"


def growth_by_function(small: pstats.Stats, n_small: int, big: pstats.Stats, n_big: int,
                       top: int = 12) -> str:
    """The functions whose time grows faster than the kernel from `n_small` to
    `n_big` instructions, by the time beyond linear growth (`excess`): own
    time names the hot spot, cumulative time the pass it is in."""
    import math

    ratio = n_big / n_small
    a, b = small.stats, big.stats  # type: ignore[attr-defined]
    total = big.total_tt  # type: ignore[attr-defined]
    out = []
    for col, what in ((2, "own"), (3, "cumulative")):
        rows = []
        for func, entry in b.items():
            t1 = entry[col]
            t0 = a[func][col] if func in a else 0.0
            excess = t1 - t0 * ratio
            if excess <= 0.01 * total:
                continue
            slope = math.log(t1 / t0) / math.log(ratio) if t0 > 0 and t1 > 0 else float("inf")
            if slope < 1.1:
                continue
            rows.append((excess, slope, t0, t1, func))
        rows.sort(key=lambda r: -r[0])
        out.append(f"{what} time beyond linear growth, {n_small} -> {n_big} instructions "
                   f"(x{ratio:g}; exponent about 1 is linear, 2 quadratic):")
        out.append(f"  {'excess s':>9} {'exponent':>8} {f'@{n_small} s':>10} {f'@{n_big} s':>10}  function")
        for k, (excess, slope, t0, t1, func) in enumerate(rows[:top]):
            out.append(f"  {excess:9.3f} {slope:8.2f} {t0:10.3f} {t1:10.3f}  {_label(func)}")
            if col == 2 and k < 3 and slope >= 1.25:
                # Where a hot spot is called from: the pass it belongs to.
                _callers(a, b, func, ratio, 0.01 * total, 4, "      ", out, {func})
        if not rows:
            out.append("  (none above 1% of the run and exponent 1.1: time grows linearly)")
        out.append("")
    return "\n".join(out)


def _callers(a: dict, b: dict, func: tuple, ratio: float, floor: float, depth: int, indent: str,
             out: list[str], seen: set) -> None:
    """The callers of `func` through which its time grows beyond linear, `depth` levels up."""
    old_edges = a[func][4] if func in a else {}
    rows = []
    for who, edge in b[func][4].items():
        t1 = edge[3]
        t0 = old_edges[who][3] if who in old_edges else 0.0
        if t1 - t0 * ratio > floor:
            rows.append((t1 - t0 * ratio, t0, t1, who))
    rows.sort(key=lambda r: -r[0])
    for excess, t0, t1, who in rows[:2]:
        out.append(f"{indent}<- {excess:.3f} s beyond linear ({t0:.3f} -> {t1:.3f} s) from {_label(who)}")
        if depth > 1 and who not in seen and who in b:
            _callers(a, b, who, ratio, floor, depth - 1, indent + "   ", out, seen | {who})


def profile(sizes: tuple[int, ...], family: str = "loop", top: int = 15) -> str:
    """cProfile of `vectorize()` on the `family` kernel at the largest size
    (the top functions by cumulative time), and the functions whose time
    grows faster than the kernel between a smaller size and it."""
    n_big = max(sizes)
    smaller = [n for n in sizes if n * 3 <= n_big]
    n_small = max(smaller) if smaller else max(10, n_big // 10)
    profile_stats(10, family)  # warm up: imports, regular expressions, llvmlite
    small = profile_stats(n_small, family) if n_small < n_big else None
    big = profile_stats(n_big, family)
    buf = io.StringIO()
    print(f"cProfile of vectorize() on the `{family}` kernel of {n_big} instructions "
          "(calling thread and packetizer thread merged):", file=buf)
    big.stream = buf  # type: ignore[attr-defined]
    big.sort_stats("cumulative").print_stats(top)
    if small is not None:
        print(growth_by_function(small, n_small, big, n_big), file=buf)
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
    from .usage import UsageError, check_plot_backend, int_list

    p = argparse.ArgumentParser(prog="vecz-bench compile-time", description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)), help="kernel sizes in instructions")
    p.add_argument("--repeat", type=int, default=3, help="runs per size (median)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    p.add_argument("--plot", metavar="FILE", help="write a PNG log-log plot")
    p.add_argument("--profile", action="store_true",
                   help="cProfile the steepest-growing family at the largest size and name the "
                        "functions that grow super-linearly (stderr)")
    p.add_argument("--profile-family", choices=sorted(FAMILIES), help="the family to profile")
    args = p.parse_args(argv)
    sizes = int_list(args.sizes, "--sizes")
    if args.repeat < 1:
        raise UsageError("--repeat must be at least 1")
    if args.plot:
        check_plot_backend()
    rows = measure(sizes, args.repeat)
    slopes = growth(rows)
    if args.json:
        print(json.dumps({"rows": rows, "growth_exponent": slopes}, indent=1))
    else:
        sys.stdout.write(markdown(rows, slopes))
    if args.plot:
        plot(rows, args.plot)
        print(f"vecz-bench: wrote {args.plot}", file=sys.stderr)
    if args.profile or args.profile_family:
        family = args.profile_family or max(slopes, key=slopes.get, default="loop")
        print(profile(sizes, family), file=sys.stderr)
    return 0
