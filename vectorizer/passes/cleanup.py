"""Stage 4, cleanup: dead scalar originals go, masked accesses get safe
addresses, and LLVM's cleanup passes run on the vectorized kernel (the
last crossing: LLVM's verifier judges our output here)."""

from __future__ import annotations

import time

from .. import llvm_bridge
from ..ir import print_module
from ..pass_manager import Pass, PassResult
from .state import KernelState

# After packetization (seed, "Post-Vectorization Optimizations and Cleanup").
# `adce` removes what `dce` cannot: the lane-0 scalar code the packetizer
# leaves behind in loops, which stays alive only through its own phi cycle.
CLEANUP = ("instcombine", "simplifycfg", "adce", "dce")


class DeadCode(Pass):
    name = "dead-code"
    summary = "erase the scalar originals the packetizer replaced"

    def run(self, state: KernelState, am) -> PassResult:
        from ..transform.dead_code import erase_dead_code

        return PassResult(changed=bool(erase_dead_code(state.fn)))


class SafeLaneAddressing(Pass):
    name = "safe-lane-addressing"
    summary = "masked accesses the backend would branch around address a slot in inactive lanes"

    def run(self, state: KernelState, am) -> PassResult:
        from ..transform.safe_lane_addressing import address_lanes_safely

        state.safe_addressed_accesses = address_lanes_safely(
            state.fn, state.module, state.layout, vector_accesses=not state.target.fast_gather)
        return PassResult(changed=bool(state.safe_addressed_accesses))


class Cleanup(Pass):
    """Crossing to LLVM: its cleanup passes on the vectorized kernel; their
    output is the result."""

    name = "cleanup"
    summary = "LLVM: " + ",".join(CLEANUP) + " on the vectorized kernel (printed, run; the result)"

    def run(self, state: KernelState, am) -> PassResult:
        from ..pipeline import VectorizerBug

        request = state.request
        text = print_module(state.module)
        if state.kernel_body is not None:
            text = state.kernel_body.put_back(text)  # resumed with a stub of the original kernel
        try:
            cleaned = llvm_bridge.run_function_passes(text, state.name, CLEANUP)
        except llvm_bridge.IRError as exc:
            raise VectorizerBug(
                f"vectorizing '{request.kernel}' at width {state.width} produced invalid IR "
                f"(pass '{self.name}'): {exc}"
            ) from None
        outcome = state.outcome
        outcome.vectorized_name = state.name
        outcome.stats = {
            **outcome.stats,
            **state.packetizer_stats,
            **state.conversion_stats,
            "scalarized": state.scalarized,
            "clamp_versioned_loads": state.clamp_versioned_loads,
            "safe_addressed_accesses": state.safe_addressed_accesses,
            "interleaved_arrays": len(state.interleaved),
            "seconds": time.perf_counter() - state.t0,
        }
        if state.instantiated:
            outcome.remarks.append(f"instantiated {state.instantiated} instruction(s) per lane")
        state.result_text = cleaned
        return PassResult(changed=True, stop=True)
