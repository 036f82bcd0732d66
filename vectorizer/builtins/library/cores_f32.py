"""Single-precision kernels for the hottest float builtins, exp and log.

Computing them in float rather than double keeps a vectorized kernel in
float registers (8 lanes per AVX register instead of 4), which is what
compute-bound kernels such as Black-Scholes spend their time in. Both are
within about 1 ulp (OpenCL allows 3); `python -m vectorizer.builtins.accuracy
--exhaustive-float --only exp,log` measures them on every float.

- exp: k = round(x / ln2) by the 1.5 * 2^23 rounding trick, r = x - k ln2
  with a 16-bit ln 2 head (k ln2_hi exact for |k| <= 150), e^r by its Taylor
  polynomial to r^7 (truncation 2^-27 relative), times 2^k in two normal
  factors so that subnormal and overflowing results are rounded once.
- log: x = 2^k m with m in [sqrt(1/2), sqrt(2)) from the bits (subnormals
  scaled by 2^23), f = m - 1 exact, log(1 + f) = f - (f^2/2 - s (f^2/2 + R))
  with s = f / (2 + f), R = s^2 Q(s^2) the atanh series: f enters exactly and
  the rounded parts are the small corrections.
"""

from __future__ import annotations

import math
from fractions import Fraction

from . import coefficients
from .ir import Builder, Val

_LN2 = Fraction(coefficients.LN2_EXACT)
LN2_HI = float.fromhex("0x1.62e4p-1")  # 16 bits
LN2_LO = float(_LN2 - Fraction(LN2_HI))
ROUND = 1.5 * 2.0**23  # adding it rounds |v| < 2^22 to an integer in the low mantissa bits


def _f32(v: float) -> float:
    import struct

    return struct.unpack("<f", struct.pack("<f", v))[0]


LN2_LO_F = _f32(LN2_LO)
LOG2E_F = _f32(1.0 / math.log(2.0))
_EXP = [_f32(float(Fraction(1, math.factorial(n)))) for n in range(8)]
_LOG_Q = [_f32(2.0 / (2 * n + 1)) for n in range(1, 5)]  # 2/3, 2/5, 2/7, 2/9


def _pow2(b: Builder, k: Val) -> Val:
    """2^k as a float for an i32 k in [-126, 127]."""
    return b.as_fp((k + 127) << 23, "float")


def exp(b: Builder, x: Val) -> Val:
    """e^x for a float x (NaN, infinities, overflow, underflow as IEEE)."""
    xc = b.select(x.ogt(89.0), 89.0, b.select(x.olt(-104.0), -104.0, x))
    xc = b.select(b.is_nan(x), 0.0, xc)
    t = b.fma(xc, LOG2E_F, ROUND)
    kf = t - ROUND
    k = b.as_int(t) - b.as_int(b.const(ROUND, t.ty))
    r = b.fma(-kf, LN2_HI, xc)
    r = b.fma(-kf, LN2_LO_F, r)
    p = b.const(_EXP[-1], x.ty)
    for c in reversed(_EXP[:-1]):
        p = b.fma(p, r, c)
    k1 = k.ashr(1)
    out = p * _pow2(b, k1) * _pow2(b, k - k1)
    return b.select(b.is_nan(x), x, out)


def log(b: Builder, x: Val) -> Val:
    """ln x for a float x: 0 -> -inf, x < 0 -> NaN, inf -> inf."""
    i32 = x.ty.like("i32")
    sub = x.olt(2.0**-126)
    xs = b.select(sub, x * 2.0**23, x)
    ix = b.as_int(xs) + (0x3F800000 - 0x3F3504F3)
    k = ix.ashr(23) - 127 - b.select(sub, b.const(23, i32), b.const(0, i32))
    m = b.as_fp((ix & 0x007FFFFF) + 0x3F3504F3, "float")
    f = m - 1.0
    s = f / (f + 2.0)
    z = s * s
    q = b.const(_LOG_Q[-1], x.ty)
    for c in reversed(_LOG_Q[:-1]):
        q = b.fma(q, z, c)
    big_r = z * q
    hfsq = (f * f) * 0.5
    lp = f - (hfsq - s * (hfsq + big_r))
    kf = b.cast("sitofp", k, x.ty)
    out = b.fma(kf, LN2_HI, b.fma(kf, LN2_LO_F, lp))
    out = b.select(x.oeq(0.0), -math.inf, out)
    out = b.select(x.oeq(math.inf), math.inf, out)
    out = b.select(x.olt(0.0), math.nan, out)
    return b.select(b.is_nan(x), x, out)
