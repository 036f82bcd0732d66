"""oracle.jit finds the functions a kernel may call from the module's text
(one regular expression pass instead of one llvmlite call per operand)."""

from __future__ import annotations

from oracle import jit
from vectorizer.llvm_context import new_context

MODULE = r"""
declare i64 @_Z13get_global_idj(i32)
declare void @"unused decl"()

define void @"helper\22q"(ptr %p) {
  call void @leaf()
  ret void
}

define void @leaf() {
  ret void
}

define void @other() {
  call void @"unused decl"()
  ret void
}

define void @k(ptr %p) {
  %g = call i64 @_Z13get_global_idj(i32 0)
  call void @"helper\22q"(ptr %p)
  ret void
}
"""


def test_reachable_follows_calls_through_quoted_names() -> None:
    jit.initialize()
    mod = jit._parse(MODULE, new_context(), jit.target_machine(0))
    assert jit._reachable(mod, ["k"]) == {"k", 'helper"q', "leaf", "_Z13get_global_idj"}
    assert jit._reachable_declarations(mod, ["k"]) == {"_Z13get_global_idj"}
    assert jit._reachable(mod, ["other"]) == {"other", "unused decl"}
    assert jit._reachable(mod, ["missing"]) == set()


def test_references_read_each_definition_to_its_closing_brace() -> None:
    refs = jit._references(MODULE)
    assert refs["leaf"] == set()
    assert refs["k"] == {"_Z13get_global_idj", 'helper"q'}
