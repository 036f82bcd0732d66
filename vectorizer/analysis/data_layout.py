"""Type sizes and alignments from a module's datalayout string.

The stride analysis needs byte sizes of GEP source types and struct field
offsets; the packetizer needs alloc sizes for private arrays. This reads the
parts of LLVM's datalayout grammar that decide them (pointer size, integer,
float and vector alignments) and applies LLVM's layout rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..ir import types as T


def _pow2_ceil(n: int) -> int:
    p = 1
    while p < n:
        p <<= 1
    return p


@dataclass
class DataLayout:
    """Sizes (in bytes) and ABI alignments of IR types."""

    pointer_bits: dict[int, int] = field(default_factory=lambda: {0: 64})
    int_align: dict[int, int] = field(
        default_factory=lambda: {1: 1, 8: 1, 16: 2, 32: 4, 64: 8, 128: 16}
    )
    float_align: dict[int, int] = field(default_factory=lambda: {16: 2, 32: 4, 64: 8, 80: 16, 128: 16})

    @classmethod
    def parse(cls, text: str | None) -> DataLayout:
        """Build from a datalayout string (`e-p:32:32-i64:64-...`); defaults are x86-64's."""
        dl = cls()
        for spec in (text or "").split("-"):
            m = re.match(r"^p(\d*):(\d+):(\d+)", spec)
            if m:
                dl.pointer_bits[int(m.group(1) or 0)] = int(m.group(2))
                continue
            m = re.match(r"^([if])(\d+):(\d+)", spec)
            if m:
                table = dl.int_align if m.group(1) == "i" else dl.float_align
                table[int(m.group(2))] = max(1, int(m.group(3)) // 8)
        return dl

    def pointer_size(self, addrspace: int = 0) -> int:
        return self.pointer_bits.get(addrspace, self.pointer_bits.get(0, 64)) // 8

    def store_size(self, ty: T.Type) -> int:
        """Bytes a load or store of `ty` touches."""
        if isinstance(ty, T.IntType):
            return (ty.bits + 7) // 8
        if isinstance(ty, T.VectorType):
            return (self._bits(ty.element) * ty.count + 7) // 8
        return self.alloc_size(ty)

    def _bits(self, ty: T.Type) -> int:
        if isinstance(ty, T.IntType):
            return ty.bits
        if isinstance(ty, T.FloatType):
            return {"half": 16, "bfloat": 16, "float": 32, "double": 64, "fp128": 128,
                    "x86_fp80": 80, "ppc_fp128": 128}[ty.kind]
        if isinstance(ty, T.PointerType):
            return self.pointer_size(ty.addrspace) * 8
        raise ValueError(f"no bit width for {ty}")

    def abi_align(self, ty: T.Type) -> int:
        """ABI alignment in bytes."""
        if isinstance(ty, T.IntType):
            if ty.bits in self.int_align:
                return self.int_align[ty.bits]
            larger = [b for b in self.int_align if b >= ty.bits]
            return self.int_align[min(larger)] if larger else self.int_align[max(self.int_align)]
        if isinstance(ty, T.FloatType):
            return self.float_align.get(self._bits(ty), 8)
        if isinstance(ty, T.PointerType):
            return self.pointer_size(ty.addrspace)
        if isinstance(ty, T.VectorType):
            return _pow2_ceil(max(1, self.store_size(ty)))
        if isinstance(ty, T.ArrayType):
            return self.abi_align(ty.element)
        if isinstance(ty, T.StructType):
            if ty.packed or not ty.elements:
                return 1
            return max(self.abi_align(e) for e in ty.elements)
        raise ValueError(f"no alignment for {ty}")

    def alloc_size(self, ty: T.Type) -> int:
        """Bytes between consecutive elements of `ty` in an array (GEP scaling)."""
        if isinstance(ty, (T.IntType, T.FloatType)):
            size = (self._bits(ty) + 7) // 8
            if isinstance(ty, T.FloatType) and ty.kind == "x86_fp80":
                size = 10
            return _round_up(size, self.abi_align(ty))
        if isinstance(ty, T.PointerType):
            return self.pointer_size(ty.addrspace)
        if isinstance(ty, T.VectorType):
            return _round_up(self.store_size(ty), self.abi_align(ty))
        if isinstance(ty, T.ArrayType):
            return self.alloc_size(ty.element) * ty.count
        if isinstance(ty, T.StructType):
            offsets, size = self._struct_layout(ty)
            return size
        raise ValueError(f"no size for {ty}")

    def field_offset(self, ty: T.StructType, index: int) -> int:
        """Byte offset of field `index` of a struct."""
        return self._struct_layout(ty)[0][index]

    def _struct_layout(self, ty: T.StructType) -> tuple[list[int], int]:
        offsets: list[int] = []
        off = 0
        for e in ty.elements:
            if not ty.packed:
                off = _round_up(off, self.abi_align(e))
            offsets.append(off)
            off += self.alloc_size(e)
        align = self.abi_align(ty)
        return offsets, _round_up(off, align)


def _round_up(n: int, a: int) -> int:
    return (n + a - 1) // a * a
