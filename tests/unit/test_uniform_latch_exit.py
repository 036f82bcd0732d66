"""Uniform latch exits of divergent loops: a latch leaving on a uniform
condition (an iteration limit) branches on it directly; the exit's mask and
frozen values are set once on the way out, and the header's mask is
cleared there, so a later entry into the loop starts from the entering
lanes only."""

from __future__ import annotations

from collections import Counter

import pytest

import oracle
from vectorizer import vectorize


def _case(kernel: str, args: str, seed: int, body: str) -> str:
    """A case file over this file's matrix (2 NDRanges x 3 widths x 3 choice
    sets) for `kernel(out, in)`; `body` goes on after the entry block has
    loaded `%x = in[gid]`."""
    return (f"; vecz-case: 1\n; kernel: {kernel}\n; args: {args}\n"
            "; ndrange: global=64 local=16\n; ndrange: global=37 local=37\n; widths: 4,8,16\n"
            "; choices:\n; choices: LinearizeBOSCC\n; choices: LinearizeBOSCC;VectorPredication\n"
            f"; seed: {seed}\n\n"
            "declare i64 @_Z13get_global_idj(i32)\n\n"
            f"define spir_kernel void @{kernel}(ptr addrspace(1) %out, ptr addrspace(1) %in) {{\n"
            "entry:\n  %gid = call i64 @_Z13get_global_idj(i32 0)\n"
            "  %ip = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %gid\n"
            f"  %x = load i32, ptr addrspace(1) %ip, align 4\n{body}")


# while (v > 1 && n < 10) { v -= 3; n++; }: lanes still looping when the
# limit is reached leave through the uniform exit, the others earlier.
LIMIT = _case("limit", "buf:i32:64:zero buf:i32:64:mod64", 3, """  br label %head
head:
  %n = phi i32 [ 0, %entry ], [ %n.next, %body ]
  %v = phi i32 [ %x, %entry ], [ %v.next, %body ]
  %c = icmp sgt i32 %v, 1
  br i1 %c, label %body, label %exit
body:
  %v.next = sub i32 %v, 3
  %n.next = add nuw nsw i32 %n, 1
  %more = icmp ult i32 %n.next, 10
  br i1 %more, label %head, label %exit
exit:
  %nn = phi i32 [ %n, %head ], [ %n.next, %body ]
  %vv = phi i32 [ %v, %head ], [ %v.next, %body ]
  %r0 = mul i32 %nn, 1000
  %r = add i32 %r0, %vv
  %op = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 %r, ptr addrspace(1) %op, align 4
  ret void
}
""")

# An inner divergent loop with an iteration limit, re-entered by a different
# set of lanes in each outer iteration; a lane entering counts itself.
REENTER = _case("reenter", "buf:i32:512:zero buf:i32:64:mod256", 4, """  %row = mul i64 %gid, 8
  br label %outer
outer:
  %k = phi i32 [ 0, %entry ], [ %k.next, %outer.latch ]
  %xk = add i32 %x, %k
  %odd = and i32 %xk, 1
  %go = icmp ne i32 %odd, 0
  br i1 %go, label %inner.pre, label %outer.latch
inner.pre:
  br label %inner
inner:
  %i = phi i32 [ 0, %inner.pre ], [ %i.next, %inner.body ]
  %sh = lshr i32 %xk, %i
  %bit = and i32 %sh, 2
  %on = icmp ne i32 %bit, 0
  br i1 %on, label %inner.body, label %inner.exit
inner.body:
  %ie = zext i32 %i to i64
  %slot = add i64 %row, %ie
  %sp = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %slot
  %old = load i32, ptr addrspace(1) %sp, align 4
  %k1 = add i32 %k, 1
  %new = add i32 %old, %k1
  store i32 %new, ptr addrspace(1) %sp, align 4
  %i.next = add nuw nsw i32 %i, 1
  %more = icmp ult i32 %i.next, 3
  br i1 %more, label %inner, label %inner.exit
inner.exit:
  %last = phi i32 [ %i, %inner ], [ %i.next, %inner.body ]
  %le = zext i32 %last to i64
  %lslot = add i64 %row, 7
  %lp = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %lslot
  %lo = load i32, ptr addrspace(1) %lp, align 4
  %last10 = add i32 %last, 10
  %ln = add i32 %lo, %last10
  store i32 %ln, ptr addrspace(1) %lp, align 4
  br label %outer.latch
outer.latch:
  %k.next = add nuw nsw i32 %k, 1
  %kdone = icmp eq i32 %k.next, 4
  br i1 %kdone, label %end, label %outer
end:
  ret void
}
""")

