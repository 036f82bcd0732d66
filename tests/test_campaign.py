"""Campaigns: signatures, the journal, interruption + resume, the CLI, Dask, peers."""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict

import pytest

from fuzz import campaign
from fuzz.campaign import Campaign, CampaignError, CampaignReport, Spec, run_seed, summarize_results
from fuzz.cli import main
from fuzz.journal import Journal
from fuzz.signature import signature
from oracle import Result

# A fault that almost every uniform kernel exposes: real failures, cheaply.
FAULTY = Spec(profile="uniform", mutate="step-swap", widths=[4], dims=[0], timeout=5.0)


def test_signature_fields() -> None:
    mis = {"status": "mismatch", "width": 8, "dim": 0, "choices": "",
           "detail": "buffer 3 index 17 (work-item 17 -> lane 1 if indexed by global linear id): expected 1 got 2"}
    assert signature(mis) == "mismatch | w=8 d=0 c=- | buffer 3 lane 1"
    assert signature(mis, coarse=True) == "mismatch | w=8 d=0 c=-"
    err = {"status": "vectorizer-error", "width": 4, "dim": 1, "choices": "LinearizeBOSCC",
           "detail": "KeyError: '%x.3' at /home/a/vectorizer/transform/packetizer.py:120"}
    assert signature(err) == "vectorizer-error | w=4 d=1 c=LinearizeBOSCC | KeyError at vectorizer/transform/packetizer.py:120"
    crash = {"status": "vector-fault", "width": 4, "dim": 0, "choices": "", "detail": "worker killed by SIGSEGV"}
    assert signature(crash).endswith("| SIGSEGV")


def test_journal_ignores_a_torn_line(tmp_path) -> None:
    j = Journal(tmp_path / "j.jsonl")
    j.append({"type": "seed", "seed": 1, "failures": []})
    j.close()
    with open(tmp_path / "j.jsonl", "a") as f:
        f.write('{"type": "seed", "seed": 2, "fail')  # killed mid-write
    j2 = Journal(tmp_path / "j.jsonl")
    assert j2.done_seeds() == {1}
    j2.append({"type": "seed", "seed": 3, "failures": []})
    j2.close()
    assert j2.done_seeds() == {1, 3}


def test_interrupted_and_resumed_campaign_loses_nothing_and_repeats_nothing(tmp_path) -> None:
    seeds = range(0, 8)
    # The reference: the same seeds, uninterrupted.
    ref = {s: run_seed(s, asdict(FAULTY)) for s in seeds}
    ref_failures = {(s, f["signature"]) for s, r in ref.items() for f in r["failures"]}
    assert ref_failures, "the injected fault should make some kernels fail"

    path = tmp_path / "journal.jsonl"
    seen = []

    def interrupt_after_3(rec: dict) -> None:
        seen.append(rec["seed"])
        if len(seen) == 3:
            raise KeyboardInterrupt  # as Ctrl-C would, in the middle of the campaign

    first = Campaign(FAULTY, seed=0, count=len(seeds), jobs=2, journal=path,
                     progress=False, on_record=interrupt_after_3).run()
    assert first.interrupted and first.seeds == 3

    with pytest.raises(CampaignError):  # refuses to overwrite without --resume
        Campaign(FAULTY, seed=0, count=len(seeds), jobs=2, journal=path, progress=False).run()

    resumed_seen: list[int] = []
    second = Campaign(FAULTY, seed=0, count=len(seeds), jobs=2, journal=path, resume=True,
                      progress=False, on_record=lambda r: resumed_seen.append(r["seed"])).run()
    assert not second.interrupted
    assert not set(resumed_seen) & set(seen), "a finished seed was run again"
    recs = Journal(path).seed_records()
    journal_seeds = [r["seed"] for r in recs]
    assert sorted(journal_seeds) == list(seeds), "every seed exactly once"
    got = {(r["seed"], f["signature"]) for r in recs for f in r["failures"]}
    assert got == ref_failures, "no failure lost"
    assert second.seeds == len(seeds)
    assert sum(f["count"] for f in second.failures.values()) == len(ref_failures)
    assert all(r["case"] for r in recs if r["failures"]), "failing cases are kept on disk"


