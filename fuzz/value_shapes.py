"""Integer value shapes the expression grammar rarely reaches by chance.

`near_signed_limit`: a work-item id moved next to the signed limit of its
type (`gid + 0x7ffffff0`, `gid * 0x20000001`, `INT_MIN + 3 - gid`), then
sometimes extended to 64 bits. Such a value is linear in the id (the Stride
Analysis sees `id + constant` or `id * constant`), but it wraps for some
work-items, so it must not be taken as exact: a `sext` of it is not the
linear 64-bit value it looks like. A mistake there is a wrong value in
every lane past the wrap.

All of it is wrapping integer arithmetic without flags: defined for every
work-item. The values only flow into expressions (comparisons, stores,
arithmetic); addresses are the planner's own affine forms, never these.
"""

from __future__ import annotations

from .choice_source import Choices
from .plan import I32, I64, Bin, Cast, Const, Expr, Ty


def _wrap(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >= 1 << (bits - 1) else value


def near_signed_limit(c: Choices, base: Expr, ty: Ty) -> Expr:
    """`base` (an id-like integer of `ty`, or of i32 when `ty` is i64 and the
    caller wants an extension: see `extended_near_limit`) moved next to the
    signed limit of its type by an add, a sub or a multiply, wrapping."""
    bits = ty.bits
    top = (1 << (bits - 1)) - 1
    form = c.weighted([(3.0, "below_max"), (1.5, "above_min"), (1.5, "scaled")])
    if form == "below_max":
        # Wraps for ids above the gap: `gid + 0x7ffffff0`.
        return Bin("add", base, Const(ty, _wrap(top - c.integer(0, 24), bits)))
    if form == "above_min":
        # Wraps for ids above the gap, downwards: `INT_MIN + 3 - gid`.
        return Bin("sub", Const(ty, _wrap(-(1 << (bits - 1)) + c.integer(0, 24), bits)), base)
    # A stride past a quarter or a third of the range: wraps from id 2 or 3 on.
    big = c.choice(((1 << (bits - 2)) + c.integer(1, 9), top // 3, top // 2 + 1))
    return Bin("mul", base, Const(ty, _wrap(big, bits)))


def extended_near_limit(c: Choices, base32: Expr) -> Expr:
    """An i32 `near_signed_limit` of `base32` extended to i64 (`sext` mostly,
    `zext` sometimes): linear in the id only while the i32 does not wrap."""
    assert base32.ty == I32
    return Cast("sext" if c.boolean(0.7) else "zext", near_signed_limit(c, base32, I32), I64)
