"""Random kernels with sub-group builtins and work-group collectives, for
differential checks of docs/subgroups.md's model. Two generators:

- `SubGroupPlanner`: the main generator's `subgroup` profile (knob
  `subgroup`): the planner (`fuzz.planner.Planner`) calls its `phase`
  between its own top-level statements, as it does the work-group
  planner's; a phase is a few plan statements with collectives (OpenCL C
  builtins, `Builtin` expressions, mangled by `mangle_collective`). Its
  rules are in the class's docstring.
- `subgroup_kernel(seed, dims)`: a standalone text generator (mostly the
  `__mux_*` names of the peer corpus) that gives the text of one kernel
  `sg` that reads `in[g]` (i32 and f32 views of one buffer) and writes
  `out[K * g + k]` for each of its K values, g being the work-item's global
  linear id. The rules below are about this one.

Undefined behaviour is excluded by construction:
- every collective is in sub-group-uniform control flow: at the top level,
  in a loop whose trip count is a sub-group reduction's result, or under an
  `if` on a sub-group vote; work-group collectives only at the top level
  (work-group-uniform);
- lane indices are taken modulo the sub-group size (shuffles) or are 0
  (broadcasts), deltas are small constants (shuffle up/down beyond the
  sub-group give 0 in the model, defined on both sides);
- integer arithmetic wraps (no signed overflow flags, no division);
- float values only flow through collectives that keep bits or fold in the
  model's order (reductions, scans, shuffles, broadcasts), never into
  integer indices.
"""

from __future__ import annotations

import random
import re
from typing import Any

from .plan import (
    F32,
    F64,
    I8,
    I16,
    I32,
    I64,
    Bin,
    Builtin,
    Cast,
    Cmp,
    Const,
    Expr,
    Extract,
    If,
    Let,
    Loop,
    Stmt,
    Ty,
    Var,
    VarRef,
)

_INT_OPS = ["add", "smin", "smax", "umin", "umax", "mul", "and", "or", "xor"]
_OPENCL_INT = {"add": "i", "min": "i", "max": "i"}


