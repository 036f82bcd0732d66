"""The oracle's reference runs work-groups that synchronise (oracle/workgroup.py,
oracle/fibers.py): barriers with OpenCL's semantics, local memory once per
group, barrier divergence reported as the input's fault, and packets of a
vectorized function scheduled with the remainder work-items of their group."""

from __future__ import annotations

import ctypes
import json
from pathlib import Path

import numpy as np
import pytest

import oracle
from oracle import fibers, runtime, workgroup
from oracle.buffers import initial_contents
from oracle.case import parse_arg, parse_ndrange
from oracle.runtime import FnSig
from oracle.worker import Executor

KERNELS = Path(__file__).parent / "kernels"
SHARED = Path(__file__).resolve().parents[3] / "shared"
SEED = 1


@pytest.fixture(scope="module")
def cl_text() -> str:
    pytest.importorskip("ziglang", reason="compiling OpenCL C needs ziglang's clang (the 'opencl' or 'dev' extra)")
    from vectorizer.frontend.opencl import compile_opencl

    return compile_opencl(KERNELS / "workgroups.cl")


def _packets() -> str:
    return (KERNELS / "packets.ll").read_text()


def _groups(nd: str) -> list[tuple[int, list[int]]]:
    """(group index, global ids of its work-items in local-id order), 1-D."""
    r = parse_ndrange(nd)
    L, off = r.local_size[0], r.offset[0]
    return [(g, [off + g * L + i for i in range(L)]) for g in range(r.global_size[0] // L)]


def _run(text: str, kernel: str, nd: str, layout: list[str]) -> tuple[list[np.ndarray], list]:
    specs = [parse_arg(a) for a in layout]
    ins = [initial_contents(s, SEED, i) if s.kind == "buf" else None for i, s in enumerate(specs)]
    outs = oracle.run_scalar(text, nd, kernel=kernel, layout=specs, seed=SEED)
    return ins, outs


# ------------------------------------------------------------ scalar runs


@pytest.mark.parametrize("nd", ["global=64 local=16", "global=36 local=12 offset=5", "global=7 local=7"])
def test_tile_exchange_through_a_local_argument(cl_text: str, nd: str) -> None:
    ins, outs = _run(cl_text, "tile_reverse", nd, ["buf:i32:128", "buf:i32:128:zero", "local:i32:64"])
    for _, ids in _groups(nd):
        assert list(outs[1][ids]) == list(ins[0][ids[::-1]])


@pytest.mark.parametrize("nd", ["global=64 local=16", "global=36 local=12", "global=64 local=64", "global=5 local=1"])
def test_tree_reduction_in_a_local_array_of_the_kernel(cl_text: str, nd: str) -> None:
    ins, outs = _run(cl_text, "reduce_sum", nd, ["buf:i32:128:mod1000", "buf:i32:64:zero"])
    for g, ids in _groups(nd):
        assert outs[1][g] == ins[0][ids].sum()


@pytest.mark.parametrize("nd", ["global=64 local=16", "global=36 local=12 offset=5", "global=64 local=64"])
def test_prefix_sum_with_work_group_barriers(cl_text: str, nd: str) -> None:
    ins, outs = _run(cl_text, "prefix_sum", nd, ["buf:i32:128:mod1000", "buf:i32:128:zero"])
    for _, ids in _groups(nd):
        assert list(outs[1][ids]) == list(np.cumsum(ins[0][ids]).astype(np.uint32))


def test_barriers_in_a_uniform_loop(cl_text: str) -> None:
    nd = "global=48 local=12"
    ins, outs = _run(cl_text, "ring_steps", nd, ["buf:i32:64", "buf:i32:64:zero", "scalar:i32:5"])
    for _, ids in _groups(nd):
        a = ins[0][ids].astype(np.uint32)
        for _ in range(5):
            a = np.roll(a, 1) + np.uint32(2) * a + np.uint32(3) * np.roll(a, -1)
        assert list(outs[1][ids]) == list(a)


@pytest.mark.parametrize("nd", ["global=8,6,4 local=4,3,2 offset=3,1,2", "global=16,4,2 local=8,4,2",
                                "global=6,6,2 local=3,2,2"])
def test_three_dimensional_groups(cl_text: str, nd: str) -> None:
    ins, outs = _run(cl_text, "cube_mirror", nd, ["buf:i32:512", "buf:i32:512:zero"])
    r = parse_ndrange(nd)
    (Gx, Gy, Gz), (Lx, Ly, Lz) = r.global_size, r.local_size
    for gz in range(Gz // Lz):
        for gy in range(Gy // Ly):
            for gx in range(Gx // Lx):
                items = [((gz * Lz + z) * Gy + gy * Ly + y) * Gx + gx * Lx + x
                         for z in range(Lz) for y in range(Ly) for x in range(Lx)]
                assert list(outs[1][items]) == list(ins[0][items[::-1]])


def test_inferred_layouts_run_cleanly_with_the_race_check(cl_text: str) -> None:
    # The reference is sanitized (races within a barrier interval) and also
    # runs every group and work-item in reverse order: a correctly
    # synchronised kernel passes both.
    one_d = ["global=64 local=16", "global=36 local=12 offset=5"]
    three_d = "global=8,6,4 local=4,3,2 offset=3,1,2"
    for k, nds in (("tile_reverse", [*one_d, three_d]), ("reduce_sum", one_d), ("prefix_sum", one_d),
                   ("cube_mirror", [*one_d, three_d])):
        rep = oracle.check_scalar(cl_text, kernel=k, ndranges=nds)
        assert rep.summary == {"match": len(nds)}, (k, rep.results)


def test_a_one_dimensional_reduction_launched_in_three_races(cl_text: str) -> None:
    # reduce_sum indexes its __local array by get_local_id(0) alone: in a 3-D
    # group the work-items of every row write the same slots between barriers.
    rep = oracle.check_scalar(cl_text, kernel="reduce_sum", ndranges=["global=8,6,4 local=4,3,2"])
    assert rep.summary == {"scalar-race": 1}, rep.results
    assert "same work-group" in rep.results[0].detail


def test_optimised_jit_runs_barriers_the_same(cl_text: str) -> None:
    rep = oracle.check_scalar(cl_text, kernel="prefix_sum", ndranges=["global=64 local=16"], opt=2)
    assert rep.summary == {"match": 1}, rep.results
    nd = "global=36 local=12"
    specs = [parse_arg("buf:i32:64:mod1000"), parse_arg("buf:i32:64:zero")]
    o0 = oracle.run_scalar(cl_text, nd, kernel="reduce_sum", layout=specs, seed=SEED, opt=0)
    o2 = oracle.run_scalar(cl_text, nd, kernel="reduce_sum", layout=specs, seed=SEED, opt=2)
    assert list(o0[1]) == list(o2[1])


# ------------------------------------------------------------ the input's faults


@pytest.mark.parametrize("kernel,phrase", [
    ("diverge_return", "work-item (0,0,0) returned from the kernel while work-item (3,0,0) waits at a barrier"),
    ("diverge_sites", "work-item (0,0,0) and work-item (1,0,0) wait at barriers called from different places"),
    ("diverge_trips", "work-item (0,0,0) returned from the kernel while work-item (1,0,0) waits at a barrier"),
])
def test_barrier_divergence_is_a_scalar_fault(cl_text: str, kernel: str, phrase: str) -> None:
    rep = oracle.check_scalar(cl_text, kernel=kernel, ndranges=["global=32 local=8", "global=4 local=1"])
    first, single = rep.results
    assert first.status == "scalar-fault"
    assert "barrier divergence in work-group (0,0,0): " + phrase in first.detail, first.detail
    # One work-item per group cannot diverge.
    assert single.status == "match", single


def test_a_private_variable_read_before_it_is_written_is_caught() -> None:
    # Fresh fiber stacks are zeros: both scalar runs would read 0 and a
    # vectorized kernel that (rightly) computes something else would be
    # blamed. The reversed run's stacks are filled with other bytes.
    text = """
declare i64 @_Z13get_global_idj(i32)
declare void @_Z7barrierj(i32)
define spir_kernel void @k(ptr addrspace(1) %p) {
  %x = alloca i32, align 4
  %g = call i64 @_Z13get_global_idj(i32 0)
  call void @_Z7barrierj(i32 1)
  %v = load volatile i32, ptr %x, align 4
  %q = getelementptr i32, ptr addrspace(1) %p, i64 %g
  store i32 %v, ptr addrspace(1) %q, align 4
  ret void
}
"""
    rep = oracle.check_scalar(text, ndranges=["global=16 local=8"])
    (r,) = rep.results
    assert r.status == "scalar-fault" and "private addresses" in r.detail, r


def test_a_read_before_the_barrier_is_caught_as_a_race(cl_text: str) -> None:
    rep = oracle.check_scalar(cl_text, kernel="read_before_barrier", ndranges=["global=16 local=8"])
    (r,) = rep.results
    # The sanitizer names the race: a read of a slot another work-item writes
    # in the same barrier interval.
    assert r.status == "scalar-race" and "same work-group" in r.detail, r


# ------------------------------------------------------------ packets


PACKET_ND = ["global=32 local=8", "global=24 local=6 offset=3", "global=9 local=3", "global=64 local=64"]
PACKET_LAYOUT = ["buf:i32:256", "buf:i32:256:zero"]


@pytest.mark.parametrize("fn,choices", [("rev_v4", ""), ("rev_v4_pred", "VectorPredication")])
def test_packets_and_remainder_items_share_their_group(fn: str, choices: str) -> None:
    # Local sizes 8 and 64: packets only; 6: one packet and two scalar
    # work-items (or a predicated packet); 3: the remainder alone.
    rep = oracle.check(_packets(), kernel="rev", vectorized=fn, widths=[4], choices=[choices],
                       ndranges=PACKET_ND, layout=PACKET_LAYOUT)
    assert rep.summary == {"match": 4}, rep.results


def test_a_packet_that_skips_the_barrier_is_the_vectorizers_fault() -> None:
    rep = oracle.check(_packets(), kernel="rev", vectorized="rev_v4_nobarrier", widths=[4],
                       ndranges=PACKET_ND, layout=PACKET_LAYOUT)
    by_local = {r.local_size[0]: r for r in rep.results}
    assert by_local[8].status == "mismatch"
    assert by_local[6].status == "vector-fault"
    assert ("the packet at local id (0,0,0) returned from the kernel while work-item (4,0,0) waits at a barrier"
            in by_local[6].detail), by_local[6].detail
    assert by_local[3].status == "match"  # no packet at all


def test_packets_along_y_share_a_module_level_local_array(cl_text: str) -> None:
    # The kernel stands in for its own vectorized function (W = 1) along
    # dimension 1: every fiber is a packet, running a linked copy of the
    # kernel whose __local array must be the scalar kernel's.
    rep = oracle.check(cl_text, kernel="cube_mirror", vectorized="cube_mirror", widths=[1], dims=[1],
                       ndranges=["global=8,6,4 local=4,3,2 offset=3,1,2", "global=16,4,2 local=8,4,2"],
                       layout=["buf:i32:512", "buf:i32:512:zero"])
    assert rep.summary == {"match": 2}, rep.results


# ------------------------------------------------------------ in process


def _in_process(text: str, kernel: str, nd: str, layout: list[str], opt: int = 0):
    ex = Executor()
    status = ex.build("k", kernel, text, [], opt)
    assert status[0] == "ok", status
    res = ex.run("k", "", tuple(parse_arg(a) for a in layout), parse_ndrange(nd), SEED)
    return ex.programs["k"], res


def _epoch(prog) -> int:
    return ctypes.c_int64.from_address(prog.engine.get_global_value_address(workgroup.EPOCH)).value


def test_epoch_counts_group_starts_and_barriers(cl_text: str) -> None:
    # reduce_sum at local size 8: the first barrier and three steps' barriers.
    prog, res = _in_process(cl_text, "reduce_sum", "global=32 local=8", ["buf:i32:64", "buf:i32:8:zero"])
    assert res[0] == "ok"
    assert _epoch(prog) == 4 * (1 + 4)
    plain = ("define spir_kernel void @k(ptr addrspace(1) %p) {\n  store i32 1, ptr addrspace(1) %p\n"
             "  ret void\n}\n")
    prog, res = _in_process(plain, "k", "global=32 local=8", ["buf:i32:64"])
    assert res[0] == "ok" and _epoch(prog) == 4


def test_in_process_fault_is_kept_and_the_pool_recovers(cl_text: str) -> None:
    old = fibers.set_exit_on_fault(False)
    try:
        _, res = _in_process(cl_text, "diverge_return", "global=16 local=8", ["buf:i32:64:zero"])
        msg = fibers.take_fault()
        assert msg and msg.startswith("barrier divergence in work-group (0,0,0)"), msg
        assert fibers.take_fault() is None
        ins = initial_contents(parse_arg("buf:i32:64:mod1000"), SEED, 0)
        _, res = _in_process(cl_text, "reduce_sum", "global=16 local=8", ["buf:i32:64:mod1000", "buf:i32:8:zero"])
        assert res[0] == "ok" and fibers.take_fault() is None
        assert np.frombuffer(res[1][1], np.uint32)[0] == ins[:8].sum()
        _, res = _in_process(cl_text, "reduce_sum", "global=20000 local=20000",
                             ["buf:i32:20000:mod1000", "buf:i32:8:zero"])
        assert "more than the fiber runtime can run" in (fibers.take_fault() or "")
    finally:
        fibers.set_exit_on_fault(old)


def test_ucontext_fallback(cl_text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The mechanism of other architectures, forced on this one.
    monkeypatch.setenv("VECZ_ORACLE_FIBERS", "ucontext")
    assert fibers.mechanism() == "ucontext"
    ins = initial_contents(parse_arg("buf:i32:128:mod1000"), SEED, 0)
    _, res = _in_process(cl_text, "prefix_sum", "global=36 local=12", ["buf:i32:128:mod1000", "buf:i32:128:zero"])
    assert res[0] == "ok"
    out = np.frombuffer(res[1][1], np.uint32)
    for g in range(3):
        assert list(out[g * 12:(g + 1) * 12]) == list(np.cumsum(ins[g * 12:(g + 1) * 12]).astype(np.uint32))
    old = fibers.set_exit_on_fault(False)
    try:
        _in_process(cl_text, "diverge_sites", "global=8 local=8", ["buf:i32:64:zero", "local:i32:8"])
        assert "wait at barriers called from different places" in (fibers.take_fault() or "")
    finally:
        fibers.set_exit_on_fault(old)


# ------------------------------------------------------------ plain loops stay


def test_kernels_without_barriers_keep_the_plain_loops() -> None:
    ksig = FnSig("void", ("ptr",))
    fence = {"_Z9mem_fencej": FnSig("void", ("i32",)), "_Z14read_mem_fencej": FnSig("void", ("i32",))}
    plain, _ = runtime.runtime_module(fence, "k", ksig, [])
    assert "__oracle_fiber_switch" not in plain and "__oracle_wg_run_group" not in plain
    assert "define void @_Z9mem_fencej(i32 %a0)" in plain
    barrier = {**fence, "__mux_work_group_barrier": FnSig("void", ("i32", "i32", "i32"))}
    text, _ = runtime.runtime_module(barrier, "k", ksig, [])
    assert "@__oracle_fiber_switch" in text and "@__oracle_wg_run_group" in text
    fence_kernel = """
declare void @_Z9mem_fencej(i32)
declare i64 @_Z13get_global_idj(i32)
define spir_kernel void @k(ptr addrspace(1) %p) {
  %g = call i64 @_Z13get_global_idj(i32 0)
  call void @_Z9mem_fencej(i32 2)
  %q = getelementptr i32, ptr addrspace(1) %p, i64 %g
  store i32 7, ptr addrspace(1) %q, align 4
  ret void
}
"""
    rep = oracle.check_scalar(fence_kernel)
    assert set(rep.summary) == {"match"}, rep.results


def test_kernels_marked_readonly_in_the_old_spelling_still_run() -> None:
    # Vecz's lit kernels are marked `readonly` (LLVM's spelling before
    # memory(...)) and write: instruction selection dropped the driver's call
    # to them, so their barriers (and everything else) never ran.
    text = """
declare i64 @_Z13get_global_idj(i32)
declare void @_Z7barrierj(i32)
define spir_kernel void @k(ptr addrspace(1) %p) #0 {
  %g = call i64 @_Z13get_global_idj(i32 0)
  %q = getelementptr i32, ptr addrspace(1) %p, i64 %g
  call void @_Z7barrierj(i32 1)
  store i32 7, ptr addrspace(1) %q, align 4
  ret void
}
attributes #0 = { nounwind readonly }
"""
    (out,) = oracle.run_scalar(text, "global=8 local=4", layout=["buf:i32:8:zero"])
    assert list(out) == [7] * 8


# ------------------------------------------------------------ foreign kernels


REALWORLD = [
    ("shoc", "reduction.cl", "reduce"),
    ("shoc", "scan.cl", "bottom_scan"),
    ("shoc", "stencil2d.cl", "StencilKernel"),
    ("rodinia", "hotspot_kernel.cl", "hotspot"),
    ("parboil", "scanLargeArray.cl", "scan_L1_kernel"),
    ("pocl", "basic_barriers.cl", "test_kernel"),
]


@pytest.mark.parametrize("suite,source,kernel", REALWORLD)
def test_real_barrier_kernels_run_scalar_to_completion(suite: str, source: str, kernel: str) -> None:
    root = SHARED / "realworld-dev"
    entry = next(e for e in json.loads((root / "catalogue.json").read_text())
                 if e["suite"] == suite and e["source"].endswith("/" + source) and e["kernel"] == kernel
                 and e["barriers"] and e["compiled"] and not e["duplicate_of"])
    rep = oracle.check_scalar((root / entry["ir_O1"]).read_text(), kernel=kernel)
    assert rep.results and set(rep.summary) == {"match"}, rep.results


def test_a_real_two_dimensional_tile_transpose_gives_the_transpose() -> None:
    # PoCL's example: 8x8 tiles through a __local array, P x Q matrix.
    text = (SHARED / "realworld-dev" / "ir" / "O1" / "pocl" / "examples__matrix1__matrix1.ll").read_text()
    layout = ["scalar:i32:16", "scalar:i32:24", "buf:f32:384", "buf:f32:384:zero"]
    for nd in ("global=16,24 local=8,8", "global=16,24 local=8,8 offset=8,0"):
        ins, outs = _run(text, "transpose", nd, layout)
        assert (outs[3].reshape(16, 24) == ins[2].reshape(24, 16).T).all()


@pytest.mark.parametrize("name", ["VectorWidening/interleaved_safety.ll", "define_interleaved_load.ll"])
def test_peer_corpus_mux_barriers_run(name: str) -> None:
    text = (SHARED / "peer-corpus" / "vecz-lit" / name).read_text()
    assert "__mux_work_group_barrier" in text
    rep = oracle.check_scalar(text)
    assert rep.results and set(rep.summary) == {"match"}, rep.results
