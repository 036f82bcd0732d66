"""Math builtins with exactly defined results (OpenCL C 1.2, 6.12.2): rounding,
sign, min/max, ldexp/frexp/ilogb, fmod/remainder/remquo, fract/modf, nextafter,
fma, sqrt. One body for half, float and double: bit manipulation and IEEE
operations (LLVM intrinsics with defined per-lane semantics), so every width
gives the same bits.
"""

from __future__ import annotations

import math

from . import cores as C
from .ir import Builder, Ty, Val
from .registry import Impl, all_same, builtin, float_type, int_like, splat_to
from .types import CLType

NAN = math.nan
INF = math.inf
# element -> (mantissa bits, exponent bias)
_FORMAT = {"half": (10, 15), "float": (23, 127), "double": (52, 1023)}


def _fmt(x: Val) -> tuple[int, int, int]:
    m, bias = _FORMAT[x.ty.elem]
    return m, bias, x.ty.bits


_INTRINSIC_UNARY = {"ceil": "ceil", "floor": "floor", "trunc": "trunc", "rint": "rint", "round": "round",
                    "fabs": "fabs", "sqrt": "sqrt"}


@builtin(*_INTRINSIC_UNARY)
def _unary(name: str, params: tuple[CLType, ...]) -> Impl | None:
    t = all_same(params, 1, "f")
    if t is None:
        return None
    return Impl(t, lambda b, x: b.intrinsic(_INTRINSIC_UNARY[name], [x]), family="math")


@builtin("fma", "mad")
def _fma(name: str, params: tuple[CLType, ...]) -> Impl | None:
    # mad may be any approximation of a*b+c: the fused, correctly rounded one
    # is chosen so every width computes the same value.
    t = all_same(params, 3, "f")
    return None if t is None else Impl(t, lambda b, a, x, c: b.fma(a, x, c), family="math")


def _mixed(params: tuple[CLType, ...]) -> CLType | None:
    """gentype f(gentype, gentype), or f(gentypen, scalar) for vectors."""
    if len(params) != 2 or not float_type(params[0]):
        return None
    t, u = params
    if u == t or (t.width > 1 and u == t.scalar()):
        return t
    return None


@builtin("fmax", "fmin")
def _fminmax(name: str, params: tuple[CLType, ...]) -> Impl | None:
    t = _mixed(params)
    if t is None:
        return None
    # IEEE 754-2019 maximumNumber/minimumNumber: NaN operands ignored (as
    # OpenCL asks) and -0 < +0, so no case is left to the code generator.
    op = "maximumnum" if name == "fmax" else "minimumnum"
    return Impl(t, lambda b, x, y: b.intrinsic(op, [x, splat_to(b, y, x)]), family="math")


@builtin("copysign", "fdim", "maxmag", "minmag", "nextafter", "fmod", "remainder")
def _binary(name: str, params: tuple[CLType, ...]) -> Impl | None:
    t = all_same(params, 2, "f")
    if t is None:
        return None
    bodies = {
        "copysign": lambda b, x, y: b.copysign(x, y),
        "fdim": _fdim, "maxmag": _maxmag, "minmag": _minmag, "nextafter": _nextafter,
        "fmod": lambda b, x, y: x.frem(y),
        "remainder": lambda b, x, y: _remquo(b, x, y)[0],
    }
    return Impl(t, bodies[name], family="math")


def _fdim(b: Builder, x: Val, y: Val) -> Val:
    r = b.select(x.ogt(y), x - y, 0.0)
    return b.select(b.is_nan(x) | b.is_nan(y), NAN, r)


def _maxmag(b: Builder, x: Val, y: Val) -> Val:
    ax, ay = b.fabs(x), b.fabs(y)
    return b.select(ax.ogt(ay), x, b.select(ay.ogt(ax), y, b.intrinsic("maximumnum", [x, y])))


def _minmag(b: Builder, x: Val, y: Val) -> Val:
    ax, ay = b.fabs(x), b.fabs(y)
    return b.select(ax.olt(ay), x, b.select(ay.olt(ax), y, b.intrinsic("minimumnum", [x, y])))


