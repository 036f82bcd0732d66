"""Values, uses and constants of the Python IR.

Every operand slot of a `User` is a `Use`, registered on the used value, so
`value.uses` is always exact and `replace_all_uses_with` is cheap. Functions,
blocks, arguments, globals and the module live in `vectorizer.ir.module` but
are re-exported here (`values.Function`, ...), as the contract names them.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from . import types as T

if TYPE_CHECKING:  # pragma: no cover - re-exported lazily (import cycle)
    from .module import (
        Argument,
        BasicBlock,
        Function,
        GlobalAlias,
        GlobalValue,
        GlobalVariable,
        Module,
    )

__all__ = [
    "Use",
    "Value",
    "User",
    "Constant",
    "ConstantInt",
    "ConstantFP",
    "ConstantPointerNull",
    "UndefValue",
    "PoisonValue",
    "ConstantAggregateZero",
    "ConstantVector",
    "ConstantArray",
    "ConstantStruct",
    "ConstantDataString",
    "ConstantExpr",
    "BlockAddress",
    "ConstantToken",
    "ConstantOpaque",
    "InlineAsm",
    "MetadataValue",
    "TextWithRefs",
    "const_int",
    "const_fp",
    "splat",
    "Argument",
    "BasicBlock",
    "Function",
    "GlobalAlias",
    "GlobalValue",
    "GlobalVariable",
    "Module",
]

_MODULE_NAMES = {"Argument", "BasicBlock", "Function", "GlobalAlias", "GlobalValue", "GlobalVariable", "Module"}


def __getattr__(name: str) -> Any:
    # module.py imports this file, so its classes are looked up on first use.
    if name in _MODULE_NAMES:
        from . import module

        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_new = object.__new__


class Use:
    """Operand slot `index` of `user`."""

    __slots__ = ("user", "index")

    def __init__(self, user: User, index: int) -> None:
        self.user = user
        self.index = index

    @property
    def value(self) -> Value:
        """The value this slot currently holds."""
        return self.user._operands[self.index]

    def __repr__(self) -> str:
        return f"Use({type(self.user).__name__}@{id(self.user):#x}, {self.index})"


class Value:
    """Anything that can be an operand: it has a type, an optional name and
    the list of uses that name it."""

    # Holders of metadata references to this value (debug records,
    # `metadata` operands): not uses, as in LLVM, but RAUW must follow them.
    _md_users: list[TextWithRefs] | None = None

    def __init__(self, type: T.Type, name: str | None = None) -> None:
        self.type = type
        self.name = name or None
        self.uses: list[Use] = []

    @property
    def users(self) -> list[User]:
        """Distinct users, in use order."""
        return list({id(u.user): u.user for u in self.uses}.values())

    @property
    def num_uses(self) -> int:
        """Number of operand slots naming this value."""
        return len(self.uses)

    def replace_all_uses_with(self, new: Value) -> None:
        """Make every operand (and metadata reference) naming `self` name `new`."""
        if new is self:
            return
        for use in list(self.uses):
            use.user.set_operand(use.index, new)
        if self._md_users:
            holders = self._md_users
            self._md_users = None
            for h in holders:
                h.replace_ref(self, new)

    def _add_md_user(self, holder: TextWithRefs) -> None:
        if self._md_users is None:
            self._md_users = []
        self._md_users.append(holder)

    def _remove_md_user(self, holder: TextWithRefs) -> None:
        if self._md_users:
            for i, h in enumerate(self._md_users):
                if h is holder:
                    del self._md_users[i]
                    return

    def __repr__(self) -> str:
        n = f" %{self.name}" if self.name else ""
        return f"<{type(self).__name__}{n}: {self.type}>"


def use_slots(user: User, operands: list[Value]) -> list[Use]:
    """`user`'s operand slots: one `Use` per operand, each recorded in its
    value's uses (made without a constructor call: every instruction and
    constant built or cloned comes through here)."""
    uses = []
    for i, v in enumerate(operands):
        u = _new(Use)
        u.user = user
        u.index = i
        v.uses.append(u)
        uses.append(u)
    return uses


class User(Value):
    """A value with operands (instructions, constant aggregates and expressions)."""

    def __init__(self, type: T.Type, operands: Iterable[Value] = (), name: str | None = None) -> None:
        # `Value.__init__` and `_append_operand` per operand, inlined (the
        # `Use` objects made without a constructor call): every instruction
        # and constant the parser and the passes build comes through here.
        self.type = type
        self.name = name or None
        self.uses = []
        ops = list(operands)
        self._operands: list[Value] = ops
        self._uses: list[Use] = use_slots(self, ops)

    @property
    def operands(self) -> tuple[Value, ...]:
        """The operands, read-only (use `set_operand` to change one)."""
        return tuple(self._operands)

    @property
    def num_operands(self) -> int:
        """Number of operand slots."""
        return len(self._operands)

    def get_operand(self, i: int) -> Value:
        """Operand `i`."""
        return self._operands[i]

    def set_operand(self, i: int, v: Value) -> None:
        """Put `v` in operand slot `i`, keeping both use lists right."""
        old = self._operands[i]
        if old is v:
            return
        use = self._uses[i]
        _drop_use(old, use)
        self._operands[i] = v
        v.uses.append(use)

    def link_operand(self, i: int, v: Value) -> None:
        """Fill operand slot `i`, left unlinked by `Instruction.clone(unlinked=...)`, with `v`."""
        self._operands[i] = v
        v.uses.append(self._uses[i])

    def _append_operand(self, v: Value) -> None:
        use = _new(Use)
        use.user = self
        use.index = len(self._operands)
        self._operands.append(v)
        self._uses.append(use)
        v.uses.append(use)

    def _set_operands(self, values: Iterable[Value]) -> None:
        """Replace the whole operand list (dropping old uses)."""
        self.drop_all_references()
        for v in values:
            self._append_operand(v)

    def _remove_operands(self, start: int, count: int) -> None:
        """Delete operand slots [start, start+count), renumbering later ones."""
        for i in range(start, start + count):
            _drop_use(self._operands[i], self._uses[i])
        del self._operands[start : start + count]
        del self._uses[start : start + count]
        for j in range(start, len(self._uses)):
            self._uses[j].index = j

    def _insert_operand(self, index: int, v: Value) -> None:
        use = Use(self, index)
        self._operands.insert(index, v)
        self._uses.insert(index, use)
        v.uses.append(use)
        for j in range(index + 1, len(self._uses)):
            self._uses[j].index = j

    def drop_all_references(self) -> None:
        """Remove this user from the use list of every operand and clear them."""
        for v, use in zip(self._operands, self._uses, strict=True):
            _drop_use(v, use)
        self._operands = []
        self._uses = []


def _drop_use(v: Value, use: Use) -> None:
    uses = v.uses
    # Uses are often removed most-recent-first (erasing freshly built code);
    # otherwise list.index finds it in C (Use compares by identity), which
    # keeps values with thousands of uses from making edits quadratic.
    if uses and uses[-1] is use:
        uses.pop()
        return
    try:
        del uses[uses.index(use)]
    except ValueError:
        pass


class TextWithRefs:
    """Opaque text that mentions values (`%x`, `@g`): a template of text
    pieces around value references, so the references follow renaming,
    numbering and RAUW while the rest stays verbatim.

    `parts` has one more element than `refs`; the text is
    `parts[0] + ref(refs[0]) + parts[1] + ...`.
    """

    __slots__ = ("parts", "refs")

    def __init__(self, parts: Sequence[str], refs: Sequence[Value] = ()) -> None:
        if len(parts) != len(refs) + 1:
            raise ValueError("TextWithRefs needs len(parts) == len(refs) + 1")
        self.parts = list(parts)
        self.refs = list(refs)
        for r in self.refs:
            r._add_md_user(self)

    @classmethod
    def plain(cls, text: str) -> TextWithRefs:
        """A template with no references."""
        return cls([text])

    def replace_ref(self, old: Value, new: Value) -> None:
        """Point references to `old` at `new`."""
        for i, r in enumerate(self.refs):
            if r is old:
                self.refs[i] = new
                new._add_md_user(self)

    def detach(self) -> None:
        """Stop tracking the referenced values (the holder is being dropped)."""
        for r in self.refs:
            r._remove_md_user(self)

    def copy(self, remap: Callable[[Value], Value] | None = None) -> TextWithRefs:
        """A copy whose references go through `remap`."""
        refs = self.refs if remap is None else [remap(r) for r in self.refs]
        return TextWithRefs(self.parts, refs)

    def render(self, ref: Callable[[Value], str]) -> str:
        """The text, with each reference spelled by `ref`."""
        if not self.refs:
            return self.parts[0]
        out = [self.parts[0]]
        for r, p in zip(self.refs, self.parts[1:], strict=True):
            out.append(ref(r))
            out.append(p)
        return "".join(out)

    def __str__(self) -> str:
        from .printer import default_ref

        return self.render(default_ref)

    def __repr__(self) -> str:
        return f"TextWithRefs({str(self)!r})"


# ---------------------------------------------------------------- constants


class Constant(User):
    """Base of constants. Simple constants compare by value (`_key`)."""

    def _key(self) -> Any:
        return id(self)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Constant) or type(other) is not type(self):
            return False
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._key()))

    def __str__(self) -> str:
        from .printer import typed_constant

        return typed_constant(self)


class _LeafConstant(Constant):
    """A constant without operands. Its operand lists are one shared empty
    tuple (nothing adds operands to these), and it is built without the
    `User.__init__` call: the parser and the passes make tens of thousands
    of them a request."""

    _operands: list[Value] = ()  # type: ignore[assignment]
    _uses: list[Use] = ()  # type: ignore[assignment]

    def __init__(self, type: T.Type) -> None:
        self.type = type
        self.name = None
        self.uses = []


def _key_of(v: Value) -> Any:
    return v._key() if isinstance(v, Constant) else ("id", id(v))


class ConstantInt(_LeafConstant):
    """An integer constant (or a vector splat of one, when `type` is a vector
    built through `splat`). `value` is kept as given; equality and printing
    work modulo 2**bits (printed signed)."""

    def __init__(self, type: T.Type, value: int) -> None:
        self.type = type
        self.name = None
        self.uses = []
        self.value = int(value)

    @property
    def bits(self) -> int:
        """The integer width."""
        t = self.type
        assert isinstance(t, T.IntType)
        return t.bits

    @property
    def unsigned(self) -> int:
        """The value read as unsigned."""
        return self.value & ((1 << self.bits) - 1)

    @property
    def signed(self) -> int:
        """The value read as two's-complement signed."""
        b = self.bits
        u = self.value & ((1 << b) - 1)
        return u - (1 << b) if b and u >> (b - 1) else u

    def _key(self) -> Any:
        return (self.type, self.unsigned)

    def __repr__(self) -> str:
        return f"<ConstantInt {self.type} {self.signed}>"


