"""The OpenCL C builtin library, shared by the oracle's runtime and the vectorizer.

    from vectorizer.builtins import library
    text = library.definition("_Z3expDv4_f", "<4 x float>", ["<4 x float>"])

`definition(name, ret, params)` returns LLVM IR text defining the SPIR-mangled
builtin `name` (plus the declarations it needs: intrinsics, C library
functions), or None when `name` with these types is not a builtin the
library defines. Overloads are generated on demand from the name: one
Python body per builtin, emitted at the requested element type and width
(see `ir.py`), so every vector overload computes lane by lane exactly what
the scalar one computes. `definitions(...)` joins several into one module
text, declaring each external function once.

Definitions use the default calling convention (callers drop `spir_func`,
as the oracle does) and have no helper functions or global tables: nothing
can clash with the kernel module's names. Pure builtins are `memory(none)`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from . import (  # noqa: F401  (the family modules register their builtins)
    common,
    conversions,
    geometric,
    integer,
    math_exact,
    math_transcendental,
    memory,
    relational,
)
from .ir import Function, define
from .math_transcendental import ty_of
from .names import demangle, mangle
from .registry import Impl, handler_for
from .types import CLType

__all__ = ["Impl", "CLType", "definition", "definitions", "demangle", "function", "lookup", "mangle"]

_ATTR = re.compile(
    r"\s+(noundef|signext|zeroext|nocapture|readonly|writeonly|readnone|nonnull|noalias|inreg|"
    r"captures\([^)]*\)|align \d+|dereferenceable(_or_null)?\(\d+\))\b"
)


def _clean(t: str) -> str:
    t = " ".join(t.split())
    prev = None
    while prev != t:
        prev = t
        t = _ATTR.sub("", " " + t).strip()
    return "ptr" if t == "ptr addrspace(0)" else t


def lookup(name: str) -> tuple[str, tuple[CLType, ...], Impl] | None:
    """(builtin name, parameter types, implementation) for a mangled name, or None."""
    dm = demangle(name)
    if dm is None:
        return None
    base, params = dm
    handler = handler_for(base)
    if handler is None:
        return None
    impl = handler(base, params)
    if impl is None:
        return None
    return base, params, impl


def function(name: str, ret: str | None = None, params: Iterable[str] | None = None) -> Function | None:
    """The generated `Function` for `name`, checked against the LLVM types if given."""
    found = lookup(name)
    if found is None:
        return None
    _base, cl_params, impl = found
    want_ret = impl.ret.llvm if impl.ret is not None else "void"
    want_params = [p.llvm for p in cl_params]
    if ret is not None and _clean(ret) != want_ret:
        return None
    if params is not None and [_clean(p) for p in params] != want_params:
        return None
    ret_ty = ty_of(impl.ret) if impl.ret is not None else "void"
    return define(name, ret_ty, [ty_of(p) for p in cl_params], impl.body, pure=impl.pure)


def definition(name: str, ret: str | None = None, params: Iterable[str] | None = None) -> str | None:
    """LLVM IR text defining builtin `name` (and declaring what it calls), or None."""
    fn = function(name, ret, params)
    return None if fn is None else fn.module_text()


def definitions(wanted: Iterable[tuple[str, str | None, Iterable[str] | None]],
                exclude: Iterable[str] = ()) -> tuple[str, list[str]]:
    """One module text defining every library builtin among `wanted` (name, ret, params)
    triples; external functions are declared once, except those named in `exclude`
    (already declared by the module the text will join). Returns the text and the
    names it defines."""
    decls: dict[str, str] = {}
    bodies: list[str] = []
    defined: list[str] = []
    skip = set(exclude)
    for name, ret, params in wanted:
        if name in defined:
            continue
        fn = function(name, ret, params)
        if fn is None:
            continue
        defined.append(name)
        bodies.append(fn.text)
        for d, text in fn.decls.items():
            if d not in skip:
                decls.setdefault(d, text)
    return "\n".join(list(decls.values()) + bodies) + "\n", defined
