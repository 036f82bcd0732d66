"""The differential suite: generated kernels, scalar against vectorized, through
the oracle, at every width, dimension and choice set their headers name.

Deterministic in CI: a fixed seed list per generator profile, and a
derandomized Hypothesis run whose failures shrink to the smallest kernel.
For a larger local run:

    VECZ_DIFF_SEEDS=200 VECZ_DIFF_EXAMPLES=500 pytest -n auto tests/test_differential.py
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings

import fuzz
import oracle
from fuzz.strategies import kernels
from vectorizer import vectorize

SEEDS = int(os.environ.get("VECZ_DIFF_SEEDS", "5"))
EXAMPLES = int(os.environ.get("VECZ_DIFF_EXAMPLES", "8"))

# Verdicts that blame the vectorizer (or, for scalar-fault, the generator's
# promise of UB-free kernels).
FAILING = {"mismatch", "vector-fault", "timeout", "vectorizer-error", "scalar-fault"}

PROFILES = ("uniform", "default", "control", "loops", "memory", "calls", "vectors")
# Every choice combination that applies to generated kernels, rotated over
# the seeds so each runs in CI without multiplying the suite's time.
CHOICE_SETS = (
    "",
    "VectorPredication",
    "DivisionExceptions;PacketizeUniform",
    "FullScalarization;InstantiateCallsInLoops",
    "PacketizeUniformInLoops;VectorPredication",
    "LinearizeBOSCC",
    "LinearizeBOSCC;DivisionExceptions;VectorPredication",
)


def _failures(report: oracle.CheckReport) -> list[str]:
    return [
        f"W={r.width} dim={r.dim} choices={r.choices!r} global={r.global_size} "
        f"local={r.local_size}: {r.status}: {r.detail}"
        for r in report.results
        if r.status in FAILING
    ]


@pytest.mark.parametrize("seed", range(SEEDS))
@pytest.mark.parametrize("profile", PROFILES)
def test_generated_kernel_matches(profile: str, seed: int) -> None:
    text = fuzz.generate(seed, profile=profile)
    # Offset by the profile so that every choice set runs for some profile
    # even when SEEDS < len(CHOICE_SETS) (seed % 7 alone never reached the
    # two LinearizeBOSCC sets: a pass mutant in BOSCC survived the suite).
    choices = CHOICE_SETS[(seed + PROFILES.index(profile)) % len(CHOICE_SETS)]
    report = oracle.check(text, choices=[choices], timeout=20)
    assert report.results, "the oracle checked no configuration"
    bad = _failures(report)
    assert not bad, f"fuzz.generate({seed}, profile={profile!r}):\n" + "\n".join(bad)


# Work-group kernels (barriers, shared `__local` tiles): fewer seeds, as each
# runs every group on fibers at every width and dimension.
WORKGROUP_SEEDS = int(os.environ.get("VECZ_DIFF_WORKGROUP_SEEDS", "3"))


@pytest.mark.parametrize("seed", range(WORKGROUP_SEEDS))
def test_generated_workgroup_kernel_matches(seed: int) -> None:
    text = fuzz.generate(seed, profile="workgroup")
    choices = CHOICE_SETS[seed % len(CHOICE_SETS)]
    report = oracle.check(text, choices=[choices], timeout=20)
    assert any(r.status == "match" for r in report.results), report.summary
    bad = _failures(report)
    assert not bad, f"fuzz.generate({seed}, profile='workgroup'):\n" + "\n".join(bad)


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(text=kernels())
def test_hypothesis_kernels_match(text: str) -> None:
    report = oracle.check(text, widths=[1, 4, 8], timeout=20)
    bad = _failures(report)
    assert not bad, "\n".join(bad) + "\n" + text


SAXPY_LIKE = """
declare i64 @_Z13get_global_idj(i32)
define spir_kernel void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pin = getelementptr float, ptr addrspace(1) %in, i64 %gid
  %x = load float, ptr addrspace(1) %pin, align 4
  %y = fadd float %x, 1.0
  %pout = getelementptr float, ptr addrspace(1) %out, i64 %gid
  store float %y, ptr addrspace(1) %pout, align 4
  ret void
}
"""


@pytest.mark.parametrize("choices, expected", [("", "mismatch"), ("VectorPredication", "match")])
def test_vector_predication_covers_partial_chunks(choices: str, expected: str) -> None:
    """Run as predicated (the vector kernel also covers a local size's
    remainder): only a kernel vectorized with VectorPredication keeps its
    inactive lanes from writing. Shows the oracle really exercises that path."""
    r = vectorize(SAXPY_LIKE, "k", width=8, choices=choices)
    assert r.vectorized_name
    report = oracle.check(
        r.ir, kernel="k", vectorized=r.vectorized_name, widths=[8], choices=["VectorPredication"],
        ndranges=["global=10 local=5"], layout=["buf:f32:64", "buf:f32:64:zero"],
    )
    assert [x.status for x in report.results] == [expected]
