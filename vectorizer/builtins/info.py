"""BuiltinInfo: what the vectorizer knows about a called function.

One place answers, for any callee, the questions the analyses and the
packetizer ask: is it a work-item query (and which), is it uniform, does it
have side effects, does it have an exact vector form, must it be
instantiated lane by lane, or can it not be vectorized at all.
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass

from .async_copy import is_group_operation
from .images import is_pure_image_query
from .mangling import demangle
from .math import (
    ELEMENTWISE_INTRINSICS,
    elementwise_intrinsic,
    opencl_builtin_as_intrinsic,
    scalar_operand_positions,
    split_intrinsic,
)
from .work_item import WorkItemQuery, work_item_query


class BuiltinKind(enum.Enum):
    WORK_ITEM = "work-item query"
    ELEMENTWISE = "element-wise intrinsic"
    OPENCL_EXACT = "OpenCL builtin with an exact intrinsic"
    PRINTF = "printf"
    BARRIER = "barrier"
    SUB_GROUP = "sub-group builtin"
    WORK_GROUP = "work-group collective"
    NO_EFFECT = "intrinsic without semantic effect"
    USER = "other function"


@dataclass(frozen=True)
class BuiltinSummary:
    """What is known about one callee name."""

    kind: BuiltinKind
    query: WorkItemQuery | None = None
    intrinsic: str | None = None  # for ELEMENTWISE / OPENCL_EXACT: the scalar intrinsic
    scalar_operands: tuple[int, ...] = ()


# Intrinsics that only carry hints; the vectorizer may drop them.
_NO_EFFECT_PREFIXES = (
    "llvm.lifetime.",
    "llvm.assume",
    "llvm.dbg.",
    "llvm.experimental.noalias.scope.decl",
    "llvm.invariant.",
    "llvm.sideeffect",
)


@functools.lru_cache(maxsize=4096)
def classify(name: str | None) -> BuiltinSummary:
    """Classify a callee by name (None for indirect calls). A function of
    the name alone, asked for every call by every analysis: remembered (the
    summaries are frozen)."""
    if name is None:
        return BuiltinSummary(BuiltinKind.USER)
    q = work_item_query(name)
    if q is not None:
        return BuiltinSummary(BuiltinKind.WORK_ITEM, query=q)
    if name.startswith(_NO_EFFECT_PREFIXES):
        return BuiltinSummary(BuiltinKind.NO_EFFECT)
    base = elementwise_intrinsic(name)
    if base is not None:
        return BuiltinSummary(
            BuiltinKind.ELEMENTWISE, intrinsic=name, scalar_operands=scalar_operand_positions(base)
        )
    exact = opencl_builtin_as_intrinsic(name)
    if exact is not None:
        return BuiltinSummary(BuiltinKind.OPENCL_EXACT, intrinsic=exact[0], scalar_operands=exact[1])
    if name == "printf" or name.startswith("_Z6printf"):
        return BuiltinSummary(BuiltinKind.PRINTF)
    if "barrier" in name and (name.startswith("__mux_") or name.startswith("_Z")):
        return BuiltinSummary(BuiltinKind.BARRIER)
    if is_group_operation(name):
        # Asynchronous copies and their wait: reached once by a whole group,
        # as a barrier is (async_copy.py; varying operands are refused).
        return BuiltinSummary(BuiltinKind.BARRIER)
    if name.startswith("__mux_sub_group_") or "sub_group_" in name:
        return BuiltinSummary(BuiltinKind.SUB_GROUP)
    if name.startswith("__mux_work_group_") or "work_group_" in name:
        return BuiltinSummary(BuiltinKind.WORK_GROUP)
    return BuiltinSummary(BuiltinKind.USER)


# OpenCL builtins that are pure functions of their arguments: a uniform call
# may run once, a varying one is instantiated lane by lane.
PURE_OPENCL = frozenset(
    """
    acos acosh acospi asin asinh asinpi atan atan2 atanh atanpi atan2pi cbrt ceil copysign
    cos cosh cospi erfc erf exp exp2 exp10 expm1 fabs fdim floor fma fmax fmin fmod hypot
    ilogb ldexp lgamma log log2 log10 log1p logb mad maxmag minmag nan nextafter pow pown
    powr remainder rint rootn round rsqrt sin sinh sinpi sqrt tan tanh tanpi tgamma trunc
    half_cos half_divide half_exp half_exp2 half_exp10 half_log half_log2 half_log10
    half_powr half_recip half_rsqrt half_sin half_sqrt half_tan native_cos native_divide
    native_exp native_exp2 native_exp10 native_log native_log2 native_log10 native_powr
    native_recip native_rsqrt native_sin native_sqrt native_tan abs abs_diff add_sat hadd
    rhadd clamp clz ctz mad_hi mad_sat max min mul_hi rotate sub_sat upsample popcount
    mad24 mul24 degrees mix radians step smoothstep sign cross dot distance length
    normalize fast_distance fast_length fast_normalize isequal isnotequal isgreater
    isgreaterequal isless islessequal islessgreater isfinite isinf isnan isnormal
    isordered isunordered signbit any all bitselect select
    """.split()
)


@functools.lru_cache(maxsize=4096)
def is_pure_callee(name: str | None) -> bool:
    """Is a call to `name` a pure function of its arguments (no memory, no effects)?
    (A function of the name alone: remembered.)"""
    if name is None:
        return False
    if classify(name).kind in (BuiltinKind.WORK_ITEM, BuiltinKind.ELEMENTWISE, BuiltinKind.OPENCL_EXACT):
        return True
    split = split_intrinsic(name)
    if split is not None and split[0] in ELEMENTWISE_INTRINSICS and split[0] != "expect":
        # A vector form (`llvm.fabs.v4f32`, as the library's float4 bodies
        # call): as pure as the scalar one, so a masked block need not wrap it.
        return True
    if is_pure_image_query(name):
        return True
    d = demangle(name)
    if d is not None and (d.name in PURE_OPENCL or d.name.startswith(("convert_", "as_"))):
        return not any(p.pointee is not None for p in d.params)
    return False
