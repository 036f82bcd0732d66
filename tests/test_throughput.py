"""`vecz-fuzz throughput`: its figures add up, and the worker's CPU time is
attributed to the kinds of request that spent it (oracle/request_cpu.py)."""

from __future__ import annotations

import json
import os
import sys
import time

import pytest

from fuzz.cli import main
from oracle import request_cpu

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the per-request CPU time is read from /proc, which only Linux has")


@linux_only
def test_process_cpu_counts_this_process_busy_time() -> None:
    before = request_cpu.process_cpu(os.getpid())
    t0 = time.process_time()
    while time.process_time() - t0 < 0.1:
        pass
    after = request_cpu.process_cpu(os.getpid())
    assert before is not None and after is not None
    assert after - before >= 0.05  # clock ticks of 10 ms: 0.1 s of work shows as at least 0.05


def test_process_cpu_of_no_process_is_none() -> None:
    assert request_cpu.process_cpu(2**22 + 12345) is None


def test_requests_are_only_counted_while_accounting() -> None:
    me = os.getpid()
    assert request_cpu.start(me) is None  # off: nothing read
    with request_cpu.accounting() as totals:
        with pytest.raises(RuntimeError, match="already active"):
            with request_cpu.accounting():
                pass
        request_cpu.finish("vectorize", me, request_cpu.start(me))
        request_cpu.finish("build", me, None)  # `start` read nothing: not counted
    request_cpu.finish("run", me, 0.0)  # after the accounting ended: not counted
    assert set(totals) == ({"vectorize"} if sys.platform.startswith("linux") else set())


@linux_only
def test_throughput_command_breaks_its_cpu_time_down(capsys) -> None:
    assert main(["throughput", "--seed", "5", "--count", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["seeds"] == 2 and out["configurations"] > 0
    assert out["per_cpu_second"] == pytest.approx(out["configurations"] / out["cpu_seconds"], rel=0.02)
    ops = out["worker_cpu_by_request"]
    # Every kernel is vectorized, built once and run; each request is counted once.
    assert {"vectorize", "build", "run"} <= set(ops)
    assert ops["build"]["requests"] == 2
    assert ops["vectorize"]["requests"] >= 2 and ops["run"]["requests"] >= 2
    assert ops["vectorize"]["cpu_seconds"] > 0 and ops["build"]["cpu_seconds"] > 0
    attributed = out["parent_cpu_seconds"] + sum(op["cpu_seconds"] for op in ops.values())
    # Clock ticks are coarse, so allow a tick per request over the total.
    slack = 0.01 * sum(op["requests"] for op in ops.values())
    assert 0 < attributed <= out["cpu_seconds"] + slack
