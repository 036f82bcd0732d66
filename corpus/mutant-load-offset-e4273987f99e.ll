; vecz-case: 1
; kernel: fuzz_kernel
; args: scalar:i32:0 scalar:i32:0 scalar:i32:0 buf:i32:64:random buf:i32:32:random
; ndrange: global=16,1,1 local=16,1,1
; widths: 4
; dims: 0
; choices: 
; seed: 0
; origin: fuzz.generate seed=2 knobs=default
; failure: mismatch width=4 dim=0 choices=- global=96,1,1 local=32,1,1: buffer 11 index 2 (work-item 2,0,0 -> lane 2 if indexed by global linear id): expected 100 (0x64) got 2104418123 (0x7d6edf4b) (1 elements differ)
; mutation: load-offset
; reduced: fuzz.reduce from 302 instructions
source_filename = "<string>"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define spir_kernel void @fuzz_kernel(i32 %arg0, i32 %arg1, i32 %arg2, ptr addrspace(1) %in0, ptr addrspace(1) %out1) {
entry:
  %lin = call i64 @_Z13get_global_idj(i32 0)
  %0 = getelementptr i32, ptr addrspace(1) %in0, i64 %lin
  %v4 = load i32, ptr addrspace(1) %0, align 4
  %.idx = shl i64 %lin, 3
  %1 = getelementptr i8, ptr addrspace(1) %out1, i64 %.idx
  store i32 %v4, ptr addrspace(1) %1, align 4
  ret void
}

declare i64 @_Z13get_global_idj(i32)
