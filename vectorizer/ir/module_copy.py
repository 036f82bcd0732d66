"""A deep copy of a module made from its objects, not from its text.

The prepared-kernel cache (vectorizer/passes/prepared_cache.py) keeps one
parsed module per snapshot and hands each request that resumes there a copy
of it: the later passes edit the module, so no request may share a mutable
object with the snapshot or with another request. A copy wired from a
plan (`ModuleCopier`, the cache's case) costs about half a parse of the
module's text (in the campaign replay, 2.3 against 5 ms a snapshot).

The copy is the module the parse of its print would give, object for
object: every global, alias, function, argument, block, instruction,
constant and metadata holder is new, with the same class, names, types,
attributes and metadata, the same operands (mapped to the copies) and the
same use lists *in the same order* (passes walk `value.uses`, and the order
of a block's uses decides the order of its predecessors). A constant that
several users share in the original is one shared copy. Types are shared:
they are immutable once a module is parsed (only the parser gives a named
struct its body), and they compare by value or by name anyway.

What is not copied: analysis caches (a block's lazily built positions),
nothing else holds state. A value whose uses include a user outside the
module (garbage a pass left) gets only the uses from inside it. Anything
the copier does not know raises `NotCopyable`: the caller re-parses the
text instead.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from operator import attrgetter
from typing import Any

from . import instructions as I
from . import values as V
from .module import Argument, BasicBlock, Function, GlobalAlias, GlobalVariable, Module

__all__ = ["ModuleCopier", "NotCopyable", "copy_module"]

_new = object.__new__
_Use = V.Use
_TextWithRefs = V.TextWithRefs
_NO_ARG_KEYS = object()
_user_of = attrgetter("user")


class NotCopyable(TypeError):
    """The module holds an object the copier does not know (or a reference
    to a value outside the module): copy it through its text instead."""


# The instance attributes each constant class's constructor sets beyond
# `type`, `name`, `uses` and (for constants with operands) the operand
# lists: tests/unit/test_module_copy.py checks these against real objects.
_CONSTANT_FIELDS: dict[type, tuple[str, ...]] = {
    V.ConstantInt: ("value",),
    V.ConstantFP: ("kind", "bits"),
    V.ConstantPointerNull: (),
    V.UndefValue: (),
    V.PoisonValue: (),
    V.ConstantAggregateZero: (),
    V.ConstantToken: (),
    V.ConstantDataString: ("data",),
    V.InlineAsm: ("text",),
    V.ConstantVector: ("is_splat",),
    V.ConstantArray: (),
    V.ConstantStruct: (),
    V.ConstantExpr: ("opcode", "source_element_type", "predicate", "inrange"),  # and `flags`, a set
    V.BlockAddress: (),
}


def _constant_maker(cls: type, fields: tuple[str, ...]) -> Callable[[Any], Any]:
    lines = ["def make(src):", "    dst = new(cls)", "    dst.type = src.type", "    dst.name = src.name",
             "    dst.uses = []"]
    lines += [f"    dst.{a} = src.{a}" for a in fields]
    if cls is V.ConstantExpr:
        lines.append("    dst.flags = set(src.flags)")
    lines.append("    return dst")
    scope: dict[str, Any] = {"new": _new, "cls": cls}
    exec("\n".join(lines), scope)  # noqa: S102 - our own attribute names only
    return scope["make"]


_CONSTANT_MAKERS = {cls: _constant_maker(cls, fields) for cls, fields in _CONSTANT_FIELDS.items()}
# Constants whose operand lists are the class's shared empty tuple.
_LEAVES = frozenset(c for c in _CONSTANT_FIELDS if issubclass(c, V._LeafConstant))


_MAKERS: dict[type, Callable[[Any, BasicBlock], Any]] = {}


def _maker(cls: type) -> Callable[[Any, BasicBlock], Any]:
    """A function making the copy of a `cls` instruction in block `parent`,
    without operands yet: the attributes the class declares for `clone`
    (`_SHARED` by reference, `_COPIED` containers copied; see
    `instructions._copier`), its name and metadata attachments. Generated
    once per class, with the attribute names in its code."""
    shared: list[str] = ["type"]
    copied: list[str] = []
    for klass in reversed(cls.__mro__):
        shared += [a for a in klass.__dict__.get("_SHARED", ()) if a not in shared]
        copied += [a for a in klass.__dict__.get("_COPIED", ()) if a not in copied]
    lines = ["def make(src, parent):", "    dst = new(cls)"]
    lines += [f"    dst.{a} = src.{a}" for a in shared]
    for a in copied:
        lines.append(f"    v = src.{a}")
        lines.append(f"    dst.{a} = v.copy() if type(v) in containers else v")
    lines += ["    dst.uses = []", "    dst.parent = parent", "    dst.name = src.name",
              "    m = src._metadata", "    if m:", "        dst._metadata = list(m)", "    return dst"]
    scope: dict[str, Any] = {"containers": I._CONTAINERS, "new": _new, "cls": cls}
    exec("\n".join(lines), scope)  # noqa: S102 - our own attribute names only
    make = _MAKERS[cls] = scope["make"]
    return make


class _Copier:
    """One copy: `vmap` maps `id` of each original value to its copy (the
    originals stay alive in the source module, so ids are stable)."""

    def __init__(self) -> None:
        self.vmap: dict[int, V.Value] = {}
        self.holders: dict[int, V.TextWithRefs] = {}
        # (original, copy) of every value copied, in creation order, and of
        # every user whose operand lists are still to be filled.
        self.pairs: list[tuple[V.Value, V.Value]] = []
        self.users: list[tuple[V.User, V.User]] = []
        self.records: list[tuple[I.Instruction, I.Instruction]] = []  # instructions with debug records
        self.slots = 0  # operand slots made room for (`fill`), to be filled by `use_lists`
        self.shells = 0  # how many of `pairs` are globals, functions and their contents

    # ------------------------------------------------------------- values

    def value(self, v: V.Value) -> V.Value:
        """The copy of `v`, made now if `v` is a constant or metadata operand
        not copied yet."""
        c = self.vmap.get(id(v))
        if c is not None:
            return c
        return self.constant(v)

    def constant(self, v: V.Value) -> V.Value:
        cls = type(v)
        if cls is V.ConstantOpaque:
            c = _new(cls)
            c.type = v.type
            c.name = v.name
            c.uses = []
            c.text = self.holder(v.text)  # type: ignore[attr-defined]
        elif cls is V.MetadataValue:
            c = _new(cls)
            c.type = v.type
            c.name = v.name
            c.uses = []
            c.text = self.holder(v.text)  # type: ignore[attr-defined]
        else:
            make = _CONSTANT_MAKERS.get(cls)
            if make is None:
                raise NotCopyable(f"cannot copy {v!r} (outside the module, or of a class the copier does not know)")
            c = make(v)
            if cls not in _LEAVES:
                self.users.append((v, c))  # type: ignore[arg-type]
        self.vmap[id(v)] = c
        self.pairs.append((v, c))
        return c

    def holder(self, h: V.TextWithRefs) -> V.TextWithRefs:
        """A copy of a metadata holder, its references mapped (registered
        on the referenced copies at the end, in the original order)."""
        c = self.holders.get(id(h))
        if c is not None:
            return c
        c = _new(_TextWithRefs)
        c.parts = list(h.parts)
        c.refs = [self.value(r) for r in h.refs]
        self.holders[id(h)] = c
        return c

    # ------------------------------------------------------------ globals

    def global_variable(self, g: GlobalVariable, module: Module) -> GlobalVariable:
        c = _new(GlobalVariable)
        c.type = g.type
        c.name = g.name
        c.uses = []
        c._operands = []
        c._uses = []
        c.parent = module if g.parent is not None else None
        c.value_type = g.value_type
        c._initializer = None  # set with the operands (`fill`)
        c.linkage = g.linkage
        c.is_constant = g.is_constant
        c.addrspace = g.addrspace
        c.align = g.align
        c.attrs = g.attrs
        c.extra = g.extra
        c.externally_initialized = g.externally_initialized
        self.vmap[id(g)] = c
        self.pairs.append((g, c))
        if g._operands:
            self.users.append((g, c))
        return c

    def alias(self, a: GlobalAlias, module: Module) -> GlobalAlias:
        c = _new(GlobalAlias)
        c.type = a.type
        c.name = a.name
        c.uses = []
        c._operands = []
        c._uses = []
        c.parent = module if a.parent is not None else None
        c.text = a.text  # a holder: copied once every global exists (`texts`)
        self.vmap[id(a)] = c
        self.pairs.append((a, c))
        return c

    def function(self, f: Function, module: Module) -> Function:
        c = _new(Function)
        c.type = f.type
        c.name = f.name
        c.uses = []
        c._operands = []
        c._uses = []
        c.parent = module if f.parent is not None else None
        c.function_type = f.function_type
        vmap, pairs = self.vmap, self.pairs
        args = []
        for a in f.args:
            ca = _new(Argument)
            ca.type = a.type
            ca.name = a.name
            ca.uses = []
            ca.parent = c
            ca.index = a.index
            ca.attributes = a.attributes
            vmap[id(a)] = ca
            pairs.append((a, ca))
            args.append(ca)
        c.args = args
        c.blocks = []
        c.linkage = f.linkage
        c.prefix = f.prefix
        c.calling_conv = f.calling_conv
        c.return_attributes = f.return_attributes
        c.unnamed_addr = f.unnamed_addr
        c.addrspace = f.addrspace
        c.attributes = f.attributes
        c.trailing = f.trailing  # holders: copied once every value exists (`texts`)
        c.metadata = list(f.metadata)
        c.uselistorder = list(f.uselistorder)
        keys = getattr(f, "_arg_keys", _NO_ARG_KEYS)  # the parser's, left on declarations
        if keys is not _NO_ARG_KEYS:
            c._arg_keys = list(keys)  # type: ignore[attr-defined]
        vmap[id(f)] = c
        pairs.append((f, c))
        users = self.users
        blocks = c.blocks
        for b in f.blocks:
            cb = _new(BasicBlock)
            cb.type = b.type
            cb.name = b.name
            cb.uses = []
            cb.parent = c
            vmap[id(b)] = cb
            pairs.append((b, cb))
            insts = []
            for i in b.instructions:
                ci = (_MAKERS.get(type(i)) or _maker(type(i)))(i, cb)
                if i._debug_records is not None:
                    self.records.append((i, ci))
                vmap[id(i)] = ci
                pairs.append((i, ci))
                users.append((i, ci))
                insts.append(ci)
            cb.instructions = insts
            blocks.append(cb)
        return c

    # ------------------------------------------------------------- wiring

    def fill(self) -> None:
        """Give every copied user its operands (copying constants as they
        are met) and room for its operand slots (`use_lists` makes them)."""
        users = self.users
        value = self.value
        get = self.vmap.get
        k = slots = 0
        while k < len(users):  # grows while constants with operands are copied
            orig, c = users[k]
            k += 1
            src_ops = orig._operands
            ops = list(map(get, map(id, src_ops)))  # (in C: most operands are copied already)
            if not all(ops):  # constants met first here
                for n, v in enumerate(ops):
                    if v is None:
                        ops[n] = value(src_ops[n])
            c._operands = ops
            c._uses = [None] * len(ops)
            slots += len(ops)
            if type(orig) is GlobalVariable:
                c._initializer = ops[0] if orig._initializer is not None else None  # type: ignore[attr-defined]
        self.slots = slots

    def texts(self, src: Module, dst: Module) -> None:
        """Copy every metadata holder: the module's, the functions', the
        aliases' and the debug records of instructions."""
        holder = self.holder
        dst.named_metadata = [holder(h) for h in src.named_metadata]
        dst.metadata_nodes = [holder(h) for h in src.metadata_nodes]
        dst.trailer = [holder(h) for h in src.trailer]
        for a, ca in zip(src.aliases, dst.aliases, strict=True):
            ca.text = holder(a.text)
        for f, cf in zip(src.functions, dst.functions, strict=True):
            if f.trailing is not None:
                cf.trailing = holder(f.trailing)
            cf.uselistorder = [holder(h) for h in f.uselistorder]
        for i, ci in self.records:
            ci._debug_records = [I.DebugRecord(holder(r.text)) for r in i._debug_records or ()]

    def use_lists(self) -> None:
        """Every copy's use list, in its original's order (each operand slot
        made as its use is met), and its metadata holders, in the same order."""
        get = self.vmap.get
        holders = self.holders
        made = 0
        for orig, c in self.pairs:
            uses = orig.uses
            if uses:
                out = []
                for u, user in zip(uses, map(get, map(id, map(_user_of, uses))), strict=False):
                    if user is not None:
                        nu = _new(_Use)
                        nu.user = user
                        nu.index = n = u.index
                        user._uses[n] = nu  # type: ignore[attr-defined]
                        out.append(nu)
                c.uses = out
                made += len(out)
            md = orig._md_users
            if md is not None:
                c._md_users = [holders[id(h)] for h in md if id(h) in holders]
        if made != self.slots:  # (each original slot has one use: every slot is made)
            self.unfilled_slots()

    def unfilled_slots(self) -> None:
        """Make the slots no use of the original named (cloned unlinked,
        never linked): operands not recorded as uses."""
        for _, c in self.users:
            slots = c._uses
            if None in slots:
                for n, u in enumerate(slots):
                    if u is None:
                        nu = slots[n] = _new(_Use)
                        nu.user = c
                        nu.index = n


