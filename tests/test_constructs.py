"""Construct coverage (`python -m fuzz.constructs`): the keys extracted from
IR, the reasons given for constructs the generator leaves out, and the
command line."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from fuzz import constructs as C

KERNEL = """
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare i64 @_Z13get_global_idj(i32)
declare i32 @_Z5mad24iii(i32, i32, i32)
declare float @llvm.fmuladd.f32(float, float, float)

define spir_kernel void @k(ptr addrspace(1) %in, ptr addrspace(3) %loc, i32 %n, i32 %d) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %g = trunc i64 %gid to i32
  %m = call i32 @_Z5mad24iii(i32 %g, i32 %n, i32 3)
  %y = call i64 @_Z13get_global_idj(i32 %d)
  %a = add nsw i32 %m, 1
  %p = getelementptr inbounds float, ptr addrspace(1) %in, i64 %gid
  %x = load float, ptr addrspace(1) %p, align 4
  %f = call float @llvm.fmuladd.f32(float %x, float %x, float 1.0)
  %q = getelementptr inbounds float, ptr addrspace(3) %loc, i64 %y
  store float %f, ptr addrspace(3) %q, align 4
  switch i32 %a, label %done [ i32 1, label %one
                               i32 2, label %two ]
one:
  br label %loop
loop:
  %i = phi i32 [ 0, %one ], [ %i1, %inner.exit ]
  br label %inner
inner:
  %j = phi i32 [ 0, %loop ], [ %j1, %inner ]
  %j1 = add i32 %j, 1
  %c = icmp slt i32 %j1, %g
  br i1 %c, label %inner, label %inner.exit
inner.exit:
  %i1 = add i32 %i, 1
  %c2 = icmp slt i32 %i1, %n
  br i1 %c2, label %loop, label %done
two:
  ret void
