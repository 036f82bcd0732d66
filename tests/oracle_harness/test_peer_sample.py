"""A sample of the peer corpus (Vecz's lit inputs) runs scalar under inferred
layouts without a scalar-fault. The full list: `python -m oracle.survey`."""

from __future__ import annotations

from pathlib import Path

import pytest

import oracle
from oracle.survey import DEFAULT_DIR, only_work_item_builtins

# Kernels that cannot run under any generic layout (lit tests never meant to
# execute: loops waiting for a work-item id, spin-waits on atomics...).
KNOWN_UNRUNNABLE = {
    "control_flow_conversion_nested_loops.ll", "control_flow_conversion_order_z.ll",
    "diverging_loop.ll", "diverging_nested_loop.ll", "masked_atomics.ll",
    "partial_linearization6.ll", "poison_ub.ll",
}


def _sample() -> list[Path]:
    if not DEFAULT_DIR.is_dir():
        return []
    files = [f for f in sorted(DEFAULT_DIR.rglob("*.ll"))
             if f.name not in KNOWN_UNRUNNABLE and only_work_item_builtins(f.read_text(errors="replace"))]
    return files[:: max(1, len(files) // 20)][:20]


@pytest.mark.parametrize("path", _sample(), ids=lambda p: p.name)
def test_peer_kernel_runs_scalar(path: Path) -> None:
    text = path.read_text(errors="replace")
    rep = oracle.check_scalar(text)
    assert rep.results
    # Lit kernels written to show IR patterns may race (two work-items
    # writing one element) or index out of bounds: the sanitized reference
    # reports that as the input's fault (scalar-race, scalar-fault naming
    # the access). What must not happen is a crash or hang.
    faults = [r for r in rep.results if r.status == "scalar-fault"
              and ("crash" in r.detail or "timeout" in r.detail)]
    assert not faults, rep.results
