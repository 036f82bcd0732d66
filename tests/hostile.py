"""Hostile inputs for the command-line tests: a seeded IR mutator and an
in-process command runner that captures output, exit status and hangs.

Used by tests/test_hostile_inputs.py; runnable on its own for a longer
exploration: `python tests/hostile.py [N] [SEED]` prints every outcome that
breaks the contract (exit status other than 0/1/2, a traceback, more than
one error line, a hang).
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import re
import signal
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"

# ---------------------------------------------------------------- inputs


def real_inputs(peer_every: int = 12, realworld_every: int = 60) -> list[tuple[str, bytes]]:
    """(name, bytes) of real kernels: the bench kernels, the corpus cases, a
    spread sample of the peer corpus and of the real-world IR (when ../shared
    is there), and a few generated cases."""
    files = sorted((ROOT / "bench" / "kernels").glob("*.ll")) + sorted((ROOT / "corpus").glob("*.ll"))
    files += sorted((SHARED / "peer-corpus" / "vecz-lit").glob("*.ll"))[::peer_every]
    files += sorted((SHARED / "realworld-dev" / "ir" / "O1").rglob("*.ll"))[::realworld_every]
    out = [(str(p.relative_to(p.parents[1])), p.read_bytes()) for p in files]
    from fuzz import generate

    out += [(f"generated-{s}", generate(s, profile="tiny").encode()) for s in (1, 2)]
    return out


# ---------------------------------------------------------------- the mutator

HUGE = [b"0", b"-1", b"4294967296", b"18446744073709551616", b"99999999999999999999999999",
        b"-9223372036854775809", b"1e999", b"nan", b"65", b"0x7fffffff"]
INVALID_UTF8 = [b"\xff\xfe", b"\x80", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"]
JUNK = [b"\x00", b"}", b"{", b"define", b"@", b"%", b"!", b"\"", b"\\", b"; kernel: \"", b"label",
        b"<4 x i32>", b"ptr addrspace(99)", b"i128", b"; ndrange: global=0", b"; args: buf:i33:x",
        b"@\"k\\22 e r n\"", b"@\"k\xc3\xa9rnel\"", b"@\"123\"", b"\t", b"\r\n", b"((((((((((((",
        b"; vecz-case: 2"]
_TOKEN = re.compile(rb"[^\s,()\[\]{}<>=]+")
_NUMBER = re.compile(rb"-?\d+")


class Mutator:
    """Deterministic damage to a file, 1-3 edits per mutant (seeded)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.ops: list[Callable[[bytes], bytes]] = [
            self.flip_byte, self.truncate, self.delete_line, self.duplicate_line, self.swap_lines,
            self.swap_tokens, self.insert_nul, self.invalid_utf8, self.huge_number,
            self.header_value, self.junk, self.delete_span, self.repeat_span, self.long_line,
        ]

    def mutate(self, data: bytes) -> bytes:
        """One mutant of `data`."""
        for _ in range(self.rng.choice((1, 1, 1, 2, 3))):
            data = self.rng.choice(self.ops)(data)
        return data

    def _at(self, data: bytes) -> int:
        return self.rng.randrange(len(data) + 1)

    def _lines(self, data: bytes) -> list[bytes]:
        return data.splitlines(keepends=True) or [b""]

    def flip_byte(self, data: bytes) -> bytes:
        if not data:
            return b"\x01"
        i = self.rng.randrange(len(data))
        return data[:i] + bytes([data[i] ^ (1 << self.rng.randrange(8))]) + data[i + 1:]

    def truncate(self, data: bytes) -> bytes:
        return data[: self._at(data)]

    def delete_line(self, data: bytes) -> bytes:
        lines = self._lines(data)
        del lines[self.rng.randrange(len(lines))]
        return b"".join(lines)

    def duplicate_line(self, data: bytes) -> bytes:
        lines = self._lines(data)
        i = self.rng.randrange(len(lines))
        lines.insert(i, lines[i])
        return b"".join(lines)

    def swap_lines(self, data: bytes) -> bytes:
        lines = self._lines(data)
        i, j = self.rng.randrange(len(lines)), self.rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
        return b"".join(lines)

    def swap_tokens(self, data: bytes) -> bytes:
        toks = list(_TOKEN.finditer(data))
        if len(toks) < 2:
            return self.flip_byte(data)
        a, b = sorted(self.rng.sample(toks, 2), key=lambda m: m.start())
        if a.end() > b.start():
            return data
        return data[: a.start()] + b.group() + data[a.end(): b.start()] + a.group() + data[b.end():]

    def insert_nul(self, data: bytes) -> bytes:
        i = self.rng.choice((0, self._at(data)))
        return data[:i] + b"\x00" + data[i:]

    def invalid_utf8(self, data: bytes) -> bytes:
        i = self._at(data)
        return data[:i] + self.rng.choice(INVALID_UTF8) + data[i:]

    def huge_number(self, data: bytes) -> bytes:
        nums = list(_NUMBER.finditer(data))
        if not nums:
            return self.junk(data)
        m = self.rng.choice(nums)
        return data[: m.start()] + self.rng.choice(HUGE) + data[m.end():]

    def header_value(self, data: bytes) -> bytes:
        """Damage a `; key: value` header line (case files) or add one."""
        lines = self._lines(data)
        heads = [i for i, ln in enumerate(lines) if re.match(rb";\s*[\w.-]+\s*:", ln)]
        if not heads:
            return b"; vecz-case: 1\n; kernel: " + self.rng.choice(JUNK) + b"\n" + data
        i = self.rng.choice(heads)
        key, _, _ = lines[i].partition(b":")
        value = self.rng.choice(HUGE + JUNK + [b"", b"global=16 local=0", b"global=8,8,8,8",
                                                b"buf:i32:-4", b"scalar:f32:nan", b"local:i8:1e9"])
        lines[i] = key + b": " + value + b"\n"
        return b"".join(lines)

    def junk(self, data: bytes) -> bytes:
        i = self._at(data)
        return data[:i] + self.rng.choice(JUNK) + data[i:]

    def delete_span(self, data: bytes) -> bytes:
        i = self._at(data)
        return data[:i] + data[i + self.rng.randrange(1, 200):]

    def repeat_span(self, data: bytes) -> bytes:
        i = self._at(data)
        span = data[i: i + self.rng.randrange(1, 80)]
        return data[:i] + span * self.rng.randrange(2, 50) + data[i:]

    def long_line(self, data: bytes) -> bytes:
        i = self._at(data)
        return data[:i] + b"%" + b"x" * 100_000 + data[i:]


