"""Reference computations for the CFG analyses, and the checks comparing
them with vectorizer/analysis/ (dominance, post_dominance, loops,
block_ordering, reachability).

Everything here is the textbook version, written over bitsets (Python
integers, bit `i` for the function's `i`-th block): dominators and
post-dominators by iterative set dataflow, transitive closure by iterating
unions to a fixed point, natural loops by the backward walk from each back
edge. Quadratic at worst, which is fine for checking kernels; nothing is
imported from the analyses being checked.
"""

from __future__ import annotations

from typing import Any

from .errors import AnalysisMismatch


def _label(block: Any) -> str:
    name = getattr(block, "name", None)
    return f"%{name}" if name else "<unnamed block>"


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class RefGraph:
    """The function's CFG as plain lists: blocks in function order, the
    entry first, successor and predecessor lists without duplicate edges."""

    def __init__(self, function: Any) -> None:
        self.function = function
        self.fname = getattr(function, "name", "?")
        self.blocks: list[Any] = list(function.blocks)
        index = {id(b): i for i, b in enumerate(self.blocks)}
        self.index = index
        n = len(self.blocks)
        self.succs: list[list[int]] = []
        self.preds: list[list[int]] = [[] for _ in range(n)]
        for i, b in enumerate(self.blocks):
            out: list[int] = []
            for s in b.successors:
                j = index[id(s)]
                if j not in out:
                    out.append(j)
                    self.preds[j].append(i)
            self.succs.append(out)
        self.n = n
        self.all = (1 << n) - 1
        # Reachable from the entry: a breadth-first search.
        seen = 1 if n else 0
        queue = [0] if n else []
        for v in queue:
            for s in self.succs[v]:
                if not seen >> s & 1:
                    seen |= 1 << s
                    queue.append(s)
        self.reachable = seen
        self._dom: list[int] | None = None
        self._closure: list[int] | None = None

    def name(self, v: int) -> str:
        return _label(self.blocks[v])

    def is_reachable(self, v: int) -> bool:
        return bool(self.reachable >> v & 1)

    # ---------------------------------------------------------- dominators

    def dominators(self) -> list[int]:
        """dom[v]: the set of blocks dominating v (0 for unreachable blocks)."""
        if self._dom is None:
            n, reach = self.n, self.reachable
            dom = [reach if reach >> v & 1 else 0 for v in range(n)]
            if n:
                dom[0] = 1
            changed = True
            while changed:
                changed = False
                for v in range(1, n):
                    if not reach >> v & 1:
                        continue
                    meet = reach
                    for p in self.preds[v]:
                        if reach >> p & 1:
                            meet &= dom[p]
                    new = meet | 1 << v
                    if new != dom[v]:
                        dom[v] = new
                        changed = True
            self._dom = dom
        return self._dom

    def dominates(self, a: int, b: int) -> bool:
        return bool(self.dominators()[b] >> a & 1)

    def closure(self, blocked: int = 0) -> list[int]:
        """reach[v]: blocks at the end of a non-empty path from v, the paths
        never leaving a block of `blocked` (they may end at one)."""
        if blocked == 0 and self._closure is not None:
            return self._closure
        succs = [0 if blocked >> v & 1 else sum(1 << s for s in self.succs[v]) for v in range(self.n)]
        reach = list(succs)
        changed = True
        while changed:
            changed = False
            for v in range(self.n):
                acc = reach[v]
                for s in _bits(reach[v]):
                    acc |= reach[s]
                if acc != reach[v]:
                    reach[v] = acc
                    changed = True
        if blocked == 0:
            self._closure = reach
        return reach


def _immediate(sets: list[int], v: int) -> int | None:
    """The strict (post-)dominator of v whose own set is one smaller: the immediate one."""
    strict = sets[v] & ~(1 << v)
    if not strict:
        return None
    want = bin(strict).count("1")
    for d in _bits(strict):
        if bin(sets[d]).count("1") == want:
            return d
    return None


