"""Post-dominator tree: block `a` post-dominates `b` when every path from `b`
to the function's exit passes through `a`.

It is the dominator tree of the reversed CFG, rooted at the exit. A function
has one exit only in the simple case (a single block without successors, i.e.
a single `ret` or `unreachable`); otherwise the root is `VIRTUAL_EXIT`, a
sentinel node standing for "the function has finished", which every exit
block branches to:

- several `ret` / `unreachable` blocks: each is a child of the virtual exit;
- blocks that can never reach an exit (infinite loops): for every
  "terminal" strongly connected component of them (one that cannot leave),
  the component's last block in CFG reverse post-order - for a loop, a latch
  - is treated as if it also branched to the virtual exit. This is LLVM's
  trick too: it keeps the joins inside an infinite loop (an `if` in a
  `while (1)` still has its join block as post-dominator) and it makes every
  block part of the tree. Those blocks are reported as `fake_exit_blocks`.

The virtual exit is present whenever the root is not a single real exit
block, including when no exit is reachable at all. `ipdom` returns it like a
block; `post_dominates(VIRTUAL_EXIT, x)` is always True.

Unlike the dominator tree, the post-dominator tree covers every block of the
function, also those unreachable from the entry: they still flow to an exit.

Mixed block/instruction queries mirror `DominatorTree`: in one block the
later instruction post-dominates the earlier one; an instruction
post-dominates a block when its own block properly post-dominates that block;
a block post-dominates an instruction when it post-dominates the
instruction's block.
"""

from __future__ import annotations

from typing import Any

from .dominance import (
    Block,
    BlockGraph,
    PositionCache,
    _TreeData,
    post_order_numbers,
    strongly_connected_components,
)


class _VirtualExit:
    """Type of the `VIRTUAL_EXIT` singleton."""

    __slots__ = ()
    name = "<virtual exit>"

    def __repr__(self) -> str:
        return "VIRTUAL_EXIT"

    def __reduce__(self) -> str:
        return "VIRTUAL_EXIT"  # pickles/copies as the singleton


VIRTUAL_EXIT = _VirtualExit()
"""The root of a post-dominator tree whose function has no single exit block.
It is not a block: it has no instructions and is never in the IR."""


