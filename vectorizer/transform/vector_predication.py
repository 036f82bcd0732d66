"""Vector Predication: make the vectorized kernel safe for work-group sizes
that are not a multiple of the width. The function's entry mask is
`get_local_id(dim) < get_local_size(dim)`; in the scalar IR that is lane 0's
test, and the packetizer widens it lane by lane (the local id is a varying
root), so lanes at or beyond the local size are inactive and control-flow
conversion masks every side effect with it.
"""

from __future__ import annotations

from collections.abc import Callable

from ..builtins import BuiltinKind, classify
from ..ir import types as T
from ..ir import values as V
from ..ir.builder import Builder


def _query(module: V.Module, kind: str) -> V.Function:
    """The module's own local id/size builtin (OpenCL or __mux spelling), declared if absent."""
    mux = False
    for f in module.functions:
        s = classify(f.name)
        if s.kind is BuiltinKind.WORK_ITEM and s.query is not None:
            mux = mux or f.name.startswith("__mux_")
            if s.query.kind == kind:
                return f
    if mux:
        name = {"local_id": "__mux_get_local_id", "local_size": "__mux_get_local_size"}[kind]
    else:
        name = {"local_id": "_Z12get_local_idj", "local_size": "_Z14get_local_sizej"}[kind]
    return module.get_or_insert_function(name, T.FunctionType(T.i64, (T.i32,)))


def entry_mask_builder(module: V.Module, dim: int) -> Callable[[Builder], V.Value]:
    """A callback building `local_id(dim) < local_size(dim)` at a builder."""

    def build(b: Builder) -> V.Value:
        lid_fn = _query(module, "local_id")
        size_fn = _query(module, "local_size")
        d = V.ConstantInt(lid_fn.function_type.params[0], dim)
        lid = b.call(lid_fn, [d], name="vp.lid")
        size = b.call(size_fn, [V.ConstantInt(size_fn.function_type.params[0], dim)], name="vp.size")
        if lid.type != size.type:
            size = b.zext(size, lid.type) if lid.type.bits > size.type.bits else b.trunc(size, lid.type)
        return b.icmp("ult", lid, size, name="vp.mask")

    return build
