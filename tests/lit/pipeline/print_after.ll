; --print-after=PASS prints the kernel's function after PASS on standard
; error (our IR between our passes; LLVM's text after cleanup), one
; "IR Dump After" header each; --print-after-all after every pass, and
; --print-dir writes the dumps into files instead.
; RUN: %veczc -S %s -o %t.ll --print-after=control-flow-conversion,cleanup 2>&1 | FileCheck --check-prefix=AFTER %s
; AFTER: ; *** IR Dump After control-flow-conversion on divide ***
; AFTER-NEXT: define spir_kernel void @__vecz_tmp_divide(
; Control-flow conversion made the divisor safe for inactive lanes and the
; store masked, still in scalar form (one lane's view).
; AFTER: select i1 %{{[0-9]+}}, i32 %d, i32 1
; AFTER: call void @__vecz_b_masked_store4_i32_p1(
; AFTER: ; *** IR Dump After cleanup on divide ***
; AFTER-NEXT: define spir_kernel void @__vecz_v4_divide(
; AFTER: call void @llvm.masked.store.v4i32.p1(
; AFTER-NOT: IR Dump
;
; RUN: %veczc -S %s -o %t.ll --print-after-all 2>&1 | FileCheck --check-prefix=ALL %s
; ALL: IR Dump After check-input on divide
; ALL: IR Dump After clone-kernel on divide
; ALL: IR Dump After prepare on divide
; ALL: IR Dump After control-flow-conversion on divide
; ALL: IR Dump After packetize on divide
; ALL: IR Dump After cleanup on divide
;
; RUN: rm -rf %t.dir
; RUN: %veczc -S %s -o %t.ll --print-after=packetize,cleanup --print-dir %t.dir 2> %t.err
; RUN: FileCheck --allow-empty --check-prefix=QUIET %s < %t.err
; QUIET-NOT: {{.}}
; RUN: ls %t.dir | FileCheck --check-prefix=DIR %s
; DIR: 001-divide-packetize.ll
; DIR-NEXT: 002-divide-cleanup.ll
; RUN: FileCheck --check-prefix=FILE %s < %t.dir/001-divide-packetize.ll
; FILE: ; *** IR Dump After packetize on divide ***
; FILE: sdiv i32
; RUN: not %veczc -S %s --print-dir %t.dir 2>&1 | FileCheck --check-prefix=NODUMP %s
; NODUMP: veczc: error: --print-dir needs --print-after or --print-after-all

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