class _Gen:
    def __init__(self, seed: int, dims: int) -> None:
        self.r = random.Random(seed)
        self.dims = dims
        self.lines: list[str] = []
        self.decls: dict[str, str] = {}
        self.n = 0
        self.ints: list[str] = []
        self.floats: list[str] = []
        self.outs: list[tuple[str, str]] = []  # (value, type)

    def v(self) -> str:
        self.n += 1
        return f"%v{self.n}"

    def declare(self, name: str, ret: str, params: list[str]) -> str:
        self.decls[name] = f"declare {ret} @{name}({', '.join(params)})"
        return name

    def call(self, ret: str, name: str, args: list[tuple[str, str]]) -> str:
        self.declare(name, ret, [t for t, _ in args])
        out = self.v()
        self.lines.append(f"  {out} = call {ret} @{name}({', '.join(f'{t} {a}' for t, a in args)})")
        return out

    def op(self, text: str) -> str:
        out = self.v()
        self.lines.append(f"  {out} = {text}")
        return out

    def pick_int(self) -> str:
        return self.r.choice(self.ints)

    # ------------------------------------------------------------ collectives

    def sub_group_size(self) -> str:
        return self.call("i32", "__mux_get_sub_group_size", [])

    def int_collective(self) -> str:
        r = self.r
        x = self.pick_int()
        kind = r.choice(["reduce", "scan_inclusive", "scan_exclusive", "shuffle", "shuffle_xor", "shuffle_up",
                         "shuffle_down", "broadcast", "vote", "ballot", "opencl", "local_id"])
        if kind in ("reduce", "scan_inclusive", "scan_exclusive"):
            op = r.choice(_INT_OPS)
            return self.call("i32", f"__mux_sub_group_{kind}_{op}_i32", [("i32", x)])
        if kind == "opencl":
            what = r.choice(["reduce", "scan_inclusive", "scan_exclusive"])
            op = r.choice(["add", "min", "max"])
            code = r.choice(["i", "j"])
            base = f"sub_group_{what}_{op}"
            return self.call("i32", f"_Z{len(base)}{base}{code}", [("i32", x)])
        if kind == "shuffle":
            size = self.sub_group_size()
            idx = self.op(f"urem i32 {self.pick_int()}, {size}")
            return self.call("i32", "__mux_sub_group_shuffle_i32", [("i32", x), ("i32", idx)])
        if kind == "shuffle_xor":
            return self.call("i32", "_Z21sub_group_shuffle_xorij", [("i32", x), ("i32", str(r.choice([1, 2, 3])))])
        if kind == "shuffle_up":
            if r.random() < 0.5:
                return self.call("i32", "_Z20sub_group_shuffle_upij", [("i32", x), ("i32", str(r.randint(0, 3)))])
            return self.call("i32", "__mux_sub_group_shuffle_up_i32",
                             [("i32", self.pick_int()), ("i32", x), ("i32", str(r.randint(0, 3)))])
        if kind == "shuffle_down":
            if r.random() < 0.5:
                return self.call("i32", "_Z22sub_group_shuffle_downij", [("i32", x), ("i32", str(r.randint(0, 3)))])
            return self.call("i32", "__mux_sub_group_shuffle_down_i32",
                             [("i32", x), ("i32", self.pick_int()), ("i32", str(r.randint(0, 3)))])
        if kind == "broadcast":
            return self.call("i32", "_Z19sub_group_broadcastij", [("i32", x), ("i32", "0")])
        if kind == "vote":
            c = self.op(f"icmp sgt i32 {x}, {r.randint(-1000, 1000)}")
            b = self.call("i1", f"__mux_sub_group_{r.choice(['all', 'any'])}_i1", [("i1", c)])
            return self.op(f"zext i1 {b} to i32")
        if kind == "ballot":
            p = self.op(f"and i32 {x}, 1")
            bal = self.call("<4 x i32>", "_Z16sub_group_balloti", [("i32", p)])
            what = r.choice(["bit_count", "inclusive_scan", "exclusive_scan", "find_lsb", "first"])
            if what == "first":
                return self.op(f"extractelement <4 x i32> {bal}, i64 0")
            base = f"sub_group_ballot_{what}"
            return self.call("i32", f"_Z{len(base)}{base}Dv4_j", [("<4 x i32>", bal)])
        return self.call("i32", "__mux_get_sub_group_local_id", [])

    def float_collective(self) -> str:
        r = self.r
        x = r.choice(self.floats)
        kind = r.choice(["reduce", "scan_inclusive", "scan_exclusive", "shuffle_xor", "broadcast"])
        if kind in ("reduce", "scan_inclusive", "scan_exclusive"):
            op = r.choice(["fadd", "fmul", "fmin", "fmax"])
            return self.call("float", f"__mux_sub_group_{kind}_{op}_f32", [("float", x)])
        if kind == "shuffle_xor":
            return self.call("float", "__mux_sub_group_shuffle_xor_f32", [("float", x), ("i32", "1")])
        return self.call("float", "__mux_sub_group_broadcast_f32", [("float", x), ("i32", "0")])

    def work_group(self) -> str:
        r = self.r
        x = self.pick_int()
        kind = r.choice(["reduce", "scan_inclusive", "scan_exclusive", "all", "broadcast"])
        if kind in ("reduce", "scan_inclusive", "scan_exclusive"):
            op = r.choice(["add", "smin", "umax", "xor"])
            return self.call("i32", f"__mux_work_group_{kind}_{op}_i32", [("i32", "0"), ("i32", x)])
        if kind == "all":
            c = self.op(f"icmp ne i32 {x}, 0")
            b = self.call("i1", "__mux_work_group_all_i1", [("i32", "0"), ("i1", c)])
            return self.op(f"zext i1 {b} to i32")
        return self.call("i32", "__mux_work_group_broadcast_i32",
                         [("i32", "0"), ("i32", x), ("i64", "1"), ("i64", "0"), ("i64", "0")])

    def work_group_float(self) -> str:
        kind = self.r.choice(["reduce", "scan_inclusive", "scan_exclusive"])
        op = self.r.choice(["fadd", "fmin", "fmax"])
        return self.call("float", f"__mux_work_group_{kind}_{op}_f32", [("i32", "0"), ("float", self.r.choice(self.floats))])

    # ------------------------------------------------------------ statements

    def arith(self) -> str:
        a, b = self.pick_int(), self.pick_int()
        return self.op(f"{self.r.choice(['add', 'xor', 'mul', 'sub'])} i32 {a}, {b}")

    def statement(self, depth: int) -> None:
        r = self.r
        roll = r.random()
        if roll < 0.45:
            self.ints.append(self.int_collective())
        elif roll < 0.6:
            self.floats.append(self.float_collective())
            self.outs.append((self.floats[-1], "float"))
            return
        elif roll < 0.67 and depth == 0:
            self.ints.append(self.work_group())
        elif roll < 0.72 and depth == 0:
            self.floats.append(self.work_group_float())
            self.outs.append((self.floats[-1], "float"))
            return
        elif roll < 0.86 and depth < 2:
            self.uniform_loop(depth)
            return
        elif roll < 0.95 and depth < 2:
            self.uniform_if(depth)
            return
        else:
            self.ints.append(self.arith())
        self.outs.append((self.ints[-1], "i32"))

    def uniform_loop(self, depth: int) -> None:
        """for (i = 0; i < (sub_group_reduce_umax(x) & 3); i++) acc = f(acc, collective)."""
        n = self.n = self.n + 1
        bound = self.call("i32", "__mux_sub_group_reduce_umax_i32", [("i32", self.pick_int())])
        trips = self.op(f"and i32 {bound}, 3")
        pre = f"pre{n}"
        self.lines += [f"  br label %{pre}", f"{pre}:", f"  br label %head{n}", f"head{n}:",
                       f"  %i{n} = phi i32 [ 0, %{pre} ], [ %i{n}.next, %latch{n} ]",
                       f"  %acc{n} = phi i32 [ 0, %{pre} ], [ %acc{n}.next, %latch{n} ]",
                       f"  %go{n} = icmp ult i32 %i{n}, {trips}",
                       f"  br i1 %go{n}, label %body{n}, label %exit{n}", f"body{n}:"]
        saved = list(self.ints)
        self.ints.append(f"%i{n}")
        self.ints.append(f"%acc{n}")
        x = self.int_collective()
        nxt = self.op(f"add i32 %acc{n}, {x}")
        self.lines.append(f"  br label %latch{n}")
        self.lines += [f"latch{n}:", f"  %acc{n}.next = add i32 {nxt}, 0", f"  %i{n}.next = add i32 %i{n}, 1",
                       f"  br label %head{n}", f"exit{n}:"]
        self.ints = saved + [f"%acc{n}"]
        self.outs.append((f"%acc{n}", "i32"))

    def uniform_if(self, depth: int) -> None:
        """if (sub_group_any(x > c)) y = collective else y = arith."""
        n = self.n = self.n + 1
        c = self.op(f"icmp sgt i32 {self.pick_int()}, {self.r.randint(-100, 100)}")
        any_ = self.call("i1", "__mux_sub_group_any_i1", [("i1", c)])
        self.lines += [f"  br i1 {any_}, label %then{n}, label %else{n}", f"then{n}:"]
        saved = list(self.ints)
        a = self.int_collective()
        self.lines += [f"  br label %join{n}", f"else{n}:"]
        b = self.arith()
        self.lines += [f"  br label %join{n}", f"join{n}:",
                       f"  %y{n} = phi i32 [ {a}, %then{n} ], [ {b}, %else{n} ]"]
        self.ints = saved + [f"%y{n}"]
        self.outs.append((f"%y{n}", "i32"))

    # ------------------------------------------------------------ kernel

    def kernel(self, statements: int) -> str:
        gid = "__mux_get_global_id"
        gsz = "__mux_get_global_size"
        self.declare(gid, "i64", ["i32"])
        self.declare(gsz, "i64", ["i32"])
        ids = [f"%gid{d}" for d in range(3)]
        head = [f"  %gid{d} = call i64 @{gid}(i32 {d})" for d in range(3)]
        head += [f"  %gsz{d} = call i64 @{gsz}(i32 {d})" for d in range(3)]
        head += ["  %lin.a = mul i64 %gid2, %gsz1", "  %lin.b = add i64 %lin.a, %gid1",
                 "  %lin.c = mul i64 %lin.b, %gsz0", "  %g = add i64 %lin.c, %gid0",
                 "  %pin = getelementptr i32, ptr addrspace(1) %in, i64 %g",
                 "  %x0 = load i32, ptr addrspace(1) %pin, align 4",
                 "  %f0 = load float, ptr addrspace(1) %pin, align 4",
                 "  %x1 = trunc i64 %g to i32"]
        del ids
        self.ints = ["%x0", "%x1"]
        self.floats = ["%f0"]
        for _ in range(statements):
            self.statement(0)
        k = max(1, len(self.outs))
        tail = []
        for j, (val, ty) in enumerate(self.outs):
            tail += [f"  %o{j}.i = mul i64 %g, {k}", f"  %o{j}.j = add i64 %o{j}.i, {j}",
                     f"  %o{j}.p = getelementptr i32, ptr addrspace(1) %out, i64 %o{j}.j",
                     f"  store {ty} {val}, ptr addrspace(1) %o{j}.p, align 4"]
        body = "\n".join(head + self.lines + tail)
        return (
            'target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"\n'
            + "\n".join(sorted(self.decls.values()))
            + "\n\ndefine spir_kernel void @sg(ptr addrspace(1) %out, ptr addrspace(1) %in) {\nentry:\n"
            + body + "\n  ret void\n}\n"
        )


