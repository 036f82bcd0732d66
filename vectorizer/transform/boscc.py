"""BOSCC, Branch On Superword Condition Code (seed, "Branch On Superword
Condition Code"; Timnat, Shacham & Zaks, "Predicate Vectors If You Must"):
keep a uniform fast path next to the linearized code of a divergent region.

Applied under the `LinearizeBOSCC` choice, before control-flow conversion
and instead of ROSCC. For a divergent branch `D: br c, T, F` whose mask is
the function's entry mask (a `by_all` block) and whose divergent region R
(the blocks between D and its immediate post-dominator J) is single-entry,
single-exit, the region is duplicated into R' (the uniform copy) and D's
branch becomes a three-way dispatch:

    D:      %all = __vecz_b_divergence_all(c)    ; every lane goes to T
            br %all, T', D.any
    D.any:  %any = __vecz_b_divergence_any(c)    ; no lane goes to T
            br %any, D.div, F'
    D.div:  br c, T, F                           ; mixed: the original region

Only the mixed case stays divergent: control-flow conversion then
linearizes R behind D.div (D.div's divergent region is exactly R), while
R' is entered by a uniform branch, so its blocks are `by_all` and keep
their branches and unmasked memory operations. Divergent branches nested
in R' are by_all in turn and get their own dispatch on a later round
(outermost first); those nested in R do not, since R is only ever run with
a partial mask: once in the divergent part, control stays there until the
blend block J, as the seed requires.

SSA repair: R and R' meet at J only. No value of R dominates J (J is D's
immediate post-dominator), so values of R reach beyond R only through J's
phis, which get one incoming pair per copied predecessor (and pairs for
the new dispatch blocks when J is a successor of D). J becomes the blend
block of D.div, and control-flow conversion turns its phis into selects
on the edge masks as for any blend block (the seed's blend phis at new
join points come out of that, by SROA).

Under VectorPredication the entry mask itself may be partial: the tests
then ignore inactive lanes (`all(select(entry, c, true))`,
`any(select(entry, c, false))`), and R' is masked with the entry mask like
every other by_all block.

Regions this cannot treat soundly are left to plain linearization, with a
remark: a divergent loop (lanes leave at different iterations: moving
between a uniform and a divergent copy mid-loop needs an SSA repair of every
loop-carried value, not done), a region with a side entry, one whose
post-dominator is a loop header reached by a back edge from the region
(two latches), switches, and regions over the code-size budget.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..analysis.block_ordering import dominance_compact_order
from ..analysis.divergence import DivergenceAnalysis
from ..analysis.post_dominance import VIRTUAL_EXIT
from ..analysis.reachability import Reachability
from ..analysis.uniformity import UniformValueAnalysis
from ..builtins.masked import divergence_all_fn, divergence_any_fn
from ..ir import instructions as I
from ..ir import types as T
from ..ir import values as V
from ..ir.builder import Builder

Block = V.BasicBlock

# Code-size budget: BOSCC duplicates code, and nested regions are duplicated
# again inside their uniform copy, so the growth is bounded explicitly.
MAX_REGIONS = 32
MAX_GROWTH = 3.0  # cloned instructions, as a multiple of the function's size
MIN_BUDGET = 400  # ...but small kernels may always clone this many


@dataclass
class BosccOutcome:
    """What `apply_boscc` did: how many uniform paths it added, and remarks
    for the divergent regions it left to plain linearization."""

    regions: int = 0
    cloned: int = 0
    remarks: list[str] = field(default_factory=list)


def _name(b: Block) -> str:
    return b.name or "bb"


def _region_of(function: V.Function, d: Block, join: Block) -> tuple[set[Block], bool]:
    """D's divergent region, by reachability with the join blocked: every
    block D reaches before the join. Also whether D reaches itself that way
    (a cycle around D not through the join: the divergent part would lead
    back into D)."""
    reach = Reachability(function, blocked=[join])
    region = {b for b in function.blocks if b is not join and reach.reaches(d, b)}
    return region - {d}, d in region


def _region_problem(da: DivergenceAnalysis, d: Block) -> str | None:
    """Why D's region cannot get a uniform copy (None when it can)."""
    term = d.terminator
    if not isinstance(term, I.BranchInst) or not term.is_conditional:
        return "not a two-way branch"
    t, f = term.successors
    if t is f:
        return "both edges go to the same block"
    join = da.postdom.ipdom(d)
    if join is None or join is VIRTUAL_EXIT:
        return "no post-dominator to rejoin at"
    region, cyclic = _region_of(da.function, d, join)
    if cyclic:
        return "the region leads back to its branch"
    if region != da.divergent_region(d):
        return "the region is not the divergence analysis's"
    if not region:
        return "empty region"
    li = da.loops
    jl = li.loop_for(join)
    if jl is not None and jl.header is join and jl.contains(d):
        return "the region ends on a loop's back edge"
    inside = region | {d}
    order = {blk: i for i, blk in enumerate(da.function.blocks)}
    # In function order, so the remark (part of a failure's signature) is
    # the same on every run.
    for b in sorted(region, key=order.__getitem__):
        if any(p not in inside for p in b.predecessors):
            return f"block '{_name(b)}' has an entry from outside the region"
        if any(s not in region and s is not join for s in b.successors):
            return f"block '{_name(b)}' leaves the region other than by its join"
        lp = li.loop_for(b)
        while lp is not None:
            # A loop starting in the region must lie in it (it is copied
            # whole); any other loop around b must enclose D as well.
            if lp.header in region:
                if not lp.block_set <= region:
                    return f"loop '{_name(lp.header)}' is not inside the region"
            elif not lp.contains(d):
                return f"block '{_name(b)}' is in a loop the region does not contain"
            lp = lp.parent
        for inst in b.instructions:
            for use in inst.uses:
                user = use.user
                ub = getattr(user, "parent", None)
                if ub in region:
                    continue
                if isinstance(user, I.PhiNode) and ub is join and user.get_operand(use.index + 1) in region:
                    continue
                return f"'{inst.name or inst.opcode}' is used outside the region"
    return None


