"""Rare control-flow shapes for the kernel generator: a guarded trap, a
guarded endless loop and a two-entry (irreducible) cycle.

Real kernels have them (`if (bad) __builtin_trap();`, `while (1)` waiting
for an event that never comes on this input, `goto` between two loop
bodies), and each reaches a part of the vectorizer the structured
statements of `fuzz.planner` never do: the post-dominator tree's virtual
exit (a `ret` and an `unreachable` block survive LLVM's `mergereturn` as
two exits), Simplify Infinite Loop, and the irreducible-region check of
Loop Info (the vectorizer refuses such kernels; forgetting the check loops
forever or miscompiles).

Guards are never true at run time, and the vectorizer cannot tell:

- uniform: a scalar kernel argument compared for equality with a value
  other than the one the header passes (the oracle passes exactly the
  header's value); a kernel with no integer argument gets one for this;
- varying: the work-item's linear id (or global id) above 2^40: the
  NDRange has at most `max_total` work-items and small offsets.

Shapes go at the kernel's top level, after the private arrays are filled
and before any statement holding a `return` (so a trap under a uniform
guard is outside every divergent region, which the vectorizer requires of
an `unreachable`). Their bodies are stores to fresh output slots whose
values see no variable but the shape's own counter (so the position in the
body does not matter for scoping). Not in the work-group and sub-group
profiles (a refused irreducible kernel there would hide what they test).
"""

from __future__ import annotations

from typing import Any

from .plan import (
    I32,
    I64,
    Cmp,
    Const,
    Expr,
    Irreducible,
    Lin,
    ParamRef,
    Return,
    ScalarParam,
    Spin,
    Stmt,
    Trap,
    Var,
    WorkItem,
    walk_stmts,
)

# The planner drawing the shapes (`fuzz.planner.Planner`; not imported: it
# imports this module).
Planner = Any

UNIFORM = "uniform"
VARYING = "varying"
ANY = "any"

# Far above any linear or global id the header's NDRanges give.
NEVER_ID = 1 << 40


def add_shapes(p: Planner, body: list[Stmt], first: int) -> None:
    """Insert the rare shapes into the kernel `body` (top level), each with
    the chance `cfg_shapes` (the irreducible cycle `irreducible`), at positions
    from `first` on (after the private arrays' initialisation)."""
    c, k = p.c, p.k
    rate = k.cfg_shapes
    if k.workgroup or k.subgroup or p.helper is not None:
        return
    makers = []
    if rate > 0 and c.boolean(rate):
        makers.append(_trap)
    if rate > 0 and c.boolean(rate):
        makers.append(_spin)
    if k.irreducible > 0 and k.divergent_if and c.boolean(k.irreducible):
        makers.append(_irreducible)
    if not makers:
        return
    last = next((i for i, s in enumerate(body) if i >= first and _returns(s)), len(body))
    saved_scopes, saved_div = p.scopes, p.divergent
    try:
        for make in makers:
            p.scopes = [[]]
            p.divergent = 0
            shape = make(p)
            body.insert(c.integer(first, last), shape)
            last += 1
    finally:
        p.scopes, p.divergent = saved_scopes, saved_div


def _returns(s: Stmt) -> bool:
    return any(isinstance(x, Return) for x, _ in walk_stmts([s]))


def never(p: Planner, mode: str) -> Expr:
    """A condition that is never true for the header's arguments and
    NDRanges, uniform or varying as `mode` asks."""
    c = p.c
    if mode == VARYING:
        if c.boolean(0.5):
            return Cmp("ugt", Lin(), Const(I64, NEVER_ID + c.integer(0, 255)))
        dim = c.integer(0, p.dims - 1)
        return Cmp("eq", WorkItem("global_id", dim), Const(I64, NEVER_ID + c.integer(0, 255)))
    ints = [q for q in p.params if isinstance(q, ScalarParam) and q.ty.is_int and not q.ty.is_vector
            and not q.ty.is_bool]
    if not ints:
        q = ScalarParam(f"arg{len(p.params)}", I32, p._int_value(I32))
        p.params.append(q)
        ints = [q]
    q = c.choice(ints)
    assert isinstance(q.value, int)
    bits = q.ty.bits
    other = (q.value + c.integer(1, 100)) % (1 << bits)
    if other >= 1 << (bits - 1):
        other -= 1 << bits  # the header writes signed values
    return Cmp("eq", ParamRef(q), Const(q.ty, other))


def _guard_mode(p: Planner) -> str:
    k = p.k
    if not k.divergent_if:
        return UNIFORM
    return VARYING if p.c.boolean(0.3) else UNIFORM


def _trap(p: Planner) -> Stmt:
    # A varying guard puts the `unreachable` in a divergent region, which
    # the vectorizer refuses: mostly uniform, so most such kernels vectorize.
    mode = VARYING if p.k.divergent_if and p.c.boolean(0.15) else UNIFORM
    return Trap(never(p, mode))


def _stores(p: Planner, counter: Var) -> list[Stmt]:
    p.scopes = [[counter]]
    return [p._store_stmt() for _ in range(p.c.integer(1, 2))]


def _spin(p: Planner) -> Stmt:
    guard = never(p, _guard_mode(p))
    counter = p._var(I32)
    return Spin(guard, counter, _stores(p, counter))


def _irreducible(p: Planner) -> Stmt:
    # Mostly a varying entry: with a uniform one the vectorizer could keep
    # the cycle as it is (only its refusal would be checked).
    mode = VARYING if p.k.divergent_if and p.c.boolean(0.8) else UNIFORM
    cond = p._cond(2, mode)
    trip = p.expr(I32, 2, ANY)
    counter = p._var(I32)
    return Irreducible(cond, counter, trip, _stores(p, counter), _stores(p, counter))
