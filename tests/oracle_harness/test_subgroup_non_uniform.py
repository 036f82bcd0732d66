"""The non-uniform and clustered sub-group forms (sub_group_non_uniform_*,
sub_group_clustered_reduce_*, sub_group_elect, sub_group_broadcast_first)
in sub-group-uniform control flow, where every member is active: the
reference against Python, the vectorizer against the reference, also in
divergent code (docs/subgroups.md)."""

from __future__ import annotations

import numpy as np
import pytest

import oracle
from oracle import worker as W
from oracle.buffers import initial_contents
from oracle.case import parse_arg, parse_ndrange
from oracle.check import _Session
from oracle.subgroups import geometry_key
from vectorizer.analysis.subgroups import CLUSTERED_REDUCE, ELECT, parse_collective

SEED = 5
K = 9  # values written per work-item


def _m(base: str, codes: str) -> str:
    return f"_Z{len(base)}{base}{codes}"


NAMES = {
    "elect": _m("sub_group_elect", "v"),
    "nu_add": _m("sub_group_non_uniform_reduce_add", "i"),
    "nu_umax": _m("sub_group_non_uniform_reduce_max", "j"),
    "nu_scan_mul": _m("sub_group_non_uniform_scan_inclusive_mul", "i"),
    "nu_xscan_xor": _m("sub_group_non_uniform_scan_exclusive_xor", "i"),
    "cl_add": _m("sub_group_clustered_reduce_add", "ij"),
    "cl_fadd": _m("sub_group_clustered_reduce_add", "fj"),
    "nu_all": _m("sub_group_non_uniform_all", "i"),
    "all_eq": _m("sub_group_non_uniform_all_equal", "i"),
    "nu_bcast": _m("sub_group_non_uniform_broadcast", "ij"),
    "first": _m("sub_group_broadcast_first", "i"),
}


def _kernel(divergent: bool = False) -> str:
    n = NAMES
    body = f"""
  %gid = call i64 @__mux_get_global_id(i32 0)
  %pin = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %pin, align 4
  %fx = sitofp i32 %x to float
  %small = and i32 %x, 3
  %e = call i32 @{n['elect']}()
  %a = call i32 @{n['nu_add']}(i32 %x)
  %b = call i32 @{n['nu_umax']}(i32 %x)
  %c = call i32 @{n['nu_scan_mul']}(i32 %x)
  %d = call i32 @{n['nu_xscan_xor']}(i32 %x)
  %f = call i32 @{n['cl_add']}(i32 %x, i32 2)
  %g0 = call float @{n['cl_fadd']}(float %fx, i32 4)
  %g = bitcast float %g0 to i32
  %h = call i32 @{n['all_eq']}(i32 %small)
  %i = call i32 @{n['nu_bcast']}(i32 %x, i32 1)
  %j = call i32 @{n['first']}(i32 %x)
  %k = call i32 @{n['nu_all']}(i32 %small)
  %hk = shl i32 %h, 1
  %hk2 = or i32 %hk, %k
"""
    vals = ["%e", "%a", "%b", "%c", "%d", "%f", "%g", "%hk2", "%i", "%j"]
    stores = ""
    for idx, v in enumerate(vals):
        stores += (f"  %o{idx}.i = mul i64 %gid, {len(vals)}\n  %o{idx}.j = add i64 %o{idx}.i, {idx}\n"
                   f"  %o{idx}.p = getelementptr i32, ptr addrspace(1) %out, i64 %o{idx}.j\n"
                   f"  store i32 {v}, ptr addrspace(1) %o{idx}.p, align 4\n")
    decls = "\n".join(sorted({
        f"declare i32 @{n['elect']}()",
        *(f"declare i32 @{n[k]}(i32)" for k in ("nu_add", "nu_umax", "nu_scan_mul", "nu_xscan_xor",
                                                 "all_eq", "first", "nu_all")),
        f"declare i32 @{n['cl_add']}(i32, i32)", f"declare float @{n['cl_fadd']}(float, i32)",
        f"declare i32 @{n['nu_bcast']}(i32, i32)",
    }))
    if divergent:
        # The collectives only in work-items with an odd id: a divergent branch.
        head = ("entry:\n  %gid0 = call i64 @__mux_get_global_id(i32 0)\n  %odd = trunc i64 %gid0 to i1\n"
                "  br i1 %odd, label %then, label %done\nthen:")
        tail = "  br label %done\ndone:\n  ret void"
    else:
        head, tail = "entry:", "  ret void"
    return (f"declare i64 @__mux_get_global_id(i32)\n{decls}\n\n"
            "define spir_kernel void @nu(ptr addrspace(1) %out, ptr addrspace(1) %in) {\n"
            f"{head}{body}{stores}{tail}\n}}\n")


