; Non-uniform and clustered forms in sub-group-uniform control flow (every
; lane of the packet active): sub_group_elect is lane 0; a clustered
; reduction folds each cluster of 2 lanes and writes its result in both;
; all_equal compares every lane with lane 0 and reduces with and (which
; cleanup turns into a test of the lanes that differ); a
; non-uniform reduction is the packet's reduction.
; RUN: %veczc -k nu -w 4 -S %s -o - | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_nu(
; CHECK: store <4 x i32> <i32 1, i32 0, i32 0, i32 0>
; CHECK: call i32 @llvm.vector.reduce.add.v4i32(
; CHECK: [[L0:%.*]] = extractelement <4 x i32> [[X:%.*]], i64 0
; CHECK: [[L1:%.*]] = extractelement <4 x i32> [[X]], i64 1
; CHECK: [[C0:%.*]] = add i32 [[L0]], [[L1]]
; CHECK: [[L2:%.*]] = extractelement <4 x i32> [[X]], i64 2
; CHECK: [[L3:%.*]] = extractelement <4 x i32> [[X]], i64 3
; CHECK: [[C1:%.*]] = add i32 [[L2]], [[L3]]
; CHECK: insertelement <4 x i32> {{.*}}, i32 [[C1]], i64 3
; CHECK: [[F:%.*]] = shufflevector <4 x i32> [[X]], <4 x i32> poison, <4 x i32> zeroinitializer
; CHECK: [[NE:%.*]] = icmp ne <4 x i32> [[X]], [[F]]
; CHECK: [[B:%.*]] = bitcast <4 x i1> [[NE]] to i4
; CHECK: icmp eq i4 [[B]], 0

declare i64 @__mux_get_global_id(i32)
declare i32 @_Z15sub_group_electv()
declare i32 @_Z32sub_group_non_uniform_reduce_addi(i32)
declare i32 @_Z30sub_group_clustered_reduce_addij(i32, i32)
declare i32 @_Z31sub_group_non_uniform_all_equali(i32)

define spir_kernel void @nu(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @__mux_get_global_id(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %p, align 4
  %base = mul i64 %gid, 4
  %e = call i32 @_Z15sub_group_electv()
  %q0 = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %e, ptr addrspace(1) %q0, align 4
  %r = call i32 @_Z32sub_group_non_uniform_reduce_addi(i32 %x)
  %c = call i32 @_Z30sub_group_clustered_reduce_addij(i32 %x, i32 2)
  %a = call i32 @_Z31sub_group_non_uniform_all_equali(i32 %x)
  %s1 = add i32 %r, %c
  %s2 = add i32 %s1, %a
  %q1 = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  store i32 %s2, ptr addrspace(1) %q1, align 4
  ret void
}
