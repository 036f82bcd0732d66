"""Uniformity and stride of work-item queries whose dimension is a run-time value."""

from __future__ import annotations

import pytest

from vectorizer import llvm_bridge
from vectorizer.analysis.data_layout import DataLayout
from vectorizer.analysis.stride import Pattern, StrideAnalysis
from vectorizer.analysis.uniformity import UniformValueAnalysis, runtime_dimension
from vectorizer.ir import parse_module

KERNEL = """
declare i64 @_Z13get_global_idj(i32)
declare i64 @_Z12get_local_idj(i32)
declare i64 @_Z12get_group_idj(i32)
declare i64 @_Z14get_local_sizej(i32)
declare i64 @__mux_get_global_id(i64)
define void @k(ptr %out, i32 %d, i64 %d64) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 %d)
  %lid = call i64 @_Z12get_local_idj(i32 %d)
  %mux = call i64 @__mux_get_global_id(i64 %d64)
  %grp = call i64 @_Z12get_group_idj(i32 %d)
  %lsz = call i64 @_Z14get_local_sizej(i32 %d)
  %const = call i64 @_Z13get_global_idj(i32 1)
  %x = add nsw i64 %gid, 4
  %p = getelementptr i32, ptr %out, i64 %x
  store i32 0, ptr %p, align 4
  %s = add i64 %grp, %lsz
  %q = getelementptr i64, ptr %out, i64 %s
  store i64 %lid, ptr %q, align 8
  store i64 %mux, ptr %q, align 8
  store i64 %const, ptr %q, align 8
  ret void
}
"""


def _analyses(dim: int):
    module = parse_module(llvm_bridge.canonicalize(KERNEL))
    fn = module.get_function("k")
    uniform = UniformValueAnalysis(fn, dim)
    stride = StrideAnalysis(uniform, DataLayout.parse(None))
    return uniform, stride, {i.name: i for i in fn.instructions() if i.name}


@pytest.mark.parametrize("dim", [0, 1, 2])
def test_runtime_dimension_ids_vary_without_a_stride(dim: int) -> None:
    uniform, stride, v = _analyses(dim)
    for name in ("gid", "lid", "mux", "x", "p"):
        assert uniform.is_varying(v[name]), name
        # Stride 1 only if the run-time dimension is `dim`, 0 otherwise.
        assert stride.info(v[name]).pattern is Pattern.DIVERGENT, name
    assert runtime_dimension(v["gid"]) is v["gid"].args[0]
    assert runtime_dimension(v["mux"]) is v["mux"].args[0]


@pytest.mark.parametrize("dim", [0, 1, 2])
def test_dimension_queries_other_than_ids_are_uniform(dim: int) -> None:
    # A packet never leaves a work-group: group ids and sizes are the same in
    # every lane whatever the dimension asked.
    uniform, stride, v = _analyses(dim)
    for name in ("grp", "lsz", "s", "q"):
        assert uniform.is_uniform(v[name]), name
        assert stride.info(v[name]).is_uniform, name
    assert runtime_dimension(v["grp"]) is None
    assert runtime_dimension(v["const"]) is None


def test_constant_dimension_ids_keep_their_stride() -> None:
    uniform, stride, v = _analyses(1)
    assert stride.info(v["const"]).constant_stride == 1
    uniform, stride, v = _analyses(0)
    assert uniform.is_uniform(v["const"])
