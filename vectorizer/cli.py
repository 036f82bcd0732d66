"""veczc: the vectorizer as a command, option-compatible with Vecz's veczc
where that makes sense.

    veczc [-k NAME[:SPEC,...]]... [-w W] [-d D] [-S] [-o OUT] [--vecz-choices=C]
          [--remarks] [--stats] [INPUT]

SPEC is Vecz's kernel specification: `<vf>[.<dim>][@<simd>][s][a]`, where
<vf> is a width or `a` (automatic) and <dim> is 1, 2 or 3 (x, y, z).
Exit status: 0 done, 1 a requested kernel was not vectorized, 2 bad input or
usage.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import dataclass

from . import llvm_bridge
from .choices import ChoiceError, VectorizationChoices, choices_from_environment, parse_choices
from .pipeline import KernelRequest, VectorizerBug, vectorize_module
from .target import host_target, with_features


class UsageError(Exception):
    """Bad command-line usage; exit status 2."""


@dataclass
class KernelSpec:
    """One `-k` entry expanded: a kernel and one configuration."""

    kernel: str
    width: int | None
    dim: int | None
    scalable: bool = False
    simd_width: int | None = None
    auto: bool = False


_SPEC = re.compile(r"^(?P<vf>\d+|a)(?:\.(?P<dim>[123]))?(?:@(?P<simd>\d+))?(?P<s>s)?(?P<a>a)?$")


def parse_kernel_spec(text: str) -> list[KernelSpec]:
    """Expand `name[:spec,spec...]` (the seed's BNF) into one entry per spec."""
    name, _, specs = text.partition(":")
    # LLVM's identifier grammar: [-a-zA-Z$._][-a-zA-Z$._0-9]*
    if not re.match(r"^[-A-Za-z_.$][-\w.$]*$", name):
        raise UsageError(f"bad kernel name in -k {text!r}")
    if not _:
        return [KernelSpec(name, None, None)]
    out: list[KernelSpec] = []
    for spec in specs.split(","):
        m = _SPEC.match(spec)
        if not m:
            raise UsageError(f"bad kernel specification {spec!r} in -k {text!r}")
        vf = m.group("vf")
        width = None if vf == "a" or m.group("a") else int(vf)
        dim = int(m.group("dim")) - 1 if m.group("dim") else None
        simd = int(m.group("simd")) if m.group("simd") else None
        out.append(KernelSpec(name, width, dim, bool(m.group("s")), simd, width is None))
    return out


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="veczc",
        description="Vectorize SPMD kernels in LLVM IR: adds __vecz_v<W>_<kernel> beside each kernel.",
    )
    p.add_argument("input", nargs="?", default="-", help="input .ll, .bc or OpenCL C .cl (default: standard input)")
    p.add_argument("-k", dest="kernels", action="append", default=[], metavar="NAME[:SPEC,...]",
                   help="kernel to vectorize (repeatable); default: every spir_kernel")
    p.add_argument("-w", dest="width", type=int, default=None, help="vectorization width (default 4)")
    p.add_argument("-vecz-simd-width", "--vecz-simd-width", dest="simd_width", type=int, default=None,
                   help="same as -w")
    p.add_argument("-d", dest="dim", type=int, default=0, help="dimension to vectorize: 0, 1 or 2")
    p.add_argument("-o", dest="output", default="-", help="output file (default: standard output)")
    p.add_argument("-S", dest="text", action="store_true", help="write LLVM text instead of bitcode")
    p.add_argument("-vecz-choices", "--vecz-choices", dest="choices", default=None,
                   help="';'-separated Vecz choices (also from VECZ_CHOICES)")
    p.add_argument("-vecz-auto", "--vecz-auto", dest="auto", action="store_true",
                   help="pick the width automatically")
    p.add_argument("-vecz-scalable", "--vecz-scalable", dest="scalable", action="store_true",
                   help="scalable vectors (not supported: refused)")
    p.add_argument("-vecz-target-features", "--vecz-target-features", dest="target_features", default=None,
                   metavar="FEATURES",
                   help="target the host CPU adjusted by LLVM-style features, e.g. '+avx512f' (512-bit "
                        "registers) or '-fast-gather' (gathers expand lane by lane); write it as "
                        "-vecz-target-features=... when the list starts with '-'")
    p.add_argument("--remarks", action="store_true", help="print remarks on standard error")
    p.add_argument("--stats", action="store_true", help="print statistics (JSON) on standard error")
    return p


_BITCODE_MAGIC = (b"BC\xc0\xde", b"\xde\xc0\x17\x0b")


def _read_input(path: str) -> bytes:
    """The input's bytes: bitcode as it is, text only when it is UTF-8 without
    NUL bytes (LLVM's reader would stop at a NUL and accept a truncated module)."""
    name = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            if sys.stdin is None:
                raise UsageError("standard input is closed")
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except IsADirectoryError:
        raise UsageError(f"{name}: is a directory") from None
    except OSError as exc:
        raise UsageError(f"cannot read {name}: {exc.strerror or exc}") from None
    if data.startswith(_BITCODE_MAGIC):
        return data
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise UsageError(f"{name}:{line}: not UTF-8 text (byte 0x{data[exc.start]:02x}); "
                         "expected LLVM IR or bitcode") from None
    nul = text.find("\0")
    if nul >= 0:
        raise UsageError(f"{name}:{text.count(chr(10), 0, nul) + 1}: a NUL byte; expected LLVM IR text")
    return data


