"""Record, or check, what the vectorizer makes of a fixed set of inputs.

The pipeline's structure may change (issue 18: passes, an analysis manager),
its output may not. This script vectorizes, in-process through
`vectorize_module` (veczc's path), every kernel of

- the benchmark kernels (bench/kernels/**/*.ll),
- the lit tests' inputs (tests/lit/**/*.ll, each at the dimensions and
  choices its RUN lines use as well as the defaults),
- the peer corpus (../shared/peer-corpus/vecz-lit, read from there),

at widths 4 and 8 (our own kernels also at the automatic width and
with each choice on its own), for a fixed target (so the record does not depend on the
machine's CPU), and records per configuration the sha256 of the output
module, or of the remarks when the kernel is refused, in
tests/fixtures/pipeline_outputs.json.

    python scripts/regenerate_pipeline_fixtures.py            # rewrite the record
    python scripts/regenerate_pipeline_fixtures.py --check    # compare, exit 1 on a difference
    python scripts/regenerate_pipeline_fixtures.py --check --subset 7  # every 7th configuration
    python scripts/regenerate_pipeline_fixtures.py --add-missing  # record new inputs only

The record was made with the pipeline before issue 18 (commit a41a4fc). To
record a new input, run `--add-missing` in a worktree of that commit with
the new input and this script copied in, and copy the record back.

tests/test_pipeline_fixtures.py checks a deterministic subset of the
configurations (the whole set takes minutes); `--check` checks all.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

FIXTURE = ROOT / "tests" / "fixtures" / "pipeline_outputs.json"
PEER_DIR = ROOT.parent / "shared" / "peer-corpus" / "vecz-lit"
WIDTHS = (4, 8)

# Two fixed targets (the host's would make the record machine-dependent):
# AVX2-like registers with and without fast gathers, the two code paths of
# safe lane addressing.
TARGETS = {
    "gather": ("fixture-gather", "", 256, True, False),
    "nogather": ("fixture-nogather", "", 256, False, False),
}


@dataclass(frozen=True)
class Config:
    """One vectorization to record."""

    source: str  # "bench", "lit" or "peer"
    path: str  # relative to its source's root
    kernel: str
    width: int | None  # None: automatic
    dim: int = 0
    choices: str = ""
    target: str = "gather"

    @property
    def key(self) -> str:
        w = "auto" if self.width is None else self.width
        return f"{self.source}:{self.path}|{self.kernel}|w{w}|d{self.dim}|{self.choices}|{self.target}"


def _roots() -> dict[str, Path]:
    return {"bench": ROOT / "bench" / "kernels", "lit": ROOT / "tests" / "lit", "peer": PEER_DIR}


def _lit_variants(text: str) -> tuple[set[int], set[str]]:
    """The dimensions and choices strings a lit file's veczc RUN lines use."""
    from vectorizer.choices import parse_choices
    from vectorizer.cli import build_parser

    dims, choices = {0}, {""}
    for line in text.splitlines():
        m = re.match(r"^;\s*RUN:.*%veczc(.*)$", line)
        if not m:
            continue
        words = shlex.split(re.split(r"[|>]", m.group(1))[0])
        args, _ = build_parser().parse_known_args([w for w in words if w not in ("%s",)])
        dims.add(args.dim if args.dim in (0, 1, 2) else 0)
        if args.choices:
            try:
                parse_choices(args.choices)
            except ValueError:
                continue  # a RUN line checking the usage error
            choices.add(args.choices)
    return dims, choices