_HALF_LIKE = {"half": "0xH", "bfloat": "0xR"}
_WIDE_PREFIX = {"x86_fp80": ("0xK", 20), "fp128": ("0xL", 32), "ppc_fp128": ("0xM", 32)}


def _f32_bits_to_f64_bits(b: int) -> int:
    sign = (b >> 31) & 1
    exp = (b >> 23) & 0xFF
    man = b & 0x7FFFFF
    if exp == 0xFF:  # inf / NaN: keep the payload, as LLVM's APFloat conversion does
        return (sign << 63) | (0x7FF << 52) | (man << 29)
    return struct.unpack("<Q", struct.pack("<d", struct.unpack("<f", struct.pack("<I", b))[0]))[0]


def _f64_bits_to_f32_bits(b: int) -> int:
    sign = (b >> 63) & 1
    exp = (b >> 52) & 0x7FF
    man = b & ((1 << 52) - 1)
    if exp == 0x7FF:
        return (sign << 31) | (0xFF << 23) | (man >> 29)
    d = struct.unpack("<d", struct.pack("<Q", b))[0]
    return struct.unpack("<I", struct.pack("<f", d))[0]


class ConstantFP(_LeafConstant):
    """A floating-point constant, stored exactly as the raw bits of its type
    (`bits`); `value` decodes them to a Python float."""

    def __init__(self, type: T.Type, value: float | int, raw: bool | None = None) -> None:
        """`value` is a Python float, or (an int, or `raw=True`) the raw bits."""
        super().__init__(type)
        st = T.scalar_type(type)
        if not isinstance(st, T.FloatType):
            raise TypeError(f"ConstantFP of non-float type {type}")
        self.kind = st.kind
        if raw is None:
            raw = isinstance(value, int) and not isinstance(value, bool)
        self.bits = int(value) if raw else _encode_float(st.kind, float(value))

    @property
    def value(self) -> float:
        """The value as a Python float (approximate for 80/128-bit types)."""
        k, b = self.kind, self.bits
        if k == "double":
            return struct.unpack("<d", struct.pack("<Q", b))[0]
        if k == "float":
            return struct.unpack("<f", struct.pack("<I", b))[0]
        if k == "half":
            return struct.unpack("<e", struct.pack("<H", b))[0]
        if k == "bfloat":
            return struct.unpack("<f", struct.pack("<I", b << 16))[0]
        if k == "x86_fp80":
            sign = -1.0 if b >> 79 else 1.0
            exp = (b >> 64) & 0x7FFF
            man = b & ((1 << 64) - 1)
            if exp == 0x7FFF:
                return sign * math.inf if man << 1 == 0 else math.nan
            return sign * math.ldexp(man, exp - 16383 - 63)
        if k == "fp128":
            sign = -1.0 if b >> 127 else 1.0
            exp = (b >> 112) & 0x7FFF
            man = b & ((1 << 112) - 1)
            if exp == 0x7FFF:
                return sign * math.inf if man == 0 else math.nan
            if exp == 0:
                return sign * math.ldexp(man, 1 - 16383 - 112)
            return sign * math.ldexp(man | (1 << 112), exp - 16383 - 112)
        # ppc_fp128: the sum of two doubles (LLVM prints the high half first).
        hi = struct.unpack("<d", struct.pack("<Q", b & ((1 << 64) - 1)))[0]
        lo = struct.unpack("<d", struct.pack("<Q", b >> 64))[0]
        return hi + lo

    def literal(self) -> str:
        """The LLVM spelling: decimal when `%e` round-trips exactly (as LLVM
        prints it), else hex; always exact."""
        k, b = self.kind, self.bits
        if k in ("double", "float"):
            v = self.value
            if math.isfinite(v):
                s = f"{v:e}"
                # LLVM reads a decimal as a double, and takes it for a float
                # only if that double is exactly the float's value.
                if float(s) == v and math.copysign(1.0, float(s)) == math.copysign(1.0, v):
                    return s
        if k == "double":
            return f"0x{b:016X}"
        if k == "float":
            return f"0x{_f32_bits_to_f64_bits(b):016X}"
        if k in _HALF_LIKE:
            return f"{_HALF_LIKE[k]}{b:04X}"
        prefix, digits = _WIDE_PREFIX[k]
        return f"{prefix}{b:0{digits}X}"

    def _key(self) -> Any:
        return (self.type, self.bits)

    def __repr__(self) -> str:
        return f"<ConstantFP {self.type} {self.value!r}>"


