"""IR reduction for any `.ll` case: smaller candidates of a module, each verified.

Candidates are made on our own IR (`vectorizer.ir`: typed SSA with use lists),
so a deleted value's uses get a zero of the right type and branches and phis
stay consistent; every candidate is printed and verified by llvmlite before
it is offered. Edits, coarsest first:

- `llvm-cleanup`: LLVM's dce/simplifycfg/instcombine on the whole module
  (semantics-preserving, so often a large step for free);
- `fold-branch`: a conditional branch made unconditional (each way), then
  unreachable blocks dropped: removes ifs, and loops (folding a back edge);
- `delete-chunk`: a run of instructions deleted at once (halves, quarters, ...
  ddmin style), uses replaced by zero;
- `delete-inst`: one instruction at a time, last first (uses of a late value
  are fewer);
- `use-operand`: a value replaced by one of its operands of the same type;
- `narrow-const`: an integer constant operand replaced by 0 or 1, a float by 0;
- `drop-function`: an internal helper whose calls are all gone.

Pointers are never replaced by zero (null would only make the scalar run
fault, which the reducer rejects anyway, at the price of a run).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from vectorizer.ir import (
    BranchInst,
    ConstantFP,
    ConstantInt,
    Function,
    Instruction,
    IntType,
    Module,
    PhiNode,
    PointerType,
    VoidType,
    parse_module,
    print_module,
)
from vectorizer.ir import FloatType as _FloatType
from vectorizer.ir import VectorType as _VectorType
from vectorizer.ir.values import ConstantAggregateZero, Value


def count_instructions(ir: str) -> int:
    """Instructions in the functions `ir` defines (the size the reducer minimises)."""
    mod = parse_module(ir)
    return sum(len(b.instructions) for f in mod.functions if not f.is_declaration for b in f.blocks)


def _zero(ty: object) -> Value | None:
    if isinstance(ty, IntType):
        return ConstantInt(ty, 0)
    if isinstance(ty, _FloatType):
        return ConstantFP(ty, 0.0)
    if isinstance(ty, _VectorType) and not isinstance(ty.element, PointerType):
        return ConstantAggregateZero(ty)
    return None


def _defined(mod: Module) -> list[Function]:
    return [f for f in mod.functions if not f.is_declaration]


def _delete(inst: Instruction) -> bool:
    """Delete `inst`, its uses replaced by zero; False if that is not possible."""
    if inst.is_terminator:
        return False
    if inst.uses:
        z = _zero(inst.type)
        if z is None:
            return False
        inst.replace_all_uses_with(z)
    inst.erase_from_parent()
    return True


def _remove_unreachable(fn: Function) -> None:
    seen: set[int] = set()
    stack = [fn.entry]
    while stack:
        b = stack.pop()
        if id(b) in seen:
            continue
        seen.add(id(b))
        stack.extend(b.successors)
    dead = [b for b in fn.blocks if id(b) not in seen]
    if not dead:
        return
    for b in dead:
        for s in b.successors:
            if id(s) in seen:
                for p in s.phis():
                    while True:
                        try:
                            p.remove_incoming(b)
                        except KeyError:
                            break
    for b in dead:
        for i in b.instructions:
            if i.uses and not isinstance(i.type, VoidType):
                z = _zero(i.type)
                if z is not None:
                    i.replace_all_uses_with(z)
    for b in dead:
        for i in list(b.instructions):
            i.drop_all_references()
    for b in dead:
        b.erase()
    # A phi left with one incoming value is just that value.
    for b in fn.blocks:
        for p in list(b.phis()):
            inc = p.incoming
            if len(inc) == 1 and inc[0][0] is not p:
                p.replace_all_uses_with(inc[0][0])
                p.erase_from_parent()


Edit = Callable[[Module], bool]


def _instructions(mod: Module) -> list[tuple[int, int, int]]:
    """(function, block, index) of every non-terminator instruction."""
    out = []
    for fi, f in enumerate(_defined(mod)):
        for bi, b in enumerate(f.blocks):
            for ii, inst in enumerate(b.instructions):
                if not inst.is_terminator:
                    out.append((fi, bi, ii))
    return out


def _at(mod: Module, loc: tuple[int, int, int]) -> Instruction:
    fi, bi, ii = loc
    return _defined(mod)[fi].blocks[bi].instructions[ii]


def _edits_fold(mod: Module) -> Iterator[tuple[str, Edit]]:
    for fi, f in enumerate(_defined(mod)):
        for bi, b in enumerate(f.blocks):
            t = b.terminator
            if isinstance(t, BranchInst) and t.is_conditional:
                for keep in (0, 1):
                    def edit(m: Module, fi: int = fi, bi: int = bi, keep: int = keep) -> bool:
                        fn = _defined(m)[fi]
                        blk = fn.blocks[bi]
                        br = blk.terminator
                        succ = br.successors
                        target, other = succ[keep], succ[1 - keep]
                        if other is not target:
                            for p in other.phis():
                                p.remove_incoming(blk)
                        br.erase_from_parent()
                        from vectorizer.ir import Builder

                        Builder(blk).br(target)
                        _remove_unreachable(fn)
                        return True
                    yield (f"fold-branch {f.name}:{b.name}:{keep}", edit)


def _edits_chunks(mod: Module) -> Iterator[tuple[str, Edit]]:
    locs = _instructions(mod)
    n = len(locs)
    size = n // 2
    while size >= 2:
        for start in range(0, n, size):
            chunk = locs[start:start + size]

            def edit(m: Module, chunk: list[tuple[int, int, int]] = chunk) -> bool:
                insts = [_at(m, loc) for loc in chunk]
                ok = False
                for inst in reversed(insts):  # users before their operands
                    ok |= _delete(inst)
                return ok
            yield (f"delete-chunk {start}+{size}", edit)
        size //= 2


def _edits_single(mod: Module) -> Iterator[tuple[str, Edit]]:
    for loc in reversed(_instructions(mod)):
        yield (f"delete-inst {loc}", lambda m, loc=loc: _delete(_at(m, loc)))


def _edits_operand(mod: Module) -> Iterator[tuple[str, Edit]]:
    """Replace a value by one of its operands of the same type (`x | y` -> `y`)."""
    for loc in reversed(_instructions(mod)):
        inst = _at(mod, loc)
        if not inst.uses or isinstance(inst, PhiNode):
            continue
        for oi, op in enumerate(inst.operands):
            if op.type == inst.type and not isinstance(op, Function):
                def edit(m: Module, loc: tuple[int, int, int] = loc, oi: int = oi) -> bool:
                    i = _at(m, loc)
                    i.replace_all_uses_with(i.operands[oi])
                    i.erase_from_parent()
                    return True
                yield (f"use-operand {loc}:{oi}", edit)


def _edits_consts(mod: Module) -> Iterator[tuple[str, Edit]]:
    for loc in _instructions(mod):
        inst = _at(mod, loc)
        if isinstance(inst, PhiNode):
            continue
        for oi, op in enumerate(inst.operands):
            if isinstance(op, ConstantInt) and op.value not in (0, 1):
                for v in (0, 1):
                    def edit(m: Module, loc: tuple[int, int, int] = loc, oi: int = oi, v: int = v) -> bool:
                        i = _at(m, loc)
                        i.set_operand(oi, ConstantInt(i.operands[oi].type, v))
                        return True
                    yield (f"narrow-const {loc}:{oi}={v}", edit)
            elif isinstance(op, ConstantFP) and op.value not in (0.0,):
                def edit(m: Module, loc: tuple[int, int, int] = loc, oi: int = oi) -> bool:
                    i = _at(m, loc)
                    i.set_operand(oi, ConstantFP(i.operands[oi].type, 0.0))
                    return True
                yield (f"narrow-const {loc}:{oi}=0.0", edit)


def _edits_functions(mod: Module, keep: str) -> Iterator[tuple[str, Edit]]:
    for f in _defined(mod):
        if f.name != keep and not f.uses:
            def edit(m: Module, name: str = f.name) -> bool:
                fn = m.get_function(name)
                if fn is None or fn.uses:
                    return False
                for b in fn.blocks:
                    for i in list(b.instructions):
                        i.drop_all_references()
                m.functions.remove(fn)
                return True
            yield (f"drop-function {f.name}", edit)


PASSES: tuple[str, ...] = ("llvm-cleanup", "fold-branch", "delete-chunk", "delete-inst",
                           "use-operand", "narrow-const", "drop-function")


def candidates(ir: str, kernel: str, pass_name: str) -> Iterator[tuple[str, str]]:
    """(description, candidate IR) for one pass over `ir`; every candidate verifies.

    Candidates are made lazily from a fresh parse each, so the caller can stop
    at the first one it keeps and restart the pass on the new text."""
    from vectorizer.llvm_bridge import run_passes, verify

    if pass_name == "llvm-cleanup":
        try:
            out = run_passes(ir, ["instcombine", "simplifycfg", "dce", "strip-dead-prototypes"])
            verify(out)
            if out != ir:
                yield ("llvm-cleanup", out)
        except Exception:
            pass
        return
    makers = {
        "fold-branch": _edits_fold, "delete-chunk": _edits_chunks, "delete-inst": _edits_single,
        "narrow-const": _edits_consts, "use-operand": _edits_operand,
        "drop-function": lambda m: _edits_functions(m, kernel),
    }
    base = parse_module(ir)
    for desc, edit in list(makers[pass_name](base)):
        try:
            m = parse_module(ir)
            if not edit(m):
                continue
            text = print_module(m)
            verify(text)
        except Exception:
            continue  # an edit the IR or LLVM rejects is simply not a candidate
        yield (desc, text)
