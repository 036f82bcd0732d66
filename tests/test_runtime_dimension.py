"""Work-item queries whose dimension is a run-time value (`get_global_id(%d)`).

Such a query steps by one per lane only when `%d` is the vectorized
dimension; along another dimension, or one out of range (ids 0, sizes 1),
every lane of a packet sees the same value. Each kernel below runs through
the oracle with `%d` = 0, 1, 2 and out of range, at every vectorized
dimension, at the widths of the differential suite (and 3, not a power of
two) and under each of its choice sets, against the scalar kernel.

The kernels store every dimension-taking query, use `get_global_id(%d)` as an
address (a gather: no stride describes it) and through an `int` (trunc, add
nsw, sext), branch and loop on `get_local_id(%d)`, and query a dimension
that differs per work-item.
"""

from __future__ import annotations

import pytest

import oracle
from vectorizer import vectorize

WIDTHS = [1, 3, 4, 8, 16]
DIMS = [0, 1, 2]
# The choice sets of tests/test_differential.py.
CHOICE_SETS = [
    "",
    "VectorPredication",
    "DivisionExceptions;PacketizeUniform",
    "FullScalarization;InstantiateCallsInLoops",
    "PacketizeUniformInLoops;VectorPredication",
    "LinearizeBOSCC",
    "LinearizeBOSCC;DivisionExceptions;VectorPredication",
]
# Dimension 3 and 2^32-1 are out of range: ids answer 0 and sizes 1.
DIM_VALUES = [0, 1, 2, 3, 4294967295]

QUERIES = ("global_id", "local_id", "group_id", "global_size", "local_size", "num_groups", "global_offset",
           "enqueued_local_size")
SLOTS = 16


def _name(kind: str, family: str) -> str:
    if family == "opencl":
        base = f"get_{kind}"
        return f"_Z{len(base)}{base}j"
    return f"__mux_get_{kind}"


