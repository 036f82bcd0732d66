"""Math builtins whose results are rounded approximations (OpenCL C 1.2, 6.12.2).

float and half: widen to double exactly, evaluate a `cores` kernel, round
once (branch-free, vectorizable, our own algorithms). double: the host's C
library (glibc) per element, so the scalar and every vector overload call the
same function on each lane and agree bit for bit; the few functions C lacks
(sinpi, cospi, tanpi, the *pi inverses, rootn, powr) are built on it here.
`native_*` and `half_*` (float only) use the full-precision bodies, except
where one IEEE operation is the answer (divide, recip, sqrt, rsqrt).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from . import cores as C
from . import cores_f32
from .ir import Builder, Ty, Val
from .registry import Impl, all_same, builtin, float_type, int_like
from .types import CLType

INV_PI = 1.0 / math.pi
LN10 = math.log(10.0)
NAN = math.nan
INF = math.inf

Core = Callable[[Builder, Val, Val], Val]  # (b, x as double, x as given) -> double result


def ty_of(t: CLType) -> Ty:
    if t.pointee is not None:
        return Ty(t.llvm)
    return Ty(t.llvm_elem, t.width if t.width > 1 else 0)


def odd(b: Builder, x: Val, r: Val) -> Val:
    """Keep the sign of a zero argument (odd functions: f(+-0) = +-0)."""
    return b.select(x.oeq(0.0), x, r)


def nan_in(b: Builder, x: Val, r: Val) -> Val:
    return b.select(b.is_nan(x), x, r)


def f32_of(b: Builder, x: Val) -> Val:
    """A float or half value as a float (exact)."""
    return b.fp_resize(x, "float")


# -- single/half-precision bodies: (b, xd, x) -> double --------------------------

def _sin(b, xd, x):
    q, r = C.reduce_pio2(b, f32_of(b, x))
    s, _c = C.sincos_reduced(b, q, r)
    return odd(b, xd, b.select(b.fabs(xd).oeq(INF), NAN, nan_in(b, xd, s)))


def _cos(b, xd, x):
    q, r = C.reduce_pio2(b, f32_of(b, x))
    _s, c = C.sincos_reduced(b, q, r)
    return b.select(b.fabs(xd).oeq(INF), NAN, nan_in(b, xd, c))


def _tan(b, xd, x):
    q, r = C.reduce_pio2(b, f32_of(b, x))
    s, c = C.sincos_reduced(b, q, r)
    return odd(b, xd, b.select(b.fabs(xd).oeq(INF), NAN, nan_in(b, xd, s / c)))


def _pi_parts(b, xd):
    q, r = C.reduce_pi_exact(b, xd)
    s, c = C.sincos_reduced(b, q, r * math.pi)
    bad = b.fabs(xd).oeq(INF)
    return q, r, s, c, bad


def _sinpi(b, xd, x):
    q, r, s, _c, bad = _pi_parts(b, xd)
    s = b.select(r.oeq(0.0) & (q & 1).eq(0), b.copysign(b.const(0.0, xd.ty), xd), s)
    return b.select(bad, NAN, nan_in(b, xd, s))


def _cospi(b, xd, x):
    _q, _r, _s, c, bad = _pi_parts(b, xd)
    c = b.select(c.oeq(0.0), 0.0, c)
    return b.select(bad, NAN, nan_in(b, xd, c))


def _tanpi(b, xd, x):
    q, r, s, c, bad = _pi_parts(b, xd)
    t = s / c
    zero = r.oeq(0.0)
    qodd = (q & 1).eq(1)
    t = b.select(zero & qodd, b.select(q.eq(1), b.const(INF, t.ty), -INF), t)
    zsign = b.select(q.eq(0), xd, -xd)
    t = b.select(zero & ~qodd, b.copysign(b.const(0.0, xd.ty), zsign), t)
    return b.select(bad, NAN, nan_in(b, xd, t))


def _asin(b, xd, x):
    c = b.sqrt((1.0 - xd) * (1.0 + xd))
    return odd(b, xd, nan_in(b, c, C.atan2(b, xd, c)))


def _acos(b, xd, x):
    c = b.sqrt((1.0 - xd) * (1.0 + xd))
    return nan_in(b, c, C.atan2(b, c, xd))


def _atan(b, xd, x):
    return odd(b, xd, nan_in(b, xd, C.atan2(b, xd, b.const(1.0, xd.ty))))


def _atan2(b, yd, xd):
    a = C.atan2(b, yd, xd)
    both_inf = b.fabs(yd).oeq(INF) & b.fabs(xd).oeq(INF)
    quarter = b.select(b.as_int(xd).slt(0), 3 * math.pi / 4, b.const(math.pi / 4, xd.ty))
    a = b.select(both_inf, b.copysign(quarter, yd), a)
    return b.select(b.is_nan(xd) | b.is_nan(yd), NAN, a)


def _times_inv_pi(core: Core) -> Core:
    return lambda b, xd, x: core(b, xd, x) * INV_PI


def _exp(b, xd, x):
    return C.exp(b, xd)


def _exp2(b, xd, x):
    return C.exp(b, xd * C.LN2)


def _exp10(b, xd, x):
    return C.exp(b, xd * LN10)


def _expm1(b, xd, x):
    return odd(b, xd, C.expm1(b, xd))


def _log(b, xd, x):
    return C.log(b, xd)


def _log2(b, xd, x):
    return C.log(b, xd) * C.LOG2E


def _log10(b, xd, x):
    return C.log(b, xd) * (1.0 / LN10)


def _log1p(b, xd, x):
    return odd(b, xd, C.log1p(b, xd))


def _sinh(b, xd, x):
    a = b.fabs(xd)
    e = C.expm1(b, a)
    s = (e + e / (e + 1.0)) * 0.5
    s = b.select(a.ogt(709.0), INF, s)
    return odd(b, xd, nan_in(b, xd, b.copysign(s, xd)))


def _cosh(b, xd, x):
    e = C.exp(b, b.fabs(xd))
    return (e + 1.0 / e) * 0.5


def _tanh(b, xd, x):
    a = b.fabs(xd)
    e = C.expm1(b, a * 2.0)
    t = e / (e + 2.0)
    t = b.select(a.ogt(40.0), 1.0, t)
    return odd(b, xd, nan_in(b, xd, b.copysign(t, xd)))


def _asinh(b, xd, x):
    a = b.fabs(xd)
    a2 = a * a
    v = C.log1p(b, a + a2 / (1.0 + b.sqrt(1.0 + a2)))
    v = b.select(a.oeq(INF), INF, v)
    return odd(b, xd, nan_in(b, xd, b.copysign(v, xd)))


def _acosh(b, xd, x):
    t = xd - 1.0
    return b.select(xd.olt(1.0), NAN, C.log1p(b, t + b.sqrt(t * (t + 2.0))))


def _atanh(b, xd, x):
    return odd(b, xd, C.log1p(b, (xd * 2.0) / (1.0 - xd)) * 0.5)


def _cbrt(b, xd, x):
    r = C.exp(b, C.log(b, b.fabs(xd)) * (1.0 / 3.0))
    return nan_in(b, xd, b.copysign(r, xd))


def _erf(b, xd, x):
    a = b.minnum(b.fabs(xd), 10.5)
    big = 1.0 - C.erfc_pos(b, a)
    r = b.select(a.olt(0.5), C.erf_small(b, xd), b.copysign(big, xd))
    return odd(b, xd, nan_in(b, xd, r))


def _erfc(b, xd, x):
    a = b.minnum(b.fabs(xd), 10.5)
    ec = C.erfc_pos(b, a)
    ec = b.select(a.oge(10.5), 0.0, ec)
    r = b.select(xd.olt(0.0), 2.0 - ec, ec)
    r = b.select(a.olt(0.5), 1.0 - C.erf_small(b, xd), r)
    return nan_in(b, xd, r)


def _lgamma(b, xd, x):
    r = C.lgamma(b, xd)
    r = b.select(xd.oeq(1.0) | xd.oeq(2.0), 0.0, r)  # the exact zeros
    r = b.select(b.fabs(xd).oeq(INF) | xd.oeq(0.0), INF, r)
    nonpos_int = xd.ole(0.0) & b.floor(xd).oeq(xd)
    r = b.select(nonpos_int, INF, r)
    return nan_in(b, xd, r)


def _tgamma(b, xd, x):
    lg = C.lgamma(b, xd)
    mag = C.exp(b, lg)
    sign = b.select(xd.olt(0.0), C.gamma_sign_negative(b, xd), b.const(1.0, xd.ty))
    r = mag * sign
    r = b.select(xd.oeq(0.0), b.copysign(b.const(INF, xd.ty), xd), r)
    bad = (xd.olt(0.0) & b.floor(xd).oeq(xd)) | xd.oeq(-INF)
    r = b.select(bad, NAN, r)
    r = b.select(xd.oeq(INF), INF, r)
    return nan_in(b, xd, r)


def _rsqrt(b, xd, x):
    return 1.0 / b.sqrt(xd)


UNARY_FH: dict[str, Core] = {
    "sin": _sin, "cos": _cos, "tan": _tan, "sinpi": _sinpi, "cospi": _cospi, "tanpi": _tanpi,
    "asin": _asin, "acos": _acos, "atan": _atan,
    "asinpi": _times_inv_pi(_asin), "acospi": _times_inv_pi(_acos), "atanpi": _times_inv_pi(_atan),
    "exp": _exp, "exp2": _exp2, "exp10": _exp10, "expm1": _expm1,
    "log": _log, "log2": _log2, "log10": _log10, "log1p": _log1p,
    "sinh": _sinh, "cosh": _cosh, "tanh": _tanh, "asinh": _asinh, "acosh": _acosh, "atanh": _atanh,
    "cbrt": _cbrt, "erf": _erf, "erfc": _erfc, "lgamma": _lgamma, "tgamma": _tgamma, "rsqrt": _rsqrt,
}

# exp and log in single precision (see cores_f32): kernels spend their time there.
FLOAT_NATIVE: dict[str, Callable[[Builder, Val], Val]] = {"exp": cores_f32.exp, "log": cores_f32.log}

# -- double precision: the C library per element ----------------------------------

LIBM_UNARY = {
    "sin", "cos", "tan", "asin", "acos", "atan", "exp", "exp2", "exp10", "expm1", "log", "log2",
    "log10", "log1p", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "cbrt", "erf", "erfc",
    "lgamma", "tgamma",
}
_LIBM_ATTRS = "nounwind willreturn memory(none)"


def libm1(b: Builder, name: str, x: Val) -> Val:
    return b.per_lane(lambda v: b.call(name, v.ty, [v], _LIBM_ATTRS), [x], "double")


def libm2(b: Builder, name: str, x: Val, y: Val) -> Val:
    return b.per_lane(lambda u, v: b.call(name, u.ty, [u, v], _LIBM_ATTRS), [x, y], "double")


def _pi_times(b: Builder, r: Val) -> tuple[Val, Val]:
    """pi r as an unevaluated sum hi + lo (double-double)."""
    pi_lo = 1.2246467991473532e-16  # pi - fl(pi)
    hi = r * math.pi
    lo = b.fma(r, math.pi, -hi) + r * pi_lo
    return hi, lo


def _dbl_pi_parts(b: Builder, x: Val) -> tuple[Val, Val, Val, Val, Val]:
    # |x| >= 2^53 is an even integer: reduce to +-0 first (2x must not overflow).
    huge = b.fabs(x).oge(2.0**53)
    xs = b.select(huge, b.copysign(b.const(0.0, x.ty), x), x)
    q, r = C.reduce_pi_exact(b, xs)
    hi, lo = _pi_times(b, r)
    sh, ch = libm1(b, "sin", hi), libm1(b, "cos", hi)
    s0 = b.fma(lo, ch, sh)
    c0 = b.fma(-lo, sh, ch)
    swap = (q & 1).eq(1)
    s = b.select(swap, c0, s0)
    c = b.select(swap, s0, c0)
    s = b.select((q & 2).eq(2), -s, s)
    c = b.select(((q + 1) & 2).eq(2), -c, c)
    return q, r, s, c, b.fabs(x).oeq(INF)


def _d_sinpi(b, x):
    q, r, s, _c, bad = _dbl_pi_parts(b, x)
    s = b.select(r.oeq(0.0) & (q & 1).eq(0), b.copysign(b.const(0.0, x.ty), x), s)
    return b.select(bad, NAN, nan_in(b, x, s))


def _d_cospi(b, x):
    _q, _r, _s, c, bad = _dbl_pi_parts(b, x)
    c = b.select(c.oeq(0.0), 0.0, c)
    return b.select(bad, NAN, nan_in(b, x, c))


def _d_tanpi(b, x):
    q, r, s, c, bad = _dbl_pi_parts(b, x)
    t = s / c
    zero = r.oeq(0.0)
    qodd = (q & 1).eq(1)
    t = b.select(zero & qodd, b.select(q.eq(1), b.const(INF, t.ty), -INF), t)
    zsign = b.select(q.eq(0), x, -x)
    t = b.select(zero & ~qodd, b.copysign(b.const(0.0, x.ty), zsign), t)
    return b.select(bad, NAN, nan_in(b, x, t))


def _d_times_inv_pi(name: str) -> Callable[[Builder, Val], Val]:
    # x/pi as fl(x * fl(1/pi)) plus the rounding error of fl(1/pi) (double-double).
    def body(b, x):
        return _times_inv_pi_dd(b, libm1(b, name, x))
    return body


def _times_inv_pi_dd(b: Builder, a: Val) -> Val:
    """a / pi for a double a: a * fl(1/pi) corrected by the product's rounding error and
    by 1/pi - fl(1/pi); zeros and infinities keep their sign."""
    hi = a * INV_PI
    lo = b.fma(a, INV_PI, -hi) + a * -1.9678676675182486e-17
    return b.select(a.oeq(0.0) | b.fabs(a).oeq(INF), hi, hi + lo)


DOUBLE_UNARY: dict[str, Callable[[Builder, Val], Val]] = {
    name: (lambda n: lambda b, x: libm1(b, n, x))(name) for name in LIBM_UNARY
}
def _d_cbrt(b: Builder, x: Val) -> Val:
    """The C library's cbrt, then one Newton step with y^3 in double-double (the C
    library alone may miss OpenCL's 2 ulp); subnormals scaled by 2^54 (exact)."""
    sub = b.fabs(x).olt(2.0**-1022)
    big = b.fabs(x).ogt(2.0**1000)
    xs = b.select(sub, x * 2.0**54, b.select(big, x * 2.0**-54, x))
    y = libm1(b, "cbrt", xs)
    y2 = y * y
    e2 = b.fma(y, y, -y2)
    y3 = y2 * y
    e3 = b.fma(y2, y, -y3) + e2 * y
    resid = (y3 - xs) + e3
    yn = y - resid / (y2 * 3.0)
    ok = xs.one(0.0) & b.fabs(xs).olt(INF)
    y = b.select(ok, yn, y)
    return b.select(sub, y * 2.0**-18, b.select(big, y * 2.0**18, y))


