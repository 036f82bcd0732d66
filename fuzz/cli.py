"""`vecz-fuzz`: the generator's command line.

    vecz-fuzz generate --seed 7 [-o k.ll] [--profile loops] [--knob size=30] [--plan]
    vecz-fuzz coverage --count 1000 [--seed 0] [--plans-only] [--knob ...]
    vecz-fuzz check-scalar --count 1000 [--jobs N]   # UB-freedom: no scalar-fault

Subcommands are registered in `SUBCOMMANDS` (name -> (add_arguments, run)),
so later commands (campaigns) plug in without touching the others.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import fields
from typing import Any

from .knobs import PROFILES, Knobs


def parse_knob(text: str) -> tuple[str, Any]:
    """`name=value` with the value converted to the knob's type."""
    name, sep, raw = text.partition("=")
    name = name.strip().replace("-", "_")
    types = {f.name: f.type for f in fields(Knobs)}
    if not sep or name not in types:
        raise argparse.ArgumentTypeError(f"bad knob {text!r}; knobs: {', '.join(types)}")
    default = getattr(Knobs(), name)
    raw = raw.strip()
    if isinstance(default, bool):
        if raw.lower() not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
            raise argparse.ArgumentTypeError(f"knob {name} takes true/false, not {raw!r}")
        return name, raw.lower() in ("1", "true", "yes", "on")
    if isinstance(default, int):
        return name, int(raw)
    if isinstance(default, tuple):
        return name, tuple(x for x in raw.replace("+", ",").split(",") if x)
    return name, raw


def knob_args(ns: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = dict(ns.knob or [])
    if getattr(ns, "profile", None):
        out["profile"] = ns.profile
    return out


def _add_knob_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--profile", choices=sorted(PROFILES), help="starting set of knobs")
    p.add_argument("--knob", action="append", type=parse_knob, metavar="NAME=VALUE",
                   help="override one generator knob (repeatable)")


# ---------------------------------------------------------------------------
# generate


def _generate_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("-o", "--output", help="write the case here (default: stdout)")
    p.add_argument("--plan", action="store_true", help="print the plan as pseudo C instead")
    _add_knob_options(p)


def _generate(ns: argparse.Namespace) -> int:
    from .generator import KERNEL_NAME, generate_kernel, plan_kernel
    from .pretty import plan_c

    if ns.plan:
        from .choice_source import RandomSource
        from .knobs import make_knobs

        text = plan_c(plan_kernel(RandomSource(ns.seed), make_knobs(**knob_args(ns)), KERNEL_NAME))
    else:
        text = generate_kernel(ns.seed, **knob_args(ns)).text
    if ns.output:
        with open(ns.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


# ---------------------------------------------------------------------------
# coverage


def _coverage_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--count", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0, help="first seed")
    p.add_argument("--plans-only", action="store_true",
                   help="draw plans only (no IR), much faster")
    _add_knob_options(p)


def _coverage(ns: argparse.Namespace) -> int:
    from .coverage import measure

    report = measure(ns.count, ns.seed, emit=not ns.plans_only, **knob_args(ns))
    print(report.table())
    return 0


# ---------------------------------------------------------------------------
# check-scalar


def _check_scalar_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--count", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0, help="first seed")
    p.add_argument("--jobs", type=int, default=0, help="processes (default: all cores)")
    p.add_argument("--determinism", action="store_true",
                   help="also regenerate every kernel and compare the text")
    _add_knob_options(p)


def _check_scalar(ns: argparse.Namespace) -> int:
    from .scalar_check import check_scalar

    summary = check_scalar(range(ns.seed, ns.seed + ns.count), jobs=ns.jobs or None,
                           determinism=ns.determinism, progress=True, **knob_args(ns))
    print(summary.report())
    return 0 if summary.ok else 1


SUBCOMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None],
                             Callable[[argparse.Namespace], int]]] = {
    "generate": ("write one generated kernel (a case file)", _generate_args, _generate),
    "coverage": ("how often each construct appears over N kernels", _coverage_args, _coverage),
    "check-scalar": ("run N kernels scalar under the oracle: no scalar-fault allowed",
                     _check_scalar_args, _check_scalar),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="vecz-fuzz", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (help_text, add_args, _) in SUBCOMMANDS.items():
        add_args(sub.add_parser(name, help=help_text, description=help_text))
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    ns = parser.parse_args(argv)
    try:
        return SUBCOMMANDS[ns.command][2](ns)
    except (TypeError, ValueError) as exc:
        print(f"vecz-fuzz: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
