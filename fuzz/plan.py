"""The kernel plan: a small typed AST of an SPMD kernel, before it is IR.

The planner (`fuzz.planner`) draws a plan from a choice source; the emitter
(`fuzz.emit`) lowers it to our IR. Everything UB-relevant is explicit in the
plan or guaranteed by the emitter's lowering of each node:

- every buffer index is either wrapped into the buffer (`Wrapped`,
  `Indirect`, private-array indices), an affine function of the work-item
  ids whose range the planner sized the buffer for (`Affine`), or a value
  of known range from a base pointer inside the buffer (`Biased`);
- shift amounts are masked, divisors guarded (zero, and INT_MIN / -1),
  float-to-int conversions saturate or clamp, vector lane indices wrap;
- loops are bounded by a small constant whatever their trip expression is;
- every work-item stores only into its own output slots, reads only inputs
  nobody writes, and uses atomics only for commutative updates of counters
  it never reads, so the result does not depend on work-item order.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

# ---------------------------------------------------------------------------
# Types


@dataclass(frozen=True)
class Ty:
    """A first-class value type: a scalar (`lanes == 1`) or a short vector."""

    elem: str  # i1 i8 i16 i32 i64 f16 f32 f64
    lanes: int = 1

    @property
    def is_vector(self) -> bool:
        return self.lanes > 1

    @property
    def is_int(self) -> bool:
        return self.elem.startswith("i")

    @property
    def is_float(self) -> bool:
        return self.elem.startswith("f")

    @property
    def is_bool(self) -> bool:
        return self.elem == "i1"

    @property
    def bits(self) -> int:
        """Bits of one element."""
        return int(self.elem[1:])

    @property
    def total_bits(self) -> int:
        return self.bits * self.lanes

    @property
    def scalar(self) -> Ty:
        return Ty(self.elem)

    def with_lanes(self, lanes: int) -> Ty:
        return Ty(self.elem, lanes)

    @property
    def llvm(self) -> str:
        """LLVM spelling: `i32`, `float`, `<4 x double>`."""
        s = {"f16": "half", "f32": "float", "f64": "double"}.get(self.elem, self.elem)
        return f"<{self.lanes} x {s}>" if self.is_vector else s

    @property
    def header(self) -> str:
        """Case-format spelling of a buffer element: `i32`, `f32`, `4xf32`."""
        return f"{self.lanes}x{self.elem}" if self.is_vector else self.elem

    @property
    def c(self) -> str:
        """OpenCL C-like spelling, for the pseudo-C dump."""
        s = {
            "i1": "bool", "i8": "char", "i16": "short", "i32": "int", "i64": "long",
            "f16": "half", "f32": "float", "f64": "double",
        }[self.elem]
        return f"{s}{self.lanes}" if self.is_vector else s

    def __str__(self) -> str:
        return self.llvm


I1, I8, I16, I32, I64 = Ty("i1"), Ty("i8"), Ty("i16"), Ty("i32"), Ty("i64")
F16, F32, F64 = Ty("f16"), Ty("f32"), Ty("f64")
VOID = Ty("void")  # only the type of a call to a void helper
SCALAR_TYPES = (I1, I8, I16, I32, I64, F32, F64)
VECTOR_TYPES = (
    Ty("i32", 2), Ty("i32", 4), Ty("f32", 4), Ty("f32", 2), Ty("f64", 2),
    Ty("i16", 4), Ty("i8", 8), Ty("i64", 2), Ty("i8", 4),
    # OpenCL's other shapes: 3 lanes (kept in memory as 4, as clang does), 8
    # and 16 lanes, 2 narrow lanes, and vectors of half.
    Ty("f32", 3), Ty("i32", 3), Ty("i8", 3), Ty("i16", 3), Ty("i64", 3), Ty("f64", 3),
    Ty("f32", 8), Ty("i32", 8), Ty("i16", 8), Ty("f64", 4), Ty("i64", 4), Ty("i8", 16),
    Ty("f32", 16), Ty("i32", 16), Ty("i16", 16), Ty("i8", 2), Ty("i16", 2), Ty("f16", 4),
    Ty("f64", 8), Ty("i64", 8),
    # Not 16 x i64 / 16 x double: at W = 16 such a kernel took LLVM's x86
    # backend ~40 s to compile at -O0 (256 lanes per value), stalling campaigns.
)


def memory_type(ty: Ty) -> Ty:
    """The type a value of `ty` has in a buffer: 3-lane vectors take 4 lanes."""
    return ty.with_lanes(4) if ty.lanes == 3 else ty


def parse_ty(text: str) -> Ty:
    """`i32`, `f32`, `4xf32`, `<4 x float>`, `float` -> Ty."""
    t = text.strip()
    names = {"half": "f16", "float": "f32", "double": "f64"}
    if t.startswith("<"):
        n, _, e = t[1:-1].partition(" x ")
        return Ty(names.get(e.strip(), e.strip()), int(n))
    if "x" in t:
        n, _, e = t.partition("x")
        return Ty(names.get(e, e), int(n))
    return Ty(names.get(t, t))


# ---------------------------------------------------------------------------
# Kernel-level declarations


@dataclass(eq=False)
class Var:
    """A source-level variable; the emitter keeps it in SSA form (phis at joins)."""

    id: int
    ty: Ty
    varying: bool = False  # what the planner intended; coverage recomputes it

    @property
    def name(self) -> str:
        return f"v{self.id}"


@dataclass(eq=False)
class ScalarParam:
    """A kernel argument passed by value."""

    name: str
    ty: Ty
    value: int | float


@dataclass(eq=False)
class Buffer:
    """A global buffer argument.

    `role`: `in` (read only, random), `index` (read only, index values),
    `iota` (read only, 0,1,2,...: a permutation for scatters), `out` (each
    work-item writes only its own `slots`), `uniform` (written only with
    work-item-invariant values), `counter` (atomics only, never read).
    `count` (elements) is settled by `KernelPlan.finalize`. `addrspace`: 1
    (`__global`), or 2 (`__constant`) for inputs. Role `local`: a `__local`
    buffer (addrspace 3) where each work-item reads and writes only its own
    `slots`, placed by its local linear id (no barrier needed: nobody else
    touches them; the oracle zeroes local memory for every work-group).
    """

    name: str
    role: str
    elem: Ty
    count: int = 0
    addrspace: int = 1
    # Output buffers: slots per work-item and how a work-item's slots are
    # placed: `linear` (lin*K), `reverse` ((T-1-lin)*K), `perm`
    # (((lin*mul) ^ xor) & (P-1))*K, `indirect` (same through an iota buffer).
    slots: int = 0
    mapping: str = "linear"
    perm_mul: int = 1
    perm_xor: int = 0
    iota: Buffer | None = None

    # A `tile` (addrspace 3, one slot per work-item of the group, shared by
    # the group through barriers: see `fuzz.workgroup`) declared as a
    # module-level `addrspace(3)` global rather than a kernel argument.
    module_global: bool = False
    # A 2-D tile (module globals only): `[rows x [cols x T]]`, work-item
    # (x, y, z) at row `y + ly*z`, column `x` (set by `finalize`).
    two_d: bool = False
    rows: int = 0
    cols: int = 0

    @property
    def is_local(self) -> bool:
        return self.role in ("local", "tile")

    @property
    def init(self) -> str:
        # Outputs start random, not zero: a store (or a lost store) of 0 is
        # then as visible as any other.
        return "iota" if self.role == "iota" else "random"

    @property
    def header(self) -> str:
        if self.is_local:
            return f"local:{self.elem.header}:{self.count}"
        return f"buf:{self.elem.header}:{self.count}:{self.init}"


Param = ScalarParam | Buffer


@dataclass(eq=False)
class PrivArray:
    """A private (per work-item) array, fully initialised before any read.
    `union`: allocated inside a one-field struct (`%union.privN = type {[N x
    T]}`), as OpenCL C unions of a vector and an array are."""

    id: int
    elem: Ty
    size: int  # a power of two
    varying: bool = False  # planner's intent: filled with work-item-dependent values
    union: bool = False
    # Fields before the array in `%struct.privN = type {header..., [N x T]}`
    # (fuzz/struct_shapes.py); never with `union`.
    header: tuple[Ty, ...] = ()

    @property
    def name(self) -> str:
        return f"priv{self.id}"


@dataclass(frozen=True)
class NDRange:
    global_size: tuple[int, int, int]
    local_size: tuple[int, int, int]
    offset: tuple[int, int, int] = (0, 0, 0)

    @property
    def total(self) -> int:
        g = self.global_size
        return g[0] * g[1] * g[2]

    @property
    def header(self) -> str:
        def f(t: tuple[int, int, int]) -> str:
            return ",".join(map(str, t))

        s = f"global={f(self.global_size)} local={f(self.local_size)}"
        if any(self.offset):
            s += f" offset={f(self.offset)}"
        return s


# ---------------------------------------------------------------------------
# Expressions


class Expr:
    """A typed expression (subclasses are dataclasses with a `ty`)."""

    ty: Ty

    def children(self) -> tuple[Expr, ...]:
        return ()


@dataclass(eq=False)
class Const(Expr):
    ty: Ty
    value: int | float | tuple  # a tuple of lane values for vectors


@dataclass(eq=False)
class VarRef(Expr):
    var: Var

    @property
    def ty(self) -> Ty:  # type: ignore[override]
        return self.var.ty


@dataclass(eq=False)
class ParamRef(Expr):
    param: ScalarParam

    @property
    def ty(self) -> Ty:  # type: ignore[override]
        return self.param.ty


WORK_ITEM_KINDS = (
    "global_id", "local_id", "group_id", "global_size", "local_size", "num_groups",
    "global_offset",
)
WORK_ITEM_VARYING = ("global_id", "local_id")


@dataclass(eq=False)
class WorkItem(Expr):
    """A work-item query (`get_<kind>(dim)`): i64.

    `dim` is a constant or an i32 expression: a dimension known only at run
    time (the kernel's dimension argument, or a value computed per
    work-item). Any value is defined: a dimension out of range answers 0
    for ids and offsets, 1 for sizes."""

    kind: str
    dim: int | Expr
    ty: Ty = I64

    def children(self) -> tuple[Expr, ...]:
        return (self.dim,) if isinstance(self.dim, Expr) else ()


@dataclass(eq=False)
class WorkDim(Expr):
    """`get_work_dim()`: i32, the same for the whole NDRange."""

    ty: Ty = I32


@dataclass(eq=False)
class Lin(Expr):
    """The work-item's linear id over the whole NDRange (computed once, in the
    prologue): the base of every work-item's output slots. i64."""

    ty: Ty = I64


