"""The `subgroup` profile's divergent code (fuzz.subgroup_kernels): non-uniform
forms under ifs and loops on varying conditions and trip counts, only the
forms the model defines there (docs/subgroups.md), and a few such kernels
through the oracle."""

from __future__ import annotations

import pytest

import oracle
from fuzz.generator import generate_kernel
from fuzz.plan import Builtin, If, Loop, walk_expr
from vectorizer.analysis.subgroups import parse_collective

ACTIVE = ("sub_group_non_uniform_", "sub_group_clustered_", "sub_group_elect", "sub_group_broadcast_first",
          "sub_group_ballot")
FAILING = {"mismatch", "vector-fault", "timeout", "vectorizer-error", "scalar-fault"}


def _names(exprs) -> list[str]:
    return [x.name for e in exprs for x in walk_expr(e) if isinstance(x, Builtin) and "_group_" in x.name]


def _divergent(s) -> bool:
    """An if or loop whose condition or trip count is no collective: varying."""
    if isinstance(s, (If, Loop)):
        return not any(n.startswith(("sub_group_", "work_group_")) for n in _names(s.exprs()))
    return False


def _walk(body, divergent=False):
    for s in body:
        yield s, divergent
        if isinstance(s, Loop):
            yield from _walk(s.body, divergent or _divergent(s))
        elif isinstance(s, If):
            yield from _walk(s.then, divergent or _divergent(s))
            yield from _walk(s.els, divergent or _divergent(s))


def _plans():
    for seed in range(40):
        yield seed, generate_kernel(seed, profile="subgroup").plan


def test_divergent_code_holds_only_the_forms_defined_there() -> None:
    seen = {"if": 0, "loop": 0}
    for _, plan in _plans():
        ctx: list = []
        for s, div in _walk(plan.body):
            names = _names(s.exprs())
            if not div:
                continue
            for n in names:
                if n.startswith(("sub_group_", "work_group_")):
                    assert n.startswith(ACTIVE) and not n.startswith("sub_group_ballot_"), n
            if names and any(n.startswith(ACTIVE) for n in names):
                ctx.append(s)
        for s, _ in _walk(plan.body):
            if _divergent(s) and any(n.startswith(ACTIVE) for t, d in _walk(s.then if isinstance(s, If) else s.body)
                                     for n in _names(t.exprs())):
                seen["if" if isinstance(s, If) else "loop"] += 1
    assert seen["if"] and seen["loop"], seen
    assert parse_collective("_Z16sub_group_balloti") is not None


@pytest.mark.parametrize("seed", [1, 4])
def test_generated_divergent_kernels_match(seed: int) -> None:
    g = generate_kernel(seed, profile="subgroup")
    assert any(d for _, d in _walk(g.plan.body)), "the seed draws no divergent code"
    report = oracle.check(g.text, widths=[4, 8], choices=["", "VectorPredication"], timeout=20)
    assert any(r.status == "match" for r in report.results), report.summary
    bad = [f"W={r.width} dim={r.dim}: {r.status}: {r.detail}" for r in report.results if r.status in FAILING]
    assert not bad, bad
