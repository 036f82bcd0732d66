"""Divergence Analysis on small kernels: div_causing blocks, regions, blend
blocks, divergent loops and by_all blocks."""

from __future__ import annotations

from vectorizer.analysis.divergence import DivergenceAnalysis
from vectorizer.analysis.uniformity import UniformValueAnalysis
from vectorizer.ir import parse_module

SRC = """
declare i64 @_Z13get_global_idj(i32)

define void @k(ptr addrspace(1) %out, i32 %n) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %g = trunc i64 %gid to i32
  %c = icmp slt i32 %g, 4
  br i1 %c, label %then, label %join
then:
  %u = icmp sgt i32 %n, 0
  br i1 %u, label %uthen, label %join
uthen:
  br label %join
join:
  br label %uloop
uloop:
  %i = phi i32 [ 0, %join ], [ %i1, %uloop ]
  %i1 = add i32 %i, 1
  %ui = icmp slt i32 %i1, %n
  br i1 %ui, label %uloop, label %dloop
dloop:
  %j = phi i32 [ 0, %uloop ], [ %j1, %dloop ]
  %j1 = add i32 %j, 1
  %dj = icmp slt i32 %j1, %g
  br i1 %dj, label %dloop, label %exit
exit:
  %r = phi i32 [ %j1, %dloop ]
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %r, ptr addrspace(1) %p, align 4
  ret void
}
"""


def _analyse():
    fn = parse_module(SRC).get_function("k")
    uniform = UniformValueAnalysis(fn, 0)
    da = DivergenceAnalysis(fn, uniform)
    return fn, uniform, da, {b.name: b for b in fn.blocks}


def test_div_causing_region_and_blend() -> None:
    fn, uniform, da, b = _analyse()
    names = {x.name for x in da.div_causing}
    assert names == {"entry", "dloop"}
    assert {x.name for x in da.divergent_region(b["entry"])} == {"then", "uthen"}
    assert b["join"] in da.blend_blocks
    # The uniform branch inside the divergent region stays uniform.
    assert not da.is_div_causing(b["then"])


def test_divergent_loops_and_by_all() -> None:
    fn, uniform, da, b = _analyse()
    assert [lp.header.name for lp in da.divergent_loops] == ["dloop"]
    assert {x.name for x in da.by_all} == {"entry", "join", "uloop", "exit"}
    # The exit phi of the divergent loop merges lanes that left at different
    # iterations: varying.
    exit_phi = b["exit"].phis()[0]
    assert uniform.is_varying(exit_phi)
    assert uniform.is_uniform(b["uloop"].phis()[0])


# A uniform value stored into private memory by some lanes only: afterwards
# that memory differs between lanes, and so does a trip count loaded from
# it. (The store goes through a dynamic index, so SROA cannot promote it.)
PRIVATE_STORE = """; vecz-case: 1
; kernel: priv
; args: buf:i32:64:zero buf:i32:4:zero
; ndrange: global=64 local=16
; widths: 4,8
; seed: 1

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @priv(ptr addrspace(1) %out, ptr addrspace(1) %sel) {
entry:
  %arr = alloca [4 x i32], align 4
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %kp = getelementptr inbounds i32, ptr addrspace(1) %sel, i64 0
  %k = load i32, ptr addrspace(1) %kp, align 4
  %ki = and i32 %k, 3
  %ke = zext i32 %ki to i64
  %slot = getelementptr inbounds [4 x i32], ptr %arr, i64 0, i64 %ke
  store i32 0, ptr %slot, align 4
  %kp1 = getelementptr inbounds i32, ptr addrspace(1) %sel, i64 1
  %k1 = load i32, ptr addrspace(1) %kp1, align 4
  %k1i = and i32 %k1, 3
  %k1e = zext i32 %k1i to i64
  %slot1 = getelementptr inbounds [4 x i32], ptr %arr, i64 0, i64 %k1e
  %kp2 = getelementptr inbounds i32, ptr addrspace(1) %sel, i64 2
  %k2 = load i32, ptr addrspace(1) %kp2, align 4
  %k2i = and i32 %k2, 3
  %k2e = zext i32 %k2i to i64
  %slot2 = getelementptr inbounds [4 x i32], ptr %arr, i64 0, i64 %k2e
  %odd = and i64 %gid, 1
  %c = icmp ne i64 %odd, 0
  br i1 %c, label %then, label %join
then:
  store i32 5, ptr %slot1, align 4
  br label %join
join:
  %n0 = load i32, ptr %slot2, align 4
  %n = add i32 %n0, %k1i
  br label %loop
loop:
  %i = phi i32 [ 0, %join ], [ %i.next, %body ]
  %acc = phi i32 [ 0, %join ], [ %acc.next, %body ]
  %more = icmp slt i32 %i, %n
  br i1 %more, label %body, label %exit
body:
  %acc.next = add i32 %acc, 3
  %i.next = add i32 %i, 1
  br label %loop
exit:
  %op = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %acc, ptr addrspace(1) %op, align 4
  ret void
}
"""


def test_a_store_in_a_divergent_block_makes_private_memory_varying() -> None:
    fn = parse_module(PRIVATE_STORE.split("\n\n", 1)[1]).get_function("priv")
    uniform = UniformValueAnalysis(fn, 0)
    [arr] = [i for i in fn.instructions() if i.name == "arr"]
    assert uniform.is_uniform(arr)  # only uniform values are ever stored
    da = DivergenceAnalysis(fn, uniform)
    assert uniform.is_varying(arr)
    [loop] = [b for b in fn.blocks if b.name == "loop"]
    assert da.is_div_causing(loop)


def test_a_trip_count_from_divergently_written_private_memory_matches() -> None:
    import oracle

    report = oracle.check(PRIVATE_STORE)
    assert report.results and all(r.status == "match" for r in report.results), report.results


def test_a_masked_load_does_not_make_private_memory_varying() -> None:
    """Only writes make private memory per-lane: a masked load of it (a call
    with a varying mask after control-flow conversion) does not."""
    src = """
declare i64 @_Z13get_global_idj(i32)
declare float @__vecz_b_masked_load4_f32_p0(ptr, i1)

define void @k(ptr addrspace(1) %out) {
entry:
  %a = alloca [2 x float], align 4
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %odd = trunc i64 %gid to i1
  %v = call float @__vecz_b_masked_load4_f32_p0(ptr %a, i1 %odd)
  %w = load float, ptr %a, align 4
  ret void
}
"""
    fn = parse_module(src).get_function("k")
    uniform = UniformValueAnalysis(fn, 0)
    [a] = [i for i in fn.instructions() if i.name == "a"]
    [w] = [i for i in fn.instructions() if i.name == "w"]
    assert uniform.is_uniform(a) and uniform.is_uniform(w)
