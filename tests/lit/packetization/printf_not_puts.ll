; Preserve Library Calls: instcombine in the preparation passes would turn
; printf("hi\n") into puts("hi"), a function the scalar kernel never calls
; and an OpenCL runtime does not provide. The vectorized kernel calls printf,
; once per lane.
; RUN: %veczc -k k -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_k(
; CHECK-NOT: puts
; CHECK-COUNT-4: call i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) @.str)
; CHECK-NOT: puts

@.str = private unnamed_addr addrspace(2) constant [4 x i8] c"hi\0A\00", align 1

declare i64 @_Z13get_global_idj(i32)
declare i32 @printf(ptr addrspace(2), ...)

define spir_kernel void @k(ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %r = call i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) @.str)
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %r, ptr addrspace(1) %p
  ret void
}