@dataclass(eq=False)
class Bin(Expr):
    """A binary operator. `flags` (`nsw`, `nuw`, `exact`, `disjoint`) only on
    the shapes the planner builds so that they hold (see `fuzz.planner`)."""

    op: str
    a: Expr
    b: Expr
    flags: tuple[str, ...] = ()

    @property
    def ty(self) -> Ty:  # type: ignore[override]
        return self.a.ty

    def children(self) -> tuple[Expr, ...]:
        return (self.a, self.b)


@dataclass(eq=False)
class Neg(Expr):
    """`fneg`."""

    a: Expr

    @property
    def ty(self) -> Ty:  # type: ignore[override]
        return self.a.ty

    def children(self) -> tuple[Expr, ...]:
        return (self.a,)


@dataclass(eq=False)
class Cmp(Expr):
    pred: str  # icmp or fcmp predicate
    a: Expr
    b: Expr
    flags: tuple[str, ...] = ()  # `samesign`, on operands masked non-negative

    @property
    def ty(self) -> Ty:  # type: ignore[override]
        return Ty("i1", self.a.ty.lanes)

    def children(self) -> tuple[Expr, ...]:
        return (self.a, self.b)


@dataclass(eq=False)
class Select(Expr):
    cond: Expr  # i1, or a vector of i1 as wide as the operands
    a: Expr
    b: Expr

    @property
    def ty(self) -> Ty:  # type: ignore[override]
        return self.a.ty

    def children(self) -> tuple[Expr, ...]:
        return (self.cond, self.a, self.b)


