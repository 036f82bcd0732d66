"""The cross-check of our scalar reference with Oclgrind (oracle.crosscheck):
the simulation file and output parsing, the verdict mapping, the float
tolerance, and a small sample of real kernels run in both references.

`ensure_oclgrind()` installs Debian's oclgrind when it is missing and the
tests run as root with apt (CI does); without it those tests skip.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from oracle.case import ArgSpec, NDRange, parse_case
from oracle.crosscheck import (
    compare_buffers,
    crosscheck_kernel,
    main,
    oclgrind_verdict,
    our_verdict,
    pick_ndranges,
    table,
    ulp_bound,
    ulp_distance,
)
from oracle.crosscheck_suites import (
    REALWORLD,
    CrossKernel,
    Prepared,
    adapt_prelude,
    bench_kernels,
    builtin_shims,
    realworld_kernels,
    with_prelude,
)
from oracle.oclgrind import (
    Diagnostic,
    OclgrindError,
    OclgrindRun,
    ensure_oclgrind,
    parse_diagnostics,
    parse_dumps,
    simulation_file,
)


@pytest.fixture(scope="module")
def oclgrind():
    try:
        return ensure_oclgrind()
    except OclgrindError as exc:  # no oclgrind and no way to install it here
        pytest.skip(f"oclgrind is missing and cannot be installed here (needs root and apt): {exc}")


def test_ensure_oclgrind_explains_what_to_run(monkeypatch):
    from oracle import oclgrind as O

    monkeypatch.setattr(O.shutil, "which", lambda name: None)
    monkeypatch.setattr(O, "_can_install", lambda: False)
    O.ensure_oclgrind.cache_clear()
    try:
        with pytest.raises(OclgrindError, match=r"install-system-packages.sh oclgrind"):
            O.ensure_oclgrind()
    finally:
        O.ensure_oclgrind.cache_clear()


def test_install_script_rejects_an_unknown_group():
    import subprocess

    from oracle.oclgrind import INSTALL_SCRIPT

    proc = subprocess.run(["bash", str(INSTALL_SCRIPT), "nosuch"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "unknown group 'nosuch'" in proc.stderr


# ---------------------------------------------------------------- files and output


def test_simulation_file_writes_exact_hex_words():
    args = [ArgSpec("buf", "f32", 3), ArgSpec("scalar", "f32", value="1.5"), ArgSpec("local", "i32", 8),
            ArgSpec("buf", "i64", 2)]
    data = [np.array([1.0, -0.0, np.nan], "<f4").tobytes(), np.array([1.5], "<f4").tobytes(), None,
            np.array([2**64 - 1, 7], "<u8").tobytes()]
    nd = NDRange((6, 1, 1), (3, 1, 1), (0, 0, 0), 3)
    text = simulation_file("k.cl", "k", nd, args, data)
    lines = text.splitlines()
    assert lines[:4] == ["k.cl", "k", "6 1 1", "3 1 1"]
    # 12 bytes: 4-byte words; raw bits, so -0 and NaN survive.
    assert lines[4] == "<size=12 uint hex dump>"
    assert lines[5] == "3f800000 80000000 7fc00000"
    assert lines[6:8] == ["<size=4 uint hex>", "3fc00000"]
    assert lines[8] == "<size=32 uchar>"
    assert lines[9:] == ["<size=16 ulong hex dump>", "ffffffffffffffff 7"]
    with pytest.raises(ValueError, match="offset"):
        simulation_file("k.cl", "k", NDRange((6, 1, 1), (3, 1, 1), (1, 0, 0), 3), args, data)


def test_dumps_are_read_back_after_printf_output():
    out = ("Argument 'o': 4 bytes\n  o[0] = 0x1\n\n"  # printed by the kernel, not a dump
           "\nArgument 'y': 12 bytes\n  y[0] = 0x3f800000\n  y[1] = 0x80000000\n  y[2] = 0x7fc00000\n\n"
           "\nArgument 'c': 16 bytes\n  c[0] = 0xffffffffffffffff\n  c[1] = 0x0000000000000007\n\n")
    y, c = parse_dumps(out, [12, 16])
    assert np.frombuffer(y, "<u4").tolist() == [0x3F800000, 0x80000000, 0x7FC00000]
    assert np.frombuffer(c, "<u8").tolist() == [2**64 - 1, 7]
    with pytest.raises(ValueError):
        parse_dumps(out, [12, 12])


STDERR = """\
Invalid write of size 4 at global memory address 0x1fffffffffffc
\tKernel: t
\tEntity: Global(2,0,0) Local(2,0,0) Group(0,0,0)
\t  store i32 5, i32 addrspace(1)* %arrayidx19, align 4
\tAt line 6 (column 21) of t.cl:
\t  if (i == 2) c[-1] = 5;

