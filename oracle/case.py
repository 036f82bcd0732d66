"""The case-file header (docs/corpus-format.md) and argument layouts.

A case is LLVM IR text whose leading `; key: value` comment lines say how to
run it. This module parses and writes that header; the same dataclasses
describe layouts the oracle infers for foreign kernels.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

# Scalar element types of buffers, with their numpy dtype and byte size.
ELEM_DTYPES: dict[str, str] = {
    "i8": "<u1",
    "i16": "<u2",
    "i32": "<u4",
    "i64": "<u8",
    "f16": "<f2",
    "f32": "<f4",
    "f64": "<f8",
}
ELEM_SIZES: dict[str, int] = {
    "i8": 1, "i16": 2, "i32": 4, "i64": 8, "f16": 2, "f32": 4, "f64": 8,
}
INITS = ("random", "zero", "iota")


class CaseError(ValueError):
    """A malformed case header or layout (bad input, exit status 2)."""


@lru_cache(maxsize=256)
def split_elem(elem: str) -> tuple[int, str]:
    """`4xf32` -> (4, "f32"); `i32` -> (1, "i32")."""
    m = re.fullmatch(r"(?:(\d+)x)?(i8|i16|i32|i64|f16|f32|f64)", elem)
    if not m:
        raise CaseError(f"unknown element type {elem!r}")
    return (int(m.group(1)) if m.group(1) else 1), m.group(2)


@dataclass(frozen=True)
class ArgSpec:
    """One kernel parameter: a global buffer, a by-value scalar or a local buffer."""

    kind: str  # "buf", "scalar" or "local"
    elem: str  # element type: i32, f32, 4xf32 ... (the scalar's type for "scalar")
    count: int = 0  # elements (buffers)
    init: str = "random"  # random | zero | iota | mod<k> (global buffers)
    value: str = "0"  # the literal value (scalars)
    # An OpenCL image (kind "buf", elem "i8", count its bytes): "2d:rgba:float:16x8",
    # or "sampler" for a sampler (kind "scalar", elem "i32", value its bit field).
    image: str = ""

    @property
    def lanes(self) -> int:
        """Scalar components per element (4 for `4xf32`)."""
        return split_elem(self.elem)[0]

    @property
    def base(self) -> str:
        """Scalar component type (`f32` for `4xf32`)."""
        return split_elem(self.elem)[1]

    @property
    def nbytes(self) -> int:
        """Size of a buffer in bytes."""
        return self.count * self.lanes * ELEM_SIZES[self.base]

    def __str__(self) -> str:
        if self.image == "sampler":
            return f"sampler:{self.value}"
        if self.image:
            return f"image:{self.image}:{self.init}"
        if self.kind == "scalar":
            return f"scalar:{self.elem}:{self.value}"
        if self.kind == "local":
            return f"local:{self.elem}:{self.count}"
        return f"buf:{self.elem}:{self.count}:{self.init}"


def parse_arg(text: str) -> ArgSpec:
    """Parse one `args:` entry (`buf:i32:1024:zero`, `scalar:i32:7`, `local:f32:64`)."""
    parts = text.split(":")
    kind = parts[0]
    if kind in ("image", "sampler"):
        return parse_image_arg(text)
    try:
        if kind == "buf" and len(parts) in (3, 4):
            split_elem(parts[1])
            init = parts[3] if len(parts) == 4 else "random"
            if init not in INITS and not re.fullmatch(r"mod[1-9]\d*", init):
                raise CaseError(f"unknown buffer init {init!r}")
            count = int(parts[2])
            if count < 0:
                raise CaseError(f"negative buffer size in {text!r}")
            return ArgSpec("buf", parts[1], count, init)
        if kind == "local" and len(parts) == 3:
            split_elem(parts[1])
            return ArgSpec("local", parts[1], int(parts[2]))
        if kind == "scalar" and len(parts) == 3:
            _, base = split_elem(parts[1])
            float(parts[2]) if base.startswith("f") else int(parts[2], 0)
            return ArgSpec("scalar", parts[1], value=parts[2])
    except ValueError as exc:
        if isinstance(exc, CaseError):
            raise
        raise CaseError(f"bad argument spec {text!r}: {exc}") from None
    raise CaseError(f"bad argument spec {text!r}")


def image_arg(ndim: int, order: str, ctype: str, dims: tuple[int, ...], init: str = "random") -> ArgSpec:
    """An image argument: `ndim`-dimensional, channel order and type as
    `vectorizer.builtins.images` names them, `dims` its sizes."""
    from vectorizer.builtins import images

    full = (tuple(dims) + (1, 1))[:3]
    text = f"{ndim}d:{order}:{ctype}:{'x'.join(map(str, dims))}"
    return ArgSpec("buf", "i8", images.image_nbytes(full, order, ctype), init, image=text)  # type: ignore[arg-type]


def parse_image_arg(text: str) -> ArgSpec:
    """`image:2d:rgba:unorm8:16x8[:init]` or `sampler:<bit field>` (docs/oracle.md)."""
    from vectorizer.builtins import images

    parts = text.split(":")
    if parts[0] == "sampler":
        if len(parts) != 2 or not re.fullmatch(r"(0x[0-9a-fA-F]+|\d+)", parts[1]) or int(parts[1], 0) >= 1 << 31:
            raise CaseError(f"bad sampler spec {text!r}: `sampler:<bit field>` (e.g. sampler:0x12)")
        return ArgSpec("scalar", "i32", value=parts[1], image="sampler")
    m = re.fullmatch(r"image:([123])d:(\w+):(\w+):(\d+(?:x\d+){0,2})(?::(\w+))?", text)
    if m is None:
        raise CaseError(f"bad image spec {text!r}: `image:<1d|2d|3d>:<order>:<type>:<W>[x<H>[x<D>]][:init]`")
    ndim, order, ctype, size, init = int(m.group(1)), m.group(2), m.group(3), m.group(4), m.group(5) or "random"
    dims = tuple(int(v) for v in size.split("x"))
    if order not in images.ORDERS or ctype not in images.CHANNEL_TYPES:
        raise CaseError(f"bad image spec {text!r}: orders {', '.join(images.ORDERS)}; "
                        f"types {', '.join(images.CHANNEL_TYPES)}")
    if len(dims) != ndim or not all(1 <= d <= 1 << 14 for d in dims) or init not in ("random", "zero"):
        raise CaseError(f"bad image spec {text!r}: {ndim} sizes from 1 to 16384, init random or zero")
    return image_arg(ndim, order, ctype, dims, init)


@dataclass(frozen=True)
class NDRange:
    """An OpenCL NDRange with uniform work-groups (global a multiple of local)."""

    global_size: tuple[int, int, int]
    local_size: tuple[int, int, int]
    offset: tuple[int, int, int] = (0, 0, 0)
    work_dim: int = 1

    def __post_init__(self) -> None:
        for g, loc in zip(self.global_size, self.local_size, strict=False):
            if loc < 1 or g < 1:
                raise CaseError(f"NDRange sizes must be positive: {self}")
            if g % loc:
                raise CaseError(
                    f"global size {self.gs()} is not a multiple of local size {self.ls()}"
                )

    @property
    def num_groups(self) -> tuple[int, int, int]:
        """Work-groups per dimension."""
        return tuple(g // loc for g, loc in zip(self.global_size, self.local_size, strict=False))  # type: ignore[return-value]

    @property
    def total(self) -> int:
        """Work-items in the whole range."""
        return self.global_size[0] * self.global_size[1] * self.global_size[2]

    def gs(self) -> str:
        """Global size as `X,Y,Z` trimmed to work_dim."""
        return ",".join(map(str, self.global_size[: self.work_dim]))

    def ls(self) -> str:
        """Local size as `X,Y,Z` trimmed to work_dim."""
        return ",".join(map(str, self.local_size[: self.work_dim]))

    def __str__(self) -> str:
        s = f"global={self.gs()} local={self.ls()}"
        if any(self.offset):
            s += " offset=" + ",".join(map(str, self.offset[: self.work_dim]))
        return s


def _triple(text: str, fill: int) -> tuple[list[int], tuple[int, int, int]]:
    vals = [int(v) for v in text.split(",") if v.strip() != ""]
    if not 1 <= len(vals) <= 3:
        raise CaseError(f"bad NDRange dimension list {text!r}")
    full = vals + [fill] * (3 - len(vals))
    return vals, (full[0], full[1], full[2])


def parse_ndrange(text: str) -> NDRange:
    """Parse `global=X[,Y[,Z]] local=X[,Y[,Z]] [offset=X[,Y[,Z]]]`."""
    fields: dict[str, str] = {}
    for tok in text.replace(";", " ").split():
        if "=" not in tok:
            raise CaseError(f"bad NDRange field {tok!r}")
        k, v = tok.split("=", 1)
        fields[k.strip()] = v
    if "global" not in fields:
        raise CaseError(f"NDRange without global size: {text!r}")
    try:
        gl, g = _triple(fields["global"], 1)
        ll, loc = _triple(fields.get("local", fields["global"]), 1)
        ol, off = _triple(fields.get("offset", "0"), 0)
    except ValueError as exc:
        raise CaseError(f"bad NDRange {text!r}: {exc}") from None
    dims = max(len(gl), len(ll), len(ol) if "offset" in fields else 1)
    return NDRange(g, loc, off, dims)


@dataclass
class Case:
    """A parsed case: the IR plus everything needed to run it."""

    ir: str
    kernel: str | None = None
    args: list[ArgSpec] | None = None
    ndranges: list[NDRange] = field(default_factory=list)
    widths: list[int] = field(default_factory=list)
    dims: list[int] = field(default_factory=list)
    choices: list[str] = field(default_factory=list)
    seed: int = 0
    origin: str | None = None
    failure: str | None = None
    extra: dict[str, list[str]] = field(default_factory=dict)
    is_case: bool = False  # True when the text carried `; vecz-case: 1`
    # True when `args` were inferred (oracle.infer), not written by a user:
    # the oracle may then size the buffers to what the kernel touches.
    inferred_args: bool = False

    def header(self) -> str:
        """The `; key: value` header lines for this case (no trailing IR)."""
        lines = ["; vecz-case: 1"]
        if self.kernel:
            lines.append(f"; kernel: {self.kernel}")
        if self.args is not None:
            lines.append("; args: " + " ".join(map(str, self.args)))
        lines += [f"; ndrange: {nd}" for nd in self.ndranges]
        if self.widths:
            lines.append("; widths: " + ",".join(map(str, self.widths)))
        if self.dims:
            lines.append("; dims: " + ",".join(map(str, self.dims)))
        lines += [f"; choices: {c}" for c in self.choices]
        lines.append(f"; seed: {self.seed}")
        if self.origin:
            lines.append(f"; origin: {self.origin}")
        if self.failure:
            lines.append(f"; failure: {self.failure}")
        for k, vs in self.extra.items():
            lines += [f"; {k}: {v}" for v in vs]
        return "\n".join(lines) + "\n"

    def text(self) -> str:
        """The whole case file: header then IR."""
        return self.header() + self.ir


_HEADER = re.compile(r";\s*([A-Za-z][\w.-]*)\s*:\s?(.*)$")


def _int_list(text: str, what: str) -> list[int]:
    try:
        return [int(v) for v in text.replace(" ", "").split(",") if v]
    except ValueError:
        raise CaseError(f"bad {what} list {text!r}") from None


def parse_case(text: str) -> Case:
    """Parse a case file. A text without `; vecz-case:` is returned as a foreign
    kernel (`is_case=False`, nothing but the IR filled in)."""
    header: list[tuple[str, str]] = []
    lines = text.splitlines(keepends=True)
    body_start = len(lines)
    for n, line in enumerate(lines):
        s = line.strip()
        if not s.startswith(";"):
            if s == "":
                continue
            body_start = n
            break
        m = _HEADER.match(s)
        if m:
            header.append((m.group(1).lower(), m.group(2).strip()))
    keys = {k for k, _ in header}
    case = Case(ir=text)
    if "vecz-case" not in keys:
        return case
    case.is_case = True
    # Keep only the IR: `Case.text()` writes the header back.
    case.ir = "".join(lines[body_start:])
    for key, val in header:
        if key == "vecz-case":
            if val != "1":
                raise CaseError(f"unsupported case format version {val!r}")
        elif key == "kernel":
            case.kernel = val
        elif key == "args":
            case.args = [parse_arg(a) for a in val.split()]
        elif key == "ndrange":
            case.ndranges.append(parse_ndrange(val))
        elif key == "widths":
            case.widths = _int_list(val, "widths")
        elif key == "dims":
            case.dims = _int_list(val, "dims")
        elif key == "choices":
            case.choices.append(val)
        elif key == "seed":
            try:
                case.seed = int(val, 0)
            except ValueError:
                raise CaseError(f"bad seed {val!r}") from None
        elif key == "origin":
            case.origin = val
        elif key == "failure":
            case.failure = val
        else:
            case.extra.setdefault(key, []).append(val)
    if not case.kernel:
        raise CaseError("case header has no `kernel:` line")
    return case
