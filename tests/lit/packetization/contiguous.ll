; A contiguous load and store become one vector load and one vector store at
; lane 0's address; the address computation stays scalar.
; RUN: %veczc -k add_one -w 8 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v8_add_one(
; CHECK: %[[GID:.+]] = call i64 @_Z13get_global_idj(i32 0)
; CHECK: %[[IN:.+]] = getelementptr inbounds float, ptr addrspace(1) %in, i64 %[[GID]]
; CHECK: load <8 x float>, ptr addrspace(1) %[[IN]], align 4
; CHECK: fadd <8 x float>
; CHECK: store <8 x float> %{{.+}}, ptr addrspace(1) %{{.+}}, align 4
; CHECK-NOT: gather
; CHECK: ret void

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @add_one(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pin = getelementptr inbounds float, ptr addrspace(1) %in, i64 %gid
  %x = load float, ptr addrspace(1) %pin, align 4
  %y = fadd float %x, 1.000000e+00
  %pout = getelementptr inbounds float, ptr addrspace(1) %out, i64 %gid
  store float %y, ptr addrspace(1) %pout, align 4
  ret void
}
