"""Accuracy measurement of the math builtins against correctly rounded references.

Each math builtin has a `MathSpec`: its argument kinds, a reference computed
with MPFR (gmpy2) at 160 bits on the exact inputs, and its OpenCL maximum
error in ulps for float (OpenCL 1.2 Table 7.1, full profile), double (Table
7.2) and half (cl_khr_fp16; the OpenCL 3.0 half table). A bound of 0.5 means
"correctly rounded" and 0 "exact". Errors are measured as
|result - exact| / ulp(exact), ulp(x) = 2^(floor(log2 |x|) - p + 1) (no
smaller than the least subnormal), with infinities taken as one ulp beyond
the largest finite value; NaN against a number, or a wrongly signed exact
zero or infinity, is an infinite error.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .names import mangle
from .types import CLType

# (precision, least exponent of an ulp, largest finite)
FORMATS = {"half": (11, -24, 65504.0), "float": (24, -149, 3.4028234663852886e38),
           "double": (53, -1074, 1.7976931348623157e308)}
NP = {"half": np.float16, "float": np.float32, "double": np.float64}
INF = math.inf
_ELEM = ["float"]  # the format being measured (fract's reference depends on it)

# Bounds: (float, double, half); None = no bound in the specification (still measured).
_B4 = (4.0, 4.0, 2.0)
_B5 = (5.0, 5.0, 2.0)
_B6 = (6.0, 6.0, 2.0)
_B3 = (3.0, 3.0, 2.0)
_B16 = (16.0, 16.0, 4.0)
_CR = (0.5, 0.5, 0.5)
_EXACT = (0.0, 0.0, 0.0)


@dataclass(frozen=True)
class MathSpec:
    """One math builtin: argument kinds ('f' value, 'i' int, 'p' value output,
    'q' int output), reference, bounds, which outputs are checked, and sampling."""

    name: str
    args: str
    ref: Callable | None
    bounds: tuple[float | None, float | None, float | None]
    ranges: tuple[tuple[float, float], ...] = ()
    types: tuple[str, ...] = ("float", "double", "half")
    note: str = ""
    check_outputs: bool = True
    extra: dict = field(default_factory=dict)

    def mangled(self, elem: str, width: int = 1) -> str:
        t = CLType(elem, width)
        it = CLType("int", width)
        params = []
        for a in self.args:
            params.append({"f": t, "i": it, "p": t.ptr(0), "q": it.ptr(0)}[a])
        return mangle(self.name, params)


def _g():
    import gmpy2

    return gmpy2


def _pi_frac(x, fn):
    g = _g()
    r = g.fmod(x, 2)
    return fn(g.const_pi() * r)


def _sinpi(x):
    g = _g()
    if g.is_infinite(x) or g.is_nan(x):
        return g.nan()
    if x == 0 or g.is_integer(x):
        return g.copy_sign(g.mpfr(0), x)
    return _pi_frac(x, g.sin)


def _cospi(x):
    g = _g()
    if g.is_infinite(x) or g.is_nan(x):
        return g.nan()
    if g.is_integer(x * 2) and not g.is_integer(x):
        return g.mpfr(0)
    return _pi_frac(x, g.cos)


def _tanpi(x):
    g = _g()
    if g.is_infinite(x) or g.is_nan(x):
        return g.nan()
    if g.is_integer(x):
        n_even = g.is_integer(x / 2)
        return g.copy_sign(g.mpfr(0), x if n_even else -x)
    if g.is_integer(x * 2):
        n = g.floor(x)
        return g.inf(1) if g.is_integer(n / 2) else g.inf(-1)
    return _pi_frac(x, g.tan)


def _div_pi(fn):
    return lambda *a: fn(*a) / _g().const_pi()


def _lgamma(x):
    g = _g()
    if g.is_nan(x):
        return x
    if g.is_infinite(x) or (x <= 0 and g.is_integer(x)):
        return g.inf(1)
    return g.lgamma(x)[0]


def _tgamma(x):
    g = _g()
    if x == 0:
        return g.copy_sign(g.inf(1), x)
    if x < 0 and (g.is_integer(x) or g.is_infinite(x)):
        return g.nan()
    return g.gamma(x)


def _pow(x, y):
    return _g().mpfr(x) ** y if not (x == 1 or y == 0) else _g().mpfr(1)


def _powr(x, y):
    g = _g()
    if g.is_nan(x) or g.is_nan(y) or x < 0:
        return g.nan()
    if (x == 0 or g.is_infinite(x)) and y == 0:
        return g.nan()
    if x == 1 and g.is_infinite(y):
        return g.nan()
    return _pow(x, y)


def _pown(x, n):
    g = _g()
    if n == 0:
        return g.mpfr(1)
    return g.mpfr(x) ** g.mpfr(int(n))


def _rootn(x, n):
    g = _g()
    n = int(n)
    if n == 0 or g.is_nan(x):
        return g.nan()
    if x < 0 and n % 2 == 0:
        return g.nan()
    if n > 0:
        return g.rootn(x, n)
    if x == 0:
        return g.copy_sign(g.inf(1), x) if n % 2 else g.inf(1)
    return 1 / g.rootn(x, -n)


def _hypot(x, y):
    g = _g()
    if g.is_infinite(x) or g.is_infinite(y):
        return g.inf(1)
    return g.hypot(x, y)


def _atan2(y, x):
    return _g().atan2(y, x)


def _fdim(x, y):
    g = _g()
    if g.is_nan(x) or g.is_nan(y):
        return g.nan()
    return x - y if x > y else g.mpfr(0)


def _maxmag(x, y):
    g = _g()
    if abs(x) > abs(y):
        return x
    if abs(y) > abs(x):
        return y
    return g.maxnum(x, y)


def _minmag(x, y):
    g = _g()
    if abs(x) < abs(y):
        return x
    if abs(y) < abs(x):
        return y
    return g.minnum(x, y)


def _fract(x):
    g = _g()
    if g.is_nan(x) or x == 0:
        return x
    if g.is_infinite(x):
        return g.copy_sign(g.mpfr(0), x)
    # OpenCL: fmin(x - floor(x), the largest value below 1).
    below_one = 1 - g.mpfr(2.0) ** -FORMATS[_ELEM[0]][0]
    return min(x - g.floor(x), below_one)


def _modf(x):
    g = _g()
    if g.is_infinite(x):
        return g.copy_sign(g.mpfr(0), x)
    return g.copy_sign(x - g.trunc(x), x)


def _logb(x):
    g = _g()
    if g.is_nan(x):
        return x
    if x == 0:
        return g.inf(-1)
    if g.is_infinite(x):
        return g.inf(1)
    return g.mpfr(g.get_exp(x) - 1)


def _round(x):
    g = _g()
    return g.round_away(x) if g.is_finite(x) else x


def _fmax(x, y):
    g = _g()
    if g.is_nan(x):
        return y
    if g.is_nan(y):
        return x
    if x == y == 0:
        return y if g.is_signed(x) else x
    return g.maxnum(x, y)


def _fmin(x, y):
    g = _g()
    if g.is_nan(x):
        return y
    if g.is_nan(y):
        return x
    if x == y == 0:
        return x if g.is_signed(x) else y
    return g.minnum(x, y)


def _one(name):
    return lambda *a: getattr(_g(), name)(*a)


def _integral(name):
    """ceil/floor/trunc/rint: infinities and NaN map to themselves."""
    def ref(x):
        g = _g()
        if not g.is_finite(x):
            return x
        r = getattr(g, name)(x)
        return g.copy_sign(g.mpfr(r), x) if r == 0 else r
    return ref


def _remainder(x, y):
    g = _g()
    if g.is_finite(x) and g.is_infinite(y):
        return x
    return g.remainder(x, y)


def _rsqrt(x):
    g = _g()
    if x == 0:
        return g.copy_sign(g.inf(1), x)
    return g.rec_sqrt(x)


TRIG = ((-10.0, 10.0), (-1e4, 1e4), (1e5, 1e30))
SPECS: list[MathSpec] = [
    MathSpec("acos", "f", _one("acos"), _B4, ((-1.0, 1.0),)),
    MathSpec("acosh", "f", _one("acosh"), _B4, ((1.0, 10.0),)),
    MathSpec("acospi", "f", _div_pi(_one("acos")), _B5, ((-1.0, 1.0),)),
    MathSpec("asin", "f", _one("asin"), _B4, ((-1.0, 1.0),)),
    MathSpec("asinh", "f", _one("asinh"), _B4),
    MathSpec("asinpi", "f", _div_pi(_one("asin")), _B5, ((-1.0, 1.0),)),
    MathSpec("atan", "f", _one("atan"), _B5),
    MathSpec("atan2", "ff", _atan2, _B6),
    MathSpec("atanh", "f", _one("atanh"), _B5, ((-1.0, 1.0),)),
    MathSpec("atanpi", "f", _div_pi(_one("atan")), _B5),
    MathSpec("atan2pi", "ff", _div_pi(_atan2), _B6),
    MathSpec("cbrt", "f", _one("cbrt"), (2.0, 2.0, 2.0)),
    MathSpec("ceil", "f", _integral("ceil"), _EXACT),
    MathSpec("copysign", "ff", None, _EXACT, note="checked bit-exactly against numpy (NaN signs too)"),
    MathSpec("cos", "f", _one("cos"), _B4, TRIG),
    MathSpec("cosh", "f", _one("cosh"), _B4, ((-90.0, 90.0),)),
    MathSpec("cospi", "f", _cospi, _B4, TRIG),
    MathSpec("erfc", "f", _one("erfc"), _B16, ((-5.0, 12.0),)),
    MathSpec("erf", "f", _one("erf"), _B16, ((-5.0, 5.0),)),
    MathSpec("exp", "f", _one("exp"), _B3, ((-110.0, 90.0),)),
    MathSpec("exp2", "f", _one("exp2"), _B3, ((-150.0, 130.0),)),
    MathSpec("exp10", "f", _one("exp10"), _B3, ((-46.0, 39.0),)),
    MathSpec("expm1", "f", _one("expm1"), _B3, ((-20.0, 90.0),)),
    MathSpec("fabs", "f", abs, _EXACT),
    MathSpec("fdim", "ff", _fdim, _CR),
    MathSpec("floor", "f", _integral("floor"), _EXACT),
    MathSpec("fma", "fff", _one("fma"), _CR),
    MathSpec("fmax", "ff", _fmax, _EXACT),
    MathSpec("fmin", "ff", _fmin, _EXACT),
    MathSpec("fmod", "ff", _one("fmod"), _EXACT),
    MathSpec("fract", "fp", _fract, _CR, note="the floor output is checked exactly"),
    MathSpec("frexp", "fq", lambda x: _g().frexp(x)[1] if _g().is_finite(x) and x != 0 else x, _EXACT,
             note="the exponent output is checked exactly"),
    MathSpec("hypot", "ff", _hypot, _B4),
    MathSpec("ilogb", "f", None, _EXACT, note="checked exactly against frexp"),
    MathSpec("ldexp", "fi", lambda x, n: _g().mul_2exp(x, int(n)), _CR),
    MathSpec("lgamma", "f", _lgamma, (None, None, None), ((-10.0, 40.0),),
             note="no bound in OpenCL 1.2; away from the zeros of lgamma"),
    MathSpec("lgamma_r", "fq", _lgamma, (None, None, None), ((-10.0, 40.0),),
             note="the sign output is checked exactly"),
    MathSpec("log", "f", _one("log"), _B3),
    MathSpec("log2", "f", _one("log2"), _B3),
    MathSpec("log10", "f", _one("log10"), _B3),
    MathSpec("log1p", "f", _one("log1p"), (2.0, 2.0, 2.0)),
    MathSpec("logb", "f", _logb, _EXACT),
    MathSpec("mad", "fff", _one("fma"), (None, None, None), note="any approximation allowed; we fuse"),
    MathSpec("maxmag", "ff", _maxmag, _EXACT),
    MathSpec("minmag", "ff", _minmag, _EXACT),
    MathSpec("modf", "fp", _modf, _EXACT, note="the integral output is checked exactly"),
    MathSpec("nextafter", "ff", None, _EXACT, note="checked bit-exactly against numpy"),
    MathSpec("pow", "ff", _pow, (16.0, 16.0, 4.0), ((0.0, 10.0), (-10.0, 10.0))),
    MathSpec("pown", "fi", _pown, (16.0, 16.0, 4.0), ((-10.0, 10.0),)),
    MathSpec("powr", "ff", _powr, (16.0, 16.0, 4.0), ((0.0, 10.0),)),
    MathSpec("remainder", "ff", _remainder, _EXACT),
    MathSpec("remquo", "ffq", _remainder, _EXACT, note="the quotient's 3 low bits and sign are checked"),
    MathSpec("rint", "f", _integral("rint"), _EXACT),
    MathSpec("rootn", "fi", _rootn, (16.0, 16.0, 4.0), ((0.0, 100.0),)),
    MathSpec("round", "f", _round, _EXACT),
    MathSpec("rsqrt", "f", _rsqrt, (2.0, 2.0, 1.0), ((0.0, 100.0),)),
    MathSpec("sin", "f", _one("sin"), _B4, TRIG),
    MathSpec("sincos", "fp", _one("sin"), _B4, TRIG, note="the cosine output is checked too"),
    MathSpec("sinh", "f", _one("sinh"), _B4, ((-90.0, 90.0),)),
    MathSpec("sinpi", "f", _sinpi, _B4, TRIG),
    MathSpec("sqrt", "f", _one("sqrt"), (3.0, 0.5, 0.5)),
    MathSpec("tan", "f", _one("tan"), _B5, TRIG),
    MathSpec("tanh", "f", _one("tanh"), _B5, ((-20.0, 20.0),)),
    MathSpec("tanpi", "f", _tanpi, _B6, TRIG),
    MathSpec("tgamma", "f", _tgamma, _B16, ((-30.0, 36.0),)),
    MathSpec("trunc", "f", _integral("trunc"), _EXACT),
]
# native_* and half_*: float only, relaxed bounds (half_: 8192 ulp; native_:
# implementation-defined, we hold them to the full-precision bound).
_RELAXED = {"cos": ("f", "cos", TRIG), "exp": ("f", "exp", ((-87.0, 88.0),)),
            "exp2": ("f", "exp2", ((-126.0, 127.0),)), "exp10": ("f", "exp10", ((-37.0, 38.0),)),
            "log": ("f", "log", ()), "log2": ("f", "log2", ()), "log10": ("f", "log10", ()),
            "sin": ("f", "sin", TRIG), "tan": ("f", "tan", TRIG), "sqrt": ("f", "sqrt", ()),
            "rsqrt": ("f", None, ((0.0, 100.0),)), "recip": ("f", None, ()),
            "divide": ("ff", None, ()), "powr": ("ff", None, ((0.0, 10.0),))}
for _base, (_args, _fn, _rng) in _RELAXED.items():
    if _fn is not None:
        _ref = _one(_fn)
    elif _base == "rsqrt":
        _ref = _rsqrt
    elif _base == "recip":
        def _ref(x):
            return 1 / _g().mpfr(x)
    elif _base == "divide":
        def _ref(x, y):
            return _g().mpfr(x) / y
    else:
        _ref = _powr
    for _prefix, _bound in (("half", 8192.0), ("native", None)):
        SPECS.append(MathSpec(f"{_prefix}_{_base}", _args, _ref, (_bound, None, None), _rng, types=("float",)))


def spec(name: str) -> MathSpec:
    for s in SPECS:
        if s.name == name:
            return s
    raise KeyError(name)


# -- sampling ----------------------------------------------------------------------

def specials(elem: str) -> np.ndarray:
    p, emin, big = FORMATS[elem]
    tiny = 2.0 ** emin
    vals = [0.0, tiny, tiny * 3, 2.0 ** (emin + p - 1) * (1 - 2.0 ** -(p - 1)), 2.0 ** (emin + p - 1), 0.5, 1.0,
            1.5, 2.0, 3.0, 10.0, big, INF, math.pi / 2, math.pi, 3 * math.pi / 2, 2 * math.pi, 0.25, 0.75,
            1 - 2.0 ** -p, 1 + 2.0 ** (1 - p), 1e-3, 100.0, 1e4]
    arr = np.array(vals, dtype=np.float64)
    with np.errstate(over="ignore"):
        arr = arr.astype(NP[elem])
    return np.concatenate([arr, -arr, np.array([np.nan], NP[elem])])


def sample(elem: str, n: int, rng: np.random.Generator, ranges=()) -> np.ndarray:
    """n values: the specials, uniformly random encodings (every binade, subnormals,
    infinities, NaNs), and uniform values in the function's interesting ranges."""
    sp = specials(elem)
    bits = {"half": np.uint16, "float": np.uint32, "double": np.uint64}[elem]
    nbits = np.dtype(bits).itemsize * 8
    n_rest = max(n - sp.size, 0)
    n_rand = n_rest // 2 if ranges else n_rest
    raw = rng.integers(0, 1 << min(nbits, 63), n_rand, dtype=np.uint64)
    if nbits == 64:
        raw = raw | (rng.integers(0, 2, n_rand, dtype=np.uint64) << np.uint64(63))
    rand = raw.astype(bits).view(NP[elem])
    parts = [sp, rand]
    left = n_rest - n_rand
    for i, (lo, hi) in enumerate(ranges):
        k = left // len(ranges) + (1 if i < left % len(ranges) else 0)
        with np.errstate(over="ignore"):
            parts.append(rng.uniform(lo, hi, k).astype(NP[elem]))
    return np.concatenate(parts)[:n]


