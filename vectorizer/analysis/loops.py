"""Natural loops, their nesting, and irreducible control flow.

A loop is LLVM's natural loop: a header `h` plus every block that can reach
a latch (a block with a back edge `latch -> h`, where `h` dominates the
latch) without passing through `h`. Back edges to the same header make one
loop with several latches. Loops nest: the loop of an inner header is a
sub-loop of every loop whose body contains it.

Irreducible control flow - a cycle that can be entered at more than one
block, so no block dominates it - is not a natural loop and is never
reported as one. `LoopInfo.irreducible_regions` lists each such cycle
(strongly connected region with several entries, found with the
Sreedhar-Gao-Lee style decomposition: take the strongly connected
components; a single-entry one is a loop, so drop the edges into its header
and look inside; a multi-entry one is irreducible, so report it, drop the
edges into all its entries and look inside). `LoopInfo.is_reducible` is True
when there is none. Natural loops inside or around an irreducible region are
still found as usual.

Only blocks reachable from the entry take part; unreachable blocks belong to
no loop. Orders are deterministic: `Loop.blocks` is in CFG reverse
post-order (header first), sub-loops and top-level loops are ordered by
their header's reverse post-order position.
"""

from __future__ import annotations

from typing import Any

from .dominance import Block, DominatorTree, _name, strongly_connected_components


class Loop:
    """One natural loop. Built by `LoopInfo`; read-only afterwards."""

    def __init__(self, info: LoopInfo, header: int) -> None:
        self._info = info
        self._header = header
        self._latches: list[int] = []
        # Block numbers; own blocks are filled during discovery, sub-loop blocks added after.
        self._members: set[int] = set()
        self._order: list[int] = []
        self.parent: Loop | None = None
        self.sub_loops: list[Loop] = []
        self.depth = 1
        self._exit_edges: list[tuple[int, int]] = []
        self._block_set: frozenset[Block] | None = None

    # ---------------------------------------------------------------- blocks

    @property
    def header(self) -> Block:
        return self._info._blocks[self._header]

    @property
    def latches(self) -> list[Block]:
        """Blocks with a back edge to the header, in the header's predecessor order."""
        return [self._info._blocks[i] for i in self._latches]

    @property
    def latch(self) -> Block | None:
        """The only latch, or None when there are several."""
        return self._info._blocks[self._latches[0]] if len(self._latches) == 1 else None

    @property
    def blocks(self) -> list[Block]:
        """All blocks of the loop (sub-loops included), in CFG reverse
        post-order, so the header comes first."""
        return [self._info._blocks[i] for i in self._order]

    @property
    def block_set(self) -> frozenset[Block]:
        if self._block_set is None:
            self._block_set = frozenset(self.blocks)
        return self._block_set

    def __len__(self) -> int:
        return len(self._order)

    def contains(self, x: Block | Loop) -> bool:
        """Is the block (or the whole loop) `x` inside this loop? A loop contains itself."""
        if isinstance(x, Loop):
            while x is not None:
                if x is self:
                    return True
                x = x.parent
            return False
        v = self._info._graph.find(x)
        return v is not None and v in self._members

    def _contains_num(self, v: int) -> bool:
        return v in self._members

    # ----------------------------------------------------------------- exits

    @property
    def exit_edges(self) -> list[tuple[Block, Block]]:
        """(exiting block, exit block) pairs, in loop block order then
        successor order."""
        b = self._info._blocks
        return [(b[s], b[t]) for s, t in self._exit_edges]

    @property
    def exiting_blocks(self) -> list[Block]:
        """Loop blocks with a successor outside the loop, in loop block order."""
        seen: list[int] = []
        for s, _ in self._exit_edges:
            if not seen or seen[-1] != s:
                seen.append(s)
        return [self._info._blocks[i] for i in seen]

    @property
    def exit_blocks(self) -> list[Block]:
        """Blocks outside the loop with a predecessor inside, each once, in
        order of their first exit edge."""
        seen: dict[int, None] = {}
        for _, t in self._exit_edges:
            seen.setdefault(t, None)
        return [self._info._blocks[i] for i in seen]

    @property
    def single_exit_block(self) -> Block | None:
        """The only exit block, or None if there are several (or none)."""
        exits = self.exit_blocks
        return exits[0] if len(exits) == 1 else None

    def is_latch(self, block: Block) -> bool:
        v = self._info._graph.find(block)
        return v is not None and v in self._latches

    def is_exiting(self, block: Block) -> bool:
        v = self._info._graph.find(block)
        return v is not None and any(s == v for s, _ in self._exit_edges)

    # ------------------------------------------------------------- outside

    def _outside_preds(self) -> list[int]:
        g = self._info._graph
        return [p for p in g.preds[self._header] if p not in self._members]

    @property
    def predecessor(self) -> Block | None:
        """The only block outside the loop that branches to the header (LLVM's
        loop predecessor), or None. Unreachable predecessors count: they would
        still need phi entries."""
        outside = self._outside_preds()
        return self._info._blocks[outside[0]] if len(outside) == 1 else None

    @property
    def preheader(self) -> Block | None:
        """The loop predecessor when its only successor is the header (a place
        to hoist code to), else None."""
        outside = self._outside_preds()
        if len(outside) != 1:
            return None
        p = outside[0]
        if self._info._graph.succs[p] != [self._header]:
            return None
        return self._info._blocks[p]

    def __repr__(self) -> str:
        names = ", ".join(_name(b) for b in self.blocks)
        return f"<Loop depth={self.depth} header={_name(self.header)} blocks=[{names}]>"


