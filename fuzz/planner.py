"""The planner: draws a `KernelPlan` from a choice source.

Every decision is one draw from `fuzz.choice_source.Choices`, and options are
ordered so that the smallest draw is the simplest (a leaf before an operator,
a constant before a load, no `else` before an `else`, fewer statements
before more): Hypothesis shrinks a failing kernel towards small, plain code.

Expressions are generated for a wanted type and a *mode*: `varying` (must
depend on the work-item: steers branches and loops to diverge), `uniform`
(must not: uniform branches, loops and addresses), `invariant` (the same for
every work-item of the whole NDRange: the only values stored at a uniform
address) or `any`. The modes are what the planner aims at;
`fuzz.coverage` recomputes divergence on the finished plan.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass, replace

from .builtin_calls import BuiltinCalls
from .cfg_shapes import add_shapes as add_cfg_shapes
from .choice_source import Choices, ChoiceSource
from .knobs import Knobs
from .plan import (
    ATOMIC_FAMILIES,
    F16,
    F32,
    FLOAT_MATH,
    I1,
    I8,
    I32,
    I64,
    INT_MATH,
    OVERFLOW_OPS,
    VECTOR_TYPES,
    Access,
    Addr,
    Affine,
    Assign,
    Atomic,
    Biased,
    Bin,
    Block,
    Break,
    Buffer,
    Call,
    CallStmt,
    Cast,
    Cmp,
    Const,
    ConstAddr,
    Continue,
    CopyOut,
    Cursor,
    CursorAddr,
    Expr,
    Extract,
    Freeze,
    Helper,
    If,
    Indirect,
    Insert,
    KernelPlan,
    Let,
    Lin,
    Load,
    LocalSlot,
    Loop,
    Math,
    NDRange,
    Neg,
    Overflow,
    Param,
    ParamRef,
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
    Splat,
    Stmt,
    Store,
    Switch,
    SwitchCase,
    Ty,
    UniformStore,
    Var,
    VarRef,
    VLoad,
    VStore,
    WorkDim,
    WorkItem,
    Wrapped,
    max_id,
    memory_type,
    walk_expr,
    walk_stmts,
)
from .recursion import add_recursion
from .struct_shapes import struct_header
from .value_shapes import add_narrow_wrap, extended_near_limit, near_signed_limit

ANY, VARYING, UNIFORM, INVARIANT = "any", "varying", "uniform", "invariant"

INT_BINOPS = (
    (3.0, "add"), (2.0, "sub"), (2.0, "mul"), (1.5, "and"), (1.5, "or"), (1.5, "xor"),
    (1.0, "shl"), (1.0, "lshr"), (1.0, "ashr"), (0.7, "udiv"), (0.7, "sdiv"),
    (0.7, "urem"), (0.7, "srem"),
)
BOOL_BINOPS = ((3.0, "and"), (3.0, "or"), (2.0, "xor"))
FLOAT_BINOPS = ((3.0, "fadd"), (2.0, "fsub"), (2.0, "fmul"), (1.0, "fdiv"), (0.5, "frem"))
INT_PREDS = ("eq", "ne", "slt", "sgt", "ult", "ugt", "sle", "sge", "ule", "uge")
FLOAT_PREDS = (
    "olt", "ogt", "oeq", "one", "ole", "oge", "ult", "ugt", "ueq", "une", "ord", "uno",
)
INT_CONSTS = (0, 1, 2, -1, 3, 7, 8, 5, 16, 31, 100, 255, 1000, -7, 12345, "min", "max")
FLOAT_CONSTS = (
    0.0, 1.0, -1.0, 0.5, 2.0, 3.0, -2.5, 10.0, 0.1, 100.0, -0.0, 1.0e-3, 12345.678,
    1.0e30, float("inf"), float("-inf"), 1.0e-40,
)
LOCAL_SIZES_1D = (16, 8, 32, 12, 7, 1, 64, 5, 24, 3)
LOCAL_SIZES_2D = ((8, 2), (4, 4), (16, 1), (5, 3), (1, 4), (8, 8), (3, 2))
LOCAL_SIZES_3D = ((4, 2, 2), (8, 2, 1), (2, 2, 2), (3, 1, 2), (1, 2, 3))
MIN_INPUT_ELEMS = 64  # constant indices stay below this


def f16_round(x: float) -> float:
    """`x` rounded to the nearest binary16 value (infinite beyond its range)."""
    if x != x or x in (float("inf"), float("-inf")):
        return x
    try:
        return struct.unpack("<e", struct.pack("<e", x))[0]
    except OverflowError:
        return float("inf") if x > 0 else float("-inf")


def f32_round(x: float) -> float:
    """`x` rounded to the nearest binary32 value (exactly representable in f32)."""
    if x != x or x in (float("inf"), float("-inf")):
        return x
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return float("inf") if x > 0 else float("-inf")


def wrap_int(value: int, bits: int) -> int:
    """`value` as a signed `bits`-bit integer."""
    if bits == 1:
        return value & 1
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >= 1 << (bits - 1) else value


def next_pow2(n: int) -> int:
    p = 1
    while p < n:
        p <<= 1
    return p


@dataclass
class _LoopCtx:
    counter: Var
    max_trip: int
    divergent: bool
    cursor: Cursor | None = None


class Planner:
    """Draws one kernel plan. Use once: `Planner(source, knobs).plan()`."""

    def __init__(self, source: ChoiceSource, knobs: Knobs, name: str = "fuzz_kernel") -> None:
        self.c = Choices(source)
        # A work-group kernel never returns early: a return before a barrier
        # is barrier divergence (fuzz.workgroup).
        self.k = replace(knobs, early_return=False) if knobs.workgroup or knobs.subgroup else knobs
        self.name = name
        self._next_id = 0
        self.scopes: list[list[Var]] = []
        self.loops: list[_LoopCtx] = []
        self.divergent = 0  # enclosing divergent constructs
        self.exited_divergently = False  # a divergent early return happened before
        self.returns = 0  # early returns drawn so far (at most two per kernel)
        self.iterations = 1  # product of the enclosing loops' trip bounds
        self.budget = 0
        self.params: list[Param] = []
        self.in_bufs: dict[Ty, Buffer] = {}
        self.out_bufs: dict[Ty, Buffer] = {}
        self.uniform_bufs: dict[Ty, Buffer] = {}
        self.counter_bufs: dict[Ty, Buffer] = {}
        self.local_bufs: dict[Ty, Buffer] = {}
        self.counter_families: dict[str, tuple[str, ...]] = {}
        self.index_buf: Buffer | None = None
        self.arrays: list[PrivArray] = []
        self.helpers: list[Helper] = []
        self.helper: Helper | None = None  # the helper being generated, if any
        self.counters: dict[int, int] = {}  # loop counter var id -> its largest value
        self.ndranges: list[NDRange] = []
        self.dims = 1
        self.palette: list[Ty] = [I32]
        self.vec_palette: list[Ty] = []
        self._buf_names = 0
        self.dim_param: ScalarParam | None = None  # the run-time dimension argument
        self._in_dim = False  # drawing a computed dimension (no nested ones)
        self._in_select = False  # drawing the addresses of a pointer select (no nested ones)
        self._builtin_calls: BuiltinCalls | None = None
        # Drawing a function the vectorized kernel calls once per lane without
        # inlining it (fuzz.recursion): there, a work-item or local id query
        # would answer the packet's first work-item, so none is drawn, nor a
        # call to another helper (which may query them).
        self.lane_free = False

    # ------------------------------------------------------------------
    # Entry point

    def plan(self) -> KernelPlan:
        c, k = self.c, self.k
        self.ndranges = self._ndranges()
        self.dims = max(_dims_of(r) for r in self.ndranges)
        self._palettes()
        for _ in range(c.integer(0, k.max_params)):
            self._scalar_param()
        if k.runtime_dims and c.boolean(0.3):
            self._dim_param()
        if k.helpers:
            for i in range(c.integer(0, k.max_helpers)):
                self.helpers.append(self._helper(i))
        body: list[Stmt] = []
        self.scopes.append([])
        if k.private_arrays:
            for _ in range(c.integer(0, k.max_arrays)):
                body.append(self._private_array())
        filled = len(body)  # rare shapes go after the arrays are filled
        self.budget = k.size
        wg = None
        if k.workgroup:
            from .workgroup import WorkGroupPlanner

            wg = WorkGroupPlanner(self)
        sg = None
        if k.subgroup:
            from .subgroup_kernels import SubGroupPlanner

            sg = SubGroupPlanner(self)
        while self.budget > 0:
            if wg is not None and c.boolean(0.3):
                body.extend(wg.phase())
            elif sg is not None and c.boolean(0.5):
                body.extend(sg.phase())
            else:
                body.append(self.stmt(0))
        if wg is not None and not wg.tiles:
            body.extend(wg.phase())
        if sg is not None and not sg.drawn:
            body.extend(sg.phase())
        body.extend(self._epilogue())
        add_cfg_shapes(self, body, filled)
        self.scopes.pop()
        lin_form = "group" if k.work_item_builtins and c.boolean(0.3) else "global"
        builtins = "mux" if k.mux_builtins and c.boolean(0.25) else "opencl"
        if k.access_forms:
            self._decorate(body)
        plan = KernelPlan(
            name=self.name,
            ndranges=self.ndranges,
            params=self.params,
            arrays=self.arrays,
            helpers=self.helpers,
            body=body,
            lin_form=lin_form,
            builtins=builtins,
            dims=self.dims,
            buffer_seed=c.integer(0, 2**16),
            dim_param=self.dim_param,
        )
        if wg is not None:
            wg.finish(plan)
        # Drawn last, so a kernel without them is the one its seed gave
        # before they existed.
        add_narrow_wrap(self, body, filled)
        add_recursion(self, body, filled)
        finalize(plan, self.counters)
        return plan

    # ------------------------------------------------------------------
    # Kernel-level declarations

    def _ndranges(self) -> list[NDRange]:
        c, k = self.c, self.k
        first = self._ndrange(c.integer(1, max(1, min(3, k.max_dims))))
        out = [first]
        if k.multi_ndrange and c.boolean(0.2):
            second = self._ndrange(_dims_of(first))
            if second != first:
                out.append(second)
        return out

    def _ndrange(self, dims: int) -> NDRange:
        c, k = self.c, self.k
        if dims == 1:
            local: tuple[int, ...] = (c.choice(LOCAL_SIZES_1D),)
        elif dims == 2:
            local = c.choice(LOCAL_SIZES_2D)
        else:
            local = c.choice(LOCAL_SIZES_3D)
        groups = []
        total = 1
        for lo in local:
            total *= lo
        for _ in local:
            most = max(1, min(4, k.max_total // max(1, total)))
            g = c.integer(1, most)
            total *= g
            groups.append(g)
        glob = [lo * g for lo, g in zip(local, groups, strict=False)]
        offset = [0] * dims
        if k.offsets and c.boolean(0.15):
            offset = [c.integer(0, 9) for _ in range(dims)]
        pad = [1] * (3 - dims)
        zero = [0] * (3 - dims)
        return NDRange(tuple(glob + pad), tuple(list(local) + pad), tuple(offset + zero))  # type: ignore[arg-type]

    def _palettes(self) -> None:
        c, k = self.c, self.k
        scalars = [Ty(t) for t in ("i32", "i1", "i64", "f32", "i8", "i16", "f64", "f16") if t in k.types]
        self.palette = [I32] if "i32" in k.types or not scalars else []
        for t in scalars:
            if t != I32 and c.boolean(0.45):
                self.palette.append(t)
        if not self.palette:
            self.palette = [scalars[0]]
        if k.vectors:
            allowed = [v for v in VECTOR_TYPES if v.elem in k.types]
            for v in allowed:
                if c.boolean(k.vector_types):
                    self.vec_palette.append(v)

    def _scalar_param(self) -> None:
        c = self.c
        options = [t for t in self.palette if t != I1] or [I32]
        vectors = [v for v in self.vec_palette if v.lanes != 3 and not v.is_bool]
        ty = c.choice(vectors) if vectors and c.boolean(0.15) else c.choice(options)
        value: int | float  # a vector argument is the value in every lane
        if ty.is_float:
            value = self._float_value(ty)
        else:
            value = self._int_value(ty.scalar)
        self.params.append(ScalarParam(f"arg{len(self.params)}", ty, value))

    def _dim_param(self) -> None:
        """The kernel argument work-item queries take as a run-time dimension:
        0, 1 or 2 (each the vectorized dimension in some configuration of
        the header, another one in the rest), sometimes out of range (ids
        answer 0, sizes 1)."""
        value = self.c.weighted([(3.0, 0), (3.0, 1), (3.0, 2), (1.0, 3), (0.5, -1)])
        self.dim_param = ScalarParam(f"arg{len(self.params)}", I32, value)
        self.params.append(self.dim_param)

    def _buffer(self, role: str, elem: Ty) -> Buffer:
        b = Buffer(f"{role}{self._buf_names}", role, elem)
        self._buf_names += 1
        self.params.append(b)
        return b

    def in_buf(self, ty: Ty) -> Buffer:
        if ty not in self.in_bufs:
            b = self._buffer("in", ty)
            if self.k.constant_buffers and self.c.boolean(0.3):
                b.addrspace = 2  # `__constant`: read-only, as the role is
            self.in_bufs[ty] = b
        return self.in_bufs[ty]

    def out_buf(self, ty: Ty) -> Buffer:
        if ty not in self.out_bufs:
            b = self._buffer("out", ty)
            scatter = "scatter" in self.k.memory
            reverse = "reverse" in self.k.memory
            b.mapping = self.c.weighted([
                (4.0, "linear"), (1.0 if reverse else 0.0, "reverse"),
                (1.0 if scatter else 0.0, "perm"), (1.0 if scatter else 0.0, "indirect"),
            ])
            if b.mapping in ("perm", "indirect"):
                b.perm_mul = 2 * self.c.integer(0, 20) + 1
                b.perm_xor = self.c.integer(0, 255)
            if b.mapping == "indirect":
                b.iota = self._buffer("iota", I32)
            b.slots = 0
            self.out_bufs[ty] = b
        return self.out_bufs[ty]

    def local_buf(self, ty: Ty) -> Buffer:
        if ty not in self.local_bufs:
            b = self._buffer("local", ty)
            b.addrspace = 3
            self.local_bufs[ty] = b
        return self.local_bufs[ty]

    def uniform_buf(self, ty: Ty) -> Buffer:
        if ty not in self.uniform_bufs:
            self.uniform_bufs[ty] = self._buffer("uniform", ty)
        return self.uniform_bufs[ty]

    def counter_buf(self, ty: Ty) -> Buffer:
        if ty not in self.counter_bufs:
            b = self._buffer("counter", ty)
            b.count = self.c.choice((4, 1, 8, 16))
            self.counter_bufs[ty] = b
        return self.counter_bufs[ty]

    def get_index_buf(self) -> Buffer:
        if self.index_buf is None:
            self.index_buf = self._buffer("index", I32)
        return self.index_buf

    def _private_array(self) -> Stmt:
        """Declare a private array and fill it in a uniform loop (no read of an
        uninitialised element is possible afterwards)."""
        c, k = self.c, self.k
        elems = [t for t in self.palette if t != I1] + self.vec_palette or [I32]
        elem = c.choice(elems)
        if self.arrays and k.mem_intrinsics and c.boolean(0.3):
            elem = c.choice(self.arrays).elem  # another array like one before: it may be copied from it
        arr = PrivArray(len(self.arrays), elem, c.choice((4, 8, 2, 16, 1)))
        # Size 1: a private scalar kept in memory (`alloca T`, accessed volatile).
        arr.union = k.access_forms and arr.size > 1 and c.boolean(0.2)
        if not arr.union and k.access_forms and c.boolean(0.3):
            arr.header = struct_header(c)
        init = c.weighted([(4.0, "loop"), (1.0 if k.mem_intrinsics else 0.0, "memset"),
                           (1.0 if k.mem_intrinsics and arr.elem.lanes != 3 else 0.0, "memcpy")])
        if init != "loop":
            source, addr = None, None
            bigger = [a for a in self.arrays if a.elem == arr.elem and a.size >= arr.size]
            if init == "memcpy" and bigger and c.boolean(0.4):
                other = c.choice(bigger)
                arr.varying = other.varying
                self.arrays.append(arr)
                return PrivInit(arr, other=other)
            if init == "memcpy":
                source = self.in_buf(arr.elem)
                addr = Block(self.expr(c.choice((I32, I64)), 2, ANY), arr.size)
                arr.varying = _mentions_varying(addr.expr)
            self.arrays.append(arr)
            return PrivInit(arr, source, addr)
        counter = self._var(I32)
        self.counters[counter.id] = arr.size - 1
        self.scopes.append([counter])
        self.loops.append(_LoopCtx(counter, arr.size, False))
        value = self.expr(arr.elem, 2, ANY)
        self.loops.pop()
        self.scopes.pop()
        arr.varying = _mentions_varying(value)
        self.arrays.append(arr)  # only now: the fill must not read the array itself
        store = PrivStore(arr, VarRef(counter), value)
        return Loop(counter, "for", Const(I32, arr.size), "umin", arr.size, [store])

    def _decorate(self, body: list[Stmt]) -> None:
        """Draw how each memory access of the kernel and its helpers reaches
        its element (`fuzz.plan.Access`). Every index is in bounds and
        non-negative by construction, so `inbounds` and `nuw` hold."""
        bodies = [h.body for h in self.helpers] + [body]
        for b in bodies:
            self.decorate_stmts(b)
        for h in self.helpers:
            if h.result is not None:
                for x in walk_expr(h.result):
                    if isinstance(x, Load):
                        x.access = self._access(x.buffer)

    def decorate_stmts(self, stmts: list[Stmt]) -> None:
        """Draw the `Access` of every store and load in `stmts` (see `_decorate`)."""
        for st, _ in walk_stmts(stmts):
            if isinstance(st, (Store, PrivStore)):
                st.access = self._access(st.buffer if isinstance(st, Store) else None)
                if isinstance(st, PrivStore) and st.array.size == 1:
                    st.access.volatile = True
            for e in st.exprs():
                for x in walk_expr(e):
                    if isinstance(x, Load):
                        x.access = self._access(x.buffer)
                    elif isinstance(x, PrivLoad):
                        x.access = self._access(None)
                        x.access.volatile |= x.array.size == 1

    def _access(self, buf: Buffer | None) -> Access:
        c = self.c
        flags = c.weighted([(3.0, ()), (3.0, ("inbounds",)), (3.0, ("inbounds", "nuw")), (0.5, ("nuw",))])
        via = "generic" if buf is None and c.boolean(0.1) else "gep"
        if buf is not None:
            via = c.weighted([(8.0, "gep"), (1.0, "int"), (1.0 if buf.addrspace in (1, 3) else 0.0, "generic")])
        return Access(flags, via, c.boolean(0.05))

    # ------------------------------------------------------------------
    # Helpers

    def _helper(self, index: int) -> Helper:
        c, k = self.c, self.k
        types = [t for t in self.palette] + self.vec_palette
        params = [self._var(c.choice(types), varying=True) for _ in range(c.integer(1, 3))]
        side = k.side_effect_helpers and c.boolean(0.4)
        ret: Ty | None = c.choice(types)
        if side and c.boolean(0.5):
            ret = None
        h = Helper(f"helper{index}", params, ret, [], None)
        if side:
            h.out = self.out_buf(c.choice([t for t in self.palette if t != I1] or [I32]))
            if k.atomics and c.boolean(0.4):
                h.counter = self.counter_buf(c.choice((I32, I64)))
        saved_budget = self.budget
        self.helper = h
        self.scopes.append(list(params))
        self.budget = max(1, min(6, k.size // 3))
        body: list[Stmt] = []
        while self.budget > 0 and c.boolean(0.8):
            body.append(self.stmt(1))
        if h.out is not None and not any(isinstance(s, Store) for s, _ in walk_stmts(body)):
            body.append(self._store_stmt())
        h.body = body
        h.result = self.expr(ret, k.expr_depth, ANY) if ret is not None else None
        self.scopes.pop()
        self.helper = None
        self.budget = saved_budget
        return h

    # ------------------------------------------------------------------
    # Variables and scopes

    def _var(self, ty: Ty, varying: bool = False) -> Var:
        v = Var(self._next_id, ty, varying)
        self._next_id += 1
        return v

    def visible(self) -> list[Var]:
        return [v for scope in self.scopes for v in scope]

    def in_divergence(self) -> bool:
        return (
            self.divergent > 0
            or self.exited_divergently
            or any(lp.divergent for lp in self.loops)
        )

    # ------------------------------------------------------------------
    # Statements

    def block(self, depth: int) -> list[Stmt]:
        out: list[Stmt] = []
        self.scopes.append([])
        n = self.c.integer(1, self.k.max_block)
        for _ in range(n):
            if self.budget <= 0:
                break
            out.append(self.stmt(depth))
        local = [v for v in self.scopes[-1] if v.ty.lanes == 1 or v.ty in self.vec_palette]
        can_store = self.helper is None or self.helper.out is not None
        if local and can_store and self.c.boolean(0.5):
            out.append(self._observe(self.c.choice(local)))
        self.scopes.pop()
        return out

    def _observe(self, var: Var) -> Stmt:
        """Store a variable into a fresh output slot (so its value is compared)."""
        value: Expr = VarRef(var)
        if self.helper is None:
            return self.store_value(value)
        assert self.helper.out is not None
        buf = self.helper.out
        if var.ty != buf.elem:
            value = self.expr(buf.elem, 1, ANY)
        slot = buf.slots
        buf.slots += 1
        return Store(buf, slot, value)

    def store_value(self, value: Expr) -> Store:
        """Store `value` (of the kernel) into a fresh output slot, as `_observe` does a variable."""
        if value.ty.is_bool:
            value = Cast("zext", value, I8.with_lanes(value.ty.lanes))
        value = _in_memory(value)
        buf = self.out_buf(value.ty)
        slot = buf.slots
        buf.slots += 1
        return Store(buf, slot, value)

    def stmt(self, depth: int) -> Stmt:
        c, k = self.c, self.k
        self.budget -= 1
        nest_ok = depth < k.max_depth and self.budget > 0
        in_loop = bool(self.loops)
        kernel = self.helper is None
        can_store = kernel or (self.helper is not None and self.helper.out is not None)
        loop_limit = min(k.max_trip, k.max_iterations // self.iterations)
        can_loop = (
            k.loops and nest_ok and loop_limit >= 1
            and len(self.loops) < (k.max_loop_nest if k.nested_loops else 1)
        )
        can_jump = (in_loop and k.break_continue) or (
            kernel and k.early_return and (not in_loop or k.multi_exit) and self.returns < 2
        )
        assignable = self._assignable()
        can_atomic = k.atomics and (kernel or (self.helper is not None and self.helper.counter is not None))
        side_helpers = [h for h in self.helpers if h.has_side_effects]
        options: list[tuple[float, Callable[[], Stmt]]] = [
            (4.0, self._let_stmt),
            (3.0 if assignable else 0.0, self._assign_stmt),
            (3.0 if can_store else 0.0, self._store_stmt),
            (3.0 if nest_ok else 0.0, lambda: self._if_stmt(depth)),
            (k.loop_weight if can_loop else 0.0, lambda: self._loop_stmt(depth, loop_limit)),
            (1.0 if nest_ok and k.switch else 0.0, lambda: self._switch_stmt(depth)),
            ((2.5 if in_loop else 0.7) if can_jump else 0.0, self._jump_stmt),
            (0.8 if can_atomic else 0.0, self._atomic_stmt),
            (1.0 if kernel and self.arrays else 0.0, self._priv_store_stmt),
            (1.0 if kernel and side_helpers else 0.0, lambda: self._call_stmt(side_helpers)),
            (0.4 if kernel and k.uniform_stores else 0.0, self._uniform_store_stmt),
            (0.3 if kernel and k.printf else 0.0, self._printf_stmt),
            (0.8 if kernel and k.local_memory else 0.0, self._local_store_stmt),
            (0.4 if kernel and k.mem_intrinsics else 0.0, self._copy_out_stmt),
            (0.4 if kernel and k.opencl_builtins and self.vec_palette else 0.0, self._vstore_stmt),
        ]
        return c.weighted(options)()

    def _new_var_type(self) -> Ty:
        c = self.c
        if self.vec_palette and c.boolean(self.k.vector_vars):
            return c.choice(self.vec_palette)
        return c.choice(self.palette)

    def _let_stmt(self) -> Stmt:
        ty = self._new_var_type()
        value = self.expr(ty, self.k.expr_depth, ANY)
        var = self._var(ty, _mentions_varying(value) or self.in_divergence())
        self.scopes[-1].append(var)
        return Let(var, value)

    def _assignable(self) -> list[Var]:
        """Variables an assignment may target. A variable keeps the uniformity
        it was declared with: a uniform one is only assigned uniform values,
        outside divergent control flow (else a condition built from it earlier,
        say in a loop, would silently become divergent)."""
        div = self.in_divergence()
        return [v for v in self.visible() if v.id not in self.counters and (v.varying or not div)]

    def _assign_stmt(self) -> Stmt:
        c, k = self.c, self.k
        var = c.choice(self._assignable())
        ty = var.ty
        mode = ANY if var.varying else UNIFORM
        if c.boolean(0.6) and not ty.is_bool:
            ops = FLOAT_BINOPS if ty.is_float else INT_BINOPS
            value: Expr = Bin(c.weighted(ops), VarRef(var), self.expr(ty, k.expr_depth - 1, mode))
        else:
            value = self.expr(ty, k.expr_depth, mode)
        return Assign(var, value)

    def _store_stmt(self) -> Stmt:
        c, k = self.c, self.k
        if self.helper is not None:
            assert self.helper.out is not None
            buf = self.helper.out
            value = self.expr(buf.elem, k.expr_depth, ANY)
        else:
            candidates = [v for v in self.visible() if v.ty.lanes == 1 or v.ty in self.vec_palette]
            if candidates and c.boolean(0.6):
                var = c.choice(candidates)
                value = VarRef(var)
            else:
                value = self.expr(self._new_var_type(), k.expr_depth, ANY)
            if value.ty.is_bool:
                value = Cast("zext", value, I8.with_lanes(value.ty.lanes))
            value = _in_memory(value)
            buf = self.out_buf(value.ty)
        slot = buf.slots
        buf.slots += 1
        return Store(buf, slot, value)

    def _local_store_stmt(self) -> Stmt:
        """Store into one of this work-item's own slots of a `__local` buffer."""
        value = _in_memory(self.expr(self._new_var_type(), self.k.expr_depth, ANY))
        if value.ty.is_bool:
            value = Cast("zext", value, I8.with_lanes(value.ty.lanes))
        buf = self.local_buf(value.ty)
        slot = buf.slots
        buf.slots += 1
        return Store(buf, slot, value)

    def _vstore_stmt(self) -> Stmt:
        """`vstore<N>` of a vector into own output slots (through a per-work-item pointer)."""
        c = self.c
        ty = c.choice(self.vec_palette)
        value = self.expr(ty, self.k.expr_depth, ANY)
        if ty.is_bool:
            value = Cast("zext", value, I8.with_lanes(ty.lanes))
        buf = self.out_buf(value.ty.scalar)
        off = c.integer(0, 1)
        slot = buf.slots
        buf.slots += (off + 1) * ty.lanes
        return VStore(buf, slot, value, off)

    def _copy_out_stmt(self) -> Stmt:
        """A private array copied into own output slots (`llvm.memcpy`), or
        own slots zeroed (`llvm.memset`)."""
        c, k = self.c, self.k
        arrays = [a for a in self.arrays if a.elem.lanes != 3]
        local = k.local_memory and c.boolean(0.3)
        what = c.weighted([(2.0 if arrays else 0.0, "array"), (1.0, "zero"), (1.0, "input"), (0.7, "move")])
        if what == "array":
            arr = c.choice(arrays)
            buf = self.local_buf(arr.elem) if local else self.out_buf(arr.elem)
            slot = buf.slots
            buf.slots += arr.size
            return CopyOut(buf, slot, arr.size, arr)
        ty = c.choice([t for t in self.palette if not t.is_bool] + [v for v in self.vec_palette if v.lanes != 3])
        n = c.choice((1, 2, 4))
        buf = self.local_buf(ty) if local else self.out_buf(ty)
        slot = buf.slots
        if what == "input":
            buf.slots += n
            return CopyOut(buf, slot, n, source=self.in_buf(ty), addr=Block(self.expr(c.choice((I32, I64)), 2, ANY), n))
        if what == "move":
            buf.slots += n + 1
            return CopyOut(buf, slot, n, move=True)
        buf.slots += n
        return CopyOut(buf, slot, n)

    def _printf_stmt(self) -> Stmt:
        """`printf` of a few scalars: what a debugging kernel does."""
        c = self.c
        args: list[Expr] = []
        fmt = []
        for _ in range(c.integer(0, 3)):
            ty = c.choice([t for t in self.palette if not t.is_bool] or [I32])
            e = self.expr(ty, 2, ANY)
            if ty.is_float:
                if ty.bits < 64:
                    e = Cast("fpext", e, Ty("f64"))  # C's default promotion
                fmt.append("%f")
            elif ty.bits < 32:
                e = Cast("sext", e, I32)
                fmt.append("%d")
            else:
                fmt.append("%ld" if ty.bits == 64 else "%d")
            args.append(e)
        return Printf(f"k{len(args)}: " + " ".join(fmt) + "\n", tuple(args))

    def _uniform_store_stmt(self) -> Stmt:
        ty = self.c.choice([t for t in self.palette if t != I1] or [I32])
        buf = self.uniform_buf(ty)
        index = buf.slots
        buf.slots += 1
        return UniformStore(buf, index, self.expr(ty, 2, INVARIANT))

    def _cond(self, depth: int, mode: str) -> Expr:
        """A branch condition: mostly a comparison, sometimes any i1 expression."""
        if self.c.boolean(0.25):
            return self.expr(I1, max(depth, 1), mode)
        return self._cmp(max(depth - 1, 0), mode)

    def _branch_mode(self) -> str:
        """Divergent or uniform condition, as the knobs and context allow."""
        c, k = self.c, self.k
        if k.divergent_if and k.uniform_if:
            p_uniform = 0.45 if self.in_divergence() else 0.25
            return UNIFORM if c.boolean(p_uniform) else VARYING
        if k.divergent_if:
            return VARYING
        return UNIFORM

    def _if_stmt(self, depth: int) -> Stmt:
        c, k = self.c, self.k
        mode = self._branch_mode()
        cond = self._cond(k.expr_depth - 1, mode)
        div = mode == VARYING
        self.divergent += div
        then = self.block(depth + 1)
        els = self.block(depth + 1) if self.budget > 0 and c.boolean(0.5) else []
        self.divergent -= div
        return If(cond, then, els)

    def _loop_stmt(self, depth: int, limit: int) -> Stmt:
        c, k = self.c, self.k
        kind = c.choice(("for", "do"))
        carried = kind == "do" and k.carried_exit > 0 and c.boolean(k.carried_exit)
        bound = c.choice(("umin", "and", "urem"))
        if bound == "and":
            max_trip = c.choice([m for m in (1, 3, 7, 15) if m <= limit])
        else:
            max_trip = c.integer(1, limit)
        divergent = k.divergent_loops and c.boolean(0.6)
        if divergent:
            trip = self.expr(I32, 2, VARYING)
        elif c.boolean(0.5):
            trip = self.expr(I32, 2, UNIFORM)
        else:
            trip = Const(I32, c.integer(0, max_trip + 1))
        counter = self._var(I32)
        self.counters[counter.id] = max_trip
        cursor = None
        if k.access_forms and self.helper is None and "contiguous" in k.memory and c.boolean(0.3):
            # A pointer induction variable: `for (p = &in[start]; ...; p += step)`.
            ty = c.choice([t for t in self.palette if not t.is_bool] + [v for v in self.vec_palette if v.lanes != 3])
            step = c.choice((1, 2))
            cursor = Cursor(self.in_buf(ty), self._affine(1, False), step, step * max_trip)
        self.loops.append(_LoopCtx(counter, max_trip, divergent, cursor))
        saved = self.iterations
        self.iterations *= max(1, max_trip)
        self.scopes.append([counter])
        body = self.block(depth + 1)
        self.scopes.pop()
        self.iterations = saved
        self.loops.pop()
        return Loop(counter, kind, trip, bound, max_trip, body, cursor, carried_exit=carried)

    def _switch_stmt(self, depth: int) -> Stmt:
        c, k = self.c, self.k
        mode = self._branch_mode()
        sel = self.expr(I64 if c.boolean(0.3) else I32, k.expr_depth - 1, mode)
        values = list(range(8))
        cases: list[SwitchCase] = []
        div = mode == VARYING
        self.divergent += div
        for _i in range(c.integer(1, 4)):
            if not values or self.budget <= 0:
                break
            vals = [values.pop(c.integer(0, len(values) - 1))]
            if values and c.boolean(0.25):
                vals.append(values.pop(c.integer(0, len(values) - 1)))
            body = self.block(depth + 1)
            cases.append(SwitchCase(tuple(vals), body, fallthrough=c.boolean(0.25)))
        if cases:
            cases[-1].fallthrough = False
        default = self.block(depth + 1) if self.budget > 0 and c.boolean(0.6) else []
        self.divergent -= div
        return Switch(sel, cases, default)

    def _jump_stmt(self) -> Stmt:
        """`if (cond) { [stmt;] break|continue|return; }`."""
        c, k = self.c, self.k
        kernel = self.helper is None
        in_loop = bool(self.loops)
        jumps: list[tuple[float, str]] = [
            (3.0 if in_loop and k.break_continue else 0.0, "break"),
            (2.0 if in_loop and k.break_continue else 0.0, "continue"),
            (1.0 if in_loop and len(self.loops) >= 2 and k.multi_exit and k.break_continue else 0.0,
             "break2"),
            (0.8 if in_loop and len(self.loops) >= 3 and k.multi_exit and k.break_continue else 0.0,
             "break3"),
            (0.6 if kernel and k.early_return and (not in_loop or k.multi_exit) and self.returns < 2
             else 0.0, "return"),
        ]
        jump = c.weighted(jumps)
        if k.divergent_if and (not k.uniform_if or c.boolean(0.75)):
            mode = VARYING
        elif k.uniform_if:
            mode = UNIFORM
        else:
            mode = ANY
        cond = self._cond(2, mode)
        div = mode != UNIFORM
        then: list[Stmt] = []
        self.divergent += div
        if self.budget > 1 and c.boolean(0.45):
            self.scopes.append([])
            then.append(self.stmt(self.k.max_depth))  # a leaf statement
            self.scopes.pop()
        self.divergent -= div
        if jump == "break":
            then.append(Break(1))
        elif jump == "break2":
            then.append(Break(2))
        elif jump == "break3":
            then.append(Break(3))
        elif jump == "continue":
            then.append(Continue())
        else:
            then.append(Return())
            self.returns += 1
        if div:
            if jump == "return":
                self.exited_divergently = True
            else:
                for lp in self.loops[-{"break2": 2, "break3": 3}.get(jump, 1):]:
                    lp.divergent = True
        return If(cond, then, [])

    def _atomic_stmt(self) -> Stmt:
        c, k = self.c, self.k
        if self.helper is not None:
            assert self.helper.counter is not None
            buf = self.helper.counter
        else:
            buf = self.counter_buf(c.choice((I32, I64)))
        # Updates of one counter must commute with each other whatever order
        # the work-items run in (and vectorizing along another dimension
        # changes that order): and/or/xor/min/max each commute only with
        # themselves, add and sub with each other. One family per counter.
        family = self.counter_families.get(buf.name)
        if family is None:
            family = c.choice(ATOMIC_FAMILIES)
            self.counter_families[buf.name] = family
        op = c.choice(family)
        index: Expr | int = c.integer(0, buf.count - 1)
        if buf.count > 1 and c.boolean(0.4):
            index = self.expr(I32, 2, ANY)
        value = self.expr(buf.elem, k.expr_depth - 1, ANY)
        ordering = c.choice(("monotonic", "seq_cst", "acq_rel"))
        builtin = ""
        step = False
        cas = False
        if k.opencl_builtins and c.boolean(0.4):
            # OpenCL 1.0's `atom_*` (32 and 64 bits), 1.1's `atomic_*` (32 bits).
            builtin = "atomic" if buf.elem == I32 and c.boolean(0.5) else "atom"
            if op in ("add", "sub") and c.boolean(0.3):
                step, value = True, Const(buf.elem, 1)
        else:
            cas = k.access_forms and family == ("add", "sub") and c.boolean(0.3)
        fence = ""
        if k.opencl_builtins and c.boolean(0.15):
            fence = c.choice(("mem_fence", "inst", "read_mem_fence", "write_mem_fence"))
        return Atomic(buf, op, index, value, ordering, cas, builtin, step, fence)

    def _priv_store_stmt(self) -> Stmt:
        c, k = self.c, self.k
        arr = c.choice(self.arrays)
        index = self.expr(c.choice((I32, I64)), 2, ANY)
        value = self.expr(arr.elem, k.expr_depth - 1, ANY)
        if _mentions_varying(index) or _mentions_varying(value) or self.in_divergence():
            arr.varying = True
        return PrivStore(arr, index, value)

    def _call_stmt(self, helpers: list[Helper]) -> Stmt:
        h = self.c.choice(helpers)
        return CallStmt(self._call(h, ANY))

    def _call(self, h: Helper, mode: str) -> Call:
        depth = max(1, self.k.expr_depth - 1)
        return Call(h, tuple(self.expr(p.ty, depth, mode) for p in h.params))

    def _epilogue(self) -> list[Stmt]:
        """Store a few of the top-level variables, so the work is observed."""
        c = self.c
        out: list[Stmt] = []
        top = [v for v in self.scopes[0] if v.ty.lanes == 1 or v.ty in self.vec_palette]
        for v in reversed(top):
            if len(out) >= 4:
                break
            if c.boolean(0.6) or not out:
                value: Expr = VarRef(v)
                if v.ty.is_bool:
                    value = Cast("zext", value, I8.with_lanes(v.ty.lanes))
                value = _in_memory(value)
                buf = self.out_buf(value.ty)
                out.append(Store(buf, buf.slots, value))
                buf.slots += 1
        if not out:
            buf = self.out_buf(I64)
            out.append(Store(buf, buf.slots, Lin()))
            buf.slots += 1
        return out

    # ------------------------------------------------------------------
    # Expressions

    def expr(self, ty: Ty, depth: int, mode: str = ANY) -> Expr:
        """An expression of type `ty`, nesting at most `depth`, in `mode`."""
        c = self.c
        if depth <= 0 or not c.boolean(0.55):
            leaf = self._leaf(ty, mode)
            if leaf is not None:
                return leaf
            if depth <= 0:
                return self._fallback(ty, mode)
        return self._internal(ty, max(depth, 1), mode)

    def _fallback(self, ty: Ty, mode: str) -> Expr:
        """A leaf-sized expression of `ty` in `mode` when no leaf fits (a
        varying float, say): a converted work-item id, always available."""
        if ty.is_vector:
            return Splat(self._fallback(ty.scalar, mode), ty.lanes)
        return _convert(self._work_item(I64, mode), ty)

    def _leaf(self, ty: Ty, mode: str) -> Expr | None:
        c = self.c
        kernel = self.helper is None
        vars_ = [v for v in self.visible() if v.ty == ty and _var_fits(v, mode)]
        int_scalar = ty.is_int and not ty.is_vector and not ty.is_bool
        params = [
            p for p in self.params
            if kernel and isinstance(p, ScalarParam) and p.ty == ty
        ]
        loads_ok = kernel and any(w > 0 for w, _ in self._addr_options(mode)) and (ty.lanes == 1 or ty in self.vec_palette)
        arrays = [a for a in self.arrays if a.elem == ty] if kernel and mode in (ANY, VARYING) else []
        views = [a for a in self.arrays if a.elem.is_vector and a.elem.lanes != 3 and a.elem.scalar == ty
                 and not ty.is_vector] if kernel and mode in (ANY, VARYING) else []
        if mode == VARYING:
            arrays = [a for a in arrays if a.varying]
            views = [a for a in views if a.varying]
        options: list[tuple[float, Callable[[], Expr]]] = [
            (2.0 if mode != VARYING else 0.0, lambda: self._const(ty)),
            (5.0 if vars_ and mode != INVARIANT else 0.0, lambda: VarRef(c.choice(vars_[-6:]))),
            (1.0 if params and mode != VARYING else 0.0, lambda: ParamRef(c.choice(params))),
            (2.0 if int_scalar else 0.0, lambda: self._work_item(ty, mode)),
            (1.0 if int_scalar and kernel and mode in (ANY, VARYING) else 0.0,
             lambda: _convert(Lin(), ty)),
            (0.5 if int_scalar and ty.bits >= 16 and mode in (ANY, VARYING) else 0.0,
             lambda: self._near_limit(ty, mode)),
            (3.0 if loads_ok and ty != I1 else 0.0, lambda: self._load(ty, mode)),
            (1.0 if arrays else 0.0, lambda: self._priv_load(c.choice(arrays))),
            (0.7 if views else 0.0, lambda: self._priv_load(c.choice(views), view=True)),
        ]
        if all(w <= 0 for w, _ in options):
            return None
        return c.weighted(options)()

    def _internal(self, ty: Ty, depth: int, mode: str) -> Expr:
        c, k = self.c, self.k
        d = depth - 1
        sub = VARYING if mode == VARYING else mode
        other = ANY if mode == VARYING else mode
        calls_ok = mode in (ANY, VARYING)
        rets = [h for h in self.helpers if h.ret == ty and calls_ok and self._callable(h)]
        vec_src = [v for v in self.vec_palette if v.elem == ty.elem] if not ty.is_vector else []
        options: list[tuple[float, Callable[[], Expr]]]
        if ty.is_bool and not ty.is_vector:
            options = [
                (5.0, lambda: self._cmp(d, mode)),
                (2.0, lambda: Bin(c.weighted(BOOL_BINOPS), self.expr(ty, d, sub), self.expr(ty, d, other))),
                (1.0 if k.select else 0.0, lambda: self._select(ty, d, mode)),
                (1.0, lambda: Cast("trunc", self.expr(c.choice(self._int_types()), d, sub), ty)),
                (0.7 if k.flags else 0.0, lambda: self._flagged(ty, d, mode)),
                (0.5 if k.math else 0.0, lambda: self._overflow(c.choice(self._int_types()), d, mode, 1)),
                (0.5 if k.access_forms and self.helper is None and mode != INVARIANT
                 and any(w > 0 for w, _ in self._addr_options(mode)) else 0.0, lambda: self._ptr_cmp(mode)),
            ]
        elif ty.is_vector and ty.is_bool:
            same = [v for v in self.vec_palette if v.lanes == ty.lanes and not v.is_bool]
            src = c.choice(same) if same else Ty("i32", ty.lanes)
            return Cmp(c.choice(FLOAT_PREDS if src.is_float else INT_PREDS),
                       self.expr(src, d, sub), self.expr(src, d, other))
        else:
            ops = FLOAT_BINOPS if ty.is_float else INT_BINOPS
            math_fns = self._math_fns(ty)
            options = [
                (5.0, lambda: Bin(c.weighted(ops), self.expr(ty, d, sub), self.expr(ty, d, other))),
                (1.0 if ty.is_float else 0.0, lambda: Neg(self.expr(ty, d, sub))),
                (2.0, lambda: self._cast_to(ty, d, sub)),
                (2.0 if k.select else 0.0, lambda: self._select(ty, d, mode)),
                (1.5 if math_fns else 0.0, lambda: self._math(ty, math_fns, d, mode)),
                (1.0 if rets else 0.0, lambda: self._call(c.choice(rets), mode if mode != VARYING else ANY)),
                (1.0 if vec_src else 0.0, lambda: self._extract(c.choice(vec_src), d, mode)),
                (1.5 if ty.is_vector else 0.0, lambda: self._insert(ty, d, mode)),
                (1.5 if ty.is_vector else 0.0, lambda: self._shuffle(ty, d, mode)),
                (1.5 if ty.is_vector else 0.0, lambda: Splat(self.expr(ty.scalar, d, sub), ty.lanes)),
                (1.5 if k.flags and not ty.is_float else 0.0, lambda: self._flagged(ty, d, mode)),
                (0.4 if k.flags and ty.is_float else 0.0, lambda: self._flagged(ty, d, mode)),
                (0.4, lambda: Freeze(self.expr(ty, d, sub))),
                (0.6 if k.opencl_builtins and (ty.is_vector or (ty == F32 and "f16" in k.types))
                 and self.helper is None and mode != INVARIANT else 0.0, lambda: self._vload(ty, d, sub)),
                (0.4 if ty.is_vector and ty.elem != "f16" and self.helper is None and mode != INVARIANT else 0.0,
                 lambda: self._masked_gather(self.in_buf(ty.scalar), ty, d, sub)),
                (0.3 if not ty.is_vector and ty.elem != "f16" and self.helper is None and mode != INVARIANT else 0.0,
                 lambda: self._masked_gather_lane(ty, d, sub)),
                (0.5 if k.access_forms and not ty.is_float and not ty.is_vector and self.helper is None
                 and any(w > 0 for w, _ in self._addr_options(mode)) else 0.0,
                 lambda: _convert(self._ptr_diff(mode), ty)),
                (1.8 if k.opencl_builtins and not ty.is_bool else 0.0,
                 lambda: self._builtin(ty, d, mode) or self.expr(ty, d, mode)),
                # Scalars only: LLVM 22's x86 FastISel (the oracle's -O0 JIT)
                # asserts on vector *.with.overflow.
                (0.6 if k.math and not ty.is_float and not ty.is_vector else 0.0,
                 lambda: self._overflow(ty, d, mode, 0)),
            ]
        return c.weighted(options)()

    # Flags by construction ---------------------------------------------

    def _kconst(self, ty: Ty, value: int) -> Const:
        """The integer constant `value` (wrapped to the type) of `ty`, splat for a vector."""
        v = wrap_int(value, ty.bits)
        return Const(ty, tuple(v for _ in range(ty.lanes)) if ty.is_vector else v)

    def _masked(self, e: Expr, mask: int) -> Expr:
        return Bin("and", e, self._kconst(e.ty, mask))

    def _flagged(self, ty: Ty, depth: int, mode: str) -> Expr:
        """An operation carrying a poison-generating flag, on operands masked
        so that the flag holds: `add`/`sub`/`mul`/`shl` `nsw`/`nuw` on
        operands small enough not to wrap, `lshr`/`ashr exact` of a value
        whose shifted-out bits are cleared, `udiv`/`sdiv exact` of a
        multiple of the divisor, `or disjoint` of complementary masks,
        `trunc nuw`/`nsw` and `zext`/`uitofp nneg` of values that fit,
        `icmp samesign` of non-negative values (clang and instcombine put
        these flags on real code)."""
        c = self.c
        sub = VARYING if mode == VARYING else mode
        other = ANY if mode == VARYING else mode
        ints = [t for t in (I8, Ty("i16"), I32, I64) if t.elem in self.k.types] or [I32]
        if ty.is_float:
            src = c.choice(ints).with_lanes(ty.lanes)
            return Cast("uitofp", self._masked(self.expr(src, depth, sub), (1 << (src.bits - 1)) - 1), ty, ("nneg",))
        if ty.is_bool:
            src = c.choice(ints).with_lanes(ty.lanes)
            m = (1 << (src.bits - 1)) - 1
            a, b = self._masked(self.expr(src, depth, sub), m), self._masked(self.expr(src, depth, other), m)
            return Cmp(c.choice(("ult", "ugt", "ule", "uge", "slt", "sgt", "sle", "sge")), a, b, ("samesign",))
        bits = ty.bits
        wider = [t.with_lanes(ty.lanes) for t in ints if t.bits > bits]
        narrower = [t.with_lanes(ty.lanes) for t in ints if t.bits < bits]
        kind = c.weighted([
            (3.0, "add"), (2.0, "sub"), (1.5, "mul"), (1.0, "shl"), (1.0, "shr"), (0.7, "div"),
            (1.0, "or"), (1.0 if wider else 0.0, "trunc"), (1.0 if narrower else 0.0, "zext"),
        ])
        quarter = (1 << (bits - 2)) - 1
        root = (1 << ((bits - 1) // 2)) - 1  # root*root < 2^(bits-1)
        if kind in ("trunc", "zext"):
            src = c.choice(wider if kind == "trunc" else narrower)
            e = self.expr(src, depth, sub)
            if kind == "zext":
                return Cast("zext", self._masked(e, (1 << (src.bits - 1)) - 1), ty, ("nneg",))
            if c.boolean(0.3):  # a remainder by a constant: how clang's code gets there
                return Cast("trunc", Bin("urem", e, self._kconst(src, c.integer(1, (1 << (bits - 1)) - 1))),
                            ty, ("nuw", "nsw"))
            if c.boolean(0.5):
                return Cast("trunc", self._masked(e, (1 << bits) - 1), ty, ("nuw",))
            return Cast("trunc", self._masked(e, (1 << (bits - 1)) - 1), ty, c.choice((("nsw",), ("nuw", "nsw"))))
        a, b = self.expr(ty, depth, sub), self.expr(ty, depth, other)
        nw = c.choice((("nsw",), ("nuw",), ("nuw", "nsw")))
        half = (1 << (bits - 1)) - 1
        if kind == "add":
            if c.boolean(0.25):  # may pass the signed maximum, never the unsigned one
                return Bin("add", self._masked(a, half), self._masked(b, half), ("nuw",))
            return Bin("add", self._masked(a, quarter), self._masked(b, quarter), nw)
        if kind == "sub":
            if "nuw" in nw:  # a' in [q+1, 2q+1], b' in [0, q]: a' - b' in [1, 2q+1]
                return Bin("sub", Bin("or", self._masked(a, quarter), self._kconst(ty, quarter + 1)),
                           self._masked(b, quarter), nw)
            return Bin("sub", self._masked(a, quarter), self._masked(b, quarter), nw)
        if kind == "mul":
            return Bin("mul", self._masked(a, root), self._masked(b, root), nw)
        if kind == "shl":  # x < 2^(bits/2-1), amount <= bits/2-1
            amount = self._masked(b, bits // 2 - 1)
            form = c.choice(("both", "nsw", "nuw"))
            if form == "nsw":  # a small signed value: |x| < 2^(bits/2-1)
                return Bin("shl", Bin("ashr", a, self._kconst(ty, bits // 2 + 1)), amount, ("nsw",))
            if form == "nuw":  # x < 2^(bits/2): may pass the signed maximum
                return Bin("shl", self._masked(a, (1 << (bits // 2)) - 1), amount, ("nuw",))
            return Bin("shl", self._masked(a, (1 << (bits // 2 - 1)) - 1), amount, nw)
        if kind == "shr":
            k = c.integer(0, bits - 1)
            return Bin(c.choice(("lshr", "ashr")), self._masked(a, ~((1 << k) - 1)), self._kconst(ty, k), ("exact",))
        if kind == "div":
            d = c.choice([x for x in (2, 3, 5, 7, 6, 4) if x <= root] or [1])
            y = Bin("mul", self._masked(a, root), self._kconst(ty, d))
            return Bin(c.choice(("udiv", "sdiv")), y, self._kconst(ty, d), ("exact",))
        m = c.integer(0, (1 << min(bits, 62)) - 1)
        return Bin("or", self._masked(a, m), self._masked(b, ~m), ("disjoint",))

    def _overflow(self, ty: Ty, depth: int, mode: str, part: int) -> Expr:
        """`llvm.<op>.with.overflow`: its wrapped result (`part` 0) or overflow bit (1)."""
        c = self.c
        sub = VARYING if mode == VARYING else mode
        other = ANY if mode == VARYING else mode
        return Overflow(c.choice(OVERFLOW_OPS), self.expr(ty, depth, sub), self.expr(ty, depth, other), part)

    def _callable(self, h: Helper) -> bool:
        # From a helper: only (earlier) helpers without side effects. Never
        # a recursive helper: only fuzz.recursion calls it, with a bounded depth.
        return not h.recursive and not self.lane_free and (self.helper is None or not h.has_side_effects)

    def _int_types(self) -> list[Ty]:
        return [t for t in self.palette if t.is_int and not t.is_bool] or [I32]

    def _math_fns(self, ty: Ty) -> list[str]:
        k = self.k
        if not k.math or ty.is_bool:
            return []
        if ty.is_float:
            return [f for f in FLOAT_MATH if k.fmuladd or f != "fmuladd"]
        fns = list(INT_MATH)
        if ty.bits < 16:
            fns = [f for f in fns if f != "bswap"]
        return fns

    def _const(self, ty: Ty) -> Expr:
        c = self.c
        if ty.is_vector:
            if c.boolean(0.5):
                lanes = tuple(self._scalar_value(ty.scalar) for _ in range(ty.lanes))
                return Const(ty, lanes)
            v = self._scalar_value(ty.scalar)
            return Const(ty, tuple(v for _ in range(ty.lanes)))
        return Const(ty, self._scalar_value(ty))

    def _scalar_value(self, ty: Ty) -> int | float:
        return self._float_value(ty) if ty.is_float else self._int_value(ty)

    def _int_value(self, ty: Ty) -> int:
        c = self.c
        v = c.choice(INT_CONSTS + ("random",))
        if v == "min":
            return wrap_int(1 << (ty.bits - 1), ty.bits)
        if v == "max":
            return wrap_int((1 << (ty.bits - 1)) - 1, ty.bits)
        if v == "random":
            return wrap_int(c.integer(0, (1 << min(ty.bits, 62)) - 1), ty.bits)
        return wrap_int(int(v), ty.bits)

    def _float_value(self, ty: Ty) -> float:
        c = self.c
        if c.boolean(0.2):
            v = c.integer(-100000, 100000) / 64.0
        else:
            v = c.choice(FLOAT_CONSTS)
        if ty.scalar == F16:
            return f16_round(v)
        return f32_round(v) if ty.scalar == F32 else float(v)

    def _work_item(self, ty: Ty, mode: str) -> Expr:
        c, k = self.c, self.k
        if not k.work_item_builtins:
            kinds = {VARYING: ("global_id",), ANY: ("global_id",)}.get(mode, ("global_size",))
        else:
            kinds = {
                VARYING: ("global_id", "local_id"),
                UNIFORM: ("group_id", "global_size", "local_size", "num_groups", "global_offset"),
                INVARIANT: ("global_size", "local_size", "num_groups", "global_offset"),
                ANY: ("global_id", "local_id", "group_id", "global_size", "local_size",
                      "num_groups", "global_offset"),
            }[mode]
        if self.lane_free:  # the same for every lane of a packet
            kinds = tuple(x for x in kinds if x not in ("global_id", "local_id")) or (
                ("group_id", "global_size", "local_size", "num_groups", "global_offset")
                if k.work_item_builtins else ("global_size",))
        if k.work_item_builtins and mode != VARYING and c.boolean(0.05):
            return _convert(WorkDim(), ty)
        kind = c.choice(kinds)
        if k.runtime_dims and not self._in_dim and c.boolean(0.25):
            dim_expr = self._runtime_dim(mode)
            if dim_expr is not None:
                return _convert(WorkItem(kind, dim_expr), ty)
        dim = c.weighted([(3.0 if d < self.dims else 0.3, d) for d in range(3)])
        return _convert(WorkItem(kind, dim), ty)

    def _near_limit(self, ty: Ty, mode: str) -> Expr:
        """A work-item id moved next to the signed limit (fuzz/value_shapes.py)."""
        if ty == I64 and self.c.boolean(0.6):
            return extended_near_limit(self.c, self._work_item(I32, mode))
        return near_signed_limit(self.c, self._work_item(ty, mode), ty)

    def _runtime_dim(self, mode: str) -> Expr | None:
        """A dimension known only at run time, in `mode`: the kernel's
        dimension argument, or an i32 expression reduced to [0, 3] (3 is out
        of range) that may differ per work-item. None when neither fits (a
        helper has no kernel arguments; an invariant dimension must be the
        argument)."""
        c = self.c
        arg = self.dim_param if self.helper is None else None
        if arg is not None and (mode == INVARIANT or c.boolean(0.7)):
            return ParamRef(arg)
        if mode == INVARIANT:
            return None
        self._in_dim = True
        try:
            e = self.expr(I32, 1, UNIFORM if mode == UNIFORM else ANY)
        finally:
            self._in_dim = False
        op = c.choice(("and", "urem"))
        return Bin(op, e, Const(I32, 3))

    # Memory ------------------------------------------------------------

    def _addr_options(self, mode: str) -> list[tuple[float, Callable[[], Addr]]]:
        c, mem = self.c, self.k.memory
        varying_ok = mode in (ANY, VARYING)
        uniform_ok = mode in (ANY, UNIFORM, INVARIANT)
        in_loop = bool(self.loops)

        def affine(stride: int, counter: bool = False) -> Callable[[], Addr]:
            return lambda: self._affine(stride, counter)

        options: list[tuple[float, Callable[[], Addr]]] = [
            (1.0 if "uniform" in mem and uniform_ok else 0.0, lambda: ConstAddr(c.integer(0, MIN_INPUT_ELEMS - 1))),
            (1.0 if "uniform" in mem and mode in (ANY, UNIFORM) else 0.0,
             lambda: Wrapped(self.expr(c.choice((I32, I64)), 2, UNIFORM))),
            (4.0 if "contiguous" in mem and varying_ok else 0.0, affine(1)),
            (2.0 if "strided" in mem and varying_ok else 0.0,
             lambda: self._affine(c.choice((2, -2, 3, 4, -3, 8)), False)),
            (1.0 if "reverse" in mem and varying_ok else 0.0, affine(-1)),
            (1.5 if "gather" in mem and varying_ok and self.helper is None else 0.0,
             lambda: Indirect(self.get_index_buf(), self._affine(1, False))),
            (1.5 if "gather" in mem and varying_ok else 0.0,
             lambda: Wrapped(self.expr(c.choice((I32, I64)), 2, VARYING))),
            (2.0 if "loop" in mem and in_loop and varying_ok else 0.0,
             lambda: self._affine(c.choice((1, 2, -1)), True)),
            (1.5 if "clamped" in mem and varying_ok else 0.0, self._clamped),
        ]
        if "select" in mem and not self._in_select and any(w > 0 for w, _ in options):
            options.append((1.0, lambda: self._select_addr(mode)))
        return options

    def _select_addr(self, mode: str) -> Addr:
        """`select(cond, &buf[a], &buf[b])`: a select of two pointers."""
        c = self.c
        self._in_select = True
        try:
            cond = self._cond(1, mode)
            a = c.weighted(self._addr_options(mode))()
            b = c.weighted(self._addr_options(mode))()
        finally:
            self._in_select = False
        return SelectAddr(cond, a, b)

    def _clamped(self) -> Affine:
        """A neighbour at a clamped coordinate, `in[clamp(id + d, 0, hi)]`:
        packets at both edges clamp some lanes, packets inside none."""
        c = self.c
        a = self._affine(c.choice((1, 1, 1, 2)), False)
        a.offset = c.integer(-4, 4)
        top = a.offset + a.stride * max(max_id(self.ndranges, a.base, a.dim), 0)
        a.clamp_hi = max(0, top - c.integer(0, 6))
        return a

    def _affine(self, stride: int, counter: bool) -> Affine:
        c = self.c
        base = c.weighted([(3.0, "lin"), (2.0, "gid"), (1.0, "lid")])
        dim: int | ScalarParam = c.integer(0, self.dims - 1) if base != "lin" else 0
        if base != "lin" and self.dim_param is not None and self.helper is None and c.boolean(0.3):
            dim = self.dim_param  # `in[get_global_id(d)]`: no stride describes it
        extra = c.integer(0, 8)
        offset = extra
        if stride < 0:
            offset = -stride * max(max_id(self.ndranges, base, dim), 0) + extra
        cvar = self.loops[-1].counter if counter and self.loops else None
        return Affine(base, dim, stride, offset, cvar, narrow=c.boolean(0.3))

    def _load(self, ty: Ty, mode: str) -> Expr:
        c = self.c
        mty = memory_type(ty)
        cursors = [lp.cursor for lp in self.loops if lp.cursor is not None and lp.cursor.buffer.elem == mty]
        local = self.local_bufs.get(mty)
        if cursors and mode in (ANY, VARYING) and c.boolean(0.4):
            cursor = c.choice(cursors)
            load = Load(cursor.buffer, CursorAddr(cursor))
        elif local is not None and local.slots and mode in (ANY, VARYING) and c.boolean(0.3):
            load = Load(local, LocalSlot(c.integer(0, local.slots - 1)))
        else:
            load = Load(self.in_buf(mty), c.weighted(self._addr_options(mode))())
        if ty.lanes == 3:  # as clang loads a 3-vector: 4 lanes, then the first 3
            return Shuffle(load, load, (0, 1, 2))
        return load

    def _vload(self, ty: Ty, depth: int, mode: str) -> Expr:
        """`vload<N>` at a wrapped offset, or at a constant offset from a
        per-work-item address (the pointer argument then varies)."""
        c = self.c
        if ty.elem == "f32" and ty.lanes != 3 and "f16" in self.k.types and (ty.lanes == 1 or c.boolean(0.3)):
            # Halfs read as floats; `vloada_half<N>` needs an N-aligned address.
            half = c.choice(("vload_half", "vloada_half"))
            buf = self.in_buf(F16)
            if mode in (ANY, VARYING) and (half == "vload_half" or ty.lanes == 1) and c.boolean(0.4):
                return VLoad(buf, ty.lanes, Const(I64, 0), base=self._affine(ty.lanes, False),
                             offset=c.integer(0, 1), half=half)
            return VLoad(buf, ty.lanes, self.expr(c.choice((I32, I64)), depth, mode), half=half)
        buf = self.in_buf(ty.scalar)
        if mode in (ANY, VARYING) and c.boolean(0.4):
            return VLoad(buf, ty.lanes, Const(I64, 0), base=self._affine(ty.lanes, False), offset=c.integer(0, 1))
        return VLoad(buf, ty.lanes, self.expr(c.choice((I32, I64)), depth, mode))

    def _masked_gather(self, buf: Buffer, ty: Ty, depth: int, mode: str) -> VLoad:
        """The `vload<N>` elements read by an input `llvm.masked.gather` with
        a (usually varying) mask and a pass-through value: the vectorizer
        must keep the pass-through in the lanes the mask turns off."""
        c = self.c
        return VLoad(buf, ty.lanes, self.expr(c.choice((I32, I64)), depth, mode),
                     mask=self.expr(Ty("i1", ty.lanes), depth, mode), passthru=self.expr(ty, depth, mode))

    def _masked_gather_lane(self, ty: Ty, depth: int, mode: str) -> Expr:
        """One lane of a masked gather of 2 or 4 elements of type `ty`."""
        c = self.c
        lanes = c.choice((2, 4))
        return Extract(self._masked_gather(self.in_buf(ty), ty.with_lanes(lanes), depth, mode),
                       c.integer(0, lanes - 1))

    def _ptr_diff(self, mode: str) -> Expr:
        """The element distance of two addresses into one buffer (pointer subtraction)."""
        c = self.c
        ty = c.choice([t for t in self.palette if not t.is_bool] + [v for v in self.vec_palette if v.lanes != 3])
        a = c.weighted(self._addr_options(mode))()
        b = c.weighted(self._addr_options(mode))()
        return PtrDiff(self.in_buf(ty), a, b)

    def _ptr_cmp(self, mode: str) -> Expr:
        """Two addresses into one buffer compared (`icmp ult ptr p, q`)."""
        c = self.c
        ty = c.choice([t for t in self.palette if not t.is_bool] or [I32])
        a = c.weighted(self._addr_options(mode))()
        b = c.weighted(self._addr_options(mode))()
        return PtrCmp(c.choice(("eq", "ne", "ult", "ugt", "ule", "uge")), self.in_buf(ty), a, b)

    def _priv_load(self, arr: PrivArray, view: bool = False) -> Expr:
        c = self.c
        load = PrivLoad(arr, self.expr(c.choice((I32, I64)), 1, ANY), view=view)
        if self.k.access_forms and c.boolean(0.15):
            # Through a select of two element pointers.
            load.choice = (self._cond(1, ANY), self.expr(c.choice((I32, I64)), 1, ANY))
        return load

    def _builtin(self, ty: Ty, depth: int, mode: str) -> Expr | None:
        """A call to a builtin of the OpenCL C library returning `ty`, if one
        fits (`fuzz.builtin_calls`: which builtin, overload and arguments)."""
        if self._builtin_calls is None:
            self._builtin_calls = BuiltinCalls(self)
        return self._builtin_calls.call(ty, depth, mode)

    # Operators ---------------------------------------------------------

    def _cmp(self, depth: int, mode: str) -> Expr:
        c = self.c
        types = [t for t in self.palette if not t.is_bool] or [I32]
        ty = c.choice(types)
        sub = VARYING if mode == VARYING else mode
        other = ANY if mode == VARYING else mode
        preds = FLOAT_PREDS if ty.is_float else INT_PREDS
        return Cmp(c.choice(preds), self.expr(ty, depth, sub), self.expr(ty, depth, other))

    def _select(self, ty: Ty, depth: int, mode: str) -> Expr:
        c = self.c
        sub = VARYING if mode == VARYING else mode
        other = ANY if mode == VARYING else mode
        if ty.is_vector and c.boolean(0.5):
            cond = self.expr(Ty("i1", ty.lanes), depth, sub)
        else:
            cond = self._cond(depth, sub)
        return Select(cond, self.expr(ty, depth, other), self.expr(ty, depth, other))

    def _cast_to(self, ty: Ty, depth: int, mode: str) -> Expr:
        """A conversion into `ty` from some other type of the same lane count,
        or a bitcast from an integer type of the same size (never from a float:
        NaN payloads are not exactly defined, so their bits must not be seen)."""
        c = self.c
        sources: list[tuple[float, tuple[str, Ty]]] = []
        scalars: list[Ty] = []
        for s in [*self.palette, I32, I64, F32, I1]:
            if s not in scalars and s != ty.scalar and s.elem in self.k.types:
                scalars.append(s)
        for s in scalars:
            src = s.with_lanes(ty.lanes)
            for op in _cast_ops(src, ty):
                sources.append((1.0, (op, src)))
        if not ty.is_bool and ty.lanes != 3:
            shapes = [*self.vec_palette, I32, I64, *(VECTOR_TYPES if self.k.vectors else ())]
            for cand in shapes:
                if cand != ty and cand.is_int and cand.lanes != 3 and cand.total_bits == ty.total_bits \
                        and cand.elem in self.k.types and ("bitcast", cand) not in [x for _, x in sources]:
                    sources.append((0.7, ("bitcast", cand)))
            if ty.is_int and self.helper is None:
                # A float's bits are exact only as loaded (no arithmetic made the NaN).
                for cand in [F32, Ty("f64"), F16, *(VECTOR_TYPES if self.k.vectors else ())]:
                    if cand.is_float and cand.lanes != 3 and cand.total_bits == ty.total_bits \
                            and cand.elem in self.k.types:
                        sources.append((0.5, ("bitcast-load", cand)))
        if not sources:
            return self.expr(ty, depth, mode)
        op, src = c.weighted(sources)
        if op == "bitcast-load":
            if not any(w > 0 for w, _ in self._addr_options(mode)):
                return self.expr(ty, depth, mode)
            return Cast("bitcast", self._load(src, mode), ty)
        return Cast(op, self.expr(src, depth, mode), ty)

    def _math(self, ty: Ty, fns: list[str], depth: int, mode: str) -> Expr:
        c = self.c
        fn = c.choice(fns)
        arity = FLOAT_MATH.get(fn) if ty.is_float else INT_MATH.get(fn)
        assert arity is not None
        sub = VARYING if mode == VARYING else mode
        other = ANY if mode == VARYING else mode
        args = [self.expr(ty, depth, sub)]
        for _ in range(arity - 1):
            args.append(self.expr(ty, depth, other))
        if fn == "copysign":
            # The sign source is a constant or a loaded value: the sign of a
            # NaN made by arithmetic is not exactly defined, a loaded one is.
            loadable = self.helper is None and any(w > 0 for w, _ in self._addr_options(other))
            args[1] = self._load(ty, other) if loadable and self.c.boolean(0.5) else self._const(ty)
        if fn == "expect":  # the expected value is a constant
            args[1] = self._const(ty)
        if fn == "fmuladd" and _folds(args[0]) and _folds(args[1]):
            # LLVM may contract fmuladd or not; with constant multiplicands
            # the vectorizer's clean-up folds the product (unfused) where the
            # -O0 reference fuses it: both allowed, so the result is not one
            # value. fma always fuses, and takes the same draws.
            fn = "fma"
        return Math(fn, tuple(args))

    def _extract(self, vty: Ty, depth: int, mode: str) -> Expr:
        c = self.c
        sub = VARYING if mode == VARYING else mode
        vec = self.expr(vty, depth, sub)
        index: Expr | int = c.integer(0, vty.lanes - 1)
        if c.boolean(0.3):
            index = self.expr(I32, 1, ANY if mode == VARYING else mode)
        return Extract(vec, index)

    def _insert(self, ty: Ty, depth: int, mode: str) -> Expr:
        c = self.c
        sub = VARYING if mode == VARYING else mode
        other = ANY if mode == VARYING else mode
        vec = self.expr(ty, depth, sub)
        elem = self.expr(ty.scalar, depth, other)
        index: Expr | int = c.integer(0, ty.lanes - 1)
        if c.boolean(0.3):
            index = self.expr(I32, 1, other)
        return Insert(vec, elem, index)

    def _shuffle(self, ty: Ty, depth: int, mode: str) -> Expr:
        c = self.c
        sub = VARYING if mode == VARYING else mode
        other = ANY if mode == VARYING else mode
        srcs = [v for v in self.vec_palette if v.elem == ty.elem] or [ty]
        if c.boolean(0.5):  # a shape of its own: concatenations, extensions, narrowings
            srcs = [v for v in VECTOR_TYPES if v.elem == ty.elem] or srcs
        src = c.choice(srcs)
        a = self.expr(src, depth, sub)
        b = self.expr(src, depth, other) if c.boolean(0.5) else a
        mask = tuple(c.integer(0, 2 * src.lanes - 1) for _ in range(ty.lanes))
        return Shuffle(a, b, mask)


# ---------------------------------------------------------------------------
# Helpers of the planner


def _dims_of(r: NDRange) -> int:
    g = r.global_size
    if g[2] > 1 or r.local_size[2] > 1:
        return 3
    if g[1] > 1 or r.local_size[1] > 1:
        return 2
    return 1


def _in_memory(value: Expr) -> Expr:
    """`value` as stored: a 3-vector is widened to 4 lanes (the 4th a copy of
    the first: every stored byte is defined), as clang stores a 3-vector."""
    if value.ty.lanes == 3:
        return Shuffle(value, value, (0, 1, 2, 0))
    return value


def _var_fits(v: Var, mode: str) -> bool:
    if mode == VARYING:
        return v.varying
    if mode in (UNIFORM, INVARIANT):
        return not v.varying
    return True


def _mentions_varying(e: Expr) -> bool:
    for x in walk_expr(e):
        if isinstance(x, WorkItem) and x.kind in ("global_id", "local_id"):
            return True
        if isinstance(x, Lin):
            return True
        if isinstance(x, VarRef) and x.var.varying:
            return True
        if isinstance(x, Load) and _addr_varying(x.addr):
            return True
        if isinstance(x, PrivLoad) and x.array.varying:
            return True
        if isinstance(x, Call):
            return True  # helpers take varying parameters
        if isinstance(x, (PtrCmp, PtrDiff)) and (_addr_varying(x.a) or _addr_varying(x.b)):
            return True
        if isinstance(x, VLoad) and x.base is not None and _addr_varying(x.base):
            return True
    return False


def _addr_varying(a: Addr) -> bool:
    if isinstance(a, Affine):
        return a.base in ("lin", "gid", "lid")
    if isinstance(a, Indirect):
        return _addr_varying(a.inner)
    if isinstance(a, (Wrapped, Block, Biased)):
        return _mentions_varying(a.expr)
    if isinstance(a, SelectAddr):
        return _mentions_varying(a.cond) or _addr_varying(a.a) or _addr_varying(a.b)
    if isinstance(a, CursorAddr):
        return _addr_varying(a.cursor.start)
    if isinstance(a, LocalSlot):
        return True  # what this work-item stored
    return False


def _convert(e: Expr, ty: Ty) -> Expr:
    """An integer expression converted to `ty` (an integer or float scalar)."""
    src = e.ty
    if src == ty:
        return e
    if ty.is_float:
        return Cast("uitofp", e, ty)
    if ty.bits < src.bits:
        return Cast("trunc", e, ty)
    return Cast("zext", e, ty)


def _cast_ops(src: Ty, dst: Ty) -> list[str]:
    """Value conversions from `src` to `dst` (same lane count), all UB-free."""
    if src.is_int and dst.is_int:
        if src.bits > dst.bits:
            return ["trunc"]
        if src.bits < dst.bits:
            return ["zext", "sext"]
        return []
    if src.is_int and dst.is_float:
        return ["sitofp", "uitofp"]
    if src.is_float and dst.is_float:
        return ["fpext"] if src.bits < dst.bits else ["fptrunc"]
    if src.is_float and dst.is_int:
        if dst.is_bool:
            return []
        if src.bits == 16:  # the clamp bounds are not halves
            return ["fptosi.sat", "fptoui.sat"]
        return ["fptosi.sat", "fptoui.sat", "fptosi.clamp", "fptoui.clamp"]
    return []


# ---------------------------------------------------------------------------
# Finalisation: buffer sizes and slot layouts


def finalize(plan: KernelPlan, counters: dict[int, int]) -> None:
    """Size every buffer for the plan's accesses and NDRanges."""
    needs: dict[int, int] = {}

    def need(buf: Buffer, n: int) -> None:
        needs[id(buf)] = max(needs.get(id(buf), 0), n)

    def addr_need(buf: Buffer, a: Addr) -> None:
        if isinstance(a, ConstAddr):
            need(buf, a.index + 1)
        elif isinstance(a, Affine):
            top = plan.max_base(a.base, a.dim)
            extra = counters.get(a.counter.id, 0) if a.counter is not None else 0
            hi = a.offset + max(a.stride, 0) * top + extra
            if a.clamp_hi is not None:
                hi = a.clamp_hi
            need(buf, hi + 1)
        elif isinstance(a, Indirect):
            addr_need(a.index_buffer, a.inner)
            need(buf, 1)
        elif isinstance(a, SelectAddr):
            addr_need(buf, a.a)
            addr_need(buf, a.b)
        elif isinstance(a, Block):
            need(buf, a.size)
        elif isinstance(a, CursorAddr):
            cursor_need(a.cursor)
        elif isinstance(a, Biased):
            need(buf, a.span)
        else:
            need(buf, 1)

    def cursor_need(cur: Cursor) -> None:
        a = cur.start
        need(cur.buffer, a.offset + max(a.stride, 0) * plan.max_base(a.base, a.dim) + cur.span + 1)

    bodies = [plan.body] + [h.body for h in plan.helpers]
    exprs: list[Expr] = []
    for body in bodies:
        for s, _ in walk_stmts(body):
            exprs.extend(s.exprs())
            if isinstance(s, PrivInit) and s.source is not None and s.addr is not None:
                addr_need(s.source, s.addr)
            if isinstance(s, Loop) and s.cursor is not None:
                cursor_need(s.cursor)
            if isinstance(s, CopyOut) and s.source is not None and s.addr is not None:
                addr_need(s.source, s.addr)
    exprs.extend(h.result for h in plan.helpers if h.result is not None)
    exprs.extend(h.base for h in plan.helpers if h.base is not None)
    for e in exprs:
        for x in walk_expr(e):
            if isinstance(x, Load):
                addr_need(x.buffer, x.addr)
            elif isinstance(x, (PtrCmp, PtrDiff)):
                addr_need(x.buffer, x.a)
                addr_need(x.buffer, x.b)
            elif isinstance(x, VLoad):
                need(x.buffer, x.lanes)
                if x.base is not None:
                    a = x.base
                    top = a.offset + max(a.stride, 0) * plan.max_base(a.base, a.dim)
                    need(x.buffer, top + (x.offset + 1) * x.lanes)
    total = plan.max_total
    perm_size = next_pow2(total)
    for b in plan.buffers:
        if b.role in ("in", "index"):
            b.count = next_pow2(max(needs.get(id(b), 1), MIN_INPUT_ELEMS))
        elif b.role == "out":
            b.slots = max(b.slots, 1)
            rows = perm_size if b.mapping in ("perm", "indirect") else total
            b.count = rows * b.slots
        elif b.role == "iota":
            b.count = perm_size
        elif b.role == "uniform":
            b.count = max(b.slots, 1)
        elif b.role == "counter":
            b.count = max(b.count, 1)
        elif b.role == "local":
            b.slots = max(b.slots, 1)
            b.count = plan.max_local_total * b.slots
    for b in [*plan.buffers, *plan.local_globals]:
        if b.role == "tile" and b.two_d:
            b.cols = max(r.local_size[0] for r in plan.ndranges)
            b.rows = max(r.local_size[1] * r.local_size[2] for r in plan.ndranges)
            b.count = b.rows * b.cols
        elif b.role == "tile":
            b.count = plan.max_local_total

def _folds(e: Expr) -> bool:
    """Made of constants only, so LLVM may fold it (an over-approximation:
    any node whose operands all fold counts)."""
    if isinstance(e, Const):
        return True
    kids = e.children()
    return bool(kids) and all(_folds(k) for k in kids)
