"""Small tests written to close pass mutants (fuzz/pass_mutants.py) that the
CI differential suite and a short campaign left alive: each pins a
behaviour of an analysis or a transform that no generated kernel, corpus
case or peer kernel checked. The mutant each one kills is named in its
docstring; `python -m fuzz.pass_mutants run --only ID --closing-test
tests/test_pass_mutant_kills.py` shows it failing on that mutant's copy."""

from __future__ import annotations

from pathlib import Path

import oracle
from vectorizer.analysis.data_layout import DataLayout
from vectorizer.ir import types as T


def test_struct_field_offsets_follow_abi_alignment() -> None:
    """Kills data_layout:drop-statement:0 (a field's offset never recorded).
    `{ i8, i32, i8, double }` lays its fields at 0, 4, 8 and 16 (each at its
    ABI alignment) and occupies 24 bytes; packed, at 0, 1, 5 and 6."""
    dl = DataLayout.parse(None)
    s = T.StructType([T.IntType(8), T.IntType(32), T.IntType(8), T.FloatType("double")])
    assert [dl.field_offset(s, i) for i in range(4)] == [0, 4, 8, 16]
    assert dl.alloc_size(s) == 24
    p = T.StructType(list(s.elements), packed=True)
    assert [dl.field_offset(p, i) for i in range(4)] == [0, 1, 5, 6]


# A loop with two exits of uniform conditions (i == 5, i + 1 < n) inside a
# varying `if`: the loop is divergent only because some lanes skip it, and
# the exits meet in `m`, whose phi picks a constant per exit.
LOOP_IN_VARYING_IF = """
declare i64 @_Z13get_global_idj(i32)
define spir_kernel void @k(ptr addrspace(1) %in, ptr addrspace(1) %out, i32 %n) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pin = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %pin, align 4
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %pre, label %outer.join
pre:
  br label %h
h:
  %i = phi i32 [ 0, %pre ], [ %i1, %latch ]
  %e1c = icmp eq i32 %i, 5
  br i1 %e1c, label %e1, label %latch
latch:
  %i1 = add i32 %i, 1
  %lc = icmp slt i32 %i1, %n
  br i1 %lc, label %h, label %e2
e1:
  br label %m
e2:
  br label %m
m:
  %v = phi i32 [ 10, %e1 ], [ 20, %e2 ]
  %w = add i32 %v, %x
  br label %outer.join
outer.join:
  %r = phi i32 [ %w, %m ], [ %x, %entry ]
  %pout = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %r, ptr addrspace(1) %pout, align 4
  ret void
}
"""


def test_loop_under_a_varying_if_with_two_exits_matches() -> None:
    """The case of divergence:compare-flip:24 (argued equivalent in
    fuzz/pass_mutants_equivalent.py) where a loop is divergent only through
    an outer region: the exits' join lies inside the `if`'s region."""
    report = oracle.check(LOOP_IN_VARYING_IF, widths=[4, 8], timeout=20)
    assert report.results
    assert all(r.status == "match" for r in report.results), report.summary


MUX_KERNEL = """
declare i64 @__mux_get_global_id(i32)
define spir_kernel void @k(ptr addrspace(1) %out) {
entry:
  %gid = call i64 @__mux_get_global_id(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 7, ptr addrspace(1) %p, align 4
  ret void
}
"""


def test_vector_predication_keeps_the_mux_spelling() -> None:
    """Kills vector_predication:compare-flip:0 (the module's own work-item
    builtins never recognised). A kernel written against `__mux_*` builtins
    gets its entry mask from `__mux_get_local_id`/`__mux_get_local_size`,
    not from the OpenCL names, which such a module's runtime may not have."""
    from vectorizer import vectorize

    r = vectorize(MUX_KERNEL, "k", width=4, choices="VectorPredication")
    assert r.vectorized_name
    assert "@__mux_get_local_id(" in r.ir and "@__mux_get_local_size(" in r.ir
    assert "_Z12get_local_idj" not in r.ir and "_Z14get_local_sizej" not in r.ir


# A sub-group broadcast of a uniform vector (a load at a uniform address):
# the collective is taken element by element, each element extracted from
# the uniform vector before the call.
BROADCAST_UNIFORM_VECTOR = """
declare i64 @_Z13get_global_idj(i32)
declare <4 x float> @_Z19sub_group_broadcastDv4_fj(<4 x float>, i32)
define spir_kernel void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %u = load <4 x float>, ptr addrspace(1) %in, align 16
  %b = call <4 x float> @_Z19sub_group_broadcastDv4_fj(<4 x float> %u, i32 1)
  %pout = getelementptr <4 x float>, ptr addrspace(1) %out, i64 %gid
  store <4 x float> %b, ptr addrspace(1) %pout, align 16
  ret void
}
"""


