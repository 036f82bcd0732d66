"""What a sub-group or work-group collective builtin does, read from its name.

Both families are recognised: the OpenCL C names (SPIR mangled, e.g.
`_Z20sub_group_reduce_addi`, whose operand type gives the signedness) and
the `__mux_*` names of the peer corpus (`__mux_sub_group_reduce_smax_i32`,
`__mux_work_group_scan_inclusive_fadd_f32(i32 barrier_id, float)`), whose
operation spells signedness and kind itself.

`parse_collective(name)` gives a `Collective` (scope, kind, operation and
where the operands are) or None for other names; `unsupported_reason(name)`
says why a recognised-looking name has no meaning here. The oracle's
reference (oracle/subgroups.py) and the vectorizer
(vectorizer/transform/subgroup_builtins.py) read names through this one
parser; their meanings are written separately.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Kinds of collective.
BARRIER = "barrier"
ALL, ANY = "all", "any"
BROADCAST = "broadcast"
REDUCE, SCAN_INCLUSIVE, SCAN_EXCLUSIVE = "reduce", "scan_inclusive", "scan_exclusive"
SHUFFLE, SHUFFLE_XOR, SHUFFLE_UP, SHUFFLE_DOWN = "shuffle", "shuffle_xor", "shuffle_up", "shuffle_down"
BALLOT = "ballot"
# cl_khr_subgroup_non_uniform_vote and cl_khr_subgroup_clustered_reduce.
ELECT, ALL_EQUAL, CLUSTERED_REDUCE = "elect", "all_equal", "clustered_reduce"
# cl_khr_subgroup_ballot's bit operations on a ballot value (no synchronisation):
# op is one of BALLOT_BIT_OPS.
BALLOT_BIT = "ballot_bit"
BALLOT_BIT_OPS = (
    "inverse_ballot", "ballot_bit_extract", "ballot_bit_count", "ballot_inclusive_scan",
    "ballot_exclusive_scan", "ballot_find_lsb", "ballot_find_msb",
)

# Normalised operations: add mul and or xor smin smax umin umax fadd fmul fmin fmax
# logical_and logical_or logical_xor.
_MUX_OPS = {
    "add", "mul", "and", "or", "xor", "smin", "smax", "umin", "umax",
    "fadd", "fmul", "fmin", "fmax", "logical_and", "logical_or", "logical_xor",
}
_OPENCL_OPS = {"add", "min", "max"}
_FLOAT_CODES = {"f", "d", "Dh"}
_UNSIGNED_CODES = {"h", "t", "j", "m"}


@dataclass(frozen=True)
class Collective:
    """One collective builtin.

    scope: "sub" or "work"; kind: one of the kinds above; op: the normalised
    operation for reductions and scans; value: index of the value operand;
    extra: indices of the other operands that matter (lane id, mask, delta;
    for the mux shuffle_up/down, the second value then the delta; for a
    work-group broadcast, the local ids)."""

    scope: str
    kind: str
    op: str | None
    value: int | None
    extra: tuple[int, ...] = ()
    mux: bool = False
    # A form whose members are the work-items active at the call (the
    # `sub_group_non_uniform_*`, `sub_group_clustered_*`, `sub_group_elect`
    # and `sub_group_broadcast_first` names): the model gives them a meaning
    # in sub-group-uniform control flow only, where every member is active
    # (docs/subgroups.md).
    non_uniform: bool = False


def _opencl_param_codes(name: str) -> list[str]:
    m = re.match(r"_Z(\d+)", name)
    if not m:
        return []
    rest = name[m.end() + int(m.group(1)) :]
    codes = []
    while rest:
        vm = re.match(r"Dv(\d+)_", rest)
        if vm:
            rest = rest[vm.end() :]
        if rest.startswith("S_"):
            codes.append(codes[0] if codes else "?")
            rest = rest[2:]
            continue
        code = "Dh" if rest.startswith("Dh") else rest[:1]
        codes.append(code)
        rest = rest[len(code) :]
    return codes


def _base(name: str) -> tuple[str, bool] | None:
    """(base name, is mux) for a collective-looking name, else None."""
    if name.startswith("__mux_sub_group_") or name.startswith("__mux_work_group_"):
        return name[len("__mux_") :], True
    m = re.match(r"_Z(\d+)", name)
    if m:
        base = name[m.end() : m.end() + int(m.group(1))]
        if base.startswith(("sub_group_", "work_group_")):
            return base, False
    return None


def parse_collective(name: str | None) -> Collective | None:
    """The collective `name` denotes, or None (not one, or not understood:
    see `unsupported_reason`)."""
    if name is None:
        return None
    b = _base(name)
    if b is None:
        return None
    base, mux = b
    if base == "work_group_barrier":
        return None  # a barrier (oracle/workgroup.py, vectorizer/analysis/barriers.py)
    scope = "sub" if base.startswith("sub_group_") else "work"
    rest = base[len("sub_group_") if scope == "sub" else len("work_group_") :]
    # The mux work-group collectives take the barrier id first.
    first = 1 if (mux and scope == "work") else 0
    if mux:
        if rest == "barrier":
            return Collective(scope, BARRIER, None, None, mux=True)
        # `_v<W>` before the type: the lanes form of a work-group scan a
        # packet along dimension 1 or 2 calls (transform/subgroup_builtins.py).
        m = re.fullmatch(r"(reduce|scan_inclusive|scan_exclusive)_([a-z_]+?)_(?:v\d+)?(i1|i8|i16|i32|i64|f16|f32|f64)",
                         rest)
        if m and m.group(2) in _MUX_OPS:
            return Collective(scope, m.group(1), m.group(2), first, mux=True)
        m = re.fullmatch(r"(all|any)_i1", rest)
        if m:
            return Collective(scope, m.group(1), None, first, mux=True)
        m = re.fullmatch(r"(broadcast|shuffle|shuffle_xor|shuffle_up|shuffle_down)_(v\d+)?(i\d+|f16|f32|f64)", rest)
        if m:
            kind = m.group(1)
            if scope == "work":
                return Collective(scope, kind, None, first, (2, 3, 4), mux=True) if kind == BROADCAST else None
            if kind in (SHUFFLE_UP, SHUFFLE_DOWN):
                return Collective(scope, kind, None, 0, (1, 2), mux=True)
            return Collective(scope, kind, None, 0, (1,), mux=True)
        return None
    codes = _opencl_param_codes(name)
    if rest == "barrier":
        return Collective(scope, BARRIER, None, None)
    m = re.fullmatch(r"(reduce|scan_inclusive|scan_exclusive)_(add|min|max)", rest)
    if m and codes:
        code = codes[0]
        fl = code in _FLOAT_CODES
        op = m.group(2)
        if op == "add":
            nop = "fadd" if fl else "add"
        else:
            nop = ("f" if fl else ("u" if code in _UNSIGNED_CODES else "s")) + op
        return Collective(scope, m.group(1), nop, 0)
    if rest in (ALL, ANY) and codes == ["i"]:
        return Collective(scope, rest, None, 0)
    if rest == "broadcast" and codes:
        if scope == "sub":
            return Collective(scope, BROADCAST, None, 0, (1,)) if len(codes) == 2 else None
        return Collective(scope, BROADCAST, None, 0, tuple(range(1, len(codes))))
    if scope == "sub" and rest in (SHUFFLE, SHUFFLE_XOR, SHUFFLE_UP, SHUFFLE_DOWN) and len(codes) == 2:
        return Collective(scope, rest, None, 0, (1,))
    if scope == "sub" and rest == BALLOT and codes == ["i"]:
        return Collective(scope, BALLOT, None, 0)
    if scope == "sub" and rest in BALLOT_BIT_OPS and codes[:1] == ["j"]:
        return Collective(scope, BALLOT_BIT, rest, 0, (1,) if rest == "ballot_bit_extract" else ())
    if scope == "sub":
        return _non_uniform(rest, codes)
    return None


def _opencl_op(op: str, code: str) -> str | None:
    """The normalised operation of OpenCL operation `op` on type code `code`
    (None: not one the model has, e.g. the `logical_*` ones)."""
    fl = code in _FLOAT_CODES
    if op in ("add", "mul"):
        return ("f" if fl else "") + op
    if op in ("min", "max"):
        return ("f" if fl else ("u" if code in _UNSIGNED_CODES else "s")) + op
    if op in ("and", "or", "xor") and not fl:
        return op
    return None


def _non_uniform(rest: str, codes: list[str]) -> Collective | None:
    """The non-uniform and clustered OpenCL forms (see `Collective.non_uniform`)."""
    m = re.fullmatch(r"non_uniform_(reduce|scan_inclusive|scan_exclusive)_([a-z]+)", rest)
    if m and len(codes) == 1:
        op = _opencl_op(m.group(2), codes[0])
        return Collective("sub", m.group(1), op, 0, non_uniform=True) if op else None
    m = re.fullmatch(r"clustered_reduce_([a-z]+)", rest)
    if m and len(codes) == 2:
        op = _opencl_op(m.group(1), codes[0])
        return Collective("sub", CLUSTERED_REDUCE, op, 0, (1,), non_uniform=True) if op else None
    if rest == "elect" and codes == ["v"]:
        return Collective("sub", ELECT, None, None, non_uniform=True)
    if rest in ("non_uniform_all", "non_uniform_any") and codes == ["i"]:
        return Collective("sub", rest[len("non_uniform_"):], None, 0, non_uniform=True)
    if rest == "non_uniform_all_equal" and len(codes) == 1:
        return Collective("sub", ALL_EQUAL, None, 0, non_uniform=True)
    if rest == "non_uniform_broadcast" and len(codes) == 2:
        return Collective("sub", BROADCAST, None, 0, (1,), non_uniform=True)
    if rest == "broadcast_first" and len(codes) == 1:
        return Collective("sub", BROADCAST, None, 0, (), non_uniform=True)  # member 0: the first active
    return None


def is_collective_name(name: str | None) -> bool:
    """Does `name` look like a sub-group or work-group collective (understood or not)?
    The sub-group queries (`get_sub_group_size`...) are work-item queries, not collectives."""
    b = None if name is None else _base(name)
    return b is not None and b[0] != "work_group_barrier"


def unsupported_reason(name: str) -> str:
    """Why a collective-looking name that `parse_collective` does not
    understand has no meaning here (for remarks and `unsupported-input`)."""
    b = _base(name)
    base = b[0] if b else name
    if "logical_" in base and ("non_uniform" in base or "clustered" in base):
        return f"non-uniform or clustered logical sub-group operation '{name}' is not supported"
    if "non_uniform" in base or "clustered" in base:
        return f"non-uniform or clustered sub-group builtin '{name}' is not supported"
    if "ballot_" in base or "inverse_ballot" in base:
        return f"sub-group ballot bit operation '{name}' is not supported"
    return f"collective builtin '{name}' is not supported"


def identity(op: str, bits: int, is_float: bool) -> int | float:
    """The identity of operation `op` on a `bits`-bit type (exclusive scans' first result)."""
    if op in ("add", "or", "xor", "fadd", "logical_or", "logical_xor"):
        return 0
    if op in ("mul", "fmul"):
        return 1
    if op in ("and", "logical_and"):
        return -1 if bits > 1 else 1
    if op == "smin":
        return (1 << (bits - 1)) - 1
    if op == "smax":
        return -(1 << (bits - 1))
    if op == "umin":
        return -1  # all ones
    if op == "umax":
        return 0
    if op == "fmin":
        return float("inf")
    if op == "fmax":
        return float("-inf")
    raise ValueError(op)
