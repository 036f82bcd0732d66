"""Clamp Versioning: loads at clamped coordinates get a contiguous fast path,
and the result is what the scalar kernel computes, at the border too."""

from __future__ import annotations

import oracle
from vectorizer import vectorize

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
