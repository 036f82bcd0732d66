; A barrier that runs only where two varying conditions both hold: OpenCL
; makes the inner condition uniform once the outer one held, but not the
; outer one alone, so the barrier stays under varying control flow and the
; kernel is refused with a remark (never a masked or per-lane barrier).
; RUN: %not %veczc -k k -w 4 -S --remarks %s -o /dev/null 2>&1 | FileCheck %s

; CHECK: barrier in block 'bar' under varying control flow that no barrier makes uniform

declare i64 @_Z12get_local_idj(i32)
declare void @_Z7barrierj(i32)

define spir_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b) {
entry:
  %lid = call i64 @_Z12get_local_idj(i32 0)
  %ap = getelementptr i32, ptr addrspace(1) %a, i64 %lid
  %av = load i32, ptr addrspace(1) %ap
  %c1 = icmp ne i32 %av, 0
  br i1 %c1, label %mid, label %end
mid:
  %bp = getelementptr i32, ptr addrspace(1) %b, i64 %lid
  %bv = load i32, ptr addrspace(1) %bp
  %c2 = icmp eq i32 %bv, %av
  %lidt = trunc i64 %lid to i32
  %c3 = icmp ult i32 %lidt, %bv
  %c4 = and i1 %c2, %c3
  br i1 %c4, label %bar, label %end
bar:
  call void @_Z7barrierj(i32 1)
  br label %end
end:
  ret void
}
