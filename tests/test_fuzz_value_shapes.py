"""Value and builtin shapes the generator draws on purpose (fuzz/value_shapes.py,
fuzz/struct_shapes.py, the ballot bit reads of fuzz/subgroup_kernels.py):
they appear in generated IR, the IR parses, and a few such kernels match
under the oracle (scalar against vectorized, no failing verdict)."""

from __future__ import annotations

import re

import pytest

import oracle
from fuzz.choice_source import Choices, RandomSource
from fuzz.generator import generate, generate_kernel
from fuzz.plan import I8, I32, I64, Bin, Cast, Lin, Ty
from fuzz.subgroup_kernels import mangle_collective
from fuzz.value_shapes import extended_near_limit, near_signed_limit
from vectorizer import llvm_bridge
from vectorizer.analysis.subgroups import BALLOT_BIT, parse_collective
from vectorizer.ir import parse_module

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
