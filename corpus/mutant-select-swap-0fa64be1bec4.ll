; vecz-case: 1
; kernel: fuzz_kernel
; args: buf:i32:32:random
; ndrange: global=16,1,1 local=16,1,1
; widths: 4
; dims: 0
; choices: 
; seed: 0
; origin: fuzz.generate seed=2 knobs=default
; failure: mismatch width=4 dim=0 choices=- global=8,1,1 local=8,1,1: buffer 11 index 2 (work-item 2,0,0 -> lane 2 if indexed by global linear id): expected 2104418123 (0x7d6edf4b) got 100 (0x64) (8 elements differ)
; mutation: select-swap
; reduced: fuzz.reduce from 302 instructions
source_filename = "<string>"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define spir_kernel void @fuzz_kernel(ptr addrspace(1) %out0) {
entry:
  %0 = call i64 @_Z13get_global_idj(i32 0)
  %1 = and i64 %0, 1
  %2 = icmp ne i64 %1, 0
  br label %loop.header

loop.header:                                      ; preds = %loop.body, %entry
  %v0 = phi i1 [ %2, %entry ], [ false, %loop.body ]
  br i1 %v0, label %loop.body, label %loop.exit

loop.body:                                        ; preds = %loop.header
  store i32 0, ptr addrspace(1) %out0, align 4
  br label %loop.header

loop.exit:                                        ; preds = %loop.header
  ret void
}

declare i64 @_Z13get_global_idj(i32)