def _copy(src: Module, plan: _Plan | None = None) -> tuple[Module, _Copier]:
    cp = _Copier()
    dst = _new(Module)
    dst.name = src.name
    dst.source_filename = src.source_filename
    dst.datalayout = src.datalayout
    dst.triple = src.triple
    dst.module_asm = list(src.module_asm)
    dst.struct_types = dict(src.struct_types)
    dst.comdats = list(src.comdats)
    dst.globals = [cp.global_variable(g, dst) for g in src.globals]
    dst.aliases = [cp.alias(a, dst) for a in src.aliases]
    dst.functions = [cp.function(f, dst) for f in src.functions]
    dst.attribute_groups = list(src.attribute_groups)
    if plan is None:
        cp.shells = len(cp.pairs)
        cp.texts(src, dst)
        cp.fill()
        cp.use_lists()
    else:
        plan.constants_of(cp)
        cp.texts(src, dst)
        plan.fill(cp)
        plan.use_lists(cp)
    return dst, cp


def copy_module(src: Module) -> Module:
    """A copy of `src` sharing no mutable object with it (see the module's
    docstring); `src` is only read. Raises `NotCopyable` for a module
    holding an object the copier does not know."""
    return _copy(src)[0]


class _Plan:
    """How the copy of one module is wired, as positions in the copier's
    creation order (`_Copier.pairs`), worked out from a first copy: later
    copies of the same, unchanged module then wire their operands and use
    lists from these tuples of integers instead of looking every original
    up by its `id` (a third of the cost of a copy)."""

    def __init__(self, cp: _Copier, of_copy: bool = False) -> None:
        """The plan for copying the module `cp` copied or (`of_copy`) the
        copy it made: both are built alike, object for object."""
        index = {id(o): k for k, (o, _) in enumerate(cp.pairs)}
        self.constants = [c if of_copy else o for o, c in cp.pairs[cp.shells:]]
        self.operands = [tuple([index[id(v)] for v in o._operands]) for o, _ in cp.users]
        # Per value, its uses as one flat tuple (user position, slot, user
        # position, slot, ...): fewer objects for the garbage collector.
        self.uses = [tuple([x for u in o.uses if id(u.user) in index for x in (index[id(u.user)], u.index)]) or None
                     for o, _ in cp.pairs]
        self.slots = cp.slots

    def constants_of(self, cp: _Copier) -> None:
        """Copy the constants first met through holders and operands, in
        the order the first copy met them."""
        constant = cp.constant
        for o in self.constants:
            constant(o)

    def fill(self, cp: _Copier) -> None:
        objs = [c for _, c in cp.pairs]
        at = objs.__getitem__
        for (orig, c), ops_at in zip(cp.users, self.operands, strict=True):
            ops = c._operands = list(map(at, ops_at))
            c._uses = [None] * len(ops)
            if type(orig) is GlobalVariable:
                c._initializer = ops[0] if orig._initializer is not None else None  # type: ignore[attr-defined]
        cp.slots = self.slots
        cp.objs = objs  # type: ignore[attr-defined]

    def use_lists(self, cp: _Copier) -> None:
        objs = cp.objs  # type: ignore[attr-defined]
        holders = cp.holders
        made = 0
        for (orig, c), spec in zip(cp.pairs, self.uses, strict=True):
            if spec is not None:
                out = []
                pairs = iter(spec)
                for k, n in zip(pairs, pairs, strict=False):
                    nu = _new(_Use)
                    nu.user = user = objs[k]
                    nu.index = n
                    user._uses[n] = nu
                    out.append(nu)
                c.uses = out
                made += len(out)
            md = orig._md_users
            if md is not None:
                c._md_users = [holders[id(h)] for h in md if id(h) in holders]
        if made != self.slots:
            cp.unfilled_slots()


class ModuleCopier:
    """Copies of one module that stays unchanged (the prepared cache's
    parsed snapshot): the first copy also works out the wiring (`_Plan`),
    which every later copy reuses. Safe to share between threads."""

    def __init__(self, src: Module) -> None:
        self.src = src
        self._plan: _Plan | None = None
        self._lock = threading.Lock()

    @classmethod
    def of_copy(cls, src: Module) -> ModuleCopier:
        """The copier of a copy of `src` (which may change afterwards), its
        plan worked out while copying: the copy's first copy is wired from
        it already."""
        dst, cp = _copy(src)
        copier = cls(dst)
        copier._plan = _Plan(cp, of_copy=True)
        return copier

    def copy(self) -> Module:
        """A copy of the module, as `copy_module` makes it."""
        plan = self._plan
        if plan is not None:
            return _copy(self.src, plan)[0]
        dst, cp = _copy(self.src)
        with self._lock:
            if self._plan is None:
                self._plan = _Plan(cp)
        return dst
