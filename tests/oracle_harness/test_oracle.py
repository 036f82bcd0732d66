"""The oracle on hand-written scalar/vector pairs: correct ones match, broken
ones are caught (mismatch, vector-fault, timeout) and the harness survives."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import oracle
from oracle import cli
from oracle.case import ArgSpec, CaseError, parse_case, parse_ndrange

KERNELS = Path(__file__).parent / "kernels"


def _text(name: str) -> str:
    return (KERNELS / name).read_text()


@pytest.mark.parametrize(
    "file,name,width",
    [
        ("contiguous.ll", "__vecz_v4_add", 4),
        ("strided.ll", "__vecz_v4_strided", 4),
        ("gather.ll", "__vecz_v8_gather", 8),
        ("divergent_if.ll", "__vecz_v4_divif", 4),
        ("divergent_loop.ll", "__vecz_v4_divloop", 4),
    ],
)
def test_correct_pairs_match(file: str, name: str, width: int) -> None:
    r = oracle.check(_text(file), vectorized=name, widths=[width])
    assert r.results and all(x.status == "match" for x in r.results), r.results


def test_broken_variants_are_caught_and_harness_survives() -> None:
    broken = _text("broken.ll")
    r = oracle.check(broken, vectorized="__vecz_v4_copy_reversed", widths=[4])
    assert r.summary == {"mismatch": 1}
    assert "buffer 1 index 0" in r.results[0].detail
    r = oracle.check(_text("divergent_if.ll"), vectorized="__vecz_v4_divif_nomask", widths=[4])
    assert set(r.summary) == {"mismatch"}
    r = oracle.check(broken, vectorized="__vecz_v4_copy_oob", widths=[4])
    assert r.summary == {"vector-fault": 1}, r.results
    r = oracle.check(_text("divergent_loop.ll"), vectorized="__vecz_v4_divloop_endless",
                     widths=[4], ndranges=["global=16 local=16"], timeout=1.0)
    assert r.summary == {"timeout": 1}, r.results
    # The harness goes on with a replaced worker.
    r = oracle.check(_text("contiguous.ll"), vectorized="__vecz_v4_add", widths=[4])
    assert set(r.summary) == {"match"}


def test_worker_crash_names_the_python_call_that_crashed() -> None:
    # A segfault inside the worker (LLVM, llvmlite, a JIT-compiled kernel)
    # reports where in our code it happened, read from faulthandler's dump.
    from oracle import worker as W

    w = W.Worker()
    try:
        res = w.call(("crash",), 30)
        assert isinstance(res, W.Failure) and res.kind == "crash"
        assert res.detail.startswith("worker killed by SIGSEGV (in serve (worker.py:"), res.detail
        assert w.call(("ping",), 30)[0] == "ok"  # replaced, and answering
    finally:
        w.kill()


def test_scalar_fault_never_blames_the_vectorizer() -> None:
    # The scalar kernel itself writes far out of bounds.
    from oracle import worker as W

    # A fresh pool, so the worker acquired below is the one that ran the kernel
    # (earlier tests may have left several idle workers in the shared pool).
    W.close()
    text = _text("broken.ll").replace("; args: buf:i32:64 buf:i32:64:zero", "; args: buf:i32:8 buf:i32:8:zero")
    r = oracle.check(text, vectorized="__vecz_v4_copy_reversed", widths=[4])
    assert r.summary == {"scalar-fault": 1}
    # The worker that ran it is not trusted any more: the next check gets a
    # fresh process.
    assert r.stats.get("worker_recycles") == 1
    w = W.get_pool().acquire()
    try:
        assert w.proc is None and w.kernel_runs == 0
    finally:
        W.get_pool().release(w)


class _FlakyWorker:
    """Stands in for `oracle.worker.Worker`: the first vectorize request
    crashes when the process has run kernels (as a heap damaged by one would)."""

    def __init__(self, kernel_runs: int, crashes: int) -> None:
        self.kernel_runs, self.crashes, self.calls, self.kills = kernel_runs, crashes, 0, 0

    def call(self, msg: tuple, timeout: float) -> object:
        from oracle import worker as W

        self.calls += 1
        if self.crashes:
            self.crashes -= 1
            self.kernel_runs = 0  # replaced, as Worker.call does
            return W.Failure("crash", "worker killed by SIGSEGV")
        return ("ok", "__vecz_v4_k", "ir")

    def kill(self) -> None:
        self.kills += 1
        self.kernel_runs = 0


def test_vectorizer_crash_is_retried_once_in_a_fresh_worker_only_after_kernels_ran() -> None:
    from oracle import worker as W
    from oracle.check import CheckReport, _vectorize

    msg = ("vectorize", "", "k", 4, 0, "")
    report = CheckReport("k")
    w = _FlakyWorker(kernel_runs=3, crashes=1)
    assert _vectorize(w, msg, 1.0, report)[0] == "ok"  # type: ignore[arg-type,index]
    assert (w.calls, report.stats) == (2, {"vectorize_retries": 1})
    assert report.retried == ["W=4 dim=0 choices='': worker killed by SIGSEGV"]  # the site is kept
    # A crash that comes back in the fresh worker is the vectorizer's.
    w = _FlakyWorker(kernel_runs=3, crashes=2)
    assert isinstance(_vectorize(w, msg, 1.0, CheckReport("k")), W.Failure)  # type: ignore[arg-type]
    assert w.calls == 2
    # A worker that never ran a kernel is not retried.
    w = _FlakyWorker(kernel_runs=0, crashes=1)
    assert isinstance(_vectorize(w, msg, 1.0, CheckReport("k")), W.Failure)  # type: ignore[arg-type]
    assert w.calls == 1


WI_KERNEL = """
declare i64 @_Z13get_global_idj(i32)
declare i64 @_Z12get_local_idj(i32)
declare i64 @_Z12get_group_idj(i32)
declare i64 @_Z15get_global_sizej(i32)
declare i64 @_Z14get_local_sizej(i32)
declare i64 @_Z14get_num_groupsj(i32)
declare i64 @_Z17get_global_offsetj(i32)
declare i32 @_Z12get_work_dimv()
declare i64 @_Z20get_global_linear_idv()
declare i32 @__mux_get_local_id(i32)

