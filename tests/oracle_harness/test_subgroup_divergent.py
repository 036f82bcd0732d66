"""Non-uniform sub-group forms in divergent control flow (docs/subgroups.md):
the members of an instance are the work-items of the sub-group reaching the
same call site with the same iteration vector. The reference against a
Python model of that definition (a member that skips the call in one
iteration of a divergent loop and reaches it in the next belongs to the next
instance only), the vectorizer's masked lowering against the reference at
several widths, dimensions and choices, and the inputs the reference refuses
rather than guess about."""

from __future__ import annotations

import numpy as np
import pytest

import oracle
from oracle import worker as W
from oracle.buffers import initial_contents
from oracle.case import parse_arg, parse_ndrange
from oracle.check import _Session
from oracle.runtime import Unsupported
from oracle.subgroup_points import instrument
from oracle.subgroups import geometry_key

SEED = 7
LAYOUT = ["buf:i32:512:zero", "buf:i32:64:random"]


def _m(base: str, codes: str) -> str:
    return f"_Z{len(base)}{base}{codes}"


RED = _m("sub_group_non_uniform_reduce_add", "i")
FRED = _m("sub_group_non_uniform_reduce_add", "f")
SCAN = _m("sub_group_non_uniform_scan_inclusive_mul", "i")
XSCAN = _m("sub_group_non_uniform_scan_exclusive_add", "i")
FXSCAN = _m("sub_group_non_uniform_scan_exclusive_add", "f")
MAX = _m("sub_group_non_uniform_reduce_max", "i")
ELECT = _m("sub_group_elect", "v")
FIRST = _m("sub_group_broadcast_first", "i")
BCAST = _m("sub_group_non_uniform_broadcast", "ij")
ALL = _m("sub_group_non_uniform_all", "i")
ANY = _m("sub_group_non_uniform_any", "i")
ALLEQ = _m("sub_group_non_uniform_all_equal", "i")
BALLOT = _m("sub_group_ballot", "i")
CLUSTER = _m("sub_group_clustered_reduce_add", "ij")
FCLUSTER = _m("sub_group_clustered_reduce_max", "fj")

DECLS = f"""declare i64 @__mux_get_global_id(i32)
declare i64 @__mux_get_global_size(i32)
declare i32 @{RED}(i32)
declare float @{FRED}(float)
declare i32 @{SCAN}(i32)
declare i32 @{XSCAN}(i32)
declare float @{FXSCAN}(float)
declare i32 @{MAX}(i32)
declare i32 @{ELECT}()
declare i32 @{FIRST}(i32)
declare i32 @{BCAST}(i32, i32)
declare i32 @{ALL}(i32)
declare i32 @{ANY}(i32)
declare i32 @{ALLEQ}(i32)
declare <4 x i32> @{BALLOT}(i32)
declare i32 @{CLUSTER}(i32, i32)
declare float @{FCLUSTER}(float, i32)
declare i32 @_Z20sub_group_reduce_addi(i32)
declare i32 @__mux_work_group_reduce_add_i32(i32, i32)
declare void @__mux_work_group_barrier(i32, i32, i32)
"""

# The work-item's linear id (%gid) along a 1-D or 2-D range, and its input %x.
HEAD = """  %g0 = call i64 @__mux_get_global_id(i32 0)
  %g1 = call i64 @__mux_get_global_id(i32 1)
  %s0 = call i64 @__mux_get_global_size(i32 0)
  %row = mul i64 %g1, %s0
  %gid = add i64 %row, %g0
  %pin = getelementptr i32, ptr addrspace(1) %in, i64 %gid
  %x = load i32, ptr addrspace(1) %pin, align 4
"""


def _kernel(name: str, body: str) -> str:
    return (f"{DECLS}\ndefine spir_kernel void @{name}(ptr addrspace(1) %out, ptr addrspace(1) %in) {{\n"
            f"entry:\n{HEAD}{body}}}\n")


