"""SPIR (Itanium) mangling of builtin names, both ways, as clang 22 emits them.

`_Z6remquoDv4_fS_PU3AS1Dv4_i` is remquo(float4, float4, global int4 *).
Substitution candidates, as clang numbers them: every vector type; a
qualified pointee (address space and/or const, as one unit, e.g. `U3AS1Kf`);
every pointer type. A plain private pointer (`Pf`) adds only itself.
"""

from __future__ import annotations

from .types import CODE_TO_ELEMENT, ELEMENTS, CLType


def _base36(n: int) -> str:
    digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    out = ""
    while True:
        out = digits[n % 36] + out
        n //= 36
        if n == 0:
            return out


def _subst_ref(index: int) -> str:
    return "S_" if index == 0 else f"S{_base36(index - 1)}_"


class _Mangler:
    def __init__(self) -> None:
        self.subs: list[str] = []

    def _candidate(self, text: str) -> str:
        """The substitution for an already seen component, or None."""
        return _subst_ref(self.subs.index(text)) if text in self.subs else ""

    def type(self, t: CLType) -> str:
        if t.pointee is not None:
            inner = self.type(t.pointee)
            quals = (f"U3AS{t.addrspace}" if t.addrspace else "") + ("K" if t.const else "")
            full_inner = quals + self._expand(t.pointee)
            if quals:
                ref = self._candidate(full_inner)
                if ref:
                    inner = ref
                else:
                    inner = quals + inner
                    self.subs.append(full_inner)
            full = "P" + full_inner
            ref = self._candidate(full)
            if ref:
                return ref
            self.subs.append(full)
            return "P" + inner
        code = ELEMENTS[t.elem][0]
        if t.width == 1:
            return code
        full = f"Dv{t.width}_{code}"
        ref = self._candidate(full)
        if ref:
            return ref
        self.subs.append(full)
        return full

    def _expand(self, t: CLType) -> str:
        """The unabbreviated mangling of `t` (the key substitutions are looked up by)."""
        if t.pointee is not None:
            quals = (f"U3AS{t.addrspace}" if t.addrspace else "") + ("K" if t.const else "")
            return "P" + quals + self._expand(t.pointee)
        code = ELEMENTS[t.elem][0]
        return code if t.width == 1 else f"Dv{t.width}_{code}"


def mangle(name: str, params: list[CLType] | tuple[CLType, ...]) -> str:
    """The SPIR mangled name of builtin `name` taking `params` (`_Z3expDv4_f`)."""
    m = _Mangler()
    body = "".join(m.type(p) for p in params) if params else "v"
    return f"_Z{len(name)}{name}{body}"


class _Reader:
    def __init__(self, text: str, pos: int) -> None:
        self.text = text
        self.pos = pos
        self.subs: list[CLType | tuple[str, CLType]] = []

    def number(self) -> int:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos].isdigit():
            self.pos += 1
        if start == self.pos:
            raise ValueError("number expected")
        return int(self.text[start:self.pos])

    def expect(self, s: str) -> None:
        if not self.text.startswith(s, self.pos):
            raise ValueError(f"{s!r} expected")
        self.pos += len(s)

    def element(self) -> str:
        if self.text.startswith("Dh", self.pos):
            self.pos += 2
            return "half"
        c = self.text[self.pos:self.pos + 1]
        if c in CODE_TO_ELEMENT and c != "D":
            self.pos += 1
            return CODE_TO_ELEMENT[c]
        raise ValueError("element type expected")

    def substitution(self) -> CLType:
        self.expect("S")
        if self.text.startswith("_", self.pos):
            self.pos += 1
            index = 0
        else:
            start = self.pos
            while self.pos < len(self.text) and self.text[self.pos] != "_":
                self.pos += 1
            index = int(self.text[start:self.pos], 36) + 1
            self.expect("_")
        entry = self.subs[index]
        if isinstance(entry, tuple):
            raise ValueError("a qualified type cannot stand alone here")
        return entry

    def qualified_pointee(self) -> tuple[CLType, int, bool]:
        """After `P`: the pointee type, its address space and constness."""
        if self.text.startswith("S", self.pos):
            save = self.pos
            self.expect("S")
            idx_text = ""
            while self.text[self.pos] != "_":
                idx_text += self.text[self.pos]
                self.pos += 1
            self.pos += 1
            index = 0 if idx_text == "" else int(idx_text, 36) + 1
            entry = self.subs[index]
            if isinstance(entry, tuple):
                _key, t = entry
                return t.pointee, t.addrspace, t.const  # type: ignore[return-value]
            self.pos = save
        addrspace, const = 0, False
        quals = False
        # clang writes `U3AS1K`; SPIR 1.2 producers wrote `KU3AS1`: read both.
        for _ in range(2):
            if self.text.startswith("U3AS", self.pos):
                self.pos += 4
                addrspace = int(self.text[self.pos])
                self.pos += 1
                quals = True
            elif self.text.startswith("K", self.pos):
                self.pos += 1
                const = True
                quals = True
        pointee = self.type()
        if quals:
            self.subs.append(("q", CLType("", 1, pointee, addrspace, const)))
        return pointee, addrspace, const

    def type(self) -> CLType:
        if self.text.startswith("Dv", self.pos):
            self.pos += 2
            width = self.number()
            self.expect("_")
            t = CLType(self.element(), width)
            self.subs.append(t)
            return t
        if self.text.startswith("P", self.pos):
            self.pos += 1
            pointee, addrspace, const = self.qualified_pointee()
            t = CLType("", 1, pointee, addrspace, const)
            self.subs.append(t)
            return t
        if self.text.startswith("S", self.pos):
            return self.substitution()
        return CLType(self.element())


def demangle(name: str) -> tuple[str, tuple[CLType, ...]] | None:
    """(builtin name, parameter types) of a SPIR mangled name, or None."""
    if not name.startswith("_Z"):
        return None
    r = _Reader(name, 2)
    try:
        length = r.number()
        base = name[r.pos:r.pos + length]
        if len(base) != length:
            return None
        r.pos += length
        if name[r.pos:] == "v":
            return base, ()
        params = []
        while r.pos < len(name):
            params.append(r.type())
    except (ValueError, IndexError, KeyError):
        return None
    return base, tuple(params)
