; A varying <4 x float> is split into four varying floats (Scalarization),
; each packetized into a <W x float>, instead of being instantiated per lane.
; RUN: %veczc -k k -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_k(
; CHECK-COUNT-4: call <4 x float> @llvm.masked.gather.v4f32.v4p1(
; CHECK-COUNT-4: fadd <4 x float>
; CHECK-COUNT-4: call void @llvm.masked.scatter.v4f32.v4p1(
; CHECK-NOT: extractelement
; CHECK: ret void

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr <4 x float>, ptr addrspace(1) %in, i64 %gid
  %x = load <4 x float>, ptr addrspace(1) %p, align 16
  %y = fadd <4 x float> %x, %x
  %q = getelementptr <4 x float>, ptr addrspace(1) %out, i64 %gid
  store <4 x float> %y, ptr addrspace(1) %q, align 16
  ret void
}
