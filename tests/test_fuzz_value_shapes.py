"""Value and builtin shapes the generator draws on purpose (fuzz/value_shapes.py:
ids near the signed limit and narrow wrap-around values; fuzz/struct_shapes.py,
the ballot bit reads of fuzz/subgroup_kernels.py):
they appear in generated IR, the IR parses, and a few such kernels match
under the oracle (scalar against vectorized, no failing verdict)."""

from __future__ import annotations

import functools
import re

import pytest

import oracle
from fuzz.choice_source import Choices, RandomSource
from fuzz.generator import generate, generate_kernel, plan_kernel
from fuzz.knobs import make_knobs
from fuzz.plan import (
    I8,
    I32,
    I64,
    Biased,
    Bin,
    Cast,
    KernelPlan,
    Let,
    Lin,
    Load,
    Store,
    Ty,
    VarRef,
    WorkItem,
    max_id,
    walk_expr,
    walk_stmts,
)
from fuzz.rotation import PROFILE_CYCLE
from fuzz.subgroup_kernels import mangle_collective
from fuzz.value_shapes import extended_near_limit, near_signed_limit
from vectorizer import llvm_bridge
from vectorizer.analysis.data_layout import DataLayout
from vectorizer.analysis.stride import Pattern, StrideAnalysis
from vectorizer.analysis.subgroups import BALLOT_BIT, parse_collective
from vectorizer.analysis.uniformity import UniformValueAnalysis
from vectorizer.ir import instructions as I
from vectorizer.ir import parse_module
from vectorizer.ir import values as V

FAILING = {"mismatch", "vector-fault", "timeout", "vectorizer-error", "scalar-fault"}
BALLOT_BIT_CALL = re.compile(r"call i32 @_Z(28sub_group_ballot_bit_extractDv4_jj|24sub_group_inverse_ballotDv4_j)\(")
STRUCT_TYPE = re.compile(r"^%struct\.priv\d+ = type \{ (.+) \}$", re.M)
# An i32 add/sub/mul with a constant within 24 of a signed limit, or past a quarter of the range.
NEAR_LIMIT = re.compile(r"= (add|sub|mul) i32 [^\n]*\b(-?21474836[0-4]\d|10737418[2-3]\d|715827882)\b")


def _first(pattern: re.Pattern[str], n: int = 60, **knobs: object) -> tuple[int, str]:
    for seed in range(n):
        text = generate(seed, **knobs)
        if pattern.search(text):
            return seed, text
    raise AssertionError(f"no kernel of seeds 0..{n - 1} has {pattern.pattern}")


def _body(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith(";"))


def _no_failure(text: str, what: str, **kw: object) -> None:
    report = oracle.check(text, timeout=20, **kw)
    assert any(r.status == "match" for r in report.results), report.summary
    bad = [f"W={r.width} dim={r.dim} {r.choices}: {r.status}: {r.detail}" for r in report.results
           if r.status in FAILING or r.status == "generator-ub"]
    assert not bad, what + "\n" + "\n".join(bad)


def test_ballot_bit_names_are_those_the_parser_reads() -> None:
    bal = Ty("i32", 4)
    extract = mangle_collective("sub_group_ballot_bit_extract", [bal, I32], signed=False)
    inverse = mangle_collective("sub_group_inverse_ballot", [bal], signed=False)
    assert (extract, inverse) == ("_Z28sub_group_ballot_bit_extractDv4_jj", "_Z24sub_group_inverse_ballotDv4_j")
    for name, op, extra in ((extract, "ballot_bit_extract", (1,)), (inverse, "inverse_ballot", ())):
        c = parse_collective(name)
        assert c is not None and (c.kind, c.op, c.extra) == (BALLOT_BIT, op, extra)


def test_narrow_collectives_are_named_by_their_signedness() -> None:
    """uchar/char and ushort/short reductions: min/max by the mangled code."""
    from fuzz.plan import I16

    for ty, signed, name, op in ((I8, False, "_Z20sub_group_reduce_minh", "umin"),
                                 (I8, True, "_Z20sub_group_reduce_minc", "smin"),
                                 (I16, False, "_Z32sub_group_non_uniform_reduce_maxt", "umax"),
                                 (I16, True, "_Z32sub_group_non_uniform_reduce_maxs", "smax")):
        base = name[4:-1]
        got = mangle_collective(base, [ty], signed)
        c = parse_collective(got)
        assert got == name and c is not None and c.op == op, (got, c)


def test_near_limit_values_wrap_past_small_ids() -> None:
    """Every form is `id op constant` (or `constant - id`) whose exact value
    leaves the signed range for some id below 64, so it wraps in a real
    NDRange while smaller ids do not."""
    forms: set[str] = set()
    for seed in range(60):
        e = near_signed_limit(Choices(RandomSource(seed)), Lin(), I64)
        assert isinstance(e, Bin) and e.op in ("add", "sub", "mul")
        forms.add(e.op)
        k = e.a.value if e.op == "sub" else e.b.value  # type: ignore[union-attr]
        exact = [{"add": i + k, "sub": k - i, "mul": i * k}[e.op] for i in range(64)]
        fits = [-(1 << 63) <= x < 1 << 63 for x in exact]
        assert fits[0] and not all(fits), (e.op, k)
    assert forms == {"add", "sub", "mul"}
    ext = extended_near_limit(Choices(RandomSource(3)), Cast("trunc", Lin(), I32))
    assert isinstance(ext, Cast) and ext.op in ("sext", "zext") and ext.ty == I64 and ext.a.ty == I32
    assert near_signed_limit(Choices(RandomSource(1)), Cast("trunc", Lin(), I8), I8).ty == I8


