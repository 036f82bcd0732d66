"""OpenCL C types of builtin signatures, and their LLVM (spir64) types.

A `CLType` is a scalar or vector of one OpenCL element type, or a pointer to
one with an address space and a const qualifier. Only what builtin
signatures use is modelled: no structs, images or events (later phases add
them as new kinds).
"""

from __future__ import annotations

from dataclasses import dataclass

# OpenCL element type -> (Itanium code, LLVM type, bits, kind) with kind one of
# "s" (signed integer), "u" (unsigned integer), "f" (floating point).
ELEMENTS: dict[str, tuple[str, str, int, str]] = {
    "char": ("c", "i8", 8, "s"),
    "uchar": ("h", "i8", 8, "u"),
    "short": ("s", "i16", 16, "s"),
    "ushort": ("t", "i16", 16, "u"),
    "int": ("i", "i32", 32, "s"),
    "uint": ("j", "i32", 32, "u"),
    "long": ("l", "i64", 64, "s"),
    "ulong": ("m", "i64", 64, "u"),
    "half": ("Dh", "half", 16, "f"),
    "float": ("f", "float", 32, "f"),
    "double": ("d", "double", 64, "f"),
}
CODE_TO_ELEMENT = {code: name for name, (code, *_rest) in ELEMENTS.items()}
# `schar` is mangled like char; `bool` and `void` appear only as `v` (no params).
CODE_TO_ELEMENT["a"] = "char"

INTEGERS = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong")
SIGNED = ("char", "short", "int", "long")
UNSIGNED = ("uchar", "ushort", "uint", "ulong")
FLOATS = ("half", "float", "double")
WIDTHS = (1, 2, 3, 4, 8, 16)

# SPIR address spaces.
PRIVATE, GLOBAL, CONSTANT, LOCAL, GENERIC = 0, 1, 2, 3, 4
ADDRESS_SPACES = (PRIVATE, GLOBAL, CONSTANT, LOCAL, GENERIC)


@dataclass(frozen=True)
class CLType:
    """An OpenCL scalar (`width == 1`), vector, or pointer (`pointee` set)."""

    elem: str = ""
    width: int = 1
    pointee: CLType | None = None
    addrspace: int = 0
    const: bool = False

    # -- constructors -------------------------------------------------------
    @staticmethod
    def of(elem: str, width: int = 1) -> CLType:
        return CLType(elem, width)

    def ptr(self, addrspace: int = 0, const: bool = False) -> CLType:
        return CLType("", 1, self, addrspace, const)

    def with_elem(self, elem: str) -> CLType:
        return CLType(elem, self.width)

    def scalar(self) -> CLType:
        return CLType(self.elem)

    # -- queries ------------------------------------------------------------
    @property
    def is_pointer(self) -> bool:
        return self.pointee is not None

    @property
    def kind(self) -> str:
        return ELEMENTS[self.elem][3]

    @property
    def bits(self) -> int:
        return ELEMENTS[self.elem][2]

    @property
    def is_float(self) -> bool:
        return not self.is_pointer and self.kind == "f"

    @property
    def is_int(self) -> bool:
        return not self.is_pointer and self.kind in "su"

    @property
    def signed(self) -> bool:
        return self.kind == "s"

    @property
    def llvm_elem(self) -> str:
        return ELEMENTS[self.elem][1]

    @property
    def llvm(self) -> str:
        """The LLVM type: `float`, `<4 x i32>`, `ptr addrspace(1)`."""
        if self.pointee is not None:
            return f"ptr addrspace({self.addrspace})" if self.addrspace else "ptr"
        e = self.llvm_elem
        return f"<{self.width} x {e}>" if self.width > 1 else e

    def __str__(self) -> str:
        if self.pointee is not None:
            names = {0: "private", 1: "global", 2: "constant", 3: "local", 4: "generic"}
            return f"{'const ' if self.const else ''}{names.get(self.addrspace, self.addrspace)} {self.pointee}*"
        return f"{self.elem}{self.width if self.width > 1 else ''}"


def integer_of_size(bits: int, signed: bool = True) -> str:
    """The OpenCL integer element type of `bits` bits."""
    return {8: "char", 16: "short", 32: "int", 64: "long"}[bits] if signed else {
        8: "uchar", 16: "ushort", 32: "uint", 64: "ulong"}[bits]
