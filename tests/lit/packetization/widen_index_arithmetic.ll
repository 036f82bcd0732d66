; Widen Index Arithmetic: an `int` index `row + x +/- 1` (add nsw) reaches the
; load as sext(row + x) plus a constant, so the taps share one base address
; and each keeps only a byte offset (-4, +4) that folds into its load.
; RUN: %veczc -k taps -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_taps(
; CHECK: %[[C:.+]] = add nsw i32 %row, %x
; CHECK: %[[C64:.+]] = sext i32 %[[C]] to i64
; CHECK: %[[BASE:.+]] = getelementptr float, ptr addrspace(1) %in, i64 %[[C64]]
; CHECK: %[[PL:.+]] = getelementptr i8, ptr addrspace(1) %[[BASE]], i64 -4
; CHECK: %[[PR:.+]] = getelementptr i8, ptr addrspace(1) %{{.+}}, i64 4
; CHECK: load <4 x float>, ptr addrspace(1) %[[PL]], align 4
; CHECK: load <4 x float>, ptr addrspace(1) %[[PR]], align 4
; CHECK-NOT: sext i32 %l
; CHECK-NOT: sext i32 %r

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @taps(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %w) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %x = trunc i64 %gid to i32
  %gy = call i64 @_Z13get_global_idj(i32 1)
  %y = trunc i64 %gy to i32
  %row = mul nsw i32 %y, %w
  %c = add nsw i32 %row, %x
  %l = add nsw i32 %c, -1
  %r = add nsw i32 %c, 1
  %il = sext i32 %l to i64
  %ir = sext i32 %r to i64
  %pl = getelementptr inbounds float, ptr addrspace(1) %in, i64 %il
  %pr = getelementptr inbounds float, ptr addrspace(1) %in, i64 %ir
  %a = load float, ptr addrspace(1) %pl, align 4
  %b = load float, ptr addrspace(1) %pr, align 4
  %s = fsub float %b, %a
  %ic = sext i32 %c to i64
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %ic
  store float %s, ptr addrspace(1) %po, align 4
  ret void
}
