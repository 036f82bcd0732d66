"""A builtin whose library body calls the C library (`sin` for
`sin(double)`) is resolved from the host process in every worker, not only
in one that has already built an execution engine.

LLVM searches the process's symbols only after an engine has opened it;
before the fix a fresh worker judged the vectorized kernel below
(`_Z3sind` inlined, so it declares `sin` itself) `vectorizer-error:
undefined function sin`, and a worker that had built anything before gave a
verdict."""

from __future__ import annotations

import subprocess
import sys

import oracle

KERNEL = """
declare i64 @_Z13get_global_idj(i32)
declare double @_Z3sind(double)

define spir_kernel void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %id = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr double, ptr addrspace(1) %in, i64 %id
  %x = load double, ptr addrspace(1) %p
  %r = call double @_Z3sind(double %x)
  %q = getelementptr double, ptr addrspace(1) %out, i64 %id
  store double %r, ptr addrspace(1) %q
  ret void
}
"""

_FRESH = """
from oracle import jit
print(jit._in_process("sin"), jit._in_process("__no_such_symbol_in_any_library"))
"""


def test_a_fresh_process_finds_libm_and_not_a_missing_symbol() -> None:
    out = subprocess.run([sys.executable, "-c", _FRESH], capture_output=True, text=True, timeout=60,
                         check=True).stdout.split()
    assert out == ["True", "False"]


def test_inlined_double_sine_matches_in_a_fresh_worker() -> None:
    oracle.close()  # the next check starts a new worker: no engine made in it yet
    report = oracle.check(KERNEL, kernel="k", widths=[4], ndranges=["global=16 local=4"], timeout=30)
    assert report.results and {r.status for r in report.results} == {"match"}, report.results
