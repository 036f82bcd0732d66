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


# The sanitized run of a kernel storing <4 x double>, in-process, called
# through a trampoline that moves the stack down by 16 and by 32 bytes: one
# of the two puts the kernel's frame on 16 bytes but not 32, whatever the
# process's own stack. A separate process, so a segfault fails the test
# instead of ending pytest.
_SHIFTED_RUNS = '''
import ctypes
import llvmlite.binding as llvm
from oracle import sanitizer
from oracle.case import parse_arg, parse_ndrange
from oracle.jit import SANITIZED, Variant
from oracle.worker import Executor

KERNEL = """
define spir_kernel void @wide(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %a = getelementptr <4 x double>, ptr addrspace(1) %in, i64 %gid
  %v = load <4 x double>, ptr addrspace(1) %a, align 32
  %p = getelementptr <4 x double>, ptr addrspace(1) %out, i64 %gid
  store <4 x double> %v, ptr addrspace(1) %p, align 32
  ret void
}
declare i64 @_Z13get_global_idj(i32)
"""
ex = Executor()
assert ex.build("k", "wide", KERNEL, [Variant(SANITIZED, "wide", "", 0, 0, False)], 0)[0] == "ok"
lib = sanitizer.library()
mod = llvm.parse_assembly("""
define i32 @shifted(i64 %n, ptr %run, ptr %d, ptr %a, ptr %c) {
  %pad = alloca i8, i64 %n, align 16
  store volatile i8 0, ptr %pad
  %r = call i32 %run(ptr %d, ptr %a, ptr %c)
  ret i32 %r
}""")
eng = llvm.create_mcjit_compiler(mod, llvm.Target.from_default_triple().create_target_machine())
eng.finalize_object()
shifted = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int64, *[ctypes.c_void_p] * 4)(
    eng.get_function_address("shifted"))
real = ctypes.cast(lib.run, ctypes.c_void_p).value
layout = (parse_arg("buf:4xf64:64:random"), parse_arg("buf:4xf64:64:random"))
nd = parse_ndrange("global=64 local=16")
for n in (1, 17):  # rounded to 16 and 32 bytes
    lib.run = lambda d, a, c, n=n: shifted(n, real, d, a, c)
    res = ex.run("k", SANITIZED, layout, nd, 1)
    assert res[0] == "ok" and res[-1]["status"] == "clean", res
    print("ran", n)
'''


def test_sanitized_wide_store_runs_whatever_the_stack_alignment() -> None:
    import subprocess
    import sys

    res = subprocess.run([sys.executable, "-c", _SHIFTED_RUNS], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, (res.returncode, res.stderr[-2000:])
    assert res.stdout.split() == ["ran", "1", "ran", "17"]
