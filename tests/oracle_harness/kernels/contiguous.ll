; vecz-case: 1
; kernel: add
; args: buf:i32:256 buf:i32:256 buf:i32:256:zero
; ndrange: global=64 local=16
; ndrange: global=36 local=12
; ndrange: global=3 local=1
; widths: 4
; dims: 0
; seed: 1

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @add(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pa = getelementptr i32, ptr addrspace(1) %a, i64 %gid
  %pb = getelementptr i32, ptr addrspace(1) %b, i64 %gid
  %va = load i32, ptr addrspace(1) %pa, align 4
  %vb = load i32, ptr addrspace(1) %pb, align 4
  %s = add i32 %va, %vb
  %po = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %s, ptr addrspace(1) %po, align 4
  ret void
}

define spir_kernel void @__vecz_v4_add(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pa = getelementptr i32, ptr addrspace(1) %a, i64 %gid
  %pb = getelementptr i32, ptr addrspace(1) %b, i64 %gid
  %va = load <4 x i32>, ptr addrspace(1) %pa, align 4
  %vb = load <4 x i32>, ptr addrspace(1) %pb, align 4
  %s = add <4 x i32> %va, %vb
  %po = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store <4 x i32> %s, ptr addrspace(1) %po, align 4
  ret void
}
