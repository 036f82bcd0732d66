"""Atomic builtins (OpenCL C 1.2 6.12.11, the `cl_khr_*_atomics` `atom_*`
forms, OpenCL C 2.0 6.13.11) as LLVM atomic instructions.

    definition("_Z8atom_addPU3AS1Vjj", "i32", ["ptr addrspace(1)", "i32"])

One definition serves the scalar reference and the vectorized kernel: the
vectorizer keeps each call (an atomic has an effect) and instantiates it
lane by lane, so every work-item performs its own read-modify-write in lane
order. Every memory order and scope is implemented as `seq_cst` (stronger
than any order asked for). Global, local and generic pointers alike; 32- and
64-bit integers, and float for the exchanges, loads and stores.

Names are read from the mangling only as far as the operation and the
signedness of the value (`i`/`l` signed, `j`/`m` unsigned) go; the LLVM
types come from the declaration.
"""

from __future__ import annotations

import re

# Builtin name -> LLVM atomicrmw operation (min/max resolved by signedness).
_RMW = {
    "add": "add", "sub": "sub", "xchg": "xchg", "exchange": "xchg", "min": "min", "max": "max",
    "and": "and", "or": "or", "xor": "xor",
}
_OPS = frozenset(_RMW) | {
    "inc", "dec", "cmpxchg", "init", "store", "load", "compare_exchange_strong",
    "compare_exchange_weak", "flag_test_and_set", "flag_clear",
}
_NAME = re.compile(r"_Z(\d+)")
# The value's element code after the pointer's qualifiers (`PU3AS1Vj`, `PVU7_Atomici`).
_POINTEE = re.compile(r"P(?:U3AS\d)?V?(?:U7_Atomic)?(Dh|[a-z])")


def _base(name: str) -> tuple[str, str] | None:
    m = _NAME.match(name)
    if not m:
        return None
    n = int(m.group(1))
    return name[m.end():m.end() + n], name[m.end() + n:]


def is_atomic(name: str) -> bool:
    """Is `name` one of the atomic builtins this module defines (by name only)?"""
    b = _base(name)
    if b is None or not re.fullmatch(r"atom(?:ic)?_\w+", b[0]):
        return False
    parsed = _op_name(b[0])
    return parsed is not None and parsed[0] in _OPS


def _op_name(base: str) -> tuple[str, bool] | None:
    """(operation, explicit) of `atom_add`, `atomic_fetch_add_explicit`, ..."""
    explicit = base.endswith("_explicit")
    if explicit:
        base = base[: -len("_explicit")]
    m = re.fullmatch(r"(?:atom|atomic)_(?:fetch_)?(\w+)", base)
    return (m.group(1), explicit) if m else None


def definition(name: str, ret: str, params: list[str] | tuple[str, ...]) -> str | None:
    """The IR text defining atomic builtin `name` with these LLVM types, or None."""
    b = _base(name)
    if b is None:
        return None
    base, mangled = b
    parsed = _op_name(base)
    if parsed is None or not params or not params[0].startswith("ptr"):
        return None
    op, _explicit = parsed
    pm = _POINTEE.match(mangled)
    signed = pm is None or pm.group(1) in ("i", "l", "c", "s")
    ptr = params[0]
    args = ", ".join(f"{t} %a{i}" for i, t in enumerate(params))
    head = f"define {ret} @{name}({args}) nounwind {{\nentry:\n"
    vt = params[1] if len(params) > 1 else ret
    align = {"i32": 4, "i64": 8, "float": 4, "double": 8, "i16": 2, "i8": 1}.get(vt)
    if align is None and op in _RMW.keys() | {"cmpxchg", "init", "store"}:
        return None
    body: list[str]
    if op in _RMW and len(params) >= 2 and ret == vt:
        rmw = _RMW[op]
        if rmw in ("min", "max"):
            rmw = rmw if signed else "u" + rmw
        if vt in ("float", "double"):
            rmw = {"add": "fadd", "sub": "fsub", "xchg": "xchg"}.get(rmw, "")
            if not rmw:
                return None
        body = [f"  %r = atomicrmw {rmw} {ptr} %a0, {vt} %a1 seq_cst, align {align}", f"  ret {ret} %r"]
    elif op in ("inc", "dec") and len(params) == 1 and ret.startswith("i"):
        align = {"i32": 4, "i64": 8}[ret]
        rmw = "add" if op == "inc" else "sub"
        body = [f"  %r = atomicrmw {rmw} {ptr} %a0, {ret} 1 seq_cst, align {align}", f"  ret {ret} %r"]
    elif op == "cmpxchg" and len(params) == 3 and ret == vt and vt.startswith("i"):
        body = [f"  %p = cmpxchg {ptr} %a0, {vt} %a1, {vt} %a2 seq_cst seq_cst, align {align}",
                f"  %r = extractvalue {{ {vt}, i1 }} %p, 0", f"  ret {ret} %r"]
    elif op in ("init", "store") and ret == "void" and len(params) >= 2:
        order = "" if op == "init" else " seq_cst"
        atomic = "" if op == "init" else " atomic"
        body = [f"  store{atomic} {vt} %a1, {ptr} %a0{order}, align {align}", "  ret void"]
    elif op == "load" and len(params) >= 1 and ret != "void":
        align = {"i32": 4, "i64": 8, "float": 4, "double": 8}.get(ret)
        if align is None:
            return None
        body = [f"  %r = load atomic {ret}, {ptr} %a0 seq_cst, align {align}", f"  ret {ret} %r"]
    elif op in ("compare_exchange_strong", "compare_exchange_weak") and len(params) >= 3:
        # (object, expected *, desired, [orders, scope]) -> bool; on failure
        # the current value is written to *expected.
        vt = params[2]
        align = {"i32": 4, "i64": 8, "float": 4, "double": 8}.get(vt)
        if align is None or not params[1].startswith("ptr") or not ret.startswith("i"):
            return None
        it = {"float": "i32", "double": "i64"}.get(vt, vt)
        body = [f"  %e = load {it}, {params[1]} %a1, align {align}"]
        d = "%a2"
        if it != vt:
            body.append(f"  %d = bitcast {vt} %a2 to {it}")
            d = "%d"
        body += [f"  %p = cmpxchg {ptr} %a0, {it} %e, {it} {d} seq_cst seq_cst, align {align}",
                 f"  %old = extractvalue {{ {it}, i1 }} %p, 0",
                 f"  %ok = extractvalue {{ {it}, i1 }} %p, 1",
                 f"  store {it} %old, {params[1]} %a1, align {align}",
                 f"  %r = zext i1 %ok to {ret}" if ret != "i1" else "  %r = or i1 %ok, false",
                 f"  ret {ret} %r"]
    elif op == "flag_test_and_set" and ret.startswith("i"):
        body = [f"  %o = atomicrmw xchg {ptr} %a0, i32 1 seq_cst, align 4", "  %t = icmp ne i32 %o, 0",
                f"  %r = zext i1 %t to {ret}" if ret != "i1" else "  %r = or i1 %t, false", f"  ret {ret} %r"]
    elif op == "flag_clear" and ret == "void":
        body = [f"  store atomic i32 0, {ptr} %a0 seq_cst, align 4", "  ret void"]
    else:
        return None
    return head + "\n".join(body) + "\n}"
