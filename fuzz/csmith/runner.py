"""Finding (and if need be installing) Csmith, and running it.

Csmith is a system package (Debian: `csmith` and `libcsmith-dev`), not a
PyPI one, and the project's install step is `pip install -e ".[dev]"` only.
So `ensure_csmith()` installs it on first use when it can (root with
apt-get, as in CI) by running `scripts/install-system-packages.sh`, and
otherwise raises `CsmithError` naming that script.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
INSTALL_SCRIPT = REPO_ROOT / "scripts" / "install-system-packages.sh"
# Where libcsmith-dev puts csmith.h and safe_math.h (Debian), then other
# common prefixes (a source build installs into /usr/local/include/csmith-X).
HEADER_GLOBS = ("/usr/include/csmith", "/usr/local/include/csmith*", "/usr/include/csmith-*",
                "/opt/csmith*/include*")

# Csmith options for kernel-friendly programs: no pointers, structs, unions,
# bitfields, volatiles or jumps (the kernel keeps globals in a private
# struct and has no goto); a few small functions; safe math kept, because C
# and OpenCL differ on over-wide shifts, signed overflow and division.
KERNEL_OPTIONS: tuple[str, ...] = (
    "--no-pointers", "--no-structs", "--no-unions", "--no-bitfields",
    "--no-packed-struct", "--no-volatiles", "--no-volatile-pointers",
    "--no-const-pointers", "--no-jumps", "--no-argc", "--no-builtins",
    "--no-float", "--no-comma-operators", "--concise",
)


class CsmithError(RuntimeError):
    """Csmith (or its runtime headers) is missing, or a Csmith run failed."""


@dataclass(frozen=True)
class CsmithTools:
    """The located Csmith binary and its runtime header directory."""

    binary: str
    include_dir: Path
    version: str

    @property
    def safe_math(self) -> Path:
        return self.include_dir / "safe_math.h"


def _find_headers() -> Path | None:
    import glob

    for pattern in HEADER_GLOBS:
        for d in sorted(glob.glob(pattern)):
            if (Path(d) / "csmith.h").is_file() and (Path(d) / "safe_math.h").is_file():
                return Path(d)
    return None


def _locate() -> CsmithTools | None:
    binary = shutil.which("csmith")
    inc = _find_headers()
    if binary is None or inc is None:
        return None
    try:
        with tempfile.TemporaryDirectory(prefix="vecz-csmith-") as scratch:  # platform.info
            out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30, cwd=scratch)
        version = (out.stdout or out.stderr).strip().splitlines()[0] if (out.stdout or out.stderr) else "?"
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CsmithError(f"cannot run {binary}: {exc}") from None
    return CsmithTools(binary, inc, version)


def _can_install() -> bool:
    return (hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get") is not None
            and INSTALL_SCRIPT.is_file())


@functools.lru_cache(maxsize=1)
def ensure_csmith() -> CsmithTools:
    """Locate `csmith` and its runtime headers, installing them once if needed.

    When either is missing and this process is root with apt-get (CI is), it
    runs `scripts/install-system-packages.sh` (saying so on stderr); else it
    raises `CsmithError` telling how to install them.
    """
    tools = _locate()
    if tools is not None:
        return tools
    if not _can_install():
        raise CsmithError(
            "csmith and its runtime headers (csmith.h, safe_math.h) were not found; install them "
            f"with `sudo {INSTALL_SCRIPT}` (Debian/Ubuntu packages csmith and libcsmith-dev)"
        )
    print(f"fuzz.csmith: csmith not found, running {INSTALL_SCRIPT.relative_to(REPO_ROOT)}",
          file=sys.stderr, flush=True)
    try:
        proc = subprocess.run(["bash", str(INSTALL_SCRIPT)], capture_output=True, text=True,
                              timeout=900)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CsmithError(f"{INSTALL_SCRIPT.name} did not complete: {exc}") from None
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
        raise CsmithError(f"{INSTALL_SCRIPT.name} failed (exit {proc.returncode}):\n{tail}")
    tools = _locate()
    if tools is None:
        raise CsmithError(f"{INSTALL_SCRIPT.name} ran but csmith or its headers are still missing")
    return tools


def csmith_options(max_funcs: int = 3, max_block_depth: int = 3, max_expr_complexity: int = 6,
                   max_array_len: int = 5, extra: tuple[str, ...] = ()) -> list[str]:
    """The Csmith command-line options used for kernels (size limits adjustable)."""
    return [
        *KERNEL_OPTIONS,
        "--max-funcs", str(max_funcs),
        "--max-block-depth", str(max_block_depth),
        "--max-expr-complexity", str(max_expr_complexity),
        "--max-array-len-per-dim", str(max_array_len),
        *extra,
    ]


def run_csmith(seed: int, options: list[str] | None = None, timeout: float = 30.0) -> str:
    """The C program Csmith generates for `seed` with `options` (default: `csmith_options()`)."""
    tools = ensure_csmith()
    cmd = [tools.binary, "--seed", str(seed), *(options if options is not None else csmith_options())]
    try:
        # Csmith writes platform.info into its working directory: keep it
        # out of the user's.
        with tempfile.TemporaryDirectory(prefix="vecz-csmith-") as scratch:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=scratch)
    except subprocess.TimeoutExpired:
        raise CsmithError(f"csmith --seed {seed} took more than {timeout:g} s") from None
    except OSError as exc:
        raise CsmithError(f"cannot run csmith: {exc}") from None
    if proc.returncode != 0 or "int main" not in proc.stdout:
        raise CsmithError(f"csmith --seed {seed} failed (exit {proc.returncode}): {proc.stderr.strip()[:500]}")
    return proc.stdout
