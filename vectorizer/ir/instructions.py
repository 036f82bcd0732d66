"""Instructions of the Python IR.

Operands that are blocks (branch targets, phi incoming blocks, switch cases)
are real operands, so `block.uses` sees every edge. Printing lives in
`printer.py`; `str(inst)` delegates there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from . import types as T
from .values import ConstantInt, TextWithRefs, Use, User, Value, _new, use_slots

if TYPE_CHECKING:  # pragma: no cover
    from .module import BasicBlock, Function

__all__ = [
    "Instruction",
    "BinaryOperator",
    "UnaryOperator",
    "ICmpInst",
    "FCmpInst",
    "SelectInst",
    "PhiNode",
    "CastInst",
    "GetElementPtrInst",
    "LoadInst",
    "StoreInst",
    "AllocaInst",
    "CallInst",
    "BranchInst",
    "SwitchInst",
    "ReturnInst",
    "UnreachableInst",
    "ExtractElementInst",
    "InsertElementInst",
    "ShuffleVectorInst",
    "ExtractValueInst",
    "InsertValueInst",
    "FreezeInst",
    "AtomicRMWInst",
    "AtomicCmpXchgInst",
    "FenceInst",
    "OpaqueInst",
    "DebugRecord",
    "BINARY_OPCODES",
    "INT_BINARY_OPCODES",
    "FP_BINARY_OPCODES",
    "CAST_OPCODES",
    "TERMINATOR_OPCODES",
    "ICMP_PREDICATES",
    "FCMP_PREDICATES",
    "FAST_MATH_FLAGS",
]

INT_BINARY_OPCODES = ("add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or", "xor")
FP_BINARY_OPCODES = ("fadd", "fsub", "fmul", "fdiv", "frem")
BINARY_OPCODES = INT_BINARY_OPCODES + FP_BINARY_OPCODES
CAST_OPCODES = (
    "trunc",
    "zext",
    "sext",
    "fptrunc",
    "fpext",
    "fptoui",
    "fptosi",
    "uitofp",
    "sitofp",
    "ptrtoint",
    "ptrtoaddr",
    "inttoptr",
    "bitcast",
    "addrspacecast",
)
TERMINATOR_OPCODES = frozenset(
    {"ret", "br", "switch", "indirectbr", "invoke", "resume", "unreachable", "cleanupret", "catchret", "catchswitch", "callbr"}
)
ICMP_PREDICATES = ("eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle")
FCMP_PREDICATES = (
    "false",
    "oeq",
    "ogt",
    "oge",
    "olt",
    "ole",
    "one",
    "ord",
    "ueq",
    "ugt",
    "uge",
    "ult",
    "ule",
    "une",
    "uno",
    "true",
)
# The same, as sets for the constructors' checks (a tuple is searched in order).
_BINARY_SET = frozenset(BINARY_OPCODES)
_FP_BINARY_SET = frozenset(FP_BINARY_OPCODES)
_CAST_SET = frozenset(CAST_OPCODES)
_ICMP_SET = frozenset(ICMP_PREDICATES)
_FCMP_SET = frozenset(FCMP_PREDICATES)
# In the order LLVM prints them (`fast` stands for all of them).
FAST_MATH_FLAGS = ("fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc")


class DebugRecord:
    """A `#dbg_value(...)`/`#dbg_declare(...)`/... record attached before an
    instruction; opaque text whose value references are resolved."""

    __slots__ = ("text",)

    def __init__(self, text: TextWithRefs) -> None:
        self.text = text

    @property
    def kind(self) -> str:
        """`value`, `declare`, `assign` or `label`."""
        head = self.text.parts[0]
        return head[len("#dbg_") : head.index("(")] if head.startswith("#dbg_") else ""

    def copy(self, remap: Any = None) -> DebugRecord:
        """A copy whose value references go through `remap`."""
        return DebugRecord(self.text.copy(remap))

    def __str__(self) -> str:
        return str(self.text)

    def __repr__(self) -> str:
        return f"DebugRecord({str(self)!r})"


# What `Instruction.clone` copies, per class (see `_copier`). Each class
# names the instance attributes its `__init__` sets beyond those of its
# bases: `_SHARED` ones are copied by reference (types, strings, numbers),
# `_COPIED` ones hold a list or set the copy gets its own copy of. The
# attributes every instruction has (`uses`, `_operands`, `_uses`, `parent`,
# `name`, debug records) are given afresh, metadata attachments copied.
_CONTAINERS = (list, set, dict)


def _copier(cls: type) -> Callable[[Any, Any], None]:
    """A function copying the per-class attributes of a `cls` instance to a
    new one. Generated once per class: copying `__dict__` instead would make
    Python turn both objects' attributes into real dictionaries, after which
    every attribute read on them is several times slower."""
    shared: list[str] = ["type"]
    copied: list[str] = []
    for klass in reversed(cls.__mro__):
        shared += [a for a in klass.__dict__.get("_SHARED", ()) if a not in shared]
        copied += [a for a in klass.__dict__.get("_COPIED", ()) if a not in copied]
    lines = ["def copy(src, dst):"]
    lines += [f"    dst.{a} = src.{a}" for a in shared]
    for a in copied:
        lines.append(f"    v = src.{a}")
        lines.append(f"    dst.{a} = v.copy() if type(v) in containers else v")
    lines.append("    m = src._metadata")
    lines.append("    if m:")
    lines.append("        dst._metadata = list(m)")
    scope: dict[str, Any] = {"containers": _CONTAINERS}
    exec("\n".join(lines), scope)  # noqa: S102 - our own attribute names only
    fn = scope["copy"]
    cls._copy_fields = fn  # type: ignore[attr-defined]
    return fn


class Instruction(User):
    """Base of all instructions."""

    opcode: str = ""
    # Block terminators say so in their class (OpaqueInst by its opcode).
    is_terminator: bool = False
    # Made on first use: most instructions have no attachments or records.
    _metadata: list[tuple[str, str]] | None = None
    _debug_records: list[DebugRecord] | None = None
    # The containing block; set when inserted. (A class default rather than
    # an `__init__` of its own: each instruction is built through one call
    # less, `User.__init__` directly.)
    parent: BasicBlock | None = None

    @property
    def metadata(self) -> list[tuple[str, str]]:
        """Metadata attachments `[(kind, text)]`, e.g. `("dbg", "!7")`."""
        m = self._metadata
        if m is None:
            m = self._metadata = []
        return m

    @metadata.setter
    def metadata(self, value: list[tuple[str, str]]) -> None:
        self._metadata = value

    @property
    def debug_records(self) -> list[DebugRecord]:
        """The debug records (`#dbg_value(...)`, ...) printed before this instruction."""
        d = self._debug_records
        if d is None:
            d = self._debug_records = []
        return d

    @debug_records.setter
    def debug_records(self, value: list[DebugRecord]) -> None:
        self._debug_records = value

    # ------------------------------------------------------------ structure

    @property
    def function(self) -> Function | None:
        """The function containing this instruction, if any."""
        return self.parent.parent if self.parent is not None else None

    @property
    def successors(self) -> list[BasicBlock]:
        """Successor blocks of a terminator (empty otherwise)."""
        return []

    @property
    def next_instruction(self) -> Instruction | None:
        """The instruction after this one in its block, if any."""
        if self.parent is None:
            return None
        insts = self.parent.instructions
        i = _index_in(self.parent, self)
        return insts[i + 1] if i + 1 < len(insts) else None

    @property
    def prev_instruction(self) -> Instruction | None:
        """The instruction before this one in its block, if any."""
        if self.parent is None:
            return None
        insts = self.parent.instructions
        i = _index_in(self.parent, self)
        return insts[i - 1] if i > 0 else None

    def get_metadata(self, kind: str) -> str | None:
        """The text of attachment `!kind`, if present."""
        for k, v in self._metadata or ():
            if k == kind:
                return v
        return None

    def set_metadata(self, kind: str, text: str | None) -> None:
        """Set (or with None, remove) attachment `!kind`."""
        self._metadata = [(k, v) for k, v in self._metadata or () if k != kind]
        if text is not None:
            self._metadata.append((kind, text))

    # ------------------------------------------------------------- editing

    def clone(self, unlinked: Callable[[Value], bool] | None = None) -> Instruction:
        """A detached copy with the same operands (no name, no parent, no debug
        records; metadata attachments are copied).

        For copying code whose operands are then pointed at the copies: an
        operand `v` with `unlinked(v)` keeps its slot but is not recorded as
        a use of `v`, and the caller must fill the slot with `link_operand`.
        (Recording such a use only to drop it again made cloning quadratic in
        the uses of a much-used value: each drop searched its use list.)
        """
        cls = type(self)
        new = _new(cls)
        copy = cls.__dict__.get("_copy_fields")
        if copy is None:
            copy = _copier(cls)
        copy(self, new)
        new.uses = []
        new.parent = None
        new.name = None
        ops = new._operands = list(self._operands)
        if unlinked is None:
            new._uses = use_slots(new, ops)
            return new
        uses = new._uses = []
        for i, v in enumerate(ops):
            u = _new(Use)
            u.user = new
            u.index = i
            if not unlinked(v):
                v.uses.append(u)
            uses.append(u)
        return new

    def insert_before(self, other: Instruction) -> None:
        """Insert this (detached) instruction just before `other`."""
        block = other.parent
        if block is None:
            raise ValueError("insert_before: anchor is not in a block")
        if self.parent is not None:
            self._check_detached()
        i = _index_in(block, other)
        block.instructions.insert(i, self)
        self.parent = block
        # `_inserted`, inlined (every instruction built comes through here
        # or `insert_after`): `_index_in` just made the table current.
        p = block._positions
        if p.valid > i:
            p.valid = i
        pos = p.pos
        pos[id(self)] = i
        # `other` moved to i + 1: say so (a hint, checked on use), so that a
        # run of insertions before one anchor finds it at once each time.
        pos[id(other)] = i + 1

    def insert_after(self, other: Instruction) -> None:
        """Insert this (detached) instruction just after `other`."""
        block = other.parent
        if block is None:
            raise ValueError("insert_after: anchor is not in a block")
        if self.parent is not None:
            self._check_detached()
        i = _index_in(block, other) + 1
        block.instructions.insert(i, self)
        self.parent = block
        p = block._positions  # `_inserted`, inlined (see `insert_before`)
        if p.valid > i:
            p.valid = i
        p.pos[id(self)] = i

    def remove_from_parent(self) -> None:
        """Unlink from the block, keeping operands (to re-insert elsewhere)."""
        if self.parent is not None:
            block = self.parent
            i = _index_in(block, self)
            del block.instructions[i]
            _removed(block, i, self)
            self.parent = None

    def erase_from_parent(self) -> None:
        """Unlink and drop all operands. The instruction must have no uses.

        Debug records attached to it move to the next instruction (as LLVM
        does); its own metadata references become `poison` when printed.
        """
        if self.uses:
            raise ValueError(f"erase_from_parent: {self!r} still has {len(self.uses)} use(s)")
        if self.parent is not None:
            block = self.parent
            insts = block.instructions
            i = _index_in(block, self)
            if self._debug_records and i + 1 < len(insts):
                insts[i + 1].debug_records[:0] = self._debug_records
                self._debug_records = None
            del insts[i]
            _removed(block, i, self)
            self.parent = None
        for r in self._debug_records or ():
            r.text.detach()
        self._debug_records = None
        self.drop_all_references()

    def _check_detached(self) -> None:
        if self.parent is not None:
            raise ValueError(f"{self!r} is already in a block; remove_from_parent() first")

    def __str__(self) -> str:
        from .printer import print_instruction

        return print_instruction(self)

    def __repr__(self) -> str:
        n = f"%{self.name} = " if self.name else ""
        return f"<{type(self).__name__} {n}{self.opcode}: {self.type}>"


class _Positions:
    """The positions of a block's instructions, renumbered lazily.

    `pos` maps `id(inst)` to an index; the entries of the instructions in
    `insts[:valid]` are exact, later ones may be out of date. An edit at
    index k only lowers `valid` to k, and a lookup renumbers from `valid` up
    to the instruction it finds, so a run of edits each followed by a lookup
    a little further on (what the packetizer and the builder do: insert after
    x, then after an operand of x, ...) costs the distance between them, not
    the block's length. (The old `list.index` from the start made every
    insertion O(block) and the packetizer quadratic in the block's size.)
    A stale entry past `valid` is first tried as a starting point: the
    instruction has usually moved by the few inserted or deleted before it.
    And an instruction found near `valid` gets only its own entry.

    Every answer is checked against the list (`insts[i] is inst`) and the
    table belongs to one list object, so code that edits
    `block.instructions` directly can only make a lookup slower, never wrong.
    """

    __slots__ = ("insts", "pos", "valid")

    def __init__(self, insts: list[Instruction]) -> None:
        self.insts = insts
        self.pos: dict[int, int] = {}
        self.valid = 0


# How far from a stale entry, or past the exact prefix, `_index_in` looks
# for an instruction (identity tests in C) before it renumbers instead.
_PROBE = 256
# How far past the exact prefix an instruction found gets only its own
# entry: a lookup pays at most this many identity tests before it numbers.
_NEAR = 256


def _positions(block: BasicBlock) -> _Positions:
    p = block._positions
    if p is None or p.insts is not block.instructions:
        p = block._positions = _Positions(block.instructions)
    return p


def _index_in(block: BasicBlock, inst: Instruction) -> int:
    """The index of `inst` in `block.instructions` (see `_Positions`)."""
    p = block._positions  # `_positions(block)`, inlined (a hot path)
    insts = block.instructions
    if p is None or p.insts is not insts:
        p = block._positions = _Positions(insts)
    key = id(inst)
    i = p.pos.get(key)
    if i is not None and i < len(insts) and insts[i] is inst:
        return i
    start = min(p.valid, len(insts))
    if i is not None and i >= start:
        # A stale entry past the exact prefix: the edits since moved `inst`
        # by as many places as were inserted (down) or deleted (up) before
        # it, usually a few. Looking there (in C) costs that shift, where
        # renumbering from `valid` cost every instruction in between, in
        # Python: most of the packetizer's insertion cost.
        try:
            i = insts.index(inst, i, i + _PROBE)
        except ValueError:
            try:
                i = insts.index(inst, max(start, i - _PROBE), i)
            except ValueError:
                i = None
        if i is not None:
            p.pos[key] = i
            return i
    # list.index compares by identity first, in C; instructions compare by
    # identity only, so this finds exactly `inst`.
    try:
        i = insts.index(inst, start)
    except ValueError:
        try:  # the list was edited behind our back: search it all
            i = insts.index(inst, 0, start)
        except ValueError:
            raise ValueError(f"{inst!r} is not in its parent block") from None
        start = 0
    if i - start < _NEAR:
        # Close to the exact prefix: found about as cheaply as numbering it.
        # What lies in between is numbered only when a lookup lands further
        # away (it is often never asked for: an entry costs about a
        # microsecond, a step of the search a few nanoseconds). Right at the
        # prefix, the entry extends it: a walk down the block stays O(1).
        p.pos[key] = i
        if i == start:
            p.valid = i + 1
        return i
    p.pos.update(zip(map(id, insts[start : i + 1]), range(start, i + 1), strict=True))
    p.valid = i + 1
    return i


def _edited(block: BasicBlock, i: int) -> _Positions:
    """`block.instructions` changed at index `i` and after."""
    p = _positions(block)
    if p.valid > i:
        p.valid = i
    return p


def _inserted(block: BasicBlock, i: int, inst: Instruction) -> None:
    """`inst` was just inserted at index `i` of `block.instructions`."""
    p = block._positions  # `_edited(block, i)`, inlined (a hot path)
    if p is None or p.insts is not block.instructions:
        p = block._positions = _Positions(block.instructions)
    elif p.valid > i:
        p.valid = i
    p.pos[id(inst)] = i


def _removed(block: BasicBlock, i: int, inst: Instruction) -> None:
    """`inst` was just deleted from index `i` of `block.instructions`."""
    _edited(block, i).pos.pop(id(inst), None)


class BinaryOperator(Instruction):
    """Integer and floating-point binary operators."""

    _SHARED = ("opcode",)
    _COPIED = ("flags",)

    def __init__(self, opcode: str, lhs: Value, rhs: Value, flags: Iterable[str] = (), name: str | None = None) -> None:
        if opcode not in _BINARY_SET:
            raise ValueError(f"not a binary opcode: {opcode}")
        super().__init__(lhs.type, (lhs, rhs), name)
        self.opcode = opcode
        self.flags: set[str] = set(flags)

    @property
    def lhs(self) -> Value:
        """Left operand."""
        return self._operands[0]

    @property
    def rhs(self) -> Value:
        """Right operand."""
        return self._operands[1]


class UnaryOperator(Instruction):
    """`fneg`."""

    _SHARED = ("opcode",)
    _COPIED = ("flags",)

    def __init__(self, opcode: str, operand: Value, flags: Iterable[str] = (), name: str | None = None) -> None:
        super().__init__(operand.type, (operand,), name)
        self.opcode = opcode
        self.flags: set[str] = set(flags)

    @property
    def operand(self) -> Value:
        """The operand."""
        return self._operands[0]


def _cmp_type(t: T.Type) -> T.Type:
    if isinstance(t, T.VectorType):
        return T.VectorType(T.i1, t.count, t.scalable)
    return T.i1


class ICmpInst(Instruction):
    """`icmp [samesign] pred`."""

    _SHARED = ("predicate",)
    _COPIED = ("flags",)

    opcode = "icmp"

    def __init__(self, predicate: str, lhs: Value, rhs: Value, flags: Iterable[str] = (), name: str | None = None) -> None:
        if predicate not in _ICMP_SET:
            raise ValueError(f"bad icmp predicate {predicate}")
        super().__init__(_cmp_type(lhs.type), (lhs, rhs), name)
        self.predicate = predicate
        self.flags: set[str] = set(flags)

    @property
    def lhs(self) -> Value:
        """Left operand."""
        return self._operands[0]

    @property
    def rhs(self) -> Value:
        """Right operand."""
        return self._operands[1]


class FCmpInst(Instruction):
    """`fcmp [fast-math flags] pred`."""

    _SHARED = ("predicate",)
    _COPIED = ("flags",)

    opcode = "fcmp"

    def __init__(self, predicate: str, lhs: Value, rhs: Value, flags: Iterable[str] = (), name: str | None = None) -> None:
        if predicate not in _FCMP_SET:
            raise ValueError(f"bad fcmp predicate {predicate}")
        super().__init__(_cmp_type(lhs.type), (lhs, rhs), name)
        self.predicate = predicate
        self.flags: set[str] = set(flags)

    @property
    def lhs(self) -> Value:
        """Left operand."""
        return self._operands[0]

    @property
    def rhs(self) -> Value:
        """Right operand."""
        return self._operands[1]


class SelectInst(Instruction):
    """`select`."""

    _COPIED = ("flags",)

    opcode = "select"

    def __init__(
        self, condition: Value, true_value: Value, false_value: Value, flags: Iterable[str] = (), name: str | None = None
    ) -> None:
        super().__init__(true_value.type, (condition, true_value, false_value), name)
        self.flags: set[str] = set(flags)

    @property
    def condition(self) -> Value:
        """The i1 (or vector of i1) condition."""
        return self._operands[0]

    @property
    def true_value(self) -> Value:
        """Value when the condition holds."""
        return self._operands[1]

    @property
    def false_value(self) -> Value:
        """Value otherwise."""
        return self._operands[2]


class PhiNode(Instruction):
    """`phi`: operands are `[v0, bb0, v1, bb1, ...]`."""

    _COPIED = ("flags",)

    opcode = "phi"

    def __init__(
        self,
        type: T.Type,
        incoming: Iterable[tuple[Value, BasicBlock]] = (),
        flags: Iterable[str] = (),
        name: str | None = None,
    ) -> None:
        super().__init__(type, (), name)
        self.flags: set[str] = set(flags)
        for v, b in incoming:
            self.add_incoming(v, b)

    @property
    def incoming(self) -> list[tuple[Value, BasicBlock]]:
        """`[(value, block)]` in order."""
        ops = self._operands
        return [(ops[i], ops[i + 1]) for i in range(0, len(ops), 2)]  # type: ignore[misc]

    @property
    def incoming_blocks(self) -> list[BasicBlock]:
        """The incoming blocks in order."""
        return self._operands[1::2]  # type: ignore[return-value]

    @property
    def incoming_values(self) -> list[Value]:
        """The incoming values in order."""
        return self._operands[0::2]

    def add_incoming(self, value: Value, block: BasicBlock) -> None:
        """Add an incoming `(value, block)` pair."""
        self._append_operand(value)
        self._append_operand(block)

    def remove_incoming(self, block: BasicBlock) -> Value:
        """Remove the (first) pair for `block`; return its value."""
        ops = self._operands
        for i in range(1, len(ops), 2):
            if ops[i] is block:
                v = ops[i - 1]
                self._remove_operands(i - 1, 2)
                return v
        raise KeyError(f"{block!r} is not an incoming block")

    def incoming_value_for(self, block: BasicBlock) -> Value:
        """The value flowing in from `block`."""
        ops = self._operands
        for i in range(1, len(ops), 2):
            if ops[i] is block:
                return ops[i - 1]
        raise KeyError(f"{block!r} is not an incoming block")

    def set_incoming_value(self, block: BasicBlock, value: Value) -> None:
        """Replace the value for every pair coming from `block`."""
        ops = self._operands
        found = False
        for i in range(1, len(ops), 2):
            if ops[i] is block:
                self.set_operand(i - 1, value)
                found = True
        if not found:
            raise KeyError(f"{block!r} is not an incoming block")

    def replace_incoming_block(self, old: BasicBlock, new: BasicBlock) -> None:
        """Make pairs from `old` come from `new`."""
        ops = self._operands
        for i in range(1, len(ops), 2):
            if ops[i] is old:
                self.set_operand(i, new)


class CastInst(Instruction):
    """Conversions (`trunc`, `zext`, ..., `addrspacecast`)."""

    _SHARED = ("opcode",)
    _COPIED = ("flags",)

    def __init__(self, opcode: str, value: Value, type: T.Type, flags: Iterable[str] = (), name: str | None = None) -> None:
        if opcode not in _CAST_SET:
            raise ValueError(f"not a cast opcode: {opcode}")
        super().__init__(type, (value,), name)
        self.opcode = opcode
        self.flags: set[str] = set(flags)

    @property
    def value(self) -> Value:
        """The value converted."""
        return self._operands[0]

    @property
    def src_type(self) -> T.Type:
        """The type converted from."""
        return self._operands[0].type

    @property
    def dest_type(self) -> T.Type:
        """The type converted to."""
        return self.type


def gep_result_type(pointer: Value, indices: Sequence[Value]) -> T.Type:
    """The type of `getelementptr` on `pointer`: a pointer, or a vector of
    pointers if the pointer or any index is a vector."""
    pt = pointer.type
    if isinstance(pt, T.VectorType):
        return pt
    for ix in indices:
        if isinstance(ix.type, T.VectorType):
            return T.VectorType(pt, ix.type.count, ix.type.scalable)
    return pt


class GetElementPtrInst(Instruction):
    """`getelementptr [inbounds|nusw] [nuw] T, ptr p, indices...`."""

    _SHARED = ("source_element_type",)
    _COPIED = ("flags",)

    opcode = "getelementptr"

    def __init__(
        self,
        source_element_type: T.Type,
        pointer: Value,
        indices: Sequence[Value],
        flags: Iterable[str] = (),
        name: str | None = None,
        type: T.Type | None = None,
    ) -> None:
        super().__init__(type or gep_result_type(pointer, indices), (pointer, *indices), name)
        self.source_element_type = source_element_type
        self.flags: set[str] = set(flags)

    @property
    def pointer(self) -> Value:
        """The base pointer."""
        return self._operands[0]

    @property
    def indices(self) -> list[Value]:
        """The index operands."""
        return self._operands[1:]

    @property
    def result_element_type(self) -> T.Type:
        """The type the result points at (indexing `source_element_type`)."""
        t = self.source_element_type
        for ix in self._operands[2:]:
            if isinstance(t, T.StructType):
                assert isinstance(ix, ConstantInt) or hasattr(ix, "splat_value")
                k = ix.value if isinstance(ix, ConstantInt) else ix.splat_value.value  # type: ignore[attr-defined]
                t = t.elements[k]
            elif isinstance(t, (T.ArrayType, T.VectorType)):
                t = t.element
        return t


class LoadInst(Instruction):
    """`load [atomic] [volatile] T, ptr p [syncscope(..)] [ordering], align N`."""

    _SHARED = ("align", "volatile", "ordering", "syncscope")

    opcode = "load"

    def __init__(
        self,
        type: T.Type,
        pointer: Value,
        align: int | None = None,
        volatile: bool = False,
        ordering: str | None = None,
        syncscope: str | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(type, (pointer,), name)
        self.align = align
        self.volatile = volatile
        self.ordering = ordering
        self.syncscope = syncscope

    @property
    def pointer(self) -> Value:
        """The address loaded from."""
        return self._operands[0]


class StoreInst(Instruction):
    """`store [atomic] [volatile] T v, ptr p ...`."""

    _SHARED = ("align", "volatile", "ordering", "syncscope")

    opcode = "store"

    def __init__(
        self,
        value: Value,
        pointer: Value,
        align: int | None = None,
        volatile: bool = False,
        ordering: str | None = None,
        syncscope: str | None = None,
    ) -> None:
        super().__init__(T.void, (value, pointer))
        self.align = align
        self.volatile = volatile
        self.ordering = ordering
        self.syncscope = syncscope

    @property
    def value(self) -> Value:
        """The value stored."""
        return self._operands[0]

    @property
    def pointer(self) -> Value:
        """The address stored to."""
        return self._operands[1]


class AllocaInst(Instruction):
    """`alloca [inalloca] [swifterror] T [, ty n] [, align N] [, addrspace(A)]`."""

    _SHARED = ("allocated_type", "align", "addrspace")
    _COPIED = ("flags",)

    opcode = "alloca"

    def __init__(
        self,
        allocated_type: T.Type,
        count: Value | None = None,
        align: int | None = None,
        addrspace: int = 0,
        flags: Iterable[str] = (),
        name: str | None = None,
    ) -> None:
        super().__init__(T.PointerType(addrspace), (count,) if count is not None else (), name)
        self.allocated_type = allocated_type
        self.align = align
        self.addrspace = addrspace
        self.flags: set[str] = set(flags)

    @property
    def count(self) -> Value | None:
        """The element count operand, None when not written."""
        return self._operands[0] if self._operands else None


class CallInst(Instruction):
    """`call`. Operands are `[*args, *bundle operands, callee]` (as in LLVM).

    Text kept opaque: `return_attributes`, `arg_attributes[i]` (parameter
    attributes of argument i, e.g. `noundef align 4`), `attributes`
    (function attributes, e.g. `#3`). `bundles` are `[(tag, [values])]`.
    """

    _SHARED = (
        "function_type", "num_args", "calling_conv", "tail", "return_attributes", "attributes", "addrspace",
    )
    _COPIED = ("flags", "arg_attributes", "bundle_layout")

    opcode = "call"

    def __init__(
        self,
        function_type: T.FunctionType,
        callee: Value,
        args: Sequence[Value],
        calling_conv: str | None = None,
        tail: str | None = None,
        flags: Iterable[str] = (),
        return_attributes: str = "",
        arg_attributes: Sequence[str] | None = None,
        attributes: str = "",
        bundles: Sequence[tuple[str, Sequence[Value]]] = (),
        addrspace: int | None = None,
        name: str | None = None,
    ) -> None:
        bundle_ops = [v for _, vs in bundles for v in vs]
        super().__init__(function_type.return_type, (*args, *bundle_ops, callee), name)
        self.function_type = function_type
        self.num_args = len(args)
        self.calling_conv = calling_conv
        self.tail = tail
        self.flags: set[str] = set(flags)
        self.return_attributes = return_attributes
        self.arg_attributes: list[str] = list(arg_attributes) if arg_attributes is not None else [""] * len(args)
        self.attributes = attributes
        self.bundle_layout: list[tuple[str, int]] = [(tag, len(vs)) for tag, vs in bundles]
        self.addrspace = addrspace

    @property
    def callee(self) -> Value:
        """The called value (a Function, or any pointer)."""
        return self._operands[-1]

    @callee.setter
    def callee(self, v: Value) -> None:
        self.set_operand(len(self._operands) - 1, v)

    @property
    def called_function(self) -> Function | None:
        """The callee if it is a Function."""
        # `Function` is bound here by module.py once it exists (import cycle).
        c = self._operands[-1]
        return c if isinstance(c, Function) else None

    @property
    def args(self) -> list[Value]:
        """The call arguments."""
        return self._operands[: self.num_args]

    @property
    def bundles(self) -> list[tuple[str, list[Value]]]:
        """Operand bundles `[(tag, values)]`."""
        out = []
        i = self.num_args
        for tag, n in self.bundle_layout:
            out.append((tag, self._operands[i : i + n]))
            i += n
        return out

    def set_arg(self, i: int, v: Value) -> None:
        """Replace argument `i`."""
        if not 0 <= i < self.num_args:
            raise IndexError(i)
        self.set_operand(i, v)


class BranchInst(Instruction):
    """`br label %d` or `br i1 %c, label %t, label %f`: operands `[dest]` or
    `[cond, true_dest, false_dest]`."""

    is_terminator = True

    opcode = "br"

    def __init__(self, *operands: Value) -> None:
        if len(operands) not in (1, 3):
            raise ValueError("br takes a destination, or a condition and two destinations")
        super().__init__(T.void, operands)

    @property
    def is_conditional(self) -> bool:
        """True for a two-way branch."""
        return len(self._operands) == 3

    @property
    def condition(self) -> Value | None:
        """The condition of a conditional branch, else None."""
        return self._operands[0] if len(self._operands) == 3 else None

    @property
    def successors(self) -> list[BasicBlock]:
        """Targets in order (true first)."""
        ops = self._operands
        return list(ops[1:]) if len(ops) == 3 else [ops[0]]  # type: ignore[list-item]


class SwitchInst(Instruction):
    """`switch`: operands `[cond, default, c0, bb0, c1, bb1, ...]`."""

    is_terminator = True

    opcode = "switch"

    def __init__(
        self, condition: Value, default: BasicBlock, cases: Iterable[tuple[Value, BasicBlock]] = ()
    ) -> None:
        super().__init__(T.void, (condition, default))
        for c, b in cases:
            self.add_case(c, b)

    @property
    def condition(self) -> Value:
        """The value switched on."""
        return self._operands[0]

    @property
    def default(self) -> BasicBlock:
        """The default destination."""
        return self._operands[1]  # type: ignore[return-value]

    @property
    def cases(self) -> list[tuple[ConstantInt, BasicBlock]]:
        """`[(case value, destination)]`."""
        ops = self._operands
        return [(ops[i], ops[i + 1]) for i in range(2, len(ops), 2)]  # type: ignore[misc]

    def add_case(self, value: Value | int, block: BasicBlock) -> None:
        """Add a case (an int is made a constant of the condition's type)."""
        if isinstance(value, int):
            value = ConstantInt(self.condition.type, value)
        self._append_operand(value)
        self._append_operand(block)

    def remove_case(self, index: int) -> None:
        """Remove case number `index`."""
        self._remove_operands(2 + 2 * index, 2)

    @property
    def successors(self) -> list[BasicBlock]:
        """Default first, then each case's destination."""
        ops = self._operands
        return [ops[1]] + list(ops[3::2])  # type: ignore[list-item]


class ReturnInst(Instruction):
    """`ret void` / `ret T v`."""

    is_terminator = True

    opcode = "ret"

    def __init__(self, value: Value | None = None) -> None:
        super().__init__(T.void, (value,) if value is not None else ())

    @property
    def value(self) -> Value | None:
        """The returned value, None for `ret void`."""
        return self._operands[0] if self._operands else None


class UnreachableInst(Instruction):
    """`unreachable`."""

    is_terminator = True

    opcode = "unreachable"

    def __init__(self) -> None:
        super().__init__(T.void)


class ExtractElementInst(Instruction):
    """`extractelement`."""

    opcode = "extractelement"

    def __init__(self, vector: Value, index: Value, name: str | None = None) -> None:
        vt = vector.type
        assert isinstance(vt, T.VectorType), f"extractelement from {vt}"
        super().__init__(vt.element, (vector, index), name)

    @property
    def vector(self) -> Value:
        """The vector."""
        return self._operands[0]

    @property
    def index(self) -> Value:
        """The lane index."""
        return self._operands[1]


class InsertElementInst(Instruction):
    """`insertelement`."""

    opcode = "insertelement"

    def __init__(self, vector: Value, element: Value, index: Value, name: str | None = None) -> None:
        super().__init__(vector.type, (vector, element, index), name)

    @property
    def vector(self) -> Value:
        """The vector."""
        return self._operands[0]

    @property
    def element(self) -> Value:
        """The inserted scalar."""
        return self._operands[1]

    @property
    def index(self) -> Value:
        """The lane index."""
        return self._operands[2]


class ShuffleVectorInst(Instruction):
    """`shufflevector`; `mask` is a list of lane numbers (-1 = poison). For a
    scalable result the mask is all 0 (`zeroinitializer`) or all -1."""

    _COPIED = ("mask",)

    opcode = "shufflevector"

    def __init__(self, v1: Value, v2: Value, mask: Sequence[int], name: str | None = None) -> None:
        vt = v1.type
        assert isinstance(vt, T.VectorType), f"shufflevector of {vt}"
        super().__init__(T.VectorType(vt.element, len(mask), vt.scalable), (v1, v2), name)
        self.mask: list[int] = [int(m) for m in mask]

    @property
    def v1(self) -> Value:
        """First input."""
        return self._operands[0]

    @property
    def v2(self) -> Value:
        """Second input."""
        return self._operands[1]


def aggregate_element_type(t: T.Type, indices: Sequence[int]) -> T.Type:
    """The type reached by `extractvalue` indices from aggregate type `t`."""
    for i in indices:
        if isinstance(t, T.StructType):
            t = t.elements[i]
        elif isinstance(t, (T.ArrayType, T.VectorType)):
            t = t.element
        else:
            raise TypeError(f"cannot index {t}")
    return t


class ExtractValueInst(Instruction):
    """`extractvalue agg, i, j...`."""

    _COPIED = ("indices",)

    opcode = "extractvalue"

    def __init__(self, aggregate: Value, indices: Sequence[int], name: str | None = None) -> None:
        super().__init__(aggregate_element_type(aggregate.type, indices), (aggregate,), name)
        self.indices: list[int] = list(indices)

    @property
    def aggregate(self) -> Value:
        """The aggregate."""
        return self._operands[0]


class InsertValueInst(Instruction):
    """`insertvalue agg, v, i, j...`."""

    _COPIED = ("indices",)

    opcode = "insertvalue"

    def __init__(self, aggregate: Value, value: Value, indices: Sequence[int], name: str | None = None) -> None:
        super().__init__(aggregate.type, (aggregate, value), name)
        self.indices: list[int] = list(indices)

    @property
    def aggregate(self) -> Value:
        """The aggregate."""
        return self._operands[0]

    @property
    def value(self) -> Value:
        """The inserted value."""
        return self._operands[1]


class FreezeInst(Instruction):
    """`freeze`."""

    opcode = "freeze"

    def __init__(self, value: Value, name: str | None = None) -> None:
        super().__init__(value.type, (value,), name)

    @property
    def value(self) -> Value:
        """The frozen value."""
        return self._operands[0]


class AtomicRMWInst(Instruction):
    """`atomicrmw [volatile] op ptr p, T v [syncscope(..)] ordering, align N`."""

    _SHARED = ("operation", "ordering", "syncscope", "volatile", "align")

    opcode = "atomicrmw"

    def __init__(
        self,
        operation: str,
        pointer: Value,
        value: Value,
        ordering: str = "seq_cst",
        syncscope: str | None = None,
        volatile: bool = False,
        align: int | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(value.type, (pointer, value), name)
        self.operation = operation
        self.ordering = ordering
        self.syncscope = syncscope
        self.volatile = volatile
        self.align = align

    @property
    def pointer(self) -> Value:
        """The address."""
        return self._operands[0]

    @property
    def value(self) -> Value:
        """The operand value."""
        return self._operands[1]


class AtomicCmpXchgInst(Instruction):
    """`cmpxchg [weak] [volatile] ptr p, T cmp, T new [syncscope] succ fail, align N`;
    its type is `{ T, i1 }`."""

    _SHARED = ("success_ordering", "failure_ordering", "syncscope", "weak", "volatile", "align")

    opcode = "cmpxchg"

    def __init__(
        self,
        pointer: Value,
        compare: Value,
        new_value: Value,
        success_ordering: str = "seq_cst",
        failure_ordering: str = "seq_cst",
        syncscope: str | None = None,
        weak: bool = False,
        volatile: bool = False,
        align: int | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(T.StructType((compare.type, T.i1)), (pointer, compare, new_value), name)
        self.success_ordering = success_ordering
        self.failure_ordering = failure_ordering
        self.syncscope = syncscope
        self.weak = weak
        self.volatile = volatile
        self.align = align

    @property
    def ordering(self) -> str:
        """The success ordering."""
        return self.success_ordering

    @property
    def pointer(self) -> Value:
        """The address."""
        return self._operands[0]

    @property
    def compare(self) -> Value:
        """The expected value."""
        return self._operands[1]

    @property
    def new_value(self) -> Value:
        """The replacement value."""
        return self._operands[2]


class FenceInst(Instruction):
    """`fence [syncscope(..)] ordering`."""

    _SHARED = ("ordering", "syncscope")

    opcode = "fence"

    def __init__(self, ordering: str = "seq_cst", syncscope: str | None = None) -> None:
        super().__init__(T.void)
        self.ordering = ordering
        self.syncscope = syncscope


class OpaqueInst(Instruction):
    """An instruction the IR does not model (invoke, landingpad, va_arg,
    indirectbr, callbr, resume, catch/cleanup pads...): its text after
    `opcode ` is a template whose holes are its operands (blocks included),
    so uses, successors and renaming still work."""

    _SHARED = ("opcode",)
    _COPIED = ("parts",)

    def __init__(self, opcode: str, type: T.Type, parts: Sequence[str], operands: Sequence[Value], name: str | None = None) -> None:
        if len(parts) != len(operands) + 1:
            raise ValueError("OpaqueInst needs len(parts) == len(operands) + 1")
        super().__init__(type, operands, name)
        self.opcode = opcode
        self.parts: list[str] = list(parts)

    @property  # type: ignore[override]
    def is_terminator(self) -> bool:
        """True when the opcode is a terminator's (invoke, resume, ...)."""
        return self.opcode in TERMINATOR_OPCODES

    @property
    def successors(self) -> list[BasicBlock]:
        """Block operands, in order, when this is a terminator."""
        # `BasicBlock` is bound here by module.py once it exists (import cycle).
        if not self.is_terminator:
            return []
        out: list[BasicBlock] = []
        for v in self._operands:
            if isinstance(v, BasicBlock) and v not in out:
                out.append(v)
        return out


# The instructions that can touch memory or call: the only ones a builtin,
# a varying root, a packetization leaf or a masked access can be. Passes
# and analyses filter on this before asking the (costlier) builtin tables.
MEMORY_OR_CALL: tuple[type[Instruction], ...] = (CallInst, LoadInst, StoreInst, AtomicRMWInst, AtomicCmpXchgInst)