# The latch leaves on an unnamed header phi (true, then false: at most two
# iterations), as a Csmith kernel's loop did. Control-flow conversion
# replaces that phi by a load before it builds the latch's select and the
# exit's negation; both must use the replacement (a kept reference to the
# erased phi printed as `<badref>` and LLVM rejected the module).
HEADER_PHI = _case("twice", "buf:i64:64:zero buf:i32:64:mod64", 5, """  %lim = and i32 %x, 3
  br label %loop
loop:
  %0 = phi i1 [ true, %entry ], [ false, %latch ]
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %c = icmp ult i32 %i, %lim
  br i1 %c, label %latch, label %exit
latch:
  %i.next = add i32 %i, 1
  br i1 %0, label %loop, label %exit
exit:
  %r = phi i32 [ %i, %loop ], [ %i.next, %latch ]
  %r64 = zext i32 %r to i64
  %op = getelementptr inbounds i64, ptr addrspace(1) %out, i64 %gid
  store i64 %r64, ptr addrspace(1) %op, align 8
  ret void
}
""")

# The same loop with a per-lane limit: its latch must stay a masked exit.
VARYING_LIMIT = LIMIT.split("\n\n", 1)[1].replace("%more = icmp ult i32 %n.next, 10", "%more = icmp ult i32 %n.next, %x")


@pytest.mark.parametrize("case", [LIMIT, REENTER, HEADER_PHI], ids=["limit", "re-enter", "header-phi"])
def test_results_match_the_scalar_kernel(case: str) -> None:
    report = oracle.check(case)
    assert Counter(r.status for r in report.results) == {"match": 18}, report.results


def test_the_latch_branches_on_the_limit_and_blends_once() -> None:
    r = vectorize(LIMIT.split("\n\n", 1)[1], kernel="limit", width=8)
    assert r.stats["uniform_latch_exits"] == 1
    body = r.ir.split("@__vecz_v8_limit(")[1].split("\n}\n")[0]
    loop = body.split("\nhead:")[1].split("\nexit:")[0]
    exit_block = body.split("\nexit:")[1]
    # In the loop: the limit is a scalar compare and-ed with "any lane left";
    # no mask lane depends on it.
    assert "%more = icmp samesign ult i32" in loop and "%head.stay = select i1 %more, i1" in loop
    assert "br i1 %head.stay, label %head, label %exit" in loop
    assert "insertelement <8 x i1>" not in loop
    # The exit takes the lanes still in the loop (when the limit was hit), once.
    assert "xor i1 %more, true" in exit_block and exit_block.count("select <8 x i1>") == 2


def test_a_varying_limit_is_left_alone() -> None:
    varying = VARYING_LIMIT
    r = vectorize(varying, kernel="limit", width=8)
    assert r.vectorized_name and "uniform_latch_exits" not in r.stats


def test_a_branch_left_varying_is_refused_not_miscompiled(monkeypatch) -> None:
    """The safety net behind the uniformity decision: were a varying limit
    taken for uniform, the packetizer would branch on lane 0's condition;
    the pipeline refuses instead."""
    from vectorizer.passes.prepared_cache import CACHE
    from vectorizer.transform import control_flow_conversion as cfc

    # The prepared-kernel cache keeps what control-flow conversion made of
    # this text in an earlier test; the patched pass must run, and what it
    # makes must not be served to later tests.
    CACHE.clear()
    monkeypatch.setattr(cfc.ControlFlowConversion, "_uniform_in_loop", lambda self, value, loop: True)
    try:
        r = vectorize(VARYING_LIMIT, kernel="limit", width=8)
    finally:
        CACHE.clear()
    assert r.vectorized_name is None
    assert any("varying condition after control-flow conversion" in m for m in r.remarks)


def test_a_counter_starting_from_a_blended_value_is_not_uniform() -> None:
    """Vecz's partial_linearization23: the scalar remainder loop of a
    LoopVectorize'd loop, inside a divergent branch, starts its counter from
    a phi of the join after the vector loop. Control-flow conversion blends
    that phi on the lanes' edge masks, so the counter and the latch's exit
    condition are varying: the latch must stay a masked exit."""
    from oracle.survey import DEFAULT_DIR

    files = sorted(DEFAULT_DIR.rglob("partial_linearization23.ll"))
    if not files:
        pytest.skip("../shared/peer-corpus is not beside the checkout (Vecz's lit kernels)")
    report = oracle.check(files[0].read_text(), widths=[4, 8], choices=["", "LinearizeBOSCC"])
    assert report.results and all(r.status == "match" for r in report.results), report.results


def test_a_header_phi_condition_is_read_after_its_replacement() -> None:
    r = vectorize(HEADER_PHI.split("\n\n", 1)[1], kernel="twice", width=4)
    assert r.stats["uniform_latch_exits"] == 1
    assert "badref" not in r.ir
