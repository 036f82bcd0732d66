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
