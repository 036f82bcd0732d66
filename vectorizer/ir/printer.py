"""Printing the Python IR as LLVM text.

Unnamed values are numbered the way LLVM does (per function: arguments, then
each block and the non-void instructions in it; per module: unnamed global
variables, then unnamed functions). Names that collide (two values given the
same name by a transform) are made unique on print by a `.N` suffix, because
LLVM itself renames on collision rather than rejecting the module.
"""

from __future__ import annotations

from collections.abc import Callable

from . import instructions as I
from . import types as T
from . import values as V
from .module import Argument, BasicBlock, Function, GlobalValue, GlobalVariable, Module
from .types import quote_name

__all__ = [
    "print_module",
    "print_function",
    "print_instruction",
    "print_instructions",
    "typed_constant",
    "constant_text",
    "default_ref",
    "FMF_ORDER",
]

_VectorType = T.VectorType
_ConstantInt = V.ConstantInt
_IntType = T.IntType

FMF_ORDER = ("nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc")
_FMF_SET = frozenset((*FMF_ORDER, "fast"))
_INT_FLAG_ORDER = ("nuw", "nsw", "exact", "disjoint", "nneg", "samesign")


def _fmf(flags: set[str]) -> str:
    if not flags:
        return ""
    if "fast" in flags or all(f in flags for f in FMF_ORDER):
        return " fast"
    return "".join(" " + f for f in FMF_ORDER if f in flags)


def _int_flags(flags: set[str]) -> str:
    if not flags:
        return ""
    return "".join(" " + f for f in _INT_FLAG_ORDER if f in flags)


def _gep_flags(flags: set[str]) -> str:
    out = ""
    if "inbounds" in flags:
        out += " inbounds"
    elif "nusw" in flags:
        out += " nusw"
    if "nuw" in flags:
        out += " nuw"
    return out


# `%` and the spelling of local names (a regular expression decides
# whether a name is quoted): names recur in every print of a kernel.
_QUOTED: dict[str, str] = {}


# `%0`, `%1`, ...: the spellings of unnamed locals, made once per process
# (`_numbers` extends the table).
_NUMBERED: list[str] = [f"%{n}" for n in range(1024)]
_NUMBERED_MAX = 1 << 16


def _numbers(most: int) -> list[str]:
    """`%0` to `%most` at least: `_NUMBERED`, extended (up to `_NUMBERED_MAX`
    entries kept; a larger function gets a table of its own)."""
    if most >= _NUMBERED_MAX:
        return [f"%{k}" for k in range(most + 1)]
    _NUMBERED.extend(f"%{k}" for k in range(len(_NUMBERED), most + 1))
    return _NUMBERED


def _unique(name: str, used: set[str]) -> str:
    if name not in used:
        return name
    n = 1
    while f"{name}.{n}" in used:
        n += 1
    return f"{name}.{n}"


def _unique_after(name: str, used: set[str], suffix: dict[str, int]) -> str:
    """`_unique(name, used)` for a caller that adds each answer to `used`
    and keeps `suffix` for the same `used`: `name.1` to `name.k` are all in
    `used` after `name.k` was the answer, so the search for the next free
    suffix starts at k + 1 (a name repeated n times costs n tries, not n²/2).
    """
    n = suffix.get(name, 1)
    while f"{name}.{n}" in used:
        n += 1
    suffix[name] = n + 1
    return f"{name}.{n}"


