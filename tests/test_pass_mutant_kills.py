"""Small tests written to close pass mutants (fuzz/pass_mutants.py) that the
CI differential suite and a short campaign left alive: each pins a
behaviour of an analysis or a transform that no generated kernel, corpus
case or peer kernel checked. The mutant each one kills is named in its
docstring; `python -m fuzz.pass_mutants run --only ID --closing-test
tests/test_pass_mutant_kills.py` shows it failing on that mutant's copy."""

from __future__ import annotations

from vectorizer.analysis.data_layout import DataLayout
from vectorizer.ir import types as T


def test_struct_field_offsets_follow_abi_alignment() -> None:
    """Kills data_layout:drop-statement:0 (a field's offset never recorded).
    `{ i8, i32, i8, double }` lays its fields at 0, 4, 8 and 16 (each at its
    ABI alignment) and occupies 24 bytes; packed, at 0, 1, 5 and 6."""
    dl = DataLayout.parse(None)
    s = T.StructType([T.IntType(8), T.IntType(32), T.IntType(8), T.FloatType("double")])
    assert [dl.field_offset(s, i) for i in range(4)] == [0, 4, 8, 16]
    assert dl.alloc_size(s) == 24
    p = T.StructType(list(s.elements), packed=True)
    assert [dl.field_offset(p, i) for i in range(4)] == [0, 1, 5, 6]
