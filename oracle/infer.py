"""Layout inference for foreign kernels (files without a case header).

The kernel is the one asked for, else the one a lit `RUN:` line names with
`-k`, else the first `spir_kernel` (else the first defined function not
named like a helper). Pointer parameters become buffers whose element type is
the scalar type the kernel most often loads, stores or indexes through them;
they are sized from the NDRange with generous slack, so that a kernel with
bounded accesses never faults. Scalars get small deterministic values. The
NDRanges cover a multiple-of-W local size, a remainder, local size 1 and,
when the kernel queries dimensions 1/2, a 3-D range with offsets.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

import llvmlite.binding as llvm

from vectorizer.llvm_context import new_context, parse_in

from .case import ArgSpec, Case, CaseError, parse_arg, parse_ndrange
from .jit import initialize, strip_calling_conventions

ND_1D = ["global=64 local=16", "global=36 local=12 offset=5", "global=3 local=1"]
ND_3D = ["global=8,6,4 local=4,3,2 offset=3,1,2", "global=16,4,2 local=8,4,2"]

_LLVM_TO_ELEM = {
    "i1": "i8", "i8": "i8", "i16": "i16", "i32": "i32", "i64": "i64",
    "half": "f16", "float": "f32", "double": "f64", "ptr": "i64",
}
_SIZES = {"i8": 1, "i16": 2, "i32": 4, "i64": 8, "f16": 2, "f32": 4, "f64": 8}
_WI_CALL = re.compile(r"@(?:__mux_get_|_Z\d+get_)(\w+?)(?:[jm])?\((?:i32|i64)(?: noundef)? ([^)]*)\)")


def _type_bytes(ty: str) -> int:
    m = re.fullmatch(r"<(\d+) x (\S+)>", ty)
    if m:
        return int(m.group(1)) * _SIZES.get(_LLVM_TO_ELEM.get(m.group(2), "i8"), 1)
    m = re.fullmatch(r"\[(\d+) x (\S+)\]", ty)
    if m:
        return int(m.group(1)) * _type_bytes(m.group(2))
    return _SIZES.get(_LLVM_TO_ELEM.get(ty, "i8"), 8)


def _scalar_of(ty: str) -> str | None:
    m = re.fullmatch(r"<\d+ x (\S+)>", ty)
    if m:
        ty = m.group(1)
    m = re.fullmatch(r"\[\d+ x (\S+)\]", ty)
    if m:
        return _scalar_of(m.group(1))
    return _LLVM_TO_ELEM.get(ty) or (ty if ty in _LLVM_TO_ELEM else None)


_PTR = r"ptr(?: addrspace\(\d+\))?"
_TY = r"(<\d+ x \w+>|\[\d+ x [^\]]+\]|[\w.%]+)"


def pointer_uses(body: str, arg: str) -> tuple[Counter[str], int]:
    """Scalar types accessed through pointer `arg` (and pointers derived from
    it) in function text `body`, and the widest access in bytes."""
    derived = {arg}
    kinds: Counter[str] = Counter()
    widest = 1
    lines = body.splitlines()
    for _ in range(3):  # phis may refer forward: a few passes reach the fixpoint
        for ln in lines:
            m = re.match(r"\s*(%[\w.\-]+) = (.*)", ln)
            if not m:
                continue
            res, rhs = m.groups()
            ops = set(re.findall(r"%[\w.\-]+", rhs))
            if not ops & derived:
                continue
            if re.match(r"(getelementptr|bitcast|addrspacecast|phi ptr|phi " + _PTR + r"|select)", rhs):
                if rhs.startswith(("phi", "select")) and "ptr" not in rhs.split(",")[0] + rhs[:20]:
                    continue
                derived.add(res)
    for ln in lines:
        s = ln.strip()
        m = re.search(r"= load (?:volatile )?" + _TY + r", " + _PTR + r" (%[\w.\-]+)", s)
        if m and m.group(2) in derived:
            sc = _scalar_of(m.group(1))
            if sc:
                kinds[sc] += 2
            widest = max(widest, _type_bytes(m.group(1)))
        m = re.match(r"store (?:volatile )?" + _TY + r" [^,]+, " + _PTR + r" (%[\w.\-]+)", s)
        if m and m.group(2) in derived:
            sc = _scalar_of(m.group(1))
            if sc:
                kinds[sc] += 2
            widest = max(widest, _type_bytes(m.group(1)))
        m = re.search(r"getelementptr (?:inbounds |nuw |nusw )*" + _TY + r", " + _PTR + r" (%[\w.\-]+)", s)
        if m and m.group(2) in derived:
            sc = _scalar_of(m.group(1))
            if sc and not m.group(1).startswith("["):
                kinds[sc] += 1
            widest = max(widest, _type_bytes(m.group(1)) if not m.group(1).startswith("%") else 16)
        m = re.search(r"call (<\d+ x \w+>) @llvm\.masked\.(?:load|gather)", s)
        if m and any(o in derived for o in re.findall(r"%[\w.\-]+", s)):
            sc = _scalar_of(m.group(1))
            if sc:
                kinds[sc] += 2
            widest = max(widest, _type_bytes(m.group(1)))
    return kinds, widest


def _function_body(text: str, name: str) -> str:
    m = re.search(r"^define [^\n]*@" + re.escape(name) + r"\(", text, re.M)
    if not m:
        return ""
    end = text.find("\n}", m.end())
    return text[m.start() : end if end >= 0 else len(text)]


def pick_kernel(text: str, mod: llvm.ModuleRef, requested: str | None) -> str:
    """The kernel to run: requested, a RUN line's `-k`, the first spir_kernel,
    else the first defined function that does not look like a helper."""
    defined = [f.name for f in mod.functions if not f.is_declaration]
    if requested is not None:
        if requested not in defined:
            raise CaseError(f"kernel {requested!r} is not defined in the module")
        return requested
    for m in re.finditer(r"^;\s*RUN:.*?\s-k[ =]?([\w.$]+)", text, re.M):
        if m.group(1) in defined:
            return m.group(1)
    canon = str(mod)
    for m in re.finditer(r"^define [^@\n]*spir_kernel [^@\n]*@([\w.$\"]+)\(", canon, re.M):
        name = m.group(1).strip('"')
        if name in defined and not name.startswith("__vecz_"):
            return name
    for name in defined:
        if not name.startswith(("__", "llvm.")):
            return name
    raise CaseError("no kernel function found in the module")


def queried_dims(text: str) -> set[int]:
    """Dimensions the module's work-item queries ask about (all three when a
    dimension is not a constant)."""
    dims: set[int] = set()
    for m in _WI_CALL.finditer(text):
        arg = m.group(2).strip()
        if arg.isdigit():
            if int(arg) < 3:
                dims.add(int(arg))
        else:
            dims |= {0, 1, 2}
    return dims


def infer_case(case: Case, kernel: str | None = None,
               layout: Sequence[ArgSpec | str] | None = None) -> Case:
    """A runnable case for `case.ir`: the header's or the given settings where
    present, inferred ones elsewhere. Raises `CaseError` for unparsable IR."""
    initialize()
    ctx = new_context()
    try:
        mod = parse_in(ctx, strip_calling_conventions(case.ir))
        mod.verify()
    except RuntimeError as exc:
        msg = " ".join(str(exc).split())
        raise CaseError(f"invalid LLVM IR: {msg[:300]}") from None
    # Calling conventions were stripped only for parsing; `spir_kernel` must be
    # looked for in the original text.
    name = kernel or case.kernel
    if name is None:
        try:
            name = pick_kernel(case.ir, parse_in(new_context(), case.ir), None)
        except RuntimeError:
            name = pick_kernel(case.ir, mod, None)
    else:
        name = pick_kernel(case.ir, mod, name)
    canon = str(mod)
    fn = mod.get_function(name)
    params = list(fn.arguments)
    dims_used = queried_dims(canon)
    nds = case.ndranges or [parse_ndrange(n) for n in ND_1D + (ND_3D if dims_used - {0} else [])]
    items = max(nd.total for nd in nds)
    local_items = max(nd.local_size[0] * nd.local_size[1] * nd.local_size[2] for nd in nds)
    if layout is not None:
        args = [parse_arg(a) if isinstance(a, str) else a for a in layout]
    elif case.args is not None:
        args = list(case.args)
    else:
        body = _function_body(canon, name)
        args = []
        for i, a in enumerate(params):
            ty = str(a.type)
            aname = "%" + a.name if a.name else f"%{i}"
            if ty.startswith("ptr"):
                kinds, widest = pointer_uses(body, aname)
                elem = kinds.most_common(1)[0][0] if kinds else "i32"
                # Slack: 64 elements (or 4 of the widest access) per work-item
                # covers strides up to the NDRange size (quadratic indices).
                per_item = max(64, 4 * widest // _SIZES[elem])
                n_items = local_items if "addrspace(3)" in ty else items
                count = max(n_items, 64) * per_item + 4096
                kind = "local" if "addrspace(3)" in ty else "buf"
                # Integers read from a foreign kernel's buffers are often
                # indices: keep them small so they stay inside the slack.
                init = "mod64" if elem.startswith("i") else "random"
                args.append(ArgSpec(kind, elem, count, init))
            else:
                m = re.fullmatch(r"<(\d+) x (\w+)>", ty)
                lanes, sty = (int(m.group(1)), m.group(2)) if m else (1, ty)
                elem = _LLVM_TO_ELEM.get(sty)
                if elem is None or sty == "ptr":
                    raise CaseError(f"cannot infer a value for parameter {i} of type {ty}")
                if sty == "i1":
                    elem = "i8"
                value = "1.5" if elem.startswith("f") else "1"
                args.append(ArgSpec("scalar", f"{lanes}x{elem}" if lanes > 1 else elem, value=value))
    if len(args) != len(params):
        raise CaseError(f"layout has {len(args)} arguments, kernel {name} has {len(params)}")
    dims = case.dims or sorted(dims_used & {0, 1, 2}) or [0]
    return Case(
        ir=case.ir, kernel=name, args=args, ndranges=nds, widths=case.widths, dims=dims,
        choices=case.choices, seed=case.seed, origin=case.origin or "inferred layout",
        failure=case.failure, extra=case.extra, is_case=True,
    )
