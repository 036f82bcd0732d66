"""Fibers for the oracle's work-group runtime: stacks, contexts and the switch.

A fiber is a function running on its own stack that can be suspended (its
registers saved) and resumed later. The work-group scheduler
(`oracle/workgroup.py`) runs each work-item, or each packet of the
vectorized kernel, as a fiber, and a barrier switches back to it.

Everything here is LLVM IR text linked into the kernel's JIT module, plus
one process-wide control block allocated by Python and handed to the JIT as
the symbol `__oracle_fiber_pool`. The IR interface (all `internal`):

- `@__oracle_fiber_switch(ptr from, ptr to)`: save the running context in
  `from`, resume the one in `to`;
- `@__oracle_fiber_start(ptr ctx, ptr lo, ptr top, ptr entry)`: make `ctx`
  start `entry()` (a `void ()` that never returns) on the stack [lo, top);
- `@__oracle_fiber_reserve(i64 n) -> i1`: at least `n` stacks exist;
- `@__oracle_fiber_ctx/lo/top/record(i64 i) -> ptr`: fiber `i`'s context,
  stack bounds, and 64 bytes of the scheduler's own data;
- `@__oracle_fiber_home() -> ptr`: the scheduler's context;
- `@__oracle_fiber_acquire() -> i1`, `@__oracle_fiber_release()`: the pool
  is used by one run at a time;
- `@__oracle_fiber_message() -> ptr`, `@__oracle_fiber_fail()`: report the
  fault written in the message buffer (see `set_exit_on_fault`).

Two mechanisms:
- `x86-64`: a hand-written switch (naked functions with inline assembly):
  callee-saved registers, the stack pointer, MXCSR and the x87 control word,
  about ten nanoseconds a switch;
- `ucontext`: glibc's getcontext/makecontext/swapcontext, resolved from the
  process by the JIT, on other architectures (LP64 Linux; slower: each
  switch saves the signal mask with a system call).
`VECZ_ORACLE_FIBERS=ucontext` forces the fallback (it is tested on x86-64).

Stacks are mmap'd once per process and reused: STACK_BYTES each (lazily
committed, a PROT_NONE guard page at the low end, so an overflow faults),
then CTX_BYTES for the fiber's saved context. They are never unmapped:
a process keeps as many as its largest work-group needed.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import platform
from collections.abc import Callable
from dataclasses import dataclass

PAGE = mmap.PAGESIZE
STACK_BYTES = 1 << 20  # per fiber, guard page included
CTX_BYTES = 16 << 10  # saved context (a ucontext_t is 1-5 KiB on LP64 Linux)
MAX_FIBERS = 16384  # work-items (or packets + remainder items) of one group
RECORD_BYTES = 64
MESSAGE_BYTES = 512
# The status a worker exits with after a fault it printed (barrier divergence).
FAULT_EXIT_STATUS = 3

# Offsets in the control block.
_BUSY, _NSTACKS, _EXIT_ON_FAULT, _FAULTED = 0, 8, 16, 24
_MESSAGE = 256
_HOME = 4096
_STACKS = _HOME + CTX_BYTES
_RECORDS = _STACKS + 8 * MAX_FIBERS
_SAVED_SP = _RECORDS + RECORD_BYTES * MAX_FIBERS  # x86-64 contexts: one stack pointer each
_POOL_BYTES = _SAVED_SP + 8 * MAX_FIBERS
# Fiber i's stack starts (i % 256) * 64 bytes below its top: stacks are a
# power of two apart, and their hot lines would all share a few cache sets.
_COLOUR_MASK, _COLOUR_STEP = 255, 64

POOL_SYMBOL = "__oracle_fiber_pool"

# mmap flags for the stacks. Python's mmap module lacks MAP_NORESERVE; its
# value is per architecture (Linux). Without it (unknown architecture) the
# stacks are still lazily committed, only counted against strict overcommit.
_MAP_NORESERVE = {"x86_64": 0x4000, "aarch64": 0x4000, "riscv64": 0x4000, "s390x": 0x4000,
                  "ppc64le": 0x40, "ppc64": 0x40}.get(platform.machine(), 0)


def mechanism() -> str:
    """The context-switch mechanism for this process: `x86-64` or `ucontext`."""
    forced = os.environ.get("VECZ_ORACLE_FIBERS", "")
    if forced in ("x86-64", "ucontext"):
        return forced
    return "x86-64" if platform.machine() in ("x86_64", "AMD64") else "ucontext"


@dataclass
class _Pool:
    """The process-wide control block (its mapping lives as long as the process)."""

    mapping: mmap.mmap
    address: int

    def word(self, offset: int) -> ctypes.c_int64:
        return ctypes.c_int64.from_address(self.address + offset)


_POOL: _Pool | None = None


def pool() -> _Pool:
    """The control block, mapped and registered with the JIT on first use."""
    global _POOL
    if _POOL is None:
        import llvmlite.binding as llvm

        m = mmap.mmap(-1, _POOL_BYTES)
        addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
        llvm.add_symbol(POOL_SYMBOL, addr)
        _POOL = _Pool(m, addr)
        _POOL.word(_EXIT_ON_FAULT).value = 1
    return _POOL


def set_exit_on_fault(flag: bool) -> bool:
    """Choose what a fault (barrier divergence) does: print its message on
    stderr and end the process with FAULT_EXIT_STATUS (the default: the
    oracle's workers, whose parent reports the message), or return from the
    driver early with the message kept for `take_fault` (in-process callers).
    Returns the previous setting."""
    w = pool().word(_EXIT_ON_FAULT)
    old = bool(w.value)
    w.value = int(flag)
    return old


def take_fault() -> str | None:
    """The message of the fault the last run stopped at (None if it did
    not), clearing it."""
    p = pool()
    if not p.word(_FAULTED).value:
        return None
    p.word(_FAULTED).value = 0
    return ctypes.string_at(p.address + _MESSAGE).decode(errors="replace")


def abandon() -> None:
    """Free the pool after a run was left in the middle of a group (the
    sanitizer's run-time library stops a run at its first finding by a long
    jump back to the caller, out of whichever fiber made the access): the
    abandoned fibers' stacks are reused by the next run, and the pool is no
    longer busy. A no-op when no run holds the pool."""
    if _POOL is not None:
        _POOL.word(_BUSY).value = 0


def stacks_allocated() -> int:
    """How many fiber stacks this process has mapped so far."""
    return pool().word(_NSTACKS).value


# ------------------------------------------------------------------ IR text


def field(offset: int) -> str:
    """An IR constant: the address `offset` bytes into the control block."""
    return f"getelementptr (i8, ptr @{POOL_SYMBOL}, i64 {offset})"


# Where the scheduler's per-fiber records start (RECORD_BYTES each).
RECORDS = field(_RECORDS)
# The scheduler's own saved context.
HOME = field(_HOME)

_ASM_SWITCH_X86 = "\\0A".join([
    # Callee-saved state of the running context, on its own stack...
    "pushq %rbp", "pushq %rbx", "pushq %r12", "pushq %r13", "pushq %r14", "pushq %r15",
    "subq $$8, %rsp", "stmxcsr (%rsp)", "fnstcw 4(%rsp)",
    # ...its stack pointer into *from, the other's from *to...
    "movq %rsp, (%rdi)", "movq (%rsi), %rsp",
    # ...and the other's state back.
    "ldmxcsr (%rsp)", "fldcw 4(%rsp)", "addq $$8, %rsp",
    "popq %r15", "popq %r14", "popq %r13", "popq %r12", "popq %rbx", "popq %rbp",
    "retq",
])
# A new fiber's first switch `ret`s here with the entry function in r12;
# rbp = 0 ends the frame chain for debuggers. The entry never returns.
_ASM_TRAMPOLINE_X86 = "\\0A".join(["xorl %ebp, %ebp", "callq *%r12", "ud2"])


def _x86_text() -> str:
    # Initial frame at top - 80 (16-aligned, so the trampoline's call is made
    # with an aligned stack): [mxcsr, fcw] r15 r14 r13 r12 rbx rbp ret.
    return f"""
define internal void @__oracle_fiber_switch(ptr %from, ptr %to) naked noinline nounwind {{
  call void asm sideeffect "{_ASM_SWITCH_X86}", "~{{memory}}"()
  unreachable
}}

define internal void @__oracle_fiber_trampoline() naked noinline nounwind {{
  call void asm sideeffect "{_ASM_TRAMPOLINE_X86}", "~{{memory}}"()
  unreachable
}}

define internal void @__oracle_fiber_start(ptr %ctx, ptr %lo, ptr %top, ptr %fn) {{
entry:
  %fr = getelementptr i8, ptr %top, i64 -80
  ; The new fiber starts with the scheduler's floating-point environment.
  call void asm sideeffect "stmxcsr ($0)\\0Afnstcw 4($0)", "r,~{{memory}}"(ptr %fr)
  %r15 = getelementptr i8, ptr %fr, i64 8
  call void @llvm.memset.p0.i64(ptr %r15, i8 0, i64 48, i1 false)
  %r12 = getelementptr i8, ptr %fr, i64 32
  store ptr %fn, ptr %r12, align 8
  %ret = getelementptr i8, ptr %fr, i64 56
  store ptr @__oracle_fiber_trampoline, ptr %ret, align 8
  store ptr %fr, ptr %ctx, align 8
  ret void
}}
"""


def _ucontext_text() -> str:
    # glibc's ucontext_t on LP64 Linux starts {uc_flags, uc_link, uc_stack =
    # {ss_sp, ss_flags (int), ss_size}} (not MIPS, whose stack_t differs).
    return """
declare i32 @getcontext(ptr)
declare void @makecontext(ptr, ptr, i32, ...)
declare i32 @swapcontext(ptr, ptr)

define internal void @__oracle_fiber_switch(ptr %from, ptr %to) noinline {
entry:
  %r = call i32 @swapcontext(ptr %from, ptr %to)
  ret void
}

define internal void @__oracle_fiber_start(ptr %ctx, ptr %lo, ptr %top, ptr %fn) {
entry:
  %r = call i32 @getcontext(ptr %ctx)
  %link = getelementptr i8, ptr %ctx, i64 8
  store ptr null, ptr %link, align 8
  %sp = getelementptr i8, ptr %ctx, i64 16
  store ptr %lo, ptr %sp, align 8
  %fl = getelementptr i8, ptr %ctx, i64 24
  store i32 0, ptr %fl, align 8
  %loi = ptrtoint ptr %lo to i64
  %topi = ptrtoint ptr %top to i64
  %size = sub i64 %topi, %loi
  %sz = getelementptr i8, ptr %ctx, i64 32
  store i64 %size, ptr %sz, align 8
  call void (ptr, ptr, i32, ...) @makecontext(ptr %ctx, ptr %fn, i32 0)
  ret void
}
"""


def runtime_text(intrinsic: Callable[[str, str, list[str]], str]) -> str:
    """The fiber runtime's IR for this process's mechanism. `intrinsic(name,
    ret, params)` registers an intrinsic declaration with the caller (the
    runtime module declares each intrinsic once)."""
    import llvmlite.binding as llvm

    pool()  # mapped and registered before the JIT resolves the symbol
    llvm.initialize_native_asmparser()  # the x86-64 switch is inline assembly
    intrinsic("llvm.memset.p0.i64", "void", ["ptr", "i8", "i64", "i1"])
    mech = mechanism()
    prot_rw = mmap.PROT_READ | mmap.PROT_WRITE
    flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | _MAP_NORESERVE
    switch = _x86_text() if mech == "x86-64" else _ucontext_text()
    if mech == "x86-64":
        # A saved stack pointer each, side by side (the scheduler's loop
        # touches one cache line per 8 fibers, not a page each).
        ctx = f"""
define internal ptr @__oracle_fiber_ctx(i64 %i) {{
entry:
  %o = mul i64 %i, 8
  %o2 = add i64 %o, {_SAVED_SP}
  %p = getelementptr i8, ptr @{POOL_SYMBOL}, i64 %o2
  ret ptr %p
}}
"""
    else:
        # A ucontext_t just above the stack's top.
        ctx = f"""
define internal ptr @__oracle_fiber_ctx(i64 %i) {{
entry:
  %b = call ptr @__oracle_fiber_base(i64 %i)
  %p = getelementptr i8, ptr %b, i64 {STACK_BYTES}
  ret ptr %p
}}
"""
    return f"""
@{POOL_SYMBOL} = external global [{_POOL_BYTES} x i8], align 64
@__oracle_fiber_newline = private unnamed_addr constant [2 x i8] c"\\0A\\00"

declare ptr @mmap(ptr, i64, i32, i32, i32, i64)
declare i32 @mprotect(ptr, i64, i32)
declare i64 @write(i32, ptr, i64)
declare i64 @strlen(ptr)
declare void @_exit(i32) noreturn
{switch}
define internal i1 @__oracle_fiber_acquire() {{
entry:
  %b = getelementptr i8, ptr @{POOL_SYMBOL}, i64 {_BUSY}
  %old = atomicrmw xchg ptr %b, i64 1 seq_cst
  %free = icmp eq i64 %old, 0
  ret i1 %free
}}

define internal void @__oracle_fiber_release() {{
entry:
  %b = getelementptr i8, ptr @{POOL_SYMBOL}, i64 {_BUSY}
  store atomic i64 0, ptr %b seq_cst, align 8
  ret void
}}

define internal ptr @__oracle_fiber_home() {{
entry:
  %p = getelementptr i8, ptr @{POOL_SYMBOL}, i64 {_HOME}
  ret ptr %p
}}

define internal ptr @__oracle_fiber_message() {{
entry:
  %p = getelementptr i8, ptr @{POOL_SYMBOL}, i64 {_MESSAGE}
  ret ptr %p
}}

define internal ptr @__oracle_fiber_record(i64 %i) {{
entry:
  %o = mul i64 %i, {RECORD_BYTES}
  %o2 = add i64 %o, {_RECORDS}
  %p = getelementptr i8, ptr @{POOL_SYMBOL}, i64 %o2
  ret ptr %p
}}

define internal ptr @__oracle_fiber_base(i64 %i) {{
entry:
  %o = mul i64 %i, 8
  %o2 = add i64 %o, {_STACKS}
  %p = getelementptr i8, ptr @{POOL_SYMBOL}, i64 %o2
  %b = load ptr, ptr %p, align 8
  ret ptr %b
}}

define internal ptr @__oracle_fiber_lo(i64 %i) {{
entry:
  %b = call ptr @__oracle_fiber_base(i64 %i)
  %p = getelementptr i8, ptr %b, i64 {PAGE}
  ret ptr %p
}}

define internal ptr @__oracle_fiber_top(i64 %i) {{
entry:
  %b = call ptr @__oracle_fiber_base(i64 %i)
  %c = and i64 %i, {_COLOUR_MASK}
  %c2 = mul i64 %c, {_COLOUR_STEP}
  %off = sub i64 {STACK_BYTES}, %c2
  %p = getelementptr i8, ptr %b, i64 %off
  ret ptr %p
}}
{ctx}
define internal i1 @__oracle_fiber_reserve(i64 %n) {{
entry:
  %fits = icmp ule i64 %n, {MAX_FIBERS}
  br i1 %fits, label %head, label %fail
head:
  %np = getelementptr i8, ptr @{POOL_SYMBOL}, i64 {_NSTACKS}
  %have = load i64, ptr %np, align 8
  %enough = icmp uge i64 %have, %n
  br i1 %enough, label %ok, label %grow
grow:
  %m = call ptr @mmap(ptr null, i64 {STACK_BYTES + CTX_BYTES}, i32 {prot_rw}, i32 {flags}, i32 -1, i64 0)
  %mi = ptrtoint ptr %m to i64
  %mfail = icmp eq i64 %mi, -1
  br i1 %mfail, label %fail, label %guard
guard:
  %pr = call i32 @mprotect(ptr %m, i64 {PAGE}, i32 0)
  %slot.o = mul i64 %have, 8
  %slot.o2 = add i64 %slot.o, {_STACKS}
  %slot = getelementptr i8, ptr @{POOL_SYMBOL}, i64 %slot.o2
  store ptr %m, ptr %slot, align 8
  %have1 = add i64 %have, 1
  store i64 %have1, ptr %np, align 8
  br label %head
ok:
  ret i1 true
fail:
  ret i1 false
}}

; The message buffer holds a fault: print it and end the process, or keep
; it for take_fault() and return.
define internal void @__oracle_fiber_fail() {{
entry:
  %msg = call ptr @__oracle_fiber_message()
  %ep = getelementptr i8, ptr @{POOL_SYMBOL}, i64 {_EXIT_ON_FAULT}
  %e = load i64, ptr %ep, align 8
  %exit = icmp ne i64 %e, 0
  br i1 %exit, label %die, label %keep
die:
  %n = call i64 @strlen(ptr %msg)
  %w1 = call i64 @write(i32 2, ptr %msg, i64 %n)
  %w2 = call i64 @write(i32 2, ptr @__oracle_fiber_newline, i64 1)
  call void @_exit(i32 {FAULT_EXIT_STATUS})
  unreachable
keep:
  %fp = getelementptr i8, ptr @{POOL_SYMBOL}, i64 {_FAULTED}
  store i64 1, ptr %fp, align 8
  ret void
}}
"""
