"""Widen Index Arithmetic: `sext(a + b + C)` of `add nsw` becomes
`sext(a) + sext(b) + C` in the wide type.

OpenCL C indexes with `int`, so a stencil's taps reach memory as
`gep float, p, sext(i32 row + x + c)`: one 32-bit add and one sign extension
per tap, which the backend cannot fold into the addressing mode. With `nsw`
the narrow sum does not wrap, so its sign extension equals the wide sum of
the extended terms; written that way, `sext(row) + sext(x)` is shared by the
taps of a row and each tap's constant becomes a displacement of its load.
In a packet's fast path that removes two instructions per tap, which is
what decides how many packets the out-of-order core keeps in flight.

Only trees that contain a constant term are rewritten (the point is to
expose it); the wide form never wraps, so it is poison in no lane where the
narrow one was not. Runs on scalar IR before the stride analysis; edits only
the function it is given and leaves the narrow adds for dead-code
elimination when nothing else uses them.
"""

from __future__ import annotations

from ..ir import instructions as I
from ..ir import types as T
from ..ir import values as V
from ..ir.builder import Builder

MAX_TERMS = 8


def _terms(v: V.Value, out: list[V.Value], const: list[int], depth: int = 0) -> bool:
    """Split an `add nsw` tree into its non-constant terms and constant sum."""
    if isinstance(v, V.ConstantInt):
        const[0] += v.signed
        return True
    if depth < 4 and isinstance(v, I.BinaryOperator) and v.opcode == "add" and "nsw" in v.flags:
        return _terms(v.lhs, out, const, depth + 1) and _terms(v.rhs, out, const, depth + 1)
    out.append(v)
    return len(out) <= MAX_TERMS


def widen_index_arithmetic(function: V.Function) -> int:
    """Rewrite `sext` of `add nsw` trees with a constant term; returns how many."""
    changed = 0
    for inst in list(function.instructions()):
        if not (isinstance(inst, I.CastInst) and inst.opcode == "sext"):
            continue
        src = inst.value
        if not (isinstance(src, I.BinaryOperator) and src.opcode == "add" and "nsw" in src.flags):
            continue
        if not isinstance(src.type, T.IntType) or not isinstance(inst.type, T.IntType):
            continue
        terms: list[V.Value] = []
        const = [0]
        if not _terms(src, terms, const) or not terms or const[0] == 0:
            continue
        b = Builder().position_before(inst)
        acc: V.Value = b.sext(terms[0], inst.type)
        for t in terms[1:]:
            acc = b.add(acc, b.sext(t, inst.type), flags=("nsw",))
        acc = b.add(acc, V.const_int(inst.type, const[0]), flags=("nsw",), name=inst.name or None)
        inst.replace_all_uses_with(acc)
        inst.erase_from_parent()
        changed += 1
    return changed
