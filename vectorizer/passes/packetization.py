"""Stage 3, packetization: the scalar rewrites that help the packetizer
(squash, scalarize, clamp versioning, index widening, lane-safe
extensions), the choice of width and name, private-array interleaving, the
last check for varying branches, and the packetizer itself."""

from __future__ import annotations

from .. import llvm_bridge
from ..analysis.data_layout import DataLayout
from ..analysis.packetization import PacketizationAnalysis
from ..analysis.uniformity import UniformValueAnalysis
from ..analysis.vectorizability import varying_branches
from ..ir import parse_module, print_module
from ..ir import types as T
from ..ir.cloning import clone_function
from ..pass_manager import ALL, Pass, PassResult
from ..target import TargetInfo
from .analyses import LoopBlocks, Strides, UniformValues, instantiation
from .state import KernelState

_CFG = frozenset({LoopBlocks.name})  # passes that add no block keep the loop blocks


def vectorized_name(kernel: str, width: int) -> str:
    """`__vecz_v<W>_<kernel>`."""
    return f"__vecz_v{width}_{kernel}"


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


class SquashSmallVectors(Pass):
    name = "squash-small-vectors"
    summary = "varying accesses of vectors up to 64 bits become one integer access"
    requires = (UniformValues,)
    preserves = _CFG

    def run(self, state: KernelState, am) -> PassResult:
        from ..transform.squash_small_vectors import squash_small_vectors

        little_endian = "E" not in (state.datalayout or "").split("-")
        return PassResult(changed=bool(squash_small_vectors(
            state.fn, am.get(UniformValues, state), state.layout, little_endian)))


class Scalarize(Pass):
    name = "scalarize"
    summary = "split vector-typed values into elements (all of them with FullScalarization)"
    requires = (UniformValues,)
    preserves = _CFG

    def run(self, state: KernelState, am) -> PassResult:
        from ..transform.scalarizer import Scalarizer

        scalarizer = Scalarizer(state.fn, state.module, am.get(UniformValues, state), state.layout,
                                full="FullScalarization" in state.request.choices)
        changed = scalarizer.run()
        state.scalarized = scalarizer.scalarized
        return PassResult(changed=bool(changed))


class ClampVersioning(Pass):
    name = "clamp-versioning"
    summary = "loads at a clamped index get a contiguous fast path"
    requires = (UniformValues,)

    def run(self, state: KernelState, am) -> PassResult:
        from ..transform.clamp_versioning import version_clamped_loads

        versioned = version_clamped_loads(state.fn, state.module, am.get(UniformValues, state),
                                          state.layout, state.request.dim)
        state.clamp_versioned_loads = versioned
        return PassResult(changed=bool(versioned))


class WidenIndexArithmetic(Pass):
    name = "widen-index-arithmetic"
    summary = "sext of an nsw sum becomes the sum of the extended terms"
    preserves = _CFG

    def run(self, state: KernelState, am) -> PassResult:
        from ..transform.widen_index_arithmetic import widen_index_arithmetic

        return PassResult(changed=bool(widen_index_arithmetic(state.fn)))


class LaneSafeExtensions(Pass):
    name = "lane-safe-extensions"
    summary = "zext nneg of a varying value becomes sext; its GEPs drop lane 0's promises"
    requires = (UniformValues,)
    preserves = _CFG

    def run(self, state: KernelState, am) -> PassResult:
        from ..transform.lane_safe_extensions import make_extensions_lane_safe

        return PassResult(changed=bool(make_extensions_lane_safe(state.fn, am.get(UniformValues, state))))