def test_sub_group_broadcast_of_a_uniform_vector_matches() -> None:
    """Runs the path of subgroup_builtins:insertion-point:5 (argued
    equivalent in fuzz/pass_mutants_equivalent.py): each element of a
    uniform vector extracted for a per-element collective."""
    report = oracle.check(BROADCAST_UNIFORM_VECTOR, widths=[4, 8], timeout=20)
    assert report.results
    assert all(r.status == "match" for r in report.results), report.summary


def test_sub_group_min_max_signedness_follows_the_mangled_type() -> None:
    """Kills subgroups:compare-flip:13 (signed and unsigned swapped): a
    reduction over `uint`/`ulong` compares unsigned, over `int` signed."""
    from vectorizer.analysis.subgroups import parse_collective

    ops = {n: parse_collective(n).op for n in (  # type: ignore[union-attr]
        "_Z20sub_group_reduce_maxj", "_Z20sub_group_reduce_maxi", "_Z20sub_group_reduce_minm",
        "_Z20sub_group_reduce_minl", "_Z20sub_group_reduce_maxf")}
    assert ops == {"_Z20sub_group_reduce_maxj": "umax", "_Z20sub_group_reduce_maxi": "smax",
                   "_Z20sub_group_reduce_minm": "umin", "_Z20sub_group_reduce_minl": "smin",
                   "_Z20sub_group_reduce_maxf": "fmax"}


def test_a_three_argument_shuffle_is_not_the_khr_shuffle() -> None:
    """Kills subgroups:drop-statement:0 (an `S_` substitution not counted as
    a parameter): `sub_group_shuffle_up(float4, float4, uint)` (Intel's
    current/next form, mangled with `S_` for the repeated float4) is not
    the two-argument khr builtin, so it is not taken as one."""
    from vectorizer.analysis.subgroups import parse_collective

    assert parse_collective("_Z20sub_group_shuffle_upDv4_fS_j") is None
    two = parse_collective("_Z20sub_group_shuffle_upDv4_fj")
    assert two is not None and two.kind == "shuffle_up" and two.extra == (1,)


MUX_QUERY_WITHOUT_DIMENSION = """
declare i64 @__mux_get_local_id()
define spir_kernel void @k(ptr addrspace(1) %out) {
entry:
  %l = call i64 @__mux_get_local_id()
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %l
  store i32 1, ptr addrspace(1) %p, align 4
  ret void
}
"""


def test_a_work_item_query_without_its_dimension_is_refused() -> None:
    """Kills vectorizability:drop-statement:1 (the refusal forgotten): with
    no dimension operand there is nothing to compare with the vectorized
    dimension, so the kernel is left scalar, with the reason."""
    from vectorizer import vectorize

    r = vectorize(MUX_QUERY_WITHOUT_DIMENSION, "k", width=4)
    assert r.vectorized_name is None
    assert any("declared without its dimension operand" in m for m in r.remarks)


def _estimated_vector_cost(text: str, kernel: str) -> tuple[int | None, float]:
    from vectorizer.pipeline import KernelRequest, vectorize_module
    from vectorizer.target import TargetInfo

    _, [out] = vectorize_module(text, [KernelRequest(kernel, None)], TargetInfo("test", "", 256, fast_gather=True))
    return out.width, out.stats["estimated_vector_cost"]


def test_cost_model_counts_registers_and_idle_lanes() -> None:
    """Kills vectorization_cost:off-by-one:2 (a float's bits miscounted)
    and vectorization_cost:compare-flip:7 (no loop ever seen as one some
    lanes leave early). On 256-bit registers SAXPY goes to width 16, where
    each float packet fills exactly two registers: three instructions that
    stay scalar cost 1/16 each and five packet instructions 2/16 each,
    13/16 in all. SPMV's row loop is left early by some lanes: its
    instructions carry the idle factor (60.625 rather than 41.125)."""
    import importlib.util

    # tests/ is not a package: load the sibling test module by its path.
    spec = importlib.util.spec_from_file_location(
        "_vectorization_cost_kernels", Path(__file__).parent / "unit" / "test_vectorization_cost.py")
    assert spec and spec.loader
    kernels = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kernels)
    SAXPY, SPMV = kernels.SAXPY, kernels.SPMV

    assert _estimated_vector_cost(SAXPY, "saxpy") == (16, 13 / 16)
    assert _estimated_vector_cost(SPMV, "spmv") == (8, 60.625)


# A loop with no exit (entered only when %n is 12345): Simplify Infinite
# Loop gives it one, to the return block, under an always-true condition.
INFINITE_LOOP = """
declare i64 @_Z13get_global_idj(i32)
define spir_kernel void @k(ptr addrspace(1) %out, i32 %n) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  %c = icmp eq i32 %n, 12345
  br i1 %c, label %spin, label %done
spin:
  %i = phi i32 [ 0, %entry ], [ %i1, %spin ]
  %i1 = add i32 %i, 1
  br label %spin
done:
  store i32 7, ptr addrspace(1) %p, align 4
  ret void
}
"""


