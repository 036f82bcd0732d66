"""Barrier Analysis: where the kernel's work-group barriers are, and which
varying branches OpenCL requires to be uniform at run time because of them.

OpenCL C 1.2 (6.12.8): "If barrier is inside a conditional statement, then
all work-items must enter the conditional if any work-item enters the
conditional statement and executes the barrier. If barrier is inside a loop,
all work-items must execute the barrier for each iteration of the loop
before any are allowed to continue execution beyond the barrier." A branch
on which a barrier depends in that way has the same outcome in every
work-item of the group, whatever the uniformity analysis can prove, in every
kernel whose behaviour is defined (and the oracle's reference reports the
others as barrier divergence, the input's fault).

A varying branch in block D is *barrier-uniform* when, for some barrier
block X and some successor S of D:
- every path from S reaches X before it comes back to D or leaves the
  function (X is certain once a work-item takes that edge; as for
  post-dominance, the kernel's loops are taken to end), and
- from every other successor, X cannot be reached without passing through D
  again (a work-item that does not take that edge skips that X), and
- every loop that contains D contains X, so passing through D again means a
  new execution of X (a barrier after a loop is reached by every work-item
  however often it went round: the loop's exit tells nothing).
A work-item taking the edge to S then executes X while one taking another
edge does not, which defined behaviour excludes: all take the same edge.
This covers a barrier inside an `if` and the exit branch of a loop whose
body holds a barrier. Anything weaker (the barrier nested under a second
varying branch, paths that may rejoin before X) is not claimed.

Reads the IR only.
"""

from __future__ import annotations

from ..builtins import BuiltinKind, classify
from ..ir import instructions as I
from ..ir import values as V
from .loops import LoopInfo
from .uniformity import UniformValueAnalysis


def is_barrier_call(inst: V.Value) -> bool:
    """A call of a work-group barrier (`barrier`, `work_group_barrier`, `__mux_work_group_barrier`)."""
    if not isinstance(inst, I.CallInst):
        return False
    fn = inst.called_function
    return fn is not None and classify(fn.name).kind is BuiltinKind.BARRIER


def barrier_calls(fn: V.Function) -> list[I.CallInst]:
    """The barrier calls of `fn`, in block order."""
    return [i for i in fn.instructions() if is_barrier_call(i)]


def _must_reach(target: V.BasicBlock, stop: V.BasicBlock, blocks: list[V.BasicBlock]) -> set[int]:
    """Blocks from which every path reaches `target` before `stop` or an exit
    (as post-dominance does, a path that loops forever does not count: the
    kernel's loops end). Computed as the complement of the blocks that can
    escape to `stop` or an exit without passing `target`."""
    preds: dict[int, list[V.BasicBlock]] = {id(b): [] for b in blocks}
    for b in blocks:
        for s in b.successors:
            preds.setdefault(id(s), []).append(b)
    escape = {id(b) for b in blocks if b is not target and (b is stop or not b.successors)}
    work = [b for b in blocks if id(b) in escape]
    while work:
        b = work.pop()
        for p in preds.get(id(b), []):
            if p is not target and id(p) not in escape:
                escape.add(id(p))
                work.append(p)
    return {id(b) for b in blocks if id(b) not in escape}


def _reaches_avoiding(start: V.BasicBlock, target: V.BasicBlock, avoid: V.BasicBlock) -> bool:
    if start is avoid:
        return False
    seen = {id(start)}
    work = [start]
    while work:
        b = work.pop()
        if b is target:
            return True
        for s in b.successors:
            if s is not avoid and id(s) not in seen:
                seen.add(id(s))
                work.append(s)
    return False


def branch_condition(block: V.BasicBlock) -> V.Value | None:
    """The condition of a block's conditional branch or switch."""
    term = block.terminator
    if isinstance(term, I.BranchInst) and term.is_conditional:
        return term.condition
    if isinstance(term, I.SwitchInst):
        return term.condition
    return None


def barrier_uniform_branches(fn: V.Function, uniform: UniformValueAnalysis) -> list[V.BasicBlock]:
    """Blocks ending in a varying branch that OpenCL requires to be uniform
    (see the module docstring), in block order."""
    barrier_blocks = []
    for b in fn.blocks:
        if any(is_barrier_call(i) for i in b.instructions):
            barrier_blocks.append(b)
    if not barrier_blocks:
        return []
    loops = LoopInfo(fn)
    out = []
    for d in fn.blocks:
        cond = branch_condition(d)
        if cond is None or not uniform.is_varying(cond):
            continue
        succs = list(dict.fromkeys(d.successors))
        if len(succs) < 2:
            continue
        candidates = [x for x in barrier_blocks if _in_every_loop_of(x, d, loops)]
        if any(_decides(d, s, x, succs, fn.blocks) for x in candidates for s in succs):
            out.append(d)
    return out


def _in_every_loop_of(x: V.BasicBlock, d: V.BasicBlock, loops: LoopInfo) -> bool:
    loop = loops.loop_for(d)
    while loop is not None:
        if not loop.contains(x):
            return False
        loop = loop.parent
    return True


def _decides(d: V.BasicBlock, s: V.BasicBlock, x: V.BasicBlock, succs: list[V.BasicBlock],
             blocks: list[V.BasicBlock]) -> bool:
    # X may be D itself: a barrier before a loop's exit branch in the same
    # block runs again on the edge back into the loop, and not on the exit.
    if id(s) not in _must_reach(x, d, blocks):
        return False
    return all(not _reaches_avoiding(o, x, d) for o in succs if o is not s)


def barriers_in_divergent_blocks(fn: V.Function, by_all: set[V.BasicBlock]) -> list[str]:
    """Remarks for barriers that control-flow conversion would have to mask
    (their block is not executed by all lanes): a packet must reach a
    barrier as one, so such a kernel is refused."""
    return sorted({
        f"barrier in block '{i.parent.name or '?'}' under varying control flow that no barrier makes uniform"
        for i in barrier_calls(fn)
        if i.parent not in by_all
    })
