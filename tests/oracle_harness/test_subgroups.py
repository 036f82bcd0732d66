"""Sub-groups in the oracle's reference (oracle/subgroups.py): W consecutive
work-items along the vectorized dimension, the remainder a smaller
sub-group, with collectives synchronised on the fibers; checked here against
numpy, independently of the vectorizer. Then the vectorizer's in-packet code
(vectorizer/transform/subgroup_builtins.py) against that reference."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import oracle
from oracle import worker as W
from oracle.buffers import initial_contents
from oracle.case import ELEM_DTYPES, parse_arg, parse_ndrange
from oracle.check import _Session
from oracle.subgroups import geometry_key, split_geometry

KERNELS = Path(__file__).parent / "kernels"
SEED = 3


@pytest.fixture(scope="module")
def cl_text() -> str:
    pytest.importorskip("ziglang", reason="compiling OpenCL C needs ziglang's clang (the 'opencl' or 'dev' extra)")
    from vectorizer.frontend.opencl import compile_opencl

    return compile_opencl(KERNELS / "subgroups.cl")


def _reference(text: str, kernel: str, nd: str, layout: list[str], width: int, dim: int):
    """The scalar reference with sub-groups of `width` along `dim`: (inputs, outputs)."""
    specs = tuple(parse_arg(a) for a in layout)
    pool = W.get_pool()
    wk = pool.acquire()
    try:
        sess = _Session(wk, kernel, text, 10.0, 0)
        assert sess.build("sg:" + kernel, [])[0] == "ok"
        res = sess.run("sg:" + kernel, [], geometry_key("", width, dim), specs, parse_ndrange(nd), SEED)
    finally:
        pool.release(wk)
    if isinstance(res, W.Failure) or res[0] != "ok":
        return None, res
    ins = [initial_contents(s, SEED, i) if s.kind == "buf" else None for i, s in enumerate(specs)]
    outs = [np.frombuffer(b, ELEM_DTYPES[s.base]) if b is not None else None for s, b in zip(specs, res[1], strict=True)]
    return ins, outs


def _i32(a: np.ndarray) -> np.ndarray:
    """A buffer's 32-bit integers as signed values (int64, for exact sums)."""
    return a.view(np.int32).astype(np.int64)


def _wrap(v: int) -> int:
    """`v` modulo 2^32 as a signed 32-bit value (OpenCL's wrapping int arithmetic)."""
    return (int(v) + 2**31) % 2**32 - 2**31


def _groups_1d(n: int, local: int, width: int) -> list[list[int]]:
    """Global ids of each sub-group of a 1-D range (offset 0)."""
    out = []
    for g0 in range(0, n, local):
        for b in range(0, local, width):
            out.append(list(range(g0 + b, g0 + min(b + width, local))))
    return out


def test_geometry_rides_on_the_run_key() -> None:
    assert split_geometry(geometry_key("reversed", 8, 1)) == ("reversed", 8, 1)
    assert split_geometry("") == ("", 0, 0)


