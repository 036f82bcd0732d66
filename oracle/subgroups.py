"""Sub-groups and work-group collectives in the oracle's reference.

The model (docs/subgroups.md): a sub-group is W consecutive work-items along
dimension `dim` of a work-group, W being the vectorization width of the run
being compared; the remainder of the local size along `dim` forms one smaller
sub-group. Sub-groups are numbered row by row (the other two dimensions, the
lower one fastest), then along `dim`.

The geometry lives in three slots of the runtime's work-item state
(`@__oracle_st`): `SG_WIDTH` (W; 0, a run naming no geometry, means 1: the
sub-groups of a kernel that is not vectorized),
`SG_DIM`, and `SG_RUN` (0 scalar run, 1 vectorized run, 2 vectorized run with
VectorPredication). The scalar drivers copy W and dim from cfg slots
`CFG_WIDTH` and `CFG_DIM` (the worker sets them from a run key's `@sg<W>.<dim>`
suffix, see `geometry_key`); the vectorized drivers store their own.

Queries (`get_sub_group_size`...) read the state. Collectives (sub-group
reductions, scans, broadcasts, shuffles, ballots, all/any, the sub-group
barrier, and every work-group collective) synchronise the members on the
work-group fibers (oracle/fibers.py), without the scheduler's help:

- each member writes its operands into its fiber's exchange slots and
  "arrives" at the collective's instance (one per sub-group, one for the
  work-group); the first to arrive is the instance's host, the fiber the
  scheduler is running;
- a member that is not the last switches directly to the next member that
  has not arrived (which runs up to the same collective);
- the last one computes every member's result from the exchange slots (in
  member order: fixed folds, bit-exact and reproducible), closes the
  instance, and switches back to the host, which carries on; the others get
  their results when the scheduler resumes them in their turn.

A member that cannot arrive (it waits at a barrier, has returned, or reaches
another collective) is the input's fault, reported like a barrier
divergence. Arriving members are marked as waiting at the collective's call
site, so a member that skips the collective and reaches a barrier or the end
of the kernel instead is caught by the scheduler's own divergence check.

In a vectorized run, a packet is a whole sub-group (the vectorizer computes
sub-group collectives inside it), so only remainder work-items call these
sub-group builtins; for work-group collectives a packet calls the scalar
builtin once with its packet's combined value, as Vecz does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from . import collective_names as names
from . import fibers
from .fiber_drivers import DONE, NUWAIT, RUNNABLE, _Fn, enter_fiber, quote
from .runtime import FnSig, Unsupported, base_name
from .subgroup_points import HOOK, active_members

SG_WIDTH, SG_DIM, SG_RUN = 19, 20, 21  # work-item state slots
CFG_WIDTH, CFG_DIM = 11, 12  # cfg slots the worker fills for scalar runs
_MAXF = fibers.MAX_FIBERS
_WG_KEY = _MAXF  # the work-group's instance
_SLOT = 64  # bytes of one exchange slot
_GEOM_RE = re.compile(r"^(.*)@sg(\d+)\.(\d)$")

QUERIES = frozenset({
    "get_max_sub_group_size", "get_sub_group_size", "get_sub_group_id", "get_sub_group_local_id",
    "get_num_sub_groups", "get_enqueued_num_sub_groups",
})


def geometry_key(run_key: str, width: int, dim: int) -> str:
    """The worker's run key for a scalar run with sub-groups of `width` along `dim`."""
    return f"{run_key}@sg{width}.{dim}"


def split_geometry(run_key: str) -> tuple[str, int, int]:
    """(run key, width, dim) of a run key; width 0 when it names no geometry."""
    m = _GEOM_RE.match(run_key)
    if not m:
        return run_key, 0, 0
    return m.group(1), int(m.group(2)), int(m.group(3))


def uses_sub_groups(declared: Iterable[str]) -> bool:
    """Does a module declaring these functions depend on the sub-group geometry?"""
    for n in declared:
        b = base_name(n)
        if b is not None and (b in QUERIES or names.parse_collective(n) is not None and
                              names.parse_collective(n).scope == "sub"):  # type: ignore[union-attr]
            return True
    return False


def text_uses_sub_groups(ir: str) -> bool:
    """Cheap test on module text: does its reference depend on the sub-group
    geometry (a sub-group builtin or query, or a work-group reduction or
    scan, which folds sub-group by sub-group)?"""
    return "sub_group" in ir or re.search(r"work_group_(reduce|scan)", ir) is not None


def needs_fibers(declared: Iterable[str]) -> bool:
    """Does a module declaring these functions need the fiber drivers (collectives)?"""
    for n in declared:
        c = names.parse_collective(n)
        if c is not None and c.kind != names.BALLOT_BIT:
            return True
    return False


def _state(slot: int | str) -> str:
    return f"getelementptr ([24 x i64], ptr @__oracle_st, i64 0, i64 {slot})"


def driver_state(vector: tuple[int, int, bool] | None, cfg: str, fresh: str) -> list[str]:
    """IR lines a driver runs once before its groups: the sub-group geometry
    (from cfg for the scalar drivers, `vector` = (width, dim, predicated) for
    vectorized ones). `fresh` prefixes the local names."""
    if vector is None:
        return [
            f"  %{fresh}wp = getelementptr i64, ptr {cfg}, i64 {CFG_WIDTH}",
            f"  %{fresh}w = load i64, ptr %{fresh}wp, align 8",
            f"  store i64 %{fresh}w, ptr {_state(SG_WIDTH)}, align 8",
            f"  %{fresh}dp = getelementptr i64, ptr {cfg}, i64 {CFG_DIM}",
            f"  %{fresh}d = load i64, ptr %{fresh}dp, align 8",
            f"  store i64 %{fresh}d, ptr {_state(SG_DIM)}, align 8",
            f"  store i64 0, ptr {_state(SG_RUN)}, align 8",
        ]
    width, dim, pred = vector
    return [
        f"  store i64 {width}, ptr {_state(SG_WIDTH)}, align 8",
        f"  store i64 {dim}, ptr {_state(SG_DIM)}, align 8",
        f"  store i64 {2 if pred else 1}, ptr {_state(SG_RUN)}, align 8",
    ]


# ------------------------------------------------------------ geometry


def _geometry_text() -> str:
    """Helpers on the state: W, the sub-group of the running work-item."""
    return f"""
define internal i64 @__oracle_sg_pick(i64 %a0, i64 %a1, i64 %a2, i64 %i) {{
entry:
  %is0 = icmp eq i64 %i, 0
  %is1 = icmp eq i64 %i, 1
  %v12 = select i1 %is1, i64 %a1, i64 %a2
  %v = select i1 %is0, i64 %a0, i64 %v12
  ret i64 %v
}}

define internal i64 @__oracle_sg_dim() {{
entry:
  %d = load i64, ptr {_state(SG_DIM)}, align 8
  %ok = icmp ult i64 %d, 3
  %r = select i1 %ok, i64 %d, i64 0
  ret i64 %r
}}

; L[i]
define internal i64 @__oracle_sg_lsize(i64 %i) {{
entry:
  %s = add i64 %i, 6
  %p = getelementptr [24 x i64], ptr @__oracle_st, i64 0, i64 %s
  %v = load i64, ptr %p, align 8
  ret i64 %v
}}

; l[i]
define internal i64 @__oracle_sg_lid(i64 %i) {{
entry:
  %p = getelementptr [24 x i64], ptr @__oracle_st, i64 0, i64 %i
  %v = load i64, ptr %p, align 8
  ret i64 %v
}}

; W: the sub-group width (0 in the state, a run that names no geometry:
; 1, the scalar kernel's own sub-groups).
define internal i64 @__oracle_sg_width() {{
entry:
  %w = load i64, ptr {_state(SG_WIDTH)}, align 8
  %z = icmp eq i64 %w, 0
  %r = select i1 %z, i64 1, i64 %w
  ret i64 %r
}}

; The first local id along dim of the running work-item's sub-group.
define internal i64 @__oracle_sg_base() {{
entry:
  %d = call i64 @__oracle_sg_dim()
  %l = call i64 @__oracle_sg_lid(i64 %d)
  %w = call i64 @__oracle_sg_width()
  %q = udiv i64 %l, %w
  %b = mul i64 %q, %w
  ret i64 %b
}}

define internal i64 @__oracle_sg_q_size() {{
entry:
  %d = call i64 @__oracle_sg_dim()
  %ld = call i64 @__oracle_sg_lsize(i64 %d)
  %w = call i64 @__oracle_sg_width()
  %b = call i64 @__oracle_sg_base()
  %left = sub i64 %ld, %b
  %lt = icmp ult i64 %left, %w
  %s = select i1 %lt, i64 %left, i64 %w
  ret i64 %s
}}

define internal i64 @__oracle_sg_q_max_size() {{
entry:
  %d = call i64 @__oracle_sg_dim()
  %ld = call i64 @__oracle_sg_lsize(i64 %d)
  %w = call i64 @__oracle_sg_width()
  %lt = icmp ult i64 %ld, %w
  %s = select i1 %lt, i64 %ld, i64 %w
  ret i64 %s
}}

define internal i64 @__oracle_sg_q_local_id() {{
entry:
  %d = call i64 @__oracle_sg_dim()
  %l = call i64 @__oracle_sg_lid(i64 %d)
  %b = call i64 @__oracle_sg_base()
  %r = sub i64 %l, %b
  ret i64 %r
}}

; Sub-groups per row along dim.
define internal i64 @__oracle_sg_per_row() {{
entry:
  %d = call i64 @__oracle_sg_dim()
  %ld = call i64 @__oracle_sg_lsize(i64 %d)
  %w = call i64 @__oracle_sg_width()
  %w1 = sub i64 %w, 1
  %t = add i64 %ld, %w1
  %n = udiv i64 %t, %w
  ret i64 %n
}}

; The other two dimensions, lower first.
define internal i64 @__oracle_sg_o0() {{
entry:
  %d = call i64 @__oracle_sg_dim()
  %z = icmp eq i64 %d, 0
  %r = select i1 %z, i64 1, i64 0
  ret i64 %r
}}

define internal i64 @__oracle_sg_o1() {{
entry:
  %d = call i64 @__oracle_sg_dim()
  %t = icmp eq i64 %d, 2
  %r = select i1 %t, i64 1, i64 2
  ret i64 %r
}}

define internal i64 @__oracle_sg_q_num() {{
entry:
  %o0 = call i64 @__oracle_sg_o0()
  %o1 = call i64 @__oracle_sg_o1()
  %a = call i64 @__oracle_sg_lsize(i64 %o0)
  %b = call i64 @__oracle_sg_lsize(i64 %o1)
  %rows = mul i64 %a, %b
  %per = call i64 @__oracle_sg_per_row()
  %n = mul i64 %rows, %per
  ret i64 %n
}}

define internal i64 @__oracle_sg_q_id() {{
entry:
  %o0 = call i64 @__oracle_sg_o0()
  %o1 = call i64 @__oracle_sg_o1()
  %d = call i64 @__oracle_sg_dim()
  %a = call i64 @__oracle_sg_lsize(i64 %o0)
  %i0 = call i64 @__oracle_sg_lid(i64 %o0)
  %i1 = call i64 @__oracle_sg_lid(i64 %o1)
  %row1 = mul i64 %i1, %a
  %row = add i64 %row1, %i0
  %per = call i64 @__oracle_sg_per_row()
  %ld = call i64 @__oracle_sg_lid(i64 %d)
  %w = call i64 @__oracle_sg_width()
  %k = udiv i64 %ld, %w
  %r1 = mul i64 %row, %per
  %r = add i64 %r1, %k
  ret i64 %r
}}
"""


def _query(name: str, base: str, sig: FnSig) -> str:
    fn = {
        "get_sub_group_size": "size", "get_max_sub_group_size": "max_size",
        "get_sub_group_local_id": "local_id", "get_num_sub_groups": "num",
        "get_enqueued_num_sub_groups": "num", "get_sub_group_id": "id",
    }[base]
    if sig.params or not sig.ret.startswith("i"):
        raise Unsupported(f"{name} with signature {sig}")
    conv = "  ret i64 %v" if sig.ret == "i64" else f"  %t = trunc i64 %v to {sig.ret}\n  ret {sig.ret} %t"
    return (f"define {sig.ret} @{quote(name)}() {{\nentry:\n  %v = call i64 @__oracle_sg_q_{fn}()\n"
            f"{conv}\n}}")


# ------------------------------------------------------------ rendezvous


