"""Analysis verification (`verify_analyses`, vectorizer/verification/): each
checker accepts the analyses as computed and rejects a deliberately wrong
result built here directly; the pipeline reports a mismatch as a
VectorizerBug naming the analysis."""

from __future__ import annotations

import pytest
from cfg_fixtures import FIXTURES, fixture, random_cfgs
from hypothesis import given, settings

from vectorizer import llvm_bridge, vectorize
from vectorizer.analysis.block_ordering import dominance_compact_order
from vectorizer.analysis.data_layout import DataLayout
from vectorizer.analysis.dominance import DominatorTree
from vectorizer.analysis.instantiation import InstantiationAnalysis
from vectorizer.analysis.loops import LoopInfo
from vectorizer.analysis.packetization import PacketizationAnalysis
from vectorizer.analysis.post_dominance import VIRTUAL_EXIT, PostDominatorTree
from vectorizer.analysis.reachability import Reachability
from vectorizer.analysis.stride import StrideAnalysis
from vectorizer.analysis.uniformity import UniformValueAnalysis
from vectorizer.ir import parse_module
from vectorizer.pipeline import AnalysisVerificationError, VectorizerBug
from vectorizer.transform.builtin_inlining import inline_call
from vectorizer.verification import AnalysisMismatch, AnalysisVerifier
from vectorizer.verification.calls import (
    check_recursive_calls_kept,
    recursive_calls,
    recursive_functions,
)
from vectorizer.verification.cfg import (
    RefGraph,
    check_block_ordering,
    check_cfg_analyses,
    check_dominators,
    check_loops,
    check_post_dominators,
    check_reachability,
)
from vectorizer.verification.layout import check_data_layout
from vectorizer.verification.postconditions import (
    check_no_dead_code,
    check_packetization_values,
    check_phis,
    check_terminators,
    check_uniformity,
)

# ------------------------------------------------------------ CFG analyses


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_cfg_checkers_accept_the_analyses_on_every_fixture(name: str) -> None:
    check_cfg_analyses(fixture(name))


@settings(max_examples=60, deadline=None)
@given(random_cfgs())
def test_cfg_checkers_accept_the_analyses_on_random_cfgs(fn) -> None:
    check_cfg_analyses(fn)


def test_a_cfg_shape_is_checked_once_until_the_analysis_code_changes(monkeypatch) -> None:
    """The hook remembers the shapes whose CFG analyses passed (the requests
    of one kernel share them); new code, or another shape, is checked again."""
    from collections import OrderedDict

    from vectorizer.verification import hook

    checked = []
    monkeypatch.setattr(hook, "_CHECKED_CFGS", OrderedDict())
    monkeypatch.setattr(hook, "check_cfg_analyses", checked.append)
    first, second = fixture("diamond"), fixture("diamond")
    hook.check_cfg_once(first)
    hook.check_cfg_once(second)
    assert checked == [first]
    hook.check_cfg_once(fixture("if_then"))
    assert len(checked) == 2
    monkeypatch.setattr(PostDominatorTree, "ipdom", lambda self, b: None)
    hook.check_cfg_once(second)
    assert checked[-1] is second
    monkeypatch.undo()
    # With the real check: a wrong analysis is reported on a shape that passed before.
    hook.check_cfg_once(fixture("multiple_returns"))
    monkeypatch.setattr(PostDominatorTree, "ipdom", lambda self, b: None)
    with pytest.raises(AnalysisMismatch, match="PostDominatorTree"):
        hook.check_cfg_once(fixture("multiple_returns"))


def test_a_wrong_immediate_dominator_is_reported() -> None:
    fn = fixture("diamond")
    dt = DominatorTree(fn)
    dt.idom = lambda b: fn["a"] if b is fn["m"] else DominatorTree.idom(dt, b)  # m's idom is entry
    with pytest.raises(AnalysisMismatch, match=r"DominatorTree.*idom\(%m\) is %a, expected %entry"):
        check_dominators(RefGraph(fn), dt)


