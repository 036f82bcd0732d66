"""Packetization Analysis: varying values that will become packets, and
varying address arithmetic of contiguous accesses, which will not."""

from __future__ import annotations

from vectorizer import llvm_bridge
from vectorizer.analysis.data_layout import DataLayout
from vectorizer.analysis.instantiation import InstantiationAnalysis
from vectorizer.analysis.packetization import PacketizationAnalysis
from vectorizer.analysis.stride import StrideAnalysis
from vectorizer.analysis.uniformity import UniformValueAnalysis
from vectorizer.ir import parse_module

KERNEL = """
declare i64 @_Z13get_global_idj(i32)
define void @k(ptr %in, ptr %idx, ptr %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pin = getelementptr float, ptr %in, i64 %gid
  %x = load float, ptr %pin, align 4
  %pi = getelementptr i32, ptr %idx, i64 %gid
  %i = load i32, ptr %pi, align 4
  %w = zext i32 %i to i64
  %pg = getelementptr float, ptr %in, i64 %w
  %g = load float, ptr %pg, align 4
  %y = fadd float %x, %g
  %pout = getelementptr float, ptr %out, i64 %gid
  store float %y, ptr %pout, align 4
  ret void
}
"""


def _analysis() -> tuple[PacketizationAnalysis, dict[str, object]]:
    module = parse_module(llvm_bridge.canonicalize(KERNEL))
    fn = module.get_function("k")
    uniform = UniformValueAnalysis(fn, 0)
    stride = StrideAnalysis(uniform, DataLayout.parse(None))
    pa = PacketizationAnalysis(fn, uniform, stride, InstantiationAnalysis(0))
    return pa, {i.name: i for i in fn.instructions() if i.name}


def test_data_is_packetized_contiguous_addresses_are_not() -> None:
    pa, v = _analysis()
    for name in ("x", "g", "y", "i", "w", "pg"):
        assert pa.needs_packet(v[name]), name  # data, and the gather's address
    for name in ("gid", "pin", "pout", "pi"):
        assert not pa.needs_packet(v[name]), name  # contiguous addresses stay scalar


def test_values_lists_every_packetized_value_once() -> None:
    """`values` (what the SIMD width analysis sizes packets by) is exactly
    the set `needs_packet` answers for, each value once: the data and the
    gather's address, not the contiguous addresses."""
    pa, v = _analysis()
    names = [x.name for x in pa.values]
    assert sorted(names) == sorted({"x", "g", "y", "i", "w", "pg"})
    assert all(pa.needs_packet(x) for x in pa.values)
    assert not [n for n, x in v.items() if pa.needs_packet(x) and n not in names]
