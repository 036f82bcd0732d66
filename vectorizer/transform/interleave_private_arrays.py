"""Interleave varying private arrays: lay out the W lanes' copies of a
private array element by element (element k of every lane side by side)
instead of one whole copy after another.

With one copy per lane, back to back, `v[k]` is W accesses one array size
apart: a gather. Interleaved, the W lanes' `v[k]` are adjacent: one vector
load or store when `k` is uniform, as in the inner loops of binomial option
pricing or any per-work-item table indexed by a loop counter.

Only arrays whose every use is a load or store of the element type,
directly or through one GEP, are interleaved; anything else (byte-offset
GEPs, the pointer escaping into a call or a store, mixed element types)
keeps the copy-per-lane layout. In the scalar (lane 0) code each element
index is scaled by W, so lane 0 reads its own element k at `k*W` and lane
l's is `l` elements further on: the stride analysis gives these allocas a
lane stride of one element.

This pass edits only the function it is given.
"""

from __future__ import annotations

from ..analysis.data_layout import DataLayout
from ..analysis.uniformity import UniformValueAnalysis
from ..ir import instructions as I
from ..ir import types as T
from ..ir import values as V
from ..ir.builder import Builder

_ELEMENT_TYPES = (T.IntType, T.FloatType)


def _element_of(alloca: I.AllocaInst) -> tuple[T.Type, int] | None:
    """(element type, element count) of `[N x T]` or a scalar `T`."""
    ty = alloca.allocated_type
    if alloca.count is not None and not (isinstance(alloca.count, V.ConstantInt) and alloca.count.value == 1):
        return None
    if isinstance(ty, T.ArrayType) and isinstance(ty.element, _ELEMENT_TYPES):
        return ty.element, ty.count
    if isinstance(ty, _ELEMENT_TYPES):
        return ty, 1
    return None


def _index_of(gep: I.GetElementPtrInst, elem: T.Type, alloca: I.AllocaInst) -> V.Value | None:
    """The element index a GEP from the alloca computes, if it is one."""
    src = gep.source_element_type
    idx = gep.indices
    if src == alloca.allocated_type and isinstance(src, T.ArrayType) and len(idx) == 2:
        first = idx[0]
        if isinstance(first, V.ConstantInt) and first.value == 0:
            return idx[1]
        return None
    if src == elem and len(idx) == 1:
        return idx[0]
    return None


def _accesses_only(value: V.Value, elem: T.Type) -> bool:
    """Is every use of `value` a load of `elem` or a store of an `elem` to it?"""
    return all(_direct_access_ok(use.user, use.index, elem) for use in value.uses)


def interleave_private_arrays(
    function: V.Function, uniform: UniformValueAnalysis, layout: DataLayout, width: int
) -> dict[int, int]:
    """Interleave the eligible varying private arrays of `function` for
    `width` lanes; returns {id(alloca): element size in bytes} of those done."""
    done: dict[int, int] = {}
    i64 = T.IntType(64)
    for alloca in [i for i in function.instructions() if isinstance(i, I.AllocaInst)]:
        if not uniform.is_varying(alloca):
            continue
        shape = _element_of(alloca)
        if shape is None:
            continue
        elem, count = shape
        size = layout.alloc_size(elem)
        if size != layout.store_size(elem):
            continue
        geps: list[tuple[I.GetElementPtrInst, V.Value]] = []
        ok = True
        for use in alloca.uses:
            user = use.user
            if isinstance(user, I.GetElementPtrInst) and use.index == 0:
                index = _index_of(user, elem, alloca)
                if index is None or not isinstance(index.type, T.IntType) or not _accesses_only(user, elem):
                    ok = False
                    break
                geps.append((user, index))
            elif isinstance(user, (I.LoadInst, I.StoreInst)):
                if not _direct_access_ok(user, use.index, elem):
                    ok = False
                    break
            elif _is_lifetime_marker(user):
                continue  # marks the whole object live; its layout does not matter
            else:
                ok = False
                break
        if not ok:
            continue
        for gep, index in geps:
            b = Builder()
            b.position_before(gep)
            wide = index
            if index.type != i64:
                wide = b.sext(index, i64)  # GEP indices are signed
            scaled = b.mul(wide, V.const_int(i64, width))
            new = b.gep(elem, alloca, [scaled], name=gep.name)
            gep.name = None
            gep.replace_all_uses_with(new)
            gep.erase_from_parent()
        alloca.allocated_type = T.ArrayType(elem, count * width)
        alloca.align = alloca.align or layout.abi_align(elem)
        done[id(alloca)] = size
    return done


def _is_lifetime_marker(user: I.Instruction) -> bool:
    if not isinstance(user, I.CallInst):
        return False
    fn = user.called_function
    return fn is not None and fn.name.startswith("llvm.lifetime.")


def _direct_access_ok(user: V.Value, index: int, elem: T.Type) -> bool:
    """A plain load of `elem` through the pointer, or a store of an `elem` to it
    (operand 1: the pointer, not the value stored)."""
    if isinstance(user, I.LoadInst):
        return user.type == elem and not user.volatile and not user.ordering
    if isinstance(user, I.StoreInst):
        return index == 1 and user.value.type == elem and not user.volatile and not user.ordering
    return False
