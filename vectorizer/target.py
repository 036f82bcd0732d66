"""TargetInfo: what the vectorizer needs to know about the machine it targets.

The register width drives the automatic SIMD width; whether gathers are fast
drives its cost model; the feature string goes to LLVM's code generator when
the oracle or the benchmark compiles output.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import llvmlite.binding as llvm


@dataclass(frozen=True)
class TargetInfo:
    """A target: CPU name, its feature string, the widest vector register in
    bits, and whether LLVM emits gather instructions for it (`fast_gather`:
    False where the backend expands every gather lane by lane)."""

    cpu: str
    features: str
    register_bits: int
    fast_gather: bool = True

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
    return TargetInfo(llvm.get_host_cpu_name(), features.flatten(), bits, _backend_gathers(bits))


_GATHER_PROBE = """
define <{n} x float> @probe(<{n} x ptr> %p, <{n} x i1> %m) {{
  %v = call <{n} x float> @llvm.masked.gather.v{n}f32.v{n}p0(<{n} x ptr> align 4 %p, <{n} x i1> %m, <{n} x float> poison)
  ret <{n} x float> %v
}}
declare <{n} x float> @llvm.masked.gather.v{n}f32.v{n}p0(<{n} x ptr>, <{n} x i1>, <{n} x float>)
"""


def _backend_gathers(register_bits: int) -> bool:
    """Does LLVM's backend emit a gather instruction for the host? Asked of the
    backend itself (it knows the CPU's tuning, e.g. that Zen 3 has AVX2 gathers
    but they are not worth it): compile a masked gather and look."""
    from .llvm_bridge import host_target_machine

    n = max(2, register_bits // 32)
    try:
        mod = llvm.parse_assembly(_GATHER_PROBE.format(n=n))
        mod.triple = llvm.get_process_triple()
        tm = host_target_machine(2)
        mod.data_layout = str(tm.target_data)
        asm = tm.emit_assembly(mod)
    except RuntimeError:
        return False
    return "gather" in asm.lower()


def with_features(base: TargetInfo, features: str) -> TargetInfo:
    """`base` adjusted by an LLVM-style feature list (`+avx2,-fast-gather`),
    as veczc's `-vecz-target-features` gives it: `+avx512f` makes vector
    registers 512 bits wide, `+avx`/`+avx2` at least 256, `-avx512f` at most
    256 and `-avx` 128 (`-avx2` alone keeps AVX's 256-bit registers);
    `fast-gather` says whether gathers are worth emitting. Other features are
    kept for the code generator.

    Raises ValueError for an entry that is not `+name` or `-name`."""
    bits = base.register_bits
    fast = base.fast_gather
    kept = [f for f in base.features.split(",") if f]
    for raw in features.split(","):
        entry = raw.strip()
        if not entry:
            continue
        if entry[0] not in "+-" or len(entry) < 2:
            raise ValueError(f"target feature {entry!r} must be +name or -name")
        on, name = entry[0] == "+", entry[1:]
        if name == "fast-gather":
            fast = on
            continue
        if name == "avx512f":
            bits = 512 if on else min(bits, 256)
        elif name in ("avx", "avx2") and on:
            bits = max(bits, 256)
        elif name == "avx":
            bits = min(bits, 128)
        kept = [f for f in kept if f[1:] != name] + [entry]
    return TargetInfo(base.cpu, ",".join(kept), bits, fast)
