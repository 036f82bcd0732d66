; With VectorPredication the last packet of a row may be partial, a smaller
; sub-group: the reduction puts the identity in the lanes past the packet's
; sub-group size, which the runtime answers for the packet.
; RUN: %veczc -k red -w 4 --vecz-choices=VectorPredication -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_red(
; CHECK: call i32 @__mux_get_sub_group_size()
; CHECK: %[[ACT:.+]] = icmp ugt <4 x i32> %{{.+}}, <i32 0, i32 1, i32 2, i32 3>
; CHECK: select <4 x i1> %[[ACT]], <4 x i32> %{{.+}}, <4 x i32> splat (i32 -2147483648)
; CHECK: call i32 @llvm.vector.reduce.smax.v4i32(
; CHECK-NOT: call {{.*}}sub_group_reduce
; CHECK: ret void

declare i64 @__mux_get_global_id(i32)
declare i32 @__mux_sub_group_reduce_smax_i32(i32)

define spir_kernel void @red(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @__mux_get_global_id(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %p, align 4
  %r = call i32 @__mux_sub_group_reduce_smax_i32(i32 %x)
  %q = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %r, ptr addrspace(1) %q, align 4
  ret void
}