Write-write data race at global memory address 0x2000000000000
\tKernel: t
\t
\tFirst entity:  Global(2,0,0) Local(2,0,0) Group(0,0,0)
\t  store i32 %add9, i32 addrspace(1)* %c, align 4
\tAt line 4 (column 24) of t.cl:
\t  c[0] += 3;

Uninitialized value written to global memory address 0x1000000000000
\tKernel: t
\tEntity: Global(0,0,0) Local(0,0,0) Group(0,0,0)
"""


def test_diagnostics_name_kind_buffer_and_work_item():
    ds = parse_diagnostics(STDERR, buffer_args=[0, 2])
    assert [d.kind for d in ds] == ["out-of-bounds", "data-race", "uninitialized"]
    # c[-1] lies just below the second buffer (argument 2).
    assert ds[0].buffer == 2 and ds[0].entity.startswith("Global(2,0,0)")
    assert ds[0].where.startswith("At line 6")
    assert ds[1].buffer == 2 and ds[2].buffer == 0
    # Compiler warnings are not diagnostics of the run.
    assert parse_diagnostics("input.cl:3:1: warning: unused variable 'x'\n") == []


# ---------------------------------------------------------------- verdicts


@pytest.mark.parametrize("status, detail, kind", [
    ("match", "scalar run 0.1 ms", "clean"),
    ("scalar-fault", "scalar run crash: worker killed by SIGSEGV (in run (jit.py:78))", "out-of-bounds"),
    ("scalar-fault", "scalar run: overrun: wrote past the end of buffer(s) 0", "out-of-bounds"),
    ("scalar-fault", "the result depends on the work-items' order (a data race) or on private addresses: x", "race"),
    ("scalar-fault", "scalar run crash: worker killed by SIGFPE", "fault"),
    ("scalar-fault", "scalar run timeout: no answer within 10s", "timeout"),
    ("unsupported-input", "unsupported builtin _Z7barrierj", "unsupported"),
    # What the sanitized reference (branch `sanitizer`) reports.
    ("scalar-race", "work-items 0 and 2 write buffer 1 offset 0", "race"),
    ("scalar-fault", "out-of-bounds: buffer 0 offset -4, work-item 3", "out-of-bounds"),
])
def test_our_statuses_map_to_common_verdicts(status, detail, kind):
    assert our_verdict(status, detail).kind == kind


def test_oclgrind_runs_map_to_common_verdicts():
    oob = Diagnostic("out-of-bounds", "Invalid read of size 4")
    race = Diagnostic("data-race", "Read-write data race")
    uninit = Diagnostic("uninitialized", "Uninitialized value")
    assert oclgrind_verdict(OclgrindRun("ok")).kind == "clean"
    assert oclgrind_verdict(OclgrindRun("ok", diagnostics=[uninit])).kind == "clean"
    assert oclgrind_verdict(OclgrindRun("ok", diagnostics=[race, oob])).kind == "out-of-bounds"
    assert oclgrind_verdict(OclgrindRun("ok", diagnostics=[race])).kind == "race"
    assert oclgrind_verdict(OclgrindRun("build-error", detail="x")).kind == "unsupported"
    assert oclgrind_verdict(OclgrindRun("error", detail="Undefined external function: llvm.fshl.i32")).kind \
        == "unsupported"
    assert oclgrind_verdict(OclgrindRun("timeout")).kind == "timeout"
    # A struct by value, which our layout gives as a buffer: the simulation
    # file cannot pass it (Rodinia heartwall), not a verdict on the kernel.
    assert oclgrind_verdict(OclgrindRun("error", detail="exit 1: Line 5: 'dump' only valid for memory objects "
                                        "(argument 0: d_common)")).kind == "unsupported"


# ---------------------------------------------------------------- comparison


def test_ulp_distance_orders_floats_across_zero():
    a = np.array([1.0, -0.0, np.nan, 1.0, -1e-45], "<f4")
    b = np.array([np.nextafter(np.float32(1), np.float32(2)), 0.0, np.nan, np.nan, 1e-45], "<f4")
    assert ulp_distance(a, b).tolist() == [1.0, 0.0, 0.0, float("inf"), 2.0]
    d = np.array([1.0], "<f8")
    assert ulp_distance(d, np.nextafter(d, 0)).tolist() == [1.0]


def test_integers_exact_floats_within_the_tolerance_only():
    args = [ArgSpec("buf", "i32", 2), ArgSpec("buf", "f32", 2)]
    f = np.array([1.0, 2.0], "<f4")
    g = f.view("<u4") + np.array([0, 3], "<u4")
    ints = np.array([5, 6], "<u4").tobytes()
    same = compare_buffers(args, [ints, f.tobytes()], [ints, f.tobytes()], 0)
    assert same.equal and same.within
    near = compare_buffers(args, [ints, f.tobytes()], [ints, g.tobytes()], 8)
    assert not near.equal and near.within and near.max_ulps == 3
    assert not compare_buffers(args, [ints, f.tobytes()], [ints, g.tobytes()], 0).within
    off = np.array([5, 7], "<u4").tobytes()
    assert not compare_buffers(args, [ints, f.tobytes()], [off, f.tobytes()], 1e9).within
    # -0 and +0 are different results when no tolerance applies.
    z = np.array([0.0, 0.0], "<f4").tobytes()
    mz = np.array([0.0, -0.0], "<f4").tobytes()
    assert not compare_buffers(args, [ints, z], [ints, mz], 0).equal


def test_tolerance_comes_only_from_ulp_bounded_builtins():
    assert ulp_bound("  %1 = call float @llvm.fmuladd.f32(float %a, float %b, float %c)\n"
                     "  %2 = call float @_Z4sqrtf(float %1)\n  %3 = call float @_Z4fabsf(float %2)") == (0, [])
    tol, names = ulp_bound("  %1 = call spir_func float @_Z3sinf(float %x)\n"
                           "  %2 = call <4 x float> @_Z3powDv4_fS_(<4 x float> %a, <4 x float> %b)\n")
    assert (tol, names) == (32, ["pow", "sin"])  # twice pow's 16
    assert ulp_bound("call float @_Z8half_expf(float %x)")[0] == 2 * 8192
    assert ulp_bound("call float @_Z10native_sinf(float %x)")[0] == 8


def test_ndranges_drop_the_offset_and_keep_needed_dimensions():
    case = parse_case("; vecz-case: 1\n; kernel: k\n; args: buf:i32:64\n"
                      "; ndrange: global=64 local=16\n; ndrange: global=36 local=12 offset=5\n"
                      "; ndrange: global=16,4,2 local=8,4,2\n"
                      "define void @k(ptr %p) {\n  %i = call i64 @_Z13get_global_idj(i32 noundef 0)\n"
                      "  ret void\n}\ndeclare i64 @_Z13get_global_idj(i32 noundef)\n")
    # Dimension 0 only (the declaration's `noundef` names no dimension).
    assert pick_ndranges(case) == [NDRange((64, 1, 1), (16, 1, 1), (0, 0, 0), 3)]
    case.ir = case.ir.replace("(i32 noundef 0)\n", "(i32 noundef 0)\n  %j = call i64 @_Z12get_local_idj(i32 1)\n")
    assert pick_ndranges(case) == [NDRange((64, 1, 1), (16, 1, 1), (0, 0, 0), 3),
                                   NDRange((16, 4, 2), (8, 4, 2), (0, 0, 0), 3)]


def test_prelude_definitions_are_renamed_and_atomics_left_to_oclgrind():
    prelude = ("/* sqrt(x) { not code } */\n#define __M static inline\n"
               "__M float exp(float x) { return x; }\n"
               "__M float __helper(float x) { return __builtin_sqrtf(x); }\n"
               "__M int atomic_inc(volatile __global int *p) { return __atomic_fetch_add(p, 1, 0); }\n"
               "int get_thing(void);\n")
    text = adapt_prelude(prelude)
    assert "#define exp __vecz_prelude_exp" in text
    assert "#define atomic_inc __vecz_prelude_atomic_inc" in text and text.rstrip().endswith("#undef atomic_inc")
    assert "sqrt __vecz" not in text and "__helper __vecz" not in text and "get_thing __vecz" not in text
    full = with_prelude(prelude, "kernel void k() {}\n", "k.cl")
    # The shim for __builtin_sqrtf calls Oclgrind's sqrt, defined before any renaming.
    assert full.index("return sqrt(a0);") < full.index("#define exp")
    assert full.endswith('#line 1 "k.cl"\nkernel void k() {}\n')
    assert builtin_shims("no builtins here") == ""


def test_table_counts_every_category():
    from oracle.crosscheck import KernelResult

    rs = [KernelResult("bench", "a", "agree", "identical outputs"),
          KernelResult("bench", "b", "disagree", "outputs differ", "argument 0 [1]"),
          KernelResult("rodinia", "c", "only-oclgrind", "ours: unsupported (barriers)")]
    text = table(rs)
    assert re.search(r"^bench\s+1\s+1\s+0\s+0\s+0\s+2$", text, re.M)
    assert re.search(r"^all\s+1\s+1\s+0\s+1\s+0\s+3$", text, re.M)
    assert "disagree: b: outputs differ: argument 0 [1]" in text


def test_saved_results_print_the_same_table(tmp_path, capsys):
    from oracle.crosscheck import KernelResult, RunResult, Verdict, load_results

    run = RunResult("global=64,1,1 local=16,1,1", Verdict("clean"), Verdict("race", "Write-write data race"),
                    "disagree", "ours: clean, oclgrind: race", "x", 0.0, ["note"])
    rs = [KernelResult("shoc", "a", "disagree", "ours: clean, oclgrind: race", "x", [run], 1.5),
          KernelResult("bench", "b", "agree", "identical outputs")]
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r.to_json()) + "\n" for r in rs))
    assert load_results([str(path)]) == rs
    assert main(["--table", str(path)]) == 1  # a disagreement
    out = capsys.readouterr().out
    assert out.index("bench ") < out.index("shoc ")  # suites in their usual order
    (tmp_path / "bad.jsonl").write_text("{}\n")
    assert main(["--table", str(tmp_path / "bad.jsonl")]) == 2


def test_run_scalar_runs_the_kernel_asked_for_in_a_module_of_several():
    """The oracle's program cache once keyed `run_scalar` on the module text
    alone, so the second kernel of a file ran the first one's code (the
    cross-check found it on Rodinia's bfs, cfd, kmeans and mergesort)."""
    import oracle

    ir = ("define void @one(ptr %p) {\n  store i32 1, ptr %p\n  ret void\n}\n"
          "define void @two(ptr %p) {\n  store i32 2, ptr %p\n  ret void\n}\n")
    layout = ["buf:i32:4:zero"]
    assert oracle.run_scalar(ir, "global=1", kernel="one", layout=layout)[0][0] == 1
    assert oracle.run_scalar(ir, "global=1", kernel="two", layout=layout)[0][0] == 2


