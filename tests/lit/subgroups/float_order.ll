; Floating-point sub-group reductions fold the lanes in lane order, the
; reference's order (bit-exact, no tolerance needed): a chain of fadds from
; lane 0, not a reassociating tree or an unordered vector reduction.
; RUN: %veczc -k fred -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_fred(
; CHECK-NOT: llvm.vector.reduce.fadd
; CHECK: %[[E0:.+]] = extractelement <4 x float> %[[X:.+]], {{i32|i64}} 0
; CHECK: %[[E1:.+]] = extractelement <4 x float> %[[X]], {{i32|i64}} 1
; CHECK: %[[A1:.+]] = fadd float %[[E0]], %[[E1]]
; CHECK: %[[E2:.+]] = extractelement <4 x float> %[[X]], {{i32|i64}} 2
; CHECK: %[[A2:.+]] = fadd float %[[A1]], %[[E2]]
; CHECK: %[[E3:.+]] = extractelement <4 x float> %[[X]], {{i32|i64}} 3
; CHECK: fadd float %[[A2]], %[[E3]]

declare i64 @__mux_get_global_id(i32)
declare float @__mux_sub_group_reduce_fadd_f32(float)

define spir_kernel void @fred(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @__mux_get_global_id(i32 0)
  %p = getelementptr float, ptr addrspace(1) %in, i64 %gid
  %x = load float, ptr addrspace(1) %p, align 4
  %r = call float @__mux_sub_group_reduce_fadd_f32(float %x)
  %q = getelementptr float, ptr addrspace(1) %out, i64 %gid
  store float %r, ptr addrspace(1) %q, align 4
  ret void
}
