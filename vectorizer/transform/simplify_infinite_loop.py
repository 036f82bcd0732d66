"""Simplify Infinite Loop (seed): give every loop without an exit one, so
that control-flow conversion sees the same loop shape everywhere. The latch
gets `br i1 true, header, return` - still always looping - with the return
block's phis taking poison from the new edge.

When the return block uses a value that does not dominate the latch (it is
computed after the branch that leads into the loop), the new edge would
break dominance: then the `ret` is first split off into a block of its own
(with a phi for a returned value), and the latch branches to that block.
"""

from __future__ import annotations

from ..analysis.loops import LoopInfo
from ..ir import instructions as I
from ..ir import types as T
from ..ir import values as V


def simplify_infinite_loops(function: V.Function) -> bool:
    """Add an exit to each loop that has none; True if any was changed."""
    rets = [b for b in function.blocks if isinstance(b.terminator, I.ReturnInst)]
    if len(rets) != 1:
        return False
    ret = rets[0]
    changed = False
    li = LoopInfo(function)
    for loop in li.loops:
        if loop.exit_blocks or loop.latch is None:
            continue
        latch = loop.latch
        term = latch.terminator
        if not (isinstance(term, I.BranchInst) and not term.is_conditional):
            continue
        header = term.successors[0]
        if not _uses_dominate(ret, latch, li.domtree):
            ret = _split_ret(ret)
        term.erase_from_parent()
        latch.append(I.BranchInst(V.ConstantInt(T.i1, 1), header, ret))
        for phi in ret.phis():
            phi.add_incoming(V.PoisonValue(phi.type), latch)
        changed = True
    return changed


def _uses_dominate(ret: V.BasicBlock, latch: V.BasicBlock, domtree) -> bool:
    """Do all values `ret`'s non-phi instructions use from other blocks
    dominate `latch` (so an edge from `latch` to `ret` keeps them valid)?"""
    for inst in ret.instructions:
        if isinstance(inst, I.PhiNode):
            continue
        for op in inst.operands:
            if isinstance(op, I.Instruction) and op.parent is not ret and not domtree.dominates(op.parent, latch):
                return False
    return True


def _split_ret(ret: V.BasicBlock) -> V.BasicBlock:
    """Move the `ret` of `ret` into a new block of its own; a returned value
    goes through a phi there (the latches' new edges give it poison)."""
    term = ret.terminator
    assert isinstance(term, I.ReturnInst)
    new = ret.split_before(term, name=(ret.name or "ret") + ".ret")
    value = term.value
    if value is not None:
        phi = I.PhiNode(value.type, [(value, ret)], name=(ret.name or "ret") + ".value")
        new.insert(0, phi)
        term.set_operand(0, phi)
    return new
