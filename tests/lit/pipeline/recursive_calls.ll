; A recursive callee stays a call, made once per lane (builtin inlining
; does not unroll recursion). That is right for what it computes from its
; operands, its memory effects and the queries of the NDRange and the
; work-group (the same for every lane of a packet), but a query of the
; work-item's own position would answer for the packet: a callee that
; reaches one, directly or through others (here a mutual recursion), is
; refused with a remark.
; RUN: %veczc -k group -w 4 -S %s | FileCheck %s
; RUN: %not %veczc -k lane -w 4 -S %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=LANE

; CHECK-LABEL: define spir_kernel void @__vecz_v4_group(
; CHECK: call i64 @even(i64 %{{.*}})
; CHECK: call i64 @even(i64 %{{.*}})
; CHECK: call i64 @even(i64 %{{.*}})
; CHECK: call i64 @even(i64 %{{.*}})
; CHECK: store <4 x i64>
; CHECK: ret void

; LANE: not vectorized: call to 'down' stays a call (it is recursive or cannot be inlined) and reaches '_Z12get_local_idj'

declare i64 @_Z13get_global_idj(i32)
declare i64 @_Z12get_local_idj(i32)
declare i64 @_Z12get_group_idj(i32)

define internal i64 @even(i64 %n) {
entry:
  %z = icmp eq i64 %n, 0
  br i1 %z, label %done, label %more
done:
  %g = call i64 @_Z12get_group_idj(i32 0)
  ret i64 %g
more:
  %m = sub i64 %n, 1
  %r = call i64 @odd(i64 %m)
  ret i64 %r
}

define internal i64 @odd(i64 %n) {
entry:
  %m = sub i64 %n, 1
  %r = call i64 @even(i64 %m)
  %s = add i64 %r, 1
  ret i64 %s
}

define internal i64 @down(i64 %n) {
entry:
  %z = icmp eq i64 %n, 0
  br i1 %z, label %done, label %more
done:
  %l = call i64 @_Z12get_local_idj(i32 0)
  ret i64 %l
more:
  %m = sub i64 %n, 1
  %r = call i64 @down(i64 %m)
  ret i64 %r
}

define spir_kernel void @group(ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %n = and i64 %gid, 6
  %v = call i64 @even(i64 %n)
  %p = getelementptr i64, ptr addrspace(1) %out, i64 %gid
  store i64 %v, ptr addrspace(1) %p, align 8
  ret void
}

define spir_kernel void @lane(ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %v = call i64 @down(i64 3)
  %p = getelementptr i64, ptr addrspace(1) %out, i64 %gid
  store i64 %v, ptr addrspace(1) %p, align 8
  ret void
}
