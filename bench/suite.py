"""The benchmark kernels: where each one's IR is, and the NDRange and
arguments it runs on at each size (`small` for a quick look, `default` for
the real measurement). Inputs are deterministic (seeded) and keep every
kernel free of undefined behaviour (indices in bounds, no division by zero).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import KERNEL_DIR
from .runtime import Arg, Buffer, Local, NDRange, Scalar

SIZES = ("small", "default")


@dataclass
class Problem:
    """The arguments and NDRange of one run."""

    args: list[Arg]
    nd: NDRange


@dataclass
class Kernel:
    """A benchmark kernel: its name (= the OpenCL kernel and file stem), what it
    exercises, and how to build its problem at a size."""

    name: str
    description: str
    make: Callable[[str], Problem]
    uniform_compute: bool = False  # compute-bound float, uniform control flow
    trip_count_output: bool = False  # buffer 0 gets each work-item's loop trip count
    folder: str = ""  # under bench/kernels: "workgroup" for barrier/__local kernels

    @property
    def ir_path(self):
        return KERNEL_DIR / self.folder / f"{self.name}.ll"

    @property
    def source_path(self):
        return self.ir_path.with_suffix(".cl")

    def ir(self) -> str:
        """The checked-in LLVM IR."""
        return self.ir_path.read_text()


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def _f32(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float32)


def _nd1(n: int, local: int = 256) -> NDRange:
    return NDRange((n, 1, 1), (min(n, local), 1, 1))


def _nd2(w: int, h: int, local: int = 64) -> NDRange:
    return NDRange((w, h, 1), (min(w, local), 1, 1))


def _side(size: str, small: int, default: int) -> int:
    return small if size == "small" else default


def _mandelbrot(size: str) -> Problem:
    n = _side(size, 64, 512)
    out = np.zeros(n * n, dtype=np.int32)
    step = 2.5 / n
    return Problem([Buffer(out), Scalar(-2.0, "float32"), Scalar(-1.25, "float32"), Scalar(step, "float32")], _nd2(n, n))


def _julia(size: str) -> Problem:
    n = _side(size, 64, 512)
    out = np.zeros(n * n, dtype=np.float32)
    return Problem(
        [Buffer(out), Scalar(-1.6, "float32"), Scalar(-1.2, "float32"), Scalar(3.2 / n, "float32"),
         Scalar(-0.8, "float32"), Scalar(0.156, "float32")],
        _nd2(n, n),
    )


def _black_scholes(size: str) -> Problem:
    n = _side(size, 4096, 1 << 18)
    r = _rng(1)
    return Problem(
        [Buffer(np.zeros(n, np.float32)), Buffer(np.zeros(n, np.float32)),
         Buffer(_f32(r.uniform(5, 30, n))), Buffer(_f32(r.uniform(1, 100, n))),
         Buffer(_f32(r.uniform(0.25, 10, n))), Scalar(0.02, "float32"), Scalar(0.30, "float32")],
        _nd1(n),
    )


def _binomial(size: str) -> Problem:
    n = _side(size, 512, 1 << 14)
    r = _rng(2)
    return Problem(
        [Buffer(np.zeros(n, np.float32)), Buffer(_f32(r.uniform(5, 30, n))), Buffer(_f32(r.uniform(1, 100, n))),
         Scalar(1.0, "float32"), Scalar(0.02, "float32"), Scalar(0.30, "float32")],
        _nd1(n),
    )


def _nbody(size: str) -> Problem:
    n = _side(size, 256, 4096)
    r = _rng(3)
    return Problem(
        [Buffer(_f32(r.uniform(-1, 1, 3 * n))), Buffer(_f32(r.uniform(-10, 10, 3 * n))),
         Buffer(_f32(r.uniform(0.1, 1, n))), Scalar(n, "int32"), Scalar(0.01, "float32"), Scalar(0.05, "float32")],
        _nd1(n, 64),
    )


def _image(size: str, seed: int) -> tuple[int, int, np.ndarray]:
    w = h = _side(size, 64, 1024)
    return w, h, _f32(_rng(seed).uniform(0, 1, w * h))


def _sobel(size: str) -> Problem:
    w, h, img = _image(size, 4)
    return Problem([Buffer(np.zeros(w * h, np.float32)), Buffer(img), Scalar(w, "int32"), Scalar(h, "int32")], _nd2(w, h))


def _conv2d(size: str) -> Problem:
    w, h, img = _image(size, 5)
    filt = _f32(_rng(6).uniform(-1, 1, 25))
    return Problem(
        [Buffer(np.zeros(w * h, np.float32)), Buffer(img), Buffer(filt), Scalar(w, "int32"), Scalar(h, "int32")],
        _nd2(w, h),
    )


def _matmul(size: str) -> Problem:
    n = _side(size, 32, 256)
    r = _rng(7)
    return Problem(
        [Buffer(np.zeros(n * n, np.float32)), Buffer(_f32(r.uniform(-1, 1, n * n))),
         Buffer(_f32(r.uniform(-1, 1, n * n))), Scalar(n, "int32")],
        _nd2(n, n),
    )


def _spmv_csr(size: str) -> Problem:
    rows = _side(size, 1024, 1 << 16)
    r = _rng(8)
    lengths = r.integers(0, 33, rows)
    row_ptr = np.zeros(rows + 1, dtype=np.int32)
    row_ptr[1:] = np.cumsum(lengths)
    nnz = int(row_ptr[-1])
    cols = r.integers(0, rows, max(nnz, 1)).astype(np.int32)
    vals = _f32(r.uniform(-1, 1, max(nnz, 1)))
    x = _f32(r.uniform(-1, 1, rows))
    return Problem(
        [Buffer(np.zeros(rows, np.float32)), Buffer(row_ptr), Buffer(cols), Buffer(vals), Buffer(x)], _nd1(rows)
    )


def _histogram(size: str) -> Problem:
    n = _side(size, 4096, 1 << 18)
    data = _rng(9).integers(0, 2**32, 4 * n, dtype=np.uint64).astype(np.uint32)
    return Problem([Buffer(np.zeros(256, np.uint32)), Buffer(data)], _nd1(n))


def _collatz(size: str) -> Problem:
    n = _side(size, 4096, 1 << 18)
    return Problem([Buffer(np.zeros(n, np.uint32)), Scalar(1, "uint32")], _nd1(n))


def _ray_sphere(size: str) -> Problem:
    n = _side(size, 64, 512)
    r = _rng(10)
    count = 8
    spheres = np.empty((count, 4), np.float32)
    spheres[:, 0] = r.uniform(-2, 2, count)
    spheres[:, 1] = r.uniform(-1.5, 1.5, count)
    spheres[:, 2] = r.uniform(3, 8, count)
    spheres[:, 3] = r.uniform(0.4, 1.2, count)
    return Problem(
        [Buffer(np.zeros(3 * n * n, np.float32)), Buffer(spheres.ravel()), Scalar(count, "int32"),
         Scalar(n, "int32"), Scalar(n, "int32")],
        _nd2(n, n),
    )


def _phong(size: str) -> Problem:
    n = _side(size, 64, 512)
    spheres = _ray_sphere(size).args[1].data  # the same scene (float4 per sphere)
    return Problem(
        [Buffer(np.zeros(4 * n * n, np.uint8)), Buffer(spheres), Scalar(8, "int32"), Scalar(n, "int32"),
         Scalar(n, "int32")],
        _nd2(n, n),
    )


def _tonemap(size: str) -> Problem:
    n = _side(size, 64, 512)
    hdr = _f32(_rng(12).exponential(2.0, 3 * n * n))  # radiances, a few far above 1
    return Problem(
        [Buffer(np.zeros(3 * n * n, np.uint8)), Buffer(hdr), Scalar(n, "int32"), Scalar(0.8, "float32"),
         Scalar(1 / 2.2, "float32")],
        _nd1(n * n),
    )


def _saxpy(size: str) -> Problem:
    n = _side(size, 4096, 1 << 20)
    r = _rng(11)
    return Problem(
        [Buffer(_f32(r.uniform(-1, 1, n))), Buffer(_f32(r.uniform(-1, 1, n))), Scalar(1.5, "float32")], _nd1(n)
    )


# Work-group kernels (bench/kernels/workgroup): barriers and __local memory,
# run as PoCL runs them on a CPU, by work-item loops between barriers
# (oracle.work_item_loops): over work-items for scalar and LoopVectorize,
# over packets for ours. Local sizes are multiples of every width.


def _matmul_tiled(size: str) -> Problem:
    n = _side(size, 64, 512)
    r = _rng(12)
    return Problem(
        [Buffer(np.zeros(n * n, np.float32)), Buffer(_f32(r.uniform(-1, 1, n * n))),
         Buffer(_f32(r.uniform(-1, 1, n * n))), Scalar(n, "int32")],
        NDRange((n, n, 1), (16, 16, 1)),
    )


def _reduce(size: str) -> Problem:
    n = _side(size, 1 << 14, 1 << 22)
    items, local = _side(size, 1024, 1 << 14), 256
    return Problem(
        [Buffer(np.zeros(items // local, np.float32)), Buffer(_f32(_rng(13).uniform(-1, 1, n))),
         Scalar(n, "int32"), Local(local * 4)],
        NDRange((items, 1, 1), (local, 1, 1)),
    )


def _prefix_sum(size: str) -> Problem:
    items = _side(size, 1024, 1 << 16)
    data = _rng(14).integers(-1000, 1000, 8 * items).astype(np.int32)
    return Problem([Buffer(np.zeros(8 * items, np.int32)), Buffer(data)], NDRange((items, 1, 1), (256, 1, 1)))


def _subgroup_reduce(size: str) -> Problem:
    n = _side(size, 1 << 14, 1 << 22)
    items, local = _side(size, 1024, 1 << 14), 256
    data = _rng(16).integers(-1000, 1000, n).astype(np.int32)
    return Problem([Buffer(np.zeros(items // local, np.int32)), Buffer(data), Scalar(n, "int32")],
                   NDRange((items, 1, 1), (local, 1, 1)))


def _stencil_halo(size: str) -> Problem:
    w, h = _side(size, 128, 2048), _side(size, 32, 1024)
    img = _f32(_rng(15).uniform(0, 1, w * h))
    return Problem([Buffer(np.zeros(w * h, np.float32)), Buffer(img), Scalar(w, "int32"), Scalar(h, "int32")],
                   NDRange((w, h, 1), (32, 8, 1)))


KERNELS: dict[str, Kernel] = {
    k.name: k
    for k in [
        Kernel("mandelbrot", "Mandelbrot, 256 iterations (divergent loop)", _mandelbrot, trip_count_output=True),
        Kernel("julia", "Julia set with smooth shading (divergent loop)", _julia),
        Kernel("black_scholes", "Black-Scholes call/put (exp, log, sqrt)", _black_scholes, True),
        Kernel("binomial", "binomial options, 64 steps (private array)", _binomial, True),
        Kernel("nbody", "n-body accelerations (uniform inner loop)", _nbody, True),
        Kernel("sobel", "Sobel edge magnitude (stencil)", _sobel),
        Kernel("conv2d", "5x5 2-D convolution (stencil, uniform loops)", _conv2d, True),
        Kernel("matmul", "naive matrix multiply (uniform loop)", _matmul),
        Kernel("spmv_csr", "sparse matrix-vector, CSR (gathers, divergent loop)", _spmv_csr),
        Kernel("histogram", "256-bin histogram (atomics)", _histogram),
        Kernel("collatz", "Collatz lengths (divergent loop)", _collatz, trip_count_output=True),
        Kernel("ray_sphere", "ray-sphere shading (divergent branches)", _ray_sphere),
        Kernel("phong", "Phong-shaded spheres (normalize, dot, powr, mix, convert_uchar4_sat)", _phong),
        Kernel("tonemap", "HDR tone mapping (powr, log1p, smoothstep, convert_uchar_sat_rte)", _tonemap),
        Kernel("saxpy", "SAXPY (memory bound)", _saxpy),
        Kernel("matmul_tiled", "tiled matrix multiply (__local tiles, barriers in a loop)", _matmul_tiled,
               folder="workgroup"),
        Kernel("reduce", "work-group sum reduction (__local tree, barriers)", _reduce, folder="workgroup"),
        Kernel("prefix_sum", "work-group prefix sum (__local scan, private runs)", _prefix_sum,
               folder="workgroup"),
        Kernel("stencil_halo", "2-D stencil with a halo in __local memory", _stencil_halo, folder="workgroup"),
        Kernel("subgroup_reduce", "integer sum with sub_group_reduce_add and an atomic per sub-group",
               _subgroup_reduce, folder="subgroup"),
    ]
}
