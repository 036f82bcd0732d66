; vecz-case: 1
; kernel: copy
; args: buf:i32:64 buf:i32:64:zero
; ndrange: global=64 local=16
; widths: 4
; seed: 6

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @copy(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %v = load i32, ptr addrspace(1) %p, align 4
  %q = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %v, ptr addrspace(1) %q, align 4
  ret void
}

; Broken: lanes stored in reverse order.
define spir_kernel void @__vecz_v4_copy_reversed(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %v = load <4 x i32>, ptr addrspace(1) %p, align 4
  %r = shufflevector <4 x i32> %v, <4 x i32> poison, <4 x i32> <i32 3, i32 2, i32 1, i32 0>
  %q = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store <4 x i32> %r, ptr addrspace(1) %q, align 4
  ret void
}

; Broken: stores one chunk too far (past the end of the buffer for the last chunk).
define spir_kernel void @__vecz_v4_copy_oob(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %v = load <4 x i32>, ptr addrspace(1) %p, align 4
  %g4 = add i64 %gid, 4
  %q = getelementptr i32, ptr addrspace(1) %out, i64 %g4
  store <4 x i32> %v, ptr addrspace(1) %q, align 4
  ret void
}
