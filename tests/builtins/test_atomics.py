"""Atomic builtins: defined once (vectorizer/builtins/atomics.py) for the
scalar reference and the vectorized run, which instantiates each call per lane."""

from __future__ import annotations

import pytest

from oracle import runtime
from oracle.check import check
from vectorizer.builtins import atomics

HEAD = """target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spir64-unknown-unknown"
"""

# A histogram with every family: OpenCL 1.2 atomic_*, the extensions' atom_*,
# OpenCL 2.0 atomic_fetch_*_explicit and compare-exchange; global memory.
KERNEL = HEAD + """
define spir_kernel void @hist(ptr addrspace(1) %h, ptr addrspace(1) %in, ptr addrspace(1) %m) {
entry:
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %p, align 4
  %b = and i32 %x, 7
  %bi = zext i32 %b to i64
  %q = getelementptr i32, ptr addrspace(1) %h, i64 %bi
  %0 = call spir_func i32 @_Z8atom_incPU3AS1Vi(ptr addrspace(1) %q)
  %q2 = getelementptr i32, ptr addrspace(1) %h, i64 8
  %1 = call spir_func i32 @_Z10atomic_addPU3AS1Vjj(ptr addrspace(1) %q2, i32 %x)
  %q3 = getelementptr i32, ptr addrspace(1) %h, i64 9
  %2 = call spir_func i32 @_Z10atomic_maxPU3AS1Vii(ptr addrspace(1) %q3, i32 %x)
  %q4 = getelementptr i32, ptr addrspace(1) %h, i64 10
  %3 = call spir_func i32 @_Z25atomic_fetch_xor_explicitPU3AS1VU7_Atomicjj12memory_order(ptr addrspace(1) %q4, i32 %x, i32 0)
  %c = icmp ugt i32 %x, 100
  br i1 %c, label %big, label %done
big:
  %q5 = getelementptr i32, ptr addrspace(1) %h, i64 11
  %4 = call spir_func i32 @_Z8atom_minPU3AS1Vjj(ptr addrspace(1) %q5, i32 %x)
  %q6 = getelementptr i64, ptr addrspace(1) %m, i64 0
  %5 = call spir_func i64 @_Z8atom_addPU3AS1Vll(ptr addrspace(1) %q6, i64 1)
  br label %done
done:
  ret void
}
declare spir_func i64 @_Z13get_global_idj(i32)
declare spir_func i32 @_Z8atom_incPU3AS1Vi(ptr addrspace(1))
declare spir_func i32 @_Z10atomic_addPU3AS1Vjj(ptr addrspace(1), i32)
declare spir_func i32 @_Z10atomic_maxPU3AS1Vii(ptr addrspace(1), i32)
declare spir_func i32 @_Z25atomic_fetch_xor_explicitPU3AS1VU7_Atomicjj12memory_order(ptr addrspace(1), i32, i32)
declare spir_func i32 @_Z8atom_minPU3AS1Vjj(ptr addrspace(1), i32)
declare spir_func i64 @_Z8atom_addPU3AS1Vll(ptr addrspace(1), i64)
"""


def test_histogram_with_atomics_matches_at_every_width() -> None:
    rep = check(KERNEL, kernel="hist", widths=[4, 8, 16],
                layout=["buf:i32:16:zero", "buf:i32:64", "buf:i64:1:zero"], ndranges=["global=64 local=16", "global=61 local=61"])
    bad = [(r.width, r.status, r.detail) for r in rep.results if r.status != "match"]
    assert rep.results and not bad, bad


@pytest.mark.parametrize(("name", "ret", "params", "needle"), [
    ("_Z8atom_addPU3AS3Vjj", "i32", ["ptr addrspace(3)", "i32"], "atomicrmw add ptr addrspace(3)"),
    ("_Z10atomic_minPU3AS1Vjj", "i32", ["ptr addrspace(1)", "i32"], "atomicrmw umin"),
    ("_Z10atomic_minPU3AS1Vii", "i32", ["ptr addrspace(1)", "i32"], "atomicrmw min"),
    ("_Z8atom_decPU3AS1Vm", "i64", ["ptr addrspace(1)"], "atomicrmw sub ptr addrspace(1) %a0, i64 1"),
    ("_Z14atomic_cmpxchgPU3AS1Vjjj", "i32", ["ptr addrspace(1)", "i32", "i32"], "cmpxchg"),
    ("_Z11atomic_xchgPU3AS1Vff", "float", ["ptr addrspace(1)", "float"], "atomicrmw xchg ptr addrspace(1) %a0, float"),
    ("_Z11atomic_loadPU3AS4VU7_Atomici", "i32", ["ptr addrspace(4)"], "load atomic i32"),
    ("_Z12atomic_storePU3AS3VU7_Atomicii", "void", ["ptr addrspace(3)", "i32"], "store atomic i32"),
    ("_Z30atomic_compare_exchange_strongPU3AS1VU7_AtomiciPU3AS4ii", "i1",
     ["ptr addrspace(1)", "ptr addrspace(4)", "i32"], "cmpxchg"),
])
def test_definitions_parse_and_use_the_right_instruction(name: str, ret: str, params: list[str], needle: str) -> None:
    from vectorizer.ir import parse_module

    text = atomics.definition(name, ret, params)
    assert text is not None and needle in text
    parse_module(text)
    em = runtime._Emitter()
    assert runtime.builtin_definition(name, runtime.FnSig(ret, tuple(params)), em) == text


def test_not_an_atomic() -> None:
    assert atomics.definition("_Z3expf", "float", ["float"]) is None
    assert not atomics.is_atomic("_Z22atomic_work_item_fencej12memory_order12memory_scope")
