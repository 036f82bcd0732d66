; Pointer arithmetic done on integers (ptrtoint, add, inttoptr) becomes a
; GEP again (Remove Intptr), so the access is seen to be contiguous: one
; vector load rather than a gather through an opaque integer.
; RUN: %veczc -k intptr -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_intptr(
; CHECK-NOT: inttoptr
; CHECK: load <4 x i32>, ptr addrspace(1)
; CHECK-NOT: masked.gather
; CHECK: ret void

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @intptr(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %base = ptrtoint ptr addrspace(1) %in to i64
  %off = shl i64 %gid, 2
  %addr = add i64 %base, %off
  %p = inttoptr i64 %addr to ptr addrspace(1)
  %x = load i32, ptr addrspace(1) %p, align 4
  %q = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %x, ptr addrspace(1) %q, align 4
  ret void
}
