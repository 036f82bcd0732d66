"""A small typed builder of straight-line LLVM IR, the library's source language.

Library bodies are Python functions over `Val`s: `r = b.fma(-k, LN2, x)`,
`b.select(x.olt(0.0), a, c)`. A `Val`'s type may be a scalar or a vector,
and every operation is element-wise, so one Python body yields the scalar
overload and, with the same operations lane by lane, every vector overload:
results are bit-identical across widths by construction. Python numbers in
an operation become constants of the other operand's type (splatted for
vectors). Bodies are branch-free (selects) and table-free, so that once
inlined into a kernel the vectorizer widens them like any other code.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass

_FP_BITS = {"half": 16, "float": 32, "double": 64}
_INT_BITS = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "i128": 128}


@dataclass(frozen=True)
class Ty:
    """An LLVM scalar or vector type: element (`float`, `i32`, `ptr`...) and lanes (0 = scalar)."""

    elem: str
    lanes: int = 0

    def __str__(self) -> str:
        return f"<{self.lanes} x {self.elem}>" if self.lanes else self.elem

    @property
    def is_fp(self) -> bool:
        return self.elem in _FP_BITS

    @property
    def bits(self) -> int:
        return _FP_BITS.get(self.elem) or _INT_BITS[self.elem]

    def like(self, elem: str) -> Ty:
        """The type with this one's lanes and element `elem`."""
        return Ty(elem, self.lanes)

    @property
    def scalar(self) -> Ty:
        return Ty(self.elem)

    @property
    def suffix(self) -> str:
        """The overloaded-intrinsic suffix: f32, v4f32, i64, v8i16."""
        e = {"half": "f16", "float": "f32", "double": "f64"}.get(self.elem, self.elem)
        if self.elem.startswith("ptr"):
            e = "p" + (self.elem.split("(")[1].rstrip(")") if "(" in self.elem else "0")
        return f"v{self.lanes}{e}" if self.lanes else e


def int_ty(bits: int, like: Ty) -> Ty:
    return like.like(f"i{bits}")


def fp_ty(bits: int, like: Ty) -> Ty:
    return like.like({16: "half", 32: "float", 64: "double"}[bits])


def fp_literal(value: float, elem: str) -> str:
    """An exactly representable constant of `elem` in LLVM's hex form."""
    if elem == "half":
        bits = struct.unpack("<H", struct.pack("<e", value))[0]
        if struct.unpack("<e", struct.pack("<H", bits))[0] != value and value == value:
            raise ValueError(f"{value!r} is not a half")
        return f"0xH{bits:04X}"
    if elem == "float":
        f = struct.unpack("<f", struct.pack("<f", value))[0]
        if f != value and value == value:
            raise ValueError(f"{value!r} is not a float")
        value = f
    return f"0x{struct.unpack('<Q', struct.pack('<d', value))[0]:016X}"


def int_literal(value: int, bits: int) -> str:
    if bits == 1:
        return "true" if value & 1 else "false"
    value &= (1 << bits) - 1
    if value >= 1 << (bits - 1):
        value -= 1 << bits
    return str(value)