DOUBLE_UNARY.update({
    "cbrt": _d_cbrt,
    "sinpi": _d_sinpi, "cospi": _d_cospi, "tanpi": _d_tanpi,
    "asinpi": _d_times_inv_pi("asin"), "acospi": _d_times_inv_pi("acos"),
    "atanpi": _d_times_inv_pi("atan"),
    "rsqrt": lambda b, x: 1.0 / b.sqrt(x),
})


def _unary_handler(name: str, params: tuple[CLType, ...]) -> Impl | None:
    t = all_same(params, 1, "f")
    if t is None:
        return None
    if t.elem == "double":
        return Impl(t, DOUBLE_UNARY[name], family="math")
    if t.elem == "float" and name in FLOAT_NATIVE:
        return Impl(t, FLOAT_NATIVE[name], family="math")
    core = UNARY_FH[name]

    def body(b: Builder, x: Val) -> Val:
        return b.fp_resize(core(b, C.d(b, x), x), x.ty.elem)
    return Impl(t, body, family="math")


for _n in UNARY_FH:
    builtin(_n)(_unary_handler)


# -- binary --------------------------------------------------------------------------

def _pow_core(b: Builder, xd: Val, yd: Val, mode: str) -> Val:
    """x^y in double for float/half x, y: e^(y ln|x|), then the C99 special cases.
    mode: "pow", "powr" (x >= 0 only), "pown" (y an integer)."""
    ax = b.fabs(xd)
    r = C.exp(b, yd * C.log(b, ax))
    y_int = b.trunc(yd).oeq(yd)
    y_odd = y_int & b.trunc(yd * 0.5).one(yd * 0.5)
    neg = b.as_int(xd).slt(0)
    r = b.select(neg & y_odd, -r, r)
    if mode == "pow":
        r = b.select(xd.olt(0.0) & ax.one(INF) & ~y_int & b.fabs(yd).one(INF), NAN, r)
        r = b.select(ax.oeq(1.0) & b.fabs(yd).oeq(INF), 1.0, r)
        r = b.select(b.is_nan(xd) | b.is_nan(yd), NAN, r)
        r = b.select(xd.oeq(1.0) | yd.oeq(0.0), 1.0, r)
    elif mode == "pown":
        r = b.select(b.is_nan(xd), NAN, r)
        r = b.select(yd.oeq(0.0), 1.0, r)
    else:  # powr: defined only for x >= 0
        r = b.select(ax.oeq(1.0) & b.fabs(yd).oeq(INF), NAN, r)
        r = b.select((xd.oeq(0.0) | ax.oeq(INF)) & yd.oeq(0.0), NAN, r)
        r = b.select(xd.olt(0.0) | b.is_nan(xd) | b.is_nan(yd), NAN, r)
    return r