CAST_OPS = (
    "trunc", "zext", "sext", "sitofp", "uitofp", "fptrunc", "fpext", "bitcast",
    "fptosi.sat", "fptoui.sat", "fptosi.clamp", "fptoui.clamp",
)


@dataclass(eq=False)
class Cast(Expr):
    op: str  # one of CAST_OPS
    a: Expr
    ty: Ty
    flags: tuple[str, ...] = ()  # `nuw`/`nsw` (trunc), `nneg` (zext, uitofp), on masked operands

    def children(self) -> tuple[Expr, ...]:
        return (self.a,)


# Math builtins: name -> (kind of element, arity). Lowered to LLVM's
# element-wise intrinsics (`llvm.<name>.<type>`); see `fuzz.emit`.
FLOAT_MATH = {
    "sqrt": 1, "fabs": 1, "floor": 1, "ceil": 1, "trunc": 1, "rint": 1, "round": 1,
    "nearbyint": 1, "roundeven": 1, "minnum": 2, "maxnum": 2, "minimum": 2,
    "maximum": 2, "fma": 3, "fmuladd": 3, "copysign": 2,
}
INT_MATH = {
    "smax": 2, "smin": 2, "umax": 2, "umin": 2, "abs": 1, "ctpop": 1, "ctlz": 1,
    "cttz": 1, "bitreverse": 1, "fshl": 3, "fshr": 3, "uadd.sat": 2, "usub.sat": 2,
    "sadd.sat": 2, "ssub.sat": 2, "expect": 2,
}


@dataclass(eq=False)
class Math(Expr):
    fn: str
    args: tuple[Expr, ...]

    @property
    def ty(self) -> Ty:  # type: ignore[override]
        return self.args[0].ty

    def children(self) -> tuple[Expr, ...]:
        return self.args


@dataclass(eq=False)
class Freeze(Expr):
    a: Expr

    @property
    def ty(self) -> Ty:  # type: ignore[override]
        return self.a.ty

    def children(self) -> tuple[Expr, ...]:
        return (self.a,)


OVERFLOW_OPS = ("sadd", "uadd", "ssub", "usub", "smul", "umul")


@dataclass(eq=False)
class Overflow(Expr):
    """`extractvalue (llvm.<op>.with.overflow(a, b)), field`: the wrapped
    result (part 0) or the overflow bit (part 1, i1)."""

    op: str
    a: Expr
    b: Expr
    part: int

    @property
    def ty(self) -> Ty:  # type: ignore[override]
        return self.a.ty if self.part == 0 else Ty("i1", self.a.ty.lanes)

    def children(self) -> tuple[Expr, ...]:
        return (self.a, self.b)


@dataclass
class Access:
    """How a memory access reaches its element: the GEP's flags (`inbounds`,
    `nuw`: every index is in bounds and non-negative by construction),
    `via` `gep`, `int` (`inttoptr(ptrtoint(base) + bytes)`) or `generic`
    (through `addrspacecast` to the generic address space 4), `volatile`."""

    gep_flags: tuple[str, ...] = ()
    via: str = "gep"
    volatile: bool = False


class Addr:
    """How a buffer index is formed (subclasses below)."""

    def exprs(self) -> tuple[Expr, ...]:
        return ()


