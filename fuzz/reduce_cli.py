"""`reduce-failure CASE`: minimise a failing case and file it in `corpus/`.

    reduce-failure failing.ll [--corpus DIR] [--time 300] [--mutate OP] [--peer CMD] [-o OUT]

A generated case (its `origin` header names `fuzz.generate seed=N knobs=K`)
first has its choice sequence shrunk, then any case has its IR reduced
(fuzz.reduce). The result is written in the case format with its origin and
the failure it reproduces; before/after sizes are printed. Exit 0 when a
reduced case was written, 1 when the case does not fail, 2 on bad input or
usage (one line on stderr), 130 interrupted (oracle.cmdline).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from oracle.cmdline import (
    ArgumentParser,
    UsageError,
    check_case_limits,
    check_ir,
    long_seconds_arg,
    nonempty_arg,
    parse_args,
    read_text,
    run_command,
    seconds_arg,
    write_text,
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `reduce-failure`."""
    p = ArgumentParser(prog="reduce-failure", description=__doc__.split("\n")[0])
    p.add_argument("case", help="a case file (.ll with a vecz-case header) or any LLVM IR ('-': stdin)")
    p.add_argument("--corpus", default=None, type=nonempty_arg,
                   help="directory to file the reduced case in (default: corpus/)")
    p.add_argument("-o", "--output", type=nonempty_arg,
                   help="write the reduced case here instead of the corpus")
    p.add_argument("--time", type=long_seconds_arg, default=300.0,
                   help="time budget in seconds (default 300)")
    p.add_argument("--mutate", metavar="OP", help="reduce a failure of our output with this fault injected")
    p.add_argument("--peer", metavar="CMD", help="reduce a failure of this peer vectorizer (template)")
    p.add_argument("--peer-mux", action="store_true")
    p.add_argument("--timeout", type=seconds_arg, default=10.0, help="seconds per kernel run")
    p.add_argument("-v", "--verbose", action="store_true", help="log every accepted step on stderr")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of `reduce-failure` (exit statuses: see the module doc)."""
    ns = parse_args(build_parser(), argv)
    if isinstance(ns, int):
        return ns
    from oracle import CaseError
    from oracle.worker import WorkerConfigError, pool_size

    from .campaign import CampaignError
    from .reduce import ReduceError

    def body() -> int:
        pool_size()
        try:
            return _run(ns)
        except ReduceError as exc:
            print(f"reduce-failure: {exc}", file=sys.stderr)
            return 1

    return run_command("reduce-failure", body, expected=(CaseError, CampaignError, WorkerConfigError))


def _check_writable(output: str | None, corpus: str | None) -> None:
    """Fail before a long reduction, not after it, when its result cannot be written."""
    if output is not None:
        d = Path(output).parent
        if Path(output).is_dir() or not d.is_dir() or not os.access(d, os.W_OK):
            raise UsageError(f"cannot write {output}: not a writable file path")
    elif corpus is not None:
        try:
            Path(corpus).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot use corpus directory {corpus}: {exc.strerror or exc}") from None
        if not os.access(corpus, os.W_OK):
            raise UsageError(f"cannot use corpus directory {corpus}: not writable")


def _run(ns: argparse.Namespace) -> int:
    from oracle import parse_case

    from .campaign import Spec
    from .corpus import write_case
    from .reduce import reduce_case

    text = read_text(ns.case, "a case or LLVM IR text")
    name = "<stdin>" if ns.case == "-" else ns.case
    case = parse_case(text)
    check_case_limits(case, f"{name}: ")
    check_ir(text, case.ir, name)
    if text.endswith(case.ir):
        # The reducer's own reader takes LLVM's printed form only (opaque
        # pointers, upgraded intrinsics): reduce the module LLVM read.
        from vectorizer.llvm_bridge import canonicalize

        text = text[: len(text) - len(case.ir)] + canonicalize(case.ir)
    spec = Spec(peer=ns.peer, peer_mux=ns.peer_mux, mutate=ns.mutate, timeout=ns.timeout)
    spec.validate()
    _check_writable(ns.output, ns.corpus)
    log = (lambda s: print(s, file=sys.stderr)) if ns.verbose else (lambda s: None)
    res = reduce_case(text, spec, seconds=ns.time, log=log)
    if ns.output:
        write_text(ns.output, res.text)
        path = ns.output
    else:
        path = str(write_case(res.text, res.target.failure["status"], ns.corpus))
    print(f"{res.target.signature}: {res.before} -> {res.after} instructions "
          f"({res.checks} checks, {res.seconds:.0f}s) -> {path}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
