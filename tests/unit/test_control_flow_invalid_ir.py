"""Control-flow conversion's crossing to LLVM (SROA over the mask and value
variables) is checked like every other crossing: IR of ours that LLVM
rejects is a VectorizerBug naming the pass, which the oracle reports as
`vectorizer-error`. It used to become a refusal, so a defect in BOSCC or
the linearizer passed for a missing feature (`not-vectorized`)."""

from __future__ import annotations

import pytest

from vectorizer import llvm_bridge, vectorize
from vectorizer.passes.prepared_cache import CACHE as PREPARED
from vectorizer.pipeline import VectorizerBug
from vectorizer.transform import control_flow_conversion as cfc

DIVERGENT_IF = """
declare i64 @_Z13get_global_idj(i32)
define spir_kernel void @cfc_invalid(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pin = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %pin, align 4
  %c = icmp slt i32 %x, 100
  br i1 %c, label %then, label %join
then:
  %pt = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %x, ptr addrspace(1) %pt, align 4
  br label %join
join:
  ret void
}
"""


def test_invalid_ir_after_conversion_is_a_vectorizer_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    real = llvm_bridge.run_function_passes
    PREPARED.clear()  # the prefix must run: no snapshot from another test

    def rejecting(text: str, name: str, passes, *args, **kwargs):  # type: ignore[no-untyped-def]
        if passes is cfc.PROMOTE:
            raise llvm_bridge.IRError("<string>:7:3: error: instruction expected to be numbered '%5'")
        return real(text, name, passes, *args, **kwargs)

    monkeypatch.setattr(llvm_bridge, "run_function_passes", rejecting)
    with pytest.raises(VectorizerBug, match="control-flow-conversion.*numbered"):
        vectorize(DIVERGENT_IF, "cfc_invalid", width=4)
    # A defect is not remembered as the kernel's outcome: without the fault
    # the same request vectorizes.
    monkeypatch.setattr(llvm_bridge, "run_function_passes", real)
    r = vectorize(DIVERGENT_IF, "cfc_invalid", width=4)
    assert r.vectorized_name == "__vecz_v4_cfc_invalid"
