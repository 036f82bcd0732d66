"""Double-precision kernels behind the single- and half-precision math builtins.

A float (or half) builtin widens its argument to double exactly, evaluates
one of these kernels, and rounds once to its own type. The kernels aim at a
relative error near 2^-45, far below a float ulp (2^-24), so the final
rounding dominates: results are within about 0.5 ulp (and every float
subnormal is a normal double, so subnormal inputs need no special path).
Double arithmetic is as vectorizable as float arithmetic (half as many lanes
per register), and every kernel is branch-free.

Algorithms (all from the literature, coefficients computed here):
- exp: Cody-Waite reduction x = k ln2 + r with a 42-bit ln2 head (k ln2_hi is
  exact), e^r by its Taylor polynomial to r^11 (|r| <= ln2/2: truncation
  2^-47), scaled by 2^k in two factors so overflow and underflow round once.
- log: x = 2^k m with m in [sqrt(1/2), sqrt(2)) from the bits;
  log m = 2 atanh(s), s = (m - 1)/(m + 1), |s| <= 0.172, series to s^19.
- sin/cos: Payne-Hanek reduction of a float argument, exact in 32-bit
  integer pieces (see `reduce_pio2`), Taylor polynomials on [-pi/4, pi/4].
- atan: atan t = 2 atan(t / (1 + sqrt(1 + t^2))) maps [0, 1] to [0, 0.415],
  then the Taylor series to t^33.
- erfc: erfc x = e^(-x^2) g(x) / (1 + 2x) for x >= 0 with g a Chebyshev
  series in t = (x - 3)/(x + 3) (Clenshaw), fitted here (see `fit.py`);
  erf x = x P(x^2), Taylor, for |x| < 1/2.
- lgamma: Stirling's series at z >= 8, after z = x + 8 and dividing out the
  product x (x + 1) ... (x + 7); reflection for x < 1/2.
"""

from __future__ import annotations

import math
from fractions import Fraction

from . import coefficients
from .ir import Builder, Val

LN2 = math.log(2.0)
LN2_HI = float.fromhex("0x1.62e42fefa3800p-1")  # ln 2 to 42 bits: k * LN2_HI exact for |k| < 2^11
LN2_LO = float(Fraction(coefficients.LN2_EXACT) - Fraction(LN2_HI))
LOG2E = 1.0 / LN2
PI = math.pi
PIO2 = math.pi / 2

# 2/pi in 32-bit words, preceded by one zero word: word k holds bits
# 2^-(32k-31) .. 2^-(32k) of 2/pi.
TWO_OVER_PI_WORDS = (0x0, 0xA2F9836E, 0x4E441529, 0xFC2757D1, 0xF534DDC0, 0xDB629599, 0x3C439041,
                     0xFE5163AB)


def taylor(coeffs: list[Fraction]) -> list[float]:
    return [float(c) for c in coeffs]


def horner(b: Builder, x: Val, coeffs: list[float]) -> Val:
    """c0 + x (c1 + x (c2 + ...)) with fused steps (coefficients low to high)."""
    acc = b.const(coeffs[-1], x.ty)
    for c in reversed(coeffs[:-1]):
        acc = b.fma(acc, x, c)
    return acc


def d(b: Builder, v: Val) -> Val:
    """Widen to double (exact)."""
    return b.fp_resize(v, "double")


def pow2i(b: Builder, k: Val) -> Val:
    """2^k as a double for an i64 `k` in [-1022, 1023]."""
    return b.as_fp((k + 1023) << 52, "double")


def scale(b: Builder, p: Val, k: Val) -> Val:
    """p * 2^k for an i64 |k| <= 1600: two normal factors, one final rounding."""
    k1 = k.ashr(1)
    return p * pow2i(b, k1) * pow2i(b, k - k1)


_EXP_TAYLOR = taylor([Fraction(1, math.factorial(n)) for n in range(12)])