def _encode_float(kind: str, v: float) -> int:
    if kind == "double":
        return struct.unpack("<Q", struct.pack("<d", v))[0]
    if kind == "float":
        return _f64_bits_to_f32_bits(struct.unpack("<Q", struct.pack("<d", v))[0])
    if kind == "half":
        return struct.unpack("<H", struct.pack("<e", v))[0]
    if kind == "bfloat":
        f = _f64_bits_to_f32_bits(struct.unpack("<Q", struct.pack("<d", v))[0])
        if (f >> 23) & 0xFF == 0xFF and f & 0x7FFFFF:
            return (f >> 16) | 0x40  # NaN stays NaN
        # round to nearest even on the dropped 16 bits
        return ((f + 0x7FFF + ((f >> 16) & 1)) >> 16) & 0xFFFF
    if kind == "x86_fp80":
        if v == 0:
            return (1 << 79) if math.copysign(1.0, v) < 0 else 0
        if math.isinf(v):
            return ((1 << 79) if v < 0 else 0) | (0x7FFF << 64) | (1 << 63)
        if math.isnan(v):
            return (0x7FFF << 64) | (3 << 62)
        m, e = math.frexp(abs(v))  # v = m * 2**e, 0.5 <= m < 1
        man = int(m * (1 << 64))
        return ((1 << 79) if v < 0 else 0) | ((e - 1 + 16383) << 64) | man
    if kind == "fp128":
        if v == 0:
            return (1 << 127) if math.copysign(1.0, v) < 0 else 0
        if math.isinf(v):
            return ((1 << 127) if v < 0 else 0) | (0x7FFF << 112)
        if math.isnan(v):
            return (0x7FFF << 112) | (1 << 111)
        m, e = math.frexp(abs(v))
        man = int(m * (1 << 113)) & ((1 << 112) - 1)
        return ((1 << 127) if v < 0 else 0) | ((e - 1 + 16383) << 112) | man
    if kind == "ppc_fp128":
        return struct.unpack("<Q", struct.pack("<d", v))[0]
    raise TypeError(f"cannot encode a {kind} constant")


