"""Remove Intptr (seed, "Remove Intptr Pass"): pointer arithmetic done on
integers becomes GEPs again.

`inttoptr(ptrtoint(p) + off)` is `getelementptr i8, p, off`, and
`ptrtoint(p) + off` is `ptrtoint(getelementptr i8, p, off)`. On the GEP form
the stride analysis sees the base pointer and the offset's stride, so the
access can be contiguous or interleaved instead of a gather through an
opaque integer. The result is the same address bit for bit (GEPs without
`inbounds` are modular like the integer add).

This pass edits only the function it is given.
"""

from __future__ import annotations

from ..ir import instructions as I
from ..ir import types as T
from ..ir import values as V
from ..ir.builder import Builder


def _split_add(v: V.Value) -> tuple[I.CastInst, V.Value] | None:
    """`ptrtoint(p) + off` (either order) taken apart, pointer-width adds only."""
    if not isinstance(v, I.BinaryOperator) or v.opcode != "add":
        return None
    for a, b in ((v.lhs, v.rhs), (v.rhs, v.lhs)):
        if isinstance(a, I.CastInst) and a.opcode == "ptrtoint" and a.type == v.type:
            return a, b
    return None


def remove_intptr(function: V.Function, pointer_bits: int = 64) -> int:
    """Rewrite integer pointer arithmetic in `function` as GEPs; returns how many."""
    changed = 0
    # Round trips first, so their adds are not turned into ptrtoint(GEP).
    for inst in list(function.instructions()):
        if not (isinstance(inst, I.CastInst) and inst.opcode == "inttoptr"):
            continue
        split = _split_add(inst.value)
        if split is None or split[0].value.type != inst.type:
            continue  # no base pointer, or another address space: keep the cast
        p2i, off = split
        b = Builder()
        b.position_before(inst)
        gep = b.gep(T.IntType(8), p2i.value, [off], name=inst.name or "remove_intptr")
        inst.replace_all_uses_with(gep)
        inst.erase_from_parent()
        changed += 1
    for inst in list(function.instructions()):
        if inst.parent is None or not isinstance(inst, I.BinaryOperator):
            continue
        split = _split_add(inst)
        if split is None or not isinstance(inst.type, T.IntType) or inst.type.bits != pointer_bits:
            continue
        p2i, off = split
        b = Builder()
        b.position_before(inst)
        gep = b.gep(T.IntType(8), p2i.value, [off], name="remove_intptr")
        back = b.ptrtoint(gep, inst.type)
        inst.replace_all_uses_with(back)
        back.name = inst.name
        inst.erase_from_parent()
        changed += 1
    return changed
