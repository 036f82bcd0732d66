"""Barrier Analysis and Barrier-Uniform Branches: which varying branches a
barrier makes uniform at run time, and what is refused."""

from __future__ import annotations

import pytest

from vectorizer import llvm_bridge, vectorize
from vectorizer.analysis.barriers import barrier_calls, barrier_uniform_branches
from vectorizer.analysis.uniformity import UniformValueAnalysis
from vectorizer.ir import parse_module

HEAD = """
declare i64 @_Z12get_local_idj(i32)
declare void @_Z7barrierj(i32)
"""

IF_BARRIER = HEAD + """
define spir_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %flags) {
entry:
  %lid = call i64 @_Z12get_local_idj(i32 0)
  %fp = getelementptr i32, ptr addrspace(1) %flags, i64 %lid
  %f = load i32, ptr addrspace(1) %fp
  %c = icmp ne i32 %f, 0
  br i1 %c, label %then, label %end
then:
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %lid
  store i32 1, ptr addrspace(1) %p
  call void @_Z7barrierj(i32 1)
  br label %end
end:
  ret void
}
"""

LOOP_BARRIER = HEAD + """
define spir_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %n) {
entry:
  %lid = call i64 @_Z12get_local_idj(i32 0)
  %np = getelementptr i32, ptr addrspace(1) %n, i64 %lid
  %trip = load i32, ptr addrspace(1) %np
  %any = icmp sgt i32 %trip, 0
  br i1 %any, label %body, label %end
body:
  %i = phi i32 [ 0, %entry ], [ %i1, %body ]
  call void @_Z7barrierj(i32 1)
  %i1 = add i32 %i, 1
  %go = icmp slt i32 %i1, %trip
  br i1 %go, label %body, label %end
end:
  ret void
}
"""

# A divergent loop followed by a barrier: every work-item reaches the
# barrier however often it went round, so the loop's exit tells nothing.
LOOP_THEN_BARRIER = HEAD + """
define spir_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %n) {
entry:
  %lid = call i64 @_Z12get_local_idj(i32 0)
  %np = getelementptr i32, ptr addrspace(1) %n, i64 %lid
  %trip = load i32, ptr addrspace(1) %np
  br label %body
body:
  %i = phi i32 [ 0, %entry ], [ %i1, %body ]
  %i1 = add i32 %i, 1
  %go = icmp slt i32 %i1, %trip
  br i1 %go, label %body, label %after
after:
  call void @_Z7barrierj(i32 1)
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %lid
  store i32 %i1, ptr addrspace(1) %p
  ret void
}
"""

# The barrier runs only where two varying conditions both hold: neither
# alone is known to be uniform.
NESTED = HEAD + """
define spir_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b) {
entry:
  %lid = call i64 @_Z12get_local_idj(i32 0)
  %ap = getelementptr i32, ptr addrspace(1) %a, i64 %lid
  %av = load i32, ptr addrspace(1) %ap
  %c1 = icmp ne i32 %av, 0
  br i1 %c1, label %mid, label %end
mid:
  %bp = getelementptr i32, ptr addrspace(1) %b, i64 %lid
  %bv = load i32, ptr addrspace(1) %bp
  %c2 = icmp ne i32 %bv, 0
  br i1 %c2, label %bar, label %end
bar:
  call void @_Z7barrierj(i32 1)
  br label %end
end:
  ret void
}
"""


def _claimed(text: str) -> list[str]:
    mod = parse_module(llvm_bridge.canonicalize(text))
    fn = mod.get_function("k")
    return [b.name for b in barrier_uniform_branches(fn, UniformValueAnalysis(fn, 0))]


def test_a_barrier_inside_an_if_makes_its_condition_uniform() -> None:
    assert _claimed(IF_BARRIER) == ["entry"]


def test_a_barrier_in_a_loop_makes_the_loop_branches_uniform() -> None:
    assert _claimed(LOOP_BARRIER) == ["entry", "body"]


def test_a_barrier_after_a_divergent_loop_claims_nothing() -> None:
    assert _claimed(LOOP_THEN_BARRIER) == []


def test_a_barrier_under_two_varying_conditions_claims_only_the_inner_one() -> None:
    # c2 decides the barrier once c1 held; c1 alone does not.
    assert _claimed(NESTED) == ["mid"]


@pytest.mark.parametrize("choices", ["", "VectorPredication", "LinearizeBOSCC"])
def test_vectorized_barrier_kernels_keep_one_barrier_per_barrier(choices: str) -> None:
    for text in (IF_BARRIER, LOOP_BARRIER, LOOP_THEN_BARRIER):
        r = vectorize(text, kernel="k", width=8, choices=choices)
        assert r.vectorized_name, r.remarks
        mod = parse_module(r.ir)
        scalar = len(barrier_calls(mod.get_function("k")))
        assert len(barrier_calls(mod.get_function(r.vectorized_name))) == scalar


def test_a_barrier_left_under_varying_control_flow_is_refused_with_a_remark() -> None:
    r = vectorize(NESTED, kernel="k", width=8)
    assert r.vectorized_name is None
    assert any("barrier in block" in m and "varying control flow" in m for m in r.remarks), r.remarks
