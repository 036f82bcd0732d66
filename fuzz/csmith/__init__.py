"""fuzz.csmith: Csmith programs as divergent SPMD kernels (the Csmith bridge).

`generate_csmith_kernel(seed)` runs Csmith, turns the C program into an
OpenCL C kernel (CLsmith style: globals in a private per-work-item struct,
work-item-dependent flips and perturbations, one checksum per work-item),
compiles it with clang 22 and checks it against the plain C program.
`ensure_csmith()` finds (or, as root with apt, installs) Csmith. See
docs/csmith.md.
"""

from .bridge import CsmithKernel, Rejected, generate, generate_csmith_kernel
from .runner import CsmithError, CsmithTools, ensure_csmith, run_csmith
from .transform import TransformError

__all__ = [
    "CsmithError", "CsmithKernel", "CsmithTools", "Rejected", "TransformError",
    "ensure_csmith", "generate", "generate_csmith_kernel", "run_csmith",
]
