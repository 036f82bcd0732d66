"""Dominator and post-dominator trees, loop info and block ordering, on
hand-made CFGs (a duck-typed fake IR, see cfg_fixtures) and random CFGs
checked against brute-force definitions."""

from __future__ import annotations

import time

import pytest
from cfg_fixtures import (
    FIXTURES,
    brute_dominates,
    brute_is_reducible,
    brute_natural_loops,
    brute_post_dominates,
    chain,
    dominance_compact,
    fixture,
    forward_edges_go_forward,
    loop_compact,
    make_function,
    names,
    random_cfgs,
    reachable,
    structured_cfgs,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from vectorizer.analysis.block_ordering import (
    block_index_map,
    dominance_compact_index,
    dominance_compact_order,
    post_order,
    reverse_post_order,
)
from vectorizer.analysis.dominance import DominatorTree, strongly_connected_components
from vectorizer.analysis.loops import LoopInfo
from vectorizer.analysis.post_dominance import VIRTUAL_EXIT, PostDominatorTree

# ------------------------------------------------------------------ dominators


def test_diamond_dominators() -> None:
    fn = fixture("diamond")
    dt = DominatorTree(fn)
    e, a, b, m = fn["entry"], fn["a"], fn["b"], fn["m"]
    assert dt.idom(e) is None
    assert dt.idom(a) is e and dt.idom(b) is e and dt.idom(m) is e
    assert dt.children(e) == [a, b, m]  # CFG reverse post-order, then side first
    assert dt.dominates(e, m) and not dt.dominates(a, m) and not dt.dominates(b, m)
    assert dt.dominates(a, a) and not dt.properly_dominates(a, a)
    assert dt.properly_dominates(e, a)
    assert dt.nearest_common_dominator(a, b) is e
    assert dt.nearest_common_dominator(a, a) is a
    assert dt.nearest_common_dominator(e, m) is e
    assert dt.reverse_post_order == [e, a, b, m]
    assert dt.rpo_number(e) == 0 and dt.depth(e) == 0 and dt.depth(m) == 1
    assert dt.dominance_frontier(a) == [m] and dt.dominance_frontier(m) == []
    assert dt.dominance_frontier(e) == []
    assert dt.iterated_dominance_frontier([a]) == [m]


def test_if_then_dominators() -> None:
    fn = fixture("if_then")
    dt = DominatorTree(fn)
    assert dt.idom(fn["join"]) is fn["entry"]
    assert dt.idom(fn["then"]) is fn["entry"]
    assert not dt.dominates(fn["then"], fn["join"])
    assert dt.dominance_frontier(fn["then"]) == [fn["join"]]


def test_nested_loop_dominators_and_frontiers() -> None:
    fn = fixture("nested_loops")
    dt = DominatorTree(fn)
    assert dt.idom(fn["h2"]) is fn["h1"]
    assert dt.idom(fn["b2"]) is fn["h2"]
    assert dt.idom(fn["l1"]) is fn["b2"]
    assert dt.idom(fn["exit"]) is fn["h1"]
    assert names(dt.dominated_blocks(fn["h2"])) == ["h2", "b2", "l1"]
    # A loop header is in the frontier of its latch (phis for loop-carried values).
    assert dt.dominance_frontier(fn["l1"]) == [fn["h1"]]
    assert names(dt.dominance_frontier(fn["b2"])) == ["h1", "h2"]
    assert names(dt.iterated_dominance_frontier([fn["b2"]])) == ["h1", "h2"]


def test_unreachable_blocks_do_not_crash_dominators() -> None:
    fn = fixture("unreachable_blocks")
    dt = DominatorTree(fn)
    a, dead, dead2 = fn["a"], fn["dead"], fn["dead2"]
    assert dt.is_reachable(a) and not dt.is_reachable(dead)
    assert dt.idom(dead) is None and dt.children(dead) == []
    assert dt.depth(dead) is None and dt.rpo_number(dead) is None and dt.dfs_numbers(dead) is None
    # LLVM's convention: everything dominates unreachable code, which dominates nothing.
    assert dt.dominates(a, dead) and dt.dominates(dead2, dead)
    assert not dt.dominates(dead, a)
    assert dt.nearest_common_dominator(dead, a) is a
    assert dt.nearest_common_dominator(a, dead) is a
    assert dt.nearest_common_dominator(dead, dead2) is None
    assert dt.dominated_blocks(dead) == []
    assert dt.dominance_frontier(dead) == []
    assert dt.reverse_post_order == [fn["entry"], a]


def test_instruction_dominance() -> None:
    fn = fixture("diamond")
    dt = DominatorTree(fn)
    e, a, m = fn["entry"], fn["a"], fn["m"]
    e0, e1 = e.instructions[0], e.instructions[1]
    a0, m0 = a.instructions[0], m.instructions[0]
    assert dt.dominates(e0, e1) and not dt.dominates(e1, e0)
    assert dt.dominates(e0, e0) and not dt.properly_dominates(e0, e0)
    assert dt.properly_dominates(e0, e1)
    assert dt.dominates(e1, m0) and not dt.dominates(a0, m0)
    # Blocks and instructions mixed.
    assert dt.dominates(e, e1) and dt.dominates(e, m0) and not dt.dominates(a, m0)
    assert dt.dominates(e0, a) and not dt.dominates(e0, e)
    # Inserting an instruction later is seen (positions are re-read on demand).
    from cfg_fixtures import FakeInst

    new = FakeInst("sub", e)
    e.instructions.insert(0, new)
    assert dt.dominates(new, e0) and not dt.dominates(e0, new)


def test_dominates_use() -> None:
    fn = fixture("unreachable_blocks")
    dt = DominatorTree(fn)
    e, a, dead = fn["entry"], fn["a"], fn["dead"]
    e0, e1, a0, d0 = e.instructions[0], e.instructions[1], a.instructions[0], dead.instructions[0]
    assert dt.dominates_use(e0, e1) and not dt.dominates_use(e1, e0)
    assert not dt.dominates_use(e0, e0)  # no use of a value in itself
    assert dt.dominates_use(e0, a0)
    assert dt.dominates_use(a0, d0)  # uses in unreachable code are fine
    assert not dt.dominates_use(d0, a0)  # unreachable definitions dominate nothing
    assert dt.dominates_use(object(), a0)  # arguments, constants...
    # Phi operands are used at the end of the incoming block.
    fn = fixture("nested_loops")
    dt = DominatorTree(fn)
    h1, l1, h2 = fn["h1"], fn["l1"], fn["h2"]
    phi = h1.instructions[0]
    assert dt.dominates_use(l1.instructions[1], phi, incoming_block=l1)
    assert dt.dominates_use(h2.instructions[0], phi, incoming_block=l1)
    assert dt.dominates_use(phi, phi, incoming_block=l1)
    assert not dt.dominates_use(l1.instructions[0], phi, incoming_block=fn["entry"])


def test_errors_for_foreign_blocks() -> None:
    fn = fixture("diamond")
    dt = DominatorTree(fn)
    other = fixture("diamond")
    with pytest.raises(KeyError):
        dt.idom(other["a"])
    with pytest.raises(TypeError):
        dt.dominates(other["a"].instructions[0], fn["a"])
    broken = fixture("diamond")
    broken["a"].successors = [other["m"]]
    with pytest.raises(ValueError):
        DominatorTree(broken)


@settings(max_examples=300, deadline=None)
@given(random_cfgs())
def test_dominators_match_brute_force(fn) -> None:
    dt = DominatorTree(fn)
    live = reachable(fn.entry)
    for b in fn.blocks:
        assert dt.is_reachable(b) == (id(b) in live)
        for a in fn.blocks:
            assert dt.dominates(a, b) == brute_dominates(fn, a, b), (a, b)
        if id(b) in live and b is not fn.entry:
            # idom: the strict dominator that every other strict dominator dominates.
            strict = [
                a for a in fn.blocks if a is not b and id(a) in live and brute_dominates(fn, a, b)
            ]
            idom = dt.idom(b)
            assert idom in strict
            assert all(brute_dominates(fn, s, idom) for s in strict)
    # Children are ordered by reverse post-order.
    for b in dt.reverse_post_order:
        kids = [dt.rpo_number(c) for c in dt.children(b)]
        assert kids == sorted(kids)
    # Dominance frontier by definition.
    for x in dt.reverse_post_order:
        expected = [
            y
            for y in dt.reverse_post_order
            if any(dt.dominates(x, p) and dt.is_reachable(p) for p in y.predecessors)
            and not dt.properly_dominates(x, y)
        ]
        assert dt.dominance_frontier(x) == expected


@settings(max_examples=100, deadline=None)
@given(random_cfgs(), st.data())
def test_nearest_common_dominator(fn, data) -> None:
    dt = DominatorTree(fn)
    live = dt.reverse_post_order
    a = data.draw(st.sampled_from(live))
    b = data.draw(st.sampled_from(live))
    c = dt.nearest_common_dominator(a, b)
    assert dt.dominates(c, a) and dt.dominates(c, b)
    assert all(dt.dominates(x, c) for x in live if dt.dominates(x, a) and dt.dominates(x, b))


# ------------------------------------------------------------- post-dominators


def test_diamond_post_dominators() -> None:
    fn = fixture("diamond")
    pdt = PostDominatorTree(fn)
    e, a, b, m = fn["entry"], fn["a"], fn["b"], fn["m"]
    assert pdt.root is m and not pdt.has_virtual_exit
    assert pdt.ipdom(a) is m and pdt.ipdom(b) is m and pdt.ipdom(e) is m
    assert pdt.ipdom(m) is None
    assert pdt.post_dominates(m, e) and not pdt.post_dominates(a, e)
    assert pdt.nearest_common_post_dominator(a, b) is m
    assert pdt.post_dominance_frontier(a) == [e]
    assert pdt.post_dominance_frontier(m) == []
    assert pdt.exit_blocks == [m] and pdt.fake_exit_blocks == []
    with pytest.raises(KeyError):
        pdt.ipdom(VIRTUAL_EXIT)


def test_if_then_post_dominators() -> None:
    fn = fixture("if_then")
    pdt = PostDominatorTree(fn)
    assert pdt.ipdom(fn["entry"]) is fn["join"]
    assert pdt.ipdom(fn["then"]) is fn["join"]
    assert pdt.post_dominance_frontier(fn["then"]) == [fn["entry"]]


def test_multiple_returns_use_the_virtual_exit() -> None:
    fn = fixture("multiple_returns")
    pdt = PostDominatorTree(fn)
    assert pdt.has_virtual_exit and pdt.root is VIRTUAL_EXIT
    assert names(pdt.exit_blocks) == ["a", "c", "d"]
    for n in ("entry", "a", "b", "c", "d"):
        assert pdt.ipdom(fn[n]) is VIRTUAL_EXIT
        assert pdt.post_dominates(VIRTUAL_EXIT, fn[n])
        assert not pdt.post_dominates(fn[n], VIRTUAL_EXIT)
    assert pdt.ipdom(VIRTUAL_EXIT) is None
    assert pdt.nearest_common_post_dominator(fn["c"], fn["d"]) is VIRTUAL_EXIT
    assert set(names(pdt.children(VIRTUAL_EXIT))) == {"entry", "a", "b", "c", "d"}
    assert pdt.depth(VIRTUAL_EXIT) == 0 and pdt.depth(fn["a"]) == 1
    assert len(pdt.post_dominated_blocks(VIRTUAL_EXIT)) == 5
    assert repr(VIRTUAL_EXIT) == "VIRTUAL_EXIT"


def test_infinite_loop_post_dominators() -> None:
    fn = fixture("infinite_loop")
    pdt = PostDominatorTree(fn)
    assert pdt.root is VIRTUAL_EXIT and pdt.exit_blocks == []
    assert pdt.fake_exit_blocks == [fn["body"]]  # the latch stands in for the exit
    assert pdt.ipdom(fn["body"]) is VIRTUAL_EXIT
    assert pdt.ipdom(fn["h"]) is fn["body"]
    assert pdt.ipdom(fn["entry"]) is fn["h"]
    assert not pdt.reaches_exit(fn["h"])


def test_join_inside_an_infinite_loop_is_kept() -> None:
    fn = fixture("infinite_loop_with_if")
    pdt = PostDominatorTree(fn)
    assert pdt.ipdom(fn["a"]) is fn["l"] and pdt.ipdom(fn["b"]) is fn["l"]
    assert pdt.ipdom(fn["h"]) is fn["l"]
    assert pdt.post_dominance_frontier(fn["a"]) == [fn["h"]]


def test_infinite_loop_next_to_a_return() -> None:
    fn = fixture("infinite_loop_and_return")
    pdt = PostDominatorTree(fn)
    assert pdt.root is VIRTUAL_EXIT
    assert pdt.exit_blocks == [fn["r"]] and pdt.fake_exit_blocks == [fn["spin"]]
    assert pdt.ipdom(fn["c"]) is VIRTUAL_EXIT
    assert pdt.reaches_exit(fn["r"]) and pdt.reaches_exit(fn["c"])
    assert not pdt.reaches_exit(fn["spin"])


def test_post_dominators_cover_unreachable_blocks() -> None:
    fn = fixture("unreachable_blocks")
    pdt = PostDominatorTree(fn)
    # dead3 is a second exit (unreachable from the entry, but still an exit).
    assert pdt.root is VIRTUAL_EXIT
    assert pdt.ipdom(fn["dead3"]) is VIRTUAL_EXIT
    assert pdt.ipdom(fn["dead"]) is fn["a"]  # dead2 only loops back to dead
    assert pdt.ipdom(fn["dead2"]) is fn["dead"]
    assert pdt.ipdom(fn["entry"]) is fn["a"]


def test_instruction_post_dominance() -> None:
    fn = fixture("diamond")
    pdt = PostDominatorTree(fn)
    e, a, m = fn["entry"], fn["a"], fn["m"]
    e0, e1, m0 = e.instructions[0], e.instructions[1], m.instructions[0]
    assert pdt.post_dominates(e1, e0) and not pdt.post_dominates(e0, e1)
    assert pdt.post_dominates(e1, e1) and not pdt.properly_post_dominates(e1, e1)
    assert pdt.post_dominates(m0, e1) and not pdt.post_dominates(a.instructions[0], e1)
    assert pdt.post_dominates(m, e1) and pdt.post_dominates(m0, a)
    assert not pdt.post_dominates(m0, m) and pdt.post_dominates(m, m0)


@settings(max_examples=300, deadline=None)
@given(random_cfgs())
def test_post_dominators_match_brute_force(fn) -> None:
    pdt = PostDominatorTree(fn)
    exits = [b for b in fn.blocks if not b.successors]
    assert pdt.exit_blocks == exits
    fake = pdt.fake_exit_blocks
    roots = exits + fake
    # Fake exits: exactly one per terminal strongly connected set of blocks that
    # cannot reach a real exit.
    can_exit = {id(b) for b in fn.blocks if any(id(x) in reachable(b) for x in exits)}
    stuck = [b for b in fn.blocks if id(b) not in can_exit]
    for b in stuck:
        assert not pdt.reaches_exit(b)
        assert any(id(f) in reachable(b) for f in fake)
    for f in fake:
        assert id(f) not in can_exit
        assert all(id(f) in reachable(x) for x in fn.blocks if id(x) in reachable(f))
        assert sum(id(g) in reachable(f) for g in fake) == 1
    # A single real exit is the root; anything else (an infinite loop alone too) is virtual.
    assert pdt.has_virtual_exit == (not (len(exits) == 1 and not fake))
    for b in fn.blocks:
        assert pdt.reaches_exit(b) == (id(b) in can_exit)
        for a in fn.blocks:
            assert pdt.post_dominates(a, b) == brute_post_dominates(fn, a, b, roots), (a, b)
        ip = pdt.ipdom(b)
        if ip is None:
            assert b is pdt.root
        elif ip is not VIRTUAL_EXIT:
            strict = [a for a in fn.blocks if a is not b and pdt.post_dominates(a, b)]
            assert ip in strict and all(pdt.post_dominates(s, ip) for s in strict)
        else:
            assert not any(a is not b and pdt.post_dominates(a, b) for a in fn.blocks)


# ----------------------------------------------------------------------- loops


def test_nested_loops() -> None:
    fn = fixture("nested_loops")
    li = LoopInfo(fn)
    assert li.is_reducible and li.irreducible_regions == []
    outer, inner = li.loops
    assert li.top_level_loops == [outer]
    assert outer.header is fn["h1"] and inner.header is fn["h2"]
    assert names(outer.blocks) == ["h1", "h2", "b2", "l1"]
    assert names(inner.blocks) == ["h2", "b2"]
    assert outer.block_set == frozenset(outer.blocks)
    assert inner.parent is outer and outer.parent is None and outer.sub_loops == [inner]
    assert outer.depth == 1 and inner.depth == 2
    assert outer.contains(inner) and not inner.contains(outer) and inner.contains(inner)
    assert outer.contains(fn["b2"]) and not inner.contains(fn["l1"])
    assert li.loop_for(fn["b2"]) is inner and li.loop_for(fn["l1"]) is outer
    assert li.loop_for(fn["exit"]) is None and li.loop_depth(fn["b2"]) == 2
    assert li.is_loop_header(fn["h2"]) and not li.is_loop_header(fn["b2"])
    assert outer.latches == [fn["l1"]] and outer.latch is fn["l1"]
    assert inner.latches == [fn["b2"]]
    assert outer.exit_edges == [(fn["h1"], fn["exit"])]
    assert inner.exit_edges == [(fn["b2"], fn["l1"])]
    assert inner.exiting_blocks == [fn["b2"]] and inner.exit_blocks == [fn["l1"]]
    assert outer.preheader is fn["entry"] and outer.predecessor is fn["entry"]
    # h1 also branches to the exit, so it is the inner loop's predecessor only.
    assert inner.preheader is None and inner.predecessor is fn["h1"]
    assert li.loops_innermost_first() == [inner, outer]
    assert len(outer) == 4 and "h1" in repr(outer)


def test_loop_with_several_exits() -> None:
    fn = fixture("multi_exit")
    (loop,) = LoopInfo(fn).loops
    assert names(loop.blocks) == ["h", "a", "b"]
    assert names(loop.exiting_blocks) == ["h", "a"]
    assert names(loop.exit_blocks) == ["x1", "x2"]
    assert loop.single_exit_block is None
    assert [(s.name, t.name) for s, t in loop.exit_edges] == [("h", "x1"), ("a", "x2")]
    assert loop.is_exiting(fn["a"]) and not loop.is_exiting(fn["b"])
    assert loop.is_latch(fn["b"]) and not loop.is_latch(fn["a"])


def test_loop_with_two_latches() -> None:
    fn = fixture("two_latches")
    li = LoopInfo(fn)
    (loop,) = li.loops  # one loop, not two
    assert names(loop.latches) == ["a", "b"] and loop.latch is None
    assert names(loop.blocks) == ["h", "a", "b"]
    assert loop.single_exit_block is fn["exit"]


def test_self_loop() -> None:
    fn = fixture("self_loop")
    (loop,) = LoopInfo(fn).loops
    assert loop.blocks == [fn["s"]] and loop.latches == [fn["s"]]
    assert loop.exiting_blocks == [fn["s"]] and loop.exit_blocks == [fn["exit"]]
    assert loop.preheader is fn["entry"]


def test_infinite_loop_is_a_loop_without_exits() -> None:
    fn = fixture("infinite_loop")
    (loop,) = LoopInfo(fn).loops
    assert loop.exit_blocks == [] and loop.exiting_blocks == []


def test_unreachable_cycles_are_not_loops() -> None:
    fn = fixture("unreachable_blocks")
    li = LoopInfo(fn)
    assert li.loops == [] and li.is_reducible
    assert li.loop_for(fn["dead2"]) is None and li.loop_depth(fn["dead2"]) == 0


def test_irreducible_region_is_reported_not_a_loop() -> None:
    fn = fixture("irreducible")
    li = LoopInfo(fn)
    assert li.loops == []
    assert not li.is_reducible
    (region,) = li.irreducible_regions
    assert set(names(region.blocks)) == {"a", "b"}
    assert set(names(region.entries)) == {"a", "b"}
    assert region.block_set == {fn["a"], fn["b"]}
    assert region.contains(fn["a"]) and not region.contains(fn["exit"])
    assert region.parent_loop is None and region.depth == 0
    assert "IrreducibleRegion" in repr(region)


def test_irreducible_region_inside_a_loop() -> None:
    fn = fixture("irreducible_in_loop")
    li = LoopInfo(fn)
    (loop,) = li.loops
    assert loop.header is fn["h"] and set(names(loop.blocks)) == {"h", "a", "b", "l"}
    (region,) = li.irreducible_regions
    assert set(names(region.blocks)) == {"a", "b"}
    assert region.parent_loop is loop and region.depth == 1


def test_loop_inside_an_irreducible_region() -> None:
    fn = fixture("loop_in_irreducible")
    li = LoopInfo(fn)
    (loop,) = li.loops
    assert loop.blocks == [fn["n"]]
    (region,) = li.irreducible_regions
    assert set(names(region.blocks)) == {"a", "n", "b"}
    assert set(names(region.entries)) == {"a", "b"}
    assert region.parent_loop is None


def test_loop_info_checks_its_dominator_tree() -> None:
    fn = fixture("nested_loops")
    with pytest.raises(ValueError):
        LoopInfo(fn, DominatorTree(fixture("nested_loops")))


@settings(max_examples=300, deadline=None)
@given(random_cfgs())
def test_loops_match_brute_force(fn) -> None:
    dt = DominatorTree(fn)
    li = LoopInfo(fn, dt)
    expected = brute_natural_loops(fn)
    got = {lp.header.name: set(names(lp.blocks)) for lp in li.loops}
    assert got == expected
    for lp in li.loops:
        assert lp.blocks[0] is lp.header
        assert [dt.rpo_number(b) for b in lp.blocks] == sorted(dt.rpo_number(b) for b in lp.blocks)
        # Parent: the smallest other loop containing this one.
        bigger = [o for o in li.loops if o is not lp and set(o.blocks) >= set(lp.blocks)]
        if bigger:
            assert lp.parent is min(bigger, key=len)
            assert lp.depth == lp.parent.depth + 1 and lp in lp.parent.sub_loops
        else:
            assert lp.parent is None and lp.depth == 1 and lp in li.top_level_loops
        assert set(lp.latches) == {p for p in lp.header.predecessors if lp.contains(p)}
        inside = set(map(id, lp.blocks))
        assert {(id(s), id(t)) for s, t in lp.exit_edges} == {
            (id(s), id(t)) for s in lp.blocks for t in s.successors if id(t) not in inside
        }
    for b in fn.blocks:
        containing = [lp for lp in li.loops if lp.contains(b)]
        inner = min(containing, key=len) if containing else None
        assert li.loop_for(b) is inner
    # Loops are listed outer before inner.
    position = {id(lp): i for i, lp in enumerate(li.loops)}
    assert all(position[id(lp.parent)] < position[id(lp)] for lp in li.loops if lp.parent)


@settings(max_examples=400, deadline=None)
@given(random_cfgs())
def test_irreducibility_matches_t1_t2(fn) -> None:
    dt = DominatorTree(fn)
    li = LoopInfo(fn, dt)
    assert li.is_reducible == brute_is_reducible(fn)
    # Every retreating edge that is not a back edge lies inside a reported region.
    in_region = {id(b) for r in li.irreducible_regions for b in r.blocks}
    for b in dt.reverse_post_order:
        for s in b.successors:
            if dt.rpo_number(s) <= dt.rpo_number(b) and not dt.dominates(s, b):
                assert id(s) in in_region and id(b) in in_region
    for r in li.irreducible_regions:
        assert len(r.entries) >= 2
        members = set(map(id, r.blocks))
        for e in r.entries:
            assert e is fn.entry or any(
                dt.is_reachable(p) and id(p) not in members for p in e.predecessors
            )
        # Strongly connected: every member reaches every other one inside the region.
        for x in r.blocks:
            seen = {id(x)}
            work = [x]
            while work:
                y = work.pop()
                for s in y.successors:
                    if id(s) in members and id(s) not in seen:
                        seen.add(id(s))
                        work.append(s)
            assert seen == members


# -------------------------------------------------------------- block ordering


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_block_order_properties_on_fixtures(name: str) -> None:
    fn = fixture(name)
    dt = DominatorTree(fn)
    li = LoopInfo(fn, dt)
    order = dominance_compact_order(fn, dt, li)
    assert sorted(map(id, order)) == sorted(map(id, dt.reverse_post_order))
    assert order[0] is fn.entry
    assert loop_compact(order, li)
    assert dominance_compact(order, dt, li)
    if li.is_reducible:
        assert forward_edges_go_forward(order, dt)
    if not li.loops:
        # Without loops it is exactly the dominator tree walk in CFG RPO.
        assert order == dt.preorder()


def test_loop_compactness_takes_precedence() -> None:
    fn = fixture("exit_inside_dom_subtree")
    dt = DominatorTree(fn)
    li = LoopInfo(fn, dt)
    # A plain walk of the dominator tree puts x, dominated by a, inside the loop.
    assert names(dt.preorder()) == ["entry", "h", "a", "x", "xx", "b", "l", "out"]
    assert not loop_compact(dt.preorder(), li)
    order = dominance_compact_order(fn, dt, li)
    assert names(order) == ["entry", "h", "a", "b", "l", "x", "xx", "out"]


def test_break_out_of_two_loops() -> None:
    fn = fixture("double_break")
    li = LoopInfo(fn)
    order = dominance_compact_order(fn, loops=li)
    assert names(order) == ["entry", "h1", "h2", "brk", "b2", "l1", "done", "end"]
    assert loop_compact(order, li)


def test_index_helpers_and_unreachable_blocks() -> None:
    fn = fixture("unreachable_blocks")
    assert names(dominance_compact_order(fn)) == ["entry", "a"]
    index = dominance_compact_index(fn)
    assert index == {fn["entry"]: 0, fn["a"]: 1}
    assert block_index_map([fn["a"], fn["dead3"]])[fn["dead3"]] == 1
    fn = fixture("diamond")
    assert names(post_order(fn)) == ["m", "b", "a", "entry"]
    assert names(reverse_post_order(fn)) == ["entry", "a", "b", "m"]
    with pytest.raises(ValueError):
        dominance_compact_order(fn, domtree=DominatorTree(fixture("diamond")))


@settings(max_examples=400, deadline=None)
@given(random_cfgs(max_blocks=16))
def test_block_order_properties_on_random_cfgs(fn) -> None:
    dt = DominatorTree(fn)
    li = LoopInfo(fn, dt)
    order = dominance_compact_order(fn, dt, li)
    assert sorted(map(id, order)) == sorted(map(id, dt.reverse_post_order))
    assert loop_compact(order, li)
    assert dominance_compact(order, dt, li)
    if li.is_reducible:
        assert forward_edges_go_forward(order, dt)


@settings(max_examples=400, deadline=None)
@given(structured_cfgs())
def test_block_order_properties_on_structured_cfgs(fn) -> None:
    dt = DominatorTree(fn)
    li = LoopInfo(fn, dt)
    assert li.is_reducible
    order = dominance_compact_order(fn, dt, li)
    assert sorted(map(id, order)) == sorted(map(id, dt.reverse_post_order))
    assert loop_compact(order, li)
    assert dominance_compact(order, dt, li)
    assert forward_edges_go_forward(order, dt)
    assert {lp.header.name: set(names(lp.blocks)) for lp in li.loops} == brute_natural_loops(fn)


# ------------------------------------------------------------------ scale


def test_scc_helper() -> None:
    succ = {0: [1], 1: [2], 2: [0, 3], 3: [3], 4: []}
    comps = strongly_connected_components(range(5), succ.__getitem__)
    assert sorted(map(sorted, comps)) == [[0, 1, 2], [3], [4]]
    assert comps.index([3]) < [sorted(c) for c in comps].index([0, 1, 2])  # sinks first


def test_long_chains_do_not_recurse() -> None:
    fn = chain(6000, loop_back=True)
    start = time.perf_counter()
    dt = DominatorTree(fn)
    pdt = PostDominatorTree(fn)
    li = LoopInfo(fn, dt)
    order = dominance_compact_order(fn, dt, li)
    assert time.perf_counter() - start < 5
    assert len(order) == 6001 and li.loops[0].header is fn["b1"]
    assert dt.dominates(fn["b1"], fn["b5999"]) and pdt.post_dominates(fn["end"], fn["entry"])
    assert dt.depth(fn["b5999"]) == 5999


def test_large_random_cfg_is_fast() -> None:
    import random

    rng = random.Random(7)
    n = 4000
    spec = []
    for i in range(n):
        # Mostly forward edges, some loops back, some long jumps: a big kernel-like mess.
        succs = []
        if i + 1 < n:
            succs.append(i + 1)
        r = rng.random()
        if r < 0.3 and i + 2 < n:
            succs.append(rng.randrange(i + 2, min(n, i + 20)))
        elif r < 0.4 and i > 0:
            succs.append(rng.randrange(max(0, i - 30), i + 1))
        spec.append((f"n{i}", [f"n{s}" for s in succs]))
    fn = make_function(spec)
    start = time.perf_counter()
    dt = DominatorTree(fn)
    pdt = PostDominatorTree(fn)
    li = LoopInfo(fn, dt)
    order = dominance_compact_order(fn, dt, li)
    elapsed = time.perf_counter() - start
    assert elapsed < 5, elapsed
    assert len(order) == n and pdt.root is fn[f"n{n - 1}"]
    assert loop_compact(order, li)


# ------------------------------------------------------------ with the real IR

KERNEL = """
define void @k(ptr %p, i32 %n) {
entry:
  %c0 = icmp sgt i32 %n, 0
  br i1 %c0, label %loop, label %exit
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %gep = getelementptr inbounds i32, ptr %p, i32 %i
  %v = load i32, ptr %gep, align 4
  %neg = icmp slt i32 %v, 0
  br i1 %neg, label %early, label %body
body:
  %odd = and i32 %v, 1
  %isodd = icmp ne i32 %odd, 0
  br i1 %isodd, label %then, label %else
then:
  store i32 1, ptr %gep, align 4
  br label %latch
else:
  store i32 2, ptr %gep, align 4
  br label %latch
latch:
  %i.next = add nsw i32 %i, 1
  %done = icmp eq i32 %i.next, %n
  br i1 %done, label %exit, label %loop
early:
  store i32 0, ptr %p, align 4
  ret void
exit:
  ret void
}

define i32 @irreducible(i1 %c, i1 %d) {
entry:
  br i1 %c, label %a, label %b
a:
  br i1 %d, label %b, label %out
b:
  br label %a
out:
  ret i32 0
}

define void @spin(ptr %p, i32 %x) {
entry:
  br label %loop
loop:
  switch i32 %x, label %left [
    i32 1, label %right
    i32 2, label %right
  ]
left:
  store volatile i32 0, ptr %p, align 4
  br label %loop
right:
  store volatile i32 1, ptr %p, align 4
  br label %loop
}

define void @dead(ptr %p) {
entry:
  ret void
island:
  store i32 0, ptr %p, align 4
  br label %island
}
"""


@pytest.fixture(scope="module")
def real_module():
    from vectorizer.ir import parse_module

    return parse_module(KERNEL, canonicalize=True)


def _by_name(fn):
    return {b.name: b for b in fn.blocks}


def _inst(block, name):
    return next(i for i in block.instructions if i.name == name)


def test_real_ir_kernel(real_module) -> None:
    fn = real_module.get_function("k")
    b = _by_name(fn)
    dt = DominatorTree(fn)
    pdt = PostDominatorTree(fn)
    li = LoopInfo(fn, dt)
    assert dt.idom(b["latch"]) is b["body"] and dt.idom(b["exit"]) is b["entry"]
    assert dt.idom(b["early"]) is b["loop"]
    assert pdt.root is VIRTUAL_EXIT and names(pdt.exit_blocks) == ["early", "exit"]
    assert pdt.ipdom(b["then"]) is b["latch"] and pdt.ipdom(b["body"]) is b["latch"]
    assert pdt.ipdom(b["loop"]) is VIRTUAL_EXIT
    assert names(pdt.post_dominance_frontier(b["then"])) == ["body"]
    (loop,) = li.loops
    assert li.is_reducible
    assert names(loop.blocks) == ["loop", "body", "then", "else", "latch"]
    assert names(loop.exiting_blocks) == ["loop", "latch"]
    assert names(loop.exit_blocks) == ["early", "exit"]
    assert loop.latches == [b["latch"]]
    assert loop.preheader is None and loop.predecessor is b["entry"]
    order = dominance_compact_order(fn, dt, li)
    assert names(order) == ["entry", "loop", "body", "then", "else", "latch", "early", "exit"]
    assert loop_compact(order, li) and dominance_compact(order, dt, li)
    # Instructions: SSA dominance, with the phi rule.
    i, i_next = _inst(b["loop"], "i"), _inst(b["latch"], "i.next")
    gep, v = _inst(b["loop"], "gep"), _inst(b["loop"], "v")
    assert dt.dominates(i, i_next) and dt.dominates(gep, v) and not dt.dominates(v, gep)
    assert not dt.dominates_use(i_next, i)
    assert dt.dominates_use(i_next, i, incoming_block=b["latch"])
    assert dt.dominates_use(fn.args[0], gep)
    assert pdt.post_dominates(i_next, _inst(b["body"], "odd"))
    # The analyses only read: the function still prints and verifies the same.
    from vectorizer.ir import print_module

    assert "define void @k" in print_module(real_module)


def test_real_ir_irreducible(real_module) -> None:
    fn = real_module.get_function("irreducible")
    li = LoopInfo(fn)
    assert li.loops == [] and not li.is_reducible
    (region,) = li.irreducible_regions
    assert set(names(region.blocks)) == {"a", "b"}
    assert set(names(region.entries)) == {"a", "b"}


def test_real_ir_infinite_loop_and_switch(real_module) -> None:
    fn = real_module.get_function("spin")
    b = _by_name(fn)
    pdt = PostDominatorTree(fn)
    assert pdt.root is VIRTUAL_EXIT and pdt.exit_blocks == []
    assert len(pdt.fake_exit_blocks) == 1
    assert pdt.ipdom(b["entry"]) is b["loop"]
    (loop,) = LoopInfo(fn).loops
    assert set(names(loop.latches)) == {"left", "right"}
    assert loop.exit_blocks == [] and loop.preheader is b["entry"]
    # Two switch cases to one block are one edge.
    assert DominatorTree(fn).children(b["loop"]) == [b["left"], b["right"]]


def test_real_ir_unreachable_block(real_module) -> None:
    fn = real_module.get_function("dead")
    b = _by_name(fn)
    dt = DominatorTree(fn)
    li = LoopInfo(fn, dt)
    assert not dt.is_reachable(b["island"]) and li.loops == []
    assert dominance_compact_order(fn) == [b["entry"]]
    pdt = PostDominatorTree(fn)
    assert pdt.root is VIRTUAL_EXIT and pdt.fake_exit_blocks == [b["island"]]
