"""Launch inference gives integer scalars roles read from the IR
(oracle.infer.scalar_roles, issue 16): a bound that decides whether a
barrier is reached takes every NDRange's extent, a row stride the number of
work-items. They are the last candidate the reference tries, after the
uniform ones (every integer the extent, then the number of work-items)."""

from __future__ import annotations

import oracle
from oracle.case import Case
from oracle.infer import infer_case, scalar_roles

DECLS = """
declare i64 @_Z12get_local_idj(i32)
declare i64 @_Z13get_global_idj(i32)
declare void @_Z7barrierj(i32)
"""

# Work-items past `n` return before the barrier (barrier divergence unless
# every group is whole); `k` offsets a read into a 24-element array, so the
# uniform candidates (k = the extent) read past it and k must stay small.
GUARDED = """
@g.t = internal addrspace(3) global [16 x float] undef, align 4
@g.u = internal addrspace(3) global [24 x float] undef, align 4

define spir_kernel void @g(ptr addrspace(1) %in, ptr addrspace(1) %out, i32 %n, i32 %k) {
entry:
  %x = call i64 @_Z13get_global_idj(i32 0)
  %l = call i64 @_Z12get_local_idj(i32 0)
  %x32 = trunc i64 %x to i32
  %inside = icmp slt i32 %x32, %n
  br i1 %inside, label %work, label %done
work:
  %p = getelementptr float, ptr addrspace(1) %in, i64 %x
  %v = load float, ptr addrspace(1) %p, align 4
  %tp = getelementptr inbounds float, ptr addrspace(3) @g.t, i64 %l
  store float %v, ptr addrspace(3) %tp, align 4
  %up = getelementptr inbounds float, ptr addrspace(3) @g.u, i64 %l
  store float %v, ptr addrspace(3) %up, align 4
  call void @_Z7barrierj(i32 1)
  %k64 = sext i32 %k to i64
  %i = add i64 %l, %k64
  %rp = getelementptr inbounds float, ptr addrspace(3) @g.u, i64 %i
  %w = load float, ptr addrspace(3) %rp, align 4
  %q = getelementptr float, ptr addrspace(1) %out, i64 %x
  store float %w, ptr addrspace(1) %q, align 4
  br label %done
done:
  ret void
}
""" + DECLS


def _scalars(case: Case) -> list[str]:
    return [a.value for a in case.args if a.kind == "scalar"]


def test_a_bound_guarding_a_barrier_takes_every_extent() -> None:
    assert scalar_roles(GUARDED, "g", ["%n", "%k"]) == {"%n": "bound"}
    case = infer_case(Case(GUARDED))
    extent = max(nd.offset[0] + nd.global_size[0] for nd in case.ndranges)
    assert _scalars(case) == [str(extent), "1"]
    assert "%n = " in case.launch_note
    rep = oracle.check_scalar(GUARDED)
    assert rep.summary == {"match": len(rep.results)}, rep.results
    # Where the barrier is reached either way, the comparison is no bound.
    after = GUARDED.replace("  call void @_Z7barrierj(i32 1)\n", "").replace(
        "done:\n  ret void", "done:\n  call void @_Z7barrierj(i32 1)\n  ret void")
    assert scalar_roles(after, "g", ["%n", "%k"]) == {}