def _nextafter(b: Builder, x: Val, y: Val) -> Val:
    _m, _bias, bits = _fmt(x)
    ity = x.ty.like(f"i{bits}")
    sign = 1 << (bits - 1)
    ix = b.as_int(x)
    # Sign-magnitude to two's complement order: one step is +-1.
    ox = b.select(ix.slt(0), (ix & (sign - 1)) * -1, ix)
    up = y.ogt(x)
    step = b.select(up, b.const(1, ity), b.const(-1, ity))
    on = ox + step
    rb = b.select(on.slt(0), (on * -1) | sign, on)
    r = b.as_fp(rb, x.ty.elem)
    r = b.select(r.oeq(0.0), b.copysign(r, x), r)  # stepping to zero keeps x's sign
    r = b.select(x.oeq(y), y, r)
    return b.select(b.is_nan(x) | b.is_nan(y), NAN, r)


def _remquo(b: Builder, x: Val, y: Val) -> tuple[Val, Val]:
    """(remainder, quotient's low 3 bits with the sign of x/y), exact."""
    i32 = x.ty.like("i32")
    if x.ty.elem == "double":
        def lane(u: Val, v: Val) -> Val:
            slot = b.alloca(Ty("i32"), 4)
            b.store(b.const(0, Ty("i32")), slot, 4)  # the C library leaves it unset for NaN results
            r = b.call("remquo", u.ty, [u, v, slot], "nounwind")
            q = b.load(Ty("i32"), slot, 4)
            # Keep 3 bits, as the float version does (the C library may give more).
            q = b.select(q.slt(0), ((q * -1) & 7) * -1, q & 7)
            return r, q
        if x.ty.lanes == 0:
            r, q = lane(x, y)
            return r, q
        rv, qv = b.poison(x.ty), b.poison(i32)
        for i in range(x.ty.lanes):
            r, q = lane(b.extract(x, i), b.extract(y, i))
            rv, qv = b.insert(rv, r, i), b.insert(qv, q, i)
        return rv, qv
    xd, yd = C.d(b, x), C.d(b, y)
    ax, ay = b.fabs(xd), b.fabs(yd)
    r = ax.frem(ay * 8.0)  # exact; keeps the quotient's parity and low bits
    n = b.intrinsic("roundeven", [r / ay])
    n = b.select(b.is_nan(n), 0.0, n)
    rem = b.select(n.oeq(0.0), r, r - n * ay)  # not 0 * inf
    rem = b.select(b.as_int(xd).slt(0), -rem, rem)
    q = b.cast("fptosi", n, i32) & 7
    q = b.select((b.as_int(xd) ^ b.as_int(yd)).slt(0), q * -1, q)
    bad = b.is_nan(rem)
    q = b.select(bad, b.const(0, i32), q)
    return b.fp_resize(rem, x.ty.elem), q


def _align(t: CLType) -> int:
    return t.bits // 8 * (4 if t.width == 3 else t.width)


def _out(p: CLType, pointee: CLType) -> bool:
    return p.pointee == pointee and not p.const and p.addrspace in (0, 1, 3, 4)


@builtin("remquo")
def _remquo_handler(name: str, params: tuple[CLType, ...]) -> Impl | None:
    if len(params) != 3 or all_same(params[:2], 2, "f") is None:
        return None
    t = params[0]
    it = CLType("int", t.width)
    if not _out(params[2], it):
        return None

    def body(b: Builder, x: Val, y: Val, p: Val) -> Val:
        r, q = _remquo(b, x, y)
        b.store(q, p, _align(it))
        return r
    return Impl(t, body, pure=False, family="math")


@builtin("ldexp")
def _ldexp(name: str, params: tuple[CLType, ...]) -> Impl | None:
    if len(params) != 2 or not float_type(params[0]):
        return None
    t, k = params
    if not int_like(k, 32, True) or k.width not in (t.width, 1):
        return None

    def body(b: Builder, x: Val, n: Val) -> Val:
        n = splat_to(b, n, x)
        return b.intrinsic("ldexp", [x, n], overload=[x.ty, n.ty])
    return Impl(t, body, family="math")


