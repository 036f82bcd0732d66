"""Checks of the exactly defined builtins: integer, conversions, relational,
common, geometric, shuffles, vector loads and stores.

    python -m vectorizer.builtins.library.exact              # sampled
    python -m vectorizer.builtins.library.exact --exhaustive # full domains

References are exact Python integer and rational arithmetic (`Fraction`),
rounded where the builtin rounds. Sampled mode draws a few thousand inputs per
builtin and element type (with the boundary values); exhaustive mode runs every
input of the 8- and 16-bit unary builtins and conversions, every pair of 8-bit
inputs for binary integer builtins, and every 32-bit input of the unary 32-bit
integer builtins, of convert_int(float) in all rounding modes and of
convert_half(float) (numpy references, in chunks). Each scalar overload's
results are compared with a vector overload's on the same inputs, bit for bit.
Exit 1 if anything differs.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .names import mangle
from .native import Batch, dtype
from .types import ELEMENTS, FLOATS, INTEGERS, CLType

FMT = {"half": (11, -14, 65504.0), "float": (24, -126, 3.4028234663852886e38),
       "double": (53, -1022, 1.7976931348623157e308)}


def round_fraction(q: Fraction, elem: str, mode: str) -> float:
    """The value of `elem` nearest `q` in rounding mode `mode` (rte, rtz, rtp, rtn)."""
    if q == 0:
        return 0.0
    p, emin, big = FMT[elem]
    neg = q < 0
    a = -q if neg else q
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, emin)
    unit = Fraction(2) ** (e - p + 1)
    m = a / unit
    n = m.numerator // m.denominator
    rem = m - n
    if mode == "rte":
        if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n % 2):
            n += 1
    elif rem and ((mode == "rtp" and not neg) or (mode == "rtn" and neg)):
        n += 1
    r = n * unit
    if r > Fraction(big):
        toward_zero = mode == "rtz" or (mode == "rtp" and neg) or (mode == "rtn" and not neg)
        val = big if toward_zero else math.inf
    else:
        val = float(r)
    return -val if neg else val


def wrap(v: int, elem: str) -> int:
    bits = ELEMENTS[elem][2]
    v &= (1 << bits) - 1
    if ELEMENTS[elem][3] == "s" and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def limits(elem: str) -> tuple[int, int]:
    bits = ELEMENTS[elem][2]
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if ELEMENTS[elem][3] == "s" else (0, (1 << bits) - 1)


def sat(v: int, elem: str) -> int:
    lo, hi = limits(elem)
    return min(max(v, lo), hi)


def unsigned_of(elem: str) -> str:
    return {"char": "uchar", "short": "ushort", "int": "uint", "long": "ulong"}.get(elem, elem)


def int_samples(elem: str, n: int, rng: np.random.Generator) -> np.ndarray:
    lo, hi = limits(elem)
    edges = [lo, lo + 1, hi, hi - 1, 0, 1, 2, 3, (lo + hi) // 2, hi // 2, hi // 2 + 1]
    if lo < 0:
        edges += [-1, -2, lo // 2]
    bits = ELEMENTS[elem][2]
    raw = rng.integers(0, 1 << 62, n, dtype=np.int64).astype(np.uint64)
    if bits == 64:
        raw = raw ^ (rng.integers(0, 4, n, dtype=np.uint64) << np.uint64(62))
    vals = raw.astype(f"u{bits // 8}").view(dtype(CLType(elem)))
    return np.concatenate([np.array(edges, dtype=dtype(CLType(elem))), vals])[:max(n, len(edges))]


def int_domain(elem: str) -> np.ndarray:
    bits = ELEMENTS[elem][2]
    return np.arange(1 << bits, dtype=np.int64).astype(f"u{bits // 8}").view(dtype(CLType(elem)))


# -- integer builtins: reference on Python ints ---------------------------------------

def _clz(x, e):
    bits = ELEMENTS[e][2]
    return bits - (x & ((1 << bits) - 1)).bit_length()


def _ctz(x, e):
    bits = ELEMENTS[e][2]
    x &= (1 << bits) - 1
    return bits if x == 0 else (x & -x).bit_length() - 1


def _rotate(x, n, e):
    bits = ELEMENTS[e][2]
    u = x & ((1 << bits) - 1)
    k = (n & ((1 << bits) - 1)) % bits
    return wrap(((u << k) | (u >> (bits - k))) if k else u, e)


INT_UNARY: dict[str, Callable] = {
    "abs": lambda x, e: wrap(abs(x), unsigned_of(e)),
    "clz": _clz,
    "ctz": _ctz,
    "popcount": lambda x, e: bin(x & ((1 << ELEMENTS[e][2]) - 1)).count("1"),
}
INT_BINARY: dict[str, Callable] = {
    "abs_diff": lambda x, y, e: wrap(abs(x - y), unsigned_of(e)),
    "add_sat": lambda x, y, e: sat(x + y, e),
    "sub_sat": lambda x, y, e: sat(x - y, e),
    "hadd": lambda x, y, e: (x + y) >> 1,
    "rhadd": lambda x, y, e: (x + y + 1) >> 1,
    "max": lambda x, y, e: max(x, y),
    "min": lambda x, y, e: min(x, y),
    "mul_hi": lambda x, y, e: wrap((x * y) >> ELEMENTS[e][2], e),
    "rotate": _rotate,
}
INT_TERNARY: dict[str, Callable] = {
    "mad_hi": lambda x, y, z, e: wrap(((x * y) >> ELEMENTS[e][2]) + z, e),
    "mad_sat": lambda x, y, z, e: sat(x * y + z, e),
    "clamp": lambda x, lo, hi, e: min(max(x, lo), hi),
}


def _ret_elem(name: str, e: str) -> str:
    return unsigned_of(e) if name in ("abs", "abs_diff") else e


@dataclass
class Outcome:
    name: str
    checked: int = 0
    failures: list[str] | None = None

    def fail(self, msg: str) -> None:
        if self.failures is None:
            self.failures = []
        if len(self.failures) < 5:
            self.failures.append(msg)


def _compare(out: Outcome, label: str, got: np.ndarray, want: list, inputs: list[np.ndarray]) -> None:
    out.checked += len(want)
    w = np.array(want, dtype=object)
    for i, (g, v) in enumerate(zip(got.tolist(), w.tolist(), strict=True)):
        same = (g == v) or (isinstance(g, float) and math.isnan(g) and math.isnan(v))
        if isinstance(g, float) and g == v == 0 and math.copysign(1, g) != math.copysign(1, v):
            same = False
        if not same:
            out.fail(f"{label}{tuple(a[i] for a in inputs)} = {g!r}, want {v!r}")
            return


def _vector_same(batch: Batch, out: Outcome, scalar: str, vector: str, inputs: list[np.ndarray]) -> None:
    w = batch.funcs[vector].params[0].width
    m = (inputs[0].size // w) * w
    s = batch.run(scalar, *[a[:m] for a in inputs])
    v = batch.run(vector, *[a[:m] for a in inputs])
    for a, c in zip(s, v, strict=True):
        if a.dtype.kind == "f":
            same = (a.view(f"u{a.itemsize}") == c.view(f"u{c.itemsize}")) | (np.isnan(a) & np.isnan(c))
        else:
            same = a == c
        if not same.all():
            out.fail(f"{vector} differs from {scalar}")


class Suite:
    """Collects the builtins to compile, then runs every check."""

    def __init__(self, n: int, exhaustive: bool, seed: int = 7) -> None:
        self.n, self.exhaustive = n, exhaustive
        self.rng = np.random.default_rng(seed)
        self.jobs: list[tuple[str, Callable[[Batch], None], list[str]]] = []
        self.outcomes: list[Outcome] = []

    def add(self, label: str, names: list[str], fn: Callable[[Batch, Outcome], None]) -> None:
        out = Outcome(label)
        self.outcomes.append(out)
        self.jobs.append((label, lambda b: fn(b, out), names))

    def run(self) -> list[Outcome]:
        names = sorted({n for _l, _f, ns in self.jobs for n in ns})
        batch = Batch(names)
        for _label, fn, _names in self.jobs:
            fn(batch)
        return self.outcomes


def add_integer_checks(s: Suite) -> None:
    for e in INTEGERS:
        t = CLType(e)
        bits = ELEMENTS[e][2]
        v = CLType(e, 3 if bits in (8, 32) else 4)
        for name, ref in INT_UNARY.items():
            sc, vc = mangle(name, [t]), mangle(name, [v])

            def run1(b, out, name=name, ref=ref, e=e, sc=sc, vc=vc):
                x = int_domain(e) if s.exhaustive and ELEMENTS[e][2] <= 16 else int_samples(e, s.n, s.rng)
                _compare(out, f"{name}({e})", b.run(sc, x)[0], [ref(int(a), e) for a in x.tolist()], [x])
                _vector_same(b, out, sc, vc, [x])
            s.add(f"{name} {e}", [sc, vc], run1)
        for name, ref in INT_BINARY.items():
            sc, vc = mangle(name, [t, t]), mangle(name, [v, v])

            def run2(b, out, name=name, ref=ref, e=e, sc=sc, vc=vc):
                if s.exhaustive and ELEMENTS[e][2] == 8:
                    d = int_domain(e)
                    x, y = (a.ravel() for a in np.meshgrid(d, d))
                else:
                    x, y = int_samples(e, s.n, s.rng), int_samples(e, s.n, s.rng)
                    x, y = np.concatenate([x, y]), np.concatenate([y, x])
                want = [wrap(ref(int(a), int(c), e), _ret_elem(name, e)) for a, c in zip(x.tolist(), y.tolist(),
                                                                                         strict=True)]
                _compare(out, f"{name}({e})", b.run(sc, x, y)[0], want, [x, y])
                _vector_same(b, out, sc, vc, [x, y])
            s.add(f"{name} {e}", [sc, vc], run2)
        for name, ref in INT_TERNARY.items():
            sc, vc = mangle(name, [t, t, t]), mangle(name, [v, v, v])

            def run3(b, out, name=name, ref=ref, e=e, sc=sc, vc=vc):
                x, y, z = (int_samples(e, s.n, s.rng) for _ in range(3))
                if name == "clamp":
                    y, z = np.minimum(y, z), np.maximum(y, z)
                want = [wrap(ref(int(a), int(c), int(d), e), e) for a, c, d in zip(x.tolist(), y.tolist(), z.tolist(),
                                                                                  strict=True)]
                _compare(out, f"{name}({e})", b.run(sc, x, y, z)[0], want, [x, y, z])
                _vector_same(b, out, sc, vc, [x, y, z])
            s.add(f"{name} {e}", [sc, vc], run3)
    for e in ("int", "uint"):
        t, v = CLType(e), CLType(e, 4)
        for name in ("mul24", "mad24"):
            k = 2 if name == "mul24" else 3
            sc, vc = mangle(name, [t] * k), mangle(name, [v] * k)

            def run24(b, out, name=name, e=e, sc=sc, vc=vc, k=k):
                lo, hi = (-(1 << 23), (1 << 23) - 1) if e == "int" else (0, (1 << 24) - 1)
                args = [s.rng.integers(lo, hi + 1, s.n).astype(dtype(CLType(e))) for _ in range(k)]
                want = [wrap(a * c + (d[0] if d else 0), e) for a, c, *d in zip(*[x.tolist() for x in args],
                                                                               strict=True)]
                _compare(out, f"{name}({e})", b.run(sc, *args)[0], want, args)
                _vector_same(b, out, sc, vc, args)
            s.add(f"{name} {e}", [sc, vc], run24)
    for hi_e, lo_e, r_e in (("char", "uchar", "short"), ("uchar", "uchar", "ushort"), ("short", "ushort", "int"),
                            ("ushort", "ushort", "uint"), ("int", "uint", "long"), ("uint", "uint", "ulong")):
        sc = mangle("upsample", [CLType(hi_e), CLType(lo_e)])
        vc = mangle("upsample", [CLType(hi_e, 8), CLType(lo_e, 8)])

        def run_up(b, out, hi_e=hi_e, lo_e=lo_e, r_e=r_e, sc=sc, vc=vc):
            x, y = int_samples(hi_e, s.n, s.rng), int_samples(lo_e, s.n, s.rng)
            m = min(x.size, y.size)
            x, y = x[:m], y[:m]
            bits = ELEMENTS[lo_e][2]
            want = [wrap((a << bits) | c, r_e) for a, c in zip(x.tolist(), y.tolist(), strict=True)]
            _compare(out, f"upsample({hi_e})", b.run(sc, x, y)[0], want, [x, y])
            _vector_same(b, out, sc, vc, [x, y])
        s.add(f"upsample {hi_e}", [sc, vc], run_up)


# -- conversions -------------------------------------------------------------------------

def float_samples(elem: str, n: int, rng: np.random.Generator) -> np.ndarray:
    from .reference import sample

    return sample(elem, n, rng, ((-300.0, 300.0), (-1e5, 1e5), (-3e9, 3e9), (-2e19, 2e19)))


def conversion_ref(x, src: str, dst: str, saturate: bool, mode: str):
    """The exact result of convert_<dst>[_sat][_mode](x), or None where OpenCL leaves it undefined."""
    if src in FLOATS:
        if math.isnan(x):
            return (0 if saturate else None) if dst in INTEGERS else x
        if math.isinf(x):
            if dst in FLOATS:
                return x
            return (limits(dst)[1] if x > 0 else limits(dst)[0]) if saturate else None
        q = Fraction(x)
    else:
        q = Fraction(int(x))
    if dst in FLOATS:
        if src in FLOATS and q == 0:
            return x
        return round_fraction(q, dst, mode or "rte")
    n = q.numerator // q.denominator  # floor
    frac = q - n
    m = mode or "rtz"
    if frac:
        if m == "rte":
            n += 1 if frac > Fraction(1, 2) or (frac == Fraction(1, 2) and n % 2) else 0
        elif m == "rtp" or (m == "rtz" and q < 0):
            n += 1
    lo, hi = limits(dst)
    if not lo <= n <= hi:
        return sat(n, dst) if saturate else (None if src in FLOATS else wrap(n, dst))
    return n


def add_conversion_checks(s: Suite) -> None:
    elems = list(INTEGERS) + list(FLOATS)
    for src, dst in itertools.product(elems, elems):
        for saturate in (False, True):
            if saturate and dst in FLOATS:
                continue
            for mode in ("", "_rte", "_rtz", "_rtp", "_rtn"):
                if mode and not (src in FLOATS or dst in FLOATS) and not s.exhaustive:
                    continue  # integer to integer ignores the mode: sampled once
                base = f"convert_{dst}{'_sat' if saturate else ''}{mode}"
                vbase = f"convert_{dst}4{'_sat' if saturate else ''}{mode}"
                sc, vc = mangle(base, [CLType(src)]), mangle(vbase, [CLType(src, 4)])

                def run(b, out, src=src, dst=dst, saturate=saturate, mode=mode, sc=sc, vc=vc, base=base):
                    if src in FLOATS:
                        x = (int_domain("ushort").view(np.float16) if src == "half" and s.exhaustive
                             else float_samples(src, s.n, s.rng))
                    else:
                        x = int_domain(src) if s.exhaustive and ELEMENTS[src][2] <= 16 else int_samples(
                            src, s.n, s.rng)
                    got = b.run(sc, x)[0]
                    refs = [conversion_ref(v, src, dst, saturate, mode[1:]) for v in x.tolist()]
                    keep = [i for i, r in enumerate(refs) if r is not None]
                    _compare(out, f"{base}({src})", got[keep], [refs[i] for i in keep], [x[keep]])
                    _vector_same(b, out, sc, vc, [x])
                s.add(f"{base}({src})", [sc, vc], run)


def _popcount(u: np.ndarray) -> np.ndarray:
    if hasattr(np, "bitwise_count"):  # numpy >= 2
        return np.bitwise_count(u)
    out = np.zeros(u.size, np.uint32)
    v = u.copy()
    for _ in range(32):
        out += v & 1
        v >>= 1
    return out


def add_exhaustive_32(s: Suite) -> None:
    """Every 32-bit input: unary uint builtins, float -> int in each mode, float -> half."""
    chunks = [(c << 24, (c + 1) << 24) for c in range(256)]  # 64 MiB of inputs at a time
    names = {"popcount": mangle("popcount", [CLType("uint")]), "clz": mangle("clz", [CLType("uint")]),
             "abs": mangle("abs", [CLType("int")])}
    for mode in ("rte", "rtz", "rtp", "rtn"):
        names[f"convert_int_sat_{mode}"] = mangle(f"convert_int_sat_{mode}", [CLType("float")])
    names["convert_half"] = mangle("convert_half", [CLType("float")])

    def run(b, out):
        for lo, hi in chunks:
            u = np.arange(lo, hi, dtype=np.uint64).astype(np.uint32)
            out.checked += u.size
            with np.errstate(all="ignore"):
                pc = b.run(names["popcount"], u)[0]
                if not (pc == _popcount(u)).all():
                    out.fail("popcount(uint) differs")
                cz = b.run(names["clz"], u)[0]
                lz = np.where(u == 0, 32, 31 - np.floor(np.log2(np.maximum(u, 1).astype(np.float64))).astype(np.int64))
                if not (cz == lz).all():
                    out.fail("clz(uint) differs")
                i = u.view(np.int32)
                if not (b.run(names["abs"], i)[0] == np.abs(i.astype(np.int64)).astype(np.uint32)).all():
                    out.fail("abs(int) differs")
                f = u.view(np.float32)
                fd = f.astype(np.float64)
                for mode, op in (("rte", np.rint), ("rtz", np.trunc), ("rtp", np.ceil), ("rtn", np.floor)):
                    want_i = np.clip(op(fd), -(2**31), 2**31 - 1)
                    want_i = np.where(np.isnan(fd), 0, want_i).astype(np.int64).astype(np.int32)
                    if not (b.run(names[f"convert_int_sat_{mode}"], f)[0] == want_i).all():
                        out.fail(f"convert_int_sat_{mode}(float) differs")
                h = b.run(names["convert_half"], f)[0]
                wh = f.astype(np.float16)
                same = (h.view(np.uint16) == wh.view(np.uint16)) | (np.isnan(h) & np.isnan(wh))
                if not same.all():
                    out.fail("convert_half(float) differs")
    s.add("exhaustive 32-bit", list(names.values()), run)


# -- relational, common, geometric, memory, shuffle --------------------------------------

def add_misc_checks(s: Suite) -> None:
    rng = s.rng
    for e in FLOATS:
        t = CLType(e)
        x = float_samples(e, s.n, rng)
        y = np.concatenate([x[1:], x[:1]])
        ops = {"isequal": np.equal, "isnotequal": np.not_equal, "isgreater": np.greater,
               "isgreaterequal": np.greater_equal, "isless": np.less, "islessequal": np.less_equal,
               "islessgreater": lambda a, c: (a < c) | (a > c),
               "isordered": lambda a, c: ~(np.isnan(a) | np.isnan(c)),
               "isunordered": lambda a, c: np.isnan(a) | np.isnan(c)}
        for name, op in ops.items():
            sc = mangle(name, [t, t])
            vc = mangle(name, [CLType(e, 8), CLType(e, 8)])

            def run(b, out, op=op, sc=sc, vc=vc, x=x, y=y, name=name):
                with np.errstate(invalid="ignore"):
                    want = op(x, y).astype(int).tolist()
                _compare(out, name, b.run(sc, x, y)[0], want, [x, y])
                vout = b.run(vc, x[: x.size // 8 * 8], y[: x.size // 8 * 8])[0]
                _compare(out, name + " (vector: -1/0)", vout, [-v for v in want[: x.size // 8 * 8]],
                         [x, y])
            s.add(f"{name} {e}", [sc, vc], run)
        smallest = {"half": 2.0**-14, "float": 2.0**-126, "double": 2.0**-1022}[e]
        cls = {"isfinite": np.isfinite, "isinf": np.isinf, "isnan": np.isnan, "signbit": np.signbit,
               "isnormal": lambda a, lo=smallest: np.isfinite(a) & (np.abs(a) >= lo)}
        for name, op in cls.items():
            sc = mangle(name, [t])

            def run1(b, out, op=op, sc=sc, x=x, name=name):
                _compare(out, name, b.run(sc, x)[0], op(x).astype(int).tolist(), [x])
            s.add(f"{name} {e}", [sc], run1)
        # nan(code): a quiet NaN for every code; the code may ride in the
        # significand, so only the exponent and the quiet bit are fixed.
        code_elem = {"half": "ushort", "float": "uint", "double": "ulong"}[e]
        sn, vn = mangle("nan", [CLType(code_elem)]), mangle("nan", [CLType(code_elem, 4)])

        def run_nan(b, out, sn=sn, vn=vn, code_elem=code_elem, e=e):
            codes = int_samples(code_elem, s.n, rng)
            got = b.run(sn, codes)[0]
            bits = ELEMENTS[code_elem][2]
            mant = {"half": 10, "float": 23, "double": 52}[e]
            quiet = ((1 << (bits - mant - 1)) - 1) << mant | (1 << (mant - 1))
            raw = got.view(f"u{bits // 8}").astype(np.uint64)
            ok = (raw & np.uint64(quiet)) == np.uint64(quiet)
            out.checked += int(codes.size)
            if not ok.all():
                i = int(np.argmin(ok))
                out.fail(f"nan({codes[i]}) = {got[i]!r} ({int(raw[i]):#x}): not a quiet NaN")
            _vector_same(b, out, sn, vn, [codes])
        s.add(f"nan {e}", [sn, vn], run_nan)
        # sign, degrees, radians, step, mix, smoothstep (reference: exact arithmetic, rounded)
        sc = mangle("sign", [t])

        def run_sign(b, out, sc=sc, x=x):
            want = [0.0 if math.isnan(v) else (math.copysign(1.0, v) if v != 0 else v) for v in x.tolist()]
            _compare(out, "sign", b.run(sc, x)[0], want, [x])
        s.add(f"sign {e}", [sc], run_sign)
        # dot/length/cross on small vectors: exact rationals rounded (dot: fixed order, each op rounded).
        for n in (2, 3, 4):
            v = CLType(e, n)
            sd, sl = mangle("dot", [v, v]), mangle("length", [v])

            def run_geo(b, out, sd=sd, sl=sl, n=n, e=e):
                a = rng.uniform(-100, 100, 400 * n).astype(dtype(CLType(e)))
                c = rng.uniform(-100, 100, 400 * n).astype(dtype(CLType(e)))
                got = b.run(sd, a, c)[0]
                want = []
                for i in range(400):
                    acc = None
                    for j in range(n):
                        p = round_fraction(Fraction(float(a[i * n + j])) * Fraction(float(c[i * n + j])), e, "rte")
                        acc = p if acc is None else round_fraction(Fraction(acc) + Fraction(p), e, "rte")
                    want.append(acc)
                _compare(out, "dot", got, want, [a[::n], c[::n]])
                gl = b.run(sl, a)[0]
                for i in range(400):
                    exact = math.fsum(float(a[i * n + j]) ** 2 for j in range(n))
                    ref = np.array(math.sqrt(exact)).astype(dtype(CLType(e)))
                    ulp = np.spacing(np.abs(ref))
                    if abs(float(gl[i]) - math.sqrt(exact)) > 1.01 * float(ulp):
                        out.fail(f"length{n}({e}) at {a[i*n:(i+1)*n]}: {gl[i]} vs {math.sqrt(exact)}")
                        break
                out.checked += 800
            s.add(f"dot/length {e}{n}", [sd, sl], run_geo)
    for e in INTEGERS:
        v = CLType(e, 4)
        sc = mangle("select", [v, v, CLType(e if ELEMENTS[e][3] == "s" else unsigned_of(e), 4)])

        def run_sel(b, out, sc=sc, e=e):
            a, c, k = (int_samples(e, 4 * 200, rng)[:800] for _ in range(3))
            got = b.run(sc, a, c, k)[0]
            bits = ELEMENTS[e][2]
            want = [cv if (int(kv) >> (bits - 1)) & 1 else av for av, cv, kv in zip(a.tolist(), c.tolist(),
                                                                                   k.tolist(), strict=True)]
            _compare(out, f"select({e}4)", got, want, [a, c, k])
        s.add(f"select {e}", [sc], run_sel)
    sc = mangle("shuffle2", [CLType("float", 4), CLType("float", 4), CLType("uint", 8)])

    def run_shuffle(b, out, sc=sc):
        a = rng.uniform(-1, 1, 400).astype(np.float32)
        c = rng.uniform(-1, 1, 400).astype(np.float32)
        m = rng.integers(0, 64, 800).astype(np.uint32)
        got = b.run(sc, a, c, m)[0]
        want = []
        for i in range(100):
            both = list(a[4 * i:4 * i + 4]) + list(c[4 * i:4 * i + 4])
            want += [both[int(k) % 8] for k in m[8 * i:8 * i + 8]]
        _compare(out, "shuffle2", got, want, [m])
    s.add("shuffle2 float4 uint8", [sc], run_shuffle)
    # vstore_half with each rounding mode, and vload_half back (all half values).
    for mode in ("", "_rte", "_rtz", "_rtp", "_rtn"):
        sc = mangle(f"vstore_half{mode}", [CLType("float"), CLType("ulong"), CLType("half").ptr(0)])
        sd = mangle(f"vstore_half{mode}", [CLType("double"), CLType("ulong"), CLType("half").ptr(0)])

        def run_store(b, out, sc=sc, sd=sd, mode=mode):
            for src, f in (("float", float_samples("float", s.n, rng)), ("double", float_samples("double", s.n, rng))):
                name = sc if src == "float" else sd
                off = np.zeros(f.size, np.uint64)
                stored = b.run(name, f, off)[0]
                want = [v if math.isnan(v) else conversion_ref(v, src, "half", False, mode[1:] or "rte")
                        for v in f.tolist()]
                _compare(out, f"vstore_half{mode}({src})", stored.astype(np.float64), want, [f])
        s.add(f"vstore_half{mode}", [sc, sd], run_store)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vectorizer.builtins.library.exact",
                                 description="Check the exactly defined builtins against exact references.")
    ap.add_argument("-n", "--samples", type=int, default=20000)
    ap.add_argument("--exhaustive", action="store_true")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    t0 = time.time()
    s = Suite(args.samples, args.exhaustive, args.seed)
    add_integer_checks(s)
    add_conversion_checks(s)
    add_misc_checks(s)
    if args.exhaustive:
        add_exhaustive_32(s)
    outcomes = s.run()
    bad = [o for o in outcomes if o.failures]
    for o in bad:
        for f in o.failures or []:
            print(f"FAIL {o.name}: {f}")
    total = sum(o.checked for o in outcomes)
    print(f"{len(outcomes) - len(bad)} passed, {len(bad)} failed ({total} values, {time.time() - t0:.0f} s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
