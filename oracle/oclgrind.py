"""Running one kernel in Oclgrind (Debian's `oclgrind` package), an OpenCL
device simulator with its own LLVM interpreter, compiler (its clang, LLVM 14
in Debian 12) and builtin library: the independent reference that
`oracle.crosscheck` compares our scalar reference with.

`oclgrind-kernel SIMFILE` runs one kernel described by a simulation file:
the program (OpenCL C source), the kernel name, the global and local sizes
(always three of each: the kernel runs with `get_work_dim() == 3` and no
global offset), then one `<...>` header per argument with its initial
contents. We write every buffer and scalar as raw hexadecimal words (exact,
whatever the element type) and ask for the global buffers back the same way
(`dump`), so no value goes through a decimal rendering.

Its diagnostics (stderr) are parsed into `Diagnostic`s: invalid reads and
writes (out of bounds), data races (`--data-races`), uses of uninitialized
values (`--uninitialized`) and anything else it reports.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .case import ArgSpec, NDRange

REPO_ROOT = Path(__file__).resolve().parents[1]
INSTALL_SCRIPT = REPO_ROOT / "scripts" / "install-system-packages.sh"
BINARY = "oclgrind-kernel"


class OclgrindError(RuntimeError):
    """Oclgrind is missing and cannot be installed here."""


def _can_install() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get") is not None


@functools.lru_cache(maxsize=1)
def ensure_oclgrind() -> str:
    """The path of `oclgrind-kernel`, installing Debian's `oclgrind` once if needed.

    When it is missing and this process is root with apt-get (CI is), runs
    `scripts/install-system-packages.sh oclgrind` (saying so on stderr);
    otherwise raises `OclgrindError` telling how to install it."""
    found = shutil.which(BINARY)
    if found:
        return found
    if not _can_install():
        raise OclgrindError(
            f"{BINARY} was not found; install it with `sudo {INSTALL_SCRIPT} oclgrind` "
            "(the Debian/Ubuntu package oclgrind)"
        )
    print(f"oracle.oclgrind: {BINARY} not found, running "
          f"{INSTALL_SCRIPT.relative_to(REPO_ROOT)} oclgrind", file=sys.stderr, flush=True)
    try:
        proc = subprocess.run(["bash", str(INSTALL_SCRIPT), "oclgrind"], capture_output=True,
                              text=True, timeout=1500)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise OclgrindError(f"{INSTALL_SCRIPT.name} did not complete: {exc}") from None
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
        raise OclgrindError(f"{INSTALL_SCRIPT.name} oclgrind failed (exit {proc.returncode}):\n{tail}")
    found = shutil.which(BINARY)
    if not found:
        raise OclgrindError(f"{INSTALL_SCRIPT.name} ran but {BINARY} is still missing")
    return found


# ---------------------------------------------------------------- simulation file

# The widest hexadecimal word that divides a byte count, as Oclgrind names it.
_WORDS = ((8, "ulong", "<u8"), (4, "uint", "<u4"), (2, "ushort", "<u2"), (1, "uchar", "u1"))


def _word(nbytes: int) -> tuple[int, str, str]:
    for size, name, dtype in _WORDS:
        if nbytes % size == 0:
            return size, name, dtype
    raise AssertionError("unreachable: every size is a multiple of 1")


def _hex_words(data: bytes) -> tuple[str, str]:
    """(Oclgrind type name, the words of `data` in hex, space separated)."""
    size, name, dtype = _word(len(data))
    words = np.frombuffer(data, dtype=dtype)
    # Lines of 16 words: Oclgrind reads tokens, line breaks are free.
    toks = [format(int(w), "x") for w in words]
    lines = [" ".join(toks[i:i + 16]) for i in range(0, len(toks), 16)]
    return name, "\n".join(lines)


def simulation_file(program: str, kernel: str, nd: NDRange, args: Sequence[ArgSpec],
                    contents: Sequence[bytes | None]) -> str:
    """The text of a simulation file running `kernel` of the source file
    `program` over `nd` (its offset must be zero: Oclgrind has none).
    `contents[i]` holds the initial bytes of global buffer or scalar `i`
    (None for local buffers, which only have a size). Every global buffer is
    dumped after the run."""
    if any(nd.offset):
        raise ValueError("Oclgrind's simulation files have no global offset")
    lines = [program, kernel, " ".join(map(str, nd.global_size)), " ".join(map(str, nd.local_size))]
    for i, (a, data) in enumerate(zip(args, contents, strict=True)):
        if a.kind == "local":
            lines.append(f"<size={max(1, a.nbytes)} uchar>")
            continue
        if data is None:
            raise ValueError(f"argument {i} ({a}) has no contents")
        if not data:  # an empty buffer: Oclgrind needs at least one byte
            data = b"\0"
        name, words = _hex_words(data)
        dump = " dump" if a.kind == "buf" else ""
        lines.append(f"<size={len(data)} {name} hex{dump}>")
        lines.append(words)
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- output


@dataclass
class Diagnostic:
    """One error or warning Oclgrind reported."""

    kind: str  # "out-of-bounds", "data-race", "uninitialized" or "other"
    message: str  # its first line, e.g. "Invalid write of size 4 at global memory address 0x..."
    entity: str = ""  # the work-item, e.g. "Global(3,0,0) Local(3,0,0) Group(0,0,0)"
    buffer: int | None = None  # the global buffer (argument index) the address falls in
    where: str = ""  # "At line N of input.cl: <source line>" when Oclgrind knows it

    def short(self) -> str:
        """One line: message, work-item and source line."""
        s = self.message
        if self.buffer is not None:
            s += f" (argument {self.buffer})"
        if self.entity:
            s += f" by {self.entity}"
        if self.where:
            s += f" [{self.where}]"
        return s


@dataclass
class OclgrindRun:
    """The outcome of one `oclgrind-kernel` run."""

    status: str  # "ok", "build-error", "error" (it stopped), "timeout"
    buffers: list[bytes | None] = field(default_factory=list)  # final global buffers (None: not a buffer)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    detail: str = ""
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)  # what was not checked, and why

    def kinds(self) -> set[str]:
        """The kinds of diagnostics reported."""
        return {d.kind for d in self.diagnostics}


_ADDR = re.compile(r"address 0x([0-9a-fA-F]+)")
# Oclgrind's global addresses carry the buffer number above bit 48 (buffers
# are allocated in argument order, numbered from 1).
_BUFFER_SHIFT = 48


def _classify(message: str) -> str:
    low = message.lower()
    if low.startswith("invalid read") or low.startswith("invalid write") or "out-of-bounds" in low \
            or "out of bounds" in low:
        return "out-of-bounds"
    if "data race" in low:
        return "data-race"
    if "uninitiali" in low:
        return "uninitialized"
    return "other"


def parse_diagnostics(stderr: str, buffer_args: Sequence[int] = ()) -> list[Diagnostic]:
    """The diagnostics in Oclgrind's stderr. `buffer_args` are the argument
    indices of the global buffers in allocation order, to name the buffer an
    address falls in."""
    out: list[Diagnostic] = []
    blocks = re.split(r"\n\s*\n(?=\S)", stderr.strip())
    for block in blocks:
        lines = [ln for ln in block.splitlines() if ln.strip()]
        if not lines:
            continue
        head = lines[0].strip()
        # Compiler warnings and other chatter are not diagnostics of the run.
        if not re.match(r"(Invalid|Read-write|Write-write|Uninitiali|Work-group divergence|"
                        r"Work-item|Kernel|Error|Integer|Division|Unaligned|Attempt|Unhandled|"
                        r"Store to|Load from|Atomic|Barrier|Unsupported|Undefined|Invalid)", head):
            continue
        d = Diagnostic(_classify(head), head)
        m = _ADDR.search(head)
        if m and buffer_args:
            addr = int(m.group(1), 16)
            # An address just below a buffer (a negative index) wraps into the
            # previous buffer's number: report the nearest buffer above.
            num = (addr >> _BUFFER_SHIFT) + (1 if addr & ((1 << _BUFFER_SHIFT) - 1) > (1 << 47) else 0)
            if 1 <= num <= len(buffer_args):
                d.buffer = buffer_args[num - 1]
        for ln in lines[1:]:
            s = ln.strip()
            if s.startswith("Entity:") and not d.entity:
                d.entity = s[len("Entity:"):].strip()
            elif s.startswith("First entity:") and not d.entity:
                d.entity = s[len("First entity:"):].strip()
            elif s.startswith("At line") and not d.where:
                d.where = s.rstrip(":")
        out.append(d)
    return out


_DUMP_HEAD = re.compile(r"^Argument '([^']*)': (\d+) bytes$", re.M)
_DUMP_LINE = re.compile(r"^\s+\S+\[(\d+)\] = (0x[0-9a-fA-F]+|-?\d+)$")


def parse_dumps(stdout: str, sizes: Sequence[int]) -> list[bytes]:
    """The dumped buffers at the end of `stdout`, one per entry of `sizes`
    (bytes each), in argument order. printf output may precede them."""
    heads = list(_DUMP_HEAD.finditer(stdout))
    if len(heads) < len(sizes):
        raise ValueError(f"expected {len(sizes)} dumped buffers, found {len(heads)}")
    heads = heads[len(heads) - len(sizes):]
    out: list[bytes] = []
    for k, (m, nbytes) in enumerate(zip(heads, sizes, strict=True)):
        if int(m.group(2)) != max(1, nbytes):
            raise ValueError(f"dumped buffer {k} has {m.group(2)} bytes, expected {nbytes}")
        end = heads[k + 1].start() if k + 1 < len(heads) else len(stdout)
        size, _, dtype = _word(max(1, nbytes))
        words = np.zeros(max(1, nbytes) // size, dtype=dtype)
        for ln in stdout[m.end():end].splitlines():
            lm = _DUMP_LINE.match(ln)
            if lm:
                words[int(lm.group(1))] = int(lm.group(2), 0) & ((1 << (8 * size)) - 1)
        out.append(words.tobytes()[:nbytes])
    return out


# Oclgrind stops reporting after this many errors (`--max-errors`).
MAX_ERRORS = 64


def run_kernel(source: str, kernel: str, nd: NDRange, args: Sequence[ArgSpec],
               contents: Sequence[bytes | None], build_options: Sequence[str] = (),
               timeout: float = 120.0, data_races: bool = True, uninitialized: bool = True,
               source_name: str = "kernel.cl") -> OclgrindRun:
    """Run `kernel` of OpenCL C `source` in Oclgrind over `nd` with the given
    initial contents (see `simulation_file`). Returns the final contents of
    every global buffer and Oclgrind's diagnostics."""
    import time

    binary = ensure_oclgrind()
    with tempfile.TemporaryDirectory(prefix="vecz-oclgrind-") as tmp:
        prog = Path(tmp) / source_name
        prog.write_text(source)
        sim = Path(tmp) / "run.sim"
        sim.write_text(simulation_file(str(prog), kernel, nd, args, contents))
        cmd = [binary, "--num-threads", "1", "--max-errors", str(MAX_ERRORS)]
        if data_races:
            cmd.append("--data-races")
        if uninitialized:
            cmd.append("--uninitialized")
        if build_options:
            cmd += ["--build-options", " ".join(build_options)]
        cmd.append(str(sim))
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=tmp,
                                  errors="replace")
        except subprocess.TimeoutExpired:
            return OclgrindRun("timeout", detail=f"no result within {timeout:g}s",
                               seconds=time.perf_counter() - t0)
        dt = time.perf_counter() - t0
    out, err = proc.stdout, proc.stderr.replace(str(prog), source_name)
    buffer_args = [i for i, a in enumerate(args) if a.kind == "buf"]
    if "Build failure" in err or "Build failure" in out:
        msgs = [ln for ln in err.splitlines() if "error:" in ln]
        return OclgrindRun("build-error", detail="; ".join(msgs[:3]) or _tail(err), seconds=dt)
    fatal = re.search(r"OCLGRIND FATAL ERROR \(([^)]*)\)\n([^\n]*)", err)
    crashed = proc.returncode < 0
    if uninitialized and (crashed or fatal and "Uninitialized" in fatal.group(1)):
        # The uninitialized-value checker lacks something the kernel uses
        # (it aborts the work-group, silently dropping its stores) or
        # crashes on it (SIGSEGV on a float4 dot product): run again
        # without it.
        why = fatal.group(2).strip() if fatal else f"oclgrind crashed ({_signal(proc.returncode)}) with it"
        again = run_kernel(source, kernel, nd, args, contents, build_options, timeout, data_races,
                           False, source_name)
        again.notes.append(f"no uninitialized-value check: {why}")
        return again
    if fatal:
        # A fatal error stops the work-group; the dumped buffers are not the kernel's result.
        return OclgrindRun("error", detail=f"{fatal.group(2).strip()} ({fatal.group(1)})", seconds=dt)
    if crashed:
        return OclgrindRun("error", detail=f"Oclgrind crashed ({_signal(proc.returncode)}): {_tail(err)}",
                           seconds=dt)
    if proc.returncode != 0 or not _DUMP_HEAD.search(out) and buffer_args:
        return OclgrindRun("error", diagnostics=parse_diagnostics(err, buffer_args),
                           detail=f"exit {proc.returncode}: {_tail(err)}", seconds=dt)
    try:
        dumps = parse_dumps(out, [args[i].nbytes for i in buffer_args])
    except ValueError as exc:
        return OclgrindRun("error", detail=f"unreadable output: {exc}", seconds=dt)
    buffers: list[bytes | None] = [None] * len(args)
    for i, data in zip(buffer_args, dumps, strict=True):
        buffers[i] = data
    diags = parse_diagnostics(err, buffer_args)
    uninit = sum(d.kind == "uninitialized" for d in diags)
    if uninitialized and uninit and len(diags) >= MAX_ERRORS:
        # The error budget went on uninitialized values (one per work-item
        # of Rodinia's backprop): races between work-groups, which Oclgrind
        # reports only when the kernel ends, were cut off. Run again
        # without that check (its findings are notes, never verdicts).
        again = run_kernel(source, kernel, nd, args, contents, build_options, timeout, data_races,
                           False, source_name)
        again.notes.append(f"no uninitialized-value check: its {uninit} reports filled Oclgrind's"
                           f" budget of {MAX_ERRORS} errors")
        return again
    return OclgrindRun("ok", buffers, diags, seconds=dt)


def _signal(returncode: int) -> str:
    import signal

    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def _tail(text: str, lines: int = 3) -> str:
    keep = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return " | ".join(keep[-lines:])[:400]