def _frexp_parts(b: Builder, x: Val) -> tuple[Val, Val]:
    m, bias, bits = _fmt(x)
    i32 = x.ty.like("i32")
    sub = b.fabs(x).olt(2.0 ** (1 - bias))
    xs = b.select(sub, x * 2.0 ** (m + 1), x)
    ix = b.as_int(xs)
    emask = (1 << (bits - m - 1)) - 1
    e = b.resize_int(ix.lshr(m) & emask, 32, False) - (bias - 1)
    e = e - b.select(sub, m + 1, b.const(0, i32))
    mant = b.as_fp((ix & ~(emask << m)) | ((bias - 1) << m), x.ty.elem)
    special = x.oeq(0.0) | b.fabs(x).oeq(INF) | b.is_nan(x)
    return b.select(special, x, mant), b.select(special, b.const(0, i32), e)


@builtin("frexp")
def _frexp(name: str, params: tuple[CLType, ...]) -> Impl | None:
    if len(params) != 2 or not float_type(params[0]) or not _out(params[1], CLType("int", params[0].width)):
        return None
    t = params[0]

    def body(b: Builder, x: Val, p: Val) -> Val:
        mant, e = _frexp_parts(b, x)
        b.store(e, p, _align(CLType("int", t.width)))
        return mant
    return Impl(t, body, pure=False, family="math")


def _ilogb(b: Builder, x: Val) -> Val:
    _mant, e = _frexp_parts(b, x)
    i32 = x.ty.like("i32")
    r = e - 1
    r = b.select(x.oeq(0.0), b.const(-(2**31), i32), r)
    return b.select(b.is_nan(x) | b.fabs(x).oeq(INF), b.const(2**31 - 1, i32), r)


@builtin("ilogb")
def _ilogb_handler(name: str, params: tuple[CLType, ...]) -> Impl | None:
    t = all_same(params, 1, "f")
    return None if t is None else Impl(CLType("int", t.width), _ilogb, family="math")


@builtin("logb")
def _logb(name: str, params: tuple[CLType, ...]) -> Impl | None:
    t = all_same(params, 1, "f")
    if t is None:
        return None

    def body(b: Builder, x: Val) -> Val:
        r = b.cast("sitofp", _ilogb(b, x), x.ty)
        r = b.select(x.oeq(0.0), -INF, r)
        r = b.select(b.fabs(x).oeq(INF), INF, r)
        return b.select(b.is_nan(x), x, r)
    return Impl(t, body, family="math")


@builtin("modf", "fract")
def _modf_fract(name: str, params: tuple[CLType, ...]) -> Impl | None:
    if len(params) != 2 or not float_type(params[0]) or not _out(params[1], params[0]):
        return None
    t = params[0]
    m, _bias = _FORMAT[t.elem]

    def body(b: Builder, x: Val, p: Val) -> Val:
        inf = b.fabs(x).oeq(INF)
        if name == "modf":
            whole = b.trunc(x)
            frac = b.copysign(b.select(inf, 0.0, x - whole), x)
        else:
            whole = b.floor(x)
            frac = b.minnum(x - whole, 1.0 - 2.0 ** -(m + 1))
            frac = b.select(inf, b.copysign(b.const(0.0, x.ty), x), frac)
            frac = b.select(b.is_nan(x) | x.oeq(0.0), x, frac)
        b.store(whole, p, _align(t))
        return frac
    return Impl(t, body, pure=False, family="math")


@builtin("nan")
def _nan(name: str, params: tuple[CLType, ...]) -> Impl | None:
    if len(params) != 1 or not int_like(params[0], signed=False):
        return None
    t = params[0]
    elem = {16: "half", 32: "float", 64: "double"}.get(t.bits)
    if elem is None:
        return None
    rt = CLType(elem, t.width)
    m, _bias = _FORMAT[elem]
    qnan = ((1 << (t.bits - m - 1)) - 1) << m | (1 << (m - 1))

    def body(b: Builder, code: Val) -> Val:
        return b.as_fp(code | qnan, elem)
    return Impl(rt, body, family="math")