class _Ctx:
    """Name tables for one print: module-level names and per-function slots.

    Everything remembered here (`local`, `tx`, `tcache`) is keyed by object
    identity and lives for one print only: the IR cannot change during a
    print, and every key is an object reachable from the printed IR (or kept
    alive in `_tkeep`), so no identity is reused while the table exists.
    """

    def __init__(self, module: Module | None, structs: bool = False, strict: bool = False) -> None:
        self.module = module
        # A whole module printed for LLVM: a local value outside the function
        # being printed (an erased instruction a pass still refers to, or one
        # of another function) is spelled `%<badref>` even when it has a
        # name, so LLVM rejects the module. By its name, LLVM would bind the
        # reference to whatever value of the function now has that name.
        self.strict = strict
        self.gnames: dict[int, str] = {}
        self.fn_slots: dict[int, dict[int, str]] = {}
        self.local: dict[int, str] = {}
        # `id(value) -> "type spelling"` (an operand with its type) while
        # printing one function: its locals (filled by `slots`), then every
        # other value `typed` spells there. Most operands are printed with
        # their type, so this is the printer's most frequent lookup. One
        # table per function, as `local` is: a value's spelling is made in
        # the context of the function being printed.
        self.tx: dict[int, str] = {}
        self.fn_tx: dict[int, dict[int, str]] = {}
        # `str(t)` by `id(t)` (`type_text`), for this print: formatting a type
        # calls its Python `__str__` (nested, for vectors and arrays), and a
        # module names few distinct type objects many times.
        self.tcache: dict[int, str] = {}
        self.tpre: dict[int, str] = {}  # see `slots`
        self._tkeep: list[T.Type] = []  # keeps each cached id's type alive
        # The named structs the module does not register, found while
        # printing (`print_module` only; see `_struct_section`): the names
        # start as the registered ones, and `seen` holds the ids of the
        # types already walked for struct names.
        self.found: dict[str, T.StructType] | None = dict(module.struct_types) if structs and module else None
        self.seen: set[int] = set()
        if module is not None:
            used: set[str] = set()
            n = 0
            for gl in (module.globals, module.aliases, module.functions):
                for g in gl:
                    if g.name:
                        nm = _unique(g.name, used)
                        used.add(nm)
                        self.gnames[id(g)] = "@" + quote_name(nm)
                    else:
                        self.gnames[id(g)] = f"@{n}"
                        n += 1
                    t = g.type
                    if self.found is not None and type(t) not in _LEAF_TYPES and id(t) not in self.seen:
                        # (a pointer, always, in practice) For `_struct_section`:
                        # `_p_call` spells a callee from `gnames` directly.
                        self.cover(t)

    def cover(self, t: T.Type) -> None:
        """Walk `t` for named structs (when this print collects them); the
        caller has checked that `t` is no leaf and not walked yet."""
        if self.found is not None:
            _walk_type(t, self.found, self.seen)

    def cover_function_type(self, t: T.FunctionType) -> None:
        """`cover` of a function type not walked yet: each call names one,
        mostly of scalar and vector types only (tested without the walk)."""
        if self.found is None:
            return
        if type(t.return_type) in _LEAF_TYPES and _LEAF_TYPES.issuperset(map(type, t.params)):
            self.seen.add(id(t))  # (as `_walk_type` would; the type outlives the print)
        else:
            _walk_type(t, self.found, self.seen)

    def slots(self, fn: Function) -> dict[int, str]:
        """`id(value) -> "%name"` for the locals of `fn` (and their typed
        spellings, into the function's `tx`)."""
        s = self.fn_slots.get(id(fn))
        if s is not None:
            return s
        s = {}
        tx: dict[int, str] = {}
        used: set[str] = set()
        suffix: dict[str, int] = {}  # see `_unique_after`
        quoted = _QUOTED
        if len(quoted) > 50_000:
            quoted.clear()
        blocks = fn.blocks
        # Enough `%N` spellings for every value of the function.
        most = len(fn.args) + len(blocks) + sum(len(b.instructions) for b in blocks)
        nums = _NUMBERED if most < len(_NUMBERED) else _numbers(most)
        # `id(type) -> "spelling "`, or "" for void: one lookup tells whether
        # a value is numbered and starts its typed spelling.
        pre = self.tpre
        tc = self.tcache
        void = T.VoidType
        # The arguments, then each block and its non-void instructions. The
        # typed spelling of each argument and instruction is made here
        # (almost every one is an operand somewhere); reading its type names
        # the type for `_struct_section`.

        def named(nm: str) -> str:
            """The spelling of a value named `nm` (made unique in `fn`)."""
            if nm in used:
                nm = _unique_after(nm, used, suffix)
            used.add(nm)
            q = quoted.get(nm)
            if q is None:
                q = quoted[nm] = "%" + quote_name(nm)
            return q

        numbered = iter(nums).__next__  # the next `%N`
        for v in fn.args:
            nm = v.name
            q = named(nm) if nm else numbered()
            k = id(v)
            s[k] = q
            t = v.type
            tx[k] = f"{tc.get(id(t)) or self.type_text(t)} {q}"
        for b in blocks:
            nm = b.name
            q = named(nm) if nm else numbered()
            s[id(b)] = q
            t = b.type
            if id(t) not in pre:
                self.type_pre(t, void)
            for v in b.instructions:
                t = v.type
                p = pre.get(id(t))
                if p is None:
                    p = self.type_pre(t, void)
                if not p:
                    continue  # void: not numbered
                nm = v.name
                q = named(nm) if nm else numbered()
                k = id(v)
                s[k] = q
                tx[k] = p + q
        self.fn_slots[id(fn)] = s
        self.fn_tx[id(fn)] = tx
        return s

    def type_pre(self, t: T.Type, void: type) -> str:
        """`tpre[id(t)]`: `str(t) + " "`, or "" when `t` is void."""
        p = self.tpre[id(t)] = "" if isinstance(t, void) else (self.tcache.get(id(t)) or self.type_text(t)) + " "
        self._tkeep.append(t)
        return p

    def gname(self, g: GlobalValue) -> str:
        nm = self.gnames.get(id(g))
        if nm is not None:
            return nm
        return "@" + quote_name(g.name) if g.name else "@<unnamed>"

    def ref(self, v: V.Value) -> str:
        """The spelling of a value as an operand (without its type)."""
        nm = self.local.get(id(v))
        if nm is not None:
            return nm
        return self.ref_miss(v)

    def ref_miss(self, v: V.Value) -> str:
        """`ref` of a value not in `local`."""
        t = v.type
        if type(v) is _ConstantInt and type(t) is _IntType:
            # `_int_text`, inlined: an integer constant is the most frequent
            # operand after local values (and its type is a leaf).
            b = t.bits
            if b == 1:
                return "true" if v.value & 1 else "false"  # type: ignore[attr-defined]
            u = v.value & ((1 << b) - 1)  # type: ignore[attr-defined]
            return str(u - (1 << b) if b and u >> (b - 1) else u)
        if type(t) not in _LEAF_TYPES and id(t) not in self.seen:
            # An operand printed without its type (a phi's incoming value,
            # a callee) still names its type for `_struct_section`.
            self.cover(t)
        leaf = _LEAF_CONSTANTS.get(type(v))
        if leaf is not None:
            return leaf(v)
        nm = self.gnames.get(id(v))  # a global of the module (a callee, mostly)
        if nm is not None:
            return nm
        if isinstance(v, GlobalValue):
            return self.gname(v)
        if isinstance(v, V.Constant):
            return self.constant(v)
        if isinstance(v, V.MetadataValue):
            return v.text.render(self.md_ref)
        if isinstance(v, (Argument, I.Instruction, BasicBlock)):
            if self.strict:
                return "%<badref>"
            # A value of another function (e.g. while a clone is half built).
            fn = v.parent if isinstance(v, (Argument, BasicBlock)) else v.function
            if isinstance(fn, Function) and fn.blocks:
                nm = self.slots(fn).get(id(v))
                if nm is not None:
                    return nm
            return "%" + quote_name(v.name) if v.name else "%<badref>"
        return "%" + quote_name(v.name) if v.name else "%<badref>"

    def md_ref(self, v: V.Value) -> str:
        """A value reference inside metadata; values no longer in the IR
        (erased instructions) print as `poison`, as LLVM drops them."""
        nm = self.local.get(id(v))
        if nm is not None:
            return nm
        if isinstance(v, GlobalValue):
            return self.gname(v)
        if isinstance(v, V.Constant):
            return self.constant(v)
        if isinstance(v, I.Instruction) and v.parent is None:
            return "poison"
        if isinstance(v, BasicBlock) and v.parent is None:
            return "poison"
        return self.ref(v)

    def type_text(self, t: T.Type) -> str:
        """`str(t)`, remembered for this print (read `tcache` first); the
        first time a type is named, it is also walked for named structs."""
        c = type(t)
        # The spellings of `VectorType.__str__` and `IntType.__str__`, made
        # here with the element's spelling from the table: passes make a
        # new vector type object for almost every instruction they build,
        # so a print meets hundreds of them, and the generic `str` goes
        # through two Python `__str__` calls and the formatting of each.
        if c is _VectorType:
            e = t.element  # type: ignore[attr-defined]
            es = self.tcache.get(id(e)) or self.type_text(e)
            s = f"<vscale x {t.count} x {es}>" if t.scalable else f"<{t.count} x {es}>"  # type: ignore[attr-defined]
        elif c is _IntType:
            s = f"i{t.bits}"  # type: ignore[attr-defined]
        else:
            s = str(t)
            if c not in _LEAF_TYPES and id(t) not in self.seen:
                self.cover(t)  # (vector and integer types are leaves)
        self.tcache[id(t)] = s
        self._tkeep.append(t)
        return s

    def typed(self, v: V.Value) -> str:
        """`"type ref"`, remembered in the table of the function being
        printed (read `tx` first)."""
        s = self.tx.get(id(v))
        if s is None:
            s = self.typed_miss(v)
        return s

    def typed_miss(self, v: V.Value) -> str:
        """`typed` of a value not in `tx` yet (a constant, mostly)."""
        t = v.type
        ts = self.tcache.get(id(t)) or self.type_text(t)
        leaf = _LEAF_CONSTANTS.get(type(v))
        # `ref`, shortened for a constant that needs no context: it is no
        # local, and its type was just named for `_struct_section`.
        s = self.tx[id(v)] = f"{ts} {leaf(v) if leaf is not None else self.ref(v)}"
        return s

    def enter(self, fn: Function | None) -> None:
        """Print in the context of `fn` (its locals; none for a declaration)."""
        if fn is not None and fn.blocks:
            self.local = self.slots(fn)
            self.tx = self.fn_tx[id(fn)]
        else:
            self.local = {}
            self.tx = {}

    # ------------------------------------------------------------ constants

    def constant(self, c: V.Constant) -> str:
        leaf = _LEAF_CONSTANTS.get(type(c))
        if leaf is not None:
            return leaf(c)
        if isinstance(c, V.ConstantInt):
            if isinstance(c.type, T.IntType) and c.type.bits == 1:
                return "true" if c.value & 1 else "false"
            return str(c.signed)
        if isinstance(c, V.ConstantFP):
            return c.literal()
        if isinstance(c, GlobalValue):
            return self.gname(c)
        if isinstance(c, V.PoisonValue):
            return "poison"
        if isinstance(c, V.UndefValue):
            return "undef"
        if isinstance(c, V.ConstantPointerNull):
            return "null"
        if isinstance(c, V.ConstantAggregateZero):
            return "zeroinitializer"
        if isinstance(c, V.ConstantToken):
            return "none"
        if isinstance(c, V.ConstantVector):
            if c.is_splat:
                return f"splat ({self.typed(c._operands[0])})"
            return "<" + ", ".join(self.typed(e) for e in c._operands) + ">"
        if isinstance(c, V.ConstantArray):
            return "[" + ", ".join(self.typed(e) for e in c._operands) + "]"
        if isinstance(c, V.ConstantStruct):
            st = c.type
            packed = isinstance(st, T.StructType) and st.packed
            if not c._operands:
                return "<{}>" if packed else "{}"
            inner = ", ".join(self.typed(e) for e in c._operands)
            return f"<{{ {inner} }}>" if packed else f"{{ {inner} }}"
        if isinstance(c, V.ConstantDataString):
            return c.literal()
        if isinstance(c, V.ConstantExpr):
            return self.constexpr(c)
        if isinstance(c, V.BlockAddress):
            fn = c.function
            bb = c.block
            fname = self.ref(fn)
            bname = None
            if isinstance(fn, Function) and fn.blocks:
                bname = self.slots(fn).get(id(bb))
            if bname is None:
                bname = "%" + quote_name(bb.name) if bb.name else "%<badref>"
            return f"blockaddress({fname}, {bname})"
        if isinstance(c, V.ConstantOpaque):
            return c.text.render(self.ref)
        if isinstance(c, V.InlineAsm):
            return "asm " + c.text
        raise TypeError(f"cannot print constant {c!r}")

    def constexpr(self, c: V.ConstantExpr) -> str:
        op = c.opcode
        ops = c._operands
        if op in I._CAST_SET:
            return f"{op}{_int_flags(c.flags)} ({self.typed(ops[0])} to {c.type})"
        if op == "getelementptr":
            inr = f" {c.inrange}" if c.inrange else ""
            args = ", ".join([str(c.source_element_type)] + [self.typed(o) for o in ops])
            return f"getelementptr{_gep_flags(c.flags)}{inr} ({args})"
        if op in ("icmp", "fcmp"):
            return f"{op} {c.predicate} ({self.typed(ops[0])}, {self.typed(ops[1])})"
        flags = _int_flags(c.flags)
        return f"{op}{flags} (" + ", ".join(self.typed(o) for o in ops) + ")"

    # --------------------------------------------------------- instructions

    def inst(self, inst: I.Instruction) -> str:
        body = _PRINTERS.get(type(inst), _print_generic)(self, inst)
        if inst._metadata:
            body += "".join(f", !{k} {v}" for k, v in inst._metadata)
        if isinstance(inst.type, T.VoidType):
            return body
        return f"{self.ref(inst)} = {body}"


