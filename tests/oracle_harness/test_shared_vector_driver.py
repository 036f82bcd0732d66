"""At -O0 the vectorized drivers share one copy of their loops
(`runtime.shared_vector_driver`, the shape read from its arguments): every
variant must run its packets and its remainder exactly as a driver
specialised to its shape does (the optimised builds' drivers), in the same
order, with the same work-item state and sub-group geometry."""

from __future__ import annotations

import ctypes
import struct

import pytest

from oracle import jit, runtime

# Each call appends a record (kind, local ids, group ids, sub-group size) to
# the log: the order of the calls is visible.
_BODY = """
entry:
  %i = atomicrmw add ptr %n, i64 1 seq_cst
  %base = mul i64 %i, 8
  %r0 = getelementptr i64, ptr %log, i64 %base
  store i64 KIND, ptr %r0
  %l0 = call i64 @_Z12get_local_idj(i32 0)
  %l1 = call i64 @_Z12get_local_idj(i32 1)
  %l2 = call i64 @_Z12get_local_idj(i32 2)
  %g0 = call i64 @_Z12get_group_idj(i32 0)
  %g1 = call i64 @_Z12get_group_idj(i32 1)
  %g2 = call i64 @_Z12get_group_idj(i32 2)
  %sg = call i32 @_Z18get_sub_group_sizev()
  %sg64 = zext i32 %sg to i64
  %p1 = getelementptr i64, ptr %r0, i64 1
  store i64 %l0, ptr %p1
  %p2 = getelementptr i64, ptr %r0, i64 2
  store i64 %l1, ptr %p2
  %p3 = getelementptr i64, ptr %r0, i64 3
  store i64 %l2, ptr %p3
  %p4 = getelementptr i64, ptr %r0, i64 4
  store i64 %g0, ptr %p4
  %p5 = getelementptr i64, ptr %r0, i64 5
  store i64 %g1, ptr %p5
  %p6 = getelementptr i64, ptr %r0, i64 6
  store i64 %g2, ptr %p6
  %p7 = getelementptr i64, ptr %r0, i64 7
  store i64 %sg64, ptr %p7
  ret void
}
"""
_DECLS = """
declare i64 @_Z12get_local_idj(i32)
declare i64 @_Z12get_group_idj(i32)
declare i32 @_Z18get_sub_group_sizev()
"""
SCALAR = _DECLS + "define spir_kernel void @k(ptr %log, ptr %n) {" + _BODY.replace("KIND", "1")
VECTOR = SCALAR + "define void @vk(ptr %log, ptr %n) {" + _BODY.replace("KIND", "2")

LOCAL, GROUPS = (5, 3, 2), (2, 1, 2)
_MADE = runtime.runtime_module
SHAPES = [(w, d, p) for d in range(3) for w in (1, 3, 4) for p in (False, True)]


def _logs(monkeypatch: pytest.MonkeyPatch, shared: bool) -> tuple[dict[str, list[tuple[int, ...]]], str]:
    texts: list[str] = []

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        kwargs["shared_drivers"] = shared
        text, undefined = _MADE(*args, **kwargs)
        texts.append(text)
        return text, undefined

    monkeypatch.setattr(runtime, "runtime_module", spy)
    variants = [jit.Variant(f"v{w}.{d}.{int(p)}", "vk", VECTOR, w, d, p) for w, d, p in SHAPES]
    prog = jit.build("k", SCALAR, variants, 0)
    assert not prog.errors
    items = 1
    for n in (*LOCAL, *GROUPS):
        items *= n
    log = (ctypes.c_int64 * (8 * 8 * items))()  # room for a wrong driver's extra calls
    count = (ctypes.c_int64 * 1)()
    args = (ctypes.c_uint8 * 128)()
    struct.pack_into("<QQ", args, 0, ctypes.addressof(log), 0)
    struct.pack_into("<Q", args, 64, ctypes.addressof(count))
    cfg = (ctypes.c_uint64 * 16)(*LOCAL, *GROUPS, 0, 0, 0, 3, 0)
    out = {}
    for key in ["", *(v.key for v in variants)]:
        count[0] = 0
        prog.run(key, ctypes.addressof(args), ctypes.addressof(cfg))
        out[key] = [tuple(log[8 * i: 8 * i + 8]) for i in range(count[0])]
    return out, texts[0]


def test_shared_loops_run_every_shape_as_a_specialised_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    shared, shared_text = _logs(monkeypatch, True)
    alone, alone_text = _logs(monkeypatch, False)
    assert runtime.SHARED_VECTOR_DRIVER in shared_text
    assert runtime.SHARED_VECTOR_DRIVER not in alone_text
    assert shared == alone
    # The logs say something: per row of the chunked dimension, its packets
    # then a predicated packet or the scalar remainder items.
    rows = GROUPS[0] * GROUPS[1] * GROUPS[2] * LOCAL[0] * LOCAL[1] * LOCAL[2]
    for (w, d, p) in SHAPES:
        kinds = [r[0] for r in shared[f"v{w}.{d}.{int(p)}"]]
        per_row = LOCAL[d] // w + (1 if p and LOCAL[d] % w else 0)
        assert kinds.count(2) == rows // LOCAL[d] * per_row
        assert kinds.count(1) == (0 if p else rows // LOCAL[d] * (LOCAL[d] % w))
