"""Simplify Infinite Loop (seed): give every loop without an exit one, so
that control-flow conversion sees the same loop shape everywhere. The latch
gets `br i1 true, header, return` - still always looping - with the return
block's phis taking poison from the new edge.
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
    for loop in LoopInfo(function).loops:
        if loop.exit_blocks or loop.latch is None:
            continue
        latch = loop.latch
        term = latch.terminator
        if not (isinstance(term, I.BranchInst) and not term.is_conditional):
            continue
        header = term.successors[0]
        term.erase_from_parent()
        latch.append(I.BranchInst(V.ConstantInt(T.i1, 1), header, ret))
        for phi in ret.phis():
            phi.add_incoming(V.PoisonValue(phi.type), latch)
        changed = True
    return changed
