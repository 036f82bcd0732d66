"""Launch inference (oracle.infer, oracle.reference): the launches a
kernel's author would use, and the sanitized run's own machinery."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import llvmlite.binding as llvm
import pytest

import oracle
from oracle.case import parse_case
from oracle.infer import id_dims, infer_case, launch_ndranges, spir_kernels, unquote_name
from oracle.jit import initialize, strip_calling_conventions
from vectorizer.llvm_context import new_context, parse_in

ROOT = Path(__file__).resolve().parents[2]
BENCH = sorted((ROOT / "bench" / "kernels").glob("*.ll"))

_QUERIES = """
declare i64 @_Z13get_global_idj(i32 noundef)
declare i64 @_Z12get_local_idj(i32 noundef)
declare i64 @_Z15get_global_sizej(i32 noundef)
declare i64 @_Z20get_global_linear_idv()
define void @helper(ptr %p) {
  %y = call i64 @_Z12get_local_idj(i32 noundef 2)
  ret void
}
define spir_kernel void @only_x(ptr %p) {
  %x = call i64 @_Z13get_global_idj(i32 noundef 0)
  %s = call i64 @_Z15get_global_sizej(i32 noundef 1)
  ret void
}
define spir_kernel void @via_helper(ptr %p) {
  %x = call i64 @_Z13get_global_idj(i32 noundef 0)
  call void @helper(ptr %p)
  ret void
}
define spir_kernel void @runtime_dim(ptr %p, i32 %d) {
  %x = call i64 @_Z13get_global_idj(i32 noundef %d)
  ret void
}
define spir_kernel void @linear(ptr %p) {
  %x = call i64 @_Z20get_global_linear_idv()
  ret void
}
define spir_kernel void @none(ptr %p) {
  ret void
}
"""


def _mod(text: str) -> llvm.ModuleRef:
    initialize()
    return parse_in(new_context(), strip_calling_conventions(text))


@pytest.mark.parametrize("kernel,dims", [
    ("only_x", {0}),            # a size query along y does not tell work-items apart
    ("via_helper", {0, 2}),     # a callee's query counts
    ("runtime_dim", {0, 1, 2}),  # a dimension only known at run time: all
    ("linear", {0, 1, 2}),
    ("none", set()),
])
def test_dimensions_come_from_call_sites(kernel: str, dims: set[int]) -> None:
    assert id_dims(_mod(_QUERIES), kernel) == dims


def test_clang_kernels_are_launched_along_the_dimensions_they_index() -> None:
    # `declare i64 @_Z13get_global_idj(i32 noundef)` once meant "all
    # dimensions": saxpy was launched 3-D and vectorized along y.
    case = infer_case(parse_case((ROOT / "bench/kernels/saxpy.ll").read_text()))
    assert case.dims == [0]
    assert all(nd.work_dim == 1 for nd in case.ndranges), case.ndranges
    rep = oracle.check((ROOT / "bench/kernels/saxpy.ll").read_text(), widths=[4])
    assert rep.summary == {"match": 3}, rep.results


def test_ndranges_extend_only_along_queried_dimensions() -> None:
    assert [str(n) for n in launch_ndranges(set())] == ["global=1 local=1"]
    for nd in launch_ndranges({1}):
        assert nd.global_size[0] == 1 and nd.global_size[1] > 1
    for nd in launch_ndranges({0, 2}):
        assert nd.global_size[1] == 1
    assert any(nd.global_size[2] > 1 for nd in launch_ndranges({0, 2}))


@pytest.mark.parametrize("path", BENCH, ids=lambda p: p.stem)
def test_bench_kernels_match_at_every_width_and_dimension(path: Path) -> None:
    rep = oracle.check(path.read_text())
    assert rep.results and rep.summary == {"match": len(rep.results)}, [
        (r.width, r.dim, r.global_size, r.status, r.detail[:200]) for r in rep.results if r.status != "match"]


@pytest.mark.parametrize("name", ["my kernel", "kérnel", "123", 'a"b'])
def test_kernel_names_llvm_must_quote(name: str) -> None:
    from vectorizer.ir.types import quote_name

    text = (ROOT / "bench/kernels/saxpy.ll").read_text().replace("@saxpy(", f"@{quote_name(name)}(")
    assert spir_kernels(text) == [name]
    rep = oracle.check_scalar(text)
    assert rep.kernel == name and rep.summary == {"match": 3}, rep.results
    # The vectorized kernel of another vectorizer, checked under that name.
    vec = oracle.check(text + _copy_as_vector(text, name), vectorized="__vec_" + name, widths=[1])
    assert {r.status for r in vec.results} == {"match"}, vec.results


def _copy_as_vector(text: str, name: str) -> str:
    """The kernel's definition again under `__vec_<name>` (a width-1
    "vectorized" kernel is the scalar one)."""
    from vectorizer.ir.types import quote_name

    start = text.index("define dso_local spir_kernel")
    body = text[start : text.index("\n}\n", start) + 3]
    return "\n" + body.replace(f"@{quote_name(name)}(", f"@{quote_name('__vec_' + name)}(")


def test_unquote_name() -> None:
    assert unquote_name('"a\\22b"') == 'a"b'
    assert unquote_name('"k\\C3\\A9rnel"') == "kérnel"
    assert unquote_name("plain") == "plain"


def test_a_supplied_launch_is_used_as_written() -> None:
    # A case header fixes the layout: no sizing, no scalar guessing.
    text = ("; vecz-case: 1\n; kernel: saxpy\n; args: buf:f32:40 buf:f32:40 scalar:f32:2.0\n"
            "; ndrange: global=40 local=8\n") + (ROOT / "bench/kernels/saxpy.ll").read_text()
    rep = oracle.check(text, widths=[4])
    assert rep.summary == {"match": 1}
    assert rep.launches == {"global=40 local=8": "buf:f32:40:random buf:f32:40:random scalar:f32:2.0"}
    # Too small a buffer for that launch is the input's fault, said exactly.
    small = text.replace("buf:f32:40 buf:f32:40", "buf:f32:32 buf:f32:40")
    rep = oracle.check(small, widths=[4])
    assert rep.summary == {"scalar-fault": 1}
    assert "out-of-bounds read of 4 bytes at offset 128 of buffer 1 (argument %1) (128 bytes)" in rep.results[0].detail \
        or "offset 128 of buffer 0 (argument %0) (128 bytes)" in rep.results[0].detail, rep.results[0].detail


@pytest.mark.skipif(importlib.util.find_spec("ziglang") is None,
                    reason="regenerating the sanitizer's library needs clang (ziglang, in the dev extra)")
def test_sanitizer_library_ir_is_up_to_date() -> None:
    from oracle import sanitizer_rt

    assert sanitizer_rt.compile_source() == sanitizer_rt.IR.read_text(), (
        "oracle/sanitizer_rt.ll is out of date: run `python -m oracle.sanitizer_rt --regenerate`")


@pytest.mark.parametrize("args,msg", [
    ("buf:f32:40 buf:f32:40", "layout has 2 arguments, kernel saxpy has 3"),
    ("buf:f32:40 buf:f32:40 scalar:i32:2", "argument 2 is a float: a `scalar:f32:<value>` entry is needed"),
    ("buf:f32:40 scalar:f32:1 scalar:f32:2", "argument 1 is a ptr addrspace(1): a `buf:` entry is needed"),
    ("buf:f32:40 local:f32:40 scalar:f32:2", "argument 1 is a ptr addrspace(1): a `buf:` entry is needed"),
])
def test_a_supplied_layout_must_fit_the_kernel(args: str, msg: str, capsys) -> None:
    from oracle import cli

    text = (f"; vecz-case: 1\n; kernel: saxpy\n; args: {args}\n; ndrange: global=40 local=8\n"
            + (ROOT / "bench/kernels/saxpy.ll").read_text())
    with pytest.raises(oracle.CaseError, match=re.escape(msg)):
        oracle.check(text, widths=[4])
    path = ROOT / "tests" / "oracle_harness" / "kernels" / "saxpy_bad_layout.tmp.ll"
    try:
        path.write_text(text)
        assert cli.main([str(path)]) == 2
    finally:
        path.unlink()
    assert msg in capsys.readouterr().err


def test_a_header_without_args_gets_an_inferred_layout_for_its_ndranges() -> None:
    text = ("; vecz-case: 1\n; kernel: saxpy\n; ndrange: global=24 local=8\n"
            + (ROOT / "bench/kernels/saxpy.ll").read_text())
    rep = oracle.check(text, widths=[4])
    assert rep.summary == {"match": 1}, rep.results
    assert rep.launches == {"global=24 local=8": "buf:f32:24:random buf:f32:24:random scalar:f32:1.5"}


# Parboil's FFT in miniature: each work-group writes a row of `n` elements
# from `n`, each work-item two neighbours `2 * s` apart from the last; the
# same value for both scalars races whatever it is.
_TIED_SCALARS = """
declare i64 @_Z12get_group_idj(i32 noundef)
declare i64 @_Z12get_local_idj(i32 noundef)
define spir_kernel void @tied(ptr addrspace(1) %out, i32 %s, i32 %n) {
  %g = call i64 @_Z12get_group_idj(i32 noundef 0)
  %t = call i64 @_Z12get_local_idj(i32 noundef 0)
  %n64 = sext i32 %n to i64
  %s64 = sext i32 %s to i64
  %row = mul i64 %g, %n64
  %t2 = shl i64 %t, 1
  %col = mul i64 %t2, %s64
  %i = add i64 %row, %col
  %p = getelementptr float, ptr addrspace(1) %out, i64 %i
  %v = sitofp i64 %t to float
  store float %v, ptr addrspace(1) %p, align 4
  %p1 = getelementptr float, ptr addrspace(1) %p, i64 1
  store float %v, ptr addrspace(1) %p1, align 4
  ret void
}
"""


def test_scalars_tied_to_each_other_get_values_of_their_own() -> None:
    rep = oracle.check_scalar(_TIED_SCALARS)
    assert rep.summary == {"match": 3}, rep.results
    for layout in rep.launches.values():
        s, n = (a.split(":")[2] for a in layout.split() if a.startswith("scalar:"))
        assert s != n, layout


def test_scalar_mixes_skip_the_uniform_candidates_and_are_bounded() -> None:
    from oracle.case import parse_arg, parse_ndrange
    from oracle.reference import MAX_MIXES, scalar_mixes

    nd = parse_ndrange("global=36 local=12 offset=5")
    args = tuple(parse_arg(a) for a in ("buf:f32:64", "scalar:i32:1", "scalar:i32:1"))
    values = [tuple(a.value for a in m if a.kind == "scalar") for m in scalar_mixes(args, nd)]
    assert values[:2] == [("41", "1"), ("41", "12")]  # the extent is offset + size
    assert ("41", "41") not in values and ("1", "1") not in values
    assert ("12", "12") in values  # uniform, but not a value scalar_candidates tries
    assert len(values) == 5 * 5 - 2
    # 4 x 16 is the extent: each value once.
    assert len(scalar_mixes(args, parse_ndrange("global=64 local=16"))) == 4 * 4 - 2
    many = tuple(parse_arg("scalar:i32:1") for _ in range(4))
    assert len(scalar_mixes(many, nd)) == MAX_MIXES
    assert scalar_mixes((parse_arg("scalar:f32:1.5"),), nd) == []


_DATA_INDEX = """
@table = internal constant [2 x i32] [i32 7, i32 9]
declare i64 @_Z13get_global_idj(i32 noundef)
define spir_kernel void @lookup(ptr addrspace(1) %out, ptr addrspace(1) %idx) {
  %g = call i64 @_Z13get_global_idj(i32 noundef 0)
  %pi = getelementptr i32, ptr addrspace(1) %idx, i64 %g
  %i = load i32, ptr addrspace(1) %pi, align 4
  %i64 = sext i32 %i to i64
  %pt = getelementptr [2 x i32], ptr @table, i64 0, i64 %i64
  %v = load i32, ptr %pt, align 4
  %po = getelementptr i32, ptr addrspace(1) %out, i64 %g
  store i32 %v, ptr addrspace(1) %po, align 4
  ret void
}
"""


def test_indices_read_from_the_data_are_tried_at_zero() -> None:
    # idx[] filled mod 64 indexes a 2-entry table out of bounds; all 0, it runs.
    rep = oracle.check_scalar(_DATA_INDEX)
    assert rep.summary == {"match": 3}, rep.results
    assert all(" buf:i32:" in v and v.endswith(":zero") for v in rep.launches.values()), rep.launches