def test_a_wrong_immediate_post_dominator_is_reported() -> None:
    fn = fixture("multiple_returns")
    pdt = PostDominatorTree(fn)
    assert pdt.has_virtual_exit
    check_post_dominators(RefGraph(fn), pdt)
    pdt.ipdom = lambda b: None  # every block a root
    with pytest.raises(AnalysisMismatch, match=r"PostDominatorTree.*ipdom\(%entry\) is None"):
        check_post_dominators(RefGraph(fn), pdt)


def test_a_missing_virtual_exit_is_reported() -> None:
    fn = fixture("infinite_loop_and_return")
    pdt = PostDominatorTree(fn)
    assert pdt.ipdom(VIRTUAL_EXIT) is None
    check_post_dominators(RefGraph(fn), pdt)

    class NoVirtualExit(PostDominatorTree):
        @property
        def has_virtual_exit(self) -> bool:
            return False

    with pytest.raises(AnalysisMismatch, match="has_virtual_exit is False, expected True"):
        check_post_dominators(RefGraph(fn), NoVirtualExit(fn))


def test_a_post_dominator_tree_that_crashes_is_reported() -> None:
    fn = fixture("multiple_returns")
    pdt = PostDominatorTree(fn)

    def broken(block):
        raise IndexError("list index out of range")

    pdt.ipdom = broken
    with pytest.raises(AnalysisMismatch, match="raised IndexError"):
        check_post_dominators(RefGraph(fn), pdt)


def test_a_wrong_loop_depth_is_reported() -> None:
    fn = fixture("nested_loops")
    info = LoopInfo(fn)
    inner = [lp for lp in info.loops if lp.parent is not None][0]
    check_loops(RefGraph(fn), info.domtree, info)
    inner.depth += 1
    with pytest.raises(AnalysisMismatch, match=r"LoopInfo.*depth 3, expected 2"):
        check_loops(RefGraph(fn), info.domtree, info)


def test_missing_irreducible_regions_are_reported() -> None:
    fn = fixture("irreducible")
    info = LoopInfo(fn)
    check_loops(RefGraph(fn), info.domtree, info)
    info.irreducible_regions = []
    with pytest.raises(AnalysisMismatch, match="is_reducible is True, expected False"):
        check_loops(RefGraph(fn), info.domtree, info)


def test_an_order_with_an_unreachable_block_or_without_a_reachable_one_is_reported() -> None:
    fn = fixture("unreachable_blocks")
    good = dominance_compact_order(fn)
    check_block_ordering(RefGraph(fn), lambda: good)
    with pytest.raises(AnalysisMismatch, match="3 entries .* for 2 reachable blocks"):
        check_block_ordering(RefGraph(fn), lambda: [*good, fn["dead"]])
    with pytest.raises(AnalysisMismatch, match="1 entries .* for 2 reachable blocks"):
        check_block_ordering(RefGraph(fn), lambda: good[:1])


def test_an_order_splitting_a_loop_is_reported() -> None:
    fn = fixture("nested_loops")
    good = dominance_compact_order(fn)
    bad = [good[0], *reversed(good[1:])]
    with pytest.raises(AnalysisMismatch, match="dominance_compact_order"):
        check_block_ordering(RefGraph(fn), lambda: bad)


def test_wrong_reachability_is_reported() -> None:
    fn = fixture("diamond")
    check_reachability(RefGraph(fn))

    class SelfReaching(Reachability):
        def reaches(self, a, b) -> bool:
            return a is b or super().reaches(a, b)

    with pytest.raises(AnalysisMismatch, match=r"reaches\(%entry, %entry\) is True, expected False"):
        check_reachability(RefGraph(fn), lambda blocked: SelfReaching(fn, blocked))


# ----------------------------------------------------------- data layout

STRUCTS = """
target datalayout = "e-m:e-i64:64-f80:128-n8:16:32:64-S128"
%struct.S = type { i8, i32, <3 x float>, %struct.T, double }
%struct.T = type <{ i8, double }>
define void @k(ptr %p) {
entry:
  %a = alloca [2 x { i16, i64 }], align 8
  ret void
}
"""


def _layout_module():
    module = parse_module(llvm_bridge.canonicalize(STRUCTS))
    return module, module.get_function("k")


