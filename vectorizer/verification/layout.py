"""Data layout check: our DataLayout's struct sizes, field offsets and
alignments vs LLVM's own, through llvmlite's target data.

Every struct type of the module (named ones, and the literal ones allocas
allocate) is written into a small module of its own as the type of an
external global, parsed by LLVM, and measured with
`TargetData.get_abi_size`, `get_element_offset` and `get_abi_alignment`.
Results are remembered per (datalayout, type) for the process: a campaign's
kernels share few struct types.
"""

from __future__ import annotations

from typing import Any

from .errors import AnalysisMismatch

# What `DataLayout.parse` assumes without a datalayout string: x86-64's.
X86_64_LAYOUT = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

_CHECKED: set[tuple[str, str]] = set()


def _struct_body(ty: Any) -> str:
    inner = ", ".join(str(e) for e in ty.elements)
    return f"<{{ {inner} }}>" if ty.packed else f"{{ {inner} }}"


def _structs_of(module: Any, function: Any) -> list[Any]:
    from ..ir import instructions as I
    from ..ir import types as T

    found: dict[str, Any] = {}
    for ty in module.struct_types.values():
        if not ty.opaque:
            found[str(ty)] = ty
    if function is not None:
        for inst in function.instructions():
            ty = getattr(inst, "allocated_type", None) if isinstance(inst, I.AllocaInst) else None
            while isinstance(ty, T.ArrayType):
                ty = ty.element
            if isinstance(ty, T.StructType) and not ty.opaque:
                found.setdefault(str(ty), ty)
    return list(found.values())


def check_data_layout(module: Any, function: Any, layout: Any, datalayout: str | None) -> None:
    """Each struct's alloc size, ABI alignment and field offsets, ours vs LLVM's."""
    import llvmlite.binding as llvm

    text = datalayout or X86_64_LAYOUT
    todo = [ty for ty in _structs_of(module, function) if (text, str(ty)) not in _CHECKED]
    if not todo:
        return
    fname = getattr(function, "name", "?")
    defs = [f"{str(ty)} = type {_struct_body(ty)}" for ty in module.struct_types.values()
            if ty.name and not ty.opaque]
    opaque = [f"{str(ty)} = type opaque" for ty in module.struct_types.values() if ty.name and ty.opaque]
    globs = [f"@__vecz_layout_{i} = external global {str(ty)}" for i, ty in enumerate(todo)]
    src = f'target datalayout = "{text}"\n' + "\n".join(defs + opaque + globs) + "\n"
    try:
        mod = llvm.parse_assembly(src)
    except RuntimeError:
        return  # a type LLVM cannot read back from our spelling: nothing to compare with
    td = llvm.create_target_data(text)
    for i, ty in enumerate(todo):
        ref = mod.get_global_variable(f"__vecz_layout_{i}").global_value_type
        try:
            ours_size = layout.alloc_size(ty)
            ours_align = layout.abi_align(ty)
            ours_offsets = [layout.field_offset(ty, k) for k in range(len(ty.elements))]
        except Exception as exc:  # noqa: BLE001 - the checked analysis crashing is its defect
            raise AnalysisMismatch("DataLayout", fname, f"{ty}: raised {type(exc).__name__}: {exc}") from exc
        want_size = td.get_abi_size(ref)
        if ours_size != want_size:
            raise AnalysisMismatch("DataLayout", fname, f"{ty}: size {ours_size}, LLVM says {want_size}")
        want_align = td.get_abi_alignment(ref)
        if ours_align != want_align:
            raise AnalysisMismatch("DataLayout", fname, f"{ty}: alignment {ours_align}, LLVM says {want_align}")
        for k, off in enumerate(ours_offsets):
            want = td.get_element_offset(ref, k)
            if off != want:
                raise AnalysisMismatch("DataLayout", fname, f"{ty}: field {k} at offset {off}, LLVM says {want}")
        _CHECKED.add((text, str(ty)))
