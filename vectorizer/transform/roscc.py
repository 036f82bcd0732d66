"""ROSCC, Return on Superword Condition Code (seed): for an early exit

    if (varying) return;

add a uniform branch straight to the return block taken when *every* lane
returns, so the linearized rest of the function is skipped. Applied when
BOSCC is off, before control-flow conversion, which then keeps the new
branch (its condition, `__vecz_b_divergence_all`, is uniform) and
linearizes the original one behind it.

Only branches whose mask is the whole entry mask (`by_all` blocks outside
loops) qualify: there "all lanes" means "all active lanes".
"""

from __future__ import annotations

from ..analysis.divergence import DivergenceAnalysis
from ..builtins.masked import divergence_all_fn
from ..ir import instructions as I
from ..ir import values as V
from ..ir.builder import Builder


def apply_roscc(function: V.Function, module: V.Module, divergence: DivergenceAnalysis) -> int:
    """Insert the early-exit checks; returns how many were added."""
    rets = [b for b in function.blocks if isinstance(b.terminator, I.ReturnInst)]
    if len(rets) != 1:
        return 0
    ret = rets[0]
    count = 0
    for d in list(divergence.div_causing):
        term = d.terminator
        if not (isinstance(term, I.BranchInst) and term.is_conditional):
            continue
        if not divergence.is_by_all(d) or divergence.loops.loop_for(d) is not None:
            continue
        t, f = term.successors
        if (t is ret) == (f is ret):
            continue
        b = Builder()
        b.position_before(term)
        cond = term.condition if t is ret else b.xor(term.condition, V.ConstantInt(term.condition.type, 1))
        all_ret = b.call(divergence_all_fn(module), [cond], name=f"{d.name or 'bb'}.all.return")
        rest = function.add_block(f"{d.name or 'bb'}.roscc", after=d)
        term.remove_from_parent()
        rest.append(term)
        b.position_at_end(d)
        b.cond_br(all_ret, ret, rest)
        # `rest` takes over d's outgoing edges; d keeps its edge to `ret`.
        for succ in {t, f}:
            for phi in succ.phis():
                v = phi.incoming_value_for(d)
                if succ is ret:
                    phi.add_incoming(v, rest)
                else:
                    phi.replace_incoming_block(d, rest)
        count += 1
    return count
