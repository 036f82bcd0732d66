; vecz-case: 1
; kernel: strided
; args: buf:i32:160 buf:i32:160:zero
; ndrange: global=64 local=16
; ndrange: global=36 local=12
; widths: 4
; seed: 2

declare i64 @_Z13get_global_idj(i32)
declare void @llvm.masked.scatter.v4i32.v4p1(<4 x i32>, <4 x ptr addrspace(1)>, <4 x i1>)

; out[2*gid] = in[2*gid+1] * 3
define spir_kernel void @strided(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %i2 = shl i64 %gid, 1
  %i21 = add i64 %i2, 1
  %p = getelementptr i32, ptr addrspace(1) %in, i64 %i21
  %v = load i32, ptr addrspace(1) %p, align 4
  %m = mul i32 %v, 3
  %q = getelementptr i32, ptr addrspace(1) %out, i64 %i2
  store i32 %m, ptr addrspace(1) %q, align 4
  ret void
}

define spir_kernel void @__vecz_v4_strided(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %i2 = shl i64 %gid, 1
  %p = getelementptr i32, ptr addrspace(1) %in, i64 %i2
  %w = load <8 x i32>, ptr addrspace(1) %p, align 4
  %v = shufflevector <8 x i32> %w, <8 x i32> poison, <4 x i32> <i32 1, i32 3, i32 5, i32 7>
  %m = mul <4 x i32> %v, splat (i32 3)
  %g0 = insertelement <4 x i64> poison, i64 %i2, i64 0
  %g = shufflevector <4 x i64> %g0, <4 x i64> poison, <4 x i32> zeroinitializer
  %idx = add <4 x i64> %g, <i64 0, i64 2, i64 4, i64 6>
  %q = getelementptr i32, ptr addrspace(1) %out, <4 x i64> %idx
  call void @llvm.masked.scatter.v4i32.v4p1(<4 x i32> %m, <4 x ptr addrspace(1)> %q, <4 x i1> splat (i1 true))
  ret void
}
