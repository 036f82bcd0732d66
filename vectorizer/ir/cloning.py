"""Copying a function within its module."""

from __future__ import annotations

import re
from collections.abc import Callable

from . import instructions as I
from . import values as V
from .module import BasicBlock, Function, Module

__all__ = ["clone_function"]


# `comdat` as a keyword (not in a section name), not followed by `(name)`.
_BARE_COMDAT = re.compile(r"(?<![^\s,])comdat(?![\w.$\"]|\s*\()")


def _symbol(name: str | None) -> str:
    return name if name and re.fullmatch(r"[-a-zA-Z$._][-a-zA-Z$._0-9]*", name) else '"' + (name or "") + '"'


def clone_function(fn: Function, new_name: str) -> tuple[Function, dict[V.Value, V.Value]]:
    """Copy `fn` (header, blocks, instructions, names, metadata and debug
    records) into a new function `new_name` of the same module.

    Returns the clone and `value_map` from each argument, block and
    instruction of `fn` to its copy. Constants and globals are shared.

    Debug info is duplicated as LLVM's `CloneFunctionInto` does for a clone
    in the same module: a DISubprogram may be attached to one function only,
    so the clone gets a new subprogram, and every metadata node that reaches
    it (locations, lexical blocks, local variables, the retained-nodes list)
    is copied to point at the new one.
    """
    module = fn.parent
    if module is not None:
        new = module.add_function(new_name, fn.function_type)
    else:
        new = Function(new_name, fn.function_type)
    new.linkage = fn.linkage
    new.prefix = fn.prefix
    new.calling_conv = fn.calling_conv
    new.return_attributes = fn.return_attributes
    new.unnamed_addr = fn.unnamed_addr
    new.addrspace = fn.addrspace
    new.attributes = fn.attributes
    new.trailing = fn.trailing.copy() if fn.trailing is not None else None
    if new.trailing is not None:
        # A bare `comdat` names the function's own comdat: the copy stays in
        # the original's (`comdat($orig)`), as there is no comdat of its name.
        new.trailing.parts = [_BARE_COMDAT.sub(f"comdat(${_symbol(fn.name)})", p) for p in new.trailing.parts]
    new.metadata = list(fn.metadata)

    vmap: dict[V.Value, V.Value] = {}
    for a, na in zip(fn.args, new.args, strict=True):
        na.name = a.name
        na.attributes = a.attributes
        vmap[a] = na
    for b in fn.blocks:
        nb = BasicBlock(b.name)
        new.append_block(nb)
        vmap[b] = nb
    # The operands that name `fn`'s own values are remapped below; the copies
    # never record them as uses of the originals (see `Instruction.clone`).
    local = {id(v) for v in vmap} | {id(i) for i in fn.instructions()}

    def remapped(v: V.Value) -> bool:
        if isinstance(v, V.MetadataValue):
            return bool(v.text.refs)
        if isinstance(v, V.BlockAddress):
            return v.function is fn
        return id(v) in local

    new_insts: list[I.Instruction] = []
    for b in fn.blocks:
        nb = vmap[b]
        assert isinstance(nb, BasicBlock)
        for inst in b.instructions:
            c = inst.clone(unlinked=remapped)
            c.name = inst.name
            nb.append(c)
            vmap[inst] = c
            new_insts.append(c)

    def remap(v: V.Value) -> V.Value:
        if isinstance(v, (V.Constant, V.MetadataValue)) and not isinstance(v, V.BlockAddress):
            return v
        return vmap.get(v, v)

    for old, c in zip(fn.instructions(), new_insts, strict=True):
        for k, v in enumerate(old._operands):
            if not remapped(v):
                continue
            if isinstance(v, V.MetadataValue):
                c.link_operand(k, V.MetadataValue(v.text.copy(remap)))
            elif isinstance(v, V.BlockAddress):
                c.link_operand(k, V.BlockAddress(new, vmap[v.block], v.type))
            else:
                c.link_operand(k, vmap[v])
        if old._debug_records:
            c._debug_records = [r.copy(remap) for r in old._debug_records]
    new.uselistorder = [u.copy(remap) for u in fn.uselistorder]
    if module is not None:
        _duplicate_debug_info(module, new)
    return new, vmap


