"""Survey of real OpenCL kernels (`../shared/realworld-dev`): which ones can
the oracle judge, and why not the others.

    python -m oracle.survey --realworld [DIR] [--suite S]... [--verbose] [--json]

Every distinct compiled kernel without barriers or images (from the folder's
`catalogue.json`) is run scalar under the launch the oracle infers (the
sanitized reference included). A kernel whose every NDRange runs clean is
*judged* (a vectorized run could be compared with it); the others are
counted per suite by reason, the reason being the first NDRange's verdict
reduced to a category (`REASONS`). PoCL's tests of builtin functions form a
suite of their own (`pocl-builtins`): they mostly measure the builtin
library, not the oracle.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from .case import CaseError
from .check import check_scalar

DEFAULT_DIR = Path(__file__).resolve().parents[2] / "shared" / "realworld-dev"

# (category, pattern on "status: detail"), first match wins. The categories
# a reader sees; the detail of each kernel is kept for `--verbose`.
REASONS: list[tuple[str, re.Pattern[str]]] = [
    ("missing builtin", re.compile(r"unsupported builtin")),
    # A helper the IR calls but does not define (C99 `inline` without a body
    # emitted, as in SHOC's md5): the compiled file is incomplete.
    ("calls a function its IR does not define", re.compile(r"undefined function")),
    ("unsupported input", re.compile(r"^unsupported-input")),
    ("data race", re.compile(r"^scalar-race|data race")),
    ("result depends on the work-items' order", re.compile(r"depends on the order")),
    # Indices from compile-time constants past the oracle's buffer limit
    # (Parboil's lbm: a 120x120x150 grid of 20 fields, 172 MB).
    ("needs a buffer over the oracle's 64 MiB", re.compile(r"exceed \d+ MiB|more than the oracle's limit")),
    ("launch not inferable", re.compile(r"^launch:|^scalar-fault: launch:|cannot infer")),
    ("out-of-bounds access", re.compile(r"out-of-bounds")),
    ("crash (SIGSEGV/SIGBUS)", re.compile(r"SIGSEGV|SIGBUS")),
    ("crash (SIGFPE)", re.compile(r"SIGFPE")),
    ("crash (other)", re.compile(r"crash")),
    ("timeout", re.compile(r"timeout|no answer within")),
    ("wrote past a buffer's end", re.compile(r"wrote past the end")),
    ("bad input", re.compile(r"^bad-input")),
]


_MISSING = re.compile(r"unsupported builtin (\S+)")


def missing_builtins(ks: list[KernelEntry]) -> Counter[str]:
    """The builtins (demangled) the runtime lacks, one per kernel not judged for it."""
    from .runtime import base_name

    out: Counter[str] = Counter()
    for k in ks:
        m = _MISSING.search(k.detail) if not k.judged and k.reason == "missing builtin" else None
        if m:
            out[base_name(m.group(1)) or m.group(1)] += 1
    return out


def reason_of(status: str, detail: str) -> str:
    """The category of a non-judgeable verdict."""
    text = f"{status}: {detail}"
    for name, pat in REASONS:
        if pat.search(text):
            return name
    return status


@dataclass
class KernelEntry:
    """One catalogue kernel and the survey's verdict on it."""

    suite: str
    kernel: str
    ir: str  # path relative to the folder
    judged: bool = False
    reason: str = ""
    detail: str = ""


def suite_of(entry: dict) -> str:
    """The row a catalogue entry is counted in."""
    if entry.get("category") == "unit-test-builtins":
        return "pocl-builtins"
    return str(entry["suite"])


def catalogue_kernels(root: Path) -> list[KernelEntry]:
    """The distinct compiled kernels without barriers or images."""
    entries = json.loads((root / "catalogue.json").read_text())
    out = []
    for e in entries:
        if not e.get("compiled") or not e.get("ir_O1") or e.get("duplicate_of"):
            continue
        if e.get("barriers") or e.get("images"):
            continue
        out.append(KernelEntry(suite_of(e), e["kernel"], e["ir_O1"]))
    return out


def survey_kernel(root: Path, k: KernelEntry, timeout: float = 10.0) -> KernelEntry:
    """Run one kernel scalar at its inferred launch; fill in the verdict."""
    text = (root / k.ir).read_text(errors="replace")
    try:
        rep = check_scalar(text, kernel=k.kernel, timeout=timeout)
    except CaseError as exc:
        k.reason, k.detail = reason_of("launch", str(exc)), str(exc)
        return k
    bad = [r for r in rep.results if r.status != "match"]
    if rep.results and not bad:
        k.judged = True
        return k
    r = bad[0] if bad else None
    status, detail = (r.status, r.detail) if r else ("bad-input", "no NDRange ran")
    k.reason, k.detail = reason_of(status, detail), f"{status}: {detail}"
    return k


def run(root: Path, suites: list[str] | None = None, jobs: int = 2,
        progress: Callable[[int, int], None] | None = None) -> list[KernelEntry]:
    """Survey every kernel (of `suites`, default all)."""
    kernels = [k for k in catalogue_kernels(root) if not suites or k.suite in suites]
    done = 0

    def one(k: KernelEntry) -> KernelEntry:
        nonlocal done
        r = survey_kernel(root, k)
        done += 1
        if progress:
            progress(done, len(kernels))
        return r

    with ThreadPoolExecutor(max(1, jobs)) as ex:
        return list(ex.map(one, kernels))


def table(results: list[KernelEntry]) -> str:
    """Per suite: kernels, judged (share), and the reasons of the rest; then
    the totals without and with PoCL's builtin tests."""
    suites = sorted({k.suite for k in results}, key=lambda s: (s == "pocl-builtins", s))
    rows = [(s, [k for k in results if k.suite == s]) for s in suites]
    rows.append(("benchmarks", [k for k in results if k.suite != "pocl-builtins"]))
    rows.append(("all", results))
    lines = [f"{'suite':14} {'kernels':>7} {'judged':>7} {'share':>6}  reasons for the rest"]
    for s, ks in rows:
        n, j = len(ks), sum(k.judged for k in ks)
        reasons = Counter(k.reason for k in ks if not k.judged)
        names = missing_builtins(ks)
        shown = ", ".join(f"{b} {n}" for b, n in names.most_common(6)) + (", ..." if len(names) > 6 else "")
        why = ", ".join(f"{r} {c}" + (f" ({shown})" if r == "missing builtin" and names else "")
                        for r, c in reasons.most_common())
        lines.append(f"{s:14} {n:7} {j:7} {100 * j / max(1, n):5.0f}%  {why}")
    return "\n".join(lines)


def to_json(results: list[KernelEntry]) -> dict:
    """The survey as one JSON object (per-kernel verdicts included)."""
    return {"kernels": [asdict(k) for k in results]}
