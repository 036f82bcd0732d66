"""Images and samplers (OpenCL C 1.2, 6.12.14): `read_image{f,i,ui}`,
`write_image{f,i,ui}`, `get_image_{width,height,depth,channel_data_type,
channel_order,dim}` on 1-D, 2-D and 3-D images, with and without samplers.

clang 22 passes an image as `target("spirv.Image", void, DIM, ...)` and a
sampler as `target("spirv.Sampler")` (`__translate_sampler_initializer(i32)`
makes one from a constant). The oracle lowers them (oracle/opaque_types.py)
to what this module's definitions take:

- an image is `ptr addrspace(1)` to an **image object** in a global buffer:
  a 32-byte header of little-endian i32 fields, then the pixels, x fastest,
  then y, then z, tightly packed, then `PADDING` bytes:

  | offset | field |
  |---|---|
  | 0, 4, 8 | width, height, depth (1 for the dimensions an image lacks) |
  | 12, 16 | channel order, channel data type (the `CL_*` values) |
  | 20, 24 | channels per pixel, bytes per channel |
  | 28 | dimensions (1, 2, 3) |

- a sampler is its `i32` bit field (`CLK_NORMALIZED_COORDS_TRUE` = 1,
  addressing mode in bits 1-3, `CLK_FILTER_LINEAR` = 0x20).

Both runs of the oracle call these same definitions (the vectorizer keeps
image calls as calls and instantiates them lane by lane), so they agree bit
for bit. What OpenCL leaves undefined is fixed: reading outside the image
with `CLK_ADDRESS_NONE` (or without a sampler) gives the border colour, as
`CLK_ADDRESS_CLAMP` does; a write outside is dropped; repeat and mirrored
repeat without normalized coordinates address as `NONE`; linear filtering
of `read_imagei`/`read_imageui` is nearest; `read_imagef` of an integer
format converts the integer, `read_imagei`/`ui` of another format return
the stored bits; `write_imagef` to an integer format rounds and
saturates, `write_imagei`/`ui` to another format convert the integer.
Supported formats: orders `CL_R`, `CL_A`, `CL_RG`, `CL_RA`, `CL_RGBA`,
`CL_BGRA`, `CL_ARGB`, `CL_INTENSITY`, `CL_LUMINANCE` (`ORDERS`); every 8-,
16- and 32-bit channel type plus half and float (`CHANNEL_TYPES`).
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable

HEADER = 32
PADDING = 16  # a texel's channels are loaded whole: reading past the last pixel stays inside

# name -> (CL value, channels stored per pixel)
ORDERS = {
    "r": (0x10B0, 1), "a": (0x10B1, 1), "rg": (0x10B2, 2), "ra": (0x10B3, 2), "rgba": (0x10B5, 4),
    "bgra": (0x10B6, 4), "argb": (0x10B7, 4), "intensity": (0x10B8, 1), "luminance": (0x10B9, 1),
}
# Stored channels (0-3; 4 is 0, 5 is 1) read as (r, g, b, a), and (r, g, b, a)
# written as the stored channels (OpenCL 1.2, 8.3).
READ_SWIZZLE = {
    "rgba": (0, 1, 2, 3), "r": (0, 4, 4, 5), "a": (4, 4, 4, 0), "rg": (0, 1, 4, 5), "ra": (0, 4, 4, 1),
    "bgra": (2, 1, 0, 3), "argb": (1, 2, 3, 0), "intensity": (0, 0, 0, 0), "luminance": (0, 0, 0, 5),
}
WRITE_SWIZZLE = {
    "rgba": (0, 1, 2, 3), "r": (0, 4, 4, 4), "a": (3, 4, 4, 4), "rg": (0, 1, 4, 4), "ra": (0, 3, 4, 4),
    "bgra": (2, 1, 0, 3), "argb": (3, 0, 1, 2), "intensity": (0, 4, 4, 4), "luminance": (0, 4, 4, 4),
}
# Orders without alpha: their border colour is (0, 0, 0, 1), the others' (0, 0, 0, 0).
NO_ALPHA = ("r", "rg", "luminance")
# name -> (CL value, bytes per channel, kind: s signed int, u unsigned int, sn/un normalized, f float)
CHANNEL_TYPES = {
    "snorm8": (0x10D0, 1, "sn"), "snorm16": (0x10D1, 2, "sn"),
    "unorm8": (0x10D2, 1, "un"), "unorm16": (0x10D3, 2, "un"),
    "sint8": (0x10D7, 1, "s"), "sint16": (0x10D8, 2, "s"), "sint32": (0x10D9, 4, "s"),
    "uint8": (0x10DA, 1, "u"), "uint16": (0x10DB, 2, "u"), "uint32": (0x10DC, 4, "u"),
    "half": (0x10DD, 2, "f"), "float": (0x10DE, 4, "f"),
}
ADDRESS_NONE, CLAMP_TO_EDGE, CLAMP, REPEAT, MIRRORED_REPEAT = 0, 2, 4, 6, 8
NORMALIZED, FILTER_NEAREST, FILTER_LINEAR = 1, 0x10, 0x20

_NAME = re.compile(r"_Z(\d+)((?:read|write)_image(?:f|i|ui)|get_image_(?:width|height|depth|channel_data_type"
                   r"|channel_order|dim))14ocl_image([123])d_(ro|wo|rw)(11ocl_sampler)?(.*)")
SAMPLER_INIT = "__translate_sampler_initializer"


# ------------------------------------------------------------ image objects


def image_nbytes(dims: tuple[int, int, int], order: str, ctype: str) -> int:
    """Bytes of an image object: header, pixels, padding."""
    w, h, d = dims
    return HEADER + w * h * d * ORDERS[order][1] * CHANNEL_TYPES[ctype][1] + PADDING


def header_bytes(dims: tuple[int, int, int], ndim: int, order: str, ctype: str) -> bytes:
    """The 32-byte header of an image object."""
    o, nch = ORDERS[order]
    t, chb, _ = CHANNEL_TYPES[ctype]
    return struct.pack("<8i", *dims, o, t, nch, chb, ndim)


def parse_image_type(ty: str) -> tuple[int, int] | None:
    """(dimensions, access qualifier 0 ro / 1 wo / 2 rw) of a
    `target("spirv.Image", void, DIM, depth, arrayed, ms, sampled, format, access)`
    type, None for other types and for buffers, arrays, depth and MSAA images."""
    m = re.fullmatch(r'target\("spirv\.Image",\s*void,\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+),\s*\d+,\s*\d+,\s*(\d+)\)', ty.strip())
    if m is None:
        return None
    dim, depth, arrayed, ms, access = (int(g) for g in m.groups())
    if dim not in (0, 1, 2) or depth or arrayed or ms:
        return None
    return dim + 1, access


# ------------------------------------------------------------ builtins


def is_image_builtin(name: str) -> bool:
    """An image builtin's mangled name, or the sampler initialiser."""
    return name == SAMPLER_INIT or _match(name) is not None