# Every form in the `then` side of a divergent if.
IF_BODY = f"""  %c = and i32 %x, 5
  %t = icmp ne i32 %c, 0
  br i1 %t, label %then, label %done
then:
  %fx = sitofp i32 %x to float
  %a = call i32 @{RED}(i32 %x)
  %b0 = call float @{FRED}(float %fx)
  %b = bitcast float %b0 to i32
  %s = call i32 @{SCAN}(i32 %x)
  %fs0 = call float @{FXSCAN}(float %fx)
  %fs = bitcast float %fs0 to i32
  %e = call i32 @{ELECT}()
  %f = call i32 @{FIRST}(i32 %x)
  %g = call i32 @{BCAST}(i32 %x, i32 2)
  %h = call i32 @{ALL}(i32 %c)
  %h2 = call i32 @{ANY}(i32 %e)
  %q = call i32 @{ALLEQ}(i32 %c)
  %bal = call <4 x i32> @{BALLOT}(i32 %c)
  %bx = extractelement <4 x i32> %bal, i32 0
  %r1 = add i32 %a, %b
  %r2 = xor i32 %r1, %s
  %r3 = add i32 %r2, %fs
  %r4 = mul i32 %r3, 3
  %r5 = add i32 %r4, %e
  %r6 = xor i32 %r5, %f
  %r7 = add i32 %r6, %g
  %r8 = shl i32 %r7, 1
  %r9 = add i32 %r8, %h
  %r10 = xor i32 %r9, %q
  %r11 = add i32 %r10, %bx
  %r12 = mul i32 %r11, 5
  %r13 = add i32 %r12, %h2
  br label %done
done:
  %v = phi i32 [ %r13, %then ], [ -1, %entry ]
  %po = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %v, ptr addrspace(1) %po, align 4
  ret void
"""

# A divergent loop (trip count 1-4 from the input) whose members skip the
# call in some iterations (and reach it in the next): each iteration's
# results are stored at out[4 * gid + i] (-1 where the work-item skips).
LOOP_BODY = f"""  %t0 = and i32 %x, 3
  %trip = add i32 %t0, 1
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %latch ]
  %xi = add i32 %x, %i
  %m = and i32 %xi, 6
  %skip = icmp eq i32 %m, 0
  %ie = zext i32 %i to i64
  %slot0 = mul i64 %gid, 4
  %slot = add i64 %slot0, %ie
  %po = getelementptr i32, ptr addrspace(1) %out, i64 %slot
  br i1 %skip, label %skipped, label %call
skipped:
  store i32 -1, ptr addrspace(1) %po, align 4
  br label %latch
call:
  %v = mul i32 %i, 1000
  %v2 = add i32 %v, %x
  %r = call i32 @{RED}(i32 %v2)
  %bal = call <4 x i32> @{BALLOT}(i32 %m)
  %b0 = extractelement <4 x i32> %bal, i32 0
  %sh = shl i32 %b0, 20
  %rb = xor i32 %r, %sh
  store i32 %rb, ptr addrspace(1) %po, align 4
  br label %latch
latch:
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, %trip
  br i1 %more, label %loop, label %done
done:
  ret void
"""