def test_an_infinite_loop_gets_an_exit_and_one_terminator() -> None:
    """Kills simplify_infinite_loop:drop-statement:0 (the old branch kept
    beside the new one). The latch ends in one conditional branch, back to
    the header when true and to the return block otherwise."""
    from vectorizer.ir import instructions as I
    from vectorizer.ir import parse_module
    from vectorizer.transform.simplify_infinite_loop import simplify_infinite_loops

    fn = next(f for f in parse_module(INFINITE_LOOP).functions if f.name == "k")
    assert simplify_infinite_loops(fn)
    spin = next(b for b in fn.blocks if b.name == "spin")
    branches = [i for i in spin.instructions if isinstance(i, I.BranchInst)]
    assert len(branches) == 1 and branches[0] is spin.terminator and branches[0].is_conditional
    assert [s.name for s in branches[0].successors] == ["spin", "done"]


TWO_PATHS_TO_ONE_ALLOCA = """
define spir_kernel void @k(i1 %c) {
entry:
  %a = alloca [4 x i32], align 4
  %p1 = getelementptr i32, ptr %a, i64 1
  %p2 = getelementptr i32, ptr %a, i64 2
  %p = select i1 %c, ptr %p1, ptr %p2
  store i32 0, ptr %p, align 4
  ret void
}
"""


def test_allocas_reached_lists_each_alloca_once() -> None:
    """Kills uniformity:drop-statement:5 (the walk's visited set never
    filled): a pointer reaching one alloca by two paths names it once (and
    a cycle of pointer phis would not end)."""
    from vectorizer.analysis.uniformity import allocas_reached
    from vectorizer.ir import instructions as I
    from vectorizer.ir import parse_module

    fn = next(f for f in parse_module(TWO_PATHS_TO_ONE_ALLOCA).functions if f.name == "k")
    store = next(i for i in fn.instructions() if isinstance(i, I.StoreInst))
    found = allocas_reached(store.pointer)
    assert len(found) == 1 and isinstance(found[0], I.AllocaInst)


# i32 index arithmetic near the top of the signed range: %a (no `nsw`) may
# pass 2^31 between lanes; %t is a 64-bit sum that may not fit 32 bits.
NEAR_THE_SIGNED_LIMIT = """
declare i64 @_Z13get_global_idj(i32)
define spir_kernel void @k(ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %g = trunc i64 %gid to i32
  %a = add i32 %g, 2147483645
  %w = add nsw i64 %gid, 2147483645
  %t = trunc i64 %w to i32
  %small = add i32 %g, 5
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %a, ptr addrspace(1) %p, align 4
  %q = getelementptr i32, ptr addrspace(1) %p, i64 1
  store i32 %t, ptr addrspace(1) %q, align 4
  %r = getelementptr i32, ptr addrspace(1) %p, i64 2
  store i32 %small, ptr addrspace(1) %r, align 4
  ret void
}
"""


def test_linear_values_that_may_wrap_are_not_exact() -> None:
    """Kills stride:off-by-one:16 (the no-wrap limit of a bounded value
    taken as 2^(bits-2), so an id plus 5 is no longer exact) and
    stride:compare-flip:45 (a truncation kept exact when the bound does not
    fit the narrow type's signed range). A work-item id plus 2147483645 is
    linear but may wrap in i32 (ids reach 2^30), so a `sext` of it must not
    be read as linear; plus 5 it cannot wrap."""
    from vectorizer import llvm_bridge
    from vectorizer.analysis.stride import StrideAnalysis
    from vectorizer.analysis.uniformity import UniformValueAnalysis
    from vectorizer.ir import parse_module

    fn = parse_module(llvm_bridge.canonicalize(NEAR_THE_SIGNED_LIMIT)).get_function("k")
    stride = StrideAnalysis(UniformValueAnalysis(fn, 0), DataLayout.parse(None))
    v = {i.name: i for i in fn.instructions() if i.name}
    assert {n: stride.info(v[n]).is_linear for n in ("a", "t", "small")} == {"a": True, "t": True, "small": True}
    assert {n: stride.info(v[n]).exact for n in ("a", "t", "small")} == {"a": False, "t": False, "small": True}


def test_control_flow_conversion_reports_what_it_did() -> None:
    """Kills control_flow_conversion:drop-statement:20 (the conversion's
    statistics dropped from the result). The loop under a varying `if` is
    linearized as a divergent loop and the result says so."""
    from vectorizer import vectorize

    stats = vectorize(LOOP_IN_VARYING_IF, "k", width=4).stats
    assert stats.get("divergent_loops") == 1 and stats.get("linearized", 0) >= 1


