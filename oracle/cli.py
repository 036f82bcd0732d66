"""`vecz-oracle`: check a kernel file (a case, or any LLVM IR) scalar against
vectorized over a configuration matrix.

Exit status: 1 if any configuration is a mismatch, vector-fault, timeout or
vectorizer-error; 2 for bad input or usage (one line on stderr); else 0
(130, 141 and 3: see oracle.cmdline).
"""

from __future__ import annotations

import argparse
import json
import sys

from .case import CaseError, NDRange, parse_case, parse_ndrange
from .cmdline import (
    ArgumentParser,
    UsageError,
    check_case_limits,
    check_ir,
    check_ndrange_limits,
    int_list_arg,
    nonempty_arg,
    parse_args,
    read_text,
    run_command,
    seconds_arg,
    seed_arg,
)
from .worker import WorkerConfigError, pool_size


def local_size_ndranges(text: str) -> list[NDRange]:
    """`16,12,4x4,8x2x2` -> NDRanges with those local sizes and a few groups
    per dimension (4 in 1-D, 2x2(x2) otherwise)."""
    out = []
    for item in text.replace(" ", "").split(","):
        if not item:
            continue
        try:
            loc = [int(v) for v in item.lower().split("x")]
        except ValueError:
            raise CaseError(f"bad local size {item!r}") from None
        if not 1 <= len(loc) <= 3:
            raise CaseError(f"bad local size {item!r}")
        groups = [4] if len(loc) == 1 else [2] * len(loc)
        glob = [n * g for n, g in zip(loc, groups, strict=True)]
        out.append(parse_ndrange(f"global={','.join(map(str, glob))} local={','.join(map(str, loc))}"))
    return out


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `vecz-oracle`."""
    p = ArgumentParser(prog="vecz-oracle", description=__doc__.split("\n")[0])
    p.add_argument("file", help="a case file or LLVM IR text ('-' for stdin)")
    p.add_argument("-k", "--kernel", type=nonempty_arg,
                   help="kernel to check (default: the case's, or inferred)")
    p.add_argument("--widths", type=int_list_arg, help="vector widths, e.g. 1,4,8,16 (1..64)")
    p.add_argument("--dims", type=int_list_arg, help="vectorization dimensions, e.g. 0,1")
    p.add_argument("--choices", action="append",
                   help="a Vecz choices string (';'-separated); repeat for several")
    p.add_argument("--local-sizes", help="local sizes to run, e.g. 16,12,1,4x4")
    p.add_argument("--ndrange", action="append",
                   help="an NDRange 'global=X[,Y,Z] local=X[,Y,Z] [offset=...]'; repeatable")
    p.add_argument("--seed", type=seed_arg, help="buffer fill seed (default: the case's)")
    p.add_argument("--timeout", type=seconds_arg, default=10.0,
                   help="seconds per run, a positive number (default 10)")
    p.add_argument("--opt", type=int, default=0, choices=[0, 1, 2, 3],
                   help="LLVM optimisation level of the JIT module (default 0: compile time dominates)")
    p.add_argument("--vectorized", metavar="NAME", type=nonempty_arg,
                   help="check an already vectorized function in the file (needs --width)")
    p.add_argument("--width", type=int, help="width of --vectorized")
    p.add_argument("--dim", type=int, default=0, help="dimension of --vectorized (default 0)")
    p.add_argument("--target-features", metavar="LIST",
                   help="vectorize for the host adjusted by an LLVM-style feature list, as veczc's "
                        "-vecz-target-features (e.g. --target-features=-fast-gather: a target "
                        "without fast gathers; write '=' when the list starts with '-')")
    p.add_argument("--json", action="store_true", help="print the JSON report")
    return p


def _table(report: object) -> str:
    rows = [("width", "dim", "choices", "global", "local", "status", "detail")]
    for r in report.results:  # type: ignore[attr-defined]
        detail = r.detail if len(r.detail) <= 110 else r.detail[:107] + "..."
        rows.append((str(r.width), str(r.dim), r.choices or "-", "x".join(map(str, r.global_size)),
                     "x".join(map(str, r.local_size)), r.status, detail))
    widths = [max(len(row[i]) for row in rows) for i in range(6)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row[:6], widths, strict=True)) + "  " + row[6]
             for row in rows]
    summary = ", ".join(f"{k}: {v}" for k, v in sorted(report.summary.items()))  # type: ignore[attr-defined]
    return "\n".join(lines) + f"\nkernel {report.kernel}: {summary}"  # type: ignore[attr-defined]


def main(argv: list[str] | None = None) -> int:
    """Entry point of `vecz-oracle`."""
    ns = parse_args(build_parser(), argv)
    if isinstance(ns, int):
        return ns
    return run_command("vecz-oracle", lambda: _run(ns), expected=(CaseError, WorkerConfigError))


def _defines(module: object, function: str) -> bool:
    try:
        return not module.get_function(function).is_declaration  # type: ignore[attr-defined]
    except NameError:
        return False


def _run(ns: argparse.Namespace) -> int:
    from .check import check as run_check

    pool_size()  # a bad VECZ_ORACLE_WORKERS is a usage error now, not in a worker thread
    text = read_text(ns.file)
    name = "<stdin>" if ns.file == "-" else ns.file
    case = parse_case(text)
    check_case_limits(case, f"{name}: ")
    module = check_ir(text, case.ir, name)
    if ns.vectorized and not _defines(module, ns.vectorized):
        raise UsageError(f"--vectorized {ns.vectorized}: {name} defines no function of that name")
    ndranges: list[NDRange] | None = None
    if ns.local_sizes:
        ndranges = local_size_ndranges(ns.local_sizes)
    if ns.ndrange:
        ndranges = (ndranges or []) + [parse_ndrange(n) for n in ns.ndrange]
    for nd in ndranges or ():
        check_ndrange_limits(nd)
    widths, dims = ns.widths, ns.dims
    if ns.vectorized:
        if ns.width is None:
            raise UsageError("--vectorized needs --width")
        widths, dims = [ns.width], [ns.dim]
    report = run_check(
        text, kernel=ns.kernel, widths=widths, dims=dims, choices=ns.choices,
        ndranges=ndranges, vectorized=ns.vectorized, timeout=ns.timeout, seed=ns.seed,
        opt=ns.opt, target_features=ns.target_features,
    )
    if ns.json:
        print(json.dumps(report.to_json()))
    else:
        print(_table(report))
    return 1 if report.failed else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
