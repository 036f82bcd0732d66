"""Builtin Inlining names continuation blocks once, however many calls a
block holds: a name grown by a suffix per call passed LLVM's limit on PoCL's
test_as_type (2,309 characters) and valid input was rejected."""

from __future__ import annotations

from vectorizer import llvm_bridge, vectorize
from vectorizer.ir import parse_module
from vectorizer.transform.builtin_inlining import inline_calls

CALLS = 200  # under MAX_INLINED_CALLS, and 9 characters a call past LLVM's 1024


def _kernel() -> str:
    body = "\n".join(
        f"  %v{i} = call i32 @helper(i32 %x)\n  store volatile i32 %v{i}, ptr addrspace(1) %p" for i in range(CALLS)
    )
    return f"""
declare i64 @_Z13get_global_idj(i32)

define internal i32 @helper(i32 %a) {{
entry:
  %c = icmp sgt i32 %a, 3
  br i1 %c, label %big, label %small
big:
  ret i32 1
small:
  ret i32 2
}}

define spir_kernel void @k(ptr addrspace(1) %out) {{
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %x = trunc i64 %gid to i32
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %gid
{body}
  ret void
}}
"""


def test_many_inlined_calls_in_one_block_keep_short_block_names() -> None:
    mod = parse_module(llvm_bridge.canonicalize(_kernel()))
    fn = mod.get_function("k")
    assert inline_calls(fn, mod) == CALLS
    names = [b.name for b in fn.blocks if b.name]
    assert len(names) > 2 * CALLS
    assert max(len(n) for n in names) < 64


def test_such_a_kernel_vectorizes() -> None:
    r = vectorize(_kernel(), kernel="k", width=4)
    assert r.vectorized_name, r.remarks