define spir_kernel void @wi(ptr addrspace(1) %out) {
entry:
  %lin = call i64 @_Z20get_global_linear_idv()
  %base = mul i64 %lin, 16
  br label %loop
loop:
  %d = phi i32 [ 0, %entry ], [ %d1, %loop ]
  %gid = call i64 @_Z13get_global_idj(i32 %d)
  %lid = call i64 @_Z12get_local_idj(i32 %d)
  %grp = call i64 @_Z12get_group_idj(i32 %d)
  %gsz = call i64 @_Z15get_global_sizej(i32 %d)
  %lsz = call i64 @_Z14get_local_sizej(i32 %d)
  %ngr = call i64 @_Z14get_num_groupsj(i32 %d)
  %off = call i64 @_Z17get_global_offsetj(i32 %d)
  %mux = call i32 @__mux_get_local_id(i32 %d)
  %mux64 = zext i32 %mux to i64
  %d64 = zext i32 %d to i64
  %slot = mul i64 %d64, 8
  %b = add i64 %base, %slot
  %p0 = getelementptr i64, ptr addrspace(1) %out, i64 %b
  store i64 %gid, ptr addrspace(1) %p0
  %p1 = getelementptr i64, ptr addrspace(1) %p0, i64 1
  store i64 %lid, ptr addrspace(1) %p1
  %p2 = getelementptr i64, ptr addrspace(1) %p0, i64 2
  store i64 %grp, ptr addrspace(1) %p2
  %p3 = getelementptr i64, ptr addrspace(1) %p0, i64 3
  store i64 %gsz, ptr addrspace(1) %p3
  %p4 = getelementptr i64, ptr addrspace(1) %p0, i64 4
  store i64 %lsz, ptr addrspace(1) %p4
  %p5 = getelementptr i64, ptr addrspace(1) %p0, i64 5
  store i64 %ngr, ptr addrspace(1) %p5
  %p6 = getelementptr i64, ptr addrspace(1) %p0, i64 6
  store i64 %off, ptr addrspace(1) %p6
  %p7 = getelementptr i64, ptr addrspace(1) %p0, i64 7
  store i64 %mux64, ptr addrspace(1) %p7
  %d1 = add i32 %d, 1
  %c = icmp ult i32 %d1, 2
  br i1 %c, label %loop, label %exit
exit:
  %wd = call i32 @_Z12get_work_dimv()
  %oob = call i64 @_Z13get_global_idj(i32 7)
  %oobs = call i64 @_Z14get_local_sizej(i32 7)
  %w = zext i32 %wd to i64
  %e = add i64 %base, 16
  %pe = getelementptr i64, ptr addrspace(1) %out, i64 %e
  ret void
}
"""


def test_work_item_builtins() -> None:
    nd = parse_ndrange("global=8,6 local=4,3 offset=5,7")
    outs = oracle.run_scalar(WI_KERNEL, nd, kernel="wi", layout=["buf:i64:1024:zero"])
    out = outs[0].reshape(-1, 16)[:48]
    for y in range(6):
        for x in range(8):
            row = out[y * 8 + x]
            for d, (g, loc, off) in enumerate([(x, 4, 5), (y, 3, 7)]):
                gid, lid, grp, gsz, lsz, ngr, goff, mux = row[d * 8 : d * 8 + 8]
                assert (gid, lid, grp, gsz, lsz, ngr, goff, mux) == (
                    g + off, g % loc, g // loc, (8, 6)[d], loc, (8, 6)[d] // loc, off, g % loc
                )


def test_case_header_roundtrip() -> None:
    c = parse_case(_text("gather.ll"))
    assert c.kernel == "gather" and c.widths == [8] and c.seed == 3
    assert c.args == [ArgSpec("buf", "f32", 64), ArgSpec("buf", "i32", 64, "mod64"),
                      ArgSpec("buf", "f32", 64, "zero")]
    again = parse_case(c.header() + "\n" + c.ir)
    assert again.args == c.args and again.ndranges == c.ndranges
    with pytest.raises(CaseError):
        parse_ndrange("global=10 local=4")


def test_cli_json_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(KERNELS / "broken.ll")
    assert cli.main([path, "--vectorized", "__vecz_v4_copy_reversed", "--width", "4", "--json"]) == 1
    obj = json.loads(capsys.readouterr().out)
    assert obj["kernel"] == "copy" and obj["summary"] == {"mismatch": 1}
    assert set(obj["results"][0]) == {"width", "dim", "choices", "global_size", "local_size",
                                      "status", "detail"}
    assert cli.main([str(KERNELS / "strided.ll"), "--vectorized", "__vecz_v4_strided",
                     "--width", "4"]) == 0
    capsys.readouterr()
    assert cli.main([path, "--local-sizes", "10", "--ndrange", "global=10 local=3"]) == 2
    assert "error" in capsys.readouterr().err
    assert cli.main(["/nonexistent.ll"]) == 2


def test_guard_pages_place_buffer_end_at_guard() -> None:
    from oracle.buffers import PAGE, SLACK, GuardedBuffer

    b = GuardedBuffer(ArgSpec("buf", "i32", 100))
    # The end is at least SLACK canary bytes before the guard page, and the
    # start 64-byte aligned.
    gap = PAGE - (b.address + 400) % PAGE
    assert SLACK <= gap < SLACK + 64 and b.address % 64 == 0
    assert len(b.tail) == gap
    assert np.all(b.array == b.array)  # readable
    b.arm()
    assert not b.overrun()
    b.tail[3] = 0
    assert b.overrun()  # a write past the end is seen


CLANG_STYLE = """; vecz-case: 1
; kernel: twice
; args: buf:i32:64 buf:i32:64:zero
; ndrange: global=64 local=16
; widths: 4,8
; seed: 5

