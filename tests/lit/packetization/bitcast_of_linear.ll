; The bits of a linear integer read as a float are not a linear float: the
; bitcast is widened (the stride analysis once passed the integer's stride
; through, and the packetizer then refused: "no step vector of float").
; RUN: %veczc -k bits -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_bits(
; CHECK: %[[IDS:.+]] = add <4 x i32> %{{.+}}, <i32 0, i32 1, i32 2, i32 3>
; CHECK: %[[F:.+]] = bitcast <4 x i32> %[[IDS]] to <4 x float>
; CHECK: %[[H:.+]] = fmul <4 x float> %[[F]], splat (float 5.000000e-01)
; CHECK: store <4 x float> %[[H]], ptr addrspace(1)

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @bits(ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %x = trunc i64 %gid to i32
  %f = bitcast i32 %x to float
  %h = fmul float %f, 0.5
  %p = getelementptr inbounds float, ptr addrspace(1) %out, i64 %gid
  store float %h, ptr addrspace(1) %p, align 4
  ret void
}
