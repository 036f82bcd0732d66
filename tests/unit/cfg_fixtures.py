"""Hand-made CFGs for the CFG analysis tests, on a tiny duck-typed fake of the
IR (only what the analyses may rely on: `function.blocks`, `function.entry`,
`block.successors`, `block.predecessors`, `block.name`, `block.instructions`,
`inst.parent`), plus brute-force oracles and the ordering predicates.

The oracles follow the definitions literally (remove a block, see what is
still reachable) so that they share nothing with the algorithms under test.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from hypothesis import strategies as st


class FakeInst:
    def __init__(self, opcode: str, parent: FakeBlock, name: str | None = None) -> None:
        self.opcode = opcode
        self.parent = parent
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.opcode} in %{self.parent.name}>"


class FakeBlock:
    def __init__(self, name: str) -> None:
        self.name = name
        self.instructions: list[FakeInst] = []
        self.successors: list[FakeBlock] = []
        self.predecessors: list[FakeBlock] = []
        self.parent: FakeFunction | None = None

    def __repr__(self) -> str:
        return f"%{self.name}"


class FakeFunction:
    def __init__(self, blocks: list[FakeBlock]) -> None:
        self.blocks = blocks
        for b in blocks:
            b.parent = self

    @property
    def entry(self) -> FakeBlock:
        return self.blocks[0]

    def __getitem__(self, name: str) -> FakeBlock:
        for b in self.blocks:
            if b.name == name:
                return b
        raise KeyError(name)


def make_function(
    spec: Sequence[tuple[str, Sequence[str]]] | dict[str, Sequence[str]],
) -> FakeFunction:
    """Build a function from `[(block, [successor, ...]), ...]` (the first block is
    the entry). Each block gets two ordinary instructions and a terminator:
    `ret` with no successors, `br` with one or two, `switch` with more.
    Successor lists may repeat a block (like `br i1 %c, label %a, label %a`)."""
    items = list(spec.items()) if isinstance(spec, dict) else list(spec)
    blocks = {name: FakeBlock(name) for name, _ in items}
    for name, succs in items:
        b = blocks[name]
        b.successors = [blocks[s] for s in succs]
        b.instructions = [FakeInst("add", b, f"{name}.x"), FakeInst("mul", b, f"{name}.y")]
        term = "ret" if not succs else "br" if len(succs) <= 2 else "switch"
        b.instructions.append(FakeInst(term, b))
    for name, _ in items:
        for s in blocks[name].successors:
            if blocks[name] not in s.predecessors:
                s.predecessors.append(blocks[name])
    return FakeFunction([blocks[name] for name, _ in items])


def names(blocks: Iterable[object]) -> list[str]:
    return [getattr(b, "name", repr(b)) for b in blocks]


# --------------------------------------------------------------------- fixtures

FIXTURES: dict[str, list[tuple[str, list[str]]]] = {
    "single": [("entry", [])],
    "diamond": [("entry", ["a", "b"]), ("a", ["m"]), ("b", ["m"]), ("m", [])],
    "if_then": [("entry", ["then", "join"]), ("then", ["join"]), ("join", [])],
    "same_target_twice": [("entry", ["a", "a"]), ("a", [])],
    "nested_loops": [
        ("entry", ["h1"]),
        ("h1", ["h2", "exit"]),
        ("h2", ["b2"]),
        ("b2", ["h2", "l1"]),
        ("l1", ["h1"]),
        ("exit", []),
    ],
    # Exits to different blocks from the header and from the middle.
    "multi_exit": [
        ("entry", ["h"]),
        ("h", ["a", "x1"]),
        ("a", ["b", "x2"]),
        ("b", ["h"]),
        ("x1", ["ret"]),
        ("x2", ["ret"]),
        ("ret", []),
    ],
    # An exit block dominated by a loop block that precedes other loop blocks in
    # reverse post-order: a plain dominator-tree walk would put it inside the loop.
    "exit_inside_dom_subtree": [
        ("entry", ["h"]),
        ("h", ["a", "b"]),
        ("a", ["x", "l"]),
        ("b", ["l"]),
        ("x", ["xx"]),
        ("xx", []),
        ("l", ["h", "out"]),
        ("out", []),
    ],
    # A break out of two loops at once from the inner loop.
    "double_break": [
        ("entry", ["h1"]),
        ("h1", ["h2"]),
        ("h2", ["brk", "b2"]),
        ("brk", ["done", "b2"]),
        ("b2", ["h2", "l1"]),
        ("l1", ["h1", "done"]),
        ("done", ["end"]),
        ("end", []),
    ],
    "two_latches": [
        ("entry", ["h"]),
        ("h", ["a", "b"]),
        ("a", ["h"]),
        ("b", ["h", "exit"]),
        ("exit", []),
    ],
    "self_loop": [("entry", ["s"]), ("s", ["s", "exit"]), ("exit", [])],
    "multiple_returns": [
        ("entry", ["a", "b"]),
        ("a", []),
        ("b", ["c", "d"]),
        ("c", []),
        ("d", []),
    ],
    "infinite_loop": [("entry", ["h"]), ("h", ["body"]), ("body", ["h"])],
    "infinite_loop_with_if": [
        ("entry", ["h"]),
        ("h", ["a", "b"]),
        ("a", ["l"]),
        ("b", ["l"]),
        ("l", ["h"]),
    ],
    "infinite_loop_and_return": [
        ("entry", ["c"]),
        ("c", ["r", "spin"]),
        ("r", []),
        ("spin", ["spin"]),
    ],
    "unreachable_blocks": [
        ("entry", ["a"]),
        ("a", []),
        ("dead", ["a", "dead2"]),
        ("dead2", ["dead2", "dead"]),
        ("dead3", []),
    ],
    "irreducible": [
        ("entry", ["a", "b"]),
        ("a", ["b", "exit"]),
        ("b", ["a"]),
        ("exit", []),
    ],
    # An irreducible cycle {a, b} inside a natural loop headed by h.
    "irreducible_in_loop": [
        ("entry", ["h"]),
        ("h", ["a", "b"]),
        ("a", ["b", "l"]),
        ("b", ["a"]),
        ("l", ["h", "exit"]),
        ("exit", []),
    ],
    # A natural loop {n} inside an irreducible region {a, n, b}.
    "loop_in_irreducible": [
        ("entry", ["a", "b"]),
        ("a", ["n"]),
        ("n", ["n", "b"]),
        ("b", ["a", "exit"]),
        ("exit", []),
    ],
    "switch": [
        ("entry", ["a", "b", "c", "b"]),
        ("a", ["m"]),
        ("b", ["m"]),
        ("c", ["m"]),
        ("m", []),
    ],
}


def fixture(name: str) -> FakeFunction:
    return make_function(FIXTURES[name])


def chain(n: int, loop_back: bool = False) -> FakeFunction:
    """entry -> b1 -> ... -> b{n-1}; with `loop_back`, b{n-1} also branches back
    to b1 (one loop around everything but the entry) and on to `end`."""
    labels = ["entry"] + [f"b{i}" for i in range(1, n)]
    spec = [(labels[i], [labels[i + 1]] if i + 1 < n else []) for i in range(n)]
    if loop_back:
        spec[-1] = (labels[-1], [labels[1], "end"])
        spec.append(("end", []))
    return make_function(spec)


@st.composite
def random_cfgs(draw: st.DrawFn, max_blocks: int = 12) -> FakeFunction:
    """Random CFGs: any shape, including unreachable blocks, self loops,
    irreducible cycles, repeated successors and several exits."""
    n = draw(st.integers(1, max_blocks))
    spec = []
    for i in range(n):
        succs = draw(st.lists(st.integers(0, n - 1), max_size=3))
        spec.append((f"n{i}", [f"n{s}" for s in succs]))
    return make_function(spec)


@st.composite
def structured_cfgs(draw: st.DrawFn, max_depth: int = 3) -> FakeFunction:
    """Random reducible CFGs shaped like kernels: sequences of if/else, while
    and do-while loops, with conditional `break` out of one or several loops,
    `continue` and early `return`. These produce the multi-exit loops whose
    exits sit in the middle of the dominator tree."""
    spec: list[tuple[str, list[str]]] = []

    def block() -> int:
        spec.append((f"b{len(spec)}", []))
        return len(spec) - 1

    def edge(a: int, b: int) -> None:
        spec[a][1].append(spec[b][0])

    # loops: stack of (header, exit) block numbers.
    def body(cur: int, depth: int, loops: list[tuple[int, int]]) -> int:
        for _ in range(draw(st.integers(0, 3))):
            kind = draw(
                st.sampled_from(["if", "ifelse", "while", "dowhile", "break", "continue", "return"])
            )
            if kind in ("if", "ifelse") and depth < max_depth:
                then, join = block(), block()
                edge(cur, then)
                end = body(then, depth + 1, loops)
                edge(end, join)
                if kind == "ifelse":
                    other = block()
                    edge(cur, other)
                    edge(body(other, depth + 1, loops), join)
                else:
                    edge(cur, join)
                cur = join
            elif kind in ("while", "dowhile") and depth < max_depth:
                header, exit_ = block(), block()
                edge(cur, header)
                if kind == "while":
                    start = block()
                    edge(header, start)
                    edge(header, exit_)
                    latch = body(start, depth + 1, [*loops, (header, exit_)])
                    edge(latch, header)
                else:
                    latch = body(header, depth + 1, [*loops, (header, exit_)])
                    edge(latch, header)
                    edge(latch, exit_)
                cur = exit_
            elif kind == "break" and loops:
                k = draw(st.integers(1, len(loops)))
                cont = block()
                edge(cur, loops[-k][1])
                edge(cur, cont)
                cur = cont
            elif kind == "continue" and loops:
                cont = block()
                edge(cur, loops[-1][0])
                edge(cur, cont)
                cur = cont
            elif kind == "return":
                ret, cont = block(), block()
                edge(cur, ret)
                edge(cur, cont)
                cur = cont
        return cur

    entry = block()
    body(entry, 0, [])
    # Successor order is part of the shape: shuffle some of it.
    for i, (name, succs) in enumerate(spec):
        if len(succs) == 2 and draw(st.booleans()):
            spec[i] = (name, succs[::-1])
    return make_function(spec)


# ---------------------------------------------------------------------- oracles


def reachable(start: FakeBlock, removed: FakeBlock | None = None) -> set[int]:
    """ids of blocks reachable from `start` without entering `removed`."""
    if start is removed:
        return set()
    seen = {id(start)}
    work = [start]
    while work:
        b = work.pop()
        for s in b.successors:
            if s is not removed and id(s) not in seen:
                seen.add(id(s))
                work.append(s)
    return seen


def brute_dominates(fn: FakeFunction, a: FakeBlock, b: FakeBlock) -> bool:
    """Every path from the entry to b passes a (vacuous when b is unreachable)."""
    if a is b:
        return True
    return id(b) not in reachable(fn.entry, removed=a)


def brute_post_dominates(
    fn: FakeFunction, a: FakeBlock, b: FakeBlock, roots: Sequence[FakeBlock]
) -> bool:
    """Every path from b to the (virtual) exit passes a, where `roots` are the
    blocks that branch to the exit."""
    if a is b:
        return True
    # Can b reach a root and then the exit, avoiding a?
    seen = reachable(b, removed=a)
    return not any(id(r) in seen for r in roots if r is not a)


def brute_natural_loops(fn: FakeFunction) -> dict[str, set[str]]:
    """header name -> block names, from the back-edge definition."""
    live = reachable(fn.entry)
    loops: dict[str, set[str]] = {}
    for t in fn.blocks:
        if id(t) not in live:
            continue
        for h in t.successors:
            if not brute_dominates(fn, h, t):
                continue
            body = {h.name, t.name}
            work = [t] if t is not h else []
            while work:
                x = work.pop()
                for p in x.predecessors:
                    if id(p) in live and p.name not in body:
                        body.add(p.name)
                        work.append(p)
            loops.setdefault(h.name, set()).update(body)
    return loops


def brute_is_reducible(fn: FakeFunction) -> bool:
    """T1/T2 reduction of the reachable CFG: reducible iff it collapses to one node."""
    live = reachable(fn.entry)
    succ = {
        id(b): {id(s) for s in b.successors if id(s) in live} for b in fn.blocks if id(b) in live
    }
    entry = id(fn.entry)
    changed = True
    while changed:
        changed = False
        for v in list(succ):
            succ[v].discard(v)  # T1
        for v in list(succ):
            if v == entry:
                continue
            preds = [u for u in succ if v in succ[u]]
            if len(preds) == 1:  # T2: merge v into its only predecessor
                u = preds[0]
                succ[u].discard(v)
                succ[u] |= succ[v]
                del succ[v]
                changed = True
                break
    return len(succ) == 1


# ------------------------------------------------------------------- predicates


def contiguous(order: Sequence[FakeBlock], members: Iterable[FakeBlock]) -> bool:
    pos = {id(b): i for i, b in enumerate(order)}
    idx = sorted(pos[id(m)] for m in members)
    return not idx or idx[-1] - idx[0] + 1 == len(idx)


def loop_compact(order, loop_info) -> bool:
    """Every loop's blocks are contiguous and start with its header."""
    pos = {id(b): i for i, b in enumerate(order)}
    for loop in loop_info.loops:
        if not contiguous(order, loop.blocks):
            return False
        if min(pos[id(b)] for b in loop.blocks) != pos[id(loop.header)]:
            return False
    return True


def dominance_compact(order, domtree, loop_info) -> bool:
    """For every block b: b, then the blocks it dominates within b's innermost
    loop (all of them outside loops), form one contiguous run."""
    pos = {id(b): i for i, b in enumerate(order)}
    for b in order:
        loop = loop_info.loop_for(b)
        dom = [x for x in domtree.dominated_blocks(b) if loop is None or loop.contains(x)]
        if not contiguous(order, dom) or min(pos[id(x)] for x in dom) != pos[id(b)]:
            return False
    return True


def forward_edges_go_forward(order, domtree) -> bool:
    """Every edge except back edges (target dominates source) goes forward."""
    pos = {id(b): i for i, b in enumerate(order)}
    for b in order:
        for s in b.successors:
            if domtree.dominates(s, b):
                continue
            if pos[id(s)] <= pos[id(b)]:
                return False
    return True
