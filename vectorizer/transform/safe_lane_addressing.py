"""Safe Lane Addressing: masked memory accesses that would branch on their
mask become plain ones whose inactive lanes address a slot of their own.

- The scalar masked builtins left after packetization (one per lane, for
  accesses whose lanes are used one by one, or at a uniform address) are a
  branch around a load or store each; they become a plain load (store) at
  `select(mask, pointer, slot)`. On every target.
- On a target without fast gather instructions, whose backend expands
  `llvm.masked.gather`/`scatter` with a mask it cannot see through into one
  conditional branch per lane, the gathers and scatters become unmasked
  ones with the slot's address in inactive lanes: plain loads (stores) and
  element moves.

In divergent code such branches follow the mask and mispredict; the selects
do not. The slots:

- An inactive lane's load reads `@__vecz_b_safe_slot_p<AS>`, a
  constant nobody writes. Its value was poison under the masked access's
  contract; a gather's pass-through value, when given, comes back with one
  select.
- An inactive lane's store writes `@__vecz_b_sink_slot_p<AS>`, a
  variable nobody reads. Active lanes still store in lane order, so the
  last of several lanes writing one address still wins.

Active lanes access exactly what they accessed before. Only address spaces
whose globals are ordinary memory (0, global 1, constant 2 for gathers) are
rewritten.

Runs after packetization; edits the function it is given, adds the slots to
its module and drops masked load/store builtins nothing calls any more.
"""

from __future__ import annotations

from ..analysis.data_layout import DataLayout
from ..builtins.masked import classify_masked_call, is_masked_builtin_name
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


def _claimed_align(attributes: str) -> int:
    words = attributes.split()
    for i, w in enumerate(words[:-1]):
        if w == "align":
            return int(words[i + 1])
    return 1


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


def address_lanes_safely(fn: V.Function, module: V.Module, layout: DataLayout, vector_accesses: bool = True) -> int:
    """Rewrite the scalar masked loads and stores of `fn`, and (when
    `vector_accesses`) its masked gathers and scatters, to unmasked accesses
    with a slot's address in inactive lanes. Returns how many were rewritten."""
    done = 0
    callees: set[V.Function] = set()
    for block in fn.blocks:
        for inst in [i for i in block.instructions if isinstance(i, I.CallInst)]:  # only calls are rewritten
            callee = inst.called_function
            if _scalar_access(inst, module, layout):
                done += 1
                assert callee is not None
                callees.add(callee)
            elif vector_accesses and _vector_access(inst, module, layout):
                done += 1
    for callee in callees:
        if not callee.uses and is_masked_builtin_name(callee.name):
            callee.erase_from_parent()
    return done


def _fits(ty: T.Type, layout: DataLayout) -> bool:
    return layout.store_size(ty) <= SLOT_BYTES


def _scalar_access(inst: I.Instruction, module: V.Module, layout: DataLayout) -> bool:
    masked = classify_masked_call(inst)
    if masked is None or masked.kind not in ("load", "store"):
        return False
    ptr, ty = masked.pointer, masked.elem_type
    assert ptr is not None and ty is not None and isinstance(ptr.type, T.PointerType)
    space = ptr.type.addrspace
    align = masked.align or 1
    if align > SLOT_BYTES or not _fits(ty, layout):
        return False
    b = Builder()
    b.position_before(inst)
    if masked.kind == "load":
        if space not in GATHER_ADDRESS_SPACES:
            return False
        safe = b.select(masked.mask, ptr, safe_slot(module, space), name="safe.ptr")
        load = b.load(ty, safe, align=align, name=inst.name)
        inst.replace_all_uses_with(load)
    else:
        if space not in SCATTER_ADDRESS_SPACES:
            return False
        assert masked.value is not None
        safe = b.select(masked.mask, ptr, sink_slot(module, space), name="safe.ptr")
        b.store(masked.value, safe, align=align)
    inst.erase_from_parent()
    return True


def _vector_access(inst: I.Instruction, module: V.Module, layout: DataLayout) -> bool:
    kind = _intrinsic(inst)
    if kind is None:
        return False
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
    if _all_true(mask) or space not in spaces or not _fits(vty.element, layout):
        return False
    if _claimed_align(inst.arg_attributes[1 if kind == "scatter" else 0]) > SLOT_BYTES:
        return False  # the slot could not honour the alignment the access claims
    slot = safe_slot(module, space) if kind == "gather" else sink_slot(module, space)
    b = Builder()
    b.position_before(inst)
    safe = b.select(mask, ptrs, V.splat(pty, slot), name="safe.ptrs")
    all_on = V.splat(mask.type, V.ConstantInt(T.i1, 1))
    if kind == "scatter":
        inst.set_operand(1, safe)
        inst.set_operand(2, all_on)
        return True
    inst.set_operand(0, safe)
    inst.set_operand(1, all_on)
    inst.set_operand(2, V.PoisonValue(vty))
    if not isinstance(passthru, (V.PoisonValue, V.UndefValue)):
        b.position_after(inst)
        blend = b.select(mask, inst, passthru)
        inst.replace_all_uses_with(blend)
        blend.set_operand(1, inst)
    return True
