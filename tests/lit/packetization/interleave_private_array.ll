; A private array with different contents in every lane, indexed by a
; uniform loop counter: its lanes' copies are interleaved element by element
; (element k at k*W in the scalar code), so v[k] of all lanes is one
; contiguous vector store or load, not a gather/scatter.
; RUN: %veczc -k table -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_table(
; CHECK: alloca [32 x float]
; CHECK: store <4 x float>
; CHECK: load <4 x float>, ptr %
; CHECK-NOT: masked.scatter
; CHECK-NOT: masked.gather
; CHECK: ret void

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @table(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %v = alloca [8 x float], align 4
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pin = getelementptr float, ptr addrspace(1) %in, i64 %gid
  %x = load float, ptr addrspace(1) %pin, align 4
  br label %fill

fill:
  %k = phi i64 [ 0, %entry ], [ %k.next, %fill ]
  %kf = uitofp i64 %k to float
  %e = fmul float %x, %kf
  %slot = getelementptr [8 x float], ptr %v, i64 0, i64 %k
  store float %e, ptr %slot, align 4
  %k.next = add i64 %k, 1
  %more = icmp ult i64 %k.next, 8
  br i1 %more, label %fill, label %sum

sum:
  %j = phi i64 [ 0, %fill ], [ %j.next, %sum ]
  %acc = phi float [ 0.0, %fill ], [ %acc.next, %sum ]
  %rd = getelementptr [8 x float], ptr %v, i64 0, i64 %j
  %y = load float, ptr %rd, align 4
  %acc.next = fadd float %acc, %y
  %j.next = add i64 %j, 1
  %again = icmp ult i64 %j.next, 8
  br i1 %again, label %sum, label %done

done:
  %pout = getelementptr float, ptr addrspace(1) %out, i64 %gid
  store float %acc.next, ptr addrspace(1) %pout, align 4
  ret void
}