def _int_text(c: V.ConstantInt) -> str:
    t = c.type
    if type(t) is not T.IntType:
        return str(c.signed)
    b = t.bits
    if b == 1:
        return "true" if c.value & 1 else "false"
    u = c.value & ((1 << b) - 1)
    return str(u - (1 << b) if b and u >> (b - 1) else u)


# The spelling of the constants that need no context, by exact class (the
# printer's most frequent operands after local values).
_LEAF_CONSTANTS: dict[type, Callable[[V.Value], str]] = {
    V.ConstantInt: _int_text,  # type: ignore[dict-item]
    V.ConstantFP: V.ConstantFP.literal,  # type: ignore[dict-item]
    V.PoisonValue: lambda c: "poison",
    V.UndefValue: lambda c: "undef",
    V.ConstantPointerNull: lambda c: "null",
    V.ConstantAggregateZero: lambda c: "zeroinitializer",
    V.ConstantToken: lambda c: "none",
}


# The instruction printers below read an operand's typed spelling as
# `c.tx.get(id(v)) or c.typed_miss(v)` and an untyped one as
# `c.local.get(id(v)) or c.ref_miss(v)`: the lookup `typed` and `ref` start with,
# made without the method call (every operand printed goes through one).


def _p_binop(c: _Ctx, i: I.BinaryOperator) -> str:
    a, b = i._operands
    sa = c.tx.get(id(a)) or c.typed_miss(a)
    sb = c.local.get(id(b)) or c.ref_miss(b)
    f = i.flags
    if f:
        fs = _fmf(f) if i.opcode in I._FP_BINARY_SET else _int_flags(f)
        return f"{i.opcode}{fs} {sa}, {sb}"
    return f"{i.opcode} {sa}, {sb}"


