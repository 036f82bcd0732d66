"""Clamp Versioning: loads at clamped coordinates get a contiguous fast path,
and the result is what the scalar kernel computes, at the border too."""

from __future__ import annotations

import re

import oracle
from vectorizer import llvm_bridge, vectorize
from vectorizer.transform.clamp_versioning import prune_implied_conditions

# out[x] = in[max(x-1, 0)] + 2 in[x] + in[min(x+1, n-1)] + in[clamp(x+2, 0, n-1)], n = global size
BLUR = """; vecz-case: 1
; kernel: blur
; args: buf:f32:64:zero buf:f32:64
; ndrange: global=37 local=37
; ndrange: global=64 local=16
; widths: 1,4,8,16
; seed: 3

declare i64 @_Z13get_global_idj(i32)
declare i64 @_Z15get_global_sizej(i32)
declare i32 @llvm.smax.i32(i32, i32)
declare i32 @llvm.smin.i32(i32, i32)

define spir_kernel void @blur(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %size = call i64 @_Z15get_global_sizej(i32 0)
  %n = trunc i64 %size to i32
  %x = trunc i64 %gid to i32
  %last = add nsw i32 %n, -1
  %xm = add nsw i32 %x, -1
  %xm.c = call i32 @llvm.smax.i32(i32 %xm, i32 0)
  %xp = add nsw i32 %x, 1
  %xp.c = call i32 @llvm.smin.i32(i32 %xp, i32 %last)
  %x2 = add nsw i32 %x, 2
  %x2.lo = call i32 @llvm.smax.i32(i32 %x2, i32 0)
  %x2.c = call i32 @llvm.smin.i32(i32 %x2.lo, i32 %last)
  %im = sext i32 %xm.c to i64
  %pm = getelementptr inbounds float, ptr addrspace(1) %in, i64 %im
  %a = load float, ptr addrspace(1) %pm, align 4
  %p0 = getelementptr inbounds float, ptr addrspace(1) %in, i64 %gid
  %b = load float, ptr addrspace(1) %p0, align 4
  %ip = sext i32 %xp.c to i64
  %pp = getelementptr inbounds float, ptr addrspace(1) %in, i64 %ip
  %c = load float, ptr addrspace(1) %pp, align 4
  %i2 = sext i32 %x2.c to i64
  %p2 = getelementptr inbounds float, ptr addrspace(1) %in, i64 %i2
  %d = load float, ptr addrspace(1) %p2, align 4
  %b2 = fmul float %b, 2.0
  %s1 = fadd float %a, %b2
  %s2 = fadd float %s1, %c
  %s = fadd float %s2, %d
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %gid
  store float %s, ptr addrspace(1) %po, align 4
  ret void
}
"""


def _ir() -> str:
    return BLUR.split("\n\n", 1)[1]


def test_clamped_loads_get_a_contiguous_fast_path() -> None:
    r = vectorize(_ir(), kernel="blur", width=8)
    assert r.stats["clamp_versioned_loads"] == 3
    body = r.ir.split("@__vecz_v8_blur(", 1)[1].split("\n}\n", 1)[0]
    # Four contiguous loads: the centre tap and the three of the fast path.
    assert body.count("load <8 x float>") == 4
    assert body.count("llvm.masked.gather") == 3  # the slow path, at the border
    # The three taps share one check and one branch.
    assert body.count("\nclamp.fast") == 1 and body.count("\nclamp.slow") == 1


def test_versioned_kernel_matches_scalar_across_the_border() -> None:
    # 37 work-items: packets straddle both edges and the last is partial.
    report = oracle.check(BLUR)
    assert report.results and {x.status for x in report.results} == {"match"}, report.results


def test_a_varying_bound_is_not_versioned() -> None:
    # The bound is loaded per lane: the clamp may bind differently in every lane.
    ir = _ir().replace(
        "%last = add nsw i32 %n, -1",
        "%pl = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %gid\n  %last = load i32, ptr addrspace(1) %pl, align 4",
    )
    r = vectorize(ir, kernel="blur", width=8)
    assert r.stats["clamp_versioned_loads"] == 1  # only max(x-1, 0) keeps a uniform bound


