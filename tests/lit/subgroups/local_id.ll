; The sub-group local id steps by one across the packet, along whichever
; dimension is vectorized: an access indexed by it is contiguous.
; RUN: %veczc -k lid -w 4 -S %s | FileCheck %s
; RUN: %veczc -k lid -w 8 -d 1 -S %s | FileCheck %s --check-prefix=DIM1

; CHECK-LABEL: define spir_kernel void @__vecz_v4_lid(
; CHECK: store <4 x i32> {{.*}}, ptr addrspace(1)
; DIM1-LABEL: define spir_kernel void @__vecz_v8_lid(
; DIM1: store <8 x i32> {{.*}}, ptr addrspace(1)

declare i32 @__mux_get_sub_group_local_id()

define spir_kernel void @lid(ptr addrspace(1) %out) {
entry:
  %l = call i32 @__mux_get_sub_group_local_id()
  %i = zext i32 %l to i64
  %q = getelementptr i32, ptr addrspace(1) %out, i64 %i
  store i32 %l, ptr addrspace(1) %q, align 4
  ret void
}
