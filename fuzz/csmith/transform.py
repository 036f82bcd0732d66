"""Turn a Csmith C program into an OpenCL C kernel, CLsmith style.

What the kernel does, per work-item:
- every Csmith global becomes a field of a private struct (`struct vz_globals`),
  initialised by copying a `__constant` instance that holds the globals'
  initialisers; each function gets a pointer to it as an extra last
  parameter `p_G`, and `g_N` becomes `p_G->g_N`;
- the work-item's linear id is hashed into two words (both 0 for work-item
  0): `vz_flip` flips a chosen subset of `if` conditions and `vz_pert`
  XORs small values into a chosen subset of scalar local initialisers, so
  control flow really diverges across a work-group while work-item 0 runs
  exactly the C program;
- every `if` decision is folded into a path hash (`vz_path`) so divergence
  can be measured (written to a second buffer when `paths=True`);
- main's checksum loop (Csmith's `transparent_crc` calls) becomes CRC-32
  updates into the struct, and the kernel writes the final checksum to
  `out[lin]`, which for work-item 0 equals the C program's printed checksum.

Also: `LL`/`ULL` literal suffixes become `L`/`UL` (clang's OpenCL `long long`
is 128-bit) and the floating-point half of `safe_math.h` is cut (no float
math in these programs, and it needs <math.h>).

The parser relies on the shape Csmith 2.3 prints (one declaration per line,
function headers on one line, balanced braces per line in initialisers);
anything else raises `TransformError`.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field

KERNEL_NAME = "csmith_kernel"
CRC_POLY = 0xEDB88320  # the reflected CRC-32 polynomial Csmith's runtime uses


class TransformError(ValueError):
    """The C program has a shape this transform does not handle."""


@dataclass
class Global:
    """One Csmith global: `static [const] T g_N[dims] = init;`."""

    ctype: str
    name: str
    dims: str  # "" or "[3][4]"
    init: str | None


@dataclass
class Program:
    """The pieces of a Csmith program that the kernel is built from."""

    globals: list[Global]
    prototypes: list[str]
    functions: list[str]  # whole definitions (header line + body)
    main_body: list[str]  # main's statements between the opening and closing brace


@dataclass
class KernelSource:
    """The generated OpenCL C program and what the transform did."""

    text: str
    kernel: str
    stats: dict[str, int] = field(default_factory=dict)


_GLOBAL = re.compile(
    r"^static\s+(?:const\s+)?(?:volatile\s+)?((?:unsigned\s+|signed\s+)?[A-Za-z_]\w*)\s+"
    r"(g_\d+)((?:\[\d+\])*)\s*(?:=\s*(.*?))?\s*;\s*$")
_FUNC_HEADER = re.compile(r"^(static\s.*?\b(func_\d+))\s*\((.*)\)\s*(;?)\s*$")
_LOCAL_INIT = re.compile(
    r"^(\s*)((?:const\s+)?)((?:u?int(?:8|16|32|64)_t))(\s+)(l_\d+)\s*=\s*(.+);\s*$")
_LONGLONG = re.compile(r"\b(0[xX][0-9A-Fa-f]+|\d+)([uU]?)(?:LL|ll)([uU]?)\b")
_GLOBAL_REF = re.compile(r"(?<![\w>.])(g_\d+)\b")
_CRC_CALL = re.compile(r"transparent_crc\((.*),\s*\"[^\"]*\"\s*,\s*print_hash_value\)\s*;")


def fix_literals(text: str) -> str:
    """`LL`/`ULL` -> `L`/`UL`: OpenCL `long` is the 64-bit type."""
    return _LONGLONG.sub(lambda m: f"{m.group(1)}{m.group(2)}{m.group(3)}L", text)


def strip_comments(text: str) -> str:
    """Drop `/* */` and `//` comments (Csmith prints no string literals
    outside main's printf calls, which main's rewrite drops anyway)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"(?m)^\s*//.*$", "", text)


