"""OpenCL `abs` of an unsigned integer is the value itself. A `noinline`
call to it stays a call, and the packetizer used to replace it by
`llvm.abs` (a signed absolute value) whatever the signedness: 0xd9c28... in,
0x263d7... out (fuzz seed 20799, found by a campaign once the generator
called the builtin library)."""

from __future__ import annotations

import pytest

import oracle
from vectorizer.builtins.math import opencl_builtin_as_intrinsic

# (OpenCL type, mangled letter, IR type)
TYPES = [("uchar", "h", "i8"), ("ushort", "t", "i16"), ("uint", "j", "i32"), ("ulong", "m", "i64"),
         ("char", "c", "i8"), ("short", "s", "i16"), ("int", "i", "i32"), ("long", "l", "i64")]


def _kernel(letter: str, ty: str) -> str:
    return f"""
declare i64 @_Z13get_global_idj(i32)
declare {ty} @_Z3abs{letter}({ty})
define spir_kernel void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {{
entry:
  %id = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr {ty}, ptr addrspace(1) %in, i64 %id
  %x = load {ty}, ptr addrspace(1) %p
  %a = call {ty} @_Z3abs{letter}({ty} %x) noinline
  %q = getelementptr {ty}, ptr addrspace(1) %out, i64 %id
  store {ty} %a, ptr addrspace(1) %q
  ret void
}}
"""


@pytest.mark.parametrize("cl, letter, ty", TYPES)
def test_abs_as_intrinsic_only_when_signed(cl: str, letter: str, ty: str) -> None:
    got = opencl_builtin_as_intrinsic(f"_Z3abs{letter}")
    if cl.startswith("u"):
        assert got is None
    else:
        assert got == (f"llvm.abs.{ty}", (1,))


@pytest.mark.parametrize("cl, letter, ty", TYPES)
def test_noinline_abs_matches(cl: str, letter: str, ty: str) -> None:
    # Random bits: half the inputs have their top bit set, where the two differ.
    report = oracle.check(_kernel(letter, ty), kernel="k", widths=[1, 4, 8],
                          ndranges=["global=32 local=16"], layout=[f"buf:{ty}:32:random", f"buf:{ty}:32:zero"],
                          timeout=30)
    assert report.results and {r.status for r in report.results} == {"match"}, report.results
