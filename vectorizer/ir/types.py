"""LLVM types for the Python IR.

Types are immutable and hashable (named structs excepted: their body is filled
in after creation, because LLVM text may mention a named struct before its
definition, so they compare and hash by name). `str(t)` is LLVM syntax.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "Type",
    "IntType",
    "FloatType",
    "PointerType",
    "VectorType",
    "ArrayType",
    "StructType",
    "FunctionType",
    "VoidType",
    "LabelType",
    "MetadataType",
    "TokenType",
    "OpaqueType",
    "FLOAT_KINDS",
    "i1",
    "i8",
    "i16",
    "i32",
    "i64",
    "f16",
    "f32",
    "f64",
    "ptr",
    "void",
    "label",
    "metadata",
    "token",
    "is_vector",
    "scalar_type",
    "vector_of",
    "size_in_bits",
    "quote_name",
]

# Names LLVM prints bare; anything else is quoted (see `quote_name`).
_BARE_NAME = re.compile(r"[A-Za-z$._-][A-Za-z0-9$._-]*\Z")


def quote_name(name: str) -> str:
    """Spell a symbol name as LLVM does: bare when it can be, else `"..."` with
    `\\XX` escapes for quotes, backslashes and non-printable bytes."""
    if _BARE_NAME.match(name):
        return name
    out = []
    for byte in name.encode("utf-8", "surrogateescape"):
        if byte == 0x22 or byte == 0x5C or byte < 0x20 or byte > 0x7E:
            out.append(f"\\{byte:02X}")
        else:
            out.append(chr(byte))
    return '"' + "".join(out) + '"'


class Type:
    """Base of all IR types."""

    __slots__ = ()

    @property
    def is_vector(self) -> bool:
        """True for fixed and scalable vector types."""
        return False

    @property
    def is_first_class(self) -> bool:
        """True for types a value (other than a label) may have."""
        return not isinstance(self, (VoidType, FunctionType, LabelType))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self}>"


@dataclass(frozen=True, slots=True, repr=False)
class IntType(Type):
    """`iN`."""

    bits: int

    def __str__(self) -> str:
        return f"i{self.bits}"


FLOAT_KINDS: dict[str, int] = {
    "half": 16,
    "bfloat": 16,
    "float": 32,
    "double": 64,
    "fp128": 128,
    "x86_fp80": 80,
    "ppc_fp128": 128,
}


@dataclass(frozen=True, slots=True, repr=False)
class FloatType(Type):
    """A floating-point type named by LLVM's keyword (`float`, `half`, ...)."""

    kind: str

    def __post_init__(self) -> None:
        if self.kind not in FLOAT_KINDS:
            raise ValueError(f"unknown floating-point type {self.kind!r}")

    @property
    def bits(self) -> int:
        """Storage width in bits."""
        return FLOAT_KINDS[self.kind]

    def __str__(self) -> str:
        return self.kind


@dataclass(frozen=True, slots=True, repr=False)
class PointerType(Type):
    """An opaque pointer, `ptr` or `ptr addrspace(N)`."""

    addrspace: int = 0

    def __str__(self) -> str:
        return "ptr" if self.addrspace == 0 else f"ptr addrspace({self.addrspace})"


@dataclass(frozen=True, slots=True, repr=False)
class VectorType(Type):
    """`<N x T>` or, when `scalable`, `<vscale x N x T>`."""

    element: Type
    count: int
    scalable: bool = False

    @property
    def is_vector(self) -> bool:
        return True

    def __str__(self) -> str:
        if self.scalable:
            return f"<vscale x {self.count} x {self.element}>"
        return f"<{self.count} x {self.element}>"


@dataclass(frozen=True, slots=True, repr=False)
class ArrayType(Type):
    """`[N x T]`."""

    element: Type
    count: int

    def __str__(self) -> str:
        return f"[{self.count} x {self.element}]"


