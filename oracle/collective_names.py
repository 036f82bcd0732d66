"""The oracle's own reading of sub-group and work-group collective builtin names.

The reference (oracle/subgroups.py, oracle/subgroup_points.py) must not read
names through the vectorizer's parser: a mistake there (the signedness of a
min/max read from the mangled operand type, an argument count) would change
the reference in the same way and no comparison could see it. This module is
written from the OpenCL C builtin list (cl_khr_subgroups and the
cl_khr_subgroup_* extensions, work-group collectives of OpenCL C 2.0) and the
Itanium C++ mangling of their SPIR declarations, plus the `__mux_*` spellings
of the peer corpus, which carry the operation and element type in the name
(`__mux_sub_group_reduce_umin_i32`; work-group ones take a barrier id first).

`parse_collective(name)` gives a `Collective` or None (not a collective, or
one the reference has no meaning for: `unsupported_reason(name)` says why).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Kinds (the vocabulary of oracle/subgroups.py).
BARRIER = "barrier"
ALL, ANY = "all", "any"
BROADCAST = "broadcast"
REDUCE, SCAN_INCLUSIVE, SCAN_EXCLUSIVE = "reduce", "scan_inclusive", "scan_exclusive"
SHUFFLE, SHUFFLE_XOR, SHUFFLE_UP, SHUFFLE_DOWN = "shuffle", "shuffle_xor", "shuffle_up", "shuffle_down"
BALLOT = "ballot"
ELECT, ALL_EQUAL, CLUSTERED_REDUCE = "elect", "all_equal", "clustered_reduce"
BALLOT_BIT = "ballot_bit"

_SCANS_AND_REDUCTIONS = (REDUCE, SCAN_INCLUSIVE, SCAN_EXCLUSIVE)
_SHUFFLES = (SHUFFLE, SHUFFLE_XOR, SHUFFLE_UP, SHUFFLE_DOWN)

# cl_khr_subgroup_ballot: operations on a ballot value (uint4), no exchange.
_BALLOT_BIT_OPERATIONS = frozenset({
    "inverse_ballot", "ballot_bit_extract", "ballot_bit_count", "ballot_inclusive_scan",
    "ballot_exclusive_scan", "ballot_find_lsb", "ballot_find_msb",
})

# Itanium codes of the builtin types OpenCL C uses: (LLVM element type, signed).
# `char` is signed in OpenCL C (6.1.1); `bool` and `void` carry no value.
_BUILTIN_TYPES: dict[str, tuple[str, bool | None]] = {
    "c": ("i8", True), "a": ("i8", True), "h": ("i8", False),
    "s": ("i16", True), "t": ("i16", False),
    "i": ("i32", True), "j": ("i32", False),
    "l": ("i64", True), "m": ("i64", False),
    "x": ("i64", True), "y": ("i64", False),
    "Dh": ("f16", None), "f": ("f32", None), "d": ("f64", None),
    "b": ("i1", None), "v": ("void", None),
}


@dataclass(frozen=True)
class Param:
    """One parameter of a mangled declaration: element type, signedness
    (None for floats, bool, void and pointers) and vector length (0: scalar)."""

    element: str
    signed: bool | None
    lanes: int = 0

    @property
    def is_float(self) -> bool:
        return self.element.startswith("f")


@dataclass(frozen=True)
class Collective:
    """What a collective builtin does, in the oracle's terms.

    scope: "sub" or "work"; kind: one of the kinds above; op: for reductions
    and scans the operation with its domain ("add" "mul" "and" "or" "xor"
    "smin" "smax" "umin" "umax" "fadd" "fmul" "fmin" "fmax" "logical_and"
    "logical_or" "logical_xor"), for ballot bit operations their name;
    value: operand index of the exchanged value (None: none); extra: operand
    indices of the other operands the reference reads, in order (lane id,
    mask or delta; for `__mux` shuffle_up/down the second value, then the
    delta; for a work-group broadcast the local ids); mux: a `__mux_*`
    spelling; non_uniform: the members are the work-items active at the
    call; element, signed: the value's element type ("i32", "f16"...) and
    signedness when the name says it; cluster: operand index of a clustered
    reduction's cluster size."""

    scope: str
    kind: str
    op: str | None
    value: int | None
    extra: tuple[int, ...] = ()
    mux: bool = False
    non_uniform: bool = False
    element: str | None = None
    signed: bool | None = None
    cluster: int | None = None


# ------------------------------------------------------------ mangling