def parse_program(c_source: str) -> Program:
    """Split a Csmith program into globals, prototypes, functions and main."""
    lines = strip_comments(c_source).splitlines()
    globals_: list[Global] = []
    prototypes: list[str] = []
    functions: list[str] = []
    main_body: list[str] | None = None
    i = 0
    while i < len(lines):
        line = lines[i].rstrip()
        s = line.strip()
        i += 1
        if not s or s.startswith("#") or s == "static long __undefined;":
            continue
        m = _GLOBAL.match(s)
        if m:
            globals_.append(Global(m.group(1), m.group(2), m.group(3), m.group(4)))
            continue
        header = _FUNC_HEADER.match(s)
        is_main = s.startswith("int main")
        if not header and not is_main:
            raise TransformError(f"unexpected top-level line: {s[:120]!r}")
        if header and header.group(4) == ";":
            prototypes.append(s)
            continue
        # A definition: collect until the braces balance again.
        body: list[str] = []
        depth = 0
        opened = False
        while i < len(lines):
            b = lines[i].rstrip()
            i += 1
            depth += b.count("{") - b.count("}")
            opened = opened or "{" in b
            body.append(b)
            if opened and depth == 0:
                break
        else:
            raise TransformError(f"unterminated function body after {s[:80]!r}")
        if is_main:
            main_body = body[1:-1]
        else:
            functions.append("\n".join([s, *body]))
    if main_body is None:
        raise TransformError("no main function")
    return Program(globals_, prototypes, functions, main_body)


def cut_float_safe_math(safe_math: str) -> str:
    """`safe_math.h` up to its first floating-point wrapper.

    The cut is made at the last point before the first `float`/`double`
    where only the include guard is open, and the guard is closed again,
    so the result is balanced whatever the float part's own #if nesting.
    """
    lines = safe_math.splitlines()
    depth = 0
    cut = None
    last_safe = 0
    for idx, line in enumerate(lines):
        s = line.strip()
        if re.search(r"\b(float|double)\b", s):
            cut = last_safe
            break
        if s.startswith("#if"):
            depth += 1
        elif s.startswith("#endif"):
            depth -= 1
        if depth == 1 and (s == "}" or s.startswith("#endif")):
            last_safe = idx + 1
    if cut is None:
        return safe_math
    return "\n".join(lines[:cut]) + "\n#endif /* floating-point wrappers cut for OpenCL */\n"


def _rewrite_parens(text: str, opener: re.Pattern[str], close: Callable[[str, str], str]) -> str:
    """Rewrite every `opener( ... )` with `close(opener_text, inner) -> str`,
    innermost first, matching parentheses (Csmith expressions nest deeply)."""
    out: list[str] = []
    # Stack of (index into out where the construct starts, opener match or None).
    stack: list[tuple[int, re.Match[str] | None]] = []
    pos = 0
    token = re.compile(opener.pattern + r"|\(|\)")
    for m in token.finditer(text):
        out.append(text[pos:m.start()])
        pos = m.end()
        tok = m.group(0)
        if tok == ")":
            if not stack:
                raise TransformError("unbalanced ')'")
            start, om = stack.pop()
            if om is None:
                out.append(")")
                continue
            inner = "".join(out[start + 1:])
            del out[start:]
            out.append(close(om.group(0), inner))
        elif tok == "(":
            stack.append((len(out), None))
            out.append("(")
        else:
            stack.append((len(out), m))
            out.append(tok)
    out.append(text[pos:])
    if stack:
        raise TransformError("unbalanced '('")
    return "".join(out)


_CALL_OPEN = re.compile(r"(?<![\w])func_\d+\s*\(")
_IF_OPEN = re.compile(r"(?<![\w])if\s*\(")
_FOR_OPEN = re.compile(r"(?<![\w])for\s*\(")
# The array-filling loops Csmith writes for locals (`for (i = 0; i < 3; i++)`)
# are uniform: not worth recording.
_FILL_LOOP = re.compile(r"^\s*[ijk]\s*<\s*\d+\s*$")


def add_context_argument(text: str) -> str:
    """`func_N(a, b)` -> `func_N(a, b, p_G)`; `func_N()` -> `func_N(p_G)`."""
    return _rewrite_parens(
        text, _CALL_OPEN,
        lambda op, inner: f"{op}{inner}, p_G)" if inner.strip() else f"{op}p_G)")


