"""Safe Lane Addressing: without fast gathers, a masked gather (scatter)
becomes an unmasked one whose inactive lanes load from a safe slot (store
into a sink), and the kernel still computes what the scalar kernel does,
even where inactive lanes' addresses point nowhere."""

from __future__ import annotations

import re

import pytest

import oracle
from vectorizer import ir, vectorize
from vectorizer.analysis.data_layout import DataLayout
from vectorizer.choices import parse_choices
from vectorizer.pipeline import KernelRequest, vectorize_kernel
from vectorizer.target import TargetInfo
from vectorizer.transform.safe_lane_addressing import address_lanes_safely

# if (key < 128) out = x[key/2] + x[key/2 + 7], else 0. An inactive lane's
# index is at least 10^8 elements away: loading it would fault.
CASE = """; vecz-case: 1
; kernel: pick
; args: buf:f32:64:zero buf:i32:64:mod256 buf:f32:72
; ndrange: global=64 local=16
; ndrange: global=37 local=37
; seed: 11

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @pick(ptr addrspace(1) %out, ptr addrspace(1) %key, ptr addrspace(1) %x) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %kp = getelementptr inbounds i32, ptr addrspace(1) %key, i64 %gid
  %k = load i32, ptr addrspace(1) %kp, align 4
  %c = icmp ult i32 %k, 128
  br i1 %c, label %then, label %end
then:
  %half = lshr i32 %k, 1
  %hi = lshr i32 %k, 7
  %far = mul i32 %hi, 100000000
  %j = add i32 %half, %far
  %je = zext i32 %j to i64
  %xp = getelementptr inbounds float, ptr addrspace(1) %x, i64 %je
  %a = load float, ptr addrspace(1) %xp, align 4
  %xp7 = getelementptr inbounds float, ptr addrspace(1) %xp, i64 7
  %b = load float, ptr addrspace(1) %xp7, align 4
  %s = fadd float %a, %b
  br label %end
end:
  %r = phi float [ %s, %then ], [ 0.0, %entry ]
  %op = getelementptr inbounds float, ptr addrspace(1) %out, i64 %gid
  store float %r, ptr addrspace(1) %op, align 4
  ret void
}
"""

SLOW = TargetInfo("test", "", 256, fast_gather=False)
FAST = TargetInfo("test", "", 256, fast_gather=True)


def _vectorize(width: int, target: TargetInfo, case: str = CASE, kernel: str = "pick") -> tuple[str, str, dict]:
    text = ir.print_module(ir.parse_module(case.split("\n\n", 1)[1]))
    out, outcome = vectorize_kernel(text, KernelRequest(kernel, width, 0, parse_choices("")), target)
    assert outcome.vectorized_name, outcome.remarks
    return out, outcome.vectorized_name, outcome.stats


def test_masked_gathers_get_safe_addresses_without_fast_gathers() -> None:
    out, name, stats = _vectorize(8, SLOW)
    assert stats["safe_addressed_accesses"] == 2
    assert "@__vecz_b_safe_slot_p1 = internal unnamed_addr addrspace(1) constant [64 x i8]" in out
    gathers = re.findall(r"call <8 x float> @llvm\.masked\.gather\.v8f32\.v8p1\(([^\n]*)\)", out)
    assert len(gathers) == 2
    assert all("<8 x i1> splat (i1 true)" in g for g in gathers)
    assert re.search(r"select <8 x i1> %\S+, <8 x ptr addrspace\(1\)> %\S+, <8 x ptr addrspace\(1\)> "
                     r"(splat \()?<?ptr addrspace\(1\) @__vecz_b_safe_slot_p1", out)


def test_fast_gathers_keep_their_mask() -> None:
    out, _, stats = _vectorize(8, FAST)
    assert stats["safe_addressed_accesses"] == 0
    assert "__vecz_b_safe_slot" not in out
    gathers = re.findall(r"call <8 x float> @llvm\.masked\.gather\.v8f32\.v8p1\(([^\n]*)\)", out)
    assert gathers and not any("splat (i1 true)" in g for g in gathers)


@pytest.mark.parametrize("target", [SLOW, FAST], ids=["safe-addressed", "masked"])
@pytest.mark.parametrize("width", [4, 8, 16])
def test_gather_results_match_the_scalar_kernel(width: int, target: TargetInfo) -> None:
    out, name, _ = _vectorize(width, target)
    header = CASE.split("\n\n", 1)[0]
    report = oracle.check(header + "\n\n" + out, widths=[width], vectorized=name)
    assert report.results and all(r.status == "match" for r in report.results), report.results