@dataclass(eq=False)
class Affine(Addr):
    """`offset + stride*base (+ counter)` with `base` a work-item id (`lin`,
    `gid`, `lid`, `grp` of `dim`), in bounds because the planner sized the
    buffer for the NDRanges in the header. `dim` may be the kernel's
    dimension argument (a `ScalarParam`): the buffer is then sized for the
    largest id of any dimension. `narrow`: computed in i32.
    `clamp_hi`: the index is clamped to [0, clamp_hi] (clamp-to-edge
    addressing, as stencils do; the offset may then be negative)."""

    base: str
    dim: int | ScalarParam
    stride: int
    offset: int
    counter: Var | None = None
    narrow: bool = False
    clamp_hi: int | None = None


@dataclass(eq=False)
class Wrapped(Addr):
    """`expr & (count-1)`: any integer expression, wrapped into the buffer."""

    expr: Expr

    def exprs(self) -> tuple[Expr, ...]:
        return (self.expr,)


@dataclass(eq=False)
class Biased(Addr):
    """`&buf[bias]` as the base pointer, indexed by `expr` (an integer the
    planner knows to lie in `[-bias, span - bias)`, negative for some
    work-items; sign-extended to 64 bits): the element `bias + expr`, in
    bounds because the buffer has at least `span` elements."""

    expr: Expr
    bias: int
    span: int

    def exprs(self) -> tuple[Expr, ...]:
        return (self.expr,)


@dataclass(eq=False)
class Indirect(Addr):
    """A gather: `index_buffer[inner] & (count-1)`."""

    index_buffer: Buffer
    inner: Addr

    def exprs(self) -> tuple[Expr, ...]:
        return self.inner.exprs()


@dataclass(eq=False)
class ConstAddr(Addr):
    index: int


@dataclass(eq=False)
class SelectAddr(Addr):
    """`select(cond, &buf[a], &buf[b])`: a select of two pointers into one buffer."""

    cond: Expr
    a: Addr
    b: Addr

    def exprs(self) -> tuple[Expr, ...]:
        return (self.cond, *self.a.exprs(), *self.b.exprs())


@dataclass(eq=False)
class LocalSlot(Addr):
    """Slot `slot` of this work-item's own part of a `local` buffer."""

    slot: int


@dataclass(eq=False)
class PeerSlot(Addr):
    """The slot of another work-item of the group in a `tile` (one slot per
    work-item, at its local linear id `llin`; `L` work-items in the group):
    `rotate` ((llin + shift) urem L), `mirror` (L - 1 - llin), `first` (0),
    `xor` (llin ^ shift where that is below L, else llin). Every index is
    below L, and every slot below L was written before the last barrier.
    In a 2-D tile (row `r`, column `x` of the work-item; `lx` columns and
    `lr` rows in use): `right` ((x + shift) urem lx, r), `down` (x,
    (r + shift) urem lr), `mirror` (lx - 1 - x, r), `first` (0, 0)."""

    pattern: str
    shift: int = 1


@dataclass
class Cursor:
    """A pointer induction variable of a loop: `&buffer[start]` before the
    loop, advanced by `step` elements on every iteration (a pointer phi in
    the loop header); `start` is sized for `step * max_trip` more elements."""

    buffer: Buffer
    start: Affine
    step: int
    span: int  # step * the loop's max_trip: how far past `start` it may go


@dataclass(eq=False)
class CursorAddr(Addr):
    """The element a loop's `Cursor` points at in this iteration."""

    cursor: Cursor


@dataclass(eq=False)
class Block(Addr):
    """`expr & (count - size)`: the first of `size` consecutive elements (count
    and size powers of two), for a `memcpy` source."""

    expr: Expr
    size: int

    def exprs(self) -> tuple[Expr, ...]:
        return (self.expr,)


@dataclass(eq=False)
class Load(Expr):
    buffer: Buffer
    addr: Addr
    access: Access = field(default_factory=Access)

    @property
    def ty(self) -> Ty:  # type: ignore[override]
        return self.buffer.elem

    def children(self) -> tuple[Expr, ...]:
        return self.addr.exprs()


@dataclass(eq=False)
class PrivLoad(Expr):
    array: PrivArray
    index: Expr  # wrapped into the array by the emitter
    access: Access = field(default_factory=Access)
    # Read one scalar of an array of vectors: the array seen as
    # `size * lanes` scalars (what a union of a vector and an array does).
    view: bool = False
    # `(cond, other)`: read through `select(cond, &a[index], &a[other])`.
    choice: tuple[Expr, Expr] | None = None

    @property
    def ty(self) -> Ty:  # type: ignore[override]
        return self.array.elem.scalar if self.view else self.array.elem

    def children(self) -> tuple[Expr, ...]:
        return (self.index,) if self.choice is None else (self.index, *self.choice)