def _struct_field(g: Global) -> str:
    return f"    {g.ctype} {g.name}{g.dims};"


def _initialiser(g: Global) -> str:
    if g.init is not None:
        return g.init
    return "{0}" if g.dims else "0"


def crc_table() -> list[int]:
    """The byte-wise CRC-32 table (computed, not copied)."""
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ CRC_POLY if c & 1 else c >> 1
        table.append(c)
    return table


def _mix_function() -> str:
    # A splitmix64-style finaliser of the linear id: well-spread bits, and
    # mix(0) == 0 so work-item 0 is the unperturbed C program.
    return """static uint vz_mix(ulong x, ulong salt) {
    if (x == 0) return 0;
    x = x * 0x9E3779B97F4A7C15UL + salt;
    x ^= x >> 30; x *= 0xBF58476D1CE4E5B9UL;
    x ^= x >> 27; x *= 0x94D049BB133111EBUL;
    x ^= x >> 31;
    return (uint)x;
}"""


def build_kernel(prog: Program, safe_math: str, seed: int, flip_share: float = 1.0,
                 perturb_share: float = 0.5, paths: bool = True,
                 kernel: str = KERNEL_NAME) -> KernelSource:
    """The OpenCL C source of the kernel for a parsed Csmith program.

    `seed` decides which `if`s may flip and which locals are perturbed
    (`flip_share`, `perturb_share`: the share of each); `paths=True` adds the
    `paths` output buffer holding each work-item's path hash.
    """
    rng = random.Random(f"csmith-transform:{seed}")
    stats = {"globals": len(prog.globals), "functions": len(prog.functions), "ifs": 0,
             "flippable_ifs": 0, "loops": 0, "locals": 0, "perturbed_locals": 0}

    def instrument_if(op: str, inner: str) -> str:
        k = stats["ifs"]
        stats["ifs"] += 1
        flip = 1 if rng.random() < flip_share else 0
        stats["flippable_ifs"] += flip
        return f"{op}vz_if(p_G, {k}u, ({inner}) != 0, {flip}))"

    def record_loop(op: str, inner: str) -> str:
        # Loop tests are recorded in the path hash but never flipped: a
        # flipped test could make the loop endless.
        parts = inner.split(";")
        if len(parts) != 3:
            raise TransformError(f"unexpected for header: for ({inner[:80]})")
        if _FILL_LOOP.match(parts[1]) or not parts[1].strip():
            return f"{op}{inner})"
        k = 1000 + stats["loops"]  # apart from the if numbers in the hash
        stats["loops"] += 1
        return f"{op}{parts[0]};vz_if(p_G, {k}u, ({parts[1].strip()}) != 0, 0);{parts[2]})"

    def perturb(line: str) -> str:
        m = _LOCAL_INIT.match(line)
        if not m:
            return line
        stats["locals"] += 1
        if rng.random() >= perturb_share:
            return line
        k = stats["perturbed_locals"]
        stats["perturbed_locals"] += 1
        indent, const, ty, sp, name, init = m.groups()
        # XOR in the common type of init and T, then convert as C would:
        # with vz_pert(...) == 0 the value is exactly the original one.
        return f"{indent}{const}{ty}{sp}{name} = ({init}) ^ ({ty})vz_pert(p_G, {k}u);"

    def rewrite_header(s: str) -> str:
        m = _FUNC_HEADER.match(s)
        assert m is not None
        params = m.group(3).strip()
        params = "struct vz_globals *p_G" if params in ("", "void") else f"{params}, struct vz_globals *p_G"
        return f"{m.group(1)}({params}){m.group(4)}"

    funcs: list[str] = []
    for f in prog.functions:
        header, _, body = f.partition("\n")
        body = "\n".join(perturb(ln) for ln in body.splitlines())
        body = _GLOBAL_REF.sub(r"p_G->\1", body)
        body = add_context_argument(body)
        body = _rewrite_parens(body, _IF_OPEN, instrument_if)
        if paths:
            body = _rewrite_parens(body, _FOR_OPEN, record_loop)
        funcs.append(rewrite_header(header) + "\n" + body)

    # main: keep the loops over array globals, turn the CRC calls into ours,
    # drop printing and the runtime set-up.
    main_lines: list[str] = []
    for ln in prog.main_body:
        s = ln.strip()
        if (not s or s.startswith("int print_hash_value") or s.startswith("platform_main_")
                or s in ("crc32_gentab();", "return 0;") or s.startswith("if (print_hash_value)")):
            continue
        ln = _CRC_CALL.sub(lambda m: f"vz_crc(p_G, {m.group(1)});", ln)
        if "transparent_crc" in ln or "printf" in ln:
            raise TransformError(f"unexpected checksum statement in main: {s[:120]!r}")
        main_lines.append(ln)
    main_text = add_context_argument(_GLOBAL_REF.sub(r"p_G->\1", "\n".join(main_lines)))
    stats["crc_calls"] = main_text.count("vz_crc(")

    table = crc_table()
    table_text = ",\n".join(
        "    " + ", ".join(f"0x{v:08X}u" for v in table[r:r + 8]) for r in range(0, 256, 8))
    fields = "\n".join(_struct_field(g) for g in prog.globals)
    inits = ",\n".join(f"    {_initialiser(g)}" for g in prog.globals)
    params = "__global ulong *out, __global ulong *paths" if paths else "__global ulong *out"
    path_store = "    paths[lin] = G.vz_path;\n" if paths else ""
    path_update = ("    p_G->vz_path = p_G->vz_path * 0x100000001B3UL + (ulong)(2u * k + taken + 1u);\n"
                   if paths else "")
    sep = ",\n" if prog.globals else "\n"

    text = f"""/* Generated by fuzz.csmith from Csmith seed {seed}. */

/* ---- Csmith's safe_math.h, integer part only ---- */
{safe_math}

/* ---- the globals, one private copy per work-item ---- */
struct vz_globals {{
    uint vz_flip;   /* which flippable ifs this work-item flips (0 for work-item 0) */
    uint vz_pert;   /* what it XORs into perturbed locals (0 for work-item 0) */
    ulong vz_path;  /* hash of every if decision taken */
    uint vz_crc;    /* CRC-32 state of the checksum */
{fields}
}};

__constant struct vz_globals vz_init = {{
    0u, 0u, 0UL, 0xFFFFFFFFu{sep}{inits}
}};

__constant uint vz_crc_tab[256] = {{
{table_text}
}};

{_mix_function()}

static int vz_if(struct vz_globals *p_G, uint k, int taken, int flippable) {{
    taken ^= flippable & (int)((p_G->vz_flip >> (k & 31u)) & 1u);
{path_update}    return taken;
}}

static uint vz_pert(struct vz_globals *p_G, uint k) {{
    return (p_G->vz_pert >> ((2u * k) & 31u)) & 3u;
}}

static void vz_crc(struct vz_globals *p_G, ulong v) {{
    for (int b = 0; b < 8; b++) {{
        uint c = p_G->vz_crc;
        p_G->vz_crc = (c >> 8) ^ vz_crc_tab[(c ^ (uint)(v >> (8 * b))) & 0xFFu];
    }}
}}

/* ---- Csmith's functions ---- */
{chr(10).join(rewrite_header(p) for p in prog.prototypes)}

{(chr(10) * 2).join(funcs)}

/* ---- the kernel: Csmith's main for one work-item ---- */
__kernel void {kernel}({params}) {{
    ulong lin = get_global_id(0);
    struct vz_globals G = vz_init;
    struct vz_globals *p_G = &G;
    G.vz_flip = vz_mix(lin, 1UL);
    G.vz_pert = vz_mix(lin, 2UL);
{main_text}
    out[lin] = (ulong)(G.vz_crc ^ 0xFFFFFFFFu);
{path_store}}}
"""
    return KernelSource(fix_literals(text), kernel, stats)


def program_size(prog: Program) -> int:
    """Statements in the Csmith functions (a measure to filter trivial programs)."""
    n = 0
    for f in prog.functions:
        for ln in f.splitlines()[1:]:
            s = ln.strip()
            if s.endswith(";") and not _LOCAL_INIT.match(ln) and not re.match(r"^(const\s+)?u?int\w*\s+[\w\[\], ]+;$", s):
                n += 1
    return n
