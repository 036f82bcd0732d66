"""Command-line plumbing shared by `vecz-oracle`, `vecz-fuzz` and `reduce-failure`.

Every command answers bad input with one line on stderr and a documented
exit status, never a Python traceback:

- 0 done, 1 a failure found (each command says which), 2 bad input or usage;
- 130 interrupted (Ctrl-C);
- 141 when standard output is a pipe whose reader has gone (`... | head`):
  a quiet exit, the status a shell shows for a tool killed by SIGPIPE;
- 3 an internal error (a defect: the message names the exception and
  where it was raised; `VECZ_TRACEBACK=1` prints the whole traceback).

`run_command` applies this to a command body; `ArgumentParser` makes usage
errors one line; `read_text` reads an input file or standard input as UTF-8
LLVM IR text; the `*_arg` functions are argparse types that refuse NaN,
infinities, zero or negative counts with a message naming the option value.
"""

from __future__ import annotations

import argparse
import errno
import io
import math
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any

EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 128 + 13  # 128 + SIGPIPE

MAX_INPUT_BYTES = 256 << 20  # bigger is a mistake (/dev/zero), not a kernel
_BITCODE_MAGIC = (b"BC\xc0\xde", b"\xde\xc0\x17\x0b")


class UsageError(Exception):
    """Bad input or usage: the message is printed as one line, exit status 2."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse with one-line usage errors (`prog: error: ... (see prog --help)`).

    Subparsers made by `add_subparsers` are of this class too."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {one_line(message)} (see '{self.prog} --help')\n")


def parse_args(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace | int:
    """`parser.parse_args(argv)`, or the exit status where argparse would exit
    (0 after --help, 2 after a usage error), so `main(argv)` returns it."""
    try:
        return parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE


def one_line(text: str) -> str:
    """`text` with its line breaks folded, so an error stays one line."""
    return " ".join(str(text).split())


# ------------------------------------------------------------------ option types


def _number(text: str, kind: type) -> float:
    try:
        return kind(text)
    except (TypeError, ValueError):
        what = "an integer" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None


def seconds_arg(text: str, maximum: float = 1e6) -> float:
    """A positive, finite number of seconds (at most `maximum`)."""
    v = _number(text, float)
    if not math.isfinite(v) or v <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    if v > maximum:
        raise argparse.ArgumentTypeError(f"{text} seconds is more than the limit of {maximum:g}")
    return v


def long_seconds_arg(text: str) -> float:
    """A positive, finite campaign budget in seconds (up to ~30 years)."""
    return seconds_arg(text, maximum=1e9)


def positive_int_arg(text: str) -> int:
    """An integer >= 1."""
    v = int(_number(text, int))
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return v


def count_arg(text: str) -> int:
    """An integer >= 0."""
    v = int(_number(text, int))
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return v


def seed_arg(text: str) -> int:
    """A seed: an integer in 0 .. 2**63-1 (what every random source takes)."""
    v = int(_number(text, int))
    if not 0 <= v < 1 << 63:
        raise argparse.ArgumentTypeError(f"a seed is an integer from 0 to 2**63-1, got {text!r}")
    return v


def int_list_arg(text: str) -> list[int]:
    """A non-empty comma-separated list of integers (`1,4,8`)."""
    try:
        vals = [int(v) for v in text.replace(" ", "").split(",") if v]
    except ValueError:
        vals = []
    if not vals:
        raise argparse.ArgumentTypeError(f"expected a comma-separated list of integers, got {text!r}")
    return vals


def nonempty_arg(text: str) -> str:
    """A name or path that must not be empty."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a name, got an empty string")
    return text


# ------------------------------------------------------------------ input


def read_text(path: str, what: str = "LLVM IR text") -> str:
    """The UTF-8 text of file `path` ('-': standard input); UsageError naming
    the file (and line) when it cannot be read or is not text."""
    name = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            stdin = sys.stdin
            if stdin is None:
                raise UsageError("standard input is closed")
            raw = getattr(stdin, "buffer", None)
            data = raw.read(MAX_INPUT_BYTES + 1) if raw is not None else stdin.read().encode(
                "utf-8", "surrogateescape")
        else:
            with open(path, "rb") as f:
                data = f.read(MAX_INPUT_BYTES + 1)
    except IsADirectoryError:
        raise UsageError(f"{name}: is a directory") from None
    except OSError as exc:
        raise UsageError(f"cannot read {name}: {exc.strerror or exc}") from None
    if len(data) > MAX_INPUT_BYTES:
        raise UsageError(f"{name}: larger than {MAX_INPUT_BYTES >> 20} MiB; not {what}")
    if data.startswith(_BITCODE_MAGIC):
        raise UsageError(f"{name}: LLVM bitcode; this command reads {what} (llvm-dis it first)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise UsageError(f"{name}:{line}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
                         f"{exc.start}); expected {what}") from None
    nul = text.find("\0")
    if nul >= 0:
        raise UsageError(f"{name}:{text.count(chr(10), 0, nul) + 1}: a NUL byte; expected {what}")
    return text


def write_text(path: str, text: str) -> None:
    """Write an output file; UsageError naming it when that fails (a full disk,
    a missing directory), so the message says which file."""
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


def check_ir(text: str, ir: str, name: str) -> Any:
    """UsageError with LLVM's diagnostic (`name:line:column: ...`, counted in the
    whole file `text`) unless LLVM parses and verifies `ir`, the IR part of `text`.

    Checked before anything runs: malformed IR must never reach the vectorizer,
    whose own reader failing would read as a vectorizer error. Returns the
    parsed llvmlite module."""
    from vectorizer.llvm_bridge import IRError, parse

    try:
        return parse(ir)
    except IRError as exc:
        offset = text.count("\n", 0, len(text) - len(ir)) if text.endswith(ir) else 0
        where = f"{name}:{exc.line + offset}:{exc.column}" if exc.line is not None else name
        raise UsageError(f"{where}: {exc.message}") from None


