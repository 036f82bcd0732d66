"""Launch inference with the work-group shape a kernel assumes
(oracle.local_size, issue 16): tiles, flattened local ids, required sizes,
and one group where the kernel never tells groups apart."""

from __future__ import annotations

from pathlib import Path

import oracle
from oracle.case import Case
from oracle.infer import infer_case
from oracle.local_size import local_shape

KERNELS = Path(__file__).parent / "kernels"

DECLS = """
declare i64 @_Z12get_local_idj(i32)
declare i64 @_Z12get_group_idj(i32)
declare i64 @_Z13get_global_idj(i32)
declare void @_Z7barrierj(i32)
"""

# A 16x4 tile, filled by [lid(1)][lid(0)] and read mirrored after a barrier;
# each group writes its 64 elements at get_group_id(0) * 64 + flat id.
TILE = """
@k.t = internal addrspace(3) global [4 x [16 x float]] undef, align 4

define spir_kernel void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %lx = call i64 @_Z12get_local_idj(i32 0)
  %ly = call i64 @_Z12get_local_idj(i32 1)
  %g = call i64 @_Z12get_group_idj(i32 0)
  %row = shl i64 %ly, 4
  %flat = add i64 %lx, %row
  %base = shl i64 %g, 6
  %i = add i64 %base, %flat
  %p = getelementptr inbounds float, ptr addrspace(1) %in, i64 %i
  %v = load float, ptr addrspace(1) %p, align 4
  %r = getelementptr inbounds [16 x float], ptr addrspace(3) @k.t, i64 %ly
  %s = getelementptr inbounds float, ptr addrspace(3) %r, i64 %lx
  store float %v, ptr addrspace(3) %s, align 4
  call void @_Z7barrierj(i32 1)
  %my = sub i64 3, %ly
  %mx = sub i64 15, %lx
  %q = getelementptr inbounds [4 x [16 x float]], ptr addrspace(3) @k.t, i64 0, i64 %my, i64 %mx
  %w = load float, ptr addrspace(3) %q, align 4
  %o = getelementptr inbounds float, ptr addrspace(1) %out, i64 %i
  store float %w, ptr addrspace(1) %o, align 4
  ret void
}
""" + DECLS

REQD = """
define spir_kernel void @k(ptr addrspace(1) %out) !reqd_work_group_size !0 {
entry:
  %x = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %x
  store i32 1, ptr addrspace(1) %p, align 4
  ret void
}
!0 = !{i32 8, i32 1, i32 1}
""" + DECLS

# Only local ids: every group would write the same elements.
LOCAL_ONLY = """
define spir_kernel void @k(ptr addrspace(1) %out) {
entry:
  %x = call i64 @_Z12get_local_idj(i32 0)
  %p = getelementptr inbounds i64, ptr addrspace(1) %out, i64 %x
  store i64 %x, ptr addrspace(1) %p, align 8
  call void @_Z7barrierj(i32 1)
  ret void
}
""" + DECLS

PLAIN = """
define spir_kernel void @k(ptr addrspace(1) %out) {
entry:
  %x = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr inbounds i64, ptr addrspace(1) %out, i64 %x
  store i64 %x, ptr addrspace(1) %p, align 8
  ret void
}
""" + DECLS


def _ndranges(text: str) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    case = infer_case(Case(text))
    return [(nd.global_size[: nd.work_dim], nd.local_size[: nd.work_dim]) for nd in case.ndranges]


def test_tile_gives_its_shape() -> None:
    shape = local_shape(TILE, "k")
    assert shape.size == {0: 16, 1: 4}, shape.reasons
    assert all(loc == (16, 4) for _g, loc in _ndranges(TILE))
    # Groups along x only where the kernel tells them apart (group id 0 only).
    assert all(g[1] == 4 for g, _loc in _ndranges(TILE))


def test_tile_kernel_matches_at_its_shape() -> None:
    rep = oracle.check(TILE, widths=[4, 8])
    assert rep.results and rep.summary == {"match": len(rep.results)}, rep.results
    assert {tuple(r.local_size) for r in rep.results} == {(16, 4)}


def test_required_work_group_size_is_used() -> None:
    assert {loc for _g, loc in _ndranges(REQD)} == {(8,)}
    assert local_shape(REQD, "k").reasons == ["reqd_work_group_size(8,1,1)"]


def test_local_ids_only_run_as_one_group() -> None:
    nds = _ndranges(LOCAL_ONLY)
    assert nds and all(g == loc for g, loc in nds), nds
    # The generic local sizes still vary (a multiple of W, a remainder, 1).
    assert sorted(loc for _g, loc in nds) == [(1,), (12,), (16,)]
    rep = oracle.check_scalar(LOCAL_ONLY)
    assert rep.summary == {"match": len(rep.results)}, rep.results


def test_no_hint_keeps_the_generic_launches() -> None:
    assert not local_shape(PLAIN, "k")
    assert _ndranges(PLAIN) == [((64,), (16,)), ((36,), (12,)), ((3,), (1,))]


def test_an_input_verdict_under_an_inferred_launch_says_how_it_was_chosen() -> None:
    rep = oracle.check_scalar((KERNELS / "racy_counter.ll").read_text())
    races = [r for r in rep.results if r.status == "scalar-race"]
    assert races, rep.results
    assert "[inferred launch (" in races[0].detail and "`ndrange:`" in races[0].detail, races[0].detail


# A 32x8 tile with a one-cell halo in a [10 x [34 x float]] array: clang
# reaches the halo rows by byte offsets from a row pointer and a phi of two
# rows, which the rules do not follow. Taking the bounds they did see gave
# 33x10, a launch at which the kernel's own halo writes race.
HALO = """
@h.t = internal addrspace(3) global [10 x [34 x float]] undef, align 4

define spir_kernel void @h(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %lx = call i64 @_Z12get_local_idj(i32 0)
  %ly = call i64 @_Z12get_local_idj(i32 1)
  %g = call i64 @_Z13get_global_idj(i32 0)
  %row = getelementptr [34 x float], ptr addrspace(3) @h.t, i64 %ly
  %row1 = getelementptr i8, ptr addrspace(3) %row, i64 136
  %lx1 = add i64 %lx, 1
  %p = getelementptr inbounds float, ptr addrspace(3) %row1, i64 %lx1
  %pin = getelementptr float, ptr addrspace(1) %in, i64 %g
  %v = load float, ptr addrspace(1) %pin, align 4
  store float %v, ptr addrspace(3) %p, align 4
  call void @_Z7barrierj(i32 1)
  %row2 = getelementptr i8, ptr addrspace(3) %row, i64 272
  %q = getelementptr inbounds float, ptr addrspace(3) %row2, i64 %lx1
  %w = load float, ptr addrspace(3) %q, align 4
  %pout = getelementptr float, ptr addrspace(1) %out, i64 %g
  store float %w, ptr addrspace(1) %pout, align 4
  ret void
}
""" + DECLS


def test_a_tile_reached_by_offsets_the_rules_do_not_follow_gives_no_size() -> None:
    shape = local_shape(HALO, "h")
    assert shape.size == {}, shape.reasons


def test_the_bench_halo_stencil_keeps_the_generic_launch_and_matches() -> None:
    bench = Path(__file__).parents[2] / "bench" / "kernels" / "workgroup" / "stencil_halo.ll"
    text = bench.read_text()
    assert local_shape(text, "stencil_halo").size == {}
    rep = oracle.check(text, kernel="stencil_halo", widths=[8])
    assert rep.results and all(r.status == "match" for r in rep.results), rep.summary
