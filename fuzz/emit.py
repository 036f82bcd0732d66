"""The emitter: lowers a `KernelPlan` to our IR with the Builder, in SSA form.

Variables live in an environment (variable id -> current SSA value); the
structured statements create phis where paths join: after an `if`, at a
`switch` case entered by fall-through, at loop headers (for every variable the
loop assigns), latches (for `continue`) and exits (for `break`s, including
breaks out of two loops). An early `return` is a `ret void` of its own.

Every UB guard promised in `fuzz.plan` is added here:
- shift amounts `and (bits-1)`; divisors replaced by 1 when zero, or -1 with
  the minimum dividend for signed division;
- float to int through `llvm.fpto[su]i.sat` or an ordered clamp and `fptosi`;
- buffer indices wrapped with `and (count-1)` (counts are powers of two)
  unless affine in the work-item ids (buffers are sized for that);
- dynamic lane indices `and (lanes-1)`, private-array indices `and (size-1)`;
- loop trip counts bounded by `and`, `urem` or `umin` with a constant;
- poison-generating flags only where the plan put them (on operands masked
  so that they hold, and `inbounds`/`nuw` on in-bounds accesses); no
  fast-math flags.

Values and blocks get deterministic names, so the printed text is a pure
function of the plan.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from vectorizer.ir import types as T
from vectorizer.ir import values as V
from vectorizer.ir.builder import Builder

from .builtin_calls import mangled_name
from .plan import (
    OPENCL_BUILTINS,
    Access,
    Addr,
    Affine,
    Assign,
    Atomic,
    Barrier,
    Biased,
    Bin,
    Block,
    Break,
    Buffer,
    Builtin,
    Call,
    CallStmt,
    Cast,
    Cmp,
    Const,
    ConstAddr,
    Continue,
    CopyOut,
    CursorAddr,
    Expr,
    Extract,
    Freeze,
    Helper,
    If,
    Indirect,
    Insert,
    Irreducible,
    KernelPlan,
    Let,
    Lin,
    Load,
    LocalSlot,
    Loop,
    Math,
    Neg,
    Overflow,
    ParamRef,
    PeerSlot,
    PrefixScan,
    Printf,
    PrivArray,
    PrivInit,
    PrivLoad,
    PrivStore,
    PtrCmp,
    PtrDiff,
    Return,
    ScalarParam,
    Select,
    SelectAddr,
    Shuffle,
    Spin,
    Splat,
    Stmt,
    Store,
    Switch,
    Trap,
    TreeReduce,
    Ty,
    UniformStore,
    VarRef,
    VLoad,
    VStore,
    WorkDim,
    WorkItem,
    Wrapped,
    assigned_vars,
)
from .planner import next_pow2
from .subgroup_kernels import is_collective_builtin, mangle_collective

DATALAYOUT = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
TRIPLE = "x86_64-unknown-linux-gnu"
GLOBAL_AS = 1

WORK_ITEM_NAMES = {
    "global_id": "_Z13get_global_idj",
    "local_id": "_Z12get_local_idj",
    "group_id": "_Z12get_group_idj",
    "global_size": "_Z15get_global_sizej",
    "local_size": "_Z14get_local_sizej",
    "num_groups": "_Z14get_num_groupsj",
    "global_offset": "_Z17get_global_offsetj",
}


def ir_type(ty: Ty) -> T.Type:
    """Our IR type for a plan type."""
    if ty.is_float:
        scalar: T.Type = T.FloatType({16: "half", 32: "float", 64: "double"}[ty.bits])
    else:
        scalar = T.IntType(ty.bits)
    return T.VectorType(scalar, ty.lanes) if ty.is_vector else scalar


def _intrinsic_suffix(ty: Ty) -> str:
    s = ty.elem
    return f"v{ty.lanes}{s}" if ty.is_vector else s


def _largest_below(limit: int, ty: Ty) -> float:
    """The largest value of float type `ty` that is <= `limit` (an integer)."""
    x = float(limit)
    if ty.bits == 32:
        x = struct.unpack("<f", struct.pack("<f", x))[0]
        while x > limit:
            bits = struct.unpack("<I", struct.pack("<f", x))[0]
            x = struct.unpack("<f", struct.pack("<I", bits - 1 if x > 0 else bits + 1))[0]
        return x
    while x > limit:
        bits = struct.unpack("<Q", struct.pack("<d", x))[0]
        x = struct.unpack("<d", struct.pack("<Q", bits - 1 if x > 0 else bits + 1))[0]
    return x


def _alloc_size(ty: Ty) -> int:
    """Bytes one element of `ty` takes in memory (vectors round up to a power of two)."""
    return max(1, next_pow2(ty.total_bits) // 8)


_ITANIUM = {"i8": ("c", "h"), "i16": ("s", "t"), "i32": ("i", "j"), "i64": ("l", "m"),
            "f16": ("Dh", "Dh"), "f32": ("f", "f"), "f64": ("d", "d")}


def _opencl_type(ty: Ty, signed: bool) -> str:
    """OpenCL C's name of `ty` (`int4`, `uchar`, `half8`), as `convert_` builtins spell it."""
    base = {"i8": "char", "i16": "short", "i32": "int", "i64": "long", "f16": "half", "f32": "float",
            "f64": "double"}[ty.elem]
    if ty.is_int and not signed:
        base = "u" + base
    return f"{base}{ty.lanes}" if ty.is_vector else base


def mangle_vload(lanes: int, elem: Ty, addrspace: int, signed: bool = True) -> str:
    """`vload<N>(size_t, const AS T*)`: `_Z6vload4mPU3AS1Kf`."""
    name = f"vload{lanes}"
    return f"_Z{len(name)}{name}mPU3AS{addrspace}K{_ITANIUM[elem.elem][0 if signed else 1]}"


def mangle(name: str, params: list[Ty], signed: bool = True) -> str:
    """The SPIR (Itanium) mangled name of OpenCL builtin `name` over `params`:
    `_Z4fabsf`, `_Z3maxDv4_iS_` (a repeated vector type is a substitution)."""
    assert name in OPENCL_BUILTINS or name.startswith("convert_"), name
    out = []
    seen: list[str] = []
    for t in params:
        code = _ITANIUM[t.elem][0 if signed else 1]
        if not t.is_vector:
            out.append(code)
            continue
        full = f"Dv{t.lanes}_{code}"
        if full in seen:
            k = seen.index(full)
            out.append("S_" if k == 0 else f"S{k - 1}_")
        else:
            seen.append(full)
            out.append(full)
    return f"_Z{len(name)}{name}{''.join(out)}"


@dataclass
class _LoopFrame:
    header: V.BasicBlock
    exit: V.BasicBlock
    keys: list[int]  # variables visible before the loop (merged at its exit)
    latch: V.BasicBlock | None = None
    continues: list[tuple[dict[int, V.Value], V.BasicBlock]] = field(default_factory=list)
    breaks: list[tuple[dict[int, V.Value], V.BasicBlock]] = field(default_factory=list)


class ModuleEmitter:
    """Builds the module: declarations, helpers, then the kernel."""

    def __init__(self, plan: KernelPlan) -> None:
        from vectorizer.ir.module import Module

        self.plan = plan
        self.module = Module()
        self.module.datalayout = DATALAYOUT  # type: ignore[attr-defined]
        self.module.triple = TRIPLE  # type: ignore[attr-defined]
        self.functions: dict[str, V.Function] = {}
        self.helper_fns: dict[int, V.Function] = {}

    def declare(self, name: str, ret: T.Type, params: list[T.Type]) -> V.Function:
        fn = self.functions.get(name)
        if fn is None:
            fn = self.module.get_or_insert_function(name, T.FunctionType(ret, tuple(params), False))
            self.functions[name] = fn
        return fn

    def work_item_fn(self, kind: str) -> V.Function:
        name = f"__mux_get_{kind}" if self.plan.builtins == "mux" else WORK_ITEM_NAMES[kind]
        return self.declare(name, T.IntType(64), [T.IntType(32)])

    def intrinsic(self, name: str, ret: T.Type, params: list[T.Type]) -> V.Function:
        return self.declare(name, ret, params)

    def helper_fn(self, h: Helper) -> V.Function:
        """The function of helper `h`, added to the module (without a body)
        the first time it is asked for: when its body is emitted, or before,
        when a mutually recursive partner's body calls it."""
        fn = self.helper_fns.get(id(h))
        if fn is None:
            ptr = T.PointerType(GLOBAL_AS)
            params: list[T.Type] = [ir_type(p.ty) for p in h.params]
            if h.out is not None:
                params += [ptr, T.IntType(64)]
            if h.counter is not None:
                params.append(ptr)
            ret = ir_type(h.ret) if h.ret is not None else T.VoidType()
            fn = self.module.add_function(h.name, T.FunctionType(ret, tuple(params), False))
            fn.linkage = "internal"
            self.helper_fns[id(h)] = fn
        return fn

    def emit(self) -> V.Module:
        for h in self.plan.helpers:
            FunctionEmitter(self, helper=h).emit()
        FunctionEmitter(self, kernel=self.plan).emit()
        return self.module