class IrreducibleRegion:
    """A cycle with several entry blocks (a strongly connected region that no
    single block dominates)."""

    def __init__(self, info: LoopInfo, members: list[int], entries: list[int], depth: int) -> None:
        self._info = info
        self._members = set(members)
        self._order = members
        self._entries = entries
        self.depth = depth
        """Nesting among irreducible regions and the loops they were found in (0 = outermost)."""

    @property
    def blocks(self) -> list[Block]:
        """Blocks of the region in CFG reverse post-order."""
        return [self._info._blocks[i] for i in self._order]

    @property
    def block_set(self) -> frozenset[Block]:
        return frozenset(self.blocks)

    @property
    def entries(self) -> list[Block]:
        """Region blocks with a predecessor outside it (or the function entry),
        in reverse post-order."""
        return [self._info._blocks[i] for i in self._entries]

    @property
    def parent_loop(self) -> Loop | None:
        """The innermost natural loop containing the whole region."""
        loop = self._info._block_loop.get(self._order[0])
        while loop is not None and not all(v in loop._members for v in self._order):
            loop = loop.parent
        return loop

    def contains(self, block: Block) -> bool:
        v = self._info._graph.find(block)
        return v is not None and v in self._members

    def __repr__(self) -> str:
        names = ", ".join(_name(b) for b in self.blocks)
        entries = ", ".join(_name(b) for b in self.entries)
        return f"<IrreducibleRegion entries=[{entries}] blocks=[{names}]>"


