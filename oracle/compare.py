"""Bit-exact comparison of output buffers, NaN equal to NaN."""

from __future__ import annotations

import numpy as np

from .case import ELEM_DTYPES, ArgSpec, NDRange


def _lane_hint(index: int, nd: NDRange, width: int, dim: int) -> str:
    """Which work-item (and lane) would own `index` if the buffer were indexed
    by global linear id: the usual layout of outputs, and only a hint."""
    if index >= nd.total:
        return ""
    g = nd.global_size
    ids = (index % g[0], index // g[0] % g[1], index // (g[0] * g[1]))
    lane = ids[dim] % nd.local_size[dim] % width
    return f" (work-item {','.join(map(str, ids[: nd.work_dim]))} -> lane {lane} if indexed by global linear id)"


def _show(v: np.generic) -> str:
    if v.dtype.kind == "f":
        return f"{v.item()!r} ({float(v).hex()})"
    return f"{v.item()} ({v.item():#x})"


def compare(
    layout: list[ArgSpec] | tuple[ArgSpec, ...],
    expected: list[bytes | None],
    actual: list[bytes | None],
    nd: NDRange,
    width: int,
    dim: int,
) -> str | None:
    """None when every global buffer matches; else a description of the first
    difference: buffer index, element index, lane hint and both values."""
    for i, (spec, e, a) in enumerate(zip(layout, expected, actual, strict=False)):
        if spec.kind != "buf" or e is None or a is None:
            continue
        if e == a:
            continue
        dtype = np.dtype(ELEM_DTYPES[spec.base])
        ea = np.frombuffer(e, dtype)
        aa = np.frombuffer(a, dtype)
        if dtype.kind == "f":
            differ = (ea != aa) & ~(np.isnan(ea) & np.isnan(aa))
            # Signed zeros compare equal as floats but are different bits.
            differ |= (ea == aa) & (np.signbit(ea) != np.signbit(aa))
        else:
            differ = ea != aa
        idx = np.flatnonzero(differ)
        if idx.size == 0:
            continue  # only NaN payloads differ
        k = int(idx[0])
        elem = k // spec.lanes
        comp = f"[{k % spec.lanes}]" if spec.lanes > 1 else ""
        return (
            f"buffer {i} index {elem}{comp}{_lane_hint(elem, nd, width, dim)}: "
            f"expected {_show(ea[k])} got {_show(aa[k])} ({idx.size} elements differ)"
        )
    if len(expected) > len(layout) or len(actual) > len(layout):  # printf records (oracle.printf_capture)
        from .printf_capture import compare as compare_printf
        return compare_printf(list(expected[len(layout):][:1] or [[]])[0], list(actual[len(layout):][:1] or [[]])[0], width, dim)
    return None
