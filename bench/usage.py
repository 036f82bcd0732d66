"""Command-line argument checks shared by `vecz-bench` and its subcommands.

They live below `bench.cli` so the subcommand modules (`compile_time`,
`divergence`) can use them without importing the command that dispatches to
them: each layer of bench/ depends only downward.
"""

from __future__ import annotations


class UsageError(Exception):
    """Bad command line (exit status 2)."""


def int_list(text: str, what: str) -> tuple[int, ...]:
    """Comma-separated positive integers, or a UsageError naming the option."""
    try:
        vals = tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise UsageError(f"{what}: expected comma-separated integers, got {text!r}") from None
    if not vals or any(v < 1 for v in vals):
        raise UsageError(f"{what}: expected positive integers, got {text!r}")
    return vals


def check_plot_backend() -> None:
    """Fail early, with a usage error, when --plot cannot work."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError("--plot needs matplotlib: pip install 'vecz-py[bench]'") from None
