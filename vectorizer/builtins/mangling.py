"""A demangler for the subset of Itanium mangling that OpenCL builtins use.

OpenCL C builtins are overloaded C functions mangled as C++ names:
`_Z4sqrtf` is `sqrt(float)`, `_Z3maxDv4_iS_` is `max(int4, int4)`. Vecz
identifies builtins by demangling them; so do we. Only what builtins need is
supported: builtin and vector types, pointers with address spaces and
qualifiers, and substitutions (`S_`, `S0_`, ...).
"""

from __future__ import annotations

from dataclasses import dataclass

_BUILTIN_TYPES = {
    "v": "void", "b": "bool", "c": "char", "a": "schar", "h": "uchar", "s": "short",
    "t": "ushort", "i": "int", "j": "uint", "l": "long", "m": "ulong", "x": "longlong",
    "y": "ulonglong", "f": "float", "d": "double", "Dh": "half", "DF16_": "half",
}


@dataclass(frozen=True)
class MangledType:
    """A demangled parameter type: a scalar name, a vector of `width`, or a pointer."""

    name: str
    width: int = 0
    pointee: MangledType | None = None
    addrspace: int = 0
    const: bool = False

    def __str__(self) -> str:
        if self.pointee is not None:
            return f"{self.pointee}{' const' if self.const else ''} AS{self.addrspace}*"
        return f"{self.name}{self.width}" if self.width else self.name


@dataclass(frozen=True)
class Demangled:
    """A demangled builtin: its source name and parameter types."""

    name: str
    params: tuple[MangledType, ...]


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.subs: list[MangledType] = []

    def peek(self, n: int = 1) -> str:
        return self.text[self.pos : self.pos + n]

    def take(self, n: int = 1) -> str:
        s = self.text[self.pos : self.pos + n]
        self.pos += n
        return s

    def number(self) -> int:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos].isdigit():
            self.pos += 1
        if start == self.pos:
            raise ValueError("expected a number")
        return int(self.text[start : self.pos])

    def type(self) -> MangledType:
        for code in ("DF16_", "Dh"):
            if self.text.startswith(code, self.pos):
                self.pos += len(code)
                return MangledType(_BUILTIN_TYPES[code])
        c = self.peek()
        if c in _BUILTIN_TYPES:
            self.pos += 1
            return MangledType(_BUILTIN_TYPES[c])
        if self.text.startswith("Dv", self.pos):
            self.pos += 2
            width = self.number()
            if self.take() != "_":
                raise ValueError("bad vector type")
            elem = self.type()
            t = MangledType(elem.name, width)
            self.subs.append(t)
            return t
        if c == "P":
            self.pos += 1
            addrspace, const = 0, False
            while True:
                if self.text.startswith("U3AS", self.pos):
                    self.pos += 4
                    addrspace = int(self.take())
                elif self.peek() in ("K", "V", "r"):
                    const = const or self.take() == "K"
                else:
                    break
            pointee = self.type()
            t = MangledType("ptr", 0, pointee, addrspace, const)
            self.subs.append(t)
            return t
        if c == "S":
            self.pos += 1
            idx = 0
            if self.peek() != "_":
                idx = int(self.take(), 36) + 1
            if self.take() != "_":
                raise ValueError("bad substitution")
            return self.subs[idx]
        raise ValueError(f"unsupported mangled type at {self.text[self.pos:]!r}")


def demangle(name: str) -> Demangled | None:
    """Demangle an OpenCL builtin name (`_Z4sqrtf` -> sqrt(float)); None if it is not one."""
    if not name.startswith("_Z"):
        return None
    r = _Reader(name)
    r.pos = 2
    try:
        length = r.number()
        base = r.take(length)
        if len(base) != length:
            return None
        params: list[MangledType] = []
        while r.pos < len(name):
            params.append(r.type())
    except (ValueError, IndexError):
        return None
    if params == [MangledType("void")]:
        params = []
    return Demangled(base, tuple(params))