@pytest.fixture(autouse=True)
def _fresh_layout_memory(monkeypatch) -> None:
    """The checker remembers the types it checked, per process: start empty."""
    from vectorizer.verification import layout

    monkeypatch.setattr(layout, "_CHECKED", set())


def test_data_layout_agrees_with_llvm() -> None:
    module, fn = _layout_module()
    check_data_layout(module, fn, DataLayout.parse(module.datalayout), module.datalayout)


def test_a_wrong_field_offset_is_reported() -> None:
    module, fn = _layout_module()

    class PackedByMistake(DataLayout):
        def field_offset(self, ty, index):
            return 0 if index == 1 else super().field_offset(ty, index)

    layout = PackedByMistake.parse(module.datalayout)
    with pytest.raises(AnalysisMismatch, match=r"DataLayout.*field 1 at offset 0, LLVM says"):
        check_data_layout(module, fn, layout, module.datalayout)


# ------------------------------------------------------- post-conditions

KERNEL = """
declare i64 @_Z13get_global_idj(i32)
define void @k(ptr %in, ptr %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pin = getelementptr float, ptr %in, i64 %gid
  %x = load float, ptr %pin, align 4
  %y = fadd float %x, 1.0
  %dead = fmul float %x, 2.0
  %pout = getelementptr float, ptr %out, i64 %gid
  store float %y, ptr %pout, align 4
  ret void
}
"""


def _kernel():
    module = parse_module(llvm_bridge.canonicalize(KERNEL))
    return module.get_function("k")


def test_dead_code_left_behind_is_reported() -> None:
    fn = _kernel()
    with pytest.raises(AnalysisMismatch, match=r"dead-code post-condition.*%dead"):
        check_no_dead_code(fn)
    next(i for i in fn.instructions() if i.name == "dead").erase_from_parent()
    check_no_dead_code(fn)


def test_a_block_with_two_terminators_is_reported() -> None:
    fn = _kernel()
    check_terminators(fn, "test")
    block = fn.blocks[0]
    ret = block.instructions[-1]
    block.instructions.insert(0, ret)  # the list itself: a second terminator, as a broken pass would leave
    with pytest.raises(AnalysisMismatch, match="has 2 terminators"):
        check_terminators(fn, "test")


PHI_KERNEL = """
declare i64 @_Z13get_global_idj(i32)
define spir_kernel void @k(ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %c = icmp ult i64 %gid, 3
  br i1 %c, label %then, label %join
then:
  br label %join
join:
  %v = phi i64 [ 1, %entry ], [ 2, %then ]
  %p = getelementptr i64, ptr addrspace(1) %out, i64 %gid
  store i64 %v, ptr addrspace(1) %p
  ret void
}
"""


def test_a_phi_without_an_entry_for_a_predecessor_is_reported() -> None:
    fn = parse_module(PHI_KERNEL).get_function("k")
    check_phis(fn, "test")
    phi = next(i for i in fn.instructions() if i.name == "v")
    then = fn.blocks[1]
    phi.remove_incoming(then)  # as a transform that forgot a new edge's value would leave it
    with pytest.raises(AnalysisMismatch, match=r"phis after 'test'.*%v in block %join has no entry for "
                                               r"predecessor %then"):
        check_phis(fn, "test")


BOSCC_KERNEL = """
declare i64 @_Z13get_global_idj(i32)
define spir_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %ip = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %ip
  %c = icmp sgt i32 %x, 10
  br i1 %c, label %join, label %then
then:
  %y = mul i32 %x, 7
  store i32 %y, ptr addrspace(1) %ip
  br label %join
join:
  %v = phi i32 [ %x, %entry ], [ %y, %then ]
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %v, ptr addrspace(1) %p
  ret void
}
"""


