"""Work-item loops (oracle/work_item_loops.py): barrier kernels cut into
regions and run as loops over work-items, checked against numpy."""

from __future__ import annotations

import ctypes
import re

import llvmlite.binding as llvm
import numpy as np
import pytest

from bench import KERNEL_DIR
from oracle import runtime as rt
from oracle.jit import target_machine
from oracle.work_item_loops import (
    DIVERGENCE_FLAG,
    WorkItemLoopsError,
    driver_declarations,
    driver_text,
    split_at_barriers,
)
from vectorizer import llvm_bridge, vectorize
from vectorizer.ir import parse_module, print_module
from vectorizer.llvm_context import adopt_engine, new_context, parse_in

WG = KERNEL_DIR / "workgroup"


def _program(text: str, kernel: str, width: int = 1, dim: int = 0):
    """JIT `kernel` (vectorized by us at `width` > 1) with its work-item loops
    driver; returns (run, engine, split result)."""
    llvm_bridge.initialize()
    scalar = kernel
    if width > 1:
        r = vectorize(text, kernel=kernel, width=width, dim=dim)
        assert r.vectorized_name, r.remarks
        text, kernel = r.ir, r.vectorized_name
    mod = parse_module(llvm_bridge.canonicalize(text))
    fn = mod.get_function(kernel)
    wil = split_at_barriers(mod, fn)
    params = [str(a.type) for a in fn.args]
    # The kernels that still call barriers are not run here.
    for name in dict.fromkeys([kernel, scalar]):
        f = mod.get_function(name)
        f.delete_body()
        f.metadata = []
    body = print_module(mod)
    body = re.sub(r"\b(spir_kernel|spir_func)\s+", "", body)
    em = rt._Emitter()
    defs = []
    for m in re.finditer(r"^declare [^@\n]*@([\w.$]+)\(", body, re.M):
        name = m.group(1)
        if name.startswith("llvm.") or rt.base_name(name) is None or "barrier" in name:
            continue
        sig_m = re.search(r"^declare (?:\w+ )*?(\S+) @" + re.escape(name) + r"\(([^)]*)\)", body, re.M)
        ps = tuple(p.split()[0] for p in rt.split_top(sig_m.group(2)))
        d = rt.builtin_definition(name, rt.FnSig(sig_m.group(1), ps), em)
        if d:
            defs.append(d)
            body = re.sub(r"^declare [^\n]*@" + re.escape(name) + r"\([^\n]*\n", "", body, flags=re.M)
    drv = driver_text("drv", wil.function.name, params, wil.barriers, wil.frame_bytes_per_item, width, dim)
    full = "\n".join([body, "@__oracle_st = internal global [24 x i64] zeroinitializer, align 8",
                      *em.decls.values(), *defs, driver_declarations().replace(
                          "declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)\n", ""), drv])
    ctx = new_context()
    m = parse_in(ctx, full)
    m.verify()
    tm = target_machine(2)
    m.triple = llvm.get_process_triple()
    m.data_layout = str(tm.target_data)
    pb = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=2))
    pb.getModulePassManager().run(m, pb)
    engine = adopt_engine(ctx, llvm.create_mcjit_compiler(m, tm))
    engine.finalize_object()
    addr = engine.get_function_address("drv")
    proto = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
    return proto(addr), engine, wil


def _launch(run, args: list, local: tuple[int, int, int], groups: tuple[int, int, int], locals_: list = ()):
    blob = (ctypes.c_char * (64 * max(1, len(args))))()
    keep = []
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray):
            ctypes.memmove(ctypes.addressof(blob) + 64 * i, ctypes.byref(ctypes.c_void_p(a.ctypes.data)), 8)
        else:
            raw = np.array([a]).tobytes()
            ctypes.memmove(ctypes.addressof(blob) + 64 * i, raw, len(raw))
        keep.append(a)
    cfg = np.zeros(16 + 2 * len(locals_), dtype=np.int64)
    cfg[0:3], cfg[3:6], cfg[9], cfg[10] = local, groups, 3, len(locals_)
    for k, buf in enumerate(locals_):
        cfg[16 + 2 * k], cfg[17 + 2 * k] = buf.ctypes.data, buf.nbytes
    run(ctypes.addressof(blob), cfg.ctypes.data)


WIDTHS = pytest.mark.parametrize("width", [1, 4, 8, 16], ids=lambda w: f"w{w}")


