; Clamp Versioning: `in[min(x + 1, n - 1)]` is a gather (the clamp hides the
; stride), but when no lane of the packet is clamped the index is x + 1 in
; every lane. A uniform branch on `all lanes unclamped` picks one contiguous
; vector load; the gather stays for packets at the border.
; RUN: %veczc -k right -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_right(
; CHECK: %[[CLAMPED:.+]] = icmp sgt <4 x i32> %{{.+}}, %{{.+}}
; CHECK: %[[BITS:.+]] = bitcast <4 x i1> %[[CLAMPED]] to i4
; CHECK: %[[NONE:.+]] = icmp eq i4 %[[BITS]], 0
; CHECK: br i1 %[[NONE]], label %clamp.fast, label %clamp.slow
; CHECK: clamp.fast:
; CHECK: %[[FAST:.+]] = load <4 x float>, ptr addrspace(1) %{{.+}}, align 4
; CHECK: clamp.slow:
; CHECK: %[[SLOW:.+]] = call <4 x float> @llvm.masked.gather.v4f32.v4p1(
; CHECK: clamp.join:
; CHECK: %[[V:.+]] = phi <4 x float> [ %[[FAST]], %clamp.fast ], [ %[[SLOW]], %clamp.slow ]
; CHECK: store <4 x float> %[[V]], ptr addrspace(1)

declare i64 @_Z13get_global_idj(i32)
declare i32 @llvm.smin.i32(i32, i32)

define spir_kernel void @right(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %n) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %x = trunc i64 %gid to i32
  %last = add nsw i32 %n, -1
  %xp = add nsw i32 %x, 1
  %xc = call i32 @llvm.smin.i32(i32 %xp, i32 %last)
  %i = sext i32 %xc to i64
  %p = getelementptr inbounds float, ptr addrspace(1) %in, i64 %i
  %v = load float, ptr addrspace(1) %p, align 4
  %q = getelementptr inbounds float, ptr addrspace(1) %out, i64 %gid
  store float %v, ptr addrspace(1) %q, align 4
  ret void
}
