; A work-group scan along dimension 1: a packet's lanes are not consecutive
; linear ids, so the packet passes all its lanes to the runtime's group step
; (the lanes form, `_v4i32`), which folds in linear order and gives each
; lane its result. The lanes form carries at most 64 bytes: an i64 scan at
; W = 16 is refused.
; RUN: %veczc -k wscan -w 4 -d 1 -S %s | FileCheck %s
; RUN: %not %veczc -k wscan64 -w 16 -d 1 -S %s -o /dev/null --remarks 2>&1 | FileCheck %s --check-prefix=WIDE

; CHECK-LABEL: define spir_kernel void @__vecz_v4_wscan(
; CHECK: %[[X:.+]] = load <4 x i32>
; CHECK: call <4 x i32> @__mux_work_group_scan_inclusive_add_v4i32(i32 0, <4 x i32> %[[X]])
; CHECK-NOT: @__mux_work_group_scan_inclusive_add_i32(
; CHECK: ret void

; WIDE: work-group collective '__mux_work_group_scan_inclusive_umax_i64' along dimension 1 is not supported for i64 at width 16: the runtime's group step takes at most 64 bytes of lanes per packet

declare i64 @__mux_get_global_id(i32)
declare i32 @__mux_work_group_scan_inclusive_add_i32(i32, i32)
declare i64 @__mux_work_group_scan_inclusive_umax_i64(i32, i64)

define spir_kernel void @wscan(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @__mux_get_global_id(i32 1)
  %p = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %p, align 4
  %r = call i32 @__mux_work_group_scan_inclusive_add_i32(i32 0, i32 %x)
  %q = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %r, ptr addrspace(1) %q, align 4
  ret void
}

define spir_kernel void @wscan64(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @__mux_get_global_id(i32 1)
  %p = getelementptr i64, ptr addrspace(1) %in, i64 %gid
  %x = load i64, ptr addrspace(1) %p, align 8
  %r = call i64 @__mux_work_group_scan_inclusive_umax_i64(i32 0, i64 %x)
  %q = getelementptr i64, ptr addrspace(1) %out, i64 %gid
  store i64 %r, ptr addrspace(1) %q, align 8
  ret void
}
