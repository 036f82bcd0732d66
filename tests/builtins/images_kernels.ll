; Kernels of tests/builtins/test_images.py, compiled by clang 22 (spir64, -O1,
; -fdeclare-opencl-builtins) from OpenCL C (kept beside them as a comment in the
; test) and stripped of metadata.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"

define dso_local spir_kernel void @copy_sampled(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0) %src, target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 1) %dst, target("spirv.Sampler") %smp) {
entry:
  %call.i = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0)
  %conv.i = trunc i64 %call.i to i32
  %call1.i = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 1)
  %conv2.i = trunc i64 %call1.i to i32
  %vecinit.i = insertelement <2 x i32> poison, i32 %conv.i, i64 0
  %vecinit3.i = insertelement <2 x i32> %vecinit.i, i32 %conv2.i, i64 1
  %sub.i = add nsw i32 %conv.i, -1
  %vecinit5.i = insertelement <2 x i32> poison, i32 %sub.i, i64 0
  %add.i = add nsw i32 %conv2.i, 1
  %vecinit6.i = insertelement <2 x i32> %vecinit5.i, i32 %add.i, i64 1
  %call7.i = tail call spir_func <4 x float> @_Z11read_imagef14ocl_image2d_ro11ocl_samplerDv2_i(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0) %src, target("spirv.Sampler") %smp, <2 x i32> noundef %vecinit6.i)
  tail call spir_func void @_Z12write_imagef14ocl_image2d_woDv2_iDv4_f(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 1) %dst, <2 x i32> noundef %vecinit3.i, <4 x float> noundef %call7.i)
  ret void
}

define dso_local spir_kernel void @filter_linear(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0) %src, ptr addrspace(1) noundef writeonly align 16 captures(none) %out) {
entry:
  %call.i = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0)
  %conv.i = trunc i64 %call.i to i32
  %call1.i = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 1)
  %conv2.i = trunc i64 %call1.i to i32
  %conv3.i = sitofp i32 %conv.i to float
  %add.i = fadd float %conv3.i, 0x3FD3333340000000
  %0 = tail call float @llvm.fmuladd.f32(float %add.i, float 0x3FBC28F5C0000000, float 0xBFD99999A0000000)
  %vecinit.i = insertelement <2 x float> poison, float %0, i64 0
  %conv4.i = sitofp i32 %conv2.i to float
  %add5.i = fadd float %conv4.i, 0x3FE3333340000000
  %1 = tail call float @llvm.fmuladd.f32(float %add5.i, float 0x3FC0A3D700000000, float 0xBFC99999A0000000)
  %vecinit6.i = insertelement <2 x float> %vecinit.i, float %1, i64 1
  %2 = tail call spir_func target("spirv.Sampler") @__translate_sampler_initializer(i32 39)
  %call7.i = tail call spir_func <4 x float> @_Z11read_imagef14ocl_image2d_ro11ocl_samplerDv2_f(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0) %src, target("spirv.Sampler") %2, <2 x float> noundef %vecinit6.i)
  %3 = tail call spir_func target("spirv.Sampler") @__translate_sampler_initializer(i32 25)
  %mul.i = fmul <2 x float> %vecinit6.i, splat (float 0x3FFB333340000000)
  %call8.i = tail call spir_func <4 x float> @_Z11read_imagef14ocl_image2d_ro11ocl_samplerDv2_f(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0) %src, target("spirv.Sampler") %3, <2 x float> noundef %mul.i)
  %add9.i = fadd <4 x float> %call7.i, %call8.i
  %4 = tail call spir_func target("spirv.Sampler") @__translate_sampler_initializer(i32 36)
  %mul10.i = fmul <2 x float> %vecinit6.i, splat (float 2.000000e+01)
  %call11.i = tail call spir_func <4 x float> @_Z11read_imagef14ocl_image2d_ro11ocl_samplerDv2_f(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0) %src, target("spirv.Sampler") %4, <2 x float> noundef %mul10.i)
  %add12.i = fadd <4 x float> %add9.i, %call11.i
  %conv13.i = sext i32 %conv2.i to i64
  %call14.i = tail call spir_func i64 @_Z15get_global_sizej(i32 noundef 0)
  %mul15.i = mul i64 %call14.i, %conv13.i
  %conv16.i = sext i32 %conv.i to i64
  %5 = getelementptr <4 x float>, ptr addrspace(1) %out, i64 %mul15.i
  %arrayidx.i = getelementptr <4 x float>, ptr addrspace(1) %5, i64 %conv16.i
  store <4 x float> %add12.i, ptr addrspace(1) %arrayidx.i, align 16
  ret void
}

