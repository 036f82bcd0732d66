"""VectorizationChoices: the user-selectable knobs of the vectorizer.

The syntax is Vecz's: choices separated by `;`, each optionally prefixed with
`no` to turn it off (`"LinearizeBOSCC;noPacketizeUniform"`). The same string
comes from the `vectorize(choices=...)` argument, `veczc --vecz-choices=` or
the `VECZ_CHOICES` environment variable.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

# Every choice Vecz documents, with what it does here.
CHOICES: dict[str, str] = {
    "PacketizeUniform": "packetize uniform instructions instead of keeping them scalar",
    "PacketizeUniformInLoops": "packetize uniform instructions inside loops",
    "InstantiateCallsInLoops": "instantiate calls inside loops instead of packetizing them",
    "LinearizeBOSCC": "keep uniform fast paths (BOSCC) when linearizing divergent control flow",
    "FullScalarization": "scalarize all vector-typed code before packetization",
    "DivisionExceptions": "guard divisors of inactive lanes so division never traps on them",
    "VectorPredication": "make the vector kernel safe for local sizes below the width",
    "TargetIndependentPacketization": "use only target-independent packetization (no target builders)",
}

# Choices whose effect is implemented. A choice that is set but not
# implemented is refused with a message rather than silently ignored.
IMPLEMENTED: set[str] = {
    "PacketizeUniform",
    "PacketizeUniformInLoops",
    "InstantiateCallsInLoops",
    "TargetIndependentPacketization",
    "DivisionExceptions",
    "FullScalarization",
    "VectorPredication",
    "LinearizeBOSCC",
}

ENV_VAR = "VECZ_CHOICES"


class ChoiceError(ValueError):
    """A choices string names an unknown choice."""


@dataclass(frozen=True)
class VectorizationChoices:
    """The set of enabled choices."""

    enabled: frozenset[str] = field(default_factory=frozenset)

    def __contains__(self, name: str) -> bool:
        return name in self.enabled

    @property
    def unimplemented(self) -> list[str]:
        """Enabled choices this version cannot honour yet."""
        return sorted(self.enabled - IMPLEMENTED)

    def __str__(self) -> str:
        return ";".join(sorted(self.enabled))

    def with_(self, *names: str) -> VectorizationChoices:
        """A copy with `names` enabled."""
        return VectorizationChoices(self.enabled | frozenset(names))


def parse_choices(text: str | None, base: VectorizationChoices | None = None) -> VectorizationChoices:
    """Parse a `;`-separated choices string on top of `base`.

    `noX` disables X. Matching is case-insensitive; unknown names raise
    `ChoiceError` listing the valid ones.
    """
    enabled = set(base.enabled) if base else set()
    by_lower = {c.lower(): c for c in CHOICES}
    for raw in (text or "").split(";"):
        item = raw.strip()
        if not item:
            continue
        on = True
        name = by_lower.get(item.lower())
        if name is None and item.lower().startswith("no"):
            name = by_lower.get(item[2:].lower())
            on = False
        if name is None:
            raise ChoiceError(
                f"unknown vectorization choice {item!r}; valid choices: {', '.join(CHOICES)}"
            )
        (enabled.add if on else enabled.discard)(name)
    return VectorizationChoices(frozenset(enabled))


def choices_from_environment(base: VectorizationChoices | None = None) -> VectorizationChoices:
    """Apply the `VECZ_CHOICES` environment variable on top of `base`."""
    return parse_choices(os.environ.get(ENV_VAR), base)
