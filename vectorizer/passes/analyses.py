"""The analyses the passes share through the AnalysisManager."""

from __future__ import annotations

from typing import Any

from ..analysis.stride import StrideAnalysis
from ..analysis.uniformity import UniformValueAnalysis
from ..pass_manager import Analysis, AnalysisManager
from .state import KernelState


class UniformValues(Analysis):
    """Uniform Value Analysis: which values are the same in every lane."""

    name = "UniformValueAnalysis"

    def compute(self, state: KernelState, am: AnalysisManager) -> UniformValueAnalysis:
        return UniformValueAnalysis(state.fn, state.request.dim)


class Strides(Analysis):
    """Stride Analysis: how addresses and linear values step from lane to lane."""

    name = "StrideAnalysis"

    def compute(self, state: KernelState, am: AnalysisManager) -> StrideAnalysis:
        uniform = am.get(UniformValues, state)
        if state.interleaved:
            return StrideAnalysis(uniform, state.layout, state.interleaved)
        return StrideAnalysis(uniform, state.layout)


class LoopBlocks(Analysis):
    """The blocks inside a loop (identities), for the instantiation choices."""

    name = "LoopInfo"

    def compute(self, state: KernelState, am: AnalysisManager) -> set[int]:
        from ..analysis.loops import LoopInfo

        info = LoopInfo(state.fn)
        return {id(b) for b in state.fn.blocks if info.loop_for(b) is not None}


def instantiation(state: KernelState, am: AnalysisManager) -> Any:
    """Instantiation Analysis for the request, built on first use and kept
    for the rest of the run (it holds the loop blocks it was given)."""
    if state.instantiation is None:
        from ..analysis.instantiation import InstantiationAnalysis

        state.instantiation = InstantiationAnalysis(
            state.request.dim,
            instantiate_calls_in_loops="InstantiateCallsInLoops" in state.request.choices,
            loop_blocks=am.get(LoopBlocks, state),
        )
    return state.instantiation
