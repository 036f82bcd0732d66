; veczc --print-pipeline prints the default pipeline, in the form
; -vecz-passes takes; with -vecz-passes it prints that one (checked).
; RUN: %veczc --print-pipeline | FileCheck --check-prefix=DEFAULT %s
; DEFAULT: {{^}}check-input,clone-kernel,builtin-inlining,preserve-library-calls,prepare,remove-intptr,check-vectorizability,barrier-uniform-branches,control-flow-conversion,squash-small-vectors,scalarize,clamp-versioning,widen-index-arithmetic,lane-safe-extensions,choose-width,name-kernel,interleave-private-arrays,check-branches,packetize,dead-code,safe-lane-addressing,cleanup{{$}}
; RUN: %veczc --print-pipeline -vecz-passes=check-input,clone-kernel,builtin-inlining,preserve-library-calls,prepare,check-vectorizability,barrier-uniform-branches,control-flow-conversion,scalarize,lane-safe-extensions,choose-width,name-kernel,check-branches,packetize,cleanup | FileCheck --check-prefix=MINIMAL %s
; MINIMAL: {{^}}check-input,clone-kernel,builtin-inlining,preserve-library-calls,prepare,check-vectorizability,barrier-uniform-branches,control-flow-conversion,scalarize,lane-safe-extensions,choose-width,name-kernel,check-branches,packetize,cleanup{{$}}
; The default pipeline, as printed, given to -vecz-passes gives the same output.
; RUN: %veczc -S %s -o %t.default.ll
; RUN: %veczc -S %s -o %t.named.ll -vecz-passes=check-input,clone-kernel,builtin-inlining,preserve-library-calls,prepare,remove-intptr,check-vectorizability,barrier-uniform-branches,control-flow-conversion,squash-small-vectors,scalarize,clamp-versioning,widen-index-arithmetic,lane-safe-extensions,choose-width,name-kernel,interleave-private-arrays,check-branches,packetize,dead-code,safe-lane-addressing,cleanup
; RUN: diff %t.default.ll %t.named.ll

declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @divide(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pi = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %gid
  %d = load i32, ptr addrspace(1) %pi, align 4
  %nz = icmp ne i32 %d, 0
  br i1 %nz, label %div, label %done
div:
  %q = sdiv i32 100, %d
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %q, ptr addrspace(1) %p, align 4
  br label %done
done:
  ret void
}
