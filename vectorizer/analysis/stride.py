"""Stride Analysis (with Vecz's offset information): how a value changes
from one lane to the next.

Every integer or pointer value is classified as
- uniform: the same in every lane;
- linear: lane `l` holds `v0 + l * stride`, where `v0` is the value the
  scalar instruction computes (lane 0) and the stride is a constant or a
  product of a constant and uniform values (kept symbolic; `manifest`
  builds the instructions when a transform needs the number);
- divergent: no pattern.
For pointers the stride is in bytes.

Wrap-around is what makes this subtle: lane values `v0 + l*s` in an iN are
only equal to the mathematical sum while nothing overflows between lane 0
and lane W-1. Address arithmetic at pointer width is modular like the
machine's, so 64-bit indices are always fine; but a narrower index that is
extended (explicitly, or implicitly by a GEP) is linear only if no lane
wraps. That is known (`exact`) from `nsw` flags (overflow would be poison),
from `nneg` flags, from the work-item ids themselves, and from a bound on
each value's magnitude carried through `add`, `mul`, `shl` and `ashr` by
constants, under the documented NDRange assumption that ids (offset plus
size) stay below 2^30 per dimension. Anything not provably exact is
divergent, and so is accessed lane by lane: slower, never wrong.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ..ir import instructions as I
from ..ir import types as T
from ..ir import values as V
from .data_layout import DataLayout
from .uniformity import UniformValueAnalysis, is_varying_root, runtime_dimension


class Pattern(enum.Enum):
    UNIFORM = "uniform"
    LINEAR = "linear"
    DIVERGENT = "divergent"


@dataclass(frozen=True)
class Stride:
    """`const * product(factors)`; factors are uniform values (sign-extended when used)."""

    const: int
    factors: tuple[V.Value, ...] = ()

    @property
    def is_constant(self) -> bool:
        return not self.factors or self.const == 0

    def __add__(self, other: Stride) -> Stride | None:
        if other.const == 0:
            return self
        if self.const == 0:
            return other
        if _same(self.factors, other.factors):
            return Stride(self.const + other.const, self.factors)
        return None

    def scaled(self, k: int) -> Stride:
        return Stride(self.const * k, self.factors if self.const * k else ())

    def times(self, value: V.Value) -> Stride:
        if isinstance(value, V.ConstantInt):
            return self.scaled(_signed(value))
        return Stride(self.const, self.factors + (value,)) if self.const else self


ZERO = Stride(0)


def _same(a: tuple[V.Value, ...], b: tuple[V.Value, ...]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(sorted(a, key=id), sorted(b, key=id), strict=True))


def _signed(c: V.ConstantInt) -> int:
    bits = c.type.bits
    v = c.value & ((1 << bits) - 1)
    return v - (1 << bits) if v >> (bits - 1) else v


@dataclass(frozen=True)
class OffsetInfo:
    """The lane pattern of one value."""

    pattern: Pattern
    stride: Stride = ZERO
    exact: bool = True  # no signed wrap between lanes in the value's own type
    nonneg: bool = False  # every lane's value is non-negative (ids)
    small: bool = False  # every lane's value is in [0, 2^31) (ids, under the NDRange assumption)
    # An upper bound on every lane's |value| (None: unknown): what lets
    # `shl`/`add` without `nsw` still be known not to wrap, as in clang's
    # `int i = get_global_id(0)`, which becomes `ashr (shl gid, 32), 32`.
    bound: int | None = None

    @property
    def is_uniform(self) -> bool:
        return self.pattern is Pattern.UNIFORM

    @property
    def is_linear(self) -> bool:
        return self.pattern is Pattern.LINEAR

    @property
    def constant_stride(self) -> int | None:
        """The stride as a number, when it is one."""
        if self.pattern is Pattern.UNIFORM:
            return 0
        if self.pattern is Pattern.LINEAR and self.stride.is_constant:
            return self.stride.const
        return None


UNIFORM = OffsetInfo(Pattern.UNIFORM)

# The NDRange assumption: work-item ids stay below 2^30 in each dimension
# (a billion work-items along one dimension). Only index arithmetic near
# 2^31 -- `int i = get_global_id(0) + k` at the very top of the signed
# range -- depends on it.
ID_BOUND = (1 << 30) - 1
DIVERGENT = OffsetInfo(Pattern.DIVERGENT, exact=False)


def varying_alloca_lane_bytes(alloca: I.AllocaInst, layout: DataLayout) -> int:
    """Bytes between the lanes' copies of a varying private variable.

    The packetizer gives each lane its own copy, laid out one after the
    other; the distance keeps every copy at the alignment the scalar code
    promised for the variable.
    """
    size = layout.alloc_size(alloca.allocated_type)
    if isinstance(alloca.count, V.ConstantInt):
        size *= max(1, alloca.count.value)
    align = alloca.align or layout.abi_align(alloca.allocated_type)
    return (size + align - 1) // align * align


class StrideAnalysis:
    """Offset information for the values of one function."""

    def __init__(
        self, uniform: UniformValueAnalysis, layout: DataLayout, interleaved: dict[int, int] | None = None
    ) -> None:
        self.uniform = uniform
        self.layout = layout
        self._memo: dict[int, OffsetInfo] = {}
        # Private arrays already laid out element by element across lanes
        # (id -> element size): their lanes are one element apart.
        self.interleaved: dict[int, int] = dict(interleaved or {})
        # Measured now: the packetizer widens the other allocas in place,
        # after which their type is W copies, not one.
        self._lane_bytes: dict[int, int] = {
            id(a): self.interleaved.get(id(a)) or varying_alloca_lane_bytes(a, layout)
            for a in uniform.varying_values
            if isinstance(a, I.AllocaInst)
        }

    def alloca_lane_bytes(self, alloca: I.AllocaInst) -> int:
        """Bytes between the lanes' copies of varying private variable `alloca`."""
        key = id(alloca)
        if key not in self._lane_bytes:
            self._lane_bytes[key] = varying_alloca_lane_bytes(alloca, self.layout)
        return self._lane_bytes[key]

    def info(self, value: V.Value) -> OffsetInfo:
        """The lane pattern of `value`."""
        key = id(value)
        if key in self._memo:
            return self._memo[key]
        # Iterative post-order over the operands the rules look at, so long
        # arithmetic chains cannot exhaust Python's recursion limit.
        stack = [value]
        while stack:
            top = stack[-1]
            if id(top) in self._memo:
                stack.pop()
                continue
            pending = [d for d in self._deps(top) if id(d) not in self._memo]
            if pending:
                stack.extend(pending)
                continue
            self._memo[id(top)] = self._compute(top)
            stack.pop()
        return self._memo[key]

    # The operands whose patterns decide a value's pattern.
    def _deps(self, v: V.Value) -> list[V.Value]:
        if self.uniform.is_uniform(v) or not isinstance(v, I.Instruction):
            return []
        if isinstance(v, I.BinaryOperator) and v.opcode in ("add", "sub", "mul", "shl", "or", "ashr"):
            return [v.lhs, v.rhs]
        if isinstance(v, I.CastInst) and v.opcode in (
            "trunc", "sext", "zext", "bitcast", "addrspacecast"
        ):
            return [v.value]
        if isinstance(v, I.GetElementPtrInst):
            return [v.pointer, *v.indices]
        return []

    def _compute(self, v: V.Value) -> OffsetInfo:
        if self.uniform.is_uniform(v):
            if isinstance(v, V.ConstantInt):
                return OffsetInfo(Pattern.UNIFORM, bound=abs(_signed(v)))
            return UNIFORM
        if is_varying_root(v, self.uniform.dim) and isinstance(v.type, T.IntType):
            fn = v.called_function  # type: ignore[union-attr]
            name = fn.name if fn is not None else ""
            if "linear_id" in name:
                return DIVERGENT
            # The sub-group local id steps by 1 along `dim` (docs/subgroups.md),
            # like the local id: it falls through to the linear case.
            if runtime_dimension(v) is not None:
                # Stride 1 only when the run-time dimension is `dim`, else 0:
                # no single stride describes it.
                return DIVERGENT
            return OffsetInfo(Pattern.LINEAR, Stride(1), exact=True, nonneg=True, small=True, bound=ID_BOUND)
        if isinstance(v, I.AllocaInst):
            return OffsetInfo(Pattern.LINEAR, Stride(self.alloca_lane_bytes(v)))
        if isinstance(v, I.BinaryOperator) and isinstance(v.type, T.IntType):
            return self._binary(v)
        if isinstance(v, I.CastInst):
            return self._cast(v)
        if isinstance(v, I.GetElementPtrInst):
            return self._gep(v)
        return DIVERGENT

    def _binary(self, v: I.BinaryOperator) -> OffsetInfo:
        a, b = self.info(v.lhs), self.info(v.rhs)
        if a.pattern is Pattern.DIVERGENT or b.pattern is Pattern.DIVERGENT:
            return DIVERGENT
        op, flags = v.opcode, v.flags
        if op in ("add", "sub") or (op == "or" and "disjoint" in flags):
            s = a.stride + (b.stride.scaled(-1) if op == "sub" else b.stride)
            if s is None:
                return DIVERGENT
            no_wrap = "nsw" in flags or op == "or"
            bound = None if a.bound is None or b.bound is None else a.bound + b.bound
            return _linear(s, exact=a.exact and b.exact and no_wrap, bound=bound, width=v.type.bits)
        if op == "mul":
            if a.is_uniform:
                lin, k = b, v.lhs
            elif b.is_uniform:
                lin, k = a, v.rhs
            else:
                return DIVERGENT  # varying times varying
            kb = abs(_signed(k)) if isinstance(k, V.ConstantInt) else None
            bound = None if lin.bound is None or kb is None else lin.bound * kb
            return _linear(lin.stride.times(k), exact=lin.exact and "nsw" in flags, bound=bound, width=v.type.bits)
        if op == "shl" and b.is_uniform and isinstance(v.rhs, V.ConstantInt):
            shift = v.rhs.value
            if shift >= v.type.bits:
                return DIVERGENT
            bound = None if a.bound is None else a.bound << shift
            return _linear(a.stride.scaled(1 << shift), exact=a.exact and "nsw" in flags, bound=bound, width=v.type.bits)
        if op == "ashr" and b.is_uniform and isinstance(v.rhs, V.ConstantInt) and a.exact:
            # floor((x0 + l*s) / 2^k) = floor(x0 / 2^k) + l*(s / 2^k) when 2^k
            # divides s and no lane wrapped: the stride shifts exactly.
            shift = v.rhs.value
            if not 0 <= shift < v.type.bits or not a.stride.is_constant or a.stride.const % (1 << shift):
                return DIVERGENT
            bound = None if a.bound is None else (a.bound + (1 << shift) - 1) >> shift
            return OffsetInfo(Pattern.LINEAR, Stride(a.stride.const >> shift), exact=True, bound=bound)
        return DIVERGENT

    def _cast(self, v: I.CastInst) -> OffsetInfo:
        src = self.info(v.value)
        if src.pattern is Pattern.DIVERGENT:
            return DIVERGENT
        op = v.opcode
        if op in ("bitcast", "addrspacecast"):
            # Only pointer to pointer (or int to int) keeps the lane pattern:
            # the bits of a linear i32 read as floats are not linear floats.
            same = {type(v.type), type(v.value.type)}
            return src if same in ({T.PointerType}, {T.IntType}) else DIVERGENT
        if op == "trunc":
            bits = v.type.bits if isinstance(v.type, T.IntType) else 0
            keep = (src.small and bits >= 32) or (src.exact and src.bound is not None and src.bound < 1 << (bits - 1))
            return OffsetInfo(Pattern.LINEAR, src.stride, exact=keep, nonneg=src.small and keep, small=src.small and keep,
                              bound=src.bound if keep else None)
        if op == "sext" and src.exact:
            return OffsetInfo(Pattern.LINEAR, src.stride, exact=True, nonneg=src.nonneg, small=src.small, bound=src.bound)
        if op == "zext" and src.exact and (src.nonneg or "nneg" in v.flags):
            return OffsetInfo(Pattern.LINEAR, src.stride, exact=True, nonneg=True, small=src.small, bound=src.bound)
        return DIVERGENT

    def _gep(self, v: I.GetElementPtrInst) -> OffsetInfo:
        base = self.info(v.pointer)
        if base.pattern is Pattern.DIVERGENT or isinstance(v.type, T.VectorType):
            return DIVERGENT
        stride = base.stride
        ty: T.Type = v.source_element_type
        for pos, idx in enumerate(v.indices):
            if pos == 0:
                scale = self.layout.alloc_size(ty)
            elif isinstance(ty, T.StructType):
                # Struct field indices are constants: a fixed offset, no stride.
                if not isinstance(idx, V.ConstantInt):
                    return DIVERGENT
                ty = ty.elements[idx.value]
                continue
            elif isinstance(ty, (T.ArrayType, T.VectorType)):
                ty = ty.element
                scale = self.layout.alloc_size(ty)
            else:
                return DIVERGENT
            info = self.info(idx)
            if info.pattern is Pattern.DIVERGENT:
                return DIVERGENT
            if info.is_uniform:
                continue
            if not isinstance(idx.type, T.IntType):
                return DIVERGENT
            if idx.type.bits < 64 and not info.exact:
                return DIVERGENT  # the implicit sign extension may see a wrap
            s = stride + info.stride.scaled(scale)
            if s is None:
                return DIVERGENT
            stride = s
        if stride.const == 0:
            return UNIFORM if base.is_uniform else OffsetInfo(Pattern.LINEAR, ZERO)
        return OffsetInfo(Pattern.LINEAR, stride, exact=False)


def _linear(stride: Stride, exact: bool, bound: int | None = None, width: int = 64) -> OffsetInfo:
    # Values bounded inside the signed range cannot wrap, flags or not.
    if bound is not None and bound < 1 << (width - 1):
        exact = True
    else:
        bound = None
    return OffsetInfo(Pattern.LINEAR, stride, exact=exact, bound=bound)


def _signed(c: V.ConstantInt) -> int:
    """The constant's value read as signed."""
    bits = c.type.bits if isinstance(c.type, T.IntType) else 64
    v = c.value & ((1 << bits) - 1)
    return v - (1 << bits) if v >> (bits - 1) else v
