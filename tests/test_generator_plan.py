"""The generator's plan layer: choice sources, determinism, and UB-freedom by
construction checked on the plans themselves (no IR, no oracle)."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings

from fuzz.builtin_calls import OUT_BUILTINS
from fuzz.choice_source import Choices, RandomSource, RecordingSource, ReplaySource
from fuzz.coverage import coverage, features
from fuzz.generator import plan_kernel
from fuzz.knobs import PROFILES, Knobs, make_knobs
from fuzz.plan import (
    F16,
    F32,
    I1,
    I32,
    I64,
    Affine,
    Barrier,
    Biased,
    Bin,
    Block,
    Break,
    Buffer,
    Builtin,
    Const,
    ConstAddr,
    Continue,
    CopyOut,
    CursorAddr,
    If,
    Indirect,
    KernelPlan,
    Let,
    Load,
    LocalSlot,
    Loop,
    Math,
    PeerSlot,
    PrefixScan,
    PrivInit,
    Return,
    SelectAddr,
    Stmt,
    Store,
    Switch,
    TreeReduce,
    UniformStore,
    Var,
    VarRef,
    VLoad,
    Wrapped,
    walk_expr,
    walk_stmts,
)
from fuzz.planner import INVARIANT, Planner, next_pow2
from fuzz.pretty import expr_c, plan_c, stmts_c
from fuzz.strategies import plans

SEEDS = range(150)


def _plan(seed: int, **knobs: object) -> KernelPlan:
    return plan_kernel(RandomSource(seed), make_knobs(**knobs))


# ---------------------------------------------------------------------------
# Choice sources


def test_random_source_is_reproducible() -> None:
    a, b = RandomSource(5), RandomSource(5)
    assert [a.integer(0, 100) for _ in range(50)] == [b.integer(0, 100) for _ in range(50)]


def test_replay_clamps_and_defaults_to_lower_bound() -> None:
    r = ReplaySource([50, -3, 7])
    assert r.integer(0, 10) == 10
    assert r.integer(2, 5) == 2
    assert r.integer(0, 9) == 7
    assert r.integer(4, 9) == 4  # exhausted


def test_choices_shrink_towards_the_first_option() -> None:
    c = Choices(ReplaySource([]))
    assert c.boolean(0.9) is False
    assert c.choice("abc") == "a"
    assert c.weighted([(0.0, "x"), (5.0, "y"), (1.0, "z")]) == "y"


def test_weighted_respects_weights() -> None:
    c = Choices(RandomSource(1))
    picks = [c.weighted([(1.0, "a"), (9.0, "b")]) for _ in range(2000)]
    assert 0.05 < picks.count("a") / len(picks) < 0.15


def test_recorded_choices_replay_to_the_same_plan() -> None:
    rec = RecordingSource(RandomSource(42))
    p1 = Planner(rec, Knobs()).plan()
    p2 = Planner(ReplaySource(rec.values), Knobs()).plan()
    assert plan_c(p1) == plan_c(p2)


def test_the_all_zero_choice_sequence_is_a_small_valid_kernel() -> None:
    p = Planner(ReplaySource([]), Knobs()).plan()
    _check_plan(p)
    assert len(list(walk_stmts(p.body))) <= Knobs().size + 4


@pytest.mark.parametrize("seed", range(0, 2000, 97))
def test_edited_choice_sequences_are_still_valid(seed: int) -> None:
    """What a choice-sequence reducer does: delete and zero choices."""
    rec = RecordingSource(RandomSource(seed))
    Planner(rec, Knobs()).plan()
    vals = rec.values
    for edited in (vals[: len(vals) // 2], [0 if i % 3 == 0 else v for i, v in enumerate(vals)],
                   vals[10:]):
        _check_plan(Planner(ReplaySource(edited), Knobs()).plan())


# ---------------------------------------------------------------------------
# Determinism and knobs


def test_same_seed_same_plan() -> None:
    for s in range(20):
        assert plan_c(_plan(s)) == plan_c(_plan(s))


def test_different_seeds_differ() -> None:
    assert len({plan_c(_plan(s)) for s in range(20)}) == 20


def test_unknown_knob_is_an_error() -> None:
    with pytest.raises(TypeError):
        make_knobs(bogus=1)
    with pytest.raises(ValueError):
        make_knobs(profile="bogus")


def test_float_knobs_parse_as_numbers() -> None:
    from fuzz.knobs import parse_knob

    # `--knob vector_vars=0.4` was kept a string: every kernel failed to plan.
    assert parse_knob("vector_vars=0.4") == ("vector_vars", 0.4)
    assert parse_knob("loop-weight=3") == ("loop_weight", 3.0)
    for bad in ("vector_vars=lots", "vector_vars=-1", "vector_vars=nan"):
        with pytest.raises(ValueError):
            parse_knob(bad)
    name, value = parse_knob("vector_vars=0.4")
    plan_kernel(RandomSource(3), make_knobs(**{name: value}))


def test_profiles_and_overrides() -> None:
    k = make_knobs(profile="tiny", size=3)
    assert k.size == 3 and k.max_depth == PROFILES["tiny"]["max_depth"]
    assert make_knobs(types="i32,f32").types == ("i32", "f32")
    assert make_knobs().describe() == "default"
    assert "size=3" in k.describe()


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_every_profile_plans_valid_kernels(profile: str) -> None:
    for s in range(25):
        _check_plan(_plan(s, profile=profile), make_knobs(profile=profile))


def test_switching_features_off_removes_them() -> None:
    knobs = dict(loops=False, switch=False, atomics=False, helpers=False, private_arrays=False,
                 vectors=False, math=False, early_return=False, uniform_stores=False,
                 types=("i32",), memory=("contiguous",))
    rep = coverage(_plan(s, **knobs) for s in range(40))
    names = set(rep.present)
    for banned in ("loop: divergent", "loop: uniform", "switch: divergent", "atomic",
                   "helper function", "private array", "math builtin", "early return",
                   "type: float", "type: i16", "memory: load gather (index buffer)",
                   "store: uniform address"):
        assert banned not in names, banned
    assert "if: divergent" in names


def test_uniform_profile_has_no_divergent_control_flow() -> None:
    for s in range(40):
        p = _plan(s, profile="uniform")
        for st, _ in walk_stmts(p.body):
            assert not isinstance(st, (Break, Continue, Return, Switch))


def test_default_mix_covers_the_issue_list() -> None:
    rep = coverage(_plan(s) for s in range(300))
    wanted = [
        "if: divergent", "if: nested divergent", "if: uniform inside divergent region",
        "loop: trip count depends on the work-item", "break", "continue", "early return",
        "loop: several exits", "loop: nested divergent", "break out of two loops",
        "switch: divergent", "select", "variable assigned under divergence (phi)",
        "loop: loop-carried variable (phi)",
        "type: i1", "type: i8", "type: i16", "type: i32", "type: i64", "type: float",
        "type: double", "type: <4 x float>", "type: <2 x i32>",
        "memory: load uniform", "memory: load contiguous", "memory: load strided +k",
        "memory: load strided -k", "memory: load reverse", "memory: load gather (index buffer)",
        "memory: load gather (computed index)", "memory: load clamped (to the edge)",
        "memory: conditional (masked) load",
        "memory: conditional (masked) store", "store: perm", "store: indirect",
        "store: uniform address", "private array", "math builtin", "call: helper",
        "call: helper with side effects", "atomic", "dims: 1", "dims: 2", "dims: 3",
        "builtin: get_local_id", "builtin: get_group_id", "builtin: get_local_size",
        "builtin: get_global_size", "builtin: get_num_groups", "builtin: dimension 2",
        "builtin: id with a run-time dimension", "builtin: run-time dimension (uniform)",
        "builtin: run-time dimension (varying)", "memory: load at an id of a run-time dimension",
        "ndrange: global offset", "ndrange: several",
    ]
    missing = [w for w in wanted if w not in rep.present]
    assert not missing, missing
    for w in ("if: divergent", "loop: trip count depends on the work-item"):
        assert rep.present[w] / rep.kernels > 0.5, w


# ---------------------------------------------------------------------------
# UB-freedom by construction, checked on plans


def _affine_range(p: KernelPlan, a: Affine, counters: dict[int, int]) -> tuple[int, int]:
    top = p.max_base(a.base, a.dim)
    extra = counters.get(a.counter.id, 0) if a.counter is not None else 0
    ends = [a.offset, a.offset + a.stride * top]
    lo, hi = min(ends), max(ends) + extra
    if a.clamp_hi is not None:  # clamp(index, 0, clamp_hi)
        lo, hi = min(max(lo, 0), a.clamp_hi), min(max(hi, 0), a.clamp_hi)
    return lo, hi


def _check_addr(p: KernelPlan, buf: Buffer, a: object, counters: dict[int, int]) -> None:
    if isinstance(a, ConstAddr):
        assert 0 <= a.index < buf.count
    elif isinstance(a, Affine):
        lo, hi = _affine_range(p, a, counters)
        assert 0 <= lo and hi < buf.count, (a, buf.count)
    elif isinstance(a, Wrapped):
        assert buf.count == next_pow2(buf.count)
    elif isinstance(a, Biased):  # any sign-extended iN from &buf[bias] is in bounds
        half = 1 << (a.expr.ty.bits - 1)
        assert a.expr.ty.is_int and a.bias >= half and a.bias + half <= a.span <= buf.count, (a, buf.count)
    elif isinstance(a, Indirect):
        assert buf.count == next_pow2(buf.count)
        _check_addr(p, a.index_buffer, a.inner, counters)
    elif isinstance(a, SelectAddr):  # both pointers in bounds
        _check_addr(p, buf, a.a, counters)
        _check_addr(p, buf, a.b, counters)
    elif isinstance(a, Block):  # `expr & (count - size)` .. + size - 1 in bounds
        assert buf.count == next_pow2(buf.count) and a.size == next_pow2(a.size) and a.size <= buf.count
    elif isinstance(a, CursorAddr):  # &buf[start] advanced `span` elements at most
        assert a.cursor.buffer is buf
        lo, hi = _affine_range(p, a.cursor.start, counters)
        assert 0 <= lo and hi + a.cursor.span < buf.count, (a, buf.count)
    elif isinstance(a, LocalSlot):  # own slots of the largest work-group
        assert buf.role in ("local", "tile") and 0 <= a.slot < buf.slots
        assert buf.count == p.max_local_total * buf.slots
    elif type(a).__name__ == "PeerSlot" and buf.two_d:  # rows and columns of every group fit
        assert buf.module_global and buf.count == buf.rows * buf.cols
        assert all(r.local_size[0] <= buf.cols and r.local_size[1] * r.local_size[2] <= buf.rows
                   for r in p.ndranges)
        assert a.pattern in ("right", "down", "mirror", "first")
    elif type(a).__name__ == "PeerSlot":  # another work-item's slot: the index is below the group's size
        assert buf.role == "tile" and buf.slots == 1 and buf.count == p.max_local_total
        assert a.pattern in ("rotate", "mirror", "first", "xor")
    else:  # pragma: no cover
        raise AssertionError(a)


def _loop_counters(body: list[Stmt]) -> dict[int, int]:
    return {s.counter.id: s.max_trip for s, _ in walk_stmts(body) if isinstance(s, Loop)}


def _check_jumps(body: list[Stmt], loops: int) -> None:
    for s in body:
        if isinstance(s, Break):
            assert s.levels <= loops
        if isinstance(s, Continue):
            assert loops >= 1
        for blk in s.blocks():
            _check_jumps(blk, loops + isinstance(s, Loop))


def _max_iterations(body: list[Stmt]) -> int:
    worst = 1
    for s in body:
        inner = max((_max_iterations(b) for b in s.blocks()), default=1)
        if isinstance(s, Loop):
            inner *= max(1, s.max_trip)
        worst = max(worst, inner)
    return worst


def _invariant_addr(a: object) -> bool:
    """An address the same for every work-item (its conditions are checked as expressions)."""
    if isinstance(a, SelectAddr):
        return _invariant_addr(a.a) and _invariant_addr(a.b)
    return isinstance(a, ConstAddr)


def _check_plan(p: KernelPlan, knobs: Knobs | None = None) -> None:
    knobs = knobs or Knobs()
    assert 1 <= p.dims <= 3
    for r in p.ndranges:
        assert all(g % lo == 0 for g, lo in zip(r.global_size, r.local_size, strict=True))
        assert r.total <= knobs.max_total
    bodies = [p.body] + [h.body for h in p.helpers]
    counters: dict[int, int] = {}
    for body in bodies:
        counters.update(_loop_counters(body))
        _check_jumps(body, 0)
    for b in p.buffers:
        assert b.count >= 1
        if b.role == "out":
            assert b.slots >= 1
    exprs = []
    for body in bodies:
        for s, _ in walk_stmts(body):
            exprs.extend(s.exprs())
            if isinstance(s, Loop):
                assert 0 <= s.max_trip <= knobs.max_trip or s.bound == "umin"
                if s.bound == "and":
                    assert s.max_trip & (s.max_trip + 1) == 0
            if isinstance(s, UniformStore):
                assert s.index < s.buffer.count
                for x in walk_expr(s.value):  # work-item invariant
                    assert type(x).__name__ not in ("VarRef", "Lin", "PrivLoad", "Call", "PtrCmp")
                    if isinstance(x, Load):
                        assert _invariant_addr(x.addr), x.addr
                    if type(x).__name__ == "WorkItem":
                        assert x.kind not in ("global_id", "local_id", "group_id")
            if isinstance(s, If):
                assert s.cond.ty == I1
            if isinstance(s, Loop) and s.cursor is not None:
                _check_addr(p, s.cursor.buffer, CursorAddr(s.cursor), counters)
            if isinstance(s, CopyOut):  # inside the work-item's own slots
                assert s.buffer.role in ("out", "local", "tile")
                assert 0 <= s.slot and s.slot + s.count + (1 if s.move else 0) <= s.buffer.slots
                if s.source is not None:
                    assert s.addr is not None and s.addr.size == s.count
                    _check_addr(p, s.source, s.addr, counters)
                if s.array is not None:
                    assert s.array.elem == s.buffer.elem and s.array.size == s.count
            if type(s).__name__ == "VStore":  # N own slots from slot + offset * N
                n = s.value.ty.lanes
                assert s.buffer.role == "out" and s.buffer.elem == s.value.ty.scalar
                assert s.slot + (s.offset + 1) * n <= s.buffer.slots
            if isinstance(s, PrivInit) and s.other is not None:
                assert s.other.elem == s.array.elem and s.other.size >= s.array.size
            if isinstance(s, PrivInit) and s.source is not None:
                assert s.addr is not None and s.source.role == "in" and s.source.elem == s.array.elem
                _check_addr(p, s.source, s.addr, counters)
    for h in p.helpers:
        if h.result is not None:
            exprs.append(h.result)
    for e in exprs:
        for x in walk_expr(e):
            if type(x).__name__ in ("PtrCmp", "PtrDiff"):
                _check_addr(p, x.buffer, x.a, counters)
                _check_addr(p, x.buffer, x.b, counters)
            if type(x).__name__ == "VLoad":
                assert x.buffer.role == "in" and x.buffer.count >= x.lanes
                if x.base is not None:  # vload(k, &buf[base]) reads base + k*N .. + N - 1
                    lo, hi = _affine_range(p, x.base, counters)
                    assert 0 <= lo and hi + (x.offset + 1) * x.lanes <= x.buffer.count
            if isinstance(x, Load):
                assert x.buffer.role in ("in", "index", "iota", "local", "tile")
                assert x.buffer.elem.lanes != 3  # 3-vectors live in 4-lane buffers
                _check_addr(p, x.buffer, x.addr, counters)
            if isinstance(x, Bin) and x.op in ("sdiv", "srem"):
                assert not x.ty.is_bool
            if isinstance(x, Math) and x.fn == "copysign":
                # A sign whose bits are exact: a constant or a loaded value (a
                # 3-vector is loaded as 4 lanes and shuffled).
                sign = x.args[1]
                if type(sign).__name__ == "Shuffle":
                    sign = sign.a
                assert type(sign).__name__ in ("Const", "Load")
            if type(x).__name__ == "Cast" and x.op == "bitcast" and x.a.ty.is_float:
                assert type(x.a).__name__ == "Load"  # never the bits of a computed NaN
    # Bounded work: nested trip counts multiply to at most the knob (private
    # array fills are one loop of at most 16).
    assert _max_iterations(p.body) <= max(knobs.max_iterations, 16)
    # Every output buffer's slots are distinct per work-item: the mapping is a
    # bijection from [0, total) into the rows.
    for b in p.buffers:
        if b.role == "out" and b.mapping in ("perm", "indirect"):
            rows = b.count // b.slots
            assert rows == next_pow2(p.max_total) and b.perm_mul % 2 == 1
            images = {((i * b.perm_mul) ^ b.perm_xor) & (rows - 1) for i in range(p.max_total)}
            assert len(images) == p.max_total


@pytest.mark.parametrize("chunk", range(6))
def test_plans_are_ub_free_by_construction(chunk: int) -> None:
    for s in range(chunk * 50, chunk * 50 + 50):
        _check_plan(_plan(s))


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(plans())
def test_hypothesis_plans_are_valid(p: KernelPlan) -> None:
    _check_plan(p)
    features(p)


def test_invariant_mode_never_depends_on_the_work_item() -> None:
    for s in range(30):
        planner = Planner(RandomSource(s), Knobs())
        planner.plan()
        planner.scopes.append([])
        for _ in range(20):
            e = planner.expr(planner.c.choice(planner.palette), 3, INVARIANT)
            for x in walk_expr(e):
                assert type(x).__name__ not in ("VarRef", "Lin", "PrivLoad", "Call", "PtrCmp")
                if isinstance(x, Load):
                    assert _invariant_addr(x.addr), x.addr


# ---------------------------------------------------------------------------
# The pseudo-C printer (`vecz-fuzz generate --plan`, reduced kernels)


def _half_buffer() -> Buffer:
    return Buffer("in1", "in", F16, count=64)


@pytest.mark.parametrize(("half", "lanes", "call"), [
    ("vload_half", 1, "vload_half(wrap(v0), in1)"),
    ("vload_half", 4, "vload_half4(wrap(v0), in1)"),
    ("vloada_half", 1, "vloada_half(wrap(v0), in1)"),
    ("vloada_half", 8, "vloada_half8(wrap(v0), in1)"),
    ("", 4, "vload4(wrap(v0), in1)"),
])
def test_pretty_spells_vload_half_as_called(half: str, lanes: int, call: str) -> None:
    # `vload_half` was printed as `vload`: a float load from a half buffer read as a half load.
    assert expr_c(VLoad(_half_buffer(), lanes, VarRef(Var(0, I64)), half=half)) == call


def test_pretty_vload_at_a_per_work_item_address() -> None:
    e = VLoad(_half_buffer(), 2, Const(I64, 0), base=Affine("lin", 0, 2, 3), offset=1, half="vload_half")
    assert expr_c(e) == "vload_half2(1, &in1[3 + 2*lin])"


@pytest.mark.parametrize("name", sorted(OUT_BUILTINS))
def test_pretty_shows_the_output_pointer_of_a_builtin(name: str) -> None:
    n, elem = OUT_BUILTINS[name]
    out = F32.with_lanes(4) if elem == "same" else I32.with_lanes(4)
    args = tuple(VarRef(Var(i, F32.with_lanes(4))) for i in range(n))
    params = ("float4",) * n + (f"{'float4' if elem == 'same' else 'int4'}*",)
    listed = ", ".join(f"v{i}" for i in range(n))
    result = Builtin(name, args, F32.with_lanes(4), params=params, out=out, part=0)
    assert expr_c(result) == f"{name}({listed}, &({params[-1][:-1]}){{0}})"
    # What the call wrote is the value used: the call, then its output read back.
    written = Builtin(name, args, out, params=params, out=out, part=1)
    t = params[-1][:-1]
    assert expr_c(written) == f"({{ {t} out_; {name}({listed}, &out_); out_; }})"


def test_pretty_spells_the_older_convert_with_signedness_and_rounding() -> None:
    e = Builtin("convert", (VarRef(Var(0, F32)),), I32, signed=False, suffix="_rtz")
    assert expr_c(e) == "convert_uint_rtz(v0)"


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_pretty_prints_every_node_the_generator_makes(profile: str) -> None:
    """No `<NodeName>` placeholder: each statement, expression and address
    the planner makes has a spelling (barriers, tree reductions, scans and
    peer slots of the `workgroup` profile had none)."""
    for seed in range(12):
        text = plan_c(_plan(seed, profile=profile))
        assert not re.search(r"<[A-Z]\w*>", text), (seed, re.findall(r"<[A-Z]\w*>", text))


def test_pretty_work_group_statements() -> None:
    tile = Buffer("tile0", "tile", I32, addrspace=3, slots=1)
    b = Barrier(fence=3, spelling="work_group_barrier")
    lines = stmts_c([b, TreeReduce(tile, "add", "halving", Barrier()), PrefixScan(tile, "umin", Barrier(2)),
                     Let(Var(1, I32), Load(tile, PeerSlot("rotate", 3)))], indent=0)
    assert lines[0] == "work_group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"
    assert lines[1].startswith("tile0[0] = reduce_halving(add, tile0[0 .. L-1]);")
    assert "barrier(CLK_LOCAL_MEM_FENCE)" in lines[1]
    assert lines[2].startswith("tile0[llin] = inclusive_scan(umin, tile0[0 .. llin]);")
    assert "barrier(CLK_GLOBAL_MEM_FENCE)" in lines[2]
    assert lines[3] == "int v1 = tile0[(llin + 3) % L];"


def test_pretty_stores_to_local_memory_at_the_local_linear_id() -> None:
    local = Buffer("local0", "local", I32, addrspace=3, slots=2)
    tile = Buffer("tile1", "tile", I32, addrspace=3, slots=1, two_d=True, rows=4, cols=4)
    lines = stmts_c([Store(local, 1, Const(I32, 7)), Store(tile, 0, Const(I32, 1)),
                     Let(Var(2, I32), Load(tile, PeerSlot("right", 1)))], indent=0)
    assert lines == ["local0[llin*2 + 1] = 7;", "tile1[r][x] = 1;", "int v2 = tile1[r][(x + 1) % lx];"]