class ConstantPointerNull(_LeafConstant):
    """`null` of a pointer type."""

    def _key(self) -> Any:
        return self.type


class UndefValue(_LeafConstant):
    """`undef`."""

    def _key(self) -> Any:
        return self.type


class PoisonValue(_LeafConstant):
    """`poison`."""

    def _key(self) -> Any:
        return self.type


class ConstantAggregateZero(_LeafConstant):
    """`zeroinitializer` of any type."""

    def _key(self) -> Any:
        return self.type


class ConstantToken(_LeafConstant):
    """`none` (of type `token`)."""

    def __init__(self, type: T.Type = T.token) -> None:
        super().__init__(type)

    def _key(self) -> Any:
        return self.type


class ConstantVector(Constant):
    """`<T a, T b, ...>`, or a splat `splat (T a)` (scalable vectors are always
    splats). `elements` lists every lane of a fixed vector."""

    def __init__(self, type: T.Type, elements: Sequence[Value], is_splat: bool = False) -> None:
        if not isinstance(type, T.VectorType):
            raise TypeError(f"ConstantVector of non-vector type {type}")
        if type.scalable:
            is_splat = True
        if is_splat:
            elements = list(elements)[:1]
        elif len(elements) != type.count:
            raise ValueError(f"{len(elements)} elements for {type}")
        super().__init__(type, elements)
        self.is_splat = is_splat

    @property
    def elements(self) -> list[Value]:
        """One value per lane (the splat value repeated for a splat)."""
        if self.is_splat:
            t = self.type
            assert isinstance(t, T.VectorType)
            return [self._operands[0]] * t.count
        return list(self._operands)

    @property
    def splat_value(self) -> Value | None:
        """The common element when all lanes are the same constant, else None."""
        ops = self._operands
        if self.is_splat:
            return ops[0]
        first = ops[0]
        return first if all(_key_of(o) == _key_of(first) for o in ops[1:]) else None

    def _key(self) -> Any:
        return (self.type, tuple(_key_of(o) for o in self.elements))


