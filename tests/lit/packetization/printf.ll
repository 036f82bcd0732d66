; printf has no vector form and a side effect: it is instantiated once per
; lane, in lane order, each copy with its own lane's arguments.
; RUN: %veczc -k show -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_show(
; CHECK: %[[GID:.+]] = call i64 @_Z13get_global_idj(i32 0)
; CHECK-DAG: %[[G1:.+]] = add i64 %[[GID]], 1
; CHECK-DAG: %[[G2:.+]] = add i64 %[[GID]], 2
; CHECK-DAG: %[[G3:.+]] = add i64 %[[GID]], 3
; CHECK: call i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) {{(noundef )?}}@.str, i64 %[[GID]])
; CHECK-NEXT: call i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) {{(noundef )?}}@.str, i64 %[[G1]])
; CHECK-NEXT: call i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) {{(noundef )?}}@.str, i64 %[[G2]])
; CHECK-NEXT: call i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) {{(noundef )?}}@.str, i64 %[[G3]])
; CHECK-NOT: @printf
; CHECK: ret void

@.str = private unnamed_addr addrspace(2) constant [8 x i8] c"id=%ld\0A\00", align 1

declare i64 @_Z13get_global_idj(i32)
declare i32 @printf(ptr addrspace(2), ...)

define spir_kernel void @show() {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %r = call i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) @.str, i64 %gid)
  ret void
}
