"""Measure one math builtin at one precision: maximum ulp error over samples, the
exact checks of its other outputs, and bit-identity of a vector overload with
the scalar one on the same inputs."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .native import Batch
from .reference import NP, MathSpec, reference, sample, sample_ints, specials, ulp_error

VECTOR_WIDTHS = (2, 3, 4, 8, 16)


@dataclass
class Result:
    """What one (builtin, precision) measurement found."""

    name: str
    elem: str
    bound: float | None
    samples: int = 0
    max_ulp: float = 0.0
    worst: tuple = ()
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        within = self.bound is None or self.max_ulp <= self.bound
        return within and not self.failures


def names_for(spec: MathSpec, elem: str, index: int) -> tuple[str, str]:
    """(scalar overload, one vector overload) of `spec` at `elem`; the width cycles."""
    width = VECTOR_WIDTHS[index % len(VECTOR_WIDTHS)]
    return spec.mangled(elem), spec.mangled(elem, width)


def make_inputs(spec: MathSpec, elem: str, n: int, rng: np.random.Generator) -> list[np.ndarray]:
    vals = [a for a in spec.args if a in "fi"]
    if vals == ["f"]:
        return [sample(elem, n, rng, spec.ranges)]
    cols = []
    sp = specials(elem)
    nf = vals.count("f")
    if nf >= 2:
        # Every pair of special values, then independent samples.
        grid = np.array(np.meshgrid(*[sp] * 2)).reshape(2, -1)
        k = max(n - grid.shape[1], 0)
        for j, a in enumerate(vals):
            extra = sample(elem, k, rng, spec.ranges)
            base = grid[j] if j < 2 else sample(elem, grid.shape[1], rng, spec.ranges)
            cols.append(np.concatenate([base.astype(NP[elem]), extra])[:n] if a == "f" else None)
        return cols
    for a in vals:
        cols.append(sample(elem, n, rng, spec.ranges) if a == "f" else sample_ints(n, rng))
    return cols


def _same_bits(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind == "f":
        both_nan = np.isnan(a) & np.isnan(b)
        return (a.view(f"u{a.itemsize}") == b.view(f"u{b.itemsize}")) | both_nan
    return a == b


def measure(spec: MathSpec, elem: str, n: int, rng: np.random.Generator, batch: Batch, index: int = 0,
            check_vector: bool = True) -> Result:
    bound = spec.bounds[("float", "double", "half").index(elem)]
    res = Result(spec.name, elem, bound)
    scalar, vector = names_for(spec, elem, index)
    inputs = make_inputs(spec, elem, n, rng)
    outs = batch.run(scalar, *inputs)
    res.samples = inputs[0].size
    got = outs[0]
    if check_vector and vector in batch.funcs:
        w = batch.funcs[vector].params[0].width
        m = (inputs[0].size // w) * w
        vouts = batch.run(vector, *[a[:m] for a in inputs])
        for k, (s, v) in enumerate(zip(outs, vouts, strict=True)):
            same = _same_bits(s[:m], v)
            if not same.all():
                i = int(np.flatnonzero(~same)[0])
                res.failures.append(f"{vector} output {k} differs from {scalar} at input "
                                    f"{[a[i] for a in inputs]}: {v[i]!r} vs {s[i]!r}")
    _exact_outputs(spec, elem, inputs, outs, res)
    if spec.ref is None:
        return res
    refs = reference(spec, elem, inputs)
    worst = 0.0
    for i, (gv, ex) in enumerate(zip(got.tolist(), refs, strict=True)):
        e = ulp_error(float(gv), ex, elem)
        if e > worst:
            worst = e
            res.worst = tuple(float(a[i]) for a in inputs) + (float(gv), float(ex))
    if spec.name == "sincos":
        import gmpy2

        for cv, x in zip(outs[1].tolist(), inputs[0].tolist(), strict=True):
            ex = gmpy2.nan() if math.isinf(x) or math.isnan(x) else gmpy2.cos(gmpy2.mpfr(x))
            e = ulp_error(float(cv), ex, elem)
            if e > worst:
                worst = e
                res.worst = (x, float(cv), float(ex))
    res.max_ulp = worst
    return res


def _exact_outputs(spec: MathSpec, elem: str, inputs, outs, res: Result) -> None:
    """The outputs with exactly defined values, checked against numpy / exact rationals."""
    x = inputs[0]
    name = spec.name

    def expect(got: np.ndarray, want: np.ndarray, what: str) -> None:
        want = np.asarray(want).astype(got.dtype)
        if name == "copysign":  # NaN results must carry the sign bit too
            ok = got.view(f"u{got.itemsize}") == want.view(f"u{want.itemsize}")
        else:
            ok = _same_bits(np.asarray(got), want)
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            res.failures.append(f"{name}: {what} wrong at {[a[i] for a in inputs]}: got {got[i]!r}, "
                                f"want {np.asarray(want)[i]!r}")

    with np.errstate(all="ignore"):
        if name == "fract":
            expect(outs[1], np.floor(x), "floor output")
        elif name == "modf":
            expect(outs[1], np.trunc(x), "integral output")
        elif name == "frexp":
            e = np.frexp(x.astype(np.float64))[1]
            e = np.where(np.isfinite(x) & (x != 0), e, 0)
            expect(outs[1], e, "exponent output")
        elif name == "ilogb":
            e = np.frexp(x.astype(np.float64))[1] - 1
            e = np.where(x == 0, -(2**31), np.where(np.isfinite(x), e, 2**31 - 1))
            expect(outs[0], e, "result")
        elif name == "copysign":
            expect(outs[0], np.copysign(x, inputs[1]), "result")
        elif name == "nextafter":
            # C's nextafter (Python's math.nextafter): y when x == y, a zero keeps x's sign.
            y = inputs[1]
            want = np.where(x == y, y, np.nextafter(x, y))
            for i, (a, c) in enumerate(zip(x.tolist(), y.tolist(), strict=True)):
                if a != c and want[i] == 0:
                    want[i] = math.copysign(0.0, a)
            expect(outs[0], want, "result")
        elif name == "lgamma_r":
            import gmpy2

            want = []
            for v in x.tolist():
                if math.isnan(v) or (v <= 0 and float(v).is_integer()) or math.isinf(v):
                    want.append(None)
                else:
                    want.append(gmpy2.lgamma(gmpy2.mpfr(v))[1])
            for i, w in enumerate(want):
                if w is not None and int(outs[1][i]) != w:
                    res.failures.append(f"lgamma_r: sign of {x[i]!r} is {outs[1][i]}, want {w}")
                    break
        elif name == "remquo":
            y = inputs[1]
            for i, (a, b_) in enumerate(zip(x.tolist(), y.tolist(), strict=True)):
                if not (math.isfinite(a) and math.isfinite(b_)) or b_ == 0:
                    continue
                q = Fraction(a) / Fraction(b_)
                nq = round(q)  # Python rounds half to even
                want = abs(nq) % 8
                got = int(outs[1][i])
                if abs(got) != want or (want and (got < 0) != (q < 0)):
                    res.failures.append(f"remquo: quotient of {a!r}/{b_!r} is {got}, want {'-' if q < 0 else ''}"
                                        f"{want} (mod 8)")
                    break