class ConstantArray(Constant):
    """`[T a, T b, ...]`."""

    def __init__(self, type: T.Type, elements: Sequence[Value]) -> None:
        super().__init__(type, elements)

    @property
    def elements(self) -> list[Value]:
        """The elements."""
        return list(self._operands)

    def _key(self) -> Any:
        return (self.type, tuple(_key_of(o) for o in self._operands))


class ConstantStruct(Constant):
    """`{ T a, U b }` (or `<{ ... }>` for a packed struct)."""

    def __init__(self, type: T.Type, elements: Sequence[Value]) -> None:
        super().__init__(type, elements)

    @property
    def elements(self) -> list[Value]:
        """The fields."""
        return list(self._operands)

    def _key(self) -> Any:
        return (self.type, tuple(_key_of(o) for o in self._operands))


class ConstantDataString(_LeafConstant):
    """`c"..."`: an `[N x i8]` array given as bytes."""

    def __init__(self, type: T.Type, data: bytes) -> None:
        super().__init__(type)
        self.data = bytes(data)

    def literal(self) -> str:
        """`c"..."` with LLVM's escaping."""
        out = []
        for byte in self.data:
            if byte == 0x22 or byte == 0x5C or byte < 0x20 or byte > 0x7E:
                out.append(f"\\{byte:02X}")
            else:
                out.append(chr(byte))
        return 'c"' + "".join(out) + '"'

    def _key(self) -> Any:
        return (self.type, self.data)


