; A stride-2 access is interleaved: a gather from lane 0's address plus
; <0, 8, 16, 24> bytes, with the scalar element alignment.
; RUN: %veczc -k even -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_even(
; CHECK: %[[BASE:.+]] = getelementptr {{.*}}, ptr addrspace(1) %in, i64 %{{.+}}
; CHECK: %[[PTRS:.+]] = getelementptr i8, ptr addrspace(1) %[[BASE]], <4 x i64> <i64 0, i64 8, i64 16, i64 24>
; CHECK: call <4 x float> @llvm.masked.gather.v4f32.v4p1(<4 x ptr addrspace(1)> align 4 %[[PTRS]], <4 x i1> splat (i1 true), <4 x float> poison)
; CHECK: store <4 x float>
; CHECK: ret void

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @even(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %two = shl i64 %gid, 1
  %pin = getelementptr inbounds float, ptr addrspace(1) %in, i64 %two
  %x = load float, ptr addrspace(1) %pin, align 4
  %pout = getelementptr inbounds float, ptr addrspace(1) %out, i64 %gid
  store float %x, ptr addrspace(1) %pout, align 4
  ret void
}
