; OpenCL's integer abs has an exact element-wise intrinsic, llvm.abs with
; its INT_MIN-is-poison flag false (abs(INT_MIN) stays INT_MIN, as OpenCL's
; unsigned result has it); the flag is appended when widening.
; RUN: %veczc -k absolute -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_absolute(
; CHECK: call <4 x i32> @llvm.abs.v4i32(<4 x i32> %{{.+}}, i1 false)
; CHECK-NOT: @_Z3absi
; CHECK: ret void

declare i64 @_Z13get_global_idj(i32)
declare i32 @_Z3absi(i32)

define spir_kernel void @absolute(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pin = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %pin, align 4
  %y = call i32 @_Z3absi(i32 %x)
  %pout = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %y, ptr addrspace(1) %pout, align 4
  ret void
}
