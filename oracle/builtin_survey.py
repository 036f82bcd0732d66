"""Survey of the builtin library on real kernels: PoCL's builtin tests and the
benchmark kernels of `../shared/realworld-dev` without barriers, run in the
oracle and vectorized at W = 4, 8, 16.

    python -m oracle.builtin_survey [DIR] [--widths 4,8,16] [--category C]... [--jobs N]
                                    [--family images|async] [--verbose] [--json FILE] [--limit N]

Each kernel (distinct compiled kernels of the catalogue whose category is
`unit-test-builtins` or `benchmark`, without barriers) gets one verdict:

- `match`: the scalar reference ran at every inferred NDRange and every
  width matched it (buffers and printf output);
- `refused`: it ran, and the vectorizer refused some width with a remark
  (the remark is listed with --verbose), the others matched;
- `unsupported builtin`: the oracle cannot run it (a builtin the runtime
  lacks; images are the known case);
- `not judged`: the scalar reference could not be judged for another reason
  (launch not inferable, scalar fault, the result depends on the
  work-items' order...): nothing to compare with;
- `defect`: a mismatch, a vector fault, a timeout or a vectorizer error at
  some width: every one is a defect to explain.

Prints one line per category with counts (and, with --verbose, one line per
kernel not matching), per category of kernel. Exit status 1 if any defect.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from .case import CaseError
from .check import check

DEFAULT_DIR = Path(__file__).resolve().parents[2] / "shared" / "realworld-dev"
CATEGORIES = ("unit-test-builtins", "benchmark")
VERDICTS = ("match", "refused", "unsupported builtin", "not judged", "defect")
DEFECT_STATUSES = ("mismatch", "vector-fault", "timeout", "vectorizer-error")
_MISSING = re.compile(r"unsupported builtin|undefined function")


@dataclass
class Verdict:
    """One kernel's survey result."""

    category: str
    suite: str
    kernel: str
    ir: str
    verdict: str = ""
    detail: str = ""


FAMILIES = ("images", "async")
_ASYNC = re.compile(r"async_work_group|wait_group_events")


def _uses(root: Path, e: dict, family: str) -> bool:
    """Does catalogue entry `e` use a builtin family (`images`: the catalogue's
    flag; `async`: a work-group copy or wait declared by its module)?"""
    if family == "images":
        return bool(e.get("images"))
    return bool(_ASYNC.search((root / e["ir_O1"]).read_text(errors="replace")))


def select(root: Path, categories: tuple[str, ...] = CATEGORIES, family: str | None = None) -> list[Verdict]:
    """The distinct compiled kernels of `categories` without barriers; with
    `family`, the kernels of every category (PoCL's examples too) using it,
    barriers or not (the copies' wait is one)."""
    entries = json.loads((root / "catalogue.json").read_text())
    out = []
    for e in entries:
        if not e.get("compiled") or not e.get("ir_O1") or e.get("duplicate_of"):
            continue
        if family is not None:
            if not _uses(root, e, family):
                continue
        elif e.get("category") not in categories or e.get("barriers"):
            continue
        out.append(Verdict(e["category"], e["suite"], e["kernel"], e["ir_O1"]))
    return out


def judge(statuses: list[tuple[int, str, str]]) -> tuple[str, str]:
    """(verdict, detail) from the (width, status, detail) of every result."""
    if not statuses:
        return "not judged", "no NDRange ran"
    for _w, st, detail in statuses:
        if st == "unsupported-input" and _MISSING.search(detail):
            m = re.search(r"(?:unsupported builtin|undefined function) (\S+)", detail)
            if m and not m.group(1).startswith(("_Z", "printf")):
                # A function of the kernel's program defined in another file: not a builtin.
                return "not judged", detail
            return "unsupported builtin", detail
    scalar_bad = [(st, d) for _w, st, d in statuses if st in ("scalar-fault", "scalar-race", "unsupported-input")]
    if scalar_bad:
        return "not judged", f"{scalar_bad[0][0]}: {scalar_bad[0][1]}"
    bad = [(w, st, d) for w, st, d in statuses if st in DEFECT_STATUSES]
    if bad:
        w, st, d = bad[0]
        return "defect", f"W={w} {st}: {d}"
    refused = [(w, d) for w, st, d in statuses if st == "not-vectorized"]
    if refused:
        return "refused", f"W={refused[0][0]}: {refused[0][1]}"
    return "match", ""


def kernel_module(text: str, kernel: str) -> str:
    """`text` with only `kernel` and what it uses: PoCL's test files hold up
    to 49 kernels, which every vectorization and build would otherwise carry."""
    import llvmlite.binding as llvm

    from vectorizer import llvm_bridge

    mod = llvm_bridge.parse(text)
    for f in mod.functions:
        if not f.is_declaration and f.name != kernel:
            f.linkage = llvm.Linkage.internal
    return llvm_bridge.run_passes(mod, ["globaldce", "strip-dead-prototypes"])


def _images(v: Verdict) -> Verdict:
    # An image type the oracle does not allocate (arrays, depth, MSAA, image
    # buffers) stops the launch inference before any builtin is looked up.
    if v.verdict == "not judged" and re.search(r"cannot infer a value for parameter \d+ of type target\(\"spirv\.Image", v.detail):
        v.verdict = "unsupported builtin"
    return v