def subgroup_kernel(seed: int, dims: int = 1, statements: int = 6) -> str:
    """The IR text of kernel `sg` drawn from `seed` (see the module doc)."""
    return _Gen(seed, dims).kernel(statements)


# ---------------------------------------------------------------------------
# The generator's `subgroup` profile

SUB_GROUP_QUERIES = ("get_sub_group_size", "get_max_sub_group_size", "get_num_sub_groups",
                     "get_sub_group_id", "get_sub_group_local_id")
_SCANS = ("reduce", "scan_inclusive", "scan_exclusive")
BALLOT_OPS = ("sub_group_ballot_bit_count", "sub_group_ballot_inclusive_scan",
              "sub_group_ballot_exclusive_scan", "sub_group_ballot_find_lsb", "sub_group_ballot_find_msb")
# The forms reading one bit of a ballot: the bit a (varying) index names,
# or each member's own bit.
BALLOT_BIT_READS = ("sub_group_ballot_bit_extract", "sub_group_inverse_ballot")
MAX_SG_NEST = 2  # uniform loops and ifs around collectives


def is_collective_builtin(name: str) -> bool:
    """Is `name` (a `Builtin`'s) one of this profile's collectives or queries?"""
    return name.startswith(("sub_group_", "work_group_")) or name in SUB_GROUP_QUERIES


