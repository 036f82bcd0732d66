"""Divergence Analysis (seed, "Divergence Analysis", formerly Rewire Target
Analysis): where lanes may take different paths, and what that implies.

- `div_causing`: blocks whose terminator branches on a varying condition.
- the divergent region of a div_causing block D: every block reachable from
  D's successors before reaching D's immediate post-dominator (the join);
  the join is a `blend` block (its phis merge linearized paths).
- divergent loops: loops some lanes may leave while others keep iterating
  (an exit edge leaves from D or from D's region, for a div_causing D inside
  the loop). They are linearized whole: every exit is divergent and the
  loop branches back while any lane is active. A loop whose header lies in
  a divergent region is linearized the same way, so that a loop no lane
  entered cannot spin on values computed for no lane; its region is its
  blocks plus what its exits reach before their common post-dominator.
- `by_all`: blocks outside every region; their mask is the entry mask.

Masking makes more values varying (a masked load gives each lane its own
result, a guarded divisor differs per lane), which can make more branches
divergent, so the analysis iterates, marking those values varying on the
`UniformValueAnalysis` with `mark_varying`, until nothing changes. Phis that
control-flow conversion turns into selects on masks (blend blocks, exits and
headers of divergent loops) are marked varying too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..builtins import BuiltinKind, classify
from ..builtins.info import is_pure_callee
from ..builtins.masked import classify_masked_call
from ..ir import instructions as I
from ..ir import types as T
from ..ir import values as V
from .dominance import DominatorTree
from .loops import Loop, LoopInfo
from .post_dominance import VIRTUAL_EXIT, PostDominatorTree
from .uniformity import UniformValueAnalysis, allocas_reached, underlying_alloca

Block = Any


def branch_condition(block: Block) -> V.Value | None:
    """The condition of a block's conditional branch or switch, else None."""
    term = block.terminator
    if isinstance(term, I.BranchInst) and term.is_conditional:
        return term.condition
    if isinstance(term, I.SwitchInst):
        return term.condition
    return None


def has_side_effects(inst: I.Instruction) -> bool:
    """Does `inst` write memory or otherwise act beyond its result (so an
    inactive lane must not execute it)?"""
    if isinstance(inst, (I.StoreInst, I.AtomicRMWInst, I.AtomicCmpXchgInst, I.FenceInst)):
        return True
    if isinstance(inst, I.LoadInst):
        return bool(inst.volatile or inst.ordering)
    if isinstance(inst, I.CallInst):
        if _is_any_all(inst):
            return False  # a lane reduction (BOSCC's tests): reads its operand only
        fn = inst.called_function
        name = fn.name if fn is not None else None
        kind = classify(name).kind
        if kind in (BuiltinKind.NO_EFFECT, BuiltinKind.WORK_ITEM, BuiltinKind.ELEMENTWISE, BuiltinKind.OPENCL_EXACT):
            return False
        return not is_pure_callee(name)
    return False


def is_safe_private_access(ptr: V.Value) -> bool:
    """A pointer into a private alloca at constant in-bounds offsets: an
    access through it can never fault, whatever the mask."""
    base = underlying_alloca(ptr)
    if base is None or base.count is not None and not isinstance(base.count, V.ConstantInt):
        return False
    v = ptr
    while not isinstance(v, I.AllocaInst):
        if isinstance(v, I.GetElementPtrInst):
            if "inbounds" not in v.flags or not all(isinstance(i, V.ConstantInt) for i in v.indices):
                return False
            if any(i.signed < 0 for i in v.indices if isinstance(i, V.ConstantInt)):
                return False
            v = v.pointer
        else:
            return False
    return True


def needs_divisor_guard(inst: I.Instruction) -> bool:
    """An integer division whose divisor is not a known non-zero, non-minus-one constant."""
    if not (isinstance(inst, I.BinaryOperator) and inst.opcode in ("sdiv", "udiv", "srem", "urem")):
        return False
    d = inst.rhs
    if isinstance(d, V.ConstantInt) and isinstance(d.type, T.IntType):
        return d.unsigned == 0 or (inst.opcode in ("sdiv", "srem") and d.signed == -1)
    return True


def is_masked_under_partial_mask(inst: I.Instruction) -> bool:
    """Will control-flow conversion replace `inst` by a masked form in a
    block whose mask may be partial (so its result becomes per-lane)?"""
    if isinstance(inst, I.LoadInst):
        return not is_safe_private_access(inst.pointer) or bool(inst.volatile or inst.ordering)
    return has_side_effects(inst) or needs_divisor_guard(inst)


def _is_any_all(c: V.Value) -> bool:
    # `__vecz_b_divergence_any/all` results are uniform by definition.
    mc = classify_masked_call(c)
    return mc is not None and mc.kind in ("any", "all")


