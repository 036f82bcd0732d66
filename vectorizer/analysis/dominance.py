"""Dominator tree of a function's control flow graph.

Block `a` dominates block `b` when every path from the function entry to `b`
passes through `a`. The tree is computed with the Cooper-Harvey-Kennedy
iterative algorithm ("A Simple, Fast Dominance Algorithm") over a reverse
post-order numbering: it converges in two or three passes on the CFGs a
compiler meets, and its inner loop is plain list indexing, which is what
matters in Python. Dominance queries are then O(1) from the pre/post numbers
of a depth-first walk of the tree.

Conventions (LLVM's, so that code ported from Vecz reads the same):

- Only blocks reachable from the entry are in the tree. `idom` of an
  unreachable block is None and it has no children. Every block dominates an
  unreachable block (vacuously: there is no path to it), and an unreachable
  block dominates nothing else.
- `dominates` is reflexive, `properly_dominates` is not.
- Instructions are positions: in one block the earlier dominates the later.
  An instruction dominates a block when its own block properly dominates
  that block (the start of its own block comes before it); a block dominates
  an instruction when it dominates the instruction's block.
- `dominates_use` answers the SSA question "may this definition be used
  here", including the phi rule (the use sits at the end of the incoming
  block) and the rule that uses in unreachable code are always fine.

The analysis only reads the IR (`function.blocks`, `function.entry`,
`block.successors`, `block.instructions`, `inst.parent`), and is a snapshot
of the CFG: rebuild it after editing edges or blocks. Positions inside a
block are looked up on demand, so inserting or moving instructions (without
changing the CFG) keeps instruction queries correct.

Graph helpers shared by the other CFG analyses (`BlockGraph`,
`strongly_connected_components`, `post_order_numbers`) live here too, so the
post-dominator tree, loop info and block ordering all see one numbering of
the same graph.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

Block = Any
"""A basic block: anything with `successors`, `instructions` and `name`."""


class BlockGraph:
    """Integer view of a function's CFG.

    Blocks are numbered by their position in `function.blocks`; edges are the
    terminators' successors with duplicates removed (a conditional branch with
    both targets equal, or a switch with several cases to one block, is one
    edge for every CFG analysis). Predecessor lists are derived from the
    successor lists so both directions always agree, and are ordered by the
    predecessor's position in the function (deterministic).

    Blocks are keyed by identity (`id`), never by `__eq__`/`__hash__`, so the
    graph does not depend on how the IR classes define equality.
    """

    __slots__ = ("blocks", "entry", "preds", "succs", "_index")

    def __init__(self, function: Any) -> None:
        self.blocks: list[Block] = list(function.blocks)
        self._index: dict[int, int] = {id(b): i for i, b in enumerate(self.blocks)}
        self.succs: list[list[int]] = []
        self.preds: list[list[int]] = [[] for _ in self.blocks]
        index = self._index
        for i, b in enumerate(self.blocks):
            out: list[int] = []
            seen: set[int] = set()
            for s in b.successors:
                j = index.get(id(s))
                if j is None:
                    raise ValueError(
                        f"block {_name(b)} branches to {_name(s)}, which is not a block of the function"
                    )
                if j not in seen:
                    seen.add(j)
                    out.append(j)
                    self.preds[j].append(i)
            self.succs.append(out)
        entry = function.entry if hasattr(function, "entry") else self.blocks[0]
        if not self.blocks or self.blocks[0] is not entry:
            # The IR contract puts the entry first; anything else is a broken function.
            raise ValueError("function.entry must be function.blocks[0]")
        self.entry = 0

    def __len__(self) -> int:
        return len(self.blocks)

    def number(self, block: Block) -> int:
        """The block's number, or KeyError when it is not one of this function's blocks
        (for instance because it was added after the analysis was built)."""
        try:
            return self._index[id(block)]
        except KeyError:
            raise KeyError(
                f"{_name(block)} is not a block of the analysed function (stale analysis?)"
            ) from None

    def find(self, block: Block) -> int | None:
        """Like `number`, but None for an unknown block."""
        return self._index.get(id(block))


def _name(x: Any) -> str:
    name = getattr(x, "name", None)
    return f"%{name}" if name else repr(x)


def post_order_numbers(root: int, succs: Sequence[Sequence[int]]) -> list[int]:
    """Post-order of the nodes reachable from `root`. Iterative, so a chain of
    thousands of blocks is fine.

    Successors are explored last to first, so that the *reverse* post-order
    lists a block's first successor before its second: the `then` side of a
    branch before the `else` side, a loop body before the loop's exit - the
    order the source was written in, which keeps linearized code readable."""
    visited = bytearray(len(succs))
    visited[root] = 1
    order: list[int] = []
    # Each stack entry is (node, index of the next successor to try, counting down).
    stack: list[tuple[int, int]] = [(root, len(succs[root]) - 1)]
    while stack:
        node, i = stack[-1]
        out = succs[node]
        while i >= 0 and visited[out[i]]:
            i -= 1
        if i >= 0:
            nxt = out[i]
            stack[-1] = (node, i - 1)
            visited[nxt] = 1
            stack.append((nxt, len(succs[nxt]) - 1))
        else:
            stack.pop()
            order.append(node)
    return order


def strongly_connected_components(
    nodes: Iterable[int], successors: Callable[[int], Iterable[int]]
) -> list[list[int]]:
    """Tarjan's algorithm, iteratively. `successors(n)` must only yield nodes of
    `nodes` (filter the edges in the callback). Components come out in reverse
    topological order of the condensation (sinks first); within a component,
    nodes are in the order Tarjan pops them. Deterministic for a given input order."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[int] = []
    result: list[list[int]] = []
    counter = 0
    for start in nodes:
        if start in index:
            continue
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        work: list[tuple[int, Any]] = [(start, iter(successors(start)))]
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(successors(nxt))))
                    advanced = True
                    break
                if nxt in on_stack and index[nxt] < low[node]:
                    low[node] = index[nxt]
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                if low[node] < low[parent]:
                    low[parent] = low[node]
            if low[node] == index[node]:
                component: list[int] = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == node:
                        break
                result.append(component)
    return result