class LoopInfo:
    """Loop forest of a function, plus its irreducible regions."""

    def __init__(self, function: Any, domtree: DominatorTree | None = None) -> None:
        self.function = function
        if domtree is None:
            domtree = DominatorTree(function)
        elif domtree.function is not function:
            raise ValueError("the dominator tree belongs to another function")
        self.domtree = domtree
        self._graph = domtree.graph
        self._blocks = self._graph.blocks
        self._block_loop: dict[int, Loop] = {}
        self._loops: list[Loop] = []
        self._discover()
        self.irreducible_regions: list[IrreducibleRegion] = self._find_irreducible()

    # ------------------------------------------------------------- discovery

    def _discover(self) -> None:
        g = self._graph
        tree = self.domtree._tree
        rpo_index = tree.order_index
        block_loop = self._block_loop
        # Headers in post-order of the dominator tree: an inner header is
        # dominated by its outer header, so inner loops are complete before the
        # outer walk reaches them and can be attached as a whole.
        for h in reversed(tree.subtree_preorder(g.entry)):
            latches = [p for p in g.preds[h] if tree.in_tree(p) and tree.dominates(h, p)]
            if not latches:
                continue
            loop = Loop(self, h)
            loop._latches = latches
            block_loop[h] = loop
            loop._members.add(h)
            work = [p for p in latches if p != h]
            while work:
                v = work.pop()
                sub = block_loop.get(v)
                if sub is None:
                    block_loop[v] = loop
                    loop._members.add(v)
                    # Reachable predecessors of a block h dominates are dominated
                    # by h too, so this walk never leaves h's subtree.
                    work.extend(p for p in g.preds[v] if tree.in_tree(p))
                    continue
                while sub.parent is not None:
                    sub = sub.parent
                if sub is loop:
                    continue
                sub.parent = loop
                loop.sub_loops.append(sub)
                # Continue from the sub-loop's entries; its latches are inside it.
                work.extend(
                    p for p in g.preds[sub._header] if tree.in_tree(p) and p not in sub._members
                )
            self._loops.append(loop)
        # Now every loop has its own blocks; fold sub-loops in (inner ones first,
        # which is discovery order) and fix orders, depths and exits.
        for loop in self._loops:
            for sub in loop.sub_loops:
                loop._members |= sub._members
        key = rpo_index.__getitem__
        for loop in self._loops:
            loop._order = sorted(loop._members, key=key)
            loop.sub_loops.sort(key=lambda lp: rpo_index[lp._header])
            edges: list[tuple[int, int]] = []
            for v in loop._order:
                for s in g.succs[v]:
                    if s not in loop._members:
                        edges.append((v, s))
            loop._exit_edges = edges
        # Pre-order of the forest (siblings by header RPO), so parents precede
        # their sub-loops; sorting by header RPO alone would not keep each
        # loop next to its sub-loops.
        top = sorted(
            (lp for lp in self._loops if lp.parent is None), key=lambda lp: rpo_index[lp._header]
        )
        preorder: list[Loop] = []
        stack = list(reversed(top))
        while stack:
            loop = stack.pop()
            preorder.append(loop)
            if loop.parent is not None:
                loop.depth = loop.parent.depth + 1
            stack.extend(reversed(loop.sub_loops))
        self._loops = preorder

    def _find_irreducible(self) -> list[IrreducibleRegion]:
        g = self._graph
        tree = self.domtree._tree
        rpo_index = tree.order_index
        reachable = list(tree.order)
        entry = g.entry
        # Fast path (Hecht-Ullman): the CFG is reducible iff every retreating
        # edge of a depth-first search - an edge that does not go forward in
        # its reverse post-order - is a back edge. That is one O(1) dominance
        # test per edge; the decomposition below only runs when it fails.
        if all(
            rpo_index[s] > rpo_index[v] or tree.dominates(s, v)
            for v in reachable
            for s in g.succs[v]
        ):
            return []
        regions: list[IrreducibleRegion] = []
        # Work items: (node set, nodes whose incoming edges are cut, depth).
        work: list[tuple[set[int], set[int], int]] = [(set(reachable), set(), 0)]
        while work:
            nodes, cut, depth = work.pop()
            ordered = sorted(nodes, key=rpo_index.__getitem__)

            def succ(v: int, nodes: set[int] = nodes, cut: set[int] = cut) -> list[int]:
                return [s for s in g.succs[v] if s in nodes and s not in cut]

            for comp in strongly_connected_components(ordered, succ):
                if len(comp) == 1:
                    v = comp[0]
                    if v not in succ(v):
                        continue  # not a cycle
                members = set(comp)
                entries = sorted(
                    (
                        v
                        for v in members
                        if v == entry
                        or any(tree.in_tree(p) and p not in members for p in g.preds[v])
                    ),
                    key=rpo_index.__getitem__,
                )
                if len(entries) > 1:
                    regions.append(
                        IrreducibleRegion(
                            self, sorted(members, key=rpo_index.__getitem__), entries, depth
                        )
                    )
                work.append((members, set(entries), depth + 1))
        regions.sort(key=lambda r: (rpo_index[r._order[0]], r.depth))
        return regions

    # ---------------------------------------------------------------- queries

    @property
    def is_reducible(self) -> bool:
        """True when every cycle of the reachable CFG is a natural loop."""
        return not self.irreducible_regions

    @property
    def loops(self) -> list[Loop]:
        """Every loop, outer before inner (pre-order of the loop forest by header RPO)."""
        return list(self._loops)

    def loops_innermost_first(self) -> list[Loop]:
        """Every loop, each after all of its sub-loops."""
        return list(reversed(self._loops))

    @property
    def top_level_loops(self) -> list[Loop]:
        return [lp for lp in self._loops if lp.parent is None]

    def loop_for(self, block: Block) -> Loop | None:
        """Innermost loop containing `block` (None outside loops or unreachable)."""
        v = self._graph.find(block)
        return None if v is None else self._block_loop.get(v)

    def loop_depth(self, block: Block) -> int:
        """Number of loops containing `block`."""
        loop = self.loop_for(block)
        return 0 if loop is None else loop.depth

    def is_loop_header(self, block: Block) -> bool:
        loop = self.loop_for(block)
        return loop is not None and loop.header is block

    def _loop_of(self, v: int) -> Loop | None:
        return self._block_loop.get(v)