# Nested: a uniform outer loop (3 iterations) around a divergent inner loop
# whose body has a divergent if (exclusive scan, broadcast, elect, clustered
# add), then a divergent if after the inner loop (max, float scan, float
# clustered max), accumulated per item.
NESTED_BODY = f"""  br label %outer
outer:
  %j = phi i32 [ 0, %entry ], [ %j1, %olatch ]
  %acc = phi i32 [ 0, %entry ], [ %acc3, %olatch ]
  %x2 = lshr i32 %x, 2
  %t1 = and i32 %x2, 3
  %trip = add i32 %t1, %j
  %go = icmp ult i32 0, %trip
  br i1 %go, label %inner, label %after
inner:
  %k = phi i32 [ 0, %outer ], [ %k1, %ilatch ]
  %iacc = phi i32 [ %acc, %outer ], [ %iacc2, %ilatch ]
  %xk = add i32 %x, %k
  %xk2 = mul i32 %xk, 7
  %bit = and i32 %xk2, 8
  %on = icmp ne i32 %bit, 0
  br i1 %on, label %ithen, label %ilatch
ithen:
  %sv = add i32 %xk, %j
  %s = call i32 @{XSCAN}(i32 %sv)
  %bc = call i32 @{BCAST}(i32 %sv, i32 1)
  %el0 = call i32 @{ELECT}()
  %cl = call i32 @{CLUSTER}(i32 %sv, i32 3)
  %el = xor i32 %el0, %cl
  %s2 = mul i32 %s, 13
  %s3 = add i32 %s2, %bc
  %s4 = mul i32 %s3, 3
  %s5 = add i32 %s4, %el
  %iacc1 = add i32 %iacc, %s5
  br label %ilatch
ilatch:
  %iacc2 = phi i32 [ %iacc, %inner ], [ %iacc1, %ithen ]
  %k1 = add i32 %k, 1
  %kmore = icmp ult i32 %k1, %trip
  br i1 %kmore, label %inner, label %after
after:
  %acc2 = phi i32 [ %acc, %outer ], [ %iacc2, %ilatch ]
  %xj = add i32 %x, %j
  %odd = and i32 %xj, 1
  %isodd = icmp ne i32 %odd, 0
  br i1 %isodd, label %athen, label %olatch
athen:
  %mx = call i32 @{MAX}(i32 %acc2)
  %fa = sitofp i32 %acc2 to float
  %fsc0 = call float @{FXSCAN}(float %fa)
  %fsc1 = bitcast float %fsc0 to i32
  %fcl0 = call float @{FCLUSTER}(float %fa, i32 2)
  %fcl = bitcast float %fcl0 to i32
  %fsc = add i32 %fsc1, %fcl
  %mx2 = xor i32 %mx, %fsc
  %accm = add i32 %acc2, %mx2
  br label %olatch
olatch:
  %acc3 = phi i32 [ %acc2, %after ], [ %accm, %athen ]
  %j1 = add i32 %j, 1
  %jmore = icmp ult i32 %j1, 3
  br i1 %jmore, label %outer, label %done
done:
  %po = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %acc3, ptr addrspace(1) %po, align 4
  ret void
"""

# Divergent forms between uniform collectives and a barrier: members waiting
# at a non-uniform instance while others wait at a uniform sub-group
# reduction, a work-group reduction or a barrier after the join.
MIXED_BODY = f"""  %c = and i32 %x, 3
  %t = icmp ne i32 %c, 0
  br i1 %t, label %then, label %join
then:
  %a0 = call i32 @{RED}(i32 %x)
  br label %join
join:
  %a = phi i32 [ %a0, %then ], [ 0, %entry ]
  %u = call i32 @_Z20sub_group_reduce_addi(i32 %a)
  %w = call i32 @__mux_work_group_reduce_add_i32(i32 0, i32 %a)
  call void @__mux_work_group_barrier(i32 1, i32 1, i32 272)
  %t2 = icmp eq i32 %c, 2
  br i1 %t2, label %then2, label %join2
then2:
  %sc = call i32 @{SCAN}(i32 %u)
  br label %join2
join2:
  %s = phi i32 [ %sc, %then2 ], [ 5, %join ]
  %r1 = mul i32 %u, 31
  %r2 = add i32 %r1, %w
  %r3 = mul i32 %r2, 17
  %r4 = xor i32 %r3, %s
  %po = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %r4, ptr addrspace(1) %po, align 4
  ret void
"""

# Results of a divergent loop used after it: a work-item leaving the loop
# early keeps the instance of its own last iteration.
LIVEOUT_BODY = f"""  %t0 = and i32 %x, 3
  %trip = add i32 %t0, 1
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %v = add i32 %x, %i
  %r = call i32 @{RED}(i32 %v)
  %f = call i32 @{FIRST}(i32 %v)
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, %trip
  br i1 %more, label %loop, label %done
done:
  %rr = mul i32 %r, 3
  %rf = add i32 %rr, %f
  %po = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %rf, ptr addrspace(1) %po, align 4
  ret void
"""