def test_command_rejects_bad_usage(capsys):
    assert main(["--suite", "nosuch"]) == 2
    assert "unknown suite 'nosuch'" in capsys.readouterr().err
    assert main(["--jobs", "0"]) == 2


# ---------------------------------------------------------------- both references

def _crafted(name: str, source: str) -> CrossKernel:
    """A kernel written here, compiled by our front end and given to Oclgrind as is."""
    pytest.importorskip("ziglang", reason="our IR comes from ziglang's clang (the 'dev' extra)")
    from vectorizer.frontend.opencl import compile_opencl

    ir = compile_opencl(source, prelude=True)
    from bench import PRELUDE

    return CrossKernel("crafted", name, name,
                       lambda: Prepared(ir, with_prelude(PRELUDE.read_text(), source, f"{name}.cl"), f"{name}.cl"))


def test_bench_sample_agrees_bit_for_bit(oclgrind):
    # Atomics (histogram), a divergent loop (mandelbrot), the prelude's exp,
    # log and sqrt (black_scholes), gathers through an index buffer (spmv).
    want = {"saxpy", "histogram", "mandelbrot", "black_scholes", "spmv_csr"}
    ks = [k for k in bench_kernels() if k.name in want]
    assert {k.name for k in ks} == want
    for k in ks:
        r = crosscheck_kernel(k, max_ndranges=1)
        assert (r.category, r.reason) == ("agree", "identical outputs"), (k.name, r.reason, r.detail)


