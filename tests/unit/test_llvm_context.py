"""LLVM contexts from `vectorizer.llvm_context` outlive their modules and
engines whatever order the garbage collector finalizes them in. (With
llvmlite's plain contexts the script below dies with SIGSEGV: the collector
disposes a context before a module made in it.)"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import llvmlite.binding as llvm

from oracle import jit as ojit
from vectorizer.llvm_context import adopt_engine, new_context, parse_in

TEXT = "define i32 @f(i32 %x) {\n  %y = add i32 %x, 1\n  ret i32 %y\n}\n"


def test_a_context_closed_first_waits_for_its_module() -> None:
    ctx = new_context()
    mod = parse_in(ctx, TEXT)
    ctx.close()  # as the cyclic collector may do first
    assert ctx._pending and ctx._users == 1  # type: ignore[attr-defined]
    assert "add i32" in str(mod)  # the module still works
    mod.close()
    assert not ctx._pending and ctx._users == 0  # type: ignore[attr-defined]


def test_an_engine_keeps_the_context_until_it_is_closed() -> None:
    ojit.initialize()
    ctx = new_context()
    main = parse_in(ctx, TEXT)
    extra = parse_in(ctx, "define i32 @g() {\n  ret i32 2\n}\n")
    main.link_in(extra)  # consumes `extra`: one user less
    assert ctx._users == 1  # type: ignore[attr-defined]
    engine = adopt_engine(ctx, llvm.create_mcjit_compiler(main, ojit.target_machine(2)))
    engine.finalize_object()
    ctx.close()
    assert ctx._pending  # type: ignore[attr-defined]
    assert engine.get_function_address("g")
    engine.close()  # disposes the module it owns, then the context
    assert not ctx._pending and ctx._users == 0  # type: ignore[attr-defined]


def test_modules_and_contexts_in_garbage_cycles_do_not_crash() -> None:
    script = textwrap.dedent(f"""
        import gc
        import llvmlite.binding as llvm
        from vectorizer.llvm_context import new_context, parse_in
        gc.disable()
        for i in range(2000):
            ctx = new_context()
            mod = parse_in(ctx, {TEXT!r})
            box = [ctx, mod]  # the context found first by the collector
            box.append(box)
            del ctx, mod, box
            if i % 50 == 0:
                gc.collect()
                for _ in range(5):  # reuse what was freed
                    c = new_context()
                    m = parse_in(c, "define void @g() {{\\n ret void\\n}}\\n")
                    del m, c
        print("ok")
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "ok", (run.returncode, run.stderr[-2000:])
