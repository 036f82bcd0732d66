; vecz-case: 1
; kernel: divif
; args: buf:i32:64 buf:i32:64:zero
; ndrange: global=64 local=16
; ndrange: global=48 local=12
; widths: 4
; seed: 4

declare i64 @_Z13get_global_idj(i32)
declare void @llvm.masked.store.v4i32.p1(<4 x i32>, ptr addrspace(1), <4 x i1>)

; if (in[gid] & 1) out[gid] = in[gid] * 2;
define spir_kernel void @divif(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %v = load i32, ptr addrspace(1) %p, align 4
  %b = and i32 %v, 1
  %c = icmp ne i32 %b, 0
  br i1 %c, label %then, label %end
then:
  %d = mul i32 %v, 2
  %q = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %d, ptr addrspace(1) %q, align 4
  br label %end
end:
  ret void
}

define spir_kernel void @__vecz_v4_divif(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %v = load <4 x i32>, ptr addrspace(1) %p, align 4
  %b = and <4 x i32> %v, splat (i32 1)
  %c = icmp ne <4 x i32> %b, zeroinitializer
  %d = mul <4 x i32> %v, splat (i32 2)
  %q = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  call void @llvm.masked.store.v4i32.p1(<4 x i32> %d, ptr addrspace(1) align 4 %q, <4 x i1> %c)
  ret void
}

; Broken: the mask is missing, inactive lanes store too.
define spir_kernel void @__vecz_v4_divif_nomask(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %v = load <4 x i32>, ptr addrspace(1) %p, align 4
  %d = mul <4 x i32> %v, splat (i32 2)
  %q = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store <4 x i32> %d, ptr addrspace(1) %q, align 4
  ret void
}
