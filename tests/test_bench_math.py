"""The prelude's math library (`bench/prelude/opencl.h`: exp, log, pow written
in OpenCL C): accuracy within OpenCL 1.2's full-profile bounds, the special
values, and bit-identical results between the scalar kernel and the
vectorized one. The functions are compiled through the project's own front
end (ziglang's clang) and run natively on the benchmark's runtime over about
2^20 inputs each; the references are numpy's double-precision functions."""

from __future__ import annotations

import re

import numpy as np
import pytest

from bench import PRELUDE

# OpenCL 1.2, section 7.4: maximum error in ulps, full profile.
ULP_BOUND = {"exp": 3.0, "log": 3.0, "pow": 16.0}
N = 1 << 20
WIDTH = 8
LOCAL = 256

SOURCE = """
__kernel void t_exp(__global float *o, __global const float *x) { int i = get_global_id(0); o[i] = exp(x[i]); }
__kernel void t_log(__global float *o, __global const float *x) { int i = get_global_id(0); o[i] = log(x[i]); }
__kernel void t_pow(__global float *o, __global const float *x, __global const float *y) {
  int i = get_global_id(0); o[i] = pow(x[i], y[i]);
}
"""

SPECIAL = np.array(
    [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 2.5, -2.5,
     0.75, 1.5, 1e-45, -1e-45, 1e-40, 1.17549435e-38, 3.4028235e38, -3.4028235e38, 2.0**24, -(2.0**24),
     2.0**24 + 2, 2.0**23 + 1, -(2.0**23 + 1), 1 + 2.0**-23, 1 - 2.0**-24, 88.72283, 88.72284, -87.33655,
     -103.0, -103.972, -104.0, 89.0, 100.0, 0.70710677, 0.70710683, 1.4142135, 1.4142137],
    dtype=np.float32,
)


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)


def _f32(*parts) -> np.ndarray:
    return np.concatenate([np.asarray(a).astype(np.float32) for a in parts])


def _random_floats(rng: np.random.Generator, n: int, positive: bool = False) -> np.ndarray:
    """Uniformly random bit patterns: every binade, subnormals, infinities, NaNs."""
    hi = 1 << 31 if positive else 1 << 32
    return rng.integers(0, hi, n, dtype=np.uint64).astype(np.uint32).view(np.float32)


