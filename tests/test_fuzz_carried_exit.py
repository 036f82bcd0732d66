"""Bottom-tested loops whose exit test is carried in a header phi
(`Knobs.carried_exit`, fuzz/emit.py): the latch branches on that phi, as
clang's loop rotation leaves some loops. Control-flow conversion replaces
such a phi by a load before it builds a uniform latch exit's `select`, and a
stale reference to it was found by a Csmith kernel, not by our generator;
these tests check that the generator now makes the shape, that it keeps the
loop's iterations, and that such kernels match under the oracle."""

from __future__ import annotations

import functools
from collections import Counter

import numpy as np

import oracle
from fuzz.generator import emit_plan, generate, generate_kernel, header_lines
from fuzz.plan import KernelPlan, Loop, walk_stmts
from vectorizer.ir import instructions as I
from vectorizer.ir import parse_module

FAILING = {"mismatch", "vector-fault", "timeout", "vectorizer-error", "scalar-fault"}


def _loops(plan: KernelPlan) -> list[Loop]:
    bodies = [plan.body, *(h.body for h in plan.helpers)]
    return [s for body in bodies for s, _ in walk_stmts(body) if isinstance(s, Loop)]


def _latches_on_header_phis(text: str) -> int:
    """Conditional back edges whose condition is a phi of the header they go to."""
    module = parse_module(text.split("\n\n", 1)[1] if text.startswith("; vecz-case") else text)
    n = 0
    for fn in module.functions:
        for block in fn.blocks:
            term = block.terminator
            if isinstance(term, I.BranchInst) and term.is_conditional:
                cond = term.condition
                if isinstance(cond, I.PhiNode) and cond.parent in term.successors:
                    n += 1
    return n


@functools.lru_cache(maxsize=1)
def _carried_seeds() -> tuple[int, ...]:
    """Seeds below 40 of the `loops` profile with a carried exit test."""
    found = []
    for seed in range(40):
        plan = generate_kernel(seed, profile="loops").plan
        if any(lp.carried_exit for lp in _loops(plan)):
            found.append(seed)
    return tuple(found)


def test_the_loops_profile_makes_latches_that_branch_on_a_header_phi() -> None:
    seeds = _carried_seeds()
    assert len(seeds) >= 5, seeds
    assert all(_latches_on_header_phis(generate(seed, profile="loops")) > 0 for seed in seeds[:5])


def test_a_profile_without_the_knob_draws_nothing_new() -> None:
    # carried_exit = 0 draws no choice: the default profile's kernels are the
    # ones it made before the knob existed, and none has the shape.
    for seed in range(10):
        plan = generate_kernel(seed).plan
        assert not any(lp.carried_exit for lp in _loops(plan))


def test_the_carried_test_keeps_the_loops_iterations() -> None:
    """The same plan emitted with and without the carried test computes the
    same buffers: the exit test moved, the iterations did not. (Ten kernels:
    in most, one iteration more or less never reaches a buffer; seed 9 of
    the `loops` profile is one where it does.)"""
    for seed in _carried_seeds()[:10]:
        gk = generate_kernel(seed, profile="loops")
        carried_text = gk.text
        plain = gk.plan  # emitted again with every exit test in its latch
        for lp in _loops(plain):
            lp.carried_exit = False
        plain_text = "\n".join(header_lines(plain, "test")) + "\n" + emit_plan(plain)
        assert _latches_on_header_phis(plain_text) < _latches_on_header_phis(carried_text)
        nd = gk.plan.ndranges[0].header
        ours = oracle.run_scalar(carried_text, nd)
        theirs = oracle.run_scalar(plain_text, nd)
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs, strict=True):
            assert (a is None) == (b is None)
            if a is not None:
                assert np.array_equal(a.view(np.uint8), b.view(np.uint8))


def test_kernels_with_a_carried_exit_match_under_the_oracle() -> None:
    statuses: Counter[str] = Counter()
    for seed in _carried_seeds()[:3]:
        report = oracle.check(generate(seed, profile="loops"))
        statuses.update(r.status for r in report.results)
    assert statuses["match"] > 0 and not FAILING & set(statuses), statuses
