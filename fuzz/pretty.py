"""A plan as OpenCL-C-like pseudo code, for people (`vecz-fuzz generate --plan`).

Not compilable C: it shows the structure and the guards the emitter adds
(`wrap`, `guard`, `sat`, ...) so a reduced kernel is easy to read.
"""

from __future__ import annotations

from .plan import (
    Addr,
    Affine,
    Assign,
    Atomic,
    Barrier,
    Biased,
    Bin,
    Block,
    Break,
    Buffer,
    Builtin,
    Call,
    CallStmt,
    Cast,
    Cmp,
    Const,
    ConstAddr,
    Continue,
    CopyOut,
    CursorAddr,
    Expr,
    Extract,
    Freeze,
    Helper,
    If,
    Indirect,
    Insert,
    Irreducible,
    KernelPlan,
    Let,
    Lin,
    Load,
    LocalSlot,
    Loop,
    Math,
    Neg,
    Overflow,
    ParamRef,
    PeerSlot,
    PrefixScan,
    Printf,
    PrivInit,
    PrivLoad,
    PrivStore,
    PtrCmp,
    PtrDiff,
    Return,
    ScalarParam,
    Select,
    SelectAddr,
    Shuffle,
    Spin,
    Splat,
    Stmt,
    Store,
    Switch,
    Trap,
    TreeReduce,
    UniformStore,
    VarRef,
    VLoad,
    VStore,
    WorkDim,
    WorkItem,
    Wrapped,
)

_BIN = {
    "add": "+", "sub": "-", "mul": "*", "and": "&", "or": "|", "xor": "^", "shl": "<<",
    "lshr": ">>u", "ashr": ">>", "udiv": "/u", "sdiv": "/", "urem": "%u", "srem": "%",
    "fadd": "+", "fsub": "-", "fmul": "*", "fdiv": "/", "frem": "%",
}


def expr_c(e: Expr) -> str:
    """One expression as pseudo C."""
    if isinstance(e, Const):
        return repr(e.value) if not isinstance(e.value, tuple) else f"({e.ty.c})({', '.join(map(repr, e.value))})"
    if isinstance(e, VarRef):
        return e.var.name
    if isinstance(e, ParamRef):
        return e.param.name
    if isinstance(e, WorkItem):
        return f"get_{e.kind}({e.dim if isinstance(e.dim, int) else expr_c(e.dim)})"
    if isinstance(e, Lin):
        return "lin"
    if isinstance(e, Bin):
        flags = f" /*{' '.join(e.flags)}*/" if e.flags else ""
        return f"({expr_c(e.a)} {_BIN[e.op]}{flags} {expr_c(e.b)})"
    if isinstance(e, Neg):
        return f"-{expr_c(e.a)}"
    if isinstance(e, Cmp):
        return f"({expr_c(e.a)} {e.pred} {expr_c(e.b)})"
    if isinstance(e, Select):
        return f"({expr_c(e.cond)} ? {expr_c(e.a)} : {expr_c(e.b)})"
    if isinstance(e, Cast):
        return f"{e.op}<{e.ty.c}>({expr_c(e.a)})"
    if isinstance(e, Math):
        return f"{e.fn}({', '.join(expr_c(a) for a in e.args)})"
    if isinstance(e, Load):
        return f"{e.buffer.name}[{addr_c(e.addr, e.buffer)}]"
    if isinstance(e, PrivLoad):
        view = f"((as {e.ty.c}*){e.array.name})" if e.view else e.array.name
        if e.choice is not None:
            return f"*({expr_c(e.choice[0])} ? &{view}[wrap({expr_c(e.index)})] : &{view}[wrap({expr_c(e.choice[1])})])"
        return f"{view}[wrap({expr_c(e.index)})]"
    if isinstance(e, Freeze):
        return f"freeze({expr_c(e.a)})"
    if isinstance(e, Overflow):
        return f"{e.op}_overflow({expr_c(e.a)}, {expr_c(e.b)}).{'value' if e.part == 0 else 'overflow'}"
    if isinstance(e, Builtin):
        return _builtin_c(e)
    if isinstance(e, VLoad):
        return _vload_c(e)
    if isinstance(e, PtrCmp):
        return f"(&{e.buffer.name}[{addr_c(e.a)}] {e.pred} &{e.buffer.name}[{addr_c(e.b)}])"
    if isinstance(e, PtrDiff):
        return f"(&{e.buffer.name}[{addr_c(e.a)}] - &{e.buffer.name}[{addr_c(e.b)}])"
    if isinstance(e, WorkDim):
        return "get_work_dim()"
    if isinstance(e, Call):
        return f"{e.helper.name}({', '.join(expr_c(a) for a in e.args)})"
    if isinstance(e, Extract):
        i = e.index if isinstance(e.index, int) else f"wrap({expr_c(e.index)})"
        return f"{expr_c(e.vec)}[{i}]"
    if isinstance(e, Insert):
        i = e.index if isinstance(e.index, int) else f"wrap({expr_c(e.index)})"
        return f"insert({expr_c(e.vec)}, {i}, {expr_c(e.elem)})"
    if isinstance(e, Shuffle):
        return f"shuffle({expr_c(e.a)}, {expr_c(e.b)}, {list(e.mask)})"
    if isinstance(e, Splat):
        return f"({e.ty.c})({expr_c(e.a)})"
    return f"<{type(e).__name__}>"


