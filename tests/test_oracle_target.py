"""`vecz-oracle --target-features` / `oracle.check(target_features=...)`:
vectorizing for a target without fast gathers (the code still runs on the host)."""

from __future__ import annotations

import pytest

import oracle
from oracle.case import CaseError
from oracle.cli import main as oracle_main
from oracle.worker import vectorize_in_worker

# out[gid] = g.x + 3 g.y, where g = masked_gather({&in[2gid+1], &in[2gid]},
# {in[2gid] < 128, in[2gid] even}, {gid, 1000}): a varying mask whose
# masked-off lanes must give the pass-through value.
GATHER = """; vecz-case: 1
; kernel: k
; args: buf:i32:64:zero buf:i32:128:mod256
; ndrange: global=64 local=16
; ndrange: global=37 local=37
; seed: 5

declare i64 @_Z13get_global_idj(i32)
declare <2 x i32> @llvm.masked.gather.v2i32.v2p1(<2 x ptr addrspace(1)>, <2 x i1>, <2 x i32>)

define spir_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %i0 = shl i64 %gid, 1
  %i1 = add i64 %i0, 1
  %p0 = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %i0
  %p1 = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %i1
  %k = load i32, ptr addrspace(1) %p0, align 4
  %m0 = icmp ult i32 %k, 128
  %t = and i32 %k, 1
  %m1 = icmp eq i32 %t, 0
  %a = insertelement <2 x ptr addrspace(1)> poison, ptr addrspace(1) %p1, i32 0
  %ptrs = insertelement <2 x ptr addrspace(1)> %a, ptr addrspace(1) %p0, i32 1
  %ma = insertelement <2 x i1> poison, i1 %m0, i32 0
  %mask = insertelement <2 x i1> %ma, i1 %m1, i32 1
  %g = trunc i64 %gid to i32
  %pa = insertelement <2 x i32> poison, i32 %g, i32 0
  %pt = insertelement <2 x i32> %pa, i32 1000, i32 1
  %v = call <2 x i32> @llvm.masked.gather.v2i32.v2p1(<2 x ptr addrspace(1)> align 4 %ptrs, <2 x i1> %mask, <2 x i32> %pt)
  %v0 = extractelement <2 x i32> %v, i32 0
  %v1 = extractelement <2 x i32> %v, i32 1
  %s = mul i32 %v1, 3
  %r = add i32 %v0, %s
  %op = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %r, ptr addrspace(1) %op, align 4
  ret void
}
"""


def test_the_target_features_reach_the_vectorizer_in_the_worker() -> None:
    slow = vectorize_in_worker(GATHER, "k", 8, 0, "", target_features="-fast-gather")
    host = vectorize_in_worker(GATHER, "k", 8, 0, "")
    assert slow[0] == host[0] == "ok"
    # Only without fast gathers do inactive lanes address the safe slot.
    assert "@__vecz_b_safe_slot_p1" in slow[2]
    assert "@__vecz_b_safe_slot_p1" not in host[2]


@pytest.mark.parametrize("features", [None, "-fast-gather"])
def test_a_masked_gather_with_a_pass_through_matches(features: str | None) -> None:
    report = oracle.check(GATHER, widths=[4, 8], target_features=features)
    assert report.summary == {"match": 4}


def test_a_bad_feature_list_is_a_usage_error(tmp_path, capsys) -> None:
    with pytest.raises(CaseError, match="fast-gather"):
        oracle.check(GATHER, widths=[4], target_features="fast-gather")
    case = tmp_path / "g.ll"
    case.write_text(GATHER)
    assert oracle_main([str(case), "--widths", "4", "--target-features=fast-gather"]) == 2
    assert "must be +name or -name" in capsys.readouterr().err
    assert oracle_main([str(case), "--widths", "4", "--target-features=-fast-gather"]) == 0


def test_the_generator_draws_masked_gathers_that_match_without_fast_gathers() -> None:
    from fuzz.generator import generate

    text = next(t for t in (generate(s, profile="memory") for s in range(200)) if "llvm.masked.gather" in t)
    report = oracle.check(text, widths=[4, 7], target_features="-fast-gather")
    assert not report.failed, report.summary


def test_the_library_takes_the_same_feature_list_as_veczc() -> None:
    from vectorizer import vectorize

    r = vectorize(GATHER, "k", 4, target_features="-fast-gather")
    assert r.vectorized_name is not None and r.stats["safe_addressed_accesses"] > 0
    assert vectorize(GATHER, "k", 4).stats["safe_addressed_accesses"] == 0
    with pytest.raises(ValueError, match="must be"):
        vectorize(GATHER, "k", 4, target_features="avx2")
    with pytest.raises(ValueError, match="target_features must be"):
        vectorize(GATHER, "k", 4, target_features=["-fast-gather"])  # type: ignore[arg-type]