def _clone_region(fn: V.Function, region: list[Block]) -> dict[V.Value, V.Value]:
    """Copy the blocks of `region` (after the last of them) with their
    instructions, operands remapped to the copies; returns the value map."""
    vmap: dict[V.Value, V.Value] = {}
    anchor = region[-1]
    for b in region:
        nb = fn.add_block(f"{_name(b)}.uni", after=anchor)
        anchor = nb
        vmap[b] = nb
    # Operands naming the region's own values are remapped below, never
    # recorded as uses of the originals (see `Instruction.clone`).
    local = {id(b) for b in region} | {id(i) for b in region for i in b.instructions}

    def remapped(v: V.Value) -> bool:
        if isinstance(v, V.MetadataValue):
            return bool(v.text.refs)
        return id(v) in local

    clones: list[tuple[I.Instruction, I.Instruction]] = []
    for b in region:
        nb = vmap[b]
        for inst in b.instructions:
            c = inst.clone(unlinked=remapped)
            c.name = f"{inst.name}.uni" if inst.name else None
            nb.append(c)
            vmap[inst] = c
            clones.append((inst, c))

    def remap(v: V.Value) -> V.Value:
        return vmap.get(v, v)

    for inst, c in clones:
        for k, v in enumerate(inst._operands):
            if not remapped(v):
                continue
            if isinstance(v, V.MetadataValue):
                c.link_operand(k, V.MetadataValue(v.text.copy(remap)))
            else:
                c.link_operand(k, vmap[v])
    return vmap


