"""Dead Code Elimination (trivial): instructions nobody uses and that have
no effect beyond their result are erased, until none is left.

The packetizer leaves the scalar originals it replaced for LLVM's cleanup to
delete; passes that run between the two (Safe Lane Addressing) would
otherwise spend work, and leave slots behind, for code that is about to go.
Edits only the function it is given.
"""

from __future__ import annotations

from ..analysis.divergence import has_side_effects
from ..builtins import BuiltinKind, classify
from ..builtins.masked import classify_masked_call
from ..ir import instructions as I
from ..ir import values as V


def _removable(inst: I.Instruction) -> bool:
    if inst.uses or inst.is_terminator:
        return False
    masked = classify_masked_call(inst)
    if masked is not None:
        return masked.kind in ("load", "any", "all")
    if isinstance(inst, I.CallInst):
        fn = inst.called_function
        if fn is None:
            return False
        if fn.name.startswith("llvm.") and classify(fn.name).kind is not BuiltinKind.ELEMENTWISE:
            return False  # hints (assume, lifetime) and intrinsics with effects we do not list
    return not has_side_effects(inst)


def erase_dead_code(fn: V.Function) -> int:
    """Erase `fn`'s dead instructions; returns how many went."""
    work = [inst for block in fn.blocks for inst in block.instructions]
    erased = 0
    while work:
        inst = work.pop()
        if inst.parent is None or not _removable(inst):
            continue
        operands = [op for op in inst.operands if isinstance(op, I.Instruction)]
        inst.erase_from_parent()
        erased += 1
        work.extend(operands)
    return erased
