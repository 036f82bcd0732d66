"""What the generator produces: how often each construct appears over N kernels.

Divergence is recomputed here on the finished plan (the planner's modes are
only intentions): a value is varying if it depends on a global or local id,
directly or through variables, loads, private arrays or control dependence
(assigned under a varying branch, in a loop with a varying trip count or a
varying exit, or after a varying early return), iterated to a fixed point.
A construct is "divergent" when its condition is varying.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from .plan import (
    Addr,
    Affine,
    Assign,
    Atomic,
    Biased,
    Bin,
    Block,
    Break,
    Builtin,
    Call,
    CallStmt,
    Cast,
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
    Overflow,
    PeerSlot,
    Printf,
    PrivInit,
    PrivLoad,
    PrivStore,
    PtrCmp,
    PtrDiff,
    Return,
    Select,
    SelectAddr,
    Shuffle,
    Spin,
    Splat,
    Stmt,
    Store,
    Switch,
    Trap,
    UniformStore,
    VarRef,
    VLoad,
    VStore,
    WorkDim,
    WorkItem,
    Wrapped,
    walk_expr,
)
from .workgroup import features as workgroup_features


class Divergence:
    """Varying variables and private arrays of one function, to a fixed point."""

    def __init__(self, body: list[Stmt], params_varying: Iterable[int] = ()) -> None:
        self.vars: set[int] = set(params_varying)
        self.arrays: set[int] = set()
        self.divergent_loops: set[int] = set()  # id(Loop)
        for _ in range(20):
            before = (len(self.vars), len(self.arrays), len(self.divergent_loops))
            self._after_return = False
            self._block(body, False)
            if (len(self.vars), len(self.arrays), len(self.divergent_loops)) == before:
                break

    def expr(self, e: Expr) -> bool:
        for x in walk_expr(e):
            if isinstance(x, WorkItem) and x.kind in ("global_id", "local_id"):
                return True
            if isinstance(x, Lin):
                return True
            if isinstance(x, VarRef) and x.var.id in self.vars:
                return True
            if isinstance(x, Load) and self.addr(x.addr):
                return True
            if isinstance(x, PrivLoad) and x.array.id in self.arrays:
                return True
            if isinstance(x, Call) and _helper_uses_ids(x.helper):
                return True
            if isinstance(x, (PtrCmp, PtrDiff)) and (self.addr(x.a) or self.addr(x.b)):
                return True
            if isinstance(x, VLoad) and x.base is not None and self.addr(x.base):
                return True
        return False

    def addr(self, a: Addr) -> bool:
        if isinstance(a, Affine):
            return a.base in ("lin", "gid", "lid")
        if isinstance(a, Indirect):
            return self.addr(a.inner)
        if isinstance(a, (Wrapped, Block, Biased)):
            return self.expr(a.expr)
        if isinstance(a, SelectAddr):
            return self.expr(a.cond) or self.addr(a.a) or self.addr(a.b)
        if isinstance(a, CursorAddr):
            return self.addr(a.cursor.start)
        if isinstance(a, PeerSlot):
            return a.pattern != "first"  # slot 0 is the same slot for the whole group
        return isinstance(a, LocalSlot)  # what this work-item stored

    def _block(self, body: list[Stmt], div: bool) -> None:
        for s in body:
            self._stmt(s, div or self._after_return)

    def _stmt(self, s: Stmt, div: bool) -> None:
        if isinstance(s, (Let, Assign)):
            if div or self.expr(s.value):
                self.vars.add(s.var.id)
        elif isinstance(s, If):
            c = div or self.expr(s.cond)
            if not div and self.expr(s.cond) and _has_return(s.then + s.els):
                self._after_return = True
            self._block(s.then, c)
            self._block(s.els, c)
        elif isinstance(s, Switch):
            c = div or self.expr(s.sel)
            if not div and self.expr(s.sel) and any(_has_return(b) for b in s.blocks()):
                self._after_return = True
            for b in s.blocks():
                self._block(b, c)
        elif isinstance(s, Loop):
            varying_trip = self.expr(s.trip)
            if varying_trip or self._varying_exit(s.body):
                self.divergent_loops.add(id(s))
            c = div or id(s) in self.divergent_loops
            if c:
                self.vars.add(s.counter.id)  # its live-out value differs per lane
            self._block(s.body, c)
        elif isinstance(s, PrivStore):
            if div or self.expr(s.index) or self.expr(s.value):
                self.arrays.add(s.array.id)
        elif isinstance(s, PrivInit):
            if div or (s.addr is not None and self.addr(s.addr)):
                self.arrays.add(s.array.id)

    def _varying_exit(self, body: list[Stmt], under: bool = False) -> bool:
        """A break/continue/return of this loop under a varying condition."""
        for s in body:
            if isinstance(s, (Break, Continue, Return)) and under:
                return True
            if isinstance(s, If):
                c = under or self.expr(s.cond)
                if self._varying_exit(s.then, c) or self._varying_exit(s.els, c):
                    return True
            elif isinstance(s, Switch):
                c = under or self.expr(s.sel)
                if any(self._varying_exit(b, c) for b in s.blocks()):
                    return True
            elif isinstance(s, Loop):
                # Only exits that leave this loop too (break 2, return) count.
                if _leaves_two(s.body, under, self):
                    return True
        return False


def _leaves_two(body: list[Stmt], under: bool, d: Divergence) -> bool:
    for s in body:
        if isinstance(s, (Return,)) and under:
            return True
        if isinstance(s, Break) and s.levels >= 2 and under:
            return True
        if isinstance(s, If):
            c = under or d.expr(s.cond)
            if _leaves_two(s.then, c, d) or _leaves_two(s.els, c, d):
                return True
        elif isinstance(s, Switch):
            c = under or d.expr(s.sel)
            if any(_leaves_two(b, c, d) for b in s.blocks()):
                return True
    return False


def _has_return(body: list[Stmt]) -> bool:
    for s in body:
        if isinstance(s, Return):
            return True
        if any(_has_return(b) for b in s.blocks() if not isinstance(s, Loop)) or (
            isinstance(s, Loop) and _has_return(s.body)
        ):
            return True
    return False


def _helper_uses_ids(h: Helper, seen: frozenset[int] = frozenset()) -> bool:
    """Whether a helper's result can vary even with uniform arguments
    (`seen`: the helpers on the call chain, which a recursive one reaches again)."""
    seen = seen | {id(h)}
    exprs: list[Expr] = [e for e in (h.result, h.base) if e is not None]
    for s in _all(h.body):
        exprs.extend(s.exprs())
    for e in exprs:
        for x in walk_expr(e):
            if isinstance(x, WorkItem) and x.kind in ("global_id", "local_id"):
                return True
            if isinstance(x, Call) and id(x.helper) not in seen and _helper_uses_ids(x.helper, seen):
                return True
    return False


def features(plan: KernelPlan) -> Counter[str]:
    """Occurrences of each construct in one plan."""
    out: Counter[str] = Counter()
    div = Divergence(plan.body)
    out[f"dims: {plan.dims}"] += 1
    if any(any(r.offset) for r in plan.ndranges):
        out["ndrange: global offset"] += 1
    if len(plan.ndranges) > 1:
        out["ndrange: several"] += 1
    if any(r.local_size[0] % 4 for r in plan.ndranges):
        out["ndrange: local size not a multiple of 4"] += 1
    if plan.lin_form == "group":
        out["ids: linear id from group/local ids"] += 1
    if plan.arrays:
        out["private array"] += len(plan.arrays)
        out["private array in a struct (union)"] += sum(a.union for a in plan.arrays)
        out["private array in a struct after mixed-alignment fields"] += sum(bool(a.header) for a in plan.arrays)
    if plan.builtins == "mux":
        out["builtin: __mux_* spelling"] += 1
    for b in plan.buffers:
        if b.addrspace != 1:
            out[f"buffer in addrspace({b.addrspace})"] += 1
    for p in plan.scalars:
        if p.ty.is_vector:
            out["kernel argument: vector"] += 1
    if div.arrays:
        out["private array (varying contents)"] += len(div.arrays)
    if plan.helpers:
        out["helper function"] += len(plan.helpers)
    for h in plan.helpers:
        if h.has_side_effects:
            out["helper with side effects"] += 1
        if h.recursive:
            calls = {id(x.helper) for x in walk_expr(h.result) if isinstance(x, Call)} if h.result else set()
            out["helper: recursive (bounded depth)" if id(h) in calls else "helper: mutually recursive"] += 1
    _walk(plan.body, div, out, in_div=False, loop_depth=0, div_loops=0, kernel=True)
    out.update(workgroup_features(plan))
    for h in plan.helpers:
        hd = Divergence(h.body, [p.id for p in h.params])
        _walk(h.body, hd, out, in_div=False, loop_depth=0, div_loops=0, kernel=False)
    for b in plan.buffers:
        if b.role == "out":
            out[f"store: {b.mapping}"] += 1
            if b.slots > 1:
                out["store: strided (several slots per work-item)"] += 1
        elif b.role == "uniform":
            out["store: uniform address"] += 1
    return out


def _walk(body: list[Stmt], d: Divergence, out: Counter[str], in_div: bool, loop_depth: int,
          div_loops: int, kernel: bool) -> None:
    for s in body:
        for e in s.exprs():
            _expr_features(e, d, out, in_div)
        if isinstance(s, If):
            v = d.expr(s.cond)
            out["if: divergent" if v else "if: uniform"] += 1
            if not v and in_div:
                out["if: uniform inside divergent region"] += 1
            if s.els:
                out["if: with else"] += 1
            if in_div and v:
                out["if: nested divergent"] += 1
            for blk in (s.then, s.els):
                _walk(blk, d, out, in_div or v, loop_depth, div_loops, kernel)
        elif isinstance(s, Switch):
            v = d.expr(s.sel)
            out["switch: divergent" if v else "switch: uniform"] += 1
            if any(c.fallthrough for c in s.cases):
                out["switch: fall-through"] += 1
            for blk in s.blocks():
                _walk(blk, d, out, in_div or v, loop_depth, div_loops, kernel)
        elif isinstance(s, Loop):
            v = id(s) in d.divergent_loops
            out["loop: divergent" if v else "loop: uniform"] += 1
            if d.expr(s.trip):
                out["loop: trip count depends on the work-item"] += 1
            if s.kind == "do":
                out["loop: bottom-tested (do-while)"] += 1
                if s.carried_exit:
                    out["loop: latch branches on a carried header phi"] += 1
            if loop_depth > 0:
                out["loop: nested"] += 1
                if v and div_loops > 0:
                    out["loop: nested divergent"] += 1
            exits = _exits(s.body)
            if exits >= 1:
                out["loop: with break/return exits"] += 1
            if exits + (1 if s.kind == "for" else 0) >= 2:
                out["loop: several exits"] += 1
            if any(isinstance(x, Assign) for x in _all(s.body)):
                out["loop: loop-carried variable (phi)"] += 1
            _walk(s.body, d, out, in_div or v, loop_depth + 1, div_loops + v, kernel)
        elif isinstance(s, Break):
            out["break" if s.levels == 1 else "break out of two loops"] += 1
        elif isinstance(s, Continue):
            out["continue"] += 1
        elif isinstance(s, Return):
            out["early return"] += 1
            if loop_depth:
                out["early return inside a loop"] += 1
        elif isinstance(s, Assign):
            if in_div:
                out["variable assigned under divergence (phi)"] += 1
        elif isinstance(s, Store):
            if in_div:
                out["memory: conditional (masked) store"] += 1
        elif isinstance(s, Atomic):
            out["atomic"] += 1
            out[f"atomic {s.op}"] += 1
            if in_div:
                out["atomic under divergence"] += 1
        elif isinstance(s, PrivStore):
            out["private array store"] += 1
        elif isinstance(s, CallStmt):
            out["call: statement (side effects)"] += 1
        elif isinstance(s, UniformStore):
            pass
        elif isinstance(s, PrivInit):
            out["private array: llvm.memcpy" if s.source is not None else "private array: llvm.memset"] += 1
        elif isinstance(s, Printf):
            out["printf"] += 1
        elif isinstance(s, Trap):
            out["trap: second exit (llvm.trap + unreachable), " + ("varying" if d.expr(s.guard) else "uniform")
                + " guard"] += 1
        elif isinstance(s, Spin):
            out["endless loop (never entered), " + ("varying" if d.expr(s.guard) else "uniform") + " guard"] += 1
        elif isinstance(s, Irreducible):
            out["irreducible cycle (two entries), " + ("varying" if d.expr(s.cond) else "uniform") + " entry"] += 1
        elif isinstance(s, VStore):
            out["OpenCL builtin: vstore"] += 1
        elif isinstance(s, CopyOut):
            kind = ("llvm.memmove" if s.move else "llvm.memcpy of a private array" if s.array is not None
                    else "llvm.memcpy of an input" if s.source is not None else "llvm.memset")
            out[f"store: {kind}{' (__local)' if s.buffer.is_local else ''}"] += 1
        if isinstance(s, Store) and s.buffer.is_local:
            out["memory: __local store (own slots)"] += 1
        if isinstance(s, Loop) and s.cursor is not None:
            out["loop: pointer induction variable"] += 1
        if isinstance(s, Atomic) and s.cas:
            out["atomic: compare-and-swap loop"] += 1
        if isinstance(s, Break) and s.levels >= 3:
            out["break out of three loops"] += 1
        access = getattr(s, "access", None)
        if access is not None:
            _access_features(access, out)


def _all(body: list[Stmt]) -> list[Stmt]:
    out: list[Stmt] = []
    for s in body:
        out.append(s)
        for b in s.blocks():
            out.extend(_all(b))
    return out


def _exits(body: list[Stmt]) -> int:
    """Breaks and returns that leave this loop (not counting inner loops' own breaks)."""
    n = 0
    for s in body:
        if isinstance(s, (Break, Return)):
            n += 1
        elif isinstance(s, Loop):
            n += sum(1 for x in _all(s.body) if isinstance(x, Return) or (isinstance(x, Break) and x.levels >= 2))
        else:
            for b in s.blocks():
                n += _exits(b)
    return n


def _access_features(acc: object, out: Counter[str]) -> None:
    flags = " ".join(acc.gep_flags)  # type: ignore[attr-defined]
    out[f"memory: gep {flags or 'without flags'}"] += 1
    if acc.via != "gep":  # type: ignore[attr-defined]
        out[f"memory: address via {acc.via}"] += 1  # type: ignore[attr-defined]
    if acc.volatile:  # type: ignore[attr-defined]
        out["memory: volatile"] += 1


def _expr_features(e: Expr, d: Divergence, out: Counter[str], in_div: bool) -> None:
    for x in walk_expr(e):
        access = getattr(x, "access", None)
        if access is not None:
            _access_features(access, out)
        flags = getattr(x, "flags", ())
        if flags:
            out[f"flags: {getattr(x, 'op', getattr(x, 'pred', ''))} {' '.join(flags)}"] += 1
        if isinstance(x, Builtin):
            # Conversions by family (`convert_<int>_sat_rte`), not by type and width.
            name = re.sub(r"^convert_u?(char|short|int|long|half|float|double)\d*", r"convert_\1", x.name)
            out[f"OpenCL builtin: {name}"] += 1
            if x.noinline:
                out["OpenCL builtin: noinline call"] += 1
        elif isinstance(x, Overflow):
            out["llvm.*.with.overflow + extractvalue"] += 1
        elif isinstance(x, Freeze):
            out["freeze"] += 1
        elif isinstance(x, PtrCmp):
            out["pointer comparison"] += 1
        elif isinstance(x, PtrDiff):
            out["pointer subtraction"] += 1
        elif isinstance(x, VLoad) and x.mask is not None:
            out["masked gather with a pass-through"] += 1
        elif isinstance(x, VLoad):
            out["OpenCL builtin: vload"] += 1
        elif isinstance(x, WorkDim):
            out["builtin: get_work_dim"] += 1
        elif isinstance(x, PrivLoad) and x.choice is not None:
            out["private array: load through a pointer select"] += 1
        elif isinstance(x, PrivLoad) and x.view:
            out["private array: scalar view of vectors"] += 1
        if x.ty.elem != "void":
            out[f"type: {x.ty.llvm}"] += 1
        if isinstance(x, Select):
            out["select"] += 1
        elif isinstance(x, Math):
            out["math builtin"] += 1
            out[f"math: {x.fn}"] += 1
        elif isinstance(x, Cast):
            if x.op.startswith("fpto"):
                out["float-to-int conversion (guarded)"] += 1
        elif isinstance(x, Call):
            out["call: helper" if not x.helper.has_side_effects else "call: helper with side effects"] += 1
            if in_div:
                out["call: under divergence"] += 1
        elif isinstance(x, WorkItem):
            out[f"builtin: get_{x.kind}"] += 1
            if isinstance(x.dim, int):
                out[f"builtin: dimension {x.dim}"] += 1
            else:
                kind = "varying" if d.expr(x.dim) else "uniform"
                out[f"builtin: run-time dimension ({kind})"] += 1
                if x.kind in ("global_id", "local_id"):
                    out["builtin: id with a run-time dimension"] += 1
        elif isinstance(x, Load):
            out[f"memory: load {_addr_kind(x.addr, d)}"] += 1
            if in_div:
                out["memory: conditional (masked) load"] += 1
        elif isinstance(x, PrivLoad):
            out["private array load"] += 1
        elif isinstance(x, (Extract, Insert, Shuffle, Splat)):
            out[f"vector: {type(x).__name__.lower()}"] += 1
        if isinstance(x, Bin) and x.op in ("udiv", "sdiv", "urem", "srem"):
            out["integer division (guarded)"] += 1
        if isinstance(x, Bin) and x.op in ("shl", "lshr", "ashr"):
            out["shift (masked)"] += 1


def _addr_kind(a: Addr, d: Divergence) -> str:
    if isinstance(a, ConstAddr):
        return "uniform"
    if isinstance(a, Wrapped):
        return "gather (computed index)" if d.expr(a.expr) else "uniform"
    if isinstance(a, Biased):
        return "narrow wrapped index from the buffer's middle"
    if isinstance(a, Indirect):
        return "gather (index buffer)"
    if isinstance(a, SelectAddr):
        return "select of two pointers"
    if isinstance(a, Block):
        return "block"
    if isinstance(a, LocalSlot):
        return "__local own slot"
    if isinstance(a, PeerSlot):
        return "__local tile, another work-item's slot" if a.pattern != "first" else "uniform"
    if isinstance(a, CursorAddr):
        return "pointer induction variable"
    assert isinstance(a, Affine)
    if a.base == "grp":
        return "uniform"
    if not isinstance(a.dim, int):
        return "at an id of a run-time dimension"
    if a.clamp_hi is not None:
        return "clamped (to the edge)"
    if a.counter is not None:
        return "contiguous + loop counter" if abs(a.stride) == 1 else "strided + loop counter"
    if a.stride == 1:
        return "contiguous"
    if a.stride == -1:
        return "reverse"
    return f"strided {'+' if a.stride > 0 else '-'}k"


@dataclass
class CoverageReport:
    """Per construct: how many kernels contain it, and how many times in all."""

    kernels: int
    present: Counter[str]
    total: Counter[str]
    seconds: float = 0.0
    instructions: list[int] = field(default_factory=list)

    def table(self) -> str:
        lines = [f"{'construct':58} {'kernels':>8} {'%':>6} {'total':>8}"]
        groups = sorted(self.present, key=lambda k: (k.split(":")[0], -self.present[k], k))
        for k in groups:
            pct = 100.0 * self.present[k] / max(1, self.kernels)
            lines.append(f"{k:58} {self.present[k]:8d} {pct:6.1f} {self.total[k]:8d}")
        lines.append(f"{self.kernels} kernels")
        if self.seconds:
            lines.append(f"{self.kernels / self.seconds:.1f} kernels/s ({self.seconds:.2f} s)")
        if self.instructions:
            ins = sorted(self.instructions)
            lines.append(
                f"instructions per module: min {ins[0]}, median {ins[len(ins) // 2]}, "
                f"max {ins[-1]}"
            )
        return "\n".join(lines)


def coverage(plans: Iterable[KernelPlan]) -> CoverageReport:
    """Aggregate `features` over plans."""
    present: Counter[str] = Counter()
    total: Counter[str] = Counter()
    n = 0
    for p in plans:
        n += 1
        f = features(p)
        total.update(f)
        present.update({k: 1 for k in f})
    return CoverageReport(n, present, total)


def measure(count: int, seed: int = 0, emit: bool = True, **knobs: object) -> CoverageReport:
    """Generate `count` kernels from seeds `seed..seed+count-1`; coverage and rate.

    With `emit`, the full pipeline (plan, IR, text) is timed; else plans only.
    """
    from .choice_source import RandomSource
    from .generator import KERNEL_NAME, generate_kernel, plan_kernel
    from .knobs import make_knobs

    plans: list[KernelPlan] = []
    sizes: list[int] = []
    t0 = time.perf_counter()
    for s in range(seed, seed + count):
        if emit:
            g = generate_kernel(s, **dict(knobs))
            plans.append(g.plan)
            sizes.append(sum(1 for line in g.text.splitlines() if line.startswith("  ") and not line.startswith("  ;")))
        else:
            plans.append(plan_kernel(RandomSource(s), make_knobs(**dict(knobs)), KERNEL_NAME))
    elapsed = time.perf_counter() - t0
    report = coverage(plans)
    report.seconds = elapsed
    report.instructions = sizes
    return report


__all__ = ["CoverageReport", "Divergence", "coverage", "features", "measure"]
