"""Preserve Library Calls: calls LLVM's library-call simplifier would
rewrite into other library functions keep their name.

The preparation passes run instcombine on the kernel's clone, and
instcombine knows C's `printf`: `printf("...\\n")` becomes `puts("...")`. The
vectorized kernel would then call a function the scalar kernel never calls,
which an OpenCL runtime (the oracle's among them) does not provide, and which
prints differently. A `nobuiltin` call site is not a library call to LLVM.

Edits only the given function.
"""

from __future__ import annotations

from ..ir import instructions as I
from ..ir import values as V

# Functions OpenCL C shares with C's library that LLVM would rewrite.
_PRESERVED = frozenset({"printf"})


def preserve_library_calls(fn: V.Function) -> int:
    """Mark `fn`'s calls of preserved functions `nobuiltin`; returns how many."""
    count = 0
    for inst in fn.instructions():
        if not isinstance(inst, I.CallInst):
            continue
        callee = inst.called_function
        if callee is None or callee.name not in _PRESERVED or "nobuiltin" in inst.attributes.split():
            continue
        inst.attributes = f"{inst.attributes} nobuiltin".strip()
        count += 1
    return count
