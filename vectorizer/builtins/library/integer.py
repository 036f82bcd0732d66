"""Integer builtins (OpenCL C 1.2, 6.12.3), every element type and width, as
vector IR directly (LLVM's saturating, funnel-shift, count and min/max
intrinsics take vectors). `min`/`max`/`clamp` also cover the common
(floating-point) functions of the same names.
"""

from __future__ import annotations

from .ir import Builder, Ty, Val
from .registry import Impl, all_same, builtin, int_like, is_value, splat_to
from .types import CLType, integer_of_size


def _wide(b: Builder, v: Val, signed: bool, factor: int = 2) -> Val:
    return b.resize_int(v, v.ty.bits * factor, signed)


def _narrow(b: Builder, v: Val, bits: int) -> Val:
    return b.resize_int(v, bits, False)


def _unsigned(t: CLType) -> CLType:
    return CLType(integer_of_size(t.bits, False), t.width)


@builtin("abs")
def _abs(name: str, params: tuple[CLType, ...]) -> Impl | None:
    t = all_same(params, 1, "su")
    if t is None:
        return None
    if not t.signed:
        return Impl(t, lambda b, x: x, family="integer")
    return Impl(_unsigned(t), lambda b, x: b.intrinsic("abs", [x, b.const(0, Ty("i1"))]),
                family="integer")


@builtin("abs_diff")
def _abs_diff(name: str, params: tuple[CLType, ...]) -> Impl | None:
    t = all_same(params, 2, "su")
    if t is None:
        return None
    pred = "sgt" if t.signed else "ugt"
    return Impl(_unsigned(t), lambda b, x, y: b.select(x.cmp(pred, y), x - y, y - x), family="integer")


_SAT = {"add_sat": ("sadd.sat", "uadd.sat"), "sub_sat": ("ssub.sat", "usub.sat")}


@builtin("add_sat", "sub_sat")
def _addsub_sat(name: str, params: tuple[CLType, ...]) -> Impl | None:
    t = all_same(params, 2, "su")
    if t is None:
        return None
    op = _SAT[name][0 if t.signed else 1]
    return Impl(t, lambda b, x, y: b.intrinsic(op, [x, y]), family="integer")


@builtin("hadd", "rhadd")
def _hadd(name: str, params: tuple[CLType, ...]) -> Impl | None:
    t = all_same(params, 2, "su")
    if t is None:
        return None

    def body(b: Builder, x: Val, y: Val) -> Val:
        # (x + y) >> 1 and (x + y + 1) >> 1 without overflow.
        half = (x.ashr(1) + y.ashr(1)) if t.signed else (x.lshr(1) + y.lshr(1))
        carry = (x & y & 1) if name == "hadd" else ((x | y) & 1)
        return half + carry
    return Impl(t, body, family="integer")


@builtin("clz", "popcount", "ctz")
def _bitcount(name: str, params: tuple[CLType, ...]) -> Impl | None:
    t = all_same(params, 1, "su")
    if t is None:
        return None
    if name == "popcount":
        return Impl(t, lambda b, x: b.intrinsic("ctpop", [x]), family="integer")
    op = "ctlz" if name == "clz" else "cttz"
    return Impl(t, lambda b, x: b.intrinsic(op, [x, b.const(0, Ty("i1"))]), family="integer")


@builtin("rotate")
def _rotate(name: str, params: tuple[CLType, ...]) -> Impl | None:
    t = all_same(params, 2, "su")
    if t is None:
        return None
    return Impl(t, lambda b, x, n: b.intrinsic("fshl", [x, x, n]), family="integer")


def _mul_hi(b: Builder, x: Val, y: Val, signed: bool) -> Val:
    bits = x.ty.bits
    p = _wide(b, x, signed) * _wide(b, y, signed)
    return _narrow(b, p.lshr(bits), bits)


@builtin("mul_hi", "mad_hi")
def _mulhi(name: str, params: tuple[CLType, ...]) -> Impl | None:
    t = all_same(params, 2 if name == "mul_hi" else 3, "su")
    if t is None:
        return None
    if name == "mul_hi":
        return Impl(t, lambda b, x, y: _mul_hi(b, x, y, t.signed), family="integer")
    return Impl(t, lambda b, x, y, z: _mul_hi(b, x, y, t.signed) + z, family="integer")


