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


def test_calling_conventions_dropped_only_where_they_are_keywords() -> None:
    text = ('define spir_kernel void @k() {\n  call spir_func void @"x.spir_func f"()\n'
            '  call spir_func void @a.spir_func()\n  ret void\n}\n'
            'declare spir_func void @"x.spir_func f"()\ndeclare   spir_func  void @a.spir_func()\n'
            '@s = constant [13 x i8] c"_spir_kernel \\00"\n')
    assert jit.strip_calling_conventions(text) == (
        'define void @k() {\n  call void @"x.spir_func f"()\n  call void @a.spir_func()\n  ret void\n}\n'
        'declare void @"x.spir_func f"()\ndeclare   void @a.spir_func()\n'
        '@s = constant [13 x i8] c"_spir_kernel \\00"\n')
