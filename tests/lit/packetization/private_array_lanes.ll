; A private array written with a varying value gets one copy per lane, one
; array size (16 bytes) apart; accesses through it step by that size per
; lane, not by the size of the widened alloca (which once gave 64 and
; wrote past the end of the copies).
; RUN: %veczc -k priv -w 4 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v4_priv(
; CHECK: alloca [64 x i8], align 4
; CHECK: getelementptr i8, ptr %{{.+}}, <4 x i64> <i64 0, i64 16, i64 32, i64 48>
; CHECK-NOT: i64 64, i64 128
; CHECK: ret void

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @priv(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %arr = alloca [4 x float], align 4
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pin = getelementptr float, ptr addrspace(1) %in, i64 %gid
  %x = load float, ptr addrspace(1) %pin, align 4
  %lo = and i64 %gid, 3
  %slot = getelementptr [4 x float], ptr %arr, i64 0, i64 %lo
  store float %x, ptr %slot, align 4
  %idx = load i32, ptr addrspace(1) %in, align 4
  %k = and i32 %idx, 3
  %rd = getelementptr [4 x float], ptr %arr, i64 0, i32 %k
  %y = load volatile float, ptr %rd, align 4
  %pout = getelementptr float, ptr addrspace(1) %out, i64 %gid
  store float %y, ptr addrspace(1) %pout, align 4
  ret void
}
