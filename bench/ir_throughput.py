"""Parse + print throughput of `vectorizer.ir` over the peer corpus.

Usage: python bench/ir_throughput.py [--repeat N] [corpus_dir]

Each corpus file is canonicalised once through llvmlite (not timed); then
`parse_module` and `print_module` are timed over all files, `--repeat` times,
and the best round is reported as instructions per second.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vectorizer.ir import parse_module, print_module  # noqa: E402

DEFAULT_CORPUS = ROOT / ".." / "shared" / "peer-corpus" / "vecz-lit"


def _canonical_texts(corpus: Path) -> list[str]:
    from vectorizer.llvm_bridge import IRError, canonicalize

    texts = []
    for path in sorted(corpus.rglob("*.ll")):
        try:
            texts.append(canonicalize(path.read_text()))
        except IRError:
            continue
    return texts


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"corpus {args.corpus} not found", file=sys.stderr)
        return 1
    texts = _canonical_texts(args.corpus)
    n_insts = sum(sum(1 for _ in f.instructions()) for t in texts for f in parse_module(t).functions)
    n_bytes = sum(len(t) for t in texts)
    best_parse = best_print = float("inf")
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        modules = [parse_module(t) for t in texts]
        t1 = time.perf_counter()
        for m in modules:
            print_module(m)
        t2 = time.perf_counter()
        best_parse = min(best_parse, t1 - t0)
        best_print = min(best_print, t2 - t1)
    total = best_parse + best_print
    print(f"modules:      {len(texts)}")
    print(f"instructions: {n_insts}")
    print(f"bytes:        {n_bytes}")
    print(f"parse:        {best_parse:.3f} s  ({n_insts / best_parse:,.0f} inst/s, {n_bytes / best_parse / 1e6:.2f} MB/s)")
    print(f"print:        {best_print:.3f} s  ({n_insts / best_print:,.0f} inst/s)")
    print(f"parse+print:  {total:.3f} s  ({n_insts / total:,.0f} inst/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
