"""The reducer: shrink a failing case while it keeps failing the same way.

1. Narrow the header to the failing configuration (one width, dim, choices
   string and the failing NDRange): every later candidate costs one run.
2. A generated case (its `origin` names `fuzz.generate seed=N knobs=K`) is
   regenerated through a `RecordingSource`, and its choice sequence is
   shrunk: chunks deleted, values zeroed and halved. Any integer list replays
   to a valid, UB-free kernel (fuzz.choice_source), so this is fast and safe.
3. Then the IR itself is reduced (fuzz.reduce_ir) — the only step for a
   foreign `.ll`.

A candidate is kept only if, at the target configuration, some result has
the target's coarse signature (fuzz.signature: status + configuration, the
vectorizer's frame for crashes) and no NDRange gives `scalar-fault` or
`unsupported-input`: the scalar kernel must stay well defined, or the
"bug" would be the reducer's own UB.
"""

from __future__ import annotations

import copy
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .campaign import FAILING, Spec, check_case
from .knobs import parse_knob
from .reduce_ir import PASSES, candidates, count_instructions
from .signature import signature

BAD_SCALAR = ("scalar-fault", "unsupported-input")


class ReduceError(Exception):
    """The case does not fail (nothing to reduce) or cannot be read."""


@dataclass
class Target:
    """What "still failing the same way" means for one reduction."""

    spec: Spec
    width: int
    dim: int
    choices: str
    signature: str  # coarse signature of the first failure
    failure: dict[str, Any]  # the failing result, for the case header


@dataclass
class ReduceResult:
    """The outcome of `reduce_case`."""

    text: str
    target: Target
    before: int  # instructions
    after: int
    checks: int = 0
    seconds: float = 0.0
    steps: list[str] = field(default_factory=list)


class _Oracle:
    """The interestingness test, with a cache (many edits give identical kernels)."""

    def __init__(self, target: Target, deadline: float) -> None:
        self.target = target
        self.deadline = deadline
        self.cache: dict[str, bool] = {}
        self.checks = 0

    @property
    def expired(self) -> bool:
        return time.monotonic() > self.deadline

    def __call__(self, text: str) -> bool:
        if text in self.cache:
            return self.cache[text]
        self.checks += 1
        t = self.target
        try:
            results = check_case(text, t.spec, [(t.width, t.dim, t.choices)])
        except Exception:
            results = []
        ok = bool(results) and not any(r.status in BAD_SCALAR for r in results) and any(
            signature(r, coarse=True) == t.signature for r in results)
        self.cache[text] = ok
        return ok


def find_target(text: str, spec: Spec) -> Target:
    """The first failure of `text` under `spec`; ReduceError if it does not fail."""
    results = check_case(text, spec)
    for r in results:
        if r.status in FAILING:
            return Target(spec, r.width, r.dim, r.choices, signature(r, coarse=True),
                          {"status": r.status, "signature": signature(r), "width": r.width,
                           "dim": r.dim, "choices": r.choices, "global_size": r.global_size,
                           "local_size": r.local_size, "detail": r.detail[:300]})
    summary: dict[str, int] = {}
    for r in results:
        summary[r.status] = summary.get(r.status, 0) + 1
    raise ReduceError(f"the case does not fail (statuses: {summary})")


def _with_header(text: str, target: Target, ndranges: list[Any] | None = None) -> str:
    from oracle import parse_case

    case = parse_case(text)
    case.widths, case.dims, case.choices = [target.width], [target.dim], [target.choices]
    if ndranges is not None:
        case.ndranges = ndranges
    return case.text()


def narrow_header(text: str, target: Target, test: _Oracle) -> str:
    """Keep only the target configuration, and the failing NDRange if it alone still fails."""
    from oracle import parse_case

    case = parse_case(text)
    narrowed = _with_header(text, target)
    g, loc = target.failure.get("global_size"), target.failure.get("local_size")
    only = [nd for nd in case.ndranges
            if list(nd.global_size[: nd.work_dim]) == g and list(nd.local_size[: nd.work_dim]) == loc]
    if only and len(only) < len(case.ndranges):
        cand = _with_header(text, target, only[:1])
        if test(cand):
            return cand
    return narrowed


_ORIGIN = re.compile(r"fuzz\.generate seed=(-?\d+) knobs=(\S+)")


def generated_origin(text: str) -> tuple[int, dict[str, Any]] | None:
    """(seed, knobs) if the case says it came from `fuzz.generate`."""
    from oracle import parse_case

    origin = parse_case(text).origin or ""
    m = _ORIGIN.search(origin)
    if not m:
        return None
    knobs: dict[str, Any] = {}
    if m.group(2) != "default":
        for part in m.group(2).split(","):
            k, v = parse_knob(part)
            knobs[k] = v
    return int(m.group(1)), knobs


