"""Run every kernel of a foreign corpus scalar under inferred layouts.

    python -m oracle.survey [DIR] [--all] [--jobs N]
    python -m oracle.survey --realworld [DIR] [--suite S]... [--verbose] [--json]

By default only kernels that use nothing but work-item builtins and LLVM
intrinsics are run (the oracle's promise: none of them may scalar-fault);
`--all` runs every file. Prints one line per file that did not run cleanly,
with the reason, then counts. `--realworld` surveys real OpenCL kernels
instead (oracle.realworld): per suite, how many the oracle can judge and why
not the rest.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from vectorizer.llvm_context import new_context, parse_in

from . import worker
from .case import CaseError
from .check import check_scalar
from .jit import initialize, strip_calling_conventions
from .runtime import _WI_DIM, _WI_NODIM, base_name

DEFAULT_DIR = Path(__file__).resolve().parents[2] / "shared" / "peer-corpus" / "vecz-lit"


def only_work_item_builtins(text: str) -> bool | None:
    """True if every declared function is an LLVM intrinsic or a work-item
    query; None when LLVM cannot parse the file."""
    initialize()
    try:
        mod = parse_in(new_context(), strip_calling_conventions(text))
    except RuntimeError:
        return None
    for f in mod.functions:
        if f.is_declaration and not f.name.startswith("llvm."):
            b = base_name(f.name)
            if b not in _WI_DIM and b not in _WI_NODIM:
                return False
    return True


def survey_file(path: Path) -> tuple[str, str]:
    """(verdict, detail) for one file: ok, scalar-fault, unsupported-input,
    bad-input or skipped."""
    text = path.read_text(errors="replace")
    simple = only_work_item_builtins(text)
    if simple is None:
        return "bad-input", "LLVM cannot parse it"
    try:
        rep = check_scalar(text, timeout=10.0)
    except CaseError as exc:
        return "bad-input", str(exc)
    statuses = Counter(r.status for r in rep.results)
    bad = [r for r in rep.results if r.status != "match"]
    if not bad:
        return ("ok" if simple else "ok-extra"), f"{rep.kernel}: {len(rep.results)} NDRanges"
    r = bad[0]
    return r.status if simple else r.status + "-extra", f"{rep.kernel} global={r.global_size} local={r.local_size}: {r.detail} {dict(statuses)}"


def main(argv: list[str] | None = None) -> int:
    """Entry point: survey a directory of .ll files."""
    p = argparse.ArgumentParser(prog="python -m oracle.survey", description=__doc__.split("\n")[0])
    p.add_argument("dir", nargs="?", default=str(DEFAULT_DIR))
    p.add_argument("--all", action="store_true", help="also run kernels calling other builtins")
    p.add_argument("--jobs", type=int, default=0)
    p.add_argument("--realworld", action="store_true",
                   help="survey ../shared/realworld-dev (or DIR) per suite instead")
    p.add_argument("--suite", action="append", help="with --realworld: only this suite (repeatable)")
    p.add_argument("--verbose", action="store_true", help="with --realworld: one line per kernel not judged")
    p.add_argument("--json", action="store_true", help="with --realworld: print the verdicts as JSON")
    ns = p.parse_args(argv)
    if ns.realworld:
        return _realworld(ns)
    files = sorted(Path(ns.dir).rglob("*.ll"))
    if not ns.all:
        files = [f for f in files if only_work_item_builtins(f.read_text(errors="replace"))]
    jobs = ns.jobs or worker.get_pool().size
    with ThreadPoolExecutor(jobs) as ex:
        verdicts = list(ex.map(survey_file, files))
    counts: Counter[str] = Counter()
    for f, (v, d) in zip(files, verdicts, strict=True):
        counts[v] += 1
        if not v.startswith("ok"):
            print(f"{f.name}: {v}: {d}")
    print(f"{len(files)} files: " + ", ".join(f"{k} {n}" for k, n in sorted(counts.items())))
    return 1 if counts.get("scalar-fault") else 0


def _realworld(ns: argparse.Namespace) -> int:
    from . import realworld

    root = Path(ns.dir) if ns.dir != str(DEFAULT_DIR) else realworld.DEFAULT_DIR
    if not (root / "catalogue.json").is_file():
        print(f"survey: error: no catalogue.json in {root}", file=sys.stderr)
        return 2

    def progress(i: int, n: int) -> None:
        print(f"\r[{i}/{n}]", end="", file=sys.stderr, flush=True)

    results = realworld.run(root, ns.suite, ns.jobs or worker.get_pool().size, progress)
    print(file=sys.stderr)
    if ns.json:
        print(json.dumps(realworld.to_json(results), indent=1))
        return 0
    if ns.verbose:
        for k in results:
            if not k.judged:
                print(f"{k.suite}/{k.kernel}: {k.reason}: {k.detail[:200]}")
    print(realworld.table(results))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
