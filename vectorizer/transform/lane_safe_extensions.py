"""Lane-Safe Extensions: `zext nneg` of a varying value becomes `sext`, and
the GEPs it indexes drop the promises lane 0 may break.

clang marks an extension `zext nneg` where a guard proves the operand
non-negative, as in `if (lid >= off) v = in[lid - off]`. The packetizer
builds the packet of a linear value from lane 0's scalar value plus a step,
and a contiguous access from lane 0's scalar address. In a masked block
lane 0 may be inactive: its operand may be negative there, which makes its
`zext nneg` poison and, once LLVM lowers it as a plain zero extension, an
index four billion elements away; a contiguous masked load from there
faults where the scalar kernel never did. `sext` equals `zext nneg`
wherever the flag holds and continues the lanes linearly where it does not,
so it refines the original (poison may become any value). A GEP indexed by
the refined value loses `nuw`, `nusw` and `inbounds`, which lane 0's
address may equally break, so LLVM cannot turn the `sext` back into a zero
extension from them.

Edits only the given function.
"""

from __future__ import annotations

from ..analysis.uniformity import UniformValueAnalysis
from ..ir import instructions as I
from ..ir import values as V
from ..ir.builder import Builder

_GEP_PROMISES = frozenset({"nuw", "nusw", "inbounds"})


def make_extensions_lane_safe(fn: V.Function, uniform: UniformValueAnalysis) -> int:
    """Rewrite `fn`'s varying `zext nneg`s; returns how many."""
    count = 0
    for inst in list(fn.instructions()):
        if not (isinstance(inst, I.CastInst) and inst.opcode == "zext" and "nneg" in inst.flags):
            continue
        if not uniform.is_varying(inst.value):
            continue  # lane 0's operand is every active lane's: the flag holds for it
        sext = Builder().position_before(inst).sext(inst.value, inst.type, name=inst.name)
        inst.name = None
        for user in list(inst.users):
            if isinstance(user, I.GetElementPtrInst):
                user.flags = {f for f in user.flags if f not in _GEP_PROMISES}
        inst.replace_all_uses_with(sext)
        inst.erase_from_parent()
        count += 1
    return count
