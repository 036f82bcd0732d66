"""Geometric builtins (OpenCL C 1.2, 6.12.5) for n = 1, 2, 3, 4 (cross: 3, 4).

Sums run in a fixed order (lane 0 first) with separate multiplies and adds,
whatever the vector width the caller runs at. float and half compute length,
distance and normalize in double (no overflow or underflow of the squares,
one final rounding); double scales by a power of two first.
"""

from __future__ import annotations

import math

from .ir import Builder, Val
from .registry import Impl, all_same, builtin
from .types import CLType


def _lanes(b: Builder, v: Val) -> list[Val]:
    return [b.extract(v, i) for i in range(v.ty.lanes)] if v.ty.lanes else [v]


def _dot(b: Builder, x: Val, y: Val) -> Val:
    xs, ys = _lanes(b, x), _lanes(b, y)
    acc = xs[0] * ys[0]
    for u, v in zip(xs[1:], ys[1:], strict=True):
        acc = acc + u * v
    return acc


def _sumsq_scaled(b: Builder, x: Val) -> tuple[Val, Val]:
    """(sqrt of the sum of squares of x / s, s) with s a power of two (doubles)."""
    xs = [b.fabs(v) for v in _lanes(b, x)]
    m = xs[0]
    for v in xs[1:]:
        m = b.maxnum(m, v)
    # s = 2^(exponent of m): every x/s is exact and below 2, no overflow.
    e = b.as_int(m) & 0x7FF0000000000000
    s = b.as_fp(b.select(e.eq(0), 0x0010000000000000, e), "double")  # subnormal m: 2^-1022
    s = b.select(m.oeq(math.inf) | b.is_nan(m), 1.0, s)
    ys = [v / s for v in xs]
    acc = ys[0] * ys[0]
    for v in ys[1:]:
        acc = acc + v * v
    return b.sqrt(acc), s


def _length(b: Builder, x: Val) -> Val:
    if x.ty.elem == "double":
        r, s = _sumsq_scaled(b, x)
        return r * s
    xd = b.fp_resize(x, "double")
    return b.fp_resize(b.sqrt(_dot(b, xd, xd)), x.ty.elem)


def _infinities_as_units(b: Builder, x: Val) -> Val:
    """If a component is infinite: the infinite ones become +-1, the others +-0
    (OpenCL normalizes that vector); otherwise x."""
    any_inf = None
    for v in _lanes(b, x):
        c = b.fabs(v).oeq(math.inf)
        any_inf = c if any_inf is None else any_inf | c
    units = b.select(b.fabs(x).oeq(math.inf), b.copysign(b.const(1.0, x.ty), x),
                     b.copysign(b.const(0.0, x.ty), x))
    return b.select(any_inf, units, x)


def _normalize(b: Builder, x: Val) -> Val:
    """x / length(x); a zero vector is returned unchanged."""
    xx = _infinities_as_units(b, x)
    if x.ty.elem == "double":
        r, s = _sumsq_scaled(b, xx)
        out = _div_lanes(b, _div_lanes(b, xx, s), r)
    else:
        xd = b.fp_resize(xx, "double")
        r = b.sqrt(_dot(b, xd, xd))
        out = b.fp_resize(_div_lanes(b, xd, r), x.ty.elem)
    zero = r.oeq(0.0)
    return b.select(zero, x, out)


def _div_lanes(b: Builder, num: Val, den: Val) -> Val:
    """Every lane of `num` divided by the scalar `den`."""
    return num / (b.splat(den, num.ty.lanes) if num.ty.lanes else den)


@builtin("dot", "length", "distance", "normalize", "fast_length", "fast_distance", "fast_normalize")
def _geometric(name: str, params: tuple[CLType, ...]) -> Impl | None:
    binary = name in ("dot", "distance", "fast_distance")
    t = all_same(params, 2 if binary else 1, "f")
    if t is None or t.width not in (1, 2, 3, 4):
        return None
    if name.startswith("fast_") and t.elem != "float":
        return None
    base = name.removeprefix("fast_")
    if base == "dot":
        return Impl(t.scalar(), _dot, family="geometric")
    if base == "length":
        return Impl(t.scalar(), _length, family="geometric")
    if base == "distance":
        return Impl(t.scalar(), lambda b, x, y: _length(b, x - y), family="geometric")
    return Impl(t, _normalize, family="geometric")


@builtin("cross")
def _cross(name: str, params: tuple[CLType, ...]) -> Impl | None:
    t = all_same(params, 2, "f")
    if t is None or t.width not in (3, 4):
        return None

    def body(b: Builder, x: Val, y: Val) -> Val:
        xs, ys = _lanes(b, x), _lanes(b, y)
        comps = [xs[1] * ys[2] - xs[2] * ys[1], xs[2] * ys[0] - xs[0] * ys[2], xs[0] * ys[1] - xs[1] * ys[0]]
        if t.width == 4:
            comps.append(b.const(0.0, xs[0].ty))
        out = b.poison(x.ty)
        for i, c in enumerate(comps):
            out = b.insert(out, c, i)
        return out
    return Impl(t, body, family="geometric")
