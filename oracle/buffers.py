"""Kernel buffers: numpy arrays in mmap'd memory with PROT_NONE guard pages.

Each buffer sits between two inaccessible pages, its END against the trailing
guard page (so an overrun by one element faults), its start aligned to the
element's natural alignment (vector loads the scalar kernel declares aligned
must not fault spuriously). Underruns hit the leading guard page when they
cross the start of the mapping's data page.
"""

from __future__ import annotations

import ctypes
import mmap

import numpy as np

from .case import ELEM_DTYPES, ArgSpec

PAGE = mmap.PAGESIZE
# At least this many bytes between a buffer's end and its trailing guard
# page (more when the 64-byte start alignment rounds down). LLVM's -O0 x86
# code may fold a 4-byte load into a 16-byte memory operand (vblendvps), a
# harmless over-read that would fault on a guard page right at the end. The
# slack is filled with CANARY before each run and checked after it, so a
# write past the end is still caught.
SLACK = 16
CANARY = 0xA5
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_PROT_NONE = 0


class GuardedBuffer:
    """`count` elements of `elem` with guard pages on both sides."""

    def __init__(self, spec: ArgSpec) -> None:
        self.spec = spec
        lanes, base = spec.lanes, spec.base
        self.dtype = np.dtype(ELEM_DTYPES[base])
        nbytes = spec.nbytes
        # Kernels promise alignments (`load <8 x i32> ..., align 32`) that the
        # element type alone does not give: start every buffer on 64 bytes.
        align = 64
        data_pages = max(1, -(-(nbytes + SLACK + align) // PAGE))
        self._map = mmap.mmap(-1, (data_pages + 2) * PAGE)
        base_addr = ctypes.addressof(ctypes.c_char.from_buffer(self._map))
        self._base = base_addr
        for off in (0, (data_pages + 1) * PAGE):
            if _libc.mprotect(base_addr + off, PAGE, _PROT_NONE) != 0:
                raise OSError(ctypes.get_errno(), "mprotect failed")
        end = (data_pages + 1) * PAGE
        start = (end - nbytes - SLACK) // align * align
        self.offset = start
        self.array = np.frombuffer(
            self._map, dtype=self.dtype, count=spec.count * lanes, offset=start
        )
        self.address = base_addr + start
        # The canary covers everything from the end to the guard page.
        self.tail = np.frombuffer(self._map, dtype=np.uint8, count=end - (start + nbytes), offset=start + nbytes)

    def arm(self) -> None:
        """Fill the slack past the end with the canary (before a run)."""
        self.tail[...] = CANARY

    def overrun(self) -> bool:
        """Did the run write past the end (into the slack)?"""
        return bool((self.tail != CANARY).any())

    def close(self) -> None:
        """Release the mapping (the array must not be used afterwards)."""
        del self.array
        try:
            self._map.close()
        except BufferError:
            pass  # a view is still alive; the mapping goes with the process


def initial_contents(spec: ArgSpec, seed: int, index: int) -> np.ndarray:
    """The deterministic initial contents of buffer `index` for `seed`.

    Integers are random bits (or zero/iota/mod<k>); floats are random finite
    values uniform in [-64, 64) so that arithmetic stays mostly finite.
    """
    dtype = np.dtype(ELEM_DTYPES[spec.base])
    n = spec.count * spec.lanes
    rng = np.random.default_rng([seed & 0xFFFFFFFFFFFFFFFF, index])
    init = spec.init
    if spec.image:
        return image_contents(spec, rng)
    if init == "zero" or spec.kind == "local":
        return np.zeros(n, dtype)
    if init == "iota":
        return np.arange(n).astype(dtype)
    if init.startswith("mod"):
        k = int(init[3:])
        return rng.integers(0, k, n, dtype=np.int64).astype(dtype)
    if dtype.kind == "f":
        return rng.uniform(-64.0, 64.0, n).astype(dtype)
    raw = rng.integers(0, 256, n * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype)


def image_contents(spec: ArgSpec, rng: np.random.Generator) -> np.ndarray:
    """An image object (vectorizer/builtins/images.py): its header, then
    pixels (zero, or random: floats uniform in [0, 1), other channel types
    random bits), then zeroed padding."""
    from vectorizer.builtins import images

    ndim_s, order, ctype, size = spec.image.split(":")
    sizes = [int(v) for v in size.split("x")]
    dims = (tuple(sizes) + (1, 1))[:3]
    out = np.zeros(spec.count, np.uint8)
    head = np.frombuffer(images.header_bytes(dims, int(ndim_s[0]), order, ctype), np.uint8)  # type: ignore[arg-type]
    out[: len(head)] = head
    chb = images.CHANNEL_TYPES[ctype][1]
    n = dims[0] * dims[1] * dims[2] * images.ORDERS[order][1]
    if spec.init != "zero":
        if ctype == "float":
            px = rng.uniform(0.0, 1.0, n).astype("<f4").view(np.uint8)
        elif ctype == "half":
            px = rng.uniform(0.0, 1.0, n).astype("<f2").view(np.uint8)
        else:
            px = rng.integers(0, 256, n * chb, dtype=np.uint8)
        out[images.HEADER: images.HEADER + n * chb] = px
    return out
