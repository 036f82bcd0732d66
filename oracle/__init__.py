"""oracle: runs kernels natively (LLVM JIT) scalar and vectorized over NDRanges
and compares every output byte. `check()` is the entry point; `vecz-oracle`
the command."""

from __future__ import annotations

from .case import ArgSpec, Case, CaseError, NDRange, parse_case, parse_ndrange
from .check import CheckReport, Result, check, check_scalar, run_scalar
from .worker import close

__all__ = [
    "ArgSpec", "Case", "CaseError", "CheckReport", "NDRange", "Result",
    "check", "check_scalar", "close", "parse_case", "parse_ndrange", "run_scalar",
]
