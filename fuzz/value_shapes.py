"""Integer value shapes the expression grammar rarely reaches by chance.

`near_signed_limit`: a work-item id moved next to the signed limit of its
type (`gid + 0x7ffffff0`, `gid * 0x20000001`, `INT_MIN + 3 - gid`), then
sometimes extended to 64 bits. Such a value is linear in the id (the Stride
Analysis sees `id + constant` or `id * constant`), but it wraps for some
work-items, so it must not be taken as exact: a `sext` of it is not the
linear 64-bit value it looks like. A mistake there is a wrong value in
every lane past the wrap.

`narrow_wrap` (`add_narrow_wrap`): an id moved next to the sign bit of a
narrow type, truncated to it and extended again, `(int)(char)(gid + 125)`,
the narrow value then used as an index from a base pointer in the middle of
a buffer. The Stride Analysis must not take the truncation as exact: the
narrow value wraps between two lanes of a packet.

All of it is wrapping integer arithmetic without flags: defined for every
work-item. The near-limit values only flow into expressions (comparisons,
stores, arithmetic); the narrow values also index a buffer sized for every
value of their type.
"""

from __future__ import annotations

from typing import Any

from .choice_source import Choices
from .plan import (
    I8,
    I16,
    I32,
    I64,
    Access,
    Biased,
    Bin,
    Cast,
    Const,
    Expr,
    Let,
    Lin,
    Load,
    Stmt,
    Ty,
    VarRef,
    WorkItem,
    max_id,
)

# The planner drawing the shapes (`fuzz.planner.Planner`; not imported: it
# imports this module).
Planner = Any


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


# Narrow types by weight: i8 and i1 values also index a buffer (2^bits
# elements); an i16 one would need 65,536, so it is only a value.
NARROW_BITS = ((3.0, 8), (2.0, 16), (1.0, 1))


def add_narrow_wrap(p: Planner, body: list[Stmt], first: int) -> None:
    """With the chance `narrow_wrap`, insert at a top-level position of the
    kernel `body` (from `first` on):

        long w = id + K;        // or K - id, id * K: the narrow type's sign bit is passed at a small id
        char n = (char)w;       // trunc: wraps between two work-items
        int s = (int)n;         // sext (mostly) or zext, to a type narrower than w's
        out[..] = w; out[..] = s; out[..] = (&in[128])[n];

    `w` is stored too, and the extension is to a narrower type than `w`'s:
    otherwise LLVM's instcombine (in the vectorizer's preparation) narrows
    `id + K` to the small type or turns `sext(trunc w)` into `ashr(shl w)`,
    and the truncation the Stride Analysis must judge is gone. The index
    keeps the truncation only as far as LLVM allows (it becomes shifts,
    which the analysis takes as divergent: a gather); the stored `s` keeps
    it."""
    c, k = p.c, p.k
    if k.narrow_wrap <= 0 or not c.boolean(k.narrow_wrap):
        return
    bits = c.weighted([(w, b) for w, b in NARROW_BITS if f"i{b}" in k.types] or [(1.0, 1)])
    narrow = Ty(f"i{bits}")
    # (wide, extended): the extension narrower than the wide type, wider than the narrow one.
    pairs = [(w, e) for w in (I64, I32) for e in (I32, I16, I8)
             if e.bits < w.bits and e.bits > bits and e.elem in k.types]
    if not pairs:
        return
    wide, ext = c.weighted([(3.0 if w == I64 and e == I32 else 1.0, (w, e)) for w, e in pairs])
    # Mostly a global id: `lin` is exact (no wrap of its own) only in 1-D kernels.
    kind = c.weighted([(3.0, "gid"), (1.0, "lin"), (1.0, "lid")])
    dim = c.integer(0, p.dims - 1) if kind != "lin" else 0
    top = max(1, max_id(p.ndranges, kind, dim))
    base: Expr = Lin() if kind == "lin" else WorkItem({"gid": "global_id", "lid": "local_id"}[kind], dim)
    if wide == I32:
        base = Cast("trunc", base, I32)
    w = p._var(wide, varying=True)
    n = p._var(narrow, varying=True)
    s = p._var(ext, varying=True)
    out: list[Stmt] = [
        Let(w, _past_sign_bit(c, base, wide, bits, top)),
        Let(n, Cast("trunc", VarRef(w), narrow)),
        # instcombine turns a `zext` of the truncation into an `and`; `sext` stays.
        Let(s, Cast("sext" if c.boolean(0.85) else "zext", VarRef(n), ext)),
        p.store_value(VarRef(w)),
        p.store_value(VarRef(s)),
    ]
    if bits < 16:
        ty = c.choice([t for t in p.palette if not t.is_bool] or [I32])
        load = Load(p.in_buf(ty), Biased(VarRef(n), 1 << (bits - 1), 1 << bits))
        # Never `nuw`: the index is negative for some work-items.
        load.access = Access(c.choice(((), ("inbounds",))))
        out.append(p.store_value(load))
    pos = c.integer(first, len(body))
    body[pos:pos] = out


def _past_sign_bit(c: Choices, base: Expr, ty: Ty, bits: int, top: int) -> Expr:
    """`base` (an id of at most `top`, of type `ty`) moved so that its low
    `bits` bits pass the narrow type's sign bit at an odd id below `top`
    (odd: never where a packet of 2, 4, 8 or 16 lanes starts), wrapping there."""
    if bits == 1:  # every other id wraps
        return Bin("add", base, Const(ty, c.integer(0, 9)))
    sign = 1 << (bits - 1)
    gap = c.integer(0, (min(top, 64) - 1) // 2) * 2 + 1
    form = c.weighted([(3.0, "up"), (1.5, "down"), (1.0, "scaled")])
    if form == "up":  # (iN)(id + sign - gap): SIGN_MAX at id gap - 1, SIGN_MIN at id gap
        return Bin("add", base, Const(ty, sign - gap))
    if form == "down":  # (iN)(gap - 1 - sign - id): SIGN_MIN at id gap - 1, SIGN_MAX at id gap
        return Bin("sub", Const(ty, gap - 1 - sign), base)
    # A stride past a quarter or a third of the narrow range: wraps from id 2 or 3 on.
    return Bin("mul", base, Const(ty, c.choice(((sign >> 1) + c.integer(1, 9), (2 * sign) // 3 + 1, sign - 1))))