def sample_ints(n: int, rng: np.random.Generator) -> np.ndarray:
    base = np.array([0, 1, -1, 2, -2, 3, -3, 4, 5, 7, 8, -8, 127, -128, 2**31 - 1, -(2**31)], np.int64)
    rest = rng.integers(-40, 41, max(n - base.size, 0))
    return np.concatenate([base, rest])[:n].astype(np.int32)


# -- measurement ---------------------------------------------------------------------

def ulp_error(got: float, exact, elem: str) -> float:
    """|got - exact| in ulps of `exact` (an mpfr) for format `elem`."""
    g = _g()
    p, emin, big = FORMATS[elem]
    got_nan, ex_nan = math.isnan(got), g.is_nan(exact)
    if got_nan or ex_nan:
        return 0.0 if got_nan and ex_nan else INF
    edge = g.mpfr(2.0) ** math.frexp(big)[1]
    ex = exact
    if g.is_infinite(ex) or abs(ex) > edge:
        ex = g.copy_sign(edge, ex)
    gv = g.mpfr(got)
    if math.isinf(got):
        gv = g.copy_sign(edge, gv)
    if ex == 0 or g.is_infinite(exact):
        if gv == ex and (ex != 0 or g.is_signed(gv) == g.is_signed(ex)):
            return 0.0
        if ex == 0 and gv == 0:
            return INF  # wrong sign of an exact zero
    e = g.get_exp(ex) - 1 if ex != 0 else emin + p - 1
    ulp_exp = max(e - p + 1, emin)
    return float(abs(gv - ex) / g.mpfr(2.0) ** ulp_exp)


def reference(spec_: MathSpec, elem: str, inputs: list[np.ndarray]) -> list:
    """The exact (160-bit) reference value of each input tuple."""
    g = _g()
    ctx = g.get_context()
    ctx.precision = 160
    _ELEM[0] = elem
    assert spec_.ref is not None
    out = []
    cols = [a.tolist() for a in inputs]
    for args in zip(*cols, strict=True):
        conv = [g.mpfr(a) if isinstance(a, float) else a for a in args]
        try:
            out.append(g.mpfr(spec_.ref(*conv)))
        except (ValueError, ZeroDivisionError, OverflowError):
            out.append(g.nan())
    return out
