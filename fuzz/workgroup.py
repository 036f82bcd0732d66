"""Work-group kernels: barriers and `__local` tiles the group shares
(the generator's `workgroup` profile, knob `workgroup`).

The planner (`fuzz.planner.Planner`) calls `WorkGroupPlanner.phase` between
its own top-level statements; a phase is a short sequence of plan
statements that synchronise the group:

- a tile exchange: every work-item stores its own slot of a tile (a
  `__local` array with one slot per work-item of the group, at its local
  linear id; or, in a 2- or 3-D kernel, a 2-D module array `t[row][x]`),
  a barrier, reads of other work-items' slots (`PeerSlot`), a barrier;
- a tree reduction of a tile into slot 0 (`TreeReduce`), then every
  work-item reads slot 0;
- an inclusive prefix scan of a tile (`PrefixScan`), then every work-item
  reads its own slot;
- atomic updates of a tile's slot 0 by every work-item with one
  commutative operation (`atomicrmw`, or a compare-and-swap loop), then
  every work-item reads it;
- a loop with a work-group-uniform trip count (a constant, the group's id or
  size, a scalar argument) whose body holds phases and ordinary statements;
- an `if` on a work-group-uniform condition around phases: a scalar
  argument, the group's id, a reduction's result, or `get_global_id(d) -
  get_local_id(d)` (uniform in the group, but the vectorizer's uniformity
  analysis may call it varying: the case `barrier_uniform_branches` serves).

Undefined behaviour is excluded by construction, not by checking:
- barriers are only in work-group-uniform control flow: phases are placed
  at the kernel's top level, in the loops and `if`s above (whose conditions
  use no local or global id except in the difference above), never inside
  the planner's own statements; the planner draws no early return in this
  profile (a return before a barrier would be barrier divergence), and the
  ordinary statements inside a barrier loop cannot break out of it (the
  planner does not see that loop as one it may leave);
- no data race on a tile: between a tile's stores and any read of another
  work-item's slot there is a barrier, and every phase ends with a barrier
  after its last read, so the next store to that tile comes after it; a
  reduction round's readers and writers touch disjoint slots;
- every slot read is below the group's size L, and each of those was
  written in the same phase (tiles are sized for the largest group);
- global memory is as in every profile (own slots, commutative atomics).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from .plan import (
    ATOMIC_FAMILIES,
    I32,
    Atomic,
    Barrier,
    Bin,
    Buffer,
    Cast,
    Cmp,
    Const,
    Expr,
    If,
    KernelPlan,
    Let,
    Load,
    LocalSlot,
    Loop,
    ParamRef,
    PeerSlot,
    PrefixScan,
    ScalarParam,
    Stmt,
    Store,
    TreeReduce,
    Ty,
    Var,
    VarRef,
    WorkItem,
    walk_expr,
)

INT_REDUCE_OPS = ("add", "xor", "or", "and", "smax", "umin", "mul")
FLOAT_REDUCE_OPS = ("fadd", "maxnum", "minnum", "fmul")
PEER_PATTERNS = ("rotate", "mirror", "first", "xor")
PEER_PATTERNS_2D = ("right", "down", "mirror", "first")
FENCE_NAMES = {1: "local memory", 2: "global memory", 3: "local and global memory"}
MAX_PHASE_NEST = 2  # loops and ifs around phases


class WorkGroupPlanner:
    """Draws the work-group phases of one kernel, with the planner's choices."""

    def __init__(self, planner: Any) -> None:
        # A `fuzz.planner.Planner` (not imported: the planner imports this module).
        self.p = planner
        self.tiles: list[Buffer] = []
        self.globals: list[Buffer] = []
        self.uniform_results: list[Var] = []  # reduction results: the same in the whole group
        self._nest = 0

    # ------------------------------------------------------------------
    # Tiles and barriers

    def _tile_type(self) -> Ty:
        types = [t for t in self.p.palette if not t.is_bool and not t.is_vector]
        return self.p.c.choice(types or [I32])

    def tile(self, ty: Ty, two_d_ok: bool = False) -> Buffer:
        """A fresh tile or one of this type drawn before (phases end with a
        barrier, so reusing a tile is safe): a kernel argument in address
        space 3 (sized by the case header) or a module `addrspace(3)` global,
        which in a 2- or 3-D kernel may be a 2-D array (`two_d_ok`: the
        phase can index one; reductions and scans index by the linear id)."""
        c, p = self.p.c, self.p
        same = [t for t in self.tiles if t.elem == ty and (two_d_ok or not t.two_d)]
        if same and c.boolean(0.4):
            return c.choice(same)
        if c.boolean(0.5):
            buf = p._buffer("tile", ty)  # appended to the kernel's parameters
        else:
            buf = Buffer(f"tile{p._buf_names}", "tile", ty, module_global=True)
            p._buf_names += 1
            buf.two_d = two_d_ok and p.dims >= 2 and c.boolean(0.5)
            self.globals.append(buf)
        buf.addrspace = 3
        buf.slots = 1
        self.tiles.append(buf)
        return buf

    def barrier(self) -> Barrier:
        c = self.p.c
        fence = c.weighted([(3.0, 1), (1.0, 2), (1.0, 3)])
        return Barrier(fence, c.weighted([(3.0, "barrier"), (1.0, "work_group_barrier")]))

    def _observe(self, v: Var) -> Stmt:
        return self.p._observe(v)

    def _value(self, ty: Ty) -> Expr:
        return self.p.expr(ty, self.p.k.expr_depth, "any")

    # ------------------------------------------------------------------
    # Phases

    def phase(self, depth: int = 0) -> list[Stmt]:
        """One phase (a few statements), at a point every work-item of the
        group reaches (the kernel's top level or a phase's own body)."""
        c, p = self.p.c, self.p
        p.budget -= 2
        nest_ok = self._nest < MAX_PHASE_NEST and p.budget > 1
        kind = c.weighted([
            (3.0, "tile"), (2.0, "reduce"), (2.0, "scan"), (1.0, "atomic"),
            (1.5 if nest_ok else 0.0, "loop"), (1.0 if nest_ok else 0.0, "if"),
        ])
        if kind == "tile":
            return self._tile_phase()
        if kind == "atomic":
            return self._atomic_phase()
        if kind == "reduce":
            return self._reduce_phase()
        if kind == "scan":
            return self._scan_phase()
        if kind == "loop":
            return [self._loop_phase(depth)]
        return [self._if_phase(depth)]

    def _tile_phase(self) -> list[Stmt]:
        c, p = self.p.c, self.p
        ty = self._tile_type()
        tile = self.tile(ty, two_d_ok=True)
        out: list[Stmt] = [Store(tile, 0, self._value(ty)), self.barrier()]
        reads: list[Var] = []
        for _ in range(c.integer(1, 2)):
            pattern = c.choice(PEER_PATTERNS_2D if tile.two_d else PEER_PATTERNS)
            shift = c.integer(1, 5) if pattern in ("rotate", "right", "down") else c.choice((1, 2, 3))
            v = p._var(ty, varying=pattern != "first")
            out.append(Let(v, Load(tile, PeerSlot(pattern, shift))))
            p.scopes[-1].append(v)
            reads.append(v)
        out.append(self.barrier())
        out.append(self._observe(c.choice(reads)))
        return out

    def _reduce_phase(self) -> list[Stmt]:
        c, p = self.p.c, self.p
        ty = self._tile_type()
        tile = self.tile(ty)
        op = c.choice(FLOAT_REDUCE_OPS if ty.is_float else INT_REDUCE_OPS)
        form = c.choice(("halving", "doubling"))
        r = p._var(ty)
        out: list[Stmt] = [
            Store(tile, 0, self._value(ty)), self.barrier(),
            TreeReduce(tile, op, form, self.barrier()),
            Let(r, Load(tile, PeerSlot("first"))), self.barrier(),
        ]
        p.scopes[-1].append(r)
        self.uniform_results.append(r)
        out.append(self._observe(r))
        return out

    def _scan_phase(self) -> list[Stmt]:
        c, p = self.p.c, self.p
        ty = self._tile_type()
        tile = self.tile(ty)
        op = c.choice(FLOAT_REDUCE_OPS[:3] if ty.is_float else INT_REDUCE_OPS)
        v = p._var(ty, varying=True)
        out: list[Stmt] = [
            Store(tile, 0, self._value(ty)), self.barrier(),
            PrefixScan(tile, op, self.barrier()),
            Let(v, Load(tile, LocalSlot(0))), self.barrier(),
        ]
        p.scopes[-1].append(v)
        out.append(self._observe(v))
        return out

    def _atomic_phase(self) -> list[Stmt]:
        """Every work-item sets its slot (so slot 0 too), barrier, every
        work-item updates slot 0 atomically with one commutative operation,
        barrier, every work-item reads slot 0 (the same in the group, and
        whatever the order of the updates), barrier."""
        c, p = self.p.c, self.p
        ty = c.choice([t for t in p.palette if t.elem in ("i32", "i64") and not t.is_vector] or [I32])
        tile = self.tile(ty)
        op = c.choice(c.choice(ATOMIC_FAMILIES))
        r = p._var(ty)
        cas = p.k.access_forms and op in ("add", "sub") and c.boolean(0.3)
        out: list[Stmt] = [
            Store(tile, 0, Const(ty, c.choice((0, 1, -1)))), self.barrier(),
            Atomic(tile, op, 0, self._value(ty), c.choice(("monotonic", "seq_cst", "acq_rel")), cas),
            self.barrier(),
            Let(r, Load(tile, PeerSlot("first"))), self.barrier(),
        ]
        p.scopes[-1].append(r)
        self.uniform_results.append(r)
        out.append(self._observe(r))
        return out

    def _uniform_i32(self) -> Expr:
        """An i32 the same for every work-item of a group (not of the NDRange)."""
        c, p = self.p.c, self.p
        params = [s for s in p.params if isinstance(s, ScalarParam) and s.ty == I32]
        options: list[tuple[float, str]] = [
            (2.0, "const"), (2.0, "group"), (1.0, "size"), (1.5 if params else 0.0, "param"),
        ]
        kind = c.weighted(options)
        dim = c.integer(0, p.dims - 1)
        if kind == "const":
            return Const(I32, c.integer(0, 4))
        if kind == "group":
            return Cast("trunc", WorkItem("group_id", dim), I32)
        if kind == "size":
            return Cast("trunc", WorkItem("local_size", dim), I32)
        return ParamRef(c.choice(params))

    def _loop_phase(self, depth: int) -> Stmt:
        """A loop every work-item of the group runs as often, holding barriers."""
        c, p = self.p.c, self.p
        max_trip = c.integer(1, 3)
        counter = p._var(I32)
        p.counters[counter.id] = max_trip
        trip = self._uniform_i32()
        bound = c.choice(("umin", "urem"))
        saved_loops, saved_iter = p.loops, p.iterations
        # The planner's statements in the body may not leave this loop:
        # it is not on their loop stack.
        p.loops = []
        p.iterations = saved_iter * max_trip
        p.scopes.append([counter])
        self._nest += 1
        body = self._body(depth + 1)
        self._nest -= 1
        p.scopes.pop()
        p.loops, p.iterations = saved_loops, saved_iter
        return Loop(counter, c.choice(("for", "do")), trip, bound, max_trip, body)

    def _if_phase(self, depth: int) -> Stmt:
        c, p = self.p.c, self.p
        visible = {id(v) for v in p.visible()}
        results = [r for r in self.uniform_results if id(r) in visible]  # not those of closed scopes
        kind = c.weighted([
            (2.0, "uniform"), (1.0 if results else 0.0, "result"), (1.0, "disguised"),
        ])
        dim = c.integer(0, p.dims - 1)
        cond: Expr
        if kind == "uniform":
            cond = Cmp(c.choice(("eq", "ne", "ult", "sgt")), self._uniform_i32(), Const(I32, c.integer(0, 2)))
        elif kind == "result":
            r = c.choice(results)
            if r.ty.is_float:
                cond = Cmp(c.choice(("olt", "oge", "une")), VarRef(r), Const(r.ty, 0.0))
            else:
                cond = Cmp(c.choice(("slt", "sge", "eq")), VarRef(r), Const(r.ty, 0))
        else:
            # gid - lid = group * size + offset: uniform in the group.
            base = Bin("sub", WorkItem("global_id", dim), WorkItem("local_id", dim))
            cond = Cmp("eq", Bin("and", base, Const(base.ty, c.choice((1, 2, 4)))), Const(base.ty, 0))
        p.scopes.append([])
        self._nest += 1
        then = self._body(depth + 1)
        self._nest -= 1
        p.scopes.pop()
        return If(cond, then, [])

    def _body(self, depth: int) -> list[Stmt]:
        """Phases and the planner's statements, at least one phase."""
        c, p = self.p.c, self.p
        out: list[Stmt] = []
        for _ in range(c.integer(1, 3)):
            if p.budget <= 0 and out:
                break
            if not out or c.boolean(0.5):
                out.extend(self.phase(depth))
            else:
                out.append(p.stmt(depth))
        return out

    def finish(self, plan: KernelPlan) -> None:
        """Record the module-level tiles on the plan."""
        plan.local_globals = list(self.globals)


