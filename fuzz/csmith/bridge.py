"""`generate_csmith_kernel(seed) -> CsmithKernel`: a Csmith program as a
divergent SPMD kernel case, checked against the plain C program.

Per attempt: Csmith -> parse -> size filter (trivial programs) -> the C
reference (gcc, with a timeout: some programs never stop) -> the OpenCL
kernel -> clang 22 -> a case file -> the scalar kernel run by the oracle at
every NDRange of the header (fault-free, no timeout, work-item 0's checksum
equal to the C program's, every work-item's checksum the same at every
NDRange) -> the path hashes give the divergence. A rejected program is
replaced by the next Csmith seed derived from the requested one, so every
request yields a kernel, reproducibly.
"""

from __future__ import annotations

import functools
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .compile import compile_kernel
from .reference import ReferenceTimeout, run_reference
from .runner import CsmithError, csmith_options, ensure_csmith, run_csmith
from .transform import (
    KERNEL_NAME,
    TransformError,
    build_kernel,
    cut_float_safe_math,
    parse_program,
    program_size,
)

WIDTHS = (4, 8, 16)
# (global, local) pairs, 1-D. Local sizes that are multiples of 4, 8 and 16
# (full vector chunks only) and ones that are not (scalar remainders).
FULL_RANGES = ((32, 16), (32, 32), (48, 16))
REMAINDER_RANGES = ((30, 10), (24, 12), (36, 12), (21, 7), (40, 20))


