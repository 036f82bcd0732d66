"""`python -m oracle.workgroup_survey`: which kernels it surveys, its table,
and one real barrier kernel judged end to end."""

from __future__ import annotations

from pathlib import Path

import pytest

from oracle import workgroup_survey as S

MODULE = """
declare void @_Z7barrierj(i32)
declare i64 @_Z12get_local_idj(i32)

define internal void @helper() {
  call void @_Z7barrierj(i32 1)
  ret void
}

define spir_kernel void @direct(ptr addrspace(1) %p) {
  call void @_Z7barrierj(i32 1)
  ret void
}

define spir_kernel void @through_a_call(ptr addrspace(1) %p) {
  call void @helper()
  ret void
}

define spir_kernel void @none(ptr addrspace(1) %p) {
  %x = call i64 @_Z12get_local_idj(i32 0)
  ret void
}
"""


def test_kernels_reaching_a_barrier_directly_or_through_calls() -> None:
    assert S.barrier_kernels(MODULE) == ["direct", "through_a_call"]
    mux = MODULE.replace("@_Z7barrierj(i32 1)", "@__mux_work_group_barrier(i32 0, i32 2, i32 272)")
    assert S.barrier_kernels(mux) == ["direct", "through_a_call"]


@pytest.mark.skipif(not (S.REALWORLD_DIR / "catalogue.json").is_file() or not S.PEER_DIR.is_dir(),
                    reason="needs ../shared/peer-corpus and ../shared/realworld-dev")
def test_targets_are_the_catalogued_barrier_kernels_and_the_peer_barrier_kernels() -> None:
    real = S.realworld_targets()
    assert real and all(t.path.is_file() for t in real)
    assert len({(t.path, t.kernel) for t in real}) == len(real)  # duplicates left out
    peer = S.peer_targets()
    assert peer and all(t.suite == "peer-corpus" for t in peer)
    assert all(t.kernel in S.barrier_kernels(t.path.read_text(errors="replace")) for t in peer)


def test_table_counts_worst_statuses_and_configurations() -> None:
    vs = [S.Verdict("rodinia", "a.ll", "k1", "match", {"match": 9}),
          S.Verdict("rodinia", "b.ll", "k2", "not-vectorized", {"not-vectorized": 3, "match": 6}, "remark X"),
          S.Verdict("peer-corpus", "c.ll", "k3", "scalar-fault", {"scalar-fault": 2}, "divergence")]
    text = S.table(vs)
    assert "rodinia              2  not-vectorized 1, match 1 | not-vectorized 3, match 15" in text
    assert text.splitlines()[1].startswith("peer-corpus")
    assert "all                  3" in text
    lines = S.details(vs).splitlines()
    assert lines == ["scalar-fault      peer-corpus: c.ll:k3  divergence",
                     "not-vectorized    rodinia: b.ll:k2  remark X"]


def test_bad_usage_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert S.main(["--widths", "4,x"]) == 2
    assert S.main(["--widths", "0"]) == 2
    assert "bad --widths" in capsys.readouterr().err


def test_one_kernel_is_vectorized_and_judged(tmp_path: Path) -> None:
    text = """
declare void @_Z7barrierj(i32)
declare i64 @_Z12get_local_idj(i32)
declare i64 @_Z13get_global_idj(i32)
declare i64 @_Z14get_local_sizej(i32)

define spir_kernel void @rotate(ptr addrspace(1) %out, ptr addrspace(1) %in, ptr addrspace(3) %tile) {
entry:
  %lid = call i64 @_Z12get_local_idj(i32 0)
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %n = call i64 @_Z14get_local_sizej(i32 0)
  %pi = getelementptr float, ptr addrspace(1) %in, i64 %gid
  %x = load float, ptr addrspace(1) %pi, align 4
  %pt = getelementptr float, ptr addrspace(3) %tile, i64 %lid
  store float %x, ptr addrspace(3) %pt, align 4
  call void @_Z7barrierj(i32 1)
  %l1 = add i64 %lid, 1
  %j = urem i64 %l1, %n
  %pj = getelementptr float, ptr addrspace(3) %tile, i64 %j
  %y = load float, ptr addrspace(3) %pj, align 4
  %po = getelementptr float, ptr addrspace(1) %out, i64 %gid
  store float %y, ptr addrspace(1) %po, align 4
  ret void
}
"""
    path = tmp_path / "rotate.ll"
    path.write_text(text)
    v = S.survey_one(S.Target("test", path, "rotate"), [4])
    assert v.worst == "match", (v.statuses, v.detail)
    assert sum(v.statuses.values()) > 0
