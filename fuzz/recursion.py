"""Bounded recursion for the kernel generator: a helper that calls itself,
or two that call each other, with a depth that drops by one per call.

OpenCL C has no recursion, but CUDA and HIP do, and IR from their front
ends can hold bounded recursion. The vectorizer inlines every function a
kernel calls except recursive ones (`vectorizer/transform/builtin_inlining.py`,
`_recursive`), which it calls once per lane; inlining one would unroll it
until the inliner's limit and still end in the call. The planner's helpers
never call themselves, so without this shape that check is never reached.

A recursive helper is

    T r(x..., int n) { if (n <= 0) return f(x..., n); return g(r(h(x..., n), n - 1), x..., n); }

with `f`, `g` and each argument `h` drawn by the planner in the helper's
context (pure expressions of the parameters; `n` is only read). Mostly
(`1 - QUERIES`) with no global or local id query and no call to another
helper (`Planner.lane_free`): the vectorized kernel calls `r` once per lane
(or once, for uniform arguments) without inlining it, so a query inside
would answer for the packet's first work-item, and the vectorizer refuses
such a kernel (the call "stays a call and reaches" the query). The first
version of this shape found that it did not (wrong values: every lane got
lane 0's id); the rest of the time (`QUERIES`) the helpers may query ids
and call earlier pure helpers, which keeps that refusal tested, but a
refused kernel tests nothing else, hence the low rate. Mutual recursion
(half of them): `a` calls `b` and `b` calls `a`, each with its own `f`,
`g`, `h`, so neither calls itself directly. The kernel calls `r` (or `a`) once, at its top level, storing the
result in a fresh output slot, with a depth that is a small constant or a
value masked small (`e & 7`, `e urem m`: lanes recurse to different depths).
Every call chain ends after at most eight levels.

Drawn after the rest of the plan (`fuzz.planner.Planner.plan`), so a kernel
without the shape is the one the same seed gave before the shape existed;
the planner never draws other calls to a recursive helper (its depth
argument would be unbounded).
"""

from __future__ import annotations

from typing import Any

from .plan import I32, Bin, Call, Const, Expr, Helper, Select, Stmt, Ty, VarRef

# The planner drawing the shape (`fuzz.planner.Planner`; not imported: it
# imports this module).
Planner = Any

ANY, VARYING = "any", "varying"

INT_COMBINE = ((3.0, "add"), (2.0, "sub"), (1.5, "xor"), (1.0, "mul"), (1.0, "or"), (1.0, "and"),
               (0.5, "urem"))
FLOAT_COMBINE = ((3.0, "fadd"), (2.0, "fsub"), (2.0, "fmul"))
MAX_DEPTH = 7
# Chance that a recursive helper may query the work-item's id (and call
# other helpers): the vectorizer must refuse the kernel.
QUERIES = 0.15


def add_recursion(p: Planner, body: list[Stmt], first: int) -> None:
    """With the chance `recursion` (and where helpers may appear), add a
    recursive helper (or a mutually recursive pair) and a call to it at a
    top-level position of the kernel `body` from `first` on."""
    c, k = p.c, p.k
    if not k.helpers or k.max_helpers == 0 or k.recursion <= 0 or not c.boolean(k.recursion):
        return
    rets = [t for t in p.palette + p.vec_palette if not t.is_bool]
    ret = c.choice(rets or [I32])
    data = [c.choice(p.palette + p.vec_palette) for _ in range(c.integer(1, 2))]
    pair = [_declare(p, data, ret, 0)]
    if c.boolean(0.5):
        pair.append(_declare(p, data, ret, 1))
    lane_free = not c.boolean(QUERIES)
    for i, h in enumerate(pair):
        _define(p, h, pair[(i + 1) % len(pair)], lane_free)
    # Only now: while they were drawn, the planner could not call them.
    p.helpers.extend(pair)
    p.scopes.append([])
    args = [p.expr(v.ty, 2, ANY) for v in pair[0].params[:-1]]
    call = Call(pair[0], (*args, _depth_arg(p)))
    p.scopes.pop()
    body.insert(c.integer(first, len(body)), p.store_value(call))


def _declare(p: Planner, data: list[Ty], ret: Ty, index: int) -> Helper:
    params = [p._var(t, varying=True) for t in data]
    depth = p._var(I32, varying=True)
    return Helper(f"helper{len(p.helpers) + index}", [*params, depth], ret, [], None, depth=depth)


def _define(p: Planner, h: Helper, callee: Helper, lane_free: bool) -> None:
    """`base` and `result` of `h`, whose recursive call goes to `callee`
    (`h` itself, or its partner); `lane_free`: no per-lane id query, no
    other helper call."""
    assert h.depth is not None and h.ret is not None
    saved = p.helper
    p.helper, p.lane_free = h, lane_free
    p.scopes.append(list(h.params))
    try:
        # Mostly of the parameters (`varying`: the helper's parameters are), so
        # each level's value flows into the next.
        h.base = p.expr(h.ret, 2, VARYING if p.c.boolean(0.6) else ANY)
        step = [p.expr(v.ty, 2, VARYING) for v in h.params[:-1]]
        inner: Expr = Call(callee, (*step, Bin("sub", VarRef(h.depth), Const(I32, 1))))
        h.result = _combine(p, inner, h.ret)
    finally:
        p.scopes.pop()
        p.helper, p.lane_free = saved, False


def _combine(p: Planner, inner: Expr, ty: Ty) -> Expr:
    """`g(inner, ...)`: the recursive call's value combined with another of the parameters."""
    c = p.c
    other = p.expr(ty, 2, ANY)
    form = c.weighted([(4.0, "op"), (1.5, "op-swapped"), (1.0, "select"), (0.5, "plain")])
    if form == "plain":
        return inner
    if form == "select":
        return Select(p._cond(1, ANY), inner, other)
    op = c.weighted(FLOAT_COMBINE if ty.is_float else INT_COMBINE)
    return Bin(op, inner, other) if form == "op" else Bin(op, other, inner)


def _depth_arg(p: Planner) -> Expr:
    """The depth the kernel passes: a constant, or a value masked into [0, 7]."""
    c = p.c
    form = c.weighted([(1.0, "const"), (2.0, "and"), (1.0, "urem")])
    if form == "const":
        return Const(I32, c.integer(0, MAX_DEPTH - 1))
    e = p.expr(I32, 1, ANY)
    if form == "and":
        return Bin("and", e, Const(I32, MAX_DEPTH))
    return Bin("urem", e, Const(I32, c.integer(2, MAX_DEPTH)))

