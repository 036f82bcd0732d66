"""The sanitized reference (oracle.sanitizer): out-of-bounds accesses are
`scalar-fault` naming the access, races are `scalar-race`, and neither is
ever blamed on the vectorizer."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import oracle
from oracle import cli
from oracle.check import FAILING, STATUSES

KERNELS = Path(__file__).parent / "kernels"
CASES = (KERNELS / "sanitizer_cases.ll").read_text()


def _text(name: str) -> str:
    return (KERNELS / name).read_text()


def _case(kernel: str, args: str, ndrange: str = "global=64 local=16") -> str:
    """`sanitizer_cases.ll` as a case running `kernel` with the given layout."""
    return f"; vecz-case: 1\n; kernel: {kernel}\n; args: {args}\n; ndrange: {ndrange}\n" + CASES


def _scalar(text: str, kernel: str | None = None) -> list[oracle.Result]:
    rep = oracle.check_scalar(text, kernel=kernel)
    assert rep.results
    return rep.results


def test_scalar_race_is_a_status_that_blames_nobody() -> None:
    assert "scalar-race" in STATUSES and "scalar-race" not in FAILING


def test_racy_counter_is_scalar_race(capsys) -> None:
    # The updates commute: the reversed-order run cannot see this race.
    rep = oracle.check(_text("racy_counter.ll"), widths=[4])
    assert rep.summary == {"scalar-race": len(rep.results)}, rep.results
    d = rep.results[0].detail
    assert "argument %counter" in d and "byte 0" in d and "work-item" in d
    assert "`%c = load i32" in d or "`store i32 %c3" in d, d
    assert not rep.failed
    # The command says so and exits 0: the input is at fault.
    assert cli.main([str(KERNELS / "racy_counter.ll"), "--widths", "4", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["summary"]) == {"scalar-race"}


def test_underrun_is_out_of_bounds() -> None:
    rep = oracle.check(_text("underrun.ll"), widths=[4])
    with_item0 = [r for r in rep.results if r.status != "match"]
    assert with_item0 and all(r.status == "scalar-fault" for r in with_item0), rep.results
    d = with_item0[0].detail
    assert re.search(r"out-of-bounds write of 4 bytes at offset -4 of buffer 0 \(argument %out\)", d), d
    assert "work-item (0)" in d and "store float %v" in d
    # The NDRange with offset 5 has no work-item 0: that one runs fine.
    assert any(r.status == "match" for r in rep.results)


def test_store_160k_past_the_end_is_out_of_bounds() -> None:
    rep = oracle.check(_text("far_store.ll"))
    assert rep.summary == {"scalar-fault": 1}, rep.results
    d = rep.results[0].detail
    assert "out-of-bounds write of 4 bytes at offset 163840 of buffer 0 (argument %out) (256 bytes)" in d, d


@pytest.mark.parametrize("kernel,args", [
    ("uniform_store", "buf:i32:64"),
    ("atomic_counter", "buf:i32:1:zero buf:i32:64"),
    ("byte_neighbours", "buf:i8:64"),
    ("local_slots", "buf:i32:64"),
])
def test_no_false_race(kernel: str, args: str) -> None:
    results = _scalar(_case(kernel, args))
    assert {r.status for r in results} == {"match"}, results


@pytest.mark.parametrize("kernel,args,what", [
    ("differing_store", "buf:i32:64", r"write by work-item \(\d+\).* and write by work-item"),
    ("mixed_counter", "buf:i32:1", r"(read|atomic read-modify-write) by work-item"),
    ("local_shared", "buf:i32:64", r"global @lds byte 0: write .* same work-group"),
    ("cross_group", "buf:i32:64", r"byte 0: write by work-item \(16\).* different work-groups"),
])
def test_races_are_found(kernel: str, args: str, what: str) -> None:
    results = _scalar(_case(kernel, args))
    assert {r.status for r in results} == {"scalar-race"}, results
    assert re.search(what, results[0].detail), results[0].detail


@pytest.mark.parametrize("kernel,args,what", [
    ("private_overflow", "buf:i32:64", r"out-of-bounds write of 4 bytes outside its private variable by work-item \(4\)"),
    ("table_overread", "buf:i32:64", r"out-of-bounds read of 4 bytes at offset 16 of global @table \(16 bytes\)"),
    ("memset_overflow", "buf:i32:64", r"out-of-bounds write of 4 bytes at offset 256 of buffer 0 .*by work-item \(63\)"),
    ("helper_underrun", "buf:i32:64", r"out-of-bounds write of 4 bytes at address 0x[0-9a-f]+, inside no buffer"),
    ("int_pointer", "buf:i32:63 buf:i32:64", r"out-of-bounds write of 4 bytes at offset 252 of buffer 0"),
])
def test_out_of_bounds_are_found(kernel: str, args: str, what: str) -> None:
    results = _scalar(_case(kernel, args))
    assert {r.status for r in results} == {"scalar-fault"}, results
    assert re.search(what, results[0].detail), results[0].detail


def test_inferred_buffers_grow_to_what_the_kernel_reaches_and_no_further() -> None:
    # out[gid * 300]: far beyond the generous first guess (64 per work-item).
    text = """