def _dispatch(
    fn: V.Function,
    module: V.Module,
    d: Block,
    join: Block,
    region: list[Block],
    entry_mask: Callable[[Builder], V.Value] | None,
) -> tuple[Block, int]:
    """Duplicate D's region and give D the all/none/mixed dispatch; returns
    D.div (the block left with the divergent branch) and the number of
    cloned instructions."""
    term = d.terminator
    assert isinstance(term, I.BranchInst)
    c = term.condition
    t, f = term.successors
    # The phi values flowing from D into the join, before any edge changes.
    join_from_d = {id(p): p.incoming_value_for(d) for p in join.phis() if d in p.incoming_blocks}
    vmap = _clone_region(fn, region)
    cloned = sum(len(b.instructions) for b in region)

    def copy(x: Block) -> Block:
        nx = vmap.get(x, x)
        assert isinstance(nx, V.BasicBlock)
        return nx

    d_any = fn.add_block(f"{_name(d)}.boscc.any", after=d)
    d_div = fn.add_block(f"{_name(d)}.boscc.div", after=d_any)
    b = Builder()
    b.position_before(term)
    c_all, c_any = c, c
    if entry_mask is not None:
        # Inactive lanes (beyond the local size) must not decide the tests.
        active = entry_mask(b)
        c_all = b.select(active, c, V.ConstantInt(T.i1, 1), name=f"{_name(d)}.boscc.cond.all")
        c_any = b.select(active, c, V.ConstantInt(T.i1, 0), name=f"{_name(d)}.boscc.cond.any")
    all_true = b.call(divergence_all_fn(module), [c_all], name=f"{_name(d)}.boscc.all")
    term.remove_from_parent()
    d_div.append(term)
    b.position_at_end(d)
    b.cond_br(all_true, copy(t), d_any)
    b.position_at_end(d_any)
    any_true = b.call(divergence_any_fn(module), [c_any], name=f"{_name(d)}.boscc.some")
    b.cond_br(any_true, d_div, copy(f))

    # Phis of the original targets now come from D.div; of the copies, from
    # D (the all-lanes edge) or D.any (the no-lane edge). The join is never
    # copied: its phis take a pair per new edge into it.
    for s in (t, f):
        if s is not join:
            for p in s.phis():
                p.replace_incoming_block(d, d_div)
    if f is not join:
        for p in copy(f).phis():
            p.replace_incoming_block(d, d_any)
    for p in join.phis():
        v_d = join_from_d.get(id(p))
        if v_d is not None:
            if f is join and t is not join:
                p.replace_incoming_block(d, d_div)
                p.add_incoming(v_d, d_any)
            elif t is join:
                p.add_incoming(v_d, d_div)
        for v, pred in list(p.incoming):
            if pred in vmap:
                p.add_incoming(vmap.get(v, v), copy(pred))
    return d_div, cloned


def apply_boscc(
    function: V.Function,
    module: V.Module,
    dim: int,
    *,
    entry_mask: Callable[[Builder], V.Value] | None = None,
    checkpoint: Callable[[str], None] = lambda step: None,
) -> BosccOutcome:
    """Give each eligible divergent region a uniform copy (outermost first,
    then the regions nested in the copies), editing `function` in place;
    `checkpoint("boscc")` after each region (the analysis verification).
    The caller must recompute its uniform and divergence analyses after."""
    out = BosccOutcome()
    size = sum(len(b.instructions) for b in function.blocks)
    budget = max(MIN_BUDGET, int(MAX_GROWTH * size))
    done: set[int] = set()  # ids of branches already dispatched or rejected
    remarked_loops: set[int] = set()
    while out.regions < MAX_REGIONS:
        da = DivergenceAnalysis(function, UniformValueAnalysis(function, dim), partial_entry=entry_mask is not None)
        for lp in da.divergent_loops:
            outer = any(lp.header in r and not lp.contains(d) for d, r in da.regions.items())
            if id(lp.header) not in remarked_loops and not outer:
                remarked_loops.add(id(lp.header))
                out.remarks.append(
                    f"BOSCC: divergent loop '{_name(lp.header)}' is linearized without a uniform version"
                )
        order = dominance_compact_order(function, da.domtree, da.loops)
        candidates = [d for d in order if da.is_div_causing(d) and da.is_by_all(d) and id(d) not in done]
        if not candidates:
            break
        applied = False
        for d in candidates:
            done.add(id(d))
            problem = _region_problem(da, d)
            if problem is not None:
                out.remarks.append(f"BOSCC: branch in '{_name(d)}' linearized only: {problem}")
                continue
            region = [b for b in function.blocks if b in da.divergent_region(d)]
            cost = sum(len(b.instructions) for b in region)
            if out.cloned + cost > budget:
                out.remarks.append(f"BOSCC: branch in '{_name(d)}' linearized only: over the code-size budget")
                continue
            d_div, cloned = _dispatch(function, module, d, da.postdom.ipdom(d), region, entry_mask)
            done.add(id(d_div))
            out.cloned += cloned
            out.regions += 1
            applied = True
            checkpoint("boscc")
            break  # the CFG changed: recompute the analyses
        if not applied:
            break
    return out