def _guard(analysis: str, g: RefGraph, build: Any) -> Any:
    """Run the analysis under test; its own failure is a mismatch too."""
    try:
        return build()
    except AnalysisMismatch:
        raise
    except Exception as exc:  # noqa: BLE001 - any crash of the checked analysis is its defect
        raise AnalysisMismatch(analysis, g.fname, f"raised {type(exc).__name__}: {exc}") from exc


# ------------------------------------------------------------------ checks


def check_dominators(g: RefGraph, dt: Any = None) -> Any:
    """DominatorTree (`dt`, or one built now) vs iterative set dataflow; returns the tree."""
    from ..analysis.dominance import DominatorTree

    if dt is None:
        dt = _guard("DominatorTree", g, lambda: DominatorTree(g.function))
    dom = g.dominators()
    for v, b in enumerate(g.blocks):
        reach = g.is_reachable(v)
        got_reach = _guard("DominatorTree", g, lambda b=b: dt.is_reachable(b))
        if got_reach != reach:
            raise AnalysisMismatch("DominatorTree", g.fname,
                                   f"{g.name(v)} is {'' if got_reach else 'not '}in the tree, "
                                   f"but it is {'' if reach else 'un'}reachable")
        want = _immediate(dom, v) if reach else None
        got = _guard("DominatorTree", g, lambda b=b: dt.idom(b))
        if (got is None) != (want is None) or got is not None and got is not g.blocks[want]:
            raise AnalysisMismatch("DominatorTree", g.fname,
                                   f"idom({g.name(v)}) is {_label(got) if got is not None else 'None'}, "
                                   f"expected {g.name(want) if want is not None else 'None'}")
    return dt


def check_post_dominators(g: RefGraph, pdt: Any = None) -> None:
    """PostDominatorTree vs set dataflow on the reversed CFG, with a virtual
    exit after every exit block and one block of every infinite loop (its
    documented conventions; which block of an infinite loop is the
    analysis' choice, checked only to be one per loop that cannot be left)."""
    from ..analysis.post_dominance import VIRTUAL_EXIT, PostDominatorTree

    name = "PostDominatorTree"
    if pdt is None:
        pdt = _guard(name, g, lambda: PostDominatorTree(g.function))
    n = g.n
    exits = [v for v in range(n) if not g.succs[v]]
    got_exits = _guard(name, g, lambda: [g.index.get(id(b)) for b in pdt.exit_blocks])
    if got_exits != exits:
        raise AnalysisMismatch(name, g.fname, f"exit blocks {[g.name(v) for v in got_exits if v is not None]}, "
                               f"expected {[g.name(v) for v in exits]}")
    # Blocks that reach an exit: a backward search.
    reaches = sum(1 << e for e in exits)
    work = list(exits)
    while work:
        v = work.pop()
        for p in g.preds[v]:
            if not reaches >> p & 1:
                reaches |= 1 << p
                work.append(p)
    fake = _guard(name, g, lambda: [g.index.get(id(b)) for b in pdt.fake_exit_blocks])
    closure = g.closure()
    stuck = g.all & ~reaches
    fake_set = 0
    for f in fake:
        if f is None or reaches >> f & 1:
            raise AnalysisMismatch(name, g.fname, f"{g.name(f) if f is not None else 'a foreign block'} "
                                   "is a fake exit, but it reaches a real exit")
        fake_set |= 1 << f
    for v in _bits(stuck):
        # v's component is terminal when everything v reaches reaches v back.
        comp = closure[v] | 1 << v
        if all(closure[u] >> v & 1 for u in _bits(comp) if u != v) and (comp == 1 << v or closure[v] >> v & 1):
            members = comp & fake_set
            if bin(members).count("1") != 1:
                raise AnalysisMismatch(name, g.fname, f"the infinite loop of {g.name(v)} has "
                                       f"{bin(members).count('1')} fake exit blocks, expected 1")
    for f in fake:
        comp = closure[f] | 1 << f
        if not all(closure[u] >> f & 1 for u in _bits(comp) if u != f):
            raise AnalysisMismatch(name, g.fname, f"fake exit {g.name(f)} is in a cycle that can be left")
    roots = exits + fake
    virtual = not (len(exits) == 1 and not fake)
    got_virtual = _guard(name, g, lambda: pdt.has_virtual_exit)
    if got_virtual != virtual:
        raise AnalysisMismatch(name, g.fname, f"has_virtual_exit is {got_virtual}, expected {virtual}")
    # Node n is the virtual exit.
    x = n
    full = (1 << (n + 1)) - 1
    out: list[list[int]] = [list(s) for s in g.succs] + [[]]
    if virtual:
        for r in roots:
            out[r].append(x)
        pdom = [full] * n + [1 << x]
        fixed = {x}
    else:
        pdom = [full] * (n + 1)
        pdom[exits[0]] = 1 << exits[0]
        pdom[x] = 0
        fixed = {exits[0]}
    changed = True
    while changed:
        changed = False
        for v in range(n - 1, -1, -1):
            if v in fixed:
                continue
            meet = full
            for s in out[v]:
                meet &= pdom[s]
            new = meet | 1 << v
            if new != pdom[v]:
                pdom[v] = new
                changed = True
    root = x if virtual else exits[0]
    for v, b in enumerate(g.blocks):
        want = None if v == root else _immediate(pdom, v)
        got = _guard(name, g, lambda b=b: pdt.ipdom(b))
        if want is None:
            ok = got is None
        elif want == x:
            ok = got is VIRTUAL_EXIT
        else:
            ok = got is g.blocks[want]
        if not ok:
            expected = "None" if want is None else "VIRTUAL_EXIT" if want == x else g.name(want)
            shown = "None" if got is None else "VIRTUAL_EXIT" if got is VIRTUAL_EXIT else _label(got)
            raise AnalysisMismatch(name, g.fname, f"ipdom({g.name(v)}) is {shown}, expected {expected}")


