"""Relational builtins (OpenCL C 1.2, 6.12.6): comparisons and classification
(scalar: int 0/1; vectors: -1/0 in integers as wide as the elements), any,
all, bitselect, select.
"""

from __future__ import annotations

import math

from .ir import Builder, Val
from .registry import Impl, all_same, builtin, int_like, is_value
from .types import CLType, integer_of_size

_COMPARE = {"isequal": "oeq", "isnotequal": "une", "isgreater": "ogt", "isgreaterequal": "oge",
            "isless": "olt", "islessequal": "ole", "islessgreater": "one", "isordered": "ord",
            "isunordered": "uno"}


def _result_type(t: CLType) -> CLType:
    return CLType("int") if t.width == 1 else CLType(integer_of_size(t.bits, True), t.width)


def _to_int(b: Builder, c: Val, t: CLType) -> Val:
    rt = _result_type(t)
    ty = c.ty.like(rt.llvm_elem)
    return b.cast("zext" if t.width == 1 else "sext", c, ty)


@builtin(*_COMPARE)
def _compare(name: str, params: tuple[CLType, ...]) -> Impl | None:
    t = all_same(params, 2, "f")
    if t is None:
        return None
    return Impl(_result_type(t), lambda b, x, y: _to_int(b, x.cmp(_COMPARE[name], y), t), family="relational")


def _classify(name: str, b: Builder, x: Val) -> Val:
    a = b.fabs(x)
    if name == "isfinite":
        return a.olt(math.inf)
    if name == "isinf":
        return a.oeq(math.inf)
    if name == "isnan":
        return b.is_nan(x)
    if name == "isnormal":
        smallest = {"half": 2.0**-14, "float": 2.0**-126, "double": 2.0**-1022}[x.ty.elem]
        return a.olt(math.inf) & a.oge(smallest)
    return b.as_int(x).slt(0)  # signbit


@builtin("isfinite", "isinf", "isnan", "isnormal", "signbit")
def _unary(name: str, params: tuple[CLType, ...]) -> Impl | None:
    t = all_same(params, 1, "f")
    if t is None:
        return None
    return Impl(_result_type(t), lambda b, x: _to_int(b, _classify(name, b, x), t), family="relational")


@builtin("any", "all")
def _any_all(name: str, params: tuple[CLType, ...]) -> Impl | None:
    t = all_same(params, 1, "s")
    if t is None:
        return None

    def body(b: Builder, x: Val) -> Val:
        neg = x.slt(0)
        if x.ty.lanes:
            neg = b.intrinsic("vector.reduce.or" if name == "any" else "vector.reduce.and", [neg],
                              ret=neg.ty.scalar, overload=[neg.ty])
        return b.cast("zext", neg, neg.ty.like("i32"))
    return Impl(CLType("int"), body, family="relational")


def _as_bits(b: Builder, v: Val) -> Val:
    return b.as_int(v) if v.ty.is_fp else v


@builtin("bitselect")
def _bitselect(name: str, params: tuple[CLType, ...]) -> Impl | None:
    t = all_same(params, 3, "suf")
    if t is None:
        return None

    def body(b: Builder, x: Val, y: Val, c: Val) -> Val:
        xi, yi, ci = _as_bits(b, x), _as_bits(b, y), _as_bits(b, c)
        r = (xi & ~ci) | (yi & ci)
        return b.bitcast(r, x.ty)
    return Impl(t, body, family="relational")


@builtin("select")
def _select(name: str, params: tuple[CLType, ...]) -> Impl | None:
    if len(params) != 3 or not is_value(params[0]) or params[1] != params[0]:
        return None
    t, _, c = params
    if not int_like(c) or c.bits != t.bits or c.width != t.width:
        return None

    def body(b: Builder, x: Val, y: Val, k: Val) -> Val:
        cond = k.ne(0) if t.width == 1 else k.slt(0)
        return b.select(cond, y, x)
    return Impl(t, body, family="relational")