def configurations() -> list[Config]:
    """Every configuration to record, in a stable order."""
    from vectorizer import llvm_bridge
    from vectorizer.choices import CHOICES
    from vectorizer.cli import _kernel_names

    out: list[Config] = []
    for source, root in _roots().items():
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*.ll")):
            if {"Output"} & set(path.parts):
                continue
            rel = str(path.relative_to(root))
            text = path.read_text(errors="replace")
            try:
                canonical = llvm_bridge.canonicalize(text)
            except Exception:  # noqa: BLE001  malformed inputs (lit's bad.ll) have nothing to record
                continue
            dims, choices = _lit_variants(text) if source == "lit" else ({0}, {""})
            targets = ["gather", "nogather"] if source == "lit" else ["gather"]
            for kernel in _kernel_names(canonical):
                for width in WIDTHS:
                    for dim in sorted(dims):
                        for ch in sorted(choices):
                            for tg in targets:
                                out.append(Config(source, rel, kernel, width, dim, ch, tg))
                if source != "peer":
                    # Our own kernels also at the automatic width (the cost
                    # model's path) and with each choice on its own.
                    out.append(Config(source, rel, kernel, None))
                    out.extend(Config(source, rel, kernel, 4, 0, ch) for ch in CHOICES)
    return out


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def outcome_of(cfg: Config, cache: dict[str, str] | None = None) -> dict[str, str]:
    """Vectorize one configuration; its record: status and sha256 of the
    output (the module, or the remarks when refused, or the error)."""
    from vectorizer import llvm_bridge
    from vectorizer.choices import parse_choices
    from vectorizer.pipeline import KernelRequest, vectorize_module
    from vectorizer.target import TargetInfo

    path = _roots()[cfg.source] / cfg.path
    if cache is not None and str(path) in cache:
        canonical = cache[str(path)]
    else:
        canonical = llvm_bridge.canonicalize(path.read_text(errors="replace"))
        if cache is not None:
            cache.clear()  # one file at a time: configurations come grouped by file
            cache[str(path)] = canonical
    target = TargetInfo(*TARGETS[cfg.target])
    request = KernelRequest(cfg.kernel, cfg.width, cfg.dim, parse_choices(cfg.choices))
    try:
        text, outcomes = vectorize_module(canonical, [request], target)
    except Exception as exc:  # noqa: BLE001  an error is an outcome to keep as it is
        return {"status": "error", "sha256": _sha(f"{type(exc).__name__}: {exc}")}
    out = outcomes[0]
    if out.vectorized_name is None:
        return {"status": "refused", "sha256": _sha("\n".join(out.remarks))}
    return {"status": "vectorized", "sha256": _sha(text), "remarks": _sha("\n".join(out.remarks))}


def subset(configs: list[Config], every: int) -> list[Config]:
    """Every `every`-th configuration (a deterministic sample across all sources)."""
    return configs[::every] if every > 1 else configs


def compute(configs: list[Config]) -> dict[str, dict[str, str]]:
    cache: dict[str, str] = {}
    return {cfg.key: outcome_of(cfg, cache) for cfg in configs}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="compare with the record instead of rewriting it")
    p.add_argument("--subset", type=int, default=1, metavar="N", help="only every N-th configuration")
    p.add_argument("--add-missing", action="store_true",
                   help="record only the configurations the record lacks (new inputs), keeping the rest; "
                        "run it from a checkout of the pipeline the record was made with")
    ns = p.parse_args(argv)
    configs = subset(configurations(), ns.subset)
    if ns.add_missing:
        want = json.loads(FIXTURE.read_text())
        got = compute([c for c in configs if c.key not in want])
        want.update(got)
        FIXTURE.write_text(json.dumps(want, indent=0, sort_keys=True) + "\n")
        print(f"added {len(got)} configurations to {FIXTURE.relative_to(ROOT)}")
        return 0
    got = compute(configs)
    if not ns.check:
        FIXTURE.parent.mkdir(parents=True, exist_ok=True)
        FIXTURE.write_text(json.dumps(got, indent=0, sort_keys=True) + "\n")
        print(f"recorded {len(got)} configurations in {FIXTURE.relative_to(ROOT)}")
        return 0
    want = json.loads(FIXTURE.read_text())
    diffs = [k for k in got if want.get(k) != got[k]]
    for k in diffs:
        print(f"differs: {k}: recorded {want.get(k)}, now {got[k]}")
    print(f"{len(got) - len(diffs)}/{len(got)} configurations unchanged")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