# OpenCL C builtins the generator calls, each computed exactly by the
# oracle's runtime: name -> (arity, kind). `float`: float types (results
# the same type); `int`: integer types; `rel`: floats in, an integer of
# the same width out (a vector gives -1/0 per lane, a scalar 1/0).
OPENCL_BUILTINS = {
    "fabs": (1, "float"), "floor": (1, "float"), "ceil": (1, "float"), "trunc": (1, "float"),
    "rint": (1, "float"), "round": (1, "float"), "sqrt": (1, "float"), "fmin": (2, "float"),
    "fmax": (2, "float"), "fma": (3, "float"), "mad": (3, "float"),
    "abs": (1, "int"), "max": (2, "int"), "min": (2, "int"), "clz": (1, "int"),
    "popcount": (1, "int"),
    "isnan": (1, "rel"), "isinf": (1, "rel"), "isfinite": (1, "rel"), "isnormal": (1, "rel"),
    "signbit": (1, "rel"), "isless": (2, "rel"), "isgreater": (2, "rel"), "isequal": (2, "rel"),
    # The runtime computes these with LLVM's intrinsics, per lane, in the
    # scalar and the vector kernel alike.
    "sin": (1, "float"), "cos": (1, "float"), "exp": (1, "float"), "exp2": (1, "float"),
    "log": (1, "float"), "log2": (1, "float"), "log10": (1, "float"), "atan": (1, "float"),
    "tan": (1, "float"), "pow": (2, "float"), "fmod": (2, "float"), "exp10": (1, "float"),
    "copysign": (2, "float"),  # the sign from a constant or a load (exact bits), as for llvm.copysign
    # `convert_<type>` (not saturating, not from a float to an integer:
    # that is undefined out of range): the result type names the builtin.
    "convert": (1, "convert"),
}


@dataclass(eq=False)
class Builtin(Expr):
    """A call to an OpenCL C builtin (`OPENCL_BUILTINS`), mangled by the
    emitter; `signed` picks the signed or unsigned integer overload."""

    name: str
    args: tuple[Expr, ...]
    ty: Ty
    signed: bool = True
    suffix: str = ""  # `convert_`: a rounding mode (`_rte`...), only between integers where it changes nothing
    # The overload as OpenCL C types (`uint4`, `float`; `int4*` a private
    # output pointer), mangled by the builtin library (`fuzz.builtin_calls`);
    # empty for the collectives and the older `OPENCL_BUILTINS` spelling.
    params: tuple[str, ...] = ()
    # A second result written through a pointer (`frexp`, `sincos`...): the
    # pointee type; `part` 0 gives the call's result, 1 what it wrote.
    out: Ty | None = None
    part: int = 0
    noinline: bool = False  # on the call: the vectorizer keeps it a call (lane by lane)

    def children(self) -> tuple[Expr, ...]:
        return self.args


@dataclass(eq=False)
class VLoad(Expr):
    """`vload<N>(offset, &buf[0])`: N consecutive elements of `buffer` from
    `offset * N` (`offset` is `expr & (count/N - 1)`, so it stays inside);
    or, with `base`, `vload<N>(offset, &buf[base])` for a constant `offset`
    (0 or 1): the buffer is sized for `base + (offset + 1) * N`."""

    buffer: Buffer
    lanes: int
    expr: Expr
    base: Affine | None = None
    offset: int = 0
    # `vload_half` / `vloada_half`: N halfs of a half buffer read as floats
    # (`vloada_half` only where the address is aligned to the N halfs: at
    # the buffer's start, or a scalar).
    half: str = ""
    # A masked gather instead (`llvm.masked.gather` of the same N elements):
    # lanes where `mask` (an N x i1 expression) is false read nothing and
    # give `passthru`'s lane (what a target without fast gathers must keep).
    mask: Expr | None = None
    passthru: Expr | None = None

    @property
    def ty(self) -> Ty:  # type: ignore[override]
        return Ty("f32", self.lanes) if self.half else self.buffer.elem.with_lanes(self.lanes)

    def children(self) -> tuple[Expr, ...]:
        if self.mask is not None and self.passthru is not None:
            return (self.expr, self.mask, self.passthru)
        return (self.expr,)


@dataclass(eq=False)
class PtrDiff(Expr):
    """`(ptrtoint &buf[a] - ptrtoint &buf[b]) / sizeof(elem)` (`sdiv exact`):
    the element distance of two addresses, as C's pointer subtraction."""

    buffer: Buffer
    a: Addr
    b: Addr
    ty: Ty = I64

    def children(self) -> tuple[Expr, ...]:
        return (*self.a.exprs(), *self.b.exprs())


@dataclass(eq=False)
class PtrCmp(Expr):
    """`icmp pred ptr &buf[a], &buf[b]`: two addresses into one buffer compared."""

    pred: str
    buffer: Buffer
    a: Addr
    b: Addr
    ty: Ty = I1

    def children(self) -> tuple[Expr, ...]:
        return (*self.a.exprs(), *self.b.exprs())


@dataclass(eq=False)
class Call(Expr):
    helper: Helper
    args: tuple[Expr, ...]

    @property
    def ty(self) -> Ty:  # type: ignore[override]
        return self.helper.ret if self.helper.ret is not None else VOID

    def children(self) -> tuple[Expr, ...]:
        return self.args


@dataclass(eq=False)
class Extract(Expr):
    vec: Expr
    index: Expr | int  # a dynamic index is wrapped into the vector

    @property
    def ty(self) -> Ty:  # type: ignore[override]
        return self.vec.ty.scalar

    def children(self) -> tuple[Expr, ...]:
        return (self.vec,) if isinstance(self.index, int) else (self.vec, self.index)


@dataclass(eq=False)
class Insert(Expr):
    vec: Expr
    elem: Expr
    index: Expr | int

    @property
    def ty(self) -> Ty:  # type: ignore[override]
        return self.vec.ty

    def children(self) -> tuple[Expr, ...]:
        base = (self.vec, self.elem)
        return base if isinstance(self.index, int) else (*base, self.index)


