"""Control Flow Conversion (seed, "Control Flow Conversion Pass"): divergent
control flow becomes masked data flow, scalar to scalar.

After it no branch depends on a varying condition: divergent branches are
linearized, loops some lanes may leave branch back while
`__vecz_b_divergence_any(active mask)`, side effects of blocks whose mask may
be partial are calls to the masked builtins, and the packetizer widens
what remains. The steps:

1. Masks. Each block B not executed by all lanes gets an entry mask m_B;
   each edge P->S an edge mask e_{P->S} = m_P and (the branch takes S). Mask
   and value plumbing goes through private variables (allocas) that LLVM's
   SROA (mem2reg) promotes afterwards, which is what repairs SSA after
   linearization ("blend" phis at new join points come out of it):
   - M_S accumulates `M_S |= e_{P->S}` at the end of every predecessor and is
     consumed (read, then cleared) at the top of S. Across the iterations of
     a divergent loop this accumulation *is* the combined exit mask of an
     exit block, and at the header it is the loop's active mask.
   - a phi of a block whose predecessors are linearized becomes a variable
     V updated `V = select(e_{P->S}, incoming_P, V)` on every incoming edge;
     for the exit blocks of a divergent loop that is the "frozen live value":
     a lane that left keeps the value it left with. The header of a
     divergent loop in LCSSA form is the exception: a lane not taking an
     edge into it is outside the loop and reads loop values only through
     the frozen exits, so its header variables are stored unblended (no
     select on the loop's critical path; uniform counters stay uniform).
   Masks are combined with `select` (never `and`/`or` on a possibly-poison
   condition), so an inactive lane's garbage condition cannot poison a mask.
2. Applying masks: loads (unless provably safe), stores, calls with side
   effects and atomics become masked builtins; divisors are guarded; the
   `noundef` arguments of other calls are frozen (inactive lanes may carry
   poison into them).
3. Partial linearization by the dominance-compact block index with a
   deferral list (Moll & Hack): a divergent block (or an exiting block of a
   divergent loop) branches to the lowest-indexed of its successors and its
   deferred blocks, deferring the rest there; a uniform branch keeps its
   shape, each edge going to the lowest of (its target, the deferred
   blocks). The latch of a divergent loop branches back while any lane is
   active, else on to the lowest deferred block (its exits).
4. SSA repair: any value whose definition no longer dominates a use is
   passed through a variable too (undefined where it was not computed; such
   paths only reach the use for inactive lanes).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..analysis.barriers import is_barrier_call
from ..analysis.block_ordering import dominance_compact_order
from ..analysis.divergence import (
    DivergenceAnalysis,
    has_side_effects,
    is_safe_private_access,
    needs_divisor_guard,
)
from ..analysis.dominance import DominatorTree
from ..builtins import BuiltinKind, classify
from ..builtins.masked import (
    MaskedBuiltinError,
    divergence_any_fn,
    masked_load_fn,
    masked_store_fn,
    masked_wrapper_fn,
    wrapped_operands,
)
from ..ir import instructions as I
from ..ir import types as T
from ..ir import values as V
from ..ir.builder import Builder

Block = Any


# Fresh constants for every use: a constant records its uses, so one shared
# module-level instance would keep every function it was ever used in alive.
def _true() -> V.ConstantInt:
    return V.ConstantInt(T.i1, 1)


def _false() -> V.ConstantInt:
    return V.ConstantInt(T.i1, 0)


class ConversionError(Exception):
    """The function cannot be converted; the message is the remark."""


def _is_true(v: V.Value) -> bool:
    return isinstance(v, V.ConstantInt) and v.unsigned == 1


def _is_false(v: V.Value) -> bool:
    return isinstance(v, V.ConstantInt) and v.unsigned == 0


@dataclass
class ControlFlowConversion:
    """Convert one function; `run()` returns True if it changed anything.

    `entry_mask`: builds the function's entry mask at a builder (vector
    predication), None for all lanes on.
    """

    function: V.Function
    module: V.Module
    divergence: DivergenceAnalysis
    entry_mask: Callable[[Builder], V.Value] | None = None
    guard_divisions: bool = True
    stats: dict[str, int] = field(default_factory=dict)

    def run(self) -> bool:
        da = self.divergence
        if not da.has_divergence and self.entry_mask is None:
            return False
        self._check()
        fn = self.function
        self._loops = da.loops
        self._blocks = [b for b in dominance_compact_order(fn, da.domtree, da.loops)]
        self._index = {b: i for i, b in enumerate(self._blocks)}
        self._converted = set(self._blocks) - da.by_all | da.blend_blocks
        self._vars: list[I.AllocaInst] = []
        self._entry_builder = Builder()
        first = fn.entry.instructions[0]
        self._entry_first = first
        self._entry_builder.position_before(first)
        self._mask_var: dict[Block, I.AllocaInst] = {}
        self._masks: dict[Block, V.Value] = {}
        self._edge: dict[tuple[Block, Block], V.Value] = {}
        self._phi_vars: dict[int, I.AllocaInst] = {}
        self._b = Builder()
        self._entry_value = self._make_entry_mask()
        for b in self._blocks:
            self._block_mask(b)
        self._uniform_exits = self._find_uniform_latch_exits()
        self._delayed: dict[Block, list[tuple[I.AllocaInst, V.Value]]] = {}
        for b in self._blocks:
            self._edge_masks(b)
        for b in self._blocks:
            self._convert_phis(b)
        for b in self._blocks:
            if self.entry_mask is not None or b not in da.by_all:
                self._apply_masks(b)
        self._linearize()
        self._repair_ssa()
        return True

    # --------------------------------------------------------------- checks

    def _check(self) -> None:
        da = self.divergence
        if not da.loops.is_reducible:
            raise ConversionError("irreducible control flow cannot be linearized")
        for b in self.function.blocks:
            if not da.domtree.is_reachable(b):
                continue
            term = b.terminator
            if isinstance(term, I.UnreachableInst) and (self.entry_mask is not None or b not in da.by_all):
                raise ConversionError(f"'unreachable' in divergent block '{b.name}'")
            if not isinstance(term, (I.BranchInst, I.SwitchInst, I.ReturnInst, I.UnreachableInst)):
                raise ConversionError(f"terminator '{term.opcode}' in block '{b.name}'")
            backs = [s for s in b.successors if da.loops.is_loop_header(s) and da.loops.loop_for(s).contains(b)]
            if len(backs) > 1:
                raise ConversionError(f"block '{b.name}' is the latch of several loops")
        for loop in da.loops.loops:
            if len(loop.latches) != 1:
                raise ConversionError(f"loop '{loop.header.name}' has several latches")
            if da.is_divergent_loop(loop) and not loop.exit_blocks:
                raise ConversionError(f"divergent loop '{loop.header.name}' has no exit")

    # ---------------------------------------------------------------- masks

    def _var(self, ty: T.Type, name: str, init: V.Value | None) -> I.AllocaInst:
        a = self._entry_builder.alloca(ty, name=name)
        self._vars.append(a)
        if init is not None:
            self._init_store.append((init, a))
        return a

    def _make_entry_mask(self) -> V.Value:
        self._init_store: list[tuple[V.Value, V.Value]] = []
        fn = self.function
        # Variables are created at the very top; the entry mask and the
        # initialising stores go after them (first non-phi of the entry).
        for b in self._blocks:
            if b is not fn.entry and b not in self.divergence.by_all:
                self._mask_var[b] = self._var(T.i1, f"{b.name or 'bb'}.mvar", _false())
        b = Builder()
        b.position_before(self._entry_first)
        for init, a in self._init_store:
            b.store(init, a)
        self._init_store = []
        if self.entry_mask is None:
            return _true()
        return self.entry_mask(b)

    def _block_mask(self, block: Block) -> None:
        if block is self.function.entry or block not in self._mask_var:
            self._masks[block] = self._entry_value
            return
        b = self._b
        b.position_before(block.first_non_phi)
        var = self._mask_var[block]
        m = b.load(T.i1, var, name=f"{block.name or 'bb'}.mask")
        b.store(_false(), var)
        self._masks[block] = m

    def _and(self, a: V.Value, c: V.Value, name: str | None = None) -> V.Value:
        if _is_true(a):
            return c
        if _is_false(a) or _is_false(c):
            return _false()
        if _is_true(c):
            return a
        return self._b.select(a, c, _false(), name=name)

    def _or(self, a: V.Value, c: V.Value) -> V.Value:
        if _is_false(a):
            return c
        if _is_false(c):
            return a
        if _is_true(a) or _is_true(c):
            return _true()
        return self._b.or_(a, c)

    def _not(self, c: V.Value) -> V.Value:
        if isinstance(c, V.ConstantInt):
            return V.ConstantInt(T.i1, 1 - (c.unsigned & 1))
        return self._b.xor(c, _true())

    def _edge_masks(self, block: Block) -> None:
        term = block.terminator
        m = self._masks[block]
        b = self._b
        b.position_before(term)
        name = block.name or "bb"
        edges: dict[Block, V.Value] = {}
        if isinstance(term, I.BranchInst):
            if not term.is_conditional:
                edges[term.successors[0]] = m
            else:
                t, f = term.successors
                c = term.condition
                if t is f:
                    edges[t] = m
                else:
                    edges[t] = self._and(m, c, f"{name}.to.{t.name or 'bb'}")
                    edges[f] = self._and(m, self._not(c), f"{name}.to.{f.name or 'bb'}")
        elif isinstance(term, I.SwitchInst):
            cond = term.condition
            hit: V.Value = _false()
            for value, target in term.cases:
                eq = b.icmp("eq", cond, value)
                hit = self._or(hit, eq)
                edges[target] = self._or(edges.get(target, _false()), eq)
            for target in list(edges):
                edges[target] = self._and(m, edges[target])
            default = term.default
            edges[default] = self._or(edges.get(default, _false()), self._and(m, self._not(hit)))
        ux = self._uniform_exits.get(block)
        if ux is not None:
            # Only the loop's last iteration can take the uniform exit: its
            # edge mask and what it stores are done once, after the loop
            # (_leave_by_uniform_exit), and staying needs no mask bit.
            _, header, exit_block = ux
            edges = {header: m}
            self._delayed[block] = []
        for s, e in edges.items():
            self._edge[(block, s)] = e
            var = self._mask_var.get(s)
            if var is not None:
                old = b.load(T.i1, var)
                b.store(self._or(old, e), var)

    def _convert_phis(self, block: Block) -> None:
        if block not in self._converted:
            return
        phis = block.phis()
        if not phis:
            return
        b = self._b
        unblended = self._unblended_edges(block)
        for phi in phis:
            var = self._var(phi.type, f"{phi.name or 'phi'}.var", None)
            for value, pred in phi.incoming:
                ux = self._uniform_exits.get(pred)
                if ux is not None and ux[2] is block:
                    self._delayed[pred].append((var, value))
                    continue
                e = self._edge.get((pred, block))
                if e is None:  # an unreachable predecessor
                    continue
                b.position_before(pred.terminator)
                if _is_true(e) or pred in unblended:
                    b.store(value, var)
                elif not _is_false(e):
                    old = b.load(phi.type, var)
                    b.store(b.select(e, value, old), var)
            b.position_before(block.first_non_phi)
            new = b.load(phi.type, var, name=phi.name)
            phi.replace_all_uses_with(new)
            phi.erase_from_parent()
        self.stats["phis_converted"] = self.stats.get("phis_converted", 0) + len(phis)

    def _unblended_edges(self, header: Block) -> set[Block]:
        """The predecessors of `header` whose edge needs no blend: all of them
        when `header` heads a divergent loop in LCSSA form, else none.

        A lane that does not take an edge into the header is not in the
        loop: it left it (or never entered), and it reads the loop's values
        again only through the exit blocks' phis, which freeze what it left
        with. So when every value defined in the loop is used only inside it
        or by an exit block's phi, inactive lanes may carry anything round
        the loop, and the select that would keep their old value is pure
        cost (on the critical path of loops like Mandelbrot's). Without it a
        header phi keeps its own uniformity: a counter every lane in the loop
        agrees on stays scalar.
        """
        loop = next((lp for lp in self.divergence.divergent_loops if lp.header is header), None)
        if loop is None or loop.latch is None:
            return set()
        # Loop-simplify form, which the argument needs: one way in (else a
        # second unblended store would overwrite lanes that came the first
        # way) and exit blocks entered only from the loop (their phis then
        # are the only way out, and blend per lane).
        if sum(1 for p in header.predecessors if not loop.contains(p)) != 1:
            return set()
        exits = set(loop.exit_blocks)
        if any(not loop.contains(p) for x in exits for p in x.predecessors):
            return set()
        for bb in loop.blocks:
            for inst in bb.instructions:
                for use in inst.uses:
                    user = use.user
                    where = getattr(user, "parent", None)
                    if where is None or loop.contains(where):
                        continue
                    if not (isinstance(user, I.PhiNode) and where in exits):
                        return set()
        return set(header.predecessors)

    # ---------------------------------------------------------- apply masks

    def _apply_masks(self, block: Block) -> None:
        m = self._masks[block]
        if _is_true(m):
            return
        by_all = block in self.divergence.by_all
        uniform = self.divergence.uniform
        b = self._b
        own = {id(v) for v in self._vars}
        for inst in list(block.instructions):
            if isinstance(inst, I.PhiNode) or inst.is_terminator:
                continue
            if isinstance(inst, (I.LoadInst, I.StoreInst)) and id(inst.pointer) in own:
                continue  # the conversion's own mask and value variables
            if is_barrier_call(inst):
                if not by_all:
                    raise ConversionError(
                        f"barrier in block '{block.name or '?'}' under varying control flow "
                        "that no barrier makes uniform"
                    )
                continue  # the packet reaches it as one, whatever the entry mask
            if needs_divisor_guard(inst) and self.guard_divisions:
                b.position_before(inst)
                one = V.const_int(inst.rhs.type, 1)
                inst.set_operand(1, b.select(m, inst.rhs, one))
                continue
            plain = not getattr(inst, "volatile", False) and not getattr(inst, "ordering", None)
            if isinstance(inst, I.LoadInst):
                if plain and is_safe_private_access(inst.pointer):
                    continue
                if plain and by_all and not uniform.is_varying(inst.pointer):
                    continue  # lane 0 is always active: as safe as the scalar load
                if plain:
                    self._replace(inst, masked_load_fn(self.module, inst.type, self._align(inst), _as(inst.pointer)),
                                  [inst.pointer, m])
                    continue
            elif isinstance(inst, I.StoreInst) and plain:
                try:  # (an opaque value: `target("spirv.Event")` stored to its variable)
                    fnc = masked_store_fn(self.module, inst.value.type, self._align(inst), _as(inst.pointer))
                except MaskedBuiltinError as exc:
                    raise ConversionError(f"{exc} in divergent block '{block.name}'") from None
                self._replace(inst, fnc, [inst.value, inst.pointer, m])
                continue
            if isinstance(inst, I.FenceInst) or not (has_side_effects(inst) or isinstance(inst, I.LoadInst)):
                if isinstance(inst, I.CallInst):
                    self._freeze_noundef_args(inst)
                continue
            try:
                wrapper = masked_wrapper_fn(self.module, inst)
            except MaskedBuiltinError as exc:
                raise ConversionError(f"{exc} in divergent block '{block.name}'") from None
            self._replace(inst, wrapper, [*wrapped_operands(inst), m])

    def _freeze_noundef_args(self, call: I.CallInst) -> None:
        """Freeze the `noundef` arguments of a call without side effects in a
        masked block: it now runs in lanes that would not have run it, whose
        arguments may be poison (a masked load's inactive lanes, a value not
        computed on their path), and poison for a `noundef` parameter is
        undefined behaviour for the whole call. Builtins the packetizer maps
        to intrinsics take no `noundef` and keep their arguments."""
        fn = call.called_function
        if fn is None or fn.name.startswith("llvm."):
            return
        if classify(fn.name).kind in (BuiltinKind.ELEMENTWISE, BuiltinKind.OPENCL_EXACT,
                                      BuiltinKind.WORK_ITEM, BuiltinKind.NO_EFFECT):
            return
        params = fn.args
        b = self._b
        for i, a in enumerate(call.args):
            if isinstance(a, V.Constant):
                continue
            decl = params[i].attributes if i < len(params) else ""
            if "noundef" not in call.arg_attributes[i].split() and "noundef" not in decl.split():
                continue
            b.position_before(call)
            call.set_operand(i, b.freeze(a))
            self.stats["frozen_arguments"] = self.stats.get("frozen_arguments", 0) + 1

    def _align(self, inst: I.LoadInst | I.StoreInst) -> int:
        if inst.align:
            return inst.align
        raise ConversionError(f"'{inst.opcode}' without alignment")

    def _replace(self, inst: I.Instruction, callee: V.Function, args: list[V.Value]) -> None:
        b = self._b
        b.position_before(inst)
        call = b.call(callee, args, name=inst.name if not isinstance(inst.type, T.VoidType) else None)
        if inst.uses:
            inst.replace_all_uses_with(call)
        # The values a uniform loop exit stores later are held here, not as uses.
        for pending in self._delayed.values():
            pending[:] = [(var, call if value is inst else value) for var, value in pending]
        inst.erase_from_parent()
        self.stats["masked"] = self.stats.get("masked", 0) + 1

    # ------------------------------------------------ uniform latch exits

    def _find_uniform_latch_exits(self) -> dict[Block, tuple[V.Value | None, Block, Block]]:
        """Latches of divergent loops that leave the loop on a uniform
        condition: latch -> (condition to stay, or None when it is the
        branch's own condition: `_stay_condition`; header; exit block).

        When such a latch takes its exit, every lane still in the loop
        leaves with it (a lane reaching the back edge passes the latch), so
        the exit can only be taken in the loop's last iteration. Then the
        condition need not be folded into the lanes' masks every iteration
        (a broadcast and a select on the loop's critical path, like
        Mandelbrot's iteration limit): the back edge is taken while the
        condition holds and any lane is active, and the exit's mask and
        frozen values are set once on the way out."""
        found: dict[Block, tuple[V.Value, Block, Block]] = {}
        da = self.divergence
        for loop in da.divergent_loops:
            latch = loop.latch
            if latch is None:
                continue
            term = latch.terminator
            if not (isinstance(term, I.BranchInst) and term.is_conditional):
                continue
            if da.is_div_causing(latch) and not self._uniform_in_loop(term.condition, loop):
                continue
            t, f = term.successors
            if loop.header not in (t, f) or t is f:
                continue
            exit_block = f if t is loop.header else t
            if loop.contains(exit_block) or exit_block not in self._converted:
                continue
            if any(not loop.contains(p) for p in exit_block.predecessors):
                continue
            stay = None
            if t is not loop.header:
                self._b.position_before(term)
                stay = self._not(term.condition)
            found[latch] = (stay, loop.header, exit_block)
        return found

    def _stay_condition(self, latch: Block) -> V.Value:
        """The condition to stay in the loop at `latch`'s uniform exit, read
        when it is used. The branch's own condition is taken from the branch
        then, not kept from `_find_uniform_latch_exits`: it may be a header
        phi, which `_convert_phis` replaces by a load in between, and a kept
        reference would name the erased phi (the branch's operand, or the
        negation's, is a use and follows the replacement)."""
        stay = self._uniform_exits[latch][0]
        return latch.terminator.condition if stay is None else stay

    def _uniform_in_loop(self, value: V.Value, loop: Any) -> bool:
        """Is `value` the same in every lane once `loop`'s header is stored
        unblended (_unblended_edges)? The divergence analysis marks a
        divergent loop's header phis varying, as they are when blended; an
        unblended phi whose incoming values are all uniform (a trip counter)
        is uniform instead. Only pure arithmetic, comparisons, casts and
        selects are looked through: no loads, calls or guarded divisions; and
        any other phi of a converted block is not uniform, whatever the
        analysis says, as it becomes a blend on the lanes' edge masks."""
        header = loop.header
        if not self._unblended_edges(header):
            return False
        uniform = self.divergence.uniform
        assumed = {id(p) for p in header.phis()}
        pure = (I.BinaryOperator, I.ICmpInst, I.FCmpInst, I.SelectInst, I.CastInst, I.FreezeInst)

        def check(v: V.Value, seen: set[int]) -> bool:
            if id(v) in assumed:
                return True
            if isinstance(v, I.PhiNode) and v.parent in self._converted:
                return False  # becomes a blend on (varying) edge masks
            if not isinstance(v, I.Instruction) or uniform.is_uniform(v):
                return True
            if id(v) in seen:
                return True  # a cycle through pure operations: decided elsewhere
            if not loop.contains(v.parent) or not isinstance(v, pure) or needs_divisor_guard(v):
                return False
            seen.add(id(v))
            return all(check(op, seen) for op in v.operands)

        # Optimistically uniform header phis, dropped until what is left
        # only takes uniform values round the loop.
        changed = True
        while changed:
            changed = False
            for phi in header.phis():
                if id(phi) in assumed and not all(check(v, set()) for v, _ in phi.incoming):
                    assumed.discard(id(phi))
                    changed = True
        return check(value, set())

    def _leave_by_uniform_exit(self, latch: Block, nxt: Block, stay: V.Value) -> Block:
        """A block on the latch's way out doing the uniform exit's work once:
        the exit's mask and frozen values for the lanes that were still in
        the loop (none, if the loop ended because no lane was left), and the
        header's mask cleared (staying took no mask bit away)."""
        _, header, exit_block = self._uniform_exits[latch]
        fn = self.function
        post = fn.add_block(f"{header.name or 'loop'}.uniform.exit", after=latch)
        b = Builder(post)
        saved = self._b
        self._b = b
        e = self._and(self._masks[latch], self._not(stay), f"{latch.name or 'bb'}.to.{exit_block.name or 'bb'}")
        self._edge[(latch, exit_block)] = e
        var = self._mask_var.get(exit_block)
        if var is not None:
            b.store(self._or(b.load(T.i1, var), e), var)
        for phi_var, value in self._delayed.get(latch, []):
            old = b.load(phi_var.allocated_type, phi_var)
            b.store(b.select(e, value, old), phi_var)
        hvar = self._mask_var.get(header)
        if hvar is not None:
            b.store(_false(), hvar)
        b.br(nxt)
        self._b = saved
        self.stats["uniform_latch_exits"] = self.stats.get("uniform_latch_exits", 0) + 1
        return post

    # ----------------------------------------------------------- linearize

    def _linearize(self) -> None:
        da = self.divergence
        li = self._loops
        index = self._index
        deferred: dict[Block, set[Block]] = {}
        div_latch: dict[Block, Any] = {}
        exiting_div: set[Block] = set()
        for loop in da.divergent_loops:
            div_latch[loop.latch] = loop
            exiting_div.update(loop.exiting_blocks)

        def defer(targets: set[Block]) -> Block:
            x = min(targets, key=index.__getitem__)
            rest = targets - {x}
            if rest:
                deferred.setdefault(x, set()).update(rest)
            return x

        b = self._b
        for block in self._blocks:
            t = deferred.pop(block, set())
            term = block.terminator
            succs = list(dict.fromkeys(term.successors))
            if block in div_latch:
                loop = div_latch[block]
                header = loop.header
                targets = t | {s for s in succs if s is not header}
                if not targets:
                    raise ConversionError(f"divergent loop '{header.name}' has no way out")
                nxt = defer(targets)
                e = self._edge.get((block, header), _false())
                b.position_before(term)
                anyc = b.call(divergence_any_fn(self.module), [e], name=f"{header.name or 'loop'}.any")
                ux = self._uniform_exits.get(block)
                if ux is not None:
                    stay = self._stay_condition(block)
                    anyc = b.select(stay, anyc, _false(), name=f"{header.name or 'loop'}.stay")
                    nxt = self._leave_by_uniform_exit(block, nxt, stay)
                term.erase_from_parent()
                b.position_at_end(block)
                b.cond_br(anyc, header, nxt)
                self.stats["divergent_loops"] = self.stats.get("divergent_loops", 0) + 1
            elif da.is_div_causing(block) or block in exiting_div:
                targets = t | set(succs)
                if not targets:
                    continue
                nxt = defer(targets)
                term.erase_from_parent()
                b.position_at_end(block)
                b.br(nxt)
                self.stats["linearized"] = self.stats.get("linearized", 0) + 1
            else:
                if not succs:
                    if t:
                        raise ConversionError(f"blocks deferred past the exit '{block.name}'")
                    continue
                mapping: dict[Block, Block] = {}
                for s in succs:
                    lp = li.loop_for(s)
                    if lp is not None and lp.header is s and lp.contains(block):
                        mapping[s] = s  # a uniform loop's back edge
                    else:
                        mapping[s] = defer(t | {s})
                for i, op in enumerate(term.operands):
                    if isinstance(op, V.BasicBlock) and op in mapping:
                        term.set_operand(i, mapping[op])
                if isinstance(term, I.BranchInst) and term.is_conditional:
                    t0, f0 = term.successors
                    if t0 is f0:
                        term.erase_from_parent()
                        b.position_at_end(block)
                        b.br(t0)

    # ---------------------------------------------------------- SSA repair

    def _repair_ssa(self) -> None:
        fn = self.function
        dt = DominatorTree(fn)
        reachable = [bb for bb in fn.blocks if dt.is_reachable(bb)]
        b = self._b
        for bb in reachable:
            for inst in list(bb.instructions):
                if isinstance(inst.type, T.VoidType) or not inst.uses:
                    continue
                bad = []
                for use in list(inst.uses):
                    user = use.user
                    if not isinstance(user, I.Instruction) or user.parent is None:
                        continue
                    if not dt.is_reachable(user.parent):
                        continue
                    if isinstance(user, I.PhiNode):
                        pred = user.get_operand(use.index + 1)
                        ok = dt.dominates(inst.parent, pred)
                    else:
                        ok = dt.dominates(inst, user)
                    if not ok:
                        bad.append(use)
                if not bad:
                    continue
                if any(use.user.is_terminator for use in bad):
                    raise ConversionError(
                        f"linearization separated '{inst.name or inst.opcode}' from the branch it decides"
                    )
                var = self._var(inst.type, f"{inst.name or 'v'}.ssa", None)
                if isinstance(inst, I.PhiNode):
                    b.position_before(bb.first_non_phi)
                else:
                    b.position_after(inst)
                b.store(inst, var)
                for use in bad:
                    user = use.user
                    if isinstance(user, I.PhiNode):
                        b.position_before(user.get_operand(use.index + 1).terminator)
                    else:
                        b.position_before(user)
                    user.set_operand(use.index, b.load(inst.type, var))
                self.stats["ssa_repaired"] = self.stats.get("ssa_repaired", 0) + 1


def _as(p: V.Value) -> int:
    ty = p.type
    return ty.addrspace if isinstance(ty, T.PointerType) else 0


@dataclass
class ConversionOutcome:
    """What `convert_control_flow` did: `text` is the converted module (None
    when nothing needed converting), `refusal` the remark when it could not,
    `invalid_ir` LLVM's complaint when the conversion produced IR LLVM
    rejects (a defect of ours, never the input's)."""

    text: str | None = None
    refusal: str | None = None
    invalid_ir: str | None = None
    stats: dict[str, int] = field(default_factory=dict)
    remarks: list[str] = field(default_factory=list)


PROMOTE = ("sroa",)


def convert_control_flow(
    module: V.Module,
    function: V.Function,
    uniform: Any,
    dim: int,
    *,
    vector_predication: bool = False,
    roscc: bool = True,
    boscc: bool = False,
    guard_divisions: bool = True,
    checkpoint: Callable[[str], None] = lambda step: None,
) -> ConversionOutcome:
    """Run the control-flow passes on `function` (edited in place): Simplify
    Infinite Loop, BOSCC (when `boscc`) or else ROSCC, then Control Flow
    Conversion, then LLVM's SROA on the function to promote the mask and
    value variables. Returns the new module text, or a refusal.
    `checkpoint(step)` is called where a step has left the function whole
    (after each BOSCC region): the analysis verification checks it there."""
    from .. import llvm_bridge
    from ..analysis.divergence import DivergenceAnalysis
    from ..ir import print_module
    from .roscc import apply_roscc
    from .simplify_infinite_loop import simplify_infinite_loops
    from .vector_predication import entry_mask_builder

    simplify_infinite_loops(function)
    da = DivergenceAnalysis(function, uniform, partial_entry=vector_predication)
    if not da.has_divergence and not vector_predication:
        return ConversionOutcome()  # (a loop given an exit was edited in place)
    stats: dict[str, int] = {}
    remarks: list[str] = []
    if boscc:
        from ..analysis.uniformity import UniformValueAnalysis
        from .boscc import apply_boscc

        bo = apply_boscc(
            function, module, dim,
            entry_mask=entry_mask_builder(module, dim) if vector_predication else None,
            checkpoint=checkpoint,
        )
        remarks.extend(bo.remarks)
        if bo.regions:
            stats["boscc_regions"] = bo.regions
            stats["boscc_cloned"] = bo.cloned
            # The copies are new values: both analyses start afresh.
            uniform = UniformValueAnalysis(function, dim)
            da = DivergenceAnalysis(function, uniform, partial_entry=vector_predication)
    elif roscc and not vector_predication:
        n = apply_roscc(function, module, da)
        if n:
            stats["roscc"] = n
            da = DivergenceAnalysis(function, uniform, partial_entry=vector_predication)
    entry = entry_mask_builder(module, dim) if vector_predication else None
    cfc = ControlFlowConversion(function, module, da, entry_mask=entry, guard_divisions=guard_divisions)
    try:
        cfc.run()
    except ConversionError as exc:
        return ConversionOutcome(refusal=f"control-flow conversion: {exc}", remarks=remarks)
    stats.update(cfc.stats)
    try:
        text = llvm_bridge.run_function_passes(print_module(module), function.name, PROMOTE)
    except llvm_bridge.IRError as exc:  # a defect of ours: the pass reports it as a VectorizerBug
        return ConversionOutcome(invalid_ir=str(exc), remarks=remarks)
    return ConversionOutcome(text=text, stats=stats, remarks=remarks)