def test_cli_campaign_json(capsys) -> None:
    code = main(["--seed", "3", "--count", "2", "--profile", "uniform", "--widths", "4",
                 "--jobs", "1", "--json", "--no-progress"])
    out = json.loads(capsys.readouterr().out)
    assert code in (0, 1)
    assert {"summary", "throughput", "failures"} <= set(out)
    assert out["seeds"] == 2 and out["throughput"] > 0
    assert sum(out["summary"].values()) == out["configurations"]


def test_cli_clear_errors(capsys) -> None:
    assert main(["run", "--seed", "0"]) == 2  # neither --count nor --time
    assert "--count" in capsys.readouterr().err
    assert main(["--count", "1", "--mutate", "nonsense"]) == 2
    assert "nonsense" in capsys.readouterr().err


def test_peer_veczc_through_the_oracle() -> None:
    if shutil.which("veczc") is None:
        pytest.skip("veczc is not on PATH (pip install -e .)")
    spec = Spec(profile="uniform", widths=[4], dims=[0],
                peer="veczc -k {kernel} -w {width} -d {dim} -S {input} -o {output}")
    rec = run_seed(5, asdict(spec))
    assert rec["n"] > 0 and not rec["failures"], rec
    mux = Spec(**{**asdict(spec), "peer_mux": True})
    rec = run_seed(5, asdict(mux))
    assert rec["n"] > 0 and not rec["failures"], rec


def test_dask_local_cluster() -> None:
    distributed = pytest.importorskip(
        "dask.distributed", reason="the `distributed` extra is not installed (pip install -e '.[distributed]')")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        rep = Campaign(FAULTY, seed=0, count=3, scheduler=cluster.scheduler_address,
                       progress=False).run()
    local = Campaign(FAULTY, seed=0, count=3, jobs=1, progress=False).run()
    assert rep.seeds == 3
    assert dict(rep.summary) == dict(local.summary)
    assert set(rep.failures) == set(local.failures)


# ---------------------------------------------------------------------------
# Scalar verdicts on generated kernels: the generator produced UB

_HEADER = "; vecz-case: 1\n; kernel: k\n; args: buf:i32:64\n; ndrange: global=16 local=4\n"
_GID = "declare i64 @_Z13get_global_idj(i32 noundef)\n"
# Every work-item writes its own id to out[0]: a race (`scalar-race`).
RACY = _HEADER + _GID + """define spir_kernel void @k(ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 noundef 0)
  %g = trunc i64 %gid to i32
  store i32 %g, ptr addrspace(1) %out, align 4
  ret void
}
"""
# out[gid + 64] of a 64-element buffer: out of bounds (`scalar-fault`).
OUT_OF_BOUNDS = _HEADER + _GID + """define spir_kernel void @k(ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 noundef 0)
  %i = add i64 %gid, 64
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %i
  store i32 1, ptr addrspace(1) %p, align 4
  ret void
}
"""


def _result(status: str, width: int = 4, dim: int = 0) -> Result:
    return Result(width, dim, "", [16], [4], status, f"{status} detail")


def test_scalar_verdicts_of_a_generated_kernel_are_generator_ub_one_per_status() -> None:
    results = [_result("scalar-race", w) for w in (1, 4, 8)] + [_result("scalar-fault"), _result("match")]
    counts, failures = summarize_results(results, generated=True)
    assert counts == {"scalar-race": 3, "scalar-fault": 1, "match": 1}
    assert sorted(f["signature"] for f in failures) == ["scalar-fault | generator UB", "scalar-race | generator UB"]
    # Input that is not the generator's alone (a peer's module): the input's fault, as the oracle says.
    assert summarize_results(results)[1] == []


@pytest.mark.parametrize(("peer", "recorded"), [(None, True), ("veczc {kernel} {input} -o {output}", False)])
def test_run_seed_records_generator_ub_except_for_a_peer(monkeypatch, peer: str | None, recorded: bool) -> None:
    monkeypatch.setattr(campaign, "make_case", lambda seed, spec: RACY)
    monkeypatch.setattr(campaign, "check_case", lambda text, spec: [_result("scalar-race"), _result("match", 8)])
    rec = run_seed(7, asdict(Spec(profile="default", widths=[4, 8], dims=[0], peer=peer)))
    assert [f["status"] for f in rec["failures"]] == (["scalar-race"] if recorded else [])
    assert rec["case"] == (RACY if recorded else None)  # kept to be reduced


