"""veczc: the vectorizer as a command, option-compatible with Vecz's veczc
where that makes sense.

    veczc [-k NAME[:SPEC,...]]... [-w W] [-d D] [-S] [-o OUT] [--vecz-choices=C]
          [-vecz-passes=P,...] [--print-pipeline] [--print-after=PASS]
          [--print-after-all] [--print-dir DIR] [--time-passes] [--verify-each]
          [--verify-analyses] [--remarks] [--stats] [INPUT]

SPEC is Vecz's kernel specification: `<vf>[.<dim>][@<simd>][s][a]`, where
<vf> is a width or `a` (automatic), <dim> is 1, 2 or 3 (x, y, z) and
`@<n>` the local size to assume along that dimension. `s` (scalable
vectors) is refused: the vectorizer emits fixed-width vectors only.
Exit status: 0 done, 1 a requested kernel was not vectorized, 2 bad input or
usage, 3 an internal error.
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
from .pass_manager import format_timings
from .passes import PASSES, PipelineError, parse_pipeline
from .pipeline import KernelOutcome, KernelRequest, PipelineOptions, VectorizerBug, vectorize_module
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
        if simd == 0:
            raise UsageError(f"bad kernel specification {spec!r} in -k {text!r}: the local size @0 must be at least 1")
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
    p.add_argument("-vecz-target-triple", "--vecz-target-triple", dest="target_triple", default=None,
                   metavar="TRIPLE", help="the target triple: accepted when it names the host's architecture "
                                          "(code is generated for the host CPU only), refused otherwise")
    p.add_argument("-vecz-passes", "--vecz-passes", dest="passes", default=None, metavar="PASS,...",
                   help="run this pass sequence instead of the default pipeline (see --print-pipeline)")
    p.add_argument("--print-pipeline", "-print-pipeline", dest="print_pipeline", action="store_true",
                   help="print the pass pipeline (the default, or -vecz-passes') and exit")
    p.add_argument("--print-after", "-print-after", dest="print_after", action="append", default=[],
                   metavar="PASS", help="print the kernel's IR after PASS (repeatable, or comma-separated)")
    p.add_argument("--print-after-all", "-print-after-all", dest="print_after_all", action="store_true",
                   help="print the kernel's IR after every pass")
    p.add_argument("--print-dir", dest="print_dir", default=None, metavar="DIR",
                   help="write --print-after dumps into DIR (NNN-<kernel>-<pass>.ll) instead of standard error")
    p.add_argument("--time-passes", "-time-passes", dest="time_passes", action="store_true",
                   help="print seconds per pass and per analysis, and how often each analysis was computed")
    p.add_argument("--verify-each", "-verify-each", dest="verify_each", action="store_true",
                   help="run LLVM's verifier after every pass; a failure names the pass")
    p.add_argument("--verify-analyses", "-verify-analyses", dest="verify_analyses", action="store_true",
                   help="check the analyses against independent reference computations after every pass "
                        "(a debug mode); a difference is an internal error naming the analysis")
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


def _check_triple(triple: str) -> None:
    """Accept a triple naming the host's architecture; anything else is a
    usage error (there is no cross-compilation: the target is the host CPU)."""
    import llvmlite.binding as llvm

    host = llvm.get_process_triple()
    arch = triple.split("-", 1)[0].lower()
    aliases = {"amd64": "x86_64", "x86-64": "x86_64", "arm64": "aarch64"}
    if not arch or aliases.get(arch, arch) != aliases.get(host.split("-", 1)[0], host.split("-", 1)[0]):
        raise UsageError(f"-vecz-target-triple {triple!r}: this veczc generates code for the host "
                         f"({host}) only")


def _pipeline_options(args) -> PipelineOptions:
    """The pass pipeline and observation options, checked (usage errors)."""
    try:
        names = parse_pipeline(args.passes)
    except PipelineError as exc:
        raise UsageError(f"-vecz-passes: {exc}") from None
    after: set[str] = set()
    for item in args.print_after:
        for name in (n.strip() for n in item.split(",")):
            if name not in PASSES:
                raise UsageError(f"--print-after: unknown pass {name!r} (veczc --print-pipeline lists them)")
            after.add(name)
    options = PipelineOptions(passes=names, print_after=frozenset(after), print_after_all=args.print_after_all,
                              verify_each=args.verify_each, verify_analyses=args.verify_analyses)
    if after or args.print_after_all:
        options.emit = _dump_to_dir(args.print_dir) if args.print_dir else _dump_to_stderr
    elif args.print_dir:
        raise UsageError("--print-dir needs --print-after or --print-after-all")
    return options


def _dump_to_stderr(kernel: str, pass_name: str, ir: str) -> None:
    print(f"; *** IR Dump After {pass_name} on {kernel} ***\n{ir.rstrip()}\n", file=sys.stderr)


def _dump_to_dir(folder: str):
    """An emitter writing each dump to `folder/NNN-<kernel>-<pass>.ll`."""
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--print-dir {folder}: {exc.strerror or exc}") from None
    count = [0]

    def emit(kernel: str, pass_name: str, ir: str) -> None:
        count[0] += 1
        safe = re.sub(r"[^-\w.]", "_", kernel)
        path = os.path.join(folder, f"{count[0]:03d}-{safe}-{pass_name}.ll")
        with open(path, "w") as f:
            f.write(f"; *** IR Dump After {pass_name} on {kernel} ***\n{ir.rstrip()}\n")

    return emit


def _local_size_remark(spec: KernelSpec, width: int | None) -> str | None:
    """What `@<n>` (the local size to assume) did for a fixed width."""
    if spec.simd_width is None or width is None:
        return None
    if spec.simd_width % width == 0:
        return (f"local size {spec.simd_width} assumed: {spec.simd_width // width} whole packet(s) "
                "per work-group, no predication needed")
    return (f"local size {spec.simd_width} assumed: not a multiple of the width {width}, "
            "so VectorPredication makes the last packet's extra lanes inactive")


_OPENCL_KERNELS = re.compile(r"^!opencl\.kernels = !\{(.*)\}$", re.M)


def add_opencl_kernel_entries(text: str, outcomes: list[KernelOutcome]) -> str:
    """Give each vectorized kernel an `!opencl.kernels` entry copied from its
    scalar kernel's (same argument metadata), when the module lists kernels so."""
    m = _OPENCL_KERNELS.search(text)
    done = [o for o in outcomes if o.vectorized_name]
    if not m or not done:
        return text
    nodes = dict(re.findall(r"^(!\d+) = (!\{.*\})$", text, re.M))
    refs = [r.strip() for r in m.group(1).split(",") if r.strip()]
    next_id = max((int(k[1:]) for k in nodes), default=-1) + 1
    added = []
    for o in done:
        orig = _quote(o.request.kernel)
        for ref in refs:
            body = nodes.get(ref, "")
            hit = re.match(rf"^!\{{ptr @{re.escape(orig)}(?=[,}}])(.*)$", body)
            if hit:
                added.append(f"!{next_id} = !{{ptr @{_quote(o.vectorized_name)}{hit.group(1)}")
                refs.append(f"!{next_id}")
                next_id += 1
                break
    if not added:
        return text
    text = text[: m.start()] + f"!opencl.kernels = !{{{', '.join(refs)}}}" + text[m.end():]
    return llvm_bridge.canonicalize(text.rstrip("\n") + "\n" + "\n".join(added) + "\n")