# Each 8x4 group writes 32 consecutive elements of a row, `out[g1 * ldc +
# g0 * 32 + flat local id]` (Parboil's SGEMM output): ldc must hold the 32
# of every group along x, more than the extent along x or any multiple of
# the local size the mixes try; `s` shifts a read into a 12-element array,
# so the uniform candidates (s = the extent or more) read past it.
STRIDED = """
@s.t = internal addrspace(3) global [4 x [8 x float]] undef, align 4
@s.v = internal addrspace(3) global [12 x float] undef, align 4

define spir_kernel void @s(ptr addrspace(1) %out, i32 %ldc, i32 %s) {
entry:
  %g0 = call i64 @_Z12get_group_idj(i32 0)
  %g1 = call i64 @_Z12get_group_idj(i32 1)
  %lx = call i64 @_Z12get_local_idj(i32 0)
  %ly = call i64 @_Z12get_local_idj(i32 1)
  %tp = getelementptr inbounds [8 x float], ptr addrspace(3) @s.t, i64 %ly, i64 %lx
  %f = uitofp i64 %lx to float
  store float %f, ptr addrspace(3) %tp, align 4
  %vp = getelementptr inbounds float, ptr addrspace(3) @s.v, i64 %lx
  store float %f, ptr addrspace(3) %vp, align 4
  call void @_Z7barrierj(i32 1)
  %s64 = sext i32 %s to i64
  %i = add i64 %lx, %s64
  %rp = getelementptr inbounds float, ptr addrspace(3) @s.v, i64 %i
  %v = load float, ptr addrspace(3) %rp, align 4
  %ld = sext i32 %ldc to i64
  %rowoff = mul i64 %g1, %ld
  %gx = shl i64 %g0, 5
  %fy = shl i64 %ly, 3
  %flat = add i64 %fy, %lx
  %m = add i64 %gx, %flat
  %o = add i64 %rowoff, %m
  %q = getelementptr float, ptr addrspace(1) %out, i64 %o
  %mf = uitofp i64 %g1 to float
  %w = fadd float %v, %mf
  store float %w, ptr addrspace(1) %q, align 4
  ret void
}
declare i64 @_Z12get_group_idj(i32)
""" + DECLS


def test_a_row_stride_takes_the_number_of_work_items() -> None:
    assert scalar_roles(STRIDED, "s", ["%ldc", "%s"]) == {"%ldc": "stride"}
    case = infer_case(Case(STRIDED))
    assert {nd.local_size[:2] for nd in case.ndranges} == {(8, 4)}
    total = max(nd.offset[0] + nd.total for nd in case.ndranges)
    assert _scalars(case) == [str(total), "1"]
    rep = oracle.check_scalar(STRIDED)
    assert rep.summary == {"match": len(rep.results)}, rep.results


def test_a_scalar_multiplying_a_dimension_0_id_is_no_row_stride() -> None:
    one_d = STRIDED.replace("mul i64 %g1, %ld", "mul i64 %g0, %ld")
    assert scalar_roles(one_d, "s", ["%ldc", "%s"]) == {}


# The first 4 work-items exchange values through a barrier; the others do
# not reach it: defined only where every group lies on one side of 4.
SPLIT_AT_4 = """
@f.t = internal addrspace(3) global [4 x i32] undef, align 4

define spir_kernel void @f(ptr addrspace(1) %out) {
entry:
  %x = call i64 @_Z13get_global_idj(i32 0)
  %l = call i64 @_Z12get_local_idj(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %x
  %few = icmp ult i64 %x, 4
  br i1 %few, label %swap, label %done
swap:
  %x32 = trunc i64 %x to i32
  %li = and i64 %l, 3
  %tp = getelementptr inbounds i32, ptr addrspace(3) @f.t, i64 %li
  store i32 %x32, ptr addrspace(3) %tp, align 4
  call void @_Z7barrierj(i32 1)
  %o = xor i64 %li, 1
  %op = getelementptr inbounds i32, ptr addrspace(3) @f.t, i64 %o
  %v = load i32, ptr addrspace(3) %op, align 4
  store i32 %v, ptr addrspace(1) %p, align 4
  br label %done
done:
  ret void
}
""" + DECLS


def test_a_global_id_split_guarding_a_barrier_gives_a_dividing_local_size() -> None:
    from oracle.infer import guard_splits

    assert guard_splits(SPLIT_AT_4, "f") == {0: {4}}
    case = infer_case(Case(SPLIT_AT_4))
    assert {nd.local_size[0] for nd in case.ndranges} == {4}
    rep = oracle.check_scalar(SPLIT_AT_4)
    assert rep.summary == {"match": len(rep.results)}, rep.results
    # A split no local size from 2 to 16 divides leaves the generic sizes
    # (and the kernel's barrier divergence is its own).
    odd = SPLIT_AT_4.replace("icmp ult i64 %x, 4", "icmp ult i64 %x, 17")
    assert {nd.local_size[0] for nd in infer_case(Case(odd)).ndranges} == {16, 12, 1}