def test_each_boscc_region_is_checked_inside_control_flow_conversion(monkeypatch) -> None:
    """BOSCC runs inside the control-flow-conversion pass, whose linearization
    and SROA would hide a phi it broke: the step is checked where it ends."""
    from vectorizer.transform import boscc

    steps: list[str] = []
    real = AnalysisVerifier.after_step
    monkeypatch.setattr(AnalysisVerifier, "after_step",
                        staticmethod(lambda step, state: (steps.append(step), real(step, state))))
    vectorize(BOSCC_KERNEL, "k", width=4, choices="LinearizeBOSCC", verify_analyses=True)
    assert steps == ["boscc"]
    # A dispatch that forgets the join's value from the divergent copy.
    real_dispatch = boscc._dispatch

    def forgetful(function, module, d, join, region, entry_mask):
        d_div, cloned = real_dispatch(function, module, d, join, region, entry_mask)
        for phi in join.phis():
            phi.remove_incoming(d_div)
        return d_div, cloned

    monkeypatch.setattr(boscc, "_dispatch", forgetful)
    with pytest.raises(AnalysisVerificationError, match=r"after step 'boscc' .*has no entry for predecessor"):
        vectorize(BOSCC_KERNEL.replace("10", "11"), "k", width=4, choices="LinearizeBOSCC", verify_analyses=True)


SWITCH_KERNEL = """
declare i64 @_Z13get_global_idj(i32)
define spir_kernel void @k(ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %g = trunc i64 %gid to i32
  switch i32 %g, label %other [ i32 1, label %join
                                i32 2, label %join ]
other:
  br label %join
join:
  %v = phi <2 x i8> [ splat (i8 -128), %entry ], [ splat (i8 -128), %entry ], [ zeroinitializer, %other ]
  %p = getelementptr <2 x i8>, ptr addrspace(1) %out, i64 %gid
  store <2 x i8> %v, ptr addrspace(1) %p
  ret void
}
"""


def test_a_predecessor_named_twice_needs_the_same_value_twice() -> None:
    """Two switch cases to one block: two entries for the predecessor, equal
    constants (not one object: constants are not interned) are the same value."""
    fn = parse_module(SWITCH_KERNEL).get_function("k")
    check_phis(fn, "test")
    phi = next(i for i in fn.instructions() if i.name == "v")
    assert phi.incoming[0][0] is not phi.incoming[1][0]
    phi.set_operand(2, phi.incoming[2][0])  # the second entry for %entry now differs
    with pytest.raises(AnalysisMismatch, match="has two values for predecessor %entry"):
        check_phis(fn, "test")


RECURSIVE = """
declare i64 @_Z13get_global_idj(i32)
define internal i32 @even(i32 %n) {
entry:
  %z = icmp eq i32 %n, 0
  br i1 %z, label %done, label %more
done:
  ret i32 1
more:
  %m = sub i32 %n, 1
  %r = call i32 @odd(i32 %m)
  ret i32 %r
}
define internal i32 @odd(i32 %n) {
entry:
  %z = icmp eq i32 %n, 0
  br i1 %z, label %done, label %more
done:
  ret i32 0
more:
  %m = sub i32 %n, 1
  %r = call i32 @even(i32 %m)
  ret i32 %r
}
define internal i32 @twice(i32 %n) {
entry:
  %d = shl i32 %n, 1
  ret i32 %d
}
define spir_kernel void @k(ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %g = trunc i64 %gid to i32
  %n = and i32 %g, 7
  %t = call i32 @twice(i32 %n)
  %e = call i32 @even(i32 %t)
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %e, ptr addrspace(1) %p
  ret void
}
"""


def test_recursion_is_read_from_the_whole_call_graph() -> None:
    module = parse_module(RECURSIVE)
    fn = module.get_function("k")
    names = {f.name for f in module.functions if id(f) in recursive_functions(module)}
    assert names == {"even", "odd"}  # mutual recursion; `twice` and the kernel are not recursive
    assert [callee for _, callee in recursive_calls(fn, module)] == ["even"]


def test_an_inlined_recursive_call_is_reported() -> None:
    module = parse_module(RECURSIVE)
    fn = module.get_function("k")
    calls = recursive_calls(fn, module)
    check_recursive_calls_kept(fn, calls, "test")
    inline_call(calls[0][0])  # what an inliner that missed the recursion would do
    with pytest.raises(AnalysisMismatch, match="call to recursive function @even was inlined"):
        check_recursive_calls_kept(fn, calls, "test")
    # The pipeline keeps the call (one per lane) and the check agrees.
    result = vectorize(RECURSIVE, "k", width=4, verify_analyses=True)
    assert "call i32 @even" in result.ir.split("@__vecz_v4_k")[1]


