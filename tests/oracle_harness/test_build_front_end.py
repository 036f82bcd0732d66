"""The oracle's build front end: which printf calls the JIT routes to the
recorder (a call of printf, at a word boundary, outside comments)."""

from __future__ import annotations

from oracle import jit, printf_capture

SCALAR = """
declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @k(ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 1, ptr addrspace(1) %p, align 4
  ret void
}
"""


def test_printf_calls_at_word_boundaries_are_routed() -> None:
    text = (
        "declare i32 @printf(ptr addrspace(2), ...)\n"
        "define void @f(ptr addrspace(2) %s) {\n"
        "  %call = call i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) %s, i32 1)\n"
        "  %t = tail call i32 @printf(ptr addrspace(2) %s)\n"
        "  ; call i32 @printf(ptr addrspace(2) %s, double 2.0)\n"
        "  ret void\n"
        "}\n"
        "xcall i32 @printf(ptr @a, i64 3)\n"
        "_call i32 @printf(ptr @b, i64 4)\n"
    )
    out = printf_capture.rewrite_calls(text)
    rec = printf_capture.PREFIX
    assert f'call i32 @"{rec}ptr addrspace(2),i32"(ptr addrspace(2) %s, i32 1)' in out
    assert f'tail call i32 @"{rec}ptr addrspace(2)"(ptr addrspace(2) %s)' in out
    # In a comment, or not a `call` keyword: left as they are.
    assert "; call i32 @printf(ptr addrspace(2) %s, double 2.0)" in out
    assert "xcall i32 @printf(ptr @a, i64 3)" in out
    assert "_call i32 @printf(ptr @b, i64 4)" in out
    assert f'"{rec}ptr addrspace(2),double"' not in out
    assert f'"{rec}ptr,i64"' not in out


def test_a_module_defining_printf_keeps_its_calls() -> None:
    for text in ("define i32 @printf(ptr %f) {\n  ret i32 0\n}\n  call i32 @printf(ptr @a)\n",
                 "declare void @g()\ndefine i32 @printf(ptr %f) {\n  ret i32 0\n}\n  call i32 @printf(ptr @a)\n"):
        assert printf_capture.rewrite_calls(text) == text


def test_a_valid_build_runs() -> None:
    prog = jit.build("k", SCALAR, [], 0)
    assert prog.errors == {}
    assert prog.drivers[""] and prog.drivers[jit.REVERSED]
