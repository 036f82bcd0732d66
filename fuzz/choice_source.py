"""Choice sources: where the generator's decisions come from.

The generator never calls `random` itself. Every decision it makes is one
call to a `ChoiceSource`, and every decision is ultimately one bounded
integer draw (`integer(lo, hi)`). So the same sequence of integers always
builds the same kernel, and:

- `RandomSource(seed)` (a seeded PRNG) reproduces a campaign kernel from its seed;
- `HypothesisSource(data)` draws through Hypothesis's `data.draw`, so a failing
  kernel shrinks: Hypothesis minimises integers towards `lo`, and the
  generator orders every option so that the smallest integer is the simplest
  choice (a constant before an expression, `False` before `True`, no
  statement before a statement);
- `RecordingSource` logs the draws of another source and `ReplaySource`
  replays a (possibly edited) log: any integer sequence is a valid kernel,
  values are clamped into range and an exhausted log answers `lo`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

T = TypeVar("T")


@runtime_checkable
class ChoiceSource(Protocol):
    """The one primitive every source provides."""

    def integer(self, lo: int, hi: int) -> int:
        """An integer in `[lo, hi]` (inclusive); shrinks towards `lo`."""
        ...


class Choices:
    """Decisions built on a source's `integer`: booleans, picks, weighted picks.

    All are defined through `integer` only, so any source gives the same
    decision for the same integers, and shrinking an integer towards its lower
    bound shrinks the decision towards its simplest option.
    """

    def __init__(self, source: ChoiceSource) -> None:
        self.source = source

    def integer(self, lo: int, hi: int) -> int:
        """An integer in `[lo, hi]`."""
        if hi <= lo:
            return lo
        return self.source.integer(lo, hi)

    def boolean(self, p: float = 0.5) -> bool:
        """True with probability `p`; the draw 0 (the shrink target) is False."""
        if p <= 0.0:
            return False
        if p >= 1.0:
            return True
        threshold = 1000 - max(1, min(999, round(p * 1000)))
        return self.integer(0, 999) >= threshold

    def choice(self, options: Sequence[T]) -> T:
        """One of `options`, uniformly; shrinks towards the first."""
        if not options:
            raise ValueError("choice from an empty sequence")
        return options[self.integer(0, len(options) - 1)]

    def weighted(self, options: Sequence[tuple[float, T]]) -> T:
        """One of `options` (pairs of weight, value) in proportion to the weights;
        shrinks towards the first option with a positive weight."""
        live = [(w, v) for w, v in options if w > 0]
        if not live:
            raise ValueError("weighted choice with no positive weight")
        if len(live) == 1:
            return live[0][1]
        # Integer weights (in thousandths) so every source maps draws identically.
        scaled = [max(1, round(w * 1000)) for w, _ in live]
        r = self.integer(0, sum(scaled) - 1)
        for (_, v), s in zip(live, scaled, strict=False):
            if r < s:
                return v
            r -= s
        return live[-1][1]  # pragma: no cover - unreachable

    def subset(self, options: Sequence[T], p: float = 0.5) -> list[T]:
        """Each option kept with probability `p`, in order."""
        return [o for o in options if self.boolean(p)]


class RandomSource:
    """A seeded PRNG: the campaign source. The same seed gives the same draws."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._rng = random.Random(seed)

    def integer(self, lo: int, hi: int) -> int:
        return self._rng.randint(lo, hi)


class HypothesisSource:
    """Draws through Hypothesis, so failures shrink: `data` is `st.data()`'s
    object (its `.draw` is used) or the `draw` function of `@st.composite`."""

    def __init__(self, data: Any) -> None:
        from hypothesis import strategies as st

        self._draw = data.draw if hasattr(data, "draw") else data
        self._st = st

    def integer(self, lo: int, hi: int) -> int:
        return self._draw(self._st.integers(lo, hi))


class RecordingSource:
    """Wraps a source and records every draw as `(lo, hi, value)`."""

    def __init__(self, inner: ChoiceSource) -> None:
        self.inner = inner
        self.log: list[tuple[int, int, int]] = []

    def integer(self, lo: int, hi: int) -> int:
        v = self.inner.integer(lo, hi)
        self.log.append((lo, hi, v))
        return v

    @property
    def values(self) -> list[int]:
        return [v for _, _, v in self.log]


class ReplaySource:
    """Replays a list of integers: each clamped into the asked range, `lo` once
    the list is exhausted. Any list is a valid kernel, so a reducer can edit the
    list freely (delete, zero, shorten) and always get a kernel back."""

    def __init__(self, values: Sequence[int]) -> None:
        self.values = list(values)
        self.position = 0

    def integer(self, lo: int, hi: int) -> int:
        if self.position >= len(self.values):
            return lo
        v = self.values[self.position]
        self.position += 1
        return min(max(v, lo), hi)
