"""Math builtins: which calls have an exact element-wise vector form.

Two sources of vectorizable math:
- LLVM intrinsics that are element-wise (`llvm.sqrt.f32` widens to
  `llvm.sqrt.v8f32`): the per-lane semantics are LLVM's, so widening is exact.
- OpenCL builtins whose result is exactly defined per lane (`fabs`, `floor`,
  `fmin`, integer `max`, ...), mapped to the element-wise intrinsic that
  computes the same value.
Anything else (transcendental OpenCL builtins, whose value depends on the
runtime's implementation) is instantiated lane by lane, which is exact by
construction, unless the module itself provides the vector overload.
"""

from __future__ import annotations

import re

from .mangling import demangle

# Element-wise LLVM intrinsics (base names, without type suffixes). For the
# ones listed in `_SCALAR_OPERANDS`, the given operand positions stay scalar
# (they are immediates, not per-lane values).
ELEMENTWISE_INTRINSICS = frozenset(
    """
    sqrt fabs floor ceil trunc rint nearbyint round roundeven copysign fma fmuladd
    minnum maxnum minimum maximum minimumnum maximumnum sin cos tan exp exp2 exp10
    log log2 log10 pow powi ldexp canonicalize smax smin umax umin abs ctpop ctlz cttz
    bitreverse bswap fshl fshr sadd.sat uadd.sat ssub.sat usub.sat sshl.sat ushl.sat
    fptosi.sat fptoui.sat is.fpclass expect
    """.split()
)
_SCALAR_OPERANDS: dict[str, tuple[int, ...]] = {
    "powi": (1,),
    "abs": (1,),
    "ctlz": (1,),
    "cttz": (1,),
    "is.fpclass": (1,),
    "ldexp": (),
}

_TYPE_SUFFIX = re.compile(r"^(f16|bf16|f32|f64|f80|f128|i\d+)$")


def split_intrinsic(name: str) -> tuple[str, list[str]] | None:
    """Split `llvm.<base>.<types...>` into its base and type suffixes."""
    if not name.startswith("llvm."):
        return None
    parts = name[5:].split(".")
    types: list[str] = []
    while parts and (_TYPE_SUFFIX.match(parts[-1]) or re.match(r"^v\d+", parts[-1])):
        types.insert(0, parts.pop())
    return ".".join(parts), types


def elementwise_intrinsic(name: str) -> str | None:
    """The base name if `name` is a scalar element-wise intrinsic, else None."""
    split = split_intrinsic(name)
    if split is None:
        return None
    base, types = split
    if base not in ELEMENTWISE_INTRINSICS or not types:
        return None
    if any(t.startswith("v") for t in types):
        return None  # already a vector intrinsic; the scalarizer's business
    return base


def scalar_operand_positions(base: str) -> tuple[int, ...]:
    """Operand positions of an element-wise intrinsic that are immediates, not lanes."""
    return _SCALAR_OPERANDS.get(base, ())


def appended_operands(intrinsic: str, given: int) -> tuple[tuple[int, int], ...]:
    """Constant operands `(bits, value)` to append when an OpenCL builtin with
    `given` operands is replaced by `intrinsic`: `abs(x)` is `llvm.abs(x, false)`
    (INT_MIN stays INT_MIN, read as unsigned by OpenCL)."""
    split = split_intrinsic(intrinsic)
    if split is not None and split[0] == "abs" and given == 1:
        return ((1, 0),)
    return ()


def widen_intrinsic_name(name: str, width: int) -> str:
    """`llvm.sqrt.f32` -> `llvm.sqrt.v8f32` (every type suffix becomes a vector)."""
    split = split_intrinsic(name)
    assert split is not None
    base, types = split
    return "llvm." + ".".join([base] + [f"v{width}{t}" for t in types])


# OpenCL builtin base name -> (intrinsic base, which element kinds it applies to).
_OPENCL_EXACT: dict[str, tuple[str, str]] = {
    "fabs": ("fabs", "float"),
    "floor": ("floor", "float"),
    "ceil": ("ceil", "float"),
    "trunc": ("trunc", "float"),
    "rint": ("rint", "float"),
    "round": ("round", "float"),
    "copysign": ("copysign", "float"),
    "fma": ("fma", "float"),
    "fmin": ("minimumnum", "float"),  # as the library: NaN ignored, -0 < +0
    "fmax": ("maximumnum", "float"),
    "sqrt": ("sqrt", "float"),
    "max": ("smax/umax", "int"),
    "min": ("smin/umin", "int"),
    "abs": ("abs", "int"),
    "popcount": ("ctpop", "int"),
}
_FLOAT_NAMES = {"float": "f32", "double": "f64", "half": "f16"}
_INT_NAMES = {
    "char": (8, True), "schar": (8, True), "uchar": (8, False), "short": (16, True),
    "ushort": (16, False), "int": (32, True), "uint": (32, False), "long": (64, True),
    "ulong": (64, False),
}


def opencl_builtin_as_intrinsic(name: str) -> tuple[str, tuple[int, ...]] | None:
    """An OpenCL scalar builtin with an exact intrinsic equivalent:
    returns the scalar intrinsic name and the operand positions that stay scalar.

    The intrinsic may take more operands than the builtin (`llvm.abs` has its
    poison flag): `appended_operands` gives the constants to add."""
    d = demangle(name)
    if d is None or d.name not in _OPENCL_EXACT or not d.params:
        return None
    if any(p.width or p.pointee is not None for p in d.params):
        return None
    if len({p.name for p in d.params}) != 1:
        return None
    base, kind = _OPENCL_EXACT[d.name]
    elem = d.params[0].name
    if kind == "float" and elem in _FLOAT_NAMES:
        return f"llvm.{base}.{_FLOAT_NAMES[elem]}", ()
    if kind == "int" and elem in _INT_NAMES:
        bits, signed = _INT_NAMES[elem]
        if "/" in base:
            base = base.split("/")[0 if signed else 1]
        elif base == "abs":
            if not signed:
                return None  # abs of an unsigned value is the value: no llvm.abs
            # OpenCL abs returns the unsigned magnitude; llvm.abs with
            # is_int_min_poison=false gives the same bits.
            return f"llvm.abs.i{bits}", (1,)
        return f"llvm.{base}.i{bits}", ()
    return None