def natural_loops(g: RefGraph) -> dict[int, int]:
    """{header: member set} of the natural loops, back edges u->h being the
    reachable edges whose target dominates their source."""
    dom = g.dominators()
    loops: dict[int, int] = {}
    for u in range(g.n):
        if not g.is_reachable(u):
            continue
        for h in g.succs[u]:
            if not dom[u] >> h & 1:
                continue
            body = loops.get(h, 1 << h)
            work = [u] if not body >> u & 1 else []
            body |= 1 << u
            while work:
                v = work.pop()
                for p in g.preds[v]:
                    if g.is_reachable(p) and not body >> p & 1:
                        body |= 1 << p
                        work.append(p)
            loops[h] = body
    return loops


def _innermost(loops: dict[int, int], v: int) -> int | None:
    best = None
    for h, body in loops.items():
        if body >> v & 1 and (best is None or bin(body).count("1") < bin(loops[best]).count("1")):
            best = h
    return best


def _reducible(g: RefGraph) -> bool:
    """Reducible iff the reachable CFG without its back edges is acyclic (Kahn)."""
    dom = g.dominators()
    indeg = [0] * g.n
    fwd: list[list[int]] = [[] for _ in range(g.n)]
    for u in _bits(g.reachable):
        for s in g.succs[u]:
            if not dom[u] >> s & 1:
                fwd[u].append(s)
                indeg[s] += 1
    ready = [v for v in _bits(g.reachable) if indeg[v] == 0]
    done = 0
    while ready:
        v = ready.pop()
        done += 1
        for s in fwd[v]:
            indeg[s] -= 1
            if indeg[s] == 0:
                ready.append(s)
    return done == bin(g.reachable).count("1")


