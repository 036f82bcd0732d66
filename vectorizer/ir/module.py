"""Arguments, globals, functions, basic blocks and the module."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain

from . import types as T
from .instructions import (
    BranchInst,
    Instruction,
    PhiNode,
    _edited,
    _index_in,
    _inserted,
    _Positions,
)
from .values import Constant, TextWithRefs, Value

__all__ = ["Argument", "GlobalValue", "GlobalVariable", "GlobalAlias", "Function", "BasicBlock", "Module"]


class Argument(Value):
    """A formal parameter; `attributes` is its parameter-attribute text."""

    def __init__(self, type: T.Type, parent: Function | None = None, index: int = 0, name: str | None = None, attributes: str = "") -> None:
        super().__init__(type, name)
        self.parent = parent
        self.index = index
        self.attributes = attributes


class GlobalValue(Constant):
    """Functions and global variables: constants compared by identity."""

    def __init__(self, type: T.Type, name: str | None) -> None:
        super().__init__(type, (), name)
        self.parent: Module | None = None

    def _key(self) -> object:
        return ("id", id(self))

    __eq__ = object.__eq__  # type: ignore[assignment]
    __hash__ = object.__hash__  # type: ignore[assignment]


class GlobalVariable(GlobalValue):
    """`@name = [linkage] [attrs] global|constant T [init][, align N][extra]`.

    `attrs` keeps the keywords between the linkage and `global` (dso_local,
    unnamed_addr, thread_local(...), externally_initialized, ...); `extra`
    the trailing `, section "..."`, `, comdat`, `, !dbg !N` text.
    """

    def __init__(
        self,
        name: str | None,
        value_type: T.Type,
        initializer: Value | None = None,
        linkage: str | None = None,
        is_constant: bool = False,
        addrspace: int = 0,
        align: int | None = None,
        attrs: str = "",
        extra: str = "",
    ) -> None:
        super().__init__(T.PointerType(addrspace), name)
        self.value_type = value_type
        self._initializer: Value | None = None
        self.linkage = linkage
        self.is_constant = is_constant
        self.addrspace = addrspace
        self.align = align
        self.attrs = attrs
        self.extra = extra
        self.externally_initialized = False
        self.initializer = initializer

    @property
    def initializer(self) -> Value | None:
        """The initial value (None for a declaration)."""
        return self._initializer

    @initializer.setter
    def initializer(self, v: Value | None) -> None:
        # The initializer is operand 0 when present, so globals used by it
        # see this variable as a user.
        if self._operands:
            self._remove_operands(0, 1)
        self._initializer = v
        if v is not None:
            self._append_operand(v)

    def set_operand(self, i: int, v: Value) -> None:
        """Keep `initializer` in step with operand 0."""
        super().set_operand(i, v)
        self._initializer = self._operands[0]

    @property
    def is_declaration(self) -> bool:
        """True for an `external` declaration without initializer."""
        return self._initializer is None


class GlobalAlias(GlobalValue):
    """An alias or ifunc, kept as text: `@name = <text>` where `text` is the
    rest of the definition (its global references are resolved)."""

    def __init__(self, name: str | None, text: TextWithRefs | None = None, type: T.Type = T.ptr) -> None:
        super().__init__(type, name)
        self.text = text if text is not None else TextWithRefs.plain("")


class Function(GlobalValue):
    """A function definition or declaration.

    Opaque text fields: `prefix` (dso_local, visibility, ... between the
    linkage and the calling convention), `return_attributes`, `unnamed_addr`,
    `attributes` (e.g. `#0 #1` or inline attributes), `trailing` (section,
    comdat, align, gc, prefix/prologue/personality; may name globals),
    `metadata` (function attachments `[(kind, text)]`, e.g. `("dbg", "!4")`).
    """

    def __init__(self, name: str | None, function_type: T.FunctionType, module: Module | None = None) -> None:
        super().__init__(T.ptr, name)
        self.function_type = function_type
        self.parent = module
        self.args: list[Argument] = [Argument(t, self, i) for i, t in enumerate(function_type.params)]
        self.blocks: list[BasicBlock] = []
        self.linkage: str | None = None
        self.prefix: str = ""
        self.calling_conv: str | None = None
        self.return_attributes: str = ""
        self.unnamed_addr: str | None = None
        self.addrspace: int | None = None
        self.attributes: str = ""
        self.trailing: TextWithRefs | None = None
        self.metadata: list[tuple[str, str]] = []
        # Function-local `uselistorder` directives, kept verbatim.
        self.uselistorder: list[TextWithRefs] = []

    @property
    def module(self) -> Module | None:
        """The containing module."""
        return self.parent

    @property
    def return_type(self) -> T.Type:
        """The return type."""
        return self.function_type.return_type

    @property
    def entry(self) -> BasicBlock:
        """The entry block."""
        return self.blocks[0]

    @property
    def is_declaration(self) -> bool:
        """True if the function has no body."""
        return not self.blocks

    def instructions(self) -> Iterator[Instruction]:
        """All instructions, block by block (do not add/remove while iterating)."""
        # Chained in C: no generator step per instruction.
        return chain.from_iterable(b.instructions for b in self.blocks)

    def add_block(self, name: str | None = None, before: BasicBlock | None = None, after: BasicBlock | None = None) -> BasicBlock:
        """Create a block at the end (or just before `before` / after `after`)."""
        bb = BasicBlock(name)
        bb.parent = self
        if before is not None:
            self.blocks.insert(_block_index(self.blocks, before), bb)
        elif after is not None:
            self.blocks.insert(_block_index(self.blocks, after) + 1, bb)
        else:
            self.blocks.append(bb)
        return bb

    def append_block(self, bb: BasicBlock) -> None:
        """Append a detached block."""
        bb.parent = self
        self.blocks.append(bb)

    def erase_from_parent(self) -> None:
        """Remove from the module, dropping the body (must be unused)."""
        if self.uses:
            raise ValueError(f"{self!r} still has uses")
        self.delete_body()
        if self.parent is not None:
            self.parent.functions = [f for f in self.parent.functions if f is not self]
            self.parent = None

    def delete_body(self) -> None:
        """Drop every block, making this a declaration."""
        for b in self.blocks:
            for i in b.instructions:
                i.drop_all_references()
                for r in i._debug_records or ():
                    r.text.detach()
        for b in self.blocks:
            for i in b.instructions:
                i.parent = None
            b.instructions = []
            b.parent = None
        self.blocks = []

    def __repr__(self) -> str:
        return f"<Function @{self.name}: {self.function_type}>"


def _block_index(blocks: list[BasicBlock], bb: BasicBlock) -> int:
    for i, b in enumerate(blocks):
        if b is bb:
            return i
    raise ValueError(f"{bb!r} is not in this function")


class BasicBlock(Value):
    """A basic block (a value of type `label`)."""

    # Lazily renumbered positions of `instructions` (instructions._Positions).
    _positions: _Positions | None = None

    def __init__(self, name: str | None = None, parent: Function | None = None) -> None:
        super().__init__(T.label, name)
        self.parent = parent
        self.instructions: list[Instruction] = []

    @property
    def terminator(self) -> Instruction | None:
        """The last instruction if it is a terminator."""
        if self.instructions and self.instructions[-1].is_terminator:
            return self.instructions[-1]
        return None

    @property
    def successors(self) -> list[BasicBlock]:
        """Successors, from the terminator, in its order."""
        t = self.terminator
        return t.successors if t is not None else []

    @property
    def predecessors(self) -> list[BasicBlock]:
        """Distinct blocks whose terminator names this block (use-list order)."""
        out: list[BasicBlock] = []
        seen: set[int] = set()
        for u in self.uses:
            user = u.user
            if isinstance(user, Instruction) and user.is_terminator and user.parent is not None:
                p = user.parent
                if id(p) not in seen and p.parent is self.parent:
                    seen.add(id(p))
                    out.append(p)
        return out

    def phis(self) -> list[PhiNode]:
        """The leading phi nodes."""
        out: list[PhiNode] = []
        for i in self.instructions:
            if not isinstance(i, PhiNode):
                break
            out.append(i)
        return out

    @property
    def first_non_phi(self) -> Instruction | None:
        """The first instruction that is not a phi."""
        for i in self.instructions:
            if not isinstance(i, PhiNode):
                return i
        return None

    def append(self, inst: Instruction) -> Instruction:
        """Append a detached instruction."""
        inst._check_detached()
        self.instructions.append(inst)
        inst.parent = self
        _inserted(self, len(self.instructions) - 1, inst)
        return inst

    def insert(self, index: int, inst: Instruction) -> Instruction:
        """Insert a detached instruction at position `index`."""
        inst._check_detached()
        if index < 0:
            index = max(0, len(self.instructions) + index)
        index = min(index, len(self.instructions))
        self.instructions.insert(index, inst)
        inst.parent = self
        _inserted(self, index, inst)
        return inst

    def index_of(self, inst: Instruction) -> int:
        """Position of `inst` in this block."""
        return _index_in(self, inst)

    def split_before(self, inst: Instruction, name: str | None = None) -> BasicBlock:
        """Move `inst` and everything after it to a new block placed right
        after this one; this block then branches to it. Phis in the moved
        terminator's successors are updated to come from the new block."""
        fn = self.parent
        if fn is None:
            raise ValueError("split_before: block is not in a function")
        i = self.index_of(inst)
        new = fn.add_block(name, after=self)
        moved = self.instructions[i:]
        del self.instructions[i:]
        _edited(self, i)
        for m in moved:
            m.parent = new
        new.instructions = moved
        for succ in new.successors:
            for phi in succ.phis():
                phi.replace_incoming_block(self, new)
        self.append(BranchInst(new))
        return new

    def remove_from_parent(self) -> None:
        """Unlink from the function, keeping the instructions."""
        if self.parent is not None:
            blocks = self.parent.blocks
            del blocks[_block_index(blocks, self)]
            self.parent = None

    def erase(self) -> None:
        """Delete the block and its instructions. Apart from its own
        instructions, nothing may still name it or use its values."""
        own = {id(i) for i in self.instructions}
        for i in self.instructions:
            for u in i.uses:
                if id(u.user) not in own:
                    raise ValueError(f"erase: {i!r} is still used outside its block")
        for u in self.uses:
            if id(u.user) not in own:
                raise ValueError(f"erase: {self!r} is still named by {u.user!r}")
        for i in self.instructions:
            i.drop_all_references()
            for r in i._debug_records or ():
                r.text.detach()
            i.parent = None
        self.instructions = []
        self.remove_from_parent()

    def __iter__(self) -> Iterator[Instruction]:
        return iter(list(self.instructions))

    def __repr__(self) -> str:
        n = self.name if self.name else f"@{id(self):#x}"
        return f"<BasicBlock {n}>"


