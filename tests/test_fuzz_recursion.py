"""Bounded recursion in generated kernels (fuzz/recursion.py): every call
chain ends, nothing but the shape's own call reaches a recursive helper,
the IR is what LLVM accepts, the vectorized kernels match, and the shape
appears in the rotation without crowding out the rest."""

from __future__ import annotations

import re

import pytest

import oracle
from fuzz.coverage import _helper_uses_ids
from fuzz.generator import generate, generate_kernel
from fuzz.knobs import PROFILES
from fuzz.plan import (
    I32,
    Bin,
    Call,
    Const,
    Helper,
    KernelPlan,
    Lin,
    VarRef,
    WorkItem,
    walk_expr,
    walk_stmts,
)
from fuzz.pretty import plan_c
from fuzz.recursion import MAX_DEPTH
from fuzz.rotation import PROFILE_CYCLE
from vectorizer import llvm_bridge

FAILING = {"mismatch", "vector-fault", "timeout", "vectorizer-error", "scalar-fault"}


def _recursive(plan: KernelPlan) -> list[Helper]:
    return [h for h in plan.helpers if h.recursive]


def _calls(plan: KernelPlan) -> list[tuple[str, Call]]:
    """Every helper call of the plan, with where it is (`kernel` or the caller's name)."""
    out: list[tuple[str, Call]] = []
    for where, body, extra in [("kernel", plan.body, [])] + [
            (h.name, h.body, [e for e in (h.result, h.base) if e is not None]) for h in plan.helpers]:
        exprs = [e for s, _ in walk_stmts(body) for e in s.exprs()] + extra
        out += [(where, x) for e in exprs for x in walk_expr(e) if isinstance(x, Call)]
    return out


def _depth_bound(e: object) -> int | None:
    """The largest depth the kernel's depth argument can have (None: unbounded)."""
    if isinstance(e, Const):
        return int(e.value) if 0 <= int(e.value) else None  # type: ignore[arg-type]
    if isinstance(e, Bin) and isinstance(e.b, Const) and e.op == "and":
        return int(e.b.value)  # type: ignore[arg-type]
    if isinstance(e, Bin) and isinstance(e.b, Const) and e.op == "urem":
        return int(e.b.value) - 1  # type: ignore[arg-type]
    return None


def _first(pred, profile: str = "calls", n: int = 60) -> int:
    for seed in range(n):
        if pred(generate_kernel(seed, profile=profile).plan):
            return seed
    raise AssertionError(f"no {profile} kernel of seeds 0..{n - 1} has the shape")


def _queries(plan: KernelPlan) -> bool:
    """Whether the recursive helpers query a per-lane id or call another helper."""
    rec = _recursive(plan)
    for h in rec:
        for e in (h.result, h.base):
            for x in walk_expr(e) if e is not None else ():
                if isinstance(x, WorkItem) and x.kind in ("global_id", "local_id"):
                    return True
                if isinstance(x, Call) and x.helper not in rec:
                    return True
    return False


def _is_mutual(plan: KernelPlan) -> bool:
    return len(_recursive(plan)) == 2 and not _queries(plan)


def _is_direct(plan: KernelPlan) -> bool:
    return len(_recursive(plan)) == 1 and not _queries(plan)


@pytest.mark.parametrize("profile", ["calls", "default"])
def test_every_call_chain_is_bounded(profile: str) -> None:
    """A recursive helper steps to itself or its partner with `depth - 1` and
    stops at `depth <= 0`; the kernel calls it once, with a depth of at most
    7; nothing else calls it. Both forms are drawn, and mostly without a
    per-lane id query or another helper call in the recursive helpers."""
    forms = set()
    queries = 0
    for seed in range(80):
        plan = generate_kernel(seed, profile=profile).plan
        rec = _recursive(plan)
        if not rec:
            continue
        forms.add(len(rec))
        queries += _queries(plan)
        names = {h.name for h in rec}
        calls = [(where, c) for where, c in _calls(plan) if c.helper.name in names]
        kernel_calls = [c for where, c in calls if where == "kernel"]
        assert len(kernel_calls) == 1 and kernel_calls[0].helper is rec[0], seed
        bound = _depth_bound(kernel_calls[0].args[-1])
        assert bound is not None and 0 <= bound <= MAX_DEPTH, (seed, kernel_calls[0].args[-1])
        for h in rec:
            assert h.depth is h.params[-1] and h.depth.ty == I32 and h.base is not None and h.ret is not None
            inner = [c for where, c in calls if where == h.name]
            partner = rec[(rec.index(h) + 1) % len(rec)]
            assert [c.helper for c in inner if c.helper in rec] == [partner], (seed, h.name)
            step = inner[0].args[-1]
            assert isinstance(step, Bin) and step.op == "sub" and isinstance(step.a, VarRef) \
                and step.a.var is h.depth and isinstance(step.b, Const) and step.b.value == 1
            assert not h.has_side_effects and not h.body
            for x in walk_expr(h.base):
                assert not isinstance(x, Lin) and (not isinstance(x, Call) or not x.helper.recursive), seed
        assert not [where for where, _ in calls if where not in names | {"kernel"}], seed
    assert forms == {1, 2}, forms
    assert queries <= 8, queries  # QUERIES = 0.15 of at most about 45 recursive kernels


