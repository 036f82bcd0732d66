"""Native execution for the benchmark, on the oracle's runtime.

The work-item builtins and the NDRange drivers (groups and work-items for the
scalar kernel; groups, W-chunks and a scalar remainder for a vectorized one)
are the oracle's (`oracle.runtime`). What differs from `oracle.jit.build` is
only how the program is optimised, which is what the benchmark compares:

- the kernel is made `internal` and `alwaysinline`, so it is inlined into the
  driver's work-item loop (PoCL's approach) in every configuration;
- the whole module then runs LLVM's -O3 pipeline for the host CPU, with
  LoopVectorize and SLP on or off as asked.

One `Program` holds one configuration. Buffers are numpy arrays passed by
pointer; scalars are packed into the oracle's argument blob.
"""

from __future__ import annotations

import ctypes
import re
import time
from dataclasses import dataclass, field

import llvmlite.binding as llvm
import numpy as np

from oracle import jit as ojit
from oracle import runtime as ort
from oracle.work_item_loops import (
    WorkItemLoopsError,
    driver_declarations,
    driver_text,
    is_barrier,
    split_at_barriers,
)
from vectorizer.llvm_context import adopt_engine, new_context, parse_in

SCALAR_DRIVER = "__oracle_run_scalar"
VECTOR_DRIVER = "__oracle_run_v0"
WIL_DRIVER = "__bench_run_work_item_loops"


class BuildFailure(Exception):
    """A configuration could not be compiled (its IR or a builtin it needs)."""


@dataclass
class Buffer:
    """A global buffer argument: the pristine contents every run starts from."""

    data: np.ndarray


@dataclass
class Scalar:
    """A by-value argument with its numpy dtype (`int32`, `uint32`, `float32`...)."""

    value: float | int
    dtype: str


@dataclass
class Local:
    """A `__local` pointer argument: `nbytes` of work-group memory, zeroed at
    every group's start (as the oracle's drivers do)."""

    nbytes: int


Arg = Buffer | Scalar | Local


@dataclass
class NDRange:
    """Global and local sizes (three dimensions, unused ones 1)."""

    global_size: tuple[int, int, int]
    local_size: tuple[int, int, int]

    @property
    def items(self) -> int:
        g = self.global_size
        return g[0] * g[1] * g[2]

    @property
    def work_dim(self) -> int:
        return 3 if self.global_size[2] > 1 else 2 if self.global_size[1] > 1 else 1


@dataclass
class _Split:
    text: str
    function: str
    barriers: int
    frame_bytes_per_item: int


def _calls_barrier(text: str) -> bool:
    return re.search(r"@(_Z7barrierj|_Z18work_group_barrier\w*|__mux_work_group_barrier)\(", text) is not None


def _work_item_loops(text: str, function: str) -> _Split:
    """Cut `function` at its barriers (`oracle.work_item_loops`), the way PoCL
    runs work-groups: the region function `<function>.wil` is what the
    work-item loops driver runs; the barrier builtins become stubs so the
    original kernels (never run here) still link."""
    from vectorizer import llvm_bridge
    from vectorizer.ir import parse_module, print_module

    mod = parse_module(llvm_bridge.canonicalize(text))
    fn = mod.get_function(function)
    if fn is None:
        raise BuildFailure(f"no function {function}")
    try:
        split = split_at_barriers(mod, fn)
    except WorkItemLoopsError as exc:
        raise BuildFailure(f"work-item loops: {exc}") from None
    # The runtime's own drivers still call the original kernels, which still
    # call barriers: those drivers are never run here, but must link.
    stubs = [f"define void @{f.name}({', '.join(str(t) for t in f.function_type.params)}) {{\n  ret void\n}}"
             for f in mod.functions if f.is_declaration and is_barrier(f.name)]
    text = print_module(mod)
    for f in mod.functions:
        if f.is_declaration and is_barrier(f.name):
            text = re.sub(r"^declare [^\n]*@" + re.escape(f.name) + r"\([^\n]*\n", "", text, flags=re.M)
    return _Split(text + "\n" + "\n".join(stubs) + "\n", split.function.name, split.barriers,
                  split.frame_bytes_per_item)


def _declared(mod: llvm.ModuleRef) -> dict[str, ort.FnSig]:
    return {
        f.name: ort.parse_fn_type(str(f.global_value_type))
        for f in mod.functions
        if f.is_declaration and not f.name.startswith("llvm.")
    }


@dataclass
class Program:
    """One compiled configuration: an engine and its driver."""

    engine: llvm.ExecutionEngine
    driver: ctypes._CFuncPtr
    compile_seconds: float
    _keep: list[object] = field(default_factory=list)