def _exp_reduce(b: Builder, x: Val) -> tuple[Val, Val, Val]:
    """(k as double, k as i64, r) with x = k ln2 + r; x clamped to [-1100, 1100] (beyond: overflow or 0 anyway), NaN -> 0."""
    xc = b.select(x.ogt(1100.0), 1100.0, b.select(x.olt(-1100.0), -1100.0, x))
    xc = b.select(b.is_nan(x), 0.0, xc)
    k = b.rint(xc * LOG2E)
    r = b.fma(-k, LN2_HI, xc)
    r = b.fma(-k, LN2_LO, r)
    ki = b.cast("fptosi", k, x.ty.like("i64"))
    return k, ki, r


def exp(b: Builder, x: Val) -> Val:
    """e^x for a double x (NaN, +-inf, overflow and underflow as IEEE)."""
    _k, ki, r = _exp_reduce(b, x)
    p = horner(b, r, _EXP_TAYLOR)
    return b.select(b.is_nan(x), x, scale(b, p, ki))


def expm1(b: Builder, x: Val) -> Val:
    """e^x - 1, relatively accurate near 0."""
    _k, ki, r = _exp_reduce(b, x)
    # e^r - 1 = r + r^2 (1/2 + r/6 + ...)
    q = horner(b, r, _EXP_TAYLOR[2:])
    em1 = b.fma(r * r, q, r)
    big = scale(b, em1 + 1.0, ki) - 1.0
    out = b.select(ki.eq(0), em1, big)
    return b.select(b.is_nan(x), x, out)


_LOG_Q = taylor([Fraction(2, 2 * n + 1) for n in range(1, 10)])  # 2/3, 2/5, ..., 2/19
_SQRT_HALF_BITS = 0x3FE6A09E667F3BCD


def log(b: Builder, x: Val) -> Val:
    """ln x for a double x: finite positive x (normal or not), 0 -> -inf, inf -> inf, x < 0 -> NaN."""
    tiny = x.olt(2.2250738585072014e-308)
    xs = b.select(tiny, x * 2.0**64, x)  # subnormal doubles (only from double callers)
    ix = b.as_int(xs) + (0x3FF0000000000000 - _SQRT_HALF_BITS)
    k = ix.lshr(52) - 1023
    k = k - b.select(tiny, 64, b.const(0, k.ty))
    m = b.as_fp((ix & 0x000FFFFFFFFFFFFF) + _SQRT_HALF_BITS, "double")
    f = m - 1.0
    s = f / (f + 2.0)
    z = s * s
    q = horner(b, z, _LOG_Q)
    lp = b.fma(s * z, q, s + s)
    kd = b.cast("sitofp", k, x.ty)
    out = b.fma(kd, LN2_HI, b.fma(kd, LN2_LO, lp))
    out = b.select(x.oeq(0.0), -math.inf, out)
    out = b.select(x.oeq(math.inf), math.inf, out)
    out = b.select(x.olt(0.0), math.nan, out)
    return b.select(b.is_nan(x), x, out)


def log1p(b: Builder, x: Val) -> Val:
    """ln(1 + x), relatively accurate near 0 (x >= -1)."""
    u = x + 1.0
    c = (x - (u - 1.0)) / u  # what rounding 1 + x lost, relative to u
    c = b.select(u.oeq(0.0), 0.0, c)
    out = log(b, u) + c
    out = b.select(u.oeq(math.inf), math.inf, out)
    return b.select(b.is_nan(x), x, out)


_SIN = taylor([Fraction((-1) ** n, math.factorial(2 * n + 1)) for n in range(1, 7)])  # -1/3! .. -1/13!
_COS = taylor([Fraction((-1) ** n, math.factorial(2 * n)) for n in range(0, 8)])  # 1 .. -1/14!


def sin_poly(b: Builder, r: Val) -> Val:
    """sin r for |r| <= pi/4."""
    z = r * r
    return b.fma(r * z, horner(b, z, _SIN), r)


def cos_poly(b: Builder, r: Val) -> Val:
    """cos r for |r| <= pi/4."""
    return horner(b, r * r, _COS)