def demangle(name: str) -> tuple[str, list[Param]] | None:
    """(function name, parameters) of an Itanium-mangled free function with
    builtin, vector or pointer parameters; None if `name` is not one."""
    m = re.match(r"_Z(\d+)", name)
    if not m:
        return None
    start = m.end()
    length = int(m.group(1))
    ident = name[start:start + length]
    if len(ident) != length:
        return None
    params: list[Param] = []
    substitutions: list[Param] = []  # builtin types are not candidates; vectors and pointers are
    pos = start + length
    while pos < len(name):
        got = _one_type(name, pos, substitutions)
        if got is None:
            return None
        param, pos = got
        params.append(param)
    return ident, params


def _substitution_index(token: str) -> int:
    """`S_` is the first candidate, `S<seq-id>_` the (seq-id + 2)th (base 36)."""
    if token == "":
        return 0
    return int(token, 36) + 1


def _one_type(name: str, pos: int, subs: list[Param]) -> tuple[Param, int] | None:
    for code in ("Dh", "c", "a", "h", "s", "t", "i", "j", "l", "m", "x", "y", "f", "d", "b", "v"):
        if name.startswith(code, pos):
            el, sg = _BUILTIN_TYPES[code]
            return Param(el, sg), pos + len(code)
    m = re.compile(r"Dv(\d+)_").match(name, pos)
    if m:
        inner = _one_type(name, m.end(), subs)
        if inner is None:
            return None
        p = Param(inner[0].element, inner[0].signed, int(m.group(1)))
        subs.append(p)
        return p, inner[1]
    m = re.compile(r"S([0-9A-Z]*)_").match(name, pos)
    if m:
        k = _substitution_index(m.group(1))
        return (subs[k], m.end()) if k < len(subs) else None
    # Pointers (with CV and address-space qualifiers): only their count matters here.
    m = re.compile(r"P(?:U\d+AS\d+)?[VKr]*").match(name, pos)
    if m and m.end() > pos:
        inner = _one_type(name, m.end(), subs)
        if inner is None:
            return None
        p = Param("ptr", None)
        subs.append(p)
        return p, inner[1]
    return None


# ------------------------------------------------------------ names


def _split(name: str) -> tuple[str, str, bool, list[Param] | None] | None:
    """(scope, rest of the name after `sub_group_`/`work_group_`, is mux,
    mangled parameters or None for mux) of a collective-looking name."""
    for scope in ("sub", "work"):
        prefix = f"__mux_{scope}_group_"
        if name.startswith(prefix):
            return scope, name[len(prefix):], True, None
    d = demangle(name)
    if d is None:
        # A mangled-looking name with a parameter this module cannot read is
        # still a collective (refused, not ignored).
        m = re.match(r"_Z(\d+)", name)
        if not m:
            return None
        ident = name[m.end():m.end() + int(m.group(1))]
        for scope in ("sub", "work"):
            if ident.startswith(f"{scope}_group_"):
                return scope, ident[len(scope) + 7:], False, None
        return None
    ident, params = d
    for scope in ("sub", "work"):
        if ident.startswith(f"{scope}_group_"):
            return scope, ident[len(scope) + 7:], False, params
    return None


def is_collective_name(name: str | None) -> bool:
    """Does `name` look like a sub-group or work-group collective, understood
    or not? `work_group_barrier` is a barrier and the `get_sub_group_*`
    queries are work-item queries: neither is a collective."""
    if name is None:
        return False
    s = _split(name)
    return s is not None and not (s[0] == "work" and s[1] == "barrier")


def parse_collective(name: str | None) -> Collective | None:
    """The collective `name` denotes, or None (not one, or not one the
    reference understands: see `unsupported_reason`)."""
    if name is None:
        return None
    s = _split(name)
    if s is None:
        return None
    scope, rest, mux, params = s
    if scope == "work" and rest == "barrier":
        return None  # a work-group barrier: oracle/workgroup.py
    if mux:
        return _mux(scope, rest)
    if params is None:
        return None
    return _opencl(scope, rest, params)


# ------------------------------------------------------------ __mux_ spellings

_MUX_ELEMENT = {
    "i1": ("i1", None), "i8": ("i8", None), "i16": ("i16", None), "i32": ("i32", None),
    "i64": ("i64", None), "f16": ("f16", None), "f32": ("f32", None), "f64": ("f64", None),
}
_MUX_INT_OPS = {"add", "mul", "and", "or", "xor", "logical_and", "logical_or", "logical_xor"}
_MUX_SIGNED_OPS = {"smin": True, "smax": True, "umin": False, "umax": False}
_MUX_FLOAT_OPS = {"fadd", "fmul", "fmin", "fmax"}