def _p_unop(c: _Ctx, i: I.UnaryOperator) -> str:
    return f"{i.opcode}{_fmf(i.flags)} {c.typed(i._operands[0])}"


def _p_icmp(c: _Ctx, i: I.ICmpInst) -> str:
    a, b = i._operands
    sa = c.tx.get(id(a)) or c.typed_miss(a)
    sb = c.local.get(id(b)) or c.ref_miss(b)
    f = i.flags
    return f"icmp{_int_flags(f) if f else ''} {i.predicate} {sa}, {sb}"


def _p_fcmp(c: _Ctx, i: I.FCmpInst) -> str:
    a, b = i._operands
    sa = c.tx.get(id(a)) or c.typed_miss(a)
    sb = c.local.get(id(b)) or c.ref_miss(b)
    f = i.flags
    return f"fcmp{_fmf(f) if f else ''} {i.predicate} {sa}, {sb}"


def _p_select(c: _Ctx, i: I.SelectInst) -> str:
    a, b, d = i._operands
    tx = c.tx
    f = i.flags
    return (f"select{_fmf(f) if f else ''} {tx.get(id(a)) or c.typed_miss(a)}, {tx.get(id(b)) or c.typed_miss(b)}, "
            f"{tx.get(id(d)) or c.typed_miss(d)}")


def _p_phi(c: _Ctx, i: I.PhiNode) -> str:
    ops = i._operands
    loc = c.local
    ref_miss = c.ref_miss
    pairs = ", ".join([f"[ {loc.get(id(ops[k])) or ref_miss(ops[k])}, {loc.get(id(ops[k + 1])) or ref_miss(ops[k + 1])} ]"
                       for k in range(0, len(ops), 2)])
    t = i.type
    return f"phi{_fmf(i.flags)} {c.tcache.get(id(t)) or c.type_text(t)} {pairs}"


def _p_cast(c: _Ctx, i: I.CastInst) -> str:
    f = i.flags
    flags = (_int_flags(f) + _fmf(f & _FMF_SET)) if f else ""
    a = i._operands[0]
    t = i.type
    return f"{i.opcode}{flags} {c.tx.get(id(a)) or c.typed_miss(a)} to {c.tcache.get(id(t)) or c.type_text(t)}"


def _p_gep(c: _Ctx, i: I.GetElementPtrInst) -> str:
    tx = c.tx
    ops = i._operands
    if len(ops) == 2:  # a pointer and one index: most GEPs
        a, b = ops
        ops = f"{tx.get(id(a)) or c.typed_miss(a)}, {tx.get(id(b)) or c.typed_miss(b)}"
    else:
        typed_miss = c.typed_miss
        ops = ", ".join([tx.get(id(o)) or typed_miss(o) for o in ops])
    t = i.source_element_type
    f = i.flags
    return f"getelementptr{_gep_flags(f) if f else ''} {c.tcache.get(id(t)) or c.type_text(t)}, {ops}"


