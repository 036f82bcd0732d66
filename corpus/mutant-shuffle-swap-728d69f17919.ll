; vecz-case: 1
; kernel: fuzz_kernel
; args: scalar:i64:0 scalar:f64:0.0 buf:i32:48:random buf:f64:16:random buf:i32:64:random
; ndrange: global=16,1,1 local=16,1,1
; widths: 4
; dims: 0
; choices: 
; seed: 0
; origin: fuzz.generate seed=22 knobs=default
; failure: mismatch width=4 dim=0 choices=- global=12,1,1 local=12,1,1: buffer 1 index 3 (work-item 3,0,0 -> lane 3 if indexed by global linear id): expected 3 (0x3) got 41 (0x29) (4 elements differ)
; mutation: shuffle-swap
; reduced: fuzz.reduce from 289 instructions
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define internal void @helper0(i32 %v0, i32 %v1, i32 %v2, ptr addrspace(1) %out, i64 %base) {
entry:
  %0 = getelementptr i32, ptr addrspace(1) %out, i64 %base
  store i32 0, ptr addrspace(1) %0, align 4
  ret void
}

define internal <8 x i8> @helper1(<8 x i8> %v3, i32 %v4, <8 x i8> %v5, ptr addrspace(1) %out, i64 %base) {
entry:
  %0 = getelementptr double, ptr addrspace(1) %out, i64 %base
  store double 0.000000e+00, ptr addrspace(1) %0, align 8
  ret <8 x i8> %v3
}

define spir_kernel void @fuzz_kernel(i64 %arg0, double %arg1, ptr addrspace(1) %out0, ptr addrspace(1) %out1, ptr addrspace(1) %in2) {
entry:
  %priv0 = alloca [4 x <8 x i8>], align 1
  %priv1 = alloca [4 x <8 x i8>], align 1
  %lin = call i64 @_Z13get_global_idj(i32 0)
  %out0.base = mul i64 %lin, 3
  %v6.trip = call i32 @llvm.umin.i32(i32 4, i32 4)
  br label %loop.header

loop.header:
  %v6 = phi i32 [ 0, %entry ], [ %v6.next, %loop.latch ]
  %0 = icmp ult i32 %v6, %v6.trip
  br i1 %0, label %loop.body, label %loop.exit

loop.body:
  %1 = and i32 %v6, 3
  %2 = add <8 x i8> <i8 0, i8 0, i8 0, i8 0, i8 0, i8 0, i8 0, i8 0>, <i8 0, i8 0, i8 0, i8 0, i8 0, i8 0, i8 0, i8 0>
  %3 = add <8 x i8> <i8 0, i8 0, i8 0, i8 0, i8 0, i8 0, i8 0, i8 0>, %2
  %4 = getelementptr [4 x <8 x i8>], ptr %priv0, i32 0, i32 %1
  store <8 x i8> %3, ptr %4, align 1
  br label %loop.latch

loop.latch:
  %v6.next = add i32 %v6, 1
  br label %loop.header

loop.exit:
  %v7.trip = call i32 @llvm.umin.i32(i32 4, i32 4)
  br label %loop.header.1

loop.header.1:
  %v7 = phi i32 [ 0, %loop.exit ], [ %v7.next, %loop.latch.1 ]
  %5 = icmp ult i32 %v7, %v7.trip
  br i1 %5, label %loop.body.1, label %loop.exit.1

loop.body.1:
  %6 = and i32 %v7, 3
  %7 = add <8 x i8> <i8 0, i8 0, i8 0, i8 0, i8 0, i8 0, i8 0, i8 0>, <i8 0, i8 0, i8 0, i8 0, i8 0, i8 0, i8 0, i8 0>
  %8 = add <8 x i8> <i8 0, i8 0, i8 0, i8 0, i8 0, i8 0, i8 0, i8 0>, %7
  %9 = getelementptr [4 x <8 x i8>], ptr %priv1, i32 0, i32 %6
  store <8 x i8> %8, ptr %9, align 1
  br label %loop.latch.1

loop.latch.1:
  %v7.next = add i32 %v7, 1
  br label %loop.header.1

loop.exit.1:
  %10 = trunc i64 %lin to i32
  %11 = getelementptr i32, ptr addrspace(1) %in2, i64 0
  %12 = load i32, ptr addrspace(1) %11, align 4
  %13 = mul nsw i64 %lin, -1
  %14 = add nsw i64 %13, 15
  %15 = getelementptr i32, ptr addrspace(1) %in2, i64 %14
  %16 = load i32, ptr addrspace(1) %15, align 4
  %17 = icmp eq i32 %16, 0
  %18 = icmp eq i32 %12, -2147483648
  %19 = icmp eq i32 %16, -1
  %20 = and i1 %18, %19
  %21 = or i1 %17, %20
  %22 = select i1 %21, i32 1, i32 %16
  %23 = sdiv i32 %12, %22
  %24 = mul i32 %10, %23
  %v8.trip = call i32 @llvm.umin.i32(i32 %24, i32 1)
  br label %loop.header.2

loop.header.2:
  %v8 = phi i32 [ 0, %loop.exit.1 ], [ %v8.next, %loop.latch.2 ]
  %25 = icmp ult i32 %v8, %v8.trip
  br i1 %25, label %loop.body.2, label %loop.exit.2

loop.body.2:
  %26 = add i64 %out0.base, 1
  %27 = getelementptr i32, ptr addrspace(1) %out0, i64 %26
  store i32 0, ptr addrspace(1) %27, align 4
  br label %loop.latch.2

loop.latch.2:
  %v8.next = add i32 %v8, 1
  br label %loop.header.2

loop.exit.2:
  %28 = add i64 %out0.base, 2
  %29 = getelementptr i32, ptr addrspace(1) %out0, i64 %28
  store i32 0, ptr addrspace(1) %29, align 4
  ret void
}

declare i64 @_Z13get_global_idj(i32)

declare i32 @llvm.umin.i32(i32, i32)
