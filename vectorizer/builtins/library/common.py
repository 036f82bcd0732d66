"""Common builtins (OpenCL C 1.2, 6.12.4) other than clamp/min/max (in
`integer.py`): degrees, radians, mix, step, smoothstep, sign. Every a*b+c is
written as a separate multiply and add (never fused), so each width rounds
alike.
"""

from __future__ import annotations

import math

from .ir import Builder, Val
from .registry import Impl, builtin, float_type, splat_to
from .types import CLType


@builtin("degrees", "radians", "sign")
def _unary(name: str, params: tuple[CLType, ...]) -> Impl | None:
    if len(params) != 1 or not float_type(params[0]):
        return None
    t = params[0]
    if name == "sign":
        def body(b: Builder, x: Val) -> Val:
            r = b.select(x.ogt(0.0), 1.0, b.select(x.olt(0.0), -1.0, x))
            return b.select(b.is_nan(x), 0.0, r)
        return Impl(t, body, family="common")
    factor = 180.0 / math.pi if name == "degrees" else math.pi / 180.0

    def scale(b: Builder, x: Val) -> Val:
        # Rounded once from the double product (exact for float and half inputs).
        if x.ty.elem == "double":
            return x * factor
        return b.fp_resize(b.fp_resize(x, "double") * factor, x.ty.elem)
    return Impl(t, scale, family="common")


@builtin("mix")
def _mix(name: str, params: tuple[CLType, ...]) -> Impl | None:
    if len(params) != 3 or not float_type(params[0]):
        return None
    t, u, a = params
    if u != t or a not in (t, t.scalar()):
        return None
    return Impl(t, lambda b, x, y, w: x + (y - x) * splat_to(b, w, x), family="common")


@builtin("step")
def _step(name: str, params: tuple[CLType, ...]) -> Impl | None:
    if len(params) != 2 or not float_type(params[1]):
        return None
    edge, t = params
    if edge not in (t, t.scalar()):
        return None
    return Impl(t, lambda b, e, x: b.select(x.olt(splat_to(b, e, x)), 0.0, b.const(1.0, x.ty)),
                family="common")


@builtin("smoothstep")
def _smoothstep(name: str, params: tuple[CLType, ...]) -> Impl | None:
    if len(params) != 3 or not float_type(params[2]):
        return None
    e0, e1, t = params
    if e0 != e1 or e0 not in (t, t.scalar()):
        return None

    def body(b: Builder, lo: Val, hi: Val, x: Val) -> Val:
        lo, hi = splat_to(b, lo, x), splat_to(b, hi, x)
        u = (x - lo) / (hi - lo)
        u = b.intrinsic("minimumnum", [b.intrinsic("maximumnum", [u, b.const(0.0, x.ty)]),
                                        b.const(1.0, x.ty)])
        return u * u * (3.0 - u * 2.0)
    return Impl(t, body, family="common")
