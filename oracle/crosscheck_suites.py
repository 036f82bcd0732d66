"""The OpenCL C kernels `oracle.crosscheck` runs in both references: for each,
the LLVM 22 IR our oracle runs and the OpenCL C source Oclgrind compiles
with its own clang.

Suites:
- `bench`: `bench/kernels/**/*.cl` with `bench/prelude/opencl.h`;
- `csmith`: kernels the Csmith bridge makes (`fuzz.csmith`), by seed;
- the suites of `../shared/realworld-dev` (`rodinia`, `shoc`, `parboil`,
  `hetero-mark`, `pocl`; PoCL's tests of builtins as `pocl-tests`), from
  `catalogue.json`: each kernel's source, `-D` flags and features.

A prelude our clang force-includes is part of the program: Oclgrind gets it
too, so both run the same code. Its function definitions (bench's exp, log,
pow, ...) would clash with the declarations of Oclgrind's `opencl-c.h`, so
each one is renamed by a macro (`#define exp __vecz_prelude_exp`) and the
kernel calls the prelude's definition in both references; atomics are the
exception, since Oclgrind's race detector must see its own atomic builtins
(and its clang 14 cannot lower the prelude's `__atomic_*` on SPIR): their
prelude definitions are renamed away and the kernel calls Oclgrind's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
REALWORLD = REPO_ROOT.parent / "shared" / "realworld-dev"
REALWORLD_SUITES = ("rodinia", "shoc", "parboil", "hetero-mark", "pocl", "pocl-tests")
SUITES = ("bench", "csmith", *REALWORLD_SUITES)
# PoCL's tests of builtins have no buffers (they print) and take Oclgrind
# a minute or more each: run them only when asked for.
DEFAULT_SUITES = tuple(s for s in SUITES if s != "pocl-tests")


@dataclass
class Prepared:
    """What both references need for one kernel."""

    ir: str  # LLVM 22 IR, or a case file (header + IR), for our oracle
    source: str  # OpenCL C for Oclgrind, prelude adaptations included
    source_name: str  # file name for Oclgrind's diagnostics
    build_options: list[str] = field(default_factory=list)


@dataclass
class CrossKernel:
    """One kernel of a suite; `prepare()` compiles or reads what it needs."""

    suite: str
    name: str  # how the table names it
    kernel: str
    prepare: Callable[[], Prepared]
    features: frozenset[str] = frozenset()  # from the catalogue: barriers, images, atomics, local-memory


def ir_features(ir: str) -> frozenset[str]:
    """Features of a module that decide which reference can run it."""
    found = set()
    if re.search(r"@_Z\d*(?:work_group_)?barrier|@__mux_work_group_barrier|@_Z\d+mem_fence", ir):
        found.add("barriers")
    if re.search(r"\batomicrmw\b|\bcmpxchg\b|@_Z\d+atom(?:ic)?_", ir):
        found.add("atomics")
    if "addrspace(3)" in ir:
        found.add("local-memory")
    if re.search(r"spirv\.Image|opencl\.image|_Z\d+(?:read|write)_image", ir):
        found.add("images")
    return frozenset(found)


# ---------------------------------------------------------------- preludes

_DEFINITION = re.compile(r"^[^\n#;{}()]*?\b([A-Za-z_]\w*)\s*\([^;{}()]*\)\s*\{", re.M)
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def adapt_prelude(prelude: str) -> str:
    """The prelude as Oclgrind's source must include it (see the module
    docstring): every function it defines renamed by a macro, atomics then
    un-renamed so the kernel reaches Oclgrind's builtins."""
    code = _COMMENT.sub(" ", prelude)
    names = sorted({m.group(1) for m in _DEFINITION.finditer(code) if not m.group(1).startswith("__")})
    head = [f"#define {n} __vecz_prelude_{n}" for n in names]
    tail = [f"#undef {n}" for n in names if n.startswith(("atomic_", "atom_"))]
    return "\n".join(head) + "\n" + prelude + "\n" + "\n".join(tail) + "\n"


# clang builtins that become LLVM intrinsics Oclgrind 21.10's interpreter
# does not implement ("Undefined external function: llvm.sqrt.f32"; its
# uninitialized-value checker lacks llvm.fabs too), and the
# OpenCL builtin of the same, exactly specified meaning (correctly rounded or
# exact operations: no tolerance is involved) that Oclgrind runs instead.
EXACT_CLANG_BUILTINS: dict[str, tuple[str, int]] = {
    "sqrt": ("sqrt", 1), "fabs": ("fabs", 1), "floor": ("floor", 1), "ceil": ("ceil", 1), "trunc": ("trunc", 1),
    "rint": ("rint", 1), "round": ("round", 1), "fmin": ("fmin", 2), "fmax": ("fmax", 2),
    "fma": ("fma", 3), "copysign": ("copysign", 2),
}


def builtin_shims(text: str) -> str:
    """Definitions routing the `__builtin_<f>f`/`__builtin_<f>` calls in
    `text` to Oclgrind's OpenCL builtin `<f>` (see EXACT_CLANG_BUILTINS).
    Placed before anything that could rename `<f>`."""
    used = set(re.findall(r"\b__builtin_([a-z]+?)f?\b", text))
    out: list[str] = []
    for name in sorted(used & EXACT_CLANG_BUILTINS.keys()):
        fn, arity = EXACT_CLANG_BUILTINS[name]
        params = ", ".join(f"T a{i}" for i in range(arity))
        call = ", ".join(f"a{i}" for i in range(arity))
        for t in ("float", "double"):
            out.append(f"static inline __attribute__((overloadable, always_inline)) {t} __vecz_ocl_{name}("
                       + params.replace("T ", f"{t} ") + f") {{ return {fn}({call}); }}")
        out.append(f"#define __builtin_{name}f __vecz_ocl_{name}")
        out.append(f"#define __builtin_{name} __vecz_ocl_{name}")
    if not out:
        return ""
    return "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" + "\n".join(out) + "\n"