define dso_local spir_kernel void @uint_image(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0) %src, target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 1) %dst) {
entry:
  %call.i = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0)
  %conv.i = trunc i64 %call.i to i32
  %call1.i = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 1)
  %conv2.i = trunc i64 %call1.i to i32
  %vecinit.i = insertelement <2 x i32> poison, i32 %conv2.i, i64 0
  %vecinit3.i = insertelement <2 x i32> %vecinit.i, i32 %conv.i, i64 1
  %call4.i = tail call spir_func <4 x i32> @_Z12read_imageui14ocl_image2d_roDv2_i(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0) %src, <2 x i32> noundef %vecinit3.i)
  %vecinit6.i = insertelement <2 x i32> poison, i32 %conv.i, i64 0
  %vecinit7.i = insertelement <2 x i32> %vecinit6.i, i32 %conv2.i, i64 1
  %mul.i = mul <4 x i32> %call4.i, splat (i32 3)
  %0 = insertelement <4 x i32> <i32 poison, i32 poison, i32 0, i32 400>, i32 %conv.i, i64 0
  %vecinit12.i = insertelement <4 x i32> %0, i32 %conv2.i, i64 1
  %add.i = add <4 x i32> %mul.i, %vecinit12.i
  tail call spir_func void @_Z13write_imageui14ocl_image2d_woDv2_iDv4_j(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 1) %dst, <2 x i32> noundef %vecinit7.i, <4 x i32> noundef %add.i)
  ret void
}

define dso_local spir_kernel void @int_image(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0) %src, target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 1) %dst) {
entry:
  %call.i = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0)
  %conv.i = trunc i64 %call.i to i32
  %call1.i = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 1)
  %conv2.i = trunc i64 %call1.i to i32
  %vecinit.i = insertelement <2 x i32> poison, i32 %conv.i, i64 0
  %vecinit3.i = insertelement <2 x i32> %vecinit.i, i32 %conv2.i, i64 1
  %call4.i = tail call spir_func <4 x i32> @_Z11read_imagei14ocl_image2d_roDv2_i(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0) %src, <2 x i32> noundef %vecinit3.i)
  %div.i = sdiv <4 x i32> %call4.i, splat (i32 2)
  %0 = insertelement <4 x i32> <i32 poison, i32 poison, i32 1, i32 0>, i32 %conv.i, i64 0
  %vecinit12.i = insertelement <4 x i32> %0, i32 %conv2.i, i64 1
  %sub.i = sub <4 x i32> %div.i, %vecinit12.i
  tail call spir_func void @_Z12write_imagei14ocl_image2d_woDv2_iDv4_i(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 1) %dst, <2 x i32> noundef %vecinit3.i, <4 x i32> noundef %sub.i)
  ret void
}

define dso_local spir_kernel void @unorm(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0) %src, target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 1) %dst) {
entry:
  %call.i = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0)
  %conv.i = trunc i64 %call.i to i32
  %call1.i = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 1)
  %conv2.i = trunc i64 %call1.i to i32
  %vecinit.i = insertelement <2 x i32> poison, i32 %conv.i, i64 0
  %vecinit3.i = insertelement <2 x i32> %vecinit.i, i32 %conv2.i, i64 1
  %call4.i = tail call spir_func <4 x float> @_Z11read_imagef14ocl_image2d_roDv2_i(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0) %src, <2 x i32> noundef %vecinit3.i)
  %0 = tail call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %call4.i, <4 x float> splat (float 1.500000e+00), <4 x float> splat (float -2.500000e-01))
  tail call spir_func void @_Z12write_imagef14ocl_image2d_woDv2_iDv4_f(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 1) %dst, <2 x i32> noundef %vecinit3.i, <4 x float> noundef %0)
  ret void
}

