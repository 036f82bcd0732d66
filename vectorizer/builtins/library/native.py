"""Run library builtins natively over numpy arrays (JIT through llvmlite).

Used by the accuracy command and the tests: `Batch` compiles many builtins
into one module, each with a driver looping over element arrays, so one
compilation serves a whole test session. A vector overload reads and writes
its lanes packed (a float3 is three consecutive floats). Pointer arguments
(sincos, frexp, remquo...) must be private (`addrspace(0)`) overloads; the
driver points them into an output array.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

import llvmlite.binding as llvm
import numpy as np

from ...llvm_bridge import host_target_machine, initialize
from ...llvm_context import adopt_engine, new_context, parse_in
from . import definitions, lookup
from .types import CLType

_NUMPY = {"char": np.int8, "uchar": np.uint8, "short": np.int16, "ushort": np.uint16, "int": np.int32,
          "uint": np.uint32, "long": np.int64, "ulong": np.uint64, "half": np.float16,
          "float": np.float32, "double": np.float64}


def dtype(t: CLType) -> type:
    return _NUMPY[t.elem]


@dataclass
class Compiled:
    name: str
    params: tuple[CLType, ...]
    ret: CLType | None
    address: int


def _driver(name: str, params: tuple[CLType, ...], ret: CLType | None) -> str:
    lines = [f"define void @__drv.{name}(i64 %n, ptr %args) {{", "entry:", "  br label %loop", "loop:",
             "  %i = phi i64 [ 0, %entry ], [ %next, %loop ]"]
    call_args = []
    slot = 0
    outs = []
    for j, p in enumerate(params):
        lines.append(f"  %base{j}.p = getelementptr ptr, ptr %args, i64 {slot}")
        lines.append(f"  %base{j} = load ptr, ptr %base{j}.p")
        slot += 1
        t = p.pointee if p.pointee is not None else p
        elem = t.llvm_elem
        lines.append(f"  %idx{j} = mul i64 %i, {t.width}")
        lines.append(f"  %ptr{j} = getelementptr {elem}, ptr %base{j}, i64 %idx{j}")
        if p.pointee is not None:
            call_args.append(f"ptr %ptr{j}")
        else:
            lines.append(f"  %v{j} = load {p.llvm}, ptr %ptr{j}, align 1")
            call_args.append(f"{p.llvm} %v{j}")
    rty = ret.llvm if ret is not None else "void"
    if ret is not None:
        lines.append(f"  %r = call {rty} @{name}(" + ", ".join(call_args) + ")")
        lines.append(f"  %out.p = getelementptr ptr, ptr %args, i64 {slot}")
        lines.append("  %out = load ptr, ptr %out.p")
        lines.append(f"  %oidx = mul i64 %i, {ret.width}")
        lines.append(f"  %optr = getelementptr {ret.llvm_elem}, ptr %out, i64 %oidx")
        lines.append(f"  store {rty} %r, ptr %optr, align 1")
        outs.append(ret)
    else:
        lines.append(f"  call void @{name}(" + ", ".join(call_args) + ")")
    lines += ["  %next = add i64 %i, 1", "  %go = icmp ult i64 %next, %n", "  br i1 %go, label %loop, label %done",
              "done:", "  ret void", "}"]
    return "\n".join(lines)


class Batch:
    """Compile the given mangled builtins once; `run(name, *arrays)` evaluates one."""

    def __init__(self, names: list[str], opt: int = 2) -> None:
        initialize()
        self.funcs: dict[str, Compiled] = {}
        wanted = []
        info = {}
        for n in names:
            found = lookup(n)
            if found is None:
                raise KeyError(f"not a library builtin: {n}")
            info[n] = found
            wanted.append((n, None, None))
        text, defined = definitions(wanted)
        drivers = [_driver(n, info[n][1], info[n][2].ret) for n in defined]
        tm = host_target_machine(opt, codemodel="jitdefault")
        self._ctx = new_context()
        mod = parse_in(self._ctx, text + "\n" + "\n".join(drivers))
        mod.triple = llvm.get_process_triple()
        mod.data_layout = str(tm.target_data)
        mod.verify()
        pto = llvm.create_pipeline_tuning_options(speed_level=opt)
        pb = llvm.create_pass_builder(tm, pto)
        pb.getModulePassManager().run(mod, pb)
        self._engine = adopt_engine(self._ctx, llvm.create_mcjit_compiler(mod, tm))
        self._engine.finalize_object()
        for n in defined:
            _base, params, impl = info[n]
            addr = self._engine.get_function_address(f"__drv.{n}")
            self.funcs[n] = Compiled(n, params, impl.ret, addr)

    def run(self, name: str, *inputs: np.ndarray) -> list[np.ndarray]:
        """Evaluate builtin `name` element-wise. Value parameters take arrays of their
        element type (lanes packed); pointer parameters are outputs and get none.
        Returns the result array (if any) followed by each pointer output."""
        f = self.funcs[name]
        it = iter(inputs)
        arrays: list[np.ndarray] = []
        outs: list[np.ndarray] = []
        count = None
        for p in f.params:
            if p.pointee is None:
                a = np.ascontiguousarray(next(it), dtype=dtype(p))
                count = a.size // p.width
                arrays.append(a)
            else:
                arrays.append(None)  # type: ignore[arg-type]
        if count is None:
            raise ValueError("no value argument to size the run")
        for j, p in enumerate(f.params):
            if p.pointee is not None:
                o = np.zeros(count * p.pointee.width, dtype=dtype(p.pointee))
                arrays[j] = o
                outs.append(o)
        result = []
        if f.ret is not None:
            r = np.zeros(count * f.ret.width, dtype=dtype(f.ret))
            arrays.append(r)
            result.append(r)
        ptrs = (ctypes.c_void_p * len(arrays))(*[a.ctypes.data for a in arrays])
        fn = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_void_p)(f.address)
        if count:
            fn(count, ctypes.addressof(ptrs))
        return result + outs
