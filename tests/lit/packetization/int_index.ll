; `int i = get_global_id(0); out[i] = in[i + 1]` as clang emits it: the
; 32-bit index becomes `ashr (shl gid, 32), 32` arithmetic without nsw
; flags. Ids stay below 2^30 (the NDRange assumption), so nothing wraps and
; both accesses are contiguous vector loads/stores, not gathers.
; RUN: %veczc -k shifted -w 8 -S %s | FileCheck %s

; CHECK-LABEL: define spir_kernel void @__vecz_v8_shifted(
; CHECK: load <8 x float>, ptr addrspace(1)
; CHECK: store <8 x float>
; CHECK-NOT: masked.gather
; CHECK-NOT: masked.scatter
; CHECK: ret void

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @shifted(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %sh = shl i64 %gid, 32
  %sh1 = add i64 %sh, 4294967296
  %i1 = ashr exact i64 %sh1, 32
  %i = ashr exact i64 %sh, 32
  %pin = getelementptr inbounds float, ptr addrspace(1) %in, i64 %i1
  %x = load float, ptr addrspace(1) %pin, align 4
  %pout = getelementptr inbounds float, ptr addrspace(1) %out, i64 %i
  store float %x, ptr addrspace(1) %pout, align 4
  ret void
}
