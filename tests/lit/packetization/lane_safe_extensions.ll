; Lane-Safe Extensions: clang's `zext nneg` of `lid - off` under the guard
; `lid >= off` holds only for the lanes that pass the guard. Lane 0 may not,
; and the contiguous masked load is addressed from lane 0's index, so the
; extension becomes a sext and the GEP drops `inbounds nuw`: lane 0's
; address is then `in - 4*(off - lid)`, and the active lanes follow it.
; RUN: %veczc -k shift -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_shift(
; CHECK-NOT: zext nneg
; CHECK: %[[I:.+]] = sext i32 %d to i64
; CHECK: %[[P:.+]] = getelementptr i32, ptr addrspace(1) %in, i64 %[[I]]
; CHECK: call <4 x i32> @llvm.masked.load.v4i32.p1(ptr addrspace(1) align 4 %[[P]], <4 x i1>
; CHECK-LABEL: define

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @shift(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %off) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %lid = trunc i64 %gid to i32
  %c = icmp sge i32 %lid, %off
  br i1 %c, label %load, label %join

load:
  %d = sub nsw i32 %lid, %off
  %i = zext nneg i32 %d to i64
  %p = getelementptr inbounds nuw i32, ptr addrspace(1) %in, i64 %i
  %v = load i32, ptr addrspace(1) %p, align 4
  br label %join

join:
  %r = phi i32 [ %v, %load ], [ 0, %entry ]
  %o = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %r, ptr addrspace(1) %o, align 4
  ret void
}