class PositionCache:
    """Index of an instruction in its block, cached per block.

    Every lookup checks the cached answer against the block's current list and
    rebuilds the block's table when it is out of date, so instructions may be
    inserted or moved after an analysis was built (its CFG facts stay valid
    as long as no edge changes)."""

    __slots__ = ("_tables",)

    def __init__(self) -> None:
        # id(block) -> (the instructions list object, {id(inst): index})
        self._tables: dict[int, tuple[Any, dict[int, int]]] = {}

    def index(self, inst: Any, block: Block) -> int:
        insts = block.instructions
        cached = self._tables.get(id(block))
        if cached is not None and cached[0] is insts:
            i = cached[1].get(id(inst))
            if i is not None and i < len(insts) and insts[i] is inst:
                return i
        table = {id(x): i for i, x in enumerate(insts)}
        self._tables[id(block)] = (insts, table)
        i = table.get(id(inst))
        if i is None:
            raise KeyError(f"instruction {inst!r} is not in its parent block {_name(block)}")
        return i


class _TreeData:
    """A dominator tree over an integer graph: the part shared by the dominator
    and post-dominator trees (which runs it on the reversed CFG)."""

    __slots__ = ("idom", "children", "order", "order_index", "tin", "tout", "depth", "preds")

    def __init__(
        self, n: int, root: int, succs: Sequence[Sequence[int]], preds: Sequence[Sequence[int]]
    ) -> None:
        self.preds = preds
        po = post_order_numbers(root, succs)
        po_num = [-1] * n
        for i, v in enumerate(po):
            po_num[v] = i
        rpo = po[::-1]
        # Cooper-Harvey-Kennedy: refine idom guesses in RPO until nothing changes.
        # `idom[v] == -1` means "not processed yet" (or unreachable, forever).
        idom = [-1] * n
        idom[root] = root
        changed = True
        while changed:
            changed = False
            for v in rpo:
                if v == root:
                    continue
                new = -1
                for p in preds[v]:
                    if idom[p] == -1:
                        continue
                    if new == -1:
                        new = p
                        continue
                    # Intersect: walk the two fingers up the current tree until they meet.
                    a, b = p, new
                    while a != b:
                        while po_num[a] < po_num[b]:
                            a = idom[a]
                        while po_num[b] < po_num[a]:
                            b = idom[b]
                    new = a
                if idom[v] != new:
                    idom[v] = new
                    changed = True
        self.idom = idom
        self.order = rpo
        self.order_index = [-1] * n
        for i, v in enumerate(rpo):
            self.order_index[v] = i
        # Children in RPO of the graph: we visit nodes in RPO, so appending keeps that order.
        children: list[list[int]] = [[] for _ in range(n)]
        for v in rpo:
            if v != root:
                children[idom[v]].append(v)
        self.children = children
        # Pre/post numbers of a DFS of the tree: a dominates b iff
        # tin[a] <= tin[b] and tout[b] <= tout[a].
        tin = [-1] * n
        tout = [-1] * n
        depth = [-1] * n
        clock = 0
        depth[root] = 0
        stack: list[tuple[int, int]] = [(root, 0)]
        tin[root] = clock
        clock += 1
        while stack:
            node, i = stack[-1]
            kids = children[node]
            if i < len(kids):
                stack[-1] = (node, i + 1)
                kid = kids[i]
                tin[kid] = clock
                clock += 1
                depth[kid] = depth[node] + 1
                stack.append((kid, 0))
            else:
                stack.pop()
                tout[node] = clock
                clock += 1
        self.tin = tin
        self.tout = tout
        self.depth = depth

    def in_tree(self, v: int) -> bool:
        return self.tin[v] >= 0

    def dominates(self, a: int, b: int) -> bool:
        """Reflexive; LLVM's conventions for nodes outside the tree."""
        if a == b:
            return True
        tin = self.tin
        if tin[b] < 0:
            return True  # no path reaches b, so every node is on all of them
        if tin[a] < 0:
            return False
        return tin[a] <= tin[b] and self.tout[b] <= self.tout[a]

    def nearest_common(self, a: int, b: int) -> int:
        """Deepest common ancestor; both nodes must be in the tree."""
        depth, idom = self.depth, self.idom
        while depth[a] > depth[b]:
            a = idom[a]
        while depth[b] > depth[a]:
            b = idom[b]
        while a != b:
            a = idom[a]
            b = idom[b]
        return a

    def subtree_preorder(self, root: int) -> list[int]:
        out: list[int] = []
        stack = [root]
        children = self.children
        while stack:
            v = stack.pop()
            out.append(v)
            stack.extend(reversed(children[v]))
        return out

    def frontiers(self) -> list[list[int]]:
        """Dominance frontiers (Cooper-Harvey-Kennedy): for each join node, walk
        up from each predecessor to the join's idom, adding the join to every
        frontier on the way. Each frontier is in increasing order of the
        graph's RPO, so results are deterministic."""
        n = len(self.idom)
        idom, tin = self.idom, self.tin
        sets: list[set[int]] = [set() for _ in range(n)]
        root = self.order[0]
        for v in self.order:
            ps = [p for p in self.preds[v] if tin[p] >= 0]
            # A single predecessor is the idom itself: nothing to add. The root
            # has an implicit extra predecessor (the function's caller), so a
            # branch back to it makes it a join, and the walk goes up to the
            # root inclusive.
            if v != root and len(ps) < 2:
                continue
            stop = idom[v] if v != root else -1
            for p in ps:
                runner = p
                while runner != stop:
                    if v in sets[runner]:
                        break  # the rest of this walk was done from an earlier predecessor
                    sets[runner].add(v)
                    if runner == idom[runner]:
                        break  # reached the root
                    runner = idom[runner]
        key = self.order_index.__getitem__
        return [sorted(s, key=key) for s in sets]


