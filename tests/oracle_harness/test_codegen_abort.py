"""An LLVM abort while the oracle compiles a vectorized kernel costs one
worker process and comes back as that configuration's `vectorizer-error`,
naming the crash; the harness and the pool go on.

The vectorized kernel below is what the packetizer emitted before divisions
with a uniform operand were split lane by lane (fuzz seed 4001, `subgroup`
profile): a vector `srem` whose dividend is a broadcast of one element of a
loaded vector, a `get_local_id` call between the load and the division.
LLVM 22's x86 instruction selection aborts on it at codegen -O0 ("Node is
not in map!", a TokenFactor built as its own operand)."""

from __future__ import annotations

import subprocess
import sys

import oracle

SCALAR = """
declare i64 @_Z13get_global_idj(i32)
declare i64 @_Z12get_local_idj(i32)

define spir_kernel void @divide(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %v = load <8 x i32>, ptr addrspace(1) %in, align 32
  %e = extractelement <8 x i32> %v, i64 2
  %lid = call i64 @_Z12get_local_idj(i32 0)
  %l = trunc i64 %lid to i32
  %d = add i32 %l, 1
  %q = srem i32 %e, %d
  %a = and i32 %q, 1023
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %a, ptr addrspace(1) %p, align 4
  ret void
}
"""

VECTORIZED = """
define spir_kernel void @__vecz_v8_divide(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %v = load <8 x i32>, ptr addrspace(1) %in, align 32
  %0 = shufflevector <8 x i32> %v, <8 x i32> poison, <8 x i32> <i32 2, i32 2, i32 2, i32 2, i32 2, i32 2, i32 2, i32 2>
  %lid = call i64 @_Z12get_local_idj(i32 0)
  %l = trunc i64 %lid to i32
  %d = add i32 %l, 1
  %1 = insertelement <8 x i32> poison, i32 %d, i64 0
  %2 = shufflevector <8 x i32> %1, <8 x i32> poison, <8 x i32> zeroinitializer
  %3 = add <8 x i32> %2, <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %q.v = srem <8 x i32> %0, %3
  %a.v = and <8 x i32> %q.v, splat (i32 1023)
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store <8 x i32> %a.v, ptr addrspace(1) %p, align 4
  ret void
}
"""

_COMPILE = """
import sys
import llvmlite.binding as llvm
from oracle.jit import native_text, target_machine
from vectorizer.llvm_context import new_context, parse_in
tm = target_machine(0)
mod = parse_in(new_context(), native_text(sys.stdin.read()))
mod.triple = llvm.get_process_triple()
mod.data_layout = str(tm.target_data)
tm.emit_object(mod)
"""


def _llvm_aborts() -> bool:
    proc = subprocess.run([sys.executable, "-c", _COMPILE], input=SCALAR + VECTORIZED,
                          capture_output=True, text=True, timeout=120)
    return proc.returncode < 0


def test_codegen_abort_is_the_configurations_vectorizer_error_and_the_pool_goes_on() -> None:
    aborts = _llvm_aborts()
    report = oracle.check(SCALAR + VECTORIZED, kernel="divide", vectorized="__vecz_v8_divide", widths=[8],
                          ndranges=["global=16 local=8"], timeout=20)
    statuses = {r.status for r in report.results}
    if aborts:
        assert statuses == {"vectorizer-error"}, report.results
        assert all("LLVM crash compiling the vectorized kernel" in r.detail and "SIGABRT" in r.detail
                   for r in report.results), report.results
        # LLVM's own last words name the problem.
        assert all("LLVM: Node is not in map! (unreachable, SelectionDAG.cpp:" in r.detail
                   for r in report.results), report.results
    else:  # an LLVM without the bug: the same kernel is simply correct
        assert statuses == {"match"}, report.results
    # The pool's replacement worker serves the next check.
    after = oracle.check(SCALAR, kernel="divide", widths=[8], ndranges=["global=16 local=8"], timeout=20)
    assert {r.status for r in after.results} == {"match"}, after.results


def test_llvm_messages_are_read_from_a_dead_workers_stderr() -> None:
    from oracle.worker import _llvm_message

    dump = "t1: ch = TokenFactor t1\n\nNode is not in map!\nUNREACHABLE executed at /b/llvm/lib/X/SelectionDAG.cpp:1257!\n"
    assert _llvm_message(dump) == "LLVM: Node is not in map! (unreachable, SelectionDAG.cpp:1257)"
    assert _llvm_message("noise\nLLVM ERROR: Cannot select: t5\n") == "LLVM: Cannot select: t5"
    assert _llvm_message("python: /b/Casting.h:566: decltype(auto) llvm::cast(From*): Assertion "
                         "`isa<To>(Val) && \"cast<Ty>() argument of incompatible type!\"' failed.\n"
                         ).startswith("LLVM assertion: isa<To>(Val)")
    assert _llvm_message("Fatal Python error: Segmentation fault\n") == ""
