; -k name:4,8,16 emits three vectorized kernels beside the original.
; RUN: %veczc -k copy:4,8,16 -S %s -o %t.ll
; RUN: FileCheck %s < %t.ll

; CHECK-DAG: define spir_kernel void @copy(
; CHECK-DAG: define spir_kernel void @__vecz_v4_copy(
; CHECK-DAG: define spir_kernel void @__vecz_v8_copy(
; CHECK-DAG: define spir_kernel void @__vecz_v16_copy(
; CHECK-DAG: !vecz.vectorized = !{

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @copy(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pin = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %pin, align 4
  %pout = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %x, ptr addrspace(1) %pout, align 4
  ret void
}
