"""Does the vectorized module keep the input's spelling of work-item queries?

A kernel written against Vecz's `__mux_*` runtime links only against the
`__mux_get_*` queries; one compiled from OpenCL C links only against the
mangled `get_*` ones. The vectorizer declares queries of its own (the local
id and size for vector predication, for instance) and must take them from the
family the input uses: a `__mux_` kernel given `_Z12get_local_idj` no longer
links in a `__mux_` runtime. The oracle's own runtime defines both families,
so a wrong spelling would otherwise run and match; this check makes it a
verdict. Written from the two families' naming rules, not from the
vectorizer's tables, so a mistake there cannot hide itself.
"""

from __future__ import annotations

import re

_DECLARED = re.compile(r"^declare\b[^@\n]*@([\w.$]+)\(", re.M)
# The NDRange queries only: the sub-group queries are the vectorizer's own
# business in either spelling (its sub-group lowering calls the `__mux_` ones,
# which the oracle's sub-group runtime provides for both kinds of input).
_QUERIES = ("global_id|local_id|group_id|global_size|local_size|num_groups|global_offset|"
            "enqueued_local_size|work_dim|global_linear_id|local_linear_id")
_MUX = re.compile(rf"__mux_get_({_QUERIES})$")
_OPENCL = re.compile(rf"_Z\d+get_({_QUERIES})[jv]$")


def _families(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {"mux": [], "opencl": []}
    for name in _DECLARED.findall(text):
        if _MUX.match(name):
            out["mux"].append(name)
        elif _OPENCL.match(name):
            out["opencl"].append(name)
    return out


def foreign_query_spelling(input_text: str, output_text: str) -> str | None:
    """Why the output declares a work-item query in the family the input does
    not use (None when it keeps the input's family, or the input uses both or
    neither)."""
    before = _families(input_text)
    used = [f for f, names in before.items() if names]
    if len(used) != 1:
        return None
    other = "opencl" if used[0] == "mux" else "mux"
    foreign = _families(output_text)[other]
    if not foreign:
        return None
    spelled = "`__mux_get_*`" if used[0] == "mux" else "OpenCL `get_*`"
    return (f"the vectorized kernel declares {', '.join(sorted(set(foreign)))}, but the input "
            f"spells its work-item queries {spelled} only: it would not link against the input's runtime")
