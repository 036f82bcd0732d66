"""The generator's rare control-flow shapes (fuzz.cfg_shapes): a guarded
trap, a guarded endless loop and a two-entry cycle. They appear, parse,
print, are counted, have guards that are never true for the header, and the
oracle agrees: the trap and the endless loop vectorize and match, the
irreducible cycle is refused."""

from __future__ import annotations

import pytest

from fuzz import generate
from fuzz.cfg_shapes import NEVER_ID
from fuzz.choice_source import RandomSource
from fuzz.coverage import features
from fuzz.knobs import make_knobs
from fuzz.plan import Cmp, Const, Irreducible, Lin, ParamRef, Spin, Trap, WorkItem, walk_stmts
from fuzz.planner import Planner
from fuzz.pretty import plan_c


def _plan(seed: int, **knobs):
    return Planner(RandomSource(seed), make_knobs(**knobs)).plan()


def _shapes(plan) -> set[type]:
    return {type(s) for s, _ in walk_stmts(plan.body) if isinstance(s, (Trap, Spin, Irreducible))}


def _first_seed(want: set[type], avoid: set[type] = frozenset(), **knobs) -> int:
    for seed in range(200):
        got = _shapes(_plan(seed, **knobs))
        if want <= got and not got & avoid:
            return seed
    raise AssertionError(f"no seed below 200 has {want} without {avoid}")


def test_each_shape_appears_in_the_control_profile() -> None:
    seen: set[type] = set()
    for seed in range(40):
        seen |= _shapes(_plan(seed, profile="control"))
    assert seen == {Trap, Spin, Irreducible}


def test_no_shape_when_the_rate_is_zero_or_in_workgroup_kernels() -> None:
    for seed in range(20):
        assert not _shapes(_plan(seed, profile="control", cfg_shapes=0.0, irreducible=0.0))
        assert not _shapes(_plan(seed, profile="workgroup", cfg_shapes=1.0, irreducible=1.0))


def test_guards_are_never_true_for_the_header() -> None:
    for seed in range(30):
        plan = _plan(seed, profile="loops", cfg_shapes=1.0)
        for s, depth in walk_stmts(plan.body):
            if not isinstance(s, (Trap, Spin)):
                continue
            assert depth == 0
            g = s.guard
            assert isinstance(g, Cmp) and isinstance(g.b, Const)
            if isinstance(g.a, ParamRef):
                bits = g.a.ty.bits
                assert g.pred == "eq" and g.a.param in plan.params
                assert (g.a.param.value - g.b.value) % (1 << bits) != 0
            else:
                assert isinstance(g.a, (Lin, WorkItem)) and g.b.value >= NEVER_ID
                assert max(r.total for r in plan.ndranges) + 1024 < NEVER_ID


def test_shapes_emit_parse_print_and_count() -> None:
    from vectorizer.ir import parse_module

    knobs = dict(profile="control", cfg_shapes=1.0, irreducible=1.0)
    seed = _first_seed({Trap, Spin, Irreducible}, **knobs)
    text = generate(seed, **knobs)
    for needle in ("call void @llvm.trap()", "unreachable", "spin:", "irr.a:", "irr.b:", "irr.end:"):
        assert needle in text
    fn = next(f for f in parse_module(text).functions if f.name == "fuzz_kernel")
    spin = next(b for b in fn.blocks if b.name == "spin")
    assert spin in spin.successors  # no exit
    a = next(b for b in fn.blocks if b.name == "irr.a")
    b = next(b for b in fn.blocks if b.name == "irr.b")
    assert b in a.successors and a in b.successors and fn.entry is not a
    plan = _plan(seed, **knobs)
    c_text = plan_c(plan)
    assert "__builtin_trap()" in c_text and "no exit" in c_text and "goto a" in c_text
    names = " ".join(features(plan))
    assert "trap: second exit" in names and "endless loop" in names and "irreducible cycle" in names


@pytest.mark.parametrize("want,avoid,expect,irreducible", [
    ({Trap, Spin}, {Irreducible}, "match", 0.0),
    ({Irreducible}, set(), "not-vectorized", 1.0),
], ids=["trap-and-spin", "irreducible"])
def test_oracle_verdicts(want, avoid, expect, irreducible) -> None:
    from oracle.check import check

    knobs = dict(profile="tiny", cfg_shapes=1.0, irreducible=irreducible)
    seed = _first_seed(want, avoid, **knobs)
    if expect == "match":
        # The trap under a uniform guard stays outside every divergent
        # region (one under a varying guard is refused, as it should be).
        plan = _plan(seed, **knobs)
        trap = next(s for s, _ in walk_stmts(plan.body) if isinstance(s, Trap))
        if not isinstance(trap.guard.a, ParamRef):
            seed = next(s for s in range(seed, 400)
                        if want <= _shapes(p := _plan(s, **knobs)) and not _shapes(p) & avoid
                        and all(isinstance(t.guard.a, ParamRef)
                                for t, _ in walk_stmts(p.body) if isinstance(t, Trap)))
    rep = check(generate(seed, **knobs), widths=[4])
    statuses = {r.status for r in rep.results}
    assert statuses == {expect}, [(r.status, r.detail[:200]) for r in rep.results]
    if expect == "not-vectorized":
        assert all("irreducible" in r.detail for r in rep.results)