def test_report_keeps_generator_ub_apart_from_vectorizer_failures() -> None:
    rep = CampaignReport()
    mismatch = {"signature": "mismatch | w=4 d=0 c=- | buffer 0 lane 1", "status": "mismatch"}
    race = {"signature": "scalar-race | generator UB", "status": "scalar-race"}
    fault = {"signature": "scalar-fault | generator UB", "status": "scalar-fault"}
    for seed, failures in ((3, [race]), (5, [mismatch]), (9, [race, fault]), (11, [])):
        rep.add({"seed": seed, "n": 2, "summary": {}, "failures": failures})
    assert list(rep.failures) == [mismatch["signature"]]  # what the exit status counts
    assert rep.generator_ub_seeds == {3, 9}
    text = rep.table()
    assert "1 distinct failure signature(s)" in text and "scalar-race | generator UB" not in text
    assert "generator produced UB: 2 kernels, seeds 3, 9 (scalar-fault 1, scalar-race 2:" in text
    out = rep.to_json()
    assert [f["status"] for f in out["failures"]] == ["mismatch"]
    assert out["generator_ub"]["kernels"] == 2 and out["generator_ub"]["seeds"] == [3, 9]


def test_campaign_reports_generator_ub_on_its_own_line(monkeypatch, tmp_path, capsys) -> None:
    """Through the oracle: a racy and an out-of-bounds "generated" kernel.
    Exit 0 (no vectorizer failure, as documented), the kernels in the JSON
    and a warning beside it, the failures and case texts in the journal,
    the line in the table of `report`."""
    monkeypatch.setattr(campaign, "make_case", lambda seed, spec: (RACY, OUT_OF_BOUNDS)[seed])
    journal = tmp_path / "j.jsonl"
    code = main(["run", "--seed", "0", "--count", "2", "--no-rotate", "--widths", "4", "--dims", "0",
                 "--jobs", "1", "--journal", str(journal), "--no-progress", "--json"])
    captured = capsys.readouterr()
    rep = json.loads(captured.out)
    assert code == 0, rep
    assert rep["failures"] == [] and rep["generator_ub"]["seeds"] == [0, 1]
    line = "generator produced UB: 2 kernels, seeds 0, 1 (scalar-fault 1, scalar-race 1:"
    assert f"vecz-fuzz: warning: {line}" in captured.err
    recs = {r["seed"]: r for r in Journal(journal).seed_records()}
    assert [f["status"] for f in recs[0]["failures"]] == ["scalar-race"]
    assert [f["status"] for f in recs[1]["failures"]] == ["scalar-fault"]
    assert recs[0]["case"] == RACY and recs[1]["case"] == OUT_OF_BOUNDS
    assert main(["report", str(journal)]) == 0
    out = capsys.readouterr().out
    assert line in out and "no failures" in out


def test_run_verifies_analyses_unless_told_not_to(tmp_path, monkeypatch, capsys) -> None:
    """`vecz-fuzz run` has the vectorizer check its analyses (the oracle is
    asked for it), records it in the journal's spec and the report, and
    `--no-verify-analyses` turns it off."""
    import oracle

    asked: list[bool] = []
    real = oracle.check

    def spy(*args, **kwargs):
        asked.append(kwargs.get("verify_analyses", False))
        return real(*args, **kwargs)

    monkeypatch.setattr(oracle, "check", spy)
    for flag, want in (([], True), (["--no-verify-analyses"], False)):
        asked.clear()
        journal = tmp_path / f"j{want}.jsonl"
        argv = ["run", "--seed", "3", "--count", "1", "--jobs", "1", "--no-progress", "--json",
                "--no-rotate", "--profile", "tiny", "--widths", "4", "--journal", str(journal), *flag]
        assert main(argv) in (0, 1)
        out = json.loads(capsys.readouterr().out)
        assert out["verify_analyses"] is want
        assert asked and all(a is want for a in asked)
        start = json.loads(journal.read_text().splitlines()[0])
        assert start["spec"]["verify_analyses"] is want
        assert main(["report", str(journal), "--json"]) in (0, 1)
        assert json.loads(capsys.readouterr().out)["verify_analyses"] is want
