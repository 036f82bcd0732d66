; vecz-case: 1
; kernel: fuzz_kernel
; args: buf:f32:64:random buf:i32:32:random
; ndrange: global=16,1,1 local=16,1,1
; widths: 4
; dims: 0
; choices: 
; seed: 0
; origin: fuzz.generate seed=10 knobs=default
; failure: mismatch width=4 dim=0 choices=- global=16,8,2 local=4,2,2: buffer 9 index 92 (work-item 12,5,0 -> lane 0 if indexed by global linear id): expected 4968 (0x1368) got 19 (0x13) (9 elements differ)
; mutation: shuffle-swap
; reduced: fuzz.reduce from 303 instructions
source_filename = "<string>"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define spir_kernel void @fuzz_kernel(ptr addrspace(1) %in0, ptr addrspace(1) %out1) {
entry:
  %lin = call i64 @_Z13get_global_idj(i32 0)
  %0 = sub i64 0, %lin
  %1 = getelementptr float, ptr addrspace(1) %in0, i64 %0
  %2 = load float, ptr addrspace(1) %1, align 4
  %3 = fcmp ogt float %2, 0.000000e+00
  br i1 %3, label %if.then, label %if.end

if.then:                                          ; preds = %entry
  %4 = getelementptr i8, ptr addrspace(1) %out1, i64 %lin
  store i32 0, ptr addrspace(1) %4, align 4
  br label %if.end

if.end:                                           ; preds = %if.then, %entry
  ret void
}

declare i64 @_Z13get_global_idj(i32)