# ---------------------------------------------------------------- running a command


class Hang(BaseException):
    """A command did not return within its time (BaseException: no command catches it)."""


@dataclass
class Outcome:
    """What one in-process command run did."""

    command: str
    argv: list[str]
    code: int | None
    out: str
    err: str
    seconds: float
    hung: bool = False

    def problems(self) -> list[str]:
        """How this outcome breaks the command-line contract (empty: it keeps it)."""
        bad = []
        if self.hung:
            bad.append("hung")
        if self.code not in (0, 1, 2):
            bad.append(f"exit status {self.code}")
        if "Traceback (most recent call last)" in self.err or "Traceback" in self.out:
            bad.append("a traceback")
        if self.code == 2 and len(error_lines(self.err)) != 1:
            bad.append(f"{len(error_lines(self.err))} error lines")
        return bad

    def describe(self) -> str:
        """One line for a failure report."""
        last = (error_lines(self.err) or self.err.strip().splitlines() or [""])[-1]
        return f"{self.command} {' '.join(self.argv)[:160]}: {', '.join(self.problems())}: {last[:300]}"


def error_lines(err: str) -> list[str]:
    """stderr without argparse's `usage:` block: the lines that say what went wrong."""
    out, in_usage = [], False
    for line in err.splitlines():
        if line.startswith("usage:"):
            in_usage = True
            continue
        if in_usage and line.startswith(" "):
            continue
        in_usage = False
        if line.strip():
            out.append(line)
    return out


@contextlib.contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    def ring(signum: int, frame: object) -> None:
        raise Hang

    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _text_stream(data: bytes = b"") -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="surrogateescape")


def run_in_process(command: str, main: Callable[[list[str]], int | None], argv: list[str],
                   stdin: bytes = b"", limit: float = 60.0) -> Outcome:
    """Call a command's `main(argv)` with captured stdin/stdout/stderr; a
    SystemExit is its exit status; more than `limit` seconds is a hang."""
    out, err = _text_stream(), _text_stream()
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = _text_stream(stdin), out, err
    t0 = time.monotonic()
    hung = False
    code: int | None
    try:
        with _deadline(limit):
            try:
                code = main(argv)
                code = 0 if code is None else code
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except Hang:
        hung, code = True, None
    except Exception as exc:  # escaped the command entirely: a traceback for the user
        import traceback

        err.write("Traceback (most recent call last):\n" + "".join(traceback.format_exception(exc)))
        code = None
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    texts = []
    for s in (out, err):
        s.flush()
        texts.append(s.buffer.getvalue().decode("utf-8", "replace"))  # type: ignore[attr-defined]
    return Outcome(command, argv, code, texts[0], texts[1], time.monotonic() - t0, hung)


def commands() -> dict[str, Callable[[list[str]], int | None]]:
    """The four commands' in-process entry points."""
    from fuzz.cli import main as fuzz_main
    from fuzz.reduce_cli import main as reduce_main
    from oracle.cli import main as oracle_main
    from vectorizer.cli import main as veczc_main

    return {"veczc": veczc_main, "vecz-oracle": oracle_main, "vecz-fuzz": fuzz_main,
            "reduce-failure": reduce_main}


if __name__ == "__main__":  # pragma: no cover - an exploration helper
    import tempfile

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    cmds = commands()
    inputs = real_inputs()
    mut = Mutator(seed)
    times: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(n):
            name, data = inputs[i % len(inputs)]
            path = os.path.join(tmp, f"m{i}.ll")
            with open(path, "wb") as f:
                f.write(mut.mutate(data))
            for cmd, argv in (("veczc", [path, "-S", "-o", os.path.join(tmp, "o.ll")]),
                              ("vecz-oracle", [path, "--widths", "4", "--timeout", "2"]),
                              ("reduce-failure", [path, "--time", "5", "--timeout", "2", "-o",
                                                  os.path.join(tmp, "r.ll")])):
                o = run_in_process(cmd, cmds[cmd], argv)
                times[cmd] = times.get(cmd, 0.0) + o.seconds
                if o.problems():
                    print(f"[{name}] {o.describe()}", flush=True)
    print({k: round(v, 1) for k, v in times.items()})
