"""Vecz's own lit kernels (../shared/peer-corpus/vecz-lit, read from there,
never copied) vectorized by us at W = 2, 4, 8 and 16 along every dimension
they index, and checked by the oracle under inferred layouts.

A kernel may be refused (`not-vectorized`, with the vectorizer's remark) or
be unusable as a runnable test (`unsupported-input`: builtins the oracle
cannot run; `scalar-fault`: the kernel itself crashes, races or depends on
private addresses). No configuration may be a mismatch, vector-fault,
timeout or vectorizer-error. `python -m oracle.peer_survey` prints the whole
table with the refusals' remarks.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest

from oracle.peer_survey import FAILING, survey_file
from oracle.survey import DEFAULT_DIR

WIDTHS = [int(w) for w in os.environ.get("VECZ_PEER_WIDTHS", "2,4,8,16").split(",")]


def _files() -> list[Path]:
    return sorted(DEFAULT_DIR.rglob("*.ll")) if DEFAULT_DIR.is_dir() else []


def test_peer_corpus_is_present() -> None:
    """The corpus sits beside the checkout (CI has it); without it the
    parametrized test below would silently check nothing."""
    assert len(_files()) > 250, f"expected Vecz's lit kernels in {DEFAULT_DIR}"


@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p.relative_to(DEFAULT_DIR)))
def test_peer_kernels_vectorize_correctly(path: Path) -> None:
    verdicts = survey_file(path, WIDTHS, DEFAULT_DIR)
    bad = [f"{v.kernel}: {v.worst} {v.statuses}: {v.detail[:300]}" for v in verdicts if v.worst in FAILING]
    assert not bad, "\n".join(bad)
    for v in verdicts:
        if v.retries:  # shown in pytest's summary: evidence, not silence
            warnings.warn(f"{v.kernel}: {v.retries} vectorize request(s) crashed a worker that had run"
                          f" kernels and succeeded in a fresh one: {'; '.join(v.retried)}", stacklevel=1)
