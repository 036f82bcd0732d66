; Clamp Versioning: `in[min(x + 1, n - 1)]` is a gather (the clamp hides the
; stride), but when no lane of the packet is clamped the index is x + 1 in
; every lane. A uniform branch on `all lanes unclamped` picks one contiguous
; vector load; the gather stays for packets at the border. The lanes of
; x + 1 are consecutive, so "all unclamped" is a scalar test of the last lane
; (x + 4 < n, saturating: a wrapped packet is not unclamped), and the index's
; constant becomes the load's byte offset.
; RUN: %veczc -k right -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_right(
; CHECK-NOT: x i1>
; CHECK: %[[LAST:.+]] = call i32 @llvm.sadd.sat.i32(i32 %x, i32 4)
; CHECK: %[[OK:.+]] = icmp slt i32 %[[LAST]], %n
; CHECK-NOT: x i1>
; CHECK: br i1 %[[OK]], label %clamp.fast, label %clamp.slow
; CHECK: clamp.fast:
; CHECK: %[[X64:.+]] = sext i32 %x to i64
; CHECK: %[[BASE:.+]] = getelementptr float, ptr addrspace(1) %in, i64 %[[X64]]
; CHECK: %[[PTR:.+]] = getelementptr i8, ptr addrspace(1) %[[BASE]], i64 4
; CHECK: %[[FAST:.+]] = load <4 x float>, ptr addrspace(1) %[[PTR]], align 4
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
