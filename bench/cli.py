"""vecz-bench: generated-code quality against LLVM's LoopVectorize, and the
vectorizer's own compile time.

    vecz-bench [--kernels a,b] [--widths 4,8,16] [--no-auto] [--size small|default]
               [--repeat N] [--json] [--plot FILE] [--peer CMD] [--peer-width W]
    vecz-bench compile-time [--sizes 10,100,...] [--repeat N] [--json] [--plot FILE] [--profile]
    vecz-bench divergence [--kernels mandelbrot,collatz] [--widths 4,8,16] [--size S] [--json]

The first form prints a markdown table on stdout (or one JSON object with
`--json`); progress goes to stderr. Exit status: 0 done, 1 a configuration
produced wrong results or crashed, 2 bad usage.
"""

from __future__ import annotations

import argparse
import json
import sys

from .suite import KERNELS, SIZES
from .usage import UsageError, check_plot_backend, int_list

__all__ = ["UsageError", "main", "run"]


def _run_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="vecz-bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--kernels", default=None, help=f"comma-separated subset of: {', '.join(KERNELS)}")
    p.add_argument("--widths", default="4,8,16", help="our vectorization widths (default 4,8,16)")
    p.add_argument("--no-auto", action="store_true", help="skip the automatic-width configuration")
    p.add_argument("--size", choices=SIZES, default="default", help="problem size (default: default)")
    p.add_argument("--repeat", type=int, default=None, help="timed runs per configuration (default 5; 3 when small)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    p.add_argument("--plot", metavar="FILE", help="write a PNG bar chart (needs matplotlib: the 'bench' extra)")
    p.add_argument("--peer", metavar="CMD",
                   help="another vectorizer as a command template, e.g. "
                        "'veczc -k {kernel} -w {width} -d {dim} -S {input} -o {output}'")
    p.add_argument("--peer-width", type=int, default=8, help="the {width} given to --peer (default 8)")
    return p


def run(argv: list[str]) -> int:
    """The benchmark run; returns the exit status."""
    from . import report
    from .runner import Options, run_all

    args = _run_parser().parse_args(argv)
    names = list(KERNELS)
    if args.kernels:
        names = [k.strip() for k in args.kernels.split(",") if k.strip()]
        unknown = [k for k in names if k not in KERNELS]
        if unknown:
            raise UsageError(f"unknown kernel(s) {', '.join(unknown)}; known: {', '.join(KERNELS)}")
    if args.plot:
        check_plot_backend()
    if args.repeat is not None and args.repeat < 1:
        raise UsageError("--repeat must be at least 1")
    if args.peer:
        try:
            args.peer.format(kernel="k", width=1, dim=0, input="i", output="o")
        except (KeyError, IndexError, ValueError) as exc:
            raise UsageError(f"--peer: bad template ({exc}); fields are {{kernel}} {{width}} {{dim}} {{input}} {{output}}") from None
    opts = Options(
        size=args.size,
        widths=int_list(args.widths, "--widths"),
        auto=not args.no_auto,
        repeat=args.repeat or (3 if args.size == "small" else 5),
        peer=args.peer,
        peer_width=args.peer_width,
    )
    results = run_all(names, opts)
    if args.json:
        print(json.dumps(report.to_json(results, opts), indent=1))
    else:
        sys.stdout.write(report.markdown(results, opts))
    if args.plot:
        report.plot(results, args.plot)
        print(f"vecz-bench: wrote {args.plot}", file=sys.stderr)
    failing = {"mismatch", "crashed"}
    return 1 if any(m.status in failing for r in results for m in r.measurements) else 0


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] == "compile-time":
            from .compile_time import main as ct_main

            code = ct_main(argv[1:])
        elif argv and argv[0] == "divergence":
            from .divergence import main as div_main

            code = div_main(argv[1:])
        else:
            code = run(argv)
    except UsageError as exc:
        print(f"vecz-bench: error: {exc}", file=sys.stderr)
        code = 2
    except KeyboardInterrupt:
        print("vecz-bench: interrupted", file=sys.stderr)
        code = 130
    sys.exit(code)


if __name__ == "__main__":
    main()
