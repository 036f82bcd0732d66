; A varying <2 x float> access fits an i64 (Squash Small Vectors): one
; contiguous <4 x i64> load and store for the packet, the elements taken
; apart with shifts and truncations, instead of two strided gathers and two
; strided scatters.
; RUN: %veczc -k pair -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_pair(
; CHECK: load <4 x i64>, ptr addrspace(1)
; CHECK: lshr <4 x i64> %{{.+}}, splat (i64 32)
; CHECK: store <4 x i64>
; CHECK-NOT: masked.gather
; CHECK-NOT: masked.scatter
; CHECK: ret void

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @pair(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr <2 x float>, ptr addrspace(1) %in, i64 %gid
  %x = load <2 x float>, ptr addrspace(1) %p, align 8
  %y = fmul <2 x float> %x, <float 2.0, float 3.0>
  %q = getelementptr <2 x float>, ptr addrspace(1) %out, i64 %gid
  store <2 x float> %y, ptr addrspace(1) %q, align 8
  ret void
}
