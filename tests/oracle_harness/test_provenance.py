"""oracle.provenance: the object a pointer is based on, read from the IR."""

from __future__ import annotations

from oracle.provenance import Provenance
from vectorizer.ir import parse_module

IR = """
@g = internal global [4 x i32] zeroinitializer

define void @f(ptr %a, ptr %b, i1 %c, i64 %i) {
entry:
  %p = alloca [8 x i32], align 4
  %a1 = getelementptr inbounds i32, ptr %a, i64 %i
  %ai = ptrtoint ptr %a to i64
  %ai4 = add i64 %ai, 16
  %a2 = inttoptr i64 %ai4 to ptr
  %sel_same = select i1 %c, ptr %a1, ptr %a2
  %sel_diff = select i1 %c, ptr %a1, ptr %b
  %g1 = getelementptr inbounds [4 x i32], ptr @g, i64 0, i64 %i
  %loaded = load ptr, ptr %b, align 8
  %diff = sub i64 %ai, %ai
  %d2 = inttoptr i64 %diff to ptr
  %p1 = getelementptr inbounds [8 x i32], ptr %p, i64 0, i64 %i
  br label %loop
loop:
  %q = phi ptr [ %a1, %entry ], [ %q1, %loop ]
  %q1 = getelementptr inbounds i32, ptr %q, i64 1
  br i1 %c, label %loop, label %exit
exit:
  ret void
}
"""


def _roots() -> dict[str, str | None]:
    fn = parse_module(IR).get_function("f")
    prov = Provenance(fn)
    out: dict[str, str | None] = {}
    for inst in fn.instructions():
        if inst.name:
            r = prov.root(inst)
            out[inst.name] = None if r is None else (r.value.name or "")
    return out


def test_roots() -> None:
    r = _roots()
    assert r["a1"] == "a"
    assert r["a2"] == "a"  # ptrtoint, add an offset, inttoptr
    assert r["sel_same"] == "a"
    assert r["sel_diff"] is None  # two objects: found by address at run time
    assert r["g1"] == "g"
    assert r["loaded"] is None
    assert r["d2"] is None  # the difference of two addresses is no address
    assert r["p1"] == "p"
    assert r["q"] == "a" and r["q1"] == "a"  # through a loop's phi