class StructType(Type):
    """A literal struct (`{ i32, float }`, `<{ ... }>` when packed) or a named
    one (`%struct.S`), possibly opaque.

    Named structs are identified by name: their body can be set after creation
    (`set_body`) because a definition may refer to a struct defined later.
    """

    __slots__ = ("elements", "packed", "name", "opaque")

    elements: tuple[Type, ...]
    packed: bool
    name: str | None
    opaque: bool

    def __init__(
        self,
        elements: tuple[Type, ...] | list[Type] = (),
        packed: bool = False,
        name: str | None = None,
        opaque: bool = False,
    ) -> None:
        self.elements = tuple(elements)
        self.packed = packed
        self.name = name
        self.opaque = opaque

    def set_body(self, elements: tuple[Type, ...] | list[Type], packed: bool = False) -> None:
        """Give a named struct its body (no longer opaque)."""
        self.elements = tuple(elements)
        self.packed = packed
        self.opaque = False

    @property
    def body_str(self) -> str:
        """The struct body as written in a `%T = type ...` definition."""
        if self.opaque:
            return "opaque"
        if not self.elements:
            return "<{}>" if self.packed else "{}"
        inner = ", ".join(str(e) for e in self.elements)
        return f"<{{ {inner} }}>" if self.packed else f"{{ {inner} }}"

    def __str__(self) -> str:
        if self.name is not None:
            return "%" + quote_name(self.name)
        return self.body_str

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, StructType):
            return NotImplemented
        if self.name is not None or other.name is not None:
            return self.name == other.name
        return self.elements == other.elements and self.packed == other.packed

    def __hash__(self) -> int:
        if self.name is not None:
            return hash(("struct", self.name))
        return hash(("struct", self.elements, self.packed))


@dataclass(frozen=True, slots=True, repr=False)
class FunctionType(Type):
    """`R (P1, P2, ...)`."""

    return_type: Type
    params: tuple[Type, ...]
    vararg: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.params, tuple):
            object.__setattr__(self, "params", tuple(self.params))

    def __str__(self) -> str:
        ps = [str(p) for p in self.params]
        if self.vararg:
            ps.append("...")
        return f"{self.return_type} ({', '.join(ps)})"


@dataclass(frozen=True, slots=True, repr=False)
class VoidType(Type):
    """`void`."""

    def __str__(self) -> str:
        return "void"


@dataclass(frozen=True, slots=True, repr=False)
class LabelType(Type):
    """`label`, the type of basic blocks."""

    def __str__(self) -> str:
        return "label"


@dataclass(frozen=True, slots=True, repr=False)
class MetadataType(Type):
    """`metadata`, the type of metadata-as-value operands."""

    def __str__(self) -> str:
        return "metadata"


@dataclass(frozen=True, slots=True, repr=False)
class TokenType(Type):
    """`token`."""

    def __str__(self) -> str:
        return "token"


@dataclass(frozen=True, slots=True, repr=False)
class OpaqueType(Type):
    """A type kept verbatim: target extension types (`target("spirv.Event")`),
    `x86_amx`, and anything else the IR does not model."""

    text: str

    def __str__(self) -> str:
        return self.text


i1 = IntType(1)
i8 = IntType(8)
i16 = IntType(16)
i32 = IntType(32)
i64 = IntType(64)
f16 = FloatType("half")
f32 = FloatType("float")
f64 = FloatType("double")
ptr = PointerType(0)
void = VoidType()
label = LabelType()
metadata = MetadataType()
token = TokenType()


def is_vector(t: Type) -> bool:
    """True if `t` is a (fixed or scalable) vector type."""
    return isinstance(t, VectorType)


def scalar_type(t: Type) -> Type:
    """The element type of a vector, else `t` itself."""
    return t.element if isinstance(t, VectorType) else t


def vector_of(t: Type, n: int, scalable: bool = False) -> VectorType:
    """`<n x t>` (the element of `t` if `t` is already a vector)."""
    return VectorType(scalar_type(t), n, scalable)


def size_in_bits(t: Type, pointer_bits: int = 64) -> int:
    """Size in bits of a sized first-class type, without any data-layout
    padding (struct elements and array elements are packed back to back).

    Pointers are `pointer_bits` wide. Raises `TypeError` for unsized types.
    """
    if isinstance(t, IntType):
        return t.bits
    if isinstance(t, FloatType):
        return t.bits
    if isinstance(t, PointerType):
        return pointer_bits
    if isinstance(t, VectorType):
        if t.scalable:
            raise TypeError(f"{t} has no fixed size")
        return t.count * size_in_bits(t.element, pointer_bits)
    if isinstance(t, ArrayType):
        return t.count * size_in_bits(t.element, pointer_bits)
    if isinstance(t, StructType) and not t.opaque:
        return sum(size_in_bits(e, pointer_bits) for e in t.elements)
    raise TypeError(f"{t} is not a sized type")
