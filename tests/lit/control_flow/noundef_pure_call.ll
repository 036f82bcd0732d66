; A call without side effects in a masked block now runs in every lane, and
; an inactive lane's argument may be poison (here the masked load's, which
; Safe Lane Addressing turns into a load through a select). For a `noundef`
; parameter that would make the whole call undefined, so the conversion
; freezes such arguments. The builtin stays a call per lane (`noinline`
; keeps Builtin Inlining from bringing in the library's body).
; RUN: %veczc -k k -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_k(
; CHECK: %[[P:.+]] = select i1 %c, ptr addrspace(1) %p, ptr addrspace(1) @__vecz_b_safe_slot_p1
; CHECK-NEXT: %[[X:.+]] = load float, ptr addrspace(1) %[[P]], align 4
; CHECK: %[[F:.+]] = freeze float %[[X]]
; CHECK: call i32 @_Z15convert_int_satf(float noundef %[[F]])
; CHECK-NOT: call i32 @_Z15convert_int_satf(float noundef %x
; CHECK: ret void

declare i64 @_Z13get_global_idj(i32)
declare i32 @_Z15convert_int_satf(float noundef) #0

define spir_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %out, i32 %n) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %g = trunc i64 %gid to i32
  %c = icmp slt i32 %g, %n
  br i1 %c, label %then, label %end
then:
  %p = getelementptr inbounds i32, ptr addrspace(1) %a, i64 %gid
  %x = load float, ptr addrspace(1) %p, align 4
  %y = call i32 @_Z15convert_int_satf(float noundef %x) #0
  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %y, ptr addrspace(1) %q, align 4
  br label %end
end:
  ret void
}
attributes #0 = { noinline nounwind willreturn memory(none) }
