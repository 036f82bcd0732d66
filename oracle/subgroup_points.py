"""Program points and loop iteration counters for the reference's
non-uniform sub-group collectives in divergent code (docs/subgroups.md).

The members of one dynamic instance of a non-uniform collective are the
work-items of a sub-group that reach the same call site with the same
iteration vector: for each loop around the call, the number of iterations
the work-item started since it last entered that loop. The vectorized
kernel runs the masked call once per dynamic instance of its block in the
linearized packet, which is exactly that.

`instrument(text, kernel)` gives the scalar kernel what the rendezvous
(oracle/subgroups.py) needs to form those instances:

- a counter per loop (an `[K x i64]` alloca, zero at entry): a phi at the
  loop's header takes 0 from its entry edges and the counter plus one from
  its back edges, and is stored in the counter;
- before every call that can wait (collectives, barriers, group copies), a
  call `__oracle_sg_point(i64 point, ptr counters, ptr table)` telling the
  runtime where the work-item waits and its counters;
- the table (a private constant), read by the rendezvous to decide whether
  a waiting work-item can still arrive at an open instance: for each pair
  of points (P, s) the depth of the loops they share, whether s can be
  reached from P within the current iterations of those loops (their back
  edges removed) and whether it can be reached at all; and the loops around
  each point.

Loops are found on the scalar CFG here (dominators, natural loops); this
module uses only `vectorizer.ir` (parser, printer, builder), never the
vectorizer's analyses. Inputs it cannot describe soundly raise
`Unsupported`: an irreducible CFG, a call that may wait made from a helper
function or through a pointer, more than MAX_LOOPS loops or MAX_POINTS
points.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from vectorizer.ir import Builder, parse_module, print_module
from vectorizer.ir import instructions as I
from vectorizer.ir import module as M
from vectorizer.ir import types as T
from vectorizer.ir import values as V

from . import collective_names as names
from .runtime import Unsupported, base_name

HOOK = "__oracle_sg_point"
TABLE = "__oracle_sg_points"
MAX_LOOPS = 64
MAX_POINTS = 256
_WAITS = re.compile(r"barrier|async_work_group|wait_group_events|^(sub_group_|work_group_|intel_sub_group)")
_DECLARED = re.compile(r"^declare [^@]*@(\"[^\"]+\"|[-\w$.]+)\(", re.M)


def active_members(c: names.Collective | None) -> bool:
    """Is `c` a collective whose members are the work-items active at the
    call (the non-uniform and clustered forms, `sub_group_elect`,
    `sub_group_broadcast_first`, and `sub_group_ballot`)? The reference forms
    their instances from call sites and iteration vectors."""
    return c is not None and c.scope == "sub" and (c.non_uniform or c.kind == names.BALLOT)


def uses_active_members(declared: Iterable[str]) -> bool:
    """Does a module declaring these functions call such a collective, or
    name its program points?"""
    return any(n == HOOK or active_members(names.parse_collective(n)) for n in declared)


def needs_points(text: str) -> bool:
    """Cheap test on module text: does it declare such a collective?"""
    if "sub_group" not in text:
        return False
    return uses_active_members(m.strip('"') for m in _DECLARED.findall(text))


def _may_wait(name: str | None) -> bool:
    if name is None:
        return True
    if names.is_collective_name(name):
        return True
    base = base_name(name)
    return base is not None and _WAITS.search(base) is not None


# ------------------------------------------------------------ CFG


def _order(entry: M.BasicBlock) -> tuple[list[M.BasicBlock], list[tuple[M.BasicBlock, M.BasicBlock]]]:
    """Reverse postorder of the blocks reachable from `entry`, and the DFS's
    retreating edges (to a block on the DFS stack)."""
    post: list[M.BasicBlock] = []
    retreating = []
    on_stack: set[int] = set()
    seen: set[int] = {id(entry)}
    stack = [(entry, iter(entry.successors))]
    on_stack.add(id(entry))
    while stack:
        b, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            stack.pop()
            on_stack.discard(id(b))
            post.append(b)
            continue
        if id(nxt) in on_stack:
            retreating.append((b, nxt))
        elif id(nxt) not in seen:
            seen.add(id(nxt))
            on_stack.add(id(nxt))
            stack.append((nxt, iter(nxt.successors)))
    return post[::-1], retreating


def _dominators(rpo: list[M.BasicBlock]) -> dict[int, int]:
    """Immediate dominators (index in `rpo` -> index), Cooper-Harvey-Kennedy."""
    index = {id(b): i for i, b in enumerate(rpo)}
    preds: list[list[int]] = [[] for _ in rpo]
    for i, b in enumerate(rpo):
        for s in b.successors:
            if id(s) in index:
                preds[index[id(s)]].append(i)
    idom = {0: 0}
    changed = True
    while changed:
        changed = False
        for i in range(1, len(rpo)):
            done = [p for p in preds[i] if p in idom]
            new = done[0]
            for p in done[1:]:
                a, c = p, new
                while a != c:
                    while a > c:
                        a = idom[a]
                    while c > a:
                        c = idom[c]
                new = a
            if idom.get(i) != new:
                idom[i] = new
                changed = True
    return idom


class _Loops:
    """The natural loops of a reducible CFG, outermost first in each chain."""

    def __init__(self, fn: M.Function) -> None:
        rpo, retreating = _order(fn.entry)
        self.blocks = rpo
        index = {id(b): i for i, b in enumerate(rpo)}
        self.index = index
        idom = _dominators(rpo)

        def dominates(a: int, b: int) -> bool:
            while b != a and b != 0:
                b = idom[b]
            return b == a

        latches: dict[int, list[int]] = {}
        for u, h in retreating:
            iu, ih = index[id(u)], index[id(h)]
            if not dominates(ih, iu):
                raise Unsupported("non-uniform sub-group collective in a kernel with an irreducible CFG: the "
                                  "reference cannot count its loop iterations")
            latches.setdefault(ih, []).append(iu)
        preds: list[list[int]] = [[] for _ in rpo]
        for i, b in enumerate(rpo):
            for s in b.successors:
                if id(s) in index:
                    preds[index[id(s)]].append(i)
        self.preds = preds
        self.headers = sorted(latches)
        self.latches = latches
        self.body: dict[int, set[int]] = {}
        for h in self.headers:
            body = {h}
            work = [t for t in latches[h] if t != h]
            body.update(work)
            while work:
                x = work.pop()
                for p in preds[x]:
                    if p not in body:
                        body.add(p)
                        work.append(p)
            self.body[h] = body
        if len(self.headers) > MAX_LOOPS:
            raise Unsupported(f"non-uniform sub-group collective in a kernel with more than {MAX_LOOPS} loops")
        self.loop_id = {h: k for k, h in enumerate(self.headers)}

    def chain(self, block: int) -> list[int]:
        """Headers of the loops around `block`, outermost first."""
        around = [h for h in self.headers if block in self.body[h]]
        return sorted(around, key=lambda h: -len(self.body[h]))

    def reaches(self, src: int, dst: int, cut: set[int]) -> bool:
        """Is block `dst` reachable from block `src` by one edge or more,
        without the back edges of the loops headed by `cut`?"""
        seen: set[int] = set()
        work = [src]
        while work:
            x = work.pop()
            for s in self.blocks[x].successors:
                j = self.index[id(s)]
                if j in cut and x in self.latches.get(j, ()) and x in self.body[j]:
                    continue  # a back edge of a shared loop
                if j == dst:
                    return True
                if j not in seen:
                    seen.add(j)
                    work.append(j)
        return False


# ------------------------------------------------------------ instrumentation


def _callee_name(call: I.CallInst) -> str | None:
    fn = call.called_function
    return fn.name if fn is not None else None


def _calls_active_members(kernel: M.Function) -> bool:
    """Does the kernel, or a function it calls, call such a collective?"""
    seen: set[str] = set()
    work = [kernel]
    while work:
        fn = work.pop()
        for inst in fn.instructions():
            callee = inst.called_function if isinstance(inst, I.CallInst) else None
            if callee is None:
                continue
            if callee.is_declaration:
                if active_members(names.parse_collective(callee.name)):
                    return True
            elif callee.name not in seen:
                seen.add(callee.name)
                work.append(callee)
    return False


def _check_helpers(mod: M.Module, kernel: M.Function) -> None:
    """Calls that may wait must be the kernel's own: the reference cannot
    place a point inside a helper function (one called from several places)."""
    seen: set[str] = set()
    work = [kernel]
    while work:
        fn = work.pop()
        for inst in fn.instructions():
            if not isinstance(inst, I.CallInst):
                continue
            callee = inst.called_function
            if callee is None:
                if not isinstance(inst.callee, V.InlineAsm):
                    raise Unsupported("non-uniform sub-group collective in a kernel that calls through a "
                                      "pointer: the reference cannot see where it waits")
                continue
            if callee.is_declaration:
                if fn is not kernel and _may_wait(callee.name):
                    raise Unsupported(f"non-uniform sub-group collective in a kernel whose helper function "
                                      f"'{fn.name}' calls '{callee.name}': the reference forms instances from "
                                      "the kernel's own call sites")
                continue
            if callee.name not in seen:
                seen.add(callee.name)
                work.append(callee)


def points_text(text: str, kernel: str) -> str:
    """`instrument`, with an input the IR reader cannot read refused
    (`Unsupported`) rather than run without its points."""
    if not needs_points(text):
        return text
    try:
        return instrument(text, kernel)
    except Unsupported:
        raise
    except Exception as exc:  # the reader or rewriter cannot handle it
        detail = " ".join(str(exc).split())[:200]
        raise Unsupported(f"non-uniform sub-group collective in a kernel the reference cannot instrument: "
                          f"{type(exc).__name__}: {detail}") from None


def instrument(text: str, kernel: str) -> str:
    """The module with the kernel counting its loops' iterations and naming
    its waiting points (see the module doc); `text` unchanged when it calls
    no collective whose members are the active work-items."""
    if not needs_points(text):
        return text
    mod = parse_module(text)
    fn = mod.get_function(kernel)
    if fn is None or fn.is_declaration or not _calls_active_members(fn):
        return text
    _check_helpers(mod, fn)
    loops = _Loops(fn)
    points: list[tuple[I.CallInst, int, int]] = []  # (call, block index, position)
    for bi, blk in enumerate(loops.blocks):
        for pos, inst in enumerate(blk.instructions):
            if isinstance(inst, I.CallInst) and inst.called_function is not None \
                    and inst.called_function.is_declaration and _may_wait(_callee_name(inst)):
                points.append((inst, bi, pos))
    if len(points) > MAX_POINTS:
        raise Unsupported(f"non-uniform sub-group collective in a kernel with more than {MAX_POINTS} "
                          "calls that may wait")
    table = _table(loops, points)
    _rewrite(mod, fn, loops, points, table)
    return print_module(mod)


def _table(loops: _Loops, points: list[tuple[I.CallInst, int, int]]) -> list[int]:
    """[NP, D, pair[P][s] for P, s, loop ids around s (D each, -1 padded), depth of s]."""
    n = len(points)
    chains = [loops.chain(b) for _, b, _ in points]
    depth = max([1, *map(len, chains)])
    out = [n, depth]
    for p, (_, pb, ppos) in enumerate(points):
        for s, (_, sb, spos) in enumerate(points):
            shared = 0
            while shared < min(len(chains[p]), len(chains[s])) and chains[p][shared] == chains[s][shared]:
                shared += 1
            straight = pb == sb and ppos < spos
            within = straight or loops.reaches(pb, sb, set(chains[s][:shared]))
            anyway = straight or loops.reaches(pb, sb, set())
            out.append(shared | int(within) << 8 | int(anyway) << 9)
    for c in chains:
        ids = [loops.loop_id[h] for h in c]
        out.extend(ids + [-1] * (depth - len(ids)))
    out.extend(len(c) for c in chains)
    return out


def _rewrite(mod: M.Module, fn: M.Function, loops: _Loops, points: list[tuple[I.CallInst, int, int]],
             table: list[int]) -> None:
    k = max(1, len(loops.headers))
    cty = T.ArrayType(T.i64, k)
    tty = T.ArrayType(T.i64, len(table))
    tab = M.GlobalVariable(TABLE, tty, V.ConstantArray(tty, [V.ConstantInt(T.i64, v) for v in table]),
                           linkage="private", is_constant=True)
    mod.add_global(tab)
    hook = mod.get_or_insert_function(HOOK, T.FunctionType(T.void, (T.i64, T.ptr, T.ptr)))
    b = Builder()
    b.position_before(fn.entry.first_non_phi)  # type: ignore[arg-type]
    ctrs = b.alloca(cty)
    b.store(V.ConstantAggregateZero(cty), ctrs, align=8)
    # Counters: a phi at each header (0 on entry edges, +1 on back edges).
    for h in loops.headers:
        hb = loops.blocks[h]
        lid = loops.loop_id[h]
        incs: dict[int, V.Value] = {}
        for t in set(loops.latches[h]):
            tb = loops.blocks[t]
            b.position_before(tb.terminator)  # type: ignore[arg-type]
            slot = b.gep(cty, ctrs, [0, lid])
            incs[t] = b.binop("add", b.load(T.i64, slot), V.ConstantInt(T.i64, 1))
        incoming = []
        for p in loops.preds[h]:
            pb = loops.blocks[p]
            v = incs[p] if p in loops.latches[h] else V.ConstantInt(T.i64, 0)
            for s in pb.successors:
                if s is hb:
                    incoming.append((v, pb))
        # Unreachable predecessors still need an entry.
        for p in hb.predecessors:
            if id(p) not in loops.index:
                for s in p.successors:
                    if s is hb:
                        incoming.append((V.ConstantInt(T.i64, 0), p))
        phis = hb.phis()
        if phis:
            b.position_before(phis[0])
        else:
            b.position_before(hb.instructions[0])
        phi = b.phi(T.i64, incoming)
        b.position_before(hb.first_non_phi)  # type: ignore[arg-type]
        b.store(phi, b.gep(cty, ctrs, [0, lid]))
    for p, (call, _, _) in enumerate(points):
        b.position_before(call)
        b.call(hook, [V.ConstantInt(T.i64, p), ctrs, tab])
