; vecz-case: 1
; kernel: k
; args: buf:i64:64:zero scalar:i32:1
; ndrange: global=8,4,2 local=8,2,1
; ndrange: global=6,3,2 local=3,3,1 offset=2,1,0
; widths: 1,4,8,16
; dims: 0,1,2
; choices: 
; choices: VectorPredication
; seed: 0
; origin: hand-written (issue 20): get_global_id(%d) with %d a kernel argument, found by reading the packetizer
; failure: mismatch width=4 dim=0 choices=- global=8,4,2 local=8,2,1: buffer 0 index 1 (work-item 1,0,0 -> lane 1 if indexed by global linear id): expected 0 (0x0) got 1 (0x1)
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define spir_kernel void @k(ptr addrspace(1) %out, i32 %d) {
entry:
  %x = call i64 @_Z13get_global_idj(i32 0)
  %y0 = call i64 @_Z13get_global_idj(i32 1)
  %z0 = call i64 @_Z13get_global_idj(i32 2)
  %t0 = mul i64 %z0, 4
  %t1 = add i64 %t0, %y0
  %t2 = mul i64 %t1, 8
  %lin = add i64 %t2, %x
  %y = call i64 @_Z13get_global_idj(i32 %d)
  %p = getelementptr i64, ptr addrspace(1) %out, i64 %lin
  store i64 %y, ptr addrspace(1) %p, align 8
  ret void
}

declare i64 @_Z13get_global_idj(i32)