PASSTHRU = """
define <4 x float> @f(<4 x ptr> %p, <4 x i1> %m, <4 x float> %old) {
  %v = call <4 x float> @llvm.masked.gather.v4f32.v4p0(<4 x ptr> align 4 %p, <4 x i1> %m, <4 x float> %old)
  %w = fadd <4 x float> %v, %v
  ret <4 x float> %w
}
declare <4 x float> @llvm.masked.gather.v4f32.v4p0(<4 x ptr>, <4 x i1>, <4 x float>)
"""


def test_a_pass_through_value_is_restored_in_inactive_lanes() -> None:
    module = ir.parse_module(PASSTHRU)
    fn = module.get_function("f")
    assert address_lanes_safely(fn, module, DataLayout.parse(None)) == 1
    text = ir.print_module(module)
    assert re.search(r"%v = call <4 x float> @llvm\.masked\.gather\.v4f32\.v4p0\(<4 x ptr> align 4 %safe\.ptrs, "
                     r"<4 x i1> splat \(i1 true\), <4 x float> poison\)", text)
    assert re.search(r"%(\S+) = select <4 x i1> %m, <4 x float> %v, <4 x float> %old\n\s+%w = fadd <4 x float> %\1, %\1",
                     text)


# if (key < 128) out[(5 gid) mod 64 (+ 10^8 when key >= 128)] = key: a
# scatter (a permutation: no two work-items meet) whose inactive lanes point
# nowhere.
SCATTER = """; vecz-case: 1
; kernel: put
; args: buf:i32:64:zero buf:i32:64:mod256
; ndrange: global=64 local=16
; ndrange: global=37 local=37
; seed: 5

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @put(ptr addrspace(1) %out, ptr addrspace(1) %key) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %kp = getelementptr inbounds i32, ptr addrspace(1) %key, i64 %gid
  %k = load i32, ptr addrspace(1) %kp, align 4
  %c = icmp ult i32 %k, 128
  br i1 %c, label %then, label %end
then:
  %g = trunc i64 %gid to i32
  %g5 = mul i32 %g, 5
  %mate = and i32 %g5, 63
  %hi = lshr i32 %k, 7
  %far = mul i32 %hi, 100000000
  %j = add i32 %mate, %far
  %je = zext i32 %j to i64
  %op = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %je
  store i32 %k, ptr addrspace(1) %op, align 4
  br label %end
end:
  ret void
}
"""


def test_masked_scatters_store_inactive_lanes_into_the_sink() -> None:
    out, _, stats = _vectorize(8, SLOW, SCATTER, "put")
    assert stats["safe_addressed_accesses"] == 1
    assert "@__vecz_b_sink_slot_p1 = internal addrspace(1) global [64 x i8]" in out
    scatters = re.findall(r"call void @llvm\.masked\.scatter\.v8i32\.v8p1\(([^\n]*)\)", out)
    assert len(scatters) == 1 and "<8 x i1> splat (i1 true)" in scatters[0]
    assert re.search(r"select <8 x i1> %\S+, <8 x ptr addrspace\(1\)> %\S+, <8 x ptr addrspace\(1\)> "
                     r"(splat \()?<?ptr addrspace\(1\) @__vecz_b_sink_slot_p1", out)


@pytest.mark.parametrize("target", [SLOW, FAST], ids=["sink-addressed", "masked"])
@pytest.mark.parametrize("width", [4, 8, 16])
def test_scatter_results_match_the_scalar_kernel(width: int, target: TargetInfo) -> None:
    out, name, _ = _vectorize(width, target, SCATTER, "put")
    header = SCATTER.split("\n\n", 1)[0]
    report = oracle.check(header + "\n\n" + out, widths=[width], vectorized=name)
    assert report.results and all(r.status == "match" for r in report.results), report.results


