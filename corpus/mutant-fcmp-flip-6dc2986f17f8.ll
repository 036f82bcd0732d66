; vecz-case: 1
; kernel: fuzz_kernel
; args: buf:i32:1:random buf:f64:64:random buf:i32:16:random
; ndrange: global=16,1,1 local=16,1,1
; widths: 4
; dims: 0
; choices: 
; seed: 0
; origin: fuzz.generate seed=16 knobs=default
; failure: mismatch width=4 dim=0 choices=- global=20,9,1 local=5,3,1: buffer 9 index 0 (work-item 0,0,0 -> lane 0 if indexed by global linear id): expected 121 (0x79) got 8397593710118579528 (0x748a3efcabac2d48) (144 elements diff
; mutation: fcmp-flip
; reduced: fuzz.reduce from 156 instructions
source_filename = "<string>"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define spir_kernel void @fuzz_kernel(ptr addrspace(1) %counter0, ptr addrspace(1) %in1, ptr addrspace(1) %out2) {
entry:
  %lin = call i64 @_Z13get_global_idj(i32 0)
  %0 = getelementptr double, ptr addrspace(1) %in1, i64 %lin
  %1 = load double, ptr addrspace(1) %0, align 8
  %2 = fcmp olt double %1, 0.000000e+00
  br i1 %2, label %common.ret, label %if.end.1

common.ret:                                       ; preds = %if.end.1, %entry
  ret void

if.end.1:                                         ; preds = %entry
  %3 = getelementptr i32, ptr addrspace(1) %out2, i64 %lin
  store i32 0, ptr addrspace(1) %3, align 4
  br label %common.ret
}

declare i64 @_Z13get_global_idj(i32)