def is_pure_image_query(name: str) -> bool:
    """The sampler initialiser and `get_image_*`: functions of their operands
    alone (an image's size and format never change during a kernel), so a
    uniform call stays one scalar call. Reads and writes are not: the
    packetizer instantiates them lane by lane."""
    if name == SAMPLER_INIT:
        return True
    m = _match(name)
    return m is not None and m[0].startswith("get_image_")


def _match(name: str) -> tuple[str, int, str, bool, str] | None:
    m = _NAME.fullmatch(name)
    if m is None or int(m.group(1)) != len(m.group(2)):
        return None
    return m.group(2), int(m.group(3)), m.group(4), m.group(5) is not None, m.group(6)


def _vec_parts(v: str, ty: str, n: int, fill: str, out: list[str], tag: str) -> str:
    """`v` (a scalar or vector of up to 4 lanes of `ty`) widened to `<4 x ty>` with `fill`."""
    m = re.fullmatch(r"<(\d+) x (\w+)>", ty)
    lanes, elem = (int(m.group(1)), m.group(2)) if m else (1, ty)
    cur = f"<4 x {elem}> <{', '.join([f'{elem} {fill}'] * 4)}>"
    for i in range(min(lanes, n)):
        if m:
            out.append(f"  %{tag}{i} = extractelement {ty} {v}, i64 {i}")
            val = f"%{tag}{i}"
        else:
            val = v
        out.append(f"  %{tag}v{i} = insertelement {cur}, {elem} {val}, i64 {i}")
        cur = f"<4 x {elem}> %{tag}v{i}"
    return cur


