"""The builtin library's interface: mangling as clang 22 emits it, which names it
defines (every builtin real kernels declare, except the later phases' families),
and definitions that LLVM accepts, alone and joined."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vectorizer.builtins import library as L
from vectorizer.builtins.library.names import demangle, mangle
from vectorizer.builtins.library.types import CLType
from vectorizer.llvm_bridge import initialize
from vectorizer.llvm_context import new_context, parse_in

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
REALWORLD = SHARED / "realworld-dev" / "ir" / "O1"
# Families the library leaves to later phases (or that are not library builtins).
LATER = re.compile(r"^(atom|atomic_|read_image|write_image|get_image|async_work_group|wait_group|prefetch|"
                   r"printf|barrier|mem_fence|read_mem_fence|write_mem_fence|get_|sub_group|work_group|clock_)")


def _verify(text: str) -> None:
    initialize()
    ctx = new_context()
    mod = parse_in(ctx, text)
    mod.verify()


@pytest.mark.parametrize("name", [
    "_Z2f1PU3AS1KDv4_fS1_S_", "_Z2f2PU3AS1KfPU3AS1fS0_f", "_Z2f3Dv4_fPU3AS1S_PU3AS1Dv4_iS4_S2_",
    "_Z2f5Dv4_jS_Dv4_iDv4_fDv4_dS2_dlmhcst", "_Z6remquoDv4_fS_PDv4_i", "_Z4modfDv8_DhPU3AS4S_",
    "_Z6remquoDv8_DhS_PU3AS4Dv8_i", "_Z6vload4mPU3AS1Kf", "_Z12get_work_dimv",
])
def test_demangle_mangle_round_trip(name: str) -> None:
    """Names clang 22 printed (substitutions of vectors, qualified pointees, pointers)."""
    base, params = demangle(name)
    assert mangle(base, params) == name


def test_old_spir_qualifier_order_is_read() -> None:
    """SPIR 1.2 producers wrote `PKU3AS1i` (const before the address space)."""
    base, params = demangle("_Z6vload4mPKU3AS1i")
    assert base == "vload4" and params[1] == CLType("int").ptr(1, const=True)


def test_definition_checks_types_and_names() -> None:
    text = L.definition("_Z3expDv4_f", "<4 x float>", ["<4 x float> noundef"])
    assert text is not None and "define <4 x float> @_Z3expDv4_f(<4 x float> %a0)" in text
    _verify(text)
    assert L.definition("_Z3expDv4_f", "<4 x double>", ["<4 x float>"]) is None  # wrong return type
    assert L.definition("_Z3expDv5_f") is None  # no such OpenCL type
    assert L.definition("_Z3expi") is None  # exp(int) is not an overload
    assert L.definition("_Z4fmaxfDv4_f") is None  # only fmax(floatn, float) mixes
    assert L.definition("_Z10not_a_thingf") is None
    assert L.definition("foo") is None


def test_pure_builtins_are_readnone_and_memory_ones_are_not() -> None:
    assert "memory(none)" in L.definition("_Z3sinf")
    store = L.definition("_Z7vstore4Dv4_fmPU3AS1f")
    assert "memory(none)" not in store and "store <4 x float>" in store


def test_definitions_join_with_one_declaration_each() -> None:
    names = ["_Z3expf", "_Z3expDv8_f", "_Z3logd", "_Z3logDv2_d", "_Z6sincosfPf"]
    text, defined = L.definitions([(n, None, None) for n in names] + [("_Z3expf", None, None)],
                                  exclude=["llvm.fma.f64"])
    assert defined == names
    assert "declare double @llvm.fma.f64" not in text
    assert text.count("declare double @log(double)") == 1
    _verify(text + "declare double @llvm.fma.f64(double, double, double)\n")


def _fn_type_parts(fty: str) -> tuple[str, list[str]]:
    ret, _, rest = fty.partition(" (")
    rest = rest.rsplit(")", 1)[0]
    params, depth, cur = [], 0, ""
    for ch in rest:
        if ch == "," and depth == 0:
            params.append(cur.strip())
            cur = ""
            continue
        depth += ch in "<([{"
        depth -= ch in ">)]}"
        cur += ch
    if cur.strip():
        params.append(cur.strip())
    return ret, params


@pytest.mark.skipif(not REALWORLD.is_dir(), reason="needs ../shared/realworld-dev beside the checkout")
def test_every_builtin_real_kernels_declare_is_defined() -> None:
    """Every mangled builtin the real-world corpus declares (1,900+ overloads) is defined
    with the LLVM types clang gave it, except the families of later phases; all the
    definitions together form one valid module."""
    initialize()
    wanted: dict[str, tuple[str, list[str]]] = {}
    for path in sorted(REALWORLD.rglob("*.ll")):
        ctx = new_context()
        mod = parse_in(ctx, path.read_text())
        for fn in mod.functions:
            if fn.is_declaration and fn.name.startswith("_Z"):
                wanted.setdefault(fn.name, _fn_type_parts(str(fn.global_value_type)))
    missing = []
    for name, (ret, params) in wanted.items():
        m = re.match(r"_Z(\d+)", name)
        if LATER.match(name[m.end():m.end() + int(m.group(1))]):
            continue
        if L.definition(name, ret, params) is None:
            missing.append(name)
    assert not missing, f"{len(missing)} builtins without a definition: {missing[:20]}"
    text, defined = L.definitions([(n, r, p) for n, (r, p) in wanted.items()])
    assert len(defined) > 1800
    _verify(text)


def test_clang_names_match_ours(tmp_path: Path) -> None:
    """clang's own mangling of pointer-taking builtins in every address space (OpenCL 1.2
    and 2.0 generic pointers) is what `mangle` produces, and each is defined."""
    pytest.importorskip("ziglang", reason="needs ziglang's clang (the dev extra)")
    import subprocess
    import sys

    prelude = SHARED / "realworld-dev" / "prelude.h"
    if not prelude.is_file():
        pytest.skip("needs ../shared/realworld-dev/prelude.h")
    calls = []
    for t in ("float", "double", "half"):
        for n in ("", "3", "16"):
            ty = t + n
            it = "int" + n
            calls += [f"{{ {ty} a = ({ty})1; {ty} r; {it} i; {ty} y = sincos(a, &r) + fract(a, &r) + modf(a, &r)"
                      f" + frexp(a, &i) + remquo(a, a, &i) + lgamma_r(a, &i); o[0] = (float)y{'.s0' if n else ''}; }}"]
    for space in ("global", "local"):
        for t in ("float", "char", "double", "half"):
            calls.append(f"{{ {space} {t} *p = ({space} {t} *)q_{space}; vstore4(vload4(1, p), 2, p);"
                         f" vstore3(vload3(0, p), 0, p); vstore16(vload16(0, p), 0, p); }}")
        calls.append(f"{{ {space} half *h = ({space} half *)q_{space}; vstore_half4_rtz(vload_half4(0, h), 1, h);"
                     f" vstorea_half3_rtn(vloada_half3(0, h), 0, h); vstore_half_rte((double)o[1], 0, h); }}")
    src = ("kernel void k(global float *o, global float *q_global, local float *q_local) {\n"
           + "\n".join(calls) + "\n}\n")
    declared: set[str] = set()
    for std in ("CL1.2", "CL2.0"):
        cl = tmp_path / "t.cl"
        cl.write_text(src)
        out = subprocess.run([sys.executable, "-m", "ziglang", "clang", "-cc1", "-triple", "spir64-unknown-unknown",
                              "-fdeclare-opencl-builtins", "-include", str(prelude), f"-cl-std={std}",
                              "-emit-llvm", "-O0", str(cl), "-o", "-"], capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr[-2000:]
        declared |= set(re.findall(r"^declare [^@]*@(_Z\w+)\(", out.stdout, re.M))
    assert len(declared) > 80
    for name in sorted(declared):
        base, params = demangle(name)
        assert mangle(base, params) == name
        assert L.definition(name) is not None, name
