; Asynchronous work-group copies and their wait are the group's: a packet
; calls each once, with its uniform operands, and the event (opaque
; target("spirv.Event")) stays a scalar in a scalar alloca. A copy whose
; operands vary between work-items is refused with a remark (OpenCL
; requires the same arguments in every work-item).
; RUN: %veczc -k tile -w 4 -S %s | FileCheck %s
; RUN: %not %veczc -k varying -w 4 -S %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=VAR

; CHECK-LABEL: define spir_kernel void @__vecz_v4_tile(
; CHECK: %e = alloca target("spirv.Event"), align 8
; CHECK: %ev = call target("spirv.Event") @_Z21async_work_group_copyPU3AS3Dv4_fPU3AS1KS_m9ocl_event(ptr addrspace(3) %tmp, ptr addrspace(1) %src, i64 %l, target("spirv.Event") zeroinitializer)
; CHECK-NEXT: store target("spirv.Event") %ev, ptr %e, align 8
; CHECK-NEXT: call void @_Z17wait_group_eventsiP9ocl_event(i32 1, ptr {{(nonnull )?}}%e)
; CHECK-NOT: async_work_group_copy
; CHECK: call i64 @_Z12get_local_idj(i32 0)
; CHECK: ret void

; VAR: not vectorized: asynchronous work-group copy '_Z21async_work_group_copyPU3AS3iPU3AS1Kim9ocl_event' with operand(s) 1 varying across the work-group

declare i64 @_Z13get_global_idj(i32)
declare i64 @_Z12get_local_idj(i32)
declare i64 @_Z12get_group_idj(i32)
declare i64 @_Z14get_local_sizej(i32)
declare target("spirv.Event") @_Z21async_work_group_copyPU3AS3Dv4_fPU3AS1KS_m9ocl_event(ptr addrspace(3), ptr addrspace(1), i64, target("spirv.Event"))
declare target("spirv.Event") @_Z21async_work_group_copyPU3AS3iPU3AS1Kim9ocl_event(ptr addrspace(3), ptr addrspace(1), i64, target("spirv.Event"))
declare void @_Z17wait_group_eventsiP9ocl_event(i32, ptr)

define spir_kernel void @tile(ptr addrspace(1) %in, ptr addrspace(1) %out, ptr addrspace(3) %tmp) {
entry:
  %e = alloca target("spirv.Event"), align 8
  %l = call i64 @_Z14get_local_sizej(i32 0)
  %g = call i64 @_Z12get_group_idj(i32 0)
  %base = mul i64 %l, %g
  %src = getelementptr <4 x float>, ptr addrspace(1) %in, i64 %base
  %ev = call target("spirv.Event") @_Z21async_work_group_copyPU3AS3Dv4_fPU3AS1KS_m9ocl_event(ptr addrspace(3) %tmp, ptr addrspace(1) %src, i64 %l, target("spirv.Event") zeroinitializer)
  store target("spirv.Event") %ev, ptr %e, align 8
  call void @_Z17wait_group_eventsiP9ocl_event(i32 1, ptr %e)
  %lid = call i64 @_Z12get_local_idj(i32 0)
  %p = getelementptr <4 x float>, ptr addrspace(3) %tmp, i64 %lid
  %v = load <4 x float>, ptr addrspace(3) %p, align 16
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %q = getelementptr <4 x float>, ptr addrspace(1) %out, i64 %gid
  store <4 x float> %v, ptr addrspace(1) %q, align 16
  ret void
}

define spir_kernel void @varying(ptr addrspace(1) %in, ptr addrspace(3) %tmp) {
entry:
  %e = alloca target("spirv.Event"), align 8
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %src = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %ev = call target("spirv.Event") @_Z21async_work_group_copyPU3AS3iPU3AS1Kim9ocl_event(ptr addrspace(3) %tmp, ptr addrspace(1) %src, i64 4, target("spirv.Event") zeroinitializer)
  store target("spirv.Event") %ev, ptr %e, align 8
  call void @_Z17wait_group_eventsiP9ocl_event(i32 1, ptr %e)
  ret void
}