def check_loops(g: RefGraph, dt: Any, info: Any = None) -> None:
    """LoopInfo vs natural loops from back edges (members, latches, nesting,
    depth, innermost loop per block) and its irreducible regions vs the
    reachable CFG's strongly connected components with several entries."""
    from ..analysis.loops import LoopInfo

    name = "LoopInfo"
    if info is None:
        info = _guard(name, g, lambda: LoopInfo(g.function, dt))
    ref = natural_loops(g)

    def idx(b: Any) -> int:
        return g.index[id(b)]

    got: dict[int, Any] = {}
    for loop in _guard(name, g, lambda: info.loops):
        h = idx(loop.header)
        if h in got:
            raise AnalysisMismatch(name, g.fname, f"two loops with header {g.name(h)}")
        got[h] = loop
    if set(got) != set(ref):
        extra = sorted(set(got) - set(ref))
        missing = sorted(set(ref) - set(got))
        raise AnalysisMismatch(name, g.fname, f"loop headers: unexpected {[g.name(h) for h in extra]}, "
                               f"missing {[g.name(h) for h in missing]}")
    depth: dict[int, int] = {}
    for h in sorted(ref, key=lambda k: bin(ref[k]).count("1"), reverse=True):
        loop = got[h]
        members = sum(1 << idx(b) for b in loop.blocks)
        if members != ref[h]:
            diff = members ^ ref[h]
            raise AnalysisMismatch(name, g.fname, f"loop {g.name(h)}: {g.name(_bits(diff)[0])} is "
                                   f"{'wrongly ' if members & diff else 'not '}in it")
        latches = sorted(idx(b) for b in loop.latches)
        want_latches = sorted(u for u in _bits(ref[h]) if h in g.succs[u])
        if latches != want_latches:
            raise AnalysisMismatch(name, g.fname, f"loop {g.name(h)}: latches {[g.name(v) for v in latches]}, "
                                   f"expected {[g.name(v) for v in want_latches]}")
        # The parent: the smallest other loop containing this one.
        outer = [k for k in ref if k != h and ref[k] & ref[h] == ref[h]]
        parent = min(outer, key=lambda k: bin(ref[k]).count("1")) if outer else None
        got_parent = idx(loop.parent.header) if loop.parent is not None else None
        if got_parent != parent:
            raise AnalysisMismatch(name, g.fname, f"loop {g.name(h)}: parent "
                                   f"{g.name(got_parent) if got_parent is not None else 'None'}, "
                                   f"expected {g.name(parent) if parent is not None else 'None'}")
        depth[h] = 1 if parent is None else depth[parent] + 1
        if loop.depth != depth[h]:
            raise AnalysisMismatch(name, g.fname, f"loop {g.name(h)}: depth {loop.depth}, expected {depth[h]}")
    for v, b in enumerate(g.blocks):
        want = _innermost(ref, v)
        lp = info.loop_for(b)
        have = idx(lp.header) if lp is not None else None
        if have != want:
            raise AnalysisMismatch(name, g.fname, f"loop_for({g.name(v)}) is "
                                   f"{g.name(have) if have is not None else 'None'}, "
                                   f"expected {g.name(want) if want is not None else 'None'}")
    reducible = _reducible(g)
    if info.is_reducible != reducible:
        raise AnalysisMismatch(name, g.fname, f"is_reducible is {info.is_reducible}, expected {reducible}")
    if reducible:
        return
    # Top-level irreducible regions: the reachable SCCs with several entries.
    closure = g.closure()
    seen = 0
    want_regions: set[int] = set()
    for v in _bits(g.reachable):
        if seen >> v & 1:
            continue
        comp = 1 << v | sum(1 << u for u in _bits(closure[v] & g.reachable) if closure[u] >> v & 1)
        seen |= comp
        if comp == 1 << v and not closure[v] >> v & 1:
            continue
        entries = [u for u in _bits(comp)
                   if u == 0 or any(g.is_reachable(p) and not comp >> p & 1 for p in g.preds[u])]
        if len(entries) > 1:
            want_regions.add(comp)
    have_regions = {sum(1 << idx(b) for b in r.blocks) for r in info.irreducible_regions if r.depth == 0}
    if have_regions != want_regions:
        missing = sorted(want_regions - have_regions)
        shown = [g.name(_bits(m)[0]) for m in missing] or "none missing"
        raise AnalysisMismatch(name, g.fname, f"irreducible regions at depth 0 differ from the "
                               f"multi-entry cycles (missing the region of {shown})")