def _atomic_tail(i: I.LoadInst | I.StoreInst) -> str:
    out = ""
    if i.ordering:
        if i.syncscope is not None:
            out += f' syncscope("{i.syncscope}")'
        out += " " + i.ordering
    if i.align is not None:
        out += f", align {i.align}"
    return out


def _access(kind: str, i: I.LoadInst | I.StoreInst, body: str) -> str:
    """A load or store (`kind`) of `body` with its atomic and volatile words
    and its tail."""
    if i.ordering or i.volatile:
        head = f"{kind} atomic" if i.ordering else kind
        if i.volatile:
            head += " volatile"
        return f"{head} {body}{_atomic_tail(i)}"
    # `_atomic_tail` of a plain access: its alignment.
    return f"{kind} {body}" if i.align is None else f"{kind} {body}, align {i.align}"


def _p_load(c: _Ctx, i: I.LoadInst) -> str:
    t = i.type
    a = i._operands[0]
    body = f"{c.tcache.get(id(t)) or c.type_text(t)}, {c.tx.get(id(a)) or c.typed_miss(a)}"
    return _access("load", i, body)


def _p_store(c: _Ctx, i: I.StoreInst) -> str:
    a, p = i._operands
    tx = c.tx
    body = f"{tx.get(id(a)) or c.typed_miss(a)}, {tx.get(id(p)) or c.typed_miss(p)}"
    return _access("store", i, body)


def _p_alloca(c: _Ctx, i: I.AllocaInst) -> str:
    out = "alloca"
    for f in ("inalloca", "swifterror"):
        if f in i.flags:
            out += " " + f
    t = i.allocated_type
    out += " " + (c.tcache.get(id(t)) or c.type_text(t))
    if i._operands:
        out += f", {c.typed(i._operands[0])}"
    if i.align is not None:
        out += f", align {i.align}"
    if i.addrspace:
        out += f", addrspace({i.addrspace})"
    return out


def _p_call(c: _Ctx, i: I.CallInst) -> str:
    out = f"{i.tail} call" if i.tail else "call"
    if i.flags:
        out += _fmf(i.flags)
    if i.calling_conv:
        out += " " + i.calling_conv
    if i.return_attributes:
        out += " " + i.return_attributes
    if i.addrspace is not None:
        out += f" addrspace({i.addrspace})"
    fty = i.function_type
    if id(fty) not in c.seen:
        # The callee's type is printed only in part (its return type), so
        # it is walked for `_struct_section` here.
        c.cover_function_type(fty)
    rt = fty if fty.vararg else fty.return_type
    ops = i._operands
    callee = ops[-1]
    tc = c.tcache
    out += f" {tc.get(id(rt)) or c.type_text(rt)} {c.local.get(id(callee)) or c.gnames.get(id(callee)) or c.ref_miss(callee)}("
    attrs = i.arg_attributes
    tx = c.tx
    n = i.num_args
    if not any(attrs):
        out += ", ".join([tx.get(id(a)) or c.typed_miss(a) for a in ops[:n]]) + ")"
    else:
        args = []
        loc = c.local
        for k in range(n):
            a = ops[k]
            at = attrs[k] if k < len(attrs) else ""
            if at:
                t = a.type
                args.append(f"{tc.get(id(t)) or c.type_text(t)} {at} {loc.get(id(a)) or c.ref_miss(a)}")
            else:
                args.append(tx.get(id(a)) or c.typed_miss(a))
        out += ", ".join(args) + ")"
    if i.attributes:
        out += " " + i.attributes
    if i.bundle_layout:
        bs = []
        for tag, vals in i.bundles:
            bs.append(f'"{tag}"(' + ", ".join(c.typed(v) for v in vals) + ")")
        out += " [ " + ", ".join(bs) + " ]"
    return out


def _p_br(c: _Ctx, i: I.BranchInst) -> str:
    ops = i._operands
    loc = c.local
    if len(ops) == 1:
        d = ops[0]
        return f"br label {loc.get(id(d)) or c.ref_miss(d)}"
    a, t, f = ops
    return (f"br {c.tx.get(id(a)) or c.typed_miss(a)}, label {loc.get(id(t)) or c.ref_miss(t)}, "
            f"label {loc.get(id(f)) or c.ref_miss(f)}")


def _p_switch(c: _Ctx, i: I.SwitchInst) -> str:
    ops = i._operands
    out = f"switch {c.typed(ops[0])}, label {c.ref(ops[1])} ["
    for k in range(2, len(ops), 2):
        out += f"\n    {c.typed(ops[k])}, label {c.ref(ops[k + 1])}"
    return out + "\n  ]"


def _p_ret(c: _Ctx, i: I.ReturnInst) -> str:
    if not i._operands:
        return "ret void"
    a = i._operands[0]
    return f"ret {c.tx.get(id(a)) or c.typed_miss(a)}"


def _p_unreachable(c: _Ctx, i: I.UnreachableInst) -> str:
    return "unreachable"


def _p_extractelement(c: _Ctx, i: I.ExtractElementInst) -> str:
    a, b = i._operands
    tx = c.tx
    return f"extractelement {tx.get(id(a)) or c.typed_miss(a)}, {tx.get(id(b)) or c.typed_miss(b)}"


