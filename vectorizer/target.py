"""TargetInfo: what the vectorizer needs to know about the machine it targets.

The register width drives the automatic SIMD width; whether gathers are
emitted, and whether LLVM's tuning for the CPU calls them fast, drive its cost
model; the feature string goes to LLVM's code generator when
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
    False where the backend expands every gather lane by lane).

    `microcoded_gather`: the backend emits gathers only because AVX-512 makes
    them legal, while LLVM's tuning for the CPU does not call them fast (AMD
    Zen 4 and 5): each lane then costs several scalar instructions."""

    cpu: str
    features: str
    register_bits: int
    fast_gather: bool = True
    microcoded_gather: bool = False

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
    flat = features.flatten()
    gathers = _backend_gathers(bits)
    # With AVX-512 off, the backend emits a 256-bit gather only where the
    # CPU's tuning says gathers are fast (`fast-gather`: Intel since Skylake).
    tuned = gathers and (bits < 512 or _backend_gathers(256, flat + ",-avx512f"))
    return TargetInfo(llvm.get_host_cpu_name(), flat, bits, gathers, gathers and not tuned)


_GATHER_PROBE = """
define <{n} x float> @probe(<{n} x ptr> %p, <{n} x i1> %m) {{
  %v = call <{n} x float> @llvm.masked.gather.v{n}f32.v{n}p0(<{n} x ptr> align 4 %p, <{n} x i1> %m, <{n} x float> poison)
  ret <{n} x float> %v
}}
declare <{n} x float> @llvm.masked.gather.v{n}f32.v{n}p0(<{n} x ptr>, <{n} x i1>, <{n} x float>)
"""


def _backend_gathers(register_bits: int, features: str | None = None) -> bool:
    """Does LLVM's backend emit a gather instruction for the host (with
    `features` instead of the host's, if given)? Asked of the backend itself
    (it knows the CPU's tuning, e.g. that Zen 3 has AVX2 gathers but they are
    not worth it): compile a masked gather and look."""
    from .llvm_bridge import host_target_machine

    n = max(2, register_bits // 32)
    try:
        mod = llvm.parse_assembly(_GATHER_PROBE.format(n=n))
        mod.triple = llvm.get_process_triple()
        tm = host_target_machine(2, features=features)
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
    `fast-gather` says whether gathers are worth emitting. `+avx512f` makes
    gathers legal on a CPU whose tuning does not call them fast (they are then
    microcoded, as on Zen 4); `-avx512f` takes such gathers away again. Other
    features are kept for the code generator.

    Raises ValueError for an entry that is not `+name` or `-name`."""
    bits = base.register_bits
    fast = base.fast_gather
    microcoded = base.microcoded_gather
    kept = [f for f in base.features.split(",") if f]
    for raw in features.split(","):
        entry = raw.strip()
        if not entry:
            continue
        if entry[0] not in "+-" or len(entry) < 2:
            raise ValueError(f"target feature {entry!r} must be +name or -name")
        on, name = entry[0] == "+", entry[1:]
        if name == "fast-gather":
            fast, microcoded = on, False
            continue
        if name == "avx512f":
            bits = 512 if on else min(bits, 256)
            if on and not fast:
                fast = microcoded = True
            elif not on and microcoded:
                fast = microcoded = False
        elif name in ("avx", "avx2") and on:
            bits = max(bits, 256)
        elif name == "avx":
            bits = min(bits, 128)
        kept = [f for f in kept if f[1:] != name] + [entry]
    return TargetInfo(base.cpu, ",".join(kept), bits, fast, microcoded)