done:
  ret void
}
"""


def _keys(stage: str) -> Counter[str]:
    r = C.module_constructs(KERNEL, "test", stage)
    assert r.error is None, r.error
    assert list(r.kernels) == ["k"]
    return r.kernels["k"]


def test_keys_name_opcodes_flags_types_builtins_and_cfg_shapes() -> None:
    keys = _keys("input")
    for k in (
        "add nsw i32",
        "call llvm.fmuladd.f32",
        "call builtin:mad24(varying,uniform,constant)",  # uniformity of each argument
        "call builtin:get_global_id(constant)",
        "call builtin:get_global_id(uniform)",  # a run-time dimension
        "gep inbounds ptr addrspace(1)",
        "gep inbounds ptr addrspace(3)",
        "load float addrspace(1)",
        "store float addrspace(3)",
        "access: load contiguous",
        "access: store gather/scatter",  # no stride describes get_global_id(%d)
        "switch (varying)",
        "switch cases:2",
        "loop-depth:1",
        "loop-depth:2",
        "loop: varying exit (divergent loop)",
        "phi-shape: loop-carried",
        "cfg: multiple returns",
        "kernel arg i32",
    ):
        assert k in keys, (k, sorted(keys))


def test_prepared_stage_is_what_the_vectorizer_analyses() -> None:
    # mergereturn leaves one return; the clone is what is read.
    keys = _keys("prepared")
    assert "cfg: multiple returns" not in keys
    assert "loop-depth:2" in keys
    # Builtin Inlining has put the library's body of mad24 in the clone.
    assert not any(k.startswith("call builtin:mad24") for k in keys)


def test_builtin_names_are_demangled_and_vector_widths_folded() -> None:
    assert C.builtin_name("_Z5mad24iii") == "mad24"
    assert C.builtin_name("_Z14convert_char16Dv16_i") == "convert_charN"
    assert C.builtin_name("_Z6vload4mPU3AS1Kf") == "vloadN"
    assert C.builtin_name("_Z5exp10f") == "exp10"  # a digit that is not a width
    assert C.builtin_name("__mux_get_global_id") == "__mux_get_global_id"
    assert C.builtin_name("foo") is None


def test_explanations() -> None:
    assert C.explanation("call builtin:barrier(constant)") is None  # generated (profile workgroup)
    assert C.explanation("call builtin:mem_fence(constant)") is None  # generated before some atomics
    assert "copies" in C.explanation("call builtin:async_work_group_copy(uniform,uniform,uniform,uniform)")
    assert "subgroup_kernels" in C.explanation("call builtin:__mux_sub_group_reduce_add_i32(varying)")
    # Collectives: the `subgroup` profile of the rotation generates the OpenCL C names, so only the
    # `__mux_` spellings have a reason (it said the profile was still being registered).
    mux = C.explanation("call builtin:__mux_get_sub_group_id()")
    assert "`subgroup` profile of the rotation" in mux and "being registered" not in mux
    assert C.explanation("call builtin:__mux_work_group_scan_inclusive_add_i32(constant,varying)") == mux
    assert C.explanation("call builtin:sub_group_reduce_add(varying)") is None  # generated
    assert C.explanation("call builtin:work_group_broadcast(varying,uniform)") is None  # generated
    assert C.explanation("call builtin:__mux_work_group_barrier(constant,constant,constant)") is None  # generated
    assert C.explanation("call builtin:atomic_add(varying,varying)") is None  # generated
    assert "order" in C.explanation("call builtin:atom_xchg(varying,uniform)")
    assert C.explanation("type <vscale x 4 x float>") is not None
    assert C.explanation("add nsw i16") is None  # nothing known about it without the generated set
    generated = Counter({"add nsw nuw i16": 3, "add nuw i32": 1, "add nsw i8": 2, "load i32 addrspace(1)": 1,
                         "call builtin:fabs(varying)": 1})
    # Flags: the same operation and types generated, each flag on the opcode.
    assert C.explanation("add nuw i16", generated).startswith("flag combination")
    # Types: the same operation on another type.
    assert C.explanation("load i16 addrspace(1)", generated).startswith("the same operation")
    assert C.explanation("load i16 addrspace(3)", generated) is None  # another address space is no residue
    # Builtins: the runtime lacks it, or the same builtin has other argument kinds.
    sig = ("_Z4haddss", "i16", ["i16", "i16"])  # the runtime defines it: nothing to explain
    assert C.explanation("call builtin:hadd(varying,varying)", generated, sig) is None
    image = ("_Z11read_imagef14ocl_image2d_ro11ocl_samplerDv2_i", "<4 x float>", ["ptr", "ptr", "<2 x i32>"])
    assert "image" in C.explanation("call builtin:read_imagef(uniform,uniform,varying)", generated, image)
    fabs = ("_Z4fabsf", "float", ["float"])
    assert C.explanation("call builtin:fabs(uniform)", generated, fabs).startswith("generated with other")
    assert C.explanation("call builtin:sqrt(uniform)", generated, ("_Z4sqrtf", "float", ["float"])) is None
    # Conversions: the same destination and argument kinds, another saturation or rounding mode.
    conv = Counter({"call builtin:convert_charN_sat(uniform)": 1})
    assert C.explanation("call builtin:convert_charN_rtz(uniform)", conv).startswith("the same conversion")
    assert C.explanation("call builtin:convert_char_rtz(uniform)", conv) is None  # scalar: another key
    # Other argument kinds too (drawn per argument): the destination and width are what matter.
    assert C.explanation("call builtin:convert_charN_rtz(varying)", conv).startswith("the same conversion")
    assert C.explanation("call builtin:convert_shortN_rtz(uniform)", conv) is None  # another destination


def test_runtime_defines_asks_the_oracle_runtime() -> None:
    assert C.runtime_defines(("_Z4fabsf", "float", ["float"])) is True
    assert C.runtime_defines(("_Z7barrierj", "void", ["i32"])) is True  # the fibers synchronise
    # Sub-group collectives are (oracle/subgroups.py), the non-uniform forms too;
    # the logical non-uniform operations are not.
    assert C.runtime_defines(("_Z20sub_group_reduce_addi", "i32", ["i32"])) is True
    assert C.runtime_defines(("_Z32sub_group_non_uniform_reduce_addi", "i32", ["i32"])) is True
    assert C.runtime_defines(("_Z40sub_group_non_uniform_reduce_logical_andi", "i32", ["i32"])) is False
    assert C.runtime_defines(None) is None


def test_generated_kernels_are_read_like_real_ones() -> None:
    t = C.generated_tally(count=6, seed=0, profiles=["default", "loops"])
    assert t.kernels == 6 and not t.errors
    assert any(k.startswith("loop-depth:") for k in t.present)
    assert "call builtin:get_global_id(constant)" in t.present or "call builtin:__mux_get_global_id(constant)" in \
        t.present


def test_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (real / "k.ll").write_text(KERNEL)
    (real / "bad.ll").write_text("this is not IR\n")
    cache = tmp_path / "cache.json"
    rc = C.main(["--count", "4", "--roots", str(real), "--real-cache", str(cache), "--json"])
    out = capsys.readouterr().out
    import json

    d = json.loads(out)
    assert d["real_kernels"] == 1 and d["generated_kernels"] == 4
    assert any("bad.ll" in e for e in d["errors"])  # reported, not fatal
    assert rc in (0, 1) and rc == (1 if any(m["explanation"] is None for m in d["missing"]) else 0)
    assert cache.exists()
    # The cache is read back: same real side without reading the folder.
    rc2 = C.main(["--count", "4", "--roots", str(tmp_path / "nowhere-but-cached"), "--real-cache", str(cache)])
    assert rc2 == 2  # a missing folder is bad usage, even with a cache
    assert C.main(["--profiles", "nosuch"]) == 2
    assert C.main(["--bogus"]) == 2
