; An index loaded from memory gives no stride: the load through it becomes a
; gather and the store through it a scatter.
; RUN: %veczc -k permute -w 8 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v8_permute(
; CHECK: %[[IDX:.+]] = load <8 x i32>, ptr addrspace(1)
; CHECK: call <8 x float> @llvm.masked.gather.v8f32.v8p1(<8 x ptr addrspace(1)> align 4
; CHECK: call void @llvm.masked.scatter.v8f32.v8p1(<8 x float> %{{.+}}, <8 x ptr addrspace(1)> align 4 %{{.+}}, <8 x i1> splat (i1 true))
; CHECK: ret void

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @permute(ptr addrspace(1) %idx, ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pidx = getelementptr inbounds i32, ptr addrspace(1) %idx, i64 %gid
  %i = load i32, ptr addrspace(1) %pidx, align 4
  %iext = sext i32 %i to i64
  %pin = getelementptr inbounds float, ptr addrspace(1) %in, i64 %iext
  %x = load float, ptr addrspace(1) %pin, align 4
  %pout = getelementptr inbounds float, ptr addrspace(1) %out, i64 %iext
  store float %x, ptr addrspace(1) %pout, align 4
  ret void
}
