"""Reachability (seed, "Reachability Analysis"): answers "can control go from
block A to block B?" in constant time, for BOSCC's region checks.

The seed's structure (Veloso et al., accelerated with dominator trees) only
covers acyclic graphs and leaves back-edge traversal unhandled. Here the CFG
is first condensed into its strongly connected components (Tarjan), which
is a DAG whatever the loops, and every component gets the set of
components it reaches as a Python integer bitset, filled in reverse
topological order. So cyclic paths (through a loop's back edge) are
answered too, which is exactly the query BOSCC needs to reject a region a
back edge leads out of. Building it is O(V + E) bitset unions; it is a
utility built on demand, never kept across CFG edits (it would go stale).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .dominance import BlockGraph, strongly_connected_components

Block = Any


class Reachability:
    """Reachability between the blocks of a function, as its CFG is now.

    `blocked`: blocks paths may not pass *through* (they can still be
    reached, but nothing beyond them is reached via them), e.g. a region's
    exit when asking what a region reaches before it.
    """

    def __init__(self, function: Any, blocked: Iterable[Block] = ()) -> None:
        graph = BlockGraph(function)
        self._graph = graph
        stop = {graph.number(b) for b in blocked}
        n = len(graph)

        def succs(v: int) -> list[int]:
            return [] if v in stop else graph.succs[v]

        # Tarjan yields sinks first: every successor component is complete
        # before the components that reach it.
        comps = strongly_connected_components(range(n), succs)
        self._comp = [0] * n
        for ci, comp in enumerate(comps):
            for v in comp:
                self._comp[v] = ci
        self._reach: list[int] = [0] * len(comps)
        for ci, comp in enumerate(comps):
            bits = 1 << ci if len(comp) > 1 or any(v in succs(v) for v in comp) else 0
            for v in comp:
                for s in succs(v):
                    cs = self._comp[s]
                    if cs != ci:
                        bits |= (1 << cs) | self._reach[cs]
            self._reach[ci] = bits

    def reaches(self, a: Block, b: Block) -> bool:
        """Is there a non-empty path from `a` to `b`? (`a` reaches itself only on a cycle.)"""
        ca = self._comp[self._graph.number(a)]
        cb = self._comp[self._graph.number(b)]
        return bool(self._reach[ca] >> cb & 1)

    def reaches_any(self, a: Block, targets: Iterable[Block]) -> bool:
        """Does `a` reach one of `targets` by a non-empty path?"""
        return any(self.reaches(a, t) for t in targets)