class Val:
    """An SSA value (or constant) of type `ty` in builder `b`."""

    __slots__ = ("b", "ty", "ref")

    def __init__(self, b: Builder, ty: Ty, ref: str) -> None:
        self.b, self.ty, self.ref = b, ty, ref

    def __str__(self) -> str:
        return f"{self.ty} {self.ref}"

    # Arithmetic: IEEE operations for floating point, wrapping for integers.
    def _bin(self, op_fp: str, op_int: str, other, swap: bool = False) -> Val:
        o = self.b.coerce(other, self.ty)
        a, c = (o, self) if swap else (self, o)
        return self.b.op(f"{op_fp if self.ty.is_fp else op_int} {self.ty} {a.ref}, {c.ref}", self.ty)

    def __add__(self, o) -> Val:
        return self._bin("fadd", "add", o)

    def __radd__(self, o) -> Val:
        return self._bin("fadd", "add", o, True)

    def __sub__(self, o) -> Val:
        return self._bin("fsub", "sub", o)

    def __rsub__(self, o) -> Val:
        return self._bin("fsub", "sub", o, True)

    def __mul__(self, o) -> Val:
        return self._bin("fmul", "mul", o)

    def __rmul__(self, o) -> Val:
        return self._bin("fmul", "mul", o, True)

    def __truediv__(self, o) -> Val:
        assert self.ty.is_fp
        return self._bin("fdiv", "", o)

    def __rtruediv__(self, o) -> Val:
        return self._bin("fdiv", "", o, True)

    def __neg__(self) -> Val:
        if self.ty.is_fp:
            return self.b.op(f"fneg {self.ty} {self.ref}", self.ty)
        return 0 - self

    def __and__(self, o) -> Val:
        return self._bin("", "and", o)

    def __rand__(self, o) -> Val:
        return self._bin("", "and", o, True)

    def __or__(self, o) -> Val:
        return self._bin("", "or", o)

    def __ror__(self, o) -> Val:
        return self._bin("", "or", o, True)

    def __xor__(self, o) -> Val:
        return self._bin("", "xor", o)

    def __rxor__(self, o) -> Val:
        return self._bin("", "xor", o, True)

    def __invert__(self) -> Val:
        return self ^ -1

    def __lshift__(self, o) -> Val:
        return self._bin("", "shl", o)

    def lshr(self, o) -> Val:
        return self._bin("", "lshr", o)

    def ashr(self, o) -> Val:
        return self._bin("", "ashr", o)

    def sdiv(self, o) -> Val:
        return self._bin("", "sdiv", o)

    def udiv(self, o) -> Val:
        return self._bin("", "udiv", o)

    def srem(self, o) -> Val:
        return self._bin("", "srem", o)

    def urem(self, o) -> Val:
        return self._bin("", "urem", o)

    def frem(self, o) -> Val:
        return self._bin("frem", "", o)

    # Comparisons: i1 (or vectors of i1).
    def cmp(self, pred: str, o) -> Val:
        o = self.b.coerce(o, self.ty)
        kind = "fcmp" if self.ty.is_fp else "icmp"
        return self.b.op(f"{kind} {pred} {self.ty} {self.ref}, {o.ref}", self.ty.like("i1"))

    def __getattr__(self, name: str) -> Callable[[object], Val]:
        # x.olt(y), x.ueq(y), x.slt(y), x.ult(y), ... as comparisons.
        if name in _PREDICATES:
            return lambda o: self.cmp(name, o)
        raise AttributeError(name)


_PREDICATES = frozenset(
    "oeq one olt ole ogt oge ord uno ueq une ult ule ugt uge eq ne slt sle sgt sge ult ule ugt uge".split()
)


