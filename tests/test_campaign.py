"""Campaigns: signatures, the journal, interruption + resume, the CLI, Dask, peers."""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict

import pytest

from fuzz.campaign import Campaign, CampaignError, Spec, run_seed
from fuzz.cli import main
from fuzz.journal import Journal
from fuzz.signature import signature

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