def test_shapes_appear_in_generated_ir_and_parse() -> None:
    for pattern, knobs in ((BALLOT_BIT_CALL, {"profile": "subgroup"}), (STRUCT_TYPE, {}), (NEAR_LIMIT, {})):
        _, text = _first(pattern, **knobs)
        llvm_bridge.parse(_body(text))  # LLVM's parser and verifier
        parse_module(_body(text))  # and ours
    # The struct's fields: a header of scalars (or <3 x float>) then the array.
    _, text = _first(STRUCT_TYPE)
    fields = STRUCT_TYPE.search(text).group(1)  # type: ignore[union-attr]
    assert re.fullmatch(r"((i8|i16|i32|i64|float|double|<3 x float>), ){1,3}(\[\d+ x [^\]]+\]|[^,]+)", fields), fields


@pytest.mark.parametrize("shape", ["ballot_bits", "struct", "near_limit"])
def test_kernels_with_the_shape_match(shape: str) -> None:
    if shape == "ballot_bits":
        seed, text = _first(BALLOT_BIT_CALL, profile="subgroup")
        _no_failure(text, f"generate({seed}, profile='subgroup')", widths=[4, 8])
    elif shape == "struct":
        seed, text = _first(STRUCT_TYPE)
        _no_failure(text, f"generate({seed})", widths=[4], choices=["", "FullScalarization"])
    else:
        seed, text = _first(NEAR_LIMIT)
        _no_failure(text, f"generate({seed})", widths=[4, 8])


def test_struct_header_is_in_the_plan_and_the_pretty_print() -> None:
    from fuzz.pretty import plan_c

    for seed in range(60):
        g = generate_kernel(seed)
        arrays = [a for a in g.plan.arrays if a.header]
        if arrays:
            assert not any(a.union for a in arrays)
            assert f"}} {arrays[0].name}_s;" in plan_c(g.plan)
            return
    raise AssertionError("no private array with a struct header in seeds 0..59")


# ---------------------------------------------------------------------------
# Narrow wrap-around values (value_shapes.add_narrow_wrap)


def _narrow_groups(plan: KernelPlan) -> list[tuple[Let, Let, Let]]:
    """The shape's `w = id op K; n = trunc w; s = ext n` lets."""
    stmts = [s for s, _ in walk_stmts(plan.body)]
    out = []
    for a, b, c in zip(stmts, stmts[1:], stmts[2:], strict=False):
        if isinstance(a, Let) and isinstance(b, Let) and isinstance(c, Let) \
                and isinstance(b.value, Cast) and b.value.op == "trunc" and isinstance(b.value.a, VarRef) \
                and b.value.a.var is a.var and isinstance(c.value, Cast) and isinstance(c.value.a, VarRef) \
                and c.value.a.var is b.var:
            out.append((a, b, c))
    return out


def _narrow_value(w: Bin, i: int, bits: int) -> int:
    """The narrow value `(iN)w` for the work-item whose id is `i`."""
    k = w.a.value if w.op == "sub" else w.b.value  # type: ignore[union-attr]
    exact = {"add": i + k, "sub": k - i, "mul": i * k}[w.op]
    if bits == 1:
        return -(exact & 1)
    exact &= (1 << bits) - 1
    return exact - (1 << bits) if exact >> (bits - 1) else exact


def _id_kind(w: Bin) -> tuple[str, int]:
    base = w.b if w.op == "sub" else w.a
    if isinstance(base, Cast):
        base = base.a
    if isinstance(base, Lin):
        return "lin", 0
    assert isinstance(base, WorkItem) and isinstance(base.dim, int), base
    return {"global_id": "gid", "local_id": "lid"}[base.kind], base.dim


@functools.lru_cache(maxsize=2)
def _rotation_plans(n: int) -> tuple[tuple[int, KernelPlan], ...]:
    """The plans of seeds 0..n-1, each of its profile in the rotation (no IR: cheaper)."""
    return tuple((s, plan_kernel(RandomSource(s), make_knobs(profile=PROFILE_CYCLE[s % len(PROFILE_CYCLE)])))
                 for s in range(n))