def _rootn_core(b: Builder, xd: Val, nd: Val) -> Val:
    ax = b.fabs(xd)
    r = C.exp(b, C.log(b, ax) / nd)
    n_odd = b.trunc(nd * 0.5).one(nd * 0.5)
    r = b.select(b.as_int(xd).slt(0) & n_odd, -r, r)
    r = b.select(xd.olt(0.0) & ~n_odd, NAN, r)
    r = b.select(nd.oeq(0.0) | b.is_nan(xd), NAN, r)
    return r


def _hypot_core(b: Builder, xd: Val, yd: Val) -> Val:
    r = b.sqrt(b.fma(xd, xd, yd * yd))
    r = b.select(b.is_nan(xd) | b.is_nan(yd), NAN, r)
    return b.select(b.fabs(xd).oeq(INF) | b.fabs(yd).oeq(INF), INF, r)


def _d_rootn(b: Builder, x: Val, n: Val) -> Val:
    """rootn for double: pow(|x|, 1/n) corrected by one Newton step on r^n = |x|.
    Subnormal |x| (for |n| < 47, where 1/n's rounding matters) is first scaled by
    2^(k|n|) >= 2^54 and the root by 2^-k (exact)."""
    i32 = n.ty
    nd = b.cast("sitofp", n, x.ty)
    an = b.intrinsic("abs", [n, b.const(0, Ty("i1"))])
    sub = b.fabs(x).olt(2.0**-1022) & an.slt(47)
    k = (an + 53).sdiv(b.select(an.eq(0), b.const(1, i32), an))
    shift = b.select(sub, k * an, b.const(0, i32))
    ax = b.intrinsic("ldexp", [b.fabs(x), shift], overload=[x.ty, i32])
    r0 = libm2(b, "pow", ax, 1.0 / nd)
    e = libm2(b, "pow", r0, nd) / ax - 1.0
    r1 = r0 - r0 * (e / nd)
    ok = b.fabs(e).olt(1e-6) & ax.oge(2.0**-1022) & ax.one(INF)
    r = b.select(ok, r1, r0)
    back = b.select(sub, b.select(n.sgt(0), k * -1, k), b.const(0, i32))
    r = b.intrinsic("ldexp", [r, back], overload=[x.ty, i32])
    n_odd = (n & 1).eq(1)
    r = b.select(b.as_int(x).slt(0) & n_odd, -r, r)
    r = b.select(x.olt(0.0) & ~n_odd, NAN, r)
    return b.select(n.eq(0) | b.is_nan(x), NAN, r)


