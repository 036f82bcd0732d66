; A sub-group vote is one value for the packet: the branch on it stays
; uniform (a scalar condition: LLVM's cleanup turns it into a scalar select
; of the reduction, no per-lane masks), and the reduction is vector code.
; RUN: %veczc -k vote -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_vote(
; CHECK-NOT: __vecz_b_masked
; CHECK: %[[M:.+]] = call i32 @llvm.vector.reduce.smax.v4i32(
; CHECK: select i1 %{{.+}}, i32 0, i32 %[[M]]
; CHECK-NOT: call {{.*}}@__mux_sub_group
; CHECK: ret void

declare i64 @__mux_get_global_id(i32)
declare i1 @__mux_sub_group_any_i1(i1)
declare i32 @__mux_sub_group_reduce_smax_i32(i32)

define spir_kernel void @vote(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @__mux_get_global_id(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %p, align 4
  %big = icmp sgt i32 %x, 100
  %any = call i1 @__mux_sub_group_any_i1(i1 %big)
  br i1 %any, label %then, label %done
then:
  %m = call i32 @__mux_sub_group_reduce_smax_i32(i32 %x)
  br label %done
done:
  %r = phi i32 [ %m, %then ], [ 0, %entry ]
  %q = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %r, ptr addrspace(1) %q, align 4
  ret void
}