def _builtin_c(e: Builtin) -> str:
    """A builtin call as OpenCL C spells it. A builtin with a pointer output
    (`frexp`, `modf`, `fract`, `sincos`, `remquo`, `lgamma_r`) is shown with
    its private output argument: `frexp(x, &(int4){0})` when the call's own
    result is used (what the callee writes is dropped), and a statement
    expression reading the output back when that is the value used
    (`part` 1), as the emitter loads the slot after the call."""
    name = e.name
    if name == "convert":  # the older spelling: destination type, signedness and rounding mode
        name = f"convert_{'' if e.signed or not e.ty.is_int else 'u'}{e.ty.c}{e.suffix}"
    args = [expr_c(a) for a in e.args]
    if e.out is None:
        return f"{name}({', '.join(args)})"
    # The pointee as the overload spells it (`int4*`): the plan's type has no signedness.
    out_ty = e.params[-1].rstrip("*") if e.params else e.out.c
    if e.part == 0:
        return f"{name}({', '.join([*args, f'&({out_ty}){{0}}'])})"
    return f"({{ {out_ty} out_; {name}({', '.join([*args, '&out_'])}); out_; }})"


def _vload_c(e: VLoad) -> str:
    """`vload<N>`, `vload_half<N>` or `vloada_half<N>` as OpenCL C calls it:
    a wrapped offset from the buffer's start, or a constant offset from a
    per-work-item address (`base`)."""
    name = f"{e.half}{e.lanes if e.lanes > 1 else ''}" if e.half else f"vload{e.lanes}"
    if e.base is not None:
        return f"{name}({e.offset}, &{e.buffer.name}[{addr_c(e.base)}])"
    if e.mask is not None and e.passthru is not None:
        return (f"masked_gather{e.lanes}(wrap({expr_c(e.expr)}), {e.buffer.name}, {expr_c(e.mask)}, "
                f"{expr_c(e.passthru)})")
    return f"{name}(wrap({expr_c(e.expr)}), {e.buffer.name})"


def addr_c(a: Addr, buf: Buffer | None = None) -> str:
    if isinstance(a, ConstAddr):
        return str(a.index)
    if isinstance(a, Affine):
        base = "lin" if a.base == "lin" else f"{a.base}({a.dim if isinstance(a.dim, int) else a.dim.name})"
        s = f"{a.offset} + {a.stride}*{base}"
        if a.counter is not None:
            s += f" + {a.counter.name}"
        if a.clamp_hi is not None:
            s = f"clamp({s}, 0, {a.clamp_hi})"
        return s
    if isinstance(a, Wrapped):
        return f"wrap({expr_c(a.expr)})"
    if isinstance(a, Biased):
        return f"{a.bias} + {expr_c(a.expr)}"
    if isinstance(a, Indirect):
        return f"wrap({a.index_buffer.name}[{addr_c(a.inner)}])"
    if isinstance(a, SelectAddr):
        return f"/*pointer select*/ {expr_c(a.cond)} ? {addr_c(a.a)} : {addr_c(a.b)}"
    if isinstance(a, Block):
        return f"block{a.size}({expr_c(a.expr)})"
    if isinstance(a, LocalSlot):
        return f"llin*K + {a.slot}"
    if isinstance(a, CursorAddr):
        return f"/*pointer iv*/ {addr_c(a.cursor.start)} + {a.cursor.step}*i"
    if isinstance(a, PeerSlot):
        return _peer_c(a, buf is not None and buf.two_d)
    return f"<{type(a).__name__}>"


def _peer_c(a: PeerSlot, two_d: bool) -> str:
    """Another work-item's slot of a tile: `L` work-items in the group at
    `llin`; in a 2-D tile, row `r` of `lr` and column `x` of `lx`."""
    if two_d:
        row, col = {"first": ("0", "0"), "right": ("r", f"(x + {a.shift}) % lx"),
                    "down": (f"(r + {a.shift}) % lr", "x"), "mirror": ("r", "lx - 1 - x")}[a.pattern]
        return f"{row}][{col}"
    return {"first": "0", "rotate": f"(llin + {a.shift}) % L", "mirror": "L - 1 - llin",
            "xor": f"(llin ^ {a.shift}) < L ? llin ^ {a.shift} : llin"}[a.pattern]


