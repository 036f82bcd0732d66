"""Accesses made through atomic builtins are seen by the sanitizer and by
buffer-size inference (issue 19): every form (`atom_*`, `atomic_*`,
`atomic_fetch_*_explicit`, stores, compare-exchange, the `atomicrmw` and
`cmpxchg` instructions), on global and local pointers. Before, the `atom_*`
calls went unchecked: an index far from the buffer's start crashed the
inferred launch (SIGSEGV, no location) instead of sizing the buffer."""

from __future__ import annotations

from pathlib import Path

import pytest

import oracle

SHARED = Path(__file__).resolve().parents[3] / "shared"
BINNING = SHARED / "realworld-dev" / "ir" / "O1" / "parboil" / "benchmarks__mri-gridding__src__opencl_base__GPU_kernels.ll"

# form -> (declaration, the access of `%q`), `{a}` the address space.
FORMS = {
    "atom_add": ("declare i32 @_Z8atom_addPU3AS{a}Vjj(ptr addrspace({a}), i32)",
                 "%c = call i32 @_Z8atom_addPU3AS{a}Vjj(ptr addrspace({a}) %q, i32 1)"),
    "atomic_add": ("declare i32 @_Z10atomic_addPU3AS{a}Vii(ptr addrspace({a}), i32)",
                   "%c = call i32 @_Z10atomic_addPU3AS{a}Vii(ptr addrspace({a}) %q, i32 1)"),
    "atom_inc": ("declare i32 @_Z8atom_incPU3AS{a}Vj(ptr addrspace({a}))",
                 "%c = call i32 @_Z8atom_incPU3AS{a}Vj(ptr addrspace({a}) %q)"),
    "atomic_cmpxchg": ("declare i32 @_Z14atomic_cmpxchgPU3AS{a}Vjjj(ptr addrspace({a}), i32, i32)",
                       "%c = call i32 @_Z14atomic_cmpxchgPU3AS{a}Vjjj(ptr addrspace({a}) %q, i32 0, i32 7)"),
    "fetch_add_explicit": (
        "declare i32 @_Z25atomic_fetch_add_explicitPU3AS{a}VU7_Atomicii12memory_order(ptr addrspace({a}), i32, i32)",
        "%c = call i32 @_Z25atomic_fetch_add_explicitPU3AS{a}VU7_Atomicii12memory_order"
        "(ptr addrspace({a}) %q, i32 1, i32 0)"),
    "store_explicit": (
        "declare void @_Z21atomic_store_explicitPU3AS{a}VU7_Atomicii12memory_order(ptr addrspace({a}), i32, i32)",
        "call void @_Z21atomic_store_explicitPU3AS{a}VU7_Atomicii12memory_order(ptr addrspace({a}) %q, i32 5, i32 0)"),
    "compare_exchange": (
        "declare zeroext i1 @_Z30atomic_compare_exchange_strongPU3AS{a}VU7_AtomiciPii(ptr addrspace({a}), ptr, i32)",
        "%e = alloca i32, align 4\n  store i32 0, ptr %e, align 4\n"
        "  %c = call zeroext i1 @_Z30atomic_compare_exchange_strongPU3AS{a}VU7_AtomiciPii(ptr addrspace({a}) %q, ptr %e, i32 9)"),
    "atomicrmw": ("", "%c = atomicrmw add ptr addrspace({a}) %q, i32 1 seq_cst, align 4"),
    "cmpxchg": ("", "%c = cmpxchg ptr addrspace({a}) %q, i32 0, i32 3 seq_cst seq_cst, align 4"),
}

# The index of the atomic access: far from the start (from the data, up to
# 65535 elements) or one element before it.
INDEX = {
    "far": "%f = fmul float %v, 1.0e3\n  %s = fptosi float %f to i32\n  %m = and i32 %s, 65535\n  %idx = zext i32 %m to i64",
    "under": "%idx = add i64 %gid, -1",
}


def kernel(form: str, space: int, index: str) -> str:
    """A kernel whose only access to `%cnt` is one atomic at `index`."""
    decl, access = FORMS[form]
    return f"""define spir_kernel void @k(ptr addrspace(1) %in, ptr addrspace({space}) %cnt, ptr addrspace(1) %out) {{
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr inbounds float, ptr addrspace(1) %in, i64 %gid
  %v = load float, ptr addrspace(1) %p, align 4
  {INDEX[index]}
  %q = getelementptr inbounds i32, ptr addrspace({space}) %cnt, i64 %idx
  {access.format(a=space)}
  %o = getelementptr inbounds i64, ptr addrspace(1) %out, i64 %gid
  store i64 %idx, ptr addrspace(1) %o, align 8
  ret void
}}
declare i64 @_Z13get_global_idj(i32)
{decl.format(a=space)}
"""


CASES = [(f, 1) for f in FORMS] + [(f, 3) for f in ("atom_add", "atomic_cmpxchg", "compare_exchange", "atomicrmw")]


@pytest.mark.parametrize("form,space", CASES)
def test_far_atomic_is_sized_and_matches(form: str, space: int) -> None:
    rep = oracle.check(kernel(form, space, "far"), widths=[4])
    assert rep.summary == {"match": len(rep.results)}, rep.results
    # `%cnt` is sized to the range the atomics touched: far past 64 elements.
    for layout in rep.launches.values():
        kind, _elem, count = layout.split()[1].split(":")[:3]
        assert kind == ("buf" if space == 1 else "local") and int(count) > 1024, layout


@pytest.mark.parametrize("form,space", CASES)
def test_atomic_before_the_buffer_is_located_out_of_bounds(form: str, space: int) -> None:
    rep = oracle.check_scalar(kernel(form, space, "under"))
    faults = [r for r in rep.results if r.status != "match"]
    assert faults and {r.status for r in faults} == {"scalar-fault"}, rep.results
    d = faults[0].detail
    assert "out-of-bounds" in d and "at offset -4 of buffer 1 (argument %cnt)" in d, d
    assert "by work-item (0)" in d and " in k)" in d, d
    # The located instruction is the atomic access itself.
    assert FORMS[form][1].split("\n")[-1].strip().split("(")[0][:20] in d, d


@pytest.mark.skipif(not BINNING.exists(), reason="../shared/realworld-dev is not checked out")
def test_parboil_binning_kernel_is_judged() -> None:
    # Its bin index converts float coordinates (`fptoui`), which random
    # data makes huge; with the inferred buffers zero-filled it runs, at
    # every NDRange, and the vectorized kernel is compared with it.
    rep = oracle.check(BINNING.read_text(), kernel="binning_kernel", widths=[4])
    assert rep.summary == {"match": len(rep.results)}, rep.results
