; Image reads and writes are calls the packetizer instantiates lane by lane
; (the runtime defines them, oracle/opaque_types.py lowers the opaque types);
; the sampler initialiser and image queries are pure, so uniform calls of
; them stay one scalar call and the opaque values are never widened.
; RUN: %veczc -k blur -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_blur(
; CHECK: %s = call target("spirv.Sampler") @__translate_sampler_initializer(i32 18)
; CHECK-NOT: __translate_sampler_initializer
; CHECK: %w = call i32 @_Z15get_image_width14ocl_image2d_ro(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0) %src)
; CHECK-COUNT-4: call <4 x float> @_Z11read_imagef14ocl_image2d_ro11ocl_samplerDv2_i(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0) %src, target("spirv.Sampler") %s, <2 x i32>
; CHECK-COUNT-4: call void @_Z12write_imagef14ocl_image2d_woDv2_iDv4_f(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 1) %dst, <2 x i32>
; CHECK: ret void

declare i64 @_Z13get_global_idj(i32)
declare target("spirv.Sampler") @__translate_sampler_initializer(i32)
declare i32 @_Z15get_image_width14ocl_image2d_ro(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0))
declare <4 x float> @_Z11read_imagef14ocl_image2d_ro11ocl_samplerDv2_i(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0), target("spirv.Sampler"), <2 x i32>)
declare void @_Z12write_imagef14ocl_image2d_woDv2_iDv4_f(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 1), <2 x i32>, <4 x float>)

define spir_kernel void @blur(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0) %src, target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 1) %dst) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %x = trunc i64 %gid to i32
  %s = call target("spirv.Sampler") @__translate_sampler_initializer(i32 18)
  %w = call i32 @_Z15get_image_width14ocl_image2d_ro(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0) %src)
  %xr = sub i32 %w, %x
  %c0 = insertelement <2 x i32> poison, i32 %xr, i64 0
  %c = insertelement <2 x i32> %c0, i32 0, i64 1
  %v = call <4 x float> @_Z11read_imagef14ocl_image2d_ro11ocl_samplerDv2_i(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0) %src, target("spirv.Sampler") %s, <2 x i32> %c)
  %d0 = insertelement <2 x i32> poison, i32 %x, i64 0
  %d = insertelement <2 x i32> %d0, i32 0, i64 1
  call void @_Z12write_imagef14ocl_image2d_woDv2_iDv4_f(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 1) %dst, <2 x i32> %d, <4 x float> %v)
  ret void
}
