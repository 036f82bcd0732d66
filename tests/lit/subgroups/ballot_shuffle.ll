; A ballot packs the packet's conditions into the bits of its uint4's first
; word (W <= 32: the other words are zero); a shuffle of a <2 x float> is
; one packet per element (here on the two 32-bit halves the <2 x float>
; became); a constant shuffle_xor is one shufflevector.
; RUN: %veczc -k bal -w 8 -S %s | FileCheck %s --check-prefix=BAL
; RUN: %veczc -k vshuf -w 4 -S %s | FileCheck %s --check-prefix=VEC
; RUN: %veczc -k xor1 -w 4 -S %s | FileCheck %s --check-prefix=XOR

; BAL-LABEL: define spir_kernel void @__vecz_v8_bal(
; BAL: %[[C:.+]] = icmp ne <8 x i32> %{{.+}}, zeroinitializer
; BAL: %[[B:.+]] = bitcast <8 x i1> %[[C]] to i8
; BAL: zext i8 %[[B]] to i32
; BAL-NOT: sub_group_ballot
; BAL: ret void

; VEC-LABEL: define spir_kernel void @__vecz_v4_vshuf(
; VEC-NOT: call {{.*}}sub_group_shuffle
; VEC: shufflevector <4 x i32> %{{.+}}, <4 x i32> poison, <4 x i32> <i32 3, i32 3, i32 3, i32 3>
; VEC: shufflevector <4 x i32> %{{.+}}, <4 x i32> poison, <4 x i32> <i32 3, i32 3, i32 3, i32 3>
; VEC-NOT: call {{.*}}sub_group_shuffle
; VEC: ret void

; XOR-LABEL: define spir_kernel void @__vecz_v4_xor1(
; XOR: shufflevector <4 x i32> %{{.+}}, <4 x i32> {{.+}}, <4 x i32> <i32 1, i32 0, i32 3, i32 2>
; XOR-NOT: call {{.*}}sub_group_shuffle
; XOR: ret void

declare i64 @__mux_get_global_id(i32)
declare <4 x i32> @_Z16sub_group_balloti(i32)
declare <2 x float> @__mux_sub_group_shuffle_v2f32(<2 x float>, i32)
declare i32 @__mux_sub_group_shuffle_xor_i32(i32, i32)

define spir_kernel void @bal(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @__mux_get_global_id(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %p, align 4
  %b = call <4 x i32> @_Z16sub_group_balloti(i32 %x)
  %w = extractelement <4 x i32> %b, i64 0
  %q = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %w, ptr addrspace(1) %q, align 4
  ret void
}

define spir_kernel void @vshuf(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @__mux_get_global_id(i32 0)
  %p = getelementptr <2 x float>, ptr addrspace(1) %in, i64 %gid
  %v = load <2 x float>, ptr addrspace(1) %p, align 8
  %s = call <2 x float> @__mux_sub_group_shuffle_v2f32(<2 x float> %v, i32 3)
  %q = getelementptr <2 x float>, ptr addrspace(1) %out, i64 %gid
  store <2 x float> %s, ptr addrspace(1) %q, align 8
  ret void
}

define spir_kernel void @xor1(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @__mux_get_global_id(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %p, align 4
  %s = call i32 @__mux_sub_group_shuffle_xor_i32(i32 %x, i32 1)
  %q = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %s, ptr addrspace(1) %q, align 4
  ret void
}
