"""The oracle's own reading of collective builtin names (oracle/collective_names.py).

Its meanings come from the OpenCL C builtin declarations and their Itanium
mangling; the cross-checks compare it with the vectorizer's parser
(vectorizer/analysis/subgroups.py) on the names the peer corpus and the
`subgroup` fuzz profile use. The one intentional difference: the oracle
refuses argument lists no OpenCL C declaration has (a wrong operand count, a
signed or 64-bit lane id, a vector operand to a reduction, scan or vote, a
scalar ballot value), which the vectorizer's parser accepts.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fuzz.generator import generate
from oracle import collective_names as O
from vectorizer.analysis import subgroups as V

PEER = Path(__file__).parents[2] / ".." / "shared" / "peer-corpus" / "vecz-lit"
_CALL = re.compile(r'@("[^"]+"|[-\w$.]+)\s*\(')


def _mangled(base: str, params: str) -> str:
    return f"_Z{len(base)}{base}{params}"


@pytest.mark.parametrize("params,op,element,signed", [
    ("c", "smin", "i8", True), ("h", "umin", "i8", False), ("s", "smin", "i16", True),
    ("t", "umin", "i16", False), ("i", "smin", "i32", True), ("j", "umin", "i32", False),
    ("l", "smin", "i64", True), ("m", "umin", "i64", False), ("f", "fmin", "f32", None),
    ("d", "fmin", "f64", None), ("Dh", "fmin", "f16", None),
])
def test_min_signedness_comes_from_the_operand_type(params: str, op: str, element: str,
                                                      signed: bool | None) -> None:
    for base, kind, nu in (("sub_group_reduce_min", O.REDUCE, False),
                           ("work_group_scan_inclusive_min", O.SCAN_INCLUSIVE, False),
                           ("sub_group_non_uniform_scan_exclusive_min", O.SCAN_EXCLUSIVE, True)):
        c = O.parse_collective(_mangled(base, params))
        assert c is not None and (c.kind, c.op, c.element, c.signed, c.non_uniform) == (kind, op, element, signed, nu)
    c = O.parse_collective(_mangled("sub_group_clustered_reduce_min", params + "j"))
    assert c is not None and (c.kind, c.op, c.cluster, c.extra) == (O.CLUSTERED_REDUCE, op, 1, (1,))


def test_operand_layouts() -> None:
    sh = O.parse_collective(_mangled("sub_group_shuffle_down", "fj"))
    assert sh is not None and (sh.kind, sh.value, sh.extra) == (O.SHUFFLE_DOWN, 0, (1,))
    wb = O.parse_collective(_mangled("work_group_broadcast", "Dv4_fmm"))
    assert wb is not None and (wb.scope, wb.kind, wb.value, wb.extra) == ("work", O.BROADCAST, 0, (1, 2))
    el = O.parse_collective(_mangled("sub_group_elect", "v"))
    assert el is not None and (el.kind, el.value, el.non_uniform) == (O.ELECT, None, True)
    bx = O.parse_collective(_mangled("sub_group_ballot_bit_extract", "Dv4_jj"))
    assert bx is not None and (bx.kind, bx.op, bx.extra) == (O.BALLOT_BIT, "ballot_bit_extract", (1,))


def test_mux_spellings_carry_operation_and_type() -> None:
    c = O.parse_collective("__mux_sub_group_reduce_umin_i32")
    assert c is not None and (c.kind, c.op, c.signed, c.element, c.value, c.mux) == (
        O.REDUCE, "umin", False, "i32", 0, True)
    w = O.parse_collective("__mux_work_group_scan_inclusive_fadd_f32")
    assert w is not None and (w.scope, w.kind, w.op, w.value) == ("work", O.SCAN_INCLUSIVE, "fadd", 1)
    lanes = O.parse_collective("__mux_work_group_scan_exclusive_add_v4i32")
    assert lanes is not None and (lanes.kind, lanes.op, lanes.element) == (O.SCAN_EXCLUSIVE, "add", "i32")
    up = O.parse_collective("__mux_sub_group_shuffle_up_f32")
    assert up is not None and (up.value, up.extra) == (0, (1, 2))  # prev, curr, delta
    assert O.parse_collective("__mux_sub_group_reduce_umin_q32") is None


def test_substitutions_and_three_argument_shuffles() -> None:
    assert O.demangle("_Z3fooDv4_fS_j") == ("foo", [O.Param("f32", None, 4), O.Param("f32", None, 4),
                                                   O.Param("i32", False)])
    # (float4 cur, float4 next, uint delta) is Intel's shuffle, not the KHR one.
    name = "_Z22sub_group_shuffle_downDv4_fS_j"
    assert O.parse_collective(name) is None
    assert O.is_collective_name(name)
    assert name in O.unsupported_reason(name)


def test_queries_and_barriers() -> None:
    assert not O.is_collective_name("_Z18get_sub_group_sizev")
    assert not O.is_collective_name("__mux_get_sub_group_id")
    assert not O.is_collective_name(_mangled("work_group_barrier", "j"))
    assert O.parse_collective(_mangled("sub_group_barrier", "j")).kind == O.BARRIER  # type: ignore[union-attr]
    assert O.parse_collective(_mangled("sub_group_non_uniform_reduce_logical_and", "i")) is None
    assert "logical" in O.unsupported_reason(_mangled("sub_group_non_uniform_reduce_logical_and", "i"))


@pytest.mark.parametrize("op,bits,want", [
    ("add", 32, 0), ("mul", 32, 1), ("and", 8, -1), ("and", 1, 1), ("or", 16, 0), ("xor", 64, 0),
    ("smin", 8, 127), ("smax", 8, -128), ("smin", 32, 2**31 - 1), ("umin", 16, -1), ("umax", 16, 0),
    ("logical_and", 1, 1), ("logical_or", 1, 0),
])
def test_integer_identities(op: str, bits: int, want: int) -> None:
    assert O.identity(op, bits, False) == want


def test_float_identities() -> None:
    assert O.identity("fadd", 32, True) == 0 and O.identity("fmul", 64, True) == 1
    assert O.identity("fmin", 32, True) == float("inf") and O.identity("fmax", 16, True) == float("-inf")
    with pytest.raises(ValueError):
        O.identity("min", 32, False)


def _meaning(c) -> tuple | None:
    return None if c is None else (c.scope, c.kind, c.op, c.value, tuple(c.extra), c.mux, c.non_uniform)


def _collective_calls(text: str) -> set[str]:
    return {n.strip('"') for n in _CALL.findall(text) if "group_" in n or "ballot" in n}


def _assert_agree(names: set[str]) -> None:
    bad = [(n, _meaning(V.parse_collective(n)), _meaning(O.parse_collective(n))) for n in sorted(names)
           if _meaning(V.parse_collective(n)) != _meaning(O.parse_collective(n))
           or V.is_collective_name(n) != O.is_collective_name(n)]
    assert not bad, bad[:5]


@pytest.mark.skipif(not PEER.is_dir(), reason="needs ../shared/peer-corpus/vecz-lit")
def test_parsers_agree_on_the_peer_corpus() -> None:
    names: set[str] = set()
    for f in PEER.rglob("*.ll"):
        names |= _collective_calls(f.read_text(errors="replace"))
    assert sum(O.parse_collective(n) is not None for n in names) >= 40
    _assert_agree(names)


def test_parsers_agree_on_generated_subgroup_kernels() -> None:
    names: set[str] = set()
    for seed in range(200):
        names |= _collective_calls(generate(seed, profile="subgroup"))
    understood = [O.parse_collective(n) for n in names]
    # The generator's unsigned min/max collectives are among them.
    assert any(c is not None and c.op in ("umin", "umax") and c.non_uniform for c in understood)
    _assert_agree(names)


def test_the_oracle_only_refuses_where_the_parsers_differ() -> None:
    """On every OpenCL C spelling over a grid of argument lists, a difference is
    the oracle refusing a declaration OpenCL C does not have."""
    rests = [f"{k}_{op}" for k in ("reduce", "scan_inclusive", "scan_exclusive", "non_uniform_reduce",
                                   "non_uniform_scan_exclusive", "clustered_reduce")
             for op in ("add", "mul", "min", "max", "and", "xor", "logical_or")]
    rests += ["all", "any", "broadcast", "shuffle", "shuffle_xor", "shuffle_up", "elect", "ballot",
              "non_uniform_all", "non_uniform_all_equal", "non_uniform_broadcast", "broadcast_first",
              "inverse_ballot", "ballot_bit_extract", "barrier"]
    types = ["c", "h", "s", "t", "i", "j", "l", "m", "f", "d", "Dh", "Dv4_f", "Dv4_j", "v"]
    arg_lists = list(types) + [t + "j" for t in types] + [t + "m" for t in types] + ["Dv4_fS_j", "ffj"]
    refused = 0
    for scope in ("sub_group_", "work_group_"):
        for rest in rests:
            for params in arg_lists:
                name = _mangled(scope + rest, params)
                v, o = V.parse_collective(name), O.parse_collective(name)
                assert o is None or _meaning(o) == _meaning(v), name
                refused += o is None and v is not None
    assert refused  # the grid has ill-formed declarations


@pytest.mark.parametrize("rest", ["shuffle", "shuffle_xor", "shuffle_up", "shuffle_down", "broadcast",
                                  "non_uniform_broadcast", "clustered_reduce_add"])
@pytest.mark.parametrize("params", ["Dv4_fS_j", "Dv2_jS_j", "ffj"])
def test_both_refuse_three_argument_forms(rest: str, params: str) -> None:
    """(T, T, uint) is not a sub-group shuffle, broadcast or clustered reduction
    of OpenCL C (Intel's shuffles are `intel_sub_group_*`): neither parser
    may take it for the two-operand form (a substituted `S_` operand counts)."""
    name = _mangled("sub_group_" + rest, params)
    assert O.parse_collective(name) is None
    assert V.parse_collective(name) is None
