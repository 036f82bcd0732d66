"""Which builtin names the library defines, and for which parameter types.

Each family module registers handlers: `handler(name, params) -> Impl | None`
receives the demangled builtin name and parameter types, checks that they
form a real OpenCL C overload, and returns its result type and body (or None
for a signature OpenCL does not have). Names with embedded types or modes
(`convert_int4_sat_rte`, `vload_half8`, `vstorea_half4_rtz`) are matched by
regular expression.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .ir import Builder, Val
from .types import FLOATS, WIDTHS, CLType


@dataclass(frozen=True)
class Impl:
    """A builtin overload: result type (None for void), body, and whether it is pure."""

    ret: CLType | None
    body: Callable[..., Val | None]  # body(b: Builder, *args: Val)
    pure: bool = True
    family: str = ""


Handler = Callable[[str, tuple[CLType, ...]], "Impl | None"]
NAMED: dict[str, Handler] = {}
PATTERNS: list[tuple[re.Pattern[str], Handler]] = []


def builtin(*names: str) -> Callable[[Handler], Handler]:
    """Register a handler for these builtin names."""
    def deco(fn: Handler) -> Handler:
        for n in names:
            NAMED[n] = fn
        return fn
    return deco


def builtin_pattern(regex: str) -> Callable[[Handler], Handler]:
    """Register a handler for the builtin names matching `regex` (full match)."""
    def deco(fn: Handler) -> Handler:
        PATTERNS.append((re.compile(regex), fn))
        return fn
    return deco


def handler_for(name: str) -> Handler | None:
    if name in NAMED:
        return NAMED[name]
    for rx, fn in PATTERNS:
        if rx.fullmatch(name):
            return fn
    return None


# -- signature helpers ---------------------------------------------------------

def is_value(t: CLType) -> bool:
    return t.pointee is None and t.width in WIDTHS


def all_same(params: tuple[CLType, ...], count: int, kinds: str) -> CLType | None:
    """The common type when there are `count` params of one type whose element kind is in `kinds`
    ('f' floating, 's'/'u' integers)."""
    if len(params) != count or not params:
        return None
    t = params[0]
    if not is_value(t) or t.kind not in kinds or any(p != t for p in params):
        return None
    return t


def float_type(t: CLType) -> bool:
    return is_value(t) and t.elem in FLOATS


def int_like(t: CLType, elem_bits: int | None = None, signed: bool | None = None) -> bool:
    return is_value(t) and t.is_int and (elem_bits is None or t.bits == elem_bits) and (
        signed is None or t.signed == signed)


def splat_to(b: Builder, v: Val, like: Val) -> Val:
    """A scalar argument of a mixed overload (`fmax(float4, float)`) broadcast to `like`'s lanes."""
    if v.ty.lanes == like.ty.lanes:
        return v
    return b.splat(v, like.ty.lanes)
