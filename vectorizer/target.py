"""TargetInfo: what the vectorizer needs to know about the machine it targets.

The register width drives the automatic SIMD width; the feature string goes
to LLVM's code generator when the oracle or the benchmark compiles output.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import llvmlite.binding as llvm


@dataclass(frozen=True)
class TargetInfo:
    """A target: CPU name, its feature string and the widest vector register in bits."""

    cpu: str
    features: str
    register_bits: int

    def lanes_for(self, element_bits: int) -> int:
        """How many elements of `element_bits` fill one vector register."""
        return max(1, self.register_bits // max(element_bits, 8))


@lru_cache(maxsize=1)
def host_target() -> TargetInfo:
    """The machine we run on."""
    llvm.initialize_native_target()
    features = llvm.get_host_cpu_features()
    if features.get("avx512f"):
        bits = 512
    elif features.get("avx") or features.get("avx2"):
        bits = 256
    else:
        bits = 128
    return TargetInfo(llvm.get_host_cpu_name(), features.flatten(), bits)
