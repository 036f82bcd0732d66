"""The worker collects a request's cyclic garbage after answering it."""

from __future__ import annotations

import gc
import weakref

from oracle.worker import _GarbageBetweenRequests


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def test_cycle_of_a_request_is_freed_after_it() -> None:
    old = gc.get_threshold()
    try:
        collect = _GarbageBetweenRequests()
        a, b = _Node(), _Node()
        a.other, b.other = b, a  # a cycle, as IR values and their uses
        ref = weakref.ref(a)
        del a, b
        collect()
        assert ref() is None
    finally:
        gc.set_threshold(*old)


def test_full_collection_every_so_many_requests() -> None:
    old = gc.get_threshold()
    try:
        collect = _GarbageBetweenRequests()
        full = gc.get_stats()[2]["collections"]
        for _ in range(_GarbageBetweenRequests.FULL_EVERY):
            collect()
        assert gc.get_stats()[2]["collections"] == full + 1
    finally:
        gc.set_threshold(*old)
