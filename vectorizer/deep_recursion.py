"""Run recursive IR walks on a big stack.

The packetizer pulls operands recursively (a value's packet needs its
operands' packets), so a dependence chain thousands of instructions deep
needs thousands of Python frames: more than the default recursion limit and,
on Python 3.10, more C stack than the main thread has. `call_with_deep_stack`
runs a callable in a helper thread with a large stack and a raised limit.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

R = TypeVar("R")

STACK_BYTES = 512 * 1024 * 1024  # reserved address space, committed only as used
RECURSION_LIMIT = 200_000


def call_with_deep_stack(fn: Callable[[], R]) -> R:
    """`fn()` on a thread with a `STACK_BYTES` stack and `RECURSION_LIMIT` frames."""
    result: list[R] = []
    error: list[BaseException] = []

    call = fn
    for wrap in _WRAPPERS:
        call = _wrapped(wrap, call)

    def body() -> None:
        try:
            result.append(call())
        except BaseException as exc:  # re-raised in the caller's thread
            error.append(exc)

    lock = _LOCK
    with lock:
        old_size = threading.stack_size(STACK_BYTES)
        old_limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old_limit, RECURSION_LIMIT))
        try:
            t = threading.Thread(target=body, name="vecz-deep")
            t.start()
        finally:
            threading.stack_size(old_size)
        t.join()
        sys.setrecursionlimit(old_limit)
    if error:
        raise error[0]
    return result[0]


_LOCK = threading.Lock()


# Wrappers `wrap(fn) -> fn()` applied on the helper thread (see `on_worker_thread`).
_WRAPPERS: list[Callable[[Callable[[], Any]], Any]] = []


def _wrapped(wrap: Callable[[Callable[[], R]], R], fn: Callable[[], R]) -> Callable[[], R]:
    return lambda: wrap(fn)


@contextlib.contextmanager
def on_worker_thread(wrap: Callable[[Callable[[], Any]], Any]) -> Iterator[None]:
    """While active, `call_with_deep_stack(fn)` runs `wrap(fn)` on its helper
    thread instead of `fn()`. A profiler sees one thread only; this is how
    `vecz-bench compile-time --profile` sees the packetizer, which runs here.
    """
    _WRAPPERS.append(wrap)
    try:
        yield
    finally:
        _WRAPPERS.remove(wrap)
