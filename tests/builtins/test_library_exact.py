"""The exactly defined builtins (integer, conversions with saturation and rounding
modes, relational, select, dot, length, shuffle2, vstore_half), sampled against
exact Python references, each scalar overload bit-identical to a vector one.
`python -m vectorizer.builtins.library.exact --exhaustive` runs full domains."""

from __future__ import annotations

import pytest

from vectorizer.builtins.library import exact as E

GROUPS = {
    "integer": E.add_integer_checks,
    "conversions": E.add_conversion_checks,
    "relational-geometric-memory": E.add_misc_checks,
}


@pytest.mark.parametrize("group", list(GROUPS))
def test_exact_builtins(group: str) -> None:
    suite = E.Suite(n=200, exhaustive=False, seed=11)
    GROUPS[group](suite)
    outcomes = suite.run()
    assert outcomes and all(o.checked for o in outcomes)
    bad = {o.name: o.failures for o in outcomes if o.failures}
    assert not bad, bad


def test_round_fraction_modes() -> None:
    from fractions import Fraction

    third = Fraction(1, 3)
    assert E.round_fraction(third, "half", "rtz") < float(third) < E.round_fraction(third, "half", "rtp")
    assert E.round_fraction(Fraction(70000), "half", "rte") == float("inf")
    assert E.round_fraction(Fraction(70000), "half", "rtz") == 65504.0
    assert E.round_fraction(Fraction(-70000), "half", "rtp") == -65504.0
    assert E.round_fraction(Fraction(1, 2**30), "half", "rtn") == 0.0
    assert E.round_fraction(Fraction(1, 2**30), "half", "rtp") == 2.0**-24
