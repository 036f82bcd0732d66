; vecz-case: 1
; kernel: divloop
; args: buf:i32:64 buf:i32:64:zero
; ndrange: global=64 local=16
; ndrange: global=48 local=12 offset=4
; widths: 4
; seed: 5

declare i64 @_Z13get_global_idj(i32)
declare i1 @llvm.vector.reduce.or.v4i1(<4 x i1>)

; n = in[gid] & 7; s = 0; for (i = 0; i < n; i++) s += i * gid; out[gid] = s;
define spir_kernel void @divloop(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %x = sub i64 %gid, 0
  %p = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %v = load i32, ptr addrspace(1) %p, align 4
  %n = and i32 %v, 7
  %g = trunc i64 %gid to i32
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %body ]
  %s = phi i32 [ 0, %entry ], [ %s1, %body ]
  %c = icmp slt i32 %i, %n
  br i1 %c, label %body, label %exit
body:
  %t = mul i32 %i, %g
  %s1 = add i32 %s, %t
  %i1 = add i32 %i, 1
  br label %loop
exit:
  %q = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %s, ptr addrspace(1) %q, align 4
  ret void
}

; The loop runs while any lane is active; the exit mask freezes finished lanes.
define spir_kernel void @__vecz_v4_divloop(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %v = load <4 x i32>, ptr addrspace(1) %p, align 4
  %n = and <4 x i32> %v, splat (i32 7)
  %g32 = trunc i64 %gid to i32
  %g0 = insertelement <4 x i32> poison, i32 %g32, i64 0
  %gs = shufflevector <4 x i32> %g0, <4 x i32> poison, <4 x i32> zeroinitializer
  %g = add <4 x i32> %gs, <i32 0, i32 1, i32 2, i32 3>
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %s = phi <4 x i32> [ zeroinitializer, %entry ], [ %s1, %loop ]
  %iv0 = insertelement <4 x i32> poison, i32 %i, i64 0
  %iv = shufflevector <4 x i32> %iv0, <4 x i32> poison, <4 x i32> zeroinitializer
  %active = icmp slt <4 x i32> %iv, %n
  %t = mul <4 x i32> %iv, %g
  %sa = add <4 x i32> %s, %t
  %s1 = select <4 x i1> %active, <4 x i32> %sa, <4 x i32> %s
  %i1 = add i32 %i, 1
  %any = call i1 @llvm.vector.reduce.or.v4i1(<4 x i1> %active)
  br i1 %any, label %loop, label %exit
exit:
  %q = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store <4 x i32> %s1, ptr addrspace(1) %q, align 4
  ret void
}

; Broken: never leaves the loop.
define spir_kernel void @__vecz_v4_divloop_endless(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  br label %loop
loop:
  %x = load volatile i32, ptr addrspace(1) %in, align 4
  br label %loop
}
