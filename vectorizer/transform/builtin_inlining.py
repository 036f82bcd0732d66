"""Builtin Inlining: bring the bodies of called functions into the kernel clone.

Vecz inlines builtins whose generic vector form it cannot get; we inline
every function the module defines (helpers, user functions, builtins shipped
as IR), so that the vectorizer sees one self-contained function and can
packetize the callee's code instead of running it once per lane. Recursive
calls, and calls beyond a size budget, stay calls (and are instantiated).

Builtins the module only declares (as clang emits them) are inlined from the
OpenCL C builtin library (`vectorizer/builtins/library`): the same
definitions the oracle's runtime links into the scalar kernel, so the
packetized body computes in each lane exactly the bits the scalar call
computes. Their bodies are straight-line code (selects, no branches or
tables), which packetizes into plain vector instructions. Calls past
`MAX_LIBRARY_INSTRUCTIONS` of inlined library code stay calls: the packetizer
instantiates them lane by lane, which is exact as well.
"""

from __future__ import annotations

import re

from ..ir import instructions as I
from ..ir import types as T
from ..ir import values as V
from ..ir.builder import Builder

MAX_INLINED_CALLS = 256
# Instructions of library bodies inlined into one kernel; the rest stay calls.
MAX_LIBRARY_INSTRUCTIONS = 40000


def _inlinable(call: I.CallInst, caller: V.Function, stack: set[str]) -> bool:
    fn = call.called_function
    if fn is None or fn.is_declaration or fn is caller or fn.name in stack:
        return False
    if fn.function_type.vararg:
        return False
    return fn.calling_conv in (None, "", "spir_func", "ccc")


_CONT = re.compile(r"(\.inl\.cont(\.\d+)?)+$")


def inline_call(call: I.CallInst) -> None:
    """Replace one call by a copy of the callee's body."""
    callee = call.called_function
    assert callee is not None
    block = call.parent
    caller = block.parent
    # One suffix however often the block is split again (a call per inlined
    # call would grow the name past what LLVM accepts); the printer makes
    # repeated names unique.
    cont = block.split_before(call, _CONT.sub("", block.name) + ".inl.cont" if block.name else None)

    vmap: dict[int, V.Value] = {}
    for arg, actual in zip(callee.args, call.args, strict=True):
        vmap[id(arg)] = actual
    new_blocks: list[tuple[V.BasicBlock, V.BasicBlock]] = []
    for cb in callee.blocks:
        nb = caller.add_block(f"{callee.name}.{cb.name}" if cb.name else None, before=cont)
        vmap[id(cb)] = nb
        new_blocks.append((cb, nb))
    # Operands naming the callee's own values are remapped below, never
    # recorded as uses of the callee's values (see `Instruction.clone`).
    local = set(vmap) | {id(i) for i in callee.instructions()}

    def remapped(v: V.Value) -> bool:
        return id(v) in local

    clones: list[tuple[I.Instruction, I.Instruction]] = []
    for cb, nb in new_blocks:
        for inst in cb.instructions:
            c = inst.clone(unlinked=remapped)
            # Debug locations name the callee's scope; LLVM rejects them in the caller.
            c.metadata = [(k, m) for k, m in c.metadata if k != "dbg"]
            if hasattr(c, "debug_records"):
                c.debug_records = []
            if inst.name:
                c.name = inst.name
            nb.append(c)
            vmap[id(inst)] = c
            clones.append((inst, c))
    for inst, c in clones:
        for i, op in enumerate(inst._operands):
            if id(op) in local:
                c.link_operand(i, vmap[id(op)])

    returns: list[tuple[V.Value | None, V.BasicBlock]] = []
    for _, nb in new_blocks:
        term = nb.terminator
        if isinstance(term, I.ReturnInst):
            returns.append((term.value, nb))
            term.erase_from_parent()
            Builder(nb).br(cont)

    # The split left `block` branching to `cont`; enter the inlined body instead.
    old = block.terminator
    old.erase_from_parent()
    Builder(block).br(new_blocks[0][1])

    if not isinstance(call.type, T.VoidType) and call.uses:
        values = [(v, b) for v, b in returns if v is not None]
        if len(values) == 1:
            result: V.Value = values[0][0]
        elif values:
            b = Builder()
            b.position_before(cont.instructions[0])
            phi = b.phi(call.type, name=call.name or None)
            for v, blk in values:
                phi.add_incoming(v, blk)
            result = phi
        else:
            result = V.PoisonValue(call.type)
        call.replace_all_uses_with(result)
    call.erase_from_parent()

    # Static allocas of the callee belong at the top of the caller's entry,
    # where SROA/mem2reg look for them and where loops cannot repeat them.
    entry = caller.entry
    first = new_blocks[0][1]
    anchor = entry.instructions[0]
    for inst in list(first.instructions):
        if isinstance(inst, I.AllocaInst) and (inst.count is None or isinstance(inst.count, V.Constant)):
            inst.remove_from_parent()
            inst.insert_before(anchor)


def inline_calls(function: V.Function, module: V.Module) -> int:
    """Inline, transitively, every call to a function defined in the module,
    then the calls to builtins the library defines; returns the count."""
    count = _inline_defined(function)
    return count + inline_library_builtins(function, module)


def _library_callee(call: I.CallInst, noinline_groups: set[str]) -> V.Function | None:
    fn = call.called_function
    if fn is None or not fn.is_declaration or fn.name.startswith("llvm.") or not fn.name.startswith("_Z"):
        return None
    if fn.function_type.vararg:
        return None
    # `noinline` on the call site or the declaration keeps the call.
    for attrs in (call.attributes, fn.attributes or ""):
        words = set(attrs.split())
        if "noinline" in words or words & noinline_groups:
            return None
    return fn