def _clamp_int(b: Builder, v: Val, bits: int, signed: bool) -> Val:
    """Saturate a wide integer `v` to `bits` bits."""
    if signed:
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        v = b.select(v.slt(lo), lo, b.select(v.sgt(hi), hi, v))
    else:
        hi = (1 << bits) - 1
        v = b.select(v.ugt(hi), hi, v)
    return _narrow(b, v, bits)


@builtin("mad_sat")
def _mad_sat(name: str, params: tuple[CLType, ...]) -> Impl | None:
    t = all_same(params, 3, "su")
    if t is None:
        return None

    def body(b: Builder, x: Val, y: Val, z: Val) -> Val:
        # Exact in twice the width plus one bit for the addend.
        f = 4 if t.bits < 64 else 2
        p = _wide(b, x, t.signed, f) * _wide(b, y, t.signed, f)
        if t.bits == 64:
            # |x*y| < 2^127 (signed) or < 2^128 (unsigned): add the addend with saturation.
            zz = _wide(b, z, t.signed, 2)
            s = b.intrinsic("sadd.sat" if t.signed else "uadd.sat", [p, zz])
            return _clamp_int(b, s, 64, t.signed)
        return _clamp_int(b, p + _wide(b, z, t.signed, f), t.bits, t.signed)
    return Impl(t, body, family="integer")


@builtin("mul24", "mad24")
def _mul24(name: str, params: tuple[CLType, ...]) -> Impl | None:
    t = all_same(params, 2 if name == "mul24" else 3, "su")
    if t is None or t.bits != 32:
        return None

    def low24(v: Val) -> Val:
        return (v << 8).ashr(8) if t.signed else v & 0xFFFFFF

    def body(b: Builder, x: Val, y: Val, *z: Val) -> Val:
        p = low24(x) * low24(y)
        return p + z[0] if z else p
    return Impl(t, body, family="integer")


@builtin("upsample")
def _upsample(name: str, params: tuple[CLType, ...]) -> Impl | None:
    if len(params) != 2:
        return None
    hi, lo = params
    if not (int_like(hi) and int_like(lo, signed=False)) or hi.bits != lo.bits or hi.width != lo.width:
        return None
    if hi.bits == 64:
        return None
    rt = CLType(integer_of_size(hi.bits * 2, hi.signed), hi.width)

    def body(b: Builder, h: Val, low: Val) -> Val:
        return (_wide(b, h, hi.signed) << hi.bits) | _wide(b, low, False)
    return Impl(rt, body, family="integer")


def _minmax_types(params: tuple[CLType, ...], count: int) -> CLType | None:
    """gentype f(gentype x count), or with the trailing operands scalar for vectors."""
    if len(params) != count or not is_value(params[0]):
        return None
    t = params[0]
    rest = params[1:]
    if all(p == t for p in rest):
        return t
    if t.width > 1 and all(p == t.scalar() for p in rest):
        return t
    return None


@builtin("max", "min")
def _minmax(name: str, params: tuple[CLType, ...]) -> Impl | None:
    t = _minmax_types(params, 2)
    if t is None:
        return None
    if t.is_float:
        op = "maximumnum" if name == "max" else "minimumnum"
    else:
        op = {"max": ("smax", "umax"), "min": ("smin", "umin")}[name][0 if t.signed else 1]
    return Impl(t, lambda b, x, y: b.intrinsic(op, [x, splat_to(b, y, x)]),
                family="common" if t.is_float else "integer")


@builtin("clamp")
def _clamp(name: str, params: tuple[CLType, ...]) -> Impl | None:
    t = _minmax_types(params, 3)
    if t is None:
        return None
    if t.is_float:
        mx, mn = "maximumnum", "minimumnum"
    else:
        mx, mn = ("smax", "smin") if t.signed else ("umax", "umin")

    def body(b: Builder, x: Val, lo: Val, hi: Val) -> Val:
        return b.intrinsic(mn, [b.intrinsic(mx, [x, splat_to(b, lo, x)]), splat_to(b, hi, x)])
    return Impl(t, body, family="common" if t.is_float else "integer")
