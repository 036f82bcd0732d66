"""BuiltinInfo: recognising work-item queries, math builtins and their vector forms."""

import pytest

from vectorizer.builtins import BuiltinKind, classify, demangle
from vectorizer.builtins.math import widen_intrinsic_name


@pytest.mark.parametrize(
    "name,kind",
    [
        ("_Z13get_global_idj", "global_id"),
        ("_Z12get_local_idj", "local_id"),
        ("_Z14get_local_sizej", "local_size"),
        ("_Z12get_work_dimv", "work_dim"),
        ("__mux_get_global_id", "global_id"),
        ("__mux_get_group_id", "group_id"),
    ],
)
def test_work_item_queries(name: str, kind: str) -> None:
    s = classify(name)
    assert s.kind is BuiltinKind.WORK_ITEM and s.query is not None and s.query.kind == kind


def test_demangle_vectors_pointers_and_substitutions() -> None:
    d = demangle("_Z3maxDv4_iS_")
    assert d is not None and d.name == "max" and [str(p) for p in d.params] == ["int4", "int4"]
    d = demangle("_Z6vload4mPKU3AS1i")
    assert d is not None and d.name == "vload4"
    assert d.params[1].pointee is not None and d.params[1].addrspace == 1 and d.params[1].const
    assert demangle("not_mangled") is None


@pytest.mark.parametrize(
    "name,intrinsic",
    [
        ("_Z4fabsf", "llvm.fabs.f32"),
        ("_Z4sqrtd", "llvm.sqrt.f64"),
        ("_Z4fminff", "llvm.minimumnum.f32"),
        ("_Z3maxii", "llvm.smax.i32"),
        ("_Z3minjj", "llvm.umin.i32"),
    ],
)
def test_exact_opencl_builtins_map_to_intrinsics(name: str, intrinsic: str) -> None:
    s = classify(name)
    assert s.kind is BuiltinKind.OPENCL_EXACT and s.intrinsic == intrinsic


def test_transcendentals_are_not_mapped() -> None:
    # Their value depends on the runtime's implementation: instantiate instead.
    assert classify("_Z3sinf").kind is BuiltinKind.USER


def test_widen_intrinsic_name() -> None:
    assert widen_intrinsic_name("llvm.sqrt.f32", 8) == "llvm.sqrt.v8f32"
    assert widen_intrinsic_name("llvm.fptosi.sat.i32.f64", 4) == "llvm.fptosi.sat.v4i32.v4f64"


def test_barriers_and_sub_groups_are_recognised() -> None:
    assert classify("__mux_work_group_barrier").kind is BuiltinKind.BARRIER
    assert classify("__mux_sub_group_reduce_add_i32").kind is BuiltinKind.SUB_GROUP
