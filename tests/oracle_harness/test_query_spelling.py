"""The oracle's check that a vectorized kernel keeps its input's spelling of
work-item queries (oracle/spelling.py)."""

from __future__ import annotations

from oracle.spelling import foreign_query_spelling

MUX_INPUT = """
declare i64 @__mux_get_global_id(i32)
define spir_kernel void @k(ptr addrspace(1) %out) {
  ret void
}
"""

OPENCL_INPUT = """
declare i64 @_Z13get_global_idj(i32)
define spir_kernel void @k(ptr addrspace(1) %out) {
  ret void
}
"""


def test_a_mux_kernel_given_an_opencl_query_is_flagged() -> None:
    out = MUX_INPUT + "declare i64 @_Z12get_local_idj(i32)\n"
    why = foreign_query_spelling(MUX_INPUT, out)
    assert why is not None and "_Z12get_local_idj" in why and "__mux_get_*" in why


def test_an_opencl_kernel_given_a_mux_query_is_flagged() -> None:
    out = OPENCL_INPUT + "declare i64 @__mux_get_local_size(i32)\n"
    why = foreign_query_spelling(OPENCL_INPUT, out)
    assert why is not None and "__mux_get_local_size" in why


def test_the_same_family_and_mixed_or_empty_inputs_pass() -> None:
    assert foreign_query_spelling(MUX_INPUT, MUX_INPUT + "declare i64 @__mux_get_local_id(i32)\n") is None
    assert foreign_query_spelling(OPENCL_INPUT, OPENCL_INPUT + "declare i64 @_Z12get_local_idj(i32)\n") is None
    mixed = MUX_INPUT + OPENCL_INPUT.split("define")[0]
    assert foreign_query_spelling(mixed, mixed + "declare i64 @_Z12get_local_idj(i32)\n") is None
    none = "define spir_kernel void @k() {\n  ret void\n}\n"
    assert foreign_query_spelling(none, none + "declare i64 @__mux_get_local_id(i32)\n") is None


def test_other_builtins_are_not_queries() -> None:
    out = MUX_INPUT + "declare float @_Z3sinf(float)\ndeclare i32 @_Z16get_image_width14ocl_image2d_ro(ptr)\n"
    assert foreign_query_spelling(MUX_INPUT, out) is None


def test_the_oracle_passes_a_mux_kernel_under_vector_predication() -> None:
    """End to end: the vectorizer keeps `__mux_` spelling, so the check does not fire."""
    from oracle.check import check

    text = MUX_INPUT.replace("  ret void", """  %gid = call i64 @__mux_get_global_id(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  %v = trunc i64 %gid to i32
  store i32 %v, ptr addrspace(1) %p, align 4
  ret void""")
    rep = check(text, "k", widths=[4], choices=["VectorPredication"], ndranges=["global=16 local=8"])
    assert [r.status for r in rep.results] == ["match"]


WORK_GROUP_BROADCAST = """
declare i64 @_Z13get_global_idj(i32)
declare i32 @_Z20work_group_broadcastim(i32, i64)
define spir_kernel void @k(ptr addrspace(1) %out) {
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %v = trunc i64 %gid to i32
  %b = call i32 @_Z20work_group_broadcastim(i32 %v, i64 3)
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %b, ptr addrspace(1) %p, align 4
  ret void
}
"""


def test_a_work_group_broadcast_takes_the_local_id_in_the_inputs_spelling() -> None:
    """The broadcast's packet finds its member through the local id: in an
    OpenCL module that is `get_local_id`, not the `__mux_` query (found by
    this check on generated sub-group kernels)."""
    from vectorizer import vectorize

    r = vectorize(WORK_GROUP_BROADCAST, "k", width=4)
    assert r.vectorized_name
    assert "@_Z12get_local_idj(" in r.ir and "__mux_get_local_id" not in r.ir
    assert foreign_query_spelling(WORK_GROUP_BROADCAST, r.ir) is None
    mux = (WORK_GROUP_BROADCAST.replace("_Z13get_global_idj", "__mux_get_global_id")
           .replace("declare i32 @_Z20work_group_broadcastim(i32, i64)",
                    "declare i32 @__mux_work_group_broadcast_i32(i32, i32, i64, i64, i64)")
           .replace("@_Z20work_group_broadcastim(i32 %v, i64 3)",
                    "@__mux_work_group_broadcast_i32(i32 0, i32 %v, i64 3, i64 0, i64 0)"))
    r = vectorize(mux, "k", width=4)
    assert "@__mux_get_local_id(" in r.ir and "_Z12get_local_idj" not in r.ir