def _p_insertelement(c: _Ctx, i: I.InsertElementInst) -> str:
    a, b, d = i._operands
    tx = c.tx
    return (f"insertelement {tx.get(id(a)) or c.typed_miss(a)}, {tx.get(id(b)) or c.typed_miss(b)}, "
            f"{tx.get(id(d)) or c.typed_miss(d)}")


# Mask spellings by (lanes, scalable, mask): a pure function of the key,
# which is a snapshot of the instruction's values (so never stale). A
# vectorized module repeats a few masks (broadcasts, interleavings) often.
_MASKS: dict[tuple[int, bool, tuple[int, ...]], str] = {}


def _mask_text(i: I.ShuffleVectorInst) -> str:
    t = i.type
    assert isinstance(t, T.VectorType)
    key = (t.count, t.scalable, tuple(i.mask))
    text = _MASKS.get(key)
    if text is None:
        if len(_MASKS) > 10_000:
            _MASKS.clear()
        text = _MASKS[key] = _mask_spelling(t, i.mask)
    return text


def _mask_spelling(t: T.VectorType, mask: list[int]) -> str:
    """The mask operand of a shuffle whose result type is `t`."""
    mty = T.VectorType(T.i32, t.count, t.scalable)
    if t.scalable or all(m == 0 for m in mask):
        return f"{mty} " + ("poison" if mask and all(m < 0 for m in mask) else "zeroinitializer")
    if all(m < 0 for m in mask):
        return f"{mty} poison"
    return f"{mty} <" + ", ".join("i32 poison" if m < 0 else f"i32 {m}" for m in mask) + ">"


def _p_shuffle(c: _Ctx, i: I.ShuffleVectorInst) -> str:
    a, b = i._operands
    tx = c.tx
    return f"shufflevector {tx.get(id(a)) or c.typed_miss(a)}, {tx.get(id(b)) or c.typed_miss(b)}, {_mask_text(i)}"


def _p_extractvalue(c: _Ctx, i: I.ExtractValueInst) -> str:
    return f"extractvalue {c.typed(i._operands[0])}, " + ", ".join(map(str, i.indices))


def _p_insertvalue(c: _Ctx, i: I.InsertValueInst) -> str:
    return f"insertvalue {c.typed(i._operands[0])}, {c.typed(i._operands[1])}, " + ", ".join(map(str, i.indices))


def _p_freeze(c: _Ctx, i: I.FreezeInst) -> str:
    a = i._operands[0]
    return f"freeze {c.tx.get(id(a)) or c.typed_miss(a)}"


def _scope(s: str | None) -> str:
    return f' syncscope("{s}")' if s is not None else ""


def _p_atomicrmw(c: _Ctx, i: I.AtomicRMWInst) -> str:
    v = " volatile" if i.volatile else ""
    out = f"atomicrmw{v} {i.operation} {c.typed(i._operands[0])}, {c.typed(i._operands[1])}{_scope(i.syncscope)} {i.ordering}"
    if i.align is not None:
        out += f", align {i.align}"
    return out


def _p_cmpxchg(c: _Ctx, i: I.AtomicCmpXchgInst) -> str:
    head = "cmpxchg" + (" weak" if i.weak else "") + (" volatile" if i.volatile else "")
    ops = i._operands
    out = (
        f"{head} {c.typed(ops[0])}, {c.typed(ops[1])}, {c.typed(ops[2])}{_scope(i.syncscope)} "
        f"{i.success_ordering} {i.failure_ordering}"
    )
    if i.align is not None:
        out += f", align {i.align}"
    return out


def _p_fence(c: _Ctx, i: I.FenceInst) -> str:
    return f"fence{_scope(i.syncscope)} {i.ordering}"


def _print_generic(c: _Ctx, i: I.Instruction) -> str:
    raise TypeError(f"cannot print {i!r}")


def _render_parts(parts: list[str], refs: list[V.Value], ref: Callable[[V.Value], str]) -> str:
    out = [parts[0]]
    for r, p in zip(refs, parts[1:], strict=True):
        out.append(ref(r))
        out.append(p)
    return "".join(out)


def _p_opaque(c: _Ctx, i: I.OpaqueInst) -> str:
    return i.opcode + _render_parts(i.parts, i._operands, c.ref)


_PRINTERS: dict[type, Callable[[_Ctx, I.Instruction], str]] = {  # type: ignore[dict-item]
    I.BinaryOperator: _p_binop,
    I.UnaryOperator: _p_unop,
    I.ICmpInst: _p_icmp,
    I.FCmpInst: _p_fcmp,
    I.SelectInst: _p_select,
    I.PhiNode: _p_phi,
    I.CastInst: _p_cast,
    I.GetElementPtrInst: _p_gep,
    I.LoadInst: _p_load,
    I.StoreInst: _p_store,
    I.AllocaInst: _p_alloca,
    I.CallInst: _p_call,
    I.BranchInst: _p_br,
    I.SwitchInst: _p_switch,
    I.ReturnInst: _p_ret,
    I.UnreachableInst: _p_unreachable,
    I.ExtractElementInst: _p_extractelement,
    I.InsertElementInst: _p_insertelement,
    I.ShuffleVectorInst: _p_shuffle,
    I.ExtractValueInst: _p_extractvalue,
    I.InsertValueInst: _p_insertvalue,
    I.FreezeInst: _p_freeze,
    I.AtomicRMWInst: _p_atomicrmw,
    I.AtomicCmpXchgInst: _p_cmpxchg,
    I.FenceInst: _p_fence,
    I.OpaqueInst: _p_opaque,
}


# ------------------------------------------------------------------ functions