class FunctionEmitter:
    """Lowers one function (the kernel or a helper)."""

    def __init__(self, mod: ModuleEmitter, kernel: KernelPlan | None = None, helper: Helper | None = None) -> None:
        self.mod = mod
        self.plan = mod.plan
        self.kernel = kernel
        self.helper = helper
        self.env: dict[int, V.Value] = {}
        self.block: V.BasicBlock | None = None
        self.b = Builder()
        self.loops: list[_LoopFrame] = []
        self.args: dict[int, V.Value] = {}  # id(param or buffer) -> argument
        self.lin: V.Value | None = None
        self.llin: V.Value | None = None  # the local linear id (kernels with __local buffers)
        self.ltotal: V.Value | None = None  # work-items in the group (kernels with tiles)
        # 2-D tiles: the work-item's row and column, the rows and columns in use.
        self.lrow: V.Value | None = None
        self.lcol: V.Value | None = None
        self.lrows: V.Value | None = None
        self.lcols: V.Value | None = None
        self.slot_base: dict[int, V.Value] = {}  # id(out buffer) -> i64 base of this work-item's slots
        self.arrays: dict[int, V.Value] = {}  # PrivArray id -> alloca
        self.helper_base: V.Value | None = None
        self.cursors: dict[int, V.Value] = {}  # id(Cursor) -> its pointer phi
        self._names: dict[str, int] = {}
        self._entered: dict[int, int] = {}  # id(block) -> when it was first filled
        self.fn: V.Function

    # ------------------------------------------------------------------
    # Naming and blocks

    def _unique(self, base: str) -> str:
        n = self._names.get(base, 0)
        self._names[base] = n + 1
        return base if n == 0 else f"{base}.{n}"

    def new_block(self, base: str) -> V.BasicBlock:
        return self.fn.add_block(self._unique(base))

    def set_block(self, bb: V.BasicBlock | None) -> None:
        self.block = bb
        if bb is not None:
            self.b.position_at_end(bb)
            if id(bb) not in self._entered:
                self._entered[id(bb)] = len(self._entered)

    def _order_blocks(self) -> None:
        """Lay blocks out in the order they were filled (readable text: a loop
        exit after the loop body, an `if.end` after both arms)."""
        self.fn.blocks.sort(key=lambda bb: self._entered.get(id(bb), len(self._entered)))

    # ------------------------------------------------------------------
    # Functions

    def emit(self) -> V.Function:
        if self.kernel is not None:
            return self._emit_kernel(self.kernel)
        assert self.helper is not None
        return self._emit_helper(self.helper)

    def _emit_kernel(self, plan: KernelPlan) -> V.Function:
        params: list[T.Type] = []
        for p in plan.params:
            params.append(ir_type(p.ty) if isinstance(p, ScalarParam) else T.PointerType(p.addrspace))
        fty = T.FunctionType(T.VoidType(), tuple(params), False)
        self.fn = self.mod.module.add_function(plan.name, fty)
        self.fn.calling_conv = "spir_kernel"
        for p, arg in zip(plan.params, self.fn.args, strict=True):
            arg.name = self._unique(p.name)
            self.args[id(p)] = arg
        entry = self.new_block("entry")
        self.set_block(entry)
        for arr in plan.arrays:
            aty: T.Type = T.ArrayType(ir_type(arr.elem), arr.size) if arr.size > 1 else ir_type(arr.elem)
            if arr.union:
                st = self.mod.module.get_struct_type(f"union.{arr.name}")
                st.set_body((aty,))
                aty = st
            elif arr.header:
                st = self.mod.module.get_struct_type(f"struct.{arr.name}")
                st.set_body((*(ir_type(t) for t in arr.header), aty))
                aty = st
            self.arrays[arr.id] = self.b.alloca(aty, align=self._align(arr.elem), name=arr.name)
        self.lin = self._emit_lin(plan)
        for buf in plan.local_globals:
            self.args[id(buf)] = self._local_global(buf)
        locals_ = [buf for buf in [*plan.buffers, *plan.local_globals] if buf.is_local]
        llin = self._emit_local_lin(plan) if locals_ else None
        self.llin = llin
        if any(buf.role == "tile" for buf in locals_):
            self.ltotal = self._emit_local_total(plan)
        if any(buf.two_d for buf in locals_):
            self._emit_tile_coordinates(plan)
        for buf in [*plan.buffers, *plan.local_globals]:
            if buf.role == "out":
                self.slot_base[id(buf)] = self._emit_slot_base(buf)
            elif buf.is_local:
                assert llin is not None
                self.slot_base[id(buf)] = llin if buf.slots == 1 else self.b.mul(llin, self.i64(buf.slots))
        self.emit_block(plan.body)
        if self.block is not None:
            self.b.ret()
        self._order_blocks()
        return self.fn

    def _emit_helper(self, h: Helper) -> V.Function:
        names = [p.name for p in h.params]
        if h.out is not None:
            names += ["out", "base"]
        if h.counter is not None:
            names.append("counter")
        self.fn = self.mod.helper_fn(h)
        args = list(self.fn.args)
        for arg, name in zip(args, names, strict=True):
            arg.name = self._unique(name)
        for p, arg in zip(h.params, args, strict=False):
            self.env[p.id] = arg
        rest = args[len(h.params):]
        if h.out is not None:
            self.args[id(h.out)] = rest.pop(0)
            self.helper_base = rest.pop(0)
        if h.counter is not None:
            self.args[id(h.counter)] = rest.pop(0)
        self.set_block(self.new_block("entry"))
        if h.depth is not None:
            self._recursion_base(h)
        self.emit_block(h.body)
        if self.block is not None:
            if h.result is not None:
                self.b.ret(self.expr(h.result))
            else:
                self.b.ret()
        self._order_blocks()
        return self.fn

    def _recursion_base(self, h: Helper) -> None:
        """`if (depth <= 0) return base;` at the top of a recursive helper."""
        assert h.depth is not None and h.base is not None
        b = self.b
        stop = b.icmp("sle", self.env[h.depth.id], self.i32(0))
        base_bb, step_bb = self.new_block("base"), self.new_block("recurse")
        b.cond_br(stop, base_bb, step_bb)
        self.set_block(base_bb)
        b.ret(self.expr(h.base))
        self.set_block(step_bb)

    # ------------------------------------------------------------------
    # Constants

    def ci(self, ty: Ty | T.Type, value: int) -> V.Value:
        t = ir_type(ty) if isinstance(ty, Ty) else ty
        if isinstance(t, T.VectorType):
            return V.splat(t, V.const_int(t.element, value))
        return V.const_int(t, value)

    def i32(self, value: int) -> V.Value:
        return V.const_int(T.IntType(32), value)

    def i64(self, value: int) -> V.Value:
        return V.const_int(T.IntType(64), value)

    def const(self, e: Const) -> V.Value:
        t = ir_type(e.ty)
        if e.ty.is_vector:
            assert isinstance(e.value, tuple)
            elem_t = ir_type(e.ty.scalar)
            elems = [self._scalar_const(elem_t, e.ty.scalar, v) for v in e.value]
            return V.ConstantVector(t, elems)
        assert not isinstance(e.value, tuple)
        return self._scalar_const(t, e.ty, e.value)

    def _scalar_const(self, t: T.Type, ty: Ty, value: int | float) -> V.Value:
        if ty.is_float:
            return V.const_fp(t, float(value))
        return V.const_int(t, int(value))

    # ------------------------------------------------------------------
    # Work-item ids and slots

    def wi(self, kind: str, dim: int | V.Value) -> V.Value:
        """`get_<kind>(dim)`, the dimension a constant or an i32 value."""
        d = self.i32(dim) if isinstance(dim, int) else dim
        return self.b.call(self.mod.work_item_fn(kind), [d])

    def _emit_lin(self, plan: KernelPlan) -> V.Value:
        """The linear id over the NDRange: unique per work-item, in [0, total)."""
        b = self.b
        offsets = any(any(r.offset) for r in plan.ndranges)
        ids: list[V.Value] = []
        for d in range(plan.dims):
            if plan.lin_form == "group":
                g = b.mul(self.wi("group_id", d), self.wi("local_size", d))
                ids.append(b.add(g, self.wi("local_id", d)))
            else:
                gid = self.wi("global_id", d)
                ids.append(b.sub(gid, self.wi("global_offset", d)) if offsets else gid)
        lin = ids[-1]
        for d in range(plan.dims - 2, -1, -1):
            lin = b.add(b.mul(lin, self.wi("global_size", d)), ids[d])
        self._name(lin, "lin")
        return lin

    def _emit_local_lin(self, plan: KernelPlan) -> V.Value:
        """The work-item's linear id inside its work-group: unique there."""
        b = self.b
        lin = self.wi("local_id", plan.dims - 1)
        for d in range(plan.dims - 2, -1, -1):
            lin = b.add(b.mul(lin, self.wi("local_size", d)), self.wi("local_id", d))
        self._name(lin, "llin")
        return lin

    def _emit_local_total(self, plan: KernelPlan) -> V.Value:
        """The number of work-items in the group (the product of the local sizes)."""
        b = self.b
        total = self.wi("local_size", 0)
        for d in range(1, plan.dims):
            total = b.mul(total, self.wi("local_size", d))
        self._name(total, "lsize")
        return total

    def _emit_tile_coordinates(self, plan: KernelPlan) -> None:
        """Row `y + ly*z` and column `x` of the work-item in a 2-D tile."""
        b = self.b
        self.lcol, self.lcols = self.wi("local_id", 0), self.wi("local_size", 0)
        row, rows = self.wi("local_id", 1), self.wi("local_size", 1)
        if plan.dims > 2:
            row = b.add(row, b.mul(rows, self.wi("local_id", 2)))
            rows = b.mul(rows, self.wi("local_size", 2))
        self.lrow, self.lrows = row, rows
        self._name(row, "lrow")

    def _tile2d_ptr(self, tile: Buffer, row: V.Value, col: V.Value) -> V.Value:
        """`&tile[row][col]`, as clang indexes a 2-D `__local` array."""
        aty = T.ArrayType(ir_type(tile.elem), tile.cols)
        return self.b.gep(aty, self.args[id(tile)], [row, col], flags=("inbounds",))

    def _peer_ptr_2d(self, tile: Buffer, a: PeerSlot) -> V.Value:
        b = self.b
        row, col, rows, cols = self.lrow, self.lcol, self.lrows, self.lcols
        assert row is not None and col is not None and rows is not None and cols is not None
        if a.pattern == "first":
            row = col = self.i64(0)
        elif a.pattern == "right":
            col = b.urem(b.add(col, self.i64(a.shift)), cols)
        elif a.pattern == "down":
            row = b.urem(b.add(row, self.i64(a.shift)), rows)
        else:
            assert a.pattern == "mirror"
            col = b.sub(b.sub(cols, self.i64(1)), col)
        return self._tile2d_ptr(tile, row, col)

    def _local_global(self, buf: Buffer) -> V.Value:
        """A tile declared in the kernel's body: clang's `internal addrspace(3)`
        global, with an undefined initial value."""
        from vectorizer.ir.module import GlobalVariable

        aty = T.ArrayType(ir_type(buf.elem), buf.count)
        if buf.two_d:
            aty = T.ArrayType(T.ArrayType(ir_type(buf.elem), buf.cols), buf.rows)
        gv = GlobalVariable(f"{self.plan.name}.{buf.name}", aty, V.UndefValue(aty), linkage="internal",
                            addrspace=3, align=self._align(buf.elem))
        self.mod.module.add_global(gv)
        return gv

    def _emit_slot_base(self, buf: Buffer) -> V.Value:
        """Index of this work-item's first slot in `buf`."""
        b = self.b
        assert self.lin is not None
        lin = self.lin
        if buf.mapping == "linear":
            row = lin
        elif buf.mapping == "reverse":
            row = b.sub(self.i64(self.plan.max_total - 1), lin)
        else:
            src = lin
            if buf.mapping == "indirect":
                assert buf.iota is not None
                p = b.gep(T.IntType(32), self.args[id(buf.iota)], [lin])
                src = b.zext(b.load(T.IntType(32), p, align=4), T.IntType(64))
            perm = buf.count // max(buf.slots, 1)
            row = b.and_(b.xor(b.mul(src, self.i64(buf.perm_mul)), self.i64(buf.perm_xor)), self.i64(perm - 1))
        if buf.slots == 1:
            return row
        return b.mul(row, self.i64(buf.slots), name=self._unique(f"{buf.name}.base"))

    # ------------------------------------------------------------------
    # Statements

    def emit_block(self, stmts: list[Stmt]) -> None:
        for s in stmts:
            if self.block is None:
                return  # the rest is unreachable
            self.stmt(s)

    def stmt(self, s: Stmt) -> None:
        b = self.b
        if isinstance(s, (Let, Assign)):
            v = self.expr(s.value)
            self._name(v, s.var.name)
            self.env[s.var.id] = v
        elif isinstance(s, If):
            self._if(s)
        elif isinstance(s, Loop):
            self._loop(s)
        elif isinstance(s, Switch):
            self._switch(s)
        elif isinstance(s, Break):
            frame = self.loops[-s.levels]
            frame.breaks.append((dict(self.env), self._cur()))
            b.br(frame.exit)
            self.set_block(None)
        elif isinstance(s, Continue):
            frame = self.loops[-1]
            if frame.latch is None:
                frame.latch = self.new_block("loop.latch")
            frame.continues.append((dict(self.env), self._cur()))
            b.br(frame.latch)
            self.set_block(None)
        elif isinstance(s, Return):
            b.ret()
            self.set_block(None)
        elif isinstance(s, Store):
            value = self.expr(s.value)
            if self.helper is not None:
                assert self.helper_base is not None
                base = self.helper_base
            else:
                base = self.slot_base[id(s.buffer)]
            idx = b.add(base, self.i64(s.slot)) if s.slot else base
            if s.buffer.two_d:
                assert self.lrow is not None and self.lcol is not None
                p = self._tile2d_ptr(s.buffer, self.lrow, self.lcol)
            else:
                p = self._element_ptr(s.buffer.elem, self.args[id(s.buffer)], idx, s.access)
            b.store(value, p, align=self._align(s.buffer.elem), volatile=s.access.volatile)
        elif isinstance(s, UniformStore):
            value = self.expr(s.value)
            p = b.gep(ir_type(s.buffer.elem), self.args[id(s.buffer)], [self.i64(s.index)])
            b.store(value, p, align=self._align(s.buffer.elem))
        elif isinstance(s, Atomic):
            value = self.expr(s.value)
            if isinstance(s.index, int):
                idx = self.i64(s.index)
            else:
                idx = self._wrap(self.expr(s.index), s.buffer.count)
            p = b.gep(ir_type(s.buffer.elem), self.args[id(s.buffer)], [idx])
            if s.fence == "inst":
                b.fence("acq_rel", "workgroup")
            elif s.fence:  # CLK_GLOBAL_MEM_FENCE
                fence = self.mod.declare(f"_Z{len(s.fence)}{s.fence}j", T.VoidType(), [T.IntType(32)])
                b.call(fence, [V.const_int(T.IntType(32), 2)])
            if s.cas:
                self._cas(s, p, value)
            elif s.builtin:
                self._atomic_call(s, p, value)
            else:
                b.atomicrmw(s.op, p, value, ordering=s.ordering, align=self._align(s.buffer.elem))
        elif isinstance(s, PrivStore):
            idx = self._wrap(self.expr(s.index), s.array.size)
            value = self.expr(s.value)
            b.store(value, self._priv_ptr(s.array, idx, s.access.gep_flags, generic=s.access.via == "generic"),
                    align=self._align(s.array.elem),
                    volatile=s.access.volatile)
        elif isinstance(s, CallStmt):
            self.expr(s.call)
        elif isinstance(s, PrivInit):
            self._priv_init(s)
        elif isinstance(s, CopyOut):
            self._copy_out(s)
        elif isinstance(s, VStore):
            value = self.expr(s.value)
            base = self.slot_base[id(s.buffer)]
            idx = b.add(base, self.i64(s.slot)) if s.slot else base
            p = self._element_ptr(s.buffer.elem, self.args[id(s.buffer)], idx, Access(("inbounds",)))
            lanes = s.value.ty.lanes
            code = _ITANIUM[s.value.ty.elem][0]
            name = f"vstore{lanes}"
            mangled = f"_Z{len(name)}{name}Dv{lanes}_{code}mPU3AS{s.buffer.addrspace}{code}"
            fn = self.mod.declare(mangled, T.VoidType(), [value.type, T.IntType(64), p.type])
            b.call(fn, [value, self.i64(s.offset), p])
        elif isinstance(s, Printf):
            self._printf(s)
        elif isinstance(s, Barrier):
            self._barrier(s)
        elif isinstance(s, TreeReduce):
            self._tree_reduce(s)
        elif isinstance(s, PrefixScan):
            self._prefix_scan(s)
        elif isinstance(s, (Trap, Spin, Irreducible)):
            self._cfg_shape(s)
        else:  # pragma: no cover
            raise TypeError(f"unknown statement {type(s).__name__}")

    # ------------------------------------------------------------------
    # Work-group statements (fuzz.workgroup)

    def _barrier(self, s: Barrier) -> None:
        i32 = T.IntType(32)
        if self.plan.builtins == "mux":
            # (id, scope: work-group, semantics: the memories fenced, sequentially consistent)
            semantics = {1: 0x110, 2: 0x210, 3: 0x310}[s.fence]
            fn = self.mod.declare("__mux_work_group_barrier", T.VoidType(), [i32, i32, i32])
            self.b.call(fn, [self.i32(0), self.i32(2), self.i32(semantics)])
            return
        name = "_Z7barrierj" if s.spelling == "barrier" else "_Z18work_group_barrierj"
        fn = self.mod.declare(name, T.VoidType(), [i32])
        self.b.call(fn, [self.i32(s.fence)])

    def _tile_ptr(self, tile: Buffer, idx: V.Value) -> V.Value:
        return self.b.gep(ir_type(tile.elem), self.args[id(tile)], [idx], flags=("inbounds",))

    def _combine(self, op: str, ty: Ty, x: V.Value, y: V.Value) -> V.Value:
        if op in ("add", "xor", "or", "and", "mul", "fadd", "fmul"):
            return self.b.binop(op, x, y)
        t = ir_type(ty)
        return self.b.call(self.mod.intrinsic(f"llvm.{op}.{_intrinsic_suffix(ty)}", t, [t, t]), [x, y])

    def _tree_reduce(self, s: TreeReduce) -> None:
        """`s.tile[0] = op over the group`: one round per tree level, a barrier after each."""
        b = self.b
        i64 = T.IntType(64)
        llin, total = self.llin, self.ltotal
        assert llin is not None and total is not None
        ety, align = ir_type(s.tile.elem), self._align(s.tile.elem)
        halving = s.form == "halving"
        start = self.i64(next_pow2(self.plan.max_local_total) // 2) if halving else self.i64(1)
        pre = self._cur()
        header, body = self.new_block("reduce.header"), self.new_block("reduce.body")
        update, latch = self.new_block("reduce.update"), self.new_block("reduce.latch")
        exit_bb = self.new_block("reduce.exit")
        b.br(header)
        self.set_block(header)
        step = b.phi(i64, name=self._unique("stride"))
        step.add_incoming(start, pre)
        more = b.icmp("ugt", step, self.i64(0)) if halving else b.icmp("ult", step, total)
        b.cond_br(more, body, exit_bb)
        self.set_block(body)
        other = b.add(llin, step)
        if halving:
            mine = b.icmp("ult", llin, step)
        else:
            mask = b.sub(b.shl(step, self.i64(1)), self.i64(1))
            mine = b.icmp("eq", b.and_(llin, mask), self.i64(0))
        active = b.and_(mine, b.icmp("ult", other, total))
        b.cond_br(active, update, latch)
        self.set_block(update)
        own_p = self._tile_ptr(s.tile, llin)
        x = b.load(ety, own_p, align=align)
        y = b.load(ety, self._tile_ptr(s.tile, other), align=align)
        b.store(self._combine(s.op, s.tile.elem, x, y), own_p, align=align)
        b.br(latch)
        self.set_block(latch)
        self._barrier(s.barrier)
        nxt = b.lshr(step, self.i64(1)) if halving else b.shl(step, self.i64(1))
        step.add_incoming(nxt, latch)
        b.br(header)
        self.set_block(exit_bb)

    def _prefix_scan(self, s: PrefixScan) -> None:
        """Inclusive scan of `s.tile` (Hillis and Steele), two barriers a round."""
        b = self.b
        i64 = T.IntType(64)
        llin, total = self.llin, self.ltotal
        assert llin is not None and total is not None
        ety, align = ir_type(s.tile.elem), self._align(s.tile.elem)
        pre = self._cur()
        header, body = self.new_block("scan.header"), self.new_block("scan.body")
        exit_bb = self.new_block("scan.exit")
        b.br(header)
        self.set_block(header)
        off = b.phi(i64, name=self._unique("offset"))
        off.add_incoming(self.i64(1), pre)
        b.cond_br(b.icmp("ult", off, total), body, exit_bb)
        self.set_block(body)
        has = b.icmp("uge", llin, off)
        src = b.select(has, b.sub(llin, off), llin)
        x = b.load(ety, self._tile_ptr(s.tile, src), align=align)
        self._barrier(s.barrier)
        own_p = self._tile_ptr(s.tile, llin)
        own = b.load(ety, own_p, align=align)
        b.store(b.select(has, self._combine(s.op, s.tile.elem, own, x), own), own_p, align=align)
        self._barrier(s.barrier)
        nxt = b.shl(off, self.i64(1))
        off.add_incoming(nxt, self._cur())
        b.br(header)
        self.set_block(exit_bb)

    def _peer_slot(self, a: PeerSlot) -> V.Value:
        """Another work-item's slot of a tile, below the group's size."""
        b = self.b
        llin, total = self.llin, self.ltotal
        assert llin is not None and total is not None
        if a.pattern == "first":
            return self.i64(0)
        if a.pattern == "rotate":
            return b.urem(b.add(llin, self.i64(a.shift)), total)
        if a.pattern == "mirror":
            return b.sub(b.sub(total, self.i64(1)), llin)
        x = b.xor(llin, self.i64(a.shift))
        return b.select(b.icmp("ult", x, total), x, llin)

    def _cur(self) -> V.BasicBlock:
        assert self.block is not None
        return self.block

    def _merge(self, target: V.BasicBlock, incoming: list[tuple[dict[int, V.Value], V.BasicBlock]],
               keys: list[int]) -> None:
        """Start emitting into `target`, reached by `incoming` edges: phis for
        the variables in `keys` whose values differ between the edges."""
        self.set_block(target)
        if not incoming:
            return
        env: dict[int, V.Value] = {}
        for k in keys:
            vals = [e[k] for e, _ in incoming]
            if all(v is vals[0] for v in vals):
                env[k] = vals[0]
                continue
            phi = self.b.phi(vals[0].type, name=self._unique(f"{self._var_name(k)}.phi"))
            for (e, bb) in incoming:
                phi.add_incoming(e[k], bb)
            env[k] = phi
        self.env = env

    def _var_name(self, var_id: int) -> str:
        return f"v{var_id}"

    def _if(self, s: If) -> None:
        b = self.b
        cond = self.expr(s.cond)
        keys = list(self.env)
        pre_env = dict(self.env)
        head = self._cur()
        then_bb = self.new_block("if.then")
        else_bb = self.new_block("if.else") if s.els else None
        end_bb = self.new_block("if.end")
        b.cond_br(cond, then_bb, else_bb or end_bb)
        incoming: list[tuple[dict[int, V.Value], V.BasicBlock]] = []
        self.set_block(then_bb)
        self.emit_block(s.then)
        if self.block is not None:
            b.br(end_bb)
            incoming.append((dict(self.env), self.block))
        if else_bb is not None:
            self.env = dict(pre_env)
            self.set_block(else_bb)
            self.emit_block(s.els)
            if self.block is not None:
                b.br(end_bb)
                incoming.append((dict(self.env), self.block))
        else:
            incoming.append((pre_env, head))
        if not incoming:
            end_bb.erase()
            self.set_block(None)
            return
        self._merge(end_bb, incoming, keys)

    def _loop(self, s: Loop) -> None:
        b = self.b
        raw = self.expr(s.trip)
        if s.bound == "and":
            trip = b.and_(raw, self.i32(s.max_trip))
        elif s.bound == "urem":
            trip = b.urem(raw, self.i32(s.max_trip + 1))
        else:
            umin = self.mod.intrinsic("llvm.umin.i32", T.IntType(32), [T.IntType(32)] * 2)
            trip = b.call(umin, [raw, self.i32(s.max_trip)])
        self._name(trip, f"{s.counter.name}.trip")
        start = None
        if s.cursor is not None:
            cur = s.cursor
            start = self._element_ptr(cur.buffer.elem, self.args[id(cur.buffer)], self.addr(cur.start, cur.buffer),
                                      Access(("inbounds", "nuw")))
        keys = list(self.env)
        # The carried exit test for the first iteration: stay after it iff
        # 1 < trip, as the `do` loop's own test would say.
        first = b.icmp("ult", self.i32(1), trip) if s.carried_exit else None
        pre = self._cur()
        header = self.new_block("loop.header")
        body_bb = self.new_block("loop.body") if s.kind == "for" else None
        exit_bb = self.new_block("loop.exit")
        b.br(header)
        self.set_block(header)
        carried = [v.id for v in assigned_vars(s.body) if v.id in self.env]
        counter = b.phi(T.IntType(32), name=s.counter.name)
        counter.add_incoming(self.i32(0), pre)
        again = None
        if first is not None:
            again = b.phi(T.IntType(1), name=self._unique(f"{s.counter.name}.again"))
            again.add_incoming(first, pre)
        cursor = None
        if s.cursor is not None:
            cursor = b.phi(start.type, name=self._unique(f"{s.counter.name}.ptr"))  # type: ignore[union-attr]
            cursor.add_incoming(start, pre)  # type: ignore[arg-type]
            self.cursors[id(s.cursor)] = cursor
        phis: dict[int, V.Value] = {}
        for vid in carried:
            phi = b.phi(self.env[vid].type, name=self._unique(f"{self._var_name(vid)}.loop"))
            phi.add_incoming(self.env[vid], pre)
            phis[vid] = phi
            self.env[vid] = phi
        self.env[s.counter.id] = counter
        frame = _LoopFrame(header, exit_bb, keys)
        if s.kind == "for":
            assert body_bb is not None
            c = b.icmp("ult", counter, trip)
            b.cond_br(c, body_bb, exit_bb)
            frame.breaks.append((dict(self.env), header))
            self.set_block(body_bb)
        self.loops.append(frame)
        self.emit_block(s.body)
        self.loops.pop()
        if self.block is not None:
            if frame.latch is None:
                frame.latch = self.new_block("loop.latch")
            frame.continues.append((dict(self.env), self.block))
            b.br(frame.latch)
        if frame.latch is not None:
            self._merge(frame.latch, frame.continues, list(phis) + [s.counter.id] + [k for k in keys if k not in phis])
            nxt = b.add(self.env[s.counter.id], self.i32(1), name=self._unique(f"{s.counter.name}.next"))
            if cursor is not None:
                assert s.cursor is not None
                step = b.gep(ir_type(s.cursor.buffer.elem), cursor, [self.i64(s.cursor.step)],
                             flags=("inbounds", "nuw"))
            latch_end = self._cur()
            counter.add_incoming(nxt, latch_end)
            if cursor is not None:
                cursor.add_incoming(step, latch_end)
            for vid, phi in phis.items():
                phi.add_incoming(self.env[vid], latch_end)
            if s.kind == "for":
                b.br(header)
            elif again is not None:
                # The test of the next iteration's end (nxt + 1 < trip), carried
                # round; this latch branches on the one computed before.
                ahead = b.icmp("ult", b.add(nxt, self.i32(1)), trip)
                again.add_incoming(ahead, latch_end)
                b.cond_br(again, header, exit_bb)
                frame.breaks.append((dict(self.env), latch_end))
            else:
                c = b.icmp("ult", nxt, trip)
                b.cond_br(c, header, exit_bb)
                frame.breaks.append((dict(self.env), latch_end))
        if not frame.breaks:
            exit_bb.erase()
            self.set_block(None)
            return
        self._merge(exit_bb, frame.breaks, keys)

    def _switch(self, s: Switch) -> None:
        b = self.b
        raw = self.expr(s.sel)
        sel = b.and_(raw, V.const_int(raw.type, 7))
        keys = list(self.env)
        pre_env = dict(self.env)
        head = self._cur()
        case_bbs = [self.new_block("sw.case") for _ in s.cases]
        default_bb = self.new_block("sw.default") if s.default else None
        end_bb = self.new_block("sw.end")
        cases = [(V.const_int(sel.type, v), bb) for case, bb in zip(s.cases, case_bbs, strict=True)
                 for v in case.values]
        b.switch(sel, default_bb or end_bb, cases)
        incoming: list[tuple[dict[int, V.Value], V.BasicBlock]] = []
        fall: tuple[dict[int, V.Value], V.BasicBlock] | None = None
        for i, (case, bb) in enumerate(zip(s.cases, case_bbs, strict=True)):
            edges = [(pre_env, head)] * len(case.values)
            if fall is not None:
                edges.append(fall)
            self._merge(bb, edges, keys)
            fall = None
            self.emit_block(case.body)
            if self.block is None:
                continue
            if case.fallthrough and i + 1 < len(s.cases):
                fall = (dict(self.env), self.block)
                b.br(case_bbs[i + 1])
            else:
                incoming.append((dict(self.env), self.block))
                b.br(end_bb)
        if default_bb is not None:
            self.env = dict(pre_env)
            self.set_block(default_bb)
            self.emit_block(s.default)
            if self.block is not None:
                incoming.append((dict(self.env), self.block))
                b.br(end_bb)
        else:
            incoming.append((pre_env, head))
        if not incoming:
            end_bb.erase()
            self.set_block(None)
            return
        self._merge(end_bb, incoming, keys)

    # ------------------------------------------------------------------
    # Rare control-flow shapes (fuzz.cfg_shapes)

    def _cfg_shape(self, s: Trap | Spin | Irreducible) -> None:
        if isinstance(s, Trap):
            self._trap(s)
        elif isinstance(s, Spin):
            self._spin(s)
        else:
            self._irreducible(s)

    def _trap(self, s: Trap) -> None:
        """`br guard, trap, cont`; `trap: call @llvm.trap; unreachable`."""
        b = self.b
        guard = self.expr(s.guard)
        trap_bb = self.new_block("trap")
        cont = self.new_block("trap.cont")
        b.cond_br(guard, trap_bb, cont)
        self.set_block(trap_bb)
        b.call(self.mod.intrinsic("llvm.trap", T.VoidType(), []), [])
        b.unreachable()
        self.set_block(cont)

    def _spin(self, s: Spin) -> None:
        """`br guard, spin, cont`; `spin:` the body, then back to `spin`."""
        b = self.b
        guard = self.expr(s.guard)
        head = self._cur()
        spin = self.new_block("spin")
        cont = self.new_block("spin.cont")
        b.cond_br(guard, spin, cont)
        saved = dict(self.env)
        self.set_block(spin)
        counter = b.phi(T.IntType(32), name=s.counter.name)
        counter.add_incoming(self.i32(0), head)
        self.env[s.counter.id] = counter
        self.emit_block(s.body)
        nxt = b.add(counter, self.i32(1), name=self._unique(f"{s.counter.name}.next"))
        counter.add_incoming(nxt, self._cur())
        b.br(spin)
        self.env = saved
        self.set_block(cont)

    def _irreducible(self, s: Irreducible) -> None:
        """Two blocks `irr.a` and `irr.b`, each entered from the head and
        from the other; one counter phi in each; both exit to `irr.end`."""
        b = self.b
        cond = self.expr(s.cond)
        trip = b.and_(self.expr(s.trip), self.i32(7))
        self._name(trip, f"{s.counter.name}.trip")
        head = self._cur()
        a_bb = self.new_block("irr.a")
        b_bb = self.new_block("irr.b")
        end = self.new_block("irr.end")
        b.cond_br(cond, a_bb, b_bb)
        saved = dict(self.env)
        ends: list[tuple[V.Value, V.BasicBlock]] = []
        phis = []
        for bb, body, other in ((a_bb, s.first, b_bb), (b_bb, s.second, a_bb)):
            self.env = dict(saved)
            self.set_block(bb)
            phi = b.phi(T.IntType(32), name=self._unique(s.counter.name))
            phi.add_incoming(self.i32(0), head)
            phis.append(phi)
            self.env[s.counter.id] = phi
            self.emit_block(body)
            nxt = b.add(phi, self.i32(1), name=self._unique(f"{s.counter.name}.next"))
            done = b.icmp("uge", nxt, trip)
            ends.append((nxt, self._cur()))
            b.cond_br(done, end, other)
        phis[1].add_incoming(*ends[0])
        phis[0].add_incoming(*ends[1])
        self.env = saved
        self.set_block(end)

    # ------------------------------------------------------------------
    # Expressions

    def _name(self, v: V.Value, base: str) -> None:
        from vectorizer.ir.instructions import Instruction

        if isinstance(v, Instruction) and v.name is None:
            v.name = self._unique(base)

    def _index64(self, v: V.Value) -> V.Value:
        """A signed integer index as i64 (sign-extended)."""
        i64 = T.IntType(64)
        return v if v.type == i64 else self.b.sext(v, i64)

    def _align(self, ty: Ty) -> int:
        return max(1, ty.bits // 8)

    def _wrap(self, v: V.Value, count: int) -> V.Value:
        """`v & (count-1)` in v's own integer type (`count` a power of two)."""
        assert count & (count - 1) == 0, count
        return self.b.and_(v, V.const_int(v.type, count - 1))

    def _priv_ptr(self, arr: PrivArray, idx: V.Value, flags: tuple[str, ...] = (), view: bool = False,
                  generic: bool = False) -> V.Value:
        """The address of element `idx` of a private array (of scalar `idx`
        of its `size * lanes` scalars with `view`), through a generic
        (addrspace 4) pointer with `generic`."""
        zero = V.const_int(idx.type, 0)
        alloca = self.arrays[arr.id]
        base = self.b.cast("addrspacecast", alloca, T.PointerType(4)) if generic else alloca
        if arr.header:
            base = self._priv_field(arr, base)
            if view or arr.size == 1:
                return self.b.gep(ir_type(arr.elem.scalar if view else arr.elem), base, [idx], flags=flags)
            return self.b.gep(T.ArrayType(ir_type(arr.elem), arr.size), base, [zero, idx], flags=flags)
        if view or arr.size == 1:
            return self.b.gep(ir_type(arr.elem.scalar if view else arr.elem), base, [idx], flags=flags)
        aty = T.ArrayType(ir_type(arr.elem), arr.size)
        if arr.union:
            return self.b.gep(alloca.allocated_type, base, [zero, V.const_int(T.IntType(32), 0), idx], flags=flags)
        return self.b.gep(aty, base, [zero, idx], flags=flags)

    def _priv_field(self, arr: PrivArray, base: V.Value | None = None) -> V.Value:
        """The address of a private array's storage: the alloca, or the
        array field after a struct header (fuzz/struct_shapes.py)."""
        alloca = self.arrays[arr.id]
        if not arr.header:
            return alloca
        i32 = T.IntType(32)
        return self.b.gep(alloca.allocated_type, alloca if base is None else base,
                          [V.const_int(i32, 0), V.const_int(i32, len(arr.header))])

    def _load_ptr(self, a: Addr, buf: Buffer, acc: Access) -> V.Value:
        """The address a load of `buf` at `a` reads."""
        if isinstance(a, SelectAddr):
            cond = self.expr(a.cond)
            p = self._load_ptr(a.a, buf, acc)
            q = self._load_ptr(a.b, buf, acc)
            return self.b.select(cond, p, q)
        if isinstance(a, CursorAddr):
            return self.cursors[id(a.cursor)]
        if isinstance(a, Biased):
            # A base pointer inside the buffer, then an index that may be negative.
            ety = ir_type(buf.elem)
            mid = self.b.gep(ety, self.args[id(buf)], [self.i64(a.bias)], flags=acc.gep_flags)
            return self.b.gep(ety, mid, [self._index64(self.expr(a.expr))], flags=acc.gep_flags)
        if buf.two_d:
            assert isinstance(a, PeerSlot)
            return self._peer_ptr_2d(buf, a)
        return self._element_ptr(buf.elem, self.args[id(buf)], self.addr(a, buf), acc)

    def _masked_gather(self, e: VLoad, off: V.Value) -> V.Value:
        """`llvm.masked.gather` of the N elements `vload<N>(off, buf)` reads
        (in bounds), with `e.mask` and `e.passthru`."""
        b, buf = self.b, e.buffer
        assert e.mask is not None and e.passthru is not None
        ety, vty = ir_type(buf.elem), ir_type(e.ty)
        first = b.mul(off, self.i64(e.lanes))
        pty = T.VectorType(self.args[id(buf)].type, e.lanes)
        ptrs: V.Value = V.PoisonValue(pty)
        for lane in range(e.lanes):
            idx = b.add(first, self.i64(lane)) if lane else first
            p = b.gep(ety, self.args[id(buf)], [idx], flags=("inbounds",))
            ptrs = b.insertelement(ptrs, p, lane)
        mask, passthru = self.expr(e.mask), self.expr(e.passthru)
        fn = self.mod.intrinsic(f"llvm.masked.gather.{_intrinsic_suffix(e.ty)}.v{e.lanes}p{buf.addrspace}",
                                vty, [pty, mask.type, vty])
        call = b.call(fn, [ptrs, mask, passthru])
        call.arg_attributes[0] = f"align {self._align(buf.elem)}"
        return call

    def _element_ptr(self, elem: Ty, base: V.Value, idx: V.Value, acc: Access) -> V.Value:
        """The address of element `idx` of a buffer, reached as `acc` says."""
        b = self.b
        ety = ir_type(elem)
        if acc.via == "int":
            # inttoptr(ptrtoint(base) + idx * size): what remove_intptr undoes.
            i64 = T.IntType(64)
            if idx.type != i64:
                idx = b.sext(idx, i64)
            size = max(1, next_pow2(elem.total_bits) // 8)
            off = b.mul(idx, self.i64(size)) if size != 1 else idx
            return b.cast("inttoptr", b.add(b.cast("ptrtoint", base, i64), off), base.type)
        if acc.via == "generic":
            base = b.cast("addrspacecast", base, T.PointerType(4))
        return b.gep(ety, base, [idx], flags=acc.gep_flags)

    def expr(self, e: Expr) -> V.Value:
        b = self.b
        if isinstance(e, Const):
            return self.const(e)
        if isinstance(e, VarRef):
            return self.env[e.var.id]
        if isinstance(e, ParamRef):
            return self.args[id(e.param)]
        if isinstance(e, WorkItem):
            return self.wi(e.kind, e.dim if isinstance(e.dim, int) else self.expr(e.dim))
        if isinstance(e, Lin):
            assert self.lin is not None
            return self.lin
        if isinstance(e, Bin):
            return self._bin(e)
        if isinstance(e, Neg):
            return b.fneg(self.expr(e.a))
        if isinstance(e, Cmp):
            x, y = self.expr(e.a), self.expr(e.b)
            if e.a.ty.is_float:
                return b.fcmp(e.pred, x, y)
            return b.icmp(e.pred, x, y, flags=e.flags)
        if isinstance(e, Select):
            c = self.expr(e.cond)
            return b.select(c, self.expr(e.a), self.expr(e.b))
        if isinstance(e, Cast):
            return self._cast(e)
        if isinstance(e, Math):
            return self._math(e)
        if isinstance(e, Load):
            p = self._load_ptr(e.addr, e.buffer, e.access)
            return b.load(ir_type(e.buffer.elem), p, align=self._align(e.buffer.elem), volatile=e.access.volatile)
        if isinstance(e, PrivLoad):
            n = e.array.size * (e.array.elem.lanes if e.view else 1)
            idx = self._wrap(self.expr(e.index), n)
            p = self._priv_ptr(e.array, idx, e.access.gep_flags, e.view, e.access.via == "generic")
            if e.choice is not None:
                cond = self.expr(e.choice[0])
                other = self._priv_ptr(e.array, self._wrap(self.expr(e.choice[1]), n), e.access.gep_flags, e.view,
                                       e.access.via == "generic")
                p = b.select(cond, p, other)
            return b.load(ir_type(e.ty), p, align=self._align(e.ty), volatile=e.access.volatile)
        if isinstance(e, VLoad):
            buf = e.buffer
            if e.half:
                name = f"{e.half}{e.lanes if e.lanes > 1 else ''}"
                mangled = f"_Z{len(name)}{name}mPU3AS{buf.addrspace}KDh"
            else:
                mangled = mangle_vload(e.lanes, buf.elem, buf.addrspace)
            fn = self.mod.declare(mangled, ir_type(e.ty), [T.IntType(64), T.PointerType(buf.addrspace)])
            if e.base is not None:  # vload(k, &buf[base]): sized for it
                p = self._element_ptr(buf.elem, self.args[id(buf)], self.addr(e.base, buf), Access(("inbounds",)))
                return b.call(fn, [self.i64(e.offset), p])
            off = self.expr(e.expr)
            n = buf.count // e.lanes
            # In bounds: offset * lanes + lanes - 1 < count.
            off = b.urem(off, V.const_int(off.type, n)) if n & (n - 1) else self._wrap(off, n)
            if off.type != T.IntType(64):
                off = b.zext(off, T.IntType(64))
            if e.mask is not None and e.passthru is not None:
                return self._masked_gather(e, off)
            return b.call(fn, [off, self.args[id(buf)]])
        if isinstance(e, PtrDiff):
            i64 = T.IntType(64)
            p = b.cast("ptrtoint", self._load_ptr(e.a, e.buffer, Access()), i64)
            q = b.cast("ptrtoint", self._load_ptr(e.b, e.buffer, Access()), i64)
            d = b.sub(p, q)
            size = _alloc_size(e.buffer.elem)
            return b.binop("sdiv", d, self.i64(size), flags=("exact",)) if size > 1 else d
        if isinstance(e, PtrCmp):
            p = self._load_ptr(e.a, e.buffer, Access())
            q = self._load_ptr(e.b, e.buffer, Access())
            return b.icmp(e.pred, p, q)
        if isinstance(e, WorkDim):
            name = "__mux_get_work_dim" if self.plan.builtins == "mux" else "_Z12get_work_dimv"
            return b.call(self.mod.declare(name, T.IntType(32), []), [])
        if isinstance(e, Builtin):
            return self._builtin(e)
        if isinstance(e, Freeze):
            return b.freeze(self.expr(e.a))
        if isinstance(e, Overflow):
            x, y = self.expr(e.a), self.expr(e.b)
            t = ir_type(e.a.ty)
            bit = ir_type(Ty("i1", e.a.ty.lanes))
            st = T.StructType((t, bit))
            fn = self.mod.intrinsic(f"llvm.{e.op}.with.overflow.{_intrinsic_suffix(e.a.ty)}", st, [t, t])
            return b.extractvalue(b.call(fn, [x, y]), e.part)
        if isinstance(e, Call):
            return self._call(e)
        if isinstance(e, Extract):
            v = self.expr(e.vec)
            return b.extractelement(v, self._lane(e.index, e.vec.ty.lanes))
        if isinstance(e, Insert):
            v = self.expr(e.vec)
            x = self.expr(e.elem)
            return b.insertelement(v, x, self._lane(e.index, e.vec.ty.lanes))
        if isinstance(e, Shuffle):
            return b.shufflevector(self.expr(e.a), self.expr(e.b), list(e.mask))
        if isinstance(e, Splat):
            x = self.expr(e.a)
            vt = ir_type(e.ty)
            one = b.insertelement(V.PoisonValue(vt), x, self.i64(0))
            return b.shufflevector(one, V.PoisonValue(vt), [0] * e.lanes)
        raise TypeError(f"unknown expression {type(e).__name__}")  # pragma: no cover

    def _lane(self, index: Expr | int, lanes: int) -> V.Value:
        if isinstance(index, int):
            return self.i64(index)
        v = self.expr(index)
        if lanes & (lanes - 1):  # 3 lanes: `urem` (the divisor is a non-zero constant)
            return self.b.urem(v, V.const_int(v.type, lanes))
        return self._wrap(v, lanes)

    def _bin(self, e: Bin) -> V.Value:
        b = self.b
        x, y = self.expr(e.a), self.expr(e.b)
        ty = e.ty
        op = e.op
        if op in ("shl", "lshr", "ashr"):
            y = b.and_(y, self.ci(ty, ty.bits - 1))
        elif op in ("udiv", "urem"):
            y = b.select(b.icmp("eq", y, self.ci(ty, 0)), self.ci(ty, 1), y)
        elif op in ("sdiv", "srem"):
            assert not ty.is_bool, "signed division of i1 cannot be guarded"
            zero = b.icmp("eq", y, self.ci(ty, 0))
            minimum = b.icmp("eq", x, self.ci(ty, -(1 << (ty.bits - 1))))
            minus1 = b.icmp("eq", y, self.ci(ty, -1))
            bad = b.or_(zero, b.and_(minimum, minus1))
            y = b.select(bad, self.ci(ty, 1), y)
        return b.binop(op, x, y, flags=e.flags)

    def _cast(self, e: Cast) -> V.Value:
        b = self.b
        x = self.expr(e.a)
        dst = ir_type(e.ty)
        if e.op in ("fptosi.sat", "fptoui.sat"):
            name = f"llvm.{e.op}.{_intrinsic_suffix(e.ty)}.{_intrinsic_suffix(e.a.ty)}"
            fn = self.mod.intrinsic(name, dst, [x.type])
            return b.call(fn, [x])
        if e.op in ("fptosi.clamp", "fptoui.clamp"):
            # Ordered compares: NaN goes to the low bound; then the conversion is in range.
            src = e.a.ty
            signed = e.op == "fptosi.clamp"
            lo = -(1 << (e.ty.bits - 1)) if signed else 0
            hi = _largest_below((1 << (e.ty.bits - (1 if signed else 0))) - 1, src.scalar)
            lo_c = self._fconst(src, float(lo))
            hi_c = self._fconst(src, hi)
            x = b.select(b.fcmp("oge", x, lo_c), x, lo_c)
            x = b.select(b.fcmp("ole", x, hi_c), x, hi_c)
            return b.cast("fptosi" if signed else "fptoui", x, dst)
        return b.cast(e.op, x, dst, flags=e.flags)

    def _fconst(self, ty: Ty, value: float) -> V.Value:
        t = ir_type(ty)
        if isinstance(t, T.VectorType):
            return V.splat(t, V.const_fp(t.element, value))
        return V.const_fp(t, value)

    def _math(self, e: Math) -> V.Value:
        b = self.b
        args = [self.expr(a) for a in e.args]
        t = ir_type(e.ty)
        name = f"llvm.{e.fn}.{_intrinsic_suffix(e.ty)}"
        types = [t] * len(args)
        if e.fn in ("abs", "ctlz", "cttz"):
            args.append(V.const_int(T.IntType(1), 0))  # INT_MIN / zero input: defined
            types.append(T.IntType(1))
        fn = self.mod.intrinsic(name, t, types)
        return b.call(fn, args)

    def _atomic_call(self, s: Atomic, p: V.Value, value: V.Value) -> None:
        """`atom_<op>(p, value)` / `atomic_<op>(p, value)` (`_inc`/`_dec(p)` for
        a step of 1), mangled as clang does for a `volatile __global` pointer."""
        unsigned = s.op in ("umax", "umin")
        op = {"umax": "max", "umin": "min"}.get(s.op, s.op)
        if s.step:
            op = "inc" if s.op == "add" else "dec"
        name = f"{s.builtin}_{op}"
        code = _ITANIUM[s.buffer.elem.elem][1 if unsigned else 0]
        space = s.buffer.addrspace
        mangled = f"_Z{len(name)}{name}PU3AS{space}V{code}" if space else f"_Z{len(name)}{name}PV{code}"
        args = [p]
        if not s.step:
            mangled += code
            args.append(value)
        fn = self.mod.declare(mangled, value.type, [a.type for a in args])
        self.b.call(fn, args)

    def _cas(self, s: Atomic, p: V.Value, value: V.Value) -> None:
        """`*p op= value` as a compare-and-swap loop from an atomic load."""
        b = self.b
        ty = value.type
        align = self._align(s.buffer.elem)
        first = b.load(ty, p, align=align, ordering="monotonic")
        pre = self._cur()
        loop = self.new_block("cas.loop")
        done = self.new_block("cas.done")
        b.br(loop)
        self.set_block(loop)
        old = b.phi(ty)
        new = b.binop(s.op, old, value)
        pair = b.cmpxchg(p, old, new, success_ordering=s.ordering, failure_ordering="monotonic", align=align)
        seen = b.extractvalue(pair, 0)
        ok = b.extractvalue(pair, 1)
        old.add_incoming(first, pre)
        old.add_incoming(seen, loop)
        b.cond_br(ok, done, loop)
        self.set_block(done)

    def _copy_out(self, s: CopyOut) -> None:
        b = self.b
        base = self.slot_base[id(s.buffer)]
        slot = s.slot + (1 if s.move else 0)
        idx = b.add(base, self.i64(slot)) if slot else base
        dst = self._element_ptr(s.buffer.elem, self.args[id(s.buffer)], idx, Access())
        nbytes = V.const_int(T.IntType(64), _alloc_size(s.buffer.elem) * s.count)
        false = V.const_int(T.IntType(1), 0)
        src: V.Value | None = None
        if s.move:
            first = b.add(base, self.i64(s.slot)) if s.slot else base
            src = self._element_ptr(s.buffer.elem, self.args[id(s.buffer)], first, Access())
            kind = "memmove"
        elif s.array is not None:
            src, kind = self._priv_field(s.array), "memcpy"
        elif s.source is not None:
            assert s.addr is not None
            src = self._element_ptr(s.source.elem, self.args[id(s.source)], self.addr(s.addr, s.source), Access())
            kind = "memcpy"
        if src is None:
            fn = self.mod.intrinsic(f"llvm.memset.p{s.buffer.addrspace}.i64", T.VoidType(),
                                    [dst.type, T.IntType(8), T.IntType(64), T.IntType(1)])
            b.call(fn, [dst, V.const_int(T.IntType(8), 0), nbytes, false])
            return
        src_as = src.type.addrspace  # type: ignore[attr-defined]
        fn = self.mod.intrinsic(f"llvm.{kind}.p{s.buffer.addrspace}.p{src_as}.i64", T.VoidType(),
                                [dst.type, src.type, T.IntType(64), T.IntType(1)])
        b.call(fn, [dst, src, nbytes, false])

    def _priv_init(self, s: PrivInit) -> None:
        b = self.b
        arr = s.array
        dst = self._priv_field(arr)
        nbytes = V.const_int(T.IntType(64), _alloc_size(arr.elem) * arr.size)
        false = V.const_int(T.IntType(1), 0)
        if s.other is not None:
            fn = self.mod.intrinsic("llvm.memcpy.p0.p0.i64", T.VoidType(),
                                    [dst.type, dst.type, T.IntType(64), T.IntType(1)])
            b.call(fn, [dst, self._priv_field(s.other), nbytes, false])
            return
        if s.source is None:
            fn = self.mod.intrinsic("llvm.memset.p0.i64", T.VoidType(),
                                    [dst.type, T.IntType(8), T.IntType(64), T.IntType(1)])
            b.call(fn, [dst, V.const_int(T.IntType(8), 0), nbytes, false])
            return
        assert s.addr is not None
        src = self._element_ptr(s.source.elem, self.args[id(s.source)], self.addr(s.addr, s.source), Access())
        fn = self.mod.intrinsic(f"llvm.memcpy.p0.p{s.source.addrspace}.i64", T.VoidType(),
                                [dst.type, src.type, T.IntType(64), T.IntType(1)])
        b.call(fn, [dst, src, nbytes, false])

    def _printf(self, s: Printf) -> None:
        from vectorizer.ir.module import GlobalVariable

        data = s.fmt.encode() + b"\0"
        aty = T.ArrayType(T.IntType(8), len(data))
        name = f".str{len(self.mod.module.globals)}"
        gv = GlobalVariable(name, aty, V.ConstantDataString(aty, data), linkage="private", is_constant=True,
                            addrspace=2, align=1, attrs="unnamed_addr")
        self.mod.module.add_global(gv)
        fmt_ty = T.PointerType(2)
        fn = self.mod.declare("printf", T.IntType(32), [fmt_ty])
        if not fn.function_type.vararg:
            fn.function_type = T.FunctionType(T.IntType(32), (fmt_ty,), True)
        self.b.call(fn, [gv, *[self.expr(a) for a in s.args]])

    def _builtin(self, e: Builtin) -> V.Value:
        args = [self.expr(a) for a in e.args]
        if e.params:  # an overload of the builtin library (fuzz.builtin_calls)
            name = mangled_name(e.name, e.params)
            attrs = "noinline" if e.noinline else ""
            if e.out is None:
                fn = self.mod.declare(name, ir_type(e.ty), [a.type for a in args])
                return self.b.call(fn, args, attributes=attrs)
            # The second result goes to a private slot made in the entry block.
            out_ty = ir_type(e.out)
            # Aligned as OpenCL aligns a `floatn` (its whole size): the
            # library's body stores the vector with that alignment.
            slot = Builder().position_at_start(self.fn.blocks[0]).alloca(out_ty, align=_alloc_size(e.out))
            # Each of them returns the type of its (first) float argument.
            fn = self.mod.declare(name, args[0].type, [*(a.type for a in args), slot.type])
            value = self.b.call(fn, [*args, slot], attributes=attrs)
            return value if e.part == 0 else self.b.load(out_ty, slot, align=_alloc_size(e.out))
        if is_collective_builtin(e.name):  # the `subgroup` profile's (fuzz.subgroup_kernels)
            name = mangle_collective(e.name, [a.ty for a in e.args], e.signed, self.plan.builtins == "mux")
        elif e.name == "convert":
            name = mangle(f"convert_{_opencl_type(e.ty, e.signed)}{e.suffix}", [a.ty for a in e.args], e.signed)
        else:
            name = mangle(e.name, [a.ty for a in e.args], e.signed)
        fn = self.mod.declare(name, ir_type(e.ty), [a.type for a in args])
        return self.b.call(fn, args)

    def _call(self, e: Call) -> V.Value:
        h = e.helper
        args = [self.expr(a) for a in e.args]
        if h.out is not None:
            args.append(self.args[id(h.out)])
            if self.helper is not None:  # pragma: no cover - helpers only call pure helpers
                raise AssertionError("side-effect helpers are called from the kernel only")
            args.append(self.slot_base[id(h.out)])
        if h.counter is not None:
            args.append(self.args[id(h.counter)])
        return self.b.call(self.mod.helper_fn(h), args)

    # ------------------------------------------------------------------
    # Addresses

    def addr(self, a: Addr, buf: Buffer) -> V.Value:
        b = self.b
        if isinstance(a, ConstAddr):
            return self.i64(a.index)
        if isinstance(a, Wrapped):
            return self._wrap(self.expr(a.expr), buf.count)
        if isinstance(a, Block):
            v = self.expr(a.expr)
            return b.and_(v, V.const_int(v.type, buf.count - a.size))
        if isinstance(a, LocalSlot):
            base = self.slot_base[id(buf)]
            return b.add(base, self.i64(a.slot)) if a.slot else base
        if isinstance(a, PeerSlot):
            return self._peer_slot(a)
        if isinstance(a, Biased):
            return b.add(self._index64(self.expr(a.expr)), self.i64(a.bias), flags=("nsw",))
        if isinstance(a, Indirect):
            inner = self.addr(a.inner, a.index_buffer)
            p = b.gep(T.IntType(32), self.args[id(a.index_buffer)], [inner])
            return self._wrap(b.load(T.IntType(32), p, align=4), buf.count)
        assert isinstance(a, Affine)
        if a.base == "lin":
            assert self.lin is not None
            base = self.lin
        else:
            kind = {"gid": "global_id", "lid": "local_id", "grp": "group_id"}[a.base]
            base = self.wi(kind, a.dim if isinstance(a.dim, int) else self.args[id(a.dim)])
        ity = T.IntType(32) if a.narrow else T.IntType(64)
        if a.narrow:
            base = b.trunc(base, ity)
        idx = base
        # In bounds by construction, so signed arithmetic cannot wrap: `nsw`,
        # as clang emits for OpenCL C's `int` index arithmetic.
        nsw = ("nsw",)
        if a.stride != 1:
            idx = b.mul(idx, V.const_int(ity, a.stride), flags=nsw)
        if a.offset:
            idx = b.add(idx, V.const_int(ity, a.offset), flags=nsw)
        if a.counter is not None:
            c = self.env[a.counter.id]
            if not a.narrow:
                c = b.zext(c, ity)
            idx = b.add(idx, c, flags=nsw)
        if a.clamp_hi is not None:
            suffix = f"i{ity.bits}"
            lo = self.mod.intrinsic(f"llvm.smax.{suffix}", ity, [ity, ity])
            hi = self.mod.intrinsic(f"llvm.smin.{suffix}", ity, [ity, ity])
            idx = b.call(lo, [idx, V.const_int(ity, 0)])
            idx = b.call(hi, [idx, V.const_int(ity, a.clamp_hi)])
        return idx
