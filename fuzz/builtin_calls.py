"""Calls to the OpenCL C builtin library in generated kernels.

One job: given the type the planner wants, choose a builtin of the library
(docs/builtins.md) that returns it, an overload (argument types and
signedness, spelled as OpenCL C types for the mangler), and arguments of
each kind `fuzz.constructs` tells apart: varying, uniform, constant.

Every draw is one `Choices` call, so Hypothesis shrinks through it like
through the rest of the planner. Every call is free of undefined results
by construction, where OpenCL leaves a result undefined:

- `mul24`/`mad24`: the multiplied operands are within 24 bits (signed:
  `(x << 8) >> 8`; unsigned: `x & 0xffffff`; constants in range);
- `clamp`: the lower bound is a constant `lo`, the upper one a constant
  `hi >= lo` or `max(e, lo)`; `smoothstep`: constant edges `e0 < e1`;
  `mix`: the weight a constant in [0, 1] or `clamp(e, 0, 1)`;
- `convert_<integer>` from a float without `_sat`: the argument is
  `clamp(x, lo, hi)` with `lo`, `hi` integers of the float type inside the
  destination's range (NaN clamps to a bound: `fmax`/`fmin` ignore NaN);
- bit-level reads of floats (`signbit`, `bitselect`, `copysign`'s sign,
  `nan`'s code aside): operands loaded from memory or constant, never
  computed (the sign and payload of a NaN that arithmetic makes is not
  exactly defined: LLVM folds `0/0` to a positive NaN, x86 makes a negative
  one, so a scalar and a vectorized run could differ in bits nobody wrote).

Results compare bit for bit (oracle/compare.py; NaN equals NaN): the
scalar reference and the vectorized kernel take every builtin's body from
the same library, whose vector overloads are lane by lane its scalar one
(docs/builtins.md, "How the library is linked"), so inexact math (`sin`,
`pow`, `exp` at any precision) agrees bit for bit too and needs no
restriction. Every overload drawn is checked against the library
(`library.lookup`): a call the oracle could not run is never generated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

from .choice_source import Choices
from .knobs import Knobs
from .plan import I32, Bin, Builtin, Const, Expr, ParamRef, ScalarParam, Splat, Ty

ANY, VARYING, UNIFORM, INVARIANT = "any", "varying", "uniform", "invariant"
# Arguments made of kernel arguments and constants only (conversions,
# arithmetic, builtin calls of them): uniform, and seen so by the
# vectorizer's conservative taint too, which counts every load after a
# varying store and every phi after a varying branch as varying. Only such
# calls stay calls through the preparation (`inline_library_builtins`
# inlines the others), as the uniform calls of real builtin tests do.
PURE = "pure"

# Math (6.12.2) and common (6.12.4) functions of one float argument.
FLOAT_UNARY = (
    "acos", "acosh", "acospi", "asin", "asinh", "asinpi", "atan", "atanh", "atanpi", "cbrt", "ceil",
    "cos", "cosh", "cospi", "erf", "erfc", "exp", "exp2", "exp10", "expm1", "fabs", "floor", "lgamma",
    "log", "log2", "log10", "log1p", "logb", "rint", "round", "rsqrt", "sin", "sinh", "sinpi", "sqrt",
    "tan", "tanh", "tanpi", "tgamma", "trunc", "degrees", "radians", "sign",
)
# The ones real kernels call most (the corpora of fuzz.constructs), drawn
# twice as often.
COMMON_UNARY = ("exp", "log", "sqrt", "fabs", "floor", "ceil", "rint", "round", "trunc", "log2", "sin", "cos")
# Single precision only (the specification has them for float).
NATIVE_UNARY = (
    "native_cos", "native_exp", "native_exp2", "native_exp10", "native_log", "native_log2", "native_log10",
    "native_recip", "native_rsqrt", "native_sin", "native_sqrt", "native_tan", "half_cos", "half_exp",
    "half_log", "half_recip", "half_rsqrt", "half_sin", "half_sqrt",
)
FLOAT_BINARY = (
    "atan2", "atan2pi", "fdim", "fmax", "fmin", "fmod", "hypot", "maxmag", "minmag", "nextafter", "pow",
    "powr", "remainder", "step", "copysign",
)
NATIVE_BINARY = ("native_divide", "native_powr", "half_divide", "half_powr")
COMMON_BINARY = ("fmax", "fmin", "pow", "fmod")  # drawn twice as often, as COMMON_UNARY
# (floatn, floatn, float) forms exist for these (and (float, floatn) for step).
FLOAT_MIXED = ("fmax", "fmin")
FLOAT_INT_ARG = ("ldexp", "pown", "rootn")
RELATIONAL_UNARY = ("isnan", "isinf", "isfinite", "isnormal", "signbit")
RELATIONAL_BINARY = (
    "isequal", "isnotequal", "isgreater", "isgreaterequal", "isless", "islessequal", "islessgreater",
    "isordered", "isunordered",
)
INT_UNARY = ("abs", "clz", "ctz", "popcount")
INT_BINARY = ("abs_diff", "add_sat", "sub_sat", "hadd", "rhadd", "max", "min", "mul_hi", "rotate")
INT_TERNARY = ("mad_hi", "mad_sat")
GEOMETRIC_SCALAR = ("dot", "length", "distance", "fast_length", "fast_distance")
# A second result written through a pointer: name -> (float arguments, element of the output).
OUT_BUILTINS = {
    "frexp": (1, "i32"), "modf": (1, "same"), "fract": (1, "same"), "sincos": (1, "same"),
    "lgamma_r": (1, "i32"), "remquo": (2, "i32"),
}
ROUNDING = ("_rte", "_rtz", "_rtp", "_rtn")

_CL_INT = {"i8": ("char", "uchar"), "i16": ("short", "ushort"), "i32": ("int", "uint"), "i64": ("long", "ulong")}
_CL_FLOAT = {"f16": "half", "f32": "float", "f64": "double"}
_MAX_BITS = 512  # no 16 x 64-bit values (docs/fuzzing.md: LLVM's backend takes ~40 s on them)


def cl_name(ty: Ty, signed: bool = True) -> str:
    """OpenCL C's name of `ty`: `int4`, `uchar`, `half8`."""
    base = _CL_FLOAT[ty.elem] if ty.is_float else _CL_INT[ty.elem][0 if signed else 1]
    return f"{base}{ty.lanes}" if ty.is_vector else base


