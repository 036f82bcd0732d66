"""Safe Gather Addressing: on a target without fast gather instructions, a
masked gather loads every lane, inactive lanes from a safe slot.

Such a backend expands `llvm.masked.gather` with a mask it cannot see
through into one conditional branch per lane, and in divergent code those
branches follow the mask and mispredict. Giving the inactive lanes an
address that is always dereferenceable (a private constant of the module,
`@__vecz_b_safe_slot_p<AS>`) makes the gather unmasked, which expands into
plain loads and inserts: no branch at all. An inactive lane's result is
poison under the masked gather's contract unless a pass-through value is
given; the pass-through is restored with one select.

Loading from the slot is harmless: it is never written, and an active
lane's address is loaded exactly as before. Only address spaces whose
globals are ordinary memory (0, global 1, constant 2) are rewritten.

Runs after packetization; edits the function it is given and adds the
slot to its module.
"""

from __future__ import annotations

from ..analysis.data_layout import DataLayout
from ..ir import instructions as I
from ..ir import types as T
from ..ir import values as V
from ..ir.builder import Builder

SLOT_PREFIX = "__vecz_b_safe_slot_p"
SLOT_BYTES = 64
ADDRESS_SPACES = (0, 1, 2)


def _is_masked_gather(inst: I.Instruction) -> bool:
    if not isinstance(inst, I.CallInst):
        return False
    fn = inst.called_function
    return fn is not None and fn.name.startswith("llvm.masked.gather.")


def _all_true(mask: V.Value) -> bool:
    if isinstance(mask, V.ConstantVector):
        return all(isinstance(m, V.ConstantInt) and m.unsigned & 1 for m in mask.elements)
    return False


def safe_slot(module: V.Module, addrspace: int) -> V.GlobalVariable:
    """The module's never-written, dereferenceable slot in `addrspace`."""
    name = f"{SLOT_PREFIX}{addrspace}"
    slot = module.get_global(name)
    if slot is None:
        ty = T.ArrayType(T.IntType(8), SLOT_BYTES)
        slot = V.GlobalVariable(
            name, ty, V.ConstantAggregateZero(ty), linkage="internal", is_constant=True,
            addrspace=addrspace, align=SLOT_BYTES, attrs="unnamed_addr",
        )
        module.add_global(slot)
    return slot


def address_gathers_safely(fn: V.Function, module: V.Module, layout: DataLayout) -> int:
    """Rewrite the masked gathers of `fn` to unmasked ones with a safe address
    in inactive lanes. Returns how many were rewritten."""
    done = 0
    b = Builder()
    for block in fn.blocks:
        for inst in list(block.instructions):
            if not _is_masked_gather(inst):
                continue
            ptrs, mask, passthru = inst.args
            pty = ptrs.type
            assert isinstance(pty, T.VectorType) and isinstance(pty.element, T.PointerType)
            space = pty.element.addrspace
            vty = inst.type
            assert isinstance(vty, T.VectorType)
            if _all_true(mask) or space not in ADDRESS_SPACES or layout.store_size(vty.element) > SLOT_BYTES:
                continue
            b.position_before(inst)
            safe = V.splat(pty, safe_slot(module, space))
            inst.set_operand(0, b.select(mask, ptrs, safe, name="safe.ptrs"))
            inst.set_operand(1, V.splat(mask.type, V.ConstantInt(T.i1, 1)))
            inst.set_operand(2, V.PoisonValue(vty))
            if not isinstance(passthru, (V.PoisonValue, V.UndefValue)):
                b.position_after(inst)
                blend = b.select(mask, inst, passthru)
                inst.replace_all_uses_with(blend)
                blend.set_operand(1, inst)
            done += 1
    return done
