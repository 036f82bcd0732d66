; A divergent loop whose latch leaves on a uniform header phi (true on the
; first iteration, false after: the body runs at most twice). The latch is a
; uniform exit, so the loop stays while that phi holds and any lane is
; active, and the exit takes the lanes still in the loop once, on its
; negation. Control-flow conversion replaces the header phi by a load of
; its variable (promoted back to a phi by SROA) before it builds the latch's
; `select` and the exit's `xor`: both must read the replacement. The phi is
; unnamed on purpose: an erased phi printed as `<badref>` (LLVM: "expected
; value token"), which a named one hid by sharing its name with the load.
; RUN: %veczc -k twice -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_twice(
; CHECK: loop:
; CHECK: %[[AGAIN:.+]] = phi i1 [ true, %entry ], [ false, %loop ]
; CHECK: %[[ANY:.+]] = icmp ne i4 %{{.+}}, 0
; CHECK: %loop.stay = select i1 %[[AGAIN]], i1 %[[ANY]], i1 false
; CHECK: br i1 %loop.stay, label %loop, label %exit
; CHECK: exit:
; CHECK: xor i1 %[[AGAIN]], true
; CHECK-NOT: badref
; CHECK: ret void

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @twice(ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %lim = and i64 %gid, 3
  br label %loop

loop:
  %0 = phi i1 [ true, %entry ], [ false, %latch ]
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %c = icmp ult i64 %i, %lim
  br i1 %c, label %latch, label %exit

latch:
  %i.next = add i64 %i, 1
  br i1 %0, label %loop, label %exit

exit:
  %r = phi i64 [ %i, %loop ], [ %i.next, %latch ]
  %p = getelementptr i64, ptr addrspace(1) %out, i64 %gid
  store i64 %r, ptr addrspace(1) %p, align 8
  ret void
}