def _quote(name: str) -> str:
    return name if re.match(r"^[-a-zA-Z$._][-a-zA-Z$._0-9]*$", name) else '"' + name + '"'


def run(argv: list[str] | None = None) -> int:
    """veczc's body; returns the exit status."""
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        raise UsageError(f"unknown option {unknown[0]!r}")
    options = _pipeline_options(args)
    if args.print_pipeline:
        print(",".join(options.names()))
        return 0
    if args.dim not in (0, 1, 2):
        raise UsageError(f"-d {args.dim}: the dimension must be 0, 1 or 2")
    width = args.width if args.width is not None else args.simd_width
    if width is not None and not 1 <= width <= 64:
        raise UsageError(f"-w {width}: the width must be between 1 and 64")
    if args.scalable:
        raise UsageError("-vecz-scalable: scalable vectors are not supported "
                         "(the vectorizer emits fixed-width vectors only)")
    if args.target_triple is not None:
        _check_triple(args.target_triple)
    try:
        choices = choices_from_environment(VectorizationChoices())
        choices = parse_choices(args.choices, choices)
    except ChoiceError as exc:
        raise UsageError(str(exc)) from None
    specs: list[KernelSpec] = []
    for k in args.kernels:
        specs.extend(parse_kernel_spec(k))
    for s in specs:
        if s.scalable:
            raise UsageError(f"-k {s.kernel}: scalable vectorization ('s') is not supported "
                             "(the vectorizer emits fixed-width vectors only)")

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
    if not specs:
        specs = [KernelSpec(name, None, None) for name in _kernel_names(canonical)]
    requests: list[KernelRequest] = []
    local_remarks: list[str | None] = []
    for s in specs:
        w = s.width if s.width is not None else width
        auto = s.auto or (args.auto and s.width is None)
        dim = s.dim if s.dim is not None else args.dim
        req_width = None if auto else (w or 4)
        req_choices = choices
        remark = _local_size_remark(s, req_width)
        if req_width is not None and s.simd_width is not None and s.simd_width % req_width:
            req_choices = choices.with_("VectorPredication")
        requests.append(KernelRequest(s.kernel, req_width, dim, req_choices,
                                      local_size=s.simd_width if auto else None))
        local_remarks.append(remark)

    try:
        text, outcomes = vectorize_module(canonical, requests, target, options)
    except KeyError as exc:
        raise UsageError(str(exc.args[0])) from None
    for out, remark in zip(outcomes, local_remarks, strict=True):
        if remark:
            out.remarks.insert(0, remark)
    failed = False
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
    if args.time_passes:
        print(format_timings(options.timings, options.analyses), file=sys.stderr)
    text = add_opencl_kernel_entries(text, outcomes)

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
