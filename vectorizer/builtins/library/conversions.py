"""Explicit conversions (OpenCL C 1.2, 6.2.3): convert_<type><n>[_sat][_<mode>].

Every conversion is defined for every input, so all widths agree even where
OpenCL leaves the result undefined: floating point to integer always goes
through LLVM's saturating conversion (NaN -> 0), with the rounding mode
applied first; directed rounding to a narrower floating type (and from
integers) corrects the round-to-nearest result by one ulp where it lies on
the wrong side. double -> half rounds once (round to odd to float, then to
nearest half). `as_<type>` needs no library function: clang lowers it to a
bitcast.
"""

from __future__ import annotations

from .ir import Builder, Val
from .registry import Impl, builtin_pattern, is_value
from .types import ELEMENTS, CLType

_ELEMS = "|".join(ELEMENTS)
_PATTERN = rf"convert_({_ELEMS})(2|3|4|8|16)?(_sat)?(_rte|_rtz|_rtp|_rtn)?"


def step(b: Builder, v: Val, up: Val) -> Val:
    """The floating-point neighbour of `v` toward +inf where `up`, else toward -inf
    (through the ordered integer encoding, so zeros and infinities step correctly)."""
    bits = v.ty.bits
    sign = 1 << (bits - 1)
    iv = b.as_int(v)
    ov = b.select(iv.slt(0), (iv & (sign - 1)) * -1, iv)
    on = ov + b.select(up, b.const(1, ov.ty), b.const(-1, ov.ty))
    return b.as_fp(b.select(on.slt(0), (on * -1) | sign, on), v.ty.elem)


def fix_direction(b: Builder, f: Val, cmp_gt: Val, cmp_lt: Val, mode: str) -> Val:
    """Adjust a round-to-nearest result `f` for a directed `mode`, given whether
    f is greater or less than the exact value."""
    if mode == "rtp":
        return b.select(cmp_lt, step(b, f, b.const(1, cmp_lt.ty)), f)
    if mode == "rtn":
        return b.select(cmp_gt, step(b, f, b.const(0, cmp_gt.ty)), f)
    if mode == "rtz":
        neg = b.as_int(f).slt(0)
        away = b.select(neg, cmp_lt, cmp_gt)
        return b.select(away, step(b, f, neg), f)
    return f


def round_to_odd_float(b: Builder, x: Val) -> Val:
    """double -> float rounded to odd: toward zero, then the last bit set if inexact.
    Rounding that to a narrower format (half) to nearest is then correct."""
    f = b.cast("fptrunc", x, x.ty.like("float"))
    away = b.fabs(b.cast("fpext", f, x.ty)).ogt(b.fabs(x))
    f = b.select(away, step(b, f, b.as_int(f).slt(0)), f)
    inexact = b.cast("fpext", f, x.ty).one(x)
    return b.select(inexact, b.as_fp(b.as_int(f) | 1, "float"), f)


def fp_to_fp(b: Builder, x: Val, elem: str, mode: str) -> Val:
    """Floating-point conversion with a rounding mode ("" = to nearest)."""
    if x.ty.elem == elem:
        return x
    if ELEMENTS[elem][2] > x.ty.bits:
        return b.cast("fpext", x, x.ty.like(elem))
    if x.ty.elem == "double" and elem == "half":
        f = b.cast("fptrunc", round_to_odd_float(b, x), x.ty.like("half"))
    else:
        f = b.cast("fptrunc", x, x.ty.like(elem))
    if mode in ("", "rte"):
        return f
    back = b.cast("fpext", f, x.ty)
    return fix_direction(b, f, back.ogt(x), back.olt(x), mode)


def int_to_fp(b: Builder, x: Val, signed: bool, elem: str, mode: str) -> Val:
    f = b.cast("sitofp" if signed else "uitofp", x, x.ty.like(elem))
    if mode in ("", "rte"):
        return f
    i128 = x.ty.like("i128")
    xw = b.resize_int(x, 128, signed)
    inf = b.fabs(f).oeq(float("inf"))
    safe = b.select(inf, b.const(0.0, f.ty), f)
    fw = b.cast("fptosi", safe, i128)
    gt = b.select(inf, f.ogt(0.0), fw.sgt(xw))
    lt = b.select(inf, f.olt(0.0), fw.slt(xw))
    return fix_direction(b, f, gt, lt, mode)


def fp_to_int(b: Builder, x: Val, bits: int, signed: bool, mode: str) -> Val:
    rounding = {"": "trunc", "rtz": "trunc", "rte": "roundeven", "rtp": "ceil", "rtn": "floor"}[mode]
    r = b.intrinsic(rounding, [x])
    ity = x.ty.like(f"i{bits}")
    return b.intrinsic("fptosi.sat" if signed else "fptoui.sat", [r], ret=ity, overload=[ity, x.ty])


def int_to_int(b: Builder, x: Val, src_signed: bool, bits: int, signed: bool, sat: bool) -> Val:
    if not sat:
        return b.resize_int(x, bits, src_signed)
    w = 128 if max(x.ty.bits, bits) == 64 else 64
    xw = b.resize_int(x, w, src_signed)
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    xw = b.select(xw.slt(lo), lo, b.select(xw.sgt(hi), hi, xw))
    return b.resize_int(xw, bits, signed)


def convert(b: Builder, x: Val, src: CLType, dst_elem: str, sat: bool, mode: str) -> Val:
    dst_code, _llvm, bits, kind = ELEMENTS[dst_elem]
    if src.is_float:
        if kind == "f":
            return fp_to_fp(b, x, ELEMENTS[dst_elem][1], mode)
        return fp_to_int(b, x, bits, kind == "s", mode)
    if kind == "f":
        return int_to_fp(b, x, src.signed, ELEMENTS[dst_elem][1], mode)
    return int_to_int(b, x, src.signed, bits, kind == "s", sat)


@builtin_pattern(_PATTERN)
def _convert(name: str, params: tuple[CLType, ...]) -> Impl | None:
    import re

    m = re.fullmatch(_PATTERN, name)
    assert m is not None
    dst, width, sat, mode = m.group(1), int(m.group(2) or 1), bool(m.group(3)), (m.group(4) or "_")[1:]
    if len(params) != 1 or not is_value(params[0]) or params[0].width != width:
        return None
    if sat and ELEMENTS[dst][3] == "f":
        return None
    src = params[0]
    return Impl(CLType(dst, width), lambda b, x: convert(b, x, src, dst, sat, mode), family="conversion")
