"""The configuration matrix a default campaign rotates through.

A campaign whose every seed used the generated case's own configuration
would never run a vectorizer choice (the generator writes none), one
profile only, and widths that are all powers of two: a fault planted in
BOSCC's all-lanes check survived a 120-seed campaign for that reason. So a
rotating campaign gives each seed one point of the matrix, chosen from the
seed alone (the same seed always runs the same way, on any machine and in
any order, and a resumed or distributed campaign covers the matrix alike):

- a generator profile (every profile of `fuzz.knobs.PROFILES`);
- a Vecz choices string: none, each choice alone, and the combinations
  users set together;
- one width that is not a power of two, besides the case's 1, 4, 8 and 16;
- the dimensions are the case's own (the generator draws 1-3-D kernels and
  vectorizes each along every dimension it has).

Axes the user pins on the command line (`--profile`, `--choices`,
`--widths`) are not rotated. The cycle lengths (11, 13, 7) are pairwise
coprime, so 1,001 consecutive seeds walk through every combination of
profile, choices and extra width (a profile or width added to a cycle must
keep them coprime: with the tenth profile, `subgroup`, five extra widths
would have repeated the same five (profile, width) pairs, so two widths
joined; the eleventh, `irregular`, keeps them coprime).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from .knobs import PROFILES

# Every implemented choice alone, then the combinations that interact
# (predication with BOSCC and division guards, scalarization with call
# instantiation, uniform packetization with both linearization styles).
CHOICE_SETS: tuple[str, ...] = (
    "",
    "LinearizeBOSCC",
    "VectorPredication",
    "DivisionExceptions",
    "FullScalarization",
    "PacketizeUniform",
    "PacketizeUniformInLoops",
    "InstantiateCallsInLoops",
    "TargetIndependentPacketization",
    "LinearizeBOSCC;VectorPredication",
    "DivisionExceptions;VectorPredication",
    "FullScalarization;InstantiateCallsInLoops",
    "PacketizeUniform;LinearizeBOSCC",
)
PROFILE_CYCLE: tuple[str, ...] = (
    "default", "control", "loops", "memory", "calls", "uniform", "tiny", "vectors", "workgroup",
    "subgroup", "irregular",
)
BASE_WIDTHS: tuple[int, ...] = (1, 4, 8, 16)
ODD_WIDTHS: tuple[int, ...] = (3, 5, 6, 7, 9, 10, 12)


@dataclass(frozen=True)
class SeedConfig:
    """The point of the matrix one seed runs."""

    profile: str
    choices: str | None  # None: the case's (not rotated)
    widths: tuple[int, ...] | None  # None: the case's


def seed_config(seed: int, profile: str | None, choices: list[str] | None,
                widths: list[int] | None) -> SeedConfig:
    """The configuration of `seed`; pinned axes (not None) are kept."""
    assert all(p in PROFILES for p in PROFILE_CYCLE)
    prof = profile if profile is not None else PROFILE_CYCLE[seed % len(PROFILE_CYCLE)]
    ch = None if choices is not None else CHOICE_SETS[seed % len(CHOICE_SETS)]
    ws = None if widths is not None else (*BASE_WIDTHS, ODD_WIDTHS[seed % len(ODD_WIDTHS)])
    return SeedConfig(prof, ch, ws)


def coverage(records: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Configurations run per profile, choices string, width and dimension,
    from the `config` and `axes` fields of seed records."""
    out: dict[str, Counter[str]] = {"profile": Counter(), "choices": Counter(), "width": Counter(),
                                    "dim": Counter()}
    for rec in records:
        cfg = rec.get("config")
        if not cfg:
            continue
        out["profile"][cfg.get("profile", "?")] += rec.get("n", 0)
        for axis in ("choices", "width", "dim"):
            for key, n in (rec.get("axes", {}).get(axis) or {}).items():
                out[axis][key] += n
    return {k: dict(sorted(v.items())) for k, v in out.items()}


def missing(cov: dict[str, dict[str, int]]) -> list[str]:
    """Points of the rotation no configuration reached (for the summary)."""
    gaps = [f"profile {p}" for p in PROFILE_CYCLE if not cov.get("profile", {}).get(p)]
    gaps += [f"choices {c or '-'!s}" for c in CHOICE_SETS if not cov.get("choices", {}).get(c or "-")]
    seen_w = cov.get("width", {})
    gaps += [f"width {w}" for w in (*BASE_WIDTHS, *ODD_WIDTHS) if not seen_w.get(str(w))]
    gaps += [f"dim {d}" for d in range(3) if not cov.get("dim", {}).get(str(d))]
    return gaps