@dataclass(eq=False)
class Shuffle(Expr):
    a: Expr
    b: Expr
    mask: tuple[int, ...]  # indices into a ++ b; the result has len(mask) lanes

    @property
    def ty(self) -> Ty:  # type: ignore[override]
        return self.a.ty.with_lanes(len(self.mask))

    def children(self) -> tuple[Expr, ...]:
        return (self.a, self.b)


@dataclass(eq=False)
class Splat(Expr):
    a: Expr
    lanes: int

    @property
    def ty(self) -> Ty:  # type: ignore[override]
        return self.a.ty.with_lanes(self.lanes)

    def children(self) -> tuple[Expr, ...]:
        return (self.a,)


# ---------------------------------------------------------------------------
# Statements


class Stmt:
    """A statement (subclasses are dataclasses)."""

    def exprs(self) -> tuple[Expr, ...]:
        return ()

    def blocks(self) -> tuple[list[Stmt], ...]:
        return ()


@dataclass(eq=False)
class Let(Stmt):
    var: Var
    value: Expr

    def exprs(self) -> tuple[Expr, ...]:
        return (self.value,)


@dataclass(eq=False)
class Assign(Stmt):
    var: Var
    value: Expr

    def exprs(self) -> tuple[Expr, ...]:
        return (self.value,)


@dataclass(eq=False)
class If(Stmt):
    cond: Expr
    then: list[Stmt]
    els: list[Stmt] = field(default_factory=list)

    def exprs(self) -> tuple[Expr, ...]:
        return (self.cond,)

    def blocks(self) -> tuple[list[Stmt], ...]:
        return (self.then, self.els)


@dataclass(eq=False)
class Loop(Stmt):
    """`for (counter = 0; counter < trip; counter++)` (kind `for`) or its
    bottom-tested form (kind `do`, at least one iteration). The trip count is
    `trip` bounded into `[0, max_trip]` by `bound` (`and`: `trip & max_trip`
    with max_trip = 2^k-1, `urem`: `trip urem (max_trip+1)`, `umin`).
    `carried_exit` (kind `do` only): the same iterations, but the exit test
    is computed one iteration ahead and carried in a header phi, which the
    latch branches on."""

    counter: Var
    kind: str
    trip: Expr
    bound: str
    max_trip: int
    body: list[Stmt]
    cursor: Cursor | None = None
    carried_exit: bool = False

    def exprs(self) -> tuple[Expr, ...]:
        return (self.trip,)

    def blocks(self) -> tuple[list[Stmt], ...]:
        return (self.body,)


@dataclass(eq=False)
class Break(Stmt):
    """Leave the innermost loop (`levels=1`) or `levels` loops at once."""

    levels: int = 1


@dataclass(eq=False)
class Continue(Stmt):
    pass


@dataclass(eq=False)
class Return(Stmt):
    """Early return from the kernel."""


@dataclass(eq=False)
class SwitchCase:
    values: tuple[int, ...]
    body: list[Stmt]
    fallthrough: bool = False  # continue into the next case's body


@dataclass(eq=False)
class Switch(Stmt):
    """`switch (sel & 7)` (`sel` an i32 or i64): the selector is wrapped by the emitter too."""

    sel: Expr
    cases: list[SwitchCase]
    default: list[Stmt]

    def exprs(self) -> tuple[Expr, ...]:
        return (self.sel,)

    def blocks(self) -> tuple[list[Stmt], ...]:
        return (*(c.body for c in self.cases), self.default)


@dataclass(eq=False)
class Store(Stmt):
    """Store into one of this work-item's own slots of an output buffer."""

    buffer: Buffer
    slot: int
    value: Expr
    access: Access = field(default_factory=Access)

    def exprs(self) -> tuple[Expr, ...]:
        return (self.value,)


@dataclass(eq=False)
class UniformStore(Stmt):
    """Store a work-item-invariant value at a fixed index (every work-item
    that gets there stores the same value, so the order does not matter)."""

    buffer: Buffer
    index: int
    value: Expr

    def exprs(self) -> tuple[Expr, ...]:
        return (self.value,)


# Operations that commute with each other on one location.
ATOMIC_FAMILIES = (("add", "sub"), ("or",), ("and",), ("xor",), ("max",), ("min",), ("umax",), ("umin",))


@dataclass(eq=False)
class Atomic(Stmt):
    """`atomicrmw op` on a counter (commutative; the old value is discarded)."""

    buffer: Buffer
    op: str
    index: Expr | int  # a dynamic index is wrapped into the counter buffer
    value: Expr
    ordering: str = "monotonic"
    # `add`/`sub` done as a compare-and-swap loop on an atomic load of the
    # counter (it succeeds on the first try: work-items run one at a time).
    cas: bool = False
    # Spelled as a call to OpenCL C's `atom_<op>` or `atomic_<op>` (the
    # library's definition is the same `atomicrmw`, `seq_cst`); `step`: the
    # `_inc`/`_dec` form (`value` is then the constant 1 it adds or subtracts).
    builtin: str = ""
    step: bool = False
    # A memory fence before the update: `mem_fence`, `read_mem_fence` or
    # `write_mem_fence` (a call with CLK_GLOBAL_MEM_FENCE), or `inst` (LLVM's
    # `fence`, as `atomic_work_item_fence` lowers). Work-items of the
    # reference run one at a time, so it orders nothing there; the
    # vectorized kernel must keep it harmless.
    fence: str = ""

    def exprs(self) -> tuple[Expr, ...]:
        return (self.value,) if isinstance(self.index, int) else (self.value, self.index)