_NODE_DEF = re.compile(r"!(\d+) = ")
# A quoted string (left alone) or a numbered metadata reference.
_MD_REF = re.compile(r'"[^"]*"|!(\d+)\b')


def _subst(text: str, f: Callable[[int], int | None]) -> str:
    def rep(m: re.Match[str]) -> str:
        if m.group(1) is None:
            return m.group(0)
        n = f(int(m.group(1)))
        return m.group(0) if n is None else f"!{n}"

    return _MD_REF.sub(rep, text)


def _refs(text: str) -> list[int]:
    return [int(m.group(1)) for m in _MD_REF.finditer(text) if m.group(1) is not None]


def _duplicate_debug_info(module: Module, new: Function) -> None:
    sp_text = next((t for k, t in new.metadata if k == "dbg"), None)
    if sp_text is None or not re.fullmatch(r"!\d+", sp_text.strip()):
        return
    sp = int(sp_text.strip()[1:])
    nodes: dict[int, V.TextWithRefs] = {}
    for tpl in module.metadata_nodes:
        m = _NODE_DEF.match(tpl.parts[0])
        if m:
            nodes[int(m.group(1))] = tpl
    if sp not in nodes:
        return
    body = {n: "".join(t.parts)[len(f"!{n} = ") :] for n, t in nodes.items()}
    edges = {n: _refs(b) for n, b in body.items()}
    # Nodes that lead to the subprogram.
    reaches: dict[int, bool] = {}

    def leads(n: int, stack: set[int]) -> bool:
        if n == sp:
            return True
        if n in reaches:
            return reaches[n]
        if n in stack or n not in edges:
            return False
        stack.add(n)
        r = any(leads(k, stack) for k in edges[n])
        stack.discard(n)
        if r or not stack:
            reaches[n] = r
        return r

    # Roots: the subprogram and whatever the function's instructions name.
    roots = [sp]
    for inst in new.instructions():
        for _, t in inst._metadata or ():
            roots.extend(_refs(t))
        for r in inst._debug_records or ():
            roots.extend(_refs("".join(r.text.parts)))
        for op in inst._operands:
            if isinstance(op, V.MetadataValue):
                roots.extend(_refs("".join(op.text.parts)))
    todo = [n for n in roots if n in edges and leads(n, set())]
    dup: set[int] = set()
    while todo:
        n = todo.pop()
        if n in dup:
            continue
        dup.add(n)
        todo.extend(k for k in edges.get(n, ()) if k not in dup and k in edges and leads(k, set()))
    nxt = max(nodes) + 1
    renum: dict[int, int] = {}
    for n in sorted(dup):
        renum[n] = nxt
        nxt += 1

    def f(n: int) -> int | None:
        return renum.get(n)

    for n in sorted(dup):
        old = nodes[n]
        parts = [_subst(p, f) for p in old.parts]
        parts[0] = f"!{renum[n]} = " + parts[0][len(f"!{n} = ") :]
        module.metadata_nodes.append(V.TextWithRefs(parts, old.refs))
    new.metadata = [(k, _subst(t, f)) for k, t in new.metadata]
    for inst in new.instructions():
        if inst._metadata:
            inst._metadata = [(k, _subst(t, f)) for k, t in inst._metadata]
        for r in inst._debug_records or ():
            r.text.parts = [_subst(p, f) for p in r.text.parts]
        for k, op in enumerate(inst._operands):
            if isinstance(op, V.MetadataValue):
                inst.set_operand(k, V.MetadataValue(V.TextWithRefs([_subst(p, f) for p in op.text.parts], op.text.refs)))