declare i64 @_Z13get_global_idj(i32) #1

define spir_kernel void @twice(ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0) #2
  %p = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %gid
  %v = load i32, ptr addrspace(1) %p, align 4
  %d = shl i32 %v, 1
  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %d, ptr addrspace(1) %q, align 4
  ret void
}

attributes #0 = { convergent nounwind memory(argmem: readwrite) }
attributes #1 = { convergent nounwind willreturn memory(none) }
attributes #2 = { convergent nounwind willreturn memory(none) }
"""


@pytest.mark.parametrize("opt", [0, 1, 3])
def test_clang_memory_attributes_do_not_hide_results_when_optimising(opt: int) -> None:
    # clang marks kernels `memory(argmem: readwrite)` and work-item queries
    # `memory(none)`; the runtime's queries read the NDRange from globals, so
    # the oracle drops those attributes before optimising.
    r = oracle.check(CLANG_STYLE, opt=opt)
    assert r.results and {x.status for x in r.results} == {"match"}, r.results


def test_a_vector_run_gets_four_times_a_slow_scalar_runs_time() -> None:
    from oracle.check import vector_run_budget

    assert vector_run_budget(10.0, 0.002) == 10.0  # the usual case: the limit
    assert vector_run_budget(10.0, 9.0) == 36.0  # a scalar run near the limit


def test_vector_runs_are_timed_against_the_scalar_run(monkeypatch) -> None:
    # Every run reports 9 s; the vectorized ones must be given 36 s.
    import importlib

    from oracle.jit import PROBE, REVERSED, SANITIZED

    scalar_keys = ("", REVERSED, SANITIZED, PROBE)
    C = importlib.import_module("oracle.check")  # the package's `check` function shadows the module

    budgets: list[tuple[str, float | None]] = []
    real_run = C._Session.run

    def run(self, key, variants, vkey, layout, nd, seed, timeout=None):  # noqa: ANN001
        res = real_run(self, key, variants, vkey, layout, nd, seed, timeout)
        budgets.append((vkey, timeout))
        return (res[0], res[1], 9.0, *res[3:]) if isinstance(res, tuple) and res[0] == "ok" else res

    monkeypatch.setattr(C._Session, "run", run)
    report = C.check(_text("contiguous.ll"), vectorized="__vecz_v4_add", widths=[4], timeout=10.0)
    assert {r.status for r in report.results} == {"match"}
    vector = [t for k, t in budgets if k not in scalar_keys]
    assert vector and all(t == 36.0 for t in vector), budgets
    assert all(t is None for k, t in budgets if k in scalar_keys)

