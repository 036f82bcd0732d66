"""Vectorizability Analysis: the filter for kernels we know we cannot
vectorize correctly yet. Each refusal is a remark saying why; a refusal is a
missing feature, never wrong code.
"""

from __future__ import annotations

from ..builtins import BuiltinKind, classify
from ..builtins.async_copy import is_group_copy, varying_operand_reason
from ..ir import instructions as I
from ..ir import types as T
from ..ir import values as V
from .subgroups import parse_collective, unsupported_reason
from .uniformity import UniformValueAnalysis


def _has_scalable(ty: T.Type) -> bool:
    if isinstance(ty, T.VectorType):
        return ty.scalable or _has_scalable(ty.element)
    if isinstance(ty, T.ArrayType):
        return _has_scalable(ty.element)
    if isinstance(ty, T.StructType):
        return any(_has_scalable(e) for e in ty.elements)
    return False


def refusals_before_preparation(function: V.Function) -> list[str]:
    """Reasons the kernel cannot be vectorized, found by looking at its shape."""
    reasons: list[str] = []
    if function.is_declaration:
        return [f"kernel '{function.name}' has no body"]
    if not isinstance(function.return_type, T.VoidType):
        reasons.append(f"kernel '{function.name}' returns a value ({function.return_type})")
    for inst in function.instructions():
        if isinstance(inst, I.CallInst):
            fn = inst.called_function
            summary = classify(fn.name if fn else None)
            kind = summary.kind
            if summary.query is not None and summary.query.has_dim and not inst.args:
                # (`__mux_get_local_id()` in the peer corpus): no dimension to select on.
                reasons.append(f"work-item query '{fn.name}' is declared without its dimension operand")
            if kind in (BuiltinKind.SUB_GROUP, BuiltinKind.WORK_GROUP) and parse_collective(fn.name) is None:
                # Understood collectives become vector code (transform/subgroup_builtins.py).
                reasons.append(unsupported_reason(fn.name))
        if _has_scalable(inst.type) or any(_has_scalable(op.type) for op in inst.operands):
            reasons.append(f"scalable vector type in '{inst.opcode}' is not supported")
    return sorted(set(reasons))


def refusals_after_analysis(function: V.Function, uniform: UniformValueAnalysis) -> list[str]:
    """Reasons found once the varying values are known."""
    reasons: list[str] = []
    for inst in function.instructions():
        # Divergent branches are control-flow conversion's (it refuses what it cannot convert).
        if isinstance(inst, I.CallInst) and inst.called_function is None and uniform.is_varying(inst.callee):
            reasons.append("indirect call through a varying function pointer")
        if isinstance(inst, I.CallInst) and inst.called_function is not None and is_group_copy(inst.called_function.name):
            # A packet makes the group's copy once: only sound when every work-item asks for the same one.
            varying = [i for i, a in enumerate(inst.args) if uniform.is_varying(a)]
            if varying:
                reasons.append(varying_operand_reason(inst.called_function.name, varying))
        if isinstance(inst, I.AllocaInst) and uniform.is_varying(inst):
            if inst.count is not None and not isinstance(inst.count, V.ConstantInt):
                reasons.append("varying private array of run-time size")
    return sorted(set(reasons))


def varying_branches(function: V.Function, uniform: UniformValueAnalysis) -> list[str]:
    """Branches still on a varying condition when packetization is about to
    start. Control-flow conversion leaves none; one here is a defect of
    ours, and packetizing it would branch on lane 0's condition alone, so the
    caller refuses with these remarks instead."""
    from ..builtins.masked import classify_masked_call

    found = []
    for block in function.blocks:
        term = block.terminator
        if isinstance(term, I.BranchInst) and term.is_conditional:
            cond = term.condition
        elif isinstance(term, I.SwitchInst):
            cond = term.condition
        else:
            continue
        mc = classify_masked_call(cond)
        if mc is not None and mc.kind in ("any", "all"):
            continue
        if uniform.is_varying(cond):
            found.append(
                f"internal: the branch of block '{block.name or '?'}' is on a varying condition after "
                "control-flow conversion (please report this kernel)"
            )
    return found