class DominatorTree:
    """Dominator tree of `function` (blocks reachable from its entry).

    `reverse_post_order` is the CFG reverse post-order (successors visited in
    terminator order) that also orders every block's `children`.
    """

    def __init__(self, function: Any) -> None:
        self.function = function
        self.graph = BlockGraph(function)
        g = self.graph
        self._tree = _TreeData(len(g), g.entry, g.succs, g.preds)
        self._positions = PositionCache()
        self._frontiers: list[list[int]] | None = None

    # ----------------------------------------------------------------- blocks

    @property
    def entry(self) -> Block:
        return self.graph.blocks[self.graph.entry]

    @property
    def reverse_post_order(self) -> list[Block]:
        """Reachable blocks in CFG reverse post-order (entry first)."""
        blocks = self.graph.blocks
        return [blocks[i] for i in self._tree.order]

    def rpo_number(self, block: Block) -> int | None:
        """Position of `block` in `reverse_post_order`, None if unreachable."""
        i = self._tree.order_index[self.graph.number(block)]
        return i if i >= 0 else None

    def is_reachable(self, block: Block) -> bool:
        """Is there a path from the entry to `block`?"""
        return self._tree.in_tree(self.graph.number(block))

    def idom(self, block: Block) -> Block | None:
        """Immediate dominator; None for the entry and for unreachable blocks."""
        v = self.graph.number(block)
        t = self._tree
        if not t.in_tree(v) or v == self.graph.entry:
            return None
        return self.graph.blocks[t.idom[v]]

    def children(self, block: Block) -> list[Block]:
        """Blocks immediately dominated by `block`, in CFG reverse post-order."""
        blocks = self.graph.blocks
        return [blocks[c] for c in self._tree.children[self.graph.number(block)]]

    def depth(self, block: Block) -> int | None:
        """Depth in the tree (entry 0), None for unreachable blocks."""
        d = self._tree.depth[self.graph.number(block)]
        return d if d >= 0 else None

    def dfs_numbers(self, block: Block) -> tuple[int, int] | None:
        """(pre, post) numbers of the tree walk: a dominates b iff
        pre(a) <= pre(b) and post(b) <= post(a). None when unreachable."""
        v = self.graph.number(block)
        t = self._tree
        return (t.tin[v], t.tout[v]) if t.in_tree(v) else None

    def dominated_blocks(self, block: Block) -> list[Block]:
        """`block` and everything it dominates, in tree pre-order (children in
        RPO). Empty for an unreachable block."""
        v = self.graph.number(block)
        if not self._tree.in_tree(v):
            return []
        blocks = self.graph.blocks
        return [blocks[i] for i in self._tree.subtree_preorder(v)]

    def preorder(self) -> list[Block]:
        """All reachable blocks in dominator-tree pre-order, children in RPO."""
        return self.dominated_blocks(self.entry)

    def nearest_common_dominator(self, a: Block, b: Block) -> Block | None:
        """The deepest block dominating both. An unreachable argument is
        dominated by everything, so the other one is returned; None if both
        are unreachable."""
        g, t = self.graph, self._tree
        x, y = g.number(a), g.number(b)
        if not t.in_tree(x):
            return b if t.in_tree(y) else None
        if not t.in_tree(y):
            return a
        return g.blocks[t.nearest_common(x, y)]

    def dominance_frontier(self, block: Block) -> list[Block]:
        """Blocks where `block`'s dominance ends: successors of blocks it
        dominates that it does not strictly dominate (where SSA needs phis)."""
        if self._frontiers is None:
            self._frontiers = self._tree.frontiers()
        blocks = self.graph.blocks
        return [blocks[i] for i in self._frontiers[self.graph.number(block)]]

    def iterated_dominance_frontier(self, blocks: Iterable[Block]) -> list[Block]:
        """DF+ of a set of blocks (the phi placement set for definitions in
        `blocks`), in CFG reverse post-order."""
        if self._frontiers is None:
            self._frontiers = self._tree.frontiers()
        g = self.graph
        result: set[int] = set()
        work = [g.number(b) for b in blocks]
        while work:
            v = work.pop()
            for f in self._frontiers[v]:
                if f not in result:
                    result.add(f)
                    work.append(f)
        return [g.blocks[i] for i in sorted(result, key=self._tree.order_index.__getitem__)]

    # ------------------------------------------------------------ positions

    def _locate(self, x: Any) -> tuple[int, Any]:
        """(block number, instruction or None) for a block or an instruction."""
        g = self.graph
        v = g.find(x)
        if v is not None:
            return v, None
        parent = getattr(x, "parent", None)
        if parent is not None:
            v = g.find(parent)
            if v is not None:
                return v, x
        raise TypeError(f"{x!r} is neither a block nor an instruction of the analysed function")

    def dominates(self, a: Any, b: Any) -> bool:
        """Does position `a` dominate position `b`? Each is a block or an
        instruction (see the module docstring for the mixed cases). Reflexive."""
        va, ia = self._locate(a)
        vb, ib = self._locate(b)
        if va != vb:
            return self._tree.dominates(va, vb)
        if ia is None:
            return True  # a block dominates itself and its own instructions
        if ib is None:
            # An instruction does not dominate the start of its own block, except
            # in unreachable code, where everything dominates.
            return not self._tree.in_tree(vb)
        if ia is ib or not self._tree.in_tree(vb):
            return True
        g = self.graph
        return self._positions.index(ia, g.blocks[va]) < self._positions.index(ib, g.blocks[vb])

    def properly_dominates(self, a: Any, b: Any) -> bool:
        """`dominates(a, b)` and `a` is not `b`."""
        return a is not b and self.dominates(a, b)

    def dominates_use(
        self, definition: Any, user: Any, incoming_block: Block | None = None
    ) -> bool:
        """May `user` (an instruction) use the value `definition`?

        Values that are not instructions of this function (arguments,
        constants, globals, blocks) dominate every use. A use in unreachable
        code is always allowed; an unreachable definition dominates no
        reachable use; an instruction never dominates a use in itself. For a
        phi operand pass `incoming_block`: the use then sits at the end of
        that block, after its terminator."""
        g = self.graph
        parent = getattr(definition, "parent", None)
        if g.find(definition) is not None or parent is None or g.find(parent) is None:
            return True
        vd = g.number(parent)
        if incoming_block is not None:
            vu = g.number(incoming_block)
            if not self._tree.in_tree(vu):
                return True
            if vd == vu:
                return self._tree.in_tree(vd)  # anything in the block precedes its end
            return self._tree.dominates(vd, vu)
        vu, iu = self._locate(user)
        if iu is None:
            raise TypeError("dominates_use needs an instruction as the user")
        if not self._tree.in_tree(vu):
            return True
        if definition is user or not self._tree.in_tree(vd):
            return False
        if vd != vu:
            return self._tree.dominates(vd, vu)
        block = g.blocks[vd]
        return self._positions.index(definition, block) < self._positions.index(user, block)