def with_prelude(prelude: str | None, source: str, name: str) -> str:
    """Oclgrind's source: shims for clang builtins, the adapted prelude, then
    the kernel at its own line numbers."""
    pre = adapt_prelude(prelude) if prelude else ""
    source = source.removeprefix("\ufeff")  # a byte-order mark may only start a file
    return builtin_shims(pre + source) + pre + f'#line 1 "{name}"\n' + source


# ---------------------------------------------------------------- suites


def bench_kernels() -> Iterator[CrossKernel]:
    """`bench/kernels/**/*.cl`: the checked-in IR and the source with the prelude."""
    from bench import KERNEL_DIR, PRELUDE
    from vectorizer.frontend.opencl import kernel_names

    for cl in sorted(KERNEL_DIR.rglob("*.cl")):
        ll = cl.with_suffix(".ll")
        if not ll.is_file():
            continue
        ir = ll.read_text()

        def prepare(cl: Path = cl, ir: str = ir) -> Prepared:
            return Prepared(ir, with_prelude(PRELUDE.read_text(), cl.read_text(), cl.name), cl.name)

        stem = cl.relative_to(KERNEL_DIR).with_suffix("").as_posix()  # workgroup/reduce
        for k in kernel_names(ir):
            yield CrossKernel("bench", stem if k == cl.stem else f"{stem}:{k}", k, prepare,
                              ir_features(ir))


def csmith_kernels(seeds: range) -> Iterator[CrossKernel]:
    """Kernels of the Csmith bridge for `seeds` (generated by `prepare`)."""
    from fuzz.csmith.compile import PRELUDE
    from fuzz.csmith.transform import KERNEL_NAME

    for seed in seeds:
        def prepare(seed: int = seed) -> Prepared:
            from fuzz.csmith import generate_csmith_kernel

            k = generate_csmith_kernel(seed)
            name = f"csmith_{k.csmith_seed}.cl"
            return Prepared(k.case_text, with_prelude(PRELUDE.read_text(), k.opencl_source, name), name)

        yield CrossKernel("csmith", f"seed {seed}", KERNEL_NAME, prepare)


def _host_defines(prelude: str) -> str:
    """Parts 2 and 3 of realworld-dev's prelude: the defines the suites' host
    programs pass (BLOCK_SIZE ...) and the vendor-compatibility macros a few
    files need. Part 1 stands in for `opencl-c.h`, which Oclgrind has."""
    at = prelude.find("part 2 */")
    if at < 0:
        return ""
    body = prelude[prelude.find("\n", at) + 1:]
    # Drop the include guard's #endif, the last line of the file.
    return re.sub(r"#endif\s*/\*\s*REALCL_PRELUDE_H\s*\*/\s*$", "", body.rstrip()) + "\n"


def realworld_suite(entry: dict) -> str:
    """The table's suite of a catalogue entry."""
    if entry.get("category") == "unit-test-builtins":
        return "pocl-tests"
    return str(entry["suite"])


def realworld_kernels(root: Path = REALWORLD, suites: tuple[str, ...] = REALWORLD_SUITES) -> Iterator[CrossKernel]:
    """Every distinct compiled kernel of the catalogue (duplicates skipped)."""
    cat_path = root / "catalogue.json"
    if not cat_path.is_file():
        return
    catalogue = json.loads(cat_path.read_text())
    prelude_path = root / "prelude.h"
    for e in catalogue:
        suite = realworld_suite(e)
        if suite not in suites or e.get("duplicate_of") or not e.get("compiled") or not e.get("ir_O1"):
            continue
        src = root / e["source"]
        feats = {f for f, key in (("barriers", "barriers"), ("images", "images"), ("atomics", "atomics"),
                                  ("local-memory", "local_mem")) if e.get(key)}

        def prepare(e: dict = e, src: Path = src) -> Prepared:
            ir = (root / e["ir_O1"]).read_text()
            # A byte-order mark is only allowed at the very start of a file.
            body = src.read_text(errors="replace").removeprefix("\ufeff")
            text = builtin_shims(body) + _host_defines(prelude_path.read_text()) + f'#line 1 "{src.name}"\n' + body
            opts = [f for f in e.get("clang_flags") or [] if f.startswith(("-D", "-U", "-cl-"))]
            # Oclgrind compiles the text, not the file: its directory, and the
            # one above (Rodinia's `kernel/*.cl` include "./main.h" from the
            # benchmark's directory, where its host program builds them).
            return Prepared(ir, text, src.name, [*opts, f"-I{src.parent}", f"-I{src.parent.parent}"])

        rel = e["source"].removeprefix("src/")
        yield CrossKernel(suite, f"{rel}:{e['kernel']}", e["kernel"], prepare, frozenset(feats))


def kernels(suites: tuple[str, ...], csmith_seeds: range) -> Iterator[CrossKernel]:
    """The kernels of `suites`, in table order."""
    if "bench" in suites:
        yield from bench_kernels()
    if "csmith" in suites:
        yield from csmith_kernels(csmith_seeds)
    rw = tuple(s for s in suites if s in REALWORLD_SUITES)
    if rw:
        yield from realworld_kernels(suites=rw)
