"""Safe Lane Addressing: on a target without fast gather instructions, masked
gathers and scatters become unmasked ones whose inactive lanes address a
slot of their own.

Such a backend expands `llvm.masked.gather`/`scatter` with a mask it cannot
see through into one conditional branch per lane, and in divergent code
those branches follow the mask and mispredict. Giving the inactive lanes an
address that is always valid makes the access unmasked, which expands into
plain loads (or stores) and element moves: no branch at all.

- A gather's inactive lanes load from `@__vecz_b_safe_slot_p<AS>`, a
  constant nobody writes. Their result is poison under the masked gather's
  contract unless a pass-through value is given; that comes back with one
  select.
- A scatter's inactive lanes store into `@__vecz_b_sink_slot_p<AS>`, a
  variable nobody reads. Active lanes still store in lane order, so the
  last of several lanes writing one address still wins.

Active lanes access exactly what they accessed before. Only address spaces
whose globals are ordinary memory (0, global 1, constant 2 for gathers) are
rewritten.

Runs after packetization; edits the function it is given and adds the slots
to its module.
"""

from __future__ import annotations

from ..analysis.data_layout import DataLayout
from ..ir import instructions as I
from ..ir import types as T
from ..ir import values as V
from ..ir.builder import Builder

SAFE_SLOT_PREFIX = "__vecz_b_safe_slot_p"
SINK_SLOT_PREFIX = "__vecz_b_sink_slot_p"
SLOT_BYTES = 64
GATHER_ADDRESS_SPACES = (0, 1, 2)
SCATTER_ADDRESS_SPACES = (0, 1)


def _intrinsic(inst: I.Instruction) -> str | None:
    """"gather" or "scatter" for a call to the masked intrinsic."""
    if not isinstance(inst, I.CallInst):
        return None
    fn = inst.called_function
    if fn is None:
        return None
    if fn.name.startswith("llvm.masked.gather."):
        return "gather"
    if fn.name.startswith("llvm.masked.scatter."):
        return "scatter"
    return None


def _all_true(mask: V.Value) -> bool:
    if isinstance(mask, V.ConstantVector):
        return all(isinstance(m, V.ConstantInt) and m.unsigned & 1 for m in mask.elements)
    return False


def _slot(module: V.Module, prefix: str, addrspace: int, constant: bool) -> V.GlobalVariable:
    name = f"{prefix}{addrspace}"
    slot = module.get_global(name)
    if slot is None:
        ty = T.ArrayType(T.IntType(8), SLOT_BYTES)
        slot = V.GlobalVariable(
            name, ty, V.ConstantAggregateZero(ty), linkage="internal", is_constant=constant,
            addrspace=addrspace, align=SLOT_BYTES, attrs="unnamed_addr" if constant else "",
        )
        module.add_global(slot)
    return slot


def safe_slot(module: V.Module, addrspace: int) -> V.GlobalVariable:
    """The module's never-written, always-readable slot in `addrspace`."""
    return _slot(module, SAFE_SLOT_PREFIX, addrspace, constant=True)


def sink_slot(module: V.Module, addrspace: int) -> V.GlobalVariable:
    """The module's never-read, always-writable slot in `addrspace`."""
    return _slot(module, SINK_SLOT_PREFIX, addrspace, constant=False)


def address_lanes_safely(fn: V.Function, module: V.Module, layout: DataLayout) -> int:
    """Rewrite the masked gathers and scatters of `fn` to unmasked ones with a
    slot's address in inactive lanes. Returns how many were rewritten."""
    done = 0
    b = Builder()
    for block in fn.blocks:
        for inst in list(block.instructions):
            kind = _intrinsic(inst)
            if kind is None:
                continue
            if kind == "gather":
                ptrs, mask, passthru = inst.args
                vty = inst.type
            else:
                value, ptrs, mask = inst.args
                vty = value.type
            pty = ptrs.type
            assert isinstance(pty, T.VectorType) and isinstance(pty.element, T.PointerType)
            assert isinstance(vty, T.VectorType)
            space = pty.element.addrspace
            spaces = GATHER_ADDRESS_SPACES if kind == "gather" else SCATTER_ADDRESS_SPACES
            if _all_true(mask) or space not in spaces or layout.store_size(vty.element) > SLOT_BYTES:
                continue
            slot = safe_slot(module, space) if kind == "gather" else sink_slot(module, space)
            b.position_before(inst)
            safe = b.select(mask, ptrs, V.splat(pty, slot), name="safe.ptrs")
            all_on = V.splat(mask.type, V.ConstantInt(T.i1, 1))
            if kind == "scatter":
                inst.set_operand(1, safe)
                inst.set_operand(2, all_on)
                done += 1
                continue
            inst.set_operand(0, safe)
            inst.set_operand(1, all_on)
            inst.set_operand(2, V.PoisonValue(vty))
            if not isinstance(passthru, (V.PoisonValue, V.UndefValue)):
                b.position_after(inst)
                blend = b.select(mask, inst, passthru)
                inst.replace_all_uses_with(blend)
                blend.set_operand(1, inst)
            done += 1
    return done
