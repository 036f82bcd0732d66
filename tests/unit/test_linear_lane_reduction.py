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