def shrink_choices(text: str, target: Target, test: _Oracle, log: Callable[[str], None]) -> str:
    """Shrink the choice sequence of a generated case; returns the best case text."""
    from oracle import parse_case

    from .choice_source import RandomSource, RecordingSource, ReplaySource
    from .generator import build
    from .knobs import make_knobs

    got = generated_origin(text)
    if got is None:
        return text
    seed, knobs = got
    k = make_knobs(**knobs)
    rec = RecordingSource(RandomSource(seed))
    origin = parse_case(text).origin or ""
    first = build(rec, k, origin)
    if parse_case(first.text).ir != parse_case(text).ir:
        log("choice shrinking skipped: the origin does not regenerate this kernel")
        return text
    values = rec.values

    def make(vals: list[int]) -> str:
        return _with_header(build(ReplaySource(vals), k, origin).text, target)

    best = text

    def attempt(vals: list[int]) -> bool:
        nonlocal best, values
        if test.expired:
            return False
        cand = make(vals)
        if test(cand):
            best, values = cand, vals
            return True
        return False

    changed = True
    while changed and not test.expired:
        changed = False
        # Delete chunks (largest first): fewer statements, smaller expressions.
        size = max(1, len(values) // 2)
        while size >= 1 and not test.expired:
            i = len(values) - size
            while i >= 0 and not test.expired:
                if attempt(values[:i] + values[i + size:]):
                    changed = True
                    i = min(i, len(values) - size)
                else:
                    i -= size
            size //= 2
        # Zero, then halve, single values: the simplest option of each decision.
        for i in range(len(values)):
            if test.expired:
                break
            v = values[i]
            for nv in (0, v // 2) if v > 0 else ():
                if nv != v and attempt(values[:i] + [nv] + values[i + 1:]):
                    changed = True
                    break
    log(f"choice sequence: {len(rec.values)} -> {len(values)} draws")
    return best


def reduce_ir_text(text: str, target: Target, test: _Oracle, log: Callable[[str], None]) -> str:
    """Reduce the IR of a case until no pass makes progress (or time is up)."""
    from oracle import parse_case

    case = parse_case(text)
    kernel = case.kernel or ""
    best = case
    progress = True
    while progress and not test.expired:
        progress = False
        for p in PASSES:
            restart = True
            while restart and not test.expired:
                restart = False
                size = (count_instructions(best.ir), len(best.ir))
                for desc, ir in candidates(best.ir, kernel, p):
                    if test.expired:
                        break
                    # Strictly smaller only (instructions, then text): the reduction terminates.
                    if (count_instructions(ir), len(ir)) >= size:
                        continue
                    cand = copy.copy(best)
                    cand.ir = ir
                    if test(cand.text()):
                        best = cand
                        progress = restart = True
                        log(f"  {desc}: {count_instructions(ir)} instructions")
                        break
    return best.text()


def reduce_case(text: str, spec: Spec | None = None, failure: Target | None = None,
                seconds: float = 300.0, log: Callable[[str], None] = lambda s: None) -> ReduceResult:
    """Reduce a failing case (text) under `spec` (ours, a mutant or a peer).
    Raises ReduceError if it does not fail."""
    from oracle import parse_case

    t0 = time.monotonic()
    spec = spec or Spec()
    target = failure or find_target(text, spec)
    log(f"target: {target.signature}")
    before = count_instructions(parse_case(text).ir)
    test = _Oracle(target, t0 + seconds)
    cur = narrow_header(text, target, test)
    if not test(cur):
        raise ReduceError("the failure does not reproduce at its configuration alone (flaky?)")
    cur = shrink_choices(cur, target, test, log)
    cur = reduce_ir_text(cur, target, test, log)
    case = parse_case(cur)
    f = target.failure
    case.failure = (f"{f['status']} width={f['width']} dim={f['dim']} choices={f['choices'] or '-'} "
                    f"global={','.join(map(str, f['global_size']))} "
                    f"local={','.join(map(str, f['local_size']))}: {f['detail'][:160]}").replace("\n", " ")
    if spec.mutate:
        case.extra["mutation"] = [spec.mutate]
    if spec.peer:
        case.extra["peer"] = [spec.peer]
    case.extra.setdefault("reduced", []).append(f"fuzz.reduce from {before} instructions")
    after = count_instructions(case.ir)
    return ReduceResult(case.text(), target, before, after, test.checks, time.monotonic() - t0)
