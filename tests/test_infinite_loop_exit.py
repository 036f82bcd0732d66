"""Simplify Infinite Loop when the return block uses values computed after
the branch into the endless loop (found by the generator's guarded endless
loops, fuzz.cfg_shapes): the new exit edge must not break dominance."""

from __future__ import annotations

import llvmlite.binding as llvm

from vectorizer.ir import instructions as I
from vectorizer.ir import parse_module, print_module
from vectorizer.transform.simplify_infinite_loop import simplify_infinite_loops

# `done` (the return block after LLVM's mergereturn) stores %v, computed in
# `work`, which does not dominate the loop's latch `spin`.
KERNEL = """; vecz-case: 1
; kernel: k
; args: scalar:i32:5 buf:i32:64:random buf:i32:64:random
; ndrange: global=24,1,1 local=12,1,1
; widths: 1,4,8
; dims: 0
; choices:
; seed: 7
declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @k(i32 %n, ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %p, align 4
  %g = icmp eq i32 %n, 77
  br i1 %g, label %spin, label %work
spin:
  %i = phi i32 [ 0, %entry ], [ %i1, %spin ]
  %i1 = add i32 %i, 1
  store i32 %i1, ptr addrspace(1) %p, align 4
  br label %spin
work:
  %v = mul i32 %x, 3
  %c = icmp slt i32 %x, 0
  br i1 %c, label %then, label %done
then:
  %y = add i32 %v, 9
  %gid32 = add i64 %gid, 32
  %q2 = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid32
  store i32 %y, ptr addrspace(1) %q2, align 4
  br label %done
done:
  %r = phi i32 [ %y, %then ], [ %x, %work ]
  %s = add i32 %r, %v
  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %s, ptr addrspace(1) %q, align 4
  ret void
}
"""


def test_the_exit_goes_to_a_block_of_its_own_and_the_ir_verifies() -> None:
    module = parse_module(KERNEL)
    fn = next(f for f in module.functions if f.name == "k")
    assert simplify_infinite_loops(fn)
    llvm.parse_assembly(print_module(module)).verify()  # dominance included
    spin = next(b for b in fn.blocks if b.name == "spin")
    branch = spin.terminator
    assert isinstance(branch, I.BranchInst) and branch.is_conditional
    header, exit_ = branch.successors
    assert header is spin and exit_.name != "done"
    assert [type(i) for i in exit_.instructions] == [I.ReturnInst]

