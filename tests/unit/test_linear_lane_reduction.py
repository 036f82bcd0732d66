"""Linear Lane Reduction: `all`/`any` of a bounds check on a linear value is
answered from the packet's extreme lanes, exactly, wrap-around included."""

from __future__ import annotations

import pytest

import oracle
from vectorizer import vectorize

# Work-items whose x + k is above 100 return early (ROSCC asks whether all
# lanes do); the others store 1.
EARLY_RETURN = """declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @early(ptr addrspace(1) %out, i32 %k) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %x = trunc i64 %gid to i32
  %v = add i32 %x, %k
  %c = icmp sgt i32 %v, 100
  br i1 %c, label %done, label %work

work:
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 1, ptr addrspace(1) %p, align 4
  br label %done

done:
  ret void
}
"""


def _case(k: int) -> str:
    return (f"; vecz-case: 1\n; kernel: early\n; args: buf:i32:32:zero scalar:i32:{k}\n"
            "; ndrange: global=32 local=32\n; widths: 4,8,16\n; seed: 1\n\n" + EARLY_RETURN)


def test_the_all_lanes_test_is_scalar() -> None:
    r = vectorize(EARLY_RETURN, kernel="early", width=8)
    entry = r.ir.split("@__vecz_v8_early(", 1)[1].split("\nwork:", 1)[0]
    assert "br i1" in entry
    assert "llvm.vector.reduce" not in entry and " x i" not in entry, entry


@pytest.mark.parametrize("k", [
    2147483645,  # x + k wraps from INT_MAX to INT_MIN inside the first packet
    2147483600,  # wraps in a later packet
    -2147483647,  # far below the bound, no wrap
    90,  # crosses the bound inside a packet
    200,  # every lane returns
])
def test_the_answer_is_exact_where_the_lanes_wrap(k: int) -> None:
    # Lanes INT_MAX-2, INT_MAX-1, INT_MAX, INT_MIN, ...: the first lane alone
    # is above 100, so an answer from lane 0 without the wrap would skip the
    # stores of the wrapped lanes.
    report = oracle.check(_case(k))
    assert report.results and {x.status for x in report.results} == {"match"}, (k, report.results)


# Two clamped loads on x + 1 in the arms of a uniform branch: two reductions
# of the same linear value, neither dominating the other.
TWO_ARMS = """declare i64 @_Z13get_global_idj(i32)
declare i32 @llvm.smin.i32(i32, i32)

define spir_kernel void @arms(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %n, i32 %sel) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %x = trunc i64 %gid to i32
  %last = add nsw i32 %n, -1
  %xp = add nsw i32 %x, 1
  %c = icmp sgt i32 %sel, 5
  br i1 %c, label %left, label %right

left:
  %il = call i32 @llvm.smin.i32(i32 %xp, i32 %last)
  %il64 = sext i32 %il to i64
  %pl = getelementptr inbounds float, ptr addrspace(1) %in, i64 %il64
  %vl = load float, ptr addrspace(1) %pl, align 4
  br label %join

right:
  %ir = call i32 @llvm.smin.i32(i32 %xp, i32 %last)
  %ir64 = sext i32 %ir to i64
  %pr = getelementptr inbounds float, ptr addrspace(1) %in, i64 %ir64
  %vr0 = load float, ptr addrspace(1) %pr, align 4
  %vr = fadd float %vr0, 1.0
  br label %join

join:
  %v = phi float [ %vl, %left ], [ %vr, %right ]
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %gid
  store float %v, ptr addrspace(1) %po, align 4
  ret void
}
"""


@pytest.mark.parametrize("sel", [9, 0])
def test_reductions_in_sibling_blocks_each_build_their_own_ends(sel: int) -> None:
    r = vectorize(TWO_ARMS, kernel="arms", width=8)
    assert r.vectorized_name and r.stats["clamp_versioned_loads"] == 2
    case = (f"; vecz-case: 1\n; kernel: arms\n; args: buf:f32:40:zero buf:f32:40 scalar:i32:40 scalar:i32:{sel}\n"
            "; ndrange: global=40 local=40\n; widths: 4,8,16\n; seed: 3\n\n" + TWO_ARMS)
    report = oracle.check(case)
    assert report.results and {x.status for x in report.results} == {"match"}, report.results
