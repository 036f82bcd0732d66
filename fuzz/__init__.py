"""fuzz: random divergent SPMD kernels for the differential oracle.

`generate(seed, **knobs)` returns one kernel as a case file (header + LLVM
IR); `fuzz.strategies.kernels(**knobs)` is the same generator as a
Hypothesis strategy. See docs/fuzzing.md.
"""

from .generator import GeneratedKernel, generate, generate_kernel
from .knobs import PROFILES, Knobs

__all__ = ["PROFILES", "GeneratedKernel", "Knobs", "generate", "generate_kernel"]