def ulp_errors(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """|got - ref| in ulps of the float nearest `ref` (a float64 reference).
    Infinities count as +-2^128 (one ulp beyond FLT_MAX), so an overflow is
    judged like any rounding; NaN against non-NaN is an infinite error."""
    edge = np.ldexp(1.0, 128)
    with np.errstate(invalid="ignore", divide="ignore"):
        g = np.clip(got.astype(np.float64), -edge, edge)
        r = np.clip(ref, -edge, edge)
        e = np.floor(np.log2(np.abs(np.where(np.isfinite(r) & (r != 0), r, 1.0))))
        ulp = np.ldexp(1.0, (np.clip(e, -126, 127) - 23).astype(np.int64))
        err = np.abs(g - r) / ulp
    nan_g, nan_r = np.isnan(got), np.isnan(ref)
    err[nan_g & nan_r] = 0.0
    err[nan_g != nan_r] = np.inf
    return err


def _check_signs(got: np.ndarray, ref: np.ndarray, what: str, inputs) -> None:
    """Exact zeros and infinities of the reference: the same value and sign."""
    exact = (ref == 0) | np.isinf(ref)
    with np.errstate(invalid="ignore"):
        bad = exact & ((got.astype(np.float64) != ref) | (np.signbit(got) != np.signbit(ref)))
    if bad.any():
        i = np.flatnonzero(bad)[:5]
        pytest.fail(f"{what}: wrong special values at {[tuple(a[j] for a in inputs) for j in i]}: "
                    f"got {got[i]}, want {ref[i]}")


@pytest.fixture(scope="module")
def math_ir() -> str:
    pytest.importorskip("ziglang", reason="compiling OpenCL C needs the 'opencl' extra (ziglang's clang)")
    from vectorizer.frontend.opencl import OpenCLError, compile_opencl

    try:
        return compile_opencl(SOURCE, prelude=PRELUDE, opt="-O2")
    except OpenCLError as exc:
        pytest.skip(f"clang unusable here: {exc}")


@pytest.fixture(scope="module")
def run(math_ir):
    """run(kernel, *inputs) -> (scalar output, vectorized output at WIDTH)."""
    from bench import runtime as rt
    from vectorizer import vectorize

    programs = {}

    def build(name):
        if name not in programs:
            r = vectorize(math_ir, kernel=name, width=WIDTH, dim=0)
            assert r.vectorized_name, r.remarks
            programs[name] = (rt.build(math_ir, name), rt.build(r.ir, name, vector=(r.vectorized_name, WIDTH)))
        return programs[name]

    def go(name, *inputs):
        n0 = inputs[0].size
        n = -(-n0 // LOCAL) * LOCAL
        bufs = [np.concatenate([a.astype(np.float32), np.ones(n - n0, np.float32)]) for a in inputs]
        launch = rt.Launch([rt.Buffer(np.zeros(n, np.float32))] + [rt.Buffer(b) for b in bufs],
                           rt.NDRange((n, 1, 1), (LOCAL, 1, 1)))
        outs = []
        for prog in build(name):
            launch.run(prog)
            outs.append(launch.buffers[0][:n0].copy())
        return outs

    return go


def _measure(run, name, inputs, ref_fn):
    scalar, vector = run(f"t_{name}", *inputs)
    assert np.array_equal(_bits(scalar), _bits(vector)), f"{name}: scalar and W={WIDTH} results differ"
    with np.errstate(all="ignore"):
        ref = ref_fn(*(a.astype(np.float64) for a in inputs))
    err = ulp_errors(scalar, ref)
    worst = int(np.argmax(err))
    detail = f"{name}{tuple(float(a[worst]) for a in inputs)} = {scalar[worst]!r}, want {ref[worst]!r}"
    return scalar, ref, float(err[worst]), detail


def test_math_is_straight_line_without_contraction(math_ir):
    """No branches, no calls to a math library, no `fmuladd` (whose fusing may
    differ between the scalar and the vector code)."""
    assert "fmuladd" not in math_ir
    for name in ("t_exp", "t_log", "t_pow"):
        body = re.search(rf"^define [^\n]*@{name}\(.*?^}}", math_ir, re.M | re.S).group(0)
        assert " br " not in body and "switch" not in body, name
        callees = set(re.findall(r"call [^@]*@([\w.]+)\(", body))
        assert all(c.startswith("llvm.") or c.startswith("_Z13get_global_id") for c in callees), callees


def test_exp(run):
    rng = np.random.default_rng(1)
    x = _f32(rng.uniform(-104, 89, N // 2), rng.uniform(-1, 1, N // 8), rng.uniform(-104, -87, N // 8),
             rng.uniform(80, 89, N // 16), _random_floats(rng, N // 8), SPECIAL)
    got, ref, worst, detail = _measure(run, "exp", [x], np.exp)
    print(f"exp: max {worst:.3f} ulp ({detail})")
    assert worst <= ULP_BOUND["exp"], detail
    _check_signs(got, ref, "exp", [x])
    assert np.array_equal(_bits(run("t_exp", np.array([0.0, -0.0, np.inf, -np.inf], np.float32))[0]),
                          _bits(np.array([1.0, 1.0, np.inf, 0.0], np.float32)))


def test_log(run):
    rng = np.random.default_rng(2)
    x = _f32(_random_floats(rng, N // 2, positive=True), rng.uniform(0.5, 2, N // 4),
             1 + rng.uniform(-2**-10, 2**-10, N // 16), rng.uniform(0, 2**-126, N // 16),
             rng.uniform(-10, 10, N // 16), SPECIAL)
    got, ref, worst, detail = _measure(run, "log", [x], np.log)
    print(f"log: max {worst:.3f} ulp ({detail})")
    assert worst <= ULP_BOUND["log"], detail
    _check_signs(got, ref, "log", [x])
    out = run("t_log", np.array([1.0, 0.0, -0.0, np.inf, -1.0, -np.inf, np.nan], np.float32))[0]
    assert list(out[:4]) == [0.0, -np.inf, -np.inf, np.inf] and np.isnan(out[4:]).all()


def test_pow(run):
    rng = np.random.default_rng(3)
    n = N // 2
    # Random |x| of every binade, y such that |y log|x|| <= 110: the whole
    # range from underflow to overflow; half with negative x and integer y.
    ax = _random_floats(rng, n, positive=True)
    ax = np.where(np.isfinite(ax) & (ax != 0) & (ax != 1), ax, np.float32(2.0))
    y = (rng.uniform(-110, 110, n) / np.log(ax.astype(np.float64))).astype(np.float32)
    neg = rng.integers(0, 2, n).astype(bool)
    x = np.where(neg, -ax, ax).astype(np.float32)
    y = np.where(neg, np.round(y), y).astype(np.float32)
    # x near 1 with large y; small integer powers; the cross product of specials.
    x1 = (1 + rng.uniform(-2**-8, 2**-8, N // 8)).astype(np.float32)
    y1 = rng.uniform(-2e4, 2e4, N // 8).astype(np.float32)
    x2 = rng.uniform(-100, 100, N // 8).astype(np.float32)
    y2 = rng.integers(-20, 21, N // 8).astype(np.float32)
    xs, ys = np.meshgrid(SPECIAL, SPECIAL)
    x = _f32(x, x1, x2, xs.ravel())
    y = _f32(y, y1, y2, ys.ravel())
    got, ref, worst, detail = _measure(run, "pow", [x, y], np.power)
    print(f"pow: max {worst:.3f} ulp ({detail})")
    assert worst <= ULP_BOUND["pow"], detail
    _check_signs(got, ref, "pow", [x, y])
