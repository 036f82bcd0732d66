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


# Each work-item stages 4 consecutive elements of its group's 256 (`group *
# 256 + lid * 4 + j`) into a tile and writes them back reversed: the group
# is 64 work-items.
STRIDED = """
@s.t = internal addrspace(3) global [256 x float] undef, align 4

define spir_kernel void @s(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %l = call i64 @_Z12get_local_idj(i32 0)
  %g = call i64 @_Z12get_group_idj(i32 0)
  %gb = shl i64 %g, 8
  %l4 = shl i64 %l, 2
  %base = add i64 %gb, %l4
  br label %load
load:
  %j = phi i64 [ 0, %entry ], [ %j1, %load ]
  %e = add i64 %base, %j
  %p = getelementptr float, ptr addrspace(1) %in, i64 %e
  %v = load float, ptr addrspace(1) %p, align 4
  %ti = add i64 %l4, %j
  %tp = getelementptr inbounds float, ptr addrspace(3) @s.t, i64 %ti
  store float %v, ptr addrspace(3) %tp, align 4
  %j1 = add i64 %j, 1
  %more = icmp ult i64 %j1, 4
  br i1 %more, label %load, label %sync
sync:
  call void @_Z7barrierj(i32 1)
  br label %store
store:
  %k = phi i64 [ 0, %sync ], [ %k1, %store ]
  %f = add i64 %base, %k
  %lk = add i64 %l4, %k
  %ri = sub i64 255, %lk
  %rp = getelementptr inbounds float, ptr addrspace(3) @s.t, i64 %ri
  %w = load float, ptr addrspace(3) %rp, align 4
  %q = getelementptr float, ptr addrspace(1) %out, i64 %f
  store float %w, ptr addrspace(1) %q, align 4
  %k1 = add i64 %k, 1
  %again = icmp ult i64 %k1, 4
  br i1 %again, label %store, label %done
done:
  ret void
}
""" + DECLS


def test_a_group_spanning_s_elements_k_per_work_item_has_s_over_k() -> None:
    shape = local_shape(STRIDED, "s")
    assert shape.size == {0: 64}, shape.reasons
    assert {loc for _g, loc in _ndranges(STRIDED)} == {(64,)}
    rep = oracle.check_scalar(STRIDED)
    assert rep.summary == {"match": len(rep.results)}, rep.results


# A group split in two at 8: the first half stages a row, the second (with
# `lid - 8`) a column, into local buffers given as arguments (no tile type
# to read a size from).
SPLIT = """
define spir_kernel void @sp(ptr addrspace(1) %m, ptr addrspace(3) %row, ptr addrspace(3) %col) {
entry:
  %l = call i64 @_Z12get_local_idj(i32 0)
  %g = call i64 @_Z12get_group_idj(i32 0)
  %gb = shl i64 %g, 4
  %first = icmp ult i64 %l, 8
  br i1 %first, label %r, label %c
r:
  %ri = add i64 %gb, %l
  %rp = getelementptr float, ptr addrspace(1) %m, i64 %ri
  %rv = load float, ptr addrspace(1) %rp, align 4
  %rt = getelementptr float, ptr addrspace(3) %row, i64 %l
  store float %rv, ptr addrspace(3) %rt, align 4
  br label %sync
c:
  %ci = add i64 %l, -8
  %cj = add i64 %gb, %l
  %cp = getelementptr float, ptr addrspace(1) %m, i64 %cj
  %cv = load float, ptr addrspace(1) %cp, align 4
  %ct = getelementptr float, ptr addrspace(3) %col, i64 %ci
  store float %cv, ptr addrspace(3) %ct, align 4
  br label %sync
sync:
  call void @_Z7barrierj(i32 1)
  ret void
}
""" + DECLS


def test_a_split_at_c_with_lid_minus_c_takes_two_halves() -> None:
    assert local_shape(SPLIT, "sp").size == {0: 16}
    assert {loc for _g, loc in _ndranges(SPLIT)} == {(16,)}
    # Where a tile indexed by the local id is smaller than the two halves,
    # the tile wins.
    small = SPLIT.replace("define spir_kernel", "@sp.t = internal addrspace(3) global [12 x float] undef\n"
                          "define spir_kernel").replace(
        "  br label %sync\nc:", "  %tt = getelementptr float, ptr addrspace(3) @sp.t, i64 %l\n"
        "  store float %rv, ptr addrspace(3) %tt, align 4\n  br label %sync\nc:")
    assert local_shape(small, "sp").size == {0: 12}


# Work-items in warps of 32 (`lid >> 5`, `get_local_size(0) / 32`), each
# warp summing its lanes' values: the size is a multiple of 32, not 16.
WARPS = """
@w.t = internal addrspace(3) global [512 x i32] undef, align 4

define spir_kernel void @w(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %x = call i64 @_Z13get_global_idj(i32 0)
  %l = call i64 @_Z12get_local_idj(i32 0)
  %ls = call i64 @_Z14get_local_sizej(i32 0)
  %warps = lshr i64 %ls, 5
  %warp = lshr i64 %l, 5
  %p = getelementptr i32, ptr addrspace(1) %in, i64 %x
  %v = load i32, ptr addrspace(1) %p, align 4
  %tp = getelementptr inbounds i32, ptr addrspace(3) @w.t, i64 %x
  store i32 %v, ptr addrspace(3) %tp, align 4
  call void @_Z7barrierj(i32 1)
  %lane = and i64 %l, 31
  %first = icmp eq i64 %lane, 0
  br i1 %first, label %sum, label %done
sum:
  %g = call i64 @_Z12get_group_idj(i32 0)
  %gw = mul i64 %g, %warps
  %o = add i64 %gw, %warp
  %q = getelementptr i32, ptr addrspace(1) %out, i64 %o
  store i32 %v, ptr addrspace(1) %q, align 4
  br label %done
done:
  ret void
}
declare i64 @_Z14get_local_sizej(i32)
""" + DECLS


