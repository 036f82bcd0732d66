"""Accuracy of every math builtin, sampled: each overload at float, double and half
against 160-bit MPFR references (within OpenCL's ulp bound), its exactly defined
outputs, and a vector overload bit-identical to the scalar one on the same inputs.
`python -m vectorizer.builtins.accuracy` runs the same with 10^5 samples each."""

from __future__ import annotations

import numpy as np
import pytest

from vectorizer.builtins.library.reference import SPECS

pytest.importorskip("gmpy2", reason="the references need gmpy2 (MPFR), a development dependency")

SAMPLES = 500
CASES = [(i, s.name, elem) for i, s in enumerate(SPECS) for elem in s.types]


@pytest.fixture(scope="module")
def batch():
    from vectorizer.builtins.library.measure import names_for
    from vectorizer.builtins.library.native import Batch

    names = set()
    for i, _name, elem in CASES:
        names.update(names_for(SPECS[i], elem, i))
    return Batch(sorted(names))


@pytest.mark.parametrize(("index", "name", "elem"), CASES, ids=[f"{n}-{e}" for _i, n, e in CASES])
def test_within_bound_and_width_independent(batch, index: int, name: str, elem: str) -> None:
    from vectorizer.builtins.library.measure import measure

    spec = SPECS[index]
    r = measure(spec, elem, SAMPLES, np.random.default_rng(1000 + index), batch, index)
    assert not r.failures, r.failures[:3]
    assert r.bound is None or r.max_ulp <= r.bound, (
        f"{name}({elem}): {r.max_ulp} ulp > {r.bound} at (inputs..., got, exact) = {r.worst}")


def test_special_values_of_the_float_kernels(batch) -> None:
    """A few values every implementation must get exactly (C99 Annex F / OpenCL)."""
    inf, nan = np.inf, np.nan
    cases = {
        "exp": ([0.0, -inf, inf, 89.0, -104.0], [1.0, 0.0, inf, inf, 0.0]),
        "log": ([1.0, 0.0, -0.0, inf, -1.0], [0.0, -inf, -inf, inf, nan]),
        "sin": ([-0.0, inf], [-0.0, nan]),
        "cospi": ([0.5, 1.5, -2.0], [0.0, 0.0, 1.0]),
        "tanpi": ([0.5, 1.5, -0.0, 1.0], [inf, -inf, -0.0, -0.0]),
        "tgamma": ([1.0, 5.0, -0.0, -1.0], [1.0, 24.0, -inf, nan]),
        "lgamma": ([1.0, 2.0, 0.0], [0.0, 0.0, inf]),
        "erfc": ([-inf, inf, 0.0], [2.0, 0.0, 1.0]),
    }
    from vectorizer.builtins.library.reference import spec

    for name, (xs, want) in cases.items():
        got = batch.run(spec(name).mangled("float"), np.array(xs, np.float32))[0]
        w = np.array(want, np.float32)
        same = (got.view(np.uint32) == w.view(np.uint32)) | (np.isnan(got) & np.isnan(w))
        assert same.all(), f"{name}{xs} = {got}, want {w}"
    pw = batch.run(spec("pow").mangled("float"), np.array([-8.0, -0.0, -inf, -1.0, 1.0, -2.0], np.float32),
                   np.array([1 / 3, -3.0, 3.0, inf, nan, 0.5], np.float32))[0]
    assert np.isnan(pw[0]) and pw[1] == -inf and pw[2] == -inf and pw[3] == 1.0 and pw[4] == 1.0
    assert np.isnan(pw[5])


def test_coefficients_are_reproducible() -> None:
    """coefficients.py is what `python -m vectorizer.builtins.library.fit` generates."""
    from vectorizer.builtins.library import fit

    assert fit.generate() == fit.OUT.read_text(), "run python -m vectorizer.builtins.library.fit"
