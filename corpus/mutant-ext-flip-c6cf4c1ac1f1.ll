; vecz-case: 1
; kernel: fuzz_kernel
; args: buf:f32:64:random buf:i32:32:random
; ndrange: global=16,1,1 local=16,1,1
; widths: 4
; dims: 0
; choices: 
; seed: 0
; origin: fuzz.generate seed=10 knobs=default
; failure: mismatch width=4 dim=0 choices=- global=16,8,2 local=4,2,2: buffer 9 index 3 (work-item 3,0,0 -> lane 3 if indexed by global linear id): expected 0 (0x0) got 4294967295 (0xffffffff) (124 elements differ)
; mutation: ext-flip
; reduced: fuzz.reduce from 303 instructions
source_filename = "<string>"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define spir_kernel void @fuzz_kernel(ptr addrspace(1) %in0, ptr addrspace(1) %out1) {
entry:
  %lin = call i64 @_Z13get_global_idj(i32 0)
  %0 = call i64 @_Z13get_global_idj(i32 0)
  %1 = and i64 %0, 1
  %2 = getelementptr float, ptr addrspace(1) %in0, i64 %1
  %3 = load float, ptr addrspace(1) %2, align 4
  %4 = call i16 @llvm.fptosi.sat.i16.f32(float %3)
  %5 = zext i16 %4 to i32
  %.idx = shl i64 %lin, 3
  %6 = getelementptr i8, ptr addrspace(1) %out1, i64 %.idx
  store i32 %5, ptr addrspace(1) %6, align 4
  ret void
}

declare i64 @_Z13get_global_idj(i32)

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i16 @llvm.fptosi.sat.i16.f32(float) #0

attributes #0 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