def _noinline_groups(module: V.Module) -> set[str]:
    """The attribute groups (`#N`) that contain `noinline`."""
    out = set()
    for text in module.attribute_groups:
        head, _, body = text.partition("=")
        if "noinline" in body.replace("{", " ").replace("}", " ").split():
            out.add(head.replace("attributes", "").strip())
    return out


def inline_library_builtins(function: V.Function, module: V.Module) -> int:
    """Inline the library's definition of every builtin `function` calls that
    the module only declares; returns how many calls were inlined. External
    functions the bodies call (intrinsics, the C library) are declared in
    `module`; the library's definitions themselves are not added to it."""
    from ..builtins import library
    from ..ir import parse_module

    wanted: dict[str, tuple[str, list[str]]] = {}
    calls: list[I.CallInst] = []
    groups = _noinline_groups(module)
    varying = _maybe_varying(function)
    for inst in function.instructions():
        if isinstance(inst, I.CallInst):
            fn = _library_callee(inst, groups)
            # A call whose arguments are the same in every work-item stays a
            # call: the packetizer runs it once (pure) or per lane (exact
            # either way), and the kernel does not grow by its body.
            if fn is not None and any(id(a) in varying for a in inst.args):
                calls.append(inst)
                fty = fn.function_type
                wanted.setdefault(fn.name, (str(fty.return_type), [str(p) for p in fty.params]))
    if not calls:
        return 0
    text, defined = library.definitions((n, r, p) for n, (r, p) in wanted.items())
    if not defined:
        return 0
    lib = parse_module(text)
    sizes = {name: sum(1 for _ in lib.get_function(name).instructions()) for name in defined}
    budget = MAX_LIBRARY_INSTRUCTIONS
    count = 0
    for call in calls:
        name = call.called_function.name
        if name not in sizes or sizes[name] > budget:
            continue
        budget -= sizes[name]
        # Every call site of the library's functions is one of ours: drop
        # call-site attributes meant for the declaration (they are hints only).
        call.callee = lib.get_function(name)
        inline_call(call)
        count += 1
    if count:
        _adopt_declarations(function, module, lib)
    return count


def _maybe_varying(function: V.Function) -> set[int]:
    """Ids of the values that may differ between work-items: a conservative
    over-approximation (a value missing here is uniform), computed before
    the preparation passes. Work-item queries, atomics and calls of unknown
    functions are roots; a load is varying once any store may write a
    varying value or through a varying address; a phi once any branch is
    varying."""
    from ..builtins.info import is_pure_callee
    from ..builtins.work_item import work_item_query

    insts = list(function.instructions())
    out: set[int] = set()
    memory = divergent = False
    changed = True
    while changed:
        changed = False
        for inst in insts:
            ops = [op for op in inst.operands if not isinstance(op, V.BasicBlock)]
            tainted_op = any(id(op) in out for op in ops)
            if isinstance(inst, I.StoreInst) and tainted_op and not memory:
                memory = changed = True
            if isinstance(inst, (I.BranchInst, I.SwitchInst)) and tainted_op and not divergent:
                divergent = changed = True
            if id(inst) in out:
                continue
            if isinstance(inst, I.CallInst):
                fn = inst.called_function
                name = fn.name if fn is not None else None
                pure = is_pure_callee(name)
                if not pure and any(id(a) in out for a in inst.args) and not memory:
                    memory = changed = True  # it may store what it was given
                if work_item_query(name) is not None or fn is None:
                    t = True
                elif pure:
                    t = tainted_op
                else:
                    # Effects: atomics and unknown functions differ per call;
                    # the library's loads (vloadn) read memory like a load.
                    t = library_reader(name) is False or tainted_op or memory
            elif isinstance(inst, (I.AtomicRMWInst, I.AtomicCmpXchgInst)):
                t = True
                if not memory:
                    memory = changed = True
            elif isinstance(inst, I.LoadInst):
                t = memory or tainted_op
            elif isinstance(inst, I.PhiNode):
                t = divergent or tainted_op
            else:
                t = tainted_op
            if t:
                out.add(id(inst))
                changed = True
    return out


def library_reader(name: str | None) -> bool:
    """Is `name` a builtin the library defines (its effects are memory
    accesses through its pointer arguments, nothing else)?"""
    from ..builtins import library

    return name is not None and library.lookup(name) is not None


def _adopt_declarations(function: V.Function, module: V.Module, lib: V.Module) -> None:
    """Point calls to `lib`'s declarations (left by inlining its bodies) at
    the same-named declarations of `module`, adding those it lacks."""
    for inst in function.instructions():
        if isinstance(inst, I.CallInst):
            fn = inst.called_function
            if fn is not None and fn.parent is lib:
                inst.callee = module.get_or_insert_function(fn.name, fn.function_type)


def _inline_defined(function: V.Function) -> int:
    count = 0
    changed = True
    while changed and count < MAX_INLINED_CALLS:
        changed = False
        for inst in list(function.instructions()):
            if isinstance(inst, I.CallInst) and _inlinable(inst, function, set()):
                if _recursive(inst.called_function):
                    continue
                inline_call(inst)
                count += 1
                changed = True
                break
    return count


def _recursive(fn: V.Function) -> bool:
    """Does `fn` reach itself through calls to defined functions?"""
    seen: set[int] = set()
    work = [fn]
    while work:
        f = work.pop()
        for inst in f.instructions():
            if isinstance(inst, I.CallInst):
                g = inst.called_function
                if g is None or g.is_declaration:
                    continue
                if g is fn:
                    return True
                if id(g) not in seen:
                    seen.add(id(g))
                    work.append(g)
    return False
