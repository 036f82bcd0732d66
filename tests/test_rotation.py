"""The rotating campaign matrix (fuzz/rotation.py) and its coverage report."""

from __future__ import annotations

from fuzz.campaign import CampaignReport, Spec, run_seed
from fuzz.rotation import (
    BASE_WIDTHS,
    CHOICE_SETS,
    ODD_WIDTHS,
    PROFILE_CYCLE,
    TARGET_CYCLE,
    coverage,
    missing,
    seed_config,
)
from vectorizer.choices import IMPLEMENTED, parse_choices


def test_every_implemented_choice_runs_alone_and_every_profile_is_in_the_cycle() -> None:
    alone = {c for c in CHOICE_SETS if c and ";" not in c}
    assert alone == IMPLEMENTED
    for c in CHOICE_SETS:
        parse_choices(c)  # every string is valid
    assert len(set(PROFILE_CYCLE)) == len(PROFILE_CYCLE)
    from fuzz.knobs import PROFILES

    assert set(PROFILE_CYCLE) == set(PROFILES)  # every profile is rotated through
    assert all(w & (w - 1) for w in ODD_WIDTHS)  # none is a power of two


def test_a_seed_always_gets_the_same_point_and_consecutive_seeds_cover_the_matrix() -> None:
    assert seed_config(77, None, None, None) == seed_config(77, None, None, None)
    n = len(PROFILE_CYCLE) * len(CHOICE_SETS) * len(ODD_WIDTHS) * len(TARGET_CYCLE)  # the cycles are coprime
    points = {(c.profile, c.choices, c.widths[-1], c.target)
              for c in (seed_config(s, None, None, None) for s in range(1000, 1000 + n))}
    assert len(points) == n


def test_pinned_axes_are_not_rotated() -> None:
    c = seed_config(5, "memory", ["LinearizeBOSCC"], [4])
    assert (c.profile, c.choices, c.widths) == ("memory", None, None)
    spec = Spec(profile="memory", choices=["LinearizeBOSCC"], widths=[4], rotate=True).resolved(5)
    assert (spec.profile, spec.choices, spec.widths, spec.rotate) == ("memory", ["LinearizeBOSCC"], [4], False)
    free = Spec(profile=None, rotate=True).resolved(5)
    assert free.profile == PROFILE_CYCLE[5 % len(PROFILE_CYCLE)]
    assert free.choices == [CHOICE_SETS[5 % len(CHOICE_SETS)]]
    assert free.widths == [*BASE_WIDTHS, ODD_WIDTHS[5 % len(ODD_WIDTHS)]]
    assert Spec(profile="loops").resolved(5) == Spec(profile="loops")  # no rotation: unchanged


def test_a_seed_record_says_what_it_ran_and_the_report_counts_the_matrix() -> None:
    spec = Spec(profile=None, rotate=True, widths=[4], knobs={"size": 4, "max_dims": 1}, timeout=20)
    rec = run_seed(3, spec.__dict__ | {"knobs": {"size": 4, "max_dims": 1}})
    assert rec["config"]["profile"] == PROFILE_CYCLE[3 % len(PROFILE_CYCLE)]
    assert rec["config"]["choices"] == [CHOICE_SETS[3 % len(CHOICE_SETS)]]
    assert rec["config"]["target"] == (TARGET_CYCLE[3 % len(TARGET_CYCLE)] or "host")
    assert sum(rec["axes"]["width"].values()) == rec["n"] > 0
    report = CampaignReport()
    report.add(rec)
    cov = report.to_json()["coverage"]
    assert cov["profile"] == {rec["config"]["profile"]: rec["n"]}
    assert cov["choices"] == {CHOICE_SETS[3 % len(CHOICE_SETS)]: rec["n"]}
    gaps = missing(cov)
    assert "width 4" not in gaps and "width 3" in gaps and "dim 1" in gaps
    assert "not covered:" in report.table()


def test_the_rotation_runs_seeds_with_and_without_fast_gathers_and_says_which() -> None:
    assert set(TARGET_CYCLE) == {"", "-fast-gather"}
    targets = [Spec(profile=None, rotate=True).resolved(s).target_features for s in range(4)]
    assert set(targets) == set(TARGET_CYCLE)
    pinned = Spec(profile=None, rotate=True, target_features="-fast-gather")
    assert {pinned.resolved(s).target_features for s in range(4)} == {"-fast-gather"}
    from fuzz.campaign import CampaignError

    for bad in (Spec(target_features="avx2"), Spec(target_features="-fast-gather", mutate="mask-all-true")):
        try:
            bad.validate()
        except CampaignError:
            continue
        raise AssertionError(f"{bad} validated")
    recs = [{"config": {"profile": "default", "target": "host"}, "n": 3},
            {"config": {"profile": "default"}, "n": 2}]  # a journal from before the target axis: the host
    cov = coverage(recs)
    assert cov["target"] == {"host": 5}
    assert "target -fast-gather" in missing(cov) and "target host" not in missing(cov)
    report = CampaignReport()
    for r in recs + [{"config": {"profile": "tiny", "target": "-fast-gather"}, "n": 1}]:
        report.add(r)
    assert report.to_json()["coverage"]["target"] == {"host": 5, "-fast-gather": 1}
    assert not any(g.startswith("target") for g in missing(report.to_json()["coverage"]))