def test_narrow_values_wrap_between_two_work_items() -> None:
    """`w` is an id moved so the narrow type's sign bit is passed at a small
    id, inside the NDRange (at an odd id, where no packet of 2, 4, 8 or 16
    lanes starts, for the add and sub forms); the extension is to a type
    narrower than `w`'s and wider than the narrow one; `w` and the
    extended value are stored; i8 and i1 values also index a buffer from
    its middle. Every form and width is drawn."""
    seen: set[tuple[str, int]] = set()
    for seed, plan in _rotation_plans(330):
        for w, n, s in _narrow_groups(plan):
            bits = n.var.ty.bits
            assert isinstance(w.value, Bin) and w.value.op in ("add", "sub", "mul"), seed
            assert s.var.ty.bits < w.var.ty.bits and s.var.ty.bits > bits and s.value.op in ("sext", "zext")
            seen.add((w.value.op, bits))
            kind, dim = _id_kind(w.value)
            top = max(1, max_id(plan.ndranges, kind, dim))
            vals = [_narrow_value(w.value, i, bits) for i in range(top + 1)]
            # Where the value jumps against the id's direction (i1: every change).
            back = (lambda a, b: a != b) if bits == 1 else (lambda a, b: b > a) if w.value.op == "sub" \
                else (lambda a, b: b < a)
            wraps = [i for i in range(1, top + 1) if back(vals[i - 1], vals[i])]
            assert wraps, (seed, w.value, vals[:8])
            if w.value.op in ("add", "sub") and bits > 1:
                assert wraps[0] % 2 == 1, (seed, wraps)
            stored = {id(x.value.var) for x, _ in walk_stmts(plan.body)
                      if isinstance(x, Store) and isinstance(x.value, VarRef)}
            assert id(w.var) in stored and id(s.var) in stored, seed
            loads = [x for st, _ in walk_stmts(plan.body) for e in st.exprs() for x in walk_expr(e)
                     if isinstance(x, Load) and isinstance(x.addr, Biased) and x.addr.expr.var is n.var]
            assert len(loads) == (1 if bits < 16 else 0), seed
    assert {b for _, b in seen} == {1, 8, 16} and {op for op, _ in seen} == {"add", "sub", "mul"}, seen


def test_narrow_wrap_rate_and_knob() -> None:
    """In about one kernel in ten, whatever the profile; none with the knob
    off, and then the kernel is the one the seed gave without the shape."""
    plans = _rotation_plans(330)[:220]
    with_shape = [s for s, p in plans if _narrow_groups(p)]
    assert 10 <= len(with_shape) <= 40, len(with_shape)
    assert len({PROFILE_CYCLE[s % len(PROFILE_CYCLE)] for s in with_shape}) >= 8
    for seed in range(12):
        profile = PROFILE_CYCLE[seed % len(PROFILE_CYCLE)]
        off = generate_kernel(seed, profile=profile, narrow_wrap=0.0)
        assert not _narrow_groups(off.plan)
        if seed not in with_shape:
            on = generate_kernel(seed, profile=profile)
            assert on.text.split("; origin")[1].split("\n", 1)[1] == off.text.split("; origin")[1].split("\n", 1)[1]


def _prepared(text: str, kernel: str) -> V.Function:
    from vectorizer.passes.preparation import PREPARATION

    body = _body(text)
    return parse_module(llvm_bridge.run_function_passes(body, kernel, PREPARATION)).get_function(kernel)


def test_truncation_reaches_the_stride_analysis_past_the_sign_bit() -> None:
    """After LLVM's preparation (instcombine would turn `sext(trunc w)` into
    shifts, or narrow `id + K`, if `w` were not kept wide), the truncation
    is still there, of a value the Stride Analysis finds linear, exact and
    bounded past the narrow sign bit: the bound check of `_cast`'s `trunc`
    rule decides, and it must make the extension divergent."""
    reached: set[int] = set()
    for seed, plan in _rotation_plans(330):
        groups = [(w, n) for w, n, s in _narrow_groups(plan) if n.var.ty.bits > 1 and s.value.op == "sext"]
        if not groups or len(reached) == 2:
            continue
        bits = groups[0][1].var.ty.bits
        kind, dim = _id_kind(groups[0][0].value)  # type: ignore[arg-type]
        if bits in reached or kind != "gid":
            continue
        text = generate(seed, profile=PROFILE_CYCLE[seed % len(PROFILE_CYCLE)])
        fn = _prepared(text, plan.name)
        stride = StrideAnalysis(UniformValueAnalysis(fn, dim), DataLayout.parse(None))
        for inst in fn.instructions():
            if isinstance(inst, I.CastInst) and inst.opcode == "sext" and isinstance(inst.value, I.CastInst) \
                    and inst.value.opcode == "trunc" and inst.value.type.bits == bits:
                src = stride.info(inst.value.value)
                if src.is_linear and src.exact and src.bound is not None and src.bound >= 1 << (bits - 1):
                    assert stride.info(inst).pattern is Pattern.DIVERGENT, (seed, inst)
                    reached.add(bits)
    assert reached == {8, 16}, reached


@pytest.mark.parametrize("bits", [1, 8, 16])
def test_narrow_wrap_kernels_match(bits: int) -> None:
    for seed, plan in _rotation_plans(330):
        if any(n.var.ty.bits == bits for _, n, _ in _narrow_groups(plan)):
            text = generate(seed, profile=PROFILE_CYCLE[seed % len(PROFILE_CYCLE)])
            _no_failure(text, f"seed {seed}", widths=[4, 7])
            return
    raise AssertionError(f"no i{bits} narrow wrap in 330 rotation seeds")