class Builder:
    """Collects the instructions of one function body and the declarations it needs."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.decls: dict[str, str] = {}
        self._n = 0

    # -- values -------------------------------------------------------------
    def fresh(self) -> str:
        self._n += 1
        return f"%t{self._n}"

    def op(self, text: str, ty: Ty) -> Val:
        name = self.fresh()
        self.lines.append(f"  {name} = {text}")
        return Val(self, ty, name)

    def const(self, value: float | int | bool, ty: Ty) -> Val:
        """A constant of type `ty` (splatted over a vector)."""
        if ty.is_fp:
            lit = fp_literal(float(value), ty.elem)
        else:
            lit = int_literal(int(value), ty.bits)
        if ty.lanes:
            return Val(self, ty, f"splat ({ty.elem} {lit})")
        return Val(self, ty, lit)

    def vector_const(self, values: Sequence[float | int], ty: Ty) -> Val:
        """A constant vector with one value per lane."""
        lits = [fp_literal(float(v), ty.elem) if ty.is_fp else int_literal(int(v), ty.bits) for v in values]
        return Val(self, ty, "<" + ", ".join(f"{ty.elem} {x}" for x in lits) + ">")

    def coerce(self, v, ty: Ty) -> Val:
        if isinstance(v, Val):
            if v.ty != ty:
                raise TypeError(f"type mismatch: {v.ty} vs {ty}")
            return v
        return self.const(v, ty)

    def poison(self, ty: Ty) -> Val:
        return Val(self, ty, "poison")

    # -- operations -----------------------------------------------------------
    def select(self, cond: Val, a, c) -> Val:
        ty = a.ty if isinstance(a, Val) else c.ty
        a, c = self.coerce(a, ty), self.coerce(c, ty)
        if cond.ty.lanes == 0 and ty.lanes:
            pass  # a scalar condition selects whole vectors: valid IR
        return self.op(f"select {cond}, {a}, {c}", ty)

    def cast(self, opcode: str, v: Val, ty: Ty) -> Val:
        if opcode == "bitcast" and v.ty == ty:
            return v
        return self.op(f"{opcode} {v} to {ty}", ty)

    def bitcast(self, v: Val, ty: Ty) -> Val:
        return self.cast("bitcast", v, ty)

    def as_int(self, v: Val) -> Val:
        """The bits of a floating-point value as an integer of the same size."""
        return self.bitcast(v, v.ty.like(f"i{v.ty.bits}"))

    def as_fp(self, v: Val, elem: str) -> Val:
        return self.bitcast(v, v.ty.like(elem))

    def resize_int(self, v: Val, bits: int, signed: bool) -> Val:
        """Integer `v` truncated or extended (sign or zero) to `bits`."""
        if v.ty.bits == bits:
            return v
        if v.ty.bits > bits:
            return self.cast("trunc", v, v.ty.like(f"i{bits}"))
        return self.cast("sext" if signed else "zext", v, v.ty.like(f"i{bits}"))

    def fp_resize(self, v: Val, elem: str) -> Val:
        """Floating-point `v` extended (exactly) or rounded to nearest `elem`, once."""
        if v.ty.elem == elem:
            return v
        if _FP_BITS[elem] > v.ty.bits:
            return self.cast("fpext", v, v.ty.like(elem))
        if v.ty.elem == "double" and elem == "half":
            # Through float rounded to odd: one correct rounding, and no call to
            # __truncdfhf2, which a host without native double->half lacks.
            return self.cast("fptrunc", self.round_to_odd_float(v), v.ty.like("half"))
        return self.cast("fptrunc", v, v.ty.like(elem))

    def round_to_odd_float(self, x: Val) -> Val:
        """double -> float rounded to odd: toward zero, then the last bit set if inexact.
        Rounding that to nearest in a narrower format (half) is correct rounding."""
        f = self.cast("fptrunc", x, x.ty.like("float"))
        fi = self.as_int(f)
        away = self.fabs(self.cast("fpext", f, x.ty)).ogt(self.fabs(x))
        # One step toward zero: the magnitude's encoding minus one.
        f = self.select(away, self.as_fp(fi - 1, "float"), f)
        inexact = self.cast("fpext", f, x.ty).one(x)
        return self.select(inexact, self.as_fp(self.as_int(f) | 1, "float"), f)

    def intrinsic(self, base: str, args: Sequence, ret: Ty | None = None,
                  overload: Sequence[Ty] | None = None) -> Val:
        """`call @llvm.<base>.<suffixes>(args)`; the suffixes default to the return type's."""
        vals = [a for a in args if isinstance(a, Val)]
        ret = ret or vals[0].ty
        over = overload if overload is not None else [ret]
        name = "llvm." + base + "".join("." + t.suffix for t in over)
        args_v = [a if isinstance(a, Val) else self.const(a, ret) for a in args]
        self.declare(name, ret, [a.ty for a in args_v])
        return self.op(f"call {ret} @{name}(" + ", ".join(str(a) for a in args_v) + ")", ret)

    def call(self, name: str, ret: Ty, args: Sequence[Val], attrs: str = "") -> Val | None:
        """A call to an external function (declared as needed)."""
        self.declare(name, ret, [a.ty for a in args], attrs)
        text = f"call {ret} @{name}(" + ", ".join(str(a) for a in args) + ")"
        if str(ret) == "void":
            self.lines.append("  " + text)
            return None
        return self.op(text, ret)

    def declare(self, name: str, ret: Ty | str, params: Sequence[Ty | str], attrs: str = "") -> None:
        sig = f"declare {ret} @{name}(" + ", ".join(str(p) for p in params) + ")" + (f" {attrs}" if attrs else "")
        self.decls.setdefault(name, sig)

    # Common intrinsics.
    def fma(self, a: Val, x, c) -> Val:
        return self.intrinsic("fma", [a, self.coerce(x, a.ty), self.coerce(c, a.ty)])

    def fabs(self, v: Val) -> Val:
        return self.intrinsic("fabs", [v])

    def sqrt(self, v: Val) -> Val:
        return self.intrinsic("sqrt", [v])

    def rint(self, v: Val) -> Val:
        return self.intrinsic("rint", [v])

    def floor(self, v: Val) -> Val:
        return self.intrinsic("floor", [v])

    def ceil(self, v: Val) -> Val:
        return self.intrinsic("ceil", [v])

    def trunc(self, v: Val) -> Val:
        return self.intrinsic("trunc", [v])

    def copysign(self, mag: Val, sign) -> Val:
        return self.intrinsic("copysign", [mag, self.coerce(sign, mag.ty)])

    def minnum(self, a: Val, c) -> Val:
        return self.intrinsic("minnum", [a, self.coerce(c, a.ty)])

    def maxnum(self, a: Val, c) -> Val:
        return self.intrinsic("maxnum", [a, self.coerce(c, a.ty)])

    def is_nan(self, v: Val) -> Val:
        return v.uno(v)

    def extract(self, v: Val, i: int) -> Val:
        return self.op(f"extractelement {v}, i32 {i}", v.ty.scalar)

    def insert(self, v: Val, e: Val, i: int) -> Val:
        return self.op(f"insertelement {v}, {e}, i32 {i}", v.ty)

    def splat(self, v: Val, lanes: int) -> Val:
        if lanes == 0:
            return v
        ins = self.op(f"insertelement <{lanes} x {v.ty.elem}> poison, {v}, i64 0", Ty(v.ty.elem, lanes))
        return self.op(f"shufflevector {ins}, <{lanes} x {v.ty.elem}> poison, <{lanes} x i32> zeroinitializer",
                       ins.ty)

    def shuffle(self, a: Val, c: Val | None, mask: Sequence[int]) -> Val:
        other = c.ref if c is not None else "poison"
        m = "<" + ", ".join(f"i32 {i}" for i in mask) + ">"
        return self.op(f"shufflevector {a}, {a.ty} {other}, <{len(mask)} x i32> {m}",
                       Ty(a.ty.elem, len(mask)))

    def per_lane(self, fn: Callable[..., Val], args: Sequence[Val], ret_elem: str) -> Val:
        """Apply the scalar body `fn` to each lane of `args` (scalars pass through)."""
        lanes = args[0].ty.lanes
        if lanes == 0:
            return fn(*args)
        out = self.poison(Ty(ret_elem, lanes))
        for i in range(lanes):
            out = self.insert(out, fn(*[self.extract(a, i) for a in args]), i)
        return out

    # -- memory ----------------------------------------------------------------
    def alloca(self, ty: Ty, align: int) -> Val:
        return self.op(f"alloca {ty}, align {align}", Ty("ptr"))

    def gep(self, elem: str, ptr: Val, index: Val) -> Val:
        return self.op(f"getelementptr inbounds {elem}, {ptr}, {index}", ptr.ty)

    def load(self, ty: Ty, ptr: Val, align: int) -> Val:
        return self.op(f"load {ty}, {ptr}, align {align}", ty)

    def store(self, v: Val, ptr: Val, align: int) -> None:
        self.lines.append(f"  store {v}, {ptr}, align {align}")


@dataclass
class Function:
    """A generated definition: its text and the declarations it needs."""

    name: str
    text: str
    decls: dict[str, str]

    def module_text(self) -> str:
        return "\n".join(list(self.decls.values()) + [self.text]) + "\n"


def define(name: str, ret: Ty | str, params: Sequence[Ty], body: Callable[..., Val | None],
           pure: bool = True) -> Function:
    """Build `define ret @name(params)` whose body `body(b, *args)` returns the result."""
    b = Builder()
    args = [Val(b, t, f"%a{i}") for i, t in enumerate(params)]
    result = body(b, *args)
    attrs = "nounwind willreturn" + (" memory(none)" if pure else "")
    head = f"define {ret} @{name}(" + ", ".join(f"{t} %a{i}" for i, t in enumerate(params)) + f") {attrs} {{"
    tail = f"  ret {result}" if result is not None else "  ret void"
    text = "\n".join([head, "entry:", *b.lines, tail, "}"])
    return Function(name, text, b.decls)