@WIDTHS
def test_reduce_matches_numpy_per_group(width: int) -> None:
    run, engine, wil = _program((WG / "reduce.ll").read_text(), "reduce", width)
    assert wil.barriers == 2
    rng = np.random.default_rng(1)
    n, local, groups = 5000, 64, 8
    data = rng.integers(-8, 8, n).astype(np.float32)  # small integers: exact in any order
    partial = np.zeros(groups, np.float32)
    scratch = np.zeros(local, np.float32)
    _launch(run, [partial, data, np.int32(n), scratch], (local, 1, 1), (groups, 1, 1), [scratch])
    stride = local * groups
    per_item = np.array([data[g::stride].sum() for g in range(stride)], np.float32)
    expect = per_item.reshape(groups, local).sum(axis=1)
    np.testing.assert_array_equal(partial, expect)


@WIDTHS
def test_matmul_tiled_barriers_in_a_loop_and_module_level_locals(width: int) -> None:
    run, engine, wil = _program((WG / "matmul_tiled.ll").read_text(), "matmul_tiled", width)
    n = 48
    rng = np.random.default_rng(2)
    a = rng.integers(-4, 4, (n, n)).astype(np.float32)
    b = rng.integers(-4, 4, (n, n)).astype(np.float32)
    c = np.zeros((n, n), np.float32)
    _launch(run, [c, a, b, np.int32(n)], (16, 16, 1), (n // 16, n // 16, 1))
    np.testing.assert_array_equal(c, a @ b)


@WIDTHS
def test_prefix_sum_keeps_private_arrays_across_barriers(width: int) -> None:
    run, engine, wil = _program((WG / "prefix_sum.ll").read_text(), "prefix_sum", width)
    local, groups, per = 256, 3, 8
    rng = np.random.default_rng(3)
    data = rng.integers(-100, 100, local * groups * per).astype(np.int32)
    out = np.zeros_like(data)
    _launch(run, [out, data], (local, 1, 1), (groups, 1, 1))
    expect = np.concatenate([np.cumsum(g) for g in data.reshape(groups, -1)]).astype(np.int32)
    np.testing.assert_array_equal(out, expect)


@WIDTHS
def test_stencil_halo_in_two_dimensions(width: int) -> None:
    run, engine, wil = _program((WG / "stencil_halo.ll").read_text(), "stencil_halo", width)
    w, h = 64, 16
    rng = np.random.default_rng(4)
    grid = rng.integers(0, 16, (h, w)).astype(np.float32)
    out = np.zeros_like(grid)
    _launch(run, [out, grid, np.int32(w), np.int32(h)], (32, 8, 1), (w // 32, h // 8, 1))
    p = np.pad(grid, 1, mode="edge")
    lap = p[1:-1, :-2] + p[1:-1, 2:] + p[:-2, 1:-1] + p[2:, 1:-1] - np.float32(4) * grid
    np.testing.assert_array_equal(out, grid + np.float32(0.125) * lap)


DIVERGENT = """
define spir_kernel void @k(ptr addrspace(1) %out) {
entry:
  %id = call i64 @_Z12get_local_idj(i32 0)
  %c = icmp ult i64 %id, 3
  br i1 %c, label %b, label %e
b:
  call void @_Z7barrierj(i32 1)
  br label %e
e:
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %id
  store i32 1, ptr addrspace(1) %p
  ret void
}
declare i64 @_Z12get_local_idj(i32)
declare void @_Z7barrierj(i32)
"""


def test_barrier_divergence_is_reported() -> None:
    run, engine, _ = _program(DIVERGENT, "k")
    out = np.zeros(8, np.int32)
    _launch(run, [out], (8, 1, 1), (1, 1, 1))
    flag = ctypes.c_int32.from_address(engine.get_global_value_address(DIVERGENCE_FLAG))
    assert flag.value == 1


def test_a_callee_with_a_barrier_must_be_inlined_first() -> None:
    text = """
define void @helper() {
  call void @_Z7barrierj(i32 1)
  ret void
}
define spir_kernel void @k() {
  call void @helper()
  ret void
}
declare void @_Z7barrierj(i32)
"""
    mod = parse_module(llvm_bridge.canonicalize(text))
    with pytest.raises(WorkItemLoopsError, match="inline"):
        split_at_barriers(mod, mod.get_function("k"))
