"""Images and samplers (vectorizer/builtins/images.py): image objects in the
oracle's buffers, the runtime's read/write/query builtins checked against a
reference written from OpenCL 1.2 section 8.2, and scalar/vector agreement.

The kernels (images_kernels.ll) are compiled by clang 22 from this source,
except the hand-written `sample` and the 1-D `line` (its source is in the
.ll file):

    __constant sampler_t lin_rep = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;
    __constant sampler_t near_mir = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_MIRRORED_REPEAT | CLK_FILTER_NEAREST;
    __constant sampler_t lin_clamp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_LINEAR;
    kernel void copy_sampled(read_only image2d_t src, write_only image2d_t dst, sampler_t smp) {
      int x = get_global_id(0), y = get_global_id(1);
      write_imagef(dst, (int2)(x, y), read_imagef(src, smp, (int2)(x - 1, y + 1)));
    }
    kernel void filter_linear(read_only image2d_t src, global float4 *out) {
      int x = get_global_id(0), y = get_global_id(1);
      float2 c = (float2)((x + 0.3f) * 0.11f - 0.4f, (y + 0.6f) * 0.13f - 0.2f);
      out[y * get_global_size(0) + x] = read_imagef(src, lin_rep, c) + read_imagef(src, near_mir, c * 1.7f)
                                       + read_imagef(src, lin_clamp, c * 20.0f);
    }
    kernel void uint_image(read_only image2d_t src, write_only image2d_t dst) {
      int x = get_global_id(0), y = get_global_id(1);
      uint4 v = read_imageui(src, (int2)(y, x));
      write_imageui(dst, (int2)(x, y), v * 3u + (uint4)(x, y, 0, 400));
    }
    kernel void int_image(read_only image2d_t src, write_only image2d_t dst) {
      int x = get_global_id(0), y = get_global_id(1);
      int4 v = read_imagei(src, (int2)(x, y));
      write_imagei(dst, (int2)(x, y), v / 2 - (int4)(x, y, 1, 0));
    }
    kernel void unorm(read_only image2d_t src, write_only image2d_t dst) {
      int x = get_global_id(0), y = get_global_id(1);
      float4 v = read_imagef(src, (int2)(x, y));
      write_imagef(dst, (int2)(x, y), v * 1.5f - 0.25f);
    }
    kernel void volume(read_only image3d_t vol, sampler_t smp, global float4 *out) {
      int x = get_global_id(0);
      float4 c = (float4)(x * 0.37f, x * 0.21f + 0.5f, 3.9f - x * 0.3f, 0.0f);
      out[x] = read_imagef(vol, smp, c) + read_imagef(vol, lin_clamp, c);
    }
    kernel void queries(read_only image2d_t a, read_only image3d_t b, global int *out) {
      if (get_global_id(0) == 0) {
        int2 d = get_image_dim(a);
        int4 e = get_image_dim(b);
        out[0] = get_image_width(a); out[1] = get_image_height(a); out[2] = get_image_channel_order(a);
        out[3] = get_image_channel_data_type(a); out[4] = d.x; out[5] = d.y;
        out[6] = get_image_width(b); out[7] = get_image_height(b); out[8] = get_image_depth(b);
        out[9] = e.x; out[10] = e.y; out[11] = e.z; out[12] = e.w;
      }
    }
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from oracle.case import CaseError, parse_arg
from oracle.check import check, run_scalar
from oracle.infer import check_arg
from vectorizer import vectorize
from vectorizer.builtins import images

KERNELS = (Path(__file__).parent / "images_kernels.ll").read_text()
ND2 = ["global=16,8 local=4,2", "global=12,6 local=6,3"]
CASES = {
    "copy_sampled": (["image:2d:rgba:float:16x8", "image:2d:rgba:float:16x8:zero", "sampler:0x12"], ND2),
    "filter_linear": (["image:2d:rgba:float:16x8", "buf:4xf32:128:zero"], ND2),
    "uint_image": (["image:2d:rgba:uint8:16x16", "image:2d:rgba:uint8:16x8:zero"], ND2),
    "int_image": (["image:2d:rgba:sint32:16x8", "image:2d:rgba:sint16:16x8:zero"], ND2),
    "unorm": (["image:2d:rgba:unorm8:16x8", "image:2d:bgra:unorm16:16x8:zero"], ND2),
    "volume": (["image:3d:rgba:float:4x5x6", "sampler:0x21", "buf:4xf32:16:zero"], ["global=16 local=4"]),
    "queries": (["image:2d:bgra:unorm8:16x8", "image:3d:rg:half:5x6x7", "buf:i32:16:zero"], ["global=8 local=4"]),
    "line": (["image:1d:rgba:unorm16:40", "image:1d:r:float:64:zero"], ["global=64 local=16"]),
}


@pytest.mark.parametrize("kernel", sorted(CASES))
def test_vectorized_runs_match_the_reference(kernel: str) -> None:
    layout, nds = CASES[kernel]
    rep = check(KERNELS, kernel=kernel, widths=[4, 8, 16], layout=layout, ndranges=nds)
    bad = [(r.width, str(r.global_size), r.status, r.detail) for r in rep.results if r.status != "match"]
    assert rep.results and not bad, bad


def _pixels(buf: np.ndarray, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    n = int(np.prod(shape)) * np.dtype(dtype).itemsize
    return buf[images.HEADER: images.HEADER + n].view(dtype).reshape(shape)


def test_queries() -> None:
    _, _, out = run_scalar(KERNELS, "global=8 local=4", kernel="queries", layout=CASES["queries"][0])
    assert list(out[:13]) == [16, 8, 0x10B6, 0x10D2, 16, 8, 5, 6, 7, 5, 6, 7, 0]


def test_integer_coordinates_clamp_to_edge() -> None:
    src, dst, _ = run_scalar(KERNELS, "global=16,8 local=4,2", kernel="copy_sampled",
                             layout=CASES["copy_sampled"][0])
    s, d = _pixels(src, "<f4", (8, 16, 4)), _pixels(dst, "<f4", (8, 16, 4))
    ys = np.minimum(np.arange(8) + 1, 7)
    xs = np.maximum(np.arange(16) - 1, 0)
    assert np.array_equal(d, s[ys][:, xs])


def test_integer_formats_saturate() -> None:
    src, dst = run_scalar(KERNELS, "global=16,8 local=4,2", kernel="uint_image", layout=CASES["uint_image"][0])
    s = _pixels(src, "u1", (16, 16, 4)).astype(np.int64)
    got = _pixels(dst, "u1", (8, 16, 4))
    y, x = np.mgrid[0:8, 0:16]
    want = s[x, y] * 3 + np.stack([x, y, 0 * x, 0 * x + 400], axis=-1)  # read at (y, x)
    assert np.array_equal(got, np.minimum(want, 255))
    src, dst = run_scalar(KERNELS, "global=16,8 local=4,2", kernel="int_image", layout=CASES["int_image"][0])
    s = _pixels(src, "<i4", (8, 16, 4)).astype(np.int64)
    want = np.trunc(s / 2).astype(np.int64) - np.stack([x, y, 0 * x + 1, 0 * x], axis=-1)
    assert np.array_equal(_pixels(dst, "<i2", (8, 16, 4)), np.clip(want, -32768, 32767))


def test_normalized_formats_convert_and_swizzle() -> None:
    src, dst = run_scalar(KERNELS, "global=16,8 local=4,2", kernel="unorm", layout=CASES["unorm"][0])
    v = _pixels(src, "u1", (8, 16, 4)).astype(np.float32) / np.float32(255)
    f = v * np.float32(1.5) - np.float32(0.25)
    want = np.clip(np.rint(f * np.float32(65535)), 0, 65535).astype(np.uint16)
    got = _pixels(dst, "<u2", (8, 16, 4)).astype(np.int64)
    # clang contracts v * 1.5f - 0.25f (llvm.fmuladd): one unit either way.
    assert np.abs(got[..., [2, 1, 0, 3]] - want).max() <= 1  # stored as BGRA


# ----------------------------------------------------- sampled reads, section 8.2

def _axis(s: np.float32, n: int, norm: bool, mode: int, linear: bool) -> tuple[int, int, np.float32]:
    """(i0, i1, weight of i1) along one axis; i1 is i0 and the weight 0 for nearest."""
    f32 = np.float32
    if norm and mode == images.REPEAT:
        u = (s - f32(math.floor(s))) * f32(n)
    elif norm and mode == images.MIRRORED_REPEAT:
        s2 = f32(2) * f32(np.rint(f32(0.5) * s))
        u = f32(abs(s - s2)) * f32(n)
    else:
        u = s * f32(n) if norm else s
    if not linear:
        i = math.floor(u)
        if norm and mode == images.REPEAT:
            i = i - n if i > n - 1 else i
        elif norm and mode == images.MIRRORED_REPEAT:
            i = min(i, n - 1)
        elif mode == images.CLAMP_TO_EDGE:
            i = min(max(i, 0), n - 1)
        elif mode == images.CLAMP:
            i = min(max(i, -1), n)
        return i, i, f32(0)
    ul = u - f32(0.5)
    i0 = math.floor(ul)
    a = ul - f32(i0)
    i1 = i0 + 1
    if norm and mode == images.REPEAT:
        i0, i1 = (i0 + n if i0 < 0 else i0), (i1 - n if i1 > n - 1 else i1)
    elif norm and mode == images.MIRRORED_REPEAT:
        i0, i1 = max(i0, 0), min(i1, n - 1)
    elif mode == images.CLAMP_TO_EDGE:
        i0, i1 = min(max(i0, 0), n - 1), min(max(i1, 0), n - 1)
    elif mode == images.CLAMP:
        i0, i1 = min(max(i0, -1), n), min(max(i1, -1), n)
    return i0, i1, f32(a)


def _read(img: np.ndarray, smp: int, sx: np.float32, sy: np.float32) -> np.ndarray:
    h, w, _ = img.shape
    norm, mode, linear = bool(smp & 1), smp & 14, (smp & 0x30) == 0x20

    def texel(i: int, j: int) -> np.ndarray:
        return img[j, i] if 0 <= i < w and 0 <= j < h else np.zeros(4, np.float32)  # RGBA border

    x0, x1, a = _axis(sx, w, norm, mode, linear)
    y0, y1, b = _axis(sy, h, norm, mode, linear)
    if not linear:
        return texel(x0, y0)
    one = np.float32(1)
    return ((one - a) * (one - b) * texel(x0, y0) + a * (one - b) * texel(x1, y0)
            + (one - a) * b * texel(x0, y1) + a * b * texel(x1, y1))


@pytest.mark.parametrize("smp", [
    0x10, 0x12, 0x14, 0x20, 0x22, 0x24,                # unnormalized: none, clamp to edge, clamp
    0x11, 0x13, 0x15, 0x17, 0x19,                      # normalized, nearest: + repeat, mirrored repeat
    0x21, 0x23, 0x25, 0x27, 0x29,                      # normalized, linear
])
def test_sampled_reads_follow_the_specification(smp: int) -> None:
    scale = 1.0 if smp & 1 else 3.0
    layout = ["image:2d:rgba:float:8x6", f"sampler:{smp:#x}", f"scalar:f32:{scale}", "buf:4xf32:64:zero"]
    img, out = (b for b in run_scalar(KERNELS, "global=64 local=16", kernel="sample", layout=layout)
                if b is not None)
    pix = _pixels(img, "<f4", (6, 8, 4))
    got = out.reshape(64, 4)
    f32 = np.float32
    for g in range(64):
        sx = (f32(g % 37) * f32(0.173) - f32(2.125)) * f32(scale)
        sy = (f32(g % 23) * f32(0.219) - f32(1.75)) * f32(scale)
        want = _read(pix, smp, sx, sy)
        assert np.allclose(got[g], want, rtol=1e-6, atol=1e-6), (g, sx, sy, got[g], want)


# ----------------------------------------------------- arguments


def test_image_and_sampler_specs() -> None:
    a = parse_arg("image:3d:rg:half:5x6x7:zero")
    assert (a.kind, a.elem, a.count, str(a)) == ("buf", "i8", 32 + 5 * 6 * 7 * 4 + 16, "image:3d:rg:half:5x6x7:zero")
    s = parse_arg("sampler:0x13")
    assert (s.kind, s.elem, s.value, str(s)) == ("scalar", "i32", "0x13", "sampler:0x13")
    for bad in ("image:2d:rgba:float:16", "image:2d:xyz:float:4x4", "image:4d:rgba:float:2x2x2x2",
                "image:2d:rgba:float:4x4:iota", "sampler:", "sampler:abc"):
        with pytest.raises(CaseError):
            parse_arg(bad)
    img2 = 'target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 0)'
    check_arg(0, parse_arg("image:2d:rgba:float:4x4"), img2)
    with pytest.raises(CaseError, match="2-D image"):
        check_arg(0, parse_arg("image:3d:rgba:float:4x4x4"), img2)
    with pytest.raises(CaseError, match="sampler"):
        check_arg(1, parse_arg("scalar:i32:18"), 'target("spirv.Sampler")')
    with pytest.raises(CaseError):
        check_arg(2, parse_arg("image:2d:rgba:float:4x4"), "ptr addrspace(1)")


def test_vectorizer_instantiates_reads_and_keeps_the_sampler_scalar() -> None:
    res = vectorize(KERNELS, "filter_linear", width=4)
    assert res.vectorized_name is not None, res.remarks
    body = res.ir[res.ir.index(f"@{res.vectorized_name}("):]
    body = body[: body.index("\n}\n")]
    assert body.count("@__translate_sampler_initializer(") == 3           # uniform: once each
    assert body.count("@_Z11read_imagef14ocl_image2d_ro11ocl_samplerDv2_f(") == 12  # 3 reads x 4 lanes


# ----------------------------------------------------- channel orders (OpenCL 1.2, 8.3)

# order -> (r, g, b, a) from the stored channels s[0..]; None: 0 (1 for alpha when the order has none)
READ = {
    "r": (0, None, None, None), "a": (None, None, None, 0), "rg": (0, 1, None, None),
    "ra": (0, None, None, 1), "rgba": (0, 1, 2, 3), "bgra": (2, 1, 0, 3), "argb": (1, 2, 3, 0),
    "intensity": (0, 0, 0, 0), "luminance": (0, 0, 0, None),
}
HAS_ALPHA = {"a", "ra", "rgba", "bgra", "argb", "intensity"}


@pytest.mark.parametrize("order", sorted(READ))
def test_channel_orders_read(order: str) -> None:
    n = images.ORDERS[order][1]
    layout = [f"image:2d:{order}:unorm8:8x6", "sampler:0x10", "scalar:f32:3.0", "buf:4xf32:64:zero"]
    img, out = (b for b in run_scalar(KERNELS, "global=64 local=16", kernel="sample", layout=layout)
                if b is not None)
    stored = _pixels(img, "u1", (6, 8, n)).astype(np.float32) / np.float32(255)
    got = out.reshape(64, 4)
    f32 = np.float32
    for g in range(64):
        x = math.floor((f32(g % 37) * f32(0.173) - f32(2.125)) * f32(3.0))
        y = math.floor((f32(g % 23) * f32(0.219) - f32(1.75)) * f32(3.0))
        if 0 <= x < 8 and 0 <= y < 6:
            want = [stored[y, x, k] if k is not None else (1.0 if c == 3 and order not in HAS_ALPHA else 0.0)
                    for c, k in enumerate(READ[order])]
        else:  # CLK_ADDRESS_NONE outside: the border colour
            want = [0.0, 0.0, 0.0, 0.0 if order in HAS_ALPHA else 1.0]
        assert np.array_equal(got[g], np.array(want, np.float32)), (order, g, got[g], want)


# order -> the components of (r, g, b, a) stored, in storage order
WRITE = {"r": (0,), "a": (3,), "rg": (0, 1), "ra": (0, 3), "rgba": (0, 1, 2, 3), "bgra": (2, 1, 0, 3),
         "argb": (3, 0, 1, 2), "intensity": (0,), "luminance": (0,)}


@pytest.mark.parametrize("order", sorted(WRITE))
def test_channel_orders_write(order: str) -> None:
    layout = ["image:2d:rgba:float:16x8", f"image:2d:{order}:float:16x8:zero", "sampler:0x12"]
    src, dst, _ = run_scalar(KERNELS, "global=16,8 local=4,2", kernel="copy_sampled", layout=layout)
    s = _pixels(src, "<f4", (8, 16, 4))
    ys = np.minimum(np.arange(8) + 1, 7)
    xs = np.maximum(np.arange(16) - 1, 0)
    colour = s[ys][:, xs]
    got = _pixels(dst, "<f4", (8, 16, len(WRITE[order])))
    assert np.array_equal(got, colour[..., list(WRITE[order])])


def test_opaque_types_are_lowered_for_the_code_generator() -> None:
    from oracle.opaque_types import lower

    text = ('declare target("spirv.Event") @c(ptr addrspace(3), target("spirv.Event"))\n'
            'define void @k(target("spirv.Image", void, 1, 0, 0, 0, 0, 0, 1) %i, target("spirv.Sampler") %s)')
    assert lower(text) == ('declare ptr @c(ptr addrspace(3), ptr)\n'
                           'define void @k(ptr addrspace(1) %i, i32 %s)')