# A divergent loop with two exits (a break to a return of its own) and a
# divergent if in its body; with `barrier`, a barrier in the latch of a
# loop every work-item runs 4 times (its exit branch never taken).
def _exits_body(barrier: bool) -> str:
    leave = "%i, 7" if barrier else "%b, 1"
    wait = "  call void @__mux_work_group_barrier(i32 0, i32 1, i32 272)\n" if barrier else ""
    return f"""  %po = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %latch ]
  %acc = phi i32 [ 0, %entry ], [ %acc2, %latch ]
  %xi = add i32 %x, %i
  %b = and i32 %xi, 5
  %c = icmp eq i32 {leave}
  br i1 %c, label %brk, label %body
body:
  %m = and i32 %xi, 2
  %t = icmp ne i32 %m, 0
  br i1 %t, label %call, label %latch
call:
  %r = call i32 @{RED}(i32 %xi)
  %acc1 = add i32 %acc, %r
  br label %latch
latch:
  %acc2 = phi i32 [ %acc, %body ], [ %acc1, %call ]
{wait}  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, 4
  br i1 %more, label %loop, label %done
brk:
  %s = call i32 @{XSCAN}(i32 %acc)
  store i32 %s, ptr addrspace(1) %po, align 4
  ret void
done:
  %s2 = call i32 @{XSCAN}(i32 %acc2)
  %s3 = mul i32 %s2, 3
  store i32 %s3, ptr addrspace(1) %po, align 4
  ret void
"""


KERNELS = {"divif": IF_BODY, "divloop": LOOP_BODY, "nested": NESTED_BODY, "mixed": MIXED_BODY,
           "liveout": LIVEOUT_BODY, "exits": _exits_body(False), "barrier_loop": _exits_body(True)}


def _text(name: str) -> str:
    return _kernel(name, KERNELS[name])


def _reference(name: str, nd: str, width: int) -> tuple[np.ndarray, np.ndarray]:
    specs = tuple(parse_arg(a) for a in LAYOUT)
    pool = W.get_pool()
    wk = pool.acquire()
    try:
        sess = _Session(wk, name, _text(name), 10.0, 0)
        assert sess.build(f"div:{name}", [])[0] == "ok"
        res = sess.run(f"div:{name}", [], geometry_key("", width, 0), specs, parse_ndrange(nd), SEED)
    finally:
        pool.release(wk)
    assert not isinstance(res, W.Failure) and res[0] == "ok", res
    return (np.frombuffer(initial_contents(specs[1], SEED, 1), np.int32).astype(np.int64),
            np.frombuffer(res[1][0], np.int32))


def _wrap(v: int) -> int:
    return (int(v) + 2**31) % 2**32 - 2**31


def test_divergent_loop_instances_follow_iteration_vectors() -> None:
    # 1-D, groups of 12 at W = 4: three sub-groups of 4 per group. In each
    # iteration i the members are the work-items still in the loop that do
    # not skip: their sum, and the ballot of their local ids.
    x, out = _reference("divloop", "global=24 local=12", 4)
    n = 24
    trip = [(int(v) & 3) + 1 for v in x[:n]]
    calls = {(g, i) for g in range(n) for i in range(trip[g]) if (int(x[g]) + i) & 6}
    late = 0
    for base in range(0, n, 4):
        sub = range(base, base + 4)
        for i in range(4):
            mem = [g for g in sub if (g, i) in calls]
            # A member skipping iteration i and calling in i+1 while another
            # calls in i: counting it in the earlier instance would be wrong.
            late += any((g, i) not in calls and i < trip[g] and (g, i + 1) in calls for g in sub) and bool(mem)
            ballot = sum(1 << (g - base) for g in mem if (int(x[g]) + i) & 6)
            for g in sub:
                got = int(out[4 * g + i])
                if (g, i) in calls:
                    total = _wrap(sum(i * 1000 + int(x[h]) for h in mem))
                    assert got == _wrap(total ^ (ballot << 20)), (g, i, got, mem)
                elif i < trip[g]:
                    assert got == -1, (g, i)
    assert late, "the input has no member that skips an iteration and calls in the next"