define dso_local spir_kernel void @volume(target("spirv.Image", void, 2, 0, 0, 0, 0, 0, 0) %vol, target("spirv.Sampler") %smp, ptr addrspace(1) noundef writeonly align 16 captures(none) %out) {
entry:
  %call.i = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0)
  %conv.i = trunc i64 %call.i to i32
  %conv1.i = sitofp i32 %conv.i to float
  %mul.i = fmul float %conv1.i, 0x3FD7AE1480000000
  %0 = tail call float @llvm.fmuladd.f32(float %conv1.i, float 0x3FCAE147A0000000, float 5.000000e-01)
  %neg.i = fneg float %conv1.i
  %1 = tail call float @llvm.fmuladd.f32(float %neg.i, float 0x3FD3333340000000, float 0x400F333340000000)
  %2 = insertelement <4 x float> <float poison, float poison, float poison, float 0.000000e+00>, float %mul.i, i64 0
  %3 = insertelement <4 x float> %2, float %0, i64 1
  %vecinit8.i = insertelement <4 x float> %3, float %1, i64 2
  %call9.i = tail call spir_func <4 x float> @_Z11read_imagef14ocl_image3d_ro11ocl_samplerDv4_f(target("spirv.Image", void, 2, 0, 0, 0, 0, 0, 0) %vol, target("spirv.Sampler") %smp, <4 x float> noundef %vecinit8.i)
  %4 = tail call spir_func target("spirv.Sampler") @__translate_sampler_initializer(i32 36)
  %call10.i = tail call spir_func <4 x float> @_Z11read_imagef14ocl_image3d_ro11ocl_samplerDv4_f(target("spirv.Image", void, 2, 0, 0, 0, 0, 0, 0) %vol, target("spirv.Sampler") %4, <4 x float> noundef %vecinit8.i)
  %add.i = fadd <4 x float> %call9.i, %call10.i
  %idxprom.i = sext i32 %conv.i to i64
  %arrayidx.i = getelementptr inbounds <4 x float>, ptr addrspace(1) %out, i64 %idxprom.i
  store <4 x float> %add.i, ptr addrspace(1) %arrayidx.i, align 16
  ret void
}

define dso_local spir_kernel void @queries(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0) %a, target("spirv.Image", void, 2, 0, 0, 0, 0, 0, 0) %b, ptr addrspace(1) noundef writeonly align 4 captures(none) %out) {
entry:
  %call.i = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0)
  %cmp.i = icmp eq i64 %call.i, 0
  br i1 %cmp.i, label %if.then.i, label %__clang_ocl_kern_imp_queries.exit

if.then.i:                                        ; preds = %entry
  %call1.i = tail call spir_func <2 x i32> @_Z13get_image_dim14ocl_image2d_ro(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0) %a)
  %call2.i = tail call spir_func <4 x i32> @_Z13get_image_dim14ocl_image3d_ro(target("spirv.Image", void, 2, 0, 0, 0, 0, 0, 0) %b)
  %call3.i = tail call spir_func i32 @_Z15get_image_width14ocl_image2d_ro(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0) %a)
  store i32 %call3.i, ptr addrspace(1) %out, align 4
  %call4.i = tail call spir_func i32 @_Z16get_image_height14ocl_image2d_ro(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0) %a)
  %arrayidx5.i = getelementptr inbounds nuw i8, ptr addrspace(1) %out, i64 4
  store i32 %call4.i, ptr addrspace(1) %arrayidx5.i, align 4
  %call6.i = tail call spir_func i32 @_Z23get_image_channel_order14ocl_image2d_ro(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0) %a)
  %arrayidx7.i = getelementptr inbounds nuw i8, ptr addrspace(1) %out, i64 8
  store i32 %call6.i, ptr addrspace(1) %arrayidx7.i, align 4
  %call8.i = tail call spir_func i32 @_Z27get_image_channel_data_type14ocl_image2d_ro(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0) %a)
  %arrayidx9.i = getelementptr inbounds nuw i8, ptr addrspace(1) %out, i64 12
  store i32 %call8.i, ptr addrspace(1) %arrayidx9.i, align 4
  %0 = extractelement <2 x i32> %call1.i, i64 0
  %arrayidx10.i = getelementptr inbounds nuw i8, ptr addrspace(1) %out, i64 16
  store i32 %0, ptr addrspace(1) %arrayidx10.i, align 4
  %1 = extractelement <2 x i32> %call1.i, i64 1
  %arrayidx11.i = getelementptr inbounds nuw i8, ptr addrspace(1) %out, i64 20
  store i32 %1, ptr addrspace(1) %arrayidx11.i, align 4
  %call12.i = tail call spir_func i32 @_Z15get_image_width14ocl_image3d_ro(target("spirv.Image", void, 2, 0, 0, 0, 0, 0, 0) %b)
  %arrayidx13.i = getelementptr inbounds nuw i8, ptr addrspace(1) %out, i64 24
  store i32 %call12.i, ptr addrspace(1) %arrayidx13.i, align 4
  %call14.i = tail call spir_func i32 @_Z16get_image_height14ocl_image3d_ro(target("spirv.Image", void, 2, 0, 0, 0, 0, 0, 0) %b)
  %arrayidx15.i = getelementptr inbounds nuw i8, ptr addrspace(1) %out, i64 28
  store i32 %call14.i, ptr addrspace(1) %arrayidx15.i, align 4
  %call16.i = tail call spir_func i32 @_Z15get_image_depth14ocl_image3d_ro(target("spirv.Image", void, 2, 0, 0, 0, 0, 0, 0) %b)
  %arrayidx17.i = getelementptr inbounds nuw i8, ptr addrspace(1) %out, i64 32
  store i32 %call16.i, ptr addrspace(1) %arrayidx17.i, align 4
  %2 = extractelement <4 x i32> %call2.i, i64 0
  %arrayidx18.i = getelementptr inbounds nuw i8, ptr addrspace(1) %out, i64 36
  store i32 %2, ptr addrspace(1) %arrayidx18.i, align 4
  %3 = extractelement <4 x i32> %call2.i, i64 1
  %arrayidx19.i = getelementptr inbounds nuw i8, ptr addrspace(1) %out, i64 40
  store i32 %3, ptr addrspace(1) %arrayidx19.i, align 4
  %4 = extractelement <4 x i32> %call2.i, i64 2
  %arrayidx20.i = getelementptr inbounds nuw i8, ptr addrspace(1) %out, i64 44
  store i32 %4, ptr addrspace(1) %arrayidx20.i, align 4
  %5 = extractelement <4 x i32> %call2.i, i64 3
  %arrayidx21.i = getelementptr inbounds nuw i8, ptr addrspace(1) %out, i64 48
  store i32 %5, ptr addrspace(1) %arrayidx21.i, align 4
  br label %__clang_ocl_kern_imp_queries.exit