def check_block_ordering(g: RefGraph, order_of: Any = None) -> None:
    """`dominance_compact_order` vs its documented invariants: each reachable
    block once (from the entry; unreachable blocks left out), natural loops
    contiguous header first, dominance-compact within a loop (reducible
    CFGs), forward edges. `order_of()` gives the order (default: computed now)."""
    from ..analysis.block_ordering import dominance_compact_order

    name = "dominance_compact_order"
    reach = [v for v in range(g.n) if g.is_reachable(v)]
    if order_of is None:
        order = _guard(name, g, lambda: dominance_compact_order(g.function))
    else:
        order = order_of()
    pos_list = [g.index.get(id(b)) for b in order]
    if None in pos_list or len(set(pos_list)) != len(pos_list) or len(pos_list) != len(reach):
        raise AnalysisMismatch(name, g.fname, f"{len(pos_list)} entries ({len(set(pos_list) - {None})} "
                               f"distinct blocks) for {len(reach)} reachable blocks")
    if set(pos_list) != set(reach) or (pos_list and pos_list[0] != 0):
        raise AnalysisMismatch(name, g.fname, "the order is not the reachable blocks, from the entry")
    order_ix = {v: i for i, v in enumerate(pos_list)}
    loops = natural_loops(g)
    for h, body in loops.items():
        positions = sorted(order_ix[v] for v in _bits(body))
        if positions[0] != order_ix[h] or positions[-1] - positions[0] != len(positions) - 1:
            raise AnalysisMismatch(name, g.fname, f"loop {g.name(h)} is not contiguous, header first")
    if not _reducible(g):
        return
    dom = g.dominators()
    for b in reach:
        h = _innermost(loops, b)
        region = loops[h] if h is not None else g.reachable
        positions = sorted(order_ix[v] for v in reach if dom[v] >> b & 1 and region >> v & 1)
        if positions[0] != order_ix[b] or positions[-1] - positions[0] != len(positions) - 1:
            raise AnalysisMismatch(name, g.fname, f"the blocks {g.name(b)} dominates in its loop "
                                   "are not contiguous after it")
        for s in g.succs[b]:
            if not dom[b] >> s & 1 and order_ix[s] < order_ix[b]:
                raise AnalysisMismatch(name, g.fname, f"edge {g.name(b)} -> {g.name(s)} goes backward "
                                       "but is not a back edge")


MAX_REACHABILITY_SOURCES = 16
"""Reachability is compared pair by pair from at most this many source
blocks (the first in function order; every block is still a target)."""


def check_reachability(g: RefGraph, build: Any = None) -> None:
    """Reachability (free, and with a join block blocked as BOSCC asks) vs
    the transitive closure. `build(blocked_blocks)` makes the analysis
    (default: `Reachability(function, blocked)`)."""
    from ..analysis.reachability import Reachability

    name = "Reachability"
    if not g.n:
        return
    joins = [v for v in range(g.n) if len(g.preds[v]) > 1]
    make = build or (lambda bs: Reachability(g.function, bs))
    for blocked in ([], joins[:1]):
        mask = sum(1 << v for v in blocked)
        reach = _guard(name, g, lambda blocked=blocked: make([g.blocks[v] for v in blocked]))
        closure = g.closure(mask)
        for a in range(min(g.n, MAX_REACHABILITY_SOURCES)):
            row = closure[a]
            for c in range(g.n):
                got = reach.reaches(g.blocks[a], g.blocks[c])
                if got != bool(row >> c & 1):
                    how = f" with {g.name(blocked[0])} blocked" if blocked else ""
                    raise AnalysisMismatch(name, g.fname, f"reaches({g.name(a)}, {g.name(c)}){how} is {got}, "
                                           f"expected {not got}")


def check_cfg_analyses(function: Any) -> None:
    """Every CFG analysis of `function` vs its reference."""
    g = RefGraph(function)
    if not g.n:
        return
    dt = check_dominators(g)
    check_post_dominators(g)
    check_loops(g, dt)
    check_block_ordering(g)
    check_reachability(g)
