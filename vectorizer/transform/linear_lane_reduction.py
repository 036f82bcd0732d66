"""Linear Lane Reduction: `all`/`any` over the lanes of a comparison between a
linear value and a uniform one, answered from the packet's extreme lanes.

A packet's lanes of a value with stride ±1 are `v0, v0 ± 1, ...`: a run of
consecutive integers, so whether `v < u` holds in every lane (in some lane)
only depends on the largest (smallest) lane. The bounds checks that Clamp
Versioning and boundary tests in stencils make (`0 <= x + dx && x + dx < w`,
reduced with `__vecz_b_divergence_all`) then cost a few scalar instructions
instead of a vector compare per condition, a mask chain and a reduction.

The answer is exact, wrap-around included: the lanes are computed as
`v0 + l*s` modulo 2^N, exactly as the packet would be. With |s| = 1 and no
more than 2^(N-1) lanes they wrap at most once; if they wrap, the lanes hold
every value from one end of the integer range to the other, so the largest
lane is the type's maximum and the smallest its minimum. Without a wrap the
extremes are lane 0 and lane W-1.

Handled: the reduced condition is uniform, or an `and`/`select c, x, false`
tree (for `all`) or an `or`/`select c, true, x` tree (for `any`) whose leaves
are uniform or `icmp` with relational predicates between an integer value of
constant stride ±1 and a uniform one. Anything else gives None and the caller
reduces the packet as usual.

Reads the stride and uniformity analyses; builds only new scalar
instructions, through the caller's `lane` function and builder.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..analysis.stride import StrideAnalysis
from ..analysis.uniformity import UniformValueAnalysis
from ..ir import instructions as I
from ..ir import types as T
from ..ir import values as V
from ..ir.builder import Builder

_SWAPPED = {"slt": "sgt", "sle": "sge", "sgt": "slt", "sge": "sle",
            "ult": "ugt", "ule": "uge", "ugt": "ult", "uge": "ule"}
_UPPER = ("slt", "sle", "ult", "ule")  # `v pred u` bounds v from above
MAX_DEPTH = 16  # junctions followed; deeper trees are reduced as a packet


@dataclass
class _Site:
    """One reduction: what it builds sits before that call and need not
    dominate another site's, so nothing is shared between sites."""

    kind: str  # "all" or "any"
    b: Builder
    memo: dict[int, V.Value | None] = field(default_factory=dict)
    extremes: dict[tuple[int, bool], tuple[V.Value, V.Value]] = field(default_factory=dict)


@dataclass
class LinearLaneReduction:
    """Reduces lane conditions over a packet of `width` lanes (see the module
    docstring). `lane(value, l)` gives the scalar value of `value` in lane l."""

    uniform: UniformValueAnalysis
    stride: StrideAnalysis
    width: int
    lane: Callable[[V.Value, int], V.Value]

    def reduce(self, kind: str, cond: V.Value, b: Builder) -> V.Value | None:
        """`i1` that is true when `cond` holds in every lane (`kind` "all") or
        in some lane ("any"), or None if the condition is not of the handled
        shape (a uniform condition is left to the caller)."""
        if self.uniform.is_uniform(cond):
            return None
        return self._reduce(_Site(kind, b), cond, depth=0)

    def _parts(self, cond: V.Value, kind: str) -> tuple[V.Value, V.Value] | None:
        """The two conditions `cond` joins, when it is the junction `kind` distributes over."""
        joint = "and" if kind == "all" else "or"
        if isinstance(cond, I.BinaryOperator) and cond.opcode == joint:
            return cond.lhs, cond.rhs
        if isinstance(cond, I.SelectInst) and cond.type == T.IntType(1):
            # select c, x, false == c && x ; select c, true, x == c || x
            absorbing = cond.false_value if kind == "all" else cond.true_value
            if isinstance(absorbing, V.ConstantInt) and (absorbing.unsigned == 1) == (kind == "any"):
                other = cond.true_value if kind == "all" else cond.false_value
                return cond.condition, other
        return None

    def _linear_compare(self, cond: V.Value) -> tuple[str, V.Value, V.Value, int] | None:
        """(predicate, linear value, uniform bound, stride) with the linear value on the left."""
        if not isinstance(cond, I.ICmpInst) or cond.predicate not in _SWAPPED:
            return None
        lhs, rhs, pred = cond.lhs, cond.rhs, cond.predicate
        if self.uniform.is_uniform(lhs):
            lhs, rhs, pred = rhs, lhs, _SWAPPED[pred]
        if not self.uniform.is_uniform(rhs) or not isinstance(lhs.type, T.IntType):
            return None
        bits = lhs.type.bits
        if bits < 2 or self.width > 1 << (bits - 1):
            return None
        info = self.stride.info(lhs)
        if not (info.is_linear and info.stride.is_constant and info.stride.const in (1, -1)):
            return None
        return pred, lhs, rhs, info.stride.const

    def _reduce(self, site: _Site, cond: V.Value, depth: int) -> V.Value | None:
        if self.uniform.is_uniform(cond):
            return cond
        if id(cond) not in site.memo:
            site.memo[id(cond)] = self._reduce_new(site, cond, depth) if depth <= MAX_DEPTH else None
        return site.memo[id(cond)]

    def _reduce_new(self, site: _Site, cond: V.Value, depth: int) -> V.Value | None:
        compare = self._linear_compare(cond)
        if compare is not None:
            pred, value, bound, step = compare
            low, high = self._lane_extremes(site, value, step, pred.startswith("s"))
            # Every lane is below u iff the largest is; some lane is iff the smallest is.
            upper = pred in _UPPER
            extreme = (high if upper else low) if site.kind == "all" else (low if upper else high)
            return site.b.icmp(pred, extreme, bound)
        parts = self._parts(cond, site.kind)
        if parts is None:
            return None
        first = self._reduce(site, parts[0], depth + 1)
        second = self._reduce(site, parts[1], depth + 1) if first is not None else None
        if first is None or second is None:
            return None
        # Keep the select form: the second part's poison must not leak when
        # the first decides (as it did lane by lane).
        if site.kind == "any":
            return site.b.select(first, V.const_int(T.IntType(1), 1), second)
        return site.b.select(first, second, V.const_int(T.IntType(1), 0))

    def _lane_extremes(self, site: _Site, value: V.Value, step: int, signed: bool) -> tuple[V.Value, V.Value]:
        """(smallest, largest) lane of `value`, signed or unsigned."""
        key = (id(value), signed)
        if key in site.extremes:
            return site.extremes[key]
        ty = value.type
        assert isinstance(ty, T.IntType)
        b = site.b
        first, last = value, self.lane(value, self.width - 1)
        low, high = (first, last) if step > 0 else (last, first)
        # Without a wrap the lanes run from `low` up to `high`.
        straight = b.icmp("sle" if signed else "ule", low, high)
        bits = ty.bits
        t_min = V.const_int(ty, -(1 << (bits - 1)) if signed else 0)
        t_max = V.const_int(ty, (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1)
        site.extremes[key] = (b.select(straight, low, t_min), b.select(straight, high, t_max))
        return site.extremes[key]
