; --verify-each runs LLVM's verifier after every pass (a failure names the
; pass: "invalid IR after pass 'X'", exit 3; tests/unit/test_pass_manager.py
; breaks a pass on purpose). On valid work it changes nothing.
; RUN: %veczc -S %s -o %t.plain.ll
; RUN: %veczc -S %s -o %t.verified.ll --verify-each
; RUN: diff %t.plain.ll %t.verified.ll
; RUN: %veczc -S %s -o %t.boscc.ll --verify-each -vecz-choices=LinearizeBOSCC\;VectorPredication
; RUN: FileCheck %s < %t.boscc.ll
; CHECK: define spir_kernel void @__vecz_v4_divide(

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @divide(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pi = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %gid
  %d = load i32, ptr addrspace(1) %pi, align 4
  %nz = icmp ne i32 %d, 0
  br i1 %nz, label %div, label %done
div:
  %q = sdiv i32 100, %d
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %q, ptr addrspace(1) %p, align 4
  br label %done
done:
  ret void
}
