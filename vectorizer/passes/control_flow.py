"""Stage 2, control flow: barrier-uniform branches, then control-flow
conversion (divergent branches become masks). Conversion ends with LLVM's
SROA on the function (the second crossing) when it changed anything."""

from __future__ import annotations

from ..ir import parse_module
from ..pass_manager import Pass, PassResult
from .analyses import UniformValues
from .state import KernelState


class BarrierUniformBranches(Pass):
    """A barrier under a varying branch makes that branch uniform at run time
    (OpenCL requires it): branch on "any lane" so the packet reaches the
    barrier as one."""

    name = "barrier-uniform-branches"
    summary = "branches a barrier makes uniform branch on 'any lane'"
    requires = (UniformValues,)

    def run(self, state: KernelState, am) -> PassResult:
        from ..transform.barrier_uniform_branches import make_barrier_branches_uniform
        from ..transform.vector_predication import entry_mask_builder

        request = state.request
        count, refusals = make_barrier_branches_uniform(
            state.fn, state.module, am.get(UniformValues, state),
            entry_mask_builder(state.module, request.dim) if "VectorPredication" in request.choices else None,
        )
        if refusals:
            state.refuse(*refusals)
            return PassResult(changed=bool(count), stop=True)
        return PassResult(changed=bool(count))


class ControlFlowConversion(Pass):
    """Simplify infinite loops, ROSCC or BOSCC, then linearize divergent
    control flow with masks; the module comes back from LLVM's SROA."""

    name = "control-flow-conversion"
    summary = "divergent branches become masks (ROSCC/BOSCC first); LLVM: sroa (printed, run, re-read)"
    requires = (UniformValues,)

    def run(self, state: KernelState, am) -> PassResult:
        from ..transform.control_flow_conversion import convert_control_flow

        choices = state.request.choices
        converted = convert_control_flow(
            state.module, state.fn, am.get(UniformValues, state), state.request.dim,
            vector_predication="VectorPredication" in choices,
            roscc="LinearizeBOSCC" not in choices,
            boscc="LinearizeBOSCC" in choices,
            checkpoint=state.checkpoint,
        )
        state.outcome.remarks.extend(converted.remarks)
        if converted.invalid_ir is not None:
            # Like every other crossing to LLVM: invalid IR of ours is a
            # defect to report (the oracle's `vectorizer-error`), not a
            # refusal that would pass for a missing feature.
            from ..pipeline import VectorizerBug

            raise VectorizerBug(f"pass '{self.name}': vectorizing '{state.request.kernel}': "
                                f"our IR is invalid for LLVM: {converted.invalid_ir}")
        if converted.refusal:
            state.refuse(converted.refusal)
            return PassResult(stop=True)
        state.conversion_stats = converted.stats
        if converted.text is None:
            # Nothing to convert (a loop may have been given an exit in place;
            # the analyses computed before stay as they were).
            return PassResult()
        state.module = parse_module(converted.text)
        state.module_text = converted.text
        state.kernel = state.module.get_function(state.request.kernel)
        state.fn = state.module.get_function(state.temp_name)
        return PassResult(changed=True)