def build(
    text: str,
    kernel: str,
    vector: tuple[str, int] | None = None,
    loop_vectorize: bool = False,
) -> Program:
    """Compile `kernel` of module `text` with the oracle's runtime and driver.

    `vector=(function, width)` drives that vectorized function (defined in
    `text`) along dimension 0 with a scalar remainder; otherwise the scalar
    kernel is driven. `loop_vectorize` turns LLVM's LoopVectorize and SLP on.
    """
    t0 = time.perf_counter()
    ojit.initialize()
    driven = vector[0] if vector else kernel
    wil = _work_item_loops(text, driven) if _calls_barrier(text) else None
    if wil is not None:
        text = wil.text
    tm = ojit.target_machine(3)
    ctx = new_context()
    try:
        mod = parse_in(ctx, ojit.native_text(text))
        mod.verify()
    except RuntimeError as exc:
        raise BuildFailure("invalid IR: " + " ".join(str(exc).split())[:300]) from None
    mod.triple = llvm.get_process_triple()
    mod.data_layout = str(tm.target_data)
    try:
        kfn = mod.get_function(kernel)
        vfn = mod.get_function(vector[0]) if vector else None
    except NameError as exc:
        raise BuildFailure(str(exc)) from None
    ksig = ort.parse_fn_type(str(kfn.global_value_type))
    if vfn is not None and ort.parse_fn_type(str(vfn.global_value_type)) != ksig:
        raise BuildFailure(f"{vector[0]} does not have the kernel's signature")
    shapes = [(VECTOR_DRIVER, vector[0], vector[1], 0, False)] if vector and wil is None else []
    declared = _declared(mod)
    if wil is not None:
        # Barriers are stubs here: the work-item loops driver runs the regions.
        declared = {n: s for n, s in declared.items() if not is_barrier(n)}
    try:
        rt_text, undefined = ort.runtime_module(declared, kernel, ksig, shapes)
    except ort.Unsupported as exc:
        raise BuildFailure(str(exc)) from None
    if wil is not None:
        params = ", ".join([*ksig.params, "ptr", "i64", "i64", "i32"])
        rt_text += f"\ndeclare i32 @{wil.function}({params})\n"
        rt_text += "\n" + driver_declarations().replace(
            "declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)\n", "") + driver_text(
            WIL_DRIVER, wil.function, list(ksig.params), wil.barriers,
            wil.frame_bytes_per_item, vector[1] if vector else 1, 0)
    missing = [n for n in undefined if not llvm.address_of_symbol(n)]
    if missing:
        raise BuildFailure("undefined function(s): " + ", ".join(missing))
    rt = parse_in(ctx, rt_text)
    rt.triple = mod.triple
    rt.data_layout = mod.data_layout
    mod.link_in(rt)
    # Only now (the runtime declared the kernel externally): inline the kernel
    # into the work-item loop, as PoCL does.
    inlined = [wil.function] if wil is not None else [kernel, vector[0] if vector else None]
    for name in inlined:
        if name is not None:
            fn = mod.get_function(name)
            fn.linkage = llvm.Linkage.internal
            fn.add_function_attribute("alwaysinline")
    mod.verify()
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    pto.loop_vectorization = loop_vectorize
    pto.slp_vectorization = loop_vectorize
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)
    engine = adopt_engine(ctx, llvm.create_mcjit_compiler(mod, tm))
    engine.finalize_object()
    addr = engine.get_function_address(WIL_DRIVER if wil is not None else VECTOR_DRIVER if vector else SCALAR_DRIVER)
    proto = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
    # The context must outlive the engine that owns the module.
    return Program(engine, proto(addr), time.perf_counter() - t0, [ctx])


class Launch:
    """Argument blob, configuration and working buffers for repeated runs."""

    def __init__(self, args: list[Arg], nd: NDRange) -> None:
        for g, loc in zip(nd.global_size, nd.local_size, strict=True):
            if loc < 1 or g % loc:
                raise ValueError(f"global size {nd.global_size} is not a multiple of local size {nd.local_size}")
        self.args = args
        self.nd = nd
        self.buffers = [a.data.copy() for a in args if isinstance(a, Buffer)]
        # Work-group memory: 64-byte aligned, zeroed by the driver per group.
        self.locals = [np.zeros(a.nbytes + 64, dtype=np.uint8) for a in args if isinstance(a, Local)]
        local_addrs = [(b.ctypes.data + 63) // 64 * 64 for b in self.locals]
        self.blob = np.zeros(len(args) * ort.ARG_SLOT, dtype=np.uint8)
        bufs, locs = iter(self.buffers), iter(local_addrs)
        for i, a in enumerate(args):
            off = i * ort.ARG_SLOT
            if isinstance(a, Buffer):
                raw = np.array([next(bufs).ctypes.data], dtype=np.uint64).view(np.uint8)
            elif isinstance(a, Local):
                raw = np.array([next(locs)], dtype=np.uint64).view(np.uint8)
            else:
                raw = np.array([a.value], dtype=a.dtype).view(np.uint8)
            self.blob[off : off + raw.size] = raw
        cfg = np.zeros(ort.CFG_SLOTS + 2 * len(self.locals), dtype=np.int64)
        cfg[0:3] = nd.local_size
        cfg[3:6] = [g // loc for g, loc in zip(nd.global_size, nd.local_size, strict=True)]
        cfg[9] = nd.work_dim
        cfg[10] = len(self.locals)
        sizes = [a.nbytes for a in args if isinstance(a, Local)]
        for k, (addr, n) in enumerate(zip(local_addrs, sizes, strict=True)):
            cfg[ort.CFG_SLOTS + 2 * k] = addr
            cfg[ort.CFG_SLOTS + 2 * k + 1] = n
        self.cfg = cfg

    def reset(self) -> None:
        """Restore every buffer to its pristine contents."""
        src = iter(a.data for a in self.args if isinstance(a, Buffer))
        for b in self.buffers:
            np.copyto(b, next(src))

    def run(self, program: Program) -> float:
        """Reset the buffers, run once natively; the seconds the run took."""
        self.reset()
        t0 = time.perf_counter()
        program.driver(self.blob.ctypes.data, self.cfg.ctypes.data)
        return time.perf_counter() - t0

    def outputs(self) -> list[bytes]:
        """The bytes of every buffer after a run."""
        return [b.tobytes() for b in self.buffers]