def _d_pow(b: Builder, x: Val, y: Val, mode: str) -> Val:
    r = libm2(b, "pow", x, y)
    if mode == "powr":
        ax = b.fabs(x)
        r = b.select(ax.oeq(1.0) & b.fabs(y).oeq(INF), NAN, r)
        r = b.select((x.oeq(0.0) | ax.oeq(INF)) & y.oeq(0.0), NAN, r)
        r = b.select(x.olt(0.0) | b.is_nan(x) | b.is_nan(y), NAN, r)
    return r


@builtin("pow", "powr")
def _pow_handler(name: str, params: tuple[CLType, ...]) -> Impl | None:
    t = all_same(params, 2, "f")
    if t is None:
        return None
    if t.elem == "double":
        return Impl(t, lambda b, x, y: _d_pow(b, x, y, name), family="math")
    return Impl(t, lambda b, x, y: b.fp_resize(_pow_core(b, C.d(b, x), C.d(b, y), name), x.ty.elem),
                family="math")


@builtin("pown", "rootn")
def _pown_handler(name: str, params: tuple[CLType, ...]) -> Impl | None:
    if len(params) != 2 or not float_type(params[0]):
        return None
    t, n = params
    if not int_like(n, 32, True) or n.width != t.width:
        return None
    if t.elem == "double":
        if name == "pown":
            return Impl(t, lambda b, x, k: libm2(b, "pow", x, b.cast("sitofp", k, x.ty)), family="math")
        return Impl(t, _d_rootn, family="math")

    def body(b: Builder, x: Val, k: Val) -> Val:
        xd = C.d(b, x)
        kd = b.cast("sitofp", k, xd.ty)
        r = _pow_core(b, xd, kd, "pown") if name == "pown" else _rootn_core(b, xd, kd)
        return b.fp_resize(r, x.ty.elem)
    return Impl(t, body, family="math")


