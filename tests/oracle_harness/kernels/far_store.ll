; vecz-case: 1
; kernel: far
; args: buf:f32:64 buf:f32:65536 buf:f32:64
; ndrange: global=64 local=16
; widths: 4
; The store lands 160 KiB past the end of buffer 0: far beyond its guard
; page, perhaps inside another buffer's memory (buffer 1 is 256 KiB).
declare i64 @_Z13get_global_idj(i32 noundef)

define spir_kernel void @far(ptr addrspace(1) %out, ptr addrspace(1) %big, ptr addrspace(1) %in) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 noundef 0)
  %i = getelementptr inbounds float, ptr addrspace(1) %in, i64 %gid
  %v = load float, ptr addrspace(1) %i, align 4
  %far = add i64 %gid, 40960
  %o = getelementptr float, ptr addrspace(1) %out, i64 %far
  store float %v, ptr addrspace(1) %o, align 4
  ret void
}
