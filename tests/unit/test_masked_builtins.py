"""Internal masked builtins: names, bodies (verified and run at W=1) and recognition."""

from __future__ import annotations

import ctypes

import llvmlite.binding as llvm
import pytest

from vectorizer import llvm_bridge
from vectorizer.builtins.masked import (
    MaskedBuiltinError,
    classify_masked_call,
    divergence_all_fn,
    divergence_any_fn,
    masked_load_fn,
    masked_store_fn,
    masked_wrapper_fn,
    wrapped_operands,
)
from vectorizer.ir import Builder, parse_module, print_module
from vectorizer.ir import instructions as I
from vectorizer.ir import types as T
from vectorizer.ir import values as V

SRC = """
declare i32 @printf(ptr addrspace(2), ...)

define void @k(ptr addrspace(1) %p, ptr %q, i32 %x) {
entry:
  %a = atomicrmw add ptr addrspace(1) %p, i32 %x seq_cst, align 4
  %c = cmpxchg ptr %q, i32 1, i32 %x seq_cst seq_cst, align 4
  %r = call i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) null, i32 %x, double 1.0)
  ret void
}
"""


def _jit(text: str):
    llvm_bridge.initialize()
    mod = llvm.parse_assembly(text)
    mod.verify()
    target = llvm.Target.from_default_triple().create_target_machine()
    engine = llvm.create_mcjit_compiler(mod, target)
    engine.finalize_object()
    return engine


def test_names_and_recognition() -> None:
    m = parse_module(SRC)
    ld = masked_load_fn(m, T.FloatType("float"), 4, 1)
    st = masked_store_fn(m, T.VectorType(T.i32, 4), 16, 0)
    assert ld.name == "__vecz_b_masked_load4_f32_p1"
    assert st.name == "__vecz_b_masked_store16_v4i32_p0"
    assert masked_load_fn(m, T.FloatType("float"), 4, 1) is ld  # created once
    anyf, allf = divergence_any_fn(m), divergence_all_fn(m)
    k = m.get_function("k")
    b = Builder()
    b.position_before(k.entry.instructions[0])
    p, q, x = k.args
    mask = b.icmp("eq", x, V.ConstantInt(T.i32, 3))
    b.position_before(k.entry.terminator)
    c1 = b.call(ld, [p, mask])
    c2 = b.call(st, [V.ConstantAggregateZero(T.VectorType(T.i32, 4)), q, mask])
    c3 = b.call(anyf, [mask])
    c4 = b.call(allf, [mask])
    mc = classify_masked_call(c1)
    assert mc and mc.kind == "load" and mc.align == 4 and mc.pointer is p and mc.mask is mask
    assert mc.elem_type == T.FloatType("float")
    assert classify_masked_call(c3).kind == "any" and classify_masked_call(c4).kind == "all"
    mc = classify_masked_call(c2)
    assert mc and mc.kind == "store" and mc.align == 16 and mc.pointer is q and mc.elem_type == T.VectorType(T.i32, 4)
    for inst in list(k.entry.instructions):
        if isinstance(inst, (I.AtomicRMWInst, I.AtomicCmpXchgInst)) or (
            isinstance(inst, I.CallInst) and inst.called_function.name == "printf"
        ):
            w = masked_wrapper_fn(m, inst)
            b.position_before(inst)
            call = b.call(w, [*wrapped_operands(inst), mask])
            inst.replace_all_uses_with(call)
            inst.erase_from_parent()
            mc = classify_masked_call(call)
            assert mc and mc.kind == "wrapper" and mc.mask is mask and len(mc.args) == len(call.args) - 1
    assert classify_masked_call(mask) is None
    llvm_bridge.canonicalize(print_module(m))  # verifies


def test_indirect_call_is_refused() -> None:
    m = parse_module("define void @k(ptr %f) {\n  call void %f()\n  ret void\n}\n")
    call = m.get_function("k").entry.instructions[0]
    with pytest.raises(MaskedBuiltinError):
        masked_wrapper_fn(m, call)


def test_bodies_run_at_one_lane() -> None:
    m = parse_module("define void @dummy() {\n  ret void\n}\n")
    ld = masked_load_fn(m, T.i32, 4, 0)
    st = masked_store_fn(m, T.i32, 4, 0)
    divergence_any_fn(m)
    # Drivers calling them, since internal functions may not be exported.
    fn = m.add_function("drive", T.FunctionType(T.i32, (T.PointerType(0), T.i1)))
    b = Builder(fn.add_block("entry"))
    v = b.call(ld, [fn.args[0], fn.args[1]])
    w = b.add(v, V.ConstantInt(T.i32, 1))
    b.call(st, [w, fn.args[0], fn.args[1]])
    b.ret(w)
    engine = _jit(print_module(m))
    f = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_bool)(engine.get_function_address("drive"))
    buf = (ctypes.c_int32 * 1)(41)
    assert f(ctypes.addressof(buf), True) == 42 and buf[0] == 42
    f(ctypes.addressof(buf), False)
    assert buf[0] == 42  # no store under a false mask
    f(None, False)  # no access under a false mask
