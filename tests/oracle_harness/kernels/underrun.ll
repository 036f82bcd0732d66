; out[gid - 1] = in[gid]: work-item 0 writes just before its buffer (inside
; the buffer's own page: no guard page faults).
declare i64 @_Z13get_global_idj(i32 noundef)

define spir_kernel void @underrun(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 noundef 0)
  %i = getelementptr inbounds float, ptr addrspace(1) %in, i64 %gid
  %v = load float, ptr addrspace(1) %i, align 4
  %m = add i64 %gid, -1
  %o = getelementptr float, ptr addrspace(1) %out, i64 %m
  store float %v, ptr addrspace(1) %o, align 4
  ret void
}
