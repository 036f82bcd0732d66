"""Work-groups that synchronise: barriers, local memory and the scheduler.

OpenCL: every work-item of a group reaches a barrier before any of them
passes it, and `__local` memory exists once per work-group. The oracle's
reference runs a kernel that declares a barrier builtin with fibers
(`oracle/fibers.py`): every work-item of the scalar run, and every packet
(one call of the vectorized kernel) and remainder work-item of a vectorized
run, runs on its own stack. A barrier records where it was called from and
switches back to the group's scheduler (`oracle/fiber_drivers.py`); once every fiber waits, the
scheduler lets them all pass, resuming them one by one in order (in reverse
order for the oracle's reversed race-check run). Kernels that declare no
barrier keep the runtime's plain loops (`oracle/runtime.py`), decided per
module.

Barrier divergence (a fiber returns from the kernel while another waits at
a barrier, or two fibers running the same function wait at barriers called
from different places) is the input's fault in the scalar run. The fault's
message goes to stderr and the process ends with `fibers.FAULT_EXIT_STATUS`
(the oracle's workers: the parent reports `scalar-fault`, or `vector-fault`
for a vectorized run, with that message), or is kept for
`fibers.take_fault()` (see `fibers.set_exit_on_fault`). Barriers are told
apart by their return address; a packet and a scalar remainder item run
different functions, so between them only "all waiting" is checked.

Local memory: `addrspace(3)` kernel arguments are the worker's local
buffers, zeroed at every group start (cfg slots, as before); module-level
`addrspace(3)` globals (clang's form of a `__local` array declared in a
kernel) are made external so the vectorized function, the scalar kernel and
the runtime share one copy, zeroed at every group start too. OpenCL leaves
their contents undefined; zeroing makes every run see the same.

`@__oracle_san_epoch` (i64) counts barrier intervals for the sanitizer: it
is incremented at each group's start (which also sets
`@__oracle_san_group_epoch`) and each time a group passes a barrier, in
every driver; the scheduler sets `@__oracle_san_item` and
`@__oracle_san_stack_hi` to the resumed fiber's on every switch (see the
sanitizer hooks in oracle/runtime.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import llvmlite.binding as llvm

from . import fiber_drivers, fibers
from .fiber_drivers import EPOCH, quote
from .runtime import FnSig, Unsupported, base_name

# wait_group_events: the asynchronous copies complete at the call
# (vectorizer/builtins/async_copy.py); the wait keeps its barrier.
BARRIERS = frozenset({"barrier", "work_group_barrier", "wait_group_events"})
# No-ops for a runtime that runs one work-item at a time.
FENCES = frozenset({"mem_fence", "read_mem_fence", "write_mem_fence", "atomic_work_item_fence", "mem_barrier"})



def classify(name: str) -> str | None:
    """`barrier`, `fence` or None for a declared function name."""
    base = base_name(name)
    if base in BARRIERS:
        return "barrier"
    if base in FENCES:
        return "fence"
    return None


def uses_barriers(declared: Iterable[str]) -> bool:
    """True if a module declaring these functions needs the fiber drivers."""
    return any(classify(n) == "barrier" for n in declared)


def builtin_definition(name: str, sig: FnSig, intrinsic: Callable[[str, str, list[str]], str]) -> str | None:
    """The definition of a barrier or fence builtin, None for other names.
    `intrinsic(name, ret, params)` declares an intrinsic in the runtime module."""
    kind = classify(name)
    if kind is None:
        return None
    if sig.ret != "void" or sig.varargs:
        raise Unsupported(f"{name} with signature {sig}")
    params = ", ".join(f"{t} %a{i}" for i, t in enumerate(sig.params))
    if kind == "fence":
        return f"define void @{quote(name)}({params}) {{\nentry:\n  ret void\n}}"
    intrinsic("llvm.returnaddress", "ptr", ["i32"])
    # Never inlined: its return address identifies the barrier's call site.
    return (
        f"define void @{quote(name)}({params}) noinline {{\nentry:\n"
        "  %site = call ptr @llvm.returnaddress(i32 0)\n"
        "  call void @__oracle_wg_barrier(ptr %site)\n"
        "  ret void\n}"
    )


# ------------------------------------------------------------ local memory


@dataclass(frozen=True)
class LocalGlobal:
    """A module-level `__local` variable the drivers zero at every group start."""

    name: str
    nbytes: int
    declare: bool  # False: the runtime text defines it itself (an external declaration of the input)


def is_local_memory(g: llvm.ValueRef) -> bool:
    """True for a global variable in address space 3 (OpenCL `__local`)."""
    return "addrspace(3)" in str(g.type)


def share_local_memory(mod: llvm.ModuleRef) -> None:
    """Give the module's `__local` globals external linkage: the runtime then
    reaches them by name, the vectorized variants' copies (made linkonce_odr
    when linked) merge into them, and no optimisation may assume a barrier
    call leaves them alone."""
    for i, g in enumerate(mod.global_variables):
        if g.is_declaration or not is_local_memory(g):
            continue
        if not g.name:
            g.name = f"__oracle_local{i}"
        if g.linkage in (llvm.Linkage.internal, llvm.Linkage.private):
            g.linkage = llvm.Linkage.external


def local_globals(mod: llvm.ModuleRef, target_data: llvm.TargetData) -> list[LocalGlobal]:
    """The `__local` globals of a linked kernel module. External declarations
    (Vecz's lit tests model local memory so) are defined by `oracle.jit`
    in the runtime text, so they are not declared again."""
    out = []
    for g in mod.global_variables:
        if not is_local_memory(g) or not g.name:
            continue
        if g.is_declaration and llvm.address_of_symbol(g.name):
            continue
        out.append(LocalGlobal(g.name, target_data.get_abi_size(g.global_value_type), not g.is_declaration))
    return out


def shared_text(local: Sequence[LocalGlobal], intrinsic: Callable[[str, str, list[str]], str]) -> str:
    """Globals every runtime module has: the epoch counter and declarations
    of the kernel's `__local` globals."""
    lines = []  # the epoch and the other sanitizer hooks: runtime.runtime_module
    for g in local:
        if g.declare:
            lines.append(f"@{quote(g.name)} = external addrspace(3) global [{g.nbytes} x i8], align 1")
    if local:
        intrinsic("llvm.memset.p3.i64", "void", ["ptr addrspace(3)", "i8", "i64", "i1"])
    return "\n".join(lines)


def group_prologue(local: Sequence[LocalGlobal]) -> list[str]:
    """IR lines run at every group's start, before its work-items: a new
    epoch and zeroed `__local` globals (once per driver function)."""
    lines = [
        f"  %wg.ep0 = load i64, ptr @{EPOCH}, align 8",
        "  %wg.ep1 = add i64 %wg.ep0, 1",
        f"  store i64 %wg.ep1, ptr @{EPOCH}, align 8",
        # Where this group's intervals start: an older epoch is another group's.
        "  store i64 %wg.ep1, ptr @__oracle_san_group_epoch, align 8",
    ]
    for g in local:
        lines.append(
            f"  call void @llvm.memset.p3.i64(ptr addrspace(3) @{quote(g.name)}, i8 0, i64 {g.nbytes}, i1 false)"
        )
    return lines


def runtime_text(
    kernel: str,
    kernel_sig: FnSig,
    variants: Sequence[tuple[str, str, int, int, bool]],
    local: Sequence[LocalGlobal],
    intrinsic: Callable[[str, str, list[str]], str],
    sanitized: str | None = None,
    active_members: bool = False,
) -> str:
    """The fiber runtime, the scheduler and every driver of a module with
    barriers: `__oracle_run_scalar`, `__oracle_run_scalar_reversed`, one
    per variant (driver name, vectorized function, width, dim, predicated)
    and, for the sanitized copy of the kernel `sanitized`, the runtime's
    `SANITIZED_DRIVER`, with the plain drivers' signature and cfg contract.
    `active_members`: the module has non-uniform sub-group collectives, whose
    instances the scheduler closes (oracle/subgroups.py)."""
    intrinsic("llvm.trap", "void", [])
    intrinsic("llvm.memset.p0.i64", "void", ["ptr", "i8", "i64", "i1"])
    prologue = group_prologue(local)
    parts = [fibers.runtime_text(intrinsic), fiber_drivers.scheduler_text(active_members)]
    parts.append(fiber_drivers.entry_text("__oracle_wg_entry_scalar", kernel, kernel_sig, None))
    for name, rev in (("__oracle_run_scalar", False), ("__oracle_run_scalar_reversed", True)):
        parts.append(fiber_drivers.driver_text(name, "__oracle_wg_entry_scalar", None, rev, prologue))
    if sanitized is not None:
        from .runtime import SANITIZED_DRIVER

        parts.append(fiber_drivers.entry_text("__oracle_wg_entry_sanitized", sanitized, kernel_sig, None))
        parts.append(fiber_drivers.driver_text(SANITIZED_DRIVER, "__oracle_wg_entry_sanitized", None, False,
                                               prologue))
    for dname, vfn, width, dim, pred in variants:
        entry = f"__oracle_wg_entry_{dname}"
        parts.append(fiber_drivers.entry_text(entry, kernel, kernel_sig, vfn))
        parts.append(fiber_drivers.driver_text(dname, entry, (width, dim, pred), False, prologue))
    return "\n\n".join(parts)