def _mux_type(token: str) -> tuple[str, int] | None:
    """(element, lanes) of a type suffix: `i32`, or `v4i32` for the lanes form
    (a packet along dimension 1 or 2 passing all its lanes to a work-group scan)."""
    m = re.fullmatch(r"(?:v(\d+))?(i1|i8|i16|i32|i64|f16|f32|f64)", token)
    if not m:
        return None
    return m.group(2), int(m.group(1) or 0)


def _mux(scope: str, rest: str) -> Collective | None:
    """A `__mux_{sub,work}_group_<rest>` name. The work-group forms take the
    barrier id as operand 0, so their value is operand 1."""
    if rest == "barrier":
        return Collective(scope, BARRIER, None, None, mux=True)
    v = 1 if scope == "work" else 0
    head, _, suffix = rest.rpartition("_")
    ty = _mux_type(suffix)
    if not head or ty is None:
        return None
    element = ty[0]
    for kind in (SCAN_INCLUSIVE, SCAN_EXCLUSIVE, REDUCE):
        if head.startswith(kind + "_"):
            op = head[len(kind) + 1:]
            if op in _MUX_SIGNED_OPS:
                signed: bool | None = _MUX_SIGNED_OPS[op]
            elif op in _MUX_INT_OPS or op in _MUX_FLOAT_OPS:
                signed = None
            else:
                return None
            return Collective(scope, kind, op, v, mux=True, element=element, signed=signed)
    if head in (ALL, ANY):
        return Collective(scope, head, None, v, mux=True, element="i1") if element == "i1" else None
    if head == BROADCAST:
        if scope == "work":
            return Collective(scope, BROADCAST, None, 1, (2, 3, 4), mux=True, element=element)
        return Collective(scope, BROADCAST, None, 0, (1,), mux=True, element=element)
    if head in _SHUFFLES and scope == "sub":
        if head in (SHUFFLE_UP, SHUFFLE_DOWN):
            # (prev, curr, delta) / (curr, next, delta)
            return Collective(scope, head, None, 0, (1, 2), mux=True, element=element)
        return Collective(scope, head, None, 0, (1,), mux=True, element=element)
    return None


# ------------------------------------------------------------ OpenCL C names

_OPENCL_OPERATIONS = ("add", "mul", "min", "max", "and", "or", "xor")


def _operation(op: str, p: Param) -> str | None:
    """The oracle's operation for OpenCL operation `op` on a `p` operand; None
    where the reference has none (logical_*, bitwise ops on floats)."""
    if p.element in ("void", "ptr", "i1"):
        return None
    if p.is_float:
        return {"add": "fadd", "mul": "fmul", "min": "fmin", "max": "fmax"}.get(op)
    if op in ("min", "max"):
        return ("s" if p.signed else "u") + op
    return op if op in _OPENCL_OPERATIONS else None


def _is_uint(p: Param) -> bool:
    return p.element == "i32" and p.signed is False and p.lanes == 0


def _is_int(p: Param) -> bool:
    return p.element == "i32" and p.signed is True and p.lanes == 0


