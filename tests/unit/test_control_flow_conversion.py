"""Control-flow conversion: the converted scalar function (masked builtins at
one lane) computes what the original kernel does, work-item by work-item,
on hand-written divergent kernels and on generated ones."""

from __future__ import annotations

import pytest
from cfc_harness import CONVERTED, check_equivalent, convert

import fuzz
from vectorizer.builtins.masked import classify_masked_call
from vectorizer.ir import instructions as I
from vectorizer.ir import parse_module

HEAD = """; vecz-case: 1
; kernel: k
; args: buf:i32:64:random buf:i32:64:zero
; ndrange: global=16,1,1 local=8,1,1
"""
GID = "declare i64 @_Z13get_global_idj(i32)\n"

DIAMOND_LOOP = GID + """
define void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %p, align 4
  %odd = and i32 %x, 1
  %c = icmp eq i32 %odd, 0
  br i1 %c, label %then, label %else
then:
  %a = mul i32 %x, 3
  br label %join
else:
  %b = sub i32 0, %x
  br label %join
join:
  %v = phi i32 [ %a, %then ], [ %b, %else ]
  %n = and i32 %x, 7
  br label %loop
loop:
  %i = phi i32 [ 0, %join ], [ %i1, %latch ]
  %acc = phi i32 [ %v, %join ], [ %acc1, %latch ]
  %brk = icmp eq i32 %acc, 12345
  br i1 %brk, label %exit, label %latch
latch:
  %acc1 = add i32 %acc, %i
  %i1 = add i32 %i, 1
  %more = icmp slt i32 %i1, %n
  br i1 %more, label %loop, label %exit
exit:
  %r = phi i32 [ %acc, %loop ], [ %acc1, %latch ]
  %q = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %r, ptr addrspace(1) %q, align 4
  ret void
}
"""

EARLY_RETURN_NESTED = GID + """
define void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %p, align 4
  %neg = icmp slt i32 %x, 0
  br i1 %neg, label %done, label %outer
outer:
  %j = phi i32 [ 0, %entry ], [ %j1, %olatch ]
  %s = phi i32 [ 0, %entry ], [ %s2, %olatch ]
  %lim = and i32 %x, 3
  br label %inner
inner:
  %k = phi i32 [ 0, %outer ], [ %k1, %inner ]
  %s1 = phi i32 [ %s, %outer ], [ %s3, %inner ]
  %k1 = add i32 %k, 1
  %t = udiv i32 %x, %k1
  %s3 = add i32 %s1, %t
  %ik = icmp ult i32 %k1, %lim
  br i1 %ik, label %inner, label %olatch
olatch:
  %s2 = phi i32 [ %s3, %inner ]
  %j1 = add i32 %j, 1
  %oj = icmp ult i32 %j1, 3
  br i1 %oj, label %outer, label %store
store:
  %q = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %s2, ptr addrspace(1) %q, align 4
  br label %done
done:
  ret void
}
"""

# Guarded traps in divergent code and irreducible cycles (fuzz.cfg_shapes)
# are refused by control-flow conversion by design (the oracle tests check
# that refusal); these tests linearize what it accepts.
NO_RARE_SHAPES = {"cfg_shapes": 0.0, "irreducible": 0.0}


@pytest.mark.parametrize("src", [DIAMOND_LOOP, EARLY_RETURN_NESTED], ids=["diamond_loop", "early_return_nested"])
@pytest.mark.parametrize("vp", [False, True], ids=["", "vp"])
def test_hand_written_kernels_are_equivalent(src: str, vp: bool) -> None:
    out = check_equivalent(HEAD + src, vector_predication=vp)
    assert out.stats.get("linearized", 0) > 0


def test_no_varying_branch_remains_and_loops_branch_on_any() -> None:
    text, out = convert(HEAD + DIAMOND_LOOP, "k")
    fn = parse_module(text).get_function(CONVERTED)
    conds = [b.terminator.condition for b in fn.blocks if isinstance(b.terminator, I.BranchInst)
             and b.terminator.is_conditional]
    assert conds and all(classify_masked_call(c) is not None for c in conds)
    assert out.stats["divergent_loops"] == 1


@pytest.mark.parametrize("seed", range(12))
def test_generated_kernels_are_equivalent(seed: int) -> None:
    check_equivalent(fuzz.generate(seed, **NO_RARE_SHAPES))


@pytest.mark.parametrize("seed", range(100, 106))
def test_generated_kernels_are_equivalent_with_vector_predication(seed: int) -> None:
    check_equivalent(fuzz.generate(seed, **NO_RARE_SHAPES), vector_predication=True)
