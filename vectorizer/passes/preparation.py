"""Stage 1, preparation: check the request, clone the kernel, inline what it
calls, and hand the clone to LLVM's preparation passes (the first crossing
to LLVM and back); then the checks that need the uniformity analysis."""

from __future__ import annotations

from .. import llvm_bridge
from ..analysis.data_layout import DataLayout
from ..analysis.vectorizability import refusals_after_analysis, refusals_before_preparation
from ..builtins.callees import lane_dependent_builtin
from ..ir import parse_module, print_module
from ..ir.cloning import clone_function
from ..pass_manager import Pass, PassResult
from .analyses import UniformValues
from .state import KernelState

# LLVM passes run on the clone before our analyses (seed, "Preparation Passes").
PREPARATION = (
    "sroa",
    "instcombine",
    "simplifycfg",
    "dce",
    "mergereturn",
    "loop-simplify",
    "lcssa",
)


def datalayout_of(text: str) -> str | None:
    """The `target datalayout` string of a module's text."""
    for line in text.splitlines():
        if line.startswith("target datalayout"):
            return line.split('"')[1]
    return None


class CheckInput(Pass):
    name = "check-input"
    summary = "refuse unimplemented choices and kernels the vectorizability analysis rejects before preparation"

    def run(self, state: KernelState, am) -> PassResult:
        unimplemented = state.request.choices.unimplemented
        if unimplemented:
            state.refuse("choice(s) not implemented yet: " + ", ".join(unimplemented))
            return PassResult(stop=True)
        reasons = refusals_before_preparation(state.kernel)
        if reasons:
            state.refuse(*reasons)
            return PassResult(stop=True)
        return PassResult()


class CloneKernel(Pass):
    name = "clone-kernel"
    summary = "copy the kernel under a temporary name; the original is never touched"

    def run(self, state: KernelState, am) -> PassResult:
        state.temp_name = f"__vecz_tmp_{state.request.kernel}"
        state.fn, _ = clone_function(state.kernel, state.temp_name)
        return PassResult(changed=True)


class BuiltinInlining(Pass):
    name = "builtin-inlining"
    summary = "inline the functions the clone calls, so it is self-contained"

    def run(self, state: KernelState, am) -> PassResult:
        from ..transform.builtin_inlining import inline_calls

        inlined = inline_calls(state.fn, state.module)
        if inlined:
            state.outcome.remarks.append(f"inlined {inlined} call(s)")
        checked: set[int] = set()  # each callee once, however many calls it has
        for inst in state.fn.instructions():
            callee = getattr(inst, "called_function", None)
            if callee is None or callee.is_declaration or id(callee) in checked:
                continue
            checked.add(id(callee))
            reached = lane_dependent_builtin(callee)
            if reached is not None:
                state.refuse(f"call to '{callee.name}' stays a call (it is recursive or cannot be inlined) and "
                             f"reaches '{reached}', which in a call of the vectorized kernel would answer for "
                             "the packet, not for each work-item")
                return PassResult(changed=bool(inlined), stop=True)
        return PassResult(changed=bool(inlined))


class PreserveLibraryCalls(Pass):
    name = "preserve-library-calls"
    summary = "mark library calls nobuiltin so instcombine keeps them (printf stays printf)"

    def run(self, state: KernelState, am) -> PassResult:
        from ..transform.preserve_library_calls import preserve_library_calls

        return PassResult(changed=bool(preserve_library_calls(state.fn)))


class Prepare(Pass):
    """Crossing to LLVM: its preparation passes run on the clone only."""

    name = "prepare"
    summary = "LLVM: " + ",".join(PREPARATION) + " on the clone (printed, run, re-read)"

    def run(self, state: KernelState, am) -> PassResult:
        from .prepared_cache import stub_kernel

        text = print_module(state.module)
        # From here on no pass reads the original kernel's body: it is set
        # aside and the module carries a stub, so this crossing, control-flow
        # conversion's and every later parse and print handle the clone
        # alone; the cleanup puts the body back (prepared_cache.KernelBody).
        stubbed = stub_kernel(text, state.request.kernel) if state.kernel_body is None else None
        if stubbed is not None:
            text, state.kernel_body = stubbed
        try:
            prepared = llvm_bridge.run_function_passes(text, state.temp_name, PREPARATION)
        except llvm_bridge.IRError as exc:
            from ..pipeline import VectorizerBug

            raise VectorizerBug(f"pass '{self.name}': vectorizing '{state.request.kernel}': "
                                f"our IR is invalid for LLVM: {exc}") from None
        state.module = parse_module(prepared)
        state.module_text = prepared
        state.kernel = state.module.get_function(state.request.kernel)
        state.fn = state.module.get_function(state.temp_name)
        state.datalayout = datalayout_of(prepared)
        state.layout = DataLayout.parse(state.datalayout)
        return PassResult(changed=True)


class RemoveIntptr(Pass):
    name = "remove-intptr"
    summary = "integer pointer arithmetic becomes GEPs again"

    def run(self, state: KernelState, am) -> PassResult:
        from ..transform.remove_intptr import remove_intptr

        return PassResult(changed=bool(remove_intptr(state.fn, state.layout.pointer_size(0) * 8)))


class CheckVectorizability(Pass):
    name = "check-vectorizability"
    summary = "refuse what the vectorizability analysis rejects once uniform values are known"
    requires = (UniformValues,)

    def run(self, state: KernelState, am) -> PassResult:
        reasons = refusals_after_analysis(state.fn, am.get(UniformValues, state))
        if reasons:
            state.refuse(*reasons)
            return PassResult(stop=True)
        return PassResult()