def _code(ty: Ty, signed: bool) -> str:
    return {"i8": "ch", "i16": "st", "i32": "ij", "i64": "lm", "f32": "ff", "f64": "dd"}[ty.elem][0 if signed else 1]


def mangle_collective(name: str, params: list[Ty], signed: bool, mux: bool = False) -> str:
    """The callee of collective `name` over `params`: the SPIR mangled OpenCL
    name (lane ids and deltas `uint`, local ids `size_t`, a ballot `uint4`),
    or, with `mux` and for sub-group reductions and scans, the `__mux_` name."""
    if not params:
        return f"_Z{len(name)}{name}v"
    m = re.fullmatch(r"sub_group_(reduce|scan_inclusive|scan_exclusive)_(add|min|max)", name)
    if mux and m:
        ty = params[0]
        fl = ty.is_float
        op = m.group(2)
        op = ("f" + op) if fl else (op if op == "add" else ("s" if signed else "u") + op)
        return f"__mux_sub_group_{m.group(1)}_{op}_{ty.elem}"
    if name in BALLOT_OPS or name in BALLOT_BIT_READS:
        # The ballot is a `uint4`; bit_extract's index a `uint`.
        return f"_Z{len(name)}{name}Dv4_j" + "j" * (len(params) - 1)
    codes = [_code(params[0], signed)]
    rest = params[1:]
    if name.startswith("work_group_broadcast"):
        codes += ["m"] * len(rest)
    else:
        codes += ["j"] * len(rest)
    return f"_Z{len(name)}{name}{''.join(codes)}"