def test_a_stencils_checks_are_pruned_to_the_outer_taps() -> None:
    # clamp(x + c, 0, n - 1) for c = -2..2: `x >= 2` and `x + 2 <= n - 1` imply the rest.
    # The indices first, then the loads (as LLVM leaves a stencil): one group.
    taps = "\n".join(
        f"  %t{i} = add nsw i32 %x, {c}\n"
        f"  %t{i}.lo = call i32 @llvm.smax.i32(i32 %t{i}, i32 0)\n"
        f"  %t{i}.c = call i32 @llvm.smin.i32(i32 %t{i}.lo, i32 %last)\n"
        f"  %i{i} = sext i32 %t{i}.c to i64"
        for i, c in enumerate(range(-2, 3))
    ) + "\n" + "\n".join(
        f"  %p{i} = getelementptr inbounds float, ptr addrspace(1) %in, i64 %i{i}\n"
        f"  %v{i} = load float, ptr addrspace(1) %p{i}, align 4\n"
        f"  %s{i + 1} = fadd float %s{i}, %v{i}"
        for i in range(5)
    )
    ir = f"""declare i64 @_Z13get_global_idj(i32)
declare i32 @llvm.smax.i32(i32, i32)
declare i32 @llvm.smin.i32(i32, i32)

define spir_kernel void @taps(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %n) {{
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %x = trunc i64 %gid to i32
  %last = add nsw i32 %n, -1
  %s0 = fadd float 0.0, 0.0
{taps}
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %gid
  store float %s5, ptr addrspace(1) %po, align 4
  ret void
}}
"""
    r = vectorize(ir, kernel="taps", width=8)
    assert r.stats["clamp_versioned_loads"] == 5
    body = r.ir.split("@__vecz_v8_taps(", 1)[1].split("\nclamp.fast", 1)[0]
    # Before the branch: no vector compare, one test of each end of the packet.
    assert "x i1>" not in body
    # (each end: its bound and whether the packet wraps; 10 conditions before pruning)
    assert len(re.findall(r"= icmp ", body)) <= 4, body
    # The fast path's taps are byte offsets from one base: -8, -4, 4, 8.
    fast = r.ir.split("\nclamp.fast:", 1)[1].split("\nclamp.slow", 1)[0]
    assert sorted(int(m) for m in re.findall(r"getelementptr i8, ptr addrspace\(1\) %\S+, i64 (-?\d+)", fast)) == [-8, -4, 4, 8]
    case = "; vecz-case: 1\n; kernel: taps\n; args: buf:f32:64:zero buf:f32:64 scalar:i32:64\n"
    case += "; ndrange: global=64 local=16\n; ndrange: global=29 local=29\n; widths: 4,8,16\n; seed: 5\n\n" + ir
    report = oracle.check(case)
    assert report.results and {x.status for x in report.results} == {"match"}, report.results


def test_pruning_keeps_the_order_that_guards_poison() -> None:
    # The upper check on a relaxed clone first, then the lower check that
    # guards it: moving the upper check to the front would drop its guard.
    ir = llvm_bridge.canonicalize(b"""
define void @f(i32 %x, i32 %n) {
  %a = add nsw i32 %x, -2
  %b = add nsw i32 %x, 2
  %lo1 = icmp sge i32 %x, 2
  %up1 = icmp sle i32 %a, %n
  %up2 = icmp sle i32 %b, %n
  %lo2 = icmp sge i32 %x, -2
  ret void
}
""")
    from vectorizer.ir.parser import parse_module

    fn = parse_module(ir).get_function("f")
    lo1, up1, up2, lo2 = [i for i in fn.instructions() if i.opcode == "icmp"]
    # Ordered lower, upper, upper, lower: both groups prune.
    assert prune_implied_conditions([lo1, up1, up2, lo2], set()) == [lo1, up2]
    # The upper group's kept check (x + 2) came after a lower check of
    # another base the new place would precede: that group stays whole.
    other = [i for i in fn.instructions() if i.opcode == "icmp"]
    assert prune_implied_conditions([up1, lo1, up2], set()) == [up1, lo1, up2]
    assert other
