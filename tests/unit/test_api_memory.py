"""`vectorize()` keeps nothing alive between calls: production callers and
campaign workers call it thousands of times in one process."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from vectorizer import vectorize
from vectorizer.ir.module import Module
from vectorizer.ir.values import Value

BENCH = Path(__file__).resolve().parents[2] / "bench" / "kernels"


def _live(kind: type) -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, kind))


# mandelbrot: a divergent loop (control-flow conversion's masks);
# sobel: clamp-to-edge taps (Clamp Versioning's checks).
@pytest.mark.parametrize("kernel", ["mandelbrot", "sobel"])
def test_no_ir_outlives_a_vectorize_call(kernel: str) -> None:
    text = (BENCH / f"{kernel}.ll").read_text()
    r = vectorize(text, kernel=kernel, width=8)
    assert r.vectorized_name, r.remarks
    del r
    modules, values = _live(Module), _live(Value)
    for _ in range(3):
        vectorize(text, kernel=kernel, width=8)
    assert _live(Module) == modules
    assert _live(Value) == values
