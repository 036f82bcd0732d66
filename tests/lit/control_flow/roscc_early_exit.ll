; ROSCC (BOSCC off): `if (x < 0) return;` on a varying condition gets a
; uniform early exit taken when every lane returns (vector.reduce.and of the
; condition packet, written by instcombine as `bitcast <4 x i1> to i4` ==
; -1); otherwise the rest runs with the store masked by the lanes that stay.
; RUN: %veczc -k early_exit -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_early_exit(
; CHECK: %[[C:.+]] = icmp slt <4 x i32> %{{.+}}, zeroinitializer
; CHECK: %[[B:.+]] = bitcast <4 x i1> %[[C]] to i4
; CHECK: %[[ALL:.+]] = icmp eq i4 %[[B]], -1
; CHECK: br i1 %[[ALL]], label %exit, label %work
; CHECK: work:
; CHECK: %[[STAY:.+]] = xor <4 x i1> %[[C]], splat (i1 true)
; CHECK: call void @llvm.masked.store.v4i32.p1(<4 x i32> %{{.+}}, ptr addrspace(1) align 4 %{{.+}}, <4 x i1> %[[STAY]])
; CHECK: exit:
; CHECK-NEXT: ret void

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @early_exit(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pin = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %pin, align 4
  %c = icmp slt i32 %x, 0
  br i1 %c, label %exit, label %work

work:
  %y = mul i32 %x, 5
  %pout = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %y, ptr addrspace(1) %pout, align 4
  br label %exit

exit:
  ret void
}