# ------------------------------------------------------------------ resource limits

# What a command accepts from a file or an option before any worker allocates
# or runs it: a mistyped size must be an error, not a machine out of memory.
MAX_WORK_ITEMS = 1 << 24  # per NDRange (a 4096x4096 image)
MAX_BUFFER_BYTES = 1 << 30  # all buffers of a case's `args:` line together
MAX_OFFSET = 1 << 32  # a global offset (ids stay far from 64-bit overflow)


def check_ndrange_limits(nd: object, where: str = "") -> None:
    """UsageError when an NDRange is larger than a command runs."""
    total = nd.total  # type: ignore[attr-defined]
    if total > MAX_WORK_ITEMS:
        raise UsageError(f"{where}NDRange {nd} has {total} work-items; the limit is {MAX_WORK_ITEMS}")
    if any(not 0 <= o < MAX_OFFSET for o in nd.offset):  # type: ignore[attr-defined]
        raise UsageError(f"{where}NDRange {nd}: offsets must be 0 .. 2**32-1")


def check_case_limits(case: object, where: str = "") -> None:
    """UsageError when a parsed case (oracle.case.Case) asks for more than a
    command runs: NDRanges over MAX_WORK_ITEMS, buffers over MAX_BUFFER_BYTES."""
    for nd in case.ndranges:  # type: ignore[attr-defined]
        check_ndrange_limits(nd, where)
    total = sum(a.nbytes for a in case.args or () if a.kind != "scalar")  # type: ignore[attr-defined]
    if total > MAX_BUFFER_BYTES:
        raise UsageError(f"{where}the case's buffers need {total} bytes; the limit is "
                         f"{MAX_BUFFER_BYTES >> 20} MiB")


# ------------------------------------------------------------------ output and exit


class StdoutError(OSError):
    """Standard output cannot be written (a full disk, a closed descriptor)."""


class _GuardedStdout:
    """Wraps standard output so a failed write is told apart from other OSErrors."""

    def __init__(self, stream: object) -> None:
        self._stream = stream

    def write(self, s: str) -> int:
        try:
            return self._stream.write(s)  # type: ignore[attr-defined]
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise StdoutError(exc.errno, exc.strerror or str(exc)) from None

    def flush(self) -> None:
        try:
            self._stream.flush()  # type: ignore[attr-defined]
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise StdoutError(exc.errno, exc.strerror or str(exc)) from None

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


class _ClosedStream(io.TextIOBase):
    """Stands for a standard stream the command was started without (`>&-`)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def write(self, s: str) -> int:
        raise OSError(errno.EBADF, "it is closed")

    def flush(self) -> None:
        pass


def _discard_stdout() -> None:
    """Point fd 1 at /dev/null so the interpreter's last flush of the data that
    could not be written neither fails again nor prints a second error."""
    if sys.stdout is not None and sys.stdout is sys.__stdout__:
        try:
            fd = os.open(os.devnull, os.O_WRONLY)
            os.dup2(fd, sys.stdout.fileno())
            os.close(fd)
        except (OSError, ValueError):
            pass


def _say(prog: str, message: str) -> None:
    try:
        if sys.stderr is not None:
            print(f"{prog}: {one_line(message)}", file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass  # nowhere left to complain


def _where(exc: BaseException) -> str:
    tb = traceback.extract_tb(exc.__traceback__)
    return f" at {os.path.basename(tb[-1].filename)}:{tb[-1].lineno}" if tb else ""


def run_command(prog: str, body: Callable[[], int],
                expected: tuple[type[BaseException], ...] = ()) -> int:
    """Run a command body and map what it raises to one line and an exit status.

    `expected` are the library's own bad-input exceptions (printed as
    `prog: error: ...`, exit 2), besides UsageError; the body itself returns
    0 or 1. Output still buffered is written before returning, so a full disk
    or a closed pipe is reported here, not by the interpreter at exit."""
    saved = sys.stdout
    sys.stdout = _GuardedStdout(_ClosedStream("output") if saved is None else saved)  # type: ignore[assignment]
    try:
        code = body()
        if sys.stdout is not None:
            sys.stdout.flush()
        return code
    except BrokenPipeError:
        sys.stdout = saved
        _discard_stdout()
        return EXIT_BROKEN_PIPE
    except StdoutError as exc:
        sys.stdout = saved
        _discard_stdout()
        _say(prog, f"error: cannot write standard output: {exc.strerror}")
        return EXIT_USAGE
    except (UsageError, *expected) as exc:
        _say(prog, f"error: {exc}")
        return EXIT_USAGE
    except OSError as exc:  # an input or output file
        where = f"{exc.filename}: " if exc.filename else ""
        _say(prog, f"error: {where}{exc.strerror or exc}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        _say(prog, "interrupted")
        return EXIT_INTERRUPTED
    except MemoryError:
        _say(prog, "error: out of memory")
        return EXIT_USAGE
    except Exception as exc:
        if os.environ.get("VECZ_TRACEBACK"):
            traceback.print_exc()
        _say(prog, f"internal error: {type(exc).__name__}: {exc}{_where(exc)} "
                   "(a defect: please report it with the input; VECZ_TRACEBACK=1 shows the traceback)")
        return EXIT_INTERNAL
    finally:
        sys.stdout = saved