def test_races_and_out_of_bounds_writes_are_reported_by_both(oclgrind):
    race = _crafted("last_writer", "__kernel void last_writer(__global int *c) {\n"
                                   "  c[0] = (int)get_global_id(0);\n}\n")
    r = crosscheck_kernel(race, max_ndranges=1)
    assert (r.category, r.reason) == ("agree", "both: race"), r.detail
    oob = _crafted("one_past", "__kernel void one_past(__global int *c) {\n"
                               "  c[get_global_id(0) + 16384] = 1;\n}\n")
    r = crosscheck_kernel(oob, max_ndranges=1)
    assert (r.category, r.reason) == ("agree", "both: out-of-bounds"), r.detail
    assert "Invalid write" in r.runs[0].oclgrind.detail


def _realworld(name: str) -> CrossKernel:
    if not (REALWORLD / "catalogue.json").is_file():
        pytest.skip(f"{REALWORLD} is not beside the checkout")
    ks = [k for k in realworld_kernels() if k.name == name]
    assert len(ks) == 1, name
    return ks[0]


@pytest.mark.parametrize("name, reason", [
    # The second kernel of a file (the run_scalar cache defect), with a
    # data-dependent branch; float arithmetic with sqrt and division.
    ("rodinia/opencl/bfs/Kernels.cl:BFS_2", "identical outputs"),
    ("rodinia/opencl/cfd/Kernels.cl:compute_step_factor", "identical outputs"),
    # Barriers and a __local array declared in the kernel: both references
    # run the tree reduction and agree (ours on fibers, docs/workgroups.md).
    ("shoc/src/opencl/level1/reduction/reduction.cl:reduce", "identical outputs"),
    # Launched 1-D it raced (every work-group reads and writes the same
    # elements); launch inference now gives it its own 2-D shape, 16 along x
    # from `ty * 16 + tx` (docs/oracle.md, "Launch inference"), and both
    # references run it to identical outputs.
    ("rodinia/opencl/backprop/backprop_kernel.cl:bpnn_layerforward_ocl", "identical outputs"),
])
def test_realworld_sample(oclgrind, name, reason):
    r = crosscheck_kernel(_realworld(name), max_ndranges=1)
    assert r.reason == reason, r.detail
    assert r.category == ("agree" if reason in ("identical outputs", "both: race") else "only-oclgrind")


def test_source_paths_exist_for_every_realworld_kernel():
    if not (REALWORLD / "catalogue.json").is_file():
        pytest.skip(f"{REALWORLD} is not beside the checkout")
    ks = list(realworld_kernels())
    assert len(ks) > 200
    for k in ks[:: max(1, len(ks) // 20)]:
        p = k.prepare()
        assert p.ir.lstrip() and Path(p.build_options[-2][2:]).is_dir()
        assert f'#line 1 "{p.source_name}"' in p.source
