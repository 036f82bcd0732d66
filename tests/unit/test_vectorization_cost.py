"""The automatic width's cost model: gather-heavy kernels stay scalar on a
target whose backend expands gathers lane by lane, and only there."""

from __future__ import annotations

from vectorizer.pipeline import KernelRequest, vectorize_module
from vectorizer.target import TargetInfo

HEADER = """target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spir64-unknown-unknown"
declare i64 @_Z13get_global_idj(i32)
"""

# y[row] = sum over k in [row_ptr[row], row_ptr[row+1]) of vals[k] * x[cols[k]]
SPMV = HEADER + """
define spir_kernel void @spmv(ptr addrspace(1) %y, ptr addrspace(1) %rp, ptr addrspace(1) %cols,
                              ptr addrspace(1) %vals, ptr addrspace(1) %x) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %p0 = getelementptr inbounds i32, ptr addrspace(1) %rp, i64 %gid
  %lo = load i32, ptr addrspace(1) %p0, align 4
  %p1 = getelementptr inbounds i32, ptr addrspace(1) %p0, i64 1
  %hi = load i32, ptr addrspace(1) %p1, align 4
  %any = icmp slt i32 %lo, %hi
  br i1 %any, label %loop, label %done

loop:
  %k = phi i32 [ %lo, %entry ], [ %k.next, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %acc.next, %loop ]
  %k64 = sext i32 %k to i64
  %pv = getelementptr inbounds float, ptr addrspace(1) %vals, i64 %k64
  %v = load float, ptr addrspace(1) %pv, align 4
  %pc = getelementptr inbounds i32, ptr addrspace(1) %cols, i64 %k64
  %c = load i32, ptr addrspace(1) %pc, align 4
  %c64 = sext i32 %c to i64
  %px = getelementptr inbounds float, ptr addrspace(1) %x, i64 %c64
  %xv = load float, ptr addrspace(1) %px, align 4
  %m = fmul float %v, %xv
  %acc.next = fadd float %acc, %m
  %k.next = add nsw i32 %k, 1
  %more = icmp slt i32 %k.next, %hi
  br i1 %more, label %loop, label %done

done:
  %r = phi float [ 0.0, %entry ], [ %acc.next, %loop ]
  %py = getelementptr inbounds float, ptr addrspace(1) %y, i64 %gid
  store float %r, ptr addrspace(1) %py, align 4
  ret void
}
"""

SAXPY = HEADER + """
define spir_kernel void @saxpy(ptr addrspace(1) %y, ptr addrspace(1) %x, float %a) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %px = getelementptr inbounds float, ptr addrspace(1) %x, i64 %gid
  %xv = load float, ptr addrspace(1) %px, align 4
  %py = getelementptr inbounds float, ptr addrspace(1) %y, i64 %gid
  %yv = load float, ptr addrspace(1) %py, align 4
  %m = fmul float %a, %xv
  %s = fadd float %m, %yv
  store float %s, ptr addrspace(1) %py, align 4
  ret void
}
"""


def _auto(text: str, kernel: str, fast_gather: bool):
    return _auto_ir(text, kernel, fast_gather)[1]


def _auto_ir(text: str, kernel: str, fast_gather: bool):
    target = TargetInfo("test", "", 256, fast_gather=fast_gather)
    ir, [outcome] = vectorize_module(text, [KernelRequest(kernel, None)], target)
    return ir, outcome


def test_gathers_the_target_expands_keep_the_kernel_scalar() -> None:
    ir, out = _auto_ir(SPMV, "spmv", fast_gather=False)
    assert out.width == 1
    assert out.vectorized_name == "__vecz_v1_spmv"
    # A plain copy of the kernel: no masks, no one-lane vectors.
    body = ir.split("@__vecz_v1_spmv(", 1)[1].split("\n}\n", 1)[0]
    assert " x " not in body and "__vecz_b_" not in body
    assert body.count("load float") == 2 and "phi float" in body
    [remark] = [r for r in out.remarks if r.startswith("automatic width: 1")]
    assert "not profitable" in remark and "3 access(es) become gathers" in remark
    assert out.stats["estimated_vector_cost"] > out.stats["estimated_scalar_cost"]


def test_fast_gathers_make_the_same_kernel_worth_vectorizing() -> None:
    out = _auto(SPMV, "spmv", fast_gather=True)
    assert out.width == 8  # two 256-bit registers of the i64 gather indices
    assert not any(r.startswith("automatic width: 1") for r in out.remarks)


def test_contiguous_kernels_vectorize_without_fast_gathers() -> None:
    out = _auto(SAXPY, "saxpy", fast_gather=False)
    assert out.width == 16
    assert out.stats["estimated_vector_cost"] < out.stats["estimated_scalar_cost"] / 4


def test_an_explicit_width_is_never_second_guessed() -> None:
    target = TargetInfo("test", "", 256, fast_gather=False)
    _, [out] = vectorize_module(SPMV, [KernelRequest("spmv", 8)], target)
    assert out.width == 8 and out.vectorized_name == "__vecz_v8_spmv"


def test_microcoded_gathers_keep_a_divergent_gather_loop_scalar() -> None:
    # AVX-512 gathers on a CPU LLVM does not tune for fast gathers (Zen 4/5):
    # the instruction exists but costs several scalar instructions a lane.
    target = TargetInfo("znver5", "", 512, fast_gather=True, microcoded_gather=True)
    _, [out] = vectorize_module(SPMV, [KernelRequest("spmv", None)], target)
    assert out.width == 1
    [remark] = [r for r in out.remarks if r.startswith("automatic width: 1")]
    assert "3 access(es) become gathers or scatters, which this target runs in microcode" in remark
    # Contiguous kernels are unaffected by how gathers are run.
    _, [sax] = vectorize_module(SAXPY, [KernelRequest("saxpy", None)], target)
    assert sax.width == 16