def reduce_pio2(b: Builder, xf: Val) -> tuple[Val, Val]:
    """(q, r) with xf = (4m + q) pi/2 + r, q in 0..3 (i32), |r| <= pi/4 (double), for a
    finite float `xf` (Payne-Hanek; exact to 2^-64 before the final product by pi/2).

    |x| = m 2^E with an integer m < 2^24. x * 2/pi mod 4 needs only the bits of
    2/pi from 2^-(E-1) on: earlier ones contribute multiples of 4. A 96-bit
    window of them, m times the window, is a 120-bit fixed-point number with
    its binary point at bit 94; every step is exact in 64-bit integers (32 x
    32-bit products), so the reduction is exact up to the window's end
    (2^-70 absolute), whatever the size of x."""
    i32 = xf.ty.like("i32")
    i64 = xf.ty.like("i64")
    bits = b.as_int(xf)
    ax = bits & 0x7FFFFFFF
    ex = ax.lshr(23)
    mant = (ax & 0x7FFFFF) | 0x800000
    i = ex - 120
    i = b.select(i.slt(0), b.const(0, i32), i)
    wi = i.lshr(5)
    sh = i & 31
    words = []
    for k in range(4):
        w = b.const(TWO_OVER_PI_WORDS[k], i32)
        for j in range(1, 5):
            w = b.select(wi.eq(j), TWO_OVER_PI_WORDS[j + k], w)
        words.append(w)
    m64 = b.cast("zext", mant, i64)
    prods = []
    for k in range(3):
        v = b.intrinsic("fshl", [words[k], words[k + 1], sh])
        prods.append(m64 * b.cast("zext", v, i64))
    a0, a1, a2 = prods
    lo = a2 + (a1 << 32)
    carry = b.cast("zext", lo.ult(a2), i64)
    hi = a0 + a1.lshr(32) + carry
    ip = hi.lshr(30)
    frac = (hi << 34) | lo.lshr(30)
    q = ip + frac.lshr(63)
    f = b.cast("sitofp", frac, xf.ty.like("double")) * 2.0**-64
    r = f * PIO2
    q32 = b.resize_int(q, 32, False) & 3
    neg = bits.slt(0)
    r = b.select(neg, -r, r)
    q32 = b.select(neg, (0 - q32) & 3, q32)
    small = b.fabs(xf).olt(float.fromhex("0x1.921fb6p-1"))  # pi/4 rounded up to float
    r = b.select(small, d(b, xf), r)
    q32 = b.select(small, b.const(0, i32), q32)
    return q32, r


def sincos_reduced(b: Builder, q: Val, r: Val) -> tuple[Val, Val]:
    """(sin, cos) of q pi/2 + r."""
    s, c = sin_poly(b, r), cos_poly(b, r)
    swap = (q & 1).eq(1)
    sv = b.select(swap, c, s)
    cv = b.select(swap, s, c)
    sv = b.select((q & 2).eq(2), -sv, sv)
    cv = b.select(((q + 1) & 2).eq(2), -cv, cv)
    return sv, cv


def reduce_pi_exact(b: Builder, x: Val) -> tuple[Val, Val]:
    """For a double x holding a float or half: (q in 0..3 as i32, r) with x = q/2 + 2n + r,
    |r| <= 1/4, exact."""
    n = b.rint(x * 2.0)
    r = x - n * 0.5
    n4 = n - b.floor(n * 0.25) * 4.0
    q = b.cast("fptosi", n4, x.ty.like("i32")) & 3
    return q, r


_ATAN = taylor([Fraction((-1) ** n, 2 * n + 1) for n in range(0, 17)])  # 1, -1/3, ..., 1/33


def atan_unit(b: Builder, t: Val) -> Val:
    """atan t for 0 <= t <= 1."""
    h = t / (b.sqrt(b.fma(t, t, 1.0)) + 1.0)
    z = h * h
    return (h * horner(b, z, _ATAN)) * 2.0