__clang_ocl_kern_imp_queries.exit:                ; preds = %entry, %if.then.i
  ret void
}

declare spir_func i64 @_Z13get_global_idj(i32 noundef)
declare spir_func void @_Z12write_imagef14ocl_image2d_woDv2_iDv4_f(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 1), <2 x i32> noundef, <4 x float> noundef)
declare spir_func <4 x float> @_Z11read_imagef14ocl_image2d_ro11ocl_samplerDv2_i(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0), target("spirv.Sampler"), <2 x i32> noundef)
declare spir_func <4 x float> @_Z11read_imagef14ocl_image2d_ro11ocl_samplerDv2_f(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0), target("spirv.Sampler"), <2 x float> noundef)
declare spir_func target("spirv.Sampler") @__translate_sampler_initializer(i32)
declare spir_func i64 @_Z15get_global_sizej(i32 noundef)
declare spir_func <4 x i32> @_Z12read_imageui14ocl_image2d_roDv2_i(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0), <2 x i32> noundef)
declare spir_func void @_Z13write_imageui14ocl_image2d_woDv2_iDv4_j(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 1), <2 x i32> noundef, <4 x i32> noundef)
declare spir_func <4 x i32> @_Z11read_imagei14ocl_image2d_roDv2_i(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0), <2 x i32> noundef)
declare spir_func void @_Z12write_imagei14ocl_image2d_woDv2_iDv4_i(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 1), <2 x i32> noundef, <4 x i32> noundef)
declare spir_func <4 x float> @_Z11read_imagef14ocl_image2d_roDv2_i(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0), <2 x i32> noundef)
declare spir_func <4 x float> @_Z11read_imagef14ocl_image3d_ro11ocl_samplerDv4_f(target("spirv.Image", void, 2, 0, 0, 0, 0, 0, 0), target("spirv.Sampler"), <4 x float> noundef)
declare spir_func <2 x i32> @_Z13get_image_dim14ocl_image2d_ro(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0))
declare spir_func <4 x i32> @_Z13get_image_dim14ocl_image3d_ro(target("spirv.Image", void, 2, 0, 0, 0, 0, 0, 0))
declare spir_func i32 @_Z15get_image_width14ocl_image2d_ro(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0))
declare spir_func i32 @_Z16get_image_height14ocl_image2d_ro(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0))
declare spir_func i32 @_Z23get_image_channel_order14ocl_image2d_ro(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0))
declare spir_func i32 @_Z27get_image_channel_data_type14ocl_image2d_ro(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0))
declare spir_func i32 @_Z15get_image_width14ocl_image3d_ro(target("spirv.Image", void, 2, 0, 0, 0, 0, 0, 0))
declare spir_func i32 @_Z16get_image_height14ocl_image3d_ro(target("spirv.Image", void, 2, 0, 0, 0, 0, 0, 0))
declare spir_func i32 @_Z15get_image_depth14ocl_image3d_ro(target("spirv.Image", void, 2, 0, 0, 0, 0, 0, 0))
; Hand-written: coordinates computed without contraction, so that the test's
; reference computes the same ones; one sampled read per work-item.
define spir_kernel void @sample(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0) %img, target("spirv.Sampler") %smp, float %scale, ptr addrspace(1) %out) {
entry:
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %i = trunc i64 %gid to i32
  %ix = urem i32 %i, 37
  %iy = urem i32 %i, 23
  %fx = sitofp i32 %ix to float
  %fy = sitofp i32 %iy to float
  %mx = fmul float %fx, 0x3FC624DD20000000
  %my = fmul float %fy, 0x3FCC083120000000
  %sx = fsub float %mx, 2.125
  %sy = fsub float %my, 1.75
  %tx = fmul float %sx, %scale
  %ty = fmul float %sy, %scale
  %c0 = insertelement <2 x float> poison, float %tx, i64 0
  %c = insertelement <2 x float> %c0, float %ty, i64 1
  %v = call spir_func <4 x float> @_Z11read_imagef14ocl_image2d_ro11ocl_samplerDv2_f(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0) %img, target("spirv.Sampler") %smp, <2 x float> %c)
  %p = getelementptr <4 x float>, ptr addrspace(1) %out, i64 %gid
  store <4 x float> %v, ptr addrspace(1) %p, align 16
  ret void
}

