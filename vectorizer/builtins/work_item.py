"""Recognition of work-item query builtins in both families Vecz knows:
the OpenCL SPIR mangled names and the `__mux_*` names.

Each query has a kind; the kinds that take a dimension argument say so. Only
`global_id` and `local_id` (and the sub-group local id) vary across the lanes
of a vectorized kernel; every other query is uniform.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class WorkItemQuery:
    """A recognised work-item builtin: its kind and whether it takes a dimension."""

    kind: str
    has_dim: bool


_KINDS_WITH_DIM = (
    "global_id",
    "local_id",
    "group_id",
    "global_size",
    "local_size",
    "num_groups",
    "global_offset",
    "enqueued_local_size",
)
_KINDS_WITHOUT_DIM = (
    "work_dim",
    "global_linear_id",
    "local_linear_id",
    "sub_group_local_id",
    "sub_group_id",
    "sub_group_size",
    "max_sub_group_size",
    "num_sub_groups",
    "enqueued_num_sub_groups",
)


def _mangle(base: str, has_dim: bool) -> str:
    return f"_Z{len(base)}{base}{'j' if has_dim else 'v'}"


WORK_ITEM_BUILTINS: dict[str, WorkItemQuery] = {}
for _kind in _KINDS_WITH_DIM + _KINDS_WITHOUT_DIM:
    _q = WorkItemQuery(_kind, _kind in _KINDS_WITH_DIM)
    WORK_ITEM_BUILTINS[_mangle("get_" + _kind, _q.has_dim)] = _q
    WORK_ITEM_BUILTINS["__mux_get_" + _kind] = _q

# Queries whose value differs between the lanes of the vectorized dimension.
VARYING_KINDS = frozenset({"global_id", "local_id"})
# Queries that vary whatever the dimension (they linearise all dimensions).
VARYING_ANY_DIM = frozenset({"global_linear_id", "local_linear_id", "sub_group_local_id"})


def work_item_query(name: str | None) -> WorkItemQuery | None:
    """The work-item query a function name denotes, or None."""
    if name is None:
        return None
    return WORK_ITEM_BUILTINS.get(name)


def opencl_name(kind: str) -> str:
    """The SPIR mangled name of a query kind."""
    return _mangle("get_" + kind, kind in _KINDS_WITH_DIM)


def mux_name(kind: str) -> str:
    """The `__mux_*` name of a query kind."""
    return "__mux_get_" + kind


def local_id_name(module, collective: str) -> str:
    """The name of the local id query a pass adds to `module`, in the spelling
    its runtime has: that of the module's own NDRange queries (kernels may mix
    `__mux_get_*` queries with OpenCL collectives), else that of the
    `collective` builtin the query serves."""
    spellings = {f.name.startswith("__mux_") for f in module.functions
                 if (q := work_item_query(f.name)) is not None and q.has_dim}
    mux = spellings == {True} or (not spellings and collective.startswith("__mux_"))
    return "__mux_get_local_id" if mux else _mangle("get_local_id", True)