def survey_kernel(root: Path, v: Verdict, widths: list[int], timeout: float) -> Verdict:
    """Check one kernel at `widths`; fill in its verdict."""
    text = (root / v.ir).read_text(errors="replace")
    try:
        text = kernel_module(text, v.kernel)
    except Exception as exc:  # noqa: BLE001 - LLVM rejects the file: the oracle would too
        v.verdict, v.detail = "not judged", f"bad input: {' '.join(str(exc).split())[:200]}"
        return v
    try:
        rep = check(text, kernel=v.kernel, widths=widths, timeout=timeout)
    except CaseError as exc:
        v.verdict, v.detail = "not judged", f"launch: {exc}"
        return _images(v)
    except Exception as exc:  # noqa: BLE001 - one kernel must not end the survey
        v.verdict, v.detail = "defect", f"oracle error: {type(exc).__name__}: {exc}"
        return v
    v.verdict, v.detail = judge([(r.width, r.status, r.detail) for r in rep.results])
    v.detail = " ".join(v.detail.split())[:400]
    return _images(v)


def table(results: list[Verdict]) -> str:
    """Counts per category of kernel and verdict."""
    lines = [f"{'category':20} {'kernels':>7} " + " ".join(f"{h:>11}" for h in VERDICTS)]
    cats = sorted({r.category for r in results}, key=lambda c: (c not in CATEGORIES, CATEGORIES.index(c) if c in CATEGORIES else 0, c))
    for c in [*cats, "all"]:
        rs = [r for r in results if c in ("all", r.category)]
        n = Counter(r.verdict for r in rs)
        lines.append(f"{c:20} {len(rs):7} " + " ".join(f"{n.get(h, 0):11}" for h in VERDICTS))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    p = argparse.ArgumentParser(prog="python -m oracle.builtin_survey", description=__doc__.split("\n")[0])
    p.add_argument("dir", nargs="?", default=str(DEFAULT_DIR))
    p.add_argument("--widths", default="4,8,16")
    p.add_argument("--category", action="append", choices=CATEGORIES)
    p.add_argument("--family", choices=FAMILIES, help="only the kernels using images (the catalogue's flag) or "
                   "asynchronous work-group copies, in every category")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=float, default=10.0)
    p.add_argument("--limit", type=int, default=0, help="only the first N kernels")
    p.add_argument("--verbose", action="store_true", help="one line per kernel that does not match")
    p.add_argument("--json", help="write every verdict to this file")
    p.add_argument("--resume", help="append each verdict to this JSON-lines file as it comes, and skip "
                   "the kernels it already holds (a long survey can be stopped and resumed)")
    ns = p.parse_args(argv)
    root = Path(ns.dir)
    if not (root / "catalogue.json").is_file():
        print(f"builtin_survey: no catalogue.json in {root}", file=sys.stderr)
        return 2
    try:
        widths = [int(w) for w in ns.widths.split(",")]
    except ValueError:
        print(f"builtin_survey: bad --widths {ns.widths!r}", file=sys.stderr)
        return 2
    kernels = select(root, tuple(ns.category or CATEGORIES), ns.family)
    if ns.limit:
        kernels = kernels[: ns.limit]
    earlier: list[Verdict] = []
    if ns.resume and Path(ns.resume).is_file():
        for line in Path(ns.resume).read_text().splitlines():
            if line.strip():
                v = Verdict(**json.loads(line))
                if v.verdict == "unsupported builtin":
                    v.verdict = judge([(0, "unsupported-input", v.detail)])[0]
                earlier.append(_images(v))
        seen = {(v.ir, v.kernel) for v in earlier}
        earlier = [v for v in earlier if any((k.ir, k.kernel) == (v.ir, v.kernel) for k in kernels)]
        kernels = [k for k in kernels if (k.ir, k.kernel) not in seen]
    # The big PoCL tests (hundreds of builtin calls in one kernel) last.
    kernels.sort(key=lambda k: (k.category != "benchmark", (root / k.ir).stat().st_size > 400_000))
    done = 0
    lock = threading.Lock()

    def one(v: Verdict) -> Verdict:
        nonlocal done
        r = survey_kernel(root, v, widths, ns.timeout)
        with lock:
            done += 1
            print(f"\r{done}/{len(kernels)}", end="", file=sys.stderr, flush=True)
            if ns.resume:
                with open(ns.resume, "a") as fh:
                    fh.write(json.dumps(asdict(r)) + "\n")
        return r

    with ThreadPoolExecutor(max(1, ns.jobs)) as ex:
        results = earlier + list(ex.map(one, kernels))
    print(file=sys.stderr)
    if ns.verbose:
        for r in results:
            if r.verdict != "match":
                print(f"{r.verdict:20} {r.suite}/{r.kernel} ({r.ir}): {r.detail}")
        print()
    if ns.json:
        Path(ns.json).write_text(json.dumps([asdict(r) for r in results], indent=1))
    print(f"widths {','.join(map(str, widths))}")
    print(table(results))
    return 1 if any(r.verdict == "defect" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
