; A sub-group is the packet: an integer reduction is LLVM's vector reduction
; broadcast to every lane, an inclusive scan is a log-step scan across the
; lanes, and no sub-group builtin is called from the vectorized kernel.
; RUN: %veczc -k red -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_red(
; CHECK-NOT: call {{.*}}@__mux_sub_group
; CHECK: %[[X:.+]] = load <4 x i32>
; CHECK: call i32 @llvm.vector.reduce.add.v4i32(<4 x i32> %[[X]])
; CHECK: shufflevector <4 x i32> %[[X]], <4 x i32> {{.*}}, <4 x i32> <i32 4, i32 0, i32 1, i32 2>
; CHECK-NOT: call {{.*}}@__mux_sub_group
; CHECK: ret void

declare i64 @__mux_get_global_id(i32)
declare i32 @__mux_sub_group_reduce_add_i32(i32)
declare i32 @__mux_sub_group_scan_inclusive_add_i32(i32)

define spir_kernel void @red(ptr addrspace(1) %in, ptr addrspace(1) %out, ptr addrspace(1) %out2) {
entry:
  %gid = call i64 @__mux_get_global_id(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %p, align 4
  %r = call i32 @__mux_sub_group_reduce_add_i32(i32 %x)
  %s = call i32 @__mux_sub_group_scan_inclusive_add_i32(i32 %x)
  %q = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %r, ptr addrspace(1) %q, align 4
  %q2 = getelementptr i32, ptr addrspace(1) %out2, i64 %gid
  store i32 %s, ptr addrspace(1) %q2, align 4
  ret void
}