def test_packetization_value_list_is_checked() -> None:
    fn = _kernel()
    uniform = UniformValueAnalysis(fn, 0)
    pa = PacketizationAnalysis(fn, uniform, StrideAnalysis(uniform, DataLayout.parse(None)),
                               InstantiationAnalysis(0))
    assert pa.values
    check_packetization_values(fn, pa)
    pa.values.append(pa.values[0])
    with pytest.raises(AnalysisMismatch, match="listed twice"):
        check_packetization_values(fn, pa)
    pa.values[:] = pa.values[1:-1]
    with pytest.raises(AnalysisMismatch, match="missing from its value list"):
        check_packetization_values(fn, pa)


def test_uniformity_is_checked() -> None:
    fn = _kernel()
    uniform = UniformValueAnalysis(fn, 0)
    check_uniformity(fn, uniform, 0)

    class Forgetful(UniformValueAnalysis):
        """Forgets that `%y` (a sum of a varying load) is varying."""

        def is_varying(self, value) -> bool:
            return getattr(value, "name", None) != "y" and super().is_varying(value)

    with pytest.raises(AnalysisMismatch, match="listed as varying but not marked"):
        check_uniformity(fn, Forgetful(fn, 0), 0)
    wrong = Forgetful(fn, 0)
    wrong._values = [v for v in wrong._values if getattr(v, "name", None) != "y"]
    with pytest.raises(AnalysisMismatch, match="%y is uniform, but its operand %x is varying"):
        check_uniformity(fn, wrong, 0)
    # The analysis for dimension 1 checked as if for dimension 0: get_global_id(0) is uniform there.
    with pytest.raises(AnalysisMismatch, match=r"get_global_idj\(0\) is uniform"):
        check_uniformity(fn, UniformValueAnalysis(fn, 1), 0)


# ----------------------------------------------------------- the pipeline


def test_the_pipeline_reports_a_wrong_analysis_as_a_vectorizer_bug(monkeypatch) -> None:
    text = KERNEL.replace("ret void", "br label %next\nnext:\n  ret void")
    # Each call a text of its own: no call resumes from another's snapshot (prepared_cache).
    assert vectorize(text, "k", verify_analyses=True).vectorized_name
    # A wrong analysis, put in place of the real one for this test only.
    monkeypatch.setattr(PostDominatorTree, "ipdom", lambda self, b: None)
    assert vectorize(text.replace("1.0", "2.0"), "k").vectorized_name  # unchecked: nothing reads it wrong here
    with pytest.raises(AnalysisVerificationError, match=r"PostDominatorTree of '.*k' is wrong") as info:
        vectorize(text.replace("1.0", "3.0"), "k", verify_analyses=True)
    assert isinstance(info.value, VectorizerBug)
    assert "analysis verification after pass '" in str(info.value)


def test_verify_analyses_must_be_a_bool() -> None:
    with pytest.raises(ValueError, match="verify_analyses"):
        vectorize(KERNEL, "k", verify_analyses="yes")  # type: ignore[arg-type]


def test_the_oracle_worker_reports_a_wrong_analysis_as_a_vectorizer_error(monkeypatch) -> None:
    """The oracle's vectorize request carries the flag; the failure signature
    names the check that failed (one signature per check)."""
    from fuzz.signature import signature
    from oracle.worker import vectorize_in_worker

    text = KERNEL.replace("ret void", "br label %next\nnext:\n  ret void").replace("1.0", "4.0")
    monkeypatch.setattr(PostDominatorTree, "ipdom", lambda self, b: None)
    assert vectorize_in_worker(text, "k", 4, 0, "")[0] == "ok"
    status, detail = vectorize_in_worker(text.replace("4.0", "5.0"), "k", 4, 0, "", True)
    assert status == "vectorizer-error" and "PostDominatorTree" in detail
    sig = signature({"status": status, "detail": detail, "width": 4, "dim": 0, "choices": ""})
    assert sig.endswith("AnalysisVerificationError at " + "vectorizer/verification/cfg.py:" + sig.rsplit(":", 1)[1])
