"""Instantiation Analysis: which varying instructions can be packetized and
which must run once per lane.

An instruction is packetized when LLVM has a vector form with the same
per-lane meaning: arithmetic, comparisons, casts, selects, phis, GEPs, plain
loads and stores of scalar types, work-item queries and element-wise math.
Everything else that varies is instantiated: copied once per lane, in lane
order (printf, calls to unknown functions, atomics, volatile accesses,
values of vector or aggregate type). Some instructions run once per lane
even with uniform operands because running them once would change what
happens: atomics and calls that may have side effects.
"""

from __future__ import annotations

from ..builtins import BuiltinKind, classify
from ..builtins.info import is_pure_callee
from ..builtins.masked import classify_masked_call
from ..ir import instructions as I
from ..ir import types as T
from ..ir import values as V
from ..ir.module import BasicBlock  # bound once: `V.BasicBlock` is an import per use
from .uniformity import is_varying_root

_SCALAR_TYPES = (T.IntType, T.FloatType, T.PointerType)

def is_pure_call(inst: I.CallInst) -> bool:
    """Does the call only compute a value from its arguments?"""
    fn = inst.called_function
    return fn is not None and is_pure_callee(fn.name)


class InstantiationAnalysis:
    """Answers, per instruction, packetize or instantiate, and once or per lane."""

    def __init__(self, dim: int, instantiate_calls_in_loops: bool = False, loop_blocks: set[int] | None = None) -> None:
        self.dim = dim
        self.instantiate_calls_in_loops = instantiate_calls_in_loops
        self.loop_blocks = loop_blocks or set()

    def is_hint(self, inst: V.Value) -> bool:
        """A call that only carries optimisation hints (lifetime, assume)."""
        if not isinstance(inst, I.CallInst):
            return False
        fn = inst.called_function
        return fn is not None and classify(fn.name).kind is BuiltinKind.NO_EFFECT

    def per_lane(self, inst: V.Value) -> bool:
        """Must this instruction execute once for every lane, whatever its operands?"""
        if isinstance(inst, (I.AtomicRMWInst, I.AtomicCmpXchgInst)):
            return True
        if isinstance(inst, (I.LoadInst, I.StoreInst)):
            return bool(inst.volatile or inst.ordering)
        if isinstance(inst, I.CallInst):
            masked = classify_masked_call(inst)
            if masked is not None and masked.kind != "wrapper":
                return False  # masked memory and lane reductions have vector forms
            fn = inst.called_function
            if fn is not None and classify(fn.name).kind is BuiltinKind.BARRIER:
                return False  # a packet reaches a barrier as one
            return not self.is_hint(inst) and not is_pure_call(inst)
        return False

    def can_packetize(self, inst: V.Value) -> bool:
        """Does `inst` have a vector form with the same per-lane meaning?"""
        if not isinstance(inst, I.Instruction):
            return False
        if isinstance(inst, I.StoreInst):
            return not inst.volatile and not inst.ordering and isinstance(inst.value.type, _SCALAR_TYPES)
        if not isinstance(inst.type, _SCALAR_TYPES):
            return False
        if isinstance(inst, I.LoadInst):
            return not inst.volatile and not inst.ordering
        if isinstance(inst, I.GetElementPtrInst):
            return all(isinstance(i.type, T.IntType) for i in inst.indices) and isinstance(
                inst.pointer.type, T.PointerType
            )
        if isinstance(inst, I.CallInst):
            if is_varying_root(inst, self.dim):
                return True
            masked = classify_masked_call(inst)
            if masked is not None and masked.kind in ("load", "store"):
                return isinstance(masked.elem_type, _SCALAR_TYPES)
            fn = inst.called_function
            kind = classify(fn.name if fn else None).kind
            if kind not in (BuiltinKind.ELEMENTWISE, BuiltinKind.OPENCL_EXACT):
                return False
            if self.instantiate_calls_in_loops and id(inst.parent) in self.loop_blocks:
                return False
            return all(isinstance(a.type, _SCALAR_TYPES) for a in inst.args)
        if isinstance(inst, (I.BinaryOperator, I.UnaryOperator, I.ICmpInst, I.FCmpInst, I.CastInst, I.FreezeInst, I.PhiNode)):
            return all(isinstance(op.type, _SCALAR_TYPES) for op in inst.operands if not isinstance(op, BasicBlock))
        if isinstance(inst, I.SelectInst):
            return all(isinstance(op.type, _SCALAR_TYPES) for op in inst.operands)
        return False
