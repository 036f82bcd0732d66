"""Builtin inlining's post-condition on recursion: a call to a function that
can reach itself through calls stays a call.

Inlining such a call only unrolls the recursion (a bounded number of times,
ending in the same call), so the code still computes the right values; the
mistake shows only as code growth. The check records, before the pass, the
calls the clone makes to recursive functions and asks, after it, that each
is still in the function. Recursion is read from a call graph closed by
plain iteration, not from the inliner's own search.
"""

from __future__ import annotations

from typing import Any

from .errors import AnalysisMismatch


def _callees(function: Any) -> set[int]:
    out: set[int] = set()
    for block in function.blocks:
        for inst in block.instructions:
            callee = getattr(inst, "called_function", None)
            if callee is not None and not callee.is_declaration:
                out.add(id(callee))
    return out


def recursive_functions(module: Any) -> set[int]:
    """Ids of the module's defined functions that reach themselves through
    calls to defined functions (directly or through others)."""
    defined = [f for f in module.functions if not f.is_declaration]
    reach = {id(f): _callees(f) for f in defined}
    changed = True
    while changed:  # transitive closure: add the callees of every callee
        changed = False
        for out in reach.values():
            more = set().union(*(reach.get(c, set()) for c in out)) - out
            if more:
                out |= more
                changed = True
    return {fid for fid, out in reach.items() if fid in out}


def recursive_calls(function: Any, module: Any) -> list[tuple[Any, str]]:
    """(call, callee name) for the calls in `function` to a recursive
    function of `module` (the name is kept: an erased call loses its operands)."""
    recursive = recursive_functions(module)
    out = []
    for block in function.blocks:
        for inst in block.instructions:
            callee = getattr(inst, "called_function", None)
            if callee is not None and id(callee) in recursive:
                out.append((inst, callee.name))
    return out


def check_recursive_calls_kept(function: Any, calls: list[tuple[Any, str]], after: str) -> None:
    """Each of `calls` (recorded before pass `after`) is still in `function`."""
    blocks = {id(b) for b in function.blocks}
    for call, callee in calls:
        block = call.parent
        if block is None or id(block) not in blocks or all(i is not call for i in block.instructions):
            raise AnalysisMismatch(f"calls to recursive functions after '{after}'", function.name,
                                   f"the call to recursive function @{callee} was inlined "
                                   "(inlining a recursive call only unrolls it)")
