; --time-passes prints, on standard error, the seconds each pass took and
; how many of its runs changed the function, then each analysis's seconds
; and how often it was computed. An analysis is computed on first use and
; again only after a pass that changed the function without preserving it:
; here control-flow-conversion re-reads the function from LLVM's SROA, so
; UniformValueAnalysis is computed twice (first by check-vectorizability).
; RUN: %veczc -S %s -o %t.ll --time-passes 2>&1 | FileCheck %s
; CHECK:      === pass timing ===
; CHECK-NEXT: {{^ +seconds +runs +changed +pass$}}
; CHECK-NEXT: {{^ +[0-9.]+ +1 +0  check-input$}}
; CHECK:      {{^ +[0-9.]+ +1 +1  prepare$}}
; CHECK:      {{^ +[0-9.]+ +1 +0  remove-intptr$}}
; CHECK-NEXT: {{^ +[0-9.]+ +1 +0  check-vectorizability$}}
; CHECK-NEXT: {{^ +[0-9.]+ +1 +0  barrier-uniform-branches$}}
; CHECK-NEXT: {{^ +[0-9.]+ +1 +1  control-flow-conversion$}}
; CHECK-NEXT: {{^ +[0-9.]+ +1 +0  squash-small-vectors$}}
; CHECK-NEXT: {{^ +[0-9.]+ +1 +0  scalarize$}}
; CHECK-NEXT: {{^ +[0-9.]+ +1 +0  clamp-versioning$}}
; CHECK-NEXT: {{^ +[0-9.]+ +1 +0  widen-index-arithmetic$}}
; CHECK-NEXT: {{^ +[0-9.]+ +1 +0  lane-safe-extensions$}}
; CHECK:      {{^ +[0-9.]+ +1 +1  cleanup$}}
; CHECK-NEXT: {{^ +[0-9.]+ +total$}}
; CHECK-NEXT: === analysis timing ===
; CHECK-NEXT: {{^ +seconds +computed +analysis$}}
; CHECK-NEXT: {{^ +[0-9.]+ +2  UniformValueAnalysis$}}
; CHECK-NEXT: {{^ +[0-9.]+ +1  StrideAnalysis$}}
; CHECK-NEXT: {{^ +[0-9.]+ +1  LoopInfo$}}
;
; With two kernels the report adds up both runs.
; RUN: %veczc -S %s -o %t.ll -k divide:4,8 --time-passes 2>&1 | FileCheck --check-prefix=TWO %s
; TWO: {{^ +[0-9.]+ +2 +2  control-flow-conversion$}}
; TWO: {{^ +[0-9.]+ +4  UniformValueAnalysis$}}

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