def definition(name: str, ret: str, params: list[str], helper: Callable[[str, str], None],
               intrinsic: Callable[[str, str, list[str]], str]) -> str | None:
    """The runtime's definition of an image builtin whose image and sampler
    parameters are lowered (`ptr addrspace(1)`, `i32`), or None when `name`
    is not one or the types are not the builtin's. `helper(key, text)` adds a
    shared internal function, `intrinsic` declares an LLVM intrinsic."""
    params = list(params)
    q = f'@"{name}"'
    if name == SAMPLER_INIT:
        if ret != "i32" or params != ["i32"]:
            return None
        return f"define i32 {q}(i32 %s) {{\nentry:\n  ret i32 %s\n}}"
    mt = _match(name)
    if mt is None:
        return None
    base, ndim, access, sampled, _rest = mt
    if not params or params[0] != "ptr addrspace(1)":
        return None
    from . import image_ir  # (it reads this module's constants)

    for k, (r, ps) in image_ir.INTRINSICS.items():
        intrinsic(k, r, ps)

    def need(h: str) -> None:
        for d in image_ir.NEEDS[h]:
            need(d)
        helper(h, image_ir.HELPERS[h]())

    body: list[str] = []
    if base.startswith("get_image_"):
        field = {"get_image_width": 0, "get_image_height": 1, "get_image_depth": 2,
                 "get_image_channel_order": 3, "get_image_channel_data_type": 4}.get(base)
        if sampled or len(params) != 1:
            return None
        if field is not None:
            if ret != "i32" or (field == 1 and ndim < 2) or (field == 2 and ndim < 3):
                return None
            body = [f"  %p = getelementptr i8, ptr addrspace(1) %a0, i64 {4 * field}",
                    "  %v = load i32, ptr addrspace(1) %p, align 4", "  ret i32 %v"]
        else:  # get_image_dim
            want = {2: "<2 x i32>", 3: "<4 x i32>"}.get(ndim)
            if ret != want:
                return None
            body = ["  %w = load i32, ptr addrspace(1) %a0, align 4",
                    "  %hp = getelementptr i8, ptr addrspace(1) %a0, i64 4", "  %h = load i32, ptr addrspace(1) %hp, align 4",
                    f"  %v0 = insertelement {want} zeroinitializer, i32 %w, i64 0",
                    f"  %v1 = insertelement {want} %v0, i32 %h, i64 1"]
            if ndim == 3:
                body += ["  %dp = getelementptr i8, ptr addrspace(1) %a0, i64 8",
                         "  %d = load i32, ptr addrspace(1) %dp, align 4",
                         "  %v2 = insertelement <4 x i32> %v1, i32 %d, i64 2", "  ret <4 x i32> %v2"]
            else:
                body.append("  ret <2 x i32> %v1")
    else:
        kind = base.split("_image")[1]  # f, i, ui
        value_ty = "<4 x float>" if kind == "f" else "<4 x i32>"
        ncoord = {1: 1, 2: 2, 3: 4}[ndim]
        ity = "i32" if ncoord == 1 else f"<{ncoord} x i32>"
        fty = "float" if ncoord == 1 else f"<{ncoord} x float>"
        asf = "true" if kind == "f" else "false"
        if base.startswith("read_"):
            if access == "wo" or ret != value_ty:
                return None
            coords = params[2:] if sampled else params[1:]
            if len(coords) != 1 or (sampled and params[1] != "i32"):
                return None
            smp = "%a1" if sampled else str(ADDRESS_NONE)
            cty = coords[0]
            cv = f"%a{len(params) - 1}"
            if cty == ity:
                need("__img_fetch")
                v4 = _vec_parts(cv, cty, ncoord, "0", body, "c")
                body.append(f"  %r = call <4 x i32> @__img_fetch(ptr addrspace(1) %a0, i32 {smp}, {v4}, i1 {asf})")
            elif cty == fty and sampled:
                need("__img_sample")
                v4 = _vec_parts(cv, cty, ncoord, "0.0", body, "c")
                body.append(f"  %r = call <4 x i32> @__img_sample(ptr addrspace(1) %a0, i32 {smp}, {v4}, i1 {asf})")
            else:
                return None
            if kind == "f":
                body += ["  %f = bitcast <4 x i32> %r to <4 x float>", "  ret <4 x float> %f"]
            else:
                body.append("  ret <4 x i32> %r")
        else:
            if access == "ro" or sampled or ret != "void" or params[1:] != [ity, value_ty]:
                return None
            need("__img_store")
            v4 = _vec_parts("%a1", ity, ncoord, "0", body, "c")
            col = "%a2"
            if kind == "f":
                body.append("  %col = bitcast <4 x float> %a2 to <4 x i32>")
                col = "%col"
            body += [f"  %x = extractelement {v4}, i64 0", f"  %y = extractelement {v4}, i64 1",
                     f"  %z = extractelement {v4}, i64 2",
                     f"  call void @__img_store(ptr addrspace(1) %a0, i32 %x, i32 %y, i32 %z, <4 x i32> {col}, i1 {asf})",
                     "  ret void"]
    sig = ", ".join(f"{t} %a{i}" for i, t in enumerate(params))
    return f"define {ret} {q}({sig}) {{\nentry:\n" + "\n".join(body) + "\n}"
