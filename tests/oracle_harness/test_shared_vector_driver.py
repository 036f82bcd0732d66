"""At -O0 the drivers share one copy of their loops (the scalar runs'
`runtime.shared_items_driver`, the vectorized ones'
`runtime.shared_vector_driver`, the shape read from its arguments): the
scalar and reversed runs, and every variant's packets and remainder, must
run exactly as a driver specialised to them does (the optimised builds'
drivers), in the same order, with the same work-item state and sub-group
geometry."""

from __future__ import annotations

import ctypes
import struct

import pytest

from oracle import jit, runtime

# Each call appends a record (kind, local ids, group ids, sub-group size, the
# struct's last field, the short) to the log: the order of the calls is
# visible.
# The record's fields after the kind, each stored at its slot (1 to 9).
_FIELDS = ("%l0", "%l1", "%l2", "%g0", "%g1", "%g2", "%sg64", "%f64", "%h64")
_BODY = """
entry:
  %i = atomicrmw add ptr %n, i64 1 seq_cst
  %base = mul i64 %i, 10
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
  %fp = getelementptr inbounds i8, ptr %s, i64 8
  %f = load i32, ptr %fp, align 4
  %f64 = sext i32 %f to i64
  %h64 = sext i16 %h to i64
""" + "".join(f"  %p{k} = getelementptr i64, ptr %r0, i64 {k}\n  store i64 {v}, ptr %p{k}\n"
              for k, v in enumerate(_FIELDS, start=1)) + """  ret void
}
"""
# A struct passed by value and a sign-extended short: the drivers must pass
# them as the callee's parameter attributes say.
_PARAMS = "(ptr %log, ptr %n, ptr byval(%struct.S) align 4 %s, i16 signext %h)"
_DECLS = """
%struct.S = type { i32, i32, i32 }
declare i64 @_Z12get_local_idj(i32)
declare i64 @_Z12get_group_idj(i32)
declare i32 @_Z18get_sub_group_sizev()
"""
SCALAR = _DECLS + f"define spir_kernel void @k{_PARAMS} {{" + _BODY.replace("KIND", "1")
VECTOR = SCALAR + f"define void @vk{_PARAMS} {{" + _BODY.replace("KIND", "2")

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
    log = (ctypes.c_int64 * (8 * 10 * items))()  # room for a wrong driver's extra calls
    count = (ctypes.c_int64 * 1)()
    fields = (ctypes.c_int32 * 3)(7, 8, -9)
    args = (ctypes.c_uint8 * 256)()
    struct.pack_into("<Q", args, 0, ctypes.addressof(log))
    struct.pack_into("<Q", args, 64, ctypes.addressof(count))
    struct.pack_into("<Q", args, 128, ctypes.addressof(fields))
    struct.pack_into("<h", args, 192, -3)
    cfg = (ctypes.c_uint64 * 16)(*LOCAL, *GROUPS, 0, 0, 0, 3, 0)
    out = {}
    for key in ["", jit.REVERSED, *(v.key for v in variants)]:
        count[0] = 0
        prog.run(key, ctypes.addressof(args), ctypes.addressof(cfg))
        out[key] = [tuple(log[10 * i: 10 * i + 10]) for i in range(count[0])]
    return out, texts[0]


def test_shared_loops_run_every_shape_as_a_specialised_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    shared, shared_text = _logs(monkeypatch, True)
    alone, alone_text = _logs(monkeypatch, False)
    for name in (runtime.SHARED_VECTOR_DRIVER, runtime.SHARED_ITEMS_DRIVER):
        assert name in shared_text
        assert name not in alone_text
    assert shared == alone
    assert shared[jit.REVERSED] == shared[""][::-1]
    assert {r[8:] for records in shared.values() for r in records} == {(-9, -3)}
    # The logs say something: per row of the chunked dimension, its packets
    # then a predicated packet or the scalar remainder items.
    rows = GROUPS[0] * GROUPS[1] * GROUPS[2] * LOCAL[0] * LOCAL[1] * LOCAL[2]
    for (w, d, p) in SHAPES:
        kinds = [r[0] for r in shared[f"v{w}.{d}.{int(p)}"]]
        per_row = LOCAL[d] // w + (1 if p and LOCAL[d] % w else 0)
        assert kinds.count(2) == rows // LOCAL[d] * per_row
        assert kinds.count(1) == (0 if p else rows // LOCAL[d] * (LOCAL[d] % w))
