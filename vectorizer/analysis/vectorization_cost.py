"""Vectorization Cost: is packetizing a kernel at width W worth it on the target?

The automatic width (SIMD Width Analysis) asks this before it commits to a
width. A rough per-work-item cost is summed twice over the function, once for
the scalar kernel and once for W lanes packetized, and weighted by loop depth
(each loop level counts `LOOP_WEIGHT` times). The model is deliberately
coarse; what it must get right is the one case where vectorizing across
work-items loses outright: memory accesses that become gathers and scatters on
a target that has no fast gather instruction, where LLVM's backend expands each
lane into an extract, a load and an insert (and, when the access is masked, a
branch per lane). A CSR sparse matrix-vector product is the classic example.

Costs per work-item (W lanes, R = registers a packet of the type needs):
- an instruction that stays scalar (uniform, or a linear address): 1/W;
- a packetized instruction, contiguous or interleaved access: R/W (2R/W);
- a gather or scatter: `FAST_GATHER_LANE` per lane with a fast gather,
  `MICROCODED_GATHER_LANE` where the gather instruction is microcoded (AVX-512
  on a CPU LLVM does not tune for fast gathers), otherwise `SLOW_GATHER_LANE`
  (`SLOW_MASKED_GATHER_LANE` when masked);
- an instruction instantiated per lane (calls with side effects, atomics):
  1 + `INSTANTIATION_LANE` for the extracts and inserts around it;
- inside a divergent loop (one that control-flow conversion made branch back
  while any lane is active) the packet's cost is multiplied by
  `DIVERGENT_LOOP_IDLE`: the packet runs as long as its longest lane.

This analysis only reads the IR.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..builtins.masked import classify_masked_call
from ..ir import instructions as I
from ..ir import types as T
from ..ir import values as V
from .data_layout import DataLayout
from .instantiation import InstantiationAnalysis
from .loops import LoopInfo
from .packetization import PacketizationAnalysis
from .stride import StrideAnalysis
from .uniformity import UniformValueAnalysis

LOOP_WEIGHT = 8.0
FAST_GATHER_LANE = 0.75
# A 16-lane vgatherdps of L1-resident data measured 0.33 ns a lane on Zen 5
# (about 1.5 cycles), where scalar code retires 3 to 4 instructions a cycle.
MICROCODED_GATHER_LANE = 4.0
SLOW_GATHER_LANE = 3.0
SLOW_MASKED_GATHER_LANE = 5.0
INSTANTIATION_LANE = 2.0
DIVERGENT_LOOP_IDLE = 1.5
# Vectorize only when the packet is estimated at least this much cheaper per
# work-item: the model ignores divergence (lanes idling in divergent loops),
# so a near tie is not worth it.
MARGIN = 0.8

_FREE = (I.PhiNode,)


@dataclass
class CostEstimate:
    """Estimated cost per work-item of the scalar kernel and of the packet."""

    width: int
    scalar: float
    vector: float
    gathers: int  # accesses that become gathers or scatters
    fast_gather: bool
    microcoded_gather: bool = False

    @property
    def profitable(self) -> bool:
        """Is the packet estimated cheaper per work-item, by `MARGIN`?"""
        return self.vector <= MARGIN * self.scalar

    def remark(self) -> str:
        """Why the width was not used, for the user."""
        why = ""
        if self.gathers and not self.fast_gather:
            why = f"; {self.gathers} access(es) become gathers or scatters, which this target expands lane by lane"
        elif self.gathers and self.microcoded_gather:
            why = f"; {self.gathers} access(es) become gathers or scatters, which this target runs in microcode"
        return (
            f"automatic width: 1, vectorizing is not profitable on this target (estimated cost per work-item "
            f"{self.vector:.1f} at width {self.width} against {self.scalar:.1f} scalar{why})"
        )


def estimate_cost(
    function: V.Function,
    width: int,
    uniform: UniformValueAnalysis,
    stride: StrideAnalysis,
    instantiation: InstantiationAnalysis,
    packets: PacketizationAnalysis,
    layout: DataLayout,
    register_bits: int,
    fast_gather: bool,
    microcoded_gather: bool = False,
) -> CostEstimate:
    """Estimate the per-work-item cost of `function` scalar and at `width`."""
    loops = LoopInfo(function)
    scalar = vector = 0.0
    gathers = 0
    w = float(width)

    def registers(ty: T.Type) -> float:
        bits = _element_bits(ty, layout) * width
        return max(1.0, -(-bits // register_bits))

    def packet_cost(inst: I.Instruction) -> tuple[float, bool]:
        """Cost per work-item of `inst` in the packet; is it a gather/scatter?"""
        access = _access(inst)
        if access is not None:
            pointer, elem, masked = access
            info = stride.info(pointer)
            if info.is_uniform:
                return 1 / w, False
            step = info.constant_stride if info.is_linear else None
            if step is not None:
                contiguous = elem is not None and step == layout.store_size(elem)
                return (1 if contiguous else 2) * registers(elem) / w, False
            if fast_gather:
                return (MICROCODED_GATHER_LANE if microcoded_gather else FAST_GATHER_LANE), True
            return (SLOW_MASKED_GATHER_LANE if masked else SLOW_GATHER_LANE), True
        if instantiation.per_lane(inst) and not uniform.is_uniform(inst):
            return 1.0 + INSTANTIATION_LANE, False
        if packets.needs_packet(inst):
            return registers(inst.type) / w, False
        return 1 / w, False

    for block in function.blocks:
        loop = loops.loop_for(block)
        weight = LOOP_WEIGHT ** (loop.depth if loop is not None else 0)
        idle = DIVERGENT_LOOP_IDLE if _in_divergent_loop(loop) else 1.0
        for inst in block.instructions:
            if isinstance(inst, _FREE) or inst.is_terminator:
                continue
            cost, gather = packet_cost(inst)
            scalar += weight
            vector += weight * cost * idle
            gathers += gather
    return CostEstimate(width, scalar, vector, gathers, fast_gather, microcoded_gather)


def _in_divergent_loop(loop) -> bool:
    """Is `loop`, or a loop around it, one some lanes may leave early?"""
    while loop is not None:
        latch = loop.latch
        term = latch.terminator if latch is not None else None
        if isinstance(term, I.BranchInst) and term.is_conditional:
            masked = classify_masked_call(term.condition)
            if masked is not None and masked.kind == "any":
                return True
        loop = loop.parent
    return False


def _access(inst: I.Instruction) -> tuple[V.Value, T.Type | None, bool] | None:
    """(pointer, element type, masked) of a plain or masked load or store."""
    masked = classify_masked_call(inst)
    if masked is not None and masked.kind in ("load", "store") and masked.pointer is not None:
        is_masked = not (isinstance(masked.mask, V.ConstantInt) and masked.mask.unsigned == 1)
        return masked.pointer, masked.elem_type, is_masked
    if isinstance(inst, I.LoadInst) and not (inst.volatile or inst.ordering):
        return inst.pointer, inst.type, False
    if isinstance(inst, I.StoreInst) and not (inst.volatile or inst.ordering):
        return inst.pointer, inst.value.type, False
    return None


def _element_bits(ty: T.Type, layout: DataLayout) -> int:
    if isinstance(ty, T.IntType):
        return max(ty.bits, 8)
    if isinstance(ty, (T.FloatType, T.PointerType, T.VectorType)):
        return layout.store_size(ty) * 8
    return 32
