; vecz-case: 1
; kernel: fuzz_kernel
; args: buf:i64:2:random buf:i64:192:random buf:i32:64:iota buf:i32:128:random buf:i64:128:random buf:i32:64:random buf:f32:64:random
; ndrange: global=16,4,1 local=4,4,1
; widths: 4
; dims: 0
; choices: 
; seed: 0
; origin: fuzz.generate seed=7 knobs=default
; failure: mismatch width=4 dim=0 choices=- global=16,4,1 local=4,4,1: buffer 1 index 0 (work-item 0,0,0 -> lane 0 if indexed by global linear id): expected 2156942078878448061 (0x1deeff648ca479bd) got 14229953559989422796 (0xc57af
; mutation: fcmp-flip
; reduced: fuzz.reduce from 212 instructions
; reduced: fuzz.reduce from 125 instructions
; reduced: fuzz.reduce from 31 instructions
source_filename = "<string>"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define spir_kernel void @fuzz_kernel(ptr addrspace(1) %uniform0, ptr addrspace(1) %out1, ptr addrspace(1) %iota2, ptr addrspace(1) %in3, ptr addrspace(1) %in4, ptr addrspace(1) %index5, ptr addrspace(1) %in6) {
entry:
  %0 = call i64 @_Z13get_global_idj(i32 0)
  br label %loop.header.2

loop.header.2:                                    ; preds = %loop.header.2, %entry
  %1 = phi i1 [ true, %entry ], [ false, %loop.header.2 ]
  %v2 = phi i64 [ 0, %entry ], [ 1, %loop.header.2 ]
  %2 = getelementptr i64, ptr addrspace(1) %in4, i64 %v2
  %3 = load i64, ptr addrspace(1) %2, align 8
  store i64 %3, ptr addrspace(1) %out1, align 8
  %4 = getelementptr i32, ptr addrspace(1) %index5, i64 %0
  %5 = load i32, ptr addrspace(1) %4, align 4
  %6 = and i32 %5, 1
  %7 = zext nneg i32 %6 to i64
  %8 = getelementptr float, ptr addrspace(1) %in6, i64 %7
  %9 = load float, ptr addrspace(1) %8, align 4
  %10 = fcmp oge float %9, 0.000000e+00
  %11 = select i1 %10, float %9, float 0.000000e+00
  %12 = fptosi float %11 to i64
  %13 = icmp eq i64 %12, 0
  %or.cond = and i1 %13, %1
  br i1 %or.cond, label %loop.header.2, label %if.end

if.end:                                           ; preds = %loop.header.2
  ret void
}

declare i64 @_Z13get_global_idj(i32)
