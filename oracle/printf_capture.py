"""printf in the oracle: output captured per work-item and compared between
the scalar and the vectorized runs.

A variadic call cannot be recorded portably once compiled (vector arguments
of 256 bits and more do not survive the x86-64 register save area), so
before a module is compiled every `call ... @printf(fmt, args...)` becomes a
call of a non-variadic recorder named after its argument types,
`@"__oracle_printf:ptr addrspace(2),<4 x float>,double"`. The runtime defines
each recorder (`recorder_definition`): it appends to `@__oracle_printf_log`
one record: its size, the running work-item's local and group ids, the
format's address, the address of a string naming the argument types, and
the arguments' bytes. After a run `take` decodes and formats the records (in
Python: `%v4hlf`, `%s` of constant strings, ...) and empties the log.

Comparison (`compare`): a vectorized kernel prints lane by lane at each
call, so within a chunk of W work-items the order of lines is the
packetizer's, not the work-items'; records are therefore keyed by group and
local id with the vectorized dimension's id rounded down to its W-chunk, and
each key's lines compared as a multiset; keys, and lines of a work-item
alone in its key, in work-item order.
"""

from __future__ import annotations

import ctypes
import re
import struct
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from .runtime import FnSig, quote_name, split_top

PREFIX = "__oracle_printf:"
LOG = "__oracle_printf_log"
POS = "__oracle_printf_pos"
CAPACITY = 1 << 22  # bytes of records per run; beyond it printf returns -1
HEADER = 72  # size, 3 local ids, 3 group ids, format address, types address

_TYPE = re.compile(r"(ptr(?: addrspace\(\d+\))?|<\d+ x (?:i\d+|half|float|double|bfloat|ptr(?: addrspace\(\d+\))?)>"
                   r"|i\d+|half|float|double|bfloat)\s*")
_ATTR = re.compile(r"(noundef|signext|zeroext|nonnull|noalias|nocapture|readonly|inreg|byval\([^)]*\)|"
                   r"align \d+|dereferenceable(?:_or_null)?\(\d+\))\s+")
# Both start with a literal, which the regex engine searches for fast (`^`
# under re.M, or `\b`, first is tried at every position): `_DEFINED` is
# searched in the text with a newline before it, and `_calls` keeps the
# matches of `_CALL_AT` that start at a word boundary (those of `\bcall...`).
_DEFINED = re.compile(r"\ndefine\b[^\n]*@printf\(")
_CALL_AT = re.compile(r"call\s+(?:[\w ]*?\s)?i32\s*(?:\((?:[^()]|\([^()]*\))*\.\.\.\)\s*)?@printf\(")

GLOBALS = (f"@{LOG} = global [{CAPACITY} x i8] zeroinitializer, align 16\n"
           f"@{POS} = global i64 0, align 8")


def _split_arg(arg: str) -> tuple[str, str]:
    """(type, value) of a call argument `ptr addrspace(2) noundef @.str`."""
    m = _TYPE.match(arg)
    if not m:
        raise ValueError(f"printf argument of unknown type: {arg!r}")
    rest = arg[m.end():]
    while True:
        a = _ATTR.match(rest)
        if not a:
            break
        rest = rest[a.end():]
    return m.group(1), rest.strip()


def _closing(text: str, start: int) -> int:
    """Index of the `)` closing the `(` just before `start`."""
    depth = 1
    i = start
    while i < len(text):
        c = text[i]
        if c in "([<{":
            depth += 1
        elif c in ")]>}":
            depth -= 1
            if depth == 0:
                return i
        elif c == '"':
            i = text.index('"', i + 1)
        i += 1
    raise ValueError("unbalanced printf call")


def _in_comment(text: str, at: int) -> bool:
    """Whether `at` lies in a `;` comment (a `;` on its line outside a string)."""
    line = text[text.rfind("\n", 0, at) + 1:at]
    quoted = False
    for c in line:
        if c == '"':
            quoted = not quoted
        elif c == ";" and not quoted:
            return True
    return False


def _calls(text: str) -> Iterator[re.Match[str]]:
    """The calls of printf in `text`, as `re.finditer` of `\\bcall...` would
    find them (`_CALL_AT` matches wherever that does, and more: a match
    not at a word boundary is dropped and searched past)."""
    at = 0
    while True:
        m = _CALL_AT.search(text, at)
        if m is None:
            return
        start = m.start()
        if start and (text[start - 1].isalnum() or text[start - 1] == "_"):
            at = start + 1
            continue
        yield m
        at = m.end()