def _kernel_names(text: str) -> list[str]:
    return re.findall(r"^define\s[^@]*\bspir_kernel\b[^@]*@\"?([-\w.$]+)\"?\(", text, re.M)


def run(argv: list[str] | None = None) -> int:
    """veczc's body; returns the exit status."""
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    # Vecz's own pass selection and target triple have no meaning here.
    ignorable = ("-vecz-passes", "--vecz-passes", "-vecz-target-triple", "--vecz-target-triple")
    bad = [u for u in unknown if not u.startswith(ignorable)]
    if bad:
        raise UsageError(f"unknown option {bad[0]!r}")
    if args.dim not in (0, 1, 2):
        raise UsageError(f"-d {args.dim}: the dimension must be 0, 1 or 2")
    width = args.width if args.width is not None else args.simd_width
    if width is not None and not 1 <= width <= 64:
        raise UsageError(f"-w {width}: the width must be between 1 and 64")
    try:
        choices = choices_from_environment(VectorizationChoices())
        choices = parse_choices(args.choices, choices)
    except ChoiceError as exc:
        raise UsageError(str(exc)) from None

    target = None
    if args.target_features is not None:
        try:
            target = with_features(host_target(), args.target_features)
        except ValueError as exc:
            raise UsageError(f"-vecz-target-features: {exc}") from None

    # --- OpenCL C input (optional 'opencl' extra; vectorizer/frontend/opencl.py) ---
    if args.input.endswith(".cl"):
        from .frontend.opencl import OpenCLError, compile_opencl

        try:
            src: str | bytes = compile_opencl(args.input)
        except OpenCLError as exc:
            raise UsageError(str(exc)) from None
    else:
        src = _read_input(args.input)
    # --- end OpenCL C input ---
    canonical = llvm_bridge.canonicalize(src)
    specs: list[KernelSpec] = []
    for k in args.kernels:
        specs.extend(parse_kernel_spec(k))
    if not specs:
        specs = [KernelSpec(name, None, None) for name in _kernel_names(canonical)]
    requests: list[KernelRequest] = []
    for s in specs:
        if s.scalable or args.scalable:
            requests.append(KernelRequest(s.kernel, -1, 0, choices))
            continue
        w = s.width if s.width is not None else width
        auto = s.auto or (args.auto and s.width is None)
        dim = s.dim if s.dim is not None else args.dim
        requests.append(KernelRequest(s.kernel, None if auto else (w or 4), dim, choices))

    failed = False
    outcomes = []
    text = canonical
    for req in requests:
        if req.width == -1:
            print(f"veczc: {req.kernel}: scalable vectorization is not supported", file=sys.stderr)
            failed = True
            continue
        try:
            text, outs = vectorize_module(text, [req], target)
        except KeyError as exc:
            raise UsageError(str(exc.args[0])) from None
        outcomes.extend(outs)
    for out in outcomes:
        if out.vectorized_name is None:
            failed = True
            print(f"veczc: {out.request.kernel}: not vectorized: {'; '.join(out.remarks) or 'no reason given'}",
                  file=sys.stderr)
        if args.remarks:
            for r in out.remarks:
                print(f"remark: {out.request.kernel} (w={out.width}): {r}", file=sys.stderr)
    if args.stats:
        print(json.dumps([{"kernel": o.request.kernel, "width": o.width, "vectorized": o.vectorized_name,
                           **o.stats} for o in outcomes]), file=sys.stderr)

    data = text.encode() if args.text else llvm_bridge.parse(text).as_bitcode()
    if args.output == "-":
        _write_stdout(data)
    else:
        try:
            with open(args.output, "wb") as f:
                f.write(data)
        except OSError as exc:
            raise UsageError(f"cannot write {args.output}: {exc.strerror}") from None
    return 1 if failed else 0


class _StdoutError(Exception):
    """Standard output cannot be written (closed, or a full disk)."""


def _write_stdout(data: bytes) -> None:
    if sys.stdout is None:
        raise _StdoutError("it is closed")
    try:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        raise
    except (OSError, ValueError) as exc:
        raise _StdoutError(getattr(exc, "strerror", None) or str(exc)) from None


def _discard_stdout() -> None:
    """Point fd 1 at /dev/null so the interpreter's final flush of what could
    not be written does not fail a second time with a traceback."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.close(fd)
    except OSError:
        pass


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point."""
    try:
        code = run(argv)
    except BrokenPipeError:
        _discard_stdout()
        code = 141  # the reader went away (`veczc ... | head`): a quiet exit
    except _StdoutError as exc:
        _discard_stdout()
        print(f"veczc: error: cannot write standard output: {exc}", file=sys.stderr)
        code = 2
    except UsageError as exc:
        print(f"veczc: error: {exc}", file=sys.stderr)
        code = 2
    except llvm_bridge.IRError as exc:
        print(f"veczc: error: {exc}", file=sys.stderr)
        code = 2
    except ValueError as exc:
        print(f"veczc: error: {exc}", file=sys.stderr)
        code = 2
    except VectorizerBug as exc:
        print(f"veczc: internal error: {exc}", file=sys.stderr)
        code = 3
    sys.exit(code)


if __name__ == "__main__":
    main()
