"""Which lane-dependent builtin a called function reaches through its calls.

A call the inliner leaves in place (a recursive callee, a variadic one, one
past the inlining budget) runs in the vectorized kernel's context, once per
lane or once per packet. There a query of the work-item's own position
(`get_global_id`, `get_local_id`, the linear ids, the sub-group queries)
answers for the packet, not for the lane, and a barrier or a collective is
met once per call instead of once per work-item. Queries of the NDRange and
the work-group (`get_global_size`, `get_group_id`...) are the same for
every lane of a packet and stay correct there.
"""

from __future__ import annotations

from typing import Any

from .info import BuiltinKind, classify
from .work_item import VARYING_ANY_DIM, VARYING_KINDS

_LANE_KINDS = frozenset({BuiltinKind.BARRIER, BuiltinKind.SUB_GROUP, BuiltinKind.WORK_GROUP})


def _lane_dependent(name: str) -> bool:
    summary = classify(name)
    if summary.kind in _LANE_KINDS:
        return True
    q = summary.query
    return q is not None and (q.kind in VARYING_KINDS or q.kind in VARYING_ANY_DIM or q.kind.startswith("sub_group"))


def lane_dependent_builtin(function: Any) -> str | None:
    """The first lane-dependent builtin `function` calls, itself or through
    the defined functions it calls (None: it reaches none)."""
    seen = {id(function)}
    work = [function]
    while work:
        f = work.pop()
        for block in f.blocks:
            for inst in block.instructions:
                callee = getattr(inst, "called_function", None)
                if callee is None:
                    continue
                if callee.is_declaration:
                    if _lane_dependent(callee.name):
                        return callee.name
                elif id(callee) not in seen:
                    seen.add(id(callee))
                    work.append(callee)
    return None
