"""Integer divisions by a divisor that is not a constant (packetizer
`_splits_division`): the vectorizer's output compiles at codegen -O0, how
the oracle compiles it.

LLVM 22's x86 instruction selection aborts the process ("Node is not in
map!") when it splits a vector integer division whose operand is a broadcast
of a loaded vector's element and a call comes between the load and the
division, a broadcast it also finds inside a select (Vector Predication's
guarded divisor); the vectorizer emits every such division lane by lane.
Each compile runs in a subprocess: a regression would abort it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import fuzz
import oracle
from vectorizer.api import vectorize

LIT_INPUT = Path(__file__).parent / "lit" / "packetization" / "division_broadcast_operand.ll"

# Compile the module on stdin for the host at codegen -O0, as the oracle's
# JIT does (oracle.jit.target_machine and its text preparation).
_COMPILE = """
import sys
import llvmlite.binding as llvm
from oracle.jit import native_text, target_machine
from vectorizer.llvm_context import new_context, parse_in
tm = target_machine(0)
mod = parse_in(new_context(), native_text(sys.stdin.read()))
mod.verify()
mod.triple = llvm.get_process_triple()
mod.data_layout = str(tm.target_data)
tm.emit_object(mod)
"""


def _compiles_at_o0(ir: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _COMPILE], input=ir, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("width", [4, 8, 16])
def test_division_by_lane_compiles_at_o0(width: int) -> None:
    # At W=8 the vector division this kernel used to get aborted LLVM.
    r = vectorize(LIT_INPUT.read_text(), "uniform_dividend", width=width)
    assert r.vectorized_name is not None, r.remarks
    proc = _compiles_at_o0(r.ir)
    assert proc.returncode == 0, proc.stderr[-2000:]


# Campaign kernels of the `subgroup` profile that aborted LLVM, at W=8 with
# Vector Predication: seed 4001, a masked `srem` of a lane of a loaded
# <8 x i32> by a per-lane divisor, a get_local_id call between (dimension 0);
# seed 9000682, a `urem` of a lane of a loaded <8 x i64> by a uniform divisor
# that Vector Predication guards as select(mask, divisor, 1), whose packet is
# varying, yet LLVM found the broadcast in it (dimension 1).
@pytest.mark.parametrize(("seed", "dim"), [(4001, 0), (9000682, 1)], ids=["srem-4001", "guarded-urem-9000682"])
def test_subgroup_campaign_kernels_match_with_vector_predication(seed: int, dim: int) -> None:
    text = fuzz.generate(seed, profile="subgroup")
    report = oracle.check(text, widths=[8], dims=[dim], choices=["VectorPredication"], timeout=20)
    assert report.results, report.summary
    assert {r.status for r in report.results} == {"match"}, \
        "\n".join(f"{r.global_size}/{r.local_size}: {r.status}: {r.detail}" for r in report.results)