class ChooseWidth(Pass):
    """The requested width, or SIMD Width Analysis plus the cost model; a
    kernel not worth vectorizing is copied as it is at width 1."""

    name = "choose-width"
    summary = "the requested width, or the automatic width and the cost model's verdict"

    def run(self, state: KernelState, am) -> PassResult:
        width = state.request.width
        if width is None:
            from ..analysis.vectorization_cost import estimate_cost

            uniform = am.get(UniformValues, state)
            stride = am.get(Strides, state)
            inst = instantiation(state, am)
            packets = PacketizationAnalysis(state.fn, uniform, stride, inst)
            target = state.target
            width = automatic_width(packets, uniform, target, state.layout)
            local = state.request.local_size
            if local:
                # A width dividing the assumed local size: whole packets only.
                while width > 1 and local % width:
                    width //= 2
            cost = estimate_cost(
                state.fn, width, uniform, stride, inst, packets, state.layout,
                target.register_bits, target.fast_gather, target.microcoded_gather,
            )
            state.outcome.stats["estimated_scalar_cost"] = cost.scalar
            state.outcome.stats["estimated_vector_cost"] = cost.vector
            if width > 1 and not cost.profitable:
                state.outcome.remarks.append(cost.remark())
                _scalar_copy(state)
                return PassResult(stop=True)
        state.width = width
        state.outcome.width = width
        return PassResult()


def _scalar_copy(state: KernelState) -> None:
    """Width 1 by choice of the cost model: one lane has no divergence to
    convert and nothing to packetize, so the kernel is copied as it is."""
    import time

    name = vectorized_name(state.request.kernel, 1)
    outcome = state.outcome
    outcome.width = 1
    module = parse_module(state.text)
    if module.get_function(name) is not None:
        outcome.remarks.append(f"'{name}' already exists in the module")
        return
    clone_function(module.get_function(state.request.kernel), name)
    outcome.vectorized_name = name
    outcome.stats["seconds"] = time.perf_counter() - state.t0
    # LLVM's print, as every other result: `link_metadata` writes into that layout.
    state.result_text = llvm_bridge.canonicalize(print_module(module))


class NameKernel(Pass):
    name = "name-kernel"
    summary = "rename the clone __vecz_v<W>_<kernel>, unless that name is taken"
    preserves = ALL

    def run(self, state: KernelState, am) -> PassResult:
        name = vectorized_name(state.request.kernel, state.width)
        if state.module.get_function(name) is not None:
            state.refuse(f"'{name}' already exists in the module")
            return PassResult(stop=True)
        state.fn.name = name
        state.name = name
        return PassResult(changed=True)


class InterleavePrivateArrays(Pass):
    name = "interleave-private-arrays"
    summary = "lay out varying private arrays element by element across lanes"
    requires = (UniformValues,)
    preserves = _CFG

    def run(self, state: KernelState, am) -> PassResult:
        from ..transform.interleave_private_arrays import interleave_private_arrays

        interleaved = interleave_private_arrays(state.fn, am.get(UniformValues, state), state.layout, state.width)
        if not interleaved:
            return PassResult()
        # The rescaled element addresses are new instructions: analyse again.
        state.interleaved = interleaved
        return PassResult(changed=True)


class CheckBranches(Pass):
    name = "check-branches"
    summary = "refuse a varying branch left after control-flow conversion"
    requires = (UniformValues,)

    def run(self, state: KernelState, am) -> PassResult:
        reasons = varying_branches(state.fn, am.get(UniformValues, state))
        if reasons:
            state.refuse(*reasons)
            return PassResult(stop=True)
        return PassResult()


class Packetize(Pass):
    name = "packetize"
    summary = "widen varying values into packets of W lanes (instantiate what cannot be)"
    requires = (UniformValues, Strides, LoopBlocks)

    def run(self, state: KernelState, am) -> PassResult:
        from ..deep_recursion import call_with_deep_stack
        from ..transform.packetizer import PacketizationError
        from ..transform.subgroup_builtins import SubGroupPacketizer

        choices = state.request.choices
        inst = instantiation(state, am)
        # Sub-group builtins and work-group collectives become in-packet code here.
        packetizer = SubGroupPacketizer(
            state.fn, state.module, state.width, am.get(UniformValues, state), am.get(Strides, state),
            state.layout, inst, predicated="VectorPredication" in choices,
            packetize_uniform="PacketizeUniform" in choices,
            packetize_uniform_in_loops="PacketizeUniformInLoops" in choices,
            loop_blocks=inst.loop_blocks,
        )
        try:
            call_with_deep_stack(packetizer.run)
        except PacketizationError as exc:
            state.refuse(str(exc))
            return PassResult(changed=True, stop=True)
        state.packetizer_stats = packetizer.stats.as_dict()
        state.instantiated = packetizer.stats.instantiated
        return PassResult(changed=True)
