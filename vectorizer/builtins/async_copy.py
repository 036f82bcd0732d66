"""Asynchronous work-group copies (OpenCL C 1.2, 6.12.10).

`async_work_group_copy(dst, src, n, event)` and
`async_work_group_strided_copy(dst, src, n, stride, event)` copy `n`
gentype elements between global and local memory (either direction);
`wait_group_events(n, events)` waits for them. Every work-item of a group
calls each with the same arguments (the specification leaves anything else
undefined), and the copy is the group's, not the work-item's.

What both sides do with them:

- **The oracle's runtime** (`definition`): each call performs the whole copy
  at once and returns its event operand; `wait_group_events` is a
  work-group barrier (oracle/workgroup.py). Every work-item (every packet in
  a vectorized run) copying the same bytes again is idempotent as long as
  nobody writes the source or the destination between the copy and the wait,
  which the specification forbids; the barrier at the wait makes every copy
  of the group complete before any work-item reads the destination, as a
  real device guarantees. Events are opaque and never read: the oracle
  lowers `target("spirv.Event")` to `ptr` (oracle/opaque_types.py).
- **The vectorizer** (`vectorizer/builtins/info.py`): both copies and the
  wait are group operations, classified like barriers: a packet calls them
  once (they must be reached by the whole group, so the barrier analysis's
  reasoning about uniform branches holds for them too), and a copy whose
  operands are not uniform across the packet is refused with a remark
  (`varying_operand_reason`), never instantiated per lane.
- `prefetch` is a no-op in the library (`library/memory.py`).
"""

from __future__ import annotations

import re

GROUP_COPIES = ("async_work_group_copy", "async_work_group_strided_copy")
GROUP_WAIT = "wait_group_events"
_NAME = re.compile(r"_Z(\d+)(async_work_group_copy|async_work_group_strided_copy|wait_group_events)")
_EVENT_SUFFIX = "9ocl_event"


def base(name: str | None) -> str | None:
    """`async_work_group_copy`, `async_work_group_strided_copy`,
    `wait_group_events` for their mangled names, else None."""
    if name is None:
        return None
    m = _NAME.match(name)
    if m is None or int(m.group(1)) != len(m.group(2)):
        return None
    return m.group(2)


def used_by(text: str) -> bool:
    """Does module text `text` call an asynchronous copy?"""
    return "async_work_group_" in text and _NAME.search(text) is not None


def is_group_copy(name: str | None) -> bool:
    """A call of one of the two asynchronous copies."""
    return base(name) in GROUP_COPIES


def is_group_operation(name: str | None) -> bool:
    """A copy or `wait_group_events`: reached once by a packet, as a barrier is."""
    return base(name) is not None


def varying_operand_reason(name: str, varying: list[int]) -> str:
    """The remark for a copy whose operands `varying` differ between the packet's work-items."""
    which = ", ".join(str(i) for i in varying)
    return (f"asynchronous work-group copy '{name}' with operand(s) {which} varying across the "
            "work-group (OpenCL requires the same arguments in every work-item)")


def element_bytes(name: str) -> tuple[int, int, int] | None:
    """(gentype size in bytes, destination address space, source address space)
    of a copy's mangled name, or None when it is not a copy OpenCL defines."""
    from .library import demangle

    b = base(name)
    if b not in GROUP_COPIES or not name.endswith(_EVENT_SUFFIX):
        return None
    d = demangle(name[: -len(_EVENT_SUFFIX)])
    if d is None:
        return None
    _, params = d
    want = 3 if b == "async_work_group_copy" else 4
    if len(params) != want or params[0].pointee is None or params[1].pointee is None:
        return None
    dst, src = params[0], params[1]
    if dst.pointee != src.pointee or {dst.addrspace, src.addrspace} != {1, 3}:
        return None
    if not src.const or any(p.pointee is not None or p.elem not in ("ulong",) for p in params[2:]):
        return None
    t = dst.pointee
    lanes = 4 if t.width == 3 else t.width
    return t.bits // 8 * lanes, dst.addrspace, src.addrspace


def definition(name: str, ret: str, params: list[str], intrinsic) -> str | None:
    """The oracle runtime's definition of a copy (LLVM IR text), events
    lowered to `ptr`; None for other names or signatures that are not the
    builtin's. `intrinsic(name, ret, params)` declares an LLVM intrinsic."""
    info = element_bytes(name)
    if info is None:
        return None
    size, dsp, ssp = info
    strided = base(name) == "async_work_group_strided_copy"
    want = [f"ptr addrspace({dsp})", f"ptr addrspace({ssp})", "i64"] + (["i64"] if strided else []) + ["ptr"]
    if ret != "ptr" or list(params) != want:
        return None
    move = f"llvm.memmove.p{dsp}.p{ssp}.i64"
    intrinsic(move, "void", [want[0], want[1], "i64", "i1"])
    sig = ", ".join(f"{t} %a{i}" for i, t in enumerate(want))
    ev = f"%a{len(want) - 1}"
    head = f'define ptr @"{name}"({sig}) {{\nentry:\n'
    if not strided:
        return (head + f"  %bytes = mul i64 %a2, {size}\n"
                f"  call void @{move}({want[0]} %a0, {want[1]} %a1, i64 %bytes, i1 false)\n"
                f"  ret ptr {ev}\n}}")
    # The global side is strided: gather into local memory, scatter out of it.
    dst_stride = "%a3" if dsp == 1 else "1"
    src_stride = "%a3" if ssp == 1 else "1"
    return (head
            + "  %none = icmp eq i64 %a2, 0\n  br i1 %none, label %done, label %loop\n"
            "loop:\n  %i = phi i64 [ 0, %entry ], [ %next, %loop ]\n"
            f"  %di = mul i64 %i, {dst_stride}\n  %si = mul i64 %i, {src_stride}\n"
            f"  %do = mul i64 %di, {size}\n  %so = mul i64 %si, {size}\n"
            f"  %dp = getelementptr i8, {want[0]} %a0, i64 %do\n"
            f"  %sp = getelementptr i8, {want[1]} %a1, i64 %so\n"
            f"  call void @{move}({want[0]} %dp, {want[1]} %sp, i64 {size}, i1 false)\n"
            "  %next = add i64 %i, 1\n  %more = icmp ult i64 %next, %a2\n"
            "  br i1 %more, label %loop, label %done\n"
            f"done:\n  ret ptr {ev}\n}}")
