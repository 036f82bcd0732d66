; A load from a uniform address stays one scalar load, broadcast to the
; lanes that need it; uniform arithmetic stays scalar.
; RUN: %veczc -k scale -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_scale(
; CHECK: %[[K:.+]] = load i32, ptr addrspace(1) %k, align 4
; CHECK: %[[K2:.+]] = shl i32 %[[K]], 1
; CHECK: insertelement <4 x i32> poison, i32 %[[K2]], {{i32|i64}} 0
; CHECK: shufflevector <4 x i32>
; CHECK: load <4 x i32>
; CHECK: mul <4 x i32>
; CHECK: store <4 x i32>
; CHECK: ret void

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @scale(ptr addrspace(1) %in, ptr addrspace(1) %k, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %kv = load i32, ptr addrspace(1) %k, align 4
  %k2 = mul i32 %kv, 2
  %pin = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %pin, align 4
  %y = mul i32 %x, %k2
  %pout = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %y, ptr addrspace(1) %pout, align 4
  ret void
}