def _fiber_text() -> str:
    """Exchange slots, instances, and the rendezvous on the fibers."""
    rec = fibers.RECORDS
    home = fibers.HOME
    n1 = _MAXF + 1
    fmt_skip = ("sub-group or work-group collective divergence in work-group (%lld,%lld,%lld): "
                "work-item (%lld,%lld,%lld) waits at a collective that work-item (%lld,%lld,%lld) "
                "does not reach (it waits at a barrier or has returned)")
    fmt_site = ("sub-group or work-group collective divergence in work-group (%lld,%lld,%lld): "
                "work-item (%lld,%lld,%lld) and the work-items before it in its group reach "
                "different collectives")
    return f"""
@__oracle_sg_in = internal global [{_MAXF} x [{_SLOT} x i8]] zeroinitializer, align 64
@__oracle_sg_in2 = internal global [{_MAXF} x [{_SLOT} x i8]] zeroinitializer, align 64
@__oracle_sg_out = internal global [{_MAXF} x [{_SLOT} x i8]] zeroinitializer, align 64
@__oracle_sg_out2 = internal global [{_MAXF} x [{_SLOT} x i8]] zeroinitializer, align 64
@__oracle_sg_aux = internal global [{_MAXF} x [4 x i64]] zeroinitializer, align 64
@__oracle_sg_mine = internal global [{_MAXF} x i64] zeroinitializer, align 64
@__oracle_sg_inside = internal global [{_MAXF} x i64] zeroinitializer, align 64
@__oracle_sg_open = internal global [{n1} x i64] zeroinitializer, align 64
@__oracle_sg_closed = internal global [{n1} x i64] zeroinitializer, align 64
@__oracle_sg_count = internal global [{n1} x i64] zeroinitializer, align 64
@__oracle_sg_epoch = internal global [{n1} x i64] zeroinitializer, align 64
@__oracle_sg_host = internal global [{n1} x ptr] zeroinitializer, align 64
@__oracle_sg_site = internal global [{n1} x [2 x ptr]] zeroinitializer, align 64
@__oracle_sg_ticket = internal global i64 0, align 8
@__oracle_sg_lin = internal global [{_MAXF} x i64] zeroinitializer, align 64
@__oracle_sg_lin2 = internal global [{_MAXF} x i64] zeroinitializer, align 64
@__oracle_sg_fmt_skip = private unnamed_addr constant [{len(fmt_skip) + 1} x i8] c"{fmt_skip}\\00"
@__oracle_sg_fmt_site = private unnamed_addr constant [{len(fmt_site) + 1} x i8] c"{fmt_site}\\00"

; Fiber index of the work-item with local ids (l0, l1, l2) in this run.
define internal i64 @__oracle_sg_fiber(i64 %l0, i64 %l1, i64 %l2) {{
entry:
  %kind = load i64, ptr {_state(SG_RUN)}, align 8
  %L0 = call i64 @__oracle_sg_lsize(i64 0)
  %L1 = call i64 @__oracle_sg_lsize(i64 1)
  %scalar = icmp eq i64 %kind, 0
  br i1 %scalar, label %lin, label %vec
lin:
  %a = mul i64 %l2, %L1
  %b = add i64 %a, %l1
  %c = mul i64 %b, %L0
  %r = add i64 %c, %l0
  ret i64 %r
vec:
  %d = call i64 @__oracle_sg_dim()
  %o0 = call i64 @__oracle_sg_o0()
  %o1 = call i64 @__oracle_sg_o1()
  %ld = call i64 @__oracle_sg_pick(i64 %l0, i64 %l1, i64 %l2, i64 %d)
  %lo0 = call i64 @__oracle_sg_pick(i64 %l0, i64 %l1, i64 %l2, i64 %o0)
  %lo1 = call i64 @__oracle_sg_pick(i64 %l0, i64 %l1, i64 %l2, i64 %o1)
  %Ld = call i64 @__oracle_sg_lsize(i64 %d)
  %Lo0 = call i64 @__oracle_sg_lsize(i64 %o0)
  %rowlen = call i64 @__oracle_sg_rowlen()
  %w = call i64 @__oracle_sg_width()
  %full = udiv i64 %Ld, %w
  %fullw = mul i64 %full, %w
  %inpk = icmp ult i64 %ld, %fullw
  %pk = udiv i64 %ld, %w
  %pred = icmp eq i64 %kind, 2
  %past = sub i64 %ld, %fullw
  %rempos = add i64 %full, %past
  %rp = select i1 %pred, i64 %full, i64 %rempos
  %pos = select i1 %inpk, i64 %pk, i64 %rp
  %row1 = mul i64 %lo1, %Lo0
  %row = add i64 %row1, %lo0
  %rs = mul i64 %row, %rowlen
  %v = add i64 %rs, %pos
  ret i64 %v
}}

; Fibers per row along dim in a vectorized run.
define internal i64 @__oracle_sg_rowlen() {{
entry:
  %kind = load i64, ptr {_state(SG_RUN)}, align 8
  %d = call i64 @__oracle_sg_dim()
  %Ld = call i64 @__oracle_sg_lsize(i64 %d)
  %w = call i64 @__oracle_sg_width()
  %full = udiv i64 %Ld, %w
  %rem = urem i64 %Ld, %w
  %nz = icmp ne i64 %rem, 0
  %one = zext i1 %nz to i64
  %pred = icmp eq i64 %kind, 2
  %extra = select i1 %pred, i64 %one, i64 %rem
  %n = add i64 %full, %extra
  ret i64 %n
}}

; Members of the running fiber's instance (scope 0: its sub-group, 1: the work-group).
define internal i64 @__oracle_sg_size(i64 %scope) {{
entry:
  %wg = icmp ne i64 %scope, 0
  br i1 %wg, label %work, label %sub
sub:
  %s = call i64 @__oracle_sg_q_size()
  ret i64 %s
work:
  %L0 = call i64 @__oracle_sg_lsize(i64 0)
  %L1 = call i64 @__oracle_sg_lsize(i64 1)
  %L2 = call i64 @__oracle_sg_lsize(i64 2)
  %kind = load i64, ptr {_state(SG_RUN)}, align 8
  %scalar = icmp eq i64 %kind, 0
  %a = mul i64 %L0, %L1
  %all = mul i64 %a, %L2
  br i1 %scalar, label %items, label %vec
items:
  ret i64 %all
vec:
  %o0 = call i64 @__oracle_sg_o0()
  %o1 = call i64 @__oracle_sg_o1()
  %Lo0 = call i64 @__oracle_sg_lsize(i64 %o0)
  %Lo1 = call i64 @__oracle_sg_lsize(i64 %o1)
  %rows = mul i64 %Lo0, %Lo1
  %rl = call i64 @__oracle_sg_rowlen()
  %n = mul i64 %rows, %rl
  ret i64 %n
}}

; Fiber index of member m.
define internal i64 @__oracle_sg_member(i64 %scope, i64 %m) {{
entry:
  %cur = load ptr, ptr @__oracle_wg_cur, align 8
  %none = icmp eq ptr %cur, null
  br i1 %none, label %solo, label %fib
solo:
  ret i64 0  ; outside the fiber drivers: the one member's slot (see @__oracle_sg_self)
fib:
  %wg = icmp ne i64 %scope, 0
  br i1 %wg, label %work, label %sub
work:
  ret i64 %m
sub:
  %d = call i64 @__oracle_sg_dim()
  %b = call i64 @__oracle_sg_base()
  %x = add i64 %b, %m
  %l0 = call i64 @__oracle_sg_lid(i64 0)
  %l1 = call i64 @__oracle_sg_lid(i64 1)
  %l2 = call i64 @__oracle_sg_lid(i64 2)
  %d0 = icmp eq i64 %d, 0
  %d1 = icmp eq i64 %d, 1
  %d2 = icmp eq i64 %d, 2
  %n0 = select i1 %d0, i64 %x, i64 %l0
  %n1 = select i1 %d1, i64 %x, i64 %l1
  %n2 = select i1 %d2, i64 %x, i64 %l2
  %f = call i64 @__oracle_sg_fiber(i64 %n0, i64 %n1, i64 %n2)
  ret i64 %f
}}

define internal i64 @__oracle_sg_key(i64 %scope) {{
entry:
  %wg = icmp ne i64 %scope, 0
  br i1 %wg, label %work, label %sub
work:
  ret i64 {_WG_KEY}
sub:
  %f = call i64 @__oracle_sg_member(i64 0, i64 0)
  ret i64 %f
}}

define internal ptr @__oracle_sg_rec(i64 %f) {{
entry:
  %o = mul i64 %f, {fibers.RECORD_BYTES}
  %r = getelementptr i8, ptr {rec}, i64 %o
  ret ptr %r
}}

; The running fiber's index (0 outside the fiber drivers: one slot for the
; one-member instances met there).
define internal i64 @__oracle_sg_self() {{
entry:
  %cur = load ptr, ptr @__oracle_wg_cur, align 8
  %none = icmp eq ptr %cur, null
  br i1 %none, label %zero, label %some
zero:
  ret i64 0
some:
  %c = ptrtoint ptr %cur to i64
  %b = ptrtoint ptr {rec} to i64
  %o = sub i64 %c, %b
  %i = udiv i64 %o, {fibers.RECORD_BYTES}
  ret i64 %i
}}

; Run fiber `to` (its work-item state first); returns when someone switches back.
define internal void @__oracle_sg_switch(ptr %from, ptr %to) {{
entry:
{enter_fiber('%to')}  %fc = getelementptr i8, ptr %from, i64 48
  %cf = load ptr, ptr %fc, align 8
  %tc = getelementptr i8, ptr %to, i64 48
  %ct = load ptr, ptr %tc, align 8
  call void @__oracle_fiber_switch(ptr %cf, ptr %ct)
  ret void
}}

; Give control back to the scheduler as a fiber waiting at `site` (a
; divergence: the scheduler's check reports it), for as long as it is resumed.
define internal void @__oracle_sg_park(ptr %me, ptr %site) noreturn {{
entry:
  br label %again
again:
  store i64 1, ptr %me, align 8
  %sp = getelementptr i8, ptr %me, i64 8
  store ptr %site, ptr %sp, align 8
  %cp = getelementptr i8, ptr %me, i64 48
  %ctx = load ptr, ptr %cp, align 8
  call void @__oracle_fiber_switch(ptr %ctx, ptr {home})
  br label %again
}}

define internal void @__oracle_sg_fault(ptr %fmt, ptr %a, ptr %b) {{
entry:
  %msg = call ptr @__oracle_fiber_message()
  %g0 = load i64, ptr {_state(3)}, align 8
  %g1 = load i64, ptr {_state(4)}, align 8
  %g2 = load i64, ptr {_state(5)}, align 8
  %ap0 = getelementptr i8, ptr %a, i64 16
  %a0 = load i64, ptr %ap0, align 8
  %ap1 = getelementptr i8, ptr %a, i64 24
  %a1 = load i64, ptr %ap1, align 8
  %ap2 = getelementptr i8, ptr %a, i64 32
  %a2 = load i64, ptr %ap2, align 8
  %bp0 = getelementptr i8, ptr %b, i64 16
  %b0 = load i64, ptr %bp0, align 8
  %bp1 = getelementptr i8, ptr %b, i64 24
  %b1 = load i64, ptr %bp1, align 8
  %bp2 = getelementptr i8, ptr %b, i64 32
  %b2 = load i64, ptr %bp2, align 8
  %r = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %msg, i64 {fibers.MESSAGE_BYTES}, ptr %fmt, i64 %g0, i64 %g1, i64 %g2, i64 %a0, i64 %a1, i64 %a2, i64 %b0, i64 %b1, i64 %b2)
  call void @__oracle_fiber_fail()
  ret void
}}

; Arrive at the running fiber's instance of `scope` (its operands are in its
; exchange slots). True: it is the last member (compute every result, then
; call finish). False: the results are ready.
define internal i1 @__oracle_sg_arrive(i64 %scope, ptr %site) {{
entry:
  ; Outside the fiber drivers (the benchmark's work-item loops): only
  ; one-member instances can be met, sub-groups of one work-item.
  %cur0 = load ptr, ptr @__oracle_wg_cur, align 8
  %nofib = icmp eq ptr %cur0, null
  br i1 %nofib, label %solo, label %fibers
solo:
  %n1 = call i64 @__oracle_sg_size(i64 %scope)
  %alone = icmp eq i64 %n1, 1
  br i1 %alone, label %is.last, label %stuck
stuck:
  call void @llvm.trap()
  unreachable
fibers:
  %me = call i64 @__oracle_sg_self()
  %rme = call ptr @__oracle_sg_rec(i64 %me)
  %key = call i64 @__oracle_sg_key(i64 %scope)
  %n = call i64 @__oracle_sg_size(i64 %scope)
  %ep = load i64, ptr @__oracle_san_group_epoch, align 8
  %op = getelementptr [{n1} x i64], ptr @__oracle_sg_open, i64 0, i64 %key
  %open = load i64, ptr %op, align 8
  %epp = getelementptr [{n1} x i64], ptr @__oracle_sg_epoch, i64 0, i64 %key
  %oep = load i64, ptr %epp, align 8
  %clp = getelementptr [{n1} x i64], ptr @__oracle_sg_closed, i64 0, i64 %key
  %closed = load i64, ptr %clp, align 8
  %cnp = getelementptr [{n1} x i64], ptr @__oracle_sg_count, i64 0, i64 %key
  %hp = getelementptr [{n1} x ptr], ptr @__oracle_sg_host, i64 0, i64 %key
  ; Members running the same function must reach the same call site; a
  ; packet and a remainder work-item run different functions (and a packet
  ; calls the exclusive scan for an inclusive one).
  %kp = getelementptr i8, ptr %rme, i64 40
  %kind = load i64, ptr %kp, align 8
  %kind1 = and i64 %kind, 1
  %sp0 = getelementptr [{n1} x [2 x ptr]], ptr @__oracle_sg_site, i64 0, i64 %key, i64 0
  %sp1 = getelementptr [{n1} x [2 x ptr]], ptr @__oracle_sg_site, i64 0, i64 %key, i64 1
  %sp = getelementptr [{n1} x [2 x ptr]], ptr @__oracle_sg_site, i64 0, i64 %key, i64 %kind1
  %some = icmp ne i64 %open, 0
  %same = icmp eq i64 %oep, %ep
  %notclosed = icmp ne i64 %closed, %open
  %l1 = and i1 %some, %same
  %live = and i1 %l1, %notclosed
  br i1 %live, label %join, label %new
new:
  %t0 = load i64, ptr @__oracle_sg_ticket, align 8
  %t1 = add i64 %t0, 1
  store i64 %t1, ptr @__oracle_sg_ticket, align 8
  store i64 %t1, ptr %op, align 8
  store i64 %ep, ptr %epp, align 8
  store i64 0, ptr %cnp, align 8
  store ptr %rme, ptr %hp, align 8
  store ptr null, ptr %sp0, align 8
  store ptr null, ptr %sp1, align 8
  br label %join
join:
  %t = load i64, ptr %op, align 8
  %isite = load ptr, ptr %sp, align 8
  %firstofkind = icmp eq ptr %isite, null
  br i1 %firstofkind, label %setsite, label %cmpsite
setsite:
  store ptr %site, ptr %sp, align 8
  br label %count
cmpsite:
  %samesite = icmp eq ptr %isite, %site
  br i1 %samesite, label %count, label %badsite
badsite:
  call void @__oracle_sg_fault(ptr @__oracle_sg_fmt_site, ptr %rme, ptr %rme)
  call void @__oracle_sg_park(ptr %rme, ptr %site)
  unreachable
count:
  %mp = getelementptr [{_MAXF} x i64], ptr @__oracle_sg_mine, i64 0, i64 %me
  store i64 %t, ptr %mp, align 8
  %c0 = load i64, ptr %cnp, align 8
  %c = add i64 %c0, 1
  store i64 %c, ptr %cnp, align 8
  ; Waiting at the collective, for the scheduler's divergence check.
  store i64 1, ptr %rme, align 8
  %insp = getelementptr [{_MAXF} x i64], ptr @__oracle_sg_inside, i64 0, i64 %me
  store i64 1, ptr %insp, align 8
  %stp = getelementptr i8, ptr %rme, i64 8
  store ptr %site, ptr %stp, align 8
  %last = icmp uge i64 %c, %n
  br i1 %last, label %is.last, label %find
is.last:
  ret i1 true
find:
  %m.slot = alloca i64, align 8
  store i64 0, ptr %m.slot, align 8
  br label %scan
scan:
  %m = load i64, ptr %m.slot, align 8
  %more = icmp ult i64 %m, %n
  br i1 %more, label %probe, label %lost
probe:
  %f = call i64 @__oracle_sg_member(i64 %scope, i64 %m)
  %fp = getelementptr [{_MAXF} x i64], ptr @__oracle_sg_mine, i64 0, i64 %f
  %ft = load i64, ptr %fp, align 8
  %arrived = icmp eq i64 %ft, %t
  %m1 = add i64 %m, 1
  store i64 %m1, ptr %m.slot, align 8
  br i1 %arrived, label %scan, label %handoff
handoff:
  %rto = call ptr @__oracle_sg_rec(i64 %f)
  %st = load i64, ptr %rto, align 8
  %runnable = icmp eq i64 %st, 0
  br i1 %runnable, label %go, label %notrunnable
notrunnable:
  ; It waits at a non-uniform collective (oracle/subgroup_points.py), or in
  ; another instance of a collective (held up by one): wait here until that
  ; one completes and it comes.
  %nuwait = icmp eq i64 %st, {NUWAIT}
  %inp = getelementptr [{_MAXF} x i64], ptr @__oracle_sg_inside, i64 0, i64 %f
  %inside = load i64, ptr %inp, align 8
  %held = icmp ne i64 %inside, 0
  %stwait = icmp eq i64 %st, 1
  %inother = and i1 %held, %stwait
  %canwait = or i1 %nuwait, %inother
  br i1 %canwait, label %early, label %skipped
skipped:
  call void @__oracle_sg_fault(ptr @__oracle_sg_fmt_skip, ptr %rme, ptr %rto)
  call void @__oracle_sg_park(ptr %rme, ptr %site)
  unreachable
go:
  call void @__oracle_sg_switch(ptr %rme, ptr %rto)
  br label %wait
lost:
  ; Everyone counted but not everyone arrived: cannot happen.
  call void @llvm.trap()
  unreachable
wait:
  %cl = load i64, ptr %clp, align 8
  %done = icmp uge i64 %cl, %t
  br i1 %done, label %ready, label %early
early:
  ; Resumed by the scheduler before the instance closed: a member skipped it.
  %cp = getelementptr i8, ptr %rme, i64 48
  %ctx = load ptr, ptr %cp, align 8
  store i64 1, ptr %rme, align 8
  call void @__oracle_fiber_switch(ptr %ctx, ptr {home})
  br label %wait
ready:
  store i64 0, ptr %rme, align 8
  %outp = getelementptr [{_MAXF} x i64], ptr @__oracle_sg_inside, i64 0, i64 %me
  store i64 0, ptr %outp, align 8
  ret i1 false
}}

; The last member computed the results: close the instance, every member
; runnable again, and let the host go on.
define internal void @__oracle_sg_finish(i64 %scope) {{
entry:
  %cur0 = load ptr, ptr @__oracle_wg_cur, align 8
  %nofib = icmp eq ptr %cur0, null
  br i1 %nofib, label %out, label %fibers
fibers:
  %me = call i64 @__oracle_sg_self()
  %rme = call ptr @__oracle_sg_rec(i64 %me)
  %key = call i64 @__oracle_sg_key(i64 %scope)
  %n = call i64 @__oracle_sg_size(i64 %scope)
  %op = getelementptr [{n1} x i64], ptr @__oracle_sg_open, i64 0, i64 %key
  %t = load i64, ptr %op, align 8
  %m.slot = alloca i64, align 8
  store i64 0, ptr %m.slot, align 8
  br label %head
head:
  %m = load i64, ptr %m.slot, align 8
  %more = icmp ult i64 %m, %n
  br i1 %more, label %body, label %close
body:
  %f = call i64 @__oracle_sg_member(i64 %scope, i64 %m)
  %r = call ptr @__oracle_sg_rec(i64 %f)
  store i64 0, ptr %r, align 8
  %insp = getelementptr [{_MAXF} x i64], ptr @__oracle_sg_inside, i64 0, i64 %f
  store i64 0, ptr %insp, align 8
  %m1 = add i64 %m, 1
  store i64 %m1, ptr %m.slot, align 8
  br label %head
close:
  %clp = getelementptr [{n1} x i64], ptr @__oracle_sg_closed, i64 0, i64 %key
  store i64 %t, ptr %clp, align 8
  %hp = getelementptr [{n1} x ptr], ptr @__oracle_sg_host, i64 0, i64 %key
  %host = load ptr, ptr %hp, align 8
  %self = icmp eq ptr %host, %rme
  br i1 %self, label %out, label %back
back:
  call void @__oracle_sg_switch(ptr %rme, ptr %host)
  br label %out
out:
  ret void
}}

; The sub-group of the work-item of record `rec` (a number unique in its group).
define internal i64 @__oracle_sg_segkey(ptr %rec) {{
entry:
  %p0 = getelementptr i8, ptr %rec, i64 16
  %l0 = load i64, ptr %p0, align 8
  %p1 = getelementptr i8, ptr %rec, i64 24
  %l1 = load i64, ptr %p1, align 8
  %p2 = getelementptr i8, ptr %rec, i64 32
  %l2 = load i64, ptr %p2, align 8
  %key = call i64 @__oracle_sg_segkey_ids(i64 %l0, i64 %l1, i64 %l2)
  ret i64 %key
}}

; The sub-group (a key unique in the group) of the work-item with local ids (l0, l1, l2).
define internal i64 @__oracle_sg_segkey_ids(i64 %l0, i64 %l1, i64 %l2) {{
entry:
  %d = call i64 @__oracle_sg_dim()
  %o0 = call i64 @__oracle_sg_o0()
  %o1 = call i64 @__oracle_sg_o1()
  %ld = call i64 @__oracle_sg_pick(i64 %l0, i64 %l1, i64 %l2, i64 %d)
  %lo0 = call i64 @__oracle_sg_pick(i64 %l0, i64 %l1, i64 %l2, i64 %o0)
  %lo1 = call i64 @__oracle_sg_pick(i64 %l0, i64 %l1, i64 %l2, i64 %o1)
  %Lo0 = call i64 @__oracle_sg_lsize(i64 %o0)
  %per = call i64 @__oracle_sg_per_row()
  %w = call i64 @__oracle_sg_width()
  %row1 = mul i64 %lo1, %Lo0
  %row = add i64 %row1, %lo0
  %r = mul i64 %row, %per
  %k = udiv i64 %ld, %w
  %key = add i64 %r, %k
  ret i64 %key
}}

; Does the fiber of record `rec` hold the work-item with local ids (t0, t1, t2)?
; A work-item: its own ids; a packet: W work-items from its ids along dim.
define internal i1 @__oracle_sg_covers(ptr %rec, i64 %t0, i64 %t1, i64 %t2) {{
entry:
  %p0 = getelementptr i8, ptr %rec, i64 16
  %l0 = load i64, ptr %p0, align 8
  %p1 = getelementptr i8, ptr %rec, i64 24
  %l1 = load i64, ptr %p1, align 8
  %p2 = getelementptr i8, ptr %rec, i64 32
  %l2 = load i64, ptr %p2, align 8
  %pk = getelementptr i8, ptr %rec, i64 40
  %kind = load i64, ptr %pk, align 8
  %packet = icmp ne i64 %kind, 0
  %w = call i64 @__oracle_sg_width()
  %span = select i1 %packet, i64 %w, i64 1
  %d = call i64 @__oracle_sg_dim()
  %s0 = select i1 %packet, i64 %d, i64 3
  %x0 = sub i64 %t0, %l0
  %x1 = sub i64 %t1, %l1
  %x2 = sub i64 %t2, %l2
  %isd0 = icmp eq i64 %s0, 0
  %isd1 = icmp eq i64 %s0, 1
  %isd2 = icmp eq i64 %s0, 2
  %in0 = icmp ult i64 %x0, %span
  %eq0 = icmp eq i64 %x0, 0
  %c0 = select i1 %isd0, i1 %in0, i1 %eq0
  %in1 = icmp ult i64 %x1, %span
  %eq1 = icmp eq i64 %x1, 0
  %c1 = select i1 %isd1, i1 %in1, i1 %eq1
  %in2 = icmp ult i64 %x2, %span
  %eq2 = icmp eq i64 %x2, 0
  %c2 = select i1 %isd2, i1 %in2, i1 %eq2
  %c01 = and i1 %c0, %c1
  %c012 = and i1 %c01, %c2
  ; Ids outside the group name no one (a partial packet's idle lanes included).
  %L0 = call i64 @__oracle_sg_lsize(i64 0)
  %L1 = call i64 @__oracle_sg_lsize(i64 1)
  %L2 = call i64 @__oracle_sg_lsize(i64 2)
  %r0 = icmp ult i64 %t0, %L0
  %r1 = icmp ult i64 %t1, %L1
  %r2 = icmp ult i64 %t2, %L2
  %r01 = and i1 %r0, %r1
  %r = and i1 %r01, %r2
  %c = and i1 %c012, %r
  ret i1 %c
}}

define internal ptr @__oracle_sg_slot(ptr %arr, i64 %f) {{
entry:
  %p = getelementptr [{_MAXF} x [{_SLOT} x i8]], ptr %arr, i64 0, i64 %f
  ret ptr %p
}}

define internal ptr @__oracle_sg_auxp(i64 %f, i64 %k) {{
entry:
  %p = getelementptr [{_MAXF} x [4 x i64]], ptr @__oracle_sg_aux, i64 0, i64 %f, i64 %k
  ret ptr %p
}}
"""


