; --verify-analyses checks the analyses against independent reference
; computations after every pass (a wrong one is an internal error naming
; it, exit 3; tests/unit/test_analysis_verification.py builds wrong ones on
; purpose). On correct analyses it changes nothing. The kernel has the
; shapes the references care about: two returns (the post-dominator tree's
; virtual exit), nested loops, a struct in private memory.
; RUN: %veczc -S %s -o %t.plain.ll
; RUN: %veczc -S %s -o %t.verified.ll --verify-analyses
; RUN: diff %t.plain.ll %t.verified.ll
; RUN: %veczc -S %s -o %t.boscc.ll -verify-analyses -vecz-choices=LinearizeBOSCC
; RUN: FileCheck %s < %t.boscc.ll
; CHECK: define spir_kernel void @__vecz_v4_early_out(

%struct.P = type { i8, i32, double }

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @early_out(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %n) {
entry:
  %s = alloca %struct.P, align 8
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pi = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %gid
  %d = load i32, ptr addrspace(1) %pi, align 4
  %f = getelementptr inbounds %struct.P, ptr %s, i32 0, i32 1
  store volatile i32 %d, ptr %f, align 4
  %neg = icmp slt i32 %d, 0
  br i1 %neg, label %bail, label %outer
bail:
  ret void
outer:
  %i = phi i32 [ 0, %entry ], [ %i.next, %outer.latch ]
  %acc = phi i32 [ 0, %entry ], [ %acc.inner, %outer.latch ]
  br label %inner
inner:
  %j = phi i32 [ 0, %outer ], [ %j.next, %inner ]
  %acc.in = phi i32 [ %acc, %outer ], [ %acc.inner, %inner ]
  %acc.inner = add i32 %acc.in, %j
  %j.next = add i32 %j, 1
  %j.done = icmp sge i32 %j.next, %d
  br i1 %j.done, label %outer.latch, label %inner
outer.latch:
  %i.next = add i32 %i, 1
  %i.done = icmp sge i32 %i.next, %n
  br i1 %i.done, label %store, label %outer
store:
  %po = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %acc.inner, ptr addrspace(1) %po, align 4
  ret void
}
