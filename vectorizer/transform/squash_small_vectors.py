"""Squash Small Vectors (seed, "Squash Small Vectors Pass"): a varying load
or store of a small vector (`<2 x float>`, `<4 x i8>`: at most 64 bits) is
done as one integer of the same size.

Scalarization would split such an access into one access per element, each
strided by the vector's size: k gathers or interleaved loads per packet. As
one `i32`/`i64`, it is a single contiguous or gathered access, and the
elements come out of the integer with shifts and truncations (which the
scalarizer then splits element by element, as cheap vector arithmetic).

Little-endian targets only: element j is bits [j*b, (j+1)*b) of the integer.
This pass edits only the function it is given.
"""

from __future__ import annotations

from ..analysis.data_layout import DataLayout
from ..analysis.uniformity import UniformValueAnalysis
from ..ir import instructions as I
from ..ir import types as T
from ..ir import values as V
from ..ir.builder import Builder

MAX_BITS = 64


def _squashable(ty: T.Type, layout: DataLayout) -> tuple[T.VectorType, int, int] | None:
    """(vector type, element bits, total bits) of a vector that fits an integer."""
    if not isinstance(ty, T.VectorType) or ty.scalable:
        return None
    elem = ty.element
    if isinstance(elem, T.IntType):
        bits = elem.bits
    elif isinstance(elem, T.FloatType) and elem.kind in ("half", "float", "double"):
        bits = layout.store_size(elem) * 8
    else:
        return None
    total = bits * ty.count
    if bits % 8 or total > MAX_BITS or total not in (16, 32, 64):
        return None
    return ty, bits, total


def _as_int(b: Builder, value: V.Value, bits: int) -> V.Value:
    if isinstance(value.type, T.IntType):
        return value
    return b.bitcast(value, T.IntType(bits))


def _from_int(b: Builder, value: V.Value, elem: T.Type) -> V.Value:
    return value if isinstance(elem, T.IntType) else b.bitcast(value, elem)


def squash_small_vectors(
    function: V.Function, uniform: UniformValueAnalysis, layout: DataLayout, little_endian: bool = True
) -> int:
    """Squash the varying small-vector loads and stores of `function`; returns how many."""
    if not little_endian:
        return 0
    done = 0
    for inst in list(function.instructions()):
        if not isinstance(inst, (I.LoadInst, I.StoreInst)) or inst.volatile or inst.ordering:
            continue
        if not uniform.is_varying(inst):
            continue
        is_load = isinstance(inst, I.LoadInst)
        shape = _squashable(inst.type if is_load else inst.value.type, layout)
        if shape is None:
            continue
        b = Builder()
        b.position_before(inst)
        if is_load:
            inst.replace_all_uses_with(_load_as_int(b, inst, *shape))
        else:
            _store_as_int(b, inst, *shape)
        inst.erase_from_parent()
        done += 1
    return done


def _load_as_int(b: Builder, inst: I.LoadInst, vty: T.VectorType, eb: int, total: int) -> V.Value:
    """The loaded vector, rebuilt from one `i<total>` load."""
    ity = T.IntType(total)
    whole = b.load(ity, inst.pointer, align=inst.align, name=f"{inst.name}.sq" if inst.name else None)
    acc: V.Value = V.PoisonValue(vty)
    for j in range(vty.count):
        part: V.Value = b.lshr(whole, V.const_int(ity, j * eb)) if j else whole
        if eb < total:
            part = b.trunc(part, T.IntType(eb))
        acc = b.insertelement(acc, _from_int(b, part, vty.element), V.const_int(T.IntType(32), j))
    return acc


def _store_as_int(b: Builder, inst: I.StoreInst, vty: T.VectorType, eb: int, total: int) -> None:
    """The stored vector, packed into one `i<total>` store."""
    ity = T.IntType(total)
    whole: V.Value | None = None
    for j in range(vty.count):
        part = _as_int(b, b.extractelement(inst.value, V.const_int(T.IntType(32), j)), eb)
        if eb < total:
            part = b.zext(part, ity)
        if j:
            part = b.shl(part, V.const_int(ity, j * eb))
        whole = part if whole is None else b.or_(whole, part)
    assert whole is not None
    b.store(whole, inst.pointer, align=inst.align)