; 1-D (clang 22): kernel void line(read_only image1d_t src, write_only image1d_t dst), with
; a normalized, mirrored-repeat, linear sampler; writes read_imagef(src, lin, x * 0.07f - 0.5f) + width.
define dso_local spir_kernel void @line(target("spirv.Image", void, 0, 0, 0, 0, 0, 0, 0) %src, target("spirv.Image", void, 0, 0, 0, 0, 0, 0, 1) %dst) {
entry:
  %call.i = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0)
  %conv.i = trunc i64 %call.i to i32
  %0 = tail call spir_func target("spirv.Sampler") @__translate_sampler_initializer(i32 41)
  %conv1.i = sitofp i32 %conv.i to float
  %1 = tail call float @llvm.fmuladd.f32(float %conv1.i, float 0x3FB1EB8520000000, float -5.000000e-01)
  %call2.i = tail call spir_func <4 x float> @_Z11read_imagef14ocl_image1d_ro11ocl_samplerf(target("spirv.Image", void, 0, 0, 0, 0, 0, 0, 0) %src, target("spirv.Sampler") %0, float noundef %1)
  %call3.i = tail call spir_func i32 @_Z15get_image_width14ocl_image1d_ro(target("spirv.Image", void, 0, 0, 0, 0, 0, 0, 0) %src)
  %conv4.i = sitofp i32 %call3.i to float
  %splat.splatinsert.i = insertelement <4 x float> poison, float %conv4.i, i64 0
  %splat.splat.i = shufflevector <4 x float> %splat.splatinsert.i, <4 x float> poison, <4 x i32> zeroinitializer
  %add.i = fadd <4 x float> %call2.i, %splat.splat.i
  tail call spir_func void @_Z12write_imagef14ocl_image1d_woiDv4_f(target("spirv.Image", void, 0, 0, 0, 0, 0, 0, 1) %dst, i32 noundef %conv.i, <4 x float> noundef %add.i)
  ret void
}

declare spir_func <4 x float> @_Z11read_imagef14ocl_image1d_ro11ocl_samplerf(target("spirv.Image", void, 0, 0, 0, 0, 0, 0, 0), target("spirv.Sampler"), float noundef)
declare float @llvm.fmuladd.f32(float, float, float)
declare spir_func void @_Z12write_imagef14ocl_image1d_woiDv4_f(target("spirv.Image", void, 0, 0, 0, 0, 0, 0, 1), i32 noundef, <4 x float> noundef)
declare spir_func i32 @_Z15get_image_width14ocl_image1d_ro(target("spirv.Image", void, 0, 0, 0, 0, 0, 0, 0))
