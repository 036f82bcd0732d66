"""Uniform Value Analysis: which values differ between the lanes of a packet.

Vector roots are the work-item queries that vary along the vectorized
dimension (`get_global_id(dim)`, `get_local_id(dim)`, linear ids). Each root
and, recursively, every user of a varying value is varying; a value is marked
before its users are visited, so use cycles through phis terminate.

An id query whose dimension is only known at run time (`get_global_id(%d)`)
is a root too, but it varies only when `%d` names the vectorized dimension:
the stride analysis gives it no stride and the packetizer selects on
`%d == dim` between the stepped ids and the query's own (uniform) value.
Every other query that takes a dimension (group ids, sizes, offsets) is the
same for all lanes of a packet whatever the dimension, because a packet never
crosses a work-group.

The alloca special case (seed, "Uniform Analysis"): a private variable that
receives a varying store, or is handed to a varying call or atomic, holds a
different value in every lane, so the alloca itself, and everything derived
from it, is varying even though its address computation is not.

This analysis only reads the IR. Later analyses (divergence) add roots with
`mark_varying` for values made varying by divergent control flow.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from ..builtins import BuiltinKind
from ..builtins import classify as _classify
from ..builtins.info import is_pure_callee as _is_pure_callee
from ..builtins.masked import classify_masked_call
from ..builtins.work_item import VARYING_ANY_DIM, VARYING_KINDS
from ..ir import instructions as I
from ..ir import values as V
from ..ir.module import BasicBlock, Function
from ..ir.types import PointerType
from . import subgroups as _sg

# What a callee's name says, remembered by name (both are functions of the
# name alone, and frozen): every computation of the analysis asks it for
# every call of the function again.
classify = functools.lru_cache(maxsize=2048)(_classify)
is_pure_callee = functools.lru_cache(maxsize=2048)(_is_pure_callee)

# Values that are never varying. Bound once: `V.BasicBlock` and `V.Function`
# are looked up through `values.__getattr__` (an import) on every use, which
# was a fifth of this analysis's time.
_NEVER_VARYING = (V.Constant, BasicBlock, Function)
# Only these can be a root, write memory, or answer once for the packet:
# every other user is classified without asking the builtins' tables.
_CALL_LIKE = I.MEMORY_OR_CALL
_PLAIN_USER = (False, None)
# The collective a callee's name denotes (a function of the name alone).
parse_collective = functools.lru_cache(maxsize=2048)(_sg.parse_collective)


def _may_write_memory(inst: V.Value) -> bool:
    """Can `inst` write memory through a pointer operand? Stores, atomics and
    calls, except the masked load builtin, the lane reductions and pure
    builtins, which only read (or compute)."""
    if isinstance(inst, (I.StoreInst, I.AtomicRMWInst, I.AtomicCmpXchgInst)):
        return True
    if not isinstance(inst, I.CallInst):
        return False
    masked = classify_masked_call(inst)
    if masked is not None:
        return masked.kind not in ("load", "any", "all")
    fn = inst.called_function
    return not (fn is not None and is_pure_callee(fn.name))


def is_varying_root(inst: V.Value, dim: int) -> bool:
    """Is `inst` a work-item query whose value differs across lanes of dimension `dim`?"""
    if not isinstance(inst, I.CallInst):
        return False
    fn = inst.called_function
    summary = classify(fn.name if fn is not None else None)
    q = summary.query
    if q is None:
        return False
    if q.kind in VARYING_ANY_DIM:
        return True
    if q.kind not in VARYING_KINDS:
        return False
    arg = inst.args[0] if inst.args else None
    if isinstance(arg, V.ConstantInt):
        return arg.value == dim
    return True  # a dimension only known at run time may be ours


def runtime_dimension(inst: V.Value) -> V.Value | None:
    """The dimension operand of a work-item id query that varies along some
    dimension (`get_global_id`, `get_local_id`) when it is not a constant:
    such a query steps across lanes only where that operand equals `dim`."""
    if not isinstance(inst, I.CallInst):
        return None
    fn = inst.called_function
    q = classify(fn.name if fn is not None else None).query
    if q is None or q.kind not in VARYING_KINDS or not inst.args:
        return None
    arg = inst.args[0]
    return None if isinstance(arg, V.ConstantInt) else arg


def _differs_per_lane(inst: V.Value) -> bool:
    """Operations that give each lane its own result whatever their operands:
    atomics (each lane sees the previous lane's update), volatile loads, and
    calls that may have side effects."""
    if isinstance(inst, (I.AtomicRMWInst, I.AtomicCmpXchgInst)):
        return True
    if isinstance(inst, I.LoadInst):
        return bool(inst.volatile or inst.ordering)
    if isinstance(inst, I.CallInst):
        masked = classify_masked_call(inst)
        if masked is not None and masked.kind in ("load", "store", "any", "all"):
            return False  # like the access they stand for: varying through operands
        fn = inst.called_function
        name = fn.name if fn is not None else None
        kind = classify(name).kind
        if kind in (BuiltinKind.NO_EFFECT, BuiltinKind.BARRIER, BuiltinKind.WORK_ITEM):
            return False
        if is_packet_uniform_collective(inst):
            return False
        return not is_pure_callee(name)
    return False


LANE_REDUCTIONS = ("__vecz_b_divergence_any", "__vecz_b_divergence_all")


def is_packet_uniform_collective(value: V.Value) -> bool:
    """A collective whose result is one value for the whole sub-group (a
    reduction, all/any, a broadcast, a ballot and its counts), or work-group:
    uniform in a packet whatever its operands (transform/subgroup_builtins.py
    computes it from them)."""
    ALL, ALL_EQUAL, ANY, BALLOT = _sg.ALL, _sg.ALL_EQUAL, _sg.ANY, _sg.BALLOT
    BALLOT_BIT, BROADCAST, REDUCE = _sg.BALLOT_BIT, _sg.BROADCAST, _sg.REDUCE
    if not isinstance(value, I.CallInst):
        return False
    fn = value.called_function
    c = parse_collective(fn.name if fn is not None else None)
    if c is None and fn is not None and not fn.is_declaration:
        # Control-flow conversion's masked wrapper around one (with
        # VectorPredication every block is masked): as uniform as the call
        # (the packetizer refuses it unless the mask is the entry mask's).
        masked = classify_masked_call(value)
        if masked is not None and masked.kind == "wrapper":
            inner = [i for i in fn.instructions() if isinstance(i, I.CallInst)]
            return len(inner) == 1 and is_packet_uniform_collective(inner[0])
    if c is None:
        return False
    if c.kind == BALLOT_BIT:
        return c.op in ("ballot_bit_count", "ballot_find_lsb", "ballot_find_msb")
    return c.kind in (REDUCE, ALL, ANY, BROADCAST, BALLOT, ALL_EQUAL)


def is_lane_reduction(value: V.Value) -> bool:
    """A call asking whether any/all lanes of an `i1` hold: its result is uniform
    even though its operand varies (control-flow conversion's uniform checks)."""
    if not isinstance(value, I.CallInst):
        return False
    fn = value.called_function
    return fn is not None and fn.name in LANE_REDUCTIONS


def _only_masks(user: V.Value, value: V.Value) -> bool:
    """Is `value` only the mask of masked load `user`? Active lanes then all
    read the same address, so the loaded value is as uniform as the address
    (the packetizer loads it once, under "any lane active")."""
    masked = classify_masked_call(user)
    if masked is None or masked.kind != "load":
        return False
    return masked.pointer is not value


def underlying_alloca(ptr: V.Value) -> I.AllocaInst | None:
    """The alloca a pointer is derived from through GEPs, casts, selects and phis, if unique."""
    seen: set[int] = set()
    found: I.AllocaInst | None = None
    work = [ptr]
    while work:
        v = work.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, I.AllocaInst):
            if found is not None and found is not v:
                return None
            found = v
        elif isinstance(v, I.GetElementPtrInst):
            work.append(v.pointer)
        elif isinstance(v, I.CastInst) and v.opcode in ("bitcast", "addrspacecast"):
            work.append(v.value)
        elif isinstance(v, I.SelectInst):
            work.extend([v.true_value, v.false_value])
        elif isinstance(v, I.PhiNode):
            work.extend(val for val, _ in v.incoming)
    return found


def allocas_reached(ptr: V.Value) -> list[I.AllocaInst]:
    """Every alloca a pointer may be derived from (through GEPs, casts, selects, phis)."""
    seen: set[int] = set()
    out: list[I.AllocaInst] = []
    work = [ptr]
    while work:
        v = work.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, I.AllocaInst):
            out.append(v)
        elif isinstance(v, I.GetElementPtrInst):
            work.append(v.pointer)
        elif isinstance(v, I.CastInst):
            work.append(v.value)
        elif isinstance(v, I.SelectInst):
            work.extend([v.true_value, v.false_value])
        elif isinstance(v, I.PhiNode):
            work.extend(val for val, _ in v.incoming)
    return out


