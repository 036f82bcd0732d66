"""The regression corpus: every case in corpus/ at its configurations must match."""

from __future__ import annotations

import pytest

from fuzz.corpus import CORPUS_DIR, cases
from oracle import check

CASES = cases()


def test_corpus_directory_exists() -> None:
    assert CORPUS_DIR.is_dir(), f"{CORPUS_DIR} is missing"
    print(f"corpus: {len(CASES)} case(s) in {CORPUS_DIR}")
    if not CASES:
        # Visible in the `-ra` summary rather than silently passing.
        pytest.skip("corpus/ holds 0 cases: nothing to run")


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_corpus_case_matches(path) -> None:
    rep = check(path.read_text())
    bad = [r for r in rep.results if r.status != "match"]
    assert rep.results and not bad, f"{path.name}: " + "; ".join(
        f"{r.status} w={r.width} d={r.dim} c={r.choices!r}: {r.detail[:200]}" for r in bad[:5])
