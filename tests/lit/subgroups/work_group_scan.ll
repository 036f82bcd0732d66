; A work-group scan: the packet scans its lanes, calls the scalar exclusive
; scan once with its total (the runtime's group-wide step), and adds the
; result to every lane.
; RUN: %veczc -k wscan -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_wscan(
; CHECK: %[[T:.+]] = extractelement <4 x i32> %{{.+}}, {{i32|i64}} 3
; CHECK: %[[B:.+]] = call i32 @__mux_work_group_scan_exclusive_add_i32(i32 0, i32 %[[T]])
; CHECK-NOT: call i32 @__mux_work_group_scan_inclusive_add_i32
; CHECK: ret void

declare i64 @__mux_get_global_id(i32)
declare i32 @__mux_work_group_scan_inclusive_add_i32(i32, i32)

define spir_kernel void @wscan(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @__mux_get_global_id(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %p, align 4
  %r = call i32 @__mux_work_group_scan_inclusive_add_i32(i32 0, i32 %x)
  %q = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %r, ptr addrspace(1) %q, align 4
  ret void
}
