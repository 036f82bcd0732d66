"""Random sub-group kernels (fuzz/subgroup_kernels.py) vectorized and checked
by the oracle: every configuration matches or is refused with a remark."""

from __future__ import annotations

import pytest

import oracle
from fuzz.subgroup_kernels import subgroup_kernel


def test_kernels_are_deterministic_and_use_collectives() -> None:
    assert subgroup_kernel(5) == subgroup_kernel(5)
    assert subgroup_kernel(5) != subgroup_kernel(6)
    texts = [subgroup_kernel(s) for s in range(20)]
    assert all("sub_group" in t for t in texts)
    assert any("__mux_work_group_" in t for t in texts)
    assert any("br i1" in t for t in texts)  # uniform loops and ifs


@pytest.mark.parametrize("seed", [1, 4, 7, 11])
def test_random_sub_group_kernels_match(seed: int) -> None:
    text = subgroup_kernel(seed)
    for choices, nds, dims in (([""], ["global=20 local=10", "global=6,4 local=3,4"], [0, 1]),
                               (["VectorPredication"], ["global=20 local=10"], [0])):
        rep = oracle.check(text, kernel="sg", widths=[2, 4], dims=dims, choices=choices, ndranges=nds)
        bad = [r for r in rep.results if r.status != "match"
               and not (r.status == "not-vectorized" and "along dimension" in r.detail)]
        assert not bad, bad[:2]
