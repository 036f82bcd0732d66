"""The command-line items of issue 19, each as a user met it: option values
that ended in a traceback or a hang, closed and broken standard streams, a
damaged or shared campaign journal, workers outliving a killed `vecz-oracle`.

What only a real process shows runs as a subprocess (`python -m <module>`);
the rest calls `main(argv)` in-process. The bulk of hostile inputs is in
tests/test_hostile_inputs.py.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from fuzz import journal as journal_mod
from fuzz.campaign import Campaign, CampaignError, Spec
from fuzz.cli import main as fuzz_main
from fuzz.journal import Journal
from oracle.cli import main as oracle_main

ROOT = Path(__file__).resolve().parent.parent
CASE = sorted((ROOT / "corpus").glob("*.ll"))[0]  # a small case that matches
MODULES = {"vecz-oracle": "oracle.cli", "vecz-fuzz": "fuzz.cli", "reduce-failure": "fuzz.reduce_cli",
           "veczc": "vectorizer.cli"}

SPIN = """\
declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @spin(ptr addrspace(1) %out) {
entry:
  %g = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %g
  br label %loop
loop:
  store volatile i32 1, ptr addrspace(1) %p
  br label %loop
}
"""


def shell(command: str, args: list[str], redirect: str = "", stdin: bytes | None = None,
          env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    """Run a command as a process, with shell redirections (`<&-`, `>&-`, `>/dev/full`)."""
    line = " ".join([shlex.quote(sys.executable), "-m", MODULES[command], *map(shlex.quote, args)])
    return subprocess.run(["sh", "-c", f"exec {line} {redirect}"], input=stdin, capture_output=True,
                          timeout=timeout, cwd=ROOT, env={**os.environ, **(env or {})})


def one_error_line(err: bytes, prog: str) -> str:
    lines = [ln for ln in err.decode().splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"{prog}:"), err.decode()
    assert "Traceback" not in err.decode()
    return lines[0]


# ------------------------------------------------------------------ option values


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0", "-1", "1e400"])
def test_timeout_must_be_a_positive_finite_number(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert oracle_main([str(CASE), f"--timeout={value}"]) == 2
    err = capsys.readouterr().err
    assert "--timeout" in err and "positive number of seconds" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("value", ["abc", "-1", "2.5"])
def test_bad_worker_count_is_a_usage_error_not_a_hang(value: str) -> None:
    p = shell("vecz-oracle", [str(CASE), "--widths", "4"], env={"VECZ_ORACLE_WORKERS": value}, timeout=60)
    assert p.returncode == 2
    assert "VECZ_ORACLE_WORKERS" in one_error_line(p.stderr, "vecz-oracle")


# ------------------------------------------------------------------ standard streams


def test_closed_or_undecodable_stdin() -> None:
    p = shell("vecz-oracle", ["-"], redirect="<&-")
    assert p.returncode == 2 and "standard input is closed" in one_error_line(p.stderr, "vecz-oracle")
    p = shell("vecz-oracle", ["-"], stdin=b"\xff\xfe")
    assert p.returncode == 2
    assert "<stdin>:1: not UTF-8 text" in one_error_line(p.stderr, "vecz-oracle")
    p = shell("reduce-failure", ["-"], redirect="<&-")
    assert p.returncode == 2 and "standard input is closed" in one_error_line(p.stderr, "reduce-failure")


def test_closed_stdout_and_full_disk() -> None:
    p = shell("vecz-fuzz", ["generate", "--seed", "3"], redirect=">&-")
    assert p.returncode == 2 and "standard output" in one_error_line(p.stderr, "vecz-fuzz")
    p = shell("vecz-fuzz", ["generate", "--seed", "3"], redirect=">/dev/full")
    assert p.returncode == 2 and "No space left" in one_error_line(p.stderr, "vecz-fuzz")
    p = shell("vecz-oracle", [str(CASE), "--widths", "4"], redirect=">/dev/full")
    assert p.returncode == 2 and "No space left" in one_error_line(p.stderr, "vecz-oracle")


@pytest.mark.parametrize("command,args", [
    ("vecz-oracle", [str(CASE), "--widths", "4", "--json"]),
    ("vecz-fuzz", ["generate", "--seed", "3"]),
])
def test_a_reader_that_goes_away_is_a_quiet_exit(command: str, args: list[str]) -> None:
    """`... | head -c1`: no BrokenPipeError traceback; the status a shell shows
    for a tool stopped by SIGPIPE (141)."""
    line = [sys.executable, "-m", MODULES[command], *args]
    p = subprocess.Popen(line, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    p.stdout.close()  # type: ignore[union-attr]  # the reader is gone before anything is written
    err = p.stderr.read()  # type: ignore[union-attr]
    assert p.wait(120) == 141 and err == b""


def test_veczc_closed_streams_broken_pipe_and_full_disk() -> None:
    """The same stream cases for veczc."""
    p = shell("veczc", ["-S", str(CASE)], redirect=">/dev/full")
    assert p.returncode == 2, p.stderr
    one_error_line(p.stderr, "veczc")
    p = shell("veczc", ["-S", str(CASE)], redirect=">&-")
    assert p.returncode == 2, p.stderr
    one_error_line(p.stderr, "veczc")
    p = shell("veczc", ["-S", "-"], redirect="<&-")
    assert p.returncode == 2, p.stderr
    one_error_line(p.stderr, "veczc")
    q = subprocess.Popen([sys.executable, "-m", "vectorizer.cli", "-S", str(CASE)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    q.stdout.close()  # type: ignore[union-attr]
    assert b"Traceback" not in q.stderr.read()  # type: ignore[union-attr]
    q.wait(120)


# ------------------------------------------------------------------ workers


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(d.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the worker through /proc (Linux)")
def test_workers_die_with_a_killed_oracle(tmp_path: Path) -> None:
    """SIGKILL to vecz-oracle while its worker runs an endless kernel: the
    worker must not keep a core busy."""
    src = tmp_path / "spin.ll"
    src.write_text(SPIN)
    p = subprocess.Popen([sys.executable, "-m", "oracle.cli", str(src), "--widths", "4", "--timeout", "600"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    try:
        workers: list[int] = []
        deadline = time.monotonic() + 60
        while not workers and time.monotonic() < deadline:
            time.sleep(0.2)
            workers = _children(p.pid)
        assert workers, "vecz-oracle started no worker"
        time.sleep(1.0)  # the worker is in the endless kernel by now
        assert all(_alive(w) for w in workers)
    finally:
        p.kill()
        p.wait()
    deadline = time.monotonic() + 10
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [w for w in workers if _alive(w)]
    for w in left:
        os.kill(w, signal.SIGKILL)
    assert not left, "a worker outlived its killed parent"


def test_an_endless_kernel_is_a_bounded_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "spin.ll"
    src.write_text(SPIN)
    t0 = time.monotonic()
    assert oracle_main([str(src), "--widths", "4", "--ndrange", "global=4 local=4", "--timeout", "1",
                        "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert set(rep["summary"]) == {"scalar-fault"} and time.monotonic() - t0 < 60


# ------------------------------------------------------------------ the journal

FAIL = {"signature": "mismatch | w=4 d=0 c=- | buffer 1 lane 2", "status": "mismatch", "width": 4,
        "dim": 0, "choices": "", "global_size": [16], "local_size": [16], "detail": "buffer 1 index 2"}
TINY = Spec(profile="tiny", widths=[4], dims=[0])


def _write_journal(path: Path, lines: list[str]) -> None:
    path.write_text("".join(ln + "\n" for ln in lines))


def test_damaged_journal_lines_are_reported_and_skipped(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """A seed record without a seed number was a KeyError on --resume."""
    from dataclasses import asdict

    j = tmp_path / "j.jsonl"
    _write_journal(j, [
        json.dumps({"type": "start", "spec": asdict(TINY), "seed": 0, "count": 1}),
        json.dumps({"type": "seed", "seed": 0, "n": 1, "summary": {"mismatch": 1}, "failures": [FAIL],
                    "case": None}),
        json.dumps({"type": "seed", "n": 1, "summary": {"match": 1}, "failures": []}),  # no seed
        json.dumps({"type": "seed", "seed": 7, "failures": [{"status": "mismatch"}]}),  # no signature
        '{"type": "seed", "seed": 1, "fail',  # torn
    ])
    code = fuzz_main(["run", "--seed", "0", "--count", "1", "--profile", "tiny", "--widths", "4",
                      "--dims", "0", "--journal", str(j), "--resume", "--json", "--no-progress",
                      "--jobs", "1"])
    out, err = capsys.readouterr()
    assert code == 1, err  # the journal's failure is kept and reported
    rep = json.loads(out)
    assert rep["seeds"] == 1 and [f["signature"] for f in rep["failures"]] == [FAIL["signature"]]
    assert f"{j}:3: a seed record without a seed number; skipped" in err
    assert f"{j}:4: seed 7: 'failures'" in err
    assert f"{j}:5: not a JSON record" in err
    assert "Traceback" not in err
    # The report command reads the same journal the same way.
    assert fuzz_main(["report", str(j)]) == 1
    assert "1 distinct failure signature" in capsys.readouterr().out


def test_a_journal_is_used_by_one_campaign_at_a_time(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Two --resume runs on one journal recorded every seed twice; the second
    now stops at once and names the first."""
    path = tmp_path / "j.jsonl"
    first = Journal(path)
    first.lock()
    first.append({"type": "start", "spec": {}})
    t0 = time.monotonic()
    try:
        with pytest.raises(CampaignError, match=f"journal {path} is in use by pid {os.getpid()}"):
            Campaign(TINY, count=3, jobs=1, journal=path, resume=True, progress=False).run()
        assert fuzz_main(["run", "--count", "3", "--profile", "tiny", "--journal", str(path), "--resume",
                          "--no-progress", "--jobs", "1"]) == 2
        assert f"is in use by pid {os.getpid()}" in capsys.readouterr().err
        # Each refusal came after the grace period for a lock about to be released.
        assert time.monotonic() - t0 >= 2 * journal_mod.LOCK_GRACE_SECONDS
    finally:
        first.close()
    # Once the first campaign has ended, the journal is free again.
    rep = Campaign(TINY, count=0, jobs=1, journal=path, resume=True, progress=False).run()
    assert rep.seeds == 0 and not rep.interrupted
    assert [r["type"] for r in Journal(path).records()] == ["start", "start", "end"]


def test_a_journal_lock_released_within_the_grace_period_is_taken(tmp_path: Path) -> None:
    """A campaign resumed right after an interrupted one may find the lock still
    shared with a just-forked oracle worker; it waits for it instead of naming
    itself as the holder."""
    path = tmp_path / "j.jsonl"
    first = Journal(path)
    first.lock()
    first.append({"type": "start", "spec": {}})
    releaser = threading.Timer(0.3, first.close)
    releaser.start()
    try:
        rep = Campaign(TINY, count=0, jobs=1, journal=path, resume=True, progress=False).run()
    finally:
        releaser.join()
    assert rep.seeds == 0 and not rep.interrupted
