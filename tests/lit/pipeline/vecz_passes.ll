; -vecz-passes runs a named sequence: optional passes (optimisations) may be
; left out; a required pass missing, one out of order or an unknown name is
; a usage error (exit 2, one line).
;
; Without clamp-versioning the clamped load stays a gather; with it (the
; default) it gets a contiguous fast path.
; RUN: %veczc -S %s -k clamp | FileCheck --check-prefix=DEFAULT %s
; DEFAULT: clamp.fast
; DEFAULT: load <4 x float>
; RUN: %veczc -S %s -k clamp -vecz-passes=check-input,clone-kernel,builtin-inlining,preserve-library-calls,prepare,remove-intptr,check-vectorizability,barrier-uniform-branches,control-flow-conversion,squash-small-vectors,scalarize,widen-index-arithmetic,lane-safe-extensions,choose-width,name-kernel,interleave-private-arrays,check-branches,packetize,dead-code,safe-lane-addressing,cleanup | FileCheck --check-prefix=NOCLAMP %s
; NOCLAMP-LABEL: define spir_kernel void @__vecz_v4_clamp(
; NOCLAMP-NOT: clamp.fast
; NOCLAMP: @llvm.masked.gather.v4f32
;
; RUN: not %veczc -S %s -vecz-passes=check-input,bogus 2>&1 | FileCheck --check-prefix=UNKNOWN %s
; UNKNOWN: veczc: error: -vecz-passes: unknown pass 'bogus' (veczc --print-pipeline lists them)
; RUN: not %veczc -S %s -vecz-passes=check-input,clone-kernel 2>&1 | FileCheck --check-prefix=MISSING %s
; MISSING: veczc: error: -vecz-passes: required pass 'builtin-inlining' is missing
; RUN: not %veczc -S %s -vecz-passes=clone-kernel,check-input 2>&1 | FileCheck --check-prefix=ORDER %s
; ORDER: veczc: error: -vecz-passes: pass 'check-input' must come before 'clone-kernel'
; RUN: not %veczc -S %s --print-after=bogus 2>&1 | FileCheck --check-prefix=AFTER %s
; AFTER: veczc: error: --print-after: unknown pass 'bogus'

declare i64 @_Z13get_global_idj(i32)
declare i32 @llvm.smin.i32(i32, i32)

define spir_kernel void @clamp(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %n) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %g = trunc i64 %gid to i32
  %x = add nsw i32 %g, 1
  %c = call i32 @llvm.smin.i32(i32 %x, i32 %n)
  %ci = sext i32 %c to i64
  %pi = getelementptr inbounds float, ptr addrspace(1) %in, i64 %ci
  %l = load float, ptr addrspace(1) %pi, align 4
  %p = getelementptr inbounds float, ptr addrspace(1) %out, i64 %gid
  store float %l, ptr addrspace(1) %p, align 4
  ret void
}
