"""Asynchronous work-group copies (vectorizer/builtins/async_copy.py): the
oracle's reference copies at the call and waits at a barrier; a vectorized
packet calls each copy once. Kernels compiled by clang 22."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from oracle.check import check, run_scalar
from oracle.runtime import FnSig, Unsupported, _Emitter, builtin_definition
from vectorizer import vectorize
from vectorizer.builtins import async_copy

KERNELS = (Path(__file__).parent / "async_copy_kernels.ll").read_text()
NDRANGES = ["global=64 local=16", "global=24 local=8"]
LAYOUTS = {
    # float4 global -> local, read back reversed within the group
    "reverse_tile": ["buf:4xf32:64", "buf:4xf32:64:zero", "local:4xf32:16"],
    # short2 local -> global, stride 2
    "strided_out": ["buf:2xi16:64", "buf:2xi16:128:zero", "local:2xi16:16"],
    # int global -> local with stride 3, and a contiguous copy; one wait on both events
    "strided_in": ["buf:i32:192", "buf:i32:64:zero", "local:i32:16", "local:i32:16"],
}


@pytest.mark.parametrize("kernel", sorted(LAYOUTS))
def test_copies_match_at_every_width(kernel: str) -> None:
    rep = check(KERNELS, kernel=kernel, widths=[4, 8, 16], layout=LAYOUTS[kernel], ndranges=NDRANGES)
    bad = [(r.width, str(r.global_size), r.status, r.detail) for r in rep.results if r.status != "match"]
    assert rep.results and not bad, bad


def test_reference_copies_what_opencl_says() -> None:
    inp, out, _ = run_scalar(KERNELS, "global=64 local=16", kernel="reverse_tile", layout=LAYOUTS["reverse_tile"])
    want = inp.reshape(4, 16, 4)[:, ::-1, :] * 2   # buffers come back flat
    assert np.array_equal(out, want.reshape(-1))
    inp, out, _, _ = run_scalar(KERNELS, "global=24 local=8", kernel="strided_in", layout=LAYOUTS["strided_in"])
    groups = inp[:72].reshape(3, 24)
    tmp = groups[:, ::3]                      # strided copy: in[g*24 + 3*i]
    tmp2 = groups[:, 1:9]                     # contiguous copy from in[g*24 + 1]
    want = (tmp * 7 + tmp2[:, ::-1]).reshape(24)
    assert np.array_equal(out[:24], want)
    inp, out, _ = run_scalar(KERNELS, "global=24 local=8", kernel="strided_out", layout=LAYOUTS["strided_out"])
    got = out[:96].reshape(3, 8, 2, 2)        # every other short2 written
    added = inp[:48].reshape(24, 2) + np.array([1, 2], dtype=np.int16)
    assert np.array_equal(got[:, :, 0, :], added.reshape(3, 8, 2))
    assert not got[:, :, 1, :].any()


def test_varying_copy_is_refused() -> None:
    """Each work-item copies from its own address: a packet cannot make one copy for all."""
    res = vectorize(KERNELS, "varying_copy", width=4)
    assert res.vectorized_name is None
    assert any("varying across the work-group" in r for r in res.remarks), res.remarks


@pytest.mark.parametrize(("name", "want"), [
    ("_Z21async_work_group_copyPU3AS3Dv4_fPU3AS1KS_m9ocl_event", (16, 3, 1)),
    ("_Z21async_work_group_copyPU3AS3Dv3_cPU3AS1KS_m9ocl_event", (4, 3, 1)),   # char3 occupies 4 bytes
    ("_Z29async_work_group_strided_copyPU3AS1Dv16_dPU3AS3KS_mm9ocl_event", (128, 1, 3)),
    ("_Z21async_work_group_copyPU3AS3hPU3AS1Khm9ocl_event", (1, 3, 1)),
    ("_Z21async_work_group_copyPU3AS3iPU3AS3Kim9ocl_event", None),            # local -> local: no such overload
    ("_Z21async_work_group_copyPU3AS3iPU3AS1Kjm9ocl_event", None),            # element types differ
    ("_Z17wait_group_eventsiP9ocl_event", None),
])
def test_overloads(name: str, want: tuple[int, int, int] | None) -> None:
    assert async_copy.element_bytes(name) == want


def test_runtime_rejects_a_copy_with_another_signature() -> None:
    name = "_Z21async_work_group_copyPU3AS3iPU3AS1Kim9ocl_event"
    ok = FnSig("ptr", ("ptr addrspace(3)", "ptr addrspace(1)", "i64", "ptr"), False)
    assert "llvm.memmove.p3.p1.i64" in (builtin_definition(name, ok, _Emitter()) or "")
    with pytest.raises(Unsupported):
        builtin_definition(name, FnSig("ptr", ("ptr addrspace(3)", "ptr addrspace(1)", "i32", "ptr"), False), _Emitter())


def test_inferred_launch_keeps_room_for_the_copies() -> None:
    """The sanitizer does not see the runtime's copies: buffers only a copy
    reads must not be shrunk to what the kernel itself touched."""
    rep = check(KERNELS, kernel="strided_in", widths=[4])
    bad = [(str(r.global_size), r.status, r.detail) for r in rep.results if r.status != "match"]
    assert rep.results and not bad, bad
