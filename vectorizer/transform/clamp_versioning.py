"""Clamp Versioning: a load whose index is clamped gets a contiguous fast path.

Stencils and image kernels clamp coordinates to the edge:
`img[y * w + clamp(x + dx, 0, w - 1)]`. The clamp hides from the stride
analysis that the index is `x + dx`, contiguous across lanes, so the load
becomes a gather. But a clamp binds only at the border: in the interior, for
every lane of a packet, `clamp(v, lo, hi) == v`. This pass versions each such
load on exactly that fact:

    ok  = lo <= v' && v' <= hi          (per lane; v' = the unclamped index)
    all = __vecz_b_divergence_all(ok)   (uniform)
    br all, fast, slow
    fast: load at the address computed from v'  (contiguous: one vector load)
    slow: the original load                     (a gather)

Every lane whose condition holds has the same address on both paths, so the
fast path is taken only when it loads what the original would. The unclamped
address is built by cloning the address computation with each clamp
(`llvm.smax`/`smin`/`umax`/`umin` of a varying value and a uniform bound)
replaced by its varying operand. Conditions are combined inner clamp first
with `select`, so an unclamped value that overflows (poison) in a lane where
an inner condition already failed cannot poison the check.

A group's conditions on one index plus different constants (a stencil's
taps `x - 2 ... x + 2`, each `add nsw`) are pruned to the two that imply
the rest: `x - 2 >= lo` and `x + 2 <= hi`. A tap whose index overflows would
load through a poison address in the original kernel, so the implication
only fails where the original is undefined.

It runs on scalar IR after control-flow conversion, on plain loads only
(those in blocks every lane executes; masked loads are left alone), and keeps
a version only when the stride analysis finds the unclamped address linear
with a constant stride. It touches only the blocks of the loads it versions.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..analysis.data_layout import DataLayout
from ..analysis.dominance import DominatorTree
from ..analysis.stride import StrideAnalysis
from ..analysis.uniformity import UniformValueAnalysis
from ..builtins.masked import divergence_all_fn
from ..ir import instructions as I
from ..ir import types as T
from ..ir import values as V
from ..ir.builder import Builder

# Intrinsic -> the predicate that says the clamp does not bind (operand, bound).
_CLAMPS = {"smax": "sge", "smin": "sle", "umax": "uge", "umin": "ule"}
_RELAXABLE = (I.GetElementPtrInst, I.CastInst, I.BinaryOperator)


def _clamp_kind(inst: V.Value) -> str | None:
    if not isinstance(inst, I.CallInst):
        return None
    fn = inst.called_function
    name = fn.name if fn is not None else None
    if not name or not name.startswith("llvm.") or len(inst.args) != 2:
        return None
    kind = name.split(".")[1]
    return kind if kind in _CLAMPS else None


@dataclass
class _Relaxed:
    value: V.Value
    conditions: list[V.Value]  # inner clamps first


@dataclass
class ClampVersioning:
    """Version the clamped loads of `function`; `run()` returns how many."""

    function: V.Function
    module: V.Module
    uniform: UniformValueAnalysis
    layout: DataLayout
    dim: int
    _memo: dict[int, _Relaxed | None] = field(default_factory=dict)
    _created: list[I.Instruction] = field(default_factory=list)

    def run(self) -> int:
        stride = StrideAnalysis(self.uniform, self.layout)
        candidates: list[tuple[I.LoadInst, _Relaxed]] = []
        for inst in list(self.function.instructions()):
            if not isinstance(inst, I.LoadInst) or inst.volatile or inst.ordering:
                continue
            if not self.uniform.is_varying(inst.pointer) or stride.info(inst.pointer).constant_stride is not None:
                continue
            relaxed = self._relax(inst.pointer)
            if relaxed is not None:
                candidates.append((inst, relaxed))
        if not candidates:
            return 0
        # The unclamped addresses are new: ask the stride analysis afresh.
        fresh = StrideAnalysis(UniformValueAnalysis(self.function, self.dim), self.layout)
        kept = [(ld, r) for ld, r in candidates if fresh.info(r.value).constant_stride is not None]
        dt = DominatorTree(self.function)
        for group in self._groups(kept, dt):
            self._version(group)
        self._erase_unused()
        return len(kept)

    def _groups(self, kept: list[tuple[I.LoadInst, _Relaxed]], dt: DominatorTree) -> list[list[tuple[I.LoadInst, _Relaxed]]]:
        """Loads of one block, in order, versioned together behind one check
        (a stencil's taps: one branch instead of one per tap). A load joins
        the group of an earlier load of its block when all its conditions are
        computed before that load."""
        groups: list[list[tuple[I.LoadInst, _Relaxed]]] = []
        open_group: dict[int, list[tuple[I.LoadInst, _Relaxed]]] = {}
        for load, relaxed in kept:
            group = open_group.get(id(load.parent))
            if group is not None and all(dt.dominates(c, group[0][0]) and c is not group[0][0]
                                         for c in relaxed.conditions):
                group.append((load, relaxed))
                continue
            group = [(load, relaxed)]
            groups.append(group)
            open_group[id(load.parent)] = group
        return groups

    # ------------------------------------------------------------- relaxing

    def _relax(self, v: V.Value) -> _Relaxed | None:
        """The unclamped form of `v` and the conditions under which it equals
        `v`; None when `v` contains no clamp to relax."""
        key = id(v)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = None  # cycles through phis never get here; be safe anyway
        result: _Relaxed | None = None
        kind = _clamp_kind(v)
        if kind is not None:
            a, bound = v.args
            if self.uniform.is_varying(bound) and not self.uniform.is_varying(a):
                a, bound = bound, a
            if self.uniform.is_varying(a) and not self.uniform.is_varying(bound):
                inner = self._relax(a)
                operand = inner.value if inner else a
                b = Builder().position_after(v)
                cond = b.icmp(_CLAMPS[kind], operand, bound, name="clamp.free")
                self._created.append(cond)
                result = _Relaxed(operand, [*(inner.conditions if inner else []), cond])
        elif isinstance(v, _RELAXABLE):
            ops = list(v.operands)
            relaxed = [self._relax(op) if isinstance(op, I.Instruction) else None for op in ops]
            if any(r is not None for r in relaxed):
                clone = v.clone()
                Builder().position_after(v).insert(clone, name=f"{v.name}.unclamped" if v.name else None)
                conditions: list[V.Value] = []
                for i, r in enumerate(relaxed):
                    if r is not None:
                        clone.set_operand(i, r.value)
                        conditions.extend(c for c in r.conditions if c not in conditions)
                self._created.append(clone)
                result = _Relaxed(clone, conditions)
        self._memo[key] = result
        return result

    # ----------------------------------------------------------- versioning

    def _version(self, group: list[tuple[I.LoadInst, _Relaxed]]) -> None:
        """Branch on the group's check to a copy of the instructions from its
        first load to its last, in which the loads are contiguous; values
        defined in the range meet in phis after it."""
        first, last = group[0][0], group[-1][0]
        b = Builder().position_before(first)
        conditions: list[V.Value] = []
        for _, relaxed in group:
            conditions.extend(c for c in relaxed.conditions if c not in conditions)
        conditions = prune_implied_conditions(conditions, {id(v) for v in self._created})
        ok = conditions[0]
        for c in conditions[1:]:
            ok = b.select(ok, c, V.ConstantInt(T.i1, 0))  # fresh: constants record their uses
        every = b.call(divergence_all_fn(self.module), [ok], name="clamp.none")
        block = first.parent
        slow = block.split_before(first, name="clamp.slow")
        rest = slow.split_before(slow.instructions[slow.index_of(last) + 1], name="clamp.join")
        fast = self.function.add_block("clamp.fast", before=slow)
        fb = Builder().position_at_end(fast)
        unclamped = {id(load): relaxed.value for load, relaxed in group}
        copies: dict[int, V.Value] = {}
        originals = [inst for inst in slow.instructions if not inst.is_terminator]
        for inst in originals:
            copy = inst.clone()
            fb.insert(copy, name=f"{inst.name}.contiguous" if inst.name else None)
            for i, op in enumerate(copy.operands):
                if id(op) in copies:
                    copy.set_operand(i, copies[id(op)])
            if id(inst) in unclamped:
                pointer = unclamped[id(inst)]
                copy.set_operand(0, copies.get(id(pointer), pointer))
            copies[id(inst)] = copy
        fb.br(rest)
        block.terminator.erase_from_parent()
        Builder().position_at_end(block).cond_br(every, fast, slow)
        inside = {id(i) for i in originals}
        for inst in originals:
            outside = [u for u in inst.uses if id(u.user) not in inside and u.user.parent is not fast]
            if not outside or isinstance(inst.type, T.VoidType):
                continue
            phi = Builder().position_at_start(rest).phi(inst.type, [(copies[id(inst)], fast), (inst, slow)],
                                                        name=inst.name or None)
            for use in outside:
                use.user.set_operand(use.index, phi)

    def _erase_unused(self) -> None:
        changed = True
        while changed:
            changed = False
            for inst in reversed(self._created):
                if inst.parent is not None and not inst.uses:
                    inst.erase_from_parent()
                    changed = True


_Key = tuple[str, int, object]


def prune_implied_conditions(conditions: list[V.Value], created: set[int]) -> list[V.Value]:
    """Drop the conditions of an ordered `select` chain that another of the
    chain implies, for a stencil's taps on one base `b` (signed `nsw`
    arithmetic; `created` are the ids of relaxed clones):

    - `b >= k` for constants k: only the largest k (`b <= k`: the smallest);
    - `b + c <= u` for one uniform u: only the largest c (`b + c >= u`: the
      smallest; a relaxed clone `b + c` only with c >= 0 there).

    Where `b + c` overflows, the tap loads through a poison address in the
    original kernel. The condition kept takes the place of the first of its
    group. Order guards poison (a relaxed clone may overflow where an earlier
    condition failed), so a group is pruned only if every condition that came
    before its kept one is still represented before that place."""
    keys: list[_Key | None] = [_implication_key(c, created) for c in conditions]
    first: dict[_Key, int] = {}
    kept: dict[_Key, int] = {}
    for i, key in enumerate(keys):
        if key is None:
            continue
        first.setdefault(key, i)
        if key not in kept or _tighter(conditions[i], conditions[kept[key]], key):
            kept[key] = i
    members = Counter(k for k in keys if k is not None)
    pruned = {k for k in kept if members[k] > 1}
    changed = True
    while changed:
        changed = False
        for key in sorted(pruned, key=lambda k: first[k]):
            place = first[key]
            guards = (first[k] if k in pruned else j for j, k in enumerate(keys[: kept[key]]) if k != key)
            if any(g >= place for g in guards):
                pruned.discard(key)
                changed = True
    out: list[V.Value] = []
    for i, (cond, key) in enumerate(zip(conditions, keys, strict=True)):
        if key not in pruned:
            out.append(cond)
        elif first[key] == i:
            out.append(conditions[kept[key]])
    return out


def _implication_key(cond: V.Value, created: set[int]) -> _Key | None:
    """(predicate, base, bound) of a prunable condition; constants share one bound."""
    if not isinstance(cond, I.ICmpInst) or cond.predicate not in ("sge", "sle"):
        return None
    form = _offset_form(cond.lhs)
    if form is None or id(form[0]) in created:
        return None
    base, c = form
    if isinstance(cond.rhs, V.ConstantInt):
        return (cond.predicate, id(base), "const") if c == 0 else None
    if isinstance(cond.rhs, V.Constant):
        return None
    if cond.predicate == "sge" and id(cond.lhs) in created and c < 0:
        return None
    return (cond.predicate, id(base), id(cond.rhs))


def _tighter(cond: V.Value, held: V.Value, key: _Key) -> bool:
    """Does `cond` imply `held` (same key)?"""
    assert isinstance(cond, I.ICmpInst) and isinstance(held, I.ICmpInst)
    lower = key[0] == "sge"
    if key[2] == "const":
        assert isinstance(cond.rhs, V.ConstantInt) and isinstance(held.rhs, V.ConstantInt)
        a, b = cond.rhs.signed, held.rhs.signed
        return a > b if lower else a < b
    ca, cb = _offset_form(cond.lhs)[1], _offset_form(held.lhs)[1]
    return ca < cb if lower else ca > cb


def _offset_form(v: V.Value) -> tuple[V.Value, int] | None:
    """`v` as (base, c) with v == base + c and no signed wrap (`add nsw`/`sub
    nsw` of a constant, or the value itself with c = 0)."""
    if not isinstance(v.type, T.IntType):
        return None
    if isinstance(v, I.BinaryOperator) and v.opcode in ("add", "sub") and "nsw" in v.flags:
        lhs, rhs = v.lhs, v.rhs
        if v.opcode == "add" and isinstance(lhs, V.ConstantInt) and not isinstance(rhs, V.Constant):
            lhs, rhs = rhs, lhs
        if isinstance(rhs, V.ConstantInt) and not isinstance(lhs, V.Constant):
            return lhs, (rhs.signed if v.opcode == "add" else -rhs.signed)
        return None
    return v, 0


def version_clamped_loads(
    function: V.Function, module: V.Module, uniform: UniformValueAnalysis, layout: DataLayout, dim: int
) -> int:
    """Give each load whose index is a clamp of a contiguous one a contiguous
    fast path (see the module docstring); returns how many were versioned."""
    return ClampVersioning(function, module, uniform, layout, dim).run()
