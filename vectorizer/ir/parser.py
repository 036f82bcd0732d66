"""Parser for LLVM 22's own printed IR (see docs/ir.md).

The input is always what LLVM printed, so the grammar is closed: this is a
recursive-descent parser over `lexer` tokens, in two phases. Phase 1 walks the
top level, creating struct types, every global and function (so bodies can
name globals defined later) and recording where bodies, initializers and
opaque text lie. Phase 2 parses function bodies, then initializers, then the
opaque text that names globals (metadata, aliases, personality, ...).

Local forward references (a phi naming a later value) get typed placeholders
that are replaced (RAUW) once the definition is read.
"""

from __future__ import annotations

import re
from typing import Any, NoReturn

from . import instructions as I
from . import types as T
from . import values as V
from .lexer import (
    ATTRGRP,
    COMDAT,
    CSTR,
    DBG,
    DOTS,
    EOF,
    FLOAT,
    GLOBAL,
    INT,
    KW,
    LABEL,
    LOCAL,
    META,
    NL,
    PUNCT,
    STR,
    Token,
    tokenize,
    unescape,
    unescape_bytes,
)
from .module import BasicBlock, Function, GlobalAlias, GlobalValue, GlobalVariable, Module

try:  # the bridge's error type, when the bridge is importable
    from vectorizer.llvm_bridge import IRError as _IRErrorBase
except Exception:  # pragma: no cover - bridge missing or llvmlite unavailable
    _IRErrorBase = ValueError  # type: ignore[assignment,misc]

__all__ = ["ParseError", "parse_module"]