LAYOUT = ["buf:i32:400:zero", "buf:i32:40:random"]


def _reference(text: str, nd: str, width: int) -> tuple[np.ndarray, np.ndarray]:
    specs = tuple(parse_arg(a) for a in LAYOUT)
    pool = W.get_pool()
    wk = pool.acquire()
    try:
        sess = _Session(wk, "nu", text, 10.0, 0)
        assert sess.build("nu:nu", [])[0] == "ok"
        res = sess.run("nu:nu", [], geometry_key("", width, 0), specs, parse_ndrange(nd), SEED)
    finally:
        pool.release(wk)
    assert not isinstance(res, W.Failure) and res[0] == "ok", res
    ins = initial_contents(specs[1], SEED, 1)
    return np.frombuffer(ins, np.int32), np.frombuffer(res[1][0], np.int32)


def _wrap(v: int) -> int:
    return (int(v) + 2**31) % 2**32 - 2**31


def test_names_parse_as_non_uniform_forms() -> None:
    assert parse_collective(NAMES["elect"]).kind == ELECT  # type: ignore[union-attr]
    c = parse_collective(NAMES["cl_fadd"])
    assert c is not None and (c.kind, c.op, c.extra, c.non_uniform) == (CLUSTERED_REDUCE, "fadd", (1,), True)
    assert parse_collective(NAMES["nu_umax"]).op == "umax"  # type: ignore[union-attr]
    assert parse_collective(_m("sub_group_non_uniform_reduce_logical_and", "i")) is None


def test_reference_meaning_in_uniform_control_flow() -> None:
    # 1-D, 20 work-items in groups of 10, W = 4: sub-groups of 4, 4, 2 per group.
    ins, out = _reference(_kernel(), "global=20 local=10", 4)
    x = ins[:20].astype(np.int64)
    o = out[: 20 * 10].reshape(20, 10)
    for g0 in (0, 10):
        for b in range(0, 10, 4):
            mem = list(range(g0 + b, g0 + min(b + 4, 10)))
            xs = [int(x[i]) for i in mem]
            for k, i in enumerate(mem):
                assert o[i, 0] == (1 if k == 0 else 0)
                assert o[i, 1] == _wrap(sum(xs))
                assert o[i, 2] == _wrap(max(v % 2**32 for v in xs))
                assert o[i, 3] == _wrap(int(np.prod([np.int64(v) for v in xs[: k + 1]], dtype=object)))
                acc = 0
                for v in xs[:k]:
                    acc ^= v
                assert o[i, 4] == _wrap(acc)
                c0 = (k // 2) * 2
                assert o[i, 5] == _wrap(sum(xs[c0:c0 + 2]))
                fs = np.float32(xs[0])
                for v in xs[1:]:
                    fs = np.float32(fs + np.float32(v))
                assert o[i, 6] == np.array([fs], np.float32).view(np.int32)[0]
                small = [v & 3 for v in xs]
                assert o[i, 7] == (int(len(set(small)) == 1) << 1) | int(all(small))
                assert o[i, 8] == (xs[1] if len(xs) > 1 else 0)
                assert o[i, 9] == xs[0]


def test_vectorized_forms_match_the_reference() -> None:
    rep = oracle.check(_kernel(), kernel="nu", widths=[2, 4, 8], dims=[0], choices=["", "VectorPredication"],
                       ndranges=["global=20 local=10", "global=16 local=16"], layout=LAYOUT)
    assert rep.results
    bad = [r for r in rep.results if r.status != "match"]
    assert not bad, [(r.width, r.choices, r.status, r.detail) for r in bad[:3]]


def test_divergent_forms_match_the_reference() -> None:
    # Every form under a divergent branch (odd ids): the members are the
    # active work-items (docs/subgroups.md; test_subgroup_divergent.py has
    # more), the clustered reductions' clusters folded over their members.
    rep = oracle.check(_kernel(divergent=True), kernel="nu", widths=[2, 4, 8], dims=[0],
                       choices=["", "VectorPredication"], ndranges=["global=20 local=10", "global=16 local=16"],
                       layout=LAYOUT)
    assert rep.results
    bad = [r for r in rep.results if r.status != "match"]
    assert not bad, [(r.width, r.choices, r.status, r.detail) for r in bad[:3]]


@pytest.mark.parametrize("width", [3])
def test_clustered_reduction_with_a_cluster_across_packets_is_whole(width: int) -> None:
    # Cluster size 4 > W = 3: each cluster is the whole sub-group, on both sides.
    rep = oracle.check(_kernel(), kernel="nu", widths=[width], dims=[0], choices=[""],
                       ndranges=["global=12 local=6"], layout=LAYOUT)
    assert all(r.status == "match" for r in rep.results), rep.summary