class SubGroupPlanner:
    """Draws the sub-group phases of one kernel, with the planner's choices.

    Undefined behaviour is excluded by construction:
    - sub-group collectives are only in sub-group-uniform control flow: the
      kernel's top level (the profile draws no early return), and the
      bodies of this planner's own loops and ifs, whose trip counts and
      conditions are sub-group reductions and votes; never inside the
      planner's own statements, which cannot leave those loops (they are
      not on the planner's loop stack);
    - in divergent code (this planner's divergent ifs and loops, on varying
      conditions and trip counts) only the forms the model defines there,
      over the work-items active at the call: the non-uniform reductions,
      scans, votes, broadcasts and clustered reductions, `sub_group_elect`
      and `sub_group_ballot` elements (docs/subgroups.md); no uniform
      collective;
    - work-group collectives only at the kernel's top level;
    - lane indices out of a sub-group, which OpenCL leaves undefined, are
      defined as zero by the model (docs/subgroups.md) on both sides, so
      any index is drawn, though mostly small constants;
    - float values only meet collectives that move them or fold them in the
      model's order (bit-exact on both sides).
    """

    def __init__(self, planner: Any) -> None:
        self.p = planner
        self.drawn = 0  # collectives drawn
        self._nest = 0

    def _types(self) -> list[Ty]:
        ok = (I32, I64, F32, F64)
        return [t for t in self.p.palette if t in ok] or [I32]

    def _value(self, ty: Ty) -> Expr:
        return self.p.expr(ty, self.p.k.expr_depth, "any")

    def _bind(self, out: list[Stmt], value: Expr, observe: bool = True) -> Var:
        p = self.p
        v = p._var(value.ty, varying=True)
        out.append(Let(v, value))
        p.scopes[-1].append(v)
        if observe:
            out.append(p._observe(v))
        return v

    # ------------------------------------------------------------------
    # Collectives

    def sub_group(self) -> Expr:
        """One sub-group collective or query (an i32, i64, f32 or f64 value)."""
        c = self.p.c
        self.drawn += 1
        ty = c.choice(self._types())
        kind = c.weighted([
            (4.0, "scan"), (1.0, "broadcast"), (2.0, "shuffle"), (1.5, "vote"),
            (1.5 if not ty.is_float else 0.0, "ballot"), (1.0, "query"), (3.0, "non_uniform"),
            (3.0, "ballot_bit"),
        ])
        signed = c.boolean(0.5)
        if kind == "non_uniform":
            return self._non_uniform(ty, signed)
        if kind == "ballot_bit":
            return self._ballot_bit()
        if kind == "scan":
            ty = self._narrow(ty)
            name = f"sub_group_{c.choice(_SCANS)}_{c.choice(('add', 'min', 'max'))}"
            return Builtin(name, (self._value(ty),), ty, signed=signed)
        if kind == "broadcast":
            idx = Const(I32, c.weighted([(4.0, 0), (1.0, 1), (1.0, 3)]))
            return Builtin("sub_group_broadcast", (self._value(ty), idx), ty, signed=signed)
        if kind == "shuffle":
            form = c.choice(("shuffle", "shuffle_xor", "shuffle_up", "shuffle_down"))
            if form == "shuffle":
                idx: Expr = self._value(I32) if c.boolean(0.3) else Builtin(
                    "get_sub_group_local_id", (), I32, signed=False)
                if isinstance(idx, Builtin) and c.boolean(0.7):
                    idx = Bin(c.choice(("xor", "add")), idx, Const(I32, c.integer(1, 3)))
            else:
                idx = Const(I32, c.integer(0, 3) if form != "shuffle_xor" else c.integer(1, 3))
            return Builtin(f"sub_group_{form}", (self._value(ty), idx), ty, signed=signed)
        if kind == "vote":
            return Builtin(f"sub_group_{c.choice(('all', 'any'))}", (self._pred(),), I32)
        if kind == "ballot":
            bal = Builtin("sub_group_ballot", (self._pred(),), Ty("i32", 4))
            if c.boolean(0.3):
                return Extract(bal, 0)
            return Builtin(c.choice(BALLOT_OPS), (bal,), I32, signed=False)
        return Builtin(c.choice(SUB_GROUP_QUERIES), (), I32, signed=False)

    def _narrow(self, ty: Ty) -> Ty:
        """Sometimes `uchar`/`char`/`ushort`/`short` instead of an integer
        `ty` (reductions and scans): random narrow values are negative as
        signed half the time, so min and max by the mangled signedness
        (`h`/`t` unsigned, `c`/`s` signed) differ from the other reading."""
        if ty.is_float or not self.p.c.boolean(0.3):
            return ty
        return self.p.c.choice((I8, I16))

    def _ballot_bit(self) -> Expr:
        """One bit of a ballot of a varying predicate: the member's own bit
        (`sub_group_inverse_ballot`) or the bit of a lane index, mostly
        varying and sometimes past the sub-group, where the model reads 0
        (`sub_group_ballot_bit_extract`). The ballot is sub-group-uniform,
        as inverse_ballot requires; its bits differ, so reading the wrong
        one shows."""
        c = self.p.c
        lid = Builtin("get_sub_group_local_id", (), I32, signed=False)
        # A bit of a value mixed with the lane id, so the ballot's bits differ
        # even where the value is uniform (`_pred`'s comparisons rarely do).
        mixed = Bin(c.choice(("xor", "add")), self._value(I32), lid)
        pred = Bin("and", mixed, Const(I32, c.choice((1, 2, 4, 8))))
        bal = Builtin("sub_group_ballot", (pred,), Ty("i32", 4))
        if c.boolean(0.4):
            return Builtin("sub_group_inverse_ballot", (bal,), I32, signed=False)
        form = c.weighted([(3.0, "near"), (2.0, "value"), (1.0, "const"), (1.0, "own")])
        idx: Expr = lid
        if form == "near":
            idx = Bin(c.choice(("xor", "add", "sub")), lid, Const(I32, c.integer(1, 3)))
        elif form == "value":
            idx = Bin("and", self._value(I32), Const(I32, c.choice((3, 7, 15, 31))))
        elif form == "const":
            idx = Const(I32, c.integer(1, 5))
        return Builtin("sub_group_ballot_bit_extract", (bal, idx), I32, signed=False)

    def _non_uniform(self, ty: Ty, signed: bool) -> Expr:
        """A non-uniform or clustered form (cl_khr_subgroup_non_uniform_*,
        clustered_reduce): in the sub-group-uniform control flow this planner
        draws, every member is active at the call."""
        c = self.p.c
        ops = ("add", "mul", "min", "max") + (() if ty.is_float else ("and", "or", "xor"))
        form = c.weighted([(3.0, "scan"), (2.0, "clustered"), (1.0, "elect"), (1.0, "vote"),
                           (1.0, "all_equal"), (1.0, "broadcast"), (0.5, "first")])
        if form == "scan":
            ty = self._narrow(ty)
            name = f"sub_group_non_uniform_{c.choice(_SCANS)}_{c.choice(ops)}"
            return Builtin(name, (self._value(ty),), ty, signed=signed)
        if form == "clustered":
            ty = self._narrow(ty)
            size = Const(I32, c.choice((1, 2, 4, 8, 16)))
            return Builtin(f"sub_group_clustered_reduce_{c.choice(ops)}", (self._value(ty), size), ty, signed=signed)
        if form == "elect":
            return Builtin("sub_group_elect", (), I32)
        if form == "vote":
            return Builtin(f"sub_group_non_uniform_{c.choice(('all', 'any'))}", (self._pred(),), I32)
        if form == "all_equal":
            return Builtin("sub_group_non_uniform_all_equal", (self._value(ty),), I32, signed=signed)
        if form == "broadcast":
            idx = Const(I32, c.weighted([(3.0, 0), (1.0, 1), (1.0, 2)]))
            return Builtin("sub_group_non_uniform_broadcast", (self._value(ty), idx), ty, signed=signed)
        return Builtin("sub_group_broadcast_first", (self._value(ty),), ty, signed=signed)

    def _pred(self) -> Expr:
        """An int predicate (non-zero: true): a value, or a comparison's 0/1."""
        c = self.p.c
        if c.boolean(0.5):
            return Cast("zext", Cmp(c.choice(("sgt", "ult", "eq")), self._value(I32),
                                    Const(I32, c.integer(-50, 50))), I32)
        return self._value(I32)

    def work_group(self) -> Expr:
        c = self.p.c
        self.drawn += 1
        ty = c.choice(self._types())
        kind = c.weighted([(4.0, "scan"), (1.0, "vote"), (1.0, "broadcast")])
        if kind == "scan":
            name = f"work_group_{c.choice(_SCANS)}_{c.choice(('add', 'min', 'max'))}"
            return Builtin(name, (self._value(ty),), ty, signed=c.boolean(0.5))
        if kind == "vote":
            return Builtin(f"work_group_{c.choice(('all', 'any'))}", (self._pred(),), I32)
        ids = tuple(Const(I64, c.weighted([(3.0, 0), (1.0, 1)])) for _ in range(c.integer(1, self.p.dims)))
        return Builtin("work_group_broadcast", (self._value(ty), *ids), ty, signed=c.boolean(0.5))

    # ------------------------------------------------------------------
    # Phases

    def phase(self, depth: int = 0) -> list[Stmt]:
        """A few statements at a point every member of the sub-group reaches
        together (the kernel's top level, or a phase's own body)."""
        c, p = self.p.c, self.p
        p.budget -= 2
        nest_ok = self._nest < MAX_SG_NEST and p.budget > 1
        top = self._nest == 0
        kind = c.weighted([
            (5.0, "let"), (2.0 if top else 0.0, "work_group"),
            (1.5 if nest_ok else 0.0, "loop"), (1.5 if nest_ok else 0.0, "if"),
            (5.0 if nest_ok else 0.0, "divergent"), (2.5, "ballot_bit"),
        ])
        out: list[Stmt] = []
        if kind == "divergent":
            out.append(self._divergent(depth))
        elif kind == "ballot_bit":
            self.drawn += 1
            self._bind(out, self._ballot_bit())
        elif kind == "let":
            for _ in range(c.integer(1, 3)):
                self._bind(out, self.sub_group())
        elif kind == "work_group":
            self._bind(out, self.work_group())
        elif kind == "loop":
            out.append(self._loop(depth))
        else:
            out.append(self._if(depth))
        if top and kind != "ballot_bit" and c.boolean(0.3):
            # Often one more single-bit read at the top level, where packets
            # are fullest: a wrong bit index only shows in a full packet.
            self.drawn += 1
            self._bind(out, self._ballot_bit())
        return out

    def _uniform_i32(self) -> Expr:
        """An i32 the same for every member of a sub-group: a reduction, a
        vote, a broadcast or a ballot's bit count."""
        c = self.p.c
        self.drawn += 1
        kind = c.choice(("reduce", "vote", "broadcast", "ballot"))
        if kind == "reduce":
            op = c.choice(("add", "min", "max"))
            return Builtin(f"sub_group_reduce_{op}", (self._value(I32),), I32, signed=c.boolean(0.5))
        if kind == "vote":
            return Builtin(f"sub_group_{c.choice(('all', 'any'))}", (self._pred(),), I32)
        if kind == "broadcast":
            return Builtin("sub_group_broadcast", (self._value(I32), Const(I32, 0)), I32)
        bal = Builtin("sub_group_ballot", (self._pred(),), Ty("i32", 4))
        return Builtin("sub_group_ballot_bit_count", (bal,), I32, signed=False)

    def _loop(self, depth: int) -> Stmt:
        """A loop every member of a sub-group runs as often, holding collectives."""
        c, p = self.p.c, self.p
        max_trip = c.integer(1, 3)
        counter = p._var(I32)
        p.counters[counter.id] = max_trip
        trip = self._uniform_i32()
        saved_loops, saved_iter = p.loops, p.iterations
        p.loops = []  # the planner's statements may not leave this loop
        p.iterations = saved_iter * max_trip
        p.scopes.append([counter])
        body = self._body(depth + 1)
        p.scopes.pop()
        p.loops, p.iterations = saved_loops, saved_iter
        return Loop(counter, c.choice(("for", "do")), trip, c.choice(("umin", "urem")), max_trip, body)

    def _if(self, depth: int) -> Stmt:
        c, p = self.p.c, self.p
        cond = Cmp(c.choice(("ne", "eq", "sgt")), self._uniform_i32(), Const(I32, c.integer(0, 2)))
        p.scopes.append([])
        then = self._body(depth + 1)
        p.scopes.pop()
        els: list[Stmt] = []
        if c.boolean(0.4) and p.budget > 0:
            p.scopes.append([])
            els = self._body(depth + 1)
            p.scopes.pop()
        return If(cond, then, els)

    # ------------------------------------------------------------------
    # Divergent code: the non-uniform forms, whose members are the
    # work-items active at the call (docs/subgroups.md)

    def _active_form(self) -> Expr:
        """A form the model defines in divergent code: a non-uniform
        reduction, scan, vote, all_equal, broadcast, broadcast_first,
        clustered reduction (a constant cluster size), sub_group_elect, or
        an element of sub_group_ballot."""
        c = self.p.c
        self.drawn += 1
        ty = c.choice(self._types())
        signed = c.boolean(0.5)
        ops = ("add", "mul", "min", "max") + (() if ty.is_float else ("and", "or", "xor"))
        form = c.weighted([(4.0, "scan"), (1.0, "clustered"), (1.0, "elect"), (1.0, "vote"), (1.0, "all_equal"),
                           (1.0, "broadcast"), (1.0, "first"), (1.0, "ballot")])
        if form == "scan":
            name = f"sub_group_non_uniform_{c.choice(_SCANS)}_{c.choice(ops)}"
            return Builtin(name, (self._value(ty),), ty, signed=signed)
        if form == "clustered":
            size = Const(I32, c.choice((1, 2, 3, 4, 8, 16)))
            return Builtin(f"sub_group_clustered_reduce_{c.choice(ops)}", (self._value(ty), size), ty, signed=signed)
        if form == "elect":
            return Builtin("sub_group_elect", (), I32)
        if form == "vote":
            return Builtin(f"sub_group_non_uniform_{c.choice(('all', 'any'))}", (self._pred(),), I32)
        if form == "all_equal":
            return Builtin("sub_group_non_uniform_all_equal", (self._value(ty),), I32, signed=signed)
        if form == "broadcast":
            idx = Const(I32, c.weighted([(2.0, 0), (2.0, 1), (1.0, 2), (1.0, 5)]))
            return Builtin("sub_group_non_uniform_broadcast", (self._value(ty), idx), ty, signed=signed)
        if form == "ballot":
            return Extract(Builtin("sub_group_ballot", (self._pred(),), Ty("i32", 4)), c.integer(0, 1))
        return Builtin("sub_group_broadcast_first", (self._value(ty),), ty, signed=signed)

    def _divergent(self, depth: int) -> Stmt:
        """A divergent `if` (a varying condition) or loop (a varying trip
        count) holding non-uniform forms."""
        c, p = self.p.c, self.p
        p.divergent += 1
        if c.boolean(0.5):
            stmt: Stmt = self._divergent_if(depth, None)
        else:
            max_trip = c.integer(1, 4)
            counter = p._var(I32)
            p.counters[counter.id] = max_trip
            trip = self._value(I32)
            saved_loops, saved_iter = p.loops, p.iterations
            p.loops = []  # the planner's statements may not leave this loop
            p.iterations = saved_iter * max_trip
            p.scopes.append([counter])
            body = self._divergent_body(depth + 1, counter)
            p.scopes.pop()
            p.loops, p.iterations = saved_loops, saved_iter
            stmt = Loop(counter, c.choice(("for", "do")), trip, c.choice(("umin", "urem")), max_trip, body)
        p.divergent -= 1
        return stmt

    def _divergent_if(self, depth: int, counter: Var | None) -> Stmt:
        """An `if` on a varying condition; in a divergent loop often on the
        loop's counter too, so that a work-item skips the call in one
        iteration and reaches it in another."""
        c, p = self.p.c, self.p
        v = self._value(I32)
        if counter is not None and c.boolean(0.6):
            v = Bin("and", Bin("add", v, VarRef(counter)), Const(I32, c.choice((1, 3))))
        cond = Cmp(c.choice(("ne", "eq", "sgt")), v, Const(I32, c.integer(0, 2)))
        p.scopes.append([])
        then = self._divergent_body(depth + 1, counter)
        p.scopes.pop()
        els: list[Stmt] = []
        if c.boolean(0.4) and p.budget > 0:
            p.scopes.append([])
            els = self._divergent_body(depth + 1, counter)
            p.scopes.pop()
        return If(cond, then, els)

    def _divergent_body(self, depth: int, counter: Var | None) -> list[Stmt]:
        """Non-uniform forms, nested divergent ifs and the planner's own
        statements (never a uniform collective: some members are inactive)."""
        c, p = self.p.c, self.p
        self._nest += 1
        out: list[Stmt] = []
        for _ in range(c.integer(1, 3)):
            if p.budget <= 0 and out:
                break
            p.budget -= 1
            nest_ok = self._nest < MAX_SG_NEST + 1 and p.budget > 1
            kind = c.weighted([(3.0, "let"), (1.5 if nest_ok else 0.0, "if"), (1.0 if out else 0.0, "stmt")])
            if kind == "let":
                for _ in range(c.integer(1, 2)):
                    self._bind(out, self._active_form())
            elif kind == "if":
                out.append(self._divergent_if(depth, counter))
            else:
                out.append(p.stmt(depth))
        self._nest -= 1
        return out

    def _body(self, depth: int) -> list[Stmt]:
        """Phases and the planner's statements, at least one phase. The
        planner's statements count as divergent here (sub-group-uniform is
        not work-group-uniform)."""
        c, p = self.p.c, self.p
        self._nest += 1
        out: list[Stmt] = []
        for _ in range(c.integer(1, 3)):
            if p.budget <= 0 and out:
                break
            if not out or c.boolean(0.5):
                out.extend(self.phase(depth))
            else:
                p.divergent += 1
                out.append(p.stmt(depth))
                p.divergent -= 1
        self._nest -= 1
        return out
