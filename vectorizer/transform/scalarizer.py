"""Scalarization (seed, "Scalarization"): split fixed-vector instructions of
the scalar kernel into one instruction per element before packetization.

A varying `<4 x float>` value cannot become a packet element (packets are
`<W x T>` of scalars), so without this pass every instruction computing one
is instantiated W times. Split into four varying floats, each of them
packetizes into `<W x float>` like any other scalar.

By default only varying vector instructions are split (partial
scalarization); with the FullScalarization choice every one is. Elements are
produced where the vector instruction was; a user that cannot be
scalarized (a call, a bitcast to another lane count, a return) gets the
vector rebuilt with `insertelement` right after the last element, and the
rebuilt vector is dead, and removed by cleanup, when every user was split.

This pass edits only the function it is given; it reads the uniformity
analysis to know which values vary.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..analysis.data_layout import DataLayout
from ..analysis.uniformity import UniformValueAnalysis
from ..builtins.math import elementwise_intrinsic, scalar_operand_positions, split_intrinsic
from ..ir import instructions as I
from ..ir import types as T
from ..ir import values as V
from ..ir.builder import Builder, builder_after

# Vectors wider than this stay whole: splitting them would multiply the code
# by more than any packet gains back.
MAX_ELEMENTS = 16


def _fixed_vector(ty: T.Type) -> T.VectorType | None:
    if isinstance(ty, T.VectorType) and not ty.scalable and ty.count <= MAX_ELEMENTS:
        if isinstance(ty.element, (T.IntType, T.FloatType, T.PointerType)):
            return ty
    return None


def _scalar_intrinsic_name(name: str) -> str | None:
    """`llvm.fabs.v4f32` -> `llvm.fabs.f32`, for element-wise intrinsics only."""
    split = split_intrinsic(name)
    if split is None:
        return None
    base, types = split
    scalar_types = []
    for t in types:
        if t.startswith("v") and t[1:2].isdigit():
            scalar_types.append(t.lstrip("v0123456789"))
        else:
            scalar_types.append(t)
    candidate = "llvm." + ".".join([base] + scalar_types)
    return candidate if elementwise_intrinsic(candidate) is not None else None


@dataclass
class Scalarizer:
    """Split the vector instructions of `function` (see the module docstring)."""

    function: V.Function
    module: V.Module
    uniform: UniformValueAnalysis
    layout: DataLayout
    full: bool = False
    scalarized: int = 0
    _elements: dict[int, list[V.Value]] = field(default_factory=dict)
    _extracts: dict[tuple[int, int], V.Value] = field(default_factory=dict)
    _phis: list[tuple[I.PhiNode, list[I.PhiNode]]] = field(default_factory=list)

    def run(self) -> int:
        """Scalarize; returns how many vector instructions were split."""
        candidates = [i for i in self.function.instructions() if self._wanted(i)]
        done: list[I.Instruction] = []
        for inst in candidates:
            if self._split(inst):
                done.append(inst)
        for phi, parts in self._phis:
            for value, block in phi.incoming:
                for lane, part in enumerate(parts):
                    part.add_incoming(self._element(value, lane), block)
        for inst in done:
            self._retire(inst)
        self.scalarized = len(done)
        return self.scalarized

    # -------------------------------------------------------------- selection

    def _wanted(self, inst: I.Instruction) -> bool:
        if not self.full and not self.uniform.is_varying(inst):
            return False
        if isinstance(inst, I.StoreInst):
            return self._splittable_memory(inst.value.type, inst)
        if isinstance(inst, I.ExtractElementInst):
            return isinstance(inst.index, V.ConstantInt) and _fixed_vector(inst.vector.type) is not None
        vty = _fixed_vector(inst.type)
        if vty is None:
            return False
        if isinstance(inst, (I.BinaryOperator, I.UnaryOperator, I.ICmpInst, I.FCmpInst, I.FreezeInst, I.PhiNode)):
            return True
        if isinstance(inst, I.SelectInst):
            return True
        if isinstance(inst, I.CastInst):
            src = inst.value.type
            return isinstance(src, T.VectorType) and not src.scalable and src.count == vty.count
        if isinstance(inst, I.InsertElementInst):
            return isinstance(inst.index, V.ConstantInt)
        if isinstance(inst, I.ShuffleVectorInst):
            return _fixed_vector(inst.v1.type) is not None
        if isinstance(inst, I.LoadInst):
            return self._splittable_memory(inst.type, inst)
        if isinstance(inst, I.CallInst):
            fn = inst.called_function
            return fn is not None and _scalar_intrinsic_name(fn.name) is not None
        return False

    def _splittable_memory(self, ty: T.Type, inst: I.LoadInst | I.StoreInst) -> bool:
        vty = _fixed_vector(ty)
        if vty is None or inst.volatile or inst.ordering:
            return False
        elem = vty.element
        # Elements must sit back to back with no padding (not i1, not i24).
        return self.layout.store_size(elem) == self.layout.alloc_size(elem) and (
            self.layout.alloc_size(elem) * vty.count == self.layout.store_size(vty)
        )

    # -------------------------------------------------------------- elements

    def _element(self, value: V.Value, lane: int) -> V.Value:
        """Element `lane` of a vector value, scalar."""
        key = id(value)
        if key in self._elements:
            return self._elements[key][lane]
        vty = value.type
        assert isinstance(vty, T.VectorType)
        if isinstance(value, V.ConstantVector):
            return value.elements[lane]
        if isinstance(value, V.ConstantAggregateZero):
            if isinstance(vty.element, T.IntType):
                return V.const_int(vty.element, 0)
            if isinstance(vty.element, T.FloatType):
                return V.const_fp(vty.element, 0.0)
            return V.ConstantPointerNull(vty.element)
        if isinstance(value, V.PoisonValue):
            return V.PoisonValue(vty.element)
        if isinstance(value, V.UndefValue):
            return V.UndefValue(vty.element)
        cache = (key, lane)
        if cache not in self._extracts:
            b = self._after(value)
            self._extracts[cache] = b.extractelement(value, V.const_int(T.IntType(32), lane))
        return self._extracts[cache]

    def _after(self, value: V.Value) -> Builder:
        return builder_after(value, self.function)

    # ----------------------------------------------------------------- split

    def _split(self, inst: I.Instruction) -> bool:
        b = Builder()
        b.position_before(inst)
        base = inst.name or "sc"
        if isinstance(inst, I.StoreInst):
            self._split_store(inst, b)
            return True
        if isinstance(inst, I.ExtractElementInst):
            assert isinstance(inst.index, V.ConstantInt)
            lane = inst.index.value
            vty = inst.vector.type
            assert isinstance(vty, T.VectorType)
            elem = self._element(inst.vector, lane) if 0 <= lane < vty.count else V.PoisonValue(inst.type)
            inst.replace_all_uses_with(elem)
            return True
        vty = inst.type
        assert isinstance(vty, T.VectorType)
        n = vty.count
        parts: list[V.Value] = []
        if isinstance(inst, I.PhiNode):
            # `b` is before the phi: the scalar phis join the block's phis.
            phis = [b.phi(vty.element, name=f"{base}.s{k}") for k in range(n)]
            self._phis.append((inst, phis))
            parts = list(phis)
        else:
            for k in range(n):
                parts.append(self._split_lane(inst, k, b, f"{base}.s{k}"))
        self._elements[id(inst)] = parts
        return True

    def _split_lane(self, inst: I.Instruction, k: int, b: Builder, name: str) -> V.Value:
        e = self._element
        if isinstance(inst, I.BinaryOperator):
            return b.binop(inst.opcode, e(inst.lhs, k), e(inst.rhs, k), flags=inst.flags, name=name)
        if isinstance(inst, I.UnaryOperator):
            return b.fneg(e(inst.operand, k), flags=inst.flags, name=name)
        if isinstance(inst, I.ICmpInst):
            return b.icmp(inst.predicate, e(inst.lhs, k), e(inst.rhs, k), name=name)
        if isinstance(inst, I.FCmpInst):
            return b.fcmp(inst.predicate, e(inst.lhs, k), e(inst.rhs, k), flags=inst.flags, name=name)
        if isinstance(inst, I.SelectInst):
            c = inst.condition
            ck = e(c, k) if isinstance(c.type, T.VectorType) else c
            return b.select(ck, e(inst.true_value, k), e(inst.false_value, k), flags=inst.flags, name=name)
        if isinstance(inst, I.FreezeInst):
            return b.freeze(e(inst.value, k), name=name)
        if isinstance(inst, I.CastInst):
            vty = inst.type
            assert isinstance(vty, T.VectorType)
            return b.cast(inst.opcode, e(inst.value, k), vty.element, flags=inst.flags, name=name)
        if isinstance(inst, I.InsertElementInst):
            assert isinstance(inst.index, V.ConstantInt)
            return inst.element if inst.index.value == k else e(inst.vector, k)
        if isinstance(inst, I.ShuffleVectorInst):
            m = inst.mask[k]
            v1t = inst.v1.type
            assert isinstance(v1t, T.VectorType)
            vty = inst.type
            assert isinstance(vty, T.VectorType)
            if m < 0:
                return V.PoisonValue(vty.element)
            return e(inst.v1, m) if m < v1t.count else e(inst.v2, m - v1t.count)
        if isinstance(inst, I.LoadInst):
            vty = inst.type
            assert isinstance(vty, T.VectorType)
            size = self.layout.alloc_size(vty.element)
            ptr = inst.pointer if k == 0 else b.gep(T.IntType(8), inst.pointer, [V.const_int(T.IntType(64), k * size)])
            return b.load(vty.element, ptr, align=_element_align(inst.align, k * size), name=name)
        if isinstance(inst, I.CallInst):
            fn = inst.called_function
            assert fn is not None
            sname = _scalar_intrinsic_name(fn.name)
            assert sname is not None
            split = split_intrinsic(sname)
            assert split is not None
            keep = scalar_operand_positions(split[0])
            args = [a if (pos in keep or not isinstance(a.type, T.VectorType)) else e(a, k) for pos, a in enumerate(inst.args)]
            vty = inst.type
            assert isinstance(vty, T.VectorType)
            callee = self.module.get_or_insert_function(sname, T.FunctionType(vty.element, tuple(a.type for a in args)))
            return b.call(callee, args, name=name)
        raise AssertionError(f"unexpected {inst.opcode}")

    def _split_store(self, inst: I.StoreInst, b: Builder) -> None:
        vty = inst.value.type
        assert isinstance(vty, T.VectorType)
        size = self.layout.alloc_size(vty.element)
        for k in range(vty.count):
            ptr = inst.pointer if k == 0 else b.gep(T.IntType(8), inst.pointer, [V.const_int(T.IntType(64), k * size)])
            b.store(self._element(inst.value, k), ptr, align=_element_align(inst.align, k * size))

    # ---------------------------------------------------------------- retire

    def _retire(self, inst: I.Instruction) -> None:
        """Erase a split instruction, rebuilding its vector for any user left."""
        if inst.uses and id(inst) in self._elements:
            parts = self._elements[id(inst)]
            # Every part was made before `inst` from operands of `inst`, so
            # its place (after the phis, for a phi) is dominated by them all.
            b = Builder()
            if isinstance(inst, I.PhiNode):
                b.position_before(inst.parent.first_non_phi)
            else:
                b.position_before(inst)
            acc: V.Value = V.PoisonValue(inst.type)
            for k, p in enumerate(parts):
                acc = b.insertelement(acc, p, V.const_int(T.IntType(32), k))
            inst.replace_all_uses_with(acc)
        if inst.uses:
            inst.replace_all_uses_with(V.PoisonValue(inst.type))
        inst.erase_from_parent()


def _element_align(align: int | None, offset: int) -> int | None:
    """The alignment known for an element `offset` bytes past an `align`ed address."""
    if align is None:
        return None
    if offset == 0:
        return align
    return min(align, offset & -offset)
