"""The vectorization process (seed, "Vectorization process"), for one kernel
at one width and dimension:

1. clone the kernel as `__vecz_v<W>_<name>` and inline the functions it calls
   (Builtin Inlining), so the clone is self-contained;
2. filter out what cannot be vectorized yet (Vectorizability Analysis);
3. prepare the clone with LLVM's own passes, run through llvmlite on that
   function only (SROA/mem2reg, instcombine, simplifycfg, loop-simplify...);
4. analyse: uniform values, strides, what to instantiate;
5. packetize;
6. clean up with LLVM's passes, and verify.

The module crosses to LLVM as text between the steps, so each step sees a
verified module; the original kernel is never touched.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from . import llvm_bridge
from .analysis.data_layout import DataLayout
from .analysis.instantiation import InstantiationAnalysis
from .analysis.packetization import PacketizationAnalysis
from .analysis.stride import StrideAnalysis
from .analysis.uniformity import UniformValueAnalysis
from .analysis.vectorizability import (
    refusals_after_analysis,
    refusals_before_preparation,
    varying_branches,
)
from .analysis.vectorization_cost import estimate_cost
from .choices import VectorizationChoices
from .deep_recursion import call_with_deep_stack
from .ir import parse_module, print_module
from .ir import types as T
from .ir.cloning import clone_function
from .target import TargetInfo, host_target
from .transform.builtin_inlining import inline_calls
from .transform.clamp_versioning import version_clamped_loads
from .transform.control_flow_conversion import convert_control_flow
from .transform.dead_code import erase_dead_code
from .transform.interleave_private_arrays import interleave_private_arrays
from .transform.packetizer import PacketizationError
from .transform.remove_intptr import remove_intptr
from .transform.safe_lane_addressing import address_lanes_safely
from .transform.scalarizer import Scalarizer
from .transform.squash_small_vectors import squash_small_vectors
from .transform.subgroup_builtins import SubGroupPacketizer
from .transform.widen_index_arithmetic import widen_index_arithmetic

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
# And after packetization (seed, "Post-Vectorization Optimizations and Cleanup").
# `adce` removes what `dce` cannot: the lane-0 scalar code the packetizer
# leaves behind in loops, which stays alive only through its own phi cycle.
CLEANUP = ("instcombine", "simplifycfg", "adce", "dce")

MAX_WIDTH = 64


class VectorizerBug(RuntimeError):
    """The vectorizer produced IR that LLVM rejects: always a defect of ours."""


@dataclass
class KernelRequest:
    """One vectorization to perform."""

    kernel: str
    width: int | None  # None: automatic
    dim: int = 0
    choices: VectorizationChoices = field(default_factory=VectorizationChoices)


@dataclass
class KernelOutcome:
    """What happened to one request."""

    request: KernelRequest
    vectorized_name: str | None
    width: int | None
    remarks: list[str] = field(default_factory=list)
    stats: dict[str, float] = field(default_factory=dict)


def vectorized_name(kernel: str, width: int) -> str:
    return f"__vecz_v{width}_{kernel}"


def _datalayout_of(text: str) -> str | None:
    for line in text.splitlines():
        if line.startswith("target datalayout"):
            return line.split('"')[1]
    return None


def automatic_width(
    packets: PacketizationAnalysis, uniform: UniformValueAnalysis, target: TargetInfo, layout: DataLayout
) -> int:
    """SIMD Width Analysis: two registers' worth of the widest type that will
    be packetized.

    Only values that will become packets count (Packetization Analysis): an
    i64 work-item id feeding contiguous addresses stays scalar and would
    otherwise halve the width of a float kernel. Nor do linear values (a
    constant stride): their packet is a broadcast plus a step vector, which
    LLVM narrows with the `trunc` that follows (`int x = get_global_id(0)`).
    Two registers per packet give the out-of-order core independent work
    (the benchmark's float kernels run fastest so).
    """

    def widest(values) -> int:
        bits = 0
        for v in values:
            if packets.stride.info(v).constant_stride is not None:
                continue
            ty = v.type
            if isinstance(ty, T.IntType) and ty.bits > 1:
                bits = max(bits, ty.bits)
            elif isinstance(ty, T.FloatType):
                bits = max(bits, layout.store_size(ty) * 8)
        return bits

    bits = widest(packets.values) or widest(uniform.varying_values) or 32
    return max(1, min(16, 2 * target.lanes_for(bits)))


def vectorize_kernel(text: str, request: KernelRequest, target: TargetInfo | None = None) -> tuple[str, KernelOutcome]:
    """Vectorize one kernel of a canonical module; returns the new module text and the outcome.

    On refusal the text is returned unchanged and the outcome carries the remarks.
    """
    target = target or host_target()
    t0 = time.perf_counter()
    outcome = KernelOutcome(request, None, request.width)
    module = parse_module(text)
    kernel = module.get_function(request.kernel)
    if kernel is None:
        raise KeyError(f"no function named '{request.kernel}' in the module")
    if request.choices.unimplemented:
        outcome.remarks.append(
            "choice(s) not implemented yet: " + ", ".join(request.choices.unimplemented)
        )
        return text, outcome
    reasons = refusals_before_preparation(kernel)
    if reasons:
        outcome.remarks.extend(reasons)
        return text, outcome

    temp_name = f"__vecz_tmp_{request.kernel}"
    clone, _ = clone_function(kernel, temp_name)
    inlined = inline_calls(clone, module)
    if inlined:
        outcome.remarks.append(f"inlined {inlined} call(s)")
    from .transform.preserve_library_calls import preserve_library_calls

    preserve_library_calls(clone)
    prepared = llvm_bridge.run_function_passes(print_module(module), temp_name, PREPARATION)

    module = parse_module(prepared)
    fn = module.get_function(temp_name)
    layout = DataLayout.parse(_datalayout_of(prepared))
    remove_intptr(fn, layout.pointer_size(0) * 8)
    uniform = UniformValueAnalysis(fn, request.dim)
    reasons = refusals_after_analysis(fn, uniform)
    if reasons:
        outcome.remarks.extend(reasons)
        return text, outcome
    # A barrier under a varying branch makes that branch uniform at run time
    # (OpenCL requires it): branch on "any lane" so the packet reaches the barrier as one.
    from .transform.barrier_uniform_branches import make_barrier_branches_uniform
    from .transform.vector_predication import entry_mask_builder

    barrier_branches, barrier_refusals = make_barrier_branches_uniform(
        fn, module, uniform,
        entry_mask_builder(module, request.dim) if "VectorPredication" in request.choices else None,
    )
    if barrier_refusals:
        outcome.remarks.extend(barrier_refusals)
        return text, outcome
    if barrier_branches:
        uniform = UniformValueAnalysis(fn, request.dim)
    # Control-flow conversion (issue 6): divergent branches become masks.
    converted = convert_control_flow(
        module, fn, uniform, request.dim,
        vector_predication="VectorPredication" in request.choices,
        roscc="LinearizeBOSCC" not in request.choices,
        boscc="LinearizeBOSCC" in request.choices,
    )
    outcome.remarks.extend(converted.remarks)
    if converted.refusal:
        outcome.remarks.append(converted.refusal)
        return text, outcome
    if converted.text is not None:
        module = parse_module(converted.text)
        fn = module.get_function(temp_name)
        uniform = UniformValueAnalysis(fn, request.dim)
    little_endian = "E" not in (_datalayout_of(prepared) or "").split("-")
    if squash_small_vectors(fn, uniform, layout, little_endian):
        uniform = UniformValueAnalysis(fn, request.dim)  # the integer accesses are new
    scalarizer = Scalarizer(fn, module, uniform, layout, full="FullScalarization" in request.choices)
    if scalarizer.run():
        uniform = UniformValueAnalysis(fn, request.dim)  # the split values are new
    versioned = version_clamped_loads(fn, module, uniform, layout, request.dim)
    if versioned:
        uniform = UniformValueAnalysis(fn, request.dim)  # new blocks and loads
    if widen_index_arithmetic(fn):
        uniform = UniformValueAnalysis(fn, request.dim)  # the wide index terms are new
    from .transform.lane_safe_extensions import make_extensions_lane_safe

    if make_extensions_lane_safe(fn, uniform):
        uniform = UniformValueAnalysis(fn, request.dim)  # the sexts are new values
    stride = StrideAnalysis(uniform, layout)
    loop_blocks = _loop_blocks(fn)
    inst = InstantiationAnalysis(
        request.dim,
        instantiate_calls_in_loops="InstantiateCallsInLoops" in request.choices,
        loop_blocks=loop_blocks,
    )
    width = request.width
    if width is None:
        packets = PacketizationAnalysis(fn, uniform, stride, inst)
        width = automatic_width(packets, uniform, target, layout)
        cost = estimate_cost(
            fn, width, uniform, stride, inst, packets, layout,
            target.register_bits, target.fast_gather, target.microcoded_gather,
        )
        outcome.stats["estimated_scalar_cost"] = cost.scalar
        outcome.stats["estimated_vector_cost"] = cost.vector
        if width > 1 and not cost.profitable:
            outcome.remarks.append(cost.remark())
            return _scalar_copy(text, request, outcome, t0)
    outcome.width = width
    name = vectorized_name(request.kernel, width)
    if module.get_function(name) is not None:
        outcome.remarks.append(f"'{name}' already exists in the module")
        return text, outcome
    fn.name = name
    interleaved = interleave_private_arrays(fn, uniform, layout, width)
    if interleaved:
        # The rescaled element addresses are new instructions: analyse again.
        uniform = UniformValueAnalysis(fn, request.dim)
        stride = StrideAnalysis(uniform, layout, interleaved)
    reasons = varying_branches(fn, uniform)
    if reasons:
        outcome.remarks.extend(reasons)
        return text, outcome
    packetizer = SubGroupPacketizer(  # sub-group builtins and collectives: vectorizer/transform/subgroup_builtins.py
        fn, module, width, uniform, stride, layout, inst, predicated="VectorPredication" in request.choices,
        packetize_uniform="PacketizeUniform" in request.choices,
        packetize_uniform_in_loops="PacketizeUniformInLoops" in request.choices,
        loop_blocks=loop_blocks,
    )
    try:
        call_with_deep_stack(packetizer.run)
    except PacketizationError as exc:
        outcome.remarks.append(str(exc))
        return text, outcome
    # Masked accesses the backend would branch around per lane (gathers and
    # scatters only where it has no fast gathers).
    erase_dead_code(fn)  # the replaced scalar originals: no slots for them
    safe_lanes = address_lanes_safely(fn, module, layout, vector_accesses=not target.fast_gather)
    packetized = print_module(module)
    try:
        cleaned = llvm_bridge.run_function_passes(packetized, name, CLEANUP)
    except llvm_bridge.IRError as exc:
        raise VectorizerBug(
            f"vectorizing '{request.kernel}' at width {width} produced invalid IR: {exc}"
        ) from None
    outcome.vectorized_name = name
    outcome.stats = {
        **outcome.stats,
        **packetizer.stats.as_dict(),
        **converted.stats,
        "scalarized": scalarizer.scalarized,
        "clamp_versioned_loads": versioned,
        "safe_addressed_accesses": safe_lanes,
        "interleaved_arrays": len(interleaved),
        "seconds": time.perf_counter() - t0,
    }
    if packetizer.stats.instantiated:
        outcome.remarks.append(f"instantiated {packetizer.stats.instantiated} instruction(s) per lane")
    return cleaned, outcome


def _scalar_copy(text: str, request: KernelRequest, outcome: KernelOutcome, t0: float) -> tuple[str, KernelOutcome]:
    """Width 1 by choice of the cost model: one lane has no divergence to
    convert and nothing to packetize, so the kernel is copied as it is."""
    name = vectorized_name(request.kernel, 1)
    outcome.width = 1
    module = parse_module(text)
    if module.get_function(name) is not None:
        outcome.remarks.append(f"'{name}' already exists in the module")
        return text, outcome
    clone_function(module.get_function(request.kernel), name)
    outcome.vectorized_name = name
    outcome.stats["seconds"] = time.perf_counter() - t0
    return print_module(module), outcome


def _loop_blocks(fn) -> set[int]:
    from .analysis.loops import LoopInfo

    info = LoopInfo(fn)
    return {id(b) for b in fn.blocks if info.loop_for(b) is not None}


LINK_METADATA = "vecz.vectorized"


def link_metadata(text: str, outcomes: list[KernelOutcome]) -> str:
    """Record, in named metadata `!vecz.vectorized`, each vectorized kernel with
    its scalar original, width and dimension: `!{ptr @foo, ptr @__vecz_v8_foo, i32 8, i32 0}`."""
    done = [o for o in outcomes if o.vectorized_name]
    if not done:
        return text
    next_id = max((int(m) for m in re.findall(r"^!(\d+) = ", text, re.M)), default=-1) + 1
    nodes, refs = [], []
    for o in done:
        nodes.append(
            f'!{next_id} = !{{ptr @{_quote(o.request.kernel)}, ptr @{_quote(o.vectorized_name)}, '
            f"i32 {o.width}, i32 {o.request.dim}}}"
        )
        refs.append(f"!{next_id}")
        next_id += 1
    m = re.search(rf"^!{re.escape(LINK_METADATA)} = !{{(.*)}}$", text, re.M)
    if m:
        old = [r.strip() for r in m.group(1).split(",") if r.strip()]
        text = text[: m.start()] + text[m.end() + 1 :]
        refs = old + refs
    text = text.rstrip("\n") + "\n\n" + f"!{LINK_METADATA} = !{{{', '.join(refs)}}}\n" + "\n".join(nodes) + "\n"
    return llvm_bridge.canonicalize(text)


def _quote(name: str) -> str:
    return name if re.match(r"^[-a-zA-Z$._][-a-zA-Z$._0-9]*$", name) else '"' + name + '"'


def vectorize_module(src, requests: list[KernelRequest], target: TargetInfo | None = None) -> tuple[str, list[KernelOutcome]]:
    """Canonicalise `src` and perform each request in turn; returns the final text."""
    text = llvm_bridge.canonicalize(src)
    outcomes: list[KernelOutcome] = []
    for req in requests:
        if req.width is not None and not 1 <= req.width <= MAX_WIDTH:
            raise ValueError(f"width {req.width} is out of range 1..{MAX_WIDTH}")
        if req.dim not in (0, 1, 2):
            raise ValueError(f"dimension {req.dim} is out of range 0..2")
        text, outcome = vectorize_kernel(text, req, target)
        outcomes.append(outcome)
    return link_metadata(text, outcomes), outcomes
