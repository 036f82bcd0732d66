"""`generate(seed, **knobs) -> str`: one random divergent SPMD kernel as a case file.

The pipeline is: a choice source -> `fuzz.planner.Planner` (a `KernelPlan`)
-> `fuzz.emit` (our IR, built with the Builder) -> `vectorizer.ir.print_module`
-> the case header of docs/corpus-format.md in front. The same choices give
the same text, byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .choice_source import ChoiceSource, RandomSource
from .knobs import Knobs, make_knobs
from .plan import KernelPlan
from .planner import Planner

KERNEL_NAME = "fuzz_kernel"
DEFAULT_WIDTHS = (1, 4, 8, 16)


@dataclass
class GeneratedKernel:
    """A generated kernel: the case text and the plan it came from."""

    text: str
    plan: KernelPlan
    knobs: Knobs
    seed: int | None = None

    @property
    def kernel(self) -> str:
        return self.plan.name


def plan_kernel(source: ChoiceSource, knobs: Knobs, name: str = KERNEL_NAME) -> KernelPlan:
    """Draw a plan only (no IR): cheap, and all `fuzz.coverage` needs."""
    return Planner(source, knobs, name).plan()


def header_lines(plan: KernelPlan, origin: str, widths: tuple[int, ...] = DEFAULT_WIDTHS,
                 choices: tuple[str, ...] = ("",)) -> list[str]:
    """The case header (docs/corpus-format.md) that lets `vecz-oracle FILE` run it."""
    lines = [
        "; vecz-case: 1",
        f"; kernel: {plan.name}",
        f"; args: {plan.args_header()}",
    ]
    lines += [f"; ndrange: {r.header}" for r in plan.ndranges]
    lines.append(f"; widths: {','.join(map(str, widths))}")
    lines.append(f"; dims: {','.join(str(d) for d in range(plan.dims))}")
    lines += [f"; choices: {c}".rstrip() for c in choices]
    lines.append(f"; seed: {plan.buffer_seed}")
    lines.append(f"; origin: {origin}")
    return lines


def emit_plan(plan: KernelPlan) -> str:
    """The plan's LLVM IR text (no header), built with our IR and printed."""
    from vectorizer.ir.printer import print_module

    from .emit import ModuleEmitter

    return print_module(ModuleEmitter(plan).emit())


def build(source: ChoiceSource, knobs: Knobs, origin: str, name: str = KERNEL_NAME,
          seed: int | None = None) -> GeneratedKernel:
    """Plan, emit and print one kernel from `source`."""
    plan = plan_kernel(source, knobs, name)
    plan.origin = origin
    body = emit_plan(plan)
    text = "\n".join(header_lines(plan, origin)) + "\n" + body
    if not text.endswith("\n"):
        text += "\n"
    return GeneratedKernel(text, plan, knobs, seed)


def origin_of(seed: int | None, knobs: Knobs) -> str:
    who = f"seed={seed}" if seed is not None else "hypothesis"
    return f"fuzz.generate {who} knobs={knobs.describe()}"


def generate_kernel(seed: int, **knobs: Any) -> GeneratedKernel:
    """Like `generate`, but also returns the plan."""
    name = knobs.pop("name", KERNEL_NAME)
    k = make_knobs(**knobs)
    return build(RandomSource(seed), k, origin_of(seed, k), name, seed)


def generate(seed: int, **knobs: Any) -> str:
    """The kernel for `seed` (a case file: header + LLVM IR text).

    `knobs` are fields of `fuzz.knobs.Knobs` (and `profile=NAME`, `name=`).
    """
    return generate_kernel(seed, **knobs).text
