; Kernels of tests/builtins/test_async_copy.py, compiled by clang 22 (spir64, -O1,
; -fdeclare-opencl-builtins) from OpenCL C and stripped of metadata.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"

define dso_local spir_kernel void @reverse_tile(ptr addrspace(1) noundef align 16 %in, ptr addrspace(1) noundef writeonly align 16 captures(none) %out, ptr addrspace(3) noundef align 16 %tmp) {
entry:
  %e.i = alloca target("spirv.Event"), align 8
  %call.i = tail call spir_func i64 @_Z14get_local_sizej(i32 noundef 0)
  %call1.i = tail call spir_func i64 @_Z12get_group_idj(i32 noundef 0)
  %mul.i = mul i64 %call1.i, %call.i
  %add.ptr.i = getelementptr inbounds nuw <4 x float>, ptr addrspace(1) %in, i64 %mul.i
  %call2.i = tail call spir_func target("spirv.Event") @_Z21async_work_group_copyPU3AS3Dv4_fPU3AS1KS_m9ocl_event(ptr addrspace(3) noundef align 16 %tmp, ptr addrspace(1) noundef %add.ptr.i, i64 noundef %call.i, target("spirv.Event") zeroinitializer)
  store target("spirv.Event") %call2.i, ptr %e.i, align 8
  tail call spir_func void @_Z8prefetchPU3AS1KDv4_fm(ptr addrspace(1) noundef %add.ptr.i, i64 noundef %call.i)
  call spir_func void @_Z17wait_group_eventsiP9ocl_event(i32 noundef 1, ptr noundef nonnull %e.i)
  %call6.i = call spir_func i64 @_Z12get_local_idj(i32 noundef 0)
  %0 = xor i64 %call6.i, -1
  %1 = getelementptr <4 x float>, ptr addrspace(3) %tmp, i64 %call.i
  %arrayidx.i = getelementptr <4 x float>, ptr addrspace(3) %1, i64 %0
  %2 = load <4 x float>, ptr addrspace(3) %arrayidx.i, align 16
  %mul8.i = fmul <4 x float> %2, splat (float 2.000000e+00)
  %call9.i = call spir_func i64 @_Z13get_global_idj(i32 noundef 0)
  %arrayidx10.i = getelementptr inbounds nuw <4 x float>, ptr addrspace(1) %out, i64 %call9.i
  store <4 x float> %mul8.i, ptr addrspace(1) %arrayidx10.i, align 16
  ret void
}

define dso_local spir_kernel void @strided_out(ptr addrspace(1) noundef readonly align 4 captures(none) %in, ptr addrspace(1) noundef align 4 %out, ptr addrspace(3) noundef align 4 %tmp) {
entry:
  %e.i = alloca target("spirv.Event"), align 8
  %call.i = tail call spir_func i64 @_Z14get_local_sizej(i32 noundef 0)
  %call1.i = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0)
  %arrayidx.i = getelementptr inbounds nuw <2 x i16>, ptr addrspace(1) %in, i64 %call1.i
  %0 = load <2 x i16>, ptr addrspace(1) %arrayidx.i, align 4
  %add.i = add <2 x i16> %0, <i16 1, i16 2>
  %call2.i = tail call spir_func i64 @_Z12get_local_idj(i32 noundef 0)
  %arrayidx3.i = getelementptr inbounds nuw <2 x i16>, ptr addrspace(3) %tmp, i64 %call2.i
  store <2 x i16> %add.i, ptr addrspace(3) %arrayidx3.i, align 4
  tail call spir_func void @_Z7barrierj(i32 noundef 1)
  %call4.i = tail call spir_func i64 @_Z12get_group_idj(i32 noundef 0)
  %mul.i = shl i64 %call.i, 3
  %add.ptr.idx.i = mul i64 %mul.i, %call4.i
  %add.ptr.i = getelementptr inbounds nuw i8, ptr addrspace(1) %out, i64 %add.ptr.idx.i
  %call6.i = tail call spir_func target("spirv.Event") @_Z29async_work_group_strided_copyPU3AS1Dv2_sPU3AS3KS_mm9ocl_event(ptr addrspace(1) noundef %add.ptr.i, ptr addrspace(3) noundef align 4 %tmp, i64 noundef %call.i, i64 noundef 2, target("spirv.Event") zeroinitializer)
  store target("spirv.Event") %call6.i, ptr %e.i, align 8
  call spir_func void @_Z17wait_group_eventsiP9ocl_event(i32 noundef 1, ptr noundef nonnull %e.i)
  ret void
}