def atan2(b: Builder, y: Val, x: Val) -> Val:
    """atan2(y, x) for finite doubles not both zero; also exact at infinities
    (through min/max of the magnitudes) except inf/inf, which callers select."""
    ay, ax = b.fabs(y), b.fabs(x)
    lo, hi = b.minnum(ay, ax), b.maxnum(ay, ax)
    t = b.select(hi.oeq(0.0), 0.0, lo / hi)
    a = atan_unit(b, t)
    a = b.select(ay.ogt(ax), PIO2 - a, a)
    a = b.select(b.as_int(x).slt(0), PI - a, a)
    return b.copysign(a, y)


_ERF_SMALL = taylor([Fraction(2 * (-1) ** n, math.factorial(n) * (2 * n + 1)) / Fraction(
    coefficients.SQRT_PI_EXACT) for n in range(0, 11)])


def erf_small(b: Builder, x: Val) -> Val:
    """erf x for |x| <= 1/2 (Taylor to x^21)."""
    return x * horner(b, x * x, _ERF_SMALL)


def erfc_pos(b: Builder, x: Val) -> Val:
    """erfc x for x >= 0 (x^2 must be exact: x from a float or half)."""
    k = coefficients.ERFC_K
    t = (x - k) / (x + k)
    lo, hi = coefficients.ERFC_T_RANGE
    u = (t - (lo + hi) / 2) * (2 / (hi - lo))
    cs = coefficients.ERFC_CHEB
    # Clenshaw: sum c_j T_j(u).
    b1 = b.const(0.0, x.ty)
    b2 = b.const(0.0, x.ty)
    u2 = u * 2.0
    for c in reversed(cs[1:]):
        b1, b2 = b.fma(u2, b1, c - b2), b1
    g = b.fma(u, b1, cs[0] - b2)
    return exp(b, -(x * x)) * g / b.fma(x, 2.0, 1.0)


_STIRLING = taylor([Fraction(1, 12), Fraction(-1, 360), Fraction(1, 1260), Fraction(-1, 1680),
                    Fraction(1, 1188), Fraction(-691, 360360)])
HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def lgamma_pos(b: Builder, x: Val) -> Val:
    """ln Gamma(x) for x > 0 finite (x < 2^1000)."""
    small = x.olt(8.0)
    p = x
    for k in range(1, 8):
        p = p * (x + float(k))
    z = b.select(small, x + 8.0, x)
    w = 1.0 / z
    series = w * horner(b, w * w, _STIRLING)
    lz = log(b, z)
    st = b.fma(z - 0.5, lz, HALF_LOG_2PI - z) + series
    return b.select(small, st - log(b, p), st)


def sinpi_abs_core(b: Builder, x: Val) -> Val:
    """|sin(pi x)| for a double holding a float or half (exact reduction)."""
    q, r = reduce_pi_exact(b, x)
    s, c = sincos_reduced(b, q, r * PI)
    return b.fabs(s)


def lgamma(b: Builder, x: Val) -> Val:
    """ln |Gamma(x)| for a double x (from a float or half): reflection below 1/2."""
    ax = b.fabs(x)
    pos = lgamma_pos(b, b.select(x.olt(0.5), 1.0 - x, x))
    refl = log(b, b.const(PI, x.ty) / (sinpi_abs_core(b, x))) - pos
    out = b.select(x.olt(0.5), refl, pos)
    # lgamma(x) ~ -log|x| near 0, where the reflection loses x to 1 - x.
    out = b.select(ax.olt(2.0**-60), -log(b, ax), out)
    return out


def gamma_sign_negative(b: Builder, x: Val) -> Val:
    """The sign of Gamma(x) for x < 0 non-integer: -1 when floor(x) is odd."""
    fl = b.floor(x)
    odd = (fl - b.floor(fl * 0.5) * 2.0).oeq(1.0)
    return b.select(odd, -1.0, b.const(1.0, x.ty))