@builtin("atan2", "atan2pi", "hypot")
def _binary_handler(name: str, params: tuple[CLType, ...]) -> Impl | None:
    t = all_same(params, 2, "f")
    if t is None:
        return None
    if t.elem == "double":
        if name == "atan2pi":
            def body_d(b, y, x):
                return _times_inv_pi_dd(b, libm2(b, "atan2", y, x))
            return Impl(t, body_d, family="math")
        return Impl(t, lambda b, y, x: libm2(b, name, y, x), family="math")

    def body(b: Builder, y: Val, x: Val) -> Val:
        yd, xd = C.d(b, y), C.d(b, x)
        if name == "hypot":
            r = _hypot_core(b, yd, xd)
        else:
            r = _atan2(b, yd, xd)
            if name == "atan2pi":
                r = r * INV_PI
        return b.fp_resize(r, y.ty.elem)
    return Impl(t, body, family="math")


# -- pointer results -------------------------------------------------------------------

def _out_ptr(params: tuple[CLType, ...], index: int, pointee: CLType) -> bool:
    p = params[index]
    return p.pointee == pointee and not p.const and p.addrspace in (0, 1, 3, 4)


@builtin("sincos")
def _sincos_handler(name: str, params: tuple[CLType, ...]) -> Impl | None:
    if len(params) != 2 or not float_type(params[0]) or not _out_ptr(params, 1, params[0]):
        return None
    t = params[0]
    align = t.bits // 8 * (4 if t.width == 3 else t.width)

    def body(b: Builder, x: Val, p: Val) -> Val:
        if t.elem == "double":
            s, c = libm1(b, "sin", x), libm1(b, "cos", x)
        else:
            xd = C.d(b, x)
            s = b.fp_resize(_sin(b, xd, x), x.ty.elem)
            c = b.fp_resize(_cos(b, xd, x), x.ty.elem)
        b.store(c, p, align)
        return s
    return Impl(t, body, pure=False, family="math")


