"""The packetizer: turns the varying instructions of a kernel clone into
instructions that compute all W lanes at once.

The clone starts as a copy of the scalar kernel, and inside the vectorized
kernel the work-item queries return lane 0's ids, so every original
instruction already computes lane 0's value. The packetizer never rewrites
an original in place; it adds, on demand:
- a *packet* of a value (`<W x T>`, lane l in element l): a widened
  instruction, a broadcast of a uniform value, `v0 + <0, s, 2s, ...>` for a
  linear value, or the lanes gathered with `insertelement`;
- the value of a given *lane* (lane 0 is the original): `v0 + l*s` for a
  linear value, an `extractelement` of a packet, or a per-lane copy of the
  instruction (instantiation).
Work starts at the leaves (stores, calls, atomics: what lets a value escape)
and pulls in operands as needed (seed, "Packetization"); phis are created
empty and filled once every leaf is done. Afterwards the leaves that were
replaced are erased; the originals nobody uses any more are left for LLVM's
dead-code elimination.

Memory operations follow the stride analysis: a contiguous access becomes
one vector load/store at lane 0's address, an access with any other stride
or none becomes a gather/scatter (LLVM's masked intrinsics, all lanes on),
a store of varying values to a uniform address keeps the last lane's value
(what sequential work-items leave behind). Lane reductions (`all`/`any`) of
bounds checks on a linear index are answered from its extreme lanes
(`linear_lane_reduction.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..analysis.data_layout import DataLayout
from ..analysis.instantiation import InstantiationAnalysis
from ..analysis.stride import Pattern, Stride, StrideAnalysis
from ..analysis.uniformity import UniformValueAnalysis, is_varying_root, runtime_dimension
from ..builtins import BuiltinKind, classify
from ..builtins.masked import MaskedBuiltinError, MaskedCall, classify_masked_call, type_suffix
from ..builtins.math import appended_operands, widen_intrinsic_name
from ..builtins.work_item import VARYING_ANY_DIM
from ..ir import instructions as I
from ..ir import types as T
from ..ir import values as V
from ..ir.builder import Builder, builder_after
from ..ir.module import BasicBlock, Function  # bound once: `V.BasicBlock` is an import per use
from .linear_lane_reduction import LinearLaneReduction

# Leaves are stores, masked calls and what runs once per lane: memory and calls.
_MAY_BE_LEAF = I.MEMORY_OR_CALL

# Integer divisions (`Packetizer._splits_division`).
INTEGER_DIVISIONS = ("sdiv", "udiv", "srem", "urem")


class PacketizationError(Exception):
    """The packetizer met something it cannot vectorize; the message is the remark."""


def is_packetizable_type(ty: T.Type) -> bool:
    """Can `ty` be the element type of a packet?"""
    return isinstance(ty, (T.IntType, T.FloatType, T.PointerType))


@dataclass
class PacketizerStats:
    packetized: int = 0
    instantiated: int = 0
    broadcasts: int = 0
    contiguous: int = 0
    interleaved: int = 0
    gather_scatter: int = 0
    uniform_memory: int = 0
    vector_calls: int = 0

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


@dataclass
class Packetizer:
    """Packetize one function (the kernel clone) at `width` lanes."""

    function: V.Function
    module: V.Module
    width: int
    uniform: UniformValueAnalysis
    stride: StrideAnalysis
    layout: DataLayout
    instantiation: InstantiationAnalysis
    packetize_uniform: bool = False
    packetize_uniform_in_loops: bool = False
    loop_blocks: set[int] = field(default_factory=set)
    stats: PacketizerStats = field(default_factory=PacketizerStats)
    remarks: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._packets: dict[int, V.Value] = {}
        self._lanes: dict[tuple[int, int], V.Value] = {}
        self._pending_phis: list[tuple[I.PhiNode, I.PhiNode | None, int | None]] = []
        self._replaced: list[I.Instruction] = []
        self._widened_allocas: set[int] = set()
        self._step_cache: dict[tuple[str, int], V.Value] = {}
        self._dim_tests: dict[int, I.Instruction] = {}
        self._vector_types: dict[T.Type, T.VectorType] = {}
        self._declared: dict[str, V.Function] = {}
        self._linear_reduction = LinearLaneReduction(self.uniform, self.stride, self.width, self.lane)

    # ------------------------------------------------------------------ driver

    def run(self) -> None:
        """Packetize every leaf, fill phis, erase what was replaced."""
        self._widen_varying_allocas()
        leaves = [
            inst
            for inst in [i for i in self.function.instructions() if isinstance(i, _MAY_BE_LEAF)]
            if self._is_leaf(inst)
        ]
        for leaf in leaves:
            self._leaf(leaf)
        while self._pending_phis:
            phi, target, lane = self._pending_phis.pop()
            self._fill_phi(phi, target, lane)
        for inst in self._replaced:
            if inst.parent is not None:
                if inst.uses:
                    inst.replace_all_uses_with(V.PoisonValue(inst.type))
                inst.erase_from_parent()

    def _is_leaf(self, inst: I.Instruction) -> bool:
        masked = classify_masked_call(inst)
        if masked is not None and masked.kind != "wrapper":
            u = self.uniform
            if masked.kind in ("any", "all"):
                return u.is_varying(masked.mask)
            if masked.kind == "store":
                assert masked.pointer is not None and masked.value is not None
                return u.is_varying(masked.pointer) or u.is_varying(masked.value) or u.is_varying(masked.mask)
            # A uniform masked load must load for every active lane, not lane 0's mask.
            return u.is_uniform(inst) and u.is_varying(masked.mask)
        if self.instantiation.per_lane(inst):
            return True
        if isinstance(inst, I.StoreInst):
            return self.uniform.is_varying(inst)
        if isinstance(inst, I.CallInst) and self.instantiation.is_hint(inst):
            return self.uniform.is_varying(inst)
        return False

    def _leaf(self, inst: I.Instruction) -> None:
        masked = classify_masked_call(inst)
        if masked is not None and masked.kind != "wrapper":
            self._masked_leaf(masked)
            return
        if isinstance(inst, I.StoreInst) and self.instantiation.can_packetize(inst):
            self._store(inst)
            return
        if isinstance(inst, I.CallInst) and self.instantiation.is_hint(inst):
            self._replaced.append(inst)  # lifetime/assume hints on varying values: drop
            return
        # Everything else runs once per lane, in lane order, right where it was.
        self._instantiate_all(inst)

    # ------------------------------------------------------------ placement

    def _builder_after(self, value: V.Value) -> Builder:
        """A builder inserting right after `value`'s definition (after the phis for a phi)."""
        return builder_after(value, self.function)

    # --------------------------------------------------------------- packets

    def vector_type(self, ty: T.Type) -> T.VectorType:
        # Asked for every packet and broadcast; a frozen dataclass is slow
        # to build, and equal types make equal (interchangeable) vectors.
        try:
            return self._vector_types[ty]
        except KeyError:
            pass
        if not is_packetizable_type(ty):
            raise PacketizationError(f"cannot form a packet of {ty}")
        vty = self._vector_types[ty] = T.VectorType(ty, self.width)
        return vty

    def _declare(self, name: str, fty: T.FunctionType) -> V.Function:
        """`module.get_or_insert_function`, remembered per name: the module
        looks a name up through every function it has, and the packetizer
        asks for the same few intrinsics again and again."""
        try:
            return self._declared[name]
        except KeyError:
            fn = self._declared[name] = self.module.get_or_insert_function(name, fty)
            return fn

    def packet(self, value: V.Value) -> V.Value:
        """The packet (`<W x T>`) of a scalar value."""
        key = id(value)
        if key in self._packets:
            return self._packets[key]
        result = self._make_packet(value)
        self._packets[key] = result
        return result

    def _make_packet(self, value: V.Value) -> V.Value:
        vty = self.vector_type(value.type)
        if isinstance(value, V.Constant):
            return V.splat(vty, value)
        if self.uniform.is_uniform(value) and self._widen_uniform(value):
            self.stats.packetized += 1
            return self._widen(value)
        if self.uniform.is_uniform(value):
            self.stats.broadcasts += 1
            return self._broadcast(value, self._builder_after(value))
        info = self.stride.info(value)
        if info.is_linear and info.stride.is_constant:
            return self._linear_packet(value, info.stride.const)
        if isinstance(value, I.Instruction) and self.instantiation.can_packetize(value):
            self.stats.packetized += 1
            return self._widen(value)
        return self._gather_lanes(value)

    def _widen_uniform(self, value: V.Value) -> bool:
        """PacketizeUniform(InLoops): widen uniform arithmetic instead of broadcasting it."""
        if not isinstance(value, I.Instruction) or isinstance(value, (I.LoadInst, I.PhiNode, I.CallInst)):
            return False
        if not self.instantiation.can_packetize(value):
            return False
        if self.packetize_uniform:
            return True
        return self.packetize_uniform_in_loops and id(value.parent) in self.loop_blocks

    def _broadcast(self, value: V.Value, b: Builder) -> V.Value:
        vty = self.vector_type(value.type)
        ins = b.insertelement(V.PoisonValue(vty), value, V.const_int(T.i32, 0))
        return b.shufflevector(ins, V.PoisonValue(vty), [0] * self.width)

    def _step_vector(self, ty: T.Type, step: int) -> V.Constant:
        """The constant `<0, step, 2*step, ...>` of element type `ty`."""
        if isinstance(ty, T.IntType):
            elems = [V.const_int(ty, step * lane) for lane in range(self.width)]
        else:
            raise PacketizationError(f"no step vector of {ty}")
        return V.ConstantVector(T.VectorType(ty, self.width), elems)

    def _linear_packet(self, value: V.Value, stride: int) -> V.Value:
        b = self._builder_after(value)
        base = self._broadcast(value, b)
        if isinstance(value.type, T.PointerType):
            offsets = self._step_vector(T.i64, stride)
            return b.gep(T.i8, base, [offsets])
        return b.add(base, self._step_vector(value.type, stride))

    def _gather_lanes(self, value: V.Value) -> V.Value:
        lanes = [self.lane(value, lane) for lane in range(self.width)]
        last = lanes[-1]
        b = self._builder_after(last if isinstance(last, I.Instruction) else value)
        acc: V.Value = V.PoisonValue(self.vector_type(value.type))
        for lane, v in enumerate(lanes):
            acc = b.insertelement(acc, v, V.const_int(T.i32, lane))
        return acc

    def _widen(self, inst: I.Instruction) -> V.Value:
        """The vector form of a packetizable instruction, inserted right after it."""
        b = Builder()
        if isinstance(inst, I.PhiNode):
            phi = _new_phi(inst.parent, self.vector_type(inst.type), _name(inst))
            self._pending_phis.append((inst, phi, None))
            return phi
        b.position_after(inst)
        name = _name(inst)
        if isinstance(inst, I.BinaryOperator):
            if self._splits_division(inst):
                return self._divide_by_lane(inst, b, name)
            return b.binop(inst.opcode, self.packet(inst.lhs), self.packet(inst.rhs), flags=inst.flags, name=name)
        if isinstance(inst, I.UnaryOperator):
            return b.fneg(self.packet(inst.operand), flags=inst.flags, name=name)
        if isinstance(inst, I.ICmpInst):
            return b.icmp(inst.predicate, self.packet(inst.lhs), self.packet(inst.rhs), name=name)
        if isinstance(inst, I.FCmpInst):
            return b.fcmp(inst.predicate, self.packet(inst.lhs), self.packet(inst.rhs), flags=inst.flags, name=name)
        if isinstance(inst, I.SelectInst):
            cond = inst.condition
            c = cond if self.uniform.is_uniform(cond) else self.packet(cond)
            return b.select(c, self.packet(inst.true_value), self.packet(inst.false_value), flags=inst.flags, name=name)
        if isinstance(inst, I.CastInst):
            return b.cast(inst.opcode, self.packet(inst.value), self.vector_type(inst.type), flags=inst.flags, name=name)
        if isinstance(inst, I.FreezeInst):
            return b.freeze(self.packet(inst.value), name=name)
        if isinstance(inst, I.GetElementPtrInst):
            return self._widen_gep(inst, b)
        if isinstance(inst, I.LoadInst):
            return self._load(inst)
        if isinstance(inst, I.CallInst):
            return self._call(inst, b)
        raise PacketizationError(f"cannot packetize {inst.opcode}")

    def _splits_division(self, inst: I.BinaryOperator) -> bool:
        """Is `inst` an integer division whose packet `_divide_by_lane` builds:
        every one whose divisor is not a constant?

        The backend has no vector integer division on x86 and splits a
        vector one into scalar divisions, so splitting it here costs the
        machine code nothing. LLVM 22's x86 instruction selection gets that
        split wrong when an operand is a broadcast of one element of a
        loaded vector and a call comes between the load and the division:
        it builds a chain node that depends on itself, and codegen at -O0
        aborts ("Node is not in map!"). The broadcast need not be ours: LLVM
        finds one through a select (Vector Predication's guarded divisor,
        `select(mask, broadcast, 1)`) or makes one in its cleanup, so no
        operand shape is safe to leave as a vector division. A constant
        divisor keeps it (the backend turns it into multiplies and shifts,
        no split)."""
        return inst.opcode in INTEGER_DIVISIONS and not isinstance(inst.rhs, V.Constant)

    def _divide_by_lane(self, inst: I.BinaryOperator, b: Builder, name: str | None) -> V.Value:
        """The packet of an integer division built from one scalar division
        per lane (see `_splits_division`): what the backend would emit, with
        each uniform operand entering as the scalar it is."""
        u = self.uniform
        if u.is_uniform(inst.lhs) and u.is_uniform(inst.rhs):
            return self._broadcast(inst, b)  # PacketizeUniform: one division serves every lane
        acc: V.Value = V.PoisonValue(self.vector_type(inst.type))
        for lane in range(self.width):
            ops = [op if isinstance(op, V.Constant) or u.is_uniform(op) else b.extractelement(self.packet(op), lane)
                   for op in (inst.lhs, inst.rhs)]
            q = b.binop(inst.opcode, ops[0], ops[1], flags=inst.flags, name=_name(inst, lane))
            acc = b.insertelement(acc, q, lane, name=name if lane == self.width - 1 else None)
        return acc

    def _widen_gep(self, inst: I.GetElementPtrInst, b: Builder) -> V.Value:
        ptr = inst.pointer
        base = ptr if self.uniform.is_uniform(ptr) else self.packet(ptr)
        indices: list[V.Value] = []
        any_vector = not self.uniform.is_uniform(ptr)
        for idx in inst.indices:
            if self.uniform.is_uniform(idx):
                indices.append(idx)
            else:
                indices.append(self.packet(idx))
                any_vector = True
        if not any_vector:
            base = self.packet(ptr)
        # GEP flags promise per-lane facts that still hold lane by lane.
        return b.gep(inst.source_element_type, base, indices, flags=inst.flags, name=_name(inst))

    # ------------------------------------------------------------------ lanes

    def lane(self, value: V.Value, lane: int) -> V.Value:
        """The scalar value of `value` in `lane` (lane 0 is the original)."""
        if lane == 0 or self.uniform.is_uniform(value) or isinstance(value, V.Constant):
            return value
        key = (id(value), lane)
        if key in self._lanes:
            return self._lanes[key]
        result = self._make_lane(value, lane)
        self._lanes[key] = result
        return result

    def _root_step(self, inst: I.CallInst) -> int:
        """The lane step of a work-item id query of the vectorized dimension:
        consecutive lanes are consecutive work-items along `dim`, which step
        linear ids by 1 only along dimension 0."""
        fn = inst.called_function
        q = classify(fn.name if fn is not None else None).query
        if q is not None and q.kind in VARYING_ANY_DIM and self.uniform.dim != 0:
            raise PacketizationError(
                f"{fn.name if fn else 'a linear-id query'} along dimension {self.uniform.dim} is not supported yet"
            )
        return 1

    def _dim_test(self, query: I.CallInst, dim_value: V.Value, b: Builder) -> I.Instruction:
        """`dim_value == dim`: does an id query with a run-time dimension step across lanes?"""
        return b.icmp("eq", dim_value, V.const_int(dim_value.type, self.uniform.dim), name=f"{query.name}.isdim" if query.name else None)

    def _uniform_dim_test(self, query: I.CallInst, dim_value: V.Value) -> I.Instruction:
        """The one `dim_value == dim` test of a query whose dimension is the same in every lane, right after it."""
        key = id(query)
        if key not in self._dim_tests:
            self._dim_tests[key] = self._dim_test(query, dim_value, self._builder_after(query))
        return self._dim_tests[key]

    def _runtime_dim_packet(self, query: I.CallInst, dim_value: V.Value) -> V.Value:
        """`select(d == dim, q + <0, 1, ...>, q)` broadcast: the lanes of an id
        query whose dimension `d` is a kernel-uniform run-time value. Along
        another dimension (or one out of range) every lane of the packet is
        the same work-item there, so all lanes see lane 0's answer."""
        if not self.uniform.is_uniform(dim_value):
            return self._gather_lanes(query)
        test = self._uniform_dim_test(query, dim_value)
        b = self._builder_after(test)
        base = self._broadcast(query, b)
        stepped = b.add(base, self._step_vector(query.type, 1))
        return b.select(test, stepped, base, name=_name(query))

    def _runtime_dim_lane(self, query: I.CallInst, dim_value: V.Value, lane: int) -> V.Value:
        """Lane `lane` of an id query with a run-time dimension: `q + lane`
        where the lane's dimension is `dim`, else `q` (lane 0's answer, which
        is every lane's along another dimension)."""
        if self.uniform.is_uniform(dim_value):
            q: I.Instruction = query
            test = self._uniform_dim_test(query, dim_value)
            b = self._builder_after(test)
        else:
            # The lane's own dimension: re-run the query with it (it answers
            # for lane 0's work-item), then step if that dimension is ours.
            q = self._instantiate(query, lane)
            b = self._builder_after(q)
            test = self._dim_test(query, q.args[0], b)  # type: ignore[attr-defined]
        stepped = b.add(q, V.const_int(query.type, lane))
        return b.select(test, stepped, q, name=_name(query, lane))

    def _make_lane(self, value: V.Value, lane: int) -> V.Value:
        if is_varying_root(value, self.uniform.dim) and isinstance(value.type, T.IntType):
            assert isinstance(value, I.CallInst)
            dim_value = runtime_dimension(value)
            if dim_value is not None:
                return self._runtime_dim_lane(value, dim_value, lane)
            # Never re-run the query: inside the vectorized kernel it answers
            # for lane 0. Lane l is work-item b+l.
            step = self._root_step(value)
            return self._builder_after(value).add(value, V.const_int(value.type, step * lane))
        info = self.stride.info(value)
        if info.is_linear and info.stride.is_constant and isinstance(value.type, (T.IntType, T.PointerType)):
            b = self._builder_after(value)
            off = info.stride.const * lane
            if isinstance(value.type, T.PointerType):
                return b.gep(T.i8, value, [V.const_int(T.i64, off)])
            return b.add(value, V.const_int(value.type, off))
        if id(value) in self._packets and is_packetizable_type(value.type):
            vec = self._packets[id(value)]
            b = self._builder_after(vec if isinstance(vec, I.Instruction) else value)
            return b.extractelement(vec, V.const_int(T.i32, lane))
        if isinstance(value, I.Instruction):
            return self._instantiate(value, lane)
        raise PacketizationError(f"no lane {lane} of {value}")

    def _instantiate(self, inst: I.Instruction, lane: int) -> V.Value:
        """A copy of `inst` computing `lane`, placed after the previous lane's copy."""
        self.stats.instantiated += 1
        if isinstance(inst, I.PhiNode):
            phi = _new_phi(inst.parent, inst.type, _name(inst, lane))
            self._pending_phis.append((inst, phi, lane))
            return phi
        # Uniform operands are every lane's: `clone` links them. A varying
        # one's slot is left empty and filled with its lane, instead of
        # recording a use of the original only to move it.
        is_varying = self.uniform.is_varying
        clone = inst.clone(is_varying)
        for i, op in enumerate(inst.operands):
            if isinstance(op, BasicBlock) or isinstance(op, Function):
                continue
            if is_varying(op):
                clone.link_operand(i, self.lane(op, lane))
        prev = self._lanes.get((id(inst), lane - 1), inst) if lane > 0 else inst
        anchor = prev if isinstance(prev, I.Instruction) and prev.parent is not None else inst
        if not isinstance(anchor, I.Instruction) or anchor.parent is None:
            anchor = inst
        clone.name = _name(inst, lane)
        clone.insert_after(anchor)
        return clone

    def _instantiate_all(self, inst: I.Instruction) -> None:
        """Run a side-effecting instruction once per lane, in lane order."""
        for lane in range(1, self.width):
            self._lanes[(id(inst), lane)] = self._instantiate(inst, lane)

    def _fill_phi(self, phi: I.PhiNode, target: I.PhiNode, lane: int | None) -> None:
        for value, block in phi.incoming:
            if lane is None:
                v = self.packet(value)
            else:
                v = self.lane(value, lane)
            target.add_incoming(v, block)

    # ----------------------------------------------------------------- memory

    def _widen_varying_allocas(self) -> None:
        """Give each lane its own copy of every varying private variable.

        The alloca becomes an array of W copies `lane_bytes` apart; the original
        pointer is lane 0's copy, which is what the stride analysis expects.
        """
        for inst in list(self.function.instructions()):
            if isinstance(inst, I.AllocaInst) and self.uniform.is_varying(inst):
                if id(inst) in self.stride.interleaved:
                    continue  # already one element per lane, side by side
                lane_bytes = self.stride.alloca_lane_bytes(inst)
                total = T.ArrayType(T.i8, lane_bytes * self.width)
                align = inst.align or self.layout.abi_align(inst.allocated_type)
                inst.allocated_type = total
                if inst.count is not None:
                    inst.set_operand(0, V.const_int(inst.count.type, 1))
                inst.align = align
                self._widened_allocas.add(id(inst))

    def _alignment(self, align: int | None, ty: T.Type, stride: int | None) -> int:
        """The alignment to claim for a vector or per-lane access whose lanes
        are `stride` bytes apart (None: contiguous, the element's size).

        The scalar access promised `align` on every lane's address; lanes a
        stride apart cannot all have more than the stride's alignment, so a
        bigger promise was already broken by the input. Claiming no more than
        the lanes can have costs nothing and keeps such input from faulting.
        """
        a = align or self.layout.abi_align(ty)
        if stride is None:
            stride = self.layout.alloc_size(ty)
        if stride != 0:
            a = min(a, stride & -stride)
        return max(1, a)

    def _access_plan(self, ptr: V.Value, elem: T.Type) -> tuple[str, int | None]:
        """How to access memory through `ptr`: uniform, contiguous, reverse, strided, gather."""
        info = self.stride.info(ptr)
        size = self.layout.store_size(elem)
        if info.pattern is Pattern.UNIFORM or (info.is_linear and info.stride.const == 0 and not info.stride.factors):
            return "uniform", 0
        if info.is_linear and info.stride.is_constant:
            s = info.stride.const
            if s == size and self.layout.alloc_size(elem) == size:
                return "contiguous", s
            if s == -size and self.layout.alloc_size(elem) == size:
                return "reverse", s
            return "strided", s
        if info.is_linear:
            return "symbolic", None
        return "gather", None

    def _pointers(self, ptr: V.Value, plan: str, stride: int | None, b: Builder) -> V.Value:
        """The vector of per-lane pointers for a gather/scatter."""
        if plan == "symbolic":
            info = self.stride.info(ptr)
            step = self._manifest(info.stride, b)
            lanes = b.mul(self._broadcast(step, b), self._step_vector(T.i64, 1))
            return b.gep(T.i8, self._broadcast(ptr, b), [lanes])
        return self.packet(ptr)

    def _manifest(self, stride: Stride, b: Builder) -> V.Value:
        """Build the i64 value of a symbolic stride (its factors are sign-extended)."""
        i64 = T.i64
        acc: V.Value = V.const_int(i64, stride.const)
        for f in stride.factors:
            fv = f
            if isinstance(f.type, T.IntType) and f.type.bits < 64:
                fv = b.sext(f, i64)
            elif isinstance(f.type, T.IntType) and f.type.bits > 64:
                fv = b.trunc(f, i64)
            acc = b.mul(acc, fv)
        return acc

    def _load(self, inst: I.LoadInst) -> V.Value:
        elem = inst.type
        plan, stride = self._access_plan(inst.pointer, elem)
        vty = self.vector_type(elem)
        b = Builder()
        b.position_after(inst)
        name = _name(inst)
        if plan == "uniform":
            self.stats.uniform_memory += 1
            return self._broadcast(inst, b)
        if plan == "contiguous":
            self.stats.contiguous += 1
            return b.load(vty, inst.pointer, align=self._alignment(inst.align, elem, None), name=name)
        if plan == "reverse":
            self.stats.contiguous += 1
            start = self._last_lane_address(elem, inst.pointer, b)
            loaded = b.load(vty, start, align=self._alignment(inst.align, elem, None))
            return b.shufflevector(loaded, V.PoisonValue(vty), list(range(self.width - 1, -1, -1)), name=name)
        if plan in ("strided", "symbolic"):
            self.stats.interleaved += 1
        else:
            self.stats.gather_scatter += 1
        ptrs = self._pointers(inst.pointer, plan, stride, b)
        align = self._alignment(inst.align, elem, stride if plan == "strided" else None)
        return self._gather(b, vty, ptrs, align, name)

    def _all_true(self) -> V.Value:
        return V.splat(self.vector_type(T.i1), V.const_int(T.i1, 1))

    def _gather(
        self, b: Builder, vty: T.VectorType, ptrs: V.Value, align: int, name: str | None,
        mask: V.Value | None = None,
    ) -> V.Value:
        pty = ptrs.type
        assert isinstance(pty, T.VectorType)
        fname = f"llvm.masked.gather.{_suffix(vty)}.{_suffix(pty)}"
        fty = T.FunctionType(vty, (pty, self.vector_type(T.i1), vty))
        fn = self._declare(fname, fty)
        call = b.call(fn, [ptrs, mask or self._all_true(), V.PoisonValue(vty)], name=name)
        call.arg_attributes[0] = f"align {align}"
        return call

    def _scatter(self, b: Builder, value: V.Value, ptrs: V.Value, align: int, mask: V.Value | None = None) -> None:
        vty, pty = value.type, ptrs.type
        fname = f"llvm.masked.scatter.{_suffix(vty)}.{_suffix(pty)}"
        fty = T.FunctionType(T.VoidType(), (vty, pty, self.vector_type(T.i1)))
        fn = self._declare(fname, fty)
        call = b.call(fn, [value, ptrs, mask or self._all_true()])
        call.arg_attributes[1] = f"align {align}"

    def _store(self, inst: I.StoreInst) -> None:
        elem = inst.value.type
        plan, stride = self._access_plan(inst.pointer, elem)
        b = Builder()
        b.position_before(inst)
        vty = self.vector_type(elem)
        if plan == "uniform":
            if self.uniform.is_uniform(inst.value):
                return  # the same value to the same place: once is enough
            self.stats.uniform_memory += 1
            # Sequential work-items leave the last lane's value behind.
            last = self.lane(inst.value, self.width - 1)
            b.position_before(inst)
            b.store(last, inst.pointer, align=inst.align)
        elif plan == "contiguous":
            self.stats.contiguous += 1
            b.store(self.packet(inst.value), inst.pointer, align=self._alignment(inst.align, elem, None))
        elif plan == "reverse":
            self.stats.contiguous += 1
            val = self.packet(inst.value)
            b.position_before(inst)
            rev = b.shufflevector(val, V.PoisonValue(vty), list(range(self.width - 1, -1, -1)))
            start = self._last_lane_address(elem, inst.pointer, b)
            b.store(rev, start, align=self._alignment(inst.align, elem, None))
        else:
            if plan in ("strided", "symbolic"):
                self.stats.interleaved += 1
            else:
                self.stats.gather_scatter += 1
            val = self.packet(inst.value)
            b.position_before(inst)
            ptrs = self._pointers(inst.pointer, plan, stride, b)
            align = self._alignment(inst.align, elem, stride if plan == "strided" else None)
            self._scatter(b, val, ptrs, align)
        self._replaced.append(inst)

    # ---------------------------------------------------------- masked memory

    def _any_lane(self, mask: V.Value, b: Builder) -> V.Value:
        """`i1`: is `mask` true in some lane?"""
        return self._reduce("or", self.packet(mask), b)

    def _reduce(self, op: str, packet: V.Value, b: Builder) -> V.Value:
        vty = packet.type
        assert isinstance(vty, T.VectorType)
        fn = self._declare(
            f"llvm.vector.reduce.{op}.{_suffix(vty)}", T.FunctionType(vty.element, (vty,))
        )
        return b.call(fn, [packet])

    def _reverse(self, value: V.Value, b: Builder) -> V.Value:
        return b.shufflevector(value, V.PoisonValue(value.type), list(range(self.width - 1, -1, -1)))

    def _last_lane_address(self, elem: T.Type, ptr: V.Value, b: Builder) -> V.Value:
        """Where a reversed access starts: the address of the last lane."""
        return b.gep(elem, ptr, [V.const_int(T.i64, -(self.width - 1))])

    def _masked_leaf(self, m: MaskedCall) -> None:
        """Lane reductions, masked stores, and the mask of uniform masked loads."""
        inst = m.call
        b = Builder()
        b.position_before(inst)
        if m.kind in ("any", "all"):
            # Bounds checks on a linear index need only its extreme lanes.
            reduced = self._linear_reduction.reduce(m.kind, m.mask, b)
            if reduced is None:
                reduced = self._reduce("or" if m.kind == "any" else "and", self.packet(m.mask), b)
            inst.replace_all_uses_with(reduced)
            self._replaced.append(inst)
            return
        if m.kind == "load":
            inst.set_arg(1, self._any_lane(m.mask, b))
            return
        assert m.kind == "store" and m.pointer is not None and m.value is not None and m.elem_type is not None
        elem = m.elem_type
        plan, stride = self._access_plan(m.pointer, elem)
        if plan == "uniform" and self.uniform.is_uniform(m.value):
            if self.uniform.is_varying(m.mask):
                inst.set_arg(2, self._any_lane(m.mask, b))  # the same value, once, if any lane stores
            return
        if plan == "uniform" or not is_packetizable_type(elem):
            # Lane by lane in lane order: the last active lane's value is left.
            self._instantiate_all(inst)
            return
        vty = self.vector_type(elem)
        value, mask = self.packet(m.value), self.packet(m.mask)
        b.position_before(inst)
        align = self._alignment(m.align, elem, stride if plan == "strided" else None)
        if plan in ("contiguous", "reverse"):
            self.stats.contiguous += 1
            ptr = m.pointer
            if plan == "reverse":
                value, mask = self._reverse(value, b), self._reverse(mask, b)
                ptr = self._last_lane_address(elem, ptr, b)
            pty = ptr.type
            fn = self._declare(
                f"llvm.masked.store.{_suffix(vty)}.{_suffix(pty)}",
                T.FunctionType(T.VoidType(), (vty, pty, mask.type)),
            )
            call = b.call(fn, [value, ptr, mask])
            call.arg_attributes[1] = f"align {align}"
        else:
            if plan in ("strided", "symbolic"):
                self.stats.interleaved += 1
            else:
                self.stats.gather_scatter += 1
            ptrs = self._pointers(m.pointer, plan, stride, b)
            self._scatter(b, value, ptrs, align, mask)
        self._replaced.append(inst)

    def _masked_load(self, m: MaskedCall, b: Builder) -> V.Value:
        """The packet of a varying masked load (inactive lanes read nothing)."""
        inst = m.call
        assert m.pointer is not None and m.elem_type is not None
        elem = m.elem_type
        plan, stride = self._access_plan(m.pointer, elem)
        vty = self.vector_type(elem)
        name = _name(inst)
        if plan == "uniform":
            self.stats.uniform_memory += 1
            once = inst.clone()
            once.insert_after(inst)
            b.position_after(once)
            once.set_arg(1, self._any_lane(m.mask, b))
            b.position_after(once)
            return self._broadcast(once, b)
        mask = self.packet(m.mask)
        b.position_after(inst)
        align = self._alignment(m.align, elem, stride if plan == "strided" else None)
        if plan in ("contiguous", "reverse"):
            self.stats.contiguous += 1
            ptr = m.pointer
            if plan == "reverse":
                mask = self._reverse(mask, b)
                ptr = self._last_lane_address(elem, ptr, b)
            pty = ptr.type
            fn = self._declare(
                f"llvm.masked.load.{_suffix(vty)}.{_suffix(pty)}",
                T.FunctionType(vty, (pty, mask.type, vty)),
            )
            call = b.call(fn, [ptr, mask, V.PoisonValue(vty)], name=name)
            call.arg_attributes[0] = f"align {align}"
            return self._reverse(call, b) if plan == "reverse" else call
        if plan in ("strided", "symbolic"):
            self.stats.interleaved += 1
        else:
            self.stats.gather_scatter += 1
        ptrs = self._pointers(m.pointer, plan, stride, b)
        return self._gather(b, vty, ptrs, align, name, mask)

    # ------------------------------------------------------------------ calls

    def _call(self, inst: I.CallInst, b: Builder) -> V.Value:
        masked = classify_masked_call(inst)
        if masked is not None and masked.kind == "load":
            return self._masked_load(masked, b)
        fn = inst.called_function
        if is_varying_root(inst, self.uniform.dim):
            dim_value = runtime_dimension(inst)
            if dim_value is not None:
                return self._runtime_dim_packet(inst, dim_value)
            return self._linear_packet(inst, self._root_step(inst))
        summary = classify(fn.name if fn is not None else None)
        if summary.kind in (BuiltinKind.ELEMENTWISE, BuiltinKind.OPENCL_EXACT):
            assert summary.intrinsic is not None
            args: list[V.Value] = []
            for pos, a in enumerate(inst.args):
                args.append(a if pos in summary.scalar_operands else self.packet(a))
            for bits, value in appended_operands(summary.intrinsic, len(inst.args)):
                args.append(V.const_int(T.IntType(bits), value))
            name = widen_intrinsic_name(summary.intrinsic, self.width)
            ret = self.vector_type(inst.type)
            params = tuple(a.type for a in args)
            callee = self._declare(name, T.FunctionType(ret, params))
            self.stats.vector_calls += 1
            return b.call(callee, args, name=_name(inst))
        raise PacketizationError(f"cannot packetize a call to {fn.name if fn else 'an indirect callee'}")


def _suffix(ty: T.Type) -> str:
    """LLVM's overloaded-intrinsic type suffix (`v8f32`, `v4p1`)."""
    try:
        return type_suffix(ty)
    except MaskedBuiltinError as exc:
        raise PacketizationError(str(exc)) from None


def _new_phi(block: V.BasicBlock, ty: T.Type, name: str | None) -> I.PhiNode:
    b = Builder()
    b.position_before(block.instructions[0])
    return b.phi(ty, name=name)


def _name(inst: V.Value, lane: int | None = None) -> str | None:
    if not inst.name:
        return None
    return f"{inst.name}.l{lane}" if lane is not None else f"{inst.name}.v"
