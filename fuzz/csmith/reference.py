"""The reference: the plain Csmith C program built with the host C compiler
against Csmith's runtime headers, run once, its printed checksum read.

Work-item 0 of the kernel computes exactly this program (no perturbation,
no flipped condition), so its checksum must equal this one.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .runner import CsmithError, ensure_csmith

_CHECKSUM = re.compile(r"^checksum = ([0-9A-Fa-f]+)$", re.M)


class ReferenceTimeout(CsmithError):
    """The C program did not finish in time (Csmith programs may not terminate)."""


@dataclass(frozen=True)
class Reference:
    """The C program's checksum and how long one run took."""

    checksum: int
    run_seconds: float
    compile_seconds: float


def c_compiler() -> str:
    """The host C compiler: $CC, else gcc, else cc."""
    for cand in (os.environ.get("CC"), "gcc", "cc"):
        if cand and shutil.which(cand):
            return cand
    raise CsmithError("no C compiler found (set CC, or install gcc) to build the Csmith reference")


def run_reference(c_source: str, timeout: float = 2.0, opt: str = "-O1") -> Reference:
    """Compile and run a Csmith program; raises `ReferenceTimeout` when it
    runs longer than `timeout` seconds and `CsmithError` on other failures."""
    tools = ensure_csmith()
    with tempfile.TemporaryDirectory(prefix="vecz-csmith-") as tmp:
        src = Path(tmp) / "prog.c"
        exe = Path(tmp) / "prog"
        src.write_text(c_source)
        # -w: Csmith programs trip many harmless warnings. -fwrapv is NOT
        # given: safe math already avoids signed overflow.
        cmd = [c_compiler(), opt, "-w", f"-I{tools.include_dir}", "-o", str(exe), str(src)]
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise CsmithError(f"cannot compile the C reference: {exc}") from None
        compile_s = time.perf_counter() - t0
        if proc.returncode != 0:
            raise CsmithError(f"the C reference does not compile:\n{proc.stderr.strip()[:2000]}")
        t0 = time.perf_counter()
        try:
            run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise ReferenceTimeout(f"the C reference ran longer than {timeout:g} s") from None
        run_s = time.perf_counter() - t0
    if run.returncode != 0:
        raise CsmithError(f"the C reference exited with status {run.returncode}")
    m = _CHECKSUM.search(run.stdout)
    if not m:
        raise CsmithError(f"no checksum in the C reference's output: {run.stdout[-200:]!r}")
    return Reference(int(m.group(1), 16), run_s, compile_s)