class ConstantExpr(Constant):
    """A constant expression: `opcode` (LLVM's name) over constant `operands`.

    `flags` holds wrap/exact/GEP flags, `predicate` is set for icmp/fcmp,
    `source_element_type` for getelementptr and `inrange` keeps a GEP's
    `inrange(a, b)` text. For casts the destination is `type`.
    """

    def __init__(
        self,
        opcode: str,
        operands: Sequence[Value],
        type: T.Type,
        flags: Iterable[str] = (),
        source_element_type: T.Type | None = None,
        predicate: str | None = None,
        inrange: str | None = None,
    ) -> None:
        super().__init__(type, operands)
        self.opcode = opcode
        self.flags = set(flags)
        self.source_element_type = source_element_type
        self.predicate = predicate
        self.inrange = inrange

    def _key(self) -> Any:
        return (
            self.opcode,
            self.type,
            frozenset(self.flags),
            self.source_element_type,
            self.predicate,
            self.inrange,
            tuple(_key_of(o) for o in self._operands),
        )


class BlockAddress(Constant):
    """`blockaddress(@f, %bb)`: operands are the function and the block."""

    def __init__(self, function: Value, block: Value, type: T.Type = T.ptr) -> None:
        super().__init__(type, [function, block])

    @property
    def function(self) -> Value:
        """The function."""
        return self._operands[0]

    @property
    def block(self) -> Value:
        """The block."""
        return self._operands[1]

    def _key(self) -> Any:
        return (id(self._operands[0]), id(self._operands[1]))


class ConstantOpaque(_LeafConstant):
    """A constant the IR does not model (`dso_local_equivalent @f`,
    `no_cfi @f`, `ptrauth (...)`, target-extension `zeroinitializer`-likes),
    kept as text with its global references resolved."""

    def __init__(self, type: T.Type, text: TextWithRefs) -> None:
        super().__init__(type)
        self.text = text

    def _key(self) -> Any:
        return (self.type, str(self.text), tuple(id(r) for r in self.text.refs))


class InlineAsm(_LeafConstant):
    """`asm [sideeffect] [alignstack] [inteldialect] [unwind] "code", "constraints"`,
    the callee of an inline-assembly call; `text` is everything after `asm `."""

    def __init__(self, type: T.Type, text: str) -> None:
        super().__init__(type)
        self.text = text

    def _key(self) -> Any:
        return (self.type, self.text)


class MetadataValue(Value):
    """A `metadata ...` operand (e.g. of an intrinsic call), kept as text;
    embedded value references (`metadata i32 %x`) follow RAUW."""

    def __init__(self, text: TextWithRefs) -> None:
        super().__init__(T.metadata)
        self.text = text


def const_int(ty: T.Type, v: int) -> Value:
    """An integer constant of `ty` (a vector type gives a splat)."""
    if isinstance(ty, T.VectorType):
        return splat(ty, ConstantInt(ty.element, v))
    if not isinstance(ty, T.IntType):
        raise TypeError(f"const_int of non-integer type {ty}")
    return ConstantInt(ty, v)


def const_fp(ty: T.Type, v: float) -> Value:
    """A floating-point constant of `ty` (a vector type gives a splat)."""
    if isinstance(ty, T.VectorType):
        return splat(ty, ConstantFP(ty.element, v, raw=False))
    return ConstantFP(ty, v, raw=False)


def splat(ty: T.Type, c: Value) -> ConstantVector:
    """The vector constant of type `ty` with every lane `c`."""
    if not isinstance(ty, T.VectorType):
        raise TypeError(f"splat to non-vector type {ty}")
    if c.type != ty.element:
        raise TypeError(f"splat of {c.type} into {ty}")
    return ConstantVector(ty, [c], is_splat=True)
