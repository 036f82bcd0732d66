"""The benchmark's outputs: a markdown table, one JSON object, a PNG plot,
and the issue-8 targets evaluated against the measurements."""

from __future__ import annotations

import math
import platform
from typing import Any

from .runner import LOOPVEC, SCALAR, KernelResult, Measurement, Options
from .suite import KERNELS

TARGET_GEOMEAN_VS_LOOPVEC = 1.5
TARGET_EACH_VS_LOOPVEC = 1.0
TARGET_UNIFORM_W8_FRACTION = 0.8  # of W, over scalar, at W = 8


def _rate(x: float | None) -> str:
    if x is None:
        return "–"
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= scale:
            return f"{x / scale:.3g}{unit}/s"
    return f"{x:.3g}/s"


def _cell(m) -> str:
    if m is None:
        return "–"
    if m.status == "ok":
        return f"{m.vs_scalar:.2f}×" if m.vs_scalar is not None else _rate(m.items_per_second)
    detail = m.detail if len(m.detail) <= 60 else m.detail[:59] + "…"
    return f"{m.status}: {detail}".replace("|", "/")


def configs_of(results: list[KernelResult]) -> list[str]:
    """Every configuration label, in first-seen order."""
    seen: list[str] = []
    for r in results:
        for m in r.measurements:
            if m.config not in seen:
                seen.append(m.config)
    return seen


def best_ours(r: KernelResult):
    """Our fastest correct configuration for a kernel, or None."""
    ours = [m for m in r.measurements if m.config not in (SCALAR, LOOPVEC, "peer") and m.status == "ok" and m.seconds]
    return min(ours, key=lambda m: m.seconds) if ours else None


def _geomean(xs: list[float]) -> float | None:
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def tie_margin(a: Measurement, b: Measurement | None) -> float | None:
    """How far below 1.0 the ratio of `a` over `b` may fall and still be a tie:
    half the sum of their run-to-run spreads (each (slowest - fastest) /
    median), None when either spread is unknown."""
    if b is None or a.spread is None or b.spread is None:
        return None
    return (a.spread + b.spread) / 2


def targets(results: list[KernelResult]) -> list[dict[str, Any]]:
    """Issue 8's targets that this run can judge, each with holds/why."""
    out: list[dict[str, Any]] = []
    ratios, missing = [], []
    for r in results:
        b = best_ours(r)
        if b is None or b.vs_loopvec is None:
            missing.append(r.kernel)
        else:
            ratios.append(b.vs_loopvec)
    g = _geomean(ratios)
    out.append({
        "target": f"geometric mean of best-width speedup over LoopVectorize >= {TARGET_GEOMEAN_VS_LOOPVEC}",
        "value": g, "holds": bool(g is not None and g >= TARGET_GEOMEAN_VS_LOOPVEC and not missing),
        "why": (f"not vectorized (counted as missing): {', '.join(missing)}" if missing else ""),
    })
    below, ties = [], []
    for r in results:
        b = best_ours(r)
        if b is None or b.vs_loopvec is None or b.vs_loopvec >= TARGET_EACH_VS_LOOPVEC:
            continue
        noise = tie_margin(b, r.get(LOOPVEC))
        if noise is not None and b.vs_loopvec >= TARGET_EACH_VS_LOOPVEC - noise:
            ties.append(f"{r.kernel} {b.vs_loopvec:.2f} (spread ±{noise:.0%})")
        else:
            below.append(f"{r.kernel} {b.vs_loopvec:.2f}")
    out.append({
        "target": f"best-width speedup over LoopVectorize >= {TARGET_EACH_VS_LOOPVEC} on every kernel",
        "value": min(ratios) if ratios else None, "holds": not below and not ties and not missing,
        "within_noise": bool(ties) and not below and not missing,
        "why": "; ".join(x for x in (("below: " + ", ".join(below)) if below else "",
                                     ("ties within the runs' spread: " + ", ".join(ties)) if ties else "",
                                     ("not vectorized: " + ", ".join(missing)) if missing else "") if x),
    })
    uni = [r for r in results if KERNELS.get(r.kernel) is not None and KERNELS[r.kernel].uniform_compute]
    bad = []
    for r in uni:
        m = r.get("w8")
        if m is None or m.status != "ok" or m.vs_scalar is None:
            bad.append(f"{r.kernel} ({m.status if m else 'not run'})")
        elif m.vs_scalar < TARGET_UNIFORM_W8_FRACTION * 8:
            bad.append(f"{r.kernel} {m.vs_scalar:.2f}×")
    out.append({
        "target": f"uniform compute-bound float kernels at W=8 >= {TARGET_UNIFORM_W8_FRACTION * 8:.1f}× over scalar",
        "value": None, "holds": bool(uni) and not bad,
        "why": ("below or missing: " + ", ".join(bad)) if bad else ("no such kernel in this run" if not uni else ""),
    })
    return out


