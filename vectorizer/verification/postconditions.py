"""Post-conditions of transforms, and Packetization Analysis' value list,
stated without the code that establishes them."""

from __future__ import annotations

from typing import Any

from .errors import AnalysisMismatch


def _label(x: Any) -> str:
    name = getattr(x, "name", None)
    return f"%{name}" if name else type(x).__name__


def check_terminators(function: Any, after: str) -> None:
    """Every block ends with its one terminator."""
    from ..ir.instructions import TERMINATOR_OPCODES

    is_terminator_opcode = TERMINATOR_OPCODES.__contains__  # what `Instruction.is_terminator` asks
    for block in function.blocks:
        insts = block.instructions
        count = sum(map(is_terminator_opcode, [i.opcode for i in insts]))
        if count != 1 or not insts[-1].is_terminator:
            detail = (f"has {count} terminators" if count > 1
                      else "does not end with a terminator")
            raise AnalysisMismatch(f"block structure after '{after}'", function.name,
                                   f"block {_label(block)} {detail}")


def _same_value(a: Any, b: Any) -> bool:
    """The same SSA value, or equal constants (constants are not interned:
    two `splat (i8 -128)` operands are two objects)."""
    from ..ir.values import Constant

    if a is b:
        return True
    return isinstance(a, Constant) and isinstance(b, Constant) and (a == b or str(a) == str(b))


def check_phis(function: Any, after: str) -> None:
    """Each phi has one incoming entry per predecessor, the predecessors read
    from the terminators (not the use lists the passes maintain), and the
    same value for a predecessor named twice (LLVM's rule for phis)."""
    preds: dict[int, set[int]] = {}
    for block in function.blocks:
        for s in block.successors:
            preds.setdefault(id(s), set()).add(id(block))
    names = {id(b): b for b in function.blocks}
    for block in function.blocks:
        want = preds.get(id(block), set())
        for phi in block.phis():
            values: dict[int, Any] = {}
            for value, pred in phi.incoming:
                if id(pred) in values and not _same_value(values[id(pred)], value):
                    raise AnalysisMismatch(f"phis after '{after}'", function.name,
                                           f"{_label(phi)} in block {_label(block)} has two values for "
                                           f"predecessor {_label(pred)}")
                values[id(pred)] = value
            have = set(values)
            if have != want:
                missing = [_label(names[i]) for i in want - have if i in names]
                extra = [_label(b) for _, b in phi.incoming if id(b) in have - want]
                detail = (f"no entry for predecessor {', '.join(sorted(missing))}" if missing
                          else f"an entry for {', '.join(sorted(set(extra)))}, not a predecessor")
                raise AnalysisMismatch(f"phis after '{after}'", function.name,
                                       f"{_label(phi)} in block {_label(block)} has {detail}")


def _pure_classes() -> tuple[type, ...]:
    from ..ir import instructions as I

    return (I.ICmpInst, I.FCmpInst, I.SelectInst, I.CastInst, I.GetElementPtrInst, I.ExtractElementInst,
            I.InsertElementInst, I.ShuffleVectorInst, I.ExtractValueInst, I.InsertValueInst, I.FreezeInst,
            I.UnaryOperator, I.PhiNode, I.BinaryOperator)


_TRAPPING = frozenset({"udiv", "sdiv", "urem", "srem"})


def check_no_dead_code(function: Any) -> None:
    """After the dead-code pass: no unused instruction of a kind that can
    have no effect beyond its result (a deliberately short list: arithmetic
    other than integer division, comparisons, casts, GEPs, selects, vector
    element and aggregate operations, phis)."""
    pure = _pure_classes()
    for inst in function.instructions():
        if inst.uses or not isinstance(inst, pure):
            continue
        if getattr(inst, "opcode", None) in _TRAPPING:
            continue
        raise AnalysisMismatch("dead-code post-condition", function.name,
                               f"{_label(inst)} in block {_label(inst.parent)} is unused and has no "
                               "effect, but is still there")


def check_packetization_values(function: Any, packets: Any) -> None:
    """`PacketizationAnalysis.values` lists every value it marks, once."""
    values = packets.values
    seen: set[int] = set()
    for v in values:
        if id(v) in seen:
            raise AnalysisMismatch("PacketizationAnalysis", function.name, f"{_label(v)} is listed twice")
        seen.add(id(v))
        if not packets.needs_packet(v):
            raise AnalysisMismatch("PacketizationAnalysis", function.name,
                                   f"{_label(v)} is listed but not marked as needing a packet")
    for inst in function.instructions():
        if id(inst) not in seen and packets.needs_packet(inst):
            raise AnalysisMismatch("PacketizationAnalysis", function.name,
                                   f"{_label(inst)} needs a packet but is missing from its value list")


def conditional_branches(function: Any) -> int:
    """How many blocks end in a branch with a choice (conditional branch or switch)."""
    count = 0
    for block in function.blocks:
        if len({id(s) for s in block.successors}) > 1:
            count += 1
    return count


def check_conversion_reported(function: Any, before: int, stats: dict[str, int]) -> None:
    """Control-flow conversion that removed branches (`before` counted on the
    function it was given) says what it did."""
    after = conditional_branches(function)
    if after < before and not any(stats.values()):
        raise AnalysisMismatch("control-flow-conversion statistics", function.name,
                               f"{before - after} of {before} branches were converted, "
                               "but the statistics report nothing")


# Work-item queries that differ between lanes along the dimension they are asked for.
_LANE_IDS = frozenset({"_Z13get_global_idj", "_Z12get_local_idj"})


def check_uniformity(function: Any, uniform: Any, dim: int) -> None:
    """Uniform Value Analysis, as computed: its list of varying values has
    each once; `get_global_id(dim)`/`get_local_id(dim)` are varying; and an
    instruction other than a call (calls may reduce a packet to one answer)
    with a varying operand is varying."""
    from ..ir import instructions as I
    from ..ir import values as V

    name = "UniformValueAnalysis"
    seen: set[int] = set()
    is_varying = uniform.is_varying
    for v in uniform.varying_values:
        if id(v) in seen:
            raise AnalysisMismatch(name, function.name, f"{_label(v)} is listed twice as varying")
        seen.add(id(v))
        if not is_varying(v):
            raise AnalysisMismatch(name, function.name, f"{_label(v)} is listed as varying but not marked")
    call, local = I.CallInst, (I.Instruction, V.Argument)
    for inst in function.instructions():
        if isinstance(inst, call):
            callee = inst.called_function
            args = inst.args
            if (callee is not None and callee.name in _LANE_IDS and len(args) == 1
                    and isinstance(args[0], V.ConstantInt) and args[0].unsigned == dim
                    and not uniform.is_varying(inst)):
                raise AnalysisMismatch(name, function.name, f"{_label(inst)} = {callee.name}({dim}) is uniform")
            continue
        if is_varying(inst):
            continue
        operands = inst.operands
        if not any(map(is_varying, operands)):
            continue  # the common case, asked without a Python loop
        for op in operands:
            if isinstance(op, local) and is_varying(op):
                raise AnalysisMismatch(name, function.name, f"{_label(inst)} is uniform, but its operand "
                                       f"{_label(op)} is varying")
