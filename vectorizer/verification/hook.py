"""What `--verify-analyses` runs after each pass of one request.

The CFG analyses are checked whenever the function's CFG differs from the
one last checked (a fingerprint of blocks and edges), so a pass that only
edits instructions costs one walk over the blocks, and only when that shape
(blocks, edges, names) has not passed the check before in this process with
the same analysis and reference code (`check_cfg_once`: the requests of one
kernel resume from the same prepared module); the data layout once the
module is prepared; the dead-code post-condition after `dead-code`;
Packetization Analysis after `choose-width` (with the analyses the
packetizer is about to use); block structure after every pass that changed
the function, with its phis against the predecessors (also after each
step a pass reports through `state.checkpoint`); the calls to
recursive functions across `builtin-inlining` (`before_pass` records them);
Uniform Value Analysis whenever the AnalysisManager computes it
(`computed`), while the IR is still the one it describes.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from types import ModuleType
from typing import Any

from .calls import check_recursive_calls_kept, recursive_calls
from .cfg import check_cfg_analyses
from .layout import check_data_layout
from .postconditions import (
    check_conversion_reported,
    check_no_dead_code,
    check_packetization_values,
    check_phis,
    check_terminators,
    check_uniformity,
    conditional_branches,
)


def _fingerprint(function: Any) -> tuple:
    blocks = function.blocks
    return (id(function), tuple((id(b), tuple(map(id, b.successors))) for b in blocks))


def _cfg_shape(function: Any) -> tuple | None:
    """Everything the CFG analyses read of `function` (their documented
    inputs: the blocks in order, the entry, each block's successors in
    terminator order), with blocks as positions; plus the block names, which
    their reports quote. None when an edge leaves the function (the check
    then reports it)."""
    blocks = list(function.blocks)
    index = {id(b): i for i, b in enumerate(blocks)}
    shape: list[tuple] = [(function.entry is blocks[0],) if blocks else (False,)]
    for b in blocks:
        succs = tuple(index.get(id(s), -1) for s in b.successors)
        if -1 in succs:
            return None
        shape.append((b.name, succs))
    return tuple(shape)


def _cfg_code() -> tuple[int, ...]:
    """The identity of the code a CFG check runs: every global of the CFG
    analyses' modules and of the references, and every attribute of their
    classes. Code replaced at run time (a test's monkeypatch) is new code,
    whose checks are not the ones remembered."""
    from ..analysis import block_ordering, dominance, loops, post_dominance, reachability
    from . import cfg

    out: list[int] = []
    modules: tuple[ModuleType, ...] = (dominance, post_dominance, loops, block_ordering, reachability, cfg)
    for mod in modules:
        for v in vars(mod).values():
            out.append(id(v))
            if isinstance(v, type) and v.__module__ == mod.__name__:
                out.extend(id(a) for a in vars(v).values())
    return tuple(out)


# CFG shapes whose analyses passed their check in this process, with the
# code they were checked against (`_cfg_code`). The CFG analyses are
# deterministic functions of the shape, so a shape checked once passes
# again: the requests of one kernel (several widths and dimensions, each a
# fresh parse of the same prepared module) are checked once. Bounded,
# least recently used first out.
_CHECKED_CFGS: OrderedDict[tuple, None] = OrderedDict()
MAX_CHECKED_CFGS = 1024
_CHECKED_LOCK = threading.Lock()


def check_cfg_once(function: Any) -> None:
    """`check_cfg_analyses`, unless this shape passed it already with the same code."""
    shape = _cfg_shape(function)
    key = (shape, _cfg_code()) if shape is not None else None
    if key is not None:
        with _CHECKED_LOCK:
            if key in _CHECKED_CFGS:
                _CHECKED_CFGS.move_to_end(key)
                return
    check_cfg_analyses(function)
    if key is not None:
        with _CHECKED_LOCK:
            _CHECKED_CFGS[key] = None
            while len(_CHECKED_CFGS) > MAX_CHECKED_CFGS:
                _CHECKED_CFGS.popitem(last=False)


class AnalysisVerifier:
    """Checks one request's analyses after each pass (`after_pass`); raises
    `AnalysisMismatch` at the first difference."""

    def __init__(self) -> None:
        self._cfg: tuple | None = None
        self._layout_checked = False
        self._branches: int | None = None
        self._recursive_calls: list[Any] | None = None

    def before_pass(self, pass_name: str, state: Any) -> None:
        """Record what the pass `pass_name` must keep."""
        if pass_name == "builtin-inlining":
            fn = state.current_function()
            self._recursive_calls = recursive_calls(fn, state.module) if fn is not None else None

    @staticmethod
    def after_step(step: str, state: Any) -> None:
        """Check the function where a pass's step (`state.checkpoint`) left it
        whole: its blocks and its phis (a step may leave the analyses stale)."""
        fn = state.current_function()
        if fn is not None:
            check_terminators(fn, step)
            check_phis(fn, step)

    def after_pass(self, pass_name: str, changed: bool, state: Any, am: Any) -> None:
        """Check what the pass `pass_name` may have broken, on `state`'s function."""
        fn = state.current_function()
        if fn is None or state.result_text is not None or fn.blocks is None or not list(fn.blocks):
            return
        if changed or self._cfg is None:
            check_terminators(fn, pass_name)
            check_phis(fn, pass_name)
        if pass_name == "builtin-inlining" and self._recursive_calls is not None:
            check_recursive_calls_kept(fn, self._recursive_calls, pass_name)
            self._recursive_calls = None
        fp = _fingerprint(fn)
        before = self._branches
        if fp != self._cfg:
            check_cfg_once(fn)
            self._cfg = fp
            self._branches = conditional_branches(fn)  # a function of the CFG alone
        if pass_name == "control-flow-conversion" and before is not None:
            check_conversion_reported(fn, before, state.conversion_stats)
        if state.layout is not None and not self._layout_checked:
            check_data_layout(state.module, fn, state.layout, state.datalayout)
            self._layout_checked = True
        if pass_name == "dead-code":
            check_no_dead_code(fn)
        if pass_name == "choose-width" and state.width is not None:
            self._check_packetization(state, am)

    @staticmethod
    def computed(analysis: Any, state: Any, result: Any) -> None:
        """Check an analysis the AnalysisManager just computed (the IR is as it describes)."""
        if analysis.name == "UniformValueAnalysis" and state.fn is not None:
            check_uniformity(state.fn, result, state.request.dim)

    @staticmethod
    def _check_packetization(state: Any, am: Any) -> None:
        from ..analysis.packetization import PacketizationAnalysis
        from ..passes.analyses import Strides, UniformValues, instantiation

        uniform = am.get(UniformValues, state)
        stride = am.get(Strides, state)
        packets = PacketizationAnalysis(state.fn, uniform, stride, instantiation(state, am))
        check_packetization_values(state.fn, packets)