# ---------------------------------------------------------------------------
# Coverage


def _walk(body: list[Stmt], ctx: tuple[str, ...]) -> Iterator[tuple[Stmt, tuple[str, ...]]]:
    for s in body:
        yield s, ctx
        if isinstance(s, Loop):
            yield from _walk(s.body, (*ctx, "loop"))
        elif isinstance(s, If):
            yield from _walk(s.then, (*ctx, "if"))
            yield from _walk(s.els, (*ctx, "if"))
        else:
            for b in s.blocks():
                yield from _walk(b, ctx)


def _disguised(cond: Expr) -> bool:
    return any(isinstance(x, WorkItem) and x.kind == "global_id" for x in walk_expr(cond))


def features(plan: KernelPlan) -> Counter[str]:
    """The work-group constructs of a plan, for `fuzz.coverage`."""
    out: Counter[str] = Counter()
    for b in plan.buffers:
        if b.role == "tile":
            out["workgroup: __local tile as a kernel argument"] += 1
    for b in plan.local_globals:
        out["workgroup: __local tile as a module addrspace(3) global"] += 1
        if b.two_d:
            out["workgroup: 2-D __local tile (rows of the group's x size)"] += 1
    conds: dict[int, Expr] = {}
    for s, ctx in _walk(plan.body, ()):
        if isinstance(s, If):
            conds[id(s)] = s.cond
        barriers: list[Barrier] = []
        if isinstance(s, Barrier):
            barriers = [s]
        elif isinstance(s, TreeReduce):
            barriers = [s.barrier]
            out[f"workgroup: tree reduction ({s.form})"] += 1
            if s.tile.elem.is_float:
                out["workgroup: tree reduction of floats"] += 1
        elif isinstance(s, PrefixScan):
            barriers = [s.barrier]
            out["workgroup: prefix scan"] += 1
            if s.tile.elem.is_float:
                out["workgroup: prefix scan of floats"] += 1
        for b in barriers:
            out["workgroup: barrier"] += 1
            spelling = "__mux_work_group_barrier" if plan.builtins == "mux" else b.spelling
            out[f"workgroup: barrier spelt {spelling}"] += 1
            out[f"workgroup: barrier fencing {FENCE_NAMES[b.fence]}"] += 1
            if isinstance(s, (TreeReduce, PrefixScan)) or "loop" in ctx:
                out["workgroup: barrier in a uniform loop"] += 1
            if "if" in ctx:
                out["workgroup: barrier under a uniform if"] += 1
        if isinstance(s, Atomic) and s.buffer.role == "tile":
            out["workgroup: atomic on __local memory"] += 1
        for e in s.exprs():
            for x in walk_expr(e):
                if isinstance(x, Load) and isinstance(x.addr, PeerSlot):
                    out[f"workgroup: read of another work-item's slot ({x.addr.pattern})"] += 1
    for s, _ in _walk(plan.body, ()):
        if isinstance(s, If) and any(isinstance(t, (Barrier, TreeReduce, PrefixScan)) for t, _ in _walk(s.then, ())):
            if _disguised(s.cond):
                out["workgroup: barrier under a branch that looks varying (gid - lid)"] += 1
    if any(out[k] for k in out if k.startswith("workgroup: barrier")):
        for r in plan.ndranges:
            lt = r.local_size[0] * r.local_size[1] * r.local_size[2]
            if lt % 4:
                out["workgroup: group size not a multiple of 4"] += 1
                break
    return out
