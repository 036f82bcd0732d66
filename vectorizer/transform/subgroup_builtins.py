"""Sub-group builtins and work-group collectives as in-packet vector code.

In the vectorized kernel a sub-group is the packet (docs/subgroups.md): W
consecutive work-items along the vectorized dimension. So:

- a sub-group reduction is a reduction of the packet, broadcast to every
  lane; a scan is a scan across the lanes; a broadcast extracts a lane;
  shuffles move lanes; a ballot packs the lanes' conditions into the bits
  of the uint4's elements (its users take elements); `sub_group_all/any` reduce a packet of `i1`; `sub_group_barrier` is
  nothing (the packet's lanes run together);
- a work-group collective combines the packet first (its reduction, or its
  total for a scan) and calls the scalar builtin once with it: the runtime's
  group-wide step then sees one contribution per packet, as from a work-item,
  and the packet finishes the scan with the exclusive result it gets back
  (the scalar exclusive-scan builtin of the same operation), as Vecz does.

Results are bit-exact with the oracle's reference, which folds the members
of a sub-group in lane order: integer operations use LLVM's reductions and
log-step scans (associative and commutative, so any order gives the same
bits); floating-point ones are folded lane by lane in lane order, the order
the reference uses (OpenCL allows any order; we pick the reference's, so the
oracle needs no tolerance). Work-group reductions and scans fold sub-group
by sub-group in the reference too, so a packet's fold followed by the
runtime's fold of packet totals is the reference's order along dimension 0;
along other dimensions (a packet is then not a run of consecutive linear
ids) scans and float reductions pass all their lanes to the runtime, which
folds in the reference's order (`_linear`). Under divergent control flow
the non-uniform forms and `sub_group_ballot` are computed over the lanes
active in their block (`_active_lanes`), the model's members there; the
uniform collectives are refused. With
VectorPredication the last packet of a row may be partial: its sub-group
size is the runtime's `get_sub_group_size` for the packet, lanes past it
hold the operation's identity (integer reductions and scans, all/any) or
are skipped (float folds), and lane indices are checked against it.

The transform is the packetizer's: `SubGroupPacketizer` handles collective
calls and leaves everything else to `Packetizer`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..analysis import subgroups as sg
from ..analysis.uniformity import is_packet_uniform_collective, parse_collective
from ..builtins import classify
from ..builtins.masked import classify_masked_call
from ..builtins.work_item import local_id_name
from ..ir import instructions as I
from ..ir import types as T
from ..ir import values as V
from ..ir.builder import Builder
from .packetizer import PacketizationError, Packetizer, _suffix

_INT_REDUCE = {"add": "add", "mul": "mul", "and": "and", "or": "or", "xor": "xor", "smin": "smin",
               "smax": "smax", "umin": "umin", "umax": "umax", "logical_and": "and",
               "logical_or": "or", "logical_xor": "xor"}


def collective_of(inst: V.Value) -> sg.Collective | None:
    """The collective a call instruction makes, or None."""
    if not isinstance(inst, I.CallInst):
        return None
    fn = inst.called_function
    return parse_collective(fn.name if fn is not None else None)  # remembered by name


def _wrapped_collective(inst: I.CallInst) -> I.CallInst | None:
    """The collective call inside a masked wrapper `inst` calls, if any."""
    masked = classify_masked_call(inst)
    fn = inst.called_function
    if masked is None or masked.kind != "wrapper" or fn is None:
        return None
    for sub in fn.instructions():
        if isinstance(sub, I.CallInst) and collective_of(sub) is not None:
            return sub
    return None


def active_lanes_form(c: sg.Collective | None) -> bool:
    """Does the model define collective `c` in divergent code, over the
    work-items active at the call (docs/subgroups.md)? The non-uniform
    reductions, scans, votes, broadcasts, clustered reductions and
    `sub_group_elect`, and `sub_group_ballot`; not the uniform forms or
    shuffles."""
    if c is None or c.scope != "sub":
        return False
    if c.kind == sg.BALLOT:
        return True
    return c.non_uniform and c.kind in (sg.REDUCE, sg.SCAN_INCLUSIVE, sg.SCAN_EXCLUSIVE, sg.ALL, sg.ANY,
                                        sg.ALL_EQUAL, sg.BROADCAST, sg.ELECT, sg.CLUSTERED_REDUCE)


def refusal(name: str, dim: int) -> str | None:
    """Why a call to `name` (a collective-looking name) cannot be vectorized
    at dimension `dim`, or None when it can."""
    c = sg.parse_collective(name)
    if c is None:
        return sg.unsupported_reason(name)
    return None


@dataclass
class SubGroupPacketizer(Packetizer):
    """The packetizer, with collective calls as in-packet vector code."""

    predicated: bool = False

    # ------------------------------------------------------------ driver

    def run(self) -> None:
        self._done: set[int] = set()  # collective calls already turned into vector code
        self._elements: dict[int, list[V.Value]] = {}  # vector-valued collectives: a packet per element
        self._taken: list[I.ExtractElementInst] = []  # elements of those, given their packets
        self._size_value: V.Value | None = None  # VectorPredication: the packet's sub-group size
        self._views: dict[int, tuple[sg.Collective, V.Function, list[V.Value]] | None] = {}
        self._masks: dict[int, V.Value] = {}  # divergent non-uniform forms: their block masks
        self._check_collectives()
        for inst in list(self.function.instructions()):
            c = self._view(inst)
            if c is not None and c.kind == sg.BARRIER and c.scope == "sub":
                # The packet's lanes run together: nothing to wait for.
                inst.erase_from_parent()
        super().run()
        for ext in self._taken:
            # Lane 0 of an element of a vector-valued collective.
            if ext.parent is None:
                continue
            vec = self._packets[id(ext)]
            if ext.uses:
                b = Builder()
                b.position_after(vec if isinstance(vec, I.Instruction) else ext)
                ext.replace_all_uses_with(b.extractelement(vec, 0))
            ext.erase_from_parent()
        # Lane 0 of a collective's result was the call itself.
        for inst in list(self.function.instructions()):
            if id(inst) not in self._done or id(inst) in self._elements:
                continue
            if id(inst) not in self._packets:
                inst.erase_from_parent()  # void, or its result unused
                continue
            vec = self._packets[id(inst)]
            if inst.uses:
                b = Builder()
                b.position_after(vec if isinstance(vec, I.Instruction) else inst)
                inst.replace_all_uses_with(b.extractelement(vec, 0))
            inst.erase_from_parent()
        # Vector-valued collectives (ballots, shuffles of vectors): their
        # users took elements, or read them through a ballot bit operation.
        for inst in list(self.function.instructions()):
            if id(inst) in self._elements:
                if inst.uses:
                    if not is_packet_uniform_collective(inst):
                        raise PacketizationError(
                            f"a vector-valued collective '{inst.called_function.name}' is used whole, "  # type: ignore[attr-defined]
                            "not by elements")
                    # A ballot used as a whole by uniform code: the same in
                    # every lane, so lane 0 of each element's packet.
                    elems = self._elements[id(inst)]
                    b = Builder()
                    last = next((e for e in reversed(elems) if isinstance(e, I.Instruction)), None)
                    b.position_after(last if last is not None else inst)
                    whole: V.Value = V.PoisonValue(inst.type)
                    for j, e in enumerate(elems):
                        whole = b.insertelement(whole, b.extractelement(e, 0), j)
                    inst.replace_all_uses_with(whole)
                inst.erase_from_parent()

    def _check_collectives(self) -> None:
        for inst in self.function.instructions():
            if not isinstance(inst, I.CallInst):
                continue
            fn = inst.called_function
            name = fn.name if fn is not None else None
            if sg.is_collective_name(name):
                why = refusal(name, self.uniform.dim)  # type: ignore[arg-type]
                if why:
                    raise PacketizationError(why)
            masked = classify_masked_call(inst)
            if masked is not None and masked.kind == "wrapper":
                inner = _wrapped_collective(inst)
                if inner is not None:
                    why = refusal(inner.called_function.name, self.uniform.dim)  # type: ignore[union-attr]
                    if why:
                        raise PacketizationError(why)
                    if self._view(inst) is None:
                        inner_name = inner.called_function.name  # type: ignore[union-attr]
                        ic = sg.parse_collective(inner_name)
                        if ic is not None and ic.non_uniform:
                            raise PacketizationError(
                                f"non-uniform sub-group builtin '{inner_name}' under divergent control flow is "
                                "not supported: the model gives it a meaning only where every member of the "
                                "sub-group reaches the call (docs/subgroups.md)")
                        raise PacketizationError(
                            f"collective '{inner_name}' under divergent control flow "
                            "is not supported (its non-uniform form)"
                        )

    def _view(self, inst: V.Value) -> sg.Collective | None:
        """The collective `inst` makes: a direct call, or with VectorPredication
        the masked wrapper control-flow conversion puts around one in a block
        whose mask is the entry mask (the packet's lanes within the local
        size: the partial packet is a smaller sub-group, not divergence)."""
        if isinstance(inst, I.CallInst):
            return self._call_view(inst)
        return None  # only calls make collectives

    def _call_view(self, inst: I.CallInst) -> sg.Collective | None:
        key = id(inst)
        if key in self._views:
            known = self._views[key]
            return known[0] if known is not None else None
        view = None
        c = collective_of(inst)
        if c is not None:
            assert isinstance(inst, I.CallInst)
            view = (c, inst.called_function, list(inst.args))
        elif isinstance(inst, I.CallInst):
            inner = _wrapped_collective(inst)
            if inner is not None and self.predicated and self._within_entry_mask(inst.args[-1]):
                view = (collective_of(inner), inner.called_function, list(inst.args[:-1]))
            elif inner is not None and active_lanes_form(collective_of(inner)):
                # A non-uniform form in divergent code: its members are the
                # lanes active in the block (docs/subgroups.md).
                view = (collective_of(inner), inner.called_function, list(inst.args[:-1]))
                self._masks[key] = inst.args[-1]
        self._views[key] = view  # type: ignore[assignment]
        return view[0] if view is not None else None

    def _args(self, call: I.CallInst) -> list[V.Value]:
        return self._views[id(call)][2]  # type: ignore[index]

    def _callee(self, call: I.CallInst) -> V.Function:
        return self._views[id(call)][1]  # type: ignore[index]

    def _within_entry_mask(self, m: V.Value) -> bool:
        """Is block mask `m` the entry mask and-ed with uniform conditions only
        (`entry & U`, U the same in every lane)? Control-flow conversion
        builds such masks for blocks under uniform branches with
        VectorPredication; the branches stay branches, so the block runs
        only when U holds, with exactly the packet's lanes within the local
        size: its collectives see the whole (partial) sub-group."""
        return self._clean(m, set()) and self._bounded(m, set())

    def _clean(self, m: V.Value, seen: set[int]) -> bool:
        # Leaves: the entry mask or uniform values; inner nodes: and, or, select, phi.
        if id(m) in seen or self.uniform.is_uniform(m) or self._is_entry_mask(m):
            return True
        seen.add(id(m))
        if isinstance(m, I.BinaryOperator) and m.opcode in ("and", "or"):
            return self._clean(m.lhs, seen) and self._clean(m.rhs, seen)
        if isinstance(m, I.SelectInst):
            return all(self._clean(v, seen) for v in (m.condition, m.true_value, m.false_value))
        if isinstance(m, I.PhiNode):
            return all(self._clean(v, seen) for v, _ in m.incoming)
        return False

    def _bounded(self, m: V.Value, seen: set[int]) -> bool:
        # True only in lanes where the entry mask is (m implies it).
        if id(m) in seen or self._is_entry_mask(m):
            return True
        if isinstance(m, V.ConstantInt):
            return m.value == 0
        seen.add(id(m))
        if isinstance(m, I.BinaryOperator) and m.opcode == "and":
            return self._bounded(m.lhs, seen) or self._bounded(m.rhs, seen)
        if isinstance(m, I.BinaryOperator) and m.opcode == "or":
            return self._bounded(m.lhs, seen) and self._bounded(m.rhs, seen)
        if isinstance(m, I.SelectInst):
            if self._bounded(m.true_value, seen) and self._bounded(m.false_value, seen):
                return True
            f = m.false_value
            return self._bounded(m.condition, seen) and isinstance(f, V.ConstantInt) and f.value == 0
        if isinstance(m, I.PhiNode):
            return all(self._bounded(v, seen) for v, _ in m.incoming)
        return False

    def _is_entry_mask(self, m: V.Value) -> bool:
        """`local_id(dim) < local_size(dim)`: VectorPredication's entry mask."""
        if not isinstance(m, I.ICmpInst) or m.predicate != "ult":
            return False

        def query(v: V.Value, kind: str) -> bool:
            while isinstance(v, I.CastInst):
                v = v.value
            if not isinstance(v, I.CallInst) or not v.args:
                return False
            fn = v.called_function
            q = classify(fn.name if fn is not None else None).query
            arg = v.args[0]
            return (q is not None and q.kind == kind and isinstance(arg, V.ConstantInt)
                    and arg.value == self.uniform.dim)

        return query(m.lhs, "local_id") and query(m.rhs, "local_size")

    def _is_leaf(self, inst: I.Instruction) -> bool:
        if self._view(inst) is not None:
            return True
        return super()._is_leaf(inst)

    def _leaf(self, inst: I.Instruction) -> None:
        c = self._view(inst)
        if c is None:
            super()._leaf(inst)
            return
        if isinstance(inst.type, (T.VoidType, T.VectorType)):
            # Void, or vector-valued (a packet per element, in `_elements`).
            if id(inst) not in self._done:
                self._collective(inst, c)  # type: ignore[arg-type]
        elif id(inst) not in self._packets:
            self.packet(inst)

    def _make_packet(self, value: V.Value) -> V.Value:
        c = self._view(value)
        if c is not None and isinstance(value.type, T.VectorType):
            # Packets hold scalars: a vector-valued collective has one per element.
            raise PacketizationError(f"a vector-valued collective '{self._callee(value).name}' is used "  # type: ignore[arg-type]
                                     "whole by a varying value, not by elements")
        if c is not None and id(value) not in self._done:
            return self._collective(value, c)  # type: ignore[arg-type]
        if isinstance(value, I.ExtractElementInst) and self._view(value.vector) is not None:
            call = value.vector
            if id(call) not in self._done:
                self._collective(call, self._view(call))  # type: ignore[arg-type]
            elems = self._elements.get(id(call))
            if elems is not None and isinstance(value.index, V.ConstantInt):
                self._taken.append(value)
                return elems[value.index.value]
        return super()._make_packet(value)

    def _make_lane(self, value: V.Value, lane: int) -> V.Value:
        if self._view(value) is not None and id(value) not in self._done:
            self.packet(value)  # lanes come from the packet, never from re-running the call (raises if vector-valued)
        return super()._make_lane(value, lane)

    def _root_step(self, inst: I.CallInst) -> int:
        # A sub-group runs along the vectorized dimension, whichever it is.
        fn = inst.called_function
        q = classify(fn.name if fn is not None else None).query
        if q is not None and q.kind == "sub_group_local_id":
            return 1
        return super()._root_step(inst)

    # ------------------------------------------------------------ helpers

    def _size(self, b: Builder) -> V.Value | None:
        """The packet's sub-group size (i32) with VectorPredication, where the
        last packet of a row is partial: the runtime's answer for the packet's
        first work-item, min(W, L[dim] - b). None without: always W."""
        if not self.predicated:
            return None
        if self._size_value is None:
            fn = self.module.get_or_insert_function("__mux_get_sub_group_size", T.FunctionType(T.i32, ()))
            entry = self.function.blocks[0]
            eb = Builder()
            eb.position_before(entry.instructions[0])
            self._size_value = eb.call(fn, [], name="sg.size")
        return self._size_value

    def _bound(self, b: Builder) -> V.Value:
        """The number of members (i32): W, or the partial packet's size."""
        n = self._size(b)
        return n if n is not None else V.const_int(T.i32, self.width)

    def _int_masked(self, op: str, x: V.Value, b: Builder) -> V.Value:
        """Integer packets get the identity in inactive lanes (their vector
        reductions and log-step scans take every lane); float folds skip them."""
        vty = x.type
        assert isinstance(vty, T.VectorType)
        return self._mask_inactive(op, x, b) if isinstance(vty.element, T.IntType) else x

    def _mask_inactive(self, op: str, x: V.Value, b: Builder) -> V.Value:
        """`x` with the lanes past the sub-group's size set to the operation's
        identity (VectorPredication's partial packet), else `x`."""
        n = self._size(b)
        if n is None:
            return x
        vty = x.type
        assert isinstance(vty, T.VectorType)
        steps = V.ConstantVector(T.VectorType(T.i32, self.width), [V.const_int(T.i32, k) for k in range(self.width)])
        active = b.icmp("ult", steps, self._splat(n, b))
        ident = V.splat(vty, self._identity(op, vty.element))  # type: ignore[arg-type]
        return b.select(active, x, ident)

    def _splat(self, v: V.Value, b: Builder) -> V.Value:
        vty = T.VectorType(v.type, self.width)
        ins = b.insertelement(V.PoisonValue(vty), v, 0)
        return b.shufflevector(ins, V.PoisonValue(vty), [0] * self.width)

    def _combine(self, op: str, a: V.Value, x: V.Value, b: Builder) -> V.Value:
        simple = {"add": "add", "mul": "mul", "and": "and", "or": "or", "xor": "xor", "fadd": "fadd",
                  "fmul": "fmul", "logical_and": "and", "logical_or": "or", "logical_xor": "xor"}
        if op in simple:
            return b.binop(simple[op], a, x)
        intr = {"smin": "smin", "smax": "smax", "umin": "umin", "umax": "umax", "fmin": "minnum",
                "fmax": "maxnum"}[op]
        fn = self.module.get_or_insert_function(f"llvm.{intr}.{_suffix(a.type)}",
                                                T.FunctionType(a.type, (a.type, a.type)))
        return b.call(fn, [a, x])

    def _identity(self, op: str, ty: T.Type) -> V.Value:
        if isinstance(ty, T.FloatType):
            return V.const_fp(ty, float(sg.identity(op, 0, True)))
        assert isinstance(ty, T.IntType)
        val = int(sg.identity(op, ty.bits, False))
        if ty.bits == 1:
            val = val & 1
        return V.const_int(ty, val)

    def _reduce(self, op: str, packet: V.Value, b: Builder) -> V.Value:  # type: ignore[override]
        vty = packet.type
        assert isinstance(vty, T.VectorType)
        if op in _INT_REDUCE and isinstance(vty.element, T.IntType):
            fn = self.module.get_or_insert_function(
                f"llvm.vector.reduce.{_INT_REDUCE[op]}.{_suffix(vty)}", T.FunctionType(vty.element, (vty,))
            )
            return b.call(fn, [packet])
        # Floating point: lane order, as the reference folds (lanes past a
        # partial packet's size leave the fold alone).
        n = self._size(b)
        acc: V.Value = b.extractelement(packet, 0)
        for k in range(1, self.width):
            nxt = self._combine(op, acc, b.extractelement(packet, k), b)
            acc = nxt if n is None else b.select(b.icmp("ult", V.const_int(T.i32, k), n), nxt, acc)
        return acc

    def _scan(self, op: str, packet: V.Value, inclusive: bool, b: Builder) -> V.Value:
        vty = packet.type
        assert isinstance(vty, T.VectorType)
        ident = self._identity(op, vty.element)
        if isinstance(vty.element, T.IntType):
            # Log-step scan: exact for associative, commutative integer operations.
            acc = packet
            ids = V.splat(vty, ident)  # type: ignore[arg-type]
            step = 1
            while step < self.width:
                shifted = b.shufflevector(acc, ids, [k - step if k >= step else self.width for k in range(self.width)])
                acc = self._combine(op, acc, shifted, b)
                step *= 2
        else:
            acc_s: V.Value = b.extractelement(packet, 0)
            acc = b.insertelement(V.PoisonValue(vty), acc_s, 0)
            for k in range(1, self.width):
                # Lanes past a partial packet's size: never read.
                acc_s = self._combine(op, acc_s, b.extractelement(packet, k), b)
                acc = b.insertelement(acc, acc_s, k)
        if inclusive:
            return acc
        ids = V.splat(vty, ident)  # type: ignore[arg-type]
        return b.shufflevector(acc, ids, [self.width] + list(range(self.width - 1)))

    def _lane_select(self, srcs: list[tuple[V.Value, V.Value, V.Value]], ty: T.Type, b: Builder) -> V.Value:
        """A packet whose lane k is `srcs[k]` = (vector, index, in range): the
        vector's element at the index, or zero when out of range."""
        vty = T.VectorType(ty, self.width)
        zero = V.ConstantAggregateZero(ty)
        out: V.Value = V.PoisonValue(vty)
        for k, (vec, idx, ok) in enumerate(srcs):
            safe = b.select(ok, idx, V.const_int(idx.type, 0))
            e = b.extractelement(vec, safe)
            out = b.insertelement(out, b.select(ok, e, zero), k)
        return out

    def _as_i32(self, v: V.Value, b: Builder) -> V.Value:
        assert isinstance(v.type, T.IntType)
        if v.type.bits == 32:
            return v
        return b.cast("trunc" if v.type.bits > 32 else "zext", v, T.i32)

    # ------------------------------------------------------------ collectives

    def _collective(self, call: I.CallInst, c: sg.Collective) -> V.Value:
        self._done.add(id(call))
        b = Builder()
        b.position_after(call)
        if c.scope == "work":
            return self._work_group(call, c, b)
        act = self._active(call, b)
        if c.kind == sg.ELECT and act is not None:
            # The first active lane is elected.
            steps = V.ConstantVector(T.VectorType(T.i32, self.width),
                                     [V.const_int(T.i32, k) for k in range(self.width)])
            return b.zext(b.icmp("eq", steps, self._splat(self._first(act, b), b)),
                          T.VectorType(call.type, self.width))
        if c.kind == sg.ELECT:
            # Every lane of the packet is active here (sub-group-uniform
            # control flow): lane 0 is the first.
            lanes = [V.const_int(call.type, int(k == 0)) for k in range(self.width)]  # type: ignore[arg-type]
            return V.ConstantVector(T.VectorType(call.type, self.width), lanes)
        assert c.value is not None
        vty = self._args(call)[c.value].type
        if c.kind == sg.BALLOT_BIT:
            return self._ballot_bits(call, c, b)
        if c.kind == sg.BALLOT:
            # A uint4 the same in every lane: a packet per element, for the
            # users that take elements (`.x`); bit k is lane k's condition.
            x = self.packet(self._args(call)[c.value])
            bits = b.icmp("ne", x, V.ConstantAggregateZero(x.type))
            # Bits of the members only: the active lanes, or the partial packet's.
            bits = b.binop("and", bits, act) if act is not None else self._mask_inactive("or", bits, b)
            packed: V.Value = b.bitcast(bits, T.IntType(self.width))
            words = []
            for j in range(4):
                if 32 * j >= self.width:
                    words.append(V.const_int(T.VectorType(T.i32, self.width), 0))
                    continue
                word = packed
                if j:
                    word = b.binop("lshr", word, V.const_int(word.type, 32 * j))
                if self.width > 32:
                    word = b.cast("trunc", word, T.i32)
                elif self.width < 32:
                    word = b.zext(word, T.i32)
                words.append(self._splat(word, b))
            self._elements[id(call)] = words
            return V.PoisonValue(T.VectorType(T.i32, self.width))  # never used: users take elements
        if isinstance(vty, T.VectorType):
            # Shuffles and broadcasts of vectors act on each element: one
            # packet per element; the call's users must take elements.
            if c.kind not in (sg.BROADCAST, sg.SHUFFLE, sg.SHUFFLE_XOR, sg.SHUFFLE_UP, sg.SHUFFLE_DOWN):
                raise PacketizationError(f"collective '{self._callee(call).name}' on {vty}")  # type: ignore[union-attr]
            elems = []
            for j in range(vty.count):
                second = None
                if c.mux and c.kind in (sg.SHUFFLE_UP, sg.SHUFFLE_DOWN):
                    second = self.packet(self._element(self._args(call)[c.extra[0]], j, call))
                x = self.packet(self._element(self._args(call)[c.value], j, call))
                elems.append(self._sub_group(call, c, x, second, b))
            self._elements[id(call)] = elems
            return V.PoisonValue(T.VectorType(vty.element, self.width))  # never used: users take elements
        second = None
        if c.mux and c.kind in (sg.SHUFFLE_UP, sg.SHUFFLE_DOWN):
            second = self.packet(self._args(call)[c.extra[0]])
        return self._sub_group(call, c, self.packet(self._args(call)[c.value]), second, b)

    def _element(self, vec: V.Value, j: int, call: I.CallInst) -> V.Value:
        """The scalar that is element `j` of `vec`, found through the
        `insertelement` chain the scalarizer builds (a packet exists for it)."""
        v = vec
        while isinstance(v, I.InsertElementInst):
            if isinstance(v.index, V.ConstantInt) and v.index.value == j:
                return v.element
            v = v.vector
        if isinstance(v, V.Constant):
            if isinstance(v, V.ConstantVector):
                return v.elements[j] if not v.is_splat else v.elements[0]
            if isinstance(v, V.ConstantAggregateZero):
                return V.ConstantAggregateZero(vec.type.element)  # type: ignore[attr-defined]
        if self.uniform.is_uniform(vec):
            # A uniform vector (the scalarizer splits varying ones only): its
            # element is uniform too, and a new value counts as uniform.
            b = Builder()
            b.position_before(call)
            return b.extractelement(vec, j)
        raise PacketizationError("a collective on a vector value whose elements are not separate scalars here "
                                 "(a masked access with VectorPredication) is not supported")

    def _sub_group(self, call: I.CallInst, c: sg.Collective, x: V.Value, second: V.Value | None,
                   b: Builder) -> V.Value:
        """The packet of sub-group collective `call` on the packet `x` of its value."""
        vty = x.type
        assert isinstance(vty, T.VectorType)
        el = vty.element
        w = self.width
        n = self._bound(b)
        act = self._active(call, b)
        if act is not None:
            return self._active_lanes(call, c, x, act, b)
        if c.kind == sg.REDUCE:
            return self._splat(self._reduce(c.op, self._int_masked(c.op, x, b), b), b)  # type: ignore[arg-type]
        if c.kind in (sg.SCAN_INCLUSIVE, sg.SCAN_EXCLUSIVE):
            return self._scan(c.op, self._int_masked(c.op, x, b), c.kind == sg.SCAN_INCLUSIVE, b)  # type: ignore[arg-type]
        if c.kind in (sg.ALL, sg.ANY):
            j = "and" if c.kind == sg.ALL else "or"
            bits = self._mask_inactive(j, b.icmp("ne", x, V.ConstantAggregateZero(vty)), b)
            r = self._reduce(j, bits, b)
            if call.type != T.i1:
                r = b.zext(r, call.type)
            return self._splat(r, b)
        if c.kind == sg.ALL_EQUAL:
            first = self._splat(b.extractelement(x, 0), b)
            eq = b.fcmp("oeq", x, first) if isinstance(el, T.FloatType) else b.icmp("eq", x, first)
            r = self._reduce("and", self._mask_inactive("and", eq, b), b)
            return self._splat(r if call.type == T.i1 else b.zext(r, call.type), b)
        if c.kind == sg.CLUSTERED_REDUCE:
            return self._clustered(call, c, x, b)
        if c.kind == sg.BROADCAST:
            if not c.extra:  # sub_group_broadcast_first: lane 0, the first active one
                return self._splat(b.extractelement(x, 0), b)
            idx = self._as_i32(self._args(call)[c.extra[0]], b)  # lane 0's, as the reference takes member 0's
            ok = b.icmp("ult", idx, n)
            return self._splat(b.select(ok, b.extractelement(x, b.select(ok, idx, V.const_int(T.i32, 0))),
                                        V.ConstantAggregateZero(el)), b)
        if c.kind in (sg.SHUFFLE, sg.SHUFFLE_XOR, sg.SHUFFLE_UP, sg.SHUFFLE_DOWN):
            arg = self._args(call)[c.extra[-1]]
            srcs = []
            for k in range(w):
                a = self._as_i32(self.lane(arg, k), b)
                kk = V.const_int(T.i32, k)
                vec = x
                if c.kind == sg.SHUFFLE:
                    idx = a
                elif c.kind == sg.SHUFFLE_XOR:
                    idx = b.binop("xor", kk, a)
                elif c.kind == sg.SHUFFLE_UP:
                    idx = b.binop("sub", kk, a)
                    if second is not None:
                        # Below lane 0: the previous packet `prev`, a sub-group size up.
                        below = b.icmp("ugt", a, kk)
                        idx = b.select(below, b.binop("add", idx, n), idx)
                        vec = b.select(below, second, x)
                else:
                    idx = b.binop("add", kk, a)
                    if second is not None:
                        past = b.icmp("uge", idx, n)
                        idx = b.select(past, b.binop("sub", idx, n), idx)
                        vec = b.select(past, second, x)
                srcs.append((vec, idx, b.icmp("ult", idx, n)))
            return self._lane_select(srcs, el, b)
        raise PacketizationError(sg.unsupported_reason(self._callee(call).name))  # type: ignore[union-attr]

    # ------------------------------------------------------------ divergent code

    def _active(self, call: I.CallInst, b: Builder) -> V.Value | None:
        """The lanes active at a non-uniform form in divergent code (its
        block's mask, within the partial packet's size with
        VectorPredication), or None where every member is active."""
        m = self._masks.get(id(call))
        if m is None:
            return None
        act = self.packet(m)
        n = self._size(b)
        if n is not None:
            steps = V.ConstantVector(T.VectorType(T.i32, self.width), [V.const_int(T.i32, k) for k in range(self.width)])
            act = b.binop("and", act, b.icmp("ult", steps, self._splat(n, b)))
        return act

    def _first(self, act: V.Value, b: Builder) -> V.Value:
        """The first active lane (i32; 0 when none is, where no lane reads it)."""
        w = self.width
        bits = b.bitcast(act, T.IntType(w))
        fn = self.module.get_or_insert_function(f"llvm.cttz.i{w}", T.FunctionType(T.IntType(w), (T.IntType(w), T.i1)))
        tz = b.call(fn, [bits, V.const_int(T.i1, 0)])
        tz32 = tz if w == 32 else b.cast("trunc" if w > 32 else "zext", tz, T.i32)
        return b.select(b.icmp("ult", tz32, V.const_int(T.i32, w)), tz32, V.const_int(T.i32, 0))

    def _fold_active(self, op: str, x: V.Value, act: V.Value, b: Builder) -> tuple[list[V.Value], list[V.Value]]:
        """Lane-order fold over the active lanes (floating point: no identity
        may enter it, -0.0 + 0.0 is 0.0): for each lane k, (the fold of the
        active lanes before k, or the identity; the fold up to and including
        k, or k's own value when it is the first). The reference folds its
        members the same way, from the first member's value."""
        el = x.type.element  # type: ignore[attr-defined]
        ident = self._identity(op, el)
        before, upto = [], []
        acc: V.Value = b.extractelement(x, 0)
        started: V.Value = b.extractelement(act, 0)
        before.append(ident)
        upto.append(acc)
        for k in range(1, self.width):
            v = b.extractelement(x, k)
            on = b.extractelement(act, k)
            before.append(b.select(started, acc, ident))
            nxt = b.select(started, self._combine(op, acc, v, b), v)
            upto.append(nxt)
            acc = b.select(on, nxt, acc)
            started = b.binop("or", started, on)
        return before, upto

    def _active_lanes(self, call: I.CallInst, c: sg.Collective, x: V.Value, act: V.Value, b: Builder) -> V.Value:
        """A non-uniform form in divergent code: the collective over the
        active lanes (members in lane order). Inactive lanes get whatever is
        convenient: no one reads them."""
        vty = x.type
        assert isinstance(vty, T.VectorType)
        el = vty.element
        w = self.width
        if c.kind in (sg.REDUCE, sg.SCAN_INCLUSIVE, sg.SCAN_EXCLUSIVE):
            assert c.op is not None
            if isinstance(el, T.IntType):
                # Identity in the inactive lanes: exact for integer operations.
                xi = b.select(act, x, V.splat(vty, self._identity(c.op, el)))  # type: ignore[arg-type]
                if c.kind == sg.REDUCE:
                    return self._splat(self._reduce(c.op, xi, b), b)
                return self._scan(c.op, xi, c.kind == sg.SCAN_INCLUSIVE, b)
            before, upto = self._fold_active(c.op, x, act, b)
            if c.kind == sg.REDUCE:
                total = upto[0]
                for k in range(1, w):
                    total = b.select(b.extractelement(act, k), upto[k], total)
                return self._splat(total, b)
            lanes = upto if c.kind == sg.SCAN_INCLUSIVE else before
            out: V.Value = V.PoisonValue(vty)
            for k, v in enumerate(lanes):
                out = b.insertelement(out, v, k)
            return out
        if c.kind in (sg.ALL, sg.ANY):
            j = "and" if c.kind == sg.ALL else "or"
            bits = b.icmp("ne", x, V.ConstantAggregateZero(vty))
            idle = V.splat(bits.type, V.const_int(T.i1, int(c.kind == sg.ALL)))  # type: ignore[arg-type]
            r = self._reduce(j, b.select(act, bits, idle), b)
            return self._splat(r if call.type == T.i1 else b.zext(r, call.type), b)
        if c.kind == sg.CLUSTERED_REDUCE:
            return self._clustered_active(call, c, x, act, b)
        first = self._first(act, b)
        if c.kind == sg.ALL_EQUAL:
            lead = self._splat(b.extractelement(x, first), b)
            eq = b.fcmp("oeq", x, lead) if isinstance(el, T.FloatType) else b.icmp("eq", x, lead)
            r = self._reduce("and", b.select(act, eq, V.splat(eq.type, V.const_int(T.i1, 1))), b)  # type: ignore[arg-type]
            return self._splat(r if call.type == T.i1 else b.zext(r, call.type), b)
        if c.kind == sg.BROADCAST:
            if not c.extra:  # sub_group_broadcast_first: the first active lane's value
                return self._splat(b.extractelement(x, first), b)
            # The lane the first active lane names, when it is active (else zero).
            idx = self._as_i32(b.extractelement(self.packet(self._args(call)[c.extra[0]]), first), b)
            inside = b.icmp("ult", idx, V.const_int(T.i32, w))
            safe = b.select(inside, idx, V.const_int(T.i32, 0))
            ok = b.select(inside, b.extractelement(act, safe), V.const_int(T.i1, 0))
            return self._splat(b.select(ok, b.extractelement(x, safe), V.ConstantAggregateZero(el)), b)
        raise PacketizationError(f"non-uniform sub-group builtin '{self._callee(call).name}' under divergent "  # type: ignore[union-attr]
                                 "control flow is not supported")

    def _clustered_active(self, call: I.CallInst, c: sg.Collective, x: V.Value, act: V.Value,
                          b: Builder) -> V.Value:
        """A clustered reduction in divergent code: each cluster of C lanes
        (a constant C; 0 or at least W: the packet) folded over its active
        lanes in lane order, from the first one's value."""
        size = self._args(call)[c.extra[0]]
        if not isinstance(size, V.ConstantInt):
            raise PacketizationError(f"clustered reduction '{self._callee(call).name}' with a cluster size "
                                     "that is not a constant is not supported")
        assert c.op is not None
        w = self.width
        csize = size.value if 0 < size.value < w else w
        out: V.Value = V.PoisonValue(x.type)
        for start in range(0, w, csize):
            acc: V.Value = b.extractelement(x, start)
            started: V.Value = b.extractelement(act, start)
            for k in range(start + 1, min(start + csize, w)):
                v = b.extractelement(x, k)
                nxt = b.select(started, self._combine(c.op, acc, v, b), v)
                on = b.extractelement(act, k)
                acc = b.select(on, nxt, acc)
                started = b.binop("or", started, on)
            for k in range(start, min(start + csize, w)):
                out = b.insertelement(out, acc, k)
        return out

    def _clustered(self, call: I.CallInst, c: sg.Collective, x: V.Value, b: Builder) -> V.Value:
        """A clustered reduction: each cluster of C lanes folded in lane order
        (C a constant; 0 or at least W: the whole packet), its result in each
        of its lanes; lanes past a partial packet's size are left out."""
        size = self._args(call)[c.extra[0]]
        if not isinstance(size, V.ConstantInt):
            raise PacketizationError(f"clustered reduction '{self._callee(call).name}' with a cluster size "
                                     "that is not a constant is not supported")
        assert c.op is not None
        w = self.width
        csize = size.value if 0 < size.value < w else w
        n = self._size(b)
        out: V.Value = V.PoisonValue(x.type)
        for start in range(0, w, csize):
            acc: V.Value = b.extractelement(x, start)
            for k in range(start + 1, min(start + csize, w)):
                nxt = self._combine(c.op, acc, b.extractelement(x, k), b)
                acc = nxt if n is None else b.select(b.icmp("ult", V.const_int(T.i32, k), n), nxt, acc)
            for k in range(start, min(start + csize, w)):
                out = b.insertelement(out, acc, k)
        return out

    def _ballot_bits(self, call: I.CallInst, c: sg.Collective, b: Builder) -> V.Value:
        """A ballot bit operation. Its uint4 is the same in every lane (a
        ballot of this packet, or a uniform value); only its low 64 bits can
        name members (W <= 64)."""
        v = self._args(call)[0]
        if isinstance(v, I.CallInst) and self._view(v) == sg.Collective("sub", sg.BALLOT, None, 0):
            if id(v) not in self._done:
                self._collective(v, sg.Collective("sub", sg.BALLOT, None, 0))
            elems = self._elements[id(v)]
            w0, w1 = b.extractelement(elems[0], 0), b.extractelement(elems[1], 0)
        elif self.uniform.is_uniform(v):
            w0, w1 = b.extractelement(v, 0), b.extractelement(v, 1)
        else:
            raise PacketizationError(f"ballot bit operation '{self._callee(call).name}' on a varying uint4 "
                                     "that is not a ballot is not supported")
        i64 = T.i64
        v64 = b.binop("or", b.zext(w0, i64), b.binop("shl", b.zext(w1, i64), V.const_int(i64, 32)))
        n = b.zext(self._bound(b), i64)
        all_in = b.icmp("uge", n, V.const_int(i64, 64))
        low = b.binop("sub", b.binop("shl", V.const_int(i64, 1), b.select(all_in, V.const_int(i64, 0), n)),
                      V.const_int(i64, 1))
        vm = b.binop("and", v64, b.select(all_in, V.const_int(i64, -1), low))
        w = self.width
        vty64 = T.VectorType(i64, w)
        ret = call.type
        op = c.op

        def intrinsic(name: str, ty: T.Type, extra: tuple[T.Type, ...] = ()) -> V.Function:
            return self.module.get_or_insert_function(f"llvm.{name}.{_suffix(ty)}", T.FunctionType(ty, (ty, *extra)))

        def to_ret(x: V.Value) -> V.Value:
            return b.cast("trunc", x, ret if not isinstance(x.type, T.VectorType) else T.VectorType(ret, w))

        steps = V.ConstantVector(vty64, [V.const_int(i64, k) for k in range(w)])
        if op == "ballot_bit_count":
            return self._splat(to_ret(b.call(intrinsic("ctpop", i64), [vm])), b)
        if op in ("ballot_inclusive_scan", "ballot_exclusive_scan"):
            upto = [k + 1 if op == "ballot_inclusive_scan" else k for k in range(w)]
            masks = V.ConstantVector(vty64, [V.const_int(i64, -1 if u >= 64 else (1 << u) - 1) for u in upto])
            counted = b.call(intrinsic("ctpop", vty64), [b.binop("and", self._splat(vm, b), masks)])
            return to_ret(counted)
        if op in ("ballot_find_lsb", "ballot_find_msb"):
            if op == "ballot_find_lsb":
                pos = b.call(intrinsic("cttz", i64, (T.i1,)), [vm, V.const_int(T.i1, 0)])
            else:
                lz = b.call(intrinsic("ctlz", i64, (T.i1,)), [vm, V.const_int(T.i1, 0)])
                pos = b.binop("sub", V.const_int(i64, 63), lz)
            none = b.icmp("eq", vm, V.const_int(i64, 0))
            return self._splat(to_ret(b.select(none, V.const_int(i64, 0xFFFFFFFF), pos)), b)
        # The lane's own bit, or the bit an index names: members' bits only.
        if op == "inverse_ballot":
            idx: V.Value = steps
        else:
            idx = b.zext(self.packet(self._args(call)[c.extra[0]]), vty64)
        nv = self._splat(n, b)
        ok = b.icmp("ult", idx, nv)
        shifted = b.binop("lshr", self._splat(v64, b), b.select(ok, idx, V.ConstantAggregateZero(vty64)))
        bit = b.select(ok, b.binop("and", shifted, V.const_int(vty64, 1)), V.ConstantAggregateZero(vty64))
        return to_ret(bit)

    def _work_group(self, call: I.CallInst, c: sg.Collective, b: Builder) -> V.Value:
        """Combine the packet, take the group-wide step through the scalar builtin."""
        fn = self._callee(call)
        assert c.value is not None
        x = self.packet(self._args(call)[c.value])
        args = list(self._args(call))
        if c.kind == sg.BROADCAST:
            # The packet passes the value of the lane the local ids name (when
            # it is one of its own; the runtime takes the value from the
            # member holding that work-item).
            dim = self.uniform.dim
            target = self._as_i32(args[c.extra[dim]], b) if dim < len(c.extra) else V.const_int(T.i32, 0)
            lid_fn = self.module.get_or_insert_function(
                local_id_name(self.module, fn.name), T.FunctionType(T.i64, (T.i32,)))
            base = self._as_i32(b.call(lid_fn, [V.const_int(T.i32, dim)]), b)
            lane = b.binop("sub", target, base)
            ok = b.icmp("ult", lane, V.const_int(T.i32, self.width))
            args[c.value] = b.extractelement(x, b.select(ok, lane, V.const_int(T.i32, 0)))
            return self._splat(b.call(fn, args), b)
        if c.kind in (sg.ALL, sg.ANY):
            vty = x.type
            j = "and" if c.kind == sg.ALL else "or"
            bits = self._mask_inactive(j, b.icmp("ne", x, V.ConstantAggregateZero(vty)), b)
            r = self._reduce(j, bits, b)
            arg_ty = fn.function_type.params[c.value]
            args[c.value] = r if arg_ty == T.i1 else b.zext(r, arg_ty)
            res = b.call(fn, args)
            return self._splat(res, b) if not isinstance(call.type, T.VoidType) else res
        assert c.op is not None
        x = self._int_masked(c.op, x, b)
        vty = x.type
        assert isinstance(vty, T.VectorType)
        if self.uniform.dim != 0 and (c.kind != sg.REDUCE or isinstance(vty.element, T.FloatType)):
            return self._linear(call, c, x, b)
        if c.kind == sg.REDUCE:
            args[c.value] = self._reduce(c.op, x, b)
            res = b.call(fn, args)
            return self._splat(res, b) if not isinstance(call.type, T.VoidType) else res
        # Scans: the packet's own scan, offset by the group's exclusive scan of packet totals.
        incl = self._scan(c.op, x, True, b)
        # The packet's total: the scan's last lane for integers (a partial
        # packet's idle lanes hold the identity), the lane-order fold for
        # floats (which leaves idle lanes out; the scan's last lane does not).
        if isinstance(vty.element, T.IntType):
            total = b.extractelement(incl, self.width - 1)
        else:
            total = self._reduce(c.op, x, b)
        excl_fn = self._exclusive_variant(fn, c)
        args[c.value] = total
        base = b.call(excl_fn, args)
        local = incl if c.kind == sg.SCAN_INCLUSIVE else self._scan(c.op, x, False, b)
        return self._combine(c.op, self._splat(base, b), local, b)

    def _linear(self, call: I.CallInst, c: sg.Collective, x: V.Value, b: Builder) -> V.Value:
        """A work-group scan, or float reduction, along dimension 1 or 2, where
        a packet's lanes are not consecutive in the group's linear order: the
        packet passes all its lanes to the runtime's group step, the lanes
        form `__mux_work_group_<kind>_<op>_v<W><type>(i32 0, <W x type>)`,
        which folds every work-item's value in linear order as the reference
        does and gives each lane its result (a scan) or the total (a
        reduction, one scalar)."""
        vty = x.type
        assert isinstance(vty, T.VectorType) and c.op is not None
        el = vty.element
        name = self._callee(call).name
        if isinstance(el, T.IntType):
            bits, tname = el.bits, f"i{el.bits}"
        else:
            assert isinstance(el, T.FloatType)
            bits = el.bits if el.kind in ("half", "float", "double") else 0
            tname = f"f{bits}"
        if bits < 8 or bits * self.width > 8 * 64:
            raise PacketizationError(
                f"work-group collective '{name}' along dimension {self.uniform.dim} is not supported for {el} at "
                f"width {self.width}: the runtime's group step takes at most 64 bytes of lanes per packet")
        ret = el if c.kind == sg.REDUCE else vty
        fn = self.module.get_or_insert_function(
            f"__mux_work_group_{c.kind}_{c.op}_v{self.width}{tname}", T.FunctionType(ret, (T.i32, vty)))
        res = b.call(fn, [V.const_int(T.i32, 0), x])
        return self._splat(res, b) if c.kind == sg.REDUCE else res

    def _exclusive_variant(self, fn: V.Function, c: sg.Collective) -> V.Function:
        """The exclusive-scan builtin of the same operation and type as `fn`."""
        name = fn.name
        if c.kind == sg.SCAN_EXCLUSIVE:
            return fn
        if c.mux:
            new = name.replace("_scan_inclusive_", "_scan_exclusive_")
        else:
            # `_Z<len>work_group_scan_inclusive_<op><types>`: same length.
            new = name.replace("work_group_scan_inclusive_", "work_group_scan_exclusive_")
        return self.module.get_or_insert_function(new, fn.function_type)
