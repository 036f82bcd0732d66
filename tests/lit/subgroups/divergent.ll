; Non-uniform forms in divergent control flow are lowered over the lanes
; active in their block (the block's mask): an integer reduction takes the
; identity in the inactive lanes before the vector reduction; sub_group_elect
; is the first active lane (cttz of the mask); a ballot packs the conditions
; of the active lanes only; a float reduction folds the active lanes in lane
; order, from the first active lane's value (no identity enters the fold).
; RUN: %veczc -k div -w 4 -S %s -o - | FileCheck %s
; RUN: %veczc -k fdiv -w 4 -S %s -o - | FileCheck %s --check-prefix=FLT

; CHECK-LABEL: define spir_kernel void @__vecz_v4_div(
; CHECK: [[M:%.*]] = trunc <4 x i32> [[X:%.*]] to <4 x i1>
; CHECK: [[S:%.*]] = select <4 x i1> [[M]], <4 x i32> [[X]], <4 x i32> zeroinitializer
; CHECK: call i32 @llvm.vector.reduce.add.v4i32(<4 x i32> [[S]])
; CHECK: [[B:%.*]] = bitcast <4 x i1> [[M]] to i4
; CHECK: call {{.*}}i4 @llvm.cttz.i4(i4 [[B]], i1 false)
; CHECK: icmp eq <4 x i32> {{%.*}}, <i32 0, i32 1, i32 2, i32 3>
; The ballot's bits: (x & 4) != 0 in the active lanes (x odd), which cleanup
; folds into one test.
; CHECK: [[A:%.*]] = and <4 x i32> [[X]], splat (i32 5)
; CHECK: icmp eq <4 x i32> [[A]], splat (i32 5)

; FLT-LABEL: define spir_kernel void @__vecz_v4_fdiv(
; FLT-NOT: llvm.vector.reduce.fadd
; FLT: fadd float
; FLT: fadd float
; FLT: fadd float
; FLT-NOT: fadd float

declare i64 @__mux_get_global_id(i32)
declare i32 @_Z32sub_group_non_uniform_reduce_addi(i32)
declare float @_Z32sub_group_non_uniform_reduce_addf(float)
declare i32 @_Z15sub_group_electv()
declare <4 x i32> @_Z16sub_group_balloti(i32)

define spir_kernel void @div(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @__mux_get_global_id(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %p, align 4
  %odd = trunc i32 %x to i1
  br i1 %odd, label %then, label %done
then:
  %r = call i32 @_Z32sub_group_non_uniform_reduce_addi(i32 %x)
  %e = call i32 @_Z15sub_group_electv()
  %y = and i32 %x, 4
  %b = call <4 x i32> @_Z16sub_group_balloti(i32 %y)
  %b0 = extractelement <4 x i32> %b, i32 0
  %s0 = add i32 %r, %e
  %s = add i32 %s0, %b0
  br label %done
done:
  %v = phi i32 [ %s, %then ], [ 0, %entry ]
  %q = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %v, ptr addrspace(1) %q, align 4
  ret void
}

define spir_kernel void @fdiv(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @__mux_get_global_id(i32 0)
  %p = getelementptr float, ptr addrspace(1) %in, i64 %gid
  %x = load float, ptr addrspace(1) %p, align 4
  %c = fcmp ogt float %x, 0.0
  br i1 %c, label %then, label %done
then:
  %r = call float @_Z32sub_group_non_uniform_reduce_addf(float %x)
  br label %done
done:
  %v = phi float [ %r, %then ], [ 0.0, %entry ]
  %q = getelementptr float, ptr addrspace(1) %out, i64 %gid
  store float %v, ptr addrspace(1) %q, align 4
  ret void
}