def _function(c: _Ctx, fn: Function, out: list[str]) -> None:
    is_def = bool(fn.blocks)
    c.enter(fn)
    fty = fn.function_type
    if id(fty) not in c.seen:
        c.cover(fty)  # for `_struct_section`
    tc = c.tcache
    head = ["define" if is_def else "declare"]
    if fn.linkage:
        head.append(fn.linkage)
    if fn.prefix:
        head.append(fn.prefix)
    if fn.calling_conv:
        head.append(fn.calling_conv)
    if fn.return_attributes:
        head.append(fn.return_attributes)
    t = fty.return_type
    head.append(tc.get(id(t)) or c.type_text(t))
    params = []
    for a in fn.args:
        t = a.type
        p = tc.get(id(t)) or c.type_text(t)
        if a.attributes:
            p += " " + a.attributes
        if is_def:
            p += " " + c.local[id(a)]
        params.append(p)
    if fty.vararg:
        params.append("...")
    head.append(c.gname(fn) + "(" + ", ".join(params) + ")")
    if fn.unnamed_addr:
        head.append(fn.unnamed_addr)
    if fn.addrspace is not None:
        head.append(f"addrspace({fn.addrspace})")
    if fn.attributes:
        head.append(fn.attributes)
    if fn.trailing is not None:
        t = fn.trailing.render(c.ref)
        if t:
            head.append(t)
    for k, v in fn.metadata:
        head.append(f"!{k} {v}")
    if not is_def:
        out.append(" ".join(head))
        return
    out.append(" ".join(head) + " {")
    printers = _PRINTERS
    local = c.local
    first = True
    for b in fn.blocks:
        if not first:
            out.append("")
        if b.name or not first:
            out.append(local[id(b)][1:] + ":")
        first = False
        for i in b.instructions:
            if i._debug_records:
                for r in i._debug_records:
                    out.append("    " + r.text.render(c.md_ref))
            # `_Ctx.inst`, inlined: this runs for every instruction printed.
            try:
                pr = printers[type(i)]
            except KeyError:
                pr = _print_generic
            body = pr(c, i)
            if i._metadata:
                body += "".join(f", !{k} {v}" for k, v in i._metadata)
            # `slots` numbered exactly the non-void instructions.
            nm = local.get(id(i))
            if nm is None:
                out.append("  " + body)
            else:
                out.append(f"  {nm} = {body}")
    for u in fn.uselistorder:
        out.append("  " + u.render(c.md_ref))
    out.append("}")
    c.enter(None)


def _global(c: _Ctx, g: GlobalVariable) -> str:
    parts = [c.gname(g), "="]
    if g.linkage:
        parts.append(g.linkage)
    if g.attrs:
        parts.append(g.attrs)
    if g.addrspace:
        parts.append(f"addrspace({g.addrspace})")
    if getattr(g, "externally_initialized", False):
        parts.append("externally_initialized")
    parts.append("constant" if g.is_constant else "global")
    t = g.value_type
    parts.append(c.tcache.get(id(t)) or c.type_text(t))  # (names it for `_struct_section`)
    if g.initializer is not None:
        parts.append(c.ref(g.initializer))
    s = " ".join(parts)
    if g.align is not None:
        s += f", align {g.align}"
    if g.extra:
        s += g.extra
    return s


def print_module(module: Module) -> str:
    """The whole module as LLVM text (a reference to a local value that is
    not in its function is spelled `%<badref>`, which LLVM rejects)."""
    c = _Ctx(module, structs=True, strict=True)
    out: list[str] = []
    if module.name is not None:
        out.append(f"; ModuleID = '{module.name}'")
    if module.source_filename is not None:
        out.append(f'source_filename = "{_escape(module.source_filename)}"')
    if module.datalayout is not None:
        out.append(f'target datalayout = "{_escape(module.datalayout)}"')
    if module.triple is not None:
        out.append(f'target triple = "{_escape(module.triple)}"')
    out.extend(module.module_asm)
    struct_at = len(out)  # the struct definitions go here, once known
    if module.comdats:
        out.append("")
        out.extend(module.comdats)
    if module.globals:
        out.append("")
        out.extend(_global(c, g) for g in module.globals)
    if module.aliases:
        out.append("")
        out.extend(f"{c.gname(a)} = {a.text.render(c.ref)}" for a in module.aliases)
    for fn in module.functions:
        out.append("")
        _function(c, fn, out)
    if module.attribute_groups:
        out.append("")
        out.extend(module.attribute_groups)
    if module.named_metadata or module.metadata_nodes:
        out.append("")
        out.extend(m.render(c.ref) for m in module.named_metadata)
        out.extend(m.render(c.ref) for m in module.metadata_nodes)
    if module.trailer:
        out.append("")
        out.extend(t.render(c.ref) for t in module.trailer)
    out[struct_at:struct_at] = _struct_section(c, module)
    out.append("")
    return "\n".join(out)


def _struct_section(c: _Ctx, module: Module) -> list[str]:
    """The lines defining the module's named structs: the registered ones,
    then those used anywhere but not registered (a transform may create
    `StructType(name=...)` directly), as `_collect_structs` finds them.

    The print has already walked, for struct names, every type
    `_collect_structs` would visit (each type it names the first time, the
    type of each operand `ref` spells, each function's and callee's type),
    and maybe more. So when that found no name beyond the registered ones,
    `_collect_structs` would find none either, and its walk over every
    operand of the module is skipped; otherwise it runs, for its order.
    """
    found = c.found
    assert found is not None
    structs = found
    if len(found) != len(module.struct_types):
        structs = dict(module.struct_types)
        _collect_structs(module, structs)
    if not structs:
        return []
    return ["", *(f"{st} = type {st.body_str}" for st in structs.values())]