define dso_local spir_kernel void @strided_in(ptr addrspace(1) noundef align 4 %in, ptr addrspace(1) noundef writeonly align 4 captures(none) %out, ptr addrspace(3) noundef align 4 %tmp, ptr addrspace(3) noundef align 4 %tmp2) {
entry:
  %e.i = alloca [2 x target("spirv.Event")], align 8
  %call.i = tail call spir_func i64 @_Z14get_local_sizej(i32 noundef 0)
  %call1.i = tail call spir_func i64 @_Z12get_group_idj(i32 noundef 0)
  %mul.i = mul i64 %call.i, 12
  %add.ptr.idx.i = mul i64 %mul.i, %call1.i
  %add.ptr.i = getelementptr inbounds nuw i8, ptr addrspace(1) %in, i64 %add.ptr.idx.i
  %call3.i = tail call spir_func target("spirv.Event") @_Z29async_work_group_strided_copyPU3AS3iPU3AS1Kimm9ocl_event(ptr addrspace(3) noundef align 4 %tmp, ptr addrspace(1) noundef %add.ptr.i, i64 noundef %call.i, i64 noundef 3, target("spirv.Event") zeroinitializer)
  store target("spirv.Event") %call3.i, ptr %e.i, align 8
  %add.ptr8.i = getelementptr inbounds nuw i8, ptr addrspace(1) %add.ptr.i, i64 4
  %call9.i = tail call spir_func target("spirv.Event") @_Z21async_work_group_copyPU3AS3iPU3AS1Kim9ocl_event(ptr addrspace(3) noundef align 4 %tmp2, ptr addrspace(1) noundef nonnull %add.ptr8.i, i64 noundef %call.i, target("spirv.Event") zeroinitializer)
  %arrayidx10.i = getelementptr inbounds nuw i8, ptr %e.i, i64 8
  store target("spirv.Event") %call9.i, ptr %arrayidx10.i, align 8
  call spir_func void @_Z17wait_group_eventsiP9ocl_event(i32 noundef 2, ptr noundef nonnull %e.i)
  %call11.i = call spir_func i64 @_Z12get_local_idj(i32 noundef 0)
  %arrayidx12.i = getelementptr inbounds nuw i32, ptr addrspace(3) %tmp, i64 %call11.i
  %0 = load i32, ptr addrspace(3) %arrayidx12.i, align 4
  %mul13.i = mul nsw i32 %0, 7
  %1 = xor i64 %call11.i, -1
  %2 = getelementptr i32, ptr addrspace(3) %tmp2, i64 %call.i
  %arrayidx16.i = getelementptr i32, ptr addrspace(3) %2, i64 %1
  %3 = load i32, ptr addrspace(3) %arrayidx16.i, align 4
  %add.i = add nsw i32 %mul13.i, %3
  %call17.i = call spir_func i64 @_Z13get_global_idj(i32 noundef 0)
  %arrayidx18.i = getelementptr inbounds nuw i32, ptr addrspace(1) %out, i64 %call17.i
  store i32 %add.i, ptr addrspace(1) %arrayidx18.i, align 4
  ret void
}

define dso_local spir_kernel void @varying_copy(ptr addrspace(1) noundef align 4 %in, ptr addrspace(1) noundef writeonly align 4 captures(none) %out, ptr addrspace(3) noundef align 4 %tmp) {
entry:
  %e.i = alloca target("spirv.Event"), align 8
  %call.i = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0)
  %add.ptr.i = getelementptr inbounds nuw i32, ptr addrspace(1) %in, i64 %call.i
  %call1.i = tail call spir_func target("spirv.Event") @_Z21async_work_group_copyPU3AS3iPU3AS1Kim9ocl_event(ptr addrspace(3) noundef align 4 %tmp, ptr addrspace(1) noundef %add.ptr.i, i64 noundef 4, target("spirv.Event") zeroinitializer)
  store target("spirv.Event") %call1.i, ptr %e.i, align 8
  call spir_func void @_Z17wait_group_eventsiP9ocl_event(i32 noundef 1, ptr noundef nonnull %e.i)
  %call2.i = call spir_func i64 @_Z12get_local_idj(i32 noundef 0)
  %rem.i = and i64 %call2.i, 3
  %arrayidx.i = getelementptr inbounds nuw i32, ptr addrspace(3) %tmp, i64 %rem.i
  %0 = load i32, ptr addrspace(3) %arrayidx.i, align 4
  %arrayidx4.i = getelementptr inbounds nuw i32, ptr addrspace(1) %out, i64 %call.i
  store i32 %0, ptr addrspace(1) %arrayidx4.i, align 4
  ret void
}

declare spir_func i64 @_Z14get_local_sizej(i32 noundef)
declare spir_func target("spirv.Event") @_Z21async_work_group_copyPU3AS3Dv4_fPU3AS1KS_m9ocl_event(ptr addrspace(3) noundef, ptr addrspace(1) noundef, i64 noundef, target("spirv.Event"))
declare spir_func i64 @_Z12get_group_idj(i32 noundef)
declare spir_func void @_Z8prefetchPU3AS1KDv4_fm(ptr addrspace(1) noundef, i64 noundef)
declare spir_func void @_Z17wait_group_eventsiP9ocl_event(i32 noundef, ptr noundef)
declare spir_func i64 @_Z12get_local_idj(i32 noundef)
declare spir_func i64 @_Z13get_global_idj(i32 noundef)
declare spir_func void @_Z7barrierj(i32 noundef)
declare spir_func target("spirv.Event") @_Z29async_work_group_strided_copyPU3AS1Dv2_sPU3AS3KS_mm9ocl_event(ptr addrspace(1) noundef, ptr addrspace(3) noundef, i64 noundef, i64 noundef, target("spirv.Event"))
declare spir_func target("spirv.Event") @_Z29async_work_group_strided_copyPU3AS3iPU3AS1Kimm9ocl_event(ptr addrspace(3) noundef, ptr addrspace(1) noundef, i64 noundef, i64 noundef, target("spirv.Event"))
declare spir_func target("spirv.Event") @_Z21async_work_group_copyPU3AS3iPU3AS1Kim9ocl_event(ptr addrspace(3) noundef, ptr addrspace(1) noundef, i64 noundef, target("spirv.Event"))
