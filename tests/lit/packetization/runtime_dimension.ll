; A work-item id query whose dimension is a run-time value steps by one per
; lane only when that value is the vectorized dimension: the packet is a
; select on `%d == dim` between the stepped ids and the broadcast query,
; never a linear stride (so the load it addresses is a gather). Queries that
; are uniform in every dimension (the local size) stay scalar. A dimension
; that differs per lane re-runs the query for each lane with its own
; dimension, and steps that lane only where its dimension is ours.
; RUN: %veczc -k rtdim -w 4 -S %s | FileCheck %s --check-prefix=D0
; RUN: %veczc -k rtdim -w 4 -d 2 -S %s | FileCheck %s --check-prefix=D2
; RUN: %veczc -k vardim -w 2 -S %s | FileCheck %s --check-prefix=VAR

; D0-LABEL: define spir_kernel void @__vecz_v4_rtdim(
; D0: %y = call i64 @_Z13get_global_idj(i32 %d)
; D0-NEXT: %y.isdim = icmp eq i32 %d, 0
; D0-NEXT: %[[INS:.+]] = insertelement <4 x i64> poison, i64 %y, i64 0
; D0-NEXT: %[[SPLAT:.+]] = shufflevector <4 x i64> %[[INS]], <4 x i64> poison, <4 x i32> zeroinitializer
; D0-NEXT: %[[STEP:.+]] = add <4 x i64> %[[SPLAT]], <i64 0, i64 1, i64 2, i64 3>
; D0-NEXT: %y.v = select i1 %y.isdim, <4 x i64> %[[STEP]], <4 x i64> %[[SPLAT]]
; D0-NEXT: %pin.v = getelementptr inbounds i32, ptr addrspace(1) %in, <4 x i64> %y.v
; D0-NEXT: call <4 x i32> @llvm.masked.gather.v4i32.v4p1(
; D0: %sz = call i64 @_Z14get_local_sizej(i32 %d)
; D0-NOT: call i64 @_Z14get_local_sizej
; D0: store <4 x i32>
; D0: ret void

; Along dimension 2 the store's address is uniform: only the last lane
; (which sequential work-items leave behind) is computed, one lane's select.
; D2-LABEL: define spir_kernel void @__vecz_v4_rtdim(
; D2: %y.isdim = icmp eq i32 %d, 2
; D2-NEXT: %[[Y3:.+]] = add i64 %y, 3
; D2-NEXT: %y.l3 = select i1 %y.isdim, i64 %[[Y3]], i64 %y
; D2: store i32 %s.l3

; VAR-LABEL: define spir_kernel void @__vecz_v2_vardim(
; VAR: %l = call i64 @__mux_get_local_id(i64 %vd)
; VAR: %l.l1 = call i64 @__mux_get_local_id(i64 %[[VD1:.+]])
; VAR: insertelement <2 x i64> poison, i64 %l, i64 0
; VAR: store <2 x i64>

declare i64 @_Z13get_global_idj(i32)
declare i64 @_Z14get_local_sizej(i32)
declare i64 @__mux_get_local_id(i64)

define spir_kernel void @rtdim(ptr addrspace(1) %in, ptr addrspace(1) %out, i32 %d) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %y = call i64 @_Z13get_global_idj(i32 %d)
  %pin = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %y
  %x = load i32, ptr addrspace(1) %pin, align 4
  %sz = call i64 @_Z14get_local_sizej(i32 %d)
  %szt = trunc i64 %sz to i32
  %s = add i32 %x, %szt
  %pout = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %s, ptr addrspace(1) %pout, align 4
  ret void
}

define spir_kernel void @vardim(ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %vd = and i64 %gid, 1
  %l = call i64 @__mux_get_local_id(i64 %vd)
  %pout = getelementptr inbounds i64, ptr addrspace(1) %out, i64 %gid
  store i64 %l, ptr addrspace(1) %pout, align 8
  ret void
}
