"""Verdicts do not depend on the machine's load (issue 20 item 4).

A sample (a kernel whose runs take a good part of the timeout, and a few
generated seeds) is checked twice, the second time while busy processes
hold the CPUs; every verdict must be the same. Time limits count the
worker's own time (`oracle.worker.Budget`): waiting for a CPU that others
hold is not the kernel being slow.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import oracle
from fuzz.campaign import Spec, run_seed
from oracle import worker as W

# Each work-item spins N times: a few tenths of a second per run on this
# machine's CPUs, against a one-second timeout. When the CPUs are shared
# with busy processes, the same run takes several times that on the wall
# clock.
SPIN = """; vecz-case: 1
; kernel: spin
; args: buf:i32:64:zero scalar:i32:16000000
; ndrange: global=16 local=4
; widths: 1,4
; dims: 0
; seed: 1

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @spin(ptr addrspace(1) %out, i32 %n) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %g32 = trunc i64 %gid to i32
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %acc = phi i32 [ %g32, %entry ], [ %acc1, %loop ]
  %m = mul i32 %acc, 1103515245
  %acc1 = add i32 %m, 12345
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %acc1, ptr addrspace(1) %p, align 4
  ret void
}
"""
SEEDS = range(2)


def verdicts() -> dict[str, object]:
    """Every status of the sample, keyed by what produced it."""
    out: dict[str, object] = {}
    rep = oracle.check(SPIN, timeout=1.0)
    out["spin"] = [(r.width, r.dim, r.global_size, r.status) for r in rep.results]
    spec = Spec(timeout=10.0).__dict__
    for s in SEEDS:
        rec = run_seed(s, dict(spec))
        out[f"seed {s}"] = (rec["summary"], sorted(f["signature"] for f in rec["failures"]))
    return out


@contextmanager
def busy(n: int) -> Iterator[None]:
    """`n` processes spinning on the CPU for the duration."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


def test_verdicts_are_the_same_with_the_cpus_busy() -> None:
    quiet = verdicts()
    # The spin kernel matched: the comparison below is about real verdicts.
    assert {st for *_, st in quiet["spin"]} == {"match"}  # type: ignore[union-attr]
    oracle.close()  # fresh workers and programs for the second run
    with busy(os.cpu_count() or 1):
        loaded = verdicts()
    assert loaded == quiet


def test_budget_does_not_count_time_spent_waiting_for_a_cpu(monkeypatch) -> None:
    clock = {"wall": 100.0, "delay": 7.0}
    monkeypatch.setattr(W.time, "monotonic", lambda: clock["wall"])
    monkeypatch.setattr(W, "_run_delays", lambda pid: {pid: clock["delay"]})
    b = W.Budget(2.0, pid=1)
    # 3 s on the wall clock, 2.5 of them waiting for a CPU: half a second used.
    clock["wall"] += 3.0
    clock["delay"] += 2.5
    assert b.elapsed() == 0.5
    assert b.left() == 1.5
    # Now it runs: 1.5 s more of its own time spend the budget.
    clock["wall"] += 1.5
    assert b.left() == 0.0


def test_budget_ends_at_the_wall_clock_cap_and_without_statistics(monkeypatch) -> None:
    clock = {"wall": 0.0}
    monkeypatch.setattr(W.time, "monotonic", lambda: clock["wall"])
    monkeypatch.setattr(W, "_run_delays", lambda pid: {pid: clock["wall"]})  # starved throughout
    b = W.Budget(1.0, pid=1)
    clock["wall"] = W.WALL_CAP_FACTOR * 1.0 - 0.1
    assert b.left() == 1.0
    clock["wall"] = W.WALL_CAP_FACTOR * 1.0
    assert b.left() == 0.0
    # No scheduler statistics: the wall clock.
    monkeypatch.setattr(W, "_run_delays", lambda pid: None)
    b = W.Budget(1.0, pid=1)
    clock["wall"] += 0.75
    assert b.left() == 0.25


def test_budget_counts_the_waiting_of_every_thread_even_one_that_ended(monkeypatch) -> None:
    clock = {"wall": 0.0}
    threads = {1: 0.0, 2: 5.0}  # the main thread, the vectorizer's thread
    monkeypatch.setattr(W.time, "monotonic", lambda: clock["wall"])
    monkeypatch.setattr(W, "_run_delays", lambda pid: dict(threads))
    b = W.Budget(10.0, pid=1)
    clock["wall"] = 4.0
    threads[2] = 8.0  # 3 of its 4 seconds waiting for a CPU
    threads[3] = 0.5  # a thread started meanwhile, waited half a second
    assert b.elapsed() == 0.5
    del threads[2], threads[3]  # they end: what was seen of them still counts
    clock["wall"] = 5.0
    assert b.elapsed() == 1.5


def test_run_delays_read_this_process() -> None:
    d = W._run_delays(os.getpid())
    if sys.platform.startswith("linux"):  # /proc/PID/task/TID/schedstat
        assert d is not None and os.getpid() in d and all(v >= 0.0 for v in d.values())


def test_stability_diff_names_every_differing_or_missing_verdict() -> None:
    from fuzz.stability import diff

    a = {"k W=4": "match", "k W=8": "match", "seed 1": "match=3"}
    b = {"k W=4": "match", "k W=8": "mismatch", "seed 2": "match=3"}
    assert diff(a, b) == ["k W=8: match | then mismatch", "seed 1: match=3 | then (absent)",
                          "seed 2: (absent) | then match=3"]
    assert diff(a, dict(a)) == []


def _after(seconds: float, fn) -> None:  # noqa: ANN001
    import threading

    t = threading.Timer(seconds, fn)
    t.daemon = True
    t.start()


def test_a_worker_killed_from_outside_is_replaced_and_the_request_resent() -> None:
    import signal

    w = W.Worker()
    try:
        first = w.call(("ping",), 60.0)[1]
        _after(1.0, lambda: os.kill(first, signal.SIGKILL))  # as the out-of-memory killer would
        assert w.call(("sleep", 2.0), 60.0) == ("ok",)
        assert w.call(("ping",), 60.0)[1] != first
    finally:
        w.kill()


def test_a_worker_stopped_by_its_owner_is_not_restarted() -> None:
    w = W.Worker()
    try:
        w.call(("ping",), 60.0)
        _after(1.0, w.kill)  # a campaign's close() while a check waits
        res = w.call(("sleep", 2.0), 60.0)
        assert isinstance(res, W.Failure) and res.kind == "crash" and not res.killed
        assert w.proc is None
    finally:
        w.kill()
