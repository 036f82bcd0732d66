"""The generator's work-group kernels (fuzz/workgroup.py, profile `workgroup`):
barriers only where the whole group arrives, no tile read without a barrier
after the stores it reads, both forms of `__local` tiles, and the oracle
catching the race a missing barrier would make."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

import oracle
from fuzz import generate, generate_kernel
from fuzz.coverage import measure
from fuzz.emit import ModuleEmitter
from fuzz.plan import (
    Atomic,
    Barrier,
    Expr,
    If,
    KernelPlan,
    Let,
    Load,
    Loop,
    PeerSlot,
    PrefixScan,
    Return,
    Stmt,
    Store,
    TreeReduce,
    VarRef,
    WorkItem,
    walk_expr,
    walk_stmts,
)
from fuzz.strategies import plans

SEEDS = range(80)
SYNC = (Barrier, TreeReduce, PrefixScan)


def _holds_barrier(s: Stmt) -> bool:
    return isinstance(s, SYNC) or any(isinstance(t, SYNC) for b in s.blocks() for t, _ in walk_stmts(b))


def _group_uniform(e: Expr, uniform_vars: set[int]) -> bool:
    """No local or global id (except in `gid - lid`), no variable but the
    group-uniform ones (reduction results)."""
    xs = list(walk_expr(e))
    ids = [x for x in xs if isinstance(x, WorkItem) and x.kind in ("local_id", "global_id")]
    disguised = sorted(x.kind for x in ids) in ([], ["global_id", "local_id"])
    return disguised and all(x.var.id in uniform_vars for x in xs if isinstance(x, VarRef))


def _check_sync_positions(body: list[Stmt], uniform_vars: set[int]) -> None:
    """Every statement holding a barrier sits in loops and ifs whose
    conditions are the same for the whole group."""
    for s in body:
        if not _holds_barrier(s):
            continue
        if isinstance(s, Loop):
            assert _group_uniform(s.trip, set()), "a barrier in a loop whose trip count varies in the group"
            _check_sync_positions(s.body, uniform_vars)
        elif isinstance(s, If):
            assert _group_uniform(s.cond, uniform_vars), "a barrier under a branch that varies in the group"
            _check_sync_positions(s.then, uniform_vars)
            assert not any(_holds_barrier(t) for t in s.els)
        else:
            assert isinstance(s, SYNC), f"a barrier inside a {type(s).__name__}"


def _reduction_results(plan: KernelPlan) -> set[int]:
    return {s.var.id for s, _ in walk_stmts(plan.body)
            if isinstance(s, Let) and isinstance(s.value, Load) and isinstance(s.value.addr, PeerSlot)
            and s.value.addr.pattern == "first"}


def _check_reads_follow_barriers(body: list[Stmt], dirty: set[int]) -> set[int]:
    """In program order: a tile stored since the last barrier is never read
    at another work-item's slot, and never stored after such a read without
    a barrier between (checked per block, loops entered twice)."""
    read: set[int] = set()
    atomic: set[int] = set()
    for s in body:
        if isinstance(s, SYNC):
            dirty, read, atomic = set(), set(), set()
            continue
        if isinstance(s, Store) and s.buffer.role == "tile":
            assert id(s.buffer) not in read, "a tile stored while another work-item may still read it"
            dirty.add(id(s.buffer))
        if isinstance(s, Atomic) and s.buffer.role == "tile":
            # Atomics on one slot may share an interval with each other, not
            # with plain stores or reads of it.
            assert id(s.buffer) not in read and id(s.buffer) not in dirty - atomic, "an atomic racing a store"
            dirty.add(id(s.buffer))
            atomic.add(id(s.buffer))
        for e in s.exprs():
            for x in walk_expr(e):
                if isinstance(x, Load) and isinstance(x.addr, PeerSlot):
                    assert id(x.buffer) not in dirty, "a tile read without a barrier after its stores"
                    read.add(id(x.buffer))
        if isinstance(s, Loop):
            after = _check_reads_follow_barriers(s.body, set(dirty))
            _check_reads_follow_barriers(s.body, after)  # the next iteration
        elif isinstance(s, If):
            _check_reads_follow_barriers(s.then, set(dirty))
    return dirty


@pytest.mark.parametrize("chunk", range(2))
def test_barriers_are_reached_by_the_whole_group_and_tiles_are_race_free(chunk: int) -> None:
    for seed in SEEDS[chunk::2]:
        plan = generate_kernel(seed, profile="workgroup").plan
        assert any(isinstance(s, SYNC) for s, _ in walk_stmts(plan.body)), seed
        assert not any(isinstance(s, Return) for s, _ in walk_stmts(plan.body)), seed
        _check_sync_positions(plan.body, _reduction_results(plan))
        _check_reads_follow_barriers(plan.body, set())


def test_tiles_take_every_form_and_the_header_sizes_the_arguments() -> None:
    seen_arg = seen_global = seen_2d = False
    for seed in range(40):
        g = generate_kernel(seed, profile="workgroup")
        for b in g.plan.buffers:
            if b.role == "tile":
                seen_arg = True
                assert b.addrspace == 3 and b.count == g.plan.max_local_total
                assert f"local:{b.elem.header}:{b.count}" in g.text.splitlines()[2]
        for b in g.plan.local_globals:
            seen_global = True
            if b.two_d:  # clang's `__local T t[rows][cols]`, indexed `t[row][col]`
                seen_2d = True
                assert f"@fuzz_kernel.{b.name} = internal addrspace(3) global [{b.rows} x [{b.cols} x" in g.text
                assert f"getelementptr inbounds [{b.cols} x" in g.text
            else:
                assert f"@fuzz_kernel.{b.name} = internal addrspace(3) global [{b.count} x" in g.text
    assert seen_arg and seen_global and seen_2d


def test_mux_kernels_call_the_mux_barrier() -> None:
    for seed in range(60):
        g = generate_kernel(seed, profile="workgroup")
        if g.plan.builtins == "mux":
            assert "call void @__mux_work_group_barrier(i32 0, i32 2, i32" in g.text
            assert "_Z7barrierj" not in g.text
            return
    pytest.fail("no workgroup kernel with __mux_* builtins in 60 seeds")


def test_coverage_counts_the_work_group_constructs() -> None:
    report = measure(60, emit=False, profile="workgroup")
    assert report.present["workgroup: barrier"] == 60
    for key in ("workgroup: barrier in a uniform loop", "workgroup: barrier under a uniform if",
                "workgroup: tree reduction (halving)", "workgroup: tree reduction (doubling)",
                "workgroup: prefix scan", "workgroup: atomic on __local memory",
                "workgroup: __local tile as a kernel argument",
                "workgroup: __local tile as a module addrspace(3) global",
                "workgroup: 2-D __local tile (rows of the group's x size)",
                "workgroup: group size not a multiple of 4", "dims: 1", "dims: 2", "dims: 3"):
        assert report.present[key] > 0, key


def test_other_profiles_have_no_barriers() -> None:
    assert "barrier" not in generate(4)
    assert "barrier" not in generate(4, profile="memory")


def test_the_oracle_finds_the_race_a_missing_barrier_makes() -> None:
    """Drop the barrier between a tile's stores and the reads of other
    work-items' slots: the scalar run then depends on the work-items' order."""
    from fuzz.generator import header_lines
    from vectorizer.ir.printer import print_module

    for seed in range(40):
        g = generate_kernel(seed, profile="workgroup")
        body = g.plan.body
        at = next((i for i in range(len(body) - 2)
                   if isinstance(body[i], Store) and body[i].buffer.role == "tile"
                   and isinstance(body[i + 1], Barrier) and isinstance(body[i + 2], Let)
                   and isinstance(body[i + 2].value, Load)
                   and getattr(body[i + 2].value.addr, "pattern", "") in ("rotate", "mirror")), None)
        if at is None or g.plan.max_local_total < 2:
            continue
        del body[at + 1]
        text = "\n".join(header_lines(g.plan, "test")) + "\n" + print_module(ModuleEmitter(g.plan).emit())
        report = oracle.check_scalar(text)
        assert {r.status for r in report.results} & {"scalar-fault", "scalar-race"}, report.summary
        return
    pytest.fail("no top-level tile exchange with a neighbour read in 40 seeds")


@settings(max_examples=15, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(plan=plans(profile="workgroup"))
def test_hypothesis_plans_keep_the_barrier_rules(plan: KernelPlan) -> None:
    """Plans drawn by Hypothesis (which shrinks failures) obey the same rules."""
    assert any(isinstance(s, SYNC) for s, _ in walk_stmts(plan.body))
    _check_sync_positions(plan.body, _reduction_results(plan))
    _check_reads_follow_barriers(plan.body, set())