class ParseError(_IRErrorBase):  # type: ignore[misc,valid-type]
    """Our parser met something it did not expect in canonical LLVM text."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None, source_line: str | None = None) -> None:
        if _IRErrorBase is ValueError:  # pragma: no cover
            where = f"{line}:{column}: " if line is not None else ""
            ValueError.__init__(self, where + message)
        else:
            _IRErrorBase.__init__(self, message, line, column, source_line)
        self.message = message
        self.line = line
        self.column = column
        self.source_line = source_line

    def __str__(self) -> str:
        where = ""
        if self.line is not None:
            where = f"{self.line}:{self.column}: " if self.column is not None else f"{self.line}: "
        return f"{where}{self.message}"


_LINKAGES = frozenset(
    {
        "private",
        "internal",
        "available_externally",
        "linkonce",
        "weak",
        "common",
        "appending",
        "extern_weak",
        "linkonce_odr",
        "weak_odr",
        "external",
    }
)
_INT_FLAGS = frozenset({"nuw", "nsw", "exact", "disjoint", "nneg", "samesign"})
_FMF = frozenset({"fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc"})
_CAST_FLAGS = _INT_FLAGS | _FMF
_GEP_FLAGS = frozenset({"inbounds", "nusw", "nuw"})
_ORDERINGS = frozenset({"unordered", "monotonic", "acquire", "release", "acq_rel", "seq_cst"})
_TYPE_KWS = frozenset(
    {"ptr", "void", "label", "metadata", "token", "target", "x86_amx", "x86_mmx", *T.FLOAT_KINDS}
)
_CONSTEXPR_OPS = frozenset(
    {
        *I.BINARY_OPCODES,
        *I.CAST_OPCODES,
        "getelementptr",
        "extractelement",
        "insertelement",
        "shufflevector",
        "icmp",
        "fcmp",
        "select",
    }
)
_VALUE_KWS = frozenset(
    {
        "true",
        "false",
        "null",
        "none",
        "undef",
        "poison",
        "zeroinitializer",
        "splat",
        "blockaddress",
        "dso_local_equivalent",
        "no_cfi",
        "ptrauth",
        "asm",
        *_CONSTEXPR_OPS,
    }
)
_FN_TRAILING = frozenset({"section", "partition", "comdat", "align", "gc", "prefix", "prologue", "personality"})
_CC_RE = re.compile(r"(?:[a-z0-9_]*cc|spir_func|spir_kernel|ptx_kernel|ptx_device|amdgpu_\w+|aarch64_\w+)\Z")
# Whether a keyword names a calling convention (`_CC_RE`), by keyword: the
# word after `call` is a keyword (a type, mostly) on almost every call.
_IS_CC: dict[str, bool] = {}


def _is_cc(x: str) -> bool:
    c = _IS_CC.get(x)
    if c is None:
        c = _IS_CC[x] = _CC_RE.match(x) is not None
        if len(_IS_CC) > 10_000:
            _IS_CC.clear()
    return c


# The kinds of token an attribute run can start with (`attr_list`).
_ATTR_START = frozenset({KW, STR, ATTRGRP})
_OPAQUE_OPS = frozenset(
    {
        "invoke",
        "callbr",
        "landingpad",
        "resume",
        "va_arg",
        "indirectbr",
        "catchswitch",
        "catchpad",
        "cleanuppad",
        "catchret",
        "cleanupret",
    }
)
# Words that continue a multi-line instruction on the next line.
_CONTINUATIONS = {"landingpad": ("cleanup", "catch", "filter"), "invoke": ("to",), "callbr": ("to",)}
_CLOSERS = frozenset({",", ")", "}", "]", ">"})


def _key(text: str) -> str | int:
    """Symbol key of a sigil-less name: int for `%5`, str otherwise."""
    if text[0] == '"':
        return unescape(text[1:-1])
    if text.isdigit():
        return int(text)
    return text


# `_key(text[1:])` by token text (`%5`, `@f`, `%"a b"`): the same names
# recur on every line and in every parse of a kernel.
_KEYS: dict[str, str | int] = {}


def _sigil_key(text: str) -> str | int:
    """`_key` of a name token without its sigil (`%x`, `@g`)."""
    k = _KEYS.get(text)
    if k is None:
        if len(_KEYS) > 100_000:
            _KEYS.clear()
        k = _KEYS[text] = _key(text[1:])
    return k


class _TokenFacts:
    """What parsing a token list once tells about every later parse of it
    (the lexer shares one token list between the parses of a text): the
    token texts (`_Parser.skip_body`), and the function headers read
    (`_Parser.parse_fn_header`) and vector and array types
    (`_Parser.parse_type`) by the index of their first token."""

    __slots__ = ("toks", "texts", "headers", "types")

    def __init__(self, toks: list[Token]) -> None:
        self.toks = toks
        self.texts: list[str] | None = None
        self.headers: dict[int, tuple[Any, ...]] = {}
        # Vector and array types without a named struct (immutable, so one
        # object serves every parse): (type, index after it) by first token.
        self.types: dict[int, tuple[T.Type, int]] = {}


# The facts of the last few token lists, by `id` of the list (which each
# entry keeps alive).
_FACTS: dict[int, _TokenFacts] = {}


def _facts(toks: list[Token]) -> _TokenFacts:
    f = _FACTS.get(id(toks))
    if f is None or f.toks is not toks:
        if len(_FACTS) >= 4:
            try:  # (another thread may be dropping the same entry)
                del _FACTS[next(iter(_FACTS))]
            except (KeyError, RuntimeError):
                pass
        f = _FACTS[id(toks)] = _TokenFacts(toks)
    return f


class _Placeholder(V.Value):
    """A local used before its definition."""


class _FnState:
    """Per-function symbol tables while parsing a body."""

    def __init__(self, fn: Function, blocks: dict[str | int, BasicBlock]) -> None:
        self.fn = fn
        self.values: dict[str | int, V.Value] = {}
        self.fwd: dict[str | int, _Placeholder] = {}
        self.blocks = blocks
        self.defined_blocks: set[int] = set()
        self.fwd_tok: dict[str | int, int] = {}


class _Parser:
    def __init__(self, src: str) -> None:
        self.src = src
        self.toks: list[Token] = tokenize(src)
        self.i = 0
        self.m = Module()
        self.gsyms: dict[str | int, GlobalValue] = {}
        self.fn_blocks: dict[int, dict[str | int, BasicBlock]] = {}
        self.st: _FnState | None = None
        # The one-keyword types by keyword (integer types added when first met).
        self._kw_types: dict[str, T.Type] = {k: T.FloatType(k) for k in T.FLOAT_KINDS}
        self._kw_types.update(void=T.void, label=T.label, metadata=T.metadata, token=T.token)
        self._types = _facts(self.toks).types

    # ------------------------------------------------------------ basics

    def error(self, msg: str, at: int | None = None) -> NoReturn:
        tok = self.toks[self.i if at is None else at]
        pos = tok.start
        line = self.src.count("\n", 0, pos) + 1
        ls = self.src.rfind("\n", 0, pos) + 1
        le = self.src.find("\n", pos)
        src_line = self.src[ls : le if le >= 0 else len(self.src)]
        near = f" (at {tok.text!r})" if tok.text else " (at end of input)"
        raise ParseError(msg + near, line, pos - ls + 1, src_line)

    def expect(self, text: str) -> Token:
        t = self.toks[self.i]
        if t.text != text or t.kind in (STR, CSTR):
            self.error(f"expected {text!r}")
        self.i += 1
        return t

    def accept(self, text: str) -> bool:
        t = self.toks[self.i]
        if t.text == text and t.kind not in (STR, CSTR):
            self.i += 1
            return True
        return False

    def expect_int(self) -> int:
        t = self.toks[self.i]
        if t.kind != INT:
            self.error("expected an integer")
        self.i += 1
        return int(t.text)

    def end_of(self, j: int) -> int:
        t = self.toks[j]
        return t.start + len(t.text)

    def raw(self, start: int, end: int) -> str:
        """Source text of tokens [start, end)."""
        if end <= start:
            return ""
        return self.src[self.toks[start].start : self.end_of(end - 1)]

    def skip_group(self) -> None:
        """Skip a balanced (), [] or {} group starting at the current token."""
        depth = 0
        toks = self.toks
        while True:
            t = toks[self.i]
            if t.kind == EOF:
                self.error("unbalanced brackets")
            x = t.text
            if t.kind not in (STR, CSTR):
                if x in ("(", "[", "{"):
                    depth += 1
                elif x in (")", "]", "}"):
                    depth -= 1
            self.i += 1
            if depth == 0:
                return

    def skip_nl(self) -> None:
        while self.toks[self.i].kind == NL:
            self.i += 1

    def end_line(self) -> None:
        k = self.toks[self.i].kind
        if k == NL:
            self.i += 1
        elif k != EOF:
            self.error("expected end of line")

    def line_end(self, j: int) -> int:
        """Index of the NL/EOF token ending the line that holds token j."""
        toks = self.toks
        while toks[j].kind not in (NL, EOF):
            j += 1
        return j

    # ------------------------------------------------------------- types

    def is_type_start(self) -> bool:
        t = self.toks[self.i]
        if t.kind == KW:
            x = t.text
            return x in _TYPE_KWS or (x[0] == "i" and x[1:].isdigit())
        if t.kind == LOCAL:
            return True
        return t.text in ("<", "[", "{")

    def parse_type(self) -> T.Type:
        t = self.toks[self.i]
        k, x = t.kind, t.text
        self.i += 1
        if k == KW:
            kt = self._kw_types.get(x)
            if kt is not None:
                return kt
            if x[0] == "i" and x[1:].isdigit():
                kt = self._kw_types[x] = T.IntType(int(x[1:]))
                return kt
            if x == "ptr":
                if self.toks[self.i].text == "addrspace":
                    self.i += 1
                    self.expect("(")
                    n = self.expect_int()
                    self.expect(")")
                    return T.PointerType(n) if n else T.ptr
                return T.ptr
            if x == "target":
                start = self.i - 1
                self.skip_group()
                return T.OpaqueType(self.raw(start, self.i))
            if x in ("x86_amx", "x86_mmx"):
                return T.OpaqueType(x)
            self.i -= 1
            self.error("expected a type")
        if (x == "<" or x == "[") and k == PUNCT:
            start = self.i - 1
            known = self._types.get(start)
            if known is not None:
                self.i = known[1]
                return known[0]
            if x == "<" and self.toks[self.i].text == "{":
                self.i += 1
                elems = self._type_list("}")
                self.expect(">")
                return T.StructType(elems, packed=True)
            ty = self._sequence_type(x)
            toks = self.toks
            if all(toks[j].kind != LOCAL for j in range(start, self.i)):
                self._types[start] = (ty, self.i)
            return ty
        if x == "{":
            return T.StructType(self._type_list("}"))
        if k == LOCAL:
            return self.m.get_struct_type(_sigil_key(x))  # type: ignore[arg-type]
        self.i -= 1
        self.error("expected a type")

    def _sequence_type(self, x: str) -> T.Type:
        """The rest of `<N x T>`, `<vscale x N x T>` or `[N x T]`."""
        if x == "<":
            scalable = False
            if self.accept("vscale"):
                self.expect("x")
                scalable = True
            n = self.expect_int()
            self.expect("x")
            el = self.parse_type()
            self.expect(">")
            return T.VectorType(el, n, scalable)
        n = self.expect_int()
        self.expect("x")
        el = self.parse_type()
        self.expect("]")
        return T.ArrayType(el, n)

    def _type_list(self, close: str) -> list[T.Type]:
        elems: list[T.Type] = []
        if self.accept(close):
            return elems
        while True:
            elems.append(self.parse_type())
            if self.accept(close):
                return elems
            self.expect(",")

    # ------------------------------------------------------------ values

    def local_ref(self, key: str | int, ty: T.Type, at: int) -> V.Value:
        st = self.st
        if st is None:
            self.error("local value outside a function", at)
        v = st.values.get(key)
        if v is not None:
            return v
        ph = st.fwd.get(key)
        if ph is None:
            ph = st.fwd[key] = _Placeholder(ty)
            st.fwd_tok[key] = at
        return ph

    def block_ref(self, key: str | int, blocks: dict[str | int, BasicBlock] | None = None) -> BasicBlock:
        if blocks is None:
            if self.st is None:
                self.error("block reference outside a function")
            blocks = self.st.blocks
        b = blocks.get(key)
        if b is None:
            b = blocks[key] = BasicBlock(key if isinstance(key, str) else None)
        return b

    def parse_label(self) -> BasicBlock:
        self.expect("label")
        t = self.toks[self.i]
        if t.kind != LOCAL:
            self.error("expected a block")
        self.i += 1
        return self.block_ref(_sigil_key(t.text))

    def global_ref(self, text: str, at: int) -> GlobalValue:
        g = self.gsyms.get(_sigil_key(text))
        if g is None:
            self.error(f"use of undefined global {text}", at)
        return g

    def parse_typed_value(self) -> V.Value:
        ty = self.parse_type()
        return self.parse_value(ty)

    def parse_value(self, ty: T.Type) -> V.Value:
        t = self.toks[self.i]
        k, x = t.kind, t.text
        if k == LOCAL:
            # `_sigil_key` and `local_ref`'s lookup, inlined: most operands
            # are locals defined earlier.
            self.i += 1
            key = _KEYS.get(x)
            if key is None:
                key = _sigil_key(x)
            if isinstance(ty, T.LabelType):
                return self.block_ref(key)
            st = self.st
            if st is not None:
                v = st.values.get(key)
                if v is not None:
                    return v
            return self.local_ref(key, ty, self.i - 1)
        if k == GLOBAL:
            self.i += 1
            return self.global_ref(x, self.i - 1)
        if k == INT:
            self.i += 1
            if not isinstance(ty, T.IntType):
                self.error(f"integer constant for type {ty}", self.i - 1)
            return V.ConstantInt(ty, int(x))
        if k == FLOAT:
            self.i += 1
            return self.float_const(ty, x)
        if k == KW:
            return self.parse_kw_value(ty)
        if x == "<":
            if self.toks[self.i + 1].text == "{":
                self.i += 2
                elems = self._typed_list("}")
                self.expect(">")
                return V.ConstantStruct(ty, elems)
            self.i += 1
            elems = self._typed_list(">")
            if not isinstance(ty, T.VectorType):
                self.error(f"vector constant for type {ty}")
            return V.ConstantVector(ty, elems)
        if x == "[":
            self.i += 1
            return V.ConstantArray(ty, self._typed_list("]"))
        if x == "{":
            self.i += 1
            return V.ConstantStruct(ty, self._typed_list("}"))
        if k == CSTR:
            self.i += 1
            return V.ConstantDataString(ty, unescape_bytes(x[2:-1]))
        if k == META or (k == KW and x == "distinct"):
            return self.parse_md_value()
        self.error("expected a value")

    def _typed_list(self, close: str) -> list[V.Value]:
        out: list[V.Value] = []
        if self.accept(close):
            return out
        while True:
            out.append(self.parse_typed_value())
            if self.accept(close):
                return out
            self.expect(",")

    def float_const(self, ty: T.Type, x: str) -> V.ConstantFP:
        st = T.scalar_type(ty)
        if not isinstance(st, T.FloatType):
            self.error(f"floating-point constant for type {ty}", self.i - 1)
        if x.startswith("0x"):
            c = x[2]
            if c in "KLMHR":
                return V.ConstantFP(st, int(x[3:], 16), raw=True)
            bits = int(x[2:], 16)
            if st.kind == "double":
                return V.ConstantFP(st, bits, raw=True)
            if st.kind == "float":
                return V.ConstantFP(st, V._f64_bits_to_f32_bits(bits), raw=True)
            import struct

            return V.ConstantFP(st, struct.unpack("<d", struct.pack("<Q", bits))[0], raw=False)
        return V.ConstantFP(st, float(x), raw=False)

    def parse_kw_value(self, ty: T.Type) -> V.Value:
        start = self.i
        x = self.toks[self.i].text
        self.i += 1
        if x == "true" or x == "false":
            if not isinstance(ty, T.IntType):
                self.error(f"boolean constant for type {ty}", start)
            return V.ConstantInt(ty, 1 if x == "true" else 0)
        if x == "null":
            return V.ConstantPointerNull(ty)
        if x == "none":
            return V.ConstantToken(ty)
        if x == "undef":
            return V.UndefValue(ty)
        if x == "poison":
            return V.PoisonValue(ty)
        if x == "zeroinitializer":
            return V.ConstantAggregateZero(ty)
        if x == "splat":
            self.expect("(")
            c = self.parse_typed_value()
            self.expect(")")
            if not isinstance(ty, T.VectorType):
                self.error(f"splat of non-vector type {ty}", start)
            return V.ConstantVector(ty, [c], is_splat=True)
        if x == "blockaddress":
            self.expect("(")
            ft = self.toks[self.i]
            if ft.kind != GLOBAL:
                self.error("expected a function")
            self.i += 1
            fn = self.global_ref(ft.text, self.i - 1)
            self.expect(",")
            bt = self.toks[self.i]
            if bt.kind != LOCAL:
                self.error("expected a block")
            self.i += 1
            blocks = self.fn_blocks.setdefault(id(fn), {})
            bb = self.block_ref(_sigil_key(bt.text), blocks)
            self.expect(")")
            return V.BlockAddress(fn, bb, ty)
        if x == "asm":
            # asm [sideeffect] [alignstack] [inteldialect] [unwind] "code", "constraints"
            while self.toks[self.i].kind == KW:
                self.i += 1
            if self.toks[self.i].kind != STR:
                self.error("expected inline asm string")
            self.i += 1
            self.expect(",")
            if self.toks[self.i].kind != STR:
                self.error("expected inline asm constraints")
            self.i += 1
            return V.InlineAsm(ty, self.raw(start + 1, self.i))
        if x in ("dso_local_equivalent", "no_cfi"):
            self.i += 1
            return V.ConstantOpaque(ty, self.template(start, self.i, local=False))
        if x == "ptrauth":
            self.skip_group()
            return V.ConstantOpaque(ty, self.template(start, self.i, local=False))
        if x in _CONSTEXPR_OPS:
            return self.parse_constexpr(x, ty)
        self.i = start
        self.error("expected a value")

    def parse_constexpr(self, op: str, ty: T.Type) -> V.Value:
        flags: list[str] = []
        pred = None
        inrange = None
        while True:
            t = self.toks[self.i]
            if t.kind != KW:
                break
            if t.text == "inrange":
                s = self.i
                self.i += 1
                self.skip_group()
                inrange = self.raw(s, self.i)
                continue
            if op in ("icmp", "fcmp") and pred is None:
                pred = t.text
            else:
                flags.append(t.text)
            self.i += 1
        self.expect("(")
        src_ty = None
        if op == "getelementptr":
            src_ty = self.parse_type()
            self.expect(",")
        ops = [self.parse_typed_value()]
        dest = None
        if op in I._CAST_SET:
            self.expect("to")
            dest = self.parse_type()
        else:
            while self.accept(","):
                ops.append(self.parse_typed_value())
        self.expect(")")
        return V.ConstantExpr(op, ops, dest or ty, flags, src_ty, pred, inrange)

    def md_expr_end(self) -> None:
        """Skip one metadata expression (`!5`, `!{..}`, `!DIFoo(..)`, `distinct !{..}`)."""
        if self.toks[self.i].text == "distinct":
            self.i += 1
        t = self.toks[self.i]
        if t.kind != META:
            self.error("expected metadata")
        self.i += 1
        if self.toks[self.i].text in ("(", "{") and self.toks[self.i].start == self.end_of(self.i - 1):
            self.skip_group()

    def parse_md_value(self) -> V.MetadataValue:
        """A `metadata` operand: metadata syntax or a typed value (`i32 %x`),
        up to the next `,`/`)` at bracket depth 0."""
        start = self.i
        depth = 0
        toks = self.toks
        while True:
            t = toks[self.i]
            if t.kind in (NL, EOF):
                break
            x = t.text
            if t.kind not in (STR, CSTR):
                if x in ("(", "[", "{"):
                    depth += 1
                elif x in (")", "]", "}"):
                    if depth == 0:
                        break
                    depth -= 1
                elif x == "," and depth == 0:
                    break
            self.i += 1
        return V.MetadataValue(self.template(start, self.i, local=self.st is not None))

    def template(self, start: int, end: int, local: bool) -> V.TextWithRefs:
        """Opaque text of tokens [start, end) with its value references resolved."""
        toks = self.toks
        parts: list[str] = []
        refs: list[V.Value] = []
        pos = toks[start].start if end > start else 0
        for j in range(start, end):
            t = toks[j]
            if t.kind == GLOBAL:
                v: V.Value = self.global_ref(t.text, j)
            elif t.kind == LOCAL and local and self._is_value_ref(j):
                key = _sigil_key(t.text)
                if j > start and toks[j - 1].text == "label":
                    v = self.block_ref(key)
                else:
                    v = self.local_ref(key, T.OpaqueType("?"), j)
            else:
                continue
            parts.append(self.src[pos : t.start])
            refs.append(v)
            pos = t.start + len(t.text)
        parts.append(self.src[pos : self.end_of(end - 1)] if end > start else "")
        return V.TextWithRefs(parts, refs)

    def _is_value_ref(self, j: int) -> bool:
        nt = self.toks[j + 1]
        return nt.kind in (NL, EOF) or nt.text in _CLOSERS

    # --------------------------------------------------------- attributes

    def attr_list(self, stop: frozenset[str] = frozenset(), stop_at_types: bool = False) -> str:
        """Raw text of a run of attributes (`noundef align 4 #0 "a"="b"`)."""
        start = self.i
        toks = self.toks
        while True:
            t = toks[self.i]
            k = t.kind
            if k == KW:
                x = t.text
                if x in _VALUE_KWS or x in stop:
                    break
                if stop_at_types and (x in _TYPE_KWS or (x[0] == "i" and x[1:].isdigit())):
                    break
                self.i += 1
                nt = toks[self.i]
                if nt.text == "(" and nt.start == t.start + len(x):
                    self.skip_group()
                elif x in ("align", "alignstack") and nt.kind == INT:
                    self.i += 1
                elif x == "addrspace" and nt.text == "(":
                    self.skip_group()
            elif k == STR:
                self.i += 1
                if toks[self.i].text == "=" and toks[self.i + 1].kind == STR:
                    self.i += 2
            elif k == ATTRGRP:
                self.i += 1
            else:
                break
        return self.raw(start, self.i)

    def parse_syncscope(self) -> str | None:
        if self.toks[self.i].text == "syncscope":
            self.i += 1
            self.expect("(")
            s = self.toks[self.i]
            if s.kind != STR:
                self.error("expected a sync scope string")
            self.i += 1
            self.expect(")")
            return unescape(s.text[1:-1])
        return None

    def parse_ordering(self) -> str:
        t = self.toks[self.i]
        if t.text not in _ORDERINGS:
            self.error("expected an atomic ordering")
        self.i += 1
        return t.text

    def parse_flags(self, allowed: frozenset[str]) -> list[str]:
        out = []
        toks = self.toks
        while toks[self.i].kind == KW and toks[self.i].text in allowed:
            out.append(toks[self.i].text)
            self.i += 1
        return out

    def parse_align(self) -> int | None:
        """`, align N` if it comes next (leaves other `, ...` alone)."""
        if self.toks[self.i].text == "," and self.toks[self.i + 1].text == "align":
            self.i += 2
            return self.expect_int()
        return None

    def parse_attachments(self) -> list[tuple[str, str]]:
        out = []
        toks = self.toks
        while toks[self.i].text == "," and toks[self.i + 1].kind == META:
            kind = toks[self.i + 1].text[1:]
            self.i += 2
            s = self.i
            self.md_expr_end()
            out.append((kind, self.raw(s, self.i)))
        return out

    # -------------------------------------------------------------- module

    def parse(self) -> Module:
        toks = self.toks
        m = self.m
        bodies: list[tuple[Function, int]] = []
        inits: list[tuple[GlobalVariable, int]] = []
        deferred: list[tuple[Any, str, int, int]] = []  # (holder, attr, start, end)
        while True:
            t = toks[self.i]
            k, x = t.kind, t.text
            if k == NL:
                self.i += 1
                continue
            if k == EOF:
                break
            if k == KW:
                if x == "source_filename":
                    self.i += 1
                    self.expect("=")
                    m.source_filename = unescape(self._string())
                    self.end_line()
                elif x == "target":
                    self.i += 1
                    which = self.toks[self.i].text
                    self.i += 1
                    self.expect("=")
                    s = unescape(self._string())
                    if which == "datalayout":
                        m.datalayout = s
                    elif which == "triple":
                        m.triple = s
                    else:
                        self.error("unknown target line")
                    self.end_line()
                elif x == "module":
                    e = self.line_end(self.i)
                    m.module_asm.append(self.raw(self.i, e))
                    self.i = e
                elif x == "define" or x == "declare":
                    fn, body = self.parse_fn_header(deferred)
                    if body is not None:
                        bodies.append((fn, body))
                elif x == "attributes":
                    e = self.line_end(self.i)
                    m.attribute_groups.append(self.raw(self.i, e))
                    self.i = e
                elif x in ("uselistorder", "uselistorder_bb"):
                    e = self.line_end(self.i)
                    holder = V.TextWithRefs.plain("")
                    m.trailer.append(holder)
                    deferred.append((m.trailer, len(m.trailer) - 1, self.i, e))
                    self.i = e
                else:
                    self.error("unexpected top-level keyword")
            elif k == LOCAL:
                self.parse_type_def()
            elif k == GLOBAL:
                self.parse_global(inits, deferred)
            elif k == COMDAT:
                e = self.line_end(self.i)
                m.comdats.append(self.raw(self.i, e))
                self.i = e
            elif k == META:
                e = self.line_end(self.i)
                target = m.named_metadata if not x[1:].isdigit() else m.metadata_nodes
                target.append(V.TextWithRefs.plain(""))
                deferred.append((target, len(target) - 1, self.i, e))
                self.i = e
            else:
                self.error("unexpected token at top level")
        # Phase 2.
        for fn, body in bodies:
            self.i = body
            self.parse_body(fn)
        for gv, at in inits:
            self.i = at
            gv.initializer = self.parse_value(gv.value_type)
            self.parse_global_tail(gv)
        self.st = None
        for holder, attr, s, e in deferred:
            tpl = self.template(s, e, local=False)
            if isinstance(holder, list):
                holder[attr] = tpl
            else:
                setattr(holder, attr, tpl)
        return m

    def _string(self) -> str:
        t = self.toks[self.i]
        if t.kind != STR:
            self.error("expected a string")
        self.i += 1
        return t.text[1:-1]

    def parse_type_def(self) -> None:
        name = _sigil_key(self.toks[self.i].text)
        self.i += 1
        self.expect("=")
        self.expect("type")
        st = self.m.get_struct_type(name)  # type: ignore[arg-type]
        if self.accept("opaque"):
            st.opaque = True
        else:
            body = self.parse_type()
            if not isinstance(body, T.StructType) or body.name is not None:
                self.error("expected a struct body")
            st.set_body(body.elements, body.packed)
        self.end_line()

    def parse_global(self, inits: list[tuple[GlobalVariable, int]], deferred: list[tuple[Any, str, int, int]]) -> None:
        start = self.i
        key = _sigil_key(self.toks[self.i].text)
        self.i += 1
        self.expect("=")
        body_start = self.i
        linkage = None
        attrs: list[str] = []
        addrspace = 0
        ext_init = False
        toks = self.toks
        while True:
            t = toks[self.i]
            x = t.text
            if t.kind != KW:
                self.error("expected global, constant or alias")
            if x in ("global", "constant"):
                break
            if x in ("alias", "ifunc"):
                e = self.line_end(self.i)
                ga = GlobalAlias(key if isinstance(key, str) else None)
                ga.parent = self.m
                self.m.aliases.append(ga)
                self.gsyms[key] = ga
                deferred.append((ga, "text", body_start, e))
                self.i = e
                return
            self.i += 1
            if x in _LINKAGES and linkage is None and not attrs:
                linkage = x
            elif x == "addrspace":
                self.expect("(")
                addrspace = self.expect_int()
                self.expect(")")
            elif x == "externally_initialized":
                ext_init = True
            else:
                s = self.i - 1
                if toks[self.i].text == "(":
                    self.skip_group()
                attrs.append(self.raw(s, self.i))
        is_const = toks[self.i].text == "constant"
        self.i += 1
        vty = self.parse_type()
        gv = GlobalVariable(
            key if isinstance(key, str) else None,
            vty,
            None,
            linkage=linkage,
            is_constant=is_const,
            addrspace=addrspace,
            attrs=" ".join(attrs),
        )
        gv.externally_initialized = ext_init
        gv.parent = self.m
        if key in self.gsyms:
            self.error(f"redefinition of global @{key}", start)
        self.gsyms[key] = gv
        self.m.globals.append(gv)
        t = toks[self.i]
        if t.kind in (NL, EOF) or t.text == ",":
            self.parse_global_tail(gv)
        else:
            inits.append((gv, self.i))
            self.i = self.line_end(self.i)

    def parse_global_tail(self, gv: GlobalVariable) -> None:
        """`, section ..., align N, !dbg !5` after the type/initializer."""
        toks = self.toks
        extra: list[str] = []
        while toks[self.i].text == ",":
            if toks[self.i + 1].text == "align":
                self.i += 2
                gv.align = self.expect_int()
                continue
            s = self.i
            self.i += 1
            depth = 0
            while True:
                t = toks[self.i]
                if t.kind in (NL, EOF):
                    break
                if t.kind not in (STR, CSTR):
                    if t.text in ("(", "[", "{"):
                        depth += 1
                    elif t.text in (")", "]", "}"):
                        depth -= 1
                    elif t.text == "," and depth == 0:
                        break
                self.i += 1
            extra.append(self.raw(s, self.i))
        gv.extra = "".join(extra)
        self.end_line()

    def parse_fn_header(self, deferred: list[tuple[Any, str, int, int]]) -> tuple[Function, int | None]:
        """A `define`/`declare` line (a definition's body is skipped, for
        phase 2). A header read before from the same token list is made
        again from what that parse found: a module declares dozens of
        builtins, and the prepared kernel is re-read for every request."""
        start = self.i
        headers = _facts(self.toks).headers
        known = headers.get(start)
        if known is not None:
            return self._header_again(known, deferred)
        n_deferred = len(deferred)
        key, fn, body = self._parse_fn_header(deferred)
        if not self.m.struct_types:
            # (A named struct type belongs to its module: only headers
            # without one can be shared. LLVM prints type definitions first.)
            trailing = deferred[-1][2:] if len(deferred) > n_deferred else None
            headers[start] = (
                key,
                fn.name, fn.function_type, fn.linkage, fn.prefix, fn.calling_conv, fn.return_attributes,
                tuple(a.attributes for a in fn.args), tuple(fn._arg_keys),  # type: ignore[attr-defined]
                fn.unnamed_addr, fn.addrspace, fn.attributes, trailing, tuple(fn.metadata), self.i, body,
            )
        return fn, body

    def _header_again(self, known: tuple[Any, ...], deferred: list[tuple[Any, str, int, int]]) -> tuple[Function, int | None]:
        (key, name, fnty, linkage, prefix, cc, ret_attrs, pattrs, pnames, unnamed_addr, addrspace, attributes,
         trailing, metadata, end, body) = known
        fn = Function(name, fnty, self.m)
        fn.linkage = linkage
        fn.prefix = prefix
        fn.calling_conv = cc
        fn.return_attributes = ret_attrs
        for a, at, pn in zip(fn.args, pattrs, pnames, strict=True):
            a.attributes = at
            a.name = pn if isinstance(pn, str) else None
        fn._arg_keys = list(pnames)  # type: ignore[attr-defined]
        fn.unnamed_addr = unnamed_addr
        fn.addrspace = addrspace
        fn.attributes = attributes
        if trailing is not None:
            fn.trailing = V.TextWithRefs.plain("")
            deferred.append((fn, "trailing", *trailing))
        fn.metadata = list(metadata)
        if key in self.gsyms:
            self.error(f"redefinition of @{key}")
        self.gsyms[key] = fn
        self.m.functions.append(fn)
        self.i = end
        return fn, body

    def _parse_fn_header(self, deferred: list[tuple[Any, str, int, int]]) -> tuple[str | int, Function, int | None]:
        toks = self.toks
        is_def = toks[self.i].text == "define"
        self.i += 1
        linkage = None
        prefix: list[str] = []
        cc = None
        while True:
            t = toks[self.i]
            x = t.text
            if t.kind != KW:
                break
            if x in _LINKAGES and linkage is None and not prefix:
                linkage = x
                self.i += 1
            elif x in ("dso_local", "dso_preemptable", "default", "hidden", "protected", "dllimport", "dllexport"):
                prefix.append(x)
                self.i += 1
            elif x == "cc" and toks[self.i + 1].kind == INT:
                cc = f"cc {toks[self.i + 1].text}"
                self.i += 2
            elif _is_cc(x):
                cc = x
                self.i += 1
            else:
                break
        ret_attrs = self.attr_list(stop_at_types=True)
        ret = self.parse_type()
        nt = toks[self.i]
        if nt.kind != GLOBAL:
            self.error("expected a function name")
        key = _sigil_key(nt.text)
        self.i += 1
        self.expect("(")
        params: list[T.Type] = []
        pattrs: list[str] = []
        pnames: list[str | int | None] = []
        vararg = False
        if not self.accept(")"):
            while True:
                if toks[self.i].kind == DOTS:
                    self.i += 1
                    vararg = True
                    self.expect(")")
                    break
                params.append(self.parse_type())
                pattrs.append(self.attr_list())
                if toks[self.i].kind == LOCAL:
                    pnames.append(_sigil_key(toks[self.i].text))
                    self.i += 1
                else:
                    pnames.append(None)
                if self.accept(")"):
                    break
                self.expect(",")
        fn = Function(key if isinstance(key, str) else None, T.FunctionType(ret, tuple(params), vararg), self.m)
        fn.linkage = linkage
        fn.prefix = " ".join(prefix)
        fn.calling_conv = cc
        fn.return_attributes = ret_attrs
        for a, at, pn in zip(fn.args, pattrs, pnames, strict=True):
            a.attributes = at
            a.name = pn if isinstance(pn, str) else None
        fn._arg_keys = pnames  # type: ignore[attr-defined]
        if toks[self.i].text in ("unnamed_addr", "local_unnamed_addr"):
            fn.unnamed_addr = toks[self.i].text
            self.i += 1
        if toks[self.i].text == "addrspace":
            self.i += 1
            self.expect("(")
            fn.addrspace = self.expect_int()
            self.expect(")")
        fn.attributes = self.attr_list(stop=_FN_TRAILING)
        s = self.i
        while True:
            t = toks[self.i]
            if t.kind in (NL, EOF, META) or t.text == "{":
                break
            if t.text in ("(", "["):
                self.skip_group()
            else:
                self.i += 1
        if self.i > s:
            fn.trailing = V.TextWithRefs.plain("")
            deferred.append((fn, "trailing", s, self.i))
        while toks[self.i].kind == META:
            kind = toks[self.i].text[1:]
            self.i += 1
            ms = self.i
            self.md_expr_end()
            fn.metadata.append((kind, self.raw(ms, self.i)))
        if key in self.gsyms:
            self.error(f"redefinition of @{key}")
        self.gsyms[key] = fn
        self.m.functions.append(fn)
        if not is_def:
            self.end_line()
            return key, fn, None
        self.expect("{")
        body = self.i
        self.skip_body()
        return key, fn, body

    def skip_body(self) -> None:
        """Skip a function body (phase 2 parses it) up to its closing brace.

        Braces balance; only brace tokens have the text `{` or `}` (a
        string's text keeps its quotes), so `list.index` on the token
        texts finds the next ones in C instead of a loop over every token
        of every body."""
        toks = self.toks
        facts = _facts(toks)
        texts = facts.texts
        if texts is None:
            texts = facts.texts = [t.text for t in toks]
        i = self.i
        depth = 1
        while depth:
            try:
                close = texts.index("}", i)
            except ValueError:
                self.i = len(toks) - 1
                self.error("unterminated function body")
            try:
                i = texts.index("{", i, close) + 1
                depth += 1
            except ValueError:
                i = close + 1
                depth -= 1
        self.i = i

    # ---------------------------------------------------------- functions

    def parse_body(self, fn: Function) -> None:
        blocks = self.fn_blocks.setdefault(id(fn), {})
        st = self.st = _FnState(fn, blocks)
        nunnamed = 0
        for a, k in zip(fn.args, fn._arg_keys, strict=True):  # type: ignore[attr-defined]
            if k is None:
                k = nunnamed
            if isinstance(k, int):
                nunnamed = k + 1
            st.values[k] = a
        del fn._arg_keys  # type: ignore[attr-defined]
        toks = self.toks
        handlers = _HANDLERS
        values = st.values
        cur: BasicBlock | None = None
        pending_dbg: list[I.DebugRecord] = []
        while True:
            t = toks[self.i]
            k = t.kind
            if k == NL:
                self.i += 1
                continue
            if t.text == "}" and k == PUNCT:
                self.i += 1
                break
            if k == LABEL:
                key = _key(t.text[:-1])
                self.i += 1
                cur = self.define_block(key)
                if isinstance(key, int):
                    nunnamed = key + 1
                continue
            if cur is None:
                # The entry block's label is omitted when it is unnamed.
                cur = self.define_block(nunnamed)
                nunnamed += 1
            if k == DBG:
                s = self.i
                self.i += 1
                self.skip_group()
                pending_dbg.append(I.DebugRecord(self.template(s, self.i, local=True)))
                self.end_line()
                continue
            if k == KW and t.text in ("uselistorder", "uselistorder_bb"):
                e = self.line_end(self.i)
                fn.uselistorder.append(self.template(self.i, e, local=True))
                self.i = e
                continue
            key = None
            if k == LOCAL and toks[self.i + 1].text == "=":
                key = _sigil_key(t.text)
                self.i += 2
                t = toks[self.i]
            # `parse_instruction`'s dispatch, inlined (once per line).
            h = handlers.get(t.text) if t.kind == KW else None
            if h is not None:
                self.i += 1
                inst = h(self, t.text)
            else:
                inst = self.parse_instruction(key)
            if toks[self.i].text == "," and not inst._metadata:
                md = self.parse_attachments()
                if md:
                    inst._metadata = md
            if pending_dbg:
                inst._debug_records = pending_dbg
                pending_dbg = []
            cur.instructions.append(inst)
            inst.parent = cur
            if key is not None:
                if isinstance(key, int):
                    nunnamed = key + 1
                # `define_value`'s usual case (no forward references), inlined.
                if key in values or st.fwd:
                    self.define_value(key, inst)
                else:
                    values[key] = inst
                    inst.name = key if isinstance(key, str) else None
            # `end_line`, inlined.
            k = toks[self.i].kind
            if k == NL:
                self.i += 1
            elif k != EOF:
                self.error("expected end of line")
        if st.fwd:
            key = next(iter(st.fwd))
            self.error(f"use of undefined value %{key}", st.fwd_tok[key])
        for key, b in blocks.items():
            if id(b) not in st.defined_blocks:
                self.error(f"use of undefined block %{key}")
        self.st = None

    def define_block(self, key: str | int) -> BasicBlock:
        st = self.st
        assert st is not None
        b = self.block_ref(key)
        if id(b) in st.defined_blocks:
            self.error(f"redefinition of block %{key}")
        st.defined_blocks.add(id(b))
        b.name = key if isinstance(key, str) else None
        st.fn.append_block(b)
        return b

    def define_value(self, key: str | int, v: V.Value) -> None:
        st = self.st
        assert st is not None
        if key in st.values:
            self.error(f"redefinition of %{key}")
        st.values[key] = v
        v.name = key if isinstance(key, str) else None
        ph = st.fwd.pop(key, None)
        if ph is not None:
            st.fwd_tok.pop(key, None)
            ph.replace_all_uses_with(v)

    # -------------------------------------------------------- instructions

    def parse_instruction(self, key: str | int | None) -> I.Instruction:
        t = self.toks[self.i]
        if t.kind != KW:
            self.error("expected an instruction")
        op = t.text
        self.i += 1
        h = _HANDLERS.get(op)
        if h is not None:
            return h(self, op)
        if op in ("tail", "musttail", "notail"):
            self.expect("call")
            return self.parse_call(op)
        if op in _OPAQUE_OPS:
            return self.parse_opaque(op)
        self.i -= 1
        self.error("unknown instruction")

    def p_binop(self, op: str) -> I.Instruction:
        flags = self.parse_flags(_FMF if op in I._FP_BINARY_SET else _INT_FLAGS)
        ty = self.parse_type()
        a = self.parse_value(ty)
        if self.toks[self.i].text != ",":  # `expect(",")`, inlined
            self.error("expected ','")
        self.i += 1
        b = self.parse_value(ty)
        return I.BinaryOperator(op, a, b, flags)

    def p_fneg(self, op: str) -> I.Instruction:
        flags = self.parse_flags(_FMF)
        return I.UnaryOperator(op, self.parse_typed_value(), flags)

    def p_icmp(self, op: str) -> I.Instruction:
        flags = self.parse_flags(_INT_FLAGS)
        pred = self.toks[self.i].text
        self.i += 1
        ty = self.parse_type()
        a = self.parse_value(ty)
        if self.toks[self.i].text != ",":  # `expect(",")`, inlined
            self.error("expected ','")
        self.i += 1
        b = self.parse_value(ty)
        return I.ICmpInst(pred, a, b, flags)

    def p_fcmp(self, op: str) -> I.Instruction:
        flags = self.parse_flags(_FMF)
        pred = self.toks[self.i].text
        self.i += 1
        ty = self.parse_type()
        a = self.parse_value(ty)
        if self.toks[self.i].text != ",":  # `expect(",")`, inlined
            self.error("expected ','")
        self.i += 1
        b = self.parse_value(ty)
        return I.FCmpInst(pred, a, b, flags)

    def p_select(self, op: str) -> I.Instruction:
        flags = self.parse_flags(_FMF)
        c = self.parse_typed_value()
        if self.toks[self.i].text != ",":  # `expect(",")`, inlined
            self.error("expected ','")
        self.i += 1
        a = self.parse_typed_value()
        if self.toks[self.i].text != ",":  # `expect(",")`, inlined
            self.error("expected ','")
        self.i += 1
        b = self.parse_typed_value()
        return I.SelectInst(c, a, b, flags)

    def p_phi(self, op: str) -> I.Instruction:
        flags = self.parse_flags(_FMF)
        ty = self.parse_type()
        phi = I.PhiNode(ty, (), flags)
        toks = self.toks
        while True:
            self.expect("[")
            v = self.parse_value(ty)
            self.expect(",")
            bt = toks[self.i]
            if bt.kind != LOCAL:
                self.error("expected a block")
            self.i += 1
            b = self.block_ref(_sigil_key(bt.text))
            self.expect("]")
            phi.add_incoming(v, b)
            if toks[self.i].text == "," and toks[self.i + 1].text == "[":
                self.i += 1
                continue
            return phi

    def p_cast(self, op: str) -> I.Instruction:
        # fptrunc/fpext take fast-math flags, the others wrap/nneg flags.
        flags = self.parse_flags(_CAST_FLAGS)
        v = self.parse_typed_value()
        self.expect("to")
        return I.CastInst(op, v, self.parse_type(), flags)

    def p_gep(self, op: str) -> I.Instruction:
        flags = self.parse_flags(_GEP_FLAGS)
        src = self.parse_type()
        self.expect(",")
        p = self.parse_typed_value()
        idx = []
        toks = self.toks
        while toks[self.i].text == "," and toks[self.i + 1].kind != META:
            self.i += 1
            idx.append(self.parse_typed_value())
        return I.GetElementPtrInst(src, p, idx, flags)

    def p_load(self, op: str) -> I.Instruction:
        atomic = self.accept("atomic")
        volatile = self.accept("volatile")
        ty = self.parse_type()
        if self.toks[self.i].text != ",":  # `expect(",")`, inlined
            self.error("expected ','")
        self.i += 1
        p = self.parse_typed_value()
        scope = ordering = None
        if atomic:
            scope = self.parse_syncscope()
            ordering = self.parse_ordering()
        align = self.parse_align()
        return I.LoadInst(ty, p, align, volatile, ordering, scope)

    def p_store(self, op: str) -> I.Instruction:
        atomic = self.accept("atomic")
        volatile = self.accept("volatile")
        v = self.parse_typed_value()
        if self.toks[self.i].text != ",":  # `expect(",")`, inlined
            self.error("expected ','")
        self.i += 1
        p = self.parse_typed_value()
        scope = ordering = None
        if atomic:
            scope = self.parse_syncscope()
            ordering = self.parse_ordering()
        align = self.parse_align()
        return I.StoreInst(v, p, align, volatile, ordering, scope)

    def p_alloca(self, op: str) -> I.Instruction:
        flags = self.parse_flags(frozenset({"inalloca", "swifterror"}))
        ty = self.parse_type()
        count = None
        align = None
        addrspace = 0
        toks = self.toks
        while toks[self.i].text == "," and toks[self.i + 1].kind != META:
            self.i += 1
            x = toks[self.i].text
            if x == "align":
                self.i += 1
                align = self.expect_int()
            elif x == "addrspace":
                self.i += 1
                self.expect("(")
                addrspace = self.expect_int()
                self.expect(")")
            else:
                count = self.parse_typed_value()
        return I.AllocaInst(ty, count, align, addrspace, flags)

    def call_prefix(self) -> tuple[list[str], str | None, str, int | None, T.Type, T.FunctionType | None]:
        """`[fmf] [cc] [ret attrs] [addrspace(N)] T [(params)]` of call/invoke."""
        toks = self.toks
        flags = self.parse_flags(_FMF)
        cc = None
        x = toks[self.i].text
        if x == "cc" and toks[self.i + 1].kind == INT:
            cc = f"cc {toks[self.i + 1].text}"
            self.i += 2
        elif toks[self.i].kind == KW and _is_cc(x):
            cc = x
            self.i += 1
        ret_attrs = self.attr_list(stop=frozenset({"addrspace"}), stop_at_types=True)
        addrspace = None
        if toks[self.i].text == "addrspace":
            self.i += 1
            self.expect("(")
            addrspace = self.expect_int()
            self.expect(")")
        ret = self.parse_type()
        fnty = None
        if toks[self.i].text == "(":
            self.i += 1
            params: list[T.Type] = []
            vararg = False
            if not self.accept(")"):
                while True:
                    if toks[self.i].kind == DOTS:
                        self.i += 1
                        vararg = True
                        self.expect(")")
                        break
                    params.append(self.parse_type())
                    if self.accept(")"):
                        break
                    self.expect(",")
            fnty = T.FunctionType(ret, tuple(params), vararg)
        return flags, cc, ret_attrs, addrspace, ret, fnty

    def parse_call(self, tail: str | None) -> I.Instruction:
        flags, cc, ret_attrs, addrspace, ret, fnty = self.call_prefix()
        callee = self.parse_value(T.ptr)
        self.expect("(")
        args: list[V.Value] = []
        aattrs: list[str] = []
        toks = self.toks
        if not self.accept(")"):
            while True:
                ty = self.parse_type()
                aattrs.append(self.attr_list() if toks[self.i].kind in _ATTR_START else "")
                if isinstance(ty, T.MetadataType):
                    args.append(self.parse_md_value())
                else:
                    args.append(self.parse_value(ty))
                if self.accept(")"):
                    break
                self.expect(",")
        if fnty is None:
            fnty = T.FunctionType(ret, tuple(a.type for a in args), False)
        fattrs = self.attr_list()
        bundles: list[tuple[str, list[V.Value]]] = []
        if toks[self.i].text == "[":
            self.i += 1
            while True:
                tag = unescape(self._string())
                self.expect("(")
                vals: list[V.Value] = []
                if not self.accept(")"):
                    while True:
                        ty = self.parse_type()
                        vals.append(self.parse_md_value() if isinstance(ty, T.MetadataType) else self.parse_value(ty))
                        if self.accept(")"):
                            break
                        self.expect(",")
                bundles.append((tag, vals))
                if self.accept("]"):
                    break
                self.expect(",")
        return I.CallInst(
            fnty,
            callee,
            args,
            calling_conv=cc,
            tail=tail,
            flags=flags,
            return_attributes=ret_attrs,
            arg_attributes=aattrs,
            attributes=fattrs,
            bundles=bundles,
            addrspace=addrspace,
        )

    def p_call(self, op: str) -> I.Instruction:
        return self.parse_call(None)

    def p_br(self, op: str) -> I.Instruction:
        if self.toks[self.i].text == "label":
            return I.BranchInst(self.parse_label())
        c = self.parse_typed_value()
        self.expect(",")
        a = self.parse_label()
        self.expect(",")
        b = self.parse_label()
        return I.BranchInst(c, a, b)

    def p_switch(self, op: str) -> I.Instruction:
        ty = self.parse_type()
        c = self.parse_value(ty)
        self.expect(",")
        d = self.parse_label()
        sw = I.SwitchInst(c, d)
        self.expect("[")
        self.skip_nl()
        while not self.accept("]"):
            v = self.parse_typed_value()
            self.expect(",")
            sw.add_case(v, self.parse_label())
            self.skip_nl()
        return sw

    def p_ret(self, op: str) -> I.Instruction:
        if self.accept("void"):
            return I.ReturnInst()
        return I.ReturnInst(self.parse_typed_value())

    def p_unreachable(self, op: str) -> I.Instruction:
        return I.UnreachableInst()

    def p_extractelement(self, op: str) -> I.Instruction:
        v = self.parse_typed_value()
        if self.toks[self.i].text != ",":  # `expect(",")`, inlined
            self.error("expected ','")
        self.i += 1
        return I.ExtractElementInst(v, self.parse_typed_value())

    def p_insertelement(self, op: str) -> I.Instruction:
        v = self.parse_typed_value()
        if self.toks[self.i].text != ",":  # `expect(",")`, inlined
            self.error("expected ','")
        self.i += 1
        e = self.parse_typed_value()
        if self.toks[self.i].text != ",":  # `expect(",")`, inlined
            self.error("expected ','")
        self.i += 1
        return I.InsertElementInst(v, e, self.parse_typed_value())

    def p_shufflevector(self, op: str) -> I.Instruction:
        a = self.parse_typed_value()
        self.expect(",")
        b = self.parse_typed_value()
        self.expect(",")
        mty = self.parse_type()
        if not isinstance(mty, T.VectorType):
            self.error("expected a vector mask type")
        mask_c = self.parse_value(mty)
        if isinstance(mask_c, V.ConstantVector):
            mask = [
                e.value if isinstance(e, V.ConstantInt) else -1 for e in mask_c.elements
            ]
        elif isinstance(mask_c, V.ConstantAggregateZero):
            mask = [0] * mty.count
        elif isinstance(mask_c, (V.PoisonValue, V.UndefValue)):
            mask = [-1] * mty.count
        else:
            self.error("unsupported shuffle mask")
        return I.ShuffleVectorInst(a, b, mask)

    def _indices(self) -> list[int]:
        out = []
        toks = self.toks
        while toks[self.i].text == "," and toks[self.i + 1].kind == INT:
            self.i += 1
            out.append(self.expect_int())
        return out

    def p_extractvalue(self, op: str) -> I.Instruction:
        agg = self.parse_typed_value()
        return I.ExtractValueInst(agg, self._indices())

    def p_insertvalue(self, op: str) -> I.Instruction:
        agg = self.parse_typed_value()
        self.expect(",")
        v = self.parse_typed_value()
        return I.InsertValueInst(agg, v, self._indices())

    def p_freeze(self, op: str) -> I.Instruction:
        return I.FreezeInst(self.parse_typed_value())

    def p_atomicrmw(self, op: str) -> I.Instruction:
        volatile = self.accept("volatile")
        operation = self.toks[self.i].text
        self.i += 1
        p = self.parse_typed_value()
        self.expect(",")
        v = self.parse_typed_value()
        scope = self.parse_syncscope()
        ordering = self.parse_ordering()
        align = self.parse_align()
        return I.AtomicRMWInst(operation, p, v, ordering, scope, volatile, align)

    def p_cmpxchg(self, op: str) -> I.Instruction:
        weak = self.accept("weak")
        volatile = self.accept("volatile")
        p = self.parse_typed_value()
        self.expect(",")
        c = self.parse_typed_value()
        self.expect(",")
        n = self.parse_typed_value()
        scope = self.parse_syncscope()
        succ = self.parse_ordering()
        fail = self.parse_ordering()
        align = self.parse_align()
        return I.AtomicCmpXchgInst(p, c, n, succ, fail, scope, weak, volatile, align)

    def p_fence(self, op: str) -> I.Instruction:
        scope = self.parse_syncscope()
        return I.FenceInst(self.parse_ordering(), scope)

    def parse_opaque(self, op: str) -> I.Instruction:
        """An instruction kept as a template (invoke, landingpad, va_arg, ...)."""
        toks = self.toks
        start = self.i
        ty: T.Type = T.void
        if op in ("invoke", "callbr"):
            ty = self.call_prefix()[4]
            self.i = start
        elif op == "landingpad":
            ty = self.parse_type()
            self.i = start
        elif op in ("catchpad", "cleanuppad", "catchswitch"):
            ty = T.token
        # The instruction ends at the line break at bracket depth 0, except
        # that landingpad clauses and invoke destinations continue on the
        # following lines.
        depth = 0
        last_comma = -1
        while True:
            t = toks[self.i]
            if t.kind == EOF:
                break
            if t.kind == NL:
                if depth == 0:
                    nxt = self.i + 1
                    if toks[nxt].text in _CONTINUATIONS.get(op, ()):
                        self.i += 1
                        continue
                    break
                self.i += 1
                continue
            if t.kind not in (STR, CSTR):
                if t.text in ("(", "[", "{"):
                    depth += 1
                elif t.text in (")", "]", "}"):
                    depth -= 1
                elif t.text == "," and depth == 0 and toks[self.i + 1].kind != META:
                    last_comma = self.i
            self.i += 1
        end = self.i
        if op == "va_arg":
            if last_comma < 0:
                self.error("malformed va_arg", start)
            self.i = last_comma + 1
            ty = self.parse_type()
            self.i = end
        tpl = self.template(start, end, local=True)
        # The template's references become real operands.
        tpl.detach()
        parts = list(tpl.parts)
        if end > start:
            parts[0] = " " + parts[0]
        return I.OpaqueInst(op, ty, parts, tpl.refs)


_HANDLERS: dict[str, Any] = {op: _Parser.p_binop for op in I.BINARY_OPCODES}
_HANDLERS.update({op: _Parser.p_cast for op in I.CAST_OPCODES})
_HANDLERS.update(
    {
        "fneg": _Parser.p_fneg,
        "icmp": _Parser.p_icmp,
        "fcmp": _Parser.p_fcmp,
        "select": _Parser.p_select,
        "phi": _Parser.p_phi,
        "getelementptr": _Parser.p_gep,
        "load": _Parser.p_load,
        "store": _Parser.p_store,
        "alloca": _Parser.p_alloca,
        "call": _Parser.p_call,
        "br": _Parser.p_br,
        "switch": _Parser.p_switch,
        "ret": _Parser.p_ret,
        "unreachable": _Parser.p_unreachable,
        "extractelement": _Parser.p_extractelement,
        "insertelement": _Parser.p_insertelement,
        "shufflevector": _Parser.p_shufflevector,
        "extractvalue": _Parser.p_extractvalue,
        "insertvalue": _Parser.p_insertvalue,
        "freeze": _Parser.p_freeze,
        "atomicrmw": _Parser.p_atomicrmw,
        "cmpxchg": _Parser.p_cmpxchg,
        "fence": _Parser.p_fence,
    }
)


def parse_module(text: str | bytes, canonicalize: bool = False) -> Module:
    """Parse LLVM 22's canonical text into a `Module`.

    With `canonicalize=True` the input (text, bitcode bytes) first goes
    through `vectorizer.llvm_bridge.canonicalize`, so any valid IR is
    accepted and malformed input raises the bridge's `IRError`.
    """
    if canonicalize:
        from vectorizer.llvm_bridge import canonicalize as _canon

        text = _canon(text)
    elif isinstance(text, bytes):
        text = text.decode("utf-8")
    return _Parser(text).parse()

