"""The sanitized kernel hands a store's value to the run-time library
through a stack slot (oracle/instrument.py). Stores of wide vectors into
that slot must not claim more alignment than the slot has: an implicit
`align` is the type's ABI alignment (32 for <4 x double>), the JIT then
emits an aligned vector move, and the sanitized run segfaults in every
process whose stack puts the kernel's frame on 16 bytes but not 32 (it
was a nondeterministic worker crash in campaigns)."""

from __future__ import annotations

import pytest

from oracle.instrument import instrument
from vectorizer.ir import instructions as I
from vectorizer.ir import parse_module

# Wide values stored to a buffer every work-item writes (so the stores are
# tracked and the library is passed their values).
KERNEL = """
define spir_kernel void @wide(ptr addrspace(1) %out, ptr addrspace(3) %tmp, <4 x double> %d, <16 x float> %f) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %lid = call i64 @_Z12get_local_idj(i32 0)
  %p = getelementptr <4 x double>, ptr addrspace(1) %out, i64 %gid
  store <4 x double> %d, ptr addrspace(1) %p, align 32
  %q = getelementptr <16 x float>, ptr addrspace(3) %tmp, i64 %lid
  store <16 x float> %f, ptr addrspace(3) %q, align 64
  ret void
}

declare i64 @_Z13get_global_idj(i32)
declare i64 @_Z12get_local_idj(i32)
"""


def _slot_stores() -> list[tuple[I.StoreInst, I.AllocaInst]]:
    got = instrument(KERNEL, "wide")
    mod = parse_module(got.text)
    fn = next(f for f in mod.functions if f.name == got.entry)
    return [(i, i.pointer) for i in fn.instructions()
            if isinstance(i, I.StoreInst) and isinstance(i.pointer, I.AllocaInst)]


def test_wide_values_reach_the_library_through_the_slot() -> None:
    types = {str(st.value.type) for st, _slot in _slot_stores()}
    assert {"<4 x double>", "<16 x float>"} <= types, types


@pytest.mark.parametrize("case", range(2))
def test_slot_stores_claim_no_more_alignment_than_the_slot(case: int) -> None:
    st, slot = _slot_stores()[case]
    assert slot.align is not None
    # An explicit alignment (an implicit one is the type's: up to 64 here).
    assert st.align is not None and st.align <= slot.align, (str(st.value.type), st.align, slot.align)