def rewrite_calls(text: str) -> str:
    """Route every call of `printf` in module text `text` to its recorder."""
    if "@printf(" not in text or _DEFINED.search("\n" + text):
        # A module that defines its own printf calls that function: nothing
        # to capture.
        return text
    if "*" in text:
        # Typed-pointer syntax (`i8 addrspace(2)*`, `[8 x i8]*`), which LLVM
        # still reads as opaque pointers: take LLVM's printed form, the one
        # the vectorized run has, so both runs record the same calls.
        from vectorizer.llvm_bridge import IRError, canonicalize

        try:
            text = canonicalize(text)
        except IRError:
            pass  # left to the caller's own parse, which reports it
    out: list[str] = []
    decls: dict[str, str] = {}
    pos = 0
    for m in _calls(text):
        if m.start() < pos or _in_comment(text, m.start()):
            continue
        try:
            end = _closing(text, m.end())
        except ValueError:
            continue  # not a call LLVM could read either: its parse reports it
        try:
            args = [_split_arg(a) for a in split_top(text[m.end():end])]
        except ValueError:
            continue  # left a call of the no-op printf
        types = [t for t, _ in args]
        name = PREFIX + ",".join(types)
        decls[name] = f"declare i32 @{quote_name(name)}({', '.join(types)})"
        call = f"call i32 @{quote_name(name)}(" + ", ".join(f"{t} {v}" for t, v in args) + ")"
        # `tail`/`notail` before `call` stay; nothing else changes on the line.
        out.append(text[pos:m.start()] + call)
        pos = end + 1
    out.append(text[pos:])
    return "".join(out) + "\n" + "\n".join(decls.values()) + "\n"