class Rejected(CsmithError):
    """This Csmith program is not used (trivial, endless, ...); `reason` says why."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


@dataclass
class CsmithKernel:
    """One Csmith program as a kernel case, with its checks and measurements."""

    seed: int                 # the requested seed
    csmith_seed: int          # the Csmith seed actually used
    case_text: str            # header + LLVM IR: what `oracle.check` / `vecz-oracle` read
    opencl_source: str
    c_source: str
    reference_checksum: int   # the C program's checksum (= work-item 0's)
    checksums: list[int] = field(default_factory=list)   # out[] at the first NDRange
    paths_per_group: list[int] = field(default_factory=list)  # distinct paths, every group of every NDRange
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def kernel(self) -> str:
        return KERNEL_NAME

    @property
    def divergent(self) -> bool:
        """True when some work-group had two or more distinct control-flow paths."""
        return max(self.paths_per_group, default=1) >= 2


@functools.lru_cache(maxsize=1)
def _safe_math() -> str:
    return cut_float_safe_math(ensure_csmith().safe_math.read_text())


def csmith_seed_for(seed: int, attempt: int) -> int:
    """The Csmith seed of attempt `attempt` for request `seed` (attempt 0 is `seed`)."""
    if attempt == 0:
        return seed
    return random.Random(f"csmith-retry:{seed}:{attempt}").randrange(1, 2**31)


def ndranges_for(seed: int) -> list[tuple[int, int]]:
    """Two NDRanges: one whose local size is a multiple of every width, one not."""
    rng = random.Random(f"csmith-ndrange:{seed}")
    return [rng.choice(FULL_RANGES), rng.choice(REMAINDER_RANGES)]


def header(csmith_seed: int, request: int, ranges: list[tuple[int, int]], reference: int,
           paths: bool, knobs: str) -> list[str]:
    """The case header (docs/corpus-format.md)."""
    n = max(g for g, _ in ranges)
    args = f"buf:i64:{n}:zero" + (f" buf:i64:{n}:zero" if paths else "")
    lines = ["; vecz-case: 1", f"; kernel: {KERNEL_NAME}", f"; args: {args}"]
    lines += [f"; ndrange: global={g} local={loc}" for g, loc in ranges]
    lines += [f"; widths: {','.join(map(str, WIDTHS))}", "; dims: 0", "; choices:", "; seed: 0",
              f"; origin: csmith seed={csmith_seed} request={request} {knobs}",
              f"; csmith-reference-checksum: 0x{reference:08X}"]
    return lines


def _build_one(request: int, cseed: int, *, min_size: int, flip_share: float, perturb_share: float,
               paths: bool, verify: bool, ref_timeout: float, run_timeout: float,
               options: list[str], stats: dict[str, Any]) -> CsmithKernel:
    t0 = time.perf_counter()
    c_source = run_csmith(cseed, options)
    t1 = time.perf_counter()
    try:
        prog = parse_program(c_source)
    except TransformError as exc:
        raise Rejected("unparsed", str(exc)) from None
    size = program_size(prog)
    if size < min_size:
        raise Rejected("trivial", f"{size} statements < {min_size}")
    try:
        ref = run_reference(c_source, timeout=ref_timeout)
    except ReferenceTimeout as exc:
        raise Rejected("c-timeout", str(exc)) from None
    t2 = time.perf_counter()
    src = build_kernel(prog, _safe_math(), cseed, flip_share=flip_share,
                       perturb_share=perturb_share, paths=paths)
    from vectorizer.frontend.opencl import OpenCLError

    try:
        ir = compile_kernel(src.text)
    except OpenCLError as exc:
        raise Rejected("compile-error", str(exc)[:2000]) from None
    t3 = time.perf_counter()
    ranges = ndranges_for(cseed)
    knobs = f"flip={flip_share:g} perturb={perturb_share:g}" + ("" if paths else " paths=off")
    case_text = "\n".join(header(cseed, request, ranges, ref.checksum, paths, knobs)) + "\n" + ir
    kern = CsmithKernel(request, cseed, case_text, src.text, c_source, ref.checksum)
    kern.stats.update(stats)
    kern.stats.update(src.stats)
    kern.stats.update(size=size, ir_lines=ir.count("\n"), ir_calls=_count_calls(ir),
                      csmith_s=t1 - t0, reference_s=t2 - t1, compile_s=t3 - t2,
                      reference_run_s=ref.run_seconds)
    if verify:
        _verify(kern, ranges, paths, run_timeout)
    kern.stats["total_s"] = time.perf_counter() - t0
    return kern


def _count_calls(ir: str) -> int:
    """Calls to defined (non-builtin) functions left in the IR after -O2."""
    import re

    defined = set(re.findall(r"^define [^@]*@([\w.$]+)\(", ir, re.M))
    return sum(1 for name in re.findall(r"\bcall [^@]*@([\w.$]+)\(", ir) if name in defined)


def _verify(kern: CsmithKernel, ranges: list[tuple[int, int]], paths: bool, timeout: float) -> None:
    """Run the scalar kernel at every NDRange; reject it unless it is clean."""
    import oracle

    t0 = time.perf_counter()
    first: list[int] | None = None
    for g, loc in ranges:
        try:
            bufs = oracle.run_scalar(kern.case_text, f"global={g} local={loc}", timeout=timeout)
        except RuntimeError as exc:
            reason = "kernel-timeout" if "timeout" in str(exc) else "scalar-fault"
            raise Rejected(reason, str(exc)) from None
        out = [int(x) for x in bufs[0][:g]]
        if out[0] != kern.reference_checksum:
            # Not a property of the program: a bridge (or compiler) bug. Say so loudly.
            raise Rejected("wi0-mismatch", f"work-item 0 checksum 0x{out[0]:08X} != C reference "
                                           f"0x{kern.reference_checksum:08X} at global={g} local={loc}")
        if first is None:
            first = out
            kern.checksums = out
        elif out[: len(first)] != first[: len(out)]:
            raise Rejected("ndrange-dependent", "checksums differ between NDRanges")
        if paths:
            hashes = [int(x) for x in bufs[1][:g]]
            for base in range(0, g, loc):
                kern.paths_per_group.append(len(set(hashes[base:base + loc])))
        kern.stats["distinct_checksums"] = len(set(out))
    kern.stats["verify_s"] = time.perf_counter() - t0
    if paths:
        kern.stats["max_paths_per_group"] = max(kern.paths_per_group)


def generate_csmith_kernel(seed: int, *, attempts: int = 20, min_size: int = 12,
                           flip_share: float = 1.0, perturb_share: float = 0.5, paths: bool = True,
                           verify: bool = True, ref_timeout: float = 2.0, run_timeout: float = 3.0,
                           max_funcs: int = 3, max_block_depth: int = 3,
                           max_expr_complexity: int = 6) -> CsmithKernel:
    """A checked Csmith kernel for `seed` (same seed, same kernel).

    Csmith seeds are tried from `seed` on (see `csmith_seed_for`) until one
    passes every filter; `stats["rejected"]` counts why earlier ones did not.
    `verify=False` skips the scalar runs (no oracle; no divergence figures).
    Raises `CsmithError` when Csmith is unavailable or `attempts` run out.
    """
    options = csmith_options(max_funcs=max_funcs, max_block_depth=max_block_depth,
                             max_expr_complexity=max_expr_complexity)
    rejected: Counter[str] = Counter()
    last = ""
    for attempt in range(attempts):
        cseed = csmith_seed_for(seed, attempt)
        try:
            return _build_one(seed, cseed, min_size=min_size, flip_share=flip_share,
                              perturb_share=perturb_share, paths=paths, verify=verify,
                              ref_timeout=ref_timeout, run_timeout=run_timeout, options=options,
                              stats={"attempts": attempt + 1, "rejected": dict(rejected)})
        except Rejected as exc:
            rejected[exc.reason] += 1
            last = str(exc)
    raise CsmithError(f"no usable Csmith program for seed {seed} in {attempts} attempts "
                      f"({dict(rejected)}); last: {last[:500]}")


def generate(seed: int, **opts: Any) -> str:
    """The case text for `seed`: the `fuzz.generate` shape, for campaigns
    (`opts` as for `generate_csmith_kernel`)."""
    return generate_csmith_kernel(seed, **opts).case_text