_FENCE = {1: "CLK_LOCAL_MEM_FENCE", 2: "CLK_GLOBAL_MEM_FENCE", 3: "CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE"}


def _barrier_c(s: Barrier) -> str:
    return f"{s.spelling}({_FENCE[s.fence]})"


def _slot(buf: Buffer) -> str:
    return {
        "linear": "lin",
        "reverse": "(T-1-lin)",
        "perm": f"perm{buf.perm_mul},{buf.perm_xor}(lin)",
        "indirect": f"perm{buf.perm_mul},{buf.perm_xor}({buf.iota.name if buf.iota else '?'}[lin])",
    }[buf.mapping]


def _own_slot(buf: Buffer, slot: int) -> str:
    """The index of a work-item's own slot `slot`: of an output buffer by its
    mapping, of a `__local` buffer or tile by its local linear id (row and
    column in a 2-D tile)."""
    if buf.two_d:
        return "r][x"
    base = "llin" if buf.is_local else _slot(buf)
    return f"{base}*{buf.slots} + {slot}"


def stmts_c(body: list[Stmt], indent: int = 1) -> list[str]:
    pad = "    " * indent
    out: list[str] = []
    for s in body:
        if isinstance(s, Let):
            out.append(f"{pad}{s.var.ty.c} {s.var.name} = {expr_c(s.value)};")
        elif isinstance(s, Assign):
            out.append(f"{pad}{s.var.name} = {expr_c(s.value)};")
        elif isinstance(s, If):
            out.append(f"{pad}if {expr_c(s.cond)} {{")
            out += stmts_c(s.then, indent + 1)
            if s.els:
                out.append(f"{pad}}} else {{")
                out += stmts_c(s.els, indent + 1)
            out.append(f"{pad}}}")
        elif isinstance(s, Loop):
            n = s.counter.name
            trip = f"{s.bound}({expr_c(s.trip)}, {s.max_trip})"
            if s.kind == "for":
                out.append(f"{pad}for (int {n} = 0; {n} < {trip}; {n}++) {{")
                out += stmts_c(s.body, indent + 1)
                out.append(f"{pad}}}")
            else:
                out.append(f"{pad}int {n} = 0; do {{")
                out += stmts_c(s.body, indent + 1)
                carried = "  /* exit test carried from the iteration before */" if s.carried_exit else ""
                out.append(f"{pad}}} while (++{n} < {trip});{carried}")
        elif isinstance(s, Break):
            out.append(f"{pad}break;" if s.levels == 1 else f"{pad}break {s.levels};")
        elif isinstance(s, Continue):
            out.append(f"{pad}continue;")
        elif isinstance(s, Return):
            out.append(f"{pad}return;")
        elif isinstance(s, Switch):
            out.append(f"{pad}switch ({expr_c(s.sel)} & 7) {{")
            for case in s.cases:
                out.append(f"{pad}case {', '.join(map(str, case.values))}:")
                out += stmts_c(case.body, indent + 1)
                if not case.fallthrough:
                    out.append(f"{pad}    break;")
            out.append(f"{pad}default:")
            out += stmts_c(s.default, indent + 1)
            out.append(f"{pad}}}")
        elif isinstance(s, Store):
            out.append(f"{pad}{s.buffer.name}[{_own_slot(s.buffer, s.slot)}] = {expr_c(s.value)};")
        elif isinstance(s, UniformStore):
            out.append(f"{pad}{s.buffer.name}[{s.index}] = {expr_c(s.value)};")
        elif isinstance(s, Atomic):
            i = s.index if isinstance(s.index, int) else f"wrap({expr_c(s.index)})"
            out.append(f"{pad}atomic_{s.op}(&{s.buffer.name}[{i}], {expr_c(s.value)});")
        elif isinstance(s, PrivStore):
            out.append(f"{pad}{s.array.name}[wrap({expr_c(s.index)})] = {expr_c(s.value)};")
        elif isinstance(s, CallStmt):
            out.append(f"{pad}{expr_c(s.call)};")
        elif isinstance(s, PrivInit):
            src = (f"{s.other.name}" if s.other is not None else
                   f"&{s.source.name}[{addr_c(s.addr)}]" if s.source is not None and s.addr is not None else None)
            out.append(f"{pad}memcpy({s.array.name}, {src}, sizeof {s.array.name});" if src
                       else f"{pad}memset({s.array.name}, 0, sizeof {s.array.name});")
        elif isinstance(s, CopyOut):
            dst = f"&{s.buffer.name}[{_slot(s.buffer)}*K + {s.slot + (1 if s.move else 0)}]"
            if s.move:
                out.append(f"{pad}memmove({dst}, {dst} - 1, {s.count} elements);")
            elif s.array is not None:
                out.append(f"{pad}memcpy({dst}, {s.array.name}, {s.count} elements);")
            elif s.source is not None and s.addr is not None:
                out.append(f"{pad}memcpy({dst}, &{s.source.name}[{addr_c(s.addr)}], {s.count} elements);")
            else:
                out.append(f"{pad}memset({dst}, 0, {s.count} elements);")
        elif isinstance(s, VStore):
            out.append(f"{pad}vstore{s.value.ty.lanes}({expr_c(s.value)}, {s.offset}, "
                       f"&{s.buffer.name}[{_slot(s.buffer)}*K + {s.slot}]);")
        elif isinstance(s, Barrier):
            out.append(f"{pad}{_barrier_c(s)};")
        elif isinstance(s, TreeReduce):
            t = s.tile.name
            out.append(f"{pad}{t}[0] = reduce_{s.form}({s.op}, {t}[0 .. L-1]);  "
                       f"// a round per tree level, {_barrier_c(s.barrier)} after each")
        elif isinstance(s, PrefixScan):
            t = s.tile.name
            out.append(f"{pad}{t}[llin] = inclusive_scan({s.op}, {t}[0 .. llin]);  "
                       f"// Hillis-Steele rounds, {_barrier_c(s.barrier)} twice in each")
        elif isinstance(s, Printf):
            args = "".join(f", {expr_c(a)}" for a in s.args)
            out.append(f"{pad}printf({s.fmt!r}{args});")
        elif isinstance(s, Trap):
            out.append(f"{pad}if {expr_c(s.guard)} __builtin_trap();  // never true")
        elif isinstance(s, Spin):
            n = s.counter.name
            out.append(f"{pad}if {expr_c(s.guard)} for (int {n} = 0;; {n}++) {{  // never true: no exit")
            out += stmts_c(s.body, indent + 1)
            out.append(f"{pad}}}")
        elif isinstance(s, Irreducible):
            n = s.counter.name
            out.append(f"{pad}{{ int {n} = 0, trip = {expr_c(s.trip)} & 7; if {expr_c(s.cond)} goto a; else goto b;")
            out.append(f"{pad}  a:")
            out += stmts_c(s.first, indent + 1)
            out.append(f"{pad}    if (++{n} >= trip) goto out; goto b;")
            out.append(f"{pad}  b:")
            out += stmts_c(s.second, indent + 1)
            out.append(f"{pad}    if (++{n} >= trip) goto out; goto a;")
            out.append(f"{pad}  out:; }}  // a cycle with two entries (irreducible)")
        else:
            out.append(f"{pad}<{type(s).__name__}>")
    return out