# Per-lane masked loads (the loaded value feeds an atomic made lane by lane):
# inactive lanes' indices run past the end of `x`.
PER_LANE_LOADS = """; vecz-case: 1
; kernel: conv
; args: buf:i32:64:zero buf:i32:64:mod256 buf:i32:72
; ndrange: global=64 local=16
; ndrange: global=37 local=37
; seed: 7

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @conv(ptr addrspace(1) %out, ptr addrspace(1) %key, ptr addrspace(1) %x) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %kp = getelementptr inbounds i32, ptr addrspace(1) %key, i64 %gid
  %k = load i32, ptr addrspace(1) %kp, align 4
  %c = icmp ult i32 %k, 128
  br i1 %c, label %then, label %end
then:
  %half = lshr i32 %k, 1
  %hi = lshr i32 %k, 7
  %far = mul i32 %hi, 100000000
  %j = add i32 %half, %far
  %je = zext i32 %j to i64
  %xp = getelementptr inbounds i32, ptr addrspace(1) %x, i64 %je
  %a = load i32, ptr addrspace(1) %xp, align 4
  %g = trunc i64 %gid to i32
  %g5 = mul i32 %g, 5
  %mate = and i32 %g5, 63
  %o = add i32 %mate, %far
  %oe = zext i32 %o to i64
  %op = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %oe
  %old = atomicrmw add ptr addrspace(1) %op, i32 %a monotonic, align 4
  br label %end
end:
  ret void
}
"""

# A store to a uniform, wild address in a block no work-item reaches: the
# vectorized kernel runs it (linearized) with no lane active.
UNIFORM_STORE = """; vecz-case: 1
; kernel: flag
; args: buf:i32:64:zero buf:i32:64:mod256 buf:i32:64:mod100 scalar:i64:100000000
; ndrange: global=64 local=16
; ndrange: global=37 local=37
; seed: 9

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @flag(ptr addrspace(1) %out, ptr addrspace(1) %key, ptr addrspace(1) %other, i64 %wild) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %kp = getelementptr inbounds i32, ptr addrspace(1) %key, i64 %gid
  %k = load i32, ptr addrspace(1) %kp, align 4
  %c = icmp ult i32 %k, 128
  br i1 %c, label %then, label %end
then:
  %q = getelementptr inbounds i32, ptr addrspace(1) %other, i64 %gid
  %o = load i32, ptr addrspace(1) %q, align 4
  %c2 = icmp eq i32 %o, 12345
  br i1 %c2, label %never, label %mid
never:
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %wild
  store i32 7, ptr addrspace(1) %p, align 4
  br label %mid
mid:
  %op = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %k, ptr addrspace(1) %op, align 4
  br label %end
end:
  ret void
}
"""


def test_per_lane_masked_loads_become_loads_through_a_select() -> None:
    r = vectorize(PER_LANE_LOADS.split("\n\n", 1)[1], kernel="conv", width=4)
    assert r.vectorized_name and r.stats["safe_addressed_accesses"] >= 4
    assert len(re.findall(r"select i1 %\S+, ptr addrspace\(1\) %\S+, ptr addrspace\(1\) @__vecz_b_safe_slot_p1\n"
                          r"\s+%a(\.l\d)? = load i32, ptr addrspace\(1\) %safe\.ptr", r.ir)) == 4
    assert "__vecz_b_masked_load" not in r.ir  # the builtin nothing calls is gone


def test_a_uniform_masked_store_writes_the_sink_when_no_lane_is_active() -> None:
    r = vectorize(UNIFORM_STORE.split("\n\n", 1)[1], kernel="flag", width=4)
    assert re.search(r"%(safe\.ptr\S*) = select i1 %\S+, ptr addrspace\(1\) @__vecz_b_sink_slot_p1, "
                     r"ptr addrspace\(1\) %p\n\s+store i32 7, ptr addrspace\(1\) %\1, align 4", r.ir)


@pytest.mark.parametrize("case", [PER_LANE_LOADS, UNIFORM_STORE], ids=["per-lane-loads", "uniform-store"])
@pytest.mark.parametrize("choices", ["", "LinearizeBOSCC"])
def test_scalar_masked_accesses_match_the_scalar_kernel(case: str, choices: str) -> None:
    report = oracle.check(case, widths=[4, 8, 16], choices=[choices])
    assert report.results and all(r.status == "match" for r in report.results), report.results


def test_a_gather_claiming_more_alignment_than_the_slot_keeps_its_mask() -> None:
    module = ir.parse_module(PASSTHRU.replace("align 4 %p", "align 128 %p"))
    fn = module.get_function("f")
    assert address_lanes_safely(fn, module, DataLayout.parse(None)) == 0
    assert "<4 x i1> %m, <4 x float> %old" in ir.print_module(module)