@dataclass(eq=False)
class PrivStore(Stmt):
    array: PrivArray
    index: Expr
    value: Expr
    access: Access = field(default_factory=Access)

    def exprs(self) -> tuple[Expr, ...]:
        return (self.index, self.value)


@dataclass(eq=False)
class PrivInit(Stmt):
    """Fill a private array at once: zeros (`llvm.memset`), or `size`
    consecutive elements of an input buffer (`llvm.memcpy`, from `addr`)."""

    array: PrivArray
    source: Buffer | None = None
    addr: Block | None = None
    other: PrivArray | None = None  # `llvm.memcpy` from another private array (as large or larger)

    def exprs(self) -> tuple[Expr, ...]:
        return self.addr.exprs() if self.addr is not None else ()


@dataclass(eq=False)
class CopyOut(Stmt):
    """Bulk writes of `count` consecutive own slots, from `slot` on, of an
    output or `__local` buffer: `llvm.memcpy` from a private array
    (`array`) or from an input buffer (`source` at `addr`), `llvm.memset`
    to 0 (neither), or with `move`, `llvm.memmove` of slots `slot ..` to
    `slot+1 ..` (overlapping, inside the work-item's own `count + 1`)."""

    buffer: Buffer
    slot: int
    count: int
    array: PrivArray | None = None
    source: Buffer | None = None
    addr: Block | None = None
    move: bool = False

    def exprs(self) -> tuple[Expr, ...]:
        return self.addr.exprs() if self.addr is not None else ()


@dataclass(eq=False)
class VStore(Stmt):
    """`vstore<N>(value, offset, &buf[own slot])`: N consecutive own slots
    (from `slot + offset * N`) of an output buffer of `value`'s element type."""

    buffer: Buffer
    slot: int
    value: Expr
    offset: int = 0

    def exprs(self) -> tuple[Expr, ...]:
        return (self.value,)


@dataclass(eq=False)
class Printf(Stmt):
    """`printf(format, args...)` (scalars; floats passed as double). The
    oracle does not compare what is printed: it checks the arguments'
    evaluation and the call's place in the control flow."""

    fmt: str
    args: tuple[Expr, ...]

    def exprs(self) -> tuple[Expr, ...]:
        return self.args


@dataclass(eq=False)
class CallStmt(Stmt):
    """A call whose result is unused (a helper with side effects)."""

    call: Call

    def exprs(self) -> tuple[Expr, ...]:
        return (self.call,)


@dataclass(eq=False)
class Barrier(Stmt):
    """A work-group barrier, reached by every work-item of the group (the
    planner only places it in work-group-uniform control flow). `fence`:
    CLK_LOCAL_MEM_FENCE (1), CLK_GLOBAL_MEM_FENCE (2) or both (3);
    `spelling`: `barrier` or `work_group_barrier` (a kernel whose work-item
    queries are spelt `__mux_*` calls `__mux_work_group_barrier`)."""

    fence: int = 1
    spelling: str = "barrier"


@dataclass(eq=False)
class TreeReduce(Stmt):
    """Combine the group's `tile` (one value per work-item) into slot 0 with
    `op`, a round per level of a tree, a barrier after each round:
    `halving` (`for (s = P/2; s > 0; s >>= 1) if (llin < s && llin + s < L)
    t[llin] op= t[llin + s]`, P the power of two at or above the largest
    group: a constant trip count) or `doubling` (`for (s = 1; s < L; s <<= 1)
    if (llin % 2s == 0 && llin + s < L) ...`: a trip count read from the
    group's size). Readers and writers of a round touch disjoint slots."""

    tile: Buffer
    op: str
    form: str
    barrier: Barrier


@dataclass(eq=False)
class PrefixScan(Stmt):
    """Inclusive scan of the group's `tile` with `op` (Hillis and Steele):
    `for (off = 1; off < L; off <<= 1) { x = llin >= off ? t[llin - off] :
    _; barrier; if (llin >= off) t[llin] = t[llin] op x; barrier; }`."""

    tile: Buffer
    op: str
    barrier: Barrier


# Control-flow shapes real kernels have and the statements above never make
# (fuzz.cfg_shapes). Their guards are never true for the header's arguments
# and NDRanges, so a trap or an endless loop is never reached at run time,
# but nothing in the kernel lets a compiler prove it.


@dataclass(eq=False)
class Trap(Stmt):
    """`if (guard) __builtin_trap();`: `call @llvm.trap` then `unreachable`,
    a second exit block beside the `ret`. `guard` is never true."""

    guard: Expr

    def exprs(self) -> tuple[Expr, ...]:
        return (self.guard,)


@dataclass(eq=False)
class Spin(Stmt):
    """`if (guard) for (counter = 0;; counter++) { body }`: a loop with no
    exit, never entered (`guard` is never true). `body`: stores only."""

    guard: Expr
    counter: Var
    body: list[Stmt]

    def exprs(self) -> tuple[Expr, ...]:
        return (self.guard,)

    def blocks(self) -> tuple[list[Stmt], ...]:
        return (self.body,)


