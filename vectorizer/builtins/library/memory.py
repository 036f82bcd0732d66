"""Vector data load and store (OpenCL C 1.2, 6.12.7): vloadn, vstoren,
vload_half[n], vloada_half[n], vstore_half[n][_mode], vstorea_half[n][_mode],
for every address space a pointer may have (private, global, constant for
loads, local, generic); and shuffle/shuffle2 (6.12.12), which select lanes
by a run-time mask.
"""

from __future__ import annotations

from .conversions import fp_to_fp
from .ir import Builder, Ty, Val
from .registry import Impl, builtin, builtin_pattern, int_like, is_value
from .types import CLType

_N = r"(2|3|4|8|16)"


def _offset_ok(t: CLType) -> bool:
    # size_t offsets: ulong on spir64 (uint on 32-bit SPIR, accepted too).
    return is_value(t) and t.width == 1 and t.elem in ("ulong", "uint")


def _load_ptr(p: CLType, elem: str) -> bool:
    return p.pointee == CLType(elem) and p.addrspace in (0, 1, 2, 3, 4)


def _store_ptr(p: CLType, elem: str) -> bool:
    return p.pointee == CLType(elem) and not p.const and p.addrspace in (0, 1, 3, 4)


def _addr(b: Builder, p: Val, elem: str, offset: Val, stride: int) -> Val:
    off = b.resize_int(offset, 64, False) * stride
    return b.gep(elem, p, off)


@builtin_pattern(rf"vload{_N}")
def _vload(name: str, params: tuple[CLType, ...]) -> Impl | None:
    n = int(name[5:])
    if len(params) != 2 or not _offset_ok(params[0]) or params[1].pointee is None:
        return None
    elem = params[1].pointee.elem
    if params[1].pointee.width != 1 or not _load_ptr(params[1], elem):
        return None
    t = CLType(elem, n)
    size = t.bits // 8

    def body(b: Builder, off: Val, p: Val) -> Val:
        return b.load(Ty(t.llvm_elem, n), _addr(b, p, t.llvm_elem, off, n), size)
    return Impl(t, body, pure=False, family="vload/vstore")


@builtin_pattern(rf"vstore{_N}")
def _vstore(name: str, params: tuple[CLType, ...]) -> Impl | None:
    n = int(name[6:])
    if len(params) != 3 or not is_value(params[0]) or params[0].width != n or not _offset_ok(params[1]):
        return None
    t = params[0]
    if not _store_ptr(params[2], t.elem):
        return None

    def body(b: Builder, v: Val, off: Val, p: Val) -> None:
        b.store(v, _addr(b, p, t.llvm_elem, off, n), t.bits // 8)
    return Impl(None, body, pure=False, family="vload/vstore")


@builtin_pattern(rf"vloada?_half{_N}?")
def _vload_half(name: str, params: tuple[CLType, ...]) -> Impl | None:
    aligned = name.startswith("vloada")
    digits = name.split("half")[1]
    n = int(digits or 1)
    if len(params) != 2 or not _offset_ok(params[0]) or not _load_ptr(params[1], "half"):
        return None
    stride = 4 if (aligned and n == 3) else n
    align = 2 * stride if aligned else 2
    t = CLType("float", n)

    def body(b: Builder, off: Val, p: Val) -> Val:
        ty = Ty("half", n if n > 1 else 0)
        h = b.load(ty, _addr(b, p, "half", off, stride), align)
        return b.cast("fpext", h, ty.like("float"))
    return Impl(t, body, pure=False, family="vload/vstore")


@builtin_pattern(rf"vstorea?_half{_N}?(_rte|_rtz|_rtp|_rtn)?")
def _vstore_half(name: str, params: tuple[CLType, ...]) -> Impl | None:
    aligned = name.startswith("vstorea")
    rest = name.split("half")[1]
    mode = ""
    if "_" in rest:
        rest, mode = rest.split("_")
    n = int(rest or 1)
    if len(params) != 3 or not is_value(params[0]) or params[0].width != n:
        return None
    if params[0].elem not in ("float", "double") or not _offset_ok(params[1]) or not _store_ptr(params[2], "half"):
        return None
    stride = 4 if (aligned and n == 3) else n
    align = 2 * stride if aligned else 2

    def body(b: Builder, v: Val, off: Val, p: Val) -> None:
        h = fp_to_fp(b, v, "half", mode)
        b.store(h, _addr(b, p, "half", off, stride), align)
    return Impl(None, body, pure=False, family="vload/vstore")


@builtin("shuffle", "shuffle2")
def _shuffle(name: str, params: tuple[CLType, ...]) -> Impl | None:
    two = name == "shuffle2"
    if len(params) != (3 if two else 2):
        return None
    x, mask = params[0], params[-1]
    if two and params[1] != x:
        return None
    if not is_value(x) or x.width not in (2, 4, 8, 16) or not int_like(mask, signed=False):
        return None
    if mask.width not in (2, 4, 8, 16) or mask.bits != x.bits:
        return None
    m = x.width
    rt = CLType(x.elem, mask.width)

    def body(b: Builder, *args: Val) -> Val:
        k = args[-1]
        src = b.shuffle(args[0], args[1], list(range(2 * m))) if two else args[0]
        total = 2 * m if two else m
        idx = k & (total - 1)
        out = b.poison(Ty(x.llvm_elem, mask.width))
        for i in range(mask.width):
            j = b.extract(idx, i)
            out = b.insert(out, b.op(f"extractelement {src}, {j}", src.ty.scalar), i)
        return out
    return Impl(rt, body, family="shuffle")


@builtin("prefetch")
def _prefetch(name: str, params: tuple[CLType, ...]) -> Impl | None:
    """prefetch(const global gentype *p, size_t n): a hint; nothing to do on a CPU's caches here."""
    if len(params) != 2 or params[0].pointee is None or params[0].addrspace != 1 or not _offset_ok(params[1]):
        return None
    if not is_value(params[0].pointee):
        return None

    def body(b: Builder, p: Val, n: Val) -> None:
        return None
    return Impl(None, body, pure=True, family="prefetch")
