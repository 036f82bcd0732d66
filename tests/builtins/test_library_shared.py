"""The builtin library shared by the oracle's runtime and the vectorizer:
calls to builtins a module only declares are inlined from the library before
packetization, and the oracle defines them with the same bodies."""

from __future__ import annotations

import re

import pytest

from oracle import runtime
from oracle.check import check
from vectorizer.api import vectorize
from vectorizer.builtins import library

HEAD = """target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spir64-unknown-unknown"
"""

KERNEL = HEAD + """
define spir_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr float, ptr addrspace(1) %in, i64 %gid
  %x = load float, ptr addrspace(1) %p, align 4
  %e = call spir_func float @_Z3expf(float %x)
  %s = call spir_func float @_Z3sinf(float %e)
  %m = call spir_func float @_Z4fminff(float %s, float -0.0)
  %r = call spir_func float @_Z5rsqrtf(float %m)
  %c = call spir_func zeroext i8 @_Z17convert_uchar_satf(float %r)
  %cf = uitofp i8 %c to float
  %y = fadd float %cf, %m
  %q = getelementptr float, ptr addrspace(1) %out, i64 %gid
  store float %y, ptr addrspace(1) %q, align 4
  ret void
}
declare spir_func i64 @_Z13get_global_idj(i32)
declare spir_func float @_Z3expf(float noundef)
declare spir_func float @_Z3sinf(float noundef)
declare spir_func float @_Z4fminff(float noundef, float noundef)
declare spir_func float @_Z5rsqrtf(float noundef)
declare spir_func zeroext i8 @_Z17convert_uchar_satf(float noundef)
"""

BUILTINS = ("_Z3expf", "_Z3sinf", "_Z4fminff", "_Z5rsqrtf", "_Z17convert_uchar_satf")


def _vector_body(text: str, width: int) -> str:
    m = re.search(rf"define [^\n]*@__vecz_v{width}_k\(.*?\n}}", text, re.S)
    assert m, text[:2000]
    return m.group(0)


def test_declared_builtins_are_inlined_and_packetized() -> None:
    res = vectorize(KERNEL, kernel="k", width=8)
    body = _vector_body(res.ir, 8)
    for name in BUILTINS:
        assert f"@{name}(" not in body
    assert "<8 x float>" in body
    assert not re.search(r"%\S+\.l1 = ", body), "a builtin body was instantiated per lane"


def test_noinline_builtin_stays_a_call_per_lane() -> None:
    text = KERNEL.replace("call spir_func float @_Z3sinf(float %e)", "call spir_func float @_Z3sinf(float %e) noinline")
    body = _vector_body(vectorize(text, kernel="k", width=4).ir, 4)
    assert body.count("@_Z3sinf(") == 4
    assert "@_Z3expf(" not in body


def test_runtime_defines_builtins_with_the_library_bodies() -> None:
    em = runtime._Emitter()
    sig = runtime.FnSig("float", ("float noundef",))
    got = runtime.builtin_definition("_Z3expf", sig, em)
    fn = library.function("_Z3expf", "float", ["float"])
    assert fn is not None and got == fn.text
    for name in fn.decls:
        assert name in em.decls


@pytest.mark.parametrize("noinline", [False, True])
def test_scalar_and_vector_runs_agree_bit_for_bit(noinline: bool) -> None:
    text = KERNEL
    if noinline:
        text = text.replace("call spir_func float @_Z3sinf(float %e)", "call spir_func float @_Z3sinf(float %e) noinline")
    rep = check(text, kernel="k", widths=[4, 8, 16])
    assert rep.results and all(r.status == "match" for r in rep.results), [
        (r.width, r.status, r.detail) for r in rep.results if r.status != "match"]


def test_vector_forms_of_elementwise_intrinsics_are_pure() -> None:
    from vectorizer.builtins.info import is_pure_callee

    assert is_pure_callee("llvm.fabs.v4f32")
    assert is_pure_callee("llvm.fma.v3f64")
    assert not is_pure_callee("llvm.masked.store.v4f32.p1")


def test_vector_typed_builtins_in_a_divergent_branch_are_packetized() -> None:
    # float4 builtins (normalize, dot) under a varying branch: their bodies
    # call vector intrinsics, which must not become masked per-lane calls.
    from bench.suite import KERNELS

    res = vectorize(KERNELS["phong"].ir(), kernel="phong", width=8)
    assert res.vectorized_name == "__vecz_v8_phong"
    assert "__vecz_b_masked_llvm." not in res.ir
    body = res.ir.split("@__vecz_v8_phong(")[1]
    assert "<8 x double>" in body and "@_Z9normalizeDv4_f(" not in body


def test_prefetch_is_a_no_op_for_global_pointers_only() -> None:
    text = library.definition("_Z8prefetchPU3AS1KDv4_im", "void", ["ptr addrspace(1)", "i64"])
    assert text is not None and "entry:\n  ret void" in text
    assert library.definition("_Z8prefetchPU3AS3Kfm") is None  # local memory: no such overload


def test_kernel_clock_counts_calls() -> None:
    em = runtime._Emitter()
    text = runtime.builtin_definition("_Z22clock_read_hilo_devicev", runtime.FnSig("<2 x i32>", ()), em)
    assert text is not None and "atomicrmw add ptr @__oracle_clock" in text
    assert "__oracle_clock" in em.decls
    with pytest.raises(runtime.Unsupported):
        runtime.builtin_definition("_Z17clock_read_devicev", runtime.FnSig("i32", ()), em)


def test_a_call_with_uniform_arguments_stays_one_call() -> None:
    text = KERNEL.replace("%e = call spir_func float @_Z3expf(float %x)", "%e0 = call spir_func float @_Z3expf(float 2.0)\n"
                          "  %e = fadd float %e0, %x")
    body = _vector_body(vectorize(text, kernel="k", width=8).ir, 8)
    assert body.count("@_Z3expf(") == 1
    assert "@_Z3sinf(" not in body  # varying: inlined
    rep = check(text, kernel="k", widths=[8])
    assert rep.results and all(r.status == "match" for r in rep.results)
