; An integer division whose divisor is not a constant is packetized as one
; scalar division per lane, a uniform operand used as the scalar it is. x86
; has no vector integer division, so the backend would split the vector one
; the same way, and LLVM 22's x86 instruction selection aborts at -O0 ("Node
; is not in map!") splitting one whose operand is a broadcast of a loaded
; vector's element when a call comes between the load and the division
; (@uniform_dividend at W=8). LLVM finds such a broadcast through a select
; too (Vector Predication's guarded divisor: a fuzz kernel with two varying
; operands aborted it), so two varying operands are split as well. A
; constant divisor keeps the vector division (the backend turns it into
; multiplies).
; RUN: %veczc -k uniform_dividend -k uniform_divisor -k varying -k constant_divisor -w 8 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v8_uniform_dividend(
; CHECK:       %e = extractelement <8 x i32> %v, i64 2
; CHECK-NOT:   srem <8 x i32>
; CHECK-COUNT-8: srem i32 %e, %{{.+}}
; CHECK-NOT:   srem
; CHECK:       ret void

; CHECK-LABEL: define spir_kernel void @__vecz_v8_uniform_divisor(
; CHECK:       %k = load i32, ptr addrspace(1) %kp
; CHECK-NOT:   udiv <8 x i32>
; CHECK-COUNT-8: udiv i32 %{{.+}}, %k
; CHECK-NOT:   udiv
; CHECK:       ret void

; CHECK-LABEL: define spir_kernel void @__vecz_v8_varying(
; CHECK-NOT:   sdiv <8 x i32>
; CHECK-COUNT-8: sdiv i32 %{{.+}}, %{{.+}}
; CHECK-NOT:   sdiv
; CHECK:       ret void

; CHECK-LABEL: define spir_kernel void @__vecz_v8_constant_divisor(
; CHECK:       urem <8 x i32> %x.v, splat (i32 7)
; CHECK-NOT:   urem i32
; CHECK:       ret void

declare i64 @_Z13get_global_idj(i32)
declare i64 @_Z12get_local_idj(i32)

define spir_kernel void @uniform_dividend(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %v = load <8 x i32>, ptr addrspace(1) %in, align 32
  %e = extractelement <8 x i32> %v, i64 2
  %lid = call i64 @_Z12get_local_idj(i32 0)
  %l = trunc i64 %lid to i32
  %d = add i32 %l, 1
  %q = srem i32 %e, %d
  %a = and i32 %q, 1023
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %a, ptr addrspace(1) %p, align 4
  ret void
}

define spir_kernel void @uniform_divisor(ptr addrspace(1) %in, ptr addrspace(1) %kp, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pin = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %pin, align 4
  %k = load i32, ptr addrspace(1) %kp, align 4
  %q = udiv i32 %x, %k
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %q, ptr addrspace(1) %p, align 4
  ret void
}

define spir_kernel void @varying(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pin = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %pin, align 4
  %g = trunc i64 %gid to i32
  %d = or i32 %g, 1
  %q = sdiv i32 %x, %d
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %q, ptr addrspace(1) %p, align 4
  ret void
}

define spir_kernel void @constant_divisor(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pin = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %pin, align 4
  %q = urem i32 %x, 7
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %q, ptr addrspace(1) %p, align 4
  ret void
}