def markdown(results: list[KernelResult], opts: Options) -> str:
    """The table (speedups over the scalar loop), a geometric-mean row, and the targets."""
    configs = configs_of(results)
    names = {SCALAR: "scalar -O3", LOOPVEC: "LoopVectorize"}
    head = ["kernel", "items"] + [names.get(c, f"ours {c}" if c != "peer" else "peer") for c in configs]
    head.append("best ours / LV")
    lines = [
        f"Speedup over the scalar work-item loop (scalar column: items/s); size `{opts.size}`, "
        f"median of {opts.repeat} runs, {platform.machine()} host.",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "|".join("---" for _ in head) + "|",
    ]
    for r in results:
        row = [r.kernel, str(r.items)]
        for c in configs:
            m = r.get(c)
            row.append(_rate(m.items_per_second) if c == SCALAR and m and m.status == "ok" else _cell(m))
        b = best_ours(r)
        row.append(f"{b.vs_loopvec:.2f}× ({b.config})" if b and b.vs_loopvec else "–")
        lines.append("| " + " | ".join(row) + " |")
    geo = ["geomean", ""]
    for c in configs:
        if c == SCALAR:
            geo.append("1.00×")
            continue
        g = _geomean([m.vs_scalar for r in results if (m := r.get(c)) and m.status == "ok" and m.vs_scalar])
        geo.append(f"{g:.2f}×" if g else "–")
    gb = _geomean([b.vs_loopvec for r in results if (b := best_ours(r)) and b.vs_loopvec])
    geo.append(f"{gb:.2f}×" if gb else "–")
    lines.append("| " + " | ".join(geo) + " |")
    lines += ["", "Targets (issue 8):", ""]
    for t in targets(results):
        mark = ("holds" if t["holds"] else
                "not settled: ties within run-to-run noise" if t.get("within_noise") else "does not hold yet")
        why = f" — {t['why']}" if t["why"] else ""
        val = f" (value {t['value']:.2f})" if isinstance(t["value"], float) else ""
        lines.append(f"- {t['target']}: **{mark}**{val}{why}")
    return "\n".join(lines) + "\n"


def to_json(results: list[KernelResult], opts: Options) -> dict[str, Any]:
    """The `--json` object."""
    import llvmlite.binding as llvm

    return {
        "host": {"machine": platform.machine(), "cpu": llvm.get_host_cpu_name(),
                 "llvm": ".".join(map(str, llvm.llvm_version_info))},
        "size": opts.size, "repeat": opts.repeat, "widths": list(opts.widths), "auto": opts.auto,
        "kernels": [r.to_json() for r in results],
        "targets": targets(results),
    }


def plot(results: list[KernelResult], path: str) -> None:
    """A grouped bar chart of speedups over scalar, one group per kernel (log scale)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    configs = [c for c in configs_of(results) if c != SCALAR]
    n = len(configs)
    fig, ax = plt.subplots(figsize=(max(7.0, 0.9 * len(results) + 2), 5.0))
    width = 0.8 / max(1, n)
    for j, c in enumerate(configs):
        xs, ys = [], []
        for i, r in enumerate(results):
            m = r.get(c)
            if m is not None and m.status == "ok" and m.vs_scalar:
                xs.append(i + (j - (n - 1) / 2) * width)
                ys.append(m.vs_scalar)
        ax.bar(xs, ys, width, label="LoopVectorize" if c == LOOPVEC else ("peer" if c == "peer" else f"ours {c}"))
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xticks(range(len(results)), [r.kernel for r in results], rotation=30, ha="right")
    ax.set_ylabel("speedup over scalar -O3 (log)")
    ax.set_title("vecz-bench: missing bars are refused or failing configurations")
    ax.legend(fontsize=8, ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
