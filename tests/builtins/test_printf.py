"""printf: output captured per work-item and compared between the scalar and
vectorized runs (oracle/printf_capture.py)."""

from __future__ import annotations

import pytest

from oracle import printf_capture as pc
from oracle.case import parse_ndrange
from oracle.check import check
from oracle.worker import Executor

HEAD = """target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spir64-unknown-unknown"
@.fmt = private unnamed_addr addrspace(2) constant [20 x i8] c"item %d: %v4hlf %s\\0A\\00", align 1
@.odd = private unnamed_addr addrspace(2) constant [8 x i8] c"odd %u\\0A\\00", align 1
@.word = private unnamed_addr addrspace(2) constant [3 x i8] c"ok\\00", align 1
"""

KERNEL = HEAD + """
define spir_kernel void @p(ptr addrspace(1) %in) {
entry:
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %g = trunc i64 %gid to i32
  %f = sitofp i32 %g to float
  %a = insertelement <4 x float> poison, float %f, i64 0
  %b = insertelement <4 x float> %a, float 0.5, i64 1
  %c = insertelement <4 x float> %b, float -2.0, i64 2
  %d = insertelement <4 x float> %c, float %f, i64 3
  %s = fmul <4 x float> %d, <float 1.0, float 3.0, float 1.0, float 0.25>
  %0 = call spir_func i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) noundef @.fmt, i32 noundef %g, <4 x float> noundef %s, ptr addrspace(2) noundef @.word)
  %odd = and i32 %g, 1
  %isodd = icmp ne i32 %odd, 0
  br i1 %isodd, label %then, label %done
then:
  %1 = call spir_func i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) noundef @.odd, i32 noundef %g)
  br label %done
done:
  ret void
}
declare spir_func i64 @_Z13get_global_idj(i32)
declare spir_func i32 @printf(ptr addrspace(2) noundef, ...)
"""


def test_printf_output_is_captured_in_work_item_order() -> None:
    ex = Executor()
    assert ex.build("k", "p", KERNEL, [], 0)[0] == "ok"
    res = ex.run("k", "", (pc_arg(),), parse_ndrange("global=3 local=3"), 1)
    assert res[0] == "ok"
    text = pc.output(res[1][-1])
    assert text == ("item 0: 0.000000,1.500000,-2.000000,0.000000 ok\n"
                    "item 1: 1.000000,1.500000,-2.000000,0.250000 ok\nodd 1\n"
                    "item 2: 2.000000,1.500000,-2.000000,0.500000 ok\n")


def pc_arg():  # noqa: ANN201 - an unused global buffer argument
    from oracle.case import parse_arg
    return parse_arg("buf:i32:4")


def test_vectorized_printf_matches_at_every_width() -> None:
    rep = check(KERNEL, kernel="p", widths=[4, 8, 16], layout=["buf:i32:4"],
                ndranges=["global=20 local=20", "global=32 local=16"])
    bad = [(r.width, r.status, r.detail) for r in rep.results if r.status != "match"]
    assert rep.results and not bad, bad


def _rec(lid: int, text: str) -> pc.Record:
    return ((lid, 0, 0), (0, 0, 0), text)


def test_compare_finds_a_changed_missing_or_moved_line() -> None:
    scalar = [_rec(0, "a"), _rec(0, "b"), _rec(1, "c"), _rec(4, "d")]
    # A W = 4 run prints lane by lane: the chunk's lines in another order.
    assert pc.compare(scalar, [_rec(0, "a"), _rec(0, "c"), _rec(0, "b"), _rec(4, "d")], 4, 0) is None
    assert pc.compare(scalar, [_rec(0, "a"), _rec(0, "c"), _rec(0, "x"), _rec(4, "d")], 4, 0)
    assert pc.compare(scalar, [_rec(0, "a"), _rec(0, "b"), _rec(0, "c")], 4, 0)
    assert pc.compare(scalar, [_rec(0, "a"), _rec(0, "b"), _rec(0, "c"), _rec(0, "d")], 4, 0)


@pytest.mark.parametrize(("fmt", "types", "values", "want"), [
    (b"%d|%5.2f|%x|%#o|%c", ["ptr", "i32", "double", "i32", "i32", "i32"], [-3, 2.5, 255, 8, 66], "-3| 2.50|ff|010|B"),
    (b"%v2hhd|%lu|%%", ["ptr", "<2 x i8>", "i64"], [(-1, 7), 2**64 - 1], "-1,7|18446744073709551615|%"),
    (b"%.0d|%#x", ["ptr", "i32", "i32"], [0, 0], "|0"),
])
def test_format_like_c(fmt: bytes, types: list[str], values: list, want: str) -> None:
    import struct
    data = b"\0" * 8
    for t, v in zip(types[1:], values, strict=True):
        if t == "<2 x i8>":
            raw = struct.pack("<2b", *v)
        else:
            raw = struct.pack({"i32": "<i", "double": "<d", "i64": "<Q"}[t], v)
        data += raw + b"\0" * (-len(raw) % 8)
    assert pc.format_record(fmt, types, data) == want


def test_rewrite_keeps_calls_of_other_functions() -> None:
    text = pc.rewrite_calls(KERNEL)
    assert "@printf(" not in text.split("declare spir_func i32 @printf")[0]
    assert '@"__oracle_printf:ptr addrspace(2),i32,<4 x float>,ptr addrspace(2)"(' in text
    assert "@_Z13get_global_idj(i32 0)" in text


def test_rewrite_skips_comments_and_a_module_s_own_printf() -> None:
    # A CHECK line quoting a call (cut before its `)`) is a comment, not a call.
    commented = KERNEL + "; CHECK: call spir_func i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) @.fmt, i64\n"
    text = pc.rewrite_calls(commented)
    assert commented.splitlines()[-1] in text
    assert '@"__oracle_printf:ptr addrspace(2),i32"(' in text
    # A module defining printf calls its own function: nothing is rerouted.
    own = KERNEL.replace("declare spir_func i32 @printf(ptr addrspace(2) noundef, ...)",
                         "define spir_func i32 @printf(ptr addrspace(2) %f, ...) {\n  ret i32 0\n}")
    assert pc.rewrite_calls(own) == own


def test_a_kernel_with_its_own_printf_is_judged() -> None:
    own = KERNEL.replace("declare spir_func i32 @printf(ptr addrspace(2) noundef, ...)",
                         "define spir_func i32 @printf(ptr addrspace(2) %f, ...) {\n  ret i32 0\n}")
    rep = check(own, kernel="p", widths=[4], layout=["buf:i32:4"], ndranges=["global=8 local=8"])
    assert rep.results and all(r.status == "match" for r in rep.results), \
        [(r.status, r.detail) for r in rep.results]