PRINTF_KERNEL = """
@fmt = private unnamed_addr addrspace(2) constant [4 x i8] c"%d\\0A\\00", align 1
declare i64 @_Z13get_global_idj(i32)
declare i32 @printf(ptr addrspace(2), ...)
define spir_kernel void @k(ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %g = trunc i64 %gid to i32
  %n = call i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) @fmt, i32 %g)
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %n, ptr addrspace(1) %p, align 4
  ret void
}
"""


def test_printf_calls_are_kept_as_library_calls() -> None:
    """Kills preserve_library_calls:compare-flip:0 (no call ever marked):
    `printf` is marked `nobuiltin` so that LLVM does not rewrite it into
    other library calls the runtime may not provide."""
    from vectorizer.ir import instructions as I
    from vectorizer.ir import parse_module
    from vectorizer.transform.preserve_library_calls import preserve_library_calls

    fn = parse_module(PRINTF_KERNEL).get_function("k")
    assert preserve_library_calls(fn) == 1
    call = next(i for i in fn.instructions() if isinstance(i, I.CallInst) and i.called_function.name == "printf")
    assert "nobuiltin" in call.attributes.split()


DEAD_ARITHMETIC = """
declare i64 @_Z13get_global_idj(i32)
define spir_kernel void @k(ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %d1 = add i64 %gid, 1
  %d2 = mul i64 %d1, 3
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 0, ptr addrspace(1) %p, align 4
  ret void
}
"""


def test_dead_code_is_erased_and_counted() -> None:
    """Kills dead_code:drop-statement:0 (instructions counted but left in
    place): the unused chain `%d2 = mul (%d1 = add %gid, 1), 3` goes, the
    store and what it uses stay."""
    from vectorizer.ir import parse_module
    from vectorizer.transform.dead_code import erase_dead_code

    fn = parse_module(DEAD_ARITHMETIC).get_function("k")
    assert erase_dead_code(fn) == 2
    assert [i.name for i in fn.instructions() if i.name] == ["gid", "p"]


# `@f` reaches itself only through `@g` (f -> g -> f); `@h` calls itself
# directly and also makes an indirect call (a callee the analysis cannot see).
RECURSIVE_CALLEES = """
declare i64 @_Z13get_global_idj(i32)
define internal i32 @f(i32 %x) {
entry:
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %rec, label %done
rec:
  %y = sub i32 %x, 1
  %r = call i32 @g(i32 %y)
  %s = add i32 %r, 2
  ret i32 %s
done:
  ret i32 0
}
define internal i32 @g(i32 %x) {
entry:
  %r = call i32 @f(i32 %x)
  ret i32 %r
}
define internal i32 @h(i32 %x, ptr %fp) {
entry:
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %rec, label %done
rec:
  %y = sub i32 %x, 1
  %r = call i32 @h(i32 %y, ptr %fp)
  %z = call i32 %fp(i32 %r)
  ret i32 %z
done:
  ret i32 0
}
define internal i32 @inc(i32 %x) {
entry:
  %y = add i32 %x, 1
  ret i32 %y
}
define spir_kernel void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pin = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %pin, align 4
  %xm = and i32 %x, 7
  %a = call i32 @f(i32 %xm)
  %b = call i32 @h(i32 %xm, ptr @inc)
  %r = add i32 %a, %b
  %pout = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %r, ptr addrspace(1) %pout, align 4
  ret void
}
"""


def test_recursive_callees_are_not_inlined() -> None:
    """Kills builtin_inlining:drop-statement:15 (the recursion check stops
    after the callee's own calls, so `f -> g -> f` looks non-recursive) and
    builtin_inlining:compare-flip:29 (the check skips every direct callee
    and trips on the indirect one). Inlining a recursive function never
    ends: it would be unrolled up to MAX_INLINED_CALLS (256) copies, a
    code-size blow-up for nothing, and the call must stay a call anyway.
    The non-recursive `@inc`, passed by pointer only, is never called
    directly, so nothing at all is inlined here."""
    from vectorizer.ir import parse_module
    from vectorizer.transform.builtin_inlining import inline_calls

    module = parse_module(RECURSIVE_CALLEES)
    fn = module.get_function("k")
    assert inline_calls(fn, module) == 0
    callees = [i.called_function.name for i in fn.instructions()
               if type(i).__name__ == "CallInst" and i.called_function is not None]
    assert callees == ["_Z13get_global_idj", "f", "h"]
    report = oracle.check(RECURSIVE_CALLEES, widths=[4], timeout=20)
    assert report.results
    assert all(r.status == "match" for r in report.results), report.summary
