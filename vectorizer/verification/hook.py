"""What `--verify-analyses` runs after each pass of one request.

The CFG analyses are checked whenever the function's CFG differs from the
one last checked (a fingerprint of blocks and edges), so a pass that only
edits instructions costs one walk over the blocks; the data layout once the
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
    return (id(function), tuple((id(b), tuple(id(s) for s in b.successors)) for b in blocks))


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
            check_cfg_analyses(fn)
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
