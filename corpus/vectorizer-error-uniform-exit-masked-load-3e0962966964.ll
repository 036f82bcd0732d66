; vecz-case: 1
; kernel: fuzz_kernel
; args: scalar:f64:1.0 scalar:i8:7 buf:i8:512:random buf:i8:128:random buf:i32:384:random buf:i32:3:random buf:i32:512:random buf:f64:64:random buf:i64:128:random buf:i64:64:random buf:f32:256:random buf:f32:128:random
; ndrange: global=128,1,1 local=32,1,1
; widths: 1,4,8
; dims: 0
; choices: 
; seed: 17918
; origin: fuzz.generate seed=1000441 knobs=size=26,max_depth=6,max_block=6,max_iterations=64,max_loop_nest=5,max_helpers=0,vectors=False,switch=False,cfg_shapes=0.35,irreducible=0.1,loop_weight=6.0
; failure: vectorizer-error width=1 dim=0 choices=- global=128,1,1 local=32,1,1: VectorizerBug: pass 'control-flow-conversion': vectorizing 'fuzz_kernel': our IR is invalid for LLVM: 372:57: expected value token at /work/main/vectorizer/pass
; reduced: fuzz.reduce from 264 instructions
source_filename = "<string>"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define spir_kernel void @fuzz_kernel(double %arg0, i8 %arg1, ptr addrspace(1) %in0, ptr addrspace(1) %out1, ptr addrspace(1) %out2, ptr addrspace(1) %uniform3, ptr addrspace(1) %in4, ptr addrspace(1) %in5, ptr addrspace(1) %out6, ptr addrspace(1) %in7, ptr addrspace(2) %in8, ptr addrspace(1) %out9) {
entry:
  %priv0 = alloca i8, align 1
  %priv1 = alloca [16 x i32], align 4
  %lin = call i64 @_Z13get_global_idj(i32 0)
  %0 = sub i64 127, %lin
  %out2.base = mul i64 %lin, 3
  br label %loop.header

loop.header:
  br label %loop.header.1

loop.header.1:
  %v1 = phi i32 [ %v1.next, %loop.body.1 ], [ 0, %loop.header ]
  %1 = icmp samesign ult i32 %v1, 16
  br i1 %1, label %loop.body.1, label %loop.exit.1

loop.body.1:
  %2 = call i32 @_Z15convert_int_rteh(i8 %arg1)
  %3 = call i32 @_Z19convert_int_sat_rtzd(double %arg0)
  %4 = call i32 @_Z3maxii(i32 %2, i32 %3)
  %5 = trunc i64 %lin to i32
  %6 = add i32 %v1, %5
  %7 = and i32 %6, 31
  %8 = shl i32 %4, %7
  %9 = addrspacecast ptr %priv1 to ptr addrspace(4)
  %10 = zext nneg i32 %v1 to i64
  %11 = getelementptr i32, ptr addrspace(4) %9, i64 %10
  store i32 %8, ptr addrspace(4) %11, align 4
  %v1.next = add nuw nsw i32 %v1, 1
  br label %loop.header.1

loop.exit.1:
  %12 = getelementptr inbounds i8, ptr addrspace(1) %out1, i64 %0
  store i8 1, ptr addrspace(1) %12, align 1
  br label %loop.header.2

loop.header.2:
  %13 = getelementptr i32, ptr addrspace(1) %out2, i64 %out2.base
  store volatile i32 0, ptr addrspace(1) %13, align 4
  %14 = call i64 @_Z13get_global_idj(i32 0)
  %15 = trunc i64 %14 to i32
  %16 = add i32 %15, 2147483625
  %v3.trip = urem i32 %16, 3
  br label %loop.header.3

loop.header.3:
  %17 = icmp ult i32 0, %v3.trip
  br label %loop.latch.3

loop.latch.3:
  %v2.next = add nuw nsw i32 0, 1
  %18 = icmp samesign ult i32 0, 6
  br label %loop.exit.2

loop.exit.2:
  %19 = call i64 @_Z12get_local_idj(i32 0)
  %20 = trunc i64 %19 to i32
  %v5.trip = and i32 %20, 3
  br label %loop.header.4

loop.header.4:
  %21 = icmp ult i32 0, %v5.trip
  br label %loop.exit.4

loop.exit.4:
  %22 = getelementptr inbounds i64, ptr addrspace(1) %out6, i64 %lin
  store i64 31, ptr addrspace(1) %22, align 8
  %23 = getelementptr inbounds nuw i8, ptr addrspace(1) %in4, i64 136
  %24 = load i32, ptr addrspace(1) %23, align 4
  %25 = getelementptr i8, ptr addrspace(1) %uniform3, i64 4
  store i32 %24, ptr addrspace(1) %25, align 4
  %26 = call i64 @_Z12get_local_idj(i32 0)
  %27 = call i32 @_Z16convert_uint_satt(i16 -1)
  %28 = and i32 %27, 15
  %29 = zext nneg i32 %28 to i64
  %30 = getelementptr inbounds nuw i32, ptr %priv1, i64 %29
  %31 = load i32, ptr %30, align 4
  %v7.trip = and i32 %31, 1
  br label %loop.header.5

loop.header.5:
  %v7 = phi i32 [ 0, %loop.exit.4 ], [ %v7.next, %loop.latch.10 ]
  %32 = call i64 @_Z17get_global_offsetj(i32 1)
  %33 = trunc i64 %32 to i32
  %34 = call i32 @_Z7add_satii(i32 %33, i32 2147483647)
  %35 = getelementptr i8, ptr addrspace(1) %uniform3, i64 8
  store i32 %34, ptr addrspace(1) %35, align 4
  %v8.trip = urem i32 %v7, 6
  br label %loop.header.6

loop.header.6:
  %v8 = phi i32 [ 0, %loop.header.5 ]
  br label %loop.header.7

loop.header.7:
  %v9 = phi i32 [ 0, %loop.header.6 ], [ %v9.next, %loop.latch.8 ]
  %36 = shl nsw i64 %lin, 1
  %37 = call i64 @llvm.smax.i64(i64 %36, i64 -3)
  %38 = call i64 @llvm.smin.i64(i64 %37, i64 250)
  %39 = getelementptr i32, ptr addrspace(1) %in4, i64 %38
  %40 = getelementptr i8, ptr addrspace(1) %39, i64 12
  %41 = load i32, ptr addrspace(1) %40, align 4
  %42 = call i64 @_Z14get_num_groupsj(i32 0)
  %43 = and i64 %42, 15
  %44 = getelementptr inbounds nuw i32, ptr %priv1, i64 %43
  %45 = load i32, ptr %44, align 4
  %46 = shl nsw i64 %lin, 1
  %47 = call i64 @llvm.smax.i64(i64 %46, i64 4)
  %48 = call i64 @llvm.smin.i64(i64 %47, i64 248)
  %49 = addrspacecast ptr addrspace(1) %in4 to ptr addrspace(4)
  %50 = getelementptr i32, ptr addrspace(4) %49, i64 %48
  %51 = getelementptr i8, ptr addrspace(4) %50, i64 -16
  %52 = load i32, ptr addrspace(4) %51, align 4
  %v10.trip = call i32 @llvm.umin.i32(i32 %52, i32 4)
  br label %loop.header.8

loop.header.8:
  %v10 = phi i32 [ 0, %loop.header.7 ]
  %53 = addrspacecast ptr addrspace(1) %in5 to ptr addrspace(4)
  %54 = getelementptr i8, ptr addrspace(4) %53, i64 480
  %55 = load double, ptr addrspace(4) %54, align 8
  %56 = fcmp ogt double %55, 3.000000e+00
  br label %loop.header.10

loop.header.10:
  %57 = call i64 @_Z12get_local_idj(i32 0)
  %58 = call i64 @_Z17get_global_offsetj(i32 0)
  %59 = addrspacecast ptr %priv0 to ptr addrspace(4)
  %60 = load volatile i8, ptr addrspace(4) %59, align 1
  br label %loop.latch.7

loop.latch.7:
  %v10.next = add i32 %v10, 1
  %61 = icmp ult i32 %v10.next, %v10.trip
  br label %loop.latch.8

loop.latch.8:
  %v9.next = add nuw nsw i32 %v9, 1
  %62 = icmp eq i32 %v9, 0
  br i1 %62, label %loop.header.7, label %loop.latch.9

loop.latch.9:
  %v8.next = add i32 %v8, 1
  %63 = icmp ult i32 %v8.next, %v8.trip
  br label %loop.latch.10

loop.latch.10:
  %v7.next = add i32 %v7, 1
  %64 = icmp ult i32 %v7.next, %v7.trip
  br i1 %64, label %loop.header.5, label %loop.exit.5

loop.exit.5:
  %v6.1 = add i32 %41, %45
  %65 = or i32 %v6.1, 5
  %66 = getelementptr i32, ptr addrspace(1) %out2, i64 %out2.base
  %67 = getelementptr i8, ptr addrspace(1) %66, i64 8
  store i32 %65, ptr addrspace(1) %67, align 4
  ret void
}

declare i64 @_Z13get_global_idj(i32)

declare i32 @llvm.umin.i32(i32, i32) #0

declare i32 @_Z15convert_int_rteh(i8)

declare i32 @_Z19convert_int_sat_rtzd(double)

declare i32 @_Z3maxii(i32, i32)

declare i64 @_Z12get_local_idj(i32)

declare i64 @_Z14get_num_groupsj(i32)

declare i32 @_Z4haddjj(i32, i32)

declare i32 @_Z16convert_uint_satt(i16)

declare i64 @_Z17get_global_offsetj(i32)

declare i32 @_Z7add_satii(i32, i32)

declare i64 @llvm.smax.i64(i64, i64) #0

declare i64 @llvm.smin.i64(i64, i64) #0

attributes #0 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
