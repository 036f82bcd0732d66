"""Packetization Analysis (seed, "Packetization Analysis"): which varying
values will need a packet (`<W x T>`) once packetized.

Being varying is not enough: a varying value that only computes the address
of a contiguous or strided access stays scalar (the access is made at lane
0's address). The analysis starts at the function's vector leaves (varying
stores, calls with side effects, masked memory operations, lane
reductions) and walks back through operands; at a memory access whose
address is linear with a constant stride, the address is not followed.
The SIMD width analysis sizes packets by what is marked here.

This analysis only reads the IR.
"""

from __future__ import annotations

from ..builtins.masked import classify_masked_call
from ..ir import instructions as I
from ..ir import values as V
from ..ir.module import BasicBlock, Function  # bound once: `V.BasicBlock` is an import per use
from .instantiation import InstantiationAnalysis
from .stride import StrideAnalysis
from .uniformity import UniformValueAnalysis

# Leaves are stores, masked calls and what runs once per lane: memory and calls.
_MAY_BE_LEAF = I.MEMORY_OR_CALL


class PacketizationAnalysis:
    """The varying values of `function` that will be packetized."""

    def __init__(
        self,
        function: V.Function,
        uniform: UniformValueAnalysis,
        stride: StrideAnalysis,
        instantiation: InstantiationAnalysis,
    ) -> None:
        self.uniform = uniform
        self.stride = stride
        self._marked: set[int] = set()
        self.values: list[V.Value] = []
        work: list[V.Value] = []
        for inst in [i for i in function.instructions() if isinstance(i, _MAY_BE_LEAF)]:
            if self._is_leaf(inst, instantiation):
                work.extend(self._operands_to_follow(inst))
        while work:
            v = work.pop()
            if id(v) in self._marked or not isinstance(v, I.Instruction) or uniform.is_uniform(v):
                continue
            self._marked.add(id(v))
            self.values.append(v)
            work.extend(self._operands_to_follow(v))

    def needs_packet(self, value: V.Value) -> bool:
        """Will `value` be packetized?"""
        return id(value) in self._marked

    def _is_leaf(self, inst: I.Instruction, instantiation: InstantiationAnalysis) -> bool:
        masked = classify_masked_call(inst)
        if self.uniform.is_uniform(inst) and not masked:
            return False
        if isinstance(inst, I.StoreInst) or masked is not None:
            return True
        return instantiation.per_lane(inst)

    def _linear_address(self, ptr: V.Value) -> bool:
        info = self.stride.info(ptr)
        return info.is_linear and info.stride.is_constant

    def _operands_to_follow(self, inst: I.Instruction) -> list[V.Value]:
        masked = classify_masked_call(inst)
        if masked is not None and masked.pointer is not None:
            skip = masked.pointer if self._linear_address(masked.pointer) else None
            return [a for a in masked.call.args if a is not skip]
        if isinstance(inst, I.LoadInst):
            return [] if self._linear_address(inst.pointer) else [inst.pointer]
        if isinstance(inst, I.StoreInst):
            ops = [inst.value]
            if not self._linear_address(inst.pointer):
                ops.append(inst.pointer)
            return ops
        if isinstance(inst, I.CallInst):
            return list(inst.args)
        return [op for op in inst.operands if not isinstance(op, (BasicBlock, Function))]