def test_queries_along_each_dimension(cl_text: str) -> None:
    # 2-D, local 6x3: along dim 0 at W=4, rows of 6 split 4 + 2; along dim 1 at W=2, columns of 3 split 2 + 1.
    _, outs = _reference(cl_text, "queries", "global=12,6 local=6,3", ["buf:i32:512:zero"], 4, 0)
    q = outs[0][: 5 * 72].reshape(6, 12, 5)  # [gy][gx][field]
    for gy in range(6):
        for gx in range(12):
            lx, ly = gx % 6, gy % 3
            size = 4 if lx < 4 else 2
            assert list(q[gy, gx]) == [size, 4, 3 * 2, ly * 2 + lx // 4, lx % 4]
    _, outs = _reference(cl_text, "queries", "global=12,6 local=6,3", ["buf:i32:512:zero"], 2, 1)
    q = outs[0][: 5 * 72].reshape(6, 12, 5)
    for gy in range(6):
        for gx in range(12):
            lx, ly = gx % 6, gy % 3
            size = 2 if ly < 2 else 1
            assert list(q[gy, gx]) == [size, 2, 6 * 2, lx * 2 + ly // 2, ly % 2]


def test_reductions_and_scans_fold_in_member_order(cl_text: str) -> None:
    layout = ["buf:i32:256:zero", "buf:f32:96:zero", "buf:i32:64", "buf:f32:64"]
    ins, outs = _reference(cl_text, "reductions", "global=20 local=10", layout, 4, 0)
    x, f = _i32(ins[2]), ins[3]
    r, fr = _i32(outs[0]).reshape(-1, 8), outs[1].reshape(-1, 3)
    for members in _groups_1d(20, 10, 4):
        xs = x[members]
        incl, run, fmax = np.cumsum(xs), f[members[0]], -np.inf
        for k, g in enumerate(members):
            assert r[g, 0] == _wrap(xs.sum())
            assert r[g, 1] == xs.min()
            assert r[g, 2] == _wrap((xs % 2**32).max())
            assert r[g, 3] == _wrap(incl[k])
            assert r[g, 4] == (_wrap(incl[k - 1]) if k else 0)
            assert r[g, 5] == xs[: k + 1].min()
            assert r[g, 6] == (xs[:k].max() if k else np.iinfo(np.int32).min)
            assert r[g, 7] == int((xs > -900).all()) + 2 * int((xs > 900).any())
            if k:
                run = np.float32(run + f[g])
            assert fr[g, 1] == run  # lane order, float32 at each step
            assert fr[g, 2] == np.float32(fmax)
            fmax = max(fmax, f[g])
        assert all(fr[g, 0] == fr[members[-1], 1] for g in members)


def test_shuffles_and_ballot(cl_text: str) -> None:
    ins, outs = _reference(cl_text, "shuffles", "global=20 local=10", ["buf:i32:120:zero", "buf:i32:64"], 4, 0)
    x, r = _i32(ins[1]), _i32(outs[0]).reshape(-1, 6)
    _, bal = _reference(cl_text, "ballot", "global=20 local=10", ["buf:i32:64:zero", "buf:i32:64"], 4, 0)
    for members in _groups_1d(20, 10, 4):
        n = len(members)
        vals = [int(x[m]) for m in members]
        for k, g in enumerate(members):
            def at(j: int, vals: list[int] = vals) -> int:
                return vals[j] if 0 <= j < len(vals) else 0  # out of range: 0 (the model's choice)
            assert list(r[g, :5]) == [at((k + 1) % n), at(k ^ 1), at(k - 1), at(k + 2), at(1)]
            assert _i32(bal[0])[g] == sum(1 << j for j in range(n) if x[members[j]] & 1)


def test_sub_group_barrier_orders_local_memory(cl_text: str) -> None:
    ins, outs = _reference(cl_text, "exchange", "global=20 local=10",
                           ["buf:i32:64:zero", "buf:i32:64", "local:i32:16"], 4, 0)
    for members in _groups_1d(20, 10, 4):
        for k, g in enumerate(members):
            assert _i32(outs[0])[g] == _wrap(_i32(ins[1])[members[0]] + 1000 * k)


def test_work_group_collectives_over_the_whole_group(cl_text: str) -> None:
    ins, outs = _reference(cl_text, "group_collectives", "global=20 local=10",
                           ["buf:i32:120:zero", "buf:i32:64"], 4, 0)
    x, r = _i32(ins[1]), _i32(outs[0]).reshape(-1, 5)
    for g0 in (0, 10):
        xs = x[g0 : g0 + 10]
        for k in range(10):
            g = g0 + k
            assert r[g, 0] == _wrap(xs.sum())
            assert r[g, 1] == _wrap(xs[: k + 1].sum())
            assert r[g, 2] == (xs[:k].max() if k else np.iinfo(np.int32).min)
    _, outs = _reference(cl_text, "group_broadcast", "global=20 local=10", ["buf:i32:64:zero", "buf:i32:64"], 4, 0)
    assert list(_i32(outs[0])[:20]) == [_i32(ins[1])[3]] * 10 + [_i32(ins[1])[13]] * 10


def test_a_member_skipping_a_collective_is_the_inputs_fault(cl_text: str) -> None:
    _, res = _reference(cl_text, "skipped", "global=8 local=8", ["buf:i32:64:zero", "buf:i32:64"], 4, 0)
    assert isinstance(res, W.Failure)
    assert "collective divergence" in res.detail or "barrier divergence" in res.detail


@pytest.mark.parametrize("kernel,dims", [("queries", [0, 1]), ("reductions", [0, 1]), ("shuffles", [0, 1]),
                                         ("exchange", [0]), ("group_collectives", [0, 1]),
                                         ("ballot", [0, 1]), ("group_broadcast_2d", [0, 1]),
                                         ("group_float", [0, 1]), ("ballot_bits", [0, 1]),
                                         ("uniform_flow", [0, 1])])
def test_vectorized_collectives_match_the_reference(cl_text: str, kernel: str, dims: list[int]) -> None:
    rep = oracle.check(cl_text, kernel=kernel, widths=[2, 4, 8], dims=dims,
                       ndranges=["global=20 local=10", "global=12,6 local=6,3"])
    assert rep.summary == {"match": len(rep.results)}, [r for r in rep.results if r.status != "match"][:3]


@pytest.mark.parametrize("kernel", ["reductions", "shuffles", "group_collectives", "uniform_flow", "group_float"])
def test_partial_packets_are_smaller_sub_groups(cl_text: str, kernel: str) -> None:
    # VectorPredication: local size 10 at W = 4 and 8 ends each row with a
    # partial packet, which is the row's last (smaller) sub-group.
    rep = oracle.check(cl_text, kernel=kernel, widths=[4, 8], dims=[0], choices=["VectorPredication"],
                       ndranges=["global=20 local=10"])
    assert rep.summary == {"match": len(rep.results)}, [r for r in rep.results if r.status != "match"][:3]


def test_float_work_group_folds_go_sub_group_by_sub_group(cl_text: str) -> None:
    # W = 4 along dim 0, local size 10: sub-groups of 4, 4, 2. Each folds
    # from its first value in member order; the group folds the sub-groups'
    # totals from the identity; a work-item's scan is that base op its
    # sub-group's own scan (float32 at every step).
    ins, outs = _reference(cl_text, "group_float", "global=20 local=10", ["buf:f32:96:zero", "buf:f32:64"], 4, 0)
    x, r = ins[1], outs[0].reshape(-1, 4)
    f32 = np.float32
    for g0 in (0, 10):
        subs = [list(range(g0, g0 + 4)), list(range(g0 + 4, g0 + 8)), [g0 + 8, g0 + 9]]
        base, mn = f32(0.0), f32(np.inf)
        expect = {}
        for members in subs:
            run, lo = None, None
            for g in members:
                prev = run
                run = x[g] if run is None else f32(run + x[g])
                lo = x[g] if lo is None else min(lo, x[g])
                expect[g] = (f32(base + run), f32(base + (prev if prev is not None else f32(0.0))), min(mn, lo))
            base, mn = f32(base + run), min(mn, lo)
        for g, (incl, excl, low) in expect.items():
            assert r[g, 0] == base
            assert (r[g, 1], r[g, 2], r[g, 3]) == (incl, excl, low)


def test_ballot_bit_operations(cl_text: str) -> None:
    ins, outs = _reference(cl_text, "ballot_bits", "global=20 local=10", ["buf:i32:140:zero", "buf:i32:64"], 4, 0)
    x, r = _i32(ins[1]), _i32(outs[0]).reshape(-1, 7)
    for members in _groups_1d(20, 10, 4):
        bits = [int(x[m]) & 1 for m in members]
        set_ = [j for j, b in enumerate(bits) if b]
        for k, g in enumerate(members):
            none = -1  # 0xFFFFFFFF read as int32
            assert list(r[g]) == [sum(bits), sum(bits[: k + 1]), sum(bits[:k]),
                                  set_[0] if set_ else none, set_[-1] if set_ else none, bits[k], bits[1] if len(bits) > 1 else 0]
