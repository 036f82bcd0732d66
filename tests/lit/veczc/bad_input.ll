; Malformed IR and bad options exit with status 2 and a one-line error,
; LLVM's line:column included.
; RUN: not %veczc -k f -S %S/Inputs/bad.ll 2> %t.err
; RUN: FileCheck --check-prefix=BADIR %s < %t.err
; BADIR: veczc: error: 3:3: expected value token
; RUN: not %veczc -k copy -w 0 -S %s 2> %t.err2
; RUN: FileCheck --check-prefix=BADW %s < %t.err2
; BADW: veczc: error: -w 0: the width must be between 1 and 64
; RUN: not %veczc -k copy:4.7 -S %s 2> %t.err3
; RUN: FileCheck --check-prefix=BADSPEC %s < %t.err3
; BADSPEC: veczc: error: bad kernel specification '4.7'

define spir_kernel void @copy() {
  ret void
}
