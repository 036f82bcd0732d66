; A barrier under a branch the analysis calls varying: OpenCL requires every
; work-item of the group to enter the `if` if any does, so the branch is
; uniform at run time. The packet branches on a reduction of the condition
; (no masking, no linearization) and calls the barrier once.
; RUN: %veczc -k k -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_k(
; CHECK: %[[C:.+]] = icmp {{eq|ne}} <4 x i32> %{{.+}}, zeroinitializer
; CHECK: %[[B:.+]] = bitcast <4 x i1> %[[C]] to i4
; CHECK: %[[U:.+]] = icmp {{eq|ne}} i4 %[[B]], 0
; CHECK: br i1 %[[U]], label %{{.+}}, label %{{.+}}
; CHECK: store <4 x i32> splat (i32 1)
; CHECK: call void @_Z7barrierj(i32 1)
; CHECK-NOT: call void @_Z7barrierj
; CHECK-LABEL: define

declare i64 @_Z12get_local_idj(i32)
declare void @_Z7barrierj(i32)

define spir_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %flags) {
entry:
  %lid = call i64 @_Z12get_local_idj(i32 0)
  %fp = getelementptr i32, ptr addrspace(1) %flags, i64 %lid
  %f = load i32, ptr addrspace(1) %fp
  %c = icmp ne i32 %f, 0
  br i1 %c, label %then, label %end
then:
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %lid
  store i32 1, ptr addrspace(1) %p
  call void @_Z7barrierj(i32 1)
  br label %end
end:
  ret void
}