class Module:
    """A module: struct types, globals, functions and opaque top-level text.

    Opaque text, printed back in this order: `source_filename`, `datalayout`,
    `triple`, `module_asm` lines; struct types; `comdats`; globals;
    `aliases` (aliases and ifuncs); functions; `attribute_groups`;
    `named_metadata`; `metadata_nodes`; `trailer` (module `uselistorder`...).
    """

    def __init__(self, name: str | None = None) -> None:
        self.name = name
        self.source_filename: str | None = None
        self.datalayout: str | None = None
        self.triple: str | None = None
        self.module_asm: list[str] = []
        self.struct_types: dict[str, T.StructType] = {}
        self.comdats: list[str] = []
        self.globals: list[GlobalVariable] = []
        self.aliases: list[GlobalAlias] = []
        self.functions: list[Function] = []
        self.attribute_groups: list[str] = []
        self.named_metadata: list[TextWithRefs] = []
        self.metadata_nodes: list[TextWithRefs] = []
        self.trailer: list[TextWithRefs] = []

    @property
    def data_layout(self) -> str | None:
        """Alias of `datalayout`."""
        return self.datalayout

    @data_layout.setter
    def data_layout(self, v: str | None) -> None:
        self.datalayout = v

    def get_function(self, name: str) -> Function | None:
        """The function named `name`, if any."""
        for f in self.functions:
            if f.name == name:
                return f
        return None

    def get_global(self, name: str) -> GlobalVariable | None:
        """The global variable named `name`, if any."""
        for g in self.globals:
            if g.name == name:
                return g
        return None

    def add_function(self, name: str | None, fty: T.FunctionType) -> Function:
        """Create a new function (a declaration until blocks are added)."""
        if name is not None and self.get_function(name) is not None:
            raise ValueError(f"function @{name} already exists")
        f = Function(name, fty, self)
        self.functions.append(f)
        return f

    def get_or_insert_function(self, name: str, fty: T.FunctionType) -> Function:
        """The function `name`, declared with `fty` if it does not exist."""
        f = self.get_function(name)
        if f is not None:
            return f
        return self.add_function(name, fty)

    def add_global(self, gv: GlobalVariable) -> GlobalVariable:
        """Add a global variable."""
        gv.parent = self
        self.globals.append(gv)
        return gv

    def get_struct_type(self, name: str) -> T.StructType:
        """The named struct `%name`, created opaque if new."""
        st = self.struct_types.get(name)
        if st is None:
            st = T.StructType(name=name, opaque=True)
            self.struct_types[name] = st
        return st

    def __str__(self) -> str:
        from .printer import print_module

        return print_module(self)

    def __repr__(self) -> str:
        return f"<Module {len(self.functions)} functions, {len(self.globals)} globals>"



def _bind_in_lower_modules() -> None:
    # values.py and instructions.py cannot import this module (it imports
    # them), yet their callers test `isinstance(v, V.Function)` and
    # `inst.called_function` on every value they visit: bind the classes
    # there once they exist, so neither a module `__getattr__` nor an
    # import runs per test (values.__getattr__ stays for a reader that
    # comes before this module is loaded).
    from . import instructions, values

    for cls in (Argument, GlobalValue, GlobalVariable, GlobalAlias, Function, BasicBlock, Module):
        setattr(values, cls.__name__, cls)
    for cls in (Function, BasicBlock):
        setattr(instructions, cls.__name__, cls)


_bind_in_lower_modules()
