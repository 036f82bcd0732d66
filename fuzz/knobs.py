"""Generator knobs: sizes and feature switches, plus named profiles.

`generate(seed, **knobs)` takes any field of `Knobs` as a keyword, and
`profile=NAME` to start from one of `PROFILES` (explicit knobs override it).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any


@dataclass(frozen=True)
class Knobs:
    """What the generator may produce, and how much of it."""

    # Sizes.
    size: int = 14  # statement budget of the kernel (helpers have their own)
    max_depth: int = 3  # statement nesting
    expr_depth: int = 3  # expression nesting
    max_block: int = 4  # statements per block
    max_dims: int = 3  # NDRange dimensions (1..3)
    max_trip: int = 8  # largest trip count of one loop
    max_iterations: int = 48  # product of the trip counts of nested loops
    max_loop_nest: int = 4
    max_helpers: int = 2
    max_arrays: int = 2
    max_params: int = 3  # scalar (by-value) arguments
    max_total: int = 256  # work-items per NDRange

    # Types.
    types: tuple[str, ...] = ("i1", "i8", "i16", "i32", "i64", "f32", "f64", "f16")
    vectors: bool = True  # short vector types (<4 x float>, <2 x i64>, ...)

    # Control flow.
    divergent_if: bool = True
    uniform_if: bool = True  # uniform branches, including inside divergent regions
    loops: bool = True
    divergent_loops: bool = True  # trip counts that depend on the work-item
    nested_loops: bool = True
    break_continue: bool = True
    early_return: bool = True
    multi_exit: bool = True  # several exits, breaks out of two loops, returns in loops
    switch: bool = True
    select: bool = True
    # Chances per kernel of the rare shapes of fuzz.cfg_shapes: a guarded trap (a second exit
    # block) and a guarded endless loop (each `cfg_shapes`), a two-entry cycle (`irreducible`:
    # the vectorizer refuses such a kernel, so it is rarer where other things are tested).
    cfg_shapes: float = 0.1
    irreducible: float = 0.04
    # Chance per bottom-tested loop that its exit test is computed one
    # iteration ahead and carried in a header phi the latch branches on (as
    # clang's loop rotation leaves some loops): the latch's condition is
    # then a phi, which control-flow conversion replaces (a Csmith kernel
    # found a stale reference to it). 0 draws nothing, so profiles without
    # it keep their kernels.
    carried_exit: float = 0.0

    # Memory.
    memory: tuple[str, ...] = (
        "uniform", "contiguous", "strided", "reverse", "gather", "scatter", "loop", "clamped", "select",
    )
    uniform_stores: bool = True
    private_arrays: bool = True
    atomics: bool = True

    # Calls and builtins.
    math: bool = True
    fmuladd: bool = True  # llvm.fmuladd (contraction is up to the backend, alike for scalar and vector)
    helpers: bool = True
    side_effect_helpers: bool = True
    # Chance per kernel (with helpers allowed) of a recursive helper, or a mutually
    # recursive pair, called with a bounded depth (fuzz.recursion).
    recursion: float = 0.1
    work_item_builtins: bool = True  # local/group ids, sizes, offsets (global ids are always used)
    runtime_dims: bool = True  # queries whose dimension is a kernel argument or computed (get_global_id(d))
    mux_builtins: bool = True  # sometimes spell work-item queries `__mux_get_*` (as Vecz's tests do)

    # IR forms real code has.
    flags: bool = True  # nsw/nuw/exact/disjoint/nneg/samesign on operands masked so they hold
    # Chance per kernel of an id moved next to a narrow type's sign bit, truncated
    # and extended again, and used as an index (fuzz.value_shapes.add_narrow_wrap).
    narrow_wrap: float = 0.1
    access_forms: bool = True  # gep inbounds/nuw, inttoptr(ptrtoint + offset), generic pointers, volatile
    constant_buffers: bool = True  # some inputs in the __constant address space (2)
    mem_intrinsics: bool = True  # private arrays filled by llvm.memset / llvm.memcpy
    opencl_builtins: bool = True  # calls to OpenCL C builtins the oracle computes exactly (fabs, max, isnan...)
    printf: bool = True
    vector_types: float = 0.08  # chance of each vector shape joining a kernel's palette
    vector_vars: float = 0.2  # chance that a new variable has a vector type (when the palette has one)
    loop_weight: float = 2.5  # how often a statement is a loop (against 4 for a plain `let`)
    local_memory: bool = True  # __local buffers, each work-item using only its own slots (no barrier)
    workgroup: bool = False  # barriers and __local tiles shared by the group (fuzz.workgroup)
    subgroup: bool = False  # sub-group builtins and work-group collectives (fuzz.subgroup_kernels)

    # NDRanges.
    offsets: bool = True  # non-zero global offsets
    multi_ndrange: bool = True  # a second NDRange in the header (remainders)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def describe(self, base: Knobs | None = None) -> str:
        """The knobs that differ from `base` (default: the defaults), as `k=v,...`."""
        base = base or Knobs()
        diff = [
            f"{f.name}={_fmt(getattr(self, f.name))}"
            for f in fields(self)
            if getattr(self, f.name) != getattr(base, f.name)
        ]
        return ",".join(diff) if diff else "default"


def _fmt(v: Any) -> str:
    if isinstance(v, tuple):
        return "+".join(map(str, v))
    return str(v)


# Named starting points: a focus each, so a differential shard hits it often.
PROFILES: dict[str, dict[str, Any]] = {
    "default": {},
    # The smallest kernels: straight-line code and one branch level.
    "tiny": dict(size=5, max_depth=1, expr_depth=2, max_helpers=0, max_arrays=0, max_dims=1,
                 vectors=False, multi_ndrange=False),
    # Uniform control flow only: what a vectorizer without control-flow
    # conversion still accepts.
    "uniform": dict(divergent_if=False, divergent_loops=False, break_continue=False,
                    early_return=False, multi_exit=False, switch=False),
    # Divergent control flow.
    "control": dict(size=24, max_depth=4, memory=("contiguous", "gather"), vectors=False,
                    max_helpers=0, max_arrays=0, atomics=False, cfg_shapes=0.35,
                    irreducible=0.1, carried_exit=0.3),
    # Loops: divergent trip counts, breaks, continues, multiple exits.
    "loops": dict(size=26, max_depth=6, max_loop_nest=5, max_iterations=64, switch=False, vectors=False,
                  max_helpers=0, loop_weight=6.0, max_block=6, cfg_shapes=0.35,
                  irreducible=0.1, carried_exit=0.4),
    # Control flow real kernels have and the structured statements do not
    # (fuzz.cfg_shapes): guarded traps, endless loops never entered, and
    # irreducible cycles, which make the vectorizer refuse half of these
    # kernels (hence a profile of their own, not a high rate in `control`).
    "irregular": dict(size=20, max_depth=4, memory=("contiguous", "gather"), vectors=False,
                      max_helpers=0, max_arrays=0, atomics=False, cfg_shapes=0.6, irreducible=0.5),
    # Vector types everywhere: shuffles, lane inserts and extracts, vector
    # compares, selects, casts and math, as OpenCL's vector types give.
    "vectors": dict(size=18, vector_types=0.3, vector_vars=0.6),
    # Memory patterns and types, little control flow.
    "memory": dict(size=20, max_depth=2, loops=True, switch=False, break_continue=False,
                   early_return=False),
    # Calls, atomics, private arrays.
    "calls": dict(size=18, max_helpers=3, max_arrays=2, switch=False, recursion=0.6),
    # Work-groups: barriers in uniform control flow, `__local` tiles, tree
    # reductions and prefix scans (fuzz.workgroup); no early return (one
    # before a barrier would be barrier divergence).
    "workgroup": dict(workgroup=True, size=16, early_return=False, max_helpers=1),
    # Sub-groups: sub-group builtins and work-group collectives in
    # sub-group-uniform loops and ifs (fuzz.subgroup_kernels); no early
    # return (one before a collective would leave its sub-group divergent).
    "subgroup": dict(subgroup=True, size=16, early_return=False, max_helpers=1),
}


TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off")


def parse_knob(text: str) -> tuple[str, Any]:
    """`name=value` (as `--knob` and a case's `origin:` line write it) with the
    value converted to the knob's type; ValueError naming the problem."""
    name, sep, raw = text.partition("=")
    name = name.strip().replace("-", "_")
    types = {f.name for f in fields(Knobs)}
    if not sep or name not in types:
        raise ValueError(f"bad knob {text!r}; knobs: {', '.join(sorted(types))}")
    default = getattr(Knobs(), name)
    raw = raw.strip()
    if isinstance(default, bool):
        if raw.lower() not in TRUE_WORDS + FALSE_WORDS:
            raise ValueError(f"knob {name} takes true/false, not {raw!r}")
        return name, raw.lower() in TRUE_WORDS
    if isinstance(default, int):
        try:
            value = int(raw)
        except ValueError:
            raise ValueError(f"knob {name} takes an integer, not {raw!r}") from None
        if value < 0:
            raise ValueError(f"knob {name} takes a non-negative integer, not {value}")
        return name, value
    if isinstance(default, float):
        try:
            number = float(raw)
        except ValueError:
            raise ValueError(f"knob {name} takes a number, not {raw!r}") from None
        if not number >= 0:  # also NaN
            raise ValueError(f"knob {name} takes a non-negative number, not {raw!r}")
        return name, number
    if isinstance(default, tuple):
        return name, tuple(x for x in raw.replace("+", ",").split(",") if x)
    return name, raw


def make_knobs(**kwargs: Any) -> Knobs:
    """`Knobs` from keywords; `profile=NAME` picks the starting point."""
    profile = kwargs.pop("profile", "default")
    if isinstance(profile, Knobs):
        base = profile
    else:
        if profile not in PROFILES:
            raise ValueError(f"unknown profile {profile!r}; known: {', '.join(PROFILES)}")
        base = Knobs(**PROFILES[profile])
    names = {f.name for f in fields(Knobs)}
    unknown = sorted(set(kwargs) - names)
    if unknown:
        raise TypeError(f"unknown generator knob(s): {', '.join(unknown)}")
    every = Knobs()
    for k in ("types", "memory"):
        if k in kwargs and isinstance(kwargs[k], str):
            kwargs[k] = tuple(x for x in kwargs[k].replace("+", ",").split(",") if x)
        elif k in kwargs:
            kwargs[k] = tuple(kwargs[k])
        # A misspelt name would silently generate without it.
        unknown = [x for x in kwargs.get(k, ()) if x not in getattr(every, k)]
        if unknown:
            raise ValueError(f"knob {k}: unknown {', '.join(map(repr, unknown))}; known: "
                             f"{'+'.join(getattr(every, k))}")
    return replace(base, **kwargs)
