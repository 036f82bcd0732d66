"""The oracle's runtime, generated as LLVM IR text in Python.

It holds
- the work-item state (`@__oracle_st`, an array of i64 the drivers write and
  the builtins read),
- definitions of the builtins a kernel module declares (work-item queries of
  both families, OpenCL math/relational/conversion builtins), generated with
  exactly the signature the module declares, because clang, Vecz's lit tests
  and our vectorizer disagree about i32 vs i64 and attributes;
- the drivers: `__oracle_run_scalar(args, cfg)` loops groups and work-items;
  `__oracle_run_<variant>(args, cfg)` loops groups and W-chunks along `dim`
  plus the scalar remainder (or one predicated call with VectorPredication).

Everything after JIT runs as native loops; Python only starts a run.

State layout (i64 slots): 0-2 local id, 3-5 group id, 6-8 local size,
9-11 number of groups, 12-14 global offset, 15 work dim, 16-18 global size.
`cfg` (i64 slots) as passed by the worker: 0-2 local size, 3-5 number of
groups, 6-8 offset, 9 work dim, 10 number of local buffers, then from slot 16
pairs (pointer, bytes) of local buffers zeroed at the start of every group.

Sanitizer hooks (oracle/sanitizer_rt.c reads them; defined here so that every
program, sanitized or not, has them):
- `@__oracle_san_epoch` (i64): the barrier-interval counter. Every driver
  adds 1 at the start of each work-group and stores the result in
  `@__oracle_san_group_epoch`. A barrier implementation must add 1 each time
  the whole work-group passes a barrier: accesses of one group are then
  racing only within one interval, while a global-memory access of another
  group (an epoch below the group's start) always races.
- `@__oracle_san_item` (i64): the running work-item's global linear id + 1.
  The sanitized driver sets it before each call; an implementation that
  switches work-items (fibers) must set it on every switch.
- `@__oracle_san_stack_hi` (i64): the top of the running work-item's stack
  (set by `__oracle_san_run`); a pointer the sanitizer cannot attribute to an
  object is accepted as private memory between the current frame and this.
  An implementation running work-items on their own stacks (fibers) must set
  it to the running fiber's stack top on every switch.
- Work-groups run one after another, and local memory (arguments and
  `addrspace(3)` globals) belongs to the running group: its shadow records
  from earlier groups are ignored rather than cleared.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .workgroup import LocalGlobal

from vectorizer.ir.types import quote_name

ARG_SLOT = 64  # bytes per kernel argument in the argument blob (fits <16 x i32>)
CFG_SLOTS = 16  # fixed cfg slots before the local-buffer pairs

# Work-item queries: base name -> (state expression kind, default for a bad dim).
_WI_DIM = {
    "get_global_id": ("gid", 0),
    "get_local_id": ("lid", 0),
    "get_group_id": ("grp", 0),
    "get_global_size": ("gsz", 1),
    "get_local_size": ("lsz", 1),
    "get_enqueued_local_size": ("lsz", 1),
    "get_num_groups": ("ngr", 1),
    "get_global_offset": ("off", 0),
}
_WI_NODIM = {
    "get_work_dim",
    "get_global_linear_id",
    "get_local_linear_id",
    # One sub-group is the whole work-group in the scalar run (see docs/oracle.md).
    "get_max_sub_group_size",
    "get_sub_group_size",
    "get_sub_group_id",
    "get_sub_group_local_id",
    "get_num_sub_groups",
    "get_enqueued_num_sub_groups",
}

# OpenCL float builtins that are one LLVM intrinsic, applied element-wise.
_UNARY_INTRINSIC = {
    "sqrt": "sqrt", "sin": "sin", "cos": "cos", "tan": "tan", "exp": "exp",
    "exp2": "exp2", "exp10": "exp10", "log": "log", "log2": "log2", "log10": "log10",
    "fabs": "fabs", "floor": "floor", "ceil": "ceil", "trunc": "trunc",
    "rint": "rint", "round": "round", "asin": "asin", "acos": "acos", "atan": "atan",
    "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
}
_BINARY_INTRINSIC = {
    "fmax": "maxnum", "fmin": "minnum", "pow": "pow", "copysign": "copysign",
    "atan2": "atan2",
}
# is.fpclass masks for the relational builtins.
_FPCLASS = {"isnan": 3, "isinf": 516, "isfinite": 504, "isnormal": 264}
_FCMP = {
    "isequal": "oeq", "isnotequal": "une", "isgreater": "ogt", "isgreaterequal": "oge",
    "isless": "olt", "islessequal": "ole", "islessgreater": "one",
    "isordered": "ord", "isunordered": "uno",
}
# Itanium codes of OpenCL scalar types: code -> (llvm type, signed).
_MANGLED = {
    "c": ("i8", True), "a": ("i8", True), "h": ("i8", False), "s": ("i16", True),
    "t": ("i16", False), "i": ("i32", True), "j": ("i32", False), "l": ("i64", True),
    "m": ("i64", False), "f": ("float", True), "d": ("double", True), "Dh": ("half", True),
}


class Unsupported(Exception):
    """The module uses something the oracle cannot run (sub-group barriers,
    collectives, unknown builtins): reported as `unsupported-input`."""


@dataclass(frozen=True)
class FnSig:
    """A function signature as LLVM prints it."""

    ret: str
    params: tuple[str, ...]
    varargs: bool = False


def split_top(text: str) -> list[str]:
    """Split at top-level commas (outside (), <>, [], {})."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "(<[{":
            depth += 1
        elif ch in ")>]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def parse_fn_type(text: str) -> FnSig:
    """Parse llvmlite's `global_value_type` text, e.g. `i64 (i32)` or `i32 (ptr, ...)`."""
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        ch = text[i]
        if ch == ")":
            depth += 1
        elif ch == "(":
            depth -= 1
            if depth == 0:
                ret, inner = text[:i].strip(), text[i + 1 : -1]
                params = split_top(inner)
                varargs = bool(params) and params[-1] == "..."
                if varargs:
                    params = params[:-1]
                return FnSig(ret, tuple(params), varargs)
    raise ValueError(f"not a function type: {text!r}")


def base_name(name: str) -> str | None:
    """`_Z13get_global_idj` -> `get_global_id`; `__mux_get_local_id` -> `get_local_id`."""
    if name.startswith("__mux_"):
        return name[len("__mux_") :]
    m = re.match(r"_Z(\d+)", name)
    if m:
        n = int(m.group(1))
        start = m.end()
        return name[start : start + n]
    return None


def mangled_params(name: str) -> list[tuple[int, str, bool]]:
    """Decode the Itanium parameter codes after the base name, as far as they
    are simple OpenCL types: [(lanes, llvm elem type, signed)]. Stops at the
    first code it does not know (pointers and so on)."""
    m = re.match(r"_Z(\d+)", name)
    if not m:
        return []
    rest = name[m.end() + int(m.group(1)) :]
    out: list[tuple[int, str, bool]] = []
    while rest:
        lanes = 1
        vm = re.match(r"Dv(\d+)_", rest)
        if vm:
            lanes, rest = int(vm.group(1)), rest[vm.end() :]
        if rest.startswith("S_") and out:
            out.append(out[0])
            rest = rest[2:]
            continue
        code = "Dh" if rest.startswith("Dh") else rest[:1]
        if code not in _MANGLED:
            break
        ty, signed = _MANGLED[code]
        out.append((lanes, ty, signed))
        rest = rest[len(code) :]
    return out


def _vec_info(ty: str) -> tuple[int, str]:
    m = re.fullmatch(r"<(\d+) x (.+)>", ty)
    return (int(m.group(1)), m.group(2)) if m else (1, ty)


def _intrinsic_suffix(ty: str) -> str:
    n, el = _vec_info(ty)
    s = {"float": "f32", "double": "f64", "half": "f16"}.get(el, el)
    return f"v{n}{s}" if n > 1 or ty.startswith("<") else s


def _is_float(ty: str) -> bool:
    return _vec_info(ty)[1] in ("float", "double", "half")


class _Emitter:
    """Accumulates definitions and the intrinsic declarations they need."""

    def __init__(self) -> None:
        self.defs: list[str] = []
        self.decls: dict[str, str] = {}
        self.tmp = 0

    def intrinsic(self, name: str, ret: str, params: list[str]) -> str:
        self.decls[name] = f"declare {ret} @{name}({', '.join(params)})"
        return name

    def fresh(self) -> str:
        self.tmp += 1
        return f"%t{self.tmp}"


def _state(idx: str | int, em: _Emitter, body: list[str]) -> str:
    """Emit a load of state slot `idx` (an i64 SSA value or constant)."""
    p, v = em.fresh(), em.fresh()
    body.append(f"  {p} = getelementptr [24 x i64], ptr @__oracle_st, i64 0, i64 {idx}")
    body.append(f"  {v} = load i64, ptr {p}, align 8")
    return v


def _bin(op: str, a: str, b: str, em: _Emitter, body: list[str], ty: str = "i64") -> str:
    v = em.fresh()
    body.append(f"  {v} = {op} {ty} {a}, {b}")
    return v


def _ret_int(v: str, ret: str, body: list[str], em: _Emitter) -> None:
    if ret == "i64":
        body.append(f"  ret i64 {v}")
    elif ret.startswith("i"):
        t = em.fresh()
        body.append(f"  {t} = trunc i64 {v} to {ret}")
        body.append(f"  ret {ret} {t}")
    else:
        raise Unsupported(f"work-item builtin returning {ret}")


def _work_item(name: str, base: str, sig: FnSig, em: _Emitter) -> str:
    ret = sig.ret
    params = ", ".join(f"{t} %a{i}" for i, t in enumerate(sig.params))
    body: list[str] = []
    if base in _WI_DIM:
        kind, default = _WI_DIM[base]
        if len(sig.params) != 1 or not sig.params[0].startswith("i"):
            raise Unsupported(f"{name} with signature {sig}")
        pt = sig.params[0]
        d = "%a0"
        if pt != "i64":
            d = em.fresh()
            body.append(f"  {d} = zext {pt} %a0 to i64")
        ok = em.fresh()
        body.append(f"  {ok} = icmp ult i64 {d}, 3")
        body.append(f"  br i1 {ok}, label %in, label %out")
        body.append("in:")
        def at(base_slot: int) -> str:
            return _state(_bin("add", d, str(base_slot), em, body), em, body)
        if kind == "gid":
            v = _bin("mul", at(3), at(6), em, body)
            v = _bin("add", v, at(0), em, body)
            v = _bin("add", v, at(12), em, body)
        else:
            v = at({"lid": 0, "grp": 3, "lsz": 6, "ngr": 9, "off": 12, "gsz": 16}[kind])
        _ret_int(v, ret, body, em)
        body.append("out:")
        body.append(f"  ret {ret} {default}")
    else:
        def lin(ids: list[str], sizes: list[str]) -> str:
            v = _bin("mul", ids[2], sizes[1], em, body)
            v = _bin("add", v, ids[1], em, body)
            v = _bin("mul", v, sizes[0], em, body)
            return _bin("add", v, ids[0], em, body)
        lsz = [_state(6 + i, em, body) for i in range(3)]
        if base == "get_work_dim":
            v = _state(15, em, body)
        elif base == "get_global_linear_id":
            ids = []
            for i in range(3):
                g = _bin("mul", _state(3 + i, em, body), lsz[i], em, body)
                ids.append(_bin("add", g, _state(i, em, body), em, body))
            v = lin(ids, [_state(16 + i, em, body) for i in range(3)])
        elif base in ("get_local_linear_id", "get_sub_group_local_id"):
            v = lin([_state(i, em, body) for i in range(3)], lsz)
        elif base in ("get_max_sub_group_size", "get_sub_group_size"):
            v = _bin("mul", _bin("mul", lsz[0], lsz[1], em, body), lsz[2], em, body)
        elif base == "get_sub_group_id":
            v = "0"
        else:  # number of sub-groups
            v = "1"
        _ret_int(v, ret, body, em)
    return f"define {ret} @{quote_name(name)}({params}) {{\nentry:\n" + "\n".join(body) + "\n}"


def _splat(v: str, scalar_ty: str, vec_ty: str, em: _Emitter, body: list[str]) -> str:
    n, _ = _vec_info(vec_ty)
    a, b = em.fresh(), em.fresh()
    body.append(f"  {a} = insertelement <1 x {scalar_ty}> poison, {scalar_ty} {v}, i64 0")
    body.append(f"  {b} = shufflevector <1 x {scalar_ty}> {a}, <1 x {scalar_ty}> poison, <{n} x i32> zeroinitializer")
    return b


def _math(name: str, base: str, sig: FnSig, em: _Emitter) -> str | None:
    """A definition for an OpenCL math/relational/conversion builtin, or None."""
    base = re.sub(r"^(native_|half_)", "", base)
    ret, ps = sig.ret, list(sig.params)
    args = [f"%a{i}" for i in range(len(ps))]
    body: list[str] = []
    head = f"define {ret} @{quote_name(name)}(" + ", ".join(f"{t} {a}" for t, a in zip(ps, args, strict=False)) + ") {\nentry:\n"

    def widen(vals: list[str]) -> list[str]:
        # Mixed overloads such as fmax(float2, float): splat the scalar operands.
        out = []
        for v, t in zip(vals, ps, strict=False):
            out.append(_splat(v, t, ret, em, body) if t != ret and ret.startswith("<") and not t.startswith("<") else v)
        return out

    def call(intr: str, vals: list[str], ty: str) -> str:
        full = f"llvm.{intr}.{_intrinsic_suffix(ty)}"
        em.intrinsic(full, ty, [ty] * len(vals))
        v = em.fresh()
        body.append(f"  {v} = call {ty} @{full}(" + ", ".join(f"{ty} {x}" for x in vals) + ")")
        return v

    def done(v: str) -> str:
        return head + "\n".join(body) + f"\n  ret {ret} {v}\n}}"

    floaty = _is_float(ret)
    mp = mangled_params(name)
    signed = mp[0][2] if mp else True
    if base in _UNARY_INTRINSIC and floaty and len(ps) == 1:
        return done(call(_UNARY_INTRINSIC[base], args, ret))
    if base in _BINARY_INTRINSIC and floaty and len(ps) == 2:
        return done(call(_BINARY_INTRINSIC[base], widen(args), ret))
    if base in ("fma", "mad") and floaty and len(ps) == 3:
        return done(call("fma" if base == "fma" else "fmuladd", widen(args), ret))
    if base == "fmod" and floaty and len(ps) == 2:
        a = widen(args)
        return done(_bin("frem", a[0], a[1], em, body, ret))
    if base in ("max", "min", "clamp") and len(ps) in (2, 3):
        a = widen(args)
        if floaty:
            hi, lo = "maxnum", "minnum"
        else:
            hi, lo = ("smax", "smin") if signed else ("umax", "umin")
        if base == "max":
            return done(call(hi, a, ret))
        if base == "min":
            return done(call(lo, a, ret))
        if len(a) == 3:
            return done(call(lo, [call(hi, a[:2], ret), a[2]], ret))
    if base == "abs" and not floaty and len(ps) == 1:
        full = f"llvm.abs.{_intrinsic_suffix(ret)}"
        em.intrinsic(full, ret, [ret, "i1"])
        v = em.fresh()
        body.append(f"  {v} = call {ret} @{full}({ret} %a0, i1 false)")
        return done(v)
    if base in ("clz", "popcount") and not floaty and len(ps) == 1:
        if base == "popcount":
            return done(call("ctpop", args, ret))
        full = f"llvm.ctlz.{_intrinsic_suffix(ret)}"
        em.intrinsic(full, ret, [ret, "i1"])
        v = em.fresh()
        body.append(f"  {v} = call {ret} @{full}({ret} %a0, i1 false)")
        return done(v)
    if base == "fract" and floaty and len(ps) == 2 and ps[1].startswith("ptr"):
        fl = call("floor", ["%a0"], ret)
        d = _bin("fsub", "%a0", fl, em, body, ret)
        _, el = _vec_info(ret)
        below1 = {"float": "0x3FEFFFFFE0000000", "double": "0x3FEFFFFFFFFFFFFF", "half": "0xH3BFF"}[el]
        c = below1 if not ret.startswith("<") else _splat(below1, el, ret, em, body)
        r = call("minnum", [d, c], ret)
        body.append(f"  store {ret} {fl}, {ps[1]} %a1")
        return done(r)
    if (base in _FPCLASS or base in _FCMP or base == "signbit") and ps and _is_float(ps[0]):
        n, _ = _vec_info(ps[0])
        i1 = f"<{n} x i1>" if ps[0].startswith("<") else "i1"
        c = em.fresh()
        if base in _FPCLASS:
            full = f"llvm.is.fpclass.{_intrinsic_suffix(ps[0])}"
            em.intrinsic(full, i1, [ps[0], "i32"])
            body.append(f"  {c} = call {i1} @{full}({ps[0]} %a0, i32 {_FPCLASS[base]})")
        elif base == "signbit":
            _, el = _vec_info(ps[0])
            it = {"float": "i32", "double": "i64", "half": "i16"}[el]
            ity = f"<{n} x {it}>" if ps[0].startswith("<") else it
            b = em.fresh()
            body.append(f"  {b} = bitcast {ps[0]} %a0 to {ity}")
            body.append(f"  {c} = icmp slt {ity} {b}, zeroinitializer")
        else:
            if len(ps) != 2:
                return None
            body.append(f"  {c} = fcmp {_FCMP[base]} {ps[0]} %a0, %a1")
        v = em.fresh()
        # OpenCL: scalar relational -> 1/0, vector -> -1/0 per lane.
        body.append(f"  {v} = {'sext' if ret.startswith('<') else 'zext'} {i1} {c} to {ret}")
        return done(v)
    if base.startswith("convert_") and len(ps) == 1 and not base.endswith("_sat") and "_sat_" not in base:
        src, dst = ps[0], ret
        (_, se), (_, de) = _vec_info(src), _vec_info(dst)
        sf, df = _is_float(src), _is_float(dst)
        dst_signed = not re.match(r"convert_u", base)
        v = em.fresh()
        if src == dst:
            return done("%a0")
        if sf and df:
            op = "fpext" if {"half": 16, "float": 32, "double": 64}[de] > {"half": 16, "float": 32, "double": 64}[se] else "fptrunc"
        elif sf:
            op = "fptosi" if dst_signed else "fptoui"
        elif df:
            op = "sitofp" if signed else "uitofp"
        else:
            sw, dw = int(se[1:]), int(de[1:])
            op = "trunc" if dw < sw else ("sext" if signed else "zext")
        body.append(f"  {v} = {op} {src} %a0 to {dst}")
        return done(v)
    m = re.fullmatch(r"vload(\d+)", base)
    if m and len(ps) == 2 and ps[1].startswith("ptr"):
        n, el = _vec_info(ret)
        off = _bin("mul", "%a0", str(n), em, body, ps[0])
        p, v = em.fresh(), em.fresh()
        body.append(f"  {p} = getelementptr {el}, {ps[1]} %a1, {ps[0]} {off}")
        body.append(f"  {v} = load {ret}, {ps[1]} {p}, align 1")
        return done(v)
    m = re.fullmatch(r"vstore(\d+)", base)
    if m and len(ps) == 3 and ps[2].startswith("ptr") and ret == "void":
        n, el = _vec_info(ps[0])
        off = _bin("mul", "%a1", str(n), em, body, ps[1])
        p = em.fresh()
        body.append(f"  {p} = getelementptr {el}, {ps[2]} %a2, {ps[1]} {off}")
        body.append(f"  store {ps[0]} %a0, {ps[2]} {p}, align 1")
        return head + "\n".join(body) + "\n  ret void\n}"
    return None


def _library(name: str, sig: FnSig, em: _Emitter) -> str | None:
    """The builtin library's definition of `name` (the one the vectorizer
    inlines, so scalar and vector runs compute the same bits), or None."""
    if sig.varargs:
        return None
    from vectorizer.builtins import atomics, library

    fn = library.function(name, sig.ret, sig.params)
    if fn is None:
        params = [library._clean(p) for p in sig.params]
        return atomics.definition(name, library._clean(sig.ret), params) if atomics.is_atomic(name) else None
    for d, text in fn.decls.items():
        em.decls.setdefault(d, text)
    return fn.text


def _clock(name: str, base: str, sig: FnSig, em: _Emitter) -> str | None:
    """`clock_read_{device,work_group,sub_group}` and their `_hilo` forms
    (cl_khr_kernel_clock): a counter of the calls, so that every work-item
    reads increasing values and the runs stay deterministic."""
    m = re.fullmatch(r"clock_read_(hilo_)?(device|work_group|sub_group)", base)
    if not m or sig.params or sig.ret != ("<2 x i32>" if m.group(1) else "i64"):
        return None
    em.decls["__oracle_clock"] = "@__oracle_clock = internal global i64 0, align 8"
    body = ["  %o = atomicrmw add ptr @__oracle_clock, i64 1 monotonic, align 8", "  %v = add i64 %o, 1"]
    if m.group(1):
        body += ["  %lo = trunc i64 %v to i32", "  %s = lshr i64 %v, 32", "  %hi = trunc i64 %s to i32",
                 "  %a = insertelement <2 x i32> poison, i32 %lo, i64 0",
                 "  %r = insertelement <2 x i32> %a, i32 %hi, i64 1", "  ret <2 x i32> %r"]
    else:
        body.append("  ret i64 %v")
    return f"define {sig.ret} @{quote_name(name)}() {{\nentry:\n" + "\n".join(body) + "\n}"


_BARRIER = re.compile(r"barrier|fence|async_work_group|wait_group_events|atomic_work_item")
_COLLECTIVE = re.compile(r"^(sub_group_|work_group_|intel_sub_group)")


def builtin_definition(name: str, sig: FnSig, em: _Emitter) -> str | None:
    """The definition of builtin `name`, None when it needs none (intrinsics,
    symbols of the host process), raising `Unsupported` when it cannot run."""
    if name.startswith("llvm."):
        return None
    if name.startswith(printf_capture.PREFIX):
        return printf_capture.recorder_definition(name, sig)
    if name == "printf":
        # Output is not captured (yet); a no-op keeps scalar and vector equal.
        return f"define {sig.ret} @printf(ptr %f, ...) {{\n  ret {sig.ret} 0\n}}"
    from vectorizer.builtins import images  # images and samplers, lowered by oracle/opaque_types.py

    if images.is_image_builtin(name):
        d = None if sig.varargs else images.definition(name, sig.ret, list(sig.params), em.decls.setdefault,
                                                       em.intrinsic)
        if d is None:
            raise Unsupported(f"unsupported builtin {name} with signature {sig}")
        return d
    from . import subgroups  # sub-group queries and collectives: their own runtime

    if name == subgroups.HOOK:  # the program points of oracle/subgroup_points.py
        return subgroups.builtin_definition(name, sig, em)
    base = base_name(name)
    if base is None:
        return None  # resolved by the JIT from the process (libm, memcpy) or reported unresolved

    sg = subgroups.builtin_definition(name, sig, em)
    if sg is not None:
        return sg
    if base in _WI_DIM or base in _WI_NODIM:
        return _work_item(name, base, sig, em)
    from . import workgroup  # barriers and fences: the work-group runtime

    wg = workgroup.builtin_definition(name, sig, em.intrinsic)
    if wg is not None:
        return wg
    from vectorizer.builtins import async_copy  # the group copies (their wait is a barrier)

    if async_copy.is_group_copy(name):
        d = None if sig.varargs else async_copy.definition(name, sig.ret, sig.params, em.intrinsic)
        if d is None:
            raise Unsupported(f"unsupported builtin {name} with signature {sig}")
        return d
    if _BARRIER.search(base) or _COLLECTIVE.search(base):
        raise Unsupported(f"unsupported builtin {name} (sub-group barriers, sub-group and work-group operations)")
    d = _library(name, sig, em) or _clock(name, base, sig, em)
    if d is None:
        # Signatures the library does not know (Vecz's lit tests declare
        # some builtins with other integer widths): the element-wise forms.
        d = _math(name, base, sig, em)
    if d is None:
        raise Unsupported(f"unsupported builtin {name}")
    return d


def _loop(lines: list[str], var: str, bound: str, body: list[str], start: str = "0") -> None:
    """Append a counted loop `for var in [start, bound)` using an alloca counter
    (mem2reg cleans it up; it keeps the generator free of phi bookkeeping)."""
    lines += [
        f"  store i64 {start}, ptr %{var}.slot, align 8",
        f"  br label %{var}.head",
        f"{var}.head:",
        f"  %{var} = load i64, ptr %{var}.slot, align 8",
        f"  %{var}.go = icmp ult i64 %{var}, {bound}",
        f"  br i1 %{var}.go, label %{var}.body, label %{var}.exit",
        f"{var}.body:",
        *body,
        f"  %{var}.next = add i64 %{var}, 1",
        f"  store i64 %{var}.next, ptr %{var}.slot, align 8",
        f"  br label %{var}.head",
        f"{var}.exit:",
    ]


_uniq = itertools.count()


def _set_state(slot: int, val: str) -> list[str]:
    p = f"%st{next(_uniq)}"
    return [
        f"  {p} = getelementptr [24 x i64], ptr @__oracle_st, i64 0, i64 {slot}",
        f"  store i64 {val}, ptr {p}, align 8",
    ]


def _call_kernel(fn: str, sig: FnSig, tag: str) -> list[str]:
    args = ", ".join(f"{t} %arg{i}" for i, t in enumerate(sig.params))
    return [f"  call {sig.ret} @{quote_name(fn)}({args})"]


def _call_pointer(stub: str) -> list[str]:
    """A call of the `_call_stub` whose address is SSA value `stub`."""
    return [f"  call void {stub}(ptr %args)"]


def _call_stub(name: str, fn: str, sig: FnSig) -> str:
    """`name(ptr args)`: reads the kernel's arguments from the blob and
    calls `fn` with them. The shared drivers call kernels through these:
    the call of `fn` is direct, so the code generator passes each argument
    as `fn`'s own parameter attributes say (`byval` copies, `signext`...),
    which it cannot do for a call through a pointer of the kernel's type.
    The blob does not change during a run: reading it at each call is
    reading it once."""
    lines = [f"define internal void @{quote_name(name)}(ptr %args) {{", "entry:"]
    for i, t in enumerate(sig.params):
        lines.append(f"  %argp{i} = getelementptr i8, ptr %args, i64 {i * ARG_SLOT}")
        lines.append(f"  %arg{i} = load {t}, ptr %argp{i}, align 1")
    return "\n".join([*lines, *_call_kernel(fn, sig, ""), "  ret void", "}"])


def _set_item() -> list[str]:
    """Store the running work-item's global linear id + 1 in `@__oracle_san_item`."""
    lines = []
    for d in range(3):
        lines += [
            f"  %si.g{d}p = getelementptr [24 x i64], ptr @__oracle_st, i64 0, i64 {3 + d}",
            f"  %si.g{d} = load i64, ptr %si.g{d}p, align 8",
            f"  %si.l{d}p = getelementptr [24 x i64], ptr @__oracle_st, i64 0, i64 {d}",
            f"  %si.l{d} = load i64, ptr %si.l{d}p, align 8",
            f"  %si.m{d} = mul i64 %si.g{d}, %c{d}",
            f"  %si.id{d} = add i64 %si.m{d}, %si.l{d}",
        ]
    lines += [
        "  %si.a = mul i64 %si.id2, %gs1",
        "  %si.b = add i64 %si.a, %si.id1",
        "  %si.c = mul i64 %si.b, %gs0",
        "  %si.d = add i64 %si.c, %si.id0",
        "  %si.e = add i64 %si.d, 1",
        "  store i64 %si.e, ptr @__oracle_san_item, align 8",
    ]
    return lines


def driver(
    name: str, kernel: str, sig: FnSig, vector: tuple[str, int, int, bool] | None, reverse: bool = False,
    prologue: Sequence[str] = (),
    sanitized: bool = False,
    shared_items: bool = False,
) -> str:
    """The IR of driver `name`: scalar when `vector` is None, else
    `(vector function, width, dim, predicated)`. `reverse` runs the scalar
    work-items and groups in the opposite order, on a shifted stack (the
    check that the result depends on nothing but the work-items' inputs).
    `prologue`: IR lines run at every group's start (workgroup.group_prologue:
    a new barrier interval for the sanitizer, zeroed `__local` globals).
    `sanitized` drives the sanitized copy: it also keeps
    `@__oracle_san_item` up to date. `shared_items` (with `vector` None):
    the scalar loops of `shared_items_driver`, the kernel, the order and the
    sanitizer's bookkeeping taken from the arguments."""
    if vector is not None and vector[0] is None:
        lines = [f"define internal void @{quote_name(name)}(ptr %args, ptr %cfg, ptr %v.fn, i64 %v.width, "
                 "i64 %v.dim, i1 %v.pred) {", "entry:"]
    elif shared_items:
        lines = [f"define internal void @{quote_name(name)}(ptr %args, ptr %cfg, ptr %s.fn, i1 %s.rev, "
                 "i1 %s.san) {", "entry:"]
    else:
        lines = [f"define void @{quote_name(name)}(ptr %args, ptr %cfg) {{", "entry:"]
    if reverse:
        # Move the kernel's stack frame too: a kernel that writes the address
        # of a private variable then gives other bytes, and is caught.
        lines += ["  %pad = alloca [4160 x i8], align 64", "  store volatile i8 0, ptr %pad, align 64"]
    for v in ("g0", "g1", "g2", "l0", "l1", "l2", "k"):
        lines.append(f"  %{v}.slot = alloca i64, align 8")
    for i, t in enumerate(sig.params if not shared_items else ()):  # the stubs read them there
        lines.append(f"  %argp{i} = getelementptr i8, ptr %args, i64 {i * ARG_SLOT}")
        lines.append(f"  %arg{i} = load {t}, ptr %argp{i}, align 1")
    for i in range(10):
        lines.append(f"  %cp{i} = getelementptr i64, ptr %cfg, i64 {i}")
        lines.append(f"  %c{i} = load i64, ptr %cp{i}, align 8")
    for d in range(3):
        lines += _set_state(6 + d, f"%c{d}")
        lines += _set_state(9 + d, f"%c{3 + d}")
        lines += _set_state(12 + d, f"%c{6 + d}")
        lines.append(f"  %gs{d} = mul i64 %c{d}, %c{3 + d}")
        lines += _set_state(16 + d, f"%gs{d}")
    lines += _set_state(15, "%c9")
    shared = vector is not None and vector[0] is None
    if shared:
        # The shape comes from the arguments (see `shared_vector_driver`):
        # the chunked dimension's size and the two others, which the loops
        # nest in the same order as a driver made for one dim.
        lines += [
            "  %v.cdp = getelementptr i64, ptr %cfg, i64 %v.dim",
            "  %v.cdim = load i64, ptr %v.cdp, align 8",
            "  %v.is0 = icmp eq i64 %v.dim, 0",
            "  %v.o0 = select i1 %v.is0, i64 1, i64 0",
            "  %v.is2 = icmp eq i64 %v.dim, 2",
            "  %v.o1 = select i1 %v.is2, i64 1, i64 2",
            "  %v.co0p = getelementptr i64, ptr %cfg, i64 %v.o0",
            "  %v.co0 = load i64, ptr %v.co0p, align 8",
            "  %v.co1p = getelementptr i64, ptr %cfg, i64 %v.o1",
            "  %v.co1 = load i64, ptr %v.co1p, align 8",
        ]
        # The sub-group geometry: the lines of a predicated and of an
        # unpredicated driver, chosen at run time where they differ.
        on = subgroups_state((None, "%v.width", "%v.dim", True), "%cfg")
        off = subgroups_state((None, "%v.width", "%v.dim", False), "%cfg")
        if on == off:
            lines += on
        else:
            lines += ["  br i1 %v.pred, label %v.sgp, label %v.sgn", "v.sgp:", *on, "  br label %v.sgd",
                      "v.sgn:", *off, "  br label %v.sgd", "v.sgd:"]
    else:
        lines += subgroups_state(vector, "%cfg")
    lines.append("  %nloc.p = getelementptr i64, ptr %cfg, i64 10")
    lines.append("  %nloc = load i64, ptr %nloc.p, align 8")
    # Local buffers start every group zeroed, identically for both runs.
    reset = [
        "  %kp2 = shl i64 %k, 1",
        f"  %kpi = add i64 %kp2, {CFG_SLOTS}",
        "  %kpp = getelementptr i64, ptr %cfg, i64 %kpi",
        "  %kptr = load ptr, ptr %kpp, align 8",
        "  %kbp = getelementptr i64, ptr %kpp, i64 1",
        "  %kbytes = load i64, ptr %kbp, align 8",
        "  call void @llvm.memset.p0.i64(ptr %kptr, i8 0, i64 %kbytes, i1 false)",
    ]
    def index(var: str, bound: str) -> tuple[list[str], str]:
        # Counter `var` read forwards, or backwards (bound - 1 - var).
        if shared_items:
            return [f"  %{var}.m = sub i64 {bound}, 1", f"  %{var}.r = sub i64 %{var}.m, %{var}",
                    f"  %{var}.i = select i1 %s.rev, i64 %{var}.r, i64 %{var}"], f"%{var}.i"
        if not reverse:
            return [], f"%{var}"
        return [f"  %{var}.m = sub i64 {bound}, 1", f"  %{var}.r = sub i64 %{var}.m, %{var}"], f"%{var}.r"

    if vector is None:
        i0, v0 = index("l0", "%c0")
        l0loop: list[str] = []
        if shared_items:
            item = ["  br i1 %s.san, label %s.item, label %s.call", "s.item:", *_set_item(), "  br label %s.call",
                    "s.call:", *_call_pointer("%s.fn")]
        else:
            item = (_set_item() if sanitized else []) + _call_kernel(kernel, sig, "s")
        _loop(l0loop, "l0", "%c0", i0 + _set_state(0, v0) + item)
        i1, v1 = index("l1", "%c1")
        l1loop: list[str] = []
        _loop(l1loop, "l1", "%c1", i1 + _set_state(1, v1) + l0loop)
        i2, v2 = index("l2", "%c2")
        items: list[str] = []
        _loop(items, "l2", "%c2", i2 + _set_state(2, v2) + l1loop)
    else:
        vfn, width, dim, pred = vector
        if shared:
            width, dim = "%v.width", "%v.dim"  # type: ignore[assignment]
            call = _call_pointer("%v.fn")
            cdim, o0, o1, co0, co1 = "%v.cdim", "%v.o0", "%v.o1", "%v.co0", "%v.co1"
        else:
            call = _call_kernel(vfn, sig, "v")
            others = [d for d in range(3) if d != dim]
            cdim, o0, o1 = f"%c{dim}", others[0], others[1]
            co0, co1 = f"%c{o0}", f"%c{o1}"
        chunk: list[str] = []
        chunk += _set_state(dim, "%b")
        chunk += call
        # Full chunks: b = 0, W, 2W, ... while b + W <= L[dim].
        lines_chunks = [
            "  store i64 0, ptr %l0.slot, align 8",
            "  br label %ch.head",
            "ch.head:",
            "  %b = load i64, ptr %l0.slot, align 8",
            f"  %b.end = add i64 %b, {width}",
            f"  %ch.go = icmp ule i64 %b.end, {cdim}",
            "  br i1 %ch.go, label %ch.body, label %ch.exit",
            "ch.body:",
            *chunk,
            "  store i64 %b.end, ptr %l0.slot, align 8",
            "  br label %ch.head",
            "ch.exit:",
            f"  %rem.any = icmp ult i64 %b, {cdim}",
            "  br i1 %rem.any, label %rem, label %rem.done",
            "rem:",
        ]
        # The remainder: one predicated call, or scalar work-items.
        def remainder_items() -> list[str]:
            rem_body = _set_state(dim, "%r") + _call_kernel(kernel, sig, "r")
            return [
                "  store i64 %b, ptr %k.slot, align 8",
                "  br label %r.head",
                "r.head:",
                "  %r = load i64, ptr %k.slot, align 8",
                f"  %r.go = icmp ult i64 %r, {cdim}",
                "  br i1 %r.go, label %r.body, label %r.exit",
                "r.body:",
                *rem_body,
                "  %r.next = add i64 %r, 1",
                "  store i64 %r.next, ptr %k.slot, align 8",
                "  br label %r.head",
                "r.exit:",
            ]

        if shared:
            lines_chunks += ["  br i1 %v.pred, label %rem.p, label %rem.s", "rem.p:", *_set_state(dim, "%b"), *call,
                             "  br label %rem.done", "rem.s:", *remainder_items()]
        elif pred:
            lines_chunks += _set_state(dim, "%b") + _call_kernel(vfn, sig, "p")
        else:
            lines_chunks += remainder_items()
        lines_chunks += ["  br label %rem.done", "rem.done:"]
        # Loop the two other dimensions around the chunk loop (l1/l2 counters).
        inner_var, outer_var = ("l1", "l2")
        tmp: list[str] = []
        _loop(tmp, inner_var, co0, _set_state(o0, f"%{inner_var}") + lines_chunks)
        items = []
        _loop(items, outer_var, co1, _set_state(o1, f"%{outer_var}") + tmp)
    group: list[str] = list(prologue)
    _loop(group, "k", "%nloc", reset)
    group += items
    j0, w0 = index("g0", "%c3")
    gl1: list[str] = []
    _loop(gl1, "g0", "%c3", j0 + _set_state(3, w0) + group)
    j1, w1 = index("g1", "%c4")
    gl2: list[str] = []
    _loop(gl2, "g1", "%c4", j1 + _set_state(4, w1) + gl1)
    j2, w2 = index("g2", "%c5")
    body: list[str] = []
    _loop(body, "g2", "%c5", j2 + _set_state(5, w2) + gl2)
    lines += body
    lines += ["  ret void", "}"]
    return "\n".join(lines)


SANITIZED_DRIVER = "__oracle_run_sanitized"
SHARED_VECTOR_DRIVER = "__oracle_run_vector"


def shared_vector_driver(kernel: str, sig: FnSig, prologue: Sequence[str] = ()) -> str:
    """The vectorized drivers' loops once per module, for `variant_thunk`:
    `SHARED_VECTOR_DRIVER(args, cfg, ptr stub, i64 width, i64 dim, i1
    predicated)` runs the vectorized function that `stub` (a `_call_stub`)
    calls as `driver` runs it for `(function, width, dim, predicated)`, the
    shape read from its arguments. One
    copy of the loops instead of one per variant: the code generator's time
    on the drivers no longer grows with the number of variants."""
    return driver(SHARED_VECTOR_DRIVER, kernel, sig, (None, 0, 0, False), prologue=prologue)  # type: ignore[arg-type]


SHARED_ITEMS_DRIVER = "__oracle_run_items"


def shared_items_driver(sig: FnSig, prologue: Sequence[str] = ()) -> str:
    """The scalar drivers' loops once per module, for `items_thunk`:
    `SHARED_ITEMS_DRIVER(args, cfg, ptr stub, i1 reversed, i1 sanitized)`
    runs the function that `stub` (a `_call_stub`) calls on every work-item
    as `driver` runs a scalar kernel, forwards or backwards, keeping
    `@__oracle_san_item` up to date when `sanitized`."""
    return driver(SHARED_ITEMS_DRIVER, "", sig, None, prologue=prologue, shared_items=True)


def _thunk(name: str, fn: str, sig: FnSig, shared: str, shape: str, frame: Sequence[str] = ()) -> str:
    """Driver `name` (the contract of `driver`): `frame`, then a call of the
    shared loops `shared` with `fn`'s `_call_stub` and the run's `shape`
    (the loops' arguments after the stub)."""
    return "\n".join([
        _call_stub(name + ".call", fn, sig),
        f"define void @{quote_name(name)}(ptr %args, ptr %cfg) {{",
        "entry:",
        *frame,
        f"  call void @{shared}(ptr %args, ptr %cfg, ptr @{quote_name(name + '.call')}, {shape})",
        "  ret void",
        "}",
    ])


def _flag(b: bool) -> str:
    return "true" if b else "false"


def items_thunk(name: str, fn: str, sig: FnSig, reverse: bool = False, sanitized: bool = False) -> str:
    """Scalar driver `name` (the contract of `driver`) of function `fn`,
    calling the shared loops (`shared_items_driver`) with its `_call_stub`.
    The reversed run's frame holds the pad that shifts the kernel's stack
    (see `driver`)."""
    pad = ["  %pad = alloca [4160 x i8], align 64", "  store volatile i8 0, ptr %pad, align 64"] if reverse else []
    return _thunk(name, fn, sig, SHARED_ITEMS_DRIVER, f"i1 {_flag(reverse)}, i1 {_flag(sanitized)}", pad)


def variant_thunk(name: str, sig: FnSig, vector: tuple[str, int, int, bool]) -> str:
    """Driver `name` of one variant (the contract of `driver`), calling the
    shared loops (`shared_vector_driver`) with its shape and `_call_stub`."""
    vfn, width, dim, pred = vector
    return _thunk(name, vfn, sig, SHARED_VECTOR_DRIVER, f"i64 {width}, i64 {dim}, i1 {_flag(pred)}")


def subgroups_state(vector: tuple[str, int, int, bool] | None, cfg: str) -> list[str]:
    """A driver's sub-group geometry lines (oracle/subgroups.py)."""
    from . import subgroups

    return subgroups.driver_state(None if vector is None else vector[1:], cfg, "sg.")


def subgroups_need_fibers(declared: dict[str, FnSig]) -> bool:
    """Collectives synchronise on the work-group fibers (oracle/subgroups.py)."""
    from . import subgroups

    return subgroups.needs_fibers(declared)


def runtime_module(
    declared: dict[str, FnSig],
    kernel: str,
    kernel_sig: FnSig,
    variants: list[tuple[str, str, int, int, bool]],
    local_globals: Sequence[LocalGlobal] = (),
    *,
    sanitized: str | None = None,
    shared_drivers: bool = False,
) -> tuple[str, list[str]]:
    """The runtime module text: state, builtin definitions for `declared`
    (name -> signature) and drivers. `variants` are (driver name, vector
    function, width, dim, predicated); `local_globals` the module's `__local`
    globals (workgroup.local_globals). Modules declaring a barrier get the
    work-group runtime's fiber drivers. `sanitized` names the sanitized copy
    of the kernel (oracle.instrument), driven by `SANITIZED_DRIVER`.
    `shared_drivers`: the plain drivers share one copy of their loops, the
    scalar ones (`shared_items_driver`) and the vectorized ones
    (`shared_vector_driver`), which the code generator compiles once,
    instead of one specialised to each run and variant's shape (which the
    optimiser makes the most of). Returns (text, names left undefined)."""
    from . import workgroup

    em = _Emitter()
    if any(n.startswith(printf_capture.PREFIX) for n in declared):
        em.defs.append(printf_capture.GLOBALS)
    undefined = []
    for name, sig in sorted(declared.items()):
        d = builtin_definition(name, sig, em)
        if d is None:
            if not name.startswith("llvm."):
                undefined.append(name)
        else:
            em.defs.append(d)
    em.intrinsic("llvm.memset.p0.i64", "void", ["ptr", "i8", "i64", "i1"])
    params = ", ".join(kernel_sig.params)
    kdecl = [f"declare {kernel_sig.ret} @{quote_name(kernel)}({params})"]
    for _, vfn, _, _, _ in variants:
        if vfn != kernel:
            kdecl.append(f"declare {kernel_sig.ret} @{quote_name(vfn)}({params})")
    if sanitized is not None:
        kdecl.append(f"declare {kernel_sig.ret} @{quote_name(sanitized)}({params})")
    shared = workgroup.shared_text(local_globals, em.intrinsic)
    if workgroup.uses_barriers(declared) or subgroups_need_fibers(declared):
        from .subgroup_points import uses_active_members

        drivers = [workgroup.runtime_text(kernel, kernel_sig, variants, local_globals, em.intrinsic,
                                          sanitized=sanitized, active_members=uses_active_members(declared))]
    else:
        pro = workgroup.group_prologue(local_globals)
        if shared_drivers:
            drivers = [
                shared_items_driver(kernel_sig, prologue=pro),
                items_thunk("__oracle_run_scalar", kernel, kernel_sig),
                items_thunk("__oracle_run_scalar_reversed", kernel, kernel_sig, reverse=True),
            ]
            if sanitized is not None:
                drivers.append(items_thunk(SANITIZED_DRIVER, sanitized, kernel_sig, sanitized=True))
        else:
            drivers = [
                driver("__oracle_run_scalar", kernel, kernel_sig, None, prologue=pro),
                driver("__oracle_run_scalar_reversed", kernel, kernel_sig, None, reverse=True, prologue=pro),
            ]
            if sanitized is not None:
                drivers.append(driver(SANITIZED_DRIVER, sanitized, kernel_sig, None, prologue=pro, sanitized=True))
        one_copy = shared_drivers and len(variants) > 1 and all(0 <= dim < 3 for _, _, _, dim, _ in variants)
        if one_copy:
            drivers.append(shared_vector_driver(kernel, kernel_sig, prologue=pro))
        for dname, vfn, w, dim, pred in variants:
            if one_copy:
                drivers.append(variant_thunk(dname, kernel_sig, (vfn, w, dim, pred)))
            else:
                drivers.append(driver(dname, kernel, kernel_sig, (vfn, w, dim, pred), prologue=pro))
    # The sanitizer's run-time library (another module) reads these: external
    # then; internal otherwise, so that optimised programs (the benchmark's)
    # keep all their freedom.
    link = "" if sanitized is not None else "internal "
    text = "\n\n".join(
        [f"@__oracle_st = {link}global [24 x i64] zeroinitializer, align 16",
         f"@__oracle_san_epoch = {link}global i64 0, align 8",
         f"@__oracle_san_group_epoch = {link}global i64 0, align 8",
         f"@__oracle_san_stack_hi = {link}global i64 0, align 8",
         f"@__oracle_san_item = {link}global i64 0, align 8",
         shared]
        + sorted(em.decls.values())
        + kdecl
        + em.defs
        + drivers
    )
    return text + "\n", undefined


from . import printf_capture  # noqa: E402  (it imports this module's helpers)
