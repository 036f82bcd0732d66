"""Mutation operators: each one applies somewhere, keeps the IR valid, and is caught."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from fuzz import generate
from fuzz.campaign import Spec, run_seed
from fuzz.mutation import FCMP_INVERSE, ICMP_INVERSE, OPERATORS, apply
from oracle import parse_case
from vectorizer import vectorize
from vectorizer.ir import parse_module, print_function
from vectorizer.llvm_bridge import verify


def _fn(ir: str, name: str) -> str:
    return print_function(parse_module(ir).get_function(name))


@pytest.fixture(scope="module")
def vectorized() -> list[tuple[str, str]]:
    """A few vectorized default-profile kernels (divergent: masks and reductions)."""
    out = []
    for seed in range(8):
        c = parse_case(generate(seed))
        r = vectorize(c.ir, kernel=c.kernel, width=4, dim=0)
        if r.vectorized_name:
            out.append((r.ir, r.vectorized_name))
    assert out
    return out


def test_inverse_tables_are_involutions() -> None:
    for table in (ICMP_INVERSE, FCMP_INVERSE):
        assert all(table[table[k]] == k for k in table)


def test_unknown_operator() -> None:
    with pytest.raises(ValueError, match="unknown mutation operator"):
        apply("nope", "", "f")


def test_at_least_ten_operators() -> None:
    assert len(OPERATORS) >= 10


@pytest.mark.parametrize("op", sorted(OPERATORS))
def test_operator_makes_valid_changed_ir(op: str, vectorized: list[tuple[str, str]]) -> None:
    applied = 0
    for ir, name in vectorized:
        m = apply(op, ir, name)
        if m is None:
            continue
        applied += 1
        verify(m)
        assert m != ir
        # Only the vectorized function changes: the scalar kernel is untouched.
        assert _fn(m, "fuzz_kernel") == _fn(ir, "fuzz_kernel")
        assert _fn(m, name) != _fn(ir, name)
    if op != "reduce-or-and":  # reductions only appear in some divergent kernels
        assert applied, f"{op} found no site in {len(vectorized)} kernels"


def test_a_mutant_is_caught() -> None:
    spec = Spec(profile="uniform", mutate="select-swap", widths=[4], dims=[0], timeout=5.0)
    caught = [s for s in range(6) if any(f["status"] == "mismatch" for f in run_seed(s, asdict(spec))["failures"])]
    assert caught