@dataclass(eq=False)
class Irreducible(Stmt):
    """A cycle of two blocks entered at either: `cond` picks the first block
    `a` or the second `b`; `a` runs `first` and goes on to `b`, `b` runs
    `second` and goes back to `a`, both counting one step in `counter` and
    leaving once it reaches `trip & 7` (at least one step). Bodies: stores
    only; the counter is the only variable they see."""

    cond: Expr
    counter: Var
    trip: Expr
    first: list[Stmt]
    second: list[Stmt]

    def exprs(self) -> tuple[Expr, ...]:
        return (self.cond, self.trip)

    def blocks(self) -> tuple[list[Stmt], ...]:
        return (self.first, self.second)


# ---------------------------------------------------------------------------
# Functions


@dataclass(eq=False)
class Helper:
    """A generated helper function called by the kernel.

    Its parameters are `params` (values), then, if it has side effects, the
    output buffer and the caller's slot base (`out`), then the counter
    (`counter`). `ret` None means void."""

    name: str
    params: list[Var]
    ret: Ty | None
    body: list[Stmt]
    result: Expr | None
    out: Buffer | None = None
    counter: Buffer | None = None
    # Bounded recursion (fuzz/recursion.py): `depth` (an i32, the last of
    # `params`) is tested first, `if (depth <= 0) return base;`, and
    # `result` calls this helper or its partner with `depth - 1`.
    depth: Var | None = None
    base: Expr | None = None

    @property
    def has_side_effects(self) -> bool:
        return self.out is not None or self.counter is not None

    @property
    def recursive(self) -> bool:
        return self.depth is not None


@dataclass(eq=False)
class KernelPlan:
    """A whole kernel: NDRanges, arguments, helpers, private arrays, body."""

    name: str
    ndranges: list[NDRange]
    params: list[Param]
    arrays: list[PrivArray]
    helpers: list[Helper]
    body: list[Stmt]
    lin_form: str = "global"  # how Lin is computed: `global` or `group`
    dims: int = 1
    # The scalar argument that work-item queries may take as their dimension.
    dim_param: ScalarParam | None = None
    # Work-item builtins spelled `opencl` (`_Z13get_global_idj`) or `mux` (`__mux_get_global_id`).
    builtins: str = "opencl"
    origin: str = ""
    buffer_seed: int = 0
    # `__local` tiles declared as module-level `addrspace(3)` globals.
    local_globals: list[Buffer] = field(default_factory=list)

    @property
    def buffers(self) -> list[Buffer]:
        return [p for p in self.params if isinstance(p, Buffer)]

    @property
    def scalars(self) -> list[ScalarParam]:
        return [p for p in self.params if isinstance(p, ScalarParam)]

    @property
    def max_total(self) -> int:
        return max(r.total for r in self.ndranges)

    @property
    def max_local_total(self) -> int:
        """The most work-items of one work-group in any NDRange."""
        return max(r.local_size[0] * r.local_size[1] * r.local_size[2] for r in self.ndranges)

    def max_base(self, base: str, dim: int | ScalarParam) -> int:
        """The largest value the work-item id `base` of `dim` takes in any NDRange."""
        return max_id(self.ndranges, base, dim)

    def args_header(self) -> str:
        parts = []
        for p in self.params:
            if isinstance(p, Buffer):
                parts.append(p.header)
            else:
                parts.append(f"scalar:{p.ty.header}:{format_scalar(p.value)}")
        return " ".join(parts)


def max_id(ndranges: list[NDRange], base: str, dim: int | ScalarParam) -> int:
    """The largest value work-item id `base` (`lin`, `gid`, `lid`, `grp`) of
    `dim` takes in any of `ndranges`; for a run-time dimension, of any
    dimension (one out of range answers 0)."""
    dims = [dim] if isinstance(dim, int) else [0, 1, 2]
    out = 0
    for r in ndranges:
        for d in dims:
            g, lo, off = r.global_size[d], r.local_size[d], r.offset[d]
            out = max(out, {
                "lin": r.total - 1,
                "gid": off + g - 1,
                "lid": lo - 1,
                "grp": g // lo - 1,
            }[base])
    return out


def format_scalar(v: int | float) -> str:
    if isinstance(v, float):
        return repr(v)
    return str(v)


# ---------------------------------------------------------------------------
# Walkers


def walk_stmts(body: list[Stmt]) -> Iterator[tuple[Stmt, int]]:
    """Every statement, pre-order, with its nesting depth."""

    def go(stmts: list[Stmt], depth: int) -> Iterator[tuple[Stmt, int]]:
        for s in stmts:
            yield s, depth
            for b in s.blocks():
                yield from go(b, depth + 1)

    yield from go(body, 0)


def walk_expr(e: Expr) -> Iterator[Expr]:
    """`e` and every sub-expression, pre-order (addresses included)."""
    stack = [e]
    while stack:
        x = stack.pop()
        yield x
        stack.extend(reversed(x.children()))


def assigned_vars(body: list[Stmt]) -> list[Var]:
    """Variables assigned (not declared) anywhere in `body`, first-assignment order."""
    seen: dict[int, Var] = {}
    for s, _ in walk_stmts(body):
        if isinstance(s, Assign) and s.var.id not in seen:
            seen[s.var.id] = s.var
    return list(seen.values())