def _store_size(ty: str) -> int:
    m = re.fullmatch(r"<(\d+) x (.+)>", ty)
    n, el = (int(m.group(1)), m.group(2)) if m else (1, ty)
    if el.startswith("ptr"):
        return 8 * n
    size = {"half": 2, "bfloat": 2, "float": 4, "double": 8}.get(el)
    if size is None:
        size = max(1, int(el[1:]) // 8)
    return n * size


def _slot(ty: str) -> int:
    return (_store_size(ty) + 7) // 8 * 8


def recorder_definition(name: str, sig: FnSig) -> str | None:
    """The runtime's definition of recorder `name` (see the module docstring)."""
    if not name.startswith(PREFIX):
        return None
    types = list(sig.params)
    size = HEADER + sum(_slot(t) for t in types)
    tstr = ",".join(types).encode() + b"\0"
    tname = quote_name(name + ".types")
    lit = "".join(chr(b) if 32 <= b < 127 and b not in (34, 92) else f"\\{b:02X}" for b in tstr)
    lines = [
        f"@{tname} = private unnamed_addr constant [{len(tstr)} x i8] c\"{lit}\", align 1",
        f"define i32 @{quote_name(name)}(" + ", ".join(f"{t} %a{i}" for i, t in enumerate(types)) + ") noinline {",
        "entry:",
        f"  %pos = load i64, ptr @{POS}, align 8",
        f"  %end = add i64 %pos, {size}",
        f"  %fits = icmp ule i64 %end, {CAPACITY}",
        "  br i1 %fits, label %rec, label %full",
        "rec:",
        f"  %r = getelementptr i8, ptr @{LOG}, i64 %pos",
        f"  store i64 {size}, ptr %r, align 8",
    ]
    for k, slot in enumerate((0, 1, 2, 3, 4, 5)):  # local ids 0-2, group ids 3-5
        lines += [f"  %sp{k} = getelementptr [24 x i64], ptr @__oracle_st, i64 0, i64 {slot}",
                  f"  %sv{k} = load i64, ptr %sp{k}, align 8",
                  f"  %dp{k} = getelementptr i8, ptr %r, i64 {8 + 8 * k}",
                  f"  store i64 %sv{k}, ptr %dp{k}, align 8"]
    lines += ["  %fp = getelementptr i8, ptr %r, i64 56"]
    if types and types[0].startswith("ptr"):
        lines += [f"  %fi = ptrtoint {types[0]} %a0 to i64", "  store i64 %fi, ptr %fp, align 8"]
    else:
        lines += ["  store i64 0, ptr %fp, align 8"]
    lines += ["  %tp = getelementptr i8, ptr %r, i64 64", f"  store ptr @{tname}, ptr %tp, align 8"]
    off = HEADER
    for i, t in enumerate(types):
        lines.append(f"  %ap{i} = getelementptr i8, ptr %r, i64 {off}")
        if t.startswith("ptr"):
            lines += [f"  %ai{i} = ptrtoint {t} %a{i} to i64", f"  store i64 %ai{i}, ptr %ap{i}, align 1"]
        elif t.startswith("<") and "ptr" in t:
            lines += [f"  %ai{i} = ptrtoint {t} %a{i} to <{t[1:].split(' x ')[0]} x i64>",
                      f"  store <{t[1:].split(' x ')[0]} x i64> %ai{i}, ptr %ap{i}, align 1"]
        else:
            lines.append(f"  store {t} %a{i}, ptr %ap{i}, align 1")
        off += _slot(t)
    lines += [f"  store i64 %end, ptr @{POS}, align 8", "  ret i32 0",
              "full:", f"  store i64 {CAPACITY + 1}, ptr @{POS}, align 8", "  ret i32 -1", "}"]
    return "\n".join(lines)


# ----------------------------------------------------------------- decoding

Record = tuple[tuple[int, int, int], tuple[int, int, int], str]  # local ids, group ids, text
_SPEC = re.compile(r"%([-+ #0]*)(\d+|\*)?(?:\.(\d+|\*))?(?:v(\d+))?(hh|hl|h|ll|l|z|j|t)?([diouxXfFeEgGaAcsp%])")
_ELEM = re.compile(r"<(\d+) x (.+)>")


def _values(ty: str, raw: bytes) -> list[Any]:
    m = _ELEM.fullmatch(ty)
    n, el = (int(m.group(1)), m.group(2)) if m else (1, ty)
    if el.startswith("ptr"):
        return list(struct.unpack(f"<{n}Q", raw[: 8 * n]))
    code = {"half": "e", "float": "f", "double": "d", "i8": "b", "i16": "h", "i32": "i", "i64": "q"}.get(el)
    if code is None:
        return [0] * n
    return list(struct.unpack(f"<{n}{code}", raw[: n * struct.calcsize(code)]))


def _hexfloat(x: float, upper: bool) -> str:
    if x != x or x in (float("inf"), float("-inf")):
        s = repr(x)
    else:
        s = float(x).hex()
        mant, exp = s.split("p")
        mant = mant.rstrip("0").rstrip(".") if "." in mant else mant
        s = f"{mant}p{exp}"
    return s.upper() if upper else s


def _one(flags: str, width: str | None, prec: str | None, length: str, conv: str, v: Any) -> str:
    spec = "%" + flags + (width or "") + (f".{prec}" if prec is not None else "")
    if conv in "diouxXc":
        v = int(v)
        bits = {"hh": 8, "h": 16, "l": 64, "ll": 64, "z": 64, "j": 64, "t": 64}.get(length, 32)
        v &= (1 << bits) - 1
        if conv in "di" and v >= 1 << (bits - 1):
            v -= 1 << bits
        if conv == "c":
            return ("%" + flags + (width or "") + "s") % chr(v & 0xFF)
        if v == 0 and prec == "0":  # C: no digits for zero at precision 0
            return ("%" + flags.replace("0", "").replace("#", "") + (width or "") + "s") % (
                "0" if conv == "o" and "#" in flags else "")
        if "#" in flags and (conv == "o" or v == 0):
            # C's alternate forms: a leading 0 for octal, no 0x for zero.
            body = ("%" + (f".{prec}" if prec is not None else "") + conv) % v
            if conv == "o" and not body.startswith("0"):
                body = "0" + body
            fl = flags.replace("#", "")
            if "0" in fl and "-" not in fl and width:
                return body.rjust(int(width), "0")
            return ("%" + fl.replace("0", "") + (width or "") + "s") % body
        return (spec + ("d" if conv in "iu" else conv)) % v
    if conv in "fFeEgG":
        return (spec + conv) % float(v)
    if conv in "aA":
        return ("%" + flags + (width or "") + "s") % _hexfloat(float(v), conv == "A")
    if conv == "p":
        return ("%" + flags + (width or "") + "s") % hex(int(v))
    return str(v)


def format_record(fmt: bytes, types: list[str], data: bytes) -> str:
    """The text OpenCL's printf prints for `fmt` and the recorded arguments."""
    args: list[tuple[str, bytes]] = []
    off = _slot(types[0]) if types else 0  # the format's own slot
    for t in types[1:]:
        args.append((t, data[off:off + _store_size(t)]))
        off += _slot(t)
    text = fmt.decode("latin-1")
    out: list[str] = []
    pos = 0
    k = 0
    for m in _SPEC.finditer(text):
        out.append(text[pos:m.start()])
        pos = m.end()
        flags, width, prec, vec, length, conv = m.groups()
        if conv == "%":
            out.append("%")
            continue
        if k >= len(args):
            out.append(m.group(0))
            continue
        ty, raw = args[k]
        k += 1
        if conv == "s":
            addr = _values(ty, raw)[0] if ty.startswith("ptr") else 0
            s = ctypes.string_at(addr).decode("latin-1") if addr else "(null)"
            out.append(("%" + flags + (width or "") + (f".{prec}" if prec else "") + "s") % s)
            continue
        vals = _values(ty, raw)
        if vec is None:
            vals = vals[:1]
        out.append(",".join(_one(flags, width, prec, length or "", conv, v) for v in vals))
    out.append(text[pos:])
    return "".join(out)


def take(engine: Any) -> list[Record] | None:
    """The records of the last run (None when the program has no printf), emptying the log."""
    try:
        pos_addr = engine.get_global_value_address(POS)
        log_addr = engine.get_global_value_address(LOG)
    except Exception:  # noqa: BLE001 - no recorder in this program
        return None
    if not pos_addr or not log_addr:
        return None
    pos = ctypes.c_uint64.from_address(pos_addr)
    used = pos.value
    if used == 0:
        return []
    records: list[Record] = []
    truncated = used > CAPACITY
    used = min(used, CAPACITY)
    blob = ctypes.string_at(log_addr, used)
    off = 0
    while off + HEADER <= used:
        size, l0, l1, l2, g0, g1, g2, fmt, types = struct.unpack_from("<9Q", blob, off)
        if size < HEADER or off + size > used:
            break
        tlist = ctypes.string_at(types).decode().split(",") if types else []
        ftext = ctypes.string_at(fmt) if fmt else b""
        records.append(((l0, l1, l2), (g0, g1, g2), format_record(ftext, tlist, blob[off + HEADER:off + size])))
        off += size
    if truncated:
        records.append(((0, 0, 0), (0, 0, 0), f"[printf output past {CAPACITY} bytes not captured]"))
    pos.value = 0
    return records


def _key(r: Record, width: int, dim: int) -> tuple:
    lid = list(r[0])
    lid[dim] -= lid[dim] % max(1, width)
    return (r[1][2], r[1][1], r[1][0], lid[2], lid[1], lid[0])


def compare(expected: list[Record], actual: list[Record], width: int, dim: int) -> str | None:
    """None when both runs printed the same lines per W-chunk of work-items;
    else the first difference."""
    def grouped(recs: list[Record]) -> dict[tuple, list[str]]:
        g: dict[tuple, list[str]] = defaultdict(list)
        for r in recs:
            g[_key(r, width, dim)].append(r[2])
        return g
    e, a = grouped(expected), grouped(actual)
    for key in sorted(set(e) | set(a)):
        el, al = e.get(key, []), a.get(key, [])
        if sorted(el) != sorted(al):
            grp = key[:3][::-1]
            lid = key[3:][::-1]
            extra = sorted(set(al) - set(el)) or al
            missing = sorted(set(el) - set(al)) or el
            return (f"printf output of group {list(grp)} items from local id {list(lid)}: "
                    f"expected {len(el)} line(s), got {len(al)}; expected {missing[0]!r} got "
                    f"{extra[0] if extra else None!r}")
    return None


def output(records: list[Record]) -> str:
    """The printed text in work-item order (groups, then local ids; each
    work-item's lines in the order it printed them)."""
    order = sorted(range(len(records)), key=lambda i: (records[i][1][::-1], records[i][0][::-1], i))
    return "".join(records[i][2] for i in order)
