"""The generator's `subgroup` profile (fuzz.subgroup_kernels.SubGroupPlanner):
what it draws, and a few of its kernels in the differential suite (scalar
against vectorized through the oracle, no failing verdict)."""

from __future__ import annotations

import os

import pytest

import fuzz
import oracle
from fuzz.generator import generate_kernel
from fuzz.plan import F32, I32, I64, Builtin, If, Loop, Ty, walk_expr
from fuzz.subgroup_kernels import mangle_collective

FAILING = {"mismatch", "vector-fault", "timeout", "vectorizer-error", "scalar-fault"}
SEEDS = [int(s) for s in os.environ.get("VECZ_DIFF_SUBGROUP_SEEDS", "2,4,8").split(",")]
CHOICES = ("", "VectorPredication", "LinearizeBOSCC", "PacketizeUniform")


def _walk(body, ctx=()):
    for s in body:
        yield s, ctx
        if isinstance(s, Loop):
            yield from _walk(s.body, (*ctx, s))
        elif isinstance(s, If):
            yield from _walk(s.then, (*ctx, s))
            yield from _walk(s.els, (*ctx, s))


def _collectives(s) -> list[str]:
    return [x.name for e in s.exprs() for x in walk_expr(e) if isinstance(x, Builtin)
            and x.name.startswith(("sub_group_", "work_group_"))]


def test_mangled_names_are_those_the_parser_reads() -> None:
    from vectorizer.analysis.subgroups import parse_collective

    assert mangle_collective("sub_group_reduce_max", [I32], signed=False) == "_Z20sub_group_reduce_maxj"
    assert mangle_collective("sub_group_broadcast", [F32, I32], True) == "_Z19sub_group_broadcastfj"
    assert mangle_collective("work_group_broadcast", [I64, I64, I64], True) == "_Z20work_group_broadcastlmm"
    assert mangle_collective("get_sub_group_local_id", [], False) == "_Z22get_sub_group_local_idv"
    assert mangle_collective("sub_group_ballot_bit_count", [Ty("i32", 4)], False) == \
        "_Z26sub_group_ballot_bit_countDv4_j"
    assert mangle_collective("sub_group_scan_inclusive_min", [I64], True, mux=True) == \
        "__mux_sub_group_scan_inclusive_smin_i64"
    c = parse_collective(mangle_collective("sub_group_reduce_max", [I32], signed=False))
    assert c is not None and c.op == "umax"


def test_profile_draws_collectives_in_uniform_loops_and_ifs_at_every_dimension() -> None:
    seen: set[str] = set()
    dims: set[int] = set()
    for seed in range(40):
        g = generate_kernel(seed, profile="subgroup")
        dims.add(g.plan.dims)
        for s, ctx in _walk(g.plan.body):
            names = _collectives(s)
            if not names:
                continue
            seen.add("top" if not ctx else "nested")
            if isinstance(s, Loop):
                seen.add("loop trip")
            if isinstance(s, If):
                seen.add("if condition")
            seen.update(n.split("_")[0] + "_group" for n in names)
            seen.update(f for n in names for f in ("non_uniform", "clustered", "elect") if f in n)
            # Work-group collectives only at the top level (work-group-uniform).
            assert not ctx or not any(n.startswith("work_group_") for n in names), names
    assert {"top", "nested", "loop trip", "if condition", "sub_group", "work_group", "non_uniform", "clustered",
            "elect"} <= seen
    assert dims == {1, 2, 3}


@pytest.mark.parametrize("seed", SEEDS)
def test_generated_subgroup_kernel_matches(seed: int) -> None:
    text = fuzz.generate(seed, profile="subgroup")
    choices = CHOICES[seed % len(CHOICES)]
    report = oracle.check(text, widths=[4, 7], choices=[choices], timeout=20)
    assert any(r.status == "match" for r in report.results), report.summary
    bad = [f"W={r.width} dim={r.dim} {r.global_size}/{r.local_size}: {r.status}: {r.detail}"
           for r in report.results if r.status in FAILING]
    assert not bad, f"fuzz.generate({seed}, profile='subgroup'):\n" + "\n".join(bad)