def helper_c(h: Helper) -> list[str]:
    params = [f"{p.ty.c} {p.name}" for p in h.params]
    if h.out is not None:
        params.append(f"global {h.out.elem.c} *out, long base")
    if h.counter is not None:
        params.append(f"global {h.counter.elem.c} *counter")
    ret = h.ret.c if h.ret is not None else "void"
    lines = [f"{ret} {h.name}({', '.join(params)}) {{"]
    if h.depth is not None and h.base is not None:
        lines.append(f"    if ({h.depth.name} <= 0) return {expr_c(h.base)};")
    lines += stmts_c(h.body)
    if h.result is not None:
        lines.append(f"    return {expr_c(h.result)};")
    lines.append("}")
    return lines


def plan_c(plan: KernelPlan) -> str:
    """The whole plan as pseudo C."""
    lines = [f"// ndrange: {r.header}" for r in plan.ndranges]
    for h in plan.helpers:
        lines += helper_c(h)
    params = []
    for p in plan.params:
        if isinstance(p, ScalarParam):
            params.append(f"{p.ty.c} {p.name} /* = {p.value!r} */")
        else:
            space = {1: "global", 2: "constant", 3: "local"}[p.addrspace]
            params.append(f"{space} {p.elem.c} *{p.name} /* {p.count} x {p.init} */")
    lines.append(f"kernel void {plan.name}({', '.join(params)}) {{")
    lines.append(f"    long lin = linear_id_{plan.lin_form}();")
    if any(b.is_local for b in plan.buffers):
        lines.append("    long llin = get_local_linear_id();")
    for a in plan.arrays:
        if a.header:
            fields = " ".join(f"{t.c} h{i};" for i, t in enumerate(a.header))
            lines.append(f"    struct {{ {fields} {a.elem.c} a[{a.size}]; }} {a.name}_s;  /* {a.name} = {a.name}_s.a */")
        else:
            lines.append(f"    {a.elem.c} {a.name}[{a.size}];")
    lines += stmts_c(plan.body)
    lines.append("}")
    return "\n".join(lines) + "\n"
