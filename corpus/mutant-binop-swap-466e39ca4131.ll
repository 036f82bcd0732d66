; vecz-case: 1
; kernel: fuzz_kernel
; args: buf:i32:32:random buf:4xi32:64:random buf:4xi32:16:random
; ndrange: global=16,1,1 local=16,1,1
; widths: 4
; dims: 0
; choices: 
; seed: 0
; origin: fuzz.generate seed=4 knobs=default
; failure: mismatch width=4 dim=0 choices=- global=7,1,1 local=7,1,1: buffer 9 index 0[0] (work-item 0,0,0 -> lane 0 if indexed by global linear id): expected 3615197374 (0xd77b88be) got 679769922 (0x28847742) (16 elements differ)
; mutation: binop-swap
; reduced: fuzz.reduce from 122 instructions
source_filename = "<string>"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define spir_kernel void @fuzz_kernel(ptr addrspace(1) %out0, ptr addrspace(1) %in1, ptr addrspace(1) %out2) {
entry:
  %0 = load <4 x i32>, ptr addrspace(1) %in1, align 4
  %1 = sub <4 x i32> zeroinitializer, %0
  store <4 x i32> %1, ptr addrspace(1) %out2, align 4
  ret void
}
