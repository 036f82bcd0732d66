"""Image and sampler kernel arguments (vectorizer/builtins/images.py).

clang 22 types them `target("spirv.Image", void, DIM, ...)` and
`target("spirv.Sampler")`; a case gives them as `image:2d:rgba:float:64x64`
and `sampler:0x12` (oracle/case.py). `check` validates an entry against such
a parameter; `infer` chooses one for a foreign kernel: the channel type
from the read or write builtins the kernel calls on the parameter (float
for `read_imagef`, unsigned 8-bit for `_imageui`, signed 32-bit for
`_imagei`, RGBA), a size that covers the inferred NDRanges (larger reads
address the border, larger writes are dropped), zeroed when the kernel only
writes it; samplers: unnormalized, clamp to edge, nearest.
"""

from __future__ import annotations

import re

from vectorizer.builtins import images

from .case import ArgSpec, CaseError, image_arg

SAMPLER_TYPE = 'target("spirv.Sampler")'
DEFAULT_SAMPLER = images.CLAMP_TO_EDGE | images.FILTER_NEAREST
SIZES = {1: (256,), 2: (64, 64), 3: (16, 16, 16)}


def is_opaque(ty: str) -> bool:
    """An image or sampler parameter type."""
    return ty.strip() == SAMPLER_TYPE or images.parse_image_type(ty) is not None


def check(i: int, a: ArgSpec, ty: str) -> bool:
    """True when parameter `i` of type `ty` is an image or sampler and entry
    `a` fits it; raises `CaseError` when it does not fit (or is an image or
    sampler entry for another type); False for other parameters."""
    if ty.strip() == SAMPLER_TYPE:
        if a.image != "sampler":
            raise CaseError(f"argument {i} is a sampler: a `sampler:<bit field>` entry is needed, not `{a}`")
        return True
    im = images.parse_image_type(ty)
    if im is None:
        if a.image:
            raise CaseError(f"argument {i} is a {ty}: `{a}` is for image and sampler parameters")
        if "spirv." in ty:
            raise CaseError(f"argument {i}: parameters of type {ty} are not supported")
        return False
    if not a.image or a.image == "sampler" or int(a.image[0]) != im[0]:
        raise CaseError(f"argument {i} is a {im[0]}-D image: an `image:{im[0]}d:<order>:<type>:<size>` "
                        f"entry is needed, not `{a}`")
    return True


def infer(ty: str, body: str, name: str) -> ArgSpec | None:
    """An entry for parameter `name` (`%src`) of type `ty` in kernel body
    `body` (its IR text), None when `ty` is neither image nor sampler."""
    if ty.strip() == SAMPLER_TYPE:
        return ArgSpec("scalar", "i32", value=hex(DEFAULT_SAMPLER), image="sampler")
    im = images.parse_image_type(ty)
    if im is None:
        return None
    ndim, _access = im
    used = set(re.findall(r"@_Z\d+((?:read|write)_image(?:f|ui|i))\w*\(target\(\"spirv\.Image\"[^)]*\) "
                          + re.escape(name) + r"[,)]", body))
    kinds = {u.split("_image")[1] for u in used}
    ctype = "uint8" if kinds == {"ui"} else "sint32" if kinds == {"i"} else "float"
    written_only = bool(used) and all(u.startswith("write") for u in used)
    return image_arg(ndim, "rgba", ctype, SIZES[ndim], "zero" if written_only else "random")
