; A divergent loop (trip count loaded per lane): the active mask is the
; header's edge mask from the latch (`loop.to.loop`), the loop branches back
; while any lane is active (vector.reduce.or, as `bitcast` == 0 for "none"),
; the exit mask is `loop.to.done`, and the live value `acc.next` is frozen:
; a select keeps, for lanes that already left, the value they left with.
; The back edge itself needs no blend (the loop is in LCSSA form, so a lane
; that left reads its values only through the frozen exit value): `i` and
; `acc` stay uniform scalars, as every lane still in the loop agrees on them.
; RUN: %veczc -k count -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_count(
; CHECK: loop:
; CHECK: %[[LIVE:.+]] = phi <4 x i32> [ undef, %entry ], [ %[[FROZEN:.+]], %loop ]
; CHECK: %[[ACTIVE:.+]] = phi <4 x i1> [ splat (i1 true), %entry ], [ %[[BACK:.+]], %loop ]
; CHECK: %[[ACCPHI:.+]] = phi i32 [ 1, %entry ], [ %[[ACC:.+]], %loop ]
; CHECK: %[[ACC]] = mul i32 %[[ACCPHI]], 3
; CHECK: %[[MORE:.+]] = icmp slt <4 x i32>
; CHECK: %[[BACK]] = select <4 x i1> %[[ACTIVE]], <4 x i1> %[[MORE]], <4 x i1> zeroinitializer
; CHECK: %[[EXIT:.+]] = select <4 x i1> %[[ACTIVE]], <4 x i1> %{{.+}}, <4 x i1> zeroinitializer
; CHECK: %[[FROZEN]] = select <4 x i1> %[[EXIT]], <4 x i32> %{{.+}}, <4 x i32> %[[LIVE]]
; CHECK: %[[B:.+]] = bitcast <4 x i1> %[[BACK]] to i4
; CHECK: %[[NONE:.+]] = icmp eq i4 %[[B]], 0
; CHECK: br i1 %[[NONE]], label %done, label %loop
; CHECK: done:
; CHECK: store <4 x i32> %[[FROZEN]], ptr addrspace(1)
; CHECK: ret void

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @count(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pin = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %gid
  %n = load i32, ptr addrspace(1) %pin, align 4
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi i32 [ 1, %entry ], [ %acc.next, %loop ]
  %acc.next = mul i32 %acc, 3
  %i.next = add i32 %i, 1
  %more = icmp slt i32 %i.next, %n
  br i1 %more, label %loop, label %done

done:
  %r = phi i32 [ %acc.next, %loop ]
  %pout = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %r, ptr addrspace(1) %pout, align 4
  ret void
}
