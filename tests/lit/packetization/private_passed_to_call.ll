; A private variable whose address goes to a call with side effects, run
; once per lane: each lane must get its own copy (the callee may write it),
; even though only a uniform value is stored there.
; RUN: %veczc -k test -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_test(
; CHECK: %e = alloca [16 x i8]
; CHECK-DAG: %[[E1:.+]] = getelementptr inbounds nuw i8, ptr %e, i64 4
; CHECK-DAG: %[[E2:.+]] = getelementptr inbounds nuw i8, ptr %e, i64 8
; CHECK-DAG: %[[E3:.+]] = getelementptr inbounds nuw i8, ptr %e, i64 12
; CHECK: call i32 @foo(ptr {{.*}}%e)
; CHECK-NEXT: call i32 @foo(ptr {{.*}}%[[E1]])
; CHECK-NEXT: call i32 @foo(ptr {{.*}}%[[E2]])
; CHECK-NEXT: call i32 @foo(ptr {{.*}}%[[E3]])
; CHECK: ret void

declare i64 @_Z13get_global_idj(i32)
declare i32 @foo(ptr)

define spir_kernel void @test(i32 %a, ptr addrspace(1) %c) {
entry:
  %e = alloca i32, align 4
  %gid = call i64 @_Z13get_global_idj(i32 0)
  store i32 %a, ptr %e, align 4
  %call = call i32 @foo(ptr %e)
  %v = load i32, ptr %e, align 4
  %q = getelementptr i32, ptr addrspace(1) %c, i64 %gid
  store i32 %v, ptr addrspace(1) %q, align 4
  ret void
}
