"""Barrier-Uniform Branches: a varying branch that a barrier makes uniform at
run time (Barrier Analysis) branches on `__vecz_b_divergence_any` of its
condition, a lane reduction the uniformity analysis calls uniform, so
control-flow conversion keeps the branch and the barrier stays a barrier,
reached once by the packet. In a kernel whose behaviour is defined every
active lane holds the same condition, so "any lane" is each lane's own
answer; under vector predication the condition is first masked with the
entry mask, so lanes past the local size cannot sway it.

Edits only the given function (and declares the lane reduction).
"""

from __future__ import annotations

from collections.abc import Callable

from ..analysis.barriers import barrier_uniform_branches
from ..analysis.uniformity import UniformValueAnalysis
from ..builtins.masked import divergence_any_fn
from ..ir import instructions as I
from ..ir import values as V
from ..ir.builder import Builder


def make_barrier_branches_uniform(
    fn: V.Function,
    module: V.Module,
    uniform: UniformValueAnalysis,
    entry_mask: Callable[[Builder], V.Value] | None = None,
) -> tuple[int, list[str]]:
    """Rewrite every barrier-uniform branch; returns (how many, refusals)."""
    count, refusals = 0, []
    for block in barrier_uniform_branches(fn, uniform):
        term = block.terminator
        if not isinstance(term, I.BranchInst):
            refusals.append(f"a barrier depends on the varying switch of block '{block.name or '?'}'")
            continue
        b = Builder().position_before(term)
        c = term.condition
        if entry_mask is not None:
            c = b.and_(c, entry_mask(b), name=f"{block.name or 'bb'}.barrier.active")
        term.set_operand(0, b.call(divergence_any_fn(module), [c], name=f"{block.name or 'bb'}.barrier.uniform"))
        count += 1
    return count, refusals