def test_divergent_if_members_are_the_active_work_items() -> None:
    # The `then` side at W = 8 along a 1-D group of 20: members of each
    # sub-group are those with x & 5; spot-check the reduction, elect,
    # broadcast_first, the broadcast from lane 2 and the ballot.
    x, out = _reference("divif", "global=20 local=20", 8)
    for base in (0, 8, 16):
        sub = list(range(base, min(base + 8, 20)))
        mem = [g for g in sub if int(x[g]) & 5]
        for g in sub:
            if g not in mem:
                assert out[g] == -1
        if not mem:
            continue
        xs = [int(x[g]) for g in mem]
        a = _wrap(sum(xs))
        fs = np.float32(xs[0])
        for v in xs[1:]:
            fs = np.float32(fs + np.float32(v))
        b = int(np.array([fs], np.float32).view(np.int32)[0])
        first = xs[0]
        bc = int(x[base + 2]) if (base + 2) in mem else 0
        alleq = int(len({v & 5 for v in xs}) == 1)
        ballot = sum(1 << (g - base) for g in mem)  # x & 5 is non-zero for every member
        for k, g in enumerate(mem):
            prod = 1
            for v in xs[: k + 1]:
                prod = _wrap(prod * v)
            fx = np.float32(0.0)
            if k:
                fx = np.float32(xs[0])
                for v in xs[1:k]:
                    fx = np.float32(fx + np.float32(v))
            fsb = int(np.array([fx], np.float32).view(np.int32)[0])
            e = int(k == 0)
            r = _wrap(_wrap(_wrap(a + b) ^ prod) + fsb)
            r = _wrap(_wrap(_wrap(_wrap(r * 3) + e) ^ first) + bc)
            r = _wrap(_wrap(_wrap(r << 1) + 1) ^ alleq)  # all: every member's x & 5 is non-zero
            r = _wrap(_wrap(_wrap(r + ballot) * 5) + 1)  # any(elect): the first member's 1
            assert out[g] == r, (g, k, mem)


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_vectorized_divergent_forms_match_the_reference(name: str) -> None:
    rep = oracle.check(_text(name), kernel=name, widths=[2, 4, 8, 16], dims=[0, 1],
                       choices=["", "VectorPredication", "LinearizeBOSCC"], layout=LAYOUT,
                       ndranges=["global=20 local=10", "global=6,10 local=3,10"])
    assert rep.results
    bad = [(r.width, r.dim, r.choices, r.status, r.detail[:200]) for r in rep.results if r.status != "match"]
    assert not bad, bad[:4]
    assert {r.dim for r in rep.results} == {0, 1}


HELPER = f"""{DECLS}
define internal i32 @helper(i32 %v) {{
entry:
  %r = call i32 @{RED}(i32 %v)
  ret i32 %r
}}

define spir_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %in) {{
entry:
{HEAD}  %r = call i32 @helper(i32 %x)
  %po = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %r, ptr addrspace(1) %po, align 4
  ret void
}}
"""

IRREDUCIBLE = _kernel("k", f"""  %c = trunc i32 %x to i1
  br i1 %c, label %a, label %b
a:
  %i = phi i32 [ 0, %entry ], [ %j1, %b ]
  %r = call i32 @{RED}(i32 %i)
  %i1 = add i32 %i, %r
  %ca = icmp ult i32 %i1, 3
  br i1 %ca, label %b, label %done
b:
  %j = phi i32 [ 0, %entry ], [ %i1, %a ]
  %j1 = add i32 %j, 1
  %cb = icmp ult i32 %j1, 3
  br i1 %cb, label %a, label %done
done:
  ret void
""")


@pytest.mark.parametrize("text,why", [(HELPER, "helper function"), (IRREDUCIBLE, "irreducible")])
def test_what_the_reference_cannot_decide_is_refused(text: str, why: str) -> None:
    with pytest.raises(Unsupported, match=why):
        instrument(text, "k")
    # The reference's build reports the input as unsupported (a verdict of
    # unsupported-input, never a guess).
    pool = W.get_pool()
    wk = pool.acquire()
    try:
        res = _Session(wk, "k", text, 10.0, 0).build("div:refused", [])
    finally:
        pool.release(wk)
    assert res[0] == "unsupported-input" and why in res[1], res


def test_kernels_without_such_collectives_are_left_alone() -> None:
    text = DECLS + "\ndefine spir_kernel void @k(ptr %o) {\nentry:\n  ret void\n}\n"
    assert instrument(text, "k") == text
