"""Mutants of the passes (fuzz/pass_mutants.py): sites, edits, copies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fuzz import pass_mutants as PM

SAMPLE = '''\
"""doc"""
def f(a, b, u, b2):
    """doc"""
    if a < b and not u.ready:
        u.mark_varying(a)
    x = b2.select(a, b, u, name="s")
    b2.position_before(x)
    assert a == b, f"{a == b}"
    return a[1] + 2 - b
'''


def _sites(tmp_path: Path) -> list[PM.Mutant]:
    p = tmp_path / "vectorizer" / "analysis" / "sample.py"
    p.parent.mkdir(parents=True)
    p.write_text(SAMPLE)
    return PM.enumerate_sites(p, tmp_path)


def test_sites_cover_every_operator_and_skip_messages(tmp_path: Path) -> None:
    sites = _sites(tmp_path)
    ops = {m.operator for m in sites}
    assert {"compare-flip", "boolop-swap", "not-drop", "drop-statement", "select-swap",
            "insertion-point", "off-by-one", "arith-swap"} <= ops
    # Nothing inside the assert (its test and its message) is a site.
    assert all(m.line != 8 for m in sites)
    sel = next(m for m in sites if m.operator == "select-swap")
    assert sel.mutated.startswith("b2.select(a, u, b")
    ins = next(m for m in sites if m.operator == "insertion-point")
    assert "position_after" in ins.mutated
    drop = next(m for m in sites if m.operator == "drop-statement")
    assert drop.original == "u.mark_varying(a)" and drop.mutated == "pass"


def test_every_site_mutates_to_valid_different_python(tmp_path: Path) -> None:
    for m in _sites(tmp_path):
        out = PM.mutate_text(SAMPLE, m)
        assert out != SAMPLE
        compile(out, "x", "exec")


def test_stale_mutant_is_refused(tmp_path: Path) -> None:
    m = _sites(tmp_path)[0]
    with pytest.raises(ValueError, match="stale"):
        PM.mutate_text("#\n" + SAMPLE, m)


def test_catalogue_spans_every_pass_file_and_is_deterministic() -> None:
    a, b = PM.catalogue(), PM.catalogue()
    assert a == b
    assert len(a) >= 60
    files = {m.path for m in a}
    assert files == {str(p.relative_to(PM.REPO)) for p in PM.pass_files()}
    assert len({m.id for m in a}) == len(a)


def test_mutants_go_to_a_copy_never_the_tree(tmp_path: Path) -> None:
    m = next(x for x in PM.catalogue() if x.operator == "drop-statement")
    original = (PM.REPO / m.path).read_text()
    with pytest.raises(ValueError, match="itself"):
        PM.apply_mutant(PM.REPO, m)
    root = PM.copy_tree(tmp_path)
    assert not (root / ".git").exists()
    assert (tmp_path / "shared").resolve() == (PM.REPO / ".." / "shared").resolve()
    PM.apply_mutant(root, m)
    assert (root / m.path).read_text() != original
    assert (PM.REPO / m.path).read_text() == original


def test_first_failure_is_read_from_a_campaign_journal(tmp_path: Path) -> None:
    j = tmp_path / "j.jsonl"
    recs = [{"type": "start"}, {"type": "seed", "seed": 4, "failures": []},
            {"type": "seed", "seed": 5, "failures": [{"status": "mismatch", "signature": "s"}]}]
    j.write_text("\n".join(json.dumps(r) for r in recs) + "\n{torn")
    assert PM._first_failure(j) == {"seed": 5, "status": "mismatch", "signature": "s"}


def test_summary_scores_exclude_equivalent_mutants() -> None:
    def rec(i: str, ci: bool, camp: bool | None, trivial: bool = False) -> dict:
        r: dict = {"mutant": {"id": f"p:compare-flip:{i}", "path": "vectorizer/analysis/p.py", "line": 1,
                              "original": "a", "mutated": "b"}, "ci": {"killed": ci, "trivial": trivial}}
        if camp is not None:  # the campaign runs on CI survivors only
            r["campaign"] = {"killed": camp, "budget": 60}
        return r

    s = PM.summarize([rec("0", True, None, trivial=True), rec("1", False, True), rec("2", False, False),
                      rec("3", False, False)], {"p:compare-flip:2": "argued"})
    assert s["equivalent"] == 1 and s["trivial"] == 1 and s["live"] == 3
    assert s["ci_killed"] == 1 and s["either_killed"] == 2
    assert s["campaign_budgets"] == [60]
    assert [x["id"] for x in s["passes"]["p"]["survivors"]] == ["p:compare-flip:3"]
    # Every mutant the smoke kernel did not kill ran a campaign: the table
    # gives the campaign's own kills (the trivial one counted) and either's.
    assert s["campaign_on_all"] and s["campaign_alone_killed"] == 2
    assert "| p | 4 | 1 | 1 | 1 (0) | 2 | 2 | compare-flip:3 |" in PM.markdown(s)
    # Kills by the byte-for-byte output fixture are counted apart.
    fx = rec("4", True, None)
    fx["ci"].update(how="tests/test_pipeline_fixtures.py::test_pipeline_output_unchanged_on_a_subset: x",
                    suite="full")
    s2 = PM.summarize([fx, rec("5", False, False)], {})
    assert s2["fixture_killed"] == 1 and not s2["campaign_on_all"]
    assert "| p | 2 | 0 | 0 | 1 (1) | 0 | 1 | compare-flip:5 |" in PM.markdown(s2)


def test_ci_order_is_a_permutation_that_starts_varied() -> None:
    ids = ([f"tests/test_peer_corpus.py::test_peer_kernels_vectorize_correctly[{d}/k{i}.ll]"
            for d in ("A", "B") for i in range(4)]
           + [f"tests/test_differential.py::test_generated_kernel_matches[{p}-{s}]"
              for s in range(2) for p in ("uniform", "loops")]
           + ["tests/test_corpus.py::test_corpus_case_matches[c.ll]"])
    out = PM.order_tests(ids)
    assert sorted(out) == sorted(ids)
    # Both peer directories, then a generated kernel, before any repeat.
    assert {o.split("[")[1].split("/")[0] for o in out[:2]} == {"A", "B"}
    assert "test_differential" in out[3]
    diff = [o for o in out if "test_differential" in o]
    assert [d.rsplit("-", 1)[1] for d in diff] == ["0]", "0]", "1]", "1]"]


def test_smoke_kills_a_copy_that_cannot_vectorize(tmp_path: Path) -> None:
    root = PM.copy_tree(tmp_path)
    assert PM.run_smoke(root) is None
    pk = root / "vectorizer" / "transform" / "packetizer.py"
    pk.write_text(pk.read_text() + "\nraise ImportError('broken')\n")
    r = PM.run_smoke(root)
    assert r and r["killed"] and r["trivial"] and "broken" in r["how"]


def test_journal_appends_resume_and_the_last_record_wins(tmp_path: Path) -> None:
    j = tmp_path / "j.jsonl"
    m = {"id": "p:x:0"}
    PM._append(j, {"mutant": m, "ci": {"killed": False}})
    PM._append(j, {"mutant": m, "ci": {"killed": True}})
    assert PM._done(j)["p:x:0"]["ci"]["killed"] is True


def _edit(mid: str) -> dict:
    return {"id": mid, "path": "vectorizer/analysis/x.py", "operator": "drop-statement", "function": "f",
            "line": 3, "original": "seen.add(b)", "mutated": "pass", "start": 0, "end": 11}


def test_kill_hints_follow_the_edit_not_the_id(tmp_path: Path) -> None:
    """A hint is keyed by the edit (ids shift when a file changes): the test
    that failed on it, or the closing test that killed it; a trivial kill
    and a survivor give none."""
    j = tmp_path / "j.jsonl"
    recs = [
        {"mutant": _edit("x:drop-statement:4"),
         "ci": {"killed": True, "how": "tests/unit/test_a.py::test_b[p-1]: AssertionError: x"}},
        {"mutant": {**_edit("x:drop-statement:5"), "original": "work.append(g)"},
         "ci": {"killed": False, "how": "no failure"},
         "closing": {"killed": True, "how": "", "tests": ["tests/test_k.py::test_c"]}},
        {"mutant": {**_edit("x:drop-statement:6"), "original": "a.add(b)"},
         "ci": {"killed": True, "trivial": True, "how": "smoke: tests/t.py::x"}},
    ]
    j.write_text("".join(json.dumps(r) + "\n" for r in recs))
    hints = PM.kill_hints([j])
    moved = {**_edit("x:drop-statement:9"), "line": 30, "start": 500, "end": 511}
    assert hints[PM._edit_key(moved)] == ["tests/unit/test_a.py::test_b[p-1]"]
    assert hints[PM._edit_key(recs[1]["mutant"])] == ["tests/test_k.py::test_c"]
    assert PM._edit_key(recs[2]["mutant"]) not in hints


def test_full_suite_runs_hints_first_then_everything(tmp_path: Path) -> None:
    """The hinted test decides at once; without a hint that fails, the whole
    suite runs and any failing test kills; a passing suite survives."""
    root = tmp_path / "repo"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_ok.py").write_text("def test_ok():\n    assert True\n")
    (root / "tests" / "test_bad.py").write_text("def test_bad():\n    assert 1 == 2\n")
    hinted = PM.run_full_suite(root, 1, 120, ["tests/test_bad.py::test_bad"])
    assert hinted["killed"] and hinted["stage"] == "hinted" and "test_bad" in hinted["how"]
    late = PM.run_full_suite(root, 1, 120, ["tests/test_ok.py::test_ok"])
    assert late["killed"] and late["stage"] == "suite"
    (root / "tests" / "test_bad.py").unlink()
    assert not PM.run_full_suite(root, 1, 120, [])["killed"]


def test_a_surviving_campaign_is_extended_from_its_next_seed(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """`--extend-to`: a campaign that survived 120 s goes on from the seed
    after its last one for the remaining seconds, and the record sums both
    parts; a killed or long-enough campaign is left alone."""
    m0, m1 = PM.catalogue()[:2]
    j = tmp_path / "j.jsonl"
    recs = [{"mutant": PM.asdict(m0), "campaign": {"killed": False, "seconds": 125.0, "seeds": 7, "budget": 120.0}},
            {"mutant": PM.asdict(m1), "campaign": {"killed": True, "seconds": 3.0, "seeds": 1, "budget": 120.0}}]
    j.write_text("".join(json.dumps(r) + "\n" for r in recs))
    calls: list[tuple[float, int]] = []

    def fake_campaign(root, seconds, jobs, seed, extra=()):  # type: ignore[no-untyped-def]
        calls.append((seconds, seed))
        return {"killed": True, "seconds": 40.0, "seeds": 3, "how": "seed 1000009: mismatch"}

    monkeypatch.setattr(PM, "run_campaign", fake_campaign)
    PM.run([m0, m1], j, ci=False, campaign_seconds=0, jobs=1, seed=1_000_000, ci_timeout=1,
           progress=False, extend_to=600.0)
    assert calls == [(480.0, 1_000_007)]
    last = PM._done(j)[m0.id]["campaign"]
    assert last["killed"] and last["budget"] == 600.0 and last["seeds"] == 10 and last["seconds"] == 165.0


def test_journals_merge_per_mutant_and_list_the_equivalent(tmp_path: Path) -> None:
    """A CI run's journal and a campaign run's merge per mutant (each keeps
    its verdict); mutants argued equivalent, which runs skip, are listed."""
    from fuzz.pass_mutants_equivalent import EQUIVALENT

    m = next(x for x in PM.catalogue() if x.id not in EQUIVALENT)
    a, b = tmp_path / "ci.jsonl", tmp_path / "camp.jsonl"
    a.write_text(json.dumps({"mutant": PM.asdict(m), "ci": {"killed": True, "how": "t", "suite": "full"}}) + "\n")
    b.write_text(json.dumps({"mutant": PM.asdict(m), "campaign": {"killed": False, "budget": 120}}) + "\n")
    merged = {r["mutant"]["id"]: r for r in PM.merge_journals([a, b])}
    assert merged[m.id]["ci"]["killed"] and merged[m.id]["campaign"]["killed"] is False
    assert {i for i in EQUIVALENT if i in {x.id for x in PM.catalogue()}} <= set(merged)
