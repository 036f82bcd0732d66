; Pre-linearization: a cheap divergent if-then-else is speculated into
; straight-line code and a select before control-flow conversion (LLVM's
; simplifycfg in the preparation passes does it), so no mask and no
; linearized blocks are needed at all.
; RUN: %veczc -k k -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_k(
; CHECK: %[[C:.+]] = icmp eq <4 x i64>
; CHECK-DAG: add <4 x i32> %{{.+}}, splat (i32 1)
; CHECK-DAG: shl <4 x i32> %{{.+}}, splat (i32 1)
; CHECK: select <4 x i1> %[[C]], <4 x i32>
; CHECK-NOT: br i1
; CHECK: ret void

declare i64 @_Z13get_global_idj(i32)
define spir_kernel void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pin = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %a = load i32, ptr addrspace(1) %pin, align 4
  %odd = and i64 %gid, 1
  %c = icmp eq i64 %odd, 0
  br i1 %c, label %then, label %else
then:
  %x1 = add i32 %a, 1
  br label %join
else:
  %x2 = mul i32 %a, 2
  br label %join
join:
  %x = phi i32 [ %x1, %then ], [ %x2, %else ]
  %pout = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %x, ptr addrspace(1) %pout, align 4
  ret void
}
