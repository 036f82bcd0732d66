"""LLVM contexts that outlive every module and engine made in them, whatever
order Python finalizes objects in.

llvmlite disposes a context, a module and an execution engine each in its
own finalizer. Reference counting runs them in a safe order (a module holds
its context), but objects caught in a reference cycle (say, an exception's
traceback holding the frame that parsed them, kept by a test runner or a
worker's error report) are finalized by the cyclic collector in any order.
A context disposed before a module or engine made in it is a use after
free: the process dies with SIGSEGV inside "Garbage-collecting", long after
and far from the cause.

A context from `new_context()` counts its users (modules parsed in it with
`parse_in`, engines adopted with `adopt_engine`) and defers its disposal
until the last of them is gone. Modules and engines keep their llvmlite
classes' behaviour; only their end of life is recorded.
"""

from __future__ import annotations

import llvmlite.binding as llvm
from llvmlite.binding import ffi
from llvmlite.binding.context import ContextRef
from llvmlite.binding.executionengine import ExecutionEngine
from llvmlite.binding.module import ModuleRef


class _CountedContext(ContextRef):
    """A context disposed when it and all its counted users are closed."""

    _users = 0
    _pending = False
    _raw = None

    def _dispose(self) -> None:
        if self._users:
            self._pending = True  # the last user disposes it
        else:
            ffi.lib.LLVMPY_ContextDispose(self._raw)

    def _user_gone(self) -> None:
        self._users -= 1
        if self._users == 0 and self._pending:
            self._pending = False
            ffi.lib.LLVMPY_ContextDispose(self._raw)


class _CountedUser:
    """Mixin for a module or engine counted as a user of its context."""

    _vz_context: _CountedContext | None = None

    def detach(self) -> None:
        # Every end of life passes here: close() (disposed, or a module owned
        # by an engine), and link_in(), which consumes the linked module.
        ctx = self._vz_context
        if not self._closed and ctx is not None:  # type: ignore[attr-defined]
            self._vz_context = None
            super().detach()  # type: ignore[misc]
            ctx._user_gone()
        else:
            super().detach()  # type: ignore[misc]


class _CountedModule(_CountedUser, ModuleRef):
    pass


class _CountedEngine(_CountedUser, ExecutionEngine):
    pass


def new_context() -> ContextRef:
    """A fresh LLVM context whose disposal waits for its modules and engines."""
    ctx = llvm.create_context()
    ctx.__class__ = _CountedContext
    ctx._raw = ctx._ptr
    return ctx


def _adopt(ctx: ContextRef, obj, cls: type) -> None:
    if isinstance(ctx, _CountedContext):
        ctx._users += 1
        obj.__class__ = cls
        obj._vz_context = ctx


def parse_in(ctx: ContextRef, text: str) -> ModuleRef:
    """`llvm.parse_assembly(text, context=ctx)`, counted as a user of `ctx`."""
    mod = llvm.parse_assembly(text, context=ctx)
    _adopt(ctx, mod, _CountedModule)
    return mod


def parse_bitcode_in(ctx: ContextRef, data: bytes) -> ModuleRef:
    """`llvm.parse_bitcode(data, context=ctx)`, counted as a user of `ctx`."""
    mod = llvm.parse_bitcode(data, context=ctx)
    _adopt(ctx, mod, _CountedModule)
    return mod


def adopt_engine(ctx: ContextRef, engine: ExecutionEngine) -> ExecutionEngine:
    """Count `engine` (built from modules of `ctx`) as a user of `ctx`."""
    _adopt(ctx, engine, _CountedEngine)
    return engine