# Types that cannot hold a named struct. (A vector's elements are integers,
# floats or pointers: vectors are the most frequent non-scalar type.)
_LEAF_TYPES = frozenset({T.IntType, T.FloatType, T.PointerType, T.VectorType, T.VoidType, T.LabelType, T.MetadataType})


def _walk_type(t: T.Type, found: dict[str, T.StructType], seen: set[int]) -> None:
    if type(t) in _LEAF_TYPES or id(t) in seen:
        return
    seen.add(id(t))
    if isinstance(t, T.StructType):
        if t.name is not None and t.name not in found:
            found[t.name] = t
        inner: tuple[T.Type, ...] = t.elements
    elif isinstance(t, (T.VectorType, T.ArrayType)):
        inner = (t.element,)
    elif isinstance(t, T.FunctionType):
        inner = (t.return_type, *t.params)
    else:
        return
    for e in inner:
        # The test `_walk_type` starts with, made before the call.
        if type(e) not in _LEAF_TYPES and id(e) not in seen:
            _walk_type(e, found, seen)


# The attributes other than `type` that hold a type, by instruction class
# (read by name: reading `inst.__dict__` would make Python turn the
# instruction's attributes into a real dictionary, slower to read ever after).
_TYPE_ATTRS: dict[type, tuple[str, ...]] = {}


def _type_attrs(cls: type) -> tuple[str, ...]:
    attrs = tuple(a for c, a in ((I.AllocaInst, "allocated_type"), (I.GetElementPtrInst, "source_element_type"),
                                 (I.CallInst, "function_type")) if issubclass(cls, c))
    _TYPE_ATTRS[cls] = attrs
    return attrs


def _collect_structs(module: Module, found: dict[str, T.StructType]) -> None:
    """Add named structs used anywhere but not registered in the module (a
    transform may create `StructType(name=...)` directly): LLVM needs their
    definitions."""
    seen: set[int] = set()
    leaf = _LEAF_TYPES
    type_attrs = _TYPE_ATTRS
    for g in module.globals:
        _walk_type(g.value_type, found, seen)
    for fn in module.functions:
        _walk_type(fn.function_type, found, seen)
        for b in fn.blocks:
            for inst in b.instructions:
                # `_walk_type`'s own first test, made before the call: most
                # types are leaves or seen already.
                t = inst.type
                if type(t) not in leaf and id(t) not in seen:
                    _walk_type(t, found, seen)
                for op in inst._operands:
                    t = op.type
                    if type(t) not in leaf and id(t) not in seen:
                        _walk_type(t, found, seen)
                attrs = type_attrs.get(type(inst))
                if attrs is None:
                    attrs = _type_attrs(type(inst))
                for attr in attrs:
                    t = getattr(inst, attr, None)
                    if t is not None and type(t) not in leaf and id(t) not in seen:
                        _walk_type(t, found, seen)


# `_escape` by string: a pure function of the key. Every print escapes the
# module's data layout, triple and source file name, the same few strings.
_ESCAPED: dict[str, str] = {}


def _escape(s: str) -> str:
    e = _ESCAPED.get(s)
    if e is None:
        if len(_ESCAPED) > 1_000:
            _ESCAPED.clear()
        e = _ESCAPED[s] = _escape_bytes(s)
    return e


def _escape_bytes(s: str) -> str:
    """`s` with `"`, `\\` and the bytes outside printable ASCII as `\\XX`."""
    out = []
    for byte in s.encode("utf-8", "surrogateescape"):
        if byte == 0x22 or byte == 0x5C or byte < 0x20 or byte > 0x7E:
            out.append(f"\\{byte:02X}")
        else:
            out.append(chr(byte))
    return "".join(out)


def print_function(fn: Function) -> str:
    """One function (definition or declaration) as LLVM text."""
    c = _Ctx(fn.parent)
    out: list[str] = []
    _function(c, fn, out)
    return "\n".join(out) + "\n"


def print_instruction(inst: I.Instruction) -> str:
    """One instruction as LLVM prints it (numbered within its function)."""
    fn = inst.function
    c = _Ctx(fn.parent if fn is not None else None)
    if fn is not None:
        c.local = c.slots(fn)
        c.tx = c.fn_tx[id(fn)]
    return c.inst(inst)


def print_instructions(fn: Function) -> list[str]:
    """Each instruction of `fn`, in order, as `print_instruction` spells it,
    numbering the function once for all of them (`print_instruction` names
    every global and numbers the function at each call)."""
    c = _Ctx(fn.parent)
    c.local = c.slots(fn)
    c.tx = c.fn_tx[id(fn)]
    return [c.inst(i) for i in fn.instructions()]


def constant_text(c: V.Constant) -> str:
    """A constant's spelling without its type."""
    return _Ctx(None).constant(c)


def typed_constant(c: V.Constant) -> str:
    """A constant with its type, e.g. `i32 7`."""
    return f"{c.type} {constant_text(c)}"


def default_ref(v: V.Value) -> str:
    """A value's spelling outside of any module context (for `str()`)."""
    ctx = _Ctx(None)
    if isinstance(v, (Argument, I.Instruction, BasicBlock)):
        fn = v.parent if isinstance(v, (Argument, BasicBlock)) else v.function
        if isinstance(fn, Function) and fn.blocks:
            ctx = _Ctx(fn.parent)
            ctx.local = ctx.slots(fn)
    return ctx.md_ref(v)
