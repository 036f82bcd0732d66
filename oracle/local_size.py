"""The work-group shape a kernel assumes, read from its IR.

Barrier kernels are written for one local size: a tiled matrix multiply
fills a `__local float bs[4][16]` tile with `bs[get_local_id(1)][get_local_id(0)]`
and then reads all of it, so it needs a local size of exactly 16x4; a
kernel that never asks for a group or global id along a dimension computes
the same thing in every group along it, so groups there can only collide.
Launch inference (oracle.infer) uses what this module finds instead of its
generic local sizes:

- `!reqd_work_group_size !{i32 X, i32 Y, i32 Z}` on the kernel: exact;
- a flattened local id `lid(a) + lid(b) * K` (`shl` by log2 K, `or`
  disjoint too): the local size along `a` is K;
- a `__local` array (an `addrspace(3)` module global) indexed by
  `lid(d) + c` where the array (or the row indexed) has B elements: the
  local size along d is at most B - c, taken as the size (a tile is
  indexed by the work-items that fill it); a flattened index
  `lid(a) + lid(b) * K` into B elements bounds the size along b by B / K;
- `get_group_id(d) * S + get_local_id(d) * K` (K > 1): a group spans S
  elements, K each, so S / K along d;
- `get_group_id(a) * S + get_local_id(b) * get_local_size(a) +
  get_local_id(a)`: S work-items a group, 16 (the generic size) along a;
- a loop from `get_local_id(d)` in constant steps of C: C along d (before
  the tiles: the work-items take turns through the elements, C apart);
- `get_local_id(d) < C` with `get_local_id(d) - C` for the others: two
  halves of C (unless a tile indexed by the local id is smaller);
- `get_local_id(d) / C` or `get_local_size(d) / C` (or shifts) with C
  above the generic 16: C along d (a warp, a virtual block);
- no `get_global_id`/`get_group_id` (nor a linear or offset query) along d:
  one work-group along d.

Only call sites and instructions are read (the kernel and the functions it
calls), as text: nothing is run. Each finding comes with the reason it was
made, for the verdict's detail.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# `%x = <op> ...` lines of a function body.
_ASSIGN = re.compile(r"^\s*(%[\w.$\"-]+) = (.*)$")
_QUERY = re.compile(r"call [^@]*@_Z(\d+)(get_(?:local|global|group)_id|get_global_linear_id|get_local_linear_id"
                    r"|get_global_offset)j?\w*\(i32 (?:noundef )?(\d+|%[\w.]+)\)")
_MUX_QUERY = re.compile(r"call [^@]*@__mux_(get_(?:local|global|group)_id|get_global_linear_id"
                        r"|get_local_linear_id|get_global_offset)\(i32 (?:noundef )?(\d+|%[\w.]+)\)")
_CAST = re.compile(r"^(?:trunc|zext|sext)(?: nneg)? \S+ (%[\w.$-]+) to ")
_AND_MASK = re.compile(r"^and \S+ (%[\w.$-]+), (\d+)$")
_BIN = re.compile(r"^(add|mul|shl|or)(?: (?:nuw|nsw|disjoint))* \S+ (%[\w.$-]+|-?\d+), (%[\w.$-]+|-?\d+)$")
# `lid / C`, `lid >> k`, `get_local_size / C`: work-items in sets of C.
_DIV = re.compile(r"^(udiv|sdiv|lshr|ashr)(?: exact)? \S+ (%[\w.$-]+), (\d+)$")
# `lid < C` (or `lid > C - 1`): a split of the group at C.
_CMP = re.compile(r"^icmp (?:samesign )?(ult|slt|ugt|sgt) \S+ (%[\w.$-]+), (-?\d+)$")
_LSIZE = re.compile(r"call [^@]*@(?:_Z14get_local_sizej|__mux_get_local_size)\(i32 (?:noundef )?(\d)\)")
_GEP = re.compile(r"^getelementptr(?: (?:inbounds|nuw|nusw|inrange\(\S+\)))* (.+?), ptr addrspace\(3\) "
                  r"(@[\w.$\"-]+|%[\w.$-]+)((?:, i\d+ (?:%[\w.$-]+|-?\d+))*)$")
_GLOBAL = re.compile(r"^(@[\w.$\"-]+) = .*addrspace\(3\) global (.+?)(?: undef| poison| zeroinitializer)", re.M)
_REQD = re.compile(r"!reqd_work_group_size (![\d]+)")
# A `__local` array longer than this along a dimension is taken for a scratch
# area (an FFT's 576 floats, a scan's 1024 padded slots), not a tile whose
# extent is the group's: it gives no local size.
MAX_TILE = 256
# Sets of C work-items (`get_local_id(d) / C`) give the local size only when
# C exceeds the generic local size (which a smaller C divides anyway).
GENERIC_LOCAL = 16
MAX_SETS = 1024
_SCALAR_SIZES = {"i8": 1, "i16": 2, "i32": 4, "i64": 8, "half": 2, "float": 4, "double": 8}


@dataclass
class LocalShape:
    """What a kernel says about its work-group: per dimension, the local
    size it assumes (`size`), and dimensions that take one group (`single`)."""

    size: dict[int, int] = field(default_factory=dict)
    single: set[int] = field(default_factory=set)
    reasons: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.size or self.single)


def _shape(ty: str) -> tuple[list[int], int] | None:
    """`[4 x [16 x float]]` -> ([4, 16], 4): array dimensions and scalar size."""
    dims = []
    t = ty.strip()
    while True:
        m = re.fullmatch(r"\[(\d+) x (.+)\]", t)
        if not m:
            break
        dims.append(int(m.group(1)))
        t = m.group(2).strip()
    size = _SCALAR_SIZES.get(t)
    if size is None:
        m = re.fullmatch(r"<(\d+) x (\w+)>", t)
        if m and m.group(2) in _SCALAR_SIZES:
            size = int(m.group(1)) * _SCALAR_SIZES[m.group(2)]
    return (dims, size) if size is not None else None


def _bodies(text: str) -> dict[str, str]:
    out = {}
    for m in re.finditer(r"^define [^@]*@\"?([\w.$-]+)\"?\(.*?^}", text, re.M | re.S):
        out[m.group(1)] = m.group(0)
    return out


def _reachable(bodies: dict[str, str], kernel: str) -> list[str]:
    seen: list[str] = []
    stack = [kernel]
    while stack:
        n = stack.pop()
        if n in seen or n not in bodies:
            continue
        seen.append(n)
        stack += re.findall(r"@\"?([\w.$-]+)\"?\(", bodies[n].split("\n", 1)[1])
    return seen


def local_shape(text: str, kernel: str) -> LocalShape:
    """The work-group shape `kernel` of module `text` assumes (module docstring)."""
    out = LocalShape()
    bodies = _bodies(text)
    kbody = bodies.get(kernel, "")
    head = kbody.split("\n", 1)[0]
    m = _REQD.search(head)
    if m:
        md = re.search(rf"^{re.escape(m.group(1))} = !\{{i32 (\d+), i32 (\d+), i32 (\d+)\}}", text, re.M)
        if md:
            for d in range(3):
                out.size[d] = int(md.group(d + 1))
            out.reasons.append(f"reqd_work_group_size({','.join(md.groups())})")
            return out
    globals_ = {}
    for g in _GLOBAL.finditer(text):
        s = _shape(g.group(2))
        if s is not None:
            globals_[g.group(1)] = s
    queried: set[int] = set()
    grouped: set[int] = set()  # dimensions with a global or group id (or all three)
    exact: dict[int, tuple[int, str]] = {}
    # `lid(d) < C` tests (C) and `lid(d) - C` terms (C): a group split at C.
    split_at: dict[int, set[int]] = {}
    split_off: dict[int, set[int]] = {}
    # `lid(d) / C`, `get_local_size(d) / C`: work-items in sets of C.
    sets: dict[int, tuple[int, str]] = {}
    # `for (i = lid(d); ...; i += C)`: d -> C (the work-items of a group
    # take turns through the elements, C apart).
    steps: dict[int, int] = {}
    # `get_group_id(a) * S + lid(b) * get_local_size(a) + lid(a)`: a -> (S, b).
    spans: dict[int, tuple[int, int]] = {}
    bound: dict[int, tuple[int, str]] = {}
    bound_obj: dict[int, str] = {}
    # Objects with a pointer derived in a way the rules do not follow (a
    # byte offset to another row, a phi or select of pointers): an access
    # through it may sit past every bound seen, so its bounds give no size
    # (a halo row read at `tile + 272` bytes made a 32x8 tile look 33x10).
    lost: set[str] = set()

    def note_bound(d: int, b: int, why: str, obj: str) -> None:
        if b >= 1 and (d not in bound or b < bound[d][0]):
            bound[d] = (b, why)
            bound_obj[d] = obj

    for fname in _reachable(bodies, kernel):
        # value -> ("lid", d, offset) | ("scaled", d, factor) | ("flat", a, b, K, offset)
        vals: dict[str, tuple] = {}
        # local pointer -> (object name, elements available from it, scalar size, lid term or None)
        ptrs: dict[str, tuple[str, int, int, tuple | None]] = {}
        for g, (dims, size) in globals_.items():
            n = 1
            for x in dims:
                n *= x
            ptrs[g] = (g, n, size, None)
        phis: dict[str, list[str]] = {}
        incs: dict[str, tuple[str, int]] = {}
        for line in bodies[fname].splitlines():
            pm = re.match(r"\s*(%[\w.$-]+) = phi i(?:32|64) (.*)$", line)
            if pm:
                phis[pm.group(1)] = re.findall(r"\[ (%[\w.$-]+), ", pm.group(2))
            im = re.match(r"\s*(%[\w.$-]+) = add(?: nuw| nsw)* i(?:32|64) (%[\w.$-]+), (\d+)(?:, !.*)?$", line)
            if im:
                incs[im.group(1)] = (im.group(2), int(im.group(3)))
            q = _QUERY.search(line)
            qm = _MUX_QUERY.search(line) if q is None else None
            if q or qm:
                kind, arg = (q.group(2), q.group(3)) if q else (qm.group(1), qm.group(2))  # type: ignore[union-attr]
                dims = [int(arg)] if arg.isdigit() and int(arg) < 3 else [0, 1, 2]
                if "linear" in kind or not arg.isdigit():
                    queried |= {0, 1, 2}
                    if kind != "get_local_linear_id" and kind != "get_local_id":
                        grouped |= {0, 1, 2}
                    continue
                queried |= set(dims)
                if kind != "get_local_id":
                    grouped |= set(dims)
                a = _ASSIGN.match(line)
                if kind in ("get_local_id", "get_group_id") and a:
                    vals[a.group(1)] = ("lid" if kind == "get_local_id" else "grp", dims[0], 0)
                continue
            a = _ASSIGN.match(line)
            if not a:
                continue
            name, rhs = a.group(1), a.group(2).strip()
            ls = _LSIZE.search(rhs)
            if ls and int(ls.group(1)) < 3:
                vals[name] = ("lsize", int(ls.group(1)), 0)
                continue
            dv = _DIV.match(rhs)
            if dv and dv.group(2) in vals:
                v = vals[dv.group(2)]
                k = int(dv.group(3))
                c = k if dv.group(1).endswith("div") else (1 << k if k < 31 else 0)
                if v[0] in ("lid", "lsize") and v[2] == 0 and c > 1 and (v[1] not in sets or c > sets[v[1]][0]):
                    what = "get_local_id" if v[0] == "lid" else "get_local_size"
                    sets[v[1]] = (c, f"{what}({v[1]}) / {c}")
                continue
            cm = _CMP.match(rhs)
            if cm and cm.group(2) in vals:
                v = vals[cm.group(2)]
                if v[0] == "lid" and v[2] == 0:
                    c = int(cm.group(3)) + (1 if cm.group(1).endswith("gt") else 0)
                    if c > 1:
                        split_at.setdefault(v[1], set()).add(c)
                continue
            rhs = re.sub(r", !\w+ !\d+", "", rhs)
            c = _CAST.match(rhs) or _AND_MASK.match(rhs)
            if c and c.group(1) in vals:
                if not (_AND_MASK.match(rhs) and int(c.group(2)) < 0xFFFF):
                    vals[name] = vals[c.group(1)]
                continue
            b = _BIN.match(rhs)
            if b:
                op, x, y = b.groups()
                if y in vals and x not in vals and op in ("add", "mul", "or"):
                    x, y = y, x
                vx, vy = vals.get(x), vals.get(y)
                if vx and vy is None and re.fullmatch(r"-?\d+", y):
                    k = int(y)
                    if op == "add" and vx[0] == "lid":
                        vals[name] = ("lid", vx[1], vx[2] + k)
                        if vx[2] + k < 0:
                            split_off.setdefault(vx[1], set()).add(-(vx[2] + k))
                    elif op == "add" and vx[0] == "flat":
                        vals[name] = ("flat", vx[1], vx[2], vx[3], vx[4] + k)
                    elif op in ("mul", "shl") and vx[0] in ("lid", "grp") and vx[2] == 0 and 0 <= k < 31:
                        vals[name] = ("scaled" if vx[0] == "lid" else "gscaled", vx[1], k if op == "mul" else 1 << k)
                elif vx and vy and op == "mul" and {vx[0], vy[0]} == {"lid", "lsize"}:
                    lid, ls_ = (vx, vy) if vx[0] == "lid" else (vy, vx)
                    if lid[2] == 0 and lid[1] != ls_[1]:
                        vals[name] = ("dscaled", lid[1], ls_[1])
                elif vx and vy and op in ("add", "or") and {vx[0], vy[0]} == {"lid", "dscaled"}:
                    # `lid(b) * get_local_size(a) + lid(a)`: the flattened local id.
                    lid, ds = (vx, vy) if vx[0] == "lid" else (vy, vx)
                    if lid[2] == 0 and lid[1] == ds[2]:
                        vals[name] = ("dflat", lid[1], ds[1])
                elif vx and vy and op in ("add", "or") and {vx[0], vy[0]} == {"dflat", "gscaled"}:
                    # `get_group_id(a) * S + flattened local id`: a group of S
                    # work-items, whatever its shape.
                    fl, gs = (vx, vy) if vx[0] == "dflat" else (vy, vx)
                    if gs[1] == fl[1]:
                        spans.setdefault(fl[1], (gs[2], fl[2]))
                elif vx and vy and op in ("add", "or") and {vx[0], vy[0]} == {"scaled", "gscaled"} \
                        and vx[1] == vy[1]:
                    # `get_group_id(d) * S + get_local_id(d) * K`: a group spans S
                    # elements, K per work-item, so its size along d is S / K.
                    sc, gs = (vx, vy) if vx[0] == "scaled" else (vy, vx)
                    if sc[2] > 1 and gs[2] % sc[2] == 0:
                        exact.setdefault(sc[1], (gs[2] // sc[2], f"get_group_id({sc[1]}) * {gs[2]} + get_local_id("
                                                 f"{sc[1]}) * {sc[2]}"))
                elif vx and vy and op in ("add", "or") and {vx[0], vy[0]} == {"flat", "gscaled"}:
                    # `get_group_id(a) * S + lid(a) + lid(b) * K`: a group spans S
                    # flattened work-items, so the size along b is S / K.
                    fl, gs = (vx, vy) if vx[0] == "flat" else (vy, vx)
                    if gs[1] == fl[1] and gs[2] % fl[3] == 0 and fl[4] == 0:
                        exact.setdefault(fl[2], (gs[2] // fl[3], f"get_group_id({fl[1]}) * {gs[2]} + get_local_id("
                                                f"{fl[1]}) + get_local_id({fl[2]}) * {fl[3]}"))
                elif vx and vy and op in ("add", "or"):
                    lid, sc = (vx, vy) if vx[0] == "lid" else (vy, vx)
                    if lid[0] == "lid" and sc[0] == "scaled" and lid[1] != sc[1] and sc[2] > 1:
                        vals[name] = ("flat", lid[1], sc[1], sc[2], lid[2])
                        exact.setdefault(lid[1], (sc[2], f"get_local_id({lid[1]}) + get_local_id({sc[1]}) * {sc[2]}"))
                continue
            gm = _GEP.match(rhs)
            if not gm or gm.group(2) not in ptrs:
                if not rhs.startswith(("load ", "load volatile ", "store ", "call ", "tail call ", "icmp ")):
                    for tok in re.findall(r"[@%][\w.$\"-]+", rhs):
                        if tok in ptrs:
                            lost.add(ptrs[tok][0])
                continue
            src_ty, base, idx_text = gm.groups()
            obj, avail, esize, term = ptrs[base]
            st = _shape(src_ty)
            idxs = re.findall(r"i\d+ (%[\w.$-]+|-?\d+)", idx_text)
            if st is None or not idxs:
                continue
            sdims, ssize = st
            if ssize != esize:
                if ssize == 1 and term is not None and len(idxs) == 1 and re.fullmatch(r"\d+", idxs[0]):
                    # `row[lid(d) + c]`, the constant folded into bytes.
                    c_el = int(idxs[0]) // esize
                    note_bound(term[1], avail - term[2] - c_el, f"{obj} indexed by get_local_id({term[1]}) + {c_el}", obj)
                # A byte offset from a pointer indexed by lid(a): `lid(b) * K` bytes.
                if ssize == 1 and term is not None and term[0] == "lid" and len(idxs) == 1:
                    v = vals.get(idxs[0])
                    if v and v[0] == "scaled" and v[2] >= esize and v[2] % esize == 0 and v[1] != term[1]:
                        k = v[2] // esize
                        exact.setdefault(term[1], (k, f"get_local_id({term[1]}) + get_local_id({v[1]}) * {k}"
                                                  f" indexing {obj}"))
                        note_bound(v[1], avail // k, f"{obj} of {avail} elements indexed by a flattened local id", obj)
                        # Followed: the flattened id stays inside the tile.
                        ptrs[name] = (obj, avail, esize, None)
                        continue
                lost.add(obj)  # the pointer it makes is not followed
                continue
            n_src = 1
            for x in sdims:
                n_src *= x
            bounds = [avail // max(1, n_src)] + sdims
            for i, ix in enumerate(idxs[: len(bounds)]):
                v = vals.get(ix)
                if v is None:
                    continue
                if v[0] == "lid":
                    note_bound(v[1], bounds[i] - v[2], f"{obj} indexed by get_local_id({v[1]})"
                               + (f" + {v[2]}" if v[2] else ""), obj)
                elif v[0] == "flat":
                    note_bound(v[2], bounds[i] // v[3], f"{obj} indexed by a flattened local id", obj)
            # What the result points into: the sub-array the indices select
            # (a row of a tile), or, past a scalar index, at most the rest.
            rest = 1
            for x in sdims[len(idxs) - 1:]:
                rest *= x
            last = vals.get(idxs[-1])
            ptrs[name] = (obj, rest if sdims else avail, esize,
                          last if len(idxs) == 1 and last and last[0] == "lid" else None)
        for phi, incoming in phis.items():
            starts = [vals[t] for t in incoming if t in vals]
            step = [incs[t][1] for t in incoming if t in incs and incs[t][0] == phi]
            if len(incoming) == 2 and len(starts) == 1 and starts[0][0] == "lid" and starts[0][2] == 0 \
                    and len(step) == 1 and 1 < step[0] <= MAX_SETS:
                steps.setdefault(starts[0][1], step[0])
    for a, (s_items, b) in spans.items():
        # S work-items flattened with get_local_size: the generic size along
        # a (the size asked for along a is not in the IR), S / it along b.
        if a in exact or b in exact or s_items <= GENERIC_LOCAL or s_items % GENERIC_LOCAL:
            continue
        exact[a] = (GENERIC_LOCAL, f"get_group_id({a}) * {s_items} + get_local_id({b}) * get_local_size({a}) +"
                    f" get_local_id({a}): a group of {s_items} work-items, {GENERIC_LOCAL} along {a}")
        exact[b] = (s_items // GENERIC_LOCAL, f"a group of {s_items} work-items, {GENERIC_LOCAL} along {a}")
    for d in sorted(queried):
        # A split at C with `lid - C` for the work-items past it: two halves
        # of C (Rodinia's LUD perimeter: rows by the first, columns by the
        # second), unless a tile indexed by the local id is smaller.
        halves = sorted(split_at.get(d, set()) & split_off.get(d, set()))
        split = 2 * halves[-1] if halves else 0
        if d in exact:
            out.size[d] = exact[d][0]
            out.reasons.append(f"local size {exact[d][0]} along {d}: {exact[d][1]}")
        elif 1 < split <= 2 * MAX_TILE and not (d in bound and bound[d][0] < split):
            out.size[d] = split
            out.reasons.append(f"local size {split} along {d}: get_local_id({d}) < {split // 2} splits the group,"
                               f" the rest use get_local_id({d}) - {split // 2}")
        elif d in steps:
            # Before the tiles: the loop says how many take turns.
            out.size[d] = steps[d]
            out.reasons.append(f"local size {steps[d]} along {d}: a loop from get_local_id({d}) in steps of {steps[d]}")
        elif d in bound and bound[d][0] <= MAX_TILE and bound_obj[d] not in lost:
            out.size[d] = bound[d][0]
            out.reasons.append(f"local size {bound[d][0]} along {d}: {bound[d][1]}")
        elif d in sets and GENERIC_LOCAL < sets[d][0] <= MAX_SETS:
            # Work-items in sets of C (a warp, a virtual block) larger than
            # the generic local size: one set per group.
            out.size[d] = sets[d][0]
            out.reasons.append(f"local size {sets[d][0]} along {d}: {sets[d][1]}")
    for d in sorted(queried - grouped):
        out.single.add(d)
        out.reasons.append(f"one work-group along {d}: no global or group id queried along it")
    return out
