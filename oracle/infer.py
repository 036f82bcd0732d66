"""Layout inference for foreign kernels (files without a case header).

The kernel is the one asked for, else the one a lit `RUN:` line names with
`-k`, else the first `spir_kernel` (else the first defined function not
named like a helper). Pointer parameters become buffers whose element type is
the scalar type the kernel most often loads, stores or indexes through them;
they are sized from the NDRange with generous slack (and the oracle then
sizes them to the bytes the sanitized reference touched, growing them where
the kernel reaches further: oracle.reference). Scalars get small
deterministic values.

The launch follows the work-item ids the kernel asks for, read from its
call sites (and those of the functions it calls): an NDRange extends only
along dimensions whose id (global, local or group id; a linear id counts for
all three, as does a dimension argument that is not a constant) the kernel
queries, because work-items that differ only along another dimension would
compute the same thing and race on their outputs (a sub-group id counts
for dimension 0). The ranges cover a
multiple-of-W local size, a remainder, local size 1 and, when more than one
dimension is queried, 3-D shapes with offsets. A kernel that queries no id
runs as one work-item (a task). The dimensions to vectorize along are the
queried ones.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import llvmlite.binding as llvm

from vectorizer.llvm_context import new_context, parse_in

from . import image_args  # images and samplers (vectorizer/builtins/images.py)
from .case import ArgSpec, Case, CaseError, NDRange, parse_arg, parse_ndrange
from .jit import initialize, strip_calling_conventions
from .local_size import LocalShape, local_shape
from .runtime import base_name

# (global, local, offset) per dimension.
ND_1D = [(64, 16, 0), (36, 12, 5), (3, 1, 0)]
ND_3D = [((8, 6, 4), (4, 3, 2), (3, 1, 2)), ((16, 4, 2), (8, 4, 2), (0, 0, 0))]
ND_TASK = "global=1 local=1"
# Work-item queries that tell work-items apart along their dimension, and
# those that tell them apart along all three.
_ID_QUERIES = {"get_global_id", "get_local_id", "get_group_id"}
_ALL_DIM_QUERIES = {"get_global_linear_id", "get_local_linear_id"}
# Sub-groups are formed along dimension 0 (the packets of a vectorization
# along it): a sub-group id tells work-items apart along that dimension.
_DIM0_QUERIES = {"get_sub_group_local_id", "get_sub_group_id"}

_LLVM_TO_ELEM = {
    "i1": "i8", "i8": "i8", "i16": "i16", "i32": "i32", "i64": "i64",
    "half": "f16", "float": "f32", "double": "f64", "ptr": "i64",
}
_SIZES = {"i8": 1, "i16": 2, "i32": 4, "i64": 8, "f16": 2, "f32": 4, "f64": 8}


def _type_bytes(ty: str) -> int:
    m = re.fullmatch(r"<(\d+) x (\S+)>", ty)
    if m:
        return int(m.group(1)) * _SIZES.get(_LLVM_TO_ELEM.get(m.group(2), "i8"), 1)
    m = re.fullmatch(r"\[(\d+) x (\S+)\]", ty)
    if m:
        return int(m.group(1)) * _type_bytes(m.group(2))
    return _SIZES.get(_LLVM_TO_ELEM.get(ty, "i8"), 8)


def _scalar_of(ty: str) -> str | None:
    m = re.fullmatch(r"<\d+ x (\S+)>", ty)
    if m:
        ty = m.group(1)
    m = re.fullmatch(r"\[\d+ x (\S+)\]", ty)
    if m:
        return _scalar_of(m.group(1))
    return _LLVM_TO_ELEM.get(ty) or (ty if ty in _LLVM_TO_ELEM else None)


_PTR = r"ptr(?: addrspace\(\d+\))?"
_TY = r"(<\d+ x \w+>|\[\d+ x [^\]]+\]|[\w.%]+)"


def pointer_uses(body: str, arg: str) -> tuple[Counter[str], int]:
    """Scalar types accessed through pointer `arg` (and pointers derived from
    it) in function text `body`, and the widest access in bytes."""
    derived = {arg}
    kinds: Counter[str] = Counter()
    widest = 1
    lines = body.splitlines()
    for _ in range(3):  # phis may refer forward: a few passes reach the fixpoint
        for ln in lines:
            m = re.match(r"\s*(%[\w.\-]+) = (.*)", ln)
            if not m:
                continue
            res, rhs = m.groups()
            ops = set(re.findall(r"%[\w.\-]+", rhs))
            if not ops & derived:
                continue
            if re.match(r"(getelementptr|bitcast|addrspacecast|phi ptr|phi " + _PTR + r"|select)", rhs):
                if rhs.startswith(("phi", "select")) and "ptr" not in rhs.split(",")[0] + rhs[:20]:
                    continue
                derived.add(res)
    for ln in lines:
        s = ln.strip()
        m = re.search(r"= load (?:volatile )?" + _TY + r", " + _PTR + r" (%[\w.\-]+)", s)
        if m and m.group(2) in derived:
            sc = _scalar_of(m.group(1))
            if sc:
                kinds[sc] += 2
            widest = max(widest, _type_bytes(m.group(1)))
        m = re.match(r"store (?:volatile )?" + _TY + r" [^,]+, " + _PTR + r" (%[\w.\-]+)", s)
        if m and m.group(2) in derived:
            sc = _scalar_of(m.group(1))
            if sc:
                kinds[sc] += 2
            widest = max(widest, _type_bytes(m.group(1)))
        m = re.search(r"getelementptr (?:inbounds |nuw |nusw )*" + _TY + r", " + _PTR + r" (%[\w.\-]+)", s)
        if m and m.group(2) in derived:
            sc = _scalar_of(m.group(1))
            if sc and not m.group(1).startswith("["):
                kinds[sc] += 1
            widest = max(widest, _type_bytes(m.group(1)) if not m.group(1).startswith("%") else 16)
        m = re.search(r"call (<\d+ x \w+>) @llvm\.masked\.(?:load|gather)", s)
        if m and any(o in derived for o in re.findall(r"%[\w.\-]+", s)):
            sc = _scalar_of(m.group(1))
            if sc:
                kinds[sc] += 2
            widest = max(widest, _type_bytes(m.group(1)))
    return kinds, widest


def _function_body(text: str, name: str) -> str:
    m = re.search(r"^define [^\n]*@" + re.escape(name) + r"\(", text, re.M)
    if not m:
        return ""
    end = text.find("\n}", m.end())
    return text[m.start() : end if end >= 0 else len(text)]


_SPIR_KERNEL = re.compile(r'^define [^@\n]*\bspir_kernel\b[^@\n]*@("(?:[^"\\]|\\[0-9A-Fa-f]{2}|\\\\)*"|[-\w.$]+)\(',
                          re.M)


def unquote_name(name: str) -> str:
    """`"my kernel"` -> `my kernel` (LLVM's `\\XX` escapes decoded); bare names as they are."""
    if not name.startswith('"'):
        return name
    raw = name[1:-1].encode("utf-8", "surrogateescape")
    out = bytearray()
    i = 0
    while i < len(raw):
        if raw[i] == 0x5C and re.fullmatch(rb"[0-9A-Fa-f]{2}", raw[i + 1 : i + 3]):
            out.append(int(raw[i + 1 : i + 3], 16))
            i += 3
        else:
            out.append(raw[i])
            i += 1
    return out.decode("utf-8", "surrogateescape")


def spir_kernels(text: str) -> list[str]:
    """The names of the `spir_kernel` functions defined in LLVM text, in order."""
    return [unquote_name(m.group(1)) for m in _SPIR_KERNEL.finditer(text)]


def pick_kernel(text: str, mod: llvm.ModuleRef, requested: str | None) -> str:
    """The kernel to run: requested, a RUN line's `-k`, the first spir_kernel,
    else the first defined function that does not look like a helper."""
    defined = [f.name for f in mod.functions if not f.is_declaration]
    if requested is not None:
        if requested not in defined:
            raise CaseError(f"kernel {requested!r} is not defined in the module")
        return requested
    for m in re.finditer(r"^;\s*RUN:.*?\s-k[ =]?([\w.$]+)", text, re.M):
        if m.group(1) in defined:
            return m.group(1)
    for name in spir_kernels(str(mod)) or spir_kernels(text):
        if name in defined and not name.startswith("__vecz_"):
            return name
    for name in defined:
        if not name.startswith(("__", "llvm.")):
            return name
    raise CaseError("no kernel function found in the module")


def reachable_functions(mod: llvm.ModuleRef, root: str) -> list[llvm.ValueRef]:
    """`root` and the defined functions it may call (any reference counts)."""
    fns = {f.name: f for f in mod.functions}
    order: list[llvm.ValueRef] = []
    seen: set[str] = set()
    stack = [root]
    while stack:
        name = stack.pop()
        if name in seen or name not in fns:
            continue
        seen.add(name)
        f = fns[name]
        order.append(f)
        if f.is_declaration:
            continue
        for b in f.blocks:
            for ins in b.instructions:
                for op in ins.operands:
                    if op.name and op.name in fns and op.name not in seen:
                        stack.append(op.name)
    return order


def id_dims(mod: llvm.ModuleRef, kernel: str) -> set[int]:
    """Dimensions along which `kernel` (or a function it calls) asks for a
    work-item's id, read from the call sites: all three for a linear id or a
    dimension that is not a constant."""
    dims: set[int] = set()
    for f in reachable_functions(mod, kernel):
        if f.is_declaration:
            continue
        for b in f.blocks:
            for ins in b.instructions:
                if ins.opcode != "call":
                    continue
                ops = list(ins.operands)
                base = base_name(ops[-1].name) if ops and ops[-1].name else None
                if base in _ALL_DIM_QUERIES:
                    dims |= {0, 1, 2}
                elif base in _DIM0_QUERIES:
                    dims.add(0)
                elif base in _ID_QUERIES and len(ops) == 2:
                    arg = ops[0]
                    if arg.value_kind == llvm.ValueKind.constant_int:
                        d = arg.get_constant_value()
                        if 0 <= d < 3:
                            dims.add(d)
                    else:
                        dims |= {0, 1, 2}
    return dims


# Work-items an NDRange made from a kernel's own work-group shape may have.
MAX_SHAPED_ITEMS = 1 << 14


def shaped_ndranges(dims: set[int], shape: LocalShape) -> list[NDRange]:
    """NDRanges with the work-group shape the kernel assumes
    (oracle.local_size): its local size along the dimensions it fixes, one
    group along those it never tells groups apart on, and elsewhere the
    generic sizes; 2 groups (and 3 along the lowest dimension) where
    groups are allowed. Empty when the shape does not give a launch."""
    used = dims | {d for d, v in shape.size.items() if v > 1}
    if not used:
        return []
    work_dim = max(used) + 1
    multi = len(dims) > 1
    local = []
    for d in range(work_dim):
        if d in shape.size:
            local.append(shape.size[d])
        elif d in dims:
            local.append(4 if multi else 16)
        else:
            local.append(1)
    if any(v < 1 for v in local):
        return []
    out = []
    low = min(dims) if dims else 0
    for groups_low, groups_other in ((2, 2), (3, 1), (1, 1)):
        g = []
        for d in range(work_dim):
            n = 1 if d in shape.single or d not in dims else groups_low if d == low else groups_other
            g.append(local[d] * n)
        total = 1
        for v in g:
            total *= v
        if total > MAX_SHAPED_ITEMS:
            continue
        nd = parse_ndrange(f"global={','.join(map(str, g))} local={','.join(map(str, local))}")
        if all(str(nd) != str(o) for o in out):
            out.append(nd)
    return out


def launch_ndranges(dims: set[int], shape: LocalShape | None = None) -> list[NDRange]:
    """The NDRanges for a kernel asking for ids along `dims` (module
    docstring); with `shape`, those of `shaped_ndranges` when it gives any."""
    if shape and shape.size:
        shaped = shaped_ndranges(dims, shape)
        if shaped:
            return shaped
    if not dims:
        return [parse_ndrange(ND_TASK)]
    if shape and shape.single:
        # The generic local sizes, one group along the dimensions the
        # kernel never tells groups apart on.
        out = []
        for nd in launch_ndranges(dims):
            g = [nd.local_size[d] if d in shape.single else nd.global_size[d] for d in range(nd.work_dim)]
            o = [0 if d in shape.single else nd.offset[d] for d in range(nd.work_dim)]
            text = f"global={','.join(map(str, g))} local={','.join(map(str, nd.local_size[: nd.work_dim]))}"
            if any(o):
                text += f" offset={','.join(map(str, o))}"
            out.append(parse_ndrange(text))
        return out
    work_dim = max(dims) + 1
    low = min(dims)

    def nd(g: tuple[int, ...], loc: tuple[int, ...], off: tuple[int, ...]) -> NDRange:
        gs = [g[d] if d in dims else 1 for d in range(work_dim)]
        ls = [loc[d] if d in dims else 1 for d in range(work_dim)]
        os_ = [off[d] if d in dims else 0 for d in range(work_dim)]
        text = f"global={','.join(map(str, gs))} local={','.join(map(str, ls))}"
        if any(os_):
            text += f" offset={','.join(map(str, os_))}"
        return parse_ndrange(text)

    out = []
    for g, loc, off in ND_1D:
        # Along the lowest queried dimension only (1 work-item along the others).
        out.append(nd(*(tuple(v if d == low else fill for d in range(3))
                        for v, fill in ((g, 1), (loc, 1), (off, 0)))))
    if len(dims) > 1:
        out += [nd(g, loc, off) for g, loc, off in ND_3D]
    return out


_BARRIER_CALL = re.compile(r"@\"?(?:_Z7barrierj|_Z18work_group_barrierj\w*|__mux_work_group_barrier)\"?\(")
_ID_CALL = re.compile(r"call [^@]*@\"?(?:_Z\d+get_(?:global|local|group)_id\w*|_Z\d+get_(?:global|local)_linear_id\w*"
                      r"|__mux_get_(?:global|local|group)_id|__mux_get_(?:global|local)_linear_id)\"?\(")
# Instructions through which an integer keeps depending on its operands.
_GID_CALL = re.compile(r"call [^@]*@\"?(?:_Z13get_global_idj|__mux_get_global_id)\"?\(i32 (?:noundef )?(\d)\)")
_FLOW = re.compile(r"(?:add|sub|mul|shl|lshr|ashr|and|or|xor|udiv|sdiv|urem|srem|trunc|zext|sext|phi|select|freeze"
                   r"|call [^@]*@llvm\.[su](?:min|max)\.)\b")
_LABEL = re.compile(r"^([\w.$-]+):")


def _blocks(body: str) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """A function body's blocks (label -> lines) and their successors."""
    blocks: dict[str, list[str]] = {}
    name = "<entry>"
    for ln in body.splitlines()[1:]:
        m = _LABEL.match(ln)
        if m:
            name = m.group(1)
            continue
        blocks.setdefault(name, []).append(ln)
    succ = {b: re.findall(r"label %([\w.$-]+)", "\n".join(ls)) for b, ls in blocks.items()}
    return blocks, succ


def scalar_roles(text: str, kernel: str, params: Sequence[str]) -> dict[str, str]:
    """What the kernel does with its integer parameters `params` (`%name`),
    read from its IR: "bound" for one compared with a work-item id where
    the comparison decides whether a barrier is reached (`if (gid < n) {
    ...; barrier(...); }`: every work-item of a group must take the same
    side), "stride" for one that only multiplies an id along dimension 1
    or 2 (`C[row * ldc + col]`: a row must hold every work-item's column).
    Others are left out."""
    return _barrier_guards(text, kernel, params)[0]


def guard_splits(text: str, kernel: str) -> dict[int, set[int]]:
    """Per dimension d, the constants C where `get_global_id(d) < C` (or
    `>= C`, ...) decides whether a barrier is reached: a group must lie
    wholly on one side, so its size along d divides C."""
    return _barrier_guards(text, kernel, [])[1]


def _barrier_guards(text: str, kernel: str, params: Sequence[str]) -> tuple[dict[str, str], dict[int, set[int]]]:
    """`scalar_roles` and `guard_splits` in one pass."""
    bodies = {m.group(1): m.group(0) for m in
              re.finditer(r"^define [^@]*@\"?([\w.$-]+)\"?\(.*?^}", text, re.M | re.S)}
    body = bodies.get(kernel)
    if body is None:
        return {}, {}
    # Functions that reach a barrier (calls of them count as barriers).
    reaching = {n for n, b in bodies.items() if _BARRIER_CALL.search(b)}
    for _ in range(len(bodies)):
        more = {n for n, b in bodies.items() if n not in reaching
                and any(c in reaching for c in re.findall(r"call [^@]*@\"?([\w.$-]+)\"?\(", b))}
        if not more:
            break
        reaching |= more
    if not reaching:
        return {}, {}
    lines = body.splitlines()
    gids: dict[str, int] = {}  # a global id along a constant dimension, maybe cast
    ids: set[str] = set()
    rows: set[str] = set()  # ids along dimension 1 or 2 and what depends on them
    derived: dict[str, set[str]] = {p: {p} for p in params}
    assigns = []
    for ln in lines:
        m = re.match(r"\s*(%[\w.$-]+) = (.*)$", ln)
        if not m:
            continue
        if _ID_CALL.search(m.group(2)):
            ids.add(m.group(1))
            g = _GID_CALL.search(m.group(2))
            if g:
                gids[m.group(1)] = int(g.group(1))
            if re.search(r"\(i32 (?:noundef )?[12]\)", m.group(2)):
                rows.add(m.group(1))
        else:
            assigns.append((m.group(1), m.group(2), set(re.findall(r"%[\w.$-]+", m.group(2)))))
    for _ in range(4):  # phis refer forward: a few passes reach the fixpoint
        for res, rhs, ops in assigns:
            c = re.match(r"(?:trunc|zext|sext)(?: nneg)? \S+ (%[\w.$-]+) to ", rhs)
            if c and c.group(1) in gids:
                gids[res] = gids[c.group(1)]
            if not _FLOW.match(rhs):
                continue
            if ops & ids:
                ids.add(res)
            if ops & rows:
                rows.add(res)
            for vals in derived.values():
                if ops & vals:
                    vals.add(res)
    compared: set[str] = set()
    multiplied: set[str] = set()
    conds: dict[str, set[str]] = {}
    const_conds: dict[str, set[tuple[int, int]]] = {}
    for res, rhs, _ops in assigns:
        m = re.match(r"icmp (?:samesign )?([us][lg][te]) \S+ (%[\w.$-]+), (-?\d+)$", rhs)
        if m and m.group(2) in gids:
            # `gid < C` and `gid >= C` split at C; `gid <= C`, `gid > C` at C + 1.
            c = int(m.group(3)) + (1 if m.group(1)[1:] in ("le", "gt") else 0)
            if c > 0:
                const_conds[res] = {(gids[m.group(2)], c)}
            continue
        m = re.match(r"(icmp \w+|mul(?: nuw| nsw)*) \S+ (%[\w.$-]+), (%[\w.$-]+)$", rhs)
        if m:
            a, b = m.group(2), m.group(3)
            for x, y in ((a, b), (b, a)):
                if x not in ids or y in ids:
                    continue
                hit = {p for p, vals in derived.items() if y in vals}
                if m.group(1).startswith("icmp"):
                    compared |= hit
                    conds.setdefault(res, set()).update(hit)
                elif x in rows:
                    multiplied |= hit
            continue
        m = re.match(r"(?:and|or|xor|select) i1 (.*)$", rhs)
        if m:
            for tok in re.findall(r"%[\w.$-]+", m.group(1)):
                if tok in conds:
                    conds.setdefault(res, set()).update(conds[tok])
                if tok in const_conds:
                    const_conds.setdefault(res, set()).update(const_conds[tok])
    blocks, succ = _blocks(body)
    barrier_blocks = {b for b, ls in blocks.items()
                      if any(_BARRIER_CALL.search(ln) or any(f"@{c}(" in ln or f'@"{c}"(' in ln for c in reaching)
                             for ln in ls)}

    def reaches(start: str) -> bool:
        seen, stack = set(), [start]
        while stack:
            b = stack.pop()
            if b in seen:
                continue
            seen.add(b)
            if b in barrier_blocks:
                return True
            stack += succ.get(b, [])
        return False

    bounds: set[str] = set()
    splits: dict[int, set[int]] = {}
    for ls in blocks.values():
        for ln in ls:
            m = re.search(r"br i1 (%[\w.$-]+), label %([\w.$-]+), label %([\w.$-]+)", ln)
            if not m or (m.group(1) not in conds and m.group(1) not in const_conds) \
                    or reaches(m.group(2)) == reaches(m.group(3)):
                continue
            bounds |= conds.get(m.group(1), set())
            for d, c in const_conds.get(m.group(1), set()):
                splits.setdefault(d, set()).add(c)
    roles = {p: "bound" for p in bounds}
    roles.update({p: "stride" for p in multiplied - compared - bounds})
    return roles, splits


# The largest local size a split of the global ids (`guard_splits`) gives:
# the generic one along a single dimension.
MAX_SPLIT_LOCAL = 16


def _split_groups(shape: LocalShape, splits: dict[int, set[int]], dims: set[int]) -> None:
    """Where `get_global_id(d) < C` decides whether a barrier is reached and
    the IR gives no other size along d: the largest local size up to
    `MAX_SPLIT_LOCAL` dividing every such C (PoCL's issue_1747 test, `if
    (gid < 2) barrier(...)`, "launched with work-groups of size 2"). A
    split that only a group of 1 divides leaves the generic sizes."""
    for d, cs in sorted(splits.items()):
        if d in shape.size or d in shape.single or d not in dims:
            continue
        g = 0
        for c in cs:
            g = math.gcd(g, c)
        size = max((k for k in range(2, MAX_SPLIT_LOCAL + 1) if g % k == 0), default=0)
        if size:
            shape.size[d] = size
            shape.reasons.append(f"local size {size} along {d}: get_global_id({d}) against "
                                 f"{', '.join(map(str, sorted(cs)))} decides whether a barrier is reached,"
                                 " so a group lies on one side")


def check_arg(i: int, a: ArgSpec, ty: str) -> None:
    """Raise `CaseError` unless layout entry `a` can be parameter `i` of LLVM type `ty`."""
    if image_args.check(i, a, ty):
        return
    if ty.startswith("ptr"):
        want = "local" if "addrspace(3)" in ty else "buf"
        if a.kind != want:
            raise CaseError(f"argument {i} is a {ty}: a `{want}:` entry is needed, not `{a}`")
        return
    m = re.fullmatch(r"<(\d+) x (\w+)>", ty)
    lanes, sty = (int(m.group(1)), m.group(2)) if m else (1, ty)
    elem = "i8" if sty == "i1" else _LLVM_TO_ELEM.get(sty)
    want_elem = f"{lanes}x{elem}" if lanes > 1 else elem
    if a.kind != "scalar" or elem is None or (a.lanes, a.base) != (lanes, elem):
        raise CaseError(f"argument {i} is a {ty}: a `scalar:{want_elem}:<value>` entry is needed, not `{a}`")


def validate_case(case: Case) -> None:
    """Raise `CaseError` unless the case's IR parses and its `args:` layout
    fits its kernel's parameters (one entry each, of the right kind and type)."""
    initialize()
    try:
        mod = parse_in(new_context(), strip_calling_conventions(case.ir))
        mod.verify()
    except RuntimeError as exc:
        msg = " ".join(str(exc).split())
        raise CaseError(f"invalid LLVM IR: {msg[:300]}") from None
    name = pick_kernel(case.ir, mod, case.kernel)
    params = list(mod.get_function(name).arguments)
    args = case.args or []
    if case.args is not None and len(args) != len(params):
        raise CaseError(f"layout has {len(args)} arguments, kernel {name} has {len(params)}")
    for i, (a, p) in enumerate(zip(args, params, strict=False)):
        check_arg(i, a, str(p.type))


def infer_case(case: Case, kernel: str | None = None,
               layout: Sequence[ArgSpec | str] | None = None) -> Case:
    """A runnable case for `case.ir`: the header's or the given settings where
    present, inferred ones elsewhere. Raises `CaseError` for unparsable IR."""
    initialize()
    ctx = new_context()
    try:
        mod = parse_in(ctx, strip_calling_conventions(case.ir))
        mod.verify()
    except RuntimeError as exc:
        msg = " ".join(str(exc).split())
        raise CaseError(f"invalid LLVM IR: {msg[:300]}") from None
    # Calling conventions were stripped only for parsing; `spir_kernel` must be
    # looked for in the original text.
    name = kernel or case.kernel
    if name is None:
        try:
            name = pick_kernel(case.ir, parse_in(new_context(), case.ir), None)
        except RuntimeError:
            name = pick_kernel(case.ir, mod, None)
    else:
        name = pick_kernel(case.ir, mod, name)
    canon = str(mod)
    fn = mod.get_function(name)
    params = list(fn.arguments)
    dims_used = id_dims(mod, name)
    shape = local_shape(canon, name) if not case.ndranges else LocalShape()
    if not case.ndranges:
        _split_groups(shape, guard_splits(canon, name), dims_used)
    nds = case.ndranges or launch_ndranges(dims_used, shape)
    launch_note = ""
    if not case.ndranges:
        how = "; ".join(shape.reasons) if shape else "no work-group size in the kernel's IR, generic local sizes"
        launch_note = (f"inferred launch ({how}); if the kernel's host code uses another, give it in a case"
                       " header (`ndrange:`, `args:`: docs/oracle.md, \"Supplying a launch\")")
    items = max(nd.total for nd in nds)
    local_items = max(nd.local_size[0] * nd.local_size[1] * nd.local_size[2] for nd in nds)
    inferred = False
    if layout is not None:
        args = [parse_arg(a) if isinstance(a, str) else a for a in layout]
    elif case.args is not None:
        args = list(case.args)
        inferred = case.inferred_args
    else:
        inferred = True
        body = _function_body(canon, name)
        names = ["%" + a.name if a.name else f"%{i}" for i, a in enumerate(params)]
        roles = scalar_roles(canon, name, [n for n, a in zip(names, params, strict=True)
                                           if re.fullmatch(r"i(16|32|64)", str(a.type))])
        # A bound that decides whether a barrier is reached: at least every
        # NDRange's extent (every group whole); a row stride: at least its
        # number of work-items (rows of every group fit side by side), when
        # the groups have the kernel's own shape: under generic local sizes
        # a group's columns need not be as many as its work-items (Parboil's
        # mxpa SGEMM spans 128 columns per group whatever its size).
        if not shape.size:
            roles = {p: r for p, r in roles.items() if r != "stride"}
        role_value = {
            "bound": max(nd.offset[d] + nd.global_size[d] for nd in nds for d in range(nd.work_dim)),
            "stride": max(nd.offset[0] + nd.total for nd in nds),
        }
        role_notes = []
        args = []
        for i, a in enumerate(params):
            ty = str(a.type)
            aname = "%" + a.name if a.name else f"%{i}"
            opaque = image_args.infer(ty, body, aname)
            if opaque is not None:
                args.append(opaque)
            elif ty.startswith("ptr"):
                kinds, widest = pointer_uses(body, aname)
                elem = kinds.most_common(1)[0][0] if kinds else "i32"
                # Slack: 64 elements (or 4 of the widest access) per work-item
                # covers strides up to the NDRange size (quadratic indices).
                per_item = max(64, 4 * widest // _SIZES[elem])
                n_items = local_items if "addrspace(3)" in ty else items
                count = max(n_items, 64) * per_item + 4096
                kind = "local" if "addrspace(3)" in ty else "buf"
                # Integers read from a foreign kernel's buffers are often
                # indices: keep them small so they stay inside the slack.
                init = "mod64" if elem.startswith("i") else "random"
                args.append(ArgSpec(kind, elem, count, init))
            else:
                m = re.fullmatch(r"<(\d+) x (\w+)>", ty)
                lanes, sty = (int(m.group(1)), m.group(2)) if m else (1, ty)
                elem = _LLVM_TO_ELEM.get(sty)
                if elem is None or sty == "ptr":
                    raise CaseError(f"cannot infer a value for parameter {i} of type {ty}")
                if sty == "i1":
                    elem = "i8"
                value = "1.5" if elem.startswith("f") else "1"
                role = roles.get(aname)
                if role:
                    value = str(role_value[role])
                    role_notes.append(f"{aname} = {value}, " + ("a bound on the ids that decides whether a barrier"
                                                               " is reached" if role == "bound" else
                                                               "a row stride multiplying an id along"
                                                               " dimension 1 or 2"))
                args.append(ArgSpec("scalar", f"{lanes}x{elem}" if lanes > 1 else elem, value=value))
        if role_notes and launch_note:
            launch_note = launch_note.replace("); if the kernel", "; scalars tried last: " + ", ".join(role_notes)
                                              + "); if the kernel", 1)
    if len(args) != len(params):
        raise CaseError(f"layout has {len(args)} arguments, kernel {name} has {len(params)}")
    if not inferred:
        for i, (a, p) in enumerate(zip(args, params, strict=True)):
            check_arg(i, a, str(p.type))
    dims = case.dims or sorted(dims_used & {0, 1, 2}) or [0]
    return Case(
        ir=case.ir, kernel=name, args=args, ndranges=nds, widths=case.widths, dims=dims,
        choices=case.choices, seed=case.seed, origin=case.origin or "inferred layout",
        failure=case.failure, extra=case.extra, is_case=True, inferred_args=inferred, launch_note=launch_note,
    )
