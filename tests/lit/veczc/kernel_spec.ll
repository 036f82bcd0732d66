; Every form of veczc's -k NAME[:SPEC,...] (SPEC = <vf>[.<dim>][@<n>][s][a]).
; RUN: %veczc -S %s -k k | FileCheck --check-prefix=NAME %s
; NAME: define spir_kernel void @__vecz_v4_k(
; RUN: %veczc -S %s -k k:8 | FileCheck --check-prefix=VF %s
; VF: define spir_kernel void @__vecz_v8_k(
; RUN: %veczc -S %s -k k:2,4 | FileCheck --check-prefix=LIST %s
; LIST-DAG: define spir_kernel void @__vecz_v2_k(
; LIST-DAG: define spir_kernel void @__vecz_v4_k(
;
; .<dim> (1-based): along y the x id is uniform, so the four lanes store to
; one address and the last lane's value (y + 3) is what remains.
; RUN: %veczc -S %s -k k:4.2 | FileCheck --check-prefix=DIM %s
; DIM-LABEL: define spir_kernel void @__vecz_v4_k(
; DIM:         add i64 %gy, 3
; DIM:         store float %v.l3
;
; `a` as the factor or as a suffix: the automatic width (at least 2 here).
; RUN: %veczc -S %s -k k:a | FileCheck --check-prefix=AUTO %s
; RUN: %veczc -S %s -k k:8a | FileCheck --check-prefix=AUTO %s
; AUTO: define spir_kernel void @__vecz_v{{[1-9][0-9]*}}_k(
;
; @<n>: the local size to assume. A multiple of the width needs nothing...
; RUN: %veczc -S %s -k k:4@16 --remarks 2>&1 | FileCheck --check-prefix=LS16 %s
; LS16: remark: k (w=4): local size 16 assumed: 4 whole packet(s) per work-group, no predication needed
; LS16-NOT: get_local_size
; ...else the last packet is partial: VectorPredication masks its extra lanes.
; RUN: %veczc -S %s -k k:4@6 --remarks 2>&1 | FileCheck --check-prefix=LS6 %s
; LS6: remark: k (w=4): local size 6 assumed: not a multiple of the width 4, so VectorPredication makes the last packet's extra lanes inactive
; LS6: call i64 @_Z14get_local_sizej(i32 0)
; With the automatic width, the width divides the local size.
; RUN: %veczc -S %s -k k:a@2 | FileCheck --check-prefix=LSA %s
; LSA: define spir_kernel void @__vecz_v2_k(
;
; `s` (scalable vectors) and @0 are usage errors, as is a bad dimension.
; RUN: not %veczc -S %s -k k:4s 2>&1 | FileCheck --check-prefix=SCALABLE %s
; SCALABLE: veczc: error: -k k: scalable vectorization ('s') is not supported
; RUN: not %veczc -S %s -k k -vecz-scalable 2>&1 | FileCheck --check-prefix=SCALABLE2 %s
; SCALABLE2: veczc: error: -vecz-scalable: scalable vectors are not supported
; RUN: not %veczc -S %s -k k:4@0 2>&1 | FileCheck --check-prefix=ZERO %s
; ZERO: veczc: error: bad kernel specification '4@0' in -k 'k:4@0': the local size @0 must be at least 1
; RUN: not %veczc -S %s -k k:4.4 2>&1 | FileCheck --check-prefix=BADDIM %s
; BADDIM: veczc: error: bad kernel specification '4.4'

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %gy = call i64 @_Z13get_global_idj(i32 1)
  %pi = getelementptr inbounds float, ptr addrspace(1) %in, i64 %gid
  %l = load float, ptr addrspace(1) %pi, align 4
  %y = uitofp i64 %gy to float
  %v = fadd float %l, %y
  %p = getelementptr inbounds float, ptr addrspace(1) %out, i64 %gid
  store float %v, ptr addrspace(1) %p, align 4
  ret void
}
