; vecz-case: 1
; kernel: fuzz_kernel
; args: scalar:i32:0 scalar:i32:0 buf:i32:32:random
; ndrange: global=16,1,1 local=16,1,1
; widths: 4
; dims: 0
; choices: 
; seed: 0
; origin: fuzz.generate seed=4 knobs=default
; failure: mismatch width=4 dim=0 choices=- global=7,1,1 local=7,1,1: buffer 10 index 0 (work-item 0,0,0 -> lane 0 if indexed by global linear id): expected 0 (0x0) got 1 (0x1) (4 elements differ)
; mutation: lane-shift
; reduced: fuzz.reduce from 122 instructions
source_filename = "<string>"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define spir_kernel void @fuzz_kernel(i32 %arg0, i32 %arg1, ptr addrspace(1) %out0) {
entry:
  %lin = call i64 @_Z13get_global_idj(i32 0)
  %0 = call i64 @_Z13get_global_idj(i32 0)
  %1 = and i64 %0, 1
  %2 = icmp ne i64 %1, 0
  br label %loop.header.1

loop.header.1:                                    ; preds = %loop.body.1, %entry
  %v1 = phi i1 [ %2, %entry ], [ false, %loop.body.1 ]
  br i1 %v1, label %loop.body.1, label %loop.exit.1

loop.body.1:                                      ; preds = %loop.header.1
  %3 = getelementptr i8, ptr addrspace(1) %out0, i64 %lin
  store i32 0, ptr addrspace(1) %3, align 4
  br label %loop.header.1

loop.exit.1:                                      ; preds = %loop.header.1
  ret void
}

declare i64 @_Z13get_global_idj(i32)