def cl_type(name: str) -> object:
    """The library's `CLType` of an OpenCL type name (`uint4`; `int*` a private pointer)."""
    from vectorizer.builtins.library import CLType

    ptr = name.endswith("*")
    m = re.fullmatch(r"([a-z]+?)(\d*)", name.rstrip("*"))
    assert m is not None, name
    t = CLType(m.group(1), int(m.group(2) or 1))
    return t.ptr(0) if ptr else t


@lru_cache(maxsize=4096)
def library_result(name: str, params: tuple[str, ...]) -> str | None:
    """The LLVM result type of builtin `name` over OpenCL `params`, None when
    the library has no such overload (the generator then draws something else)."""
    from vectorizer.builtins import library

    mangled = library.mangle(name, [cl_type(p) for p in params])  # type: ignore[arg-type]
    found = library.lookup(mangled)
    if found is None:
        return None
    ret = found[2].ret
    return None if ret is None else str(ret.llvm)


def mangled_name(name: str, params: tuple[str, ...]) -> str:
    """The SPIR mangled name of builtin `name` over OpenCL `params`."""
    from vectorizer.builtins import library

    return str(library.mangle(name, [cl_type(p) for p in params]))  # type: ignore[arg-type]


@dataclass(frozen=True)
class Arg:
    """One argument of a drafted call: its type, signedness and domain
    (`any`, `exact` bits, `unit` in [0, 1], `int24`, `const`, `lo`/`hi`
    bounds, `e0`/`e1` edges, `clamped:<dest>` for a float converted to an
    integer without saturation)."""

    ty: Ty
    signed: bool = True
    domain: str = "any"

    @property
    def cl(self) -> str:
        return cl_name(self.ty, self.signed)


@dataclass(frozen=True)
class Draft:
    name: str
    args: tuple[Arg, ...]
    signed: bool = True  # of the result (conversions name it)
    out: Ty | None = None  # the pointee of an output pointer argument (last)
    part: int = 0  # 0: the result, 1: what was written through the pointer


