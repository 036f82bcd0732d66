; A module that lists its kernels in !opencl.kernels (SPIR 1.2) gets an entry
; for each vectorized kernel, with the scalar kernel's argument metadata.
; RUN: %veczc -S %s -k k:4,8 | FileCheck %s
; CHECK: !opencl.kernels = !{![[K:[0-9]+]], ![[V4:[0-9]+]], ![[V8:[0-9]+]]}
; CHECK-DAG: ![[K]] = !{ptr @k, ![[ARGS:[0-9]+]]}
; CHECK-DAG: ![[V4]] = !{ptr @__vecz_v4_k, ![[ARGS]]}
; CHECK-DAG: ![[V8]] = !{ptr @__vecz_v8_k, ![[ARGS]]}
; A module without that metadata gets none.
; RUN: %veczc -S %S/kernel_spec.ll -k k | FileCheck --check-prefix=NONE %s
; NONE-NOT: opencl.kernels

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @k(ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 1, ptr addrspace(1) %p, align 4
  ret void
}

!opencl.kernels = !{!0}
!0 = !{ptr @k, !1}
!1 = !{!"kernel_arg_addr_space", i32 1}