class PostDominatorTree:
    """Post-dominator tree of `function`; see the module docstring."""

    def __init__(self, function: Any) -> None:
        self.function = function
        self.graph = BlockGraph(function)
        g = self.graph
        n = len(g)
        exits = [i for i in range(n) if not g.succs[i]]
        fake = self._fake_exits(exits)
        self._exits = exits
        self._fake = fake
        roots = exits + fake
        # Node n is the virtual exit. Reversed graph: "successors" are CFG
        # predecessors; "predecessors" are CFG successors (plus the virtual exit).
        rsuccs: list[list[int]] = [list(p) for p in g.preds]
        rpreds: list[list[int]] = [list(s) for s in g.succs]
        rsuccs.append([])
        rpreds.append([])
        if len(exits) == 1 and not fake:
            self._virtual = False
            root = exits[0]
        else:
            self._virtual = True
            root = n
            rsuccs[n] = sorted(roots)
            for r in roots:
                rpreds[r].append(n)
        self._root = root
        self._tree = _TreeData(n + 1, root, rsuccs, rpreds)
        self._frontiers: list[list[int]] | None = None
        self._positions = PositionCache()

    def _fake_exits(self, exits: list[int]) -> list[int]:
        """One representative per terminal SCC of the blocks that cannot reach an exit."""
        g = self.graph
        n = len(g)
        reaches = bytearray(n)
        work = list(exits)
        for e in exits:
            reaches[e] = 1
        while work:
            v = work.pop()
            for p in g.preds[v]:
                if not reaches[p]:
                    reaches[p] = 1
                    work.append(p)
        self._reaches = reaches
        stuck = [i for i in range(n) if not reaches[i]]
        if not stuck:
            return []
        # Stuck blocks only branch to stuck blocks, so their SCCs can be taken
        # on the whole graph restricted to them.
        comps = strongly_connected_components(stuck, lambda v: g.succs[v])
        comp_of = {}
        for ci, comp in enumerate(comps):
            for v in comp:
                comp_of[v] = ci
        # Forward RPO to pick "the bottom" of each component; unreachable
        # components fall back to function order.
        fwd = [-1] * n
        for i, v in enumerate(reversed(post_order_numbers(g.entry, g.succs))):
            fwd[v] = i
        fake: list[int] = []
        for ci, comp in enumerate(comps):
            if any(comp_of[s] != ci for v in comp for s in g.succs[v]):
                continue  # not terminal: it flows into another stuck component
            fake.append(max(comp, key=lambda v: (fwd[v], v)))
        return sorted(fake)

    # ---------------------------------------------------------------- helpers

    def _num(self, x: Any) -> int:
        if x is VIRTUAL_EXIT:
            if not self._virtual:
                raise KeyError("this post-dominator tree has no virtual exit")
            return len(self.graph)
        return self.graph.number(x)

    def _node(self, v: int) -> Any:
        return VIRTUAL_EXIT if v == len(self.graph) else self.graph.blocks[v]

    # ----------------------------------------------------------------- queries

    @property
    def root(self) -> Any:
        """The single exit block, or `VIRTUAL_EXIT`."""
        return self._node(self._root)

    @property
    def has_virtual_exit(self) -> bool:
        return self._virtual

    @property
    def exit_blocks(self) -> list[Block]:
        """Blocks without successors (`ret`, `unreachable`), in function order."""
        return [self.graph.blocks[i] for i in self._exits]

    @property
    def fake_exit_blocks(self) -> list[Block]:
        """Blocks of infinite loops attached to the virtual exit, in function order."""
        return [self.graph.blocks[i] for i in self._fake]

    def reaches_exit(self, block: Block) -> bool:
        """Can `block` reach a real exit (is it outside every infinite loop)?"""
        return bool(self._reaches[self.graph.number(block)])

    def ipdom(self, block: Any) -> Any:
        """Immediate post-dominator: a block, `VIRTUAL_EXIT`, or None for the root."""
        v = self._num(block)
        if v == self._root:
            return None
        return self._node(self._tree.idom[v])

    def children(self, node: Any) -> list[Any]:
        """Nodes immediately post-dominated by `node` (a block or `VIRTUAL_EXIT`),
        in reverse post-order of the reversed CFG."""
        return [self._node(c) for c in self._tree.children[self._num(node)]]

    def depth(self, node: Any) -> int:
        """Depth in the tree (root 0)."""
        return self._tree.depth[self._num(node)]

    def dfs_numbers(self, node: Any) -> tuple[int, int]:
        """(pre, post) numbers of the tree walk, for O(1) comparisons."""
        v = self._num(node)
        return self._tree.tin[v], self._tree.tout[v]

    def post_dominated_blocks(self, node: Any) -> list[Block]:
        """Blocks post-dominated by `node` (itself included, unless it is the
        virtual exit), in tree pre-order."""
        return [
            self._node(v)
            for v in self._tree.subtree_preorder(self._num(node))
            if v != len(self.graph)
        ]

    def nearest_common_post_dominator(self, a: Any, b: Any) -> Any:
        """Deepest node post-dominating both (possibly `VIRTUAL_EXIT`)."""
        return self._node(self._tree.nearest_common(self._num(a), self._num(b)))

    def post_dominance_frontier(self, block: Block) -> list[Block]:
        """Blocks whose branch decides whether `block` runs (control dependence):
        predecessors-side edges where `block`'s post-dominance ends."""
        if self._frontiers is None:
            self._frontiers = self._tree.frontiers()
        return [self._node(v) for v in self._frontiers[self._num(block)] if v != len(self.graph)]

    def _locate(self, x: Any) -> tuple[int, Any]:
        if x is VIRTUAL_EXIT:
            return self._num(x), None
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

    def post_dominates(self, a: Any, b: Any) -> bool:
        """Does position `a` post-dominate position `b`? Blocks, instructions or
        `VIRTUAL_EXIT`. Reflexive."""
        va, ia = self._locate(a)
        vb, ib = self._locate(b)
        if va != vb:
            return self._tree.dominates(va, vb)
        if ia is None:
            return True
        if ib is None:
            # The block as a whole is not post-dominated by one of its own
            # instructions: the instructions before it are not.
            return False
        if ia is ib:
            return True
        return self._positions.index(ia, self.graph.blocks[va]) > self._positions.index(
            ib, self.graph.blocks[vb]
        )

    def properly_post_dominates(self, a: Any, b: Any) -> bool:
        """`post_dominates(a, b)` and `a` is not `b`."""
        return a is not b and self.post_dominates(a, b)
