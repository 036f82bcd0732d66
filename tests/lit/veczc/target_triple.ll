; -vecz-target-triple: the host's architecture is accepted (the target is
; the host CPU); any other is a usage error, never silently ignored.
; RUN: %veczc -S %s -k k -vecz-target-triple=%host_triple | FileCheck %s
; CHECK: define spir_kernel void @__vecz_v4_k(
; RUN: not %veczc -S %s -k k -vecz-target-triple=riscv64-unknown-linux-gnu 2>&1 | FileCheck --check-prefix=OTHER %s
; OTHER: veczc: error: -vecz-target-triple 'riscv64-unknown-linux-gnu': this veczc generates code for the host ({{.*}}) only
; RUN: not %veczc -S %s -k k -vecz-target-triple=spir64-unknown-unknown 2>&1 | FileCheck --check-prefix=SPIR %s
; SPIR: veczc: error: -vecz-target-triple 'spir64-unknown-unknown'

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @k(ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 1, ptr addrspace(1) %p, align 4
  ret void
}