class Planner(Protocol):
    """What the calls take from `fuzz.planner.Planner` (not imported: the
    planner imports this module)."""

    c: Choices
    k: Knobs
    helper: Any
    params: list[Any]

    def expr(self, ty: Ty, depth: int, mode: str = ...) -> Expr: ...
    def _const(self, ty: Ty) -> Expr: ...
    def _load(self, ty: Ty, mode: str) -> Expr: ...
    def _addr_options(self, mode: str) -> list[tuple[float, Any]]: ...


class BuiltinCalls:
    """Draws builtin calls for one planner (its choices, knobs, expressions)."""

    def __init__(self, planner: Planner) -> None:
        self.p = planner
        self.c = planner.c

    # ------------------------------------------------------------------ types

    def _ok(self, ty: Ty) -> bool:
        return ty.elem in self.p.k.types and ty.total_bits <= _MAX_BITS and ty.lanes in (1, 2, 3, 4, 8, 16)

    def _floats(self, lanes: int, bits: int | None = None) -> list[Ty]:
        out = [Ty(f, lanes) for f in ("f32", "f64", "f16") if self._ok(Ty(f, lanes))]
        return [t for t in out if bits is None or t.bits == bits]

    def _ints(self, lanes: int) -> list[Ty]:
        return [Ty(i, lanes) for i in ("i32", "i8", "i16", "i64") if self._ok(Ty(i, lanes))]

    # ---------------------------------------------------------------- drafts

    def _float_drafts(self, ty: Ty) -> list[tuple[float, object]]:
        c = self.c
        s = ty.scalar
        f32 = ty.elem == "f32"
        vec = ty.is_vector

        def unary() -> Draft:
            return Draft(c.choice(FLOAT_UNARY + COMMON_UNARY + (NATIVE_UNARY if f32 else ())), (Arg(ty),))

        def binary() -> Draft:
            name = c.choice(FLOAT_BINARY + COMMON_BINARY + (NATIVE_BINARY if f32 else ()))
            if vec and name in FLOAT_MIXED and c.boolean(0.3):
                return Draft(name, (Arg(ty), Arg(s)))
            if vec and name == "step" and c.boolean(0.3):
                return Draft(name, (Arg(s), Arg(ty)))
            if name == "copysign":
                return Draft(name, (Arg(ty), Arg(ty, domain="exact")))
            return Draft(name, (Arg(ty), Arg(ty)))

        def ternary() -> Draft:
            name = c.choice(("fma", "mad", "mix", "clamp", "smoothstep"))
            bound = s if vec and c.boolean(0.4) else ty
            if name == "mix":
                return Draft(name, (Arg(ty), Arg(ty), Arg(bound, domain="unit")))
            if name == "clamp":
                return Draft(name, (Arg(ty), Arg(bound, domain="lo"), Arg(bound, domain="hi")))
            if name == "smoothstep":
                return Draft(name, (Arg(bound, domain="e0"), Arg(bound, domain="e1"), Arg(ty)))
            return Draft(name, (Arg(ty), Arg(ty), Arg(ty)))

        def int_arg() -> Draft:
            name = c.choice(FLOAT_INT_ARG)
            n = Ty("i32", ty.lanes) if not (name == "ldexp" and vec and c.boolean(0.3)) else I32
            return Draft(name, (Arg(ty), Arg(n)))

        def geometric() -> Draft | None:
            if not vec:  # a scalar from vectors of 2, 3 or 4 (or scalars)
                name = c.choice(GEOMETRIC_SCALAR)
                if name.startswith("fast_") and ty.elem != "f32":
                    name = name[5:]
                src = ty.with_lanes(c.choice((4, 3, 2, 1)))
                two = name in ("dot", "distance", "fast_distance")
                return Draft(name, (Arg(src), Arg(src)) if two else (Arg(src),))
            if ty.lanes > 4:
                return None
            if ty.lanes in (3, 4) and c.boolean(0.4):
                return Draft("cross", (Arg(ty), Arg(ty)))
            return Draft("fast_normalize" if f32 and c.boolean(0.3) else "normalize", (Arg(ty),))

        def out() -> Draft:
            name = c.choice(tuple(OUT_BUILTINS))
            n, elem = OUT_BUILTINS[name]
            o = ty if elem == "same" else Ty(elem, ty.lanes)
            return Draft(name, tuple(Arg(ty) for _ in range(n)), out=o, part=0)

        def nan() -> Draft:
            return Draft("nan", (Arg(Ty(f"i{ty.bits}", ty.lanes), signed=False),))

        return [
            (3.0, unary), (2.5, binary), (1.2, ternary), (1.0, int_arg), (1.2, geometric), (0.8, out),
            (0.2, nan), *self._common_drafts(ty),
        ]

    def _int_drafts(self, ty: Ty) -> list[tuple[float, object]]:
        c = self.c
        s = ty.scalar
        vec = ty.is_vector
        sign = c.boolean(0.5)

        def unary() -> Draft:
            return Draft(c.choice(INT_UNARY), (Arg(ty, sign),), sign)

        def binary() -> Draft:
            name = c.choice(INT_BINARY)
            if vec and name in ("max", "min") and c.boolean(0.3):
                return Draft(name, (Arg(ty, sign), Arg(s, sign)), sign)
            return Draft(name, (Arg(ty, sign), Arg(ty, sign)), sign)

        def ternary() -> Draft:
            name = c.choice((*INT_TERNARY, "clamp"))
            if name == "clamp":
                bound = s if vec and c.boolean(0.4) else ty
                return Draft(name, (Arg(ty, sign), Arg(bound, sign, "lo"), Arg(bound, sign, "hi")), sign)
            return Draft(name, (Arg(ty, sign), Arg(ty, sign), Arg(ty, sign)), sign)

        def mul24() -> Draft | None:
            if ty.bits != 32:
                return None
            if c.boolean(0.6):
                return Draft("mul24", (Arg(ty, sign, "int24"), Arg(ty, sign, "int24")), sign)
            return Draft("mad24", (Arg(ty, sign, "int24"), Arg(ty, sign, "int24"), Arg(ty, sign)), sign)

        def upsample() -> Draft | None:
            if ty.bits < 16:
                return None
            half = Ty(f"i{ty.bits // 2}", ty.lanes)
            return Draft("upsample", (Arg(half, sign), Arg(half, False)), sign)

        def relational() -> Draft | None:
            floats = self._floats(ty.lanes, None if not vec else ty.bits)
            if not floats or (not vec and ty.elem != "i32"):
                return None
            f = c.choice(floats)
            if c.boolean(0.5):
                name = c.choice(RELATIONAL_UNARY)
                return Draft(name, (Arg(f, domain="exact" if name == "signbit" else "any"),))
            return Draft(c.choice(RELATIONAL_BINARY), (Arg(f), Arg(f)))

        def any_all() -> Draft | None:
            if ty != I32:
                return None
            src = c.choice([t for lanes in (4, 2, 8, 16, 3, 1) for t in self._ints(lanes)] or [I32])
            return Draft(c.choice(("any", "all")), (Arg(src, True),))

        def ilogb() -> Draft | None:
            floats = self._floats(ty.lanes)
            if ty.elem != "i32" or not floats:
                return None
            return Draft("ilogb", (Arg(c.choice(floats)),))

        def out() -> Draft | None:
            floats = self._floats(ty.lanes)
            if ty.elem != "i32" or not floats:
                return None
            f = c.choice(floats)
            name = c.choice(("frexp", "lgamma_r", "remquo"))
            n, _ = OUT_BUILTINS[name]
            return Draft(name, tuple(Arg(f) for _ in range(n)), out=ty, part=1)

        return [
            (1.5, unary), (3.0, binary), (1.0, ternary), (1.2, mul24), (0.6, upsample), (2.0, relational),
            (1.0, any_all), (0.5, ilogb), (0.5, out), *self._common_drafts(ty),
        ]

    def _common_drafts(self, ty: Ty) -> list[tuple[float, object]]:
        c = self.c
        sign = c.boolean(0.5)

        def convert() -> Draft | None:
            sources = [t for t in self._floats(ty.lanes) + self._ints(ty.lanes) if t != ty or c.boolean(0.2)]
            if not sources:
                return None
            src = c.choice(sources)
            sat = ty.is_int and c.boolean(0.4)
            rounding = c.choice(ROUNDING) if c.boolean(0.35) else ""
            dest = cl_name(ty, sign)
            name = f"convert_{dest}{'_sat' if sat else ''}{rounding}"
            domain = f"clamped:{dest}" if src.is_float and ty.is_int and not sat else "any"
            return Draft(name, (Arg(src, c.boolean(0.5), domain),), sign)

        def select() -> Draft:
            if c.boolean(0.5):
                mask = Ty(f"i{ty.bits}", ty.lanes)
                return Draft("select", (Arg(ty, sign), Arg(ty, sign), Arg(mask, c.boolean(0.5))), sign)
            domain = "exact" if ty.is_float else "any"
            return Draft("bitselect", tuple(Arg(ty, sign, domain) for _ in range(3)), sign)

        def shuffle() -> Draft | None:
            if ty.lanes not in (2, 4, 8, 16):
                return None
            src = ty.with_lanes(c.choice([n for n in (4, 2, 8, 16) if self._ok(ty.with_lanes(n))]))
            mask = Ty(f"i{ty.bits}", ty.lanes)
            if c.boolean(0.4):
                return Draft("shuffle2", (Arg(src, sign), Arg(src, sign), Arg(mask, False)), sign)
            return Draft("shuffle", (Arg(src, sign), Arg(mask, False)), sign)

        return [(3.0, convert), (1.0, select), (0.5, shuffle)]

    # ------------------------------------------------------------------ calls

    def call(self, ty: Ty, depth: int, mode: str) -> Expr | None:
        """A builtin call returning `ty` in `mode`, or None when none fits."""
        if ty.is_bool or not self._ok(ty):
            return None
        drafts = self._float_drafts(ty) if ty.is_float else self._int_drafts(ty)
        for _ in range(3):
            draft = self.c.weighted(drafts)()  # type: ignore[operator]
            if draft is None or not all(self._ok(a.ty) for a in draft.args):
                continue
            if mode == PURE and draft.out is not None:
                # It writes memory: the taint counts its result varying
                # once any store is, so it is no `PURE` value.
                continue
            params = tuple(a.cl for a in draft.args)
            if draft.out is not None:
                params += (cl_name(draft.out) + "*",)
            result = library_result(draft.name, params)
            if result is None or (draft.part == 0 and result != ty.llvm):
                continue
            if draft.part == 1 and (draft.out is None or draft.out.llvm != ty.llvm):
                continue
            return self._build(draft, ty, params, depth, mode)
        return None

    def _kinds(self, n: int, mode: str, fixed: list[bool]) -> list[str]:
        """The mode of each argument (`constant` for a literal): in a varying
        call one free argument is varying, in an `any` call sometimes every
        argument is uniform (as the builtin tests of real suites call them),
        often made of kernel arguments only (`PURE`)."""
        c = self.c
        free = [i for i in range(n) if not fixed[i]]
        if mode == PURE:
            return [c.weighted([(4.0, PURE), (1.0, "constant")]) for _ in range(n)]
        if mode in (UNIFORM, INVARIANT) or (mode == ANY and c.boolean(0.45)):
            pure = c.boolean(0.6)
            return [c.weighted([(4.0, PURE if pure else (UNIFORM if mode == ANY else mode)), (0.8, "constant")])
                    for _ in range(n)]
        kinds = [c.weighted([(4.0, ANY), (1.5, UNIFORM), (0.8, "constant")]) for _ in range(n)]
        if mode == VARYING and free:
            kinds[c.choice(free)] = VARYING
        return kinds

    def _build(self, d: Draft, ty: Ty, params: tuple[str, ...], depth: int, mode: str) -> Expr:
        fixed = [a.domain in ("const", "e0", "e1", "lo") for a in d.args]
        kinds = self._kinds(len(d.args), mode, fixed)
        args: list[Expr] = []
        lo: float | int | None = None
        for a, kind in zip(d.args, kinds, strict=True):
            e, lo = self._arg(a, kind, depth, lo)
            args.append(e)
        # Sometimes `noinline` on a call with a varying argument: the
        # vectorizer keeps it a call and instantiates it lane by lane.
        noinline = any(k in (ANY, VARYING) for k in kinds) and self.c.boolean(0.35)
        return Builtin(d.name, tuple(args), ty, signed=d.signed, params=params, out=d.out, part=d.part,
                       noinline=noinline)

    def _value(self, ty: Ty, kind: str, depth: int) -> Expr:
        if kind == "constant":
            return self.p._const(ty)
        if kind == PURE:
            return self.pure(ty, depth)
        return self.p.expr(ty, depth, kind)

    def _params(self) -> list[ScalarParam]:
        if self.p.helper is not None:
            return []
        return [q for q in self.p.params if isinstance(q, ScalarParam) and q.ty.elem in self.p.k.types]

    def pure(self, ty: Ty, depth: int) -> Expr:
        """A uniform value of `ty` made of kernel arguments and constants
        (`PURE`); in a helper (no kernel arguments), a uniform expression."""
        c = self.c
        if self.p.helper is not None:
            return self.p.expr(ty, max(depth, 0), UNIFORM)
        params = self._params()
        same = [q for q in params if q.ty == ty]
        lanes = [q for q in params if q.ty.lanes == ty.lanes and q.ty != ty]
        scalars = [q for q in params if not q.ty.is_vector and q.ty.elem != ty.elem]
        deeper = depth > 0
        options: list[tuple[float, Any]] = [
            (3.0 if same else 0.0, lambda: ParamRef(c.choice(same))),
            (2.0 if lanes else 0.0, lambda: self._convert_param(ty, c.choice(lanes))),
            # A vector converted from a splat kernel argument (as `convert_int4((char4)a)`).
            (2.0 if ty.is_vector and scalars else 0.0, lambda: self._convert_param(ty, c.choice(scalars), ty.lanes)),
            (1.5 if ty.is_vector else 0.0, lambda: Splat(self.pure(ty.scalar, depth - 1), ty.lanes)),
            (1.0 if deeper else 0.0, lambda: self._pure_arith(ty, depth - 1)),
            (1.0 if deeper else 0.0, lambda: self.call(ty, depth - 1, PURE) or self.p._const(ty)),
            (0.5, lambda: self.p._const(ty)),
        ]
        return c.weighted(options)()

    def _pure_arith(self, ty: Ty, depth: int) -> Expr:
        ops = ("fadd", "fmul", "fsub") if ty.is_float else ("add", "xor", "mul", "sub", "and")
        return Bin(self.c.choice(ops), self.pure(ty, depth), self.p._const(ty))

    def _convert_param(self, ty: Ty, q: ScalarParam, splat: int = 1) -> Expr:
        """`convert_<ty>[_sat][_rtX](q)`: a kernel argument of as many lanes
        (or splat to `splat` lanes) converted."""
        c = self.c
        sign = c.boolean(0.5)
        sat = ty.is_int and c.boolean(0.4)
        rounding = c.choice(ROUNDING) if c.boolean(0.35) else ""
        dest = cl_name(ty, sign)
        name = f"convert_{dest}{'_sat' if sat else ''}{rounding}"
        src_signed = c.boolean(0.5)
        arg: Expr = ParamRef(q) if splat == 1 else Splat(ParamRef(q), splat)
        if q.ty.is_float and ty.is_int and not sat:
            arg = self._clamp(arg, *_float_range(q.ty, dest))
        params = (cl_name(arg.ty, src_signed),)
        if library_result(name, params) != ty.llvm:
            return self.p._const(ty)
        return Builtin(name, (arg,), ty, signed=sign, params=params)

    def _exact(self, ty: Ty, kind: str) -> Expr:
        """A value whose bits are exactly defined: loaded, a kernel argument or constant."""
        p = self.p
        if kind == PURE:
            same = [q for q in self._params() if q.ty == ty]
            return ParamRef(self.c.choice(same)) if same else p._const(ty)
        if kind != "constant" and p.helper is None and any(w > 0 for w, _ in p._addr_options(kind)):
            return p._load(ty, kind)
        return p._const(ty)

    def _arg(self, a: Arg, kind: str, depth: int, lo: float | int | None) -> tuple[Expr, float | int | None]:
        c = self.c
        ty = a.ty
        dom = a.domain
        if dom == "exact":
            return self._exact(ty, kind), lo
        if dom == "unit":
            if kind == "constant" or (kind != VARYING and c.boolean(0.3)):
                return self._splat(ty, c.choice((0.5, 0.0, 1.0, 0.25, 0.75))), lo
            return self._clamp(self._value(ty, kind, depth), 0.0, 1.0), lo
        if dom == "int24":
            if kind == "constant":
                v = c.choice((0, 1, -1, 7, 100, 12345, (1 << 23) - 1, -(1 << 23)))
                return self._splat(ty, v if a.signed else v & 0xFFFFFF), lo
            e = self._value(ty, kind, depth)
            if a.signed:  # sign-extend the low 24 bits
                eight = self._splat(ty, 8)
                return Bin("ashr", Bin("shl", e, eight), self._splat(ty, 8)), lo
            return Bin("and", e, self._splat(ty, 0xFFFFFF)), lo
        if dom in ("e0", "e1"):
            e0 = c.choice((0.0, -1.0, 0.25, -10.0))
            v = e0 if dom == "e0" else (lo if lo is not None else 0.0) + c.choice((1.0, 0.5, 8.0))
            return self._splat(ty, v), v
        if dom == "lo":
            v = self._bound(ty, a.signed)
            return self._splat(ty, v), v
        if dom == "hi":
            assert lo is not None
            if kind == "constant" or (kind != VARYING and c.boolean(0.5)):
                return self._splat(ty, self._above(ty, a.signed, lo)), lo
            # max(e, lo) >= lo; float max ignores a NaN operand.
            name = "fmax" if ty.is_float else "max"
            e = self._value(ty, kind, depth)
            return Builtin(name, (e, self._splat(ty, lo)), ty, signed=a.signed,
                           params=(a.cl, a.cl)), lo
        if dom.startswith("clamped:"):
            lo_v, hi_v = _float_range(ty, dom.split(":", 1)[1])
            return self._clamp(self._value(ty, kind, depth), lo_v, hi_v), lo
        return self._value(ty, kind, depth), lo

    def _splat(self, ty: Ty, v: float | int) -> Const:
        if ty.is_int:
            bits = ty.bits
            v = int(v) & ((1 << bits) - 1)
            if v >= 1 << (bits - 1):
                v -= 1 << bits
        else:
            v = float(v)
        return Const(ty, tuple(v for _ in range(ty.lanes)) if ty.is_vector else v)

    def _clamp(self, e: Expr, lo: float, hi: float) -> Expr:
        ty = e.ty
        if ty.is_vector and self.c.boolean(0.5):  # the (gentype, float, float) form
            s = ty.scalar
            return Builtin("clamp", (e, self._splat(s, lo), self._splat(s, hi)), ty,
                           params=(cl_name(ty), cl_name(s), cl_name(s)))
        return Builtin("clamp", (e, self._splat(ty, lo), self._splat(ty, hi)), ty,
                       params=(cl_name(ty),) * 3)

    def _bound(self, ty: Ty, signed: bool) -> float | int:
        if ty.is_float:
            return self.c.choice((0.0, -1.0, -100.0, 0.5, 2.0))
        return self.c.choice((0, 1, -7, 3, 100) if signed else (0, 1, 3, 100, 7))

    def _above(self, ty: Ty, signed: bool, lo: float | int) -> float | int:
        if ty.is_float:
            return float(lo) + self.c.choice((1.0, 0.0, 10.0, 1000.0))
        hi = int(lo) + self.c.choice((0, 1, 5, 50))
        top = (1 << (ty.bits - 1)) - 1 if signed else (1 << ty.bits) - 1
        return min(hi, top)


def _float_range(src: Ty, dest: str) -> tuple[float, float]:
    """Integer-valued bounds of float type `src` inside the range of OpenCL
    integer type `dest` (`uchar4`, `int`): a float clamped to them converts
    without overflow under every rounding mode."""
    base = re.sub(r"\d+$", "", dest)
    bits = {"char": 8, "short": 16, "int": 32, "long": 64}[base.lstrip("u")]
    unsigned = base.startswith("u")
    lo = 0 if unsigned else -(1 << (bits - 1))
    hi = (1 << bits) - 1 if unsigned else (1 << (bits - 1)) - 1
    mant = {"f16": 11, "f32": 24, "f64": 53}[src.elem]
    top = {"f16": 65504.0, "f32": 3.0e38, "f64": 1.0e300}[src.elem]

    def down(v: int) -> float:  # the largest float of `src` with |x| <= |v|, an integer
        mag = abs(v)
        if mag >= 1 << mant:
            drop = mag.bit_length() - mant
            mag = (mag >> drop) << drop
        return float(min(mag, top)) * (1 if v >= 0 else -1)

    return down(lo), down(hi)