def kernel_text(family: str, dim_value: int) -> str:
    """A case whose kernel `k` takes the dimension `%d` as its last argument.

    `family` is `opencl` (SPIR names, i32 dimension), `mux` (`__mux_*`, i32)
    or `mux64` (`__mux_*` with an i64 dimension, as some of Vecz's tests
    declare them)."""
    dty = "i64" if family == "mux64" else "i32"
    q = {k: _name(k, "opencl" if family == "opencl" else "mux") for k in QUERIES}
    body = []
    emit = body.append
    # The work-item's own output row, from constant-dimension queries.
    for i in range(3):
        emit(f"  %g{i} = call i64 @{q['global_id']}({dty} {i})")
        emit(f"  %o{i} = call i64 @{q['global_offset']}({dty} {i})")
        emit(f"  %s{i} = call i64 @{q['global_size']}({dty} {i})")
        emit(f"  %r{i} = sub i64 %g{i}, %o{i}")
    emit("  %l1 = mul i64 %r2, %s1")
    emit("  %l2 = add i64 %l1, %r1")
    emit("  %l3 = mul i64 %l2, %s0")
    emit("  %lin = add i64 %l3, %r0")
    emit(f"  %row = mul i64 %lin, {SLOTS}")
    slot = 0

    def store(value: str) -> None:
        nonlocal slot
        emit(f"  %p{slot} = getelementptr i64, ptr addrspace(1) %out, i64 %row")
        emit(f"  %a{slot} = getelementptr i64, ptr addrspace(1) %p{slot}, i64 {slot}")
        emit(f"  store i64 {value}, ptr addrspace(1) %a{slot}, align 8")
        slot += 1

    for kind in QUERIES:
        emit(f"  %q.{kind} = call i64 @{q[kind]}({dty} %d)")
        store(f"%q.{kind}")
    # As an address: in[get_global_id(d)], and in[(int)get_global_id(d) + 5].
    emit("  %pin = getelementptr i64, ptr addrspace(1) %in, i64 %q.global_id")
    emit("  %vin = load i64, ptr addrspace(1) %pin, align 8")
    store("%vin")
    emit("  %t = trunc i64 %q.global_id to i32")
    emit("  %t5 = add nsw i32 %t, 5")
    emit("  %t64 = sext i32 %t5 to i64")
    emit("  %pin5 = getelementptr i64, ptr addrspace(1) %in, i64 %t64")
    emit("  %vin5 = load i64, ptr addrspace(1) %pin5, align 8")
    store("%vin5")
    # A branch on the local id along d: divergent only when d is dim.
    emit("  %odd = and i64 %q.local_id, 1")
    emit("  %isodd = icmp ne i64 %odd, 0")
    emit("  br i1 %isodd, label %then, label %else")
    emit("then:")
    emit("  %x3 = mul i64 %q.local_id, 3")
    emit("  br label %join")
    emit("else:")
    emit("  %xg = add i64 %q.group_id, 100")
    emit("  br label %join")
    emit("join:")
    emit("  %x = phi i64 [ %x3, %then ], [ %xg, %else ]")
    store("%x")
    # A loop running get_local_id(d) + 1 times (at most the local size).
    emit("  br label %loop")
    emit("loop:")
    emit("  %i = phi i64 [ 0, %join ], [ %i1, %loop ]")
    emit("  %acc = phi i64 [ 0, %join ], [ %acc1, %loop ]")
    emit("  %acc1 = add i64 %acc, %q.global_id")
    emit("  %i1 = add i64 %i, 1")
    emit("  %more = icmp ule i64 %i1, %q.local_id")
    emit("  br i1 %more, label %loop, label %done")
    emit("done:")
    store("%acc1")
    # A dimension that differs per work-item: (gid0 + d) & 3, 3 out of range.
    emit(f"  %g0t = trunc i64 %g0 to {dty}" if dty != "i64" else "  %g0t = or i64 %g0, 0")
    emit(f"  %vd0 = add {dty} %g0t, %d")
    emit(f"  %vd = and {dty} %vd0, 3")
    emit(f"  %vg = call i64 @{q['global_id']}({dty} %vd)")
    store("%vg")
    emit(f"  %vl = call i64 @{q['local_id']}({dty} %vd)")
    store("%vl")
    emit(f"  %vs = call i64 @{q['local_size']}({dty} %vd)")
    store("%vs")
    assert slot <= SLOTS
    emit("  ret void")
    decls = "\n".join(sorted({f"declare i64 @{name}({dty})" for name in q.values()}))
    # The in buffer covers the largest id (offset + global size) plus 5.
    header = "\n".join([
        "; vecz-case: 1",
        "; kernel: k",
        f"; args: buf:i64:64:random buf:i64:{300 * SLOTS}:zero scalar:{dty}:{dim_value}",
        "; ndrange: global=12,6,4 local=6,3,2 offset=1,2,3",
        "; ndrange: global=16,4,2 local=16,2,1",
        "; ndrange: global=8 local=8",
        f"; widths: {','.join(map(str, WIDTHS))}",
        f"; dims: {','.join(map(str, DIMS))}",
        "; choices: ",
        "; seed: 3",
    ])
    return (
        f"{header}\n"
        f"define spir_kernel void @k(ptr addrspace(1) %in, ptr addrspace(1) %out, {dty} %d) {{\n"
        "entry:\n" + "\n".join(body) + "\n}\n\n" + decls + "\n"
    )


@pytest.mark.parametrize("choices", CHOICE_SETS, ids=lambda c: c or "none")
@pytest.mark.parametrize("family", ["opencl", "mux", "mux64"])
def test_runtime_dimension_queries_match(family: str, choices: str) -> None:
    bad = []
    total = 0
    for dim_value in DIM_VALUES:
        report = oracle.check(kernel_text(family, dim_value), choices=[choices], timeout=20)
        total += len(report.results)
        bad += [
            f"d={dim_value} W={r.width} dim={r.dim} global={r.global_size} local={r.local_size}: "
            f"{r.status}: {r.detail[:200]}"
            for r in report.results
            if r.status != "match"
        ]
    assert total == len(DIM_VALUES) * len(WIDTHS) * len(DIMS) * 3
    assert not bad, "\n".join(bad)


def test_runtime_dimension_is_a_select_not_a_stride() -> None:
    """The id packet is selected on `%d == dim`, and the address it feeds is
    not taken as contiguous (that would read the wrong elements when `%d` is
    another dimension)."""
    r = vectorize(kernel_text("opencl", 1), "k", width=4, dim=1)
    assert r.vectorized_name
    fn = r.ir[r.ir.index(f"define spir_kernel void @{r.vectorized_name}"):]
    fn = fn[: fn.index("\n}\n")]
    assert "icmp eq i32 %d, 1" in fn
    assert "llvm.masked.gather" in fn
    assert "masked.load.v4i64" not in fn and "load <4 x i64>" not in fn