# ------------------------------------------------------------ collectives


_FLOATS = {"half": 2, "float": 4, "double": 8}


def _elem(ty: str) -> tuple[int, str]:
    m = re.fullmatch(r"<(\d+) x (.+)>", ty)
    return (int(m.group(1)), m.group(2)) if m else (1, ty)


def _bytes(ty: str) -> int:
    n, el = _elem(ty)
    if el in _FLOATS:
        return n * _FLOATS[el]
    m = re.fullmatch(r"i(\d+)", el)
    if not m:
        raise Unsupported(f"collective on {ty}")
    return n * max(1, (int(m.group(1)) + 7) // 8)


def _suffix(ty: str) -> str:
    n, el = _elem(ty)
    s = {"float": "f32", "double": "f64", "half": "f16"}.get(el, el)
    return f"v{n}{s}" if ty.startswith("<") else s


def _const(value: int | float, ty: str) -> str:
    """An IR constant of scalar type `ty`."""
    _, el = _elem(ty)
    if el in _FLOATS:
        if el == "half":
            return {0: "0xH0000", 1: "0xH3C00", float("inf"): "0xH7C00", float("-inf"): "0xHFC00"}[value]
        return {0: "0.0", 1: "1.0", float("inf"): "0x7FF0000000000000",
                float("-inf"): "0xFFF0000000000000"}[value]
    if el == "i1":
        return "true" if value else "false"
    return str(int(value))


def _combine(op: str, a: str, b: str, ty: str, f: _Fn, intrinsic) -> str:
    simple = {"add": "add", "mul": "mul", "and": "and", "or": "or", "xor": "xor", "fadd": "fadd",
              "fmul": "fmul", "logical_and": "and", "logical_or": "or", "logical_xor": "xor"}
    if op in simple:
        return f.op(f"{simple[op]} {ty} {a}, {b}")
    intr = {"smin": "smin", "smax": "smax", "umin": "umin", "umax": "umax", "fmin": "minnum", "fmax": "maxnum"}[op]
    name = f"llvm.{intr}.{_suffix(ty)}"
    intrinsic(name, ty, [ty, ty])
    return f.op(f"call {ty} @{name}({ty} {a}, {ty} {b})")


def _zext_i64(v: str, ty: str, f: _Fn) -> str:
    if ty == "i64":
        return v
    return f.op(f"zext {ty} {v} to i64")


def collective_definition(name: str, sig: FnSig, intrinsic) -> str:
    """The reference definition of collective builtin `name` (see the module doc)."""
    c = names.parse_collective(name)
    if c is None:
        raise Unsupported(names.unsupported_reason(name))
    scope = 0 if c.scope == "sub" else 1
    params = ", ".join(f"{t} %a{i}" for i, t in enumerate(sig.params))
    f = _Fn()
    intrinsic("llvm.returnaddress", "ptr", ["i32"])
    site = f.op("call ptr @llvm.returnaddress(i32 0)", "site")
    me = f.op("call i64 @__oracle_sg_self()", "me")
    if c.kind == names.BARRIER:
        last = f.op(f"call i1 @__oracle_sg_arrive(i64 {scope}, ptr {site})")
        f(f"br i1 {last}, label %compute, label %read")
        f.block("compute")
        # A new barrier interval for the sanitizer: the group's epoch, as at a
        # work-group barrier (it then also orders the other sub-groups'
        # accesses: a race between sub-groups across it goes unseen by the
        # sanitizer, though the reversed-order run may still catch it).
        ep = f.op("load i64, ptr @__oracle_san_epoch, align 8")
        f(f"store i64 {f.op(f'add i64 {ep}, 1')}, ptr @__oracle_san_epoch, align 8")
        f(f"call void @__oracle_sg_finish(i64 {scope})")
        f("br label %read")
        f.block("read")
        f("ret void" if sig.ret == "void" else f"ret {sig.ret} zeroinitializer")
        return f.text(f"define {sig.ret} @{quote(name)}({params}) noinline")
    if c.value is not None and c.value >= len(sig.params):
        raise Unsupported(f"{name} with signature {sig}")
    rty = sig.ret
    vty = sig.params[c.value] if c.value is not None else rty  # sub_group_elect: no operand
    for t in (vty, rty):
        if _bytes(t) > _SLOT:
            raise Unsupported(f"{name}: a {t} operand is wider than the oracle's exchange slots")
    # Operands into this fiber's slots.
    if c.value is not None:
        f(f"store {vty} %a{c.value}, ptr {f.op(f'call ptr @__oracle_sg_slot(ptr @__oracle_sg_in, i64 {me})')}, align 8")
    ints = list(c.extra)
    if c.mux and c.kind in (names.SHUFFLE_UP, names.SHUFFLE_DOWN):
        second = ints.pop(0)
        p2 = f.op(f"call ptr @__oracle_sg_slot(ptr @__oracle_sg_in2, i64 {me})")
        f(f"store {sig.params[second]} %a{second}, ptr {p2}, align 8")
    for k, i in enumerate(ints):
        if i >= len(sig.params) or not sig.params[i].startswith("i"):
            raise Unsupported(f"{name} with signature {sig}")
        v = _zext_i64(f"%a{i}", sig.params[i], f)
        f(f"store i64 {v}, ptr {f.op(f'call ptr @__oracle_sg_auxp(i64 {me}, i64 {k})')}, align 8")
    last = f.op(f"call i1 @__oracle_sg_arrive(i64 {scope}, ptr {site})")
    f(f"br i1 {last}, label %compute, label %read")
    f.block("compute")
    n = f.op(f"call i64 @__oracle_sg_size(i64 {scope})", "n")

    def member(m: str) -> str:
        return f.op(f"call i64 @__oracle_sg_member(i64 {scope}, i64 {m})", "f")

    def load_in(arr: str, fib: str, ty: str) -> str:
        p = f.op(f"call ptr @__oracle_sg_slot(ptr {arr}, i64 {fib})")
        return f.op(f"load {ty}, ptr {p}, align 8", "x")

    def store_out(fib: str, v: str, arr: str = "@__oracle_sg_out") -> None:
        p = f.op(f"call ptr @__oracle_sg_slot(ptr {arr}, i64 {fib})")
        f(f"store {rty} {v}, ptr {p}, align 8")

    def aux(fib: str, k: int) -> str:
        return f.op(f"load i64, ptr {f.op(f'call ptr @__oracle_sg_auxp(i64 {fib}, i64 {k})')}, align 8", "aux")

    def to_all(v: str) -> None:
        f.loop(n, lambda m: store_out(member(m), v))

    if c.kind in (names.REDUCE, names.SCAN_INCLUSIVE, names.SCAN_EXCLUSIVE):
        assert c.op is not None
        _, el = _elem(vty)
        lanes_form = vty.startswith("<")  # `<1 x T>` too: a packet of width 1
        is_float = el in _FLOATS
        if is_float != c.op.startswith("f") or c.op.startswith("logical") and vty != "i1":
            raise Unsupported(f"{name} with signature {sig}")
        # The lanes form (`_v<W>`): a packet along dimension 1 or 2 passing all
        # its lanes, for scans and float reductions (docs/subgroups.md).
        linear_kind = el != "i1" and (c.kind != names.REDUCE or is_float)
        if lanes_form and (scope == 0 or not linear_kind or (c.kind == names.REDUCE) != (rty == el)):
            raise Unsupported(f"{name} with signature {sig}")
        if not lanes_form and rty != vty:
            raise Unsupported(f"{name} with signature {sig}")
        bits = 1 if el == "i1" else (int(el[1:]) if not is_float else 0)
        scan = c.kind in (names.SCAN_INCLUSIVE, names.SCAN_EXCLUSIVE)
        ident = _const(names.identity(c.op, bits, is_float), vty)
        if scope == 1:
            linear = ""
            if linear_kind:
                # A vectorized run along dimension 1 or 2: packets pass their
                # lanes, and the fold goes over the work-items in linear order.
                run = f.load("i64", _state(SG_RUN), "run")
                dim = f.op("call i64 @__oracle_sg_dim()", "dim")
                linear = f.op(f"and i1 {f.op(f'icmp ne i64 {run}, 0')}, {f.op(f'icmp ne i64 {dim}, 0')}")
                lin_bb, fold_bb, done_bb = f.label("lin"), f.label("fold"), f.label("folded")
                f(f"br i1 {linear}, label %{lin_bb}, label %{fold_bb}")
                f.block(lin_bb)
                _work_group_linear(f, c.op, el, _const(names.identity(c.op, bits, is_float), el), scan, n, member,
                                   dim, lambda v: to_all(v), intrinsic)
                f(f"br label %{done_bb}")
                f.block(fold_bb)
            if lanes_form:
                f("unreachable")  # the lanes form is only called along dimension 1 or 2
            else:
                _work_group_fold(f, c.op, vty, ident, scan, c.kind == names.REDUCE, n, member, load_in,
                                 store_out, to_all, intrinsic)
                if linear:
                    f(f"br label %{done_bb}")
            if linear:
                f.block(done_bb)
            f(f"call void @__oracle_sg_finish(i64 {scope})")
            f("br label %read")
            f.block("read")
            out = "@__oracle_sg_out2" if c.kind == names.SCAN_INCLUSIVE else "@__oracle_sg_out"
            p = f.op(f"call ptr @__oracle_sg_slot(ptr {out}, i64 {me})")
            f(f"ret {rty} {f.op(f'load {rty}, ptr {p}, align 8')}")
            return f.text(f"define {sig.ret} @{quote(name)}({params}) noinline")
        acc = f.slot("acc", vty)
        f0 = member("0")
        x0 = load_in("@__oracle_sg_in", f0, vty)
        f(f"store {vty} {x0}, ptr {acc}, align 8")
        if scan:
            # Both scans' results, whichever builtin the last member called:
            # a packet's inclusive scan calls the exclusive one.
            store_out(f0, _const(names.identity(c.op, bits, is_float), vty))
            store_out(f0, x0, "@__oracle_sg_out2")

        def step(m: str) -> None:
            fib = member(m)
            prev = f.load(vty, acc, "prev")
            x = load_in("@__oracle_sg_in", fib, vty)
            nxt = _combine(c.op, prev, x, vty, f, intrinsic)  # type: ignore[arg-type]
            f(f"store {vty} {nxt}, ptr {acc}, align 8")
            if scan:
                store_out(fib, prev)
                store_out(fib, nxt, "@__oracle_sg_out2")

        f.loop(n, step, start="1")
        if c.kind == names.REDUCE:
            to_all(f.load(vty, acc, "total"))
    elif c.kind == names.ELECT:
        # Every member is active (the model's non-uniform forms are in
        # sub-group-uniform control flow): the first one is elected.
        if not rty.startswith("i"):
            raise Unsupported(f"{name} with signature {sig}")
        f.loop(n, lambda m: store_out(member(m), f.op(f"zext i1 {f.op(f'icmp eq i64 {m}, 0')} to {rty}")))
    elif c.kind == names.ALL_EQUAL:
        x0 = load_in("@__oracle_sg_in", member("0"), vty)
        acc = f.slot("acc", "i1")
        f(f"store i1 true, ptr {acc}, align 8")
        is_float = _elem(vty)[1] in _FLOATS

        def step(m: str) -> None:
            x = load_in("@__oracle_sg_in", member(m), vty)
            eq = f.op(f"fcmp oeq {vty} {x}, {x0}" if is_float else f"icmp eq {vty} {x}, {x0}")
            both = f.op(f"and i1 {f.load('i1', acc)}, {eq}")
            f(f"store i1 {both}, ptr {acc}, align 8")

        f.loop(n, step)
        to_all(f.op(f"zext i1 {f.load('i1', acc)} to {rty}") if rty != "i1" else f.load("i1", acc))
    elif c.kind == names.CLUSTERED_REDUCE:
        # Clusters of C consecutive members (member 0's C; C = 0: the whole
        # sub-group), each folded in member order from its first value.
        assert c.op is not None
        _, el = _elem(vty)
        if rty != vty or (el in _FLOATS) != c.op.startswith("f"):
            raise Unsupported(f"{name} with signature {sig}")
        c0 = aux(member("0"), 0)
        size = f.op(f"select i1 {f.op(f'icmp eq i64 {c0}, 0')}, i64 {n}, i64 {c0}")
        acc = f.slot("acc", vty)

        def step(m: str) -> None:
            start = f.op(f"sub i64 {m}, {f.op(f'urem i64 {m}, {size}')}")
            end0 = f.op(f"add i64 {start}, {size}")
            end = f.op(f"select i1 {f.op(f'icmp ult i64 {end0}, {n}')}, i64 {end0}, i64 {n}")
            f(f"store {vty} {load_in('@__oracle_sg_in', member(start), vty)}, ptr {acc}, align 8")

            def fold(k: str) -> None:
                x = load_in("@__oracle_sg_in", member(k), vty)
                nxt = _combine(c.op, f.load(vty, acc), x, vty, f, intrinsic)  # type: ignore[arg-type]
                f(f"store {vty} {nxt}, ptr {acc}, align 8")

            f.loop(end, fold, start=f.op(f"add i64 {start}, 1"))
            store_out(member(m), f.load(vty, acc))

        f.loop(n, step)
    elif c.kind in (names.ALL, names.ANY, names.BALLOT):
        acc = f.slot("acc", "i128" if c.kind == names.BALLOT else "i1")
        init = "0" if c.kind == names.BALLOT else ("true" if c.kind == names.ALL else "false")
        f(f"store {'i128' if c.kind == names.BALLOT else 'i1'} {init}, ptr {acc}, align 8")

        def step(m: str) -> None:
            x = load_in("@__oracle_sg_in", member(m), vty)
            t = f.op(f"icmp ne {vty} {x}, 0")
            if c.kind == names.BALLOT:
                bit = f.op(f"shl i128 {f.op(f'zext i1 {t} to i128')}, {f.op(f'zext i64 {m} to i128')}")
                old = f.load("i128", acc)
                f(f"store i128 {f.op(f'or i128 {old}, {bit}')}, ptr {acc}, align 8")
            else:
                j = "and" if c.kind == names.ALL else "or"
                old = f.load("i1", acc)
                f(f"store i1 {f.op(f'{j} i1 {old}, {t}')}, ptr {acc}, align 8")

        f.loop(n, step)
        if c.kind == names.BALLOT:
            if rty != "<4 x i32>":
                raise Unsupported(f"{name} with signature {sig}")
            res = f.op(f"bitcast i128 {f.load('i128', acc)} to <4 x i32>")
        else:
            v = f.load("i1", acc)
            res = v if rty == "i1" else f.op(f"zext i1 {v} to {rty}")
        to_all(res)
    elif c.kind == names.BROADCAST:
        if rty != vty:
            raise Unsupported(f"{name} with signature {sig}")
        f0 = member("0")
        if scope == 0:
            idx = aux(f0, 0) if c.extra else "0"  # sub_group_broadcast_first: the first member
            ok = f.op(f"icmp ult i64 {idx}, {n}")
        else:
            # Work-group: the local ids name a work-item; its value comes from
            # the member that holds it (a work-item, or the packet whose lanes
            # cover it: a packet passes its value from that lane).
            ids = [aux(f0, k) if k < len(c.extra) else "0" for k in range(3)]
            res = f.slot("res", rty)
            f(f"store {rty} zeroinitializer, ptr {res}, align 8")

            def pick(m: str) -> None:
                fib = member(m)
                rec = f.op(f"call ptr @__oracle_sg_rec(i64 {fib})")
                cov = f.op(f"call i1 @__oracle_sg_covers(ptr {rec}, i64 {ids[0]}, i64 {ids[1]}, i64 {ids[2]})")
                yes, no = f.label("bc.yes"), f.label("bc.no")
                f(f"br i1 {cov}, label %{yes}, label %{no}")
                f.block(yes)
                f(f"store {rty} {load_in('@__oracle_sg_in', fib, vty)}, ptr {res}, align 8")
                f(f"br label %{no}")
                f.block(no)

            f.loop(n, pick)
            to_all(f.load(rty, res))
        if scope == 0:
            res = f.slot("res", rty)
            f(f"store {rty} zeroinitializer, ptr {res}, align 8")
            f(f"br i1 {ok}, label %inrange, label %outrange")
            f.block("inrange")
            src = member(idx)
            f(f"store {rty} {load_in('@__oracle_sg_in', src, vty)}, ptr {res}, align 8")
            f("br label %outrange")
            f.block("outrange")
            to_all(f.load(rty, res))
    elif c.kind in (names.SHUFFLE, names.SHUFFLE_XOR, names.SHUFFLE_UP, names.SHUFFLE_DOWN):
        if rty != vty:
            raise Unsupported(f"{name} with signature {sig}")

        def step(m: str) -> None:
            fib = member(m)
            a = aux(fib, 0)
            res = f.slot("res", rty)
            f(f"store {rty} zeroinitializer, ptr {res}, align 8")
            arr = f.slot("arr", "ptr")
            f(f"store ptr @__oracle_sg_in, ptr {arr}, align 8")
            if c.kind == names.SHUFFLE:
                k = a
            elif c.kind == names.SHUFFLE_XOR:
                k = f.op(f"xor i64 {m}, {a}")
            elif c.kind == names.SHUFFLE_UP:
                k0 = f.op(f"sub i64 {m}, {a}")
                if c.mux:
                    # Below the first member: `prev` of the member size places up.
                    neg = f.op(f"icmp ugt i64 {a}, {m}")
                    wrapped = f.op(f"add i64 {k0}, {n}")
                    k = f.op(f"select i1 {neg}, i64 {wrapped}, i64 {k0}")
                    f(f"store ptr {f.op(f'select i1 {neg}, ptr @__oracle_sg_in2, ptr @__oracle_sg_in')}, ptr {arr}, align 8")
                else:
                    k = k0  # wraps to a huge index when out of range
            else:
                k0 = f.op(f"add i64 {m}, {a}")
                if c.mux:
                    past = f.op(f"icmp uge i64 {k0}, {n}")
                    k = f.op(f"select i1 {past}, i64 {f.op(f'sub i64 {k0}, {n}')}, i64 {k0}")
                    f(f"store ptr {f.op(f'select i1 {past}, ptr @__oracle_sg_in2, ptr @__oracle_sg_in')}, ptr {arr}, align 8")
                else:
                    k = k0
            ok = f.op(f"icmp ult i64 {k}, {n}")
            yes, no = f.label("sh.in"), f.label("sh.out")
            f(f"br i1 {ok}, label %{yes}, label %{no}")
            f.block(yes)
            src = member(k)
            base = f.load("ptr", arr)
            f(f"store {rty} {load_in(base, src, vty)}, ptr {res}, align 8")
            f(f"br label %{no}")
            f.block(no)
            store_out(fib, f.load(rty, res))

        f.loop(n, step)
    else:
        raise Unsupported(names.unsupported_reason(name))
    f(f"call void @__oracle_sg_finish(i64 {scope})")
    f("br label %read")
    f.block("read")
    out = "@__oracle_sg_out2" if c.kind == names.SCAN_INCLUSIVE else "@__oracle_sg_out"
    p = f.op(f"call ptr @__oracle_sg_slot(ptr {out}, i64 {me})")
    f(f"ret {rty} {f.op(f'load {rty}, ptr {p}, align 8')}")
    return f.text(f"define {sig.ret} @{quote(name)}({params}) noinline")


def _work_group_fold(f: _Fn, op: str, vty: str, ident: str, scan: bool, reduce: bool, n: str, member,
                     load_in, store_out, to_all, intrinsic) -> None:
    """A work-group reduction or scan, folded as the vectorized kernel folds
    it: each sub-group in member order from its first value, then the
    sub-groups' totals in order from the identity. A member is a work-item
    (consecutive work-items of one sub-group form a segment) or a packet
    (its value is already its sub-group's total, and it gets the fold of the
    totals before it: its lanes add their own scan). Integer operations give
    the same bits in any order; floating-point ones need this one order.
    Results: exclusive scans in the out slots, inclusive ones in out2."""
    total = f.slot("total", vty)  # fold of the finished segments, from the identity
    seg = f.slot("seg", vty)  # the open segment's fold
    base = f.slot("base", vty)  # `total` when the open segment began
    open_key = f.slot("segkey")  # the open segment's sub-group (-1: none)
    f(f"store {vty} {ident}, ptr {total}, align 8")
    f(f"store i64 -1, ptr {open_key}, align 8")

    def comb(a: str, b: str) -> str:
        return _combine(op, a, b, vty, f, intrinsic)

    def flush() -> None:
        k = f.load("i64", open_key)
        live, done = f.label("seg.flush"), f.label("seg.flushed")
        f(f"br i1 {f.op(f'icmp ne i64 {k}, -1')}, label %{live}, label %{done}")
        f.block(live)
        f(f"store {vty} {comb(f.load(vty, total), f.load(vty, seg))}, ptr {total}, align 8")
        f(f"store i64 -1, ptr {open_key}, align 8")
        f(f"br label %{done}")
        f.block(done)

    def step(m: str) -> None:
        fib = member(m)
        rec = f.op(f"call ptr @__oracle_sg_rec(i64 {fib})")
        x = load_in("@__oracle_sg_in", fib, vty)
        kind = f.load("i64", f.op(f"getelementptr i8, ptr {rec}, i64 40"))
        pk, item, nxt = f.label("m.packet"), f.label("m.item"), f.label("m.next")
        f(f"br i1 {f.op(f'icmp ne i64 {kind}, 0')}, label %{pk}, label %{item}")
        f.block(pk)
        flush()
        t = f.load(vty, total)
        if scan:
            store_out(fib, t)
            store_out(fib, comb(t, x), "@__oracle_sg_out2")
        f(f"store {vty} {comb(t, x)}, ptr {total}, align 8")
        f(f"br label %{nxt}")
        f.block(item)
        key = f.op(f"call i64 @__oracle_sg_segkey(ptr {rec})")
        same, new = f.label("seg.same"), f.label("seg.new")
        cur = f.load("i64", open_key)
        f(f"br i1 {f.op(f'icmp eq i64 {key}, {cur}')}, label %{same}, label %{new}")
        f.block(new)
        flush()
        f(f"store {vty} {f.load(vty, total)}, ptr {base}, align 8")
        f(f"store i64 {key}, ptr {open_key}, align 8")
        if scan:
            b0 = f.load(vty, base)
            store_out(fib, comb(b0, ident))
            store_out(fib, comb(b0, x), "@__oracle_sg_out2")
        f(f"store {vty} {x}, ptr {seg}, align 8")
        f(f"br label %{nxt}")
        f.block(same)
        prev = f.load(vty, seg)
        now = comb(prev, x)
        if scan:
            b1 = f.load(vty, base)
            store_out(fib, comb(b1, prev))
            store_out(fib, comb(b1, now), "@__oracle_sg_out2")
        f(f"store {vty} {now}, ptr {seg}, align 8")
        f(f"br label %{nxt}")
        f.block(nxt)

    f.loop(n, step)
    flush()
    if reduce:
        to_all(f.load(vty, total))


def _work_group_linear(f: _Fn, op: str, el: str, ident: str, scan: bool, n: str, member, dim: str, to_all,
                       intrinsic) -> None:
    """A work-group reduction or scan over the work-items in linear order, for
    a vectorized run along dimension 1 or 2, where a packet's lanes are not
    consecutive linear ids: every member's values (a packet's lanes, as its
    `_v<W>` call passed them; a work-item's one) go to their work-items'
    linear ids, and the fold runs over them exactly as the reference's
    (`_work_group_fold` with every member a work-item): segments of
    consecutive work-items of one sub-group, each folded from its first
    value, the segments' totals from the identity. Each member gets its
    exclusive and inclusive results back (a packet's in its lanes), or the
    total for a reduction."""
    size = _bytes(el)
    lsz = [f.op(f"call i64 @__oracle_sg_lsize(i64 {d})", "L") for d in range(3)]
    ld = f.op(f"call i64 @__oracle_sg_lsize(i64 {dim})", "Ld")
    w = f.op("call i64 @__oracle_sg_width()", "w")

    def each_lane(body) -> None:
        """body(fiber, lane, linear id) for every work-item of every member."""

        def per_member(m: str) -> None:
            fib = member(m)
            rec = f.op(f"call ptr @__oracle_sg_rec(i64 {fib})")
            ids = [f.load("i64", f.op(f"getelementptr i8, ptr {rec}, i64 {16 + 8 * d}")) for d in range(3)]
            kind = f.load("i64", f.op(f"getelementptr i8, ptr {rec}, i64 40"))
            own = f.op(f"call i64 @__oracle_sg_pick(i64 {ids[0]}, i64 {ids[1]}, i64 {ids[2]}, i64 {dim})")
            left = f.op(f"sub i64 {ld}, {own}")
            pw = f.op(f"select i1 {f.op(f'icmp ult i64 {w}, {left}')}, i64 {w}, i64 {left}")
            span = f.op(f"select i1 {f.op(f'icmp ne i64 {kind}, 0')}, i64 {pw}, i64 1")

            def per_lane(k: str) -> None:
                moved = []
                for d in range(3):
                    along = f.op(f"icmp eq i64 {dim}, {d}")
                    step = f.op(f"select i1 {along}, i64 {k}, i64 0")
                    moved.append(f.op(f"add i64 {ids[d]}, {step}"))
                row = f.op(f"add i64 {f.op(f'mul i64 {moved[2]}, {lsz[1]}')}, {moved[1]}")
                lin = f.op(f"add i64 {f.op(f'mul i64 {row}, {lsz[0]}')}, {moved[0]}")
                body(fib, k, lin)

            f.loop(span, per_lane)

        f.loop(n, per_member)

    def lin_ptr(arr: str, lin: str) -> str:
        return f.op(f"getelementptr [{_MAXF} x i64], ptr {arr}, i64 0, i64 {lin}")

    def lane_ptr(arr: str, fib: str, k: str) -> str:
        slot = f.op(f"call ptr @__oracle_sg_slot(ptr {arr}, i64 {fib})")
        return f.op(f"getelementptr i8, ptr {slot}, i64 {f.op(f'mul i64 {k}, {size}')}")

    def comb(a: str, b: str) -> str:
        return _combine(op, a, b, el, f, intrinsic)

    def put(fib: str, k: str, lin: str) -> None:
        x = f.load(el, lane_ptr("@__oracle_sg_in", fib, k))
        f(f"store {el} {x}, ptr {lin_ptr('@__oracle_sg_lin', lin)}, align 8")

    each_lane(put)
    # The reference's fold, work-item by work-item in linear order; the
    # exclusive results replace the values in @__oracle_sg_lin, the inclusive
    # ones go to @__oracle_sg_lin2.
    total = f.slot("total", el)
    seg = f.slot("seg", el)
    base = f.slot("base", el)
    open_key = f.slot("segkey")
    f(f"store {el} {ident}, ptr {total}, align 8")
    f(f"store i64 -1, ptr {open_key}, align 8")

    def flush() -> None:
        live, done = f.label("lseg.flush"), f.label("lseg.flushed")
        k = f.load("i64", open_key)
        f(f"br i1 {f.op(f'icmp ne i64 {k}, -1')}, label %{live}, label %{done}")
        f.block(live)
        f(f"store {el} {comb(f.load(el, total), f.load(el, seg))}, ptr {total}, align 8")
        f(f"br label %{done}")
        f.block(done)

    def step(i: str) -> None:
        p, p2 = lin_ptr("@__oracle_sg_lin", i), lin_ptr("@__oracle_sg_lin2", i)
        x = f.load(el, p)
        l0 = f.op(f"urem i64 {i}, {lsz[0]}")
        rest = f.op(f"udiv i64 {i}, {lsz[0]}")
        l1 = f.op(f"urem i64 {rest}, {lsz[1]}")
        l2 = f.op(f"udiv i64 {rest}, {lsz[1]}")
        key = f.op(f"call i64 @__oracle_sg_segkey_ids(i64 {l0}, i64 {l1}, i64 {l2})")
        same, new, nxt = f.label("lseg.same"), f.label("lseg.new"), f.label("lseg.next")
        cur = f.load("i64", open_key)
        f(f"br i1 {f.op(f'icmp eq i64 {key}, {cur}')}, label %{same}, label %{new}")
        f.block(new)
        flush()
        f(f"store {el} {f.load(el, total)}, ptr {base}, align 8")
        f(f"store i64 {key}, ptr {open_key}, align 8")
        b0 = f.load(el, base)
        f(f"store {el} {comb(b0, ident)}, ptr {p}, align 8")
        f(f"store {el} {comb(b0, x)}, ptr {p2}, align 8")
        f(f"store {el} {x}, ptr {seg}, align 8")
        f(f"br label %{nxt}")
        f.block(same)
        prev = f.load(el, seg)
        now = comb(prev, x)
        b1 = f.load(el, base)
        f(f"store {el} {comb(b1, prev)}, ptr {p}, align 8")
        f(f"store {el} {comb(b1, now)}, ptr {p2}, align 8")
        f(f"store {el} {now}, ptr {seg}, align 8")
        f(f"br label %{nxt}")
        f.block(nxt)

    f.loop(f.op(f"mul i64 {f.op(f'mul i64 {lsz[0]}, {lsz[1]}')}, {lsz[2]}"), step)
    flush()
    if not scan:
        to_all(f.load(el, total))
        return

    def give(fib: str, k: str, lin: str) -> None:
        ex = f.load(el, lin_ptr("@__oracle_sg_lin", lin))
        inc = f.load(el, lin_ptr("@__oracle_sg_lin2", lin))
        f(f"store {el} {ex}, ptr {lane_ptr('@__oracle_sg_out', fib, k)}, align 8")
        f(f"store {el} {inc}, ptr {lane_ptr('@__oracle_sg_out2', fib, k)}, align 8")

    each_lane(give)


# cl_khr_subgroup_ballot's bit operations: functions of a ballot value and
# the work-item's place in its sub-group (no synchronisation).
BALLOT_BITS = frozenset({
    "sub_group_inverse_ballot", "sub_group_ballot_bit_extract", "sub_group_ballot_bit_count",
    "sub_group_ballot_inclusive_scan", "sub_group_ballot_exclusive_scan", "sub_group_ballot_find_lsb",
    "sub_group_ballot_find_msb",
})


def _ballot_bits(name: str, base: str, sig: FnSig, intrinsic) -> str:
    """A ballot bit operation on the uint4 (bit k: member k). Bits of no
    member are ignored; find_lsb/msb of a value with no member bit set
    (undefined in OpenCL) give 0xFFFFFFFF."""
    want = 2 if base == "sub_group_ballot_bit_extract" else 1
    if len(sig.params) != want or sig.params[0] != "<4 x i32>" or sig.ret not in ("i32", "i1"):
        raise Unsupported(f"{name} with signature {sig}")
    f = _Fn()
    v = f.op("bitcast <4 x i32> %a0 to i128", "v")
    n = f.op("zext i64 " + f.op("call i64 @__oracle_sg_q_size()") + " to i128", "n")
    lid = f.op("zext i64 " + f.op("call i64 @__oracle_sg_q_local_id()") + " to i128", "lid")
    full = f.op(f"icmp uge i128 {n}, 128")
    low = f.op(f"sub i128 {f.op(f'shl i128 1, {n}')}, 1")
    members = f.op(f"select i1 {full}, i128 -1, i128 {low}")
    vm = f.op(f"and i128 {v}, {members}")
    intrinsic("llvm.ctpop.i128", "i128", ["i128"])

    def bit(i: str) -> str:
        inside = f.op(f"icmp ult i128 {i}, {n}")
        b = f.op(f"trunc i128 {f.op(f'lshr i128 {v}, {i}')} to i1")
        return f.op(f"and i1 {inside}, {b}")

    def count(mask: str) -> str:
        return f.op(f"call i128 @llvm.ctpop.i128(i128 {f.op(f'and i128 {vm}, {mask}')})")

    if base == "sub_group_inverse_ballot":
        r1 = bit(lid)
    elif base == "sub_group_ballot_bit_extract":
        r1 = bit(f.op("zext i32 %a1 to i128"))
    else:
        r1 = None
    if r1 is not None:
        r = r1 if sig.ret == "i1" else f.op(f"zext i1 {r1} to {sig.ret}")
    else:
        if base == "sub_group_ballot_bit_count":
            r128 = count("-1")
        elif base in ("sub_group_ballot_inclusive_scan", "sub_group_ballot_exclusive_scan"):
            upto = lid if base.endswith("exclusive_scan") else f.op(f"add i128 {lid}, 1")
            big = f.op(f"icmp uge i128 {upto}, 128")
            sh = f.op(f"shl i128 1, {upto}")
            below = f.op(f"sub i128 {sh}, 1")
            m = f.op(f"select i1 {big}, i128 -1, i128 {below}")
            r128 = count(m)
        else:
            none = f.op(f"icmp eq i128 {vm}, 0")
            if base == "sub_group_ballot_find_lsb":
                intrinsic("llvm.cttz.i128", "i128", ["i128", "i1"])
                pos = f.op(f"call i128 @llvm.cttz.i128(i128 {vm}, i1 false)")
            else:
                intrinsic("llvm.ctlz.i128", "i128", ["i128", "i1"])
                pos = f.op(f"sub i128 127, {f.op(f'call i128 @llvm.ctlz.i128(i128 {vm}, i1 false)')}")
            r128 = f.op(f"select i1 {none}, i128 4294967295, i128 {pos}")
        r = f.op(f"trunc i128 {r128} to {sig.ret}")
    f(f"ret {sig.ret} {r}")
    params = ", ".join(f"{t} %a{i}" for i, t in enumerate(sig.params))
    return f.text(f"define {sig.ret} @{quote(name)}({params})")


def builtin_definition(name: str, sig: FnSig, em) -> str | None:
    """The runtime's definition of a sub-group query or collective, None for
    other names. `em` is the runtime's emitter (oracle/runtime.py): the
    shared helpers are added to it once."""
    base = base_name(name)
    if name == HOOK:
        # Defined with the rendezvous of the collectives it serves
        # (oracle/subgroup_points.py).
        base = "sub_group_points"
    if base is None:
        return None
    is_query = base in QUERIES
    is_coll = names.is_collective_name(name) or name == HOOK
    if not (is_query or is_coll):
        return None
    if not getattr(em, "_sg_geometry", False):
        em._sg_geometry = True
        em.defs.append(_geometry_text())
    if is_query:
        return _query(name, base, sig)
    if base in BALLOT_BITS:
        return _ballot_bits(name, base, sig, em.intrinsic)
    if not getattr(em, "_sg_fibers", False):
        em._sg_fibers = True
        em.defs.append(_fiber_text())
    c = names.parse_collective(name)
    if active_members(c) or name == HOOK:
        if not getattr(em, "_sg_nu", False):
            em._sg_nu = True
            em.defs.append(_nu_text())
        if name == HOOK:
            return ""  # in _nu_text
        return active_members_definition(name, sig, c, em.intrinsic)  # type: ignore[arg-type]
    return collective_definition(name, sig, em.intrinsic)


# ------------------------------------------------------------ active members


def _nu_text() -> str:
    """The rendezvous of the collectives whose members are the work-items
    active at the call (docs/subgroups.md, oracle/subgroup_points.py).

    The kernel tells the runtime where each work-item waits: before every
    call that may wait, `__oracle_sg_point(point, counters, table)` records
    the point and the work-item's loop counters. A member arriving at such a
    collective writes its operands, records which computation the
    collective is, and waits (status NUWAIT) by switching to the scheduler.
    When no fiber of the group can run, the scheduler calls
    `__oracle_nu_close`, which closes every instance that can be closed: one
    whose every other non-exited member of the sub-group has arrived at it
    (same point, same counters of the loops around it) or waits at a point
    from which it cannot arrive (by the table: its counters of the loops they
    share are already past the instance's, or equal and the instance's point
    cannot be reached within those iterations, or it cannot be reached at
    all). Closing lists the members in sub-group local id order, runs the
    computation over them and makes them runnable; they read their results
    when the scheduler resumes them. A work-item still able to run blocks
    every instance of its sub-group."""
    rec = fibers.RECORDS
    home = fibers.HOME
    fmt = ("sub-group collective divergence in work-group (%lld,%lld,%lld): work-item (%lld,%lld,%lld) waits "
           "at a non-uniform collective whose instance cannot complete (work-item (%lld,%lld,%lld) and the "
           "others wait at points that do not let it)")
    fmt_nopoints = ("sub-group collective divergence in work-group (%lld,%lld,%lld): work-item (%lld,%lld,%lld) "
                    "waits at a non-uniform collective in a kernel without program points (%lld,%lld,%lld)")
    return f"""
@__oracle_nu_pt = internal global [{_MAXF} x i64] zeroinitializer, align 64
@__oracle_nu_cp = internal global [{_MAXF} x ptr] zeroinitializer, align 64
@__oracle_nu_fn = internal global [{_MAXF} x ptr] zeroinitializer, align 64
@__oracle_nu_mem = internal global [{_MAXF} x i64] zeroinitializer, align 64
@__oracle_nu_lid = internal global [{_MAXF} x i64] zeroinitializer, align 64
@__oracle_nu_cnt = internal global i64 0, align 8
@__oracle_nu_tab = internal global ptr null, align 8
@__oracle_nu_fmt = private unnamed_addr constant [{len(fmt) + 1} x i8] c"{fmt}\\00"
@__oracle_nu_fmt_nopoints = private unnamed_addr constant [{len(fmt_nopoints) + 1} x i8] c"{fmt_nopoints}\\00"

; The kernel's program point hook (oracle/subgroup_points.py).
define void @__oracle_sg_point(i64 %p, ptr %c, ptr %tab) {{
entry:
  %me = call i64 @__oracle_sg_self()
  %pp = getelementptr [{_MAXF} x i64], ptr @__oracle_nu_pt, i64 0, i64 %me
  store i64 %p, ptr %pp, align 8
  %cp = getelementptr [{_MAXF} x ptr], ptr @__oracle_nu_cp, i64 0, i64 %me
  store ptr %c, ptr %cp, align 8
  store ptr %tab, ptr @__oracle_nu_tab, align 8
  ret void
}}

define internal i64 @__oracle_nu_tabv(i64 %i) {{
entry:
  %t = load ptr, ptr @__oracle_nu_tab, align 8
  %p = getelementptr i64, ptr %t, i64 %i
  %v = load i64, ptr %p, align 8
  ret i64 %v
}}

; Entry `k` of the table's per-point part `part` for point `s`
; (part 0: loop ids, D per point; part 1: depth).
define internal i64 @__oracle_nu_point_info(i64 %s, i64 %part, i64 %k) {{
entry:
  %np = call i64 @__oracle_nu_tabv(i64 0)
  %d = call i64 @__oracle_nu_tabv(i64 1)
  %sq = mul i64 %np, %np
  %base = add i64 %sq, 2
  %isdepth = icmp ne i64 %part, 0
  br i1 %isdepth, label %depth, label %ids
ids:
  %o1 = mul i64 %s, %d
  %o2 = add i64 %base, %o1
  %o3 = add i64 %o2, %k
  %v = call i64 @__oracle_nu_tabv(i64 %o3)
  ret i64 %v
depth:
  %nd = mul i64 %np, %d
  %q1 = add i64 %base, %nd
  %q2 = add i64 %q1, %s
  %dv = call i64 @__oracle_nu_tabv(i64 %q2)
  ret i64 %dv
}}

define internal i64 @__oracle_nu_pt_of(i64 %f) {{
entry:
  %p = getelementptr [{_MAXF} x i64], ptr @__oracle_nu_pt, i64 0, i64 %f
  %v = load i64, ptr %p, align 8
  ret i64 %v
}}

; Fiber f's counter of loop l.
define internal i64 @__oracle_nu_ctr(i64 %f, i64 %l) {{
entry:
  %pp = getelementptr [{_MAXF} x ptr], ptr @__oracle_nu_cp, i64 0, i64 %f
  %c = load ptr, ptr %pp, align 8
  %p = getelementptr i64, ptr %c, i64 %l
  %v = load i64, ptr %p, align 8
  ret i64 %v
}}

; Do fibers f and g wait at the same instance: the same point, the same
; counters of the loops around it?
define internal i1 @__oracle_nu_same(i64 %f, i64 %g) {{
entry:
  %k.slot = alloca i64, align 8
  %pf = call i64 @__oracle_nu_pt_of(i64 %f)
  %pg = call i64 @__oracle_nu_pt_of(i64 %g)
  %eq = icmp eq i64 %pf, %pg
  br i1 %eq, label %start, label %no
start:
  %d = call i64 @__oracle_nu_point_info(i64 %pf, i64 1, i64 0)
  store i64 0, ptr %k.slot, align 8
  br label %head
head:
  %k = load i64, ptr %k.slot, align 8
  %more = icmp ult i64 %k, %d
  br i1 %more, label %body, label %yes
body:
  %l = call i64 @__oracle_nu_point_info(i64 %pf, i64 0, i64 %k)
  %a = call i64 @__oracle_nu_ctr(i64 %f, i64 %l)
  %b = call i64 @__oracle_nu_ctr(i64 %g, i64 %l)
  %k1 = add i64 %k, 1
  store i64 %k1, ptr %k.slot, align 8
  %same = icmp eq i64 %a, %b
  br i1 %same, label %head, label %no
yes:
  ret i1 true
no:
  ret i1 false
}}

; Can fiber g, waiting at its point with its counters, still arrive at the
; instance fiber f waits at?
define internal i1 @__oracle_nu_can_arrive(i64 %g, i64 %f) {{
entry:
  %k.slot = alloca i64, align 8
  %s = call i64 @__oracle_nu_pt_of(i64 %f)
  %p = call i64 @__oracle_nu_pt_of(i64 %g)
  %np = call i64 @__oracle_nu_tabv(i64 0)
  %row = mul i64 %p, %np
  %at0 = add i64 %row, %s
  %at = add i64 %at0, 2
  %e = call i64 @__oracle_nu_tabv(i64 %at)
  %shared = and i64 %e, 255
  %w1 = lshr i64 %e, 8
  %w2 = and i64 %w1, 1
  %within = icmp ne i64 %w2, 0
  %a1 = lshr i64 %e, 9
  %a2 = and i64 %a1, 1
  %anyway = icmp ne i64 %a2, 0
  store i64 0, ptr %k.slot, align 8
  br label %head
head:
  %k = load i64, ptr %k.slot, align 8
  %more = icmp ult i64 %k, %shared
  br i1 %more, label %body, label %equal
body:
  %l = call i64 @__oracle_nu_point_info(i64 %s, i64 0, i64 %k)
  %cg = call i64 @__oracle_nu_ctr(i64 %g, i64 %l)
  %cf = call i64 @__oracle_nu_ctr(i64 %f, i64 %l)
  %k1 = add i64 %k, 1
  store i64 %k1, ptr %k.slot, align 8
  %same = icmp eq i64 %cg, %cf
  br i1 %same, label %head, label %differ
differ:
  ; Counters only grow within one entry of a loop: past it, never again.
  %before = icmp ult i64 %cg, %cf
  br i1 %before, label %later, label %never
later:
  ret i1 %anyway
never:
  ret i1 false
equal:
  ret i1 %within
}}

; Arrive at an instance whose results `compute` writes: wait until the
; scheduler has closed it (see _nu_text).
define internal void @__oracle_nu_arrive(ptr %compute) {{
entry:
  %cur0 = load ptr, ptr @__oracle_wg_cur, align 8
  %nofib = icmp eq ptr %cur0, null
  br i1 %nofib, label %solo, label %fibers
solo:
  ; Outside the fiber drivers only one-member sub-groups can be met.
  %n1 = call i64 @__oracle_sg_q_size()
  %alone = icmp eq i64 %n1, 1
  br i1 %alone, label %one, label %stuck
stuck:
  call void @llvm.trap()
  unreachable
one:
  store i64 0, ptr @__oracle_nu_mem, align 8
  store i64 0, ptr @__oracle_nu_lid, align 8
  store i64 1, ptr @__oracle_nu_cnt, align 8
  call void %compute()
  ret void
fibers:
  %me = call i64 @__oracle_sg_self()
  %rme = call ptr @__oracle_sg_rec(i64 %me)
  %fp = getelementptr [{_MAXF} x ptr], ptr @__oracle_nu_fn, i64 0, i64 %me
  store ptr %compute, ptr %fp, align 8
  store i64 {NUWAIT}, ptr %rme, align 8
  %cp = getelementptr i8, ptr %rme, i64 48
  %ctx = load ptr, ptr %cp, align 8
  br label %wait
wait:
  call void @__oracle_fiber_switch(ptr %ctx, ptr {home})
  %st = load i64, ptr %rme, align 8
  %still = icmp eq i64 %st, {NUWAIT}
  br i1 %still, label %wait, label %done
done:
  ret void
}}

; The sub-group state of the fiber of record `r` (its local ids), for the
; scheduler's calls.
define internal void @__oracle_nu_enter(ptr %r) {{
entry:
  %p0 = getelementptr i8, ptr %r, i64 16
  %l0 = load i64, ptr %p0, align 8
  store i64 %l0, ptr {_state(0)}, align 8
  %p1 = getelementptr i8, ptr %r, i64 24
  %l1 = load i64, ptr %p1, align 8
  store i64 %l1, ptr {_state(1)}, align 8
  %p2 = getelementptr i8, ptr %r, i64 32
  %l2 = load i64, ptr %p2, align 8
  store i64 %l2, ptr {_state(2)}, align 8
  store ptr %r, ptr @__oracle_wg_cur, align 8
  ret void
}}

; May the instance fiber f (waiting, NUWAIT) waits at close now?
define internal i1 @__oracle_nu_closable(i64 %f) {{
entry:
  %m.slot = alloca i64, align 8
  %rf = call ptr @__oracle_sg_rec(i64 %f)
  call void @__oracle_nu_enter(ptr %rf)
  %n = call i64 @__oracle_sg_q_size()
  store i64 0, ptr %m.slot, align 8
  br label %head
head:
  %m = load i64, ptr %m.slot, align 8
  %more = icmp ult i64 %m, %n
  br i1 %more, label %body, label %yes
body:
  %m1 = add i64 %m, 1
  store i64 %m1, ptr %m.slot, align 8
  %g = call i64 @__oracle_sg_member(i64 0, i64 %m)
  %self = icmp eq i64 %g, %f
  br i1 %self, label %head, label %other
other:
  %rg = call ptr @__oracle_sg_rec(i64 %g)
  %st = load i64, ptr %rg, align 8
  switch i64 %st, label %blocked [ i64 {DONE}, label %head
                                   i64 {RUNNABLE}, label %no
                                   i64 {NUWAIT}, label %nu ]
nu:
  %same = call i1 @__oracle_nu_same(i64 %f, i64 %g)
  br i1 %same, label %head, label %blocked
blocked:
  %can = call i1 @__oracle_nu_can_arrive(i64 %g, i64 %f)
  br i1 %can, label %no, label %head
yes:
  ret i1 true
no:
  ret i1 false
}}

; Close fiber f's instance: its members in local id order, the computation,
; every member runnable.
define internal void @__oracle_nu_close_one(i64 %f) {{
entry:
  %m.slot = alloca i64, align 8
  %c.slot = alloca i64, align 8
  %rf = call ptr @__oracle_sg_rec(i64 %f)
  call void @__oracle_nu_enter(ptr %rf)
  %n = call i64 @__oracle_sg_q_size()
  store i64 0, ptr %m.slot, align 8
  store i64 0, ptr %c.slot, align 8
  br label %head
head:
  %m = load i64, ptr %m.slot, align 8
  %more = icmp ult i64 %m, %n
  br i1 %more, label %body, label %run
body:
  %m1 = add i64 %m, 1
  store i64 %m1, ptr %m.slot, align 8
  %g = call i64 @__oracle_sg_member(i64 0, i64 %m)
  %self = icmp eq i64 %g, %f
  br i1 %self, label %take, label %other
other:
  %rg = call ptr @__oracle_sg_rec(i64 %g)
  %st = load i64, ptr %rg, align 8
  %w = icmp eq i64 %st, {NUWAIT}
  br i1 %w, label %check, label %head
check:
  %same = call i1 @__oracle_nu_same(i64 %f, i64 %g)
  br i1 %same, label %take, label %head
take:
  %c = load i64, ptr %c.slot, align 8
  %mp = getelementptr [{_MAXF} x i64], ptr @__oracle_nu_mem, i64 0, i64 %c
  store i64 %g, ptr %mp, align 8
  %lp = getelementptr [{_MAXF} x i64], ptr @__oracle_nu_lid, i64 0, i64 %c
  store i64 %m, ptr %lp, align 8
  %c1 = add i64 %c, 1
  store i64 %c1, ptr %c.slot, align 8
  br label %head
run:
  %cnt = load i64, ptr %c.slot, align 8
  store i64 %cnt, ptr @__oracle_nu_cnt, align 8
  %fp = getelementptr [{_MAXF} x ptr], ptr @__oracle_nu_fn, i64 0, i64 %f
  %fn = load ptr, ptr %fp, align 8
  call void %fn()
  store i64 0, ptr %m.slot, align 8
  br label %rhead
rhead:
  %k = load i64, ptr %m.slot, align 8
  %rmore = icmp ult i64 %k, %cnt
  br i1 %rmore, label %rbody, label %out
rbody:
  %kp = getelementptr [{_MAXF} x i64], ptr @__oracle_nu_mem, i64 0, i64 %k
  %kf = load i64, ptr %kp, align 8
  %kr = call ptr @__oracle_sg_rec(i64 %kf)
  store i64 {RUNNABLE}, ptr %kr, align 8
  %k1 = add i64 %k, 1
  store i64 %k1, ptr %m.slot, align 8
  br label %rhead
out:
  ret void
}}

; The scheduler found no fiber of the group able to run: close what can be
; closed. 0: no fiber waits at a non-uniform collective; 1: something was
; closed; 2: nothing can be (a fault, reported).
define internal i64 @__oracle_nu_close(i64 %n) {{
entry:
  %f.slot = alloca i64, align 8
  %any.slot = alloca i64, align 8
  %closed.slot = alloca i64, align 8
  %first.slot = alloca ptr, align 8
  store i64 0, ptr %f.slot, align 8
  store i64 0, ptr %any.slot, align 8
  store i64 0, ptr %closed.slot, align 8
  store ptr null, ptr %first.slot, align 8
  br label %head
head:
  %f = load i64, ptr %f.slot, align 8
  %more = icmp ult i64 %f, %n
  br i1 %more, label %body, label %tally
body:
  %f1 = add i64 %f, 1
  store i64 %f1, ptr %f.slot, align 8
  %o = mul i64 %f, {fibers.RECORD_BYTES}
  %r = getelementptr i8, ptr {rec}, i64 %o
  %st = load i64, ptr %r, align 8
  %w = icmp eq i64 %st, {NUWAIT}
  br i1 %w, label %waiting, label %head
waiting:
  store i64 1, ptr %any.slot, align 8
  %fr = load ptr, ptr %first.slot, align 8
  %nofr = icmp eq ptr %fr, null
  %fr1 = select i1 %nofr, ptr %r, ptr %fr
  store ptr %fr1, ptr %first.slot, align 8
  %t = load ptr, ptr @__oracle_nu_tab, align 8
  %notab = icmp eq ptr %t, null
  br i1 %notab, label %nopoints, label %try
try:
  %ok = call i1 @__oracle_nu_closable(i64 %f)
  br i1 %ok, label %close, label %head
close:
  call void @__oracle_nu_close_one(i64 %f)
  store i64 1, ptr %closed.slot, align 8
  br label %head
nopoints:
  call void @__oracle_sg_fault(ptr @__oracle_nu_fmt_nopoints, ptr %r, ptr %r)
  ret i64 2
tally:
  %cl = load i64, ptr %closed.slot, align 8
  %did = icmp ne i64 %cl, 0
  br i1 %did, label %progress, label %none
progress:
  ret i64 1
none:
  %a = load i64, ptr %any.slot, align 8
  %some = icmp ne i64 %a, 0
  br i1 %some, label %stuck, label %idle
idle:
  ret i64 0
stuck:
  %fr2 = load ptr, ptr %first.slot, align 8
  call void @__oracle_sg_fault(ptr @__oracle_nu_fmt, ptr %fr2, ptr %fr2)
  ret i64 2
}}
"""


def active_members_definition(name: str, sig: FnSig, c: names.Collective, intrinsic) -> str:
    """A collective whose members are the work-items active at the call
    (`subgroup_points.active_members`): the builtin (operands into the
    exchange slots, arrive, read the result) and its computation, run by the
    scheduler over the members of a closed instance (`@__oracle_nu_mem`, in
    sub-group local id order, `@__oracle_nu_lid` their local ids). With
    every member of the sub-group active (sub-group-uniform control flow)
    the meanings are those of collective_definition."""
    rty = sig.ret
    if c.value is not None and c.value >= len(sig.params):
        raise Unsupported(f"{name} with signature {sig}")
    vty = sig.params[c.value] if c.value is not None else rty
    for t in (vty, rty):
        if _bytes(t) > _SLOT:
            raise Unsupported(f"{name}: a {t} operand is wider than the oracle's exchange slots")
    _, el = _elem(vty)
    is_float = el in _FLOATS
    if c.kind in (names.REDUCE, names.SCAN_INCLUSIVE, names.SCAN_EXCLUSIVE, names.CLUSTERED_REDUCE):
        assert c.op is not None
        if rty != vty or vty.startswith("<") or is_float != c.op.startswith("f") or c.op.startswith("logical"):
            raise Unsupported(f"{name} with signature {sig}")
    elif c.kind in (names.ELECT, names.ALL, names.ANY, names.ALL_EQUAL):
        if not rty.startswith("i"):
            raise Unsupported(f"{name} with signature {sig}")
    elif c.kind == names.BALLOT:
        if rty != "<4 x i32>":
            raise Unsupported(f"{name} with signature {sig}")
    elif c.kind == names.BROADCAST:
        if rty != vty:
            raise Unsupported(f"{name} with signature {sig}")
    else:
        raise Unsupported(names.unsupported_reason(name))
    compute = "__oracle_nu_compute." + name
    # The builtin.
    f = _Fn()
    me = f.op("call i64 @__oracle_sg_self()", "me")
    if c.value is not None:
        f(f"store {vty} %a{c.value}, ptr {f.op(f'call ptr @__oracle_sg_slot(ptr @__oracle_sg_in, i64 {me})')}, align 8")
    for k, i in enumerate(c.extra):
        if i >= len(sig.params) or not sig.params[i].startswith("i"):
            raise Unsupported(f"{name} with signature {sig}")
        v = _zext_i64(f"%a{i}", sig.params[i], f)
        f(f"store i64 {v}, ptr {f.op(f'call ptr @__oracle_sg_auxp(i64 {me}, i64 {k})')}, align 8")
    f(f"call void @__oracle_nu_arrive(ptr @{quote(compute)})")
    out = "@__oracle_sg_out2" if c.kind == names.SCAN_INCLUSIVE else "@__oracle_sg_out"
    p = f.op(f"call ptr @__oracle_sg_slot(ptr {out}, i64 {me})")
    f(f"ret {rty} {f.op(f'load {rty}, ptr {p}, align 8')}")
    params = ", ".join(f"{t} %a{i}" for i, t in enumerate(sig.params))
    builtin = f.text(f"define {sig.ret} @{quote(name)}({params}) noinline")

    # Its computation over the members.
    g = _Fn()
    n = g.load("i64", "@__oracle_nu_cnt", "n")

    def member(m: str) -> str:
        return g.load("i64", g.op(f"getelementptr [{_MAXF} x i64], ptr @__oracle_nu_mem, i64 0, i64 {m}"), "f")

    def lid(m: str) -> str:
        return g.load("i64", g.op(f"getelementptr [{_MAXF} x i64], ptr @__oracle_nu_lid, i64 0, i64 {m}"), "lid")

    def load_in(fib: str, ty: str = vty) -> str:
        return g.load(ty, g.op(f"call ptr @__oracle_sg_slot(ptr @__oracle_sg_in, i64 {fib})"), "x")

    def store_out(fib: str, v: str, arr: str = "@__oracle_sg_out") -> None:
        g(f"store {rty} {v}, ptr {g.op(f'call ptr @__oracle_sg_slot(ptr {arr}, i64 {fib})')}, align 8")

    def aux(fib: str, k: int) -> str:
        return g.load("i64", g.op(f"call ptr @__oracle_sg_auxp(i64 {fib}, i64 {k})"), "aux")

    def to_all(v: str) -> None:
        g.loop(n, lambda m: store_out(member(m), v))

    def comb(a: str, b: str) -> str:
        return _combine(c.op, a, b, vty, g, intrinsic)  # type: ignore[arg-type]

    if c.kind in (names.REDUCE, names.SCAN_INCLUSIVE, names.SCAN_EXCLUSIVE):
        bits = 1 if el == "i1" else (int(el[1:]) if not is_float else 0)
        ident = _const(names.identity(c.op, bits, is_float), vty)  # type: ignore[arg-type]
        acc = g.slot("acc", vty)
        f0 = member("0")
        x0 = load_in(f0)
        g(f"store {vty} {x0}, ptr {acc}, align 8")
        store_out(f0, ident)
        store_out(f0, x0, "@__oracle_sg_out2")

        def step(m: str) -> None:
            fib = member(m)
            prev = g.load(vty, acc, "prev")
            nxt = comb(prev, load_in(fib))
            g(f"store {vty} {nxt}, ptr {acc}, align 8")
            store_out(fib, prev)
            store_out(fib, nxt, "@__oracle_sg_out2")

        g.loop(n, step, start="1")
        if c.kind == names.REDUCE:
            to_all(g.load(vty, acc, "total"))
    elif c.kind == names.CLUSTERED_REDUCE:
        # Clusters of C consecutive local ids (member 0's C; 0: one cluster),
        # each folded over its members in member order.
        c0 = aux(member("0"), 0)
        one = g.op(f"icmp eq i64 {c0}, 0")
        size = g.op(f"select i1 {one}, i64 1, i64 {c0}")
        acc = g.slot("acc", vty)
        started = g.slot("started", "i1")

        def key(m: str) -> str:
            return g.op(f"select i1 {one}, i64 0, i64 {g.op(f'udiv i64 {lid(m)}, {size}')}")

        def step(m: str) -> None:
            mine = key(m)
            g(f"store i1 false, ptr {started}, align 8")

            def fold(k: str) -> None:
                yes, no = g.label("cl.in"), g.label("cl.out")
                g(f"br i1 {g.op(f'icmp eq i64 {key(k)}, {mine}')}, label %{yes}, label %{no}")
                g.block(yes)
                x = load_in(member(k))
                was = g.load("i1", started)
                nxt = g.op(f"select i1 {was}, {vty} {comb(g.load(vty, acc), x)}, {vty} {x}")
                g(f"store {vty} {nxt}, ptr {acc}, align 8")
                g(f"store i1 true, ptr {started}, align 8")
                g(f"br label %{no}")
                g.block(no)

            g.loop(n, fold)
            store_out(member(m), g.load(vty, acc))

        g.loop(n, step)
    elif c.kind == names.ELECT:
        g.loop(n, lambda m: store_out(member(m), g.op(f"zext i1 {g.op(f'icmp eq i64 {m}, 0')} to {rty}")))
    elif c.kind == names.ALL_EQUAL:
        x0 = load_in(member("0"))
        acc = g.slot("acc", "i1")
        g(f"store i1 true, ptr {acc}, align 8")

        def step(m: str) -> None:
            x = load_in(member(m))
            eq = g.op(f"fcmp oeq {vty} {x}, {x0}" if is_float else f"icmp eq {vty} {x}, {x0}")
            both = g.op(f"and i1 {g.load('i1', acc)}, {eq}")
            g(f"store i1 {both}, ptr {acc}, align 8")

        g.loop(n, step)
        r = g.load("i1", acc)
        to_all(r if rty == "i1" else g.op(f"zext i1 {r} to {rty}"))
    elif c.kind in (names.ALL, names.ANY, names.BALLOT):
        ballot = c.kind == names.BALLOT
        aty = "i128" if ballot else "i1"
        acc = g.slot("acc", aty)
        g(f"store {aty} {'0' if ballot else ('true' if c.kind == names.ALL else 'false')}, ptr {acc}, align 8")

        def step(m: str) -> None:
            t = g.op(f"icmp ne {vty} {load_in(member(m))}, 0")
            if ballot:
                # Bit k: the member whose sub-group local id is k.
                bit = g.op(f"shl i128 {g.op(f'zext i1 {t} to i128')}, {g.op(f'zext i64 {lid(m)} to i128')}")
                g(f"store i128 {g.op(f'or i128 {g.load(aty, acc)}, {bit}')}, ptr {acc}, align 8")
            else:
                j = "and" if c.kind == names.ALL else "or"
                g(f"store i1 {g.op(f'{j} i1 {g.load(aty, acc)}, {t}')}, ptr {acc}, align 8")

        g.loop(n, step)
        if ballot:
            res = g.op(f"bitcast i128 {g.load(aty, acc)} to <4 x i32>")
        else:
            v = g.load("i1", acc)
            res = v if rty == "i1" else g.op(f"zext i1 {v} to {rty}")
        to_all(res)
    else:  # BROADCAST
        res = g.slot("res", rty)
        if not c.extra:  # sub_group_broadcast_first: the first member's value
            g(f"store {rty} {load_in(member('0'))}, ptr {res}, align 8")
        else:
            # The member whose sub-group local id member 0 names (zero when
            # that work-item is not a member).
            idx = aux(member("0"), 0)
            g(f"store {rty} zeroinitializer, ptr {res}, align 8")

            def pick(m: str) -> None:
                yes, no = g.label("bc.yes"), g.label("bc.no")
                g(f"br i1 {g.op(f'icmp eq i64 {lid(m)}, {idx}')}, label %{yes}, label %{no}")
                g.block(yes)
                g(f"store {rty} {load_in(member(m))}, ptr {res}, align 8")
                g(f"br label %{no}")
                g.block(no)

            g.loop(n, pick)
        to_all(g.load(rty, res))
    g("ret void")
    return builtin + "\n\n" + g.text(f"define internal void @{quote(compute)}()")