def test_recursive_helpers_in_ir_and_pseudo_c() -> None:
    """The helper calls itself (direct) or the pair call each other (mutual) in
    the module LLVM parses and verifies; the pseudo C shows the base case."""
    for pred in (_is_direct, _is_mutual):
        seed = _first(pred)
        g = generate_kernel(seed, profile="calls")
        body = "\n".join(line for line in g.text.splitlines() if not line.startswith(";"))
        llvm_bridge.parse(body)
        rec = _recursive(g.plan)
        for i, h in enumerate(rec):
            callee = rec[(i + 1) % len(rec)]
            fn = re.search(rf"define internal [^@]*@{h.name}\(.*?\n}}", body, re.S)
            assert fn is not None and re.search(rf"call [^@]*@{callee.name}\(", fn.group(0)), (seed, h.name)
            assert "icmp sle i32" in fn.group(0)
            assert f"if ({h.depth.name} <= 0) return" in plan_c(g.plan)  # type: ignore[union-attr]


@pytest.mark.parametrize("form", ["direct", "mutual"])
def test_recursive_kernels_match(form: str) -> None:
    """The vectorizer calls a recursive helper once per lane (it does not
    inline it): the vectorized kernels compute what the scalar ones do."""
    seed = _first(_is_direct if form == "direct" else _is_mutual)
    report = oracle.check(generate(seed, profile="calls"), timeout=30, widths=[4, 8])
    bad = [f"W={r.width} dim={r.dim}: {r.status}: {r.detail}" for r in report.results if r.status in FAILING]
    assert not bad, f"generate({seed}, profile='calls')\n" + "\n".join(bad)
    assert any(r.status == "match" for r in report.results), report.summary


def test_recursive_helper_reading_ids_is_refused() -> None:
    """A recursive helper that queries a per-lane id (or calls a helper that
    may) cannot run once per lane for the packet: the vectorizer refuses
    the kernel (the call stays a call and reaches the query), never
    computes it wrong."""
    for seed in range(200):
        plan = generate_kernel(seed, profile="calls").plan
        if _recursive(plan) and _queries(plan) and _helper_uses_ids(_recursive(plan)[0]):
            report = oracle.check(generate(seed, profile="calls"), timeout=30, widths=[4])
            assert {r.status for r in report.results} == {"not-vectorized"}, report.summary
            assert all("stays a call" in r.detail for r in report.results), report.summary
            return
    raise AssertionError("no recursive helper reading a work-item id in 200 calls kernels")


def test_rates_in_the_rotation() -> None:
    """Off where helpers are off; in about one kernel in ten where they are
    on, and in most `calls` kernels."""
    seen: dict[str, int] = {}
    seeds = range(11 * 20)
    for seed in seeds:
        profile = PROFILE_CYCLE[seed % len(PROFILE_CYCLE)]
        if _recursive(generate_kernel(seed, profile=profile).plan):
            seen[profile] = seen.get(profile, 0) + 1
    for profile in PROFILE_CYCLE:
        if PROFILES[profile].get("max_helpers", 2) == 0:
            assert profile not in seen, profile
    assert seen.get("calls", 0) >= 8, seen  # 0.6 of 20
    others = sum(n for p, n in seen.items() if p != "calls")
    assert 3 <= others <= 25, seen  # 0.1 of the 120 kernels of the other profiles with helpers


def test_knob_off_leaves_the_kernel_as_it_was() -> None:
    """Drawn after the rest of the plan: a seed without the shape gives the
    same kernel with the knob off."""
    for seed in range(30):
        with_shape = generate_kernel(seed, profile="calls")
        without = generate_kernel(seed, profile="calls", recursion=0.0)
        assert not _recursive(without.plan)
        if not _recursive(with_shape.plan):
            strip = [line for line in with_shape.text.splitlines() if not line.startswith("; origin")]
            assert strip == [line for line in without.text.splitlines() if not line.startswith("; origin")]
