; What is not vectorized is refused with a remark: a uniform collective in
; divergent control flow (the non-uniform forms), a clustered reduction
; whose cluster size is not a constant (in divergent control flow, where the
; non-uniform forms are lowered over the active lanes: divergent.ll), and a
; logical non-uniform operation. A floating-point work-group
; reduction along dimension 1 is vectorized (WGF): the packet passes its
; lanes to the runtime's group step, which folds in the reference's order.
; RUN: %not %veczc -k divergent -w 4 -S %s -o /dev/null --remarks 2>&1 | FileCheck %s --check-prefix=DIV
; RUN: %veczc -k wgfloat -w 4 -d 1 -S %s -o - | FileCheck %s --check-prefix=WGF
; RUN: %not %veczc -k nonuniform -w 4 -S %s -o /dev/null --remarks 2>&1 | FileCheck %s --check-prefix=NU
; RUN: %not %veczc -k logical -w 4 -S %s -o /dev/null --remarks 2>&1 | FileCheck %s --check-prefix=LOG

; DIV: under divergent control flow is not supported
; WGF: call float @__mux_work_group_reduce_fadd_v4f32(i32 0, <4 x float>
; NU: clustered reduction '_Z30sub_group_clustered_reduce_addij' with a cluster size that is not a constant is not supported
; LOG: non-uniform or clustered logical sub-group operation '_Z40sub_group_non_uniform_reduce_logical_andi' is not supported

declare i64 @__mux_get_global_id(i32)
declare i32 @__mux_sub_group_reduce_add_i32(i32)
declare float @__mux_work_group_reduce_fadd_f32(i32, float)
declare i32 @_Z30sub_group_clustered_reduce_addij(i32, i32)
declare i32 @_Z40sub_group_non_uniform_reduce_logical_andi(i32)

define spir_kernel void @divergent(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @__mux_get_global_id(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %p, align 4
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %then, label %done
then:
  %r = call i32 @__mux_sub_group_reduce_add_i32(i32 %x)
  %q = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %r, ptr addrspace(1) %q, align 4
  br label %done
done:
  ret void
}

define spir_kernel void @wgfloat(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @__mux_get_global_id(i32 0)
  %p = getelementptr float, ptr addrspace(1) %in, i64 %gid
  %x = load float, ptr addrspace(1) %p, align 4
  %r = call float @__mux_work_group_reduce_fadd_f32(i32 0, float %x)
  %q = getelementptr float, ptr addrspace(1) %out, i64 %gid
  store float %r, ptr addrspace(1) %q, align 4
  ret void
}

define spir_kernel void @nonuniform(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @__mux_get_global_id(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %p, align 4
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %then, label %done
then:
  %r = call i32 @_Z30sub_group_clustered_reduce_addij(i32 %x, i32 %x)
  %q = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %r, ptr addrspace(1) %q, align 4
  br label %done
done:
  ret void
}

define spir_kernel void @logical(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @__mux_get_global_id(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %p, align 4
  %r = call i32 @_Z40sub_group_non_uniform_reduce_logical_andi(i32 %x)
  %q = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %r, ptr addrspace(1) %q, align 4
  ret void
}