class UniformValueAnalysis:
    """The set of varying values of a function for vectorization along `dim`."""

    def __init__(self, function: V.Function, dim: int, varying_args: Iterable[int] = ()) -> None:
        self.function = function
        self.dim = dim
        self._varying: set[int] = set()
        self._values: list[V.Value] = []
        roots: list[V.Value] = [function.args[i] for i in varying_args]
        candidates = [inst for inst in function.instructions() if isinstance(inst, _CALL_LIKE)]
        roots += [
            inst
            for inst in candidates
            if is_varying_root(inst, dim) or _differs_per_lane(inst)
        ]
        # A side effect run once per lane on private memory (a call handed the
        # address of a local, an atomic on one) leaves every lane's copy with
        # its own contents, even when nothing varying flows into it.
        for r in list(roots):
            if isinstance(r, (I.CallInst, I.AtomicRMWInst, I.AtomicCmpXchgInst)) and _may_write_memory(r):
                for op in r.operands:
                    if isinstance(op.type, PointerType):
                        roots.extend(allocas_reached(op))
        self.mark_varying(*roots)

    def is_varying(self, value: V.Value) -> bool:
        """Does `value` differ between lanes?"""
        return id(value) in self._varying

    def is_uniform(self, value: V.Value) -> bool:
        return id(value) not in self._varying

    @property
    def varying_values(self) -> list[V.Value]:
        """Varying values in the order they were found."""
        return list(self._values)

    def mark_varying(self, *roots: V.Value) -> None:
        """Mark `roots` varying and propagate to their users."""
        work = [r for r in roots if self._add(r)]
        # What a user is does not change during one propagation (the IR is
        # only read): each user is classified once however many of its
        # operands are varying. Kept for this call only (ids are reused once
        # the IR changes).
        seen: dict[int, tuple[bool, object]] = {}
        known_of, add = seen.get, self._add
        while work:
            value = work.pop()
            # Every use, not `users`: a user met again is already decided
            # (skipped, or marked), so the walk and its order are the same.
            for use in value.uses:
                user = use.user
                known = known_of(id(user))
                if known is None:
                    known = seen[id(user)] = _PLAIN_USER
                    if isinstance(user, _CALL_LIKE):
                        if _may_write_memory(user):
                            # A varying side effect on private memory makes that memory varying
                            # (the same allocas for every operand: marked on the first visit).
                            for op in user.operands:
                                if isinstance(op.type, PointerType):
                                    for alloca in allocas_reached(op):
                                        if self._add(alloca):
                                            work.append(alloca)
                        # "any/all active lanes", a sub-group reduction: one answer for the packet.
                        one_answer = is_lane_reduction(user) or is_packet_uniform_collective(user)
                        masked = None if one_answer else classify_masked_call(user)
                        known = seen[id(user)] = (one_answer, masked)
                one_answer, masked = known
                if one_answer:
                    continue
                if masked is not None and masked.kind == "load" and masked.pointer is not value:
                    continue  # only the mask of a masked load (`_only_masks`)
                if add(user):
                    work.append(user)

    def _add(self, value: V.Value) -> bool:
        if id(value) in self._varying:
            return False
        if isinstance(value, _NEVER_VARYING):
            return False
        self._varying.add(id(value))
        self._values.append(value)
        return True