def _opencl(scope: str, rest: str, ps: list[Param]) -> Collective | None:
    """A mangled OpenCL C name: `rest` follows `sub_group_`/`work_group_`."""
    if rest == "barrier":
        return Collective(scope, BARRIER, None, None)

    def described(kind: str, op: str | None, extra: tuple[int, ...] = (), *, nu: bool = False,
                  cluster: int | None = None, v: int | None = 0) -> Collective:
        p = ps[v] if v is not None else None
        return Collective(scope, kind, op, v, extra, non_uniform=nu,
                          element=p.element if p else None, signed=p.signed if p else None,
                          cluster=cluster)

    m = re.fullmatch(r"(reduce|scan_inclusive|scan_exclusive)_(add|min|max)", rest)
    if m:
        # cl_khr_subgroups / OpenCL C 2.0: one operand; extended types add char and short.
        if len(ps) != 1 or ps[0].lanes:
            return None
        op = _operation(m.group(2), ps[0])
        return described(m.group(1), op) if op else None
    if rest in (ALL, ANY) or rest == BALLOT:
        if scope == "work" and rest == BALLOT:
            return None
        return described(rest, None) if len(ps) == 1 and _is_int(ps[0]) else None
    if rest == BROADCAST:
        if scope == "sub":
            # sub_group_broadcast(gentype x, uint sub_group_local_id)
            return described(BROADCAST, None, (1,)) if len(ps) == 2 and _is_uint(ps[1]) else None
        # work_group_broadcast(gentype a, size_t x[, size_t y[, size_t z]])
        if 2 <= len(ps) <= 4 and all(p.element == "i64" and p.signed is False for p in ps[1:]):
            return described(BROADCAST, None, tuple(range(1, len(ps))))
        return None
    if scope == "work":
        return None
    if rest in _SHUFFLES:
        # cl_khr_subgroup_shuffle(_relative): (gentype value, uint index/mask/delta).
        return described(rest, None, (1,)) if len(ps) == 2 and _is_uint(ps[1]) else None
    if rest in _BALLOT_BIT_OPERATIONS:
        if not ps or not (ps[0].element == "i32" and ps[0].signed is False and ps[0].lanes == 4):
            return None
        if rest == "ballot_bit_extract":
            return described(BALLOT_BIT, rest, (1,)) if len(ps) == 2 and _is_uint(ps[1]) else None
        return described(BALLOT_BIT, rest) if len(ps) == 1 else None
    # cl_khr_subgroup_non_uniform_arithmetic, _clustered_reduce, _non_uniform_vote, _ballot.
    m = re.fullmatch(r"non_uniform_(reduce|scan_inclusive|scan_exclusive)_([a-z_]+)", rest)
    if m:
        if len(ps) != 1 or ps[0].lanes:
            return None
        op = _operation(m.group(2), ps[0])
        return described(m.group(1), op, nu=True) if op else None
    m = re.fullmatch(r"clustered_reduce_([a-z_]+)", rest)
    if m:
        if len(ps) != 2 or ps[0].lanes or not _is_uint(ps[1]):
            return None
        op = _operation(m.group(1), ps[0])
        return described(CLUSTERED_REDUCE, op, (1,), nu=True, cluster=1) if op else None
    if rest == "elect":
        return described(ELECT, None, nu=True, v=None) if [p.element for p in ps] == ["void"] else None
    if rest in ("non_uniform_all", "non_uniform_any"):
        return described(rest[len("non_uniform_"):], None, nu=True) if len(ps) == 1 and _is_int(ps[0]) else None
    if rest == "non_uniform_all_equal":
        return described(ALL_EQUAL, None, nu=True) if len(ps) == 1 and ps[0].lanes == 0 else None
    if rest == "non_uniform_broadcast":
        return described(BROADCAST, None, (1,), nu=True) if len(ps) == 2 and _is_uint(ps[1]) else None
    if rest == "broadcast_first":
        # The first active member's value: member 0 of the active ones.
        return described(BROADCAST, None, (), nu=True) if len(ps) == 1 else None
    return None


def unsupported_reason(name: str) -> str:
    """Why the reference has no meaning for a collective-looking `name` that
    `parse_collective` does not understand (for `Unsupported`)."""
    s = _split(name)
    rest = s[1] if s else name
    if "non_uniform" in rest or "clustered" in rest:
        what = "logical " if "logical_" in rest else ""
        return f"non-uniform or clustered {what}sub-group operation '{name}' is not supported by the oracle"
    if "ballot_" in rest or "inverse_ballot" in rest:
        return f"sub-group ballot bit operation '{name}' is not supported by the oracle"
    return f"collective builtin '{name}' is not supported by the oracle"


def identity(op: str, bits: int, is_float: bool) -> int | float:
    """The identity element of reduction `op` on a `bits`-bit value (what an
    exclusive scan gives its first member). Integers are given as the
    signed value of the bit pattern (all ones: -1)."""
    floats: dict[str, int | float] = {"fadd": 0, "fmul": 1, "fmin": float("inf"), "fmax": float("-inf")}
    if op in floats:
        return floats[op]
    all_ones = 1 if bits == 1 else -1  # i1 true is 1 in the reference's constants
    ints = {
        "add": 0, "or": 0, "xor": 0, "logical_or": 0, "logical_xor": 0, "umax": 0,
        "mul": 1,
        "and": all_ones, "logical_and": all_ones, "umin": -1,
        "smin": (1 << (bits - 1)) - 1, "smax": -(1 << (bits - 1)),
    }
    if op not in ints:
        raise ValueError(op)
    return ints[op]