def test_work_items_in_sets_larger_than_the_generic_size_give_the_size() -> None:
    shape = local_shape(WARPS, "w")
    assert shape.size == {0: 32}, shape.reasons
    assert {loc for _g, loc in _ndranges(WARPS)} == {(32,)}
    # A set no larger than the generic local size (which it divides) says nothing.
    assert local_shape(WARPS.replace("lshr i64 %l, 5", "lshr i64 %l, 2").replace("lshr i64 %ls, 5", "lshr i64 %ls, 2"),
                       "w").size == {}


# A 32x16 tile filled at `b_s + lid(0)` plus `lid(1) * 128` bytes (clang's
# form of `b_s[lid(0) + lid(1) * 32]`): the byte offset is a flattened local
# id the rules follow, so the tile gives both sizes.
FLAT_BYTES = """
@f.b = internal addrspace(3) global [512 x float] undef, align 4

define spir_kernel void @f(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %lx = call i64 @_Z12get_local_idj(i32 0)
  %ly = call i64 @_Z12get_local_idj(i32 1)
  %gx = call i64 @_Z13get_global_idj(i32 0)
  %gy = call i64 @_Z13get_global_idj(i32 1)
  %row = shl i64 %gy, 6
  %i = add i64 %row, %gx
  %p = getelementptr float, ptr addrspace(1) %in, i64 %i
  %v = load float, ptr addrspace(1) %p, align 4
  %c = getelementptr float, ptr addrspace(3) @f.b, i64 %lx
  %off = shl i64 %ly, 7
  %t = getelementptr i8, ptr addrspace(3) %c, i64 %off
  store float %v, ptr addrspace(3) %t, align 4
  call void @_Z7barrierj(i32 1)
  %q = getelementptr float, ptr addrspace(1) %out, i64 %i
  store float %v, ptr addrspace(1) %q, align 4
  ret void
}
""" + DECLS


def test_a_flattened_byte_offset_into_a_tile_is_followed() -> None:
    assert local_shape(FLAT_BYTES, "f").size == {0: 32, 1: 16}


# A group of 64 work-items, flattened with get_local_size(0) (`group * 64 +
# lid(1) * get_local_size(0) + lid(0)`): 64 in all, the IR does not say
# how many along x; the generic 16 along x, 4 along y.
DYN_FLAT = """
define spir_kernel void @d(ptr addrspace(1) %out) {
entry:
  %ly = call i64 @_Z12get_local_idj(i32 1)
  %ls = call i64 @_Z14get_local_sizej(i32 0)
  %row = mul i64 %ls, %ly
  %lx = call i64 @_Z12get_local_idj(i32 0)
  %flat = add i64 %row, %lx
  %g = call i64 @_Z12get_group_idj(i32 0)
  %gb = shl i64 %g, 6
  %i = add i64 %gb, %flat
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %i
  store i32 1, ptr addrspace(1) %p, align 4
  call void @_Z7barrierj(i32 1)
  ret void
}
declare i64 @_Z14get_local_sizej(i32)
""" + DECLS


def test_a_group_of_s_work_items_flattened_with_the_local_size() -> None:
    assert local_shape(DYN_FLAT, "d").size == {0: 16, 1: 4}
    rep = oracle.check_scalar(DYN_FLAT)
    assert rep.summary == {"match": len(rep.results)}, rep.results


# The work-items of a group take turns through a 96-element tile, 32 apart
# (`for (i = lid; i < 96; i += 32)`), then each writes one element after a
# barrier: the group is 32 work-items (at 16, a third of the tile is left
# alone).
STEPS = """
@t.acc = internal addrspace(3) global [96 x i32] undef, align 4

define spir_kernel void @t(ptr addrspace(1) %out) {
entry:
  %l = call i64 @_Z12get_local_idj(i32 0)
  %g = call i64 @_Z12get_group_idj(i32 0)
  %l32 = trunc i64 %l to i32
  br label %loop
loop:
  %i = phi i32 [ %l32, %entry ], [ %next, %loop ]
  %ix = zext i32 %i to i64
  %p = getelementptr inbounds i32, ptr addrspace(3) @t.acc, i64 %ix
  %v = load i32, ptr addrspace(3) %p, align 4
  %v1 = add i32 %v, 1
  store i32 %v1, ptr addrspace(3) %p, align 4
  %next = add nuw nsw i32 %i, 32
  %more = icmp ult i32 %next, 96
  br i1 %more, label %loop, label %sync
sync:
  call void @_Z7barrierj(i32 1)
  %gb = shl i64 %g, 5
  %o = add i64 %gb, %l
  %r = getelementptr inbounds i32, ptr addrspace(3) @t.acc, i64 %l
  %w = load i32, ptr addrspace(3) %r, align 4
  %q = getelementptr i32, ptr addrspace(1) %out, i64 %o
  store i32 %w, ptr addrspace(1) %q, align 4
  ret void
}
""" + DECLS


def test_a_loop_from_the_local_id_in_steps_of_c_gives_c() -> None:
    shape = local_shape(STEPS, "t")
    assert shape.size == {0: 32}, shape.reasons  # before the 96-element tile's bound
    rep = oracle.check_scalar(STEPS)
    assert rep.summary == {"match": len(rep.results)}, rep.results
