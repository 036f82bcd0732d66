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
    f is greater or less than the exact value. A step onto zero keeps f's sign
    (the exact value is a nonzero number of that sign)."""
    if mode == "rtp":
        r = b.select(cmp_lt, step(b, f, b.const(1, cmp_lt.ty)), f)
    elif mode == "rtn":
        r = b.select(cmp_gt, step(b, f, b.const(0, cmp_gt.ty)), f)
    elif mode == "rtz":
        neg = b.as_int(f).slt(0)
        away = b.select(neg, cmp_lt, cmp_gt)
        r = b.select(away, step(b, f, neg), f)
    else:
        return f
    return b.select(r.oeq(0.0), b.copysign(r, f), r)


def fp_to_fp(b: Builder, x: Val, elem: str, mode: str) -> Val:
    """Floating-point conversion with a rounding mode ("" = to nearest)."""
    if x.ty.elem == elem:
        return x
    if ELEMENTS[elem][2] > x.ty.bits:
        return b.cast("fpext", x, x.ty.like(elem))
    f = b.fp_resize(x, elem)
    if mode in ("", "rte"):
        return f
    back = b.cast("fpext", f, x.ty)
    return fix_direction(b, f, back.ogt(x), back.olt(x), mode)


def int_to_fp(b: Builder, x: Val, signed: bool, elem: str, mode: str) -> Val:
    f = b.cast("sitofp" if signed else "uitofp", x, x.ty.like(elem))
    if mode in ("", "rte"):
        return f
    # f is an integer (or infinite): compare it with x as an integer of x's width,
    # through a saturating conversion (no 128-bit arithmetic: no library calls).
    bits = x.ty.bits
    limit = 2.0 ** (bits - 1 if signed else bits)
    fd = b.fp_resize(f, "double") if elem != "double" else f
    over = fd.oge(limit)
    under = fd.olt(-limit) if signed else fd.olt(0.0)
    fi = b.intrinsic("fptosi.sat" if signed else "fptoui.sat", [f], ret=x.ty, overload=[x.ty, f.ty])
    gt = over | (~under & fi.cmp("sgt" if signed else "ugt", x))
    lt = under | (~over & fi.cmp("slt" if signed else "ult", x))
    return fix_direction(b, f, gt, lt, mode)


def fp_to_int(b: Builder, x: Val, bits: int, signed: bool, mode: str) -> Val:
    rounding = {"": "trunc", "rtz": "trunc", "rte": "roundeven", "rtp": "ceil", "rtn": "floor"}[mode]
    # half goes through float (exact): LLVM's f16 saturating conversion mishandles NaN on x86.
    r = b.intrinsic(rounding, [b.fp_resize(x, "float") if x.ty.elem == "half" else x])
    ity = x.ty.like(f"i{bits}")
    return b.intrinsic("fptosi.sat" if signed else "fptoui.sat", [r], ret=ity, overload=[ity, r.ty])


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
