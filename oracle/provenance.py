"""Pointer provenance for the sanitizer: which object a pointer is based on.

An access through a pointer derived from kernel argument k must stay inside
buffer k, even when the address it computes happens to land inside another
buffer's memory; so the object is derived from the IR, not from the address.
`root(v)` follows getelementptr, bitcast/addrspacecast, phi and select (all
incoming values based on the same object), insertelement/shufflevector of
pointer vectors, and integer arithmetic between a `ptrtoint` and an
`inttoptr` (one pointer leaf, the rest offsets). Anything else (a pointer
loaded from memory, a call's result, a constant address, two different
objects merged by a phi) has no static root: the sanitizer then looks the
address up among the objects at run time.

An analysis: it never edits the IR.
"""

from __future__ import annotations

from dataclasses import dataclass

from vectorizer.ir import instructions as I
from vectorizer.ir import module as M
from vectorizer.ir import values as V


@dataclass(frozen=True)
class Root:
    """The object a pointer is based on: an `Argument`, a `GlobalVariable`
    or an `AllocaInst`."""

    value: V.Value

    @property
    def kind(self) -> str:
        """"arg", "global" or "alloca"."""
        if isinstance(self.value, M.Argument):
            return "arg"
        if isinstance(self.value, M.GlobalVariable):
            return "global"
        return "alloca"


# Integer operations through which an address stays inside its object
# (plus or minus an offset): `or`/`and` cover aligning a base and `or
# disjoint` of an aligned base and a small offset.
_OFFSET_OPS = {"add", "sub", "or", "xor", "and"}

# Lattice: TOP (no information yet) < NOADDR (an integer that is not an
# address) | Root (based on that object) < UNKNOWN.
_TOP = None
_NOADDR = "noaddr"
_UNKNOWN = "unknown"


def _join(a: object, b: object) -> object:
    if a is _TOP:
        return b
    if b is _TOP or a == b:
        return a
    return _UNKNOWN


class Provenance:
    """Roots of every pointer of one function, solved as a forward data-flow
    problem (phis may refer to values defined later in a loop)."""

    def __init__(self, fn: M.Function) -> None:
        self._state: dict[int, object] = {}
        insts = list(fn.instructions())
        changed = True
        while changed:
            changed = False
            for inst in insts:
                new = self._transfer(inst)
                old = self._state.get(id(inst), _TOP)
                joined = _join(old, new)
                if joined != old:
                    self._state[id(inst)] = joined
                    changed = True

    def root(self, v: V.Value) -> Root | None:
        """The object `v` (a pointer or vector of pointers) is based on, or None."""
        r = self._val(v)
        return r if isinstance(r, Root) else None

    def _val(self, v: V.Value) -> object:
        if isinstance(v, (M.Argument, M.GlobalVariable)):
            return Root(v) if _is_pointer(v.type) else _NOADDR
        if isinstance(v, I.Instruction):
            return self._state.get(id(v), _TOP)
        if isinstance(v, (V.PoisonValue, V.UndefValue)):
            return _TOP
        if isinstance(v, V.ConstantExpr):
            return self._expr(v.opcode, v.operands, v.type)
        if _is_pointer(v.type):
            return _UNKNOWN  # null, a constant address, a function
        return _NOADDR

    def _transfer(self, i: I.Instruction) -> object:
        if isinstance(i, I.AllocaInst):
            return Root(i)
        if isinstance(i, (I.PhiNode, I.SelectInst, I.InsertElementInst, I.ShuffleVectorInst)):
            if isinstance(i, I.PhiNode):
                vals = i.incoming_values
            elif isinstance(i, I.SelectInst):
                vals = [i.true_value, i.false_value]
            elif isinstance(i, I.InsertElementInst):
                vals = [i.vector, i.element]
            else:
                vals = [i.operands[0], i.operands[1]]
            out: object = _TOP
            for x in vals:
                out = _join(out, self._val(x))
            return out
        if isinstance(i, (I.GetElementPtrInst, I.CastInst, I.BinaryOperator, I.FreezeInst,
                          I.ExtractElementInst)):
            return self._expr(i.opcode, i.operands, i.type)
        return _UNKNOWN if _is_pointer(i.type) else _NOADDR

    def _expr(self, opcode: str, ops: tuple[V.Value, ...] | list[V.Value], ty: object) -> object:
        if opcode in ("getelementptr", "bitcast", "addrspacecast", "freeze", "extractelement"):
            r = self._val(ops[0])
            return _UNKNOWN if r == _NOADDR and _is_pointer(ty) else r
        if opcode == "inttoptr":
            r = self._val(ops[0])
            return _UNKNOWN if r == _NOADDR else r
        if opcode in ("ptrtoint", "zext", "sext", "trunc"):
            return self._val(ops[0])
        vals = [self._val(o) for o in ops]
        if any(x is _TOP for x in vals):
            return _TOP
        if all(x == _NOADDR for x in vals):
            return _NOADDR
        if opcode in _OFFSET_OPS and len(vals) == 2:
            a, b = vals
            if b == _NOADDR:
                return a
            if opcode == "sub":
                return _NOADDR if a == b and isinstance(a, Root) else _UNKNOWN
            if a == _NOADDR:
                return b
        return _UNKNOWN


def _is_pointer(t: object) -> bool:
    from vectorizer.ir import types as T

    return isinstance(T.scalar_type(t), T.PointerType)  # type: ignore[arg-type]