declare i64 @_Z13get_global_idj(i32 noundef)
define spir_kernel void @spread(ptr addrspace(1) %out) {
  %gid = call i64 @_Z13get_global_idj(i32 noundef 0)
  %i = mul i64 %gid, 300
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %i
  store i32 1, ptr addrspace(1) %p, align 4
  ret void
}
"""
    rep = oracle.check(text, widths=[4])
    assert rep.summary == {"match": len(rep.results)}, rep.results
    # Buffer 0 ends right after the last element stored (work-item 63, or
    # 40 with offset 5 and 36 work-items), so guard pages are tight.
    assert rep.launches["global=64 local=16"].startswith(f"buf:i32:{63 * 300 + 1}:"), rep.launches
    assert rep.launches["global=36 local=12 offset=5"].startswith(f"buf:i32:{40 * 300 + 1}:"), rep.launches


def test_integer_scalars_are_sized_to_the_ndrange() -> None:
    # out[y * w + x] with w = 1 would make work-items race; the oracle
    # launches it as its author would (w = the row length).
    rep = oracle.check(Path("bench/kernels/sobel.ll").read_text() if Path("bench/kernels/sobel.ll").exists()
                       else (Path(__file__).parents[2] / "bench/kernels/sobel.ll").read_text(), widths=[4])
    assert rep.summary == {"match": len(rep.results)}, rep.results
    assert "scalar:i32:11" in rep.launches["global=8,6 local=4,3 offset=3,1"], rep.launches


def test_a_clean_launch_runs_plain_the_second_time(monkeypatch) -> None:
    import importlib

    from oracle.jit import PROBE, SANITIZED

    C = importlib.import_module("oracle.check")
    keys: list[str] = []
    real = C._Session.run

    def run(self, key, variants, vkey, *a, **k):  # noqa: ANN001
        keys.append(vkey)
        return real(self, key, variants, vkey, *a, **k)

    monkeypatch.setattr(C._Session, "run", run)
    text = _case("uniform_store", "buf:i32:64", "global=32 local=8")
    oracle.check(text, widths=[4])
    assert SANITIZED in keys
    keys.clear()
    oracle.check(text, widths=[4])
    assert SANITIZED not in keys and PROBE not in keys and "" in keys, keys


def test_kept_tables_serve_alternating_modes_and_epoch_restarts() -> None:
    # A program keeps its last layout's tables (oracle.sanitizer._prepare):
    # probe and strict runs alternate on the same buffers, and the shadow
    # epochs may start again from 1 between two runs.
    import numpy as np

    from bench.sanitizer_cost import _Launch
    from oracle import jit, sanitizer
    from oracle.case import ArgSpec, parse_ndrange

    jit.initialize()
    nd = parse_ndrange("global=64 local=16")
    for kernel, want in (("differing_store", "race"), ("uniform_store", "clean"), ("memset_overflow", "out-of-bounds")):
        prog = jit.build(kernel, CASES, [jit.Variant(jit.SANITIZED, kernel, "", 0, 0, False)], 0)
        launch = _Launch([ArgSpec("buf", "i32", 64)], [np.zeros(64, np.int32)], nd)
        for key, restart in ((jit.SANITIZED, False), (jit.PROBE, False), (jit.SANITIZED, True), (jit.SANITIZED, False)):
            if restart:
                sanitizer._SHADOWS.next_epoch = sanitizer._Shadows.EPOCH_LIMIT + 1
            rep = launch.run(prog, key)[1]
            if key == jit.PROBE and want == "out-of-bounds":
                assert rep["redirected"] and rep["extents"][0] > 256, rep  # probe mode records, then grows
            else:
                assert rep["status"] == want, (kernel, key, rep)


_BYVAL = """
%struct.P = type { i32, i32, i32, i32, i32 }
declare i64 @_Z13get_global_idj(i32 noundef)
define spir_kernel void @byval_field(ptr noundef byval(%struct.P) align 4 %p, ptr addrspace(1) %out) {
  %g = call i64 @_Z13get_global_idj(i32 noundef 0)
  %f = getelementptr inbounds i8, ptr %p, i64 16
  %v = load i32, ptr %f, align 4
  %o = getelementptr i32, ptr addrspace(1) %out, i64 %g
  store i32 %v, ptr addrspace(1) %o, align 4
  ret void
}
"""


def test_a_struct_passed_by_value_is_a_private_copy() -> None:
    # The kernel reads a stack copy of the struct, not the buffer passed for
    # it: no access of it is out of that buffer's bounds (Rodinia heartwall).
    text = "; vecz-case: 1\n; kernel: byval_field\n; args: buf:i32:5:iota buf:i32:64\n; ndrange: global=64 local=16\n"
    results = _scalar(text + _BYVAL)
    assert {r.status for r in results} == {"match"}, results
    out = oracle.run_scalar(text + _BYVAL, "global=64 local=16")
    assert list(out[1]) == [4] * 64  # field 4 of the iota struct