@builtin("lgamma_r")
def _lgamma_r_handler(name: str, params: tuple[CLType, ...]) -> Impl | None:
    if len(params) != 2 or not float_type(params[0]):
        return None
    t = params[0]
    if not _out_ptr(params, 1, CLType("int", t.width)):
        return None
    align = 4 * (4 if t.width == 3 else t.width)

    def body(b: Builder, x: Val, p: Val) -> Val:
        xd = C.d(b, x)
        if t.elem == "double":
            v = libm1(b, "lgamma", x)
        else:
            v = b.fp_resize(_lgamma(b, xd, x), x.ty.elem)
        sign = b.select(xd.olt(0.0), C.gamma_sign_negative(b, xd), b.const(1.0, xd.ty))
        sign = b.select(xd.oeq(0.0), b.copysign(b.const(1.0, xd.ty), xd), sign)
        sign = b.select(b.is_nan(xd) | (xd.olt(0.0) & b.floor(xd).oeq(xd)), 0.0, sign)
        b.store(b.cast("fptosi", sign, xd.ty.like("i32")), p, align)
        return v
    return Impl(t, body, pure=False, family="math")


# -- native_* and half_* (float only) --------------------------------------------------

_RELAXED_UNARY = ("cos", "exp", "exp2", "exp10", "log", "log2", "log10", "sin", "tan")


@builtin(*[f"{p}_{n}" for p in ("native", "half") for n in
           (*_RELAXED_UNARY, "sqrt", "rsqrt", "recip", "divide", "powr")])
def _relaxed_handler(name: str, params: tuple[CLType, ...]) -> Impl | None:
    base = name.split("_", 1)[1]
    t = all_same(params, 2 if base in ("divide", "powr") else 1, "f")
    if t is None or t.elem != "float":
        return None
    if base in _RELAXED_UNARY:
        return _unary_handler(base, params)
    if base == "powr":
        return _pow_handler("powr", params)
    ops: dict[str, Callable[..., Val]] = {
        "sqrt": lambda b, x: b.sqrt(x),
        "rsqrt": lambda b, x: b.fp_resize(1.0 / b.sqrt(C.d(b, x)), "float"),
        "recip": lambda b, x: 1.0 / x,
        "divide": lambda b, x, y: x / y,
    }
    return Impl(t, ops[base], family="math")
