; vecz-case: 1
; kernel: gather
; args: buf:f32:64 buf:i32:64:mod64 buf:f32:64:zero
; ndrange: global=64 local=16
; ndrange: global=24 local=12
; widths: 8
; seed: 3

declare i64 @_Z13get_global_idj(i32)
declare <8 x float> @llvm.masked.gather.v8f32.v8p1(<8 x ptr addrspace(1)>, <8 x i1>, <8 x float>)

; out[gid] = in[idx[gid]] + 1.0
define spir_kernel void @gather(ptr addrspace(1) %in, ptr addrspace(1) %idx, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pi = getelementptr i32, ptr addrspace(1) %idx, i64 %gid
  %i = load i32, ptr addrspace(1) %pi, align 4
  %ie = zext i32 %i to i64
  %p = getelementptr float, ptr addrspace(1) %in, i64 %ie
  %v = load float, ptr addrspace(1) %p, align 4
  %r = fadd float %v, 1.0
  %q = getelementptr float, ptr addrspace(1) %out, i64 %gid
  store float %r, ptr addrspace(1) %q, align 4
  ret void
}

define spir_kernel void @__vecz_v8_gather(ptr addrspace(1) %in, ptr addrspace(1) %idx, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pi = getelementptr i32, ptr addrspace(1) %idx, i64 %gid
  %i = load <8 x i32>, ptr addrspace(1) %pi, align 4
  %ie = zext <8 x i32> %i to <8 x i64>
  %p = getelementptr float, ptr addrspace(1) %in, <8 x i64> %ie
  %v = call <8 x float> @llvm.masked.gather.v8f32.v8p1(<8 x ptr addrspace(1)> %p, <8 x i1> splat (i1 true), <8 x float> poison)
  %r = fadd <8 x float> %v, splat (float 1.0)
  %q = getelementptr float, ptr addrspace(1) %out, i64 %gid
  store <8 x float> %r, ptr addrspace(1) %q, align 4
  ret void
}
