"""Compile OpenCL C to LLVM IR with the clang shipped by the `ziglang` package.

This is an optional extra (`pip install -e ".[opencl]"`). The clang must be of
the same LLVM major version as llvmlite, or the IR it prints may not parse.
That clang ships no OpenCL headers, so a small prelude (typedefs, work-item
queries, float math, atomics) is force-included; by default the repository's
`bench/prelude/opencl.h`, or the file named by `VECZ_OPENCL_PRELUDE`.

The output is what the vectorizer expects: canonical LLVM 22 text for the
`spir64` target, each kernel a `spir_kernel` function with its body inlined.
clang 22 emits every kernel as a `spir_kernel` stub calling an `alwaysinline`
`__clang_ocl_kern_imp_<name>`; the stub is inlined and the implementation
function dropped.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from .. import llvm_bridge

DEFAULT_TRIPLE = "spir64-unknown-unknown"
CL_STD = "CL1.2"
_IMPL_PREFIX = "__clang_ocl_kern_imp_"


class OpenCLError(Exception):
    """OpenCL C could not be compiled: no usable clang, or the source has errors."""


def default_prelude() -> Path | None:
    """The prelude force-included before every source, or None if there is none."""
    env = os.environ.get("VECZ_OPENCL_PRELUDE")
    if env:
        return Path(env)
    candidate = Path(__file__).resolve().parents[2] / "bench" / "prelude" / "opencl.h"
    return candidate if candidate.is_file() else None


def _clang_command() -> list[str]:
    try:
        import ziglang  # noqa: F401
    except ImportError:
        raise OpenCLError(
            "compiling OpenCL C needs the optional 'opencl' extra: pip install 'vecz-py[opencl]' "
            "(it provides clang through the ziglang package)"
        ) from None
    return [sys.executable, "-m", "ziglang", "clang"]


@functools.lru_cache(maxsize=1)
def clang_version() -> tuple[int, int, int]:
    """The (major, minor, patch) version of ziglang's clang."""
    try:
        out = subprocess.run(
            [*_clang_command(), "--version"], capture_output=True, text=True, timeout=120
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise OpenCLError(f"cannot run ziglang's clang: {exc}") from None
    m = re.search(r"clang version (\d+)\.(\d+)\.(\d+)", out.stdout + out.stderr)
    if not m:
        raise OpenCLError(f"cannot read the clang version from: {out.stdout.strip()!r}")
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


def check_llvm_version() -> None:
    """Raise `OpenCLError` unless clang's LLVM major equals llvmlite's."""
    import llvmlite.binding as llvm

    clang_major = clang_version()[0]
    llvm_major = llvm.llvm_version_info[0]
    if clang_major != llvm_major:
        raise OpenCLError(
            f"ziglang's clang is LLVM {clang_major} but llvmlite is LLVM {llvm_major}; "
            "install a ziglang whose clang matches llvmlite"
        )


def compile_opencl(
    source: str | Path,
    *,
    prelude: Path | None | bool = True,
    opt: str = "-O2",
    triple: str = DEFAULT_TRIPLE,
    extra_args: list[str] | None = None,
) -> str:
    """Compile OpenCL C to canonical LLVM IR text.

    `source` is a path to a `.cl` file, or the source text itself when it is a
    `str` containing a newline. `prelude=True` force-includes
    `default_prelude()`; a path force-includes that file; `False`/`None` none.
    Raises `OpenCLError` with clang's diagnostics on failure.
    """
    check_llvm_version()
    if prelude is True:
        prelude = default_prelude()
    with tempfile.TemporaryDirectory(prefix="vecz-ocl-") as tmp:
        if isinstance(source, str) and "\n" in source:
            src_path = Path(tmp) / "input.cl"
            src_path.write_text(source)
        else:
            src_path = Path(source)
            if not src_path.is_file():
                raise OpenCLError(f"cannot read {src_path}")
        out_path = Path(tmp) / "out.ll"
        cmd = [
            *_clang_command(),
            f"--target={triple}",
            "-x", "cl",
            f"-cl-std={CL_STD}",
            "-cl-no-stdinc",
            # Keep sqrt correctly rounded: no `!fpmath` relaxations in the IR.
            "-cl-fp32-correctly-rounded-divide-sqrt",
            "-fomit-frame-pointer",
            opt,
            "-S", "-emit-llvm",
            "-o", str(out_path),
        ]
        if prelude:
            cmd += ["-include", str(prelude)]
        cmd += list(extra_args or [])
        cmd.append(str(src_path))
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise OpenCLError(f"cannot run clang: {exc}") from None
        if proc.returncode != 0:
            diag = proc.stderr.strip().replace(str(src_path), src_path.name)
            raise OpenCLError(f"clang failed on {src_path.name}:\n{diag}")
        text = out_path.read_text()
    text = re.sub(r'^source_filename = ".*"$', f'source_filename = "{src_path.name}"', text, count=1, flags=re.M)
    return finalize_module(text)


def finalize_module(text: str) -> str:
    """Inline clang's `__clang_ocl_kern_imp_*` bodies into the kernel stubs,
    drop them, and return canonical, verified text."""
    import llvmlite.binding as llvm

    mod = llvm_bridge.parse(text)
    for fn in mod.functions:
        if fn.name.startswith(_IMPL_PREFIX) and not fn.is_declaration:
            fn.linkage = llvm.Linkage.internal
    text = llvm_bridge.run_passes(mod, ["always-inline", "globaldce", "strip-dead-prototypes"])
    text = re.sub(r"^; ModuleID = .*\n", "", llvm_bridge.canonicalize(text), count=1)
    return text


def kernel_names(ir_text: str) -> list[str]:
    """The `spir_kernel` functions defined in IR text, in order."""
    return re.findall(r"^define\s[^@]*\bspir_kernel\b[^@]*@\"?([\w.$]+)\"?\(", ir_text, re.M)
