"""`Builder`: creates instructions at an insertion point.

The insertion point is a block plus, optionally, an instruction to insert
before; instructions built one after another therefore stay in build order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from . import instructions as I
from . import types as T
from .module import BasicBlock, Function
from .values import ConstantInt, Value

__all__ = ["Builder"]


class Builder:
    """Builds instructions at an insertion point (see module docstring)."""

    def __init__(self, block: BasicBlock | None = None) -> None:
        self.block: BasicBlock | None = block
        self.before: I.Instruction | None = None

    # ------------------------------------------------------------- position

    def position_at_end(self, bb: BasicBlock) -> Builder:
        """Insert at the end of `bb`."""
        self.block = bb
        self.before = None
        return self

    def position_at_start(self, bb: BasicBlock) -> Builder:
        """Insert at the start of `bb` (before its first instruction)."""
        self.block = bb
        self.before = bb.instructions[0] if bb.instructions else None
        return self

    def position_before(self, inst: I.Instruction) -> Builder:
        """Insert just before `inst`."""
        if inst.parent is None:
            raise ValueError("position_before: instruction is not in a block")
        self.block = inst.parent
        self.before = inst
        return self

    def position_after(self, inst: I.Instruction) -> Builder:
        """Insert just after `inst` (later insertions follow in order)."""
        if inst.parent is None:
            raise ValueError("position_after: instruction is not in a block")
        self.block = inst.parent
        self.before = inst.next_instruction
        return self

    @property
    def function(self) -> Function | None:
        """The function being built into."""
        return self.block.parent if self.block is not None else None

    def insert(self, inst: I.Instruction, name: str | None = None) -> I.Instruction:
        """Insert a detached instruction at the insertion point."""
        if self.block is None:
            raise ValueError("Builder has no insertion point")
        if name is not None:
            inst.name = name or None
        if self.before is not None:
            inst.insert_before(self.before)
        else:
            self.block.append(inst)
        return inst

    # ----------------------------------------------------------- arithmetic

    def binop(self, opcode: str, a: Value, b: Value, flags: Iterable[str] = (), name: str | None = None) -> I.BinaryOperator:
        """`opcode a, b` for any binary opcode."""
        return self.insert(I.BinaryOperator(opcode, a, b, flags), name)  # type: ignore[return-value]

    def add(self, a: Value, b: Value, flags: Iterable[str] = (), name: str | None = None) -> I.BinaryOperator:
        """`add`."""
        return self.binop("add", a, b, flags, name)

    def sub(self, a: Value, b: Value, flags: Iterable[str] = (), name: str | None = None) -> I.BinaryOperator:
        """`sub`."""
        return self.binop("sub", a, b, flags, name)

    def mul(self, a: Value, b: Value, flags: Iterable[str] = (), name: str | None = None) -> I.BinaryOperator:
        """`mul`."""
        return self.binop("mul", a, b, flags, name)

    def udiv(self, a: Value, b: Value, flags: Iterable[str] = (), name: str | None = None) -> I.BinaryOperator:
        """`udiv`."""
        return self.binop("udiv", a, b, flags, name)

    def sdiv(self, a: Value, b: Value, flags: Iterable[str] = (), name: str | None = None) -> I.BinaryOperator:
        """`sdiv`."""
        return self.binop("sdiv", a, b, flags, name)

    def urem(self, a: Value, b: Value, flags: Iterable[str] = (), name: str | None = None) -> I.BinaryOperator:
        """`urem`."""
        return self.binop("urem", a, b, flags, name)

    def srem(self, a: Value, b: Value, flags: Iterable[str] = (), name: str | None = None) -> I.BinaryOperator:
        """`srem`."""
        return self.binop("srem", a, b, flags, name)

    def shl(self, a: Value, b: Value, flags: Iterable[str] = (), name: str | None = None) -> I.BinaryOperator:
        """`shl`."""
        return self.binop("shl", a, b, flags, name)

    def lshr(self, a: Value, b: Value, flags: Iterable[str] = (), name: str | None = None) -> I.BinaryOperator:
        """`lshr`."""
        return self.binop("lshr", a, b, flags, name)

    def ashr(self, a: Value, b: Value, flags: Iterable[str] = (), name: str | None = None) -> I.BinaryOperator:
        """`ashr`."""
        return self.binop("ashr", a, b, flags, name)

    def and_(self, a: Value, b: Value, flags: Iterable[str] = (), name: str | None = None) -> I.BinaryOperator:
        """`and`."""
        return self.binop("and", a, b, flags, name)

    def or_(self, a: Value, b: Value, flags: Iterable[str] = (), name: str | None = None) -> I.BinaryOperator:
        """`or`."""
        return self.binop("or", a, b, flags, name)

    def xor(self, a: Value, b: Value, flags: Iterable[str] = (), name: str | None = None) -> I.BinaryOperator:
        """`xor`."""
        return self.binop("xor", a, b, flags, name)

    def fadd(self, a: Value, b: Value, flags: Iterable[str] = (), name: str | None = None) -> I.BinaryOperator:
        """`fadd`."""
        return self.binop("fadd", a, b, flags, name)

    def fsub(self, a: Value, b: Value, flags: Iterable[str] = (), name: str | None = None) -> I.BinaryOperator:
        """`fsub`."""
        return self.binop("fsub", a, b, flags, name)

    def fmul(self, a: Value, b: Value, flags: Iterable[str] = (), name: str | None = None) -> I.BinaryOperator:
        """`fmul`."""
        return self.binop("fmul", a, b, flags, name)

    def fdiv(self, a: Value, b: Value, flags: Iterable[str] = (), name: str | None = None) -> I.BinaryOperator:
        """`fdiv`."""
        return self.binop("fdiv", a, b, flags, name)

    def frem(self, a: Value, b: Value, flags: Iterable[str] = (), name: str | None = None) -> I.BinaryOperator:
        """`frem`."""
        return self.binop("frem", a, b, flags, name)

    def fneg(self, v: Value, flags: Iterable[str] = (), name: str | None = None) -> I.UnaryOperator:
        """`fneg`."""
        return self.insert(I.UnaryOperator("fneg", v, flags), name)  # type: ignore[return-value]

    def icmp(self, pred: str, a: Value, b: Value, flags: Iterable[str] = (), name: str | None = None) -> I.ICmpInst:
        """`icmp pred a, b`."""
        return self.insert(I.ICmpInst(pred, a, b, flags), name)  # type: ignore[return-value]

    def fcmp(self, pred: str, a: Value, b: Value, flags: Iterable[str] = (), name: str | None = None) -> I.FCmpInst:
        """`fcmp pred a, b`."""
        return self.insert(I.FCmpInst(pred, a, b, flags), name)  # type: ignore[return-value]

    def select(self, c: Value, t: Value, f: Value, flags: Iterable[str] = (), name: str | None = None) -> I.SelectInst:
        """`select c, t, f`."""
        return self.insert(I.SelectInst(c, t, f, flags), name)  # type: ignore[return-value]

    def phi(self, ty: T.Type, incoming: Iterable[tuple[Value, BasicBlock]] = (), flags: Iterable[str] = (), name: str | None = None) -> I.PhiNode:
        """An (initially empty) phi of type `ty`."""
        return self.insert(I.PhiNode(ty, incoming, flags), name)  # type: ignore[return-value]

    def freeze(self, v: Value, name: str | None = None) -> I.FreezeInst:
        """`freeze v`."""
        return self.insert(I.FreezeInst(v), name)  # type: ignore[return-value]

    # ---------------------------------------------------------------- casts

    def cast(self, opcode: str, v: Value, ty: T.Type, flags: Iterable[str] = (), name: str | None = None) -> I.CastInst:
        """`opcode v to ty`."""
        return self.insert(I.CastInst(opcode, v, ty, flags), name)  # type: ignore[return-value]

    def trunc(self, v: Value, ty: T.Type, flags: Iterable[str] = (), name: str | None = None) -> I.CastInst:
        """`trunc`."""
        return self.cast("trunc", v, ty, flags, name)

    def zext(self, v: Value, ty: T.Type, flags: Iterable[str] = (), name: str | None = None) -> I.CastInst:
        """`zext`."""
        return self.cast("zext", v, ty, flags, name)

    def sext(self, v: Value, ty: T.Type, flags: Iterable[str] = (), name: str | None = None) -> I.CastInst:
        """`sext`."""
        return self.cast("sext", v, ty, flags, name)

    def fptrunc(self, v: Value, ty: T.Type, flags: Iterable[str] = (), name: str | None = None) -> I.CastInst:
        """`fptrunc`."""
        return self.cast("fptrunc", v, ty, flags, name)

    def fpext(self, v: Value, ty: T.Type, flags: Iterable[str] = (), name: str | None = None) -> I.CastInst:
        """`fpext`."""
        return self.cast("fpext", v, ty, flags, name)

    def fptoui(self, v: Value, ty: T.Type, flags: Iterable[str] = (), name: str | None = None) -> I.CastInst:
        """`fptoui`."""
        return self.cast("fptoui", v, ty, flags, name)

    def fptosi(self, v: Value, ty: T.Type, flags: Iterable[str] = (), name: str | None = None) -> I.CastInst:
        """`fptosi`."""
        return self.cast("fptosi", v, ty, flags, name)

    def uitofp(self, v: Value, ty: T.Type, flags: Iterable[str] = (), name: str | None = None) -> I.CastInst:
        """`uitofp`."""
        return self.cast("uitofp", v, ty, flags, name)

    def sitofp(self, v: Value, ty: T.Type, flags: Iterable[str] = (), name: str | None = None) -> I.CastInst:
        """`sitofp`."""
        return self.cast("sitofp", v, ty, flags, name)

    def ptrtoint(self, v: Value, ty: T.Type, flags: Iterable[str] = (), name: str | None = None) -> I.CastInst:
        """`ptrtoint`."""
        return self.cast("ptrtoint", v, ty, flags, name)

    def inttoptr(self, v: Value, ty: T.Type, flags: Iterable[str] = (), name: str | None = None) -> I.CastInst:
        """`inttoptr`."""
        return self.cast("inttoptr", v, ty, flags, name)

    def bitcast(self, v: Value, ty: T.Type, flags: Iterable[str] = (), name: str | None = None) -> I.CastInst:
        """`bitcast`."""
        return self.cast("bitcast", v, ty, flags, name)

    def addrspacecast(self, v: Value, ty: T.Type, flags: Iterable[str] = (), name: str | None = None) -> I.CastInst:
        """`addrspacecast`."""
        return self.cast("addrspacecast", v, ty, flags, name)

    # --------------------------------------------------------------- memory

    def gep(
        self,
        src_ty: T.Type,
        ptr: Value,
        indices: Sequence[Value | int],
        flags: Iterable[str] = (),
        name: str | None = None,
    ) -> I.GetElementPtrInst:
        """`getelementptr src_ty, ptr, indices...`; int indices become i32
        constants inside structs and i64 constants elsewhere."""
        idx: list[Value] = []
        t: T.Type | None = src_ty
        for k, ix in enumerate(indices):
            if isinstance(ix, int):
                ix = ConstantInt(T.i32 if isinstance(t, T.StructType) and k > 0 else T.i64, ix)
            idx.append(ix)
            if k > 0 and t is not None:
                if isinstance(t, T.StructType):
                    t = t.elements[ix.value] if isinstance(ix, ConstantInt) else None
                elif isinstance(t, (T.ArrayType, T.VectorType)):
                    t = t.element
        return self.insert(I.GetElementPtrInst(src_ty, ptr, idx, flags), name)  # type: ignore[return-value]

    def load(
        self,
        ty: T.Type,
        ptr: Value,
        align: int | None = None,
        volatile: bool = False,
        ordering: str | None = None,
        syncscope: str | None = None,
        name: str | None = None,
    ) -> I.LoadInst:
        """`load ty, ptr`."""
        return self.insert(I.LoadInst(ty, ptr, align, volatile, ordering, syncscope), name)  # type: ignore[return-value]

    def store(
        self,
        v: Value,
        ptr: Value,
        align: int | None = None,
        volatile: bool = False,
        ordering: str | None = None,
        syncscope: str | None = None,
    ) -> I.StoreInst:
        """`store v, ptr`."""
        return self.insert(I.StoreInst(v, ptr, align, volatile, ordering, syncscope))  # type: ignore[return-value]

    def alloca(
        self,
        ty: T.Type,
        count: Value | None = None,
        align: int | None = None,
        addrspace: int = 0,
        name: str | None = None,
    ) -> I.AllocaInst:
        """`alloca ty[, count][, align N]`."""
        return self.insert(I.AllocaInst(ty, count, align, addrspace), name)  # type: ignore[return-value]

    def atomicrmw(
        self,
        op: str,
        ptr: Value,
        v: Value,
        ordering: str = "seq_cst",
        syncscope: str | None = None,
        volatile: bool = False,
        align: int | None = None,
        name: str | None = None,
    ) -> I.AtomicRMWInst:
        """`atomicrmw op ptr, v ordering`."""
        return self.insert(I.AtomicRMWInst(op, ptr, v, ordering, syncscope, volatile, align), name)  # type: ignore[return-value]

    def cmpxchg(
        self,
        ptr: Value,
        cmp: Value,
        new: Value,
        success_ordering: str = "seq_cst",
        failure_ordering: str = "seq_cst",
        syncscope: str | None = None,
        weak: bool = False,
        volatile: bool = False,
        align: int | None = None,
        name: str | None = None,
    ) -> I.AtomicCmpXchgInst:
        """`cmpxchg ptr, cmp, new succ fail` (result `{ T, i1 }`)."""
        inst = I.AtomicCmpXchgInst(ptr, cmp, new, success_ordering, failure_ordering, syncscope, weak, volatile, align)
        return self.insert(inst, name)  # type: ignore[return-value]

    def fence(self, ordering: str = "seq_cst", syncscope: str | None = None) -> I.FenceInst:
        """`fence ordering`."""
        return self.insert(I.FenceInst(ordering, syncscope))  # type: ignore[return-value]

    # ---------------------------------------------------------------- calls

    def call(
        self,
        callee: Value,
        args: Sequence[Value],
        function_type: T.FunctionType | None = None,
        name: str | None = None,
        **kwargs: object,
    ) -> I.CallInst:
        """`call callee(args)`; `function_type` defaults to the callee's.
        Further keyword arguments go to `CallInst` (tail, flags, ...)."""
        if function_type is None:
            if isinstance(callee, Function):
                function_type = callee.function_type
            else:
                raise ValueError("call: function_type is required for an indirect callee")
        ret = self.insert(I.CallInst(function_type, callee, list(args), **kwargs), None)  # type: ignore[arg-type]
        if name and not isinstance(ret.type, T.VoidType):
            ret.name = name
        return ret  # type: ignore[return-value]

    # ---------------------------------------------------------- terminators

    def br(self, bb: BasicBlock) -> I.BranchInst:
        """`br label %bb`."""
        return self.insert(I.BranchInst(bb))  # type: ignore[return-value]

    def cond_br(self, c: Value, t: BasicBlock, f: BasicBlock) -> I.BranchInst:
        """`br i1 c, label %t, label %f`."""
        return self.insert(I.BranchInst(c, t, f))  # type: ignore[return-value]

    def switch(self, v: Value, default: BasicBlock, cases: Iterable[tuple[Value | int, BasicBlock]] = ()) -> I.SwitchInst:
        """`switch v, label %default [cases]` (int case values allowed)."""
        sw = I.SwitchInst(v, default)
        for c, b in cases:
            sw.add_case(c, b)
        return self.insert(sw)  # type: ignore[return-value]

    def ret(self, v: Value | None = None) -> I.ReturnInst:
        """`ret v` or `ret void`."""
        return self.insert(I.ReturnInst(v))  # type: ignore[return-value]

    def ret_void(self) -> I.ReturnInst:
        """`ret void`."""
        return self.ret(None)

    def unreachable(self) -> I.UnreachableInst:
        """`unreachable`."""
        return self.insert(I.UnreachableInst())  # type: ignore[return-value]

    # -------------------------------------------------------------- vectors

    def extractelement(self, vec: Value, idx: Value | int, name: str | None = None) -> I.ExtractElementInst:
        """`extractelement vec, idx` (an int index is an i32 constant)."""
        if isinstance(idx, int):
            idx = ConstantInt(T.i32, idx)
        return self.insert(I.ExtractElementInst(vec, idx), name)  # type: ignore[return-value]

    def insertelement(self, vec: Value, elt: Value, idx: Value | int, name: str | None = None) -> I.InsertElementInst:
        """`insertelement vec, elt, idx` (an int index is an i32 constant)."""
        if isinstance(idx, int):
            idx = ConstantInt(T.i32, idx)
        return self.insert(I.InsertElementInst(vec, elt, idx), name)  # type: ignore[return-value]

    def shufflevector(self, v1: Value, v2: Value, mask: Sequence[int], name: str | None = None) -> I.ShuffleVectorInst:
        """`shufflevector v1, v2, mask` (-1 lanes are poison)."""
        return self.insert(I.ShuffleVectorInst(v1, v2, mask), name)  # type: ignore[return-value]

    def extractvalue(self, agg: Value, indices: Sequence[int] | int, name: str | None = None) -> I.ExtractValueInst:
        """`extractvalue agg, indices...`."""
        if isinstance(indices, int):
            indices = [indices]
        return self.insert(I.ExtractValueInst(agg, indices), name)  # type: ignore[return-value]

    def insertvalue(self, agg: Value, v: Value, indices: Sequence[int] | int, name: str | None = None) -> I.InsertValueInst:
        """`insertvalue agg, v, indices...`."""
        if isinstance(indices, int):
            indices = [indices]
        return self.insert(I.InsertValueInst(agg, v, indices), name)  # type: ignore[return-value]


def builder_after(value: Value, function: Function) -> Builder:
    """A builder inserting right after `value`'s definition: after the phis
    for a phi, and for an argument or constant at the top of the entry block,
    after its allocas (so they stay together)."""
    b = Builder()
    if isinstance(value, I.PhiNode):
        b.position_before(value.parent.first_non_phi)
    elif isinstance(value, I.Instruction):
        b.position_after(value)
    else:
        entry = function.entry
        b.position_before(entry.first_non_phi)
        last_alloca = None
        for inst in entry.instructions:
            if isinstance(inst, I.AllocaInst):
                last_alloca = inst
            elif not isinstance(inst, I.PhiNode):
                break
        if last_alloca is not None:
            b.position_after(last_alloca)
    return b
