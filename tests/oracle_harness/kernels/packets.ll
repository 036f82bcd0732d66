; Packets at barriers: a scalar kernel that mirrors its group through a
; module-level __local tile, and hand-written "vectorized" functions that
; compute 4 work-items per call (b .. b+3, b = get_local_id(0)) and reach the
; barrier once per packet, as a vectorizer's output would. The oracle's
; vectorized run makes one fiber per packet and one per remainder work-item;
; they all share @rev.tile.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64-unknown-unknown"

@rev.tile = internal addrspace(3) global [64 x i32] undef, align 16

declare i64 @_Z13get_global_idj(i32)
declare i64 @_Z12get_local_idj(i32)
declare i64 @_Z14get_local_sizej(i32)
declare void @_Z7barrierj(i32)
declare <4 x i32> @llvm.masked.load.v4i32.p1(ptr addrspace(1), i32, <4 x i1>, <4 x i32>)
declare void @llvm.masked.store.v4i32.p3(<4 x i32>, ptr addrspace(3), i32, <4 x i1>)
declare void @llvm.masked.store.v4i32.p1(<4 x i32>, ptr addrspace(1), i32, <4 x i1>)
declare <4 x i32> @llvm.masked.gather.v4i32.v4p3(<4 x ptr addrspace(3)>, i32, <4 x i1>, <4 x i32>)

define spir_kernel void @rev(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %g = call i64 @_Z13get_global_idj(i32 0)
  %l = call i64 @_Z12get_local_idj(i32 0)
  %L = call i64 @_Z14get_local_sizej(i32 0)
  %pin = getelementptr i32, ptr addrspace(1) %in, i64 %g
  %v = load i32, ptr addrspace(1) %pin, align 4
  %pt = getelementptr [64 x i32], ptr addrspace(3) @rev.tile, i64 0, i64 %l
  store i32 %v, ptr addrspace(3) %pt, align 4
  call void @_Z7barrierj(i32 1)
  %m0 = sub i64 %L, 1
  %m = sub i64 %m0, %l
  %pm = getelementptr [64 x i32], ptr addrspace(3) @rev.tile, i64 0, i64 %m
  %w = load i32, ptr addrspace(3) %pm, align 4
  %po = getelementptr i32, ptr addrspace(1) %out, i64 %g
  store i32 %w, ptr addrspace(1) %po, align 4
  ret void
}

; Lane k reads tile[L-1-(b+k)]: the four slots from L-4-b, reversed.
define spir_kernel void @rev_v4(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %g = call i64 @_Z13get_global_idj(i32 0)
  %l = call i64 @_Z12get_local_idj(i32 0)
  %L = call i64 @_Z14get_local_sizej(i32 0)
  %pin = getelementptr i32, ptr addrspace(1) %in, i64 %g
  %v = load <4 x i32>, ptr addrspace(1) %pin, align 4
  %pt = getelementptr [64 x i32], ptr addrspace(3) @rev.tile, i64 0, i64 %l
  store <4 x i32> %v, ptr addrspace(3) %pt, align 4
  call void @_Z7barrierj(i32 1)
  %m0 = sub i64 %L, 4
  %m = sub i64 %m0, %l
  %pm = getelementptr [64 x i32], ptr addrspace(3) @rev.tile, i64 0, i64 %m
  %w = load <4 x i32>, ptr addrspace(3) %pm, align 4
  %r = shufflevector <4 x i32> %w, <4 x i32> poison, <4 x i32> <i32 3, i32 2, i32 1, i32 0>
  %po = getelementptr i32, ptr addrspace(1) %out, i64 %g
  store <4 x i32> %r, ptr addrspace(1) %po, align 4
  ret void
}

; The same with VectorPredication: lanes at or past the local size are
; inactive (the driver calls it once more for a local size's remainder).
define spir_kernel void @rev_v4_pred(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %g = call i64 @_Z13get_global_idj(i32 0)
  %l = call i64 @_Z12get_local_idj(i32 0)
  %L = call i64 @_Z14get_local_sizej(i32 0)
  %l.i = insertelement <4 x i64> poison, i64 %l, i64 0
  %l.s = shufflevector <4 x i64> %l.i, <4 x i64> poison, <4 x i32> zeroinitializer
  %lanes = add <4 x i64> %l.s, <i64 0, i64 1, i64 2, i64 3>
  %L.i = insertelement <4 x i64> poison, i64 %L, i64 0
  %L.s = shufflevector <4 x i64> %L.i, <4 x i64> poison, <4 x i32> zeroinitializer
  %mask = icmp ult <4 x i64> %lanes, %L.s
  %pin = getelementptr i32, ptr addrspace(1) %in, i64 %g
  %v = call <4 x i32> @llvm.masked.load.v4i32.p1(ptr addrspace(1) %pin, i32 4, <4 x i1> %mask, <4 x i32> poison)
  %pt = getelementptr [64 x i32], ptr addrspace(3) @rev.tile, i64 0, i64 %l
  call void @llvm.masked.store.v4i32.p3(<4 x i32> %v, ptr addrspace(3) %pt, i32 4, <4 x i1> %mask)
  call void @_Z7barrierj(i32 1)
  %last = sub <4 x i64> %L.s, <i64 1, i64 1, i64 1, i64 1>
  %mirror = sub <4 x i64> %last, %lanes
  %ptrs = getelementptr [64 x i32], ptr addrspace(3) @rev.tile, i64 0, <4 x i64> %mirror
  %w = call <4 x i32> @llvm.masked.gather.v4i32.v4p3(<4 x ptr addrspace(3)> %ptrs, i32 4, <4 x i1> %mask, <4 x i32> poison)
  %po = getelementptr i32, ptr addrspace(1) %out, i64 %g
  call void @llvm.masked.store.v4i32.p1(<4 x i32> %w, ptr addrspace(1) %po, i32 4, <4 x i1> %mask)
  ret void
}

; A broken vectorization that dropped the barrier.
define spir_kernel void @rev_v4_nobarrier(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %g = call i64 @_Z13get_global_idj(i32 0)
  %l = call i64 @_Z12get_local_idj(i32 0)
  %L = call i64 @_Z14get_local_sizej(i32 0)
  %pin = getelementptr i32, ptr addrspace(1) %in, i64 %g
  %v = load <4 x i32>, ptr addrspace(1) %pin, align 4
  %pt = getelementptr [64 x i32], ptr addrspace(3) @rev.tile, i64 0, i64 %l
  store <4 x i32> %v, ptr addrspace(3) %pt, align 4
  %m0 = sub i64 %L, 4
  %m = sub i64 %m0, %l
  %pm = getelementptr [64 x i32], ptr addrspace(3) @rev.tile, i64 0, i64 %m
  %w = load <4 x i32>, ptr addrspace(3) %pm, align 4
  %r = shufflevector <4 x i32> %w, <4 x i32> poison, <4 x i32> <i32 3, i32 2, i32 1, i32 0>
  %po = getelementptr i32, ptr addrspace(1) %out, i64 %g
  store <4 x i32> %r, ptr addrspace(1) %po, align 4
  ret void
}
