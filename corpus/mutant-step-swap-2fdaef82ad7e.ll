; vecz-case: 1
; kernel: fuzz_kernel
; args: buf:f64:64:random buf:f64:16:random buf:i32:16:random
; ndrange: global=16,1,1 local=16,1,1
; widths: 4
; dims: 0
; choices: 
; seed: 0
; origin: fuzz.generate seed=2 knobs=default
; failure: mismatch width=4 dim=0 choices=- global=96,1,1 local=32,1,1: buffer 13 index 2 (work-item 2,0,0 -> lane 2 if indexed by global linear id): expected -17.306543350219727 (-0x1.14e79a0000000p+4) got 57.40459442138672 (0x1.cb
; mutation: step-swap
; reduced: fuzz.reduce from 302 instructions
source_filename = "<string>"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define spir_kernel void @fuzz_kernel(ptr addrspace(1) %in0, ptr addrspace(1) %out1, ptr addrspace(1) %out2) {
entry:
  %lin = call i64 @_Z13get_global_idj(i32 0)
  %0 = and i64 %lin, 15
  %1 = getelementptr double, ptr addrspace(1) %in0, i64 %lin
  %2 = load double, ptr addrspace(1) %1, align 8
  %3 = fadd double %2, 0.000000e+00
  %4 = getelementptr double, ptr addrspace(1) %out1, i64 %0
  store double %3, ptr addrspace(1) %4, align 8
  ret void
}

declare i64 @_Z13get_global_idj(i32)