@dataclass
class DivergenceAnalysis:
    """Divergence facts of a function, given its uniform values (which this
    analysis extends with `mark_varying`).

    `partial_entry`: the function's entry mask itself may be partial (vector
    predication), so side effects in every block are masked.
    """

    function: V.Function
    uniform: UniformValueAnalysis
    partial_entry: bool = False
    domtree: DominatorTree | None = None
    postdom: PostDominatorTree | None = None
    loops: LoopInfo | None = None

    div_causing: list[Block] = field(default_factory=list, init=False)
    divergent_loops: list[Loop] = field(default_factory=list, init=False)
    regions: dict[Block, set[Block]] = field(default_factory=dict, init=False)
    loop_regions: dict[Block, set[Block]] = field(default_factory=dict, init=False)
    blend_blocks: set[Block] = field(default_factory=set, init=False)
    by_all: set[Block] = field(default_factory=set, init=False)

    def __post_init__(self) -> None:
        fn = self.function
        self.domtree = self.domtree or DominatorTree(fn)
        self.postdom = self.postdom or PostDominatorTree(fn)
        self.loops = self.loops or LoopInfo(fn, self.domtree)
        self._reachable = [b for b in fn.blocks if self.domtree.is_reachable(b)]
        while True:
            self._compute()
            if not self._mark():
                break

    # ------------------------------------------------------------- queries

    def is_div_causing(self, block: Block) -> bool:
        """Does `block` end in a branch on a varying condition?"""
        return block in self._div_set

    def is_divergent_loop(self, loop: Loop) -> bool:
        """Is `loop` linearized (some lanes may leave it while others stay)?"""
        return loop.header in self._div_loop_headers

    def is_by_all(self, block: Block) -> bool:
        """Is `block`'s mask always the function's entry mask?"""
        return block in self.by_all

    @property
    def has_divergence(self) -> bool:
        """Is any control flow divergent?"""
        return bool(self.div_causing) or bool(self.divergent_loops)

    def divergent_region(self, block: Block) -> set[Block]:
        """The divergent region of a div_causing block (empty for others)."""
        return self.regions.get(block, set())

    # ---------------------------------------------------------- computation

    def _reach(self, starts: list[Block], stop: Any) -> set[Block]:
        seen: set[Block] = set()
        work = [s for s in starts if s is not stop]
        while work:
            b = work.pop()
            if b in seen:
                continue
            seen.add(b)
            work.extend(s for s in b.successors if s is not stop and s not in seen)
        return seen

    def _compute(self) -> None:
        pdt = self.postdom
        li = self.loops
        self.div_causing = [
            b
            for b in self._reachable
            if (c := branch_condition(b)) is not None and self.uniform.is_varying(c) and not _is_any_all(c)
        ]
        self._div_set = set(self.div_causing)
        self.regions = {}
        self.blend_blocks = set()
        for d in self.div_causing:
            join = pdt.ipdom(d)
            self.regions[d] = self._reach(list(d.successors), join)
            if join is not None and join is not VIRTUAL_EXIT:
                self.blend_blocks.add(join)
        # Divergent loops, to a fixpoint (a linearized loop makes a region too).
        self._div_loop_headers: set[Block] = set()
        self.loop_regions = {}
        changed = True
        while changed:
            changed = False
            covered: set[Block] = set()
            for r in list(self.regions.values()) + list(self.loop_regions.values()):
                covered |= r
            for loop in li.loops_innermost_first():
                if loop.header in self._div_loop_headers:
                    continue
                if self._loop_diverges(loop, covered):
                    self._div_loop_headers.add(loop.header)
                    exits = loop.exit_blocks
                    join: Any = exits[0] if exits else VIRTUAL_EXIT
                    for z in exits[1:]:
                        join = pdt.nearest_common_post_dominator(join, z)
                    region = set(loop.blocks) | self._reach(exits, join)
                    region.discard(join)
                    self.loop_regions[loop.header] = region
                    if join is not None and join is not VIRTUAL_EXIT:
                        self.blend_blocks.add(join)
                    changed = True
        self.divergent_loops = [lp for lp in li.loops if lp.header in self._div_loop_headers]
        covered = set()
        for r in list(self.regions.values()) + list(self.loop_regions.values()):
            covered |= r
        self.by_all = {b for b in self._reachable if b not in covered}

    def _loop_diverges(self, loop: Loop, covered: set[Block]) -> bool:
        if loop.header in covered and not self._covered_only_by_inner(loop):
            return True
        exiting = set(loop.exiting_blocks)
        for d in self.div_causing:
            if not loop.contains(d):
                continue
            if d in exiting or exiting & self.regions[d]:
                return True
        for h, region in self.loop_regions.items():
            if loop.contains(h) and exiting & region:
                return True
        return False

    def _covered_only_by_inner(self, loop: Loop) -> bool:
        """Is the header only inside regions that start within the loop itself
        (its own back edge brings the region round)? Those do not make the
        loop's entry partial."""
        for d, r in self.regions.items():
            if loop.header in r and not loop.contains(d):
                return False
        for h, r in self.loop_regions.items():
            if loop.header in r and not loop.contains(h):
                return False
        return True

    def _mark(self) -> bool:
        """Mark varying what masking and linearization make per-lane; True if
        anything new was marked."""
        new: list[V.Value] = []
        is_v = self.uniform.is_varying
        loop_exits: set[Block] = set()
        for lp in self.divergent_loops:
            loop_exits.update(lp.exit_blocks)
            new.extend(p for p in lp.header.phis() if not is_v(p))
        for b in self._reachable:
            partial = self.partial_entry or b not in self.by_all
            if b in self.blend_blocks or b in loop_exits:
                new.extend(p for p in b.phis() if not is_v(p))
            if not partial:
                continue
            for inst in b.instructions:
                if has_side_effects(inst):
                    # Done by some lanes only: the private memory it writes
                    # differs between lanes afterwards, whatever it wrote.
                    for op in inst.operands:
                        if isinstance(op.type, T.PointerType):
                            new.extend(a for a in allocas_reached(op) if not is_v(a))
                if is_v(inst) or isinstance(inst.type, T.VoidType):
                    continue
                if is_masked_under_partial_mask(inst):
                    if self.partial_entry and b in self.by_all and isinstance(inst, I.LoadInst):
                        # Lane 0 is always active: a uniform load is safe unmasked.
                        if not (inst.volatile or inst.ordering) and not is_v(inst.pointer):
                            continue
                    new.append(inst)
        if not new:
            return False
        self.uniform.mark_varying(*new)
        return True
