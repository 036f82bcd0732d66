"""The work-group scheduler and the fiber drivers, as LLVM IR text.

Used by `oracle/workgroup.py` for modules that declare a barrier. A driver
`name(args, cfg)` has the plain drivers' contract (`oracle/runtime.py`): it
sets the NDRange state, then per group (in order, or reversed for the race
check) starts the group's fibers (`@__oracle_wg_add`: one per work-item, or
per packet and remainder work-item of a vectorized run) and runs them
(`@__oracle_wg_run_group`). The scheduler resumes every fiber that is not
done, in order, sets the work-item state to its local ids first, and checks
after each round that all of them wait at the same barrier (or all
returned); the barrier builtin (`@__oracle_wg_barrier`) records its call
site and switches back. A fault writes its message with the fibers'
local ids and is reported by `fibers`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from . import fibers
from .runtime import ARG_SLOT, CFG_SLOTS, FnSig

# Incremented at every group start and every barrier a group passes (the
# sanitizer's clock of barrier intervals; see oracle/workgroup.py).
EPOCH = "__oracle_san_epoch"

# Record of one fiber (fibers.RECORD_BYTES): status, barrier site, local ids,
# kind (which function it runs), its context, its stack's top (for the sanitizer).
_STATUS, _SITE, _LID, _KIND, _CTX, _TOP = 0, 8, 16, 40, 48, 56
RUNNABLE, WAITING, DONE = 0, 1, 2
# Waiting at a non-uniform sub-group collective, whose instance the
# scheduler closes (oracle/subgroups.py, `__oracle_nu_close`).
NUWAIT = 3
SCALAR, PACKET = 0, 1
# The reversed run's stacks start this much lower (a kernel that keeps the
# address of a private variable then computes other bytes, and is caught).
REVERSED_STACK_SHIFT = 4160
# Before a fiber starts, the top of its stack is filled with zeros, or with
# this byte in the reversed run: a kernel that reads a private variable it
# never wrote then computes other bytes in the two runs, and is caught.
# (Fresh stacks are all zeros: without it both runs would read 0.)
REVERSED_STACK_FILL = -91  # 0xA5
STACK_FILL_BYTES = 4 << 10

_FAULT_ORDER, _FAULT_SITES, _FAULT_SIZE, _FAULT_BUSY = 1, 2, 3, 4


def quote(name: str) -> str:
    """`name` as an LLVM identifier after `@` (quoted when it needs it)."""
    return name if re.fullmatch(r"[-a-zA-Z$._][-a-zA-Z$._0-9]*", name) else '"' + name + '"'


# ------------------------------------------------------------ IR builder


class _Fn:
    """Lines of one function body, with fresh names and counted loops (alloca
    counters: the runtime is compiled at the kernel's -O level, often -O0)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.allocas: list[str] = []
        self._n = 0

    def v(self, hint: str = "t") -> str:
        self._n += 1
        return f"%{hint}{self._n}"

    def label(self, hint: str) -> str:
        self._n += 1
        return f"{hint}{self._n}"

    def __call__(self, line: str) -> None:
        self.lines.append("  " + line)

    def block(self, label: str) -> None:
        self.lines.append(f"{label}:")

    def slot(self, hint: str = "s", ty: str = "i64") -> str:
        s = self.v(hint + ".slot")
        self.allocas.append(f"  {s} = alloca {ty}, align 8")
        return s

    def load(self, ty: str, ptr: str, hint: str = "t") -> str:
        v = self.v(hint)
        self(f"{v} = load {ty}, ptr {ptr}, align 8")
        return v

    def op(self, text: str, hint: str = "t") -> str:
        v = self.v(hint)
        self(f"{v} = {text}")
        return v

    def loop(self, bound: str, body: Callable[[str], None], start: str = "0", reverse: bool = False) -> None:
        """for i in [start, bound): body(i); `reverse` (start 0 only) counts down."""
        s = self.slot("i")
        head, bb, done = self.label("head"), self.label("body"), self.label("done")
        self(f"store i64 {start}, ptr {s}, align 8")
        self(f"br label %{head}")
        self.block(head)
        i = self.load("i64", s, "i")
        go = self.op(f"icmp ult i64 {i}, {bound}")
        self(f"br i1 {go}, label %{bb}, label %{done}")
        self.block(bb)
        idx = i
        if reverse:
            last = self.op(f"sub i64 {bound}, 1")
            idx = self.op(f"sub i64 {last}, {i}")
        body(idx)
        nxt = self.op(f"add i64 {i}, 1")
        self(f"store i64 {nxt}, ptr {s}, align 8")
        self(f"br label %{head}")
        self.block(done)

    def text(self, head: str) -> str:
        return head + " {\nentry:\n" + "\n".join(self.allocas + self.lines) + "\n}"


def _state(slot: int) -> str:
    return f"getelementptr ([24 x i64], ptr @__oracle_st, i64 0, i64 {slot})"


# ------------------------------------------------------------ scheduler


def enter_fiber(rec: str) -> str:
    """IR lines that make the fiber whose record `rec` points to (an IR
    value) the running work-item: its local ids into the state, the
    sanitizer's hooks (the work-item, global linear id + 1, and its stack
    top) and `@__oracle_wg_cur`. Shared by the scheduler and the sub-group
    rendezvous (oracle.subgroups), which switch to fibers directly."""
    return f"""  %p0 = getelementptr i8, ptr {rec}, i64 {_LID}
  %l0 = load i64, ptr %p0, align 8
  store i64 %l0, ptr {_state(0)}, align 8
  %p1 = getelementptr i8, ptr {rec}, i64 {_LID + 8}
  %l1 = load i64, ptr %p1, align 8
  store i64 %l1, ptr {_state(1)}, align 8
  %p2 = getelementptr i8, ptr {rec}, i64 {_LID + 16}
  %l2 = load i64, ptr %p2, align 8
  store i64 %l2, ptr {_state(2)}, align 8
  %gg0 = load i64, ptr {_state(3)}, align 8
  %gg1 = load i64, ptr {_state(4)}, align 8
  %gg2 = load i64, ptr {_state(5)}, align 8
  %ls0 = load i64, ptr {_state(6)}, align 8
  %ls1 = load i64, ptr {_state(7)}, align 8
  %ls2 = load i64, ptr {_state(8)}, align 8
  %gs0 = load i64, ptr {_state(16)}, align 8
  %gs1 = load i64, ptr {_state(17)}, align 8
  %gm0 = mul i64 %gg0, %ls0
  %gi0 = add i64 %gm0, %l0
  %gm1 = mul i64 %gg1, %ls1
  %gi1 = add i64 %gm1, %l1
  %gm2 = mul i64 %gg2, %ls2
  %gi2 = add i64 %gm2, %l2
  %lin2 = mul i64 %gi2, %gs1
  %lin1 = add i64 %lin2, %gi1
  %lin1m = mul i64 %lin1, %gs0
  %lin0 = add i64 %lin1m, %gi0
  %item = add i64 %lin0, 1
  store i64 %item, ptr @__oracle_san_item, align 8
  %ptop = getelementptr i8, ptr {rec}, i64 {_TOP}
  %top = load i64, ptr %ptop, align 8
  store i64 %top, ptr @__oracle_san_stack_hi, align 8
  store ptr {rec}, ptr @__oracle_wg_cur, align 8
"""


def scheduler_text(active_members: bool = False) -> str:
    """The scheduler, the barrier, fiber set-up and fault messages: the same
    for every driver of a module. `active_members`: the module calls
    collectives whose instances the scheduler closes (oracle/subgroups.py,
    `_nu_text`): its rounds are `_run_group_closing`'s."""
    text = _scheduler_text()
    if active_members:
        start = text.index("; Run the n fibers of one group")
        end = text.index("\n}\n", start) + 2
        text = text[:start] + _run_group_closing() + text[end:]
    return text


def _tally_fiber(rec: str, next_label: str) -> str:
    """Count the fiber at `rec` as done or waiting (remembering the first of
    each) and check that fibers of one function wait at one call site; then
    on to `next_label`. Shared by both schedulers' rounds."""
    return f"""count.done:
  %nd = load i64, ptr %ndone.slot, align 8
  %nd1 = add i64 %nd, 1
  store i64 %nd1, ptr %ndone.slot, align 8
  %fd = load ptr, ptr %fd.slot, align 8
  %fd.none = icmp eq ptr %fd, null
  %fd1 = select i1 %fd.none, ptr {rec}, ptr %fd
  store ptr %fd1, ptr %fd.slot, align 8
  br label %{next_label}
count.wait:
  %nw = load i64, ptr %nwait.slot, align 8
  %nw1 = add i64 %nw, 1
  store i64 %nw1, ptr %nwait.slot, align 8
  %fw = load ptr, ptr %fw.slot, align 8
  %fw.none = icmp eq ptr %fw, null
  %fw1 = select i1 %fw.none, ptr {rec}, ptr %fw
  store ptr %fw1, ptr %fw.slot, align 8
  ; Fibers running the same function must wait at the same call site.
  %pk = getelementptr i8, ptr {rec}, i64 {_KIND}
  %k = load i64, ptr %pk, align 8
  %refp = getelementptr [2 x ptr], ptr %first.slot, i64 0, i64 %k
  %ref = load ptr, ptr %refp, align 8
  %ref.none = icmp eq ptr %ref, null
  br i1 %ref.none, label %first.of.kind, label %compare
first.of.kind:
  store ptr {rec}, ptr %refp, align 8
  br label %{next_label}
compare:
  %sp = getelementptr i8, ptr {rec}, i64 {_SITE}
  %site = load ptr, ptr %sp, align 8
  %rsp = getelementptr i8, ptr %ref, i64 {_SITE}
  %rsite = load ptr, ptr %rsp, align 8
  %differ = icmp ne ptr %site, %rsite
  %bad = load ptr, ptr %bad.slot, align 8
  %bad.none = icmp eq ptr %bad, null
  %first.bad = and i1 %differ, %bad.none
  br i1 %first.bad, label %note.bad, label %{next_label}
note.bad:
  store ptr {rec}, ptr %bad.slot, align 8
  store ptr %ref, ptr %badref.slot, align 8
  br label %{next_label}"""

def _run_group_closing() -> str:
    """`__oracle_wg_run_group` for modules with non-uniform collectives. A
    round resumes every runnable fiber, in order (reversed: from the last),
    as long as some are: fibers switch to each other in collectives, so one
    that waits may become runnable after its turn. When none can run, the
    instances of non-uniform collectives that can close are closed
    (`@__oracle_nu_close`) and the round goes on; when none can, the fibers
    are all waiting at a barrier (released as in `_scheduler_text`) or
    returned, or it is a divergence."""
    rec = fibers.RECORDS
    home = fibers.HOME
    return f"""; Run the n fibers of one group to completion (see _run_group_closing).
; 0 when they all returned, else 1 (a fault was reported).
define internal i64 @__oracle_wg_run_group(i64 %n, i1 %rev) {{
entry:
  %j.slot = alloca i64, align 8
  %ran.slot = alloca i64, align 8
  %nwait.slot = alloca i64, align 8
  %ndone.slot = alloca i64, align 8
  %fw.slot = alloca ptr, align 8
  %fd.slot = alloca ptr, align 8
  %first.slot = alloca [2 x ptr], align 8
  %bad.slot = alloca ptr, align 8
  %badref.slot = alloca ptr, align 8
  %last = sub i64 %n, 1
  br label %round
round:
  store i64 0, ptr %j.slot, align 8
  store i64 0, ptr %ran.slot, align 8
  br label %head
head:
  %j = load i64, ptr %j.slot, align 8
  %go = icmp ult i64 %j, %n
  br i1 %go, label %body, label %passed
body:
  %jr = sub i64 %last, %j
  %f = select i1 %rev, i64 %jr, i64 %j
  %o = mul i64 %f, {fibers.RECORD_BYTES}
  %rec = getelementptr i8, ptr {rec}, i64 %o
  %st = load i64, ptr %rec, align 8
  %runnable = icmp eq i64 %st, {RUNNABLE}
  br i1 %runnable, label %resume, label %next
resume:
  store i64 1, ptr %ran.slot, align 8
{enter_fiber('%rec')}  %cp = getelementptr i8, ptr %rec, i64 {_CTX}
  %ctx = load ptr, ptr %cp, align 8
  call void @__oracle_fiber_switch(ptr {home}, ptr %ctx)
  br label %next
next:
  %j1 = add i64 %j, 1
  store i64 %j1, ptr %j.slot, align 8
  br label %head
passed:
  %ran = load i64, ptr %ran.slot, align 8
  %again = icmp ne i64 %ran, 0
  br i1 %again, label %round, label %closing
closing:
  %cl = call i64 @__oracle_nu_close(i64 %n)
  switch i64 %cl, label %stuck [ i64 0, label %tally.start
                                 i64 1, label %round ]
stuck:
  ret i64 1
tally.start:
  store i64 0, ptr %j.slot, align 8
  store i64 0, ptr %nwait.slot, align 8
  store i64 0, ptr %ndone.slot, align 8
  store ptr null, ptr %fw.slot, align 8
  store ptr null, ptr %fd.slot, align 8
  store [2 x ptr] zeroinitializer, ptr %first.slot, align 8
  store ptr null, ptr %bad.slot, align 8
  br label %t.head
t.head:
  %tj = load i64, ptr %j.slot, align 8
  %tgo = icmp ult i64 %tj, %n
  br i1 %tgo, label %t.body, label %tally
t.body:
  %tjr = sub i64 %last, %tj
  %tf = select i1 %rev, i64 %tjr, i64 %tj
  %to = mul i64 %tf, {fibers.RECORD_BYTES}
  %trec = getelementptr i8, ptr {rec}, i64 %to
  %tst = load i64, ptr %trec, align 8
  %is.done = icmp eq i64 %tst, {DONE}
  br i1 %is.done, label %count.done, label %count.wait
{_tally_fiber('%trec', 't.next')}
t.next:
  %tj1 = add i64 %tj, 1
  store i64 %tj1, ptr %j.slot, align 8
  br label %t.head
{_barrier_release(rec)}
}}"""


def _barrier_release(rec: str) -> str:
    """The end of `__oracle_wg_run_group` once a round has tallied its
    fibers: finished when all returned, a fault for one that returned while
    others wait or for barriers called from different places, else a new
    barrier interval with every fiber runnable again."""
    return f"""tally:
  %nwait = load i64, ptr %nwait.slot, align 8
  %all.done = icmp eq i64 %nwait, 0
  br i1 %all.done, label %finished, label %check.done
finished:
  ret i64 0
check.done:
  %ndone = load i64, ptr %ndone.slot, align 8
  %some.done = icmp ne i64 %ndone, 0
  br i1 %some.done, label %fault.order, label %check.sites
fault.order:
  %fdd = load ptr, ptr %fd.slot, align 8
  %fww = load ptr, ptr %fw.slot, align 8
  call void @__oracle_wg_fault(i64 {_FAULT_ORDER}, ptr %fdd, ptr %fww, i64 %n)
  ret i64 1
check.sites:
  %badr = load ptr, ptr %bad.slot, align 8
  %sites.ok = icmp eq ptr %badr, null
  br i1 %sites.ok, label %pass, label %fault.sites
fault.sites:
  %badref = load ptr, ptr %badref.slot, align 8
  call void @__oracle_wg_fault(i64 {_FAULT_SITES}, ptr %badref, ptr %badr, i64 %n)
  ret i64 1
pass:
  ; Every fiber waits at the same barrier: a new interval, all may go on.
  %ep = load i64, ptr @{EPOCH}, align 8
  %ep1 = add i64 %ep, 1
  store i64 %ep1, ptr @{EPOCH}, align 8
  store i64 0, ptr %j.slot, align 8
  br label %rel.head
rel.head:
  %r = load i64, ptr %j.slot, align 8
  %rgo = icmp ult i64 %r, %n
  br i1 %rgo, label %rel.body, label %round
rel.body:
  %ro = mul i64 %r, {fibers.RECORD_BYTES}
  %rrec = getelementptr i8, ptr {rec}, i64 %ro
  store i64 {RUNNABLE}, ptr %rrec, align 8
  %r1 = add i64 %r, 1
  store i64 %r1, ptr %j.slot, align 8
  br label %rel.head"""


def _scheduler_text() -> str:
    rec = fibers.RECORDS
    home = fibers.HOME
    return f"""
@__oracle_wg_cur = internal global ptr null, align 8
@__oracle_wg_args = internal global ptr null, align 8
{_formats()}

declare i32 @snprintf(ptr, i64, ptr, ...)

; A barrier: wait here until the scheduler lets the group pass.
define internal void @__oracle_wg_barrier(ptr %site) noinline {{
entry:
  %rec = load ptr, ptr @__oracle_wg_cur, align 8
  %none = icmp eq ptr %rec, null
  br i1 %none, label %outside, label %wait
outside:
  ; Only fiber drivers run modules with barriers: never reached.
  call void @llvm.trap()
  unreachable
wait:
  store i64 {WAITING}, ptr %rec, align 8
  %sp = getelementptr i8, ptr %rec, i64 {_SITE}
  store ptr %site, ptr %sp, align 8
  %cp = getelementptr i8, ptr %rec, i64 {_CTX}
  %ctx = load ptr, ptr %cp, align 8
  call void @__oracle_fiber_switch(ptr %ctx, ptr {home})
  ret void
}}

; The kernel returned: this fiber is done for the group.
define internal void @__oracle_wg_finish() noreturn {{
entry:
  %rec = load ptr, ptr @__oracle_wg_cur, align 8
  store i64 {DONE}, ptr %rec, align 8
  %cp = getelementptr i8, ptr %rec, i64 {_CTX}
  %ctx = load ptr, ptr %cp, align 8
  call void @__oracle_fiber_switch(ptr %ctx, ptr {home})
  call void @llvm.trap()
  unreachable
}}

; Fiber i runs entry() with local ids (l0, l1, l2).
define internal void @__oracle_wg_add(i64 %i, i64 %l0, i64 %l1, i64 %l2, i64 %kind, ptr %fn, i64 %shift, i8 %fill) {{
entry:
  %o = mul i64 %i, {fibers.RECORD_BYTES}
  %rec = getelementptr i8, ptr {rec}, i64 %o
  store i64 {RUNNABLE}, ptr %rec, align 8
  %sp = getelementptr i8, ptr %rec, i64 {_SITE}
  store ptr null, ptr %sp, align 8
  %p0 = getelementptr i8, ptr %rec, i64 {_LID}
  store i64 %l0, ptr %p0, align 8
  %p1 = getelementptr i8, ptr %rec, i64 {_LID + 8}
  store i64 %l1, ptr %p1, align 8
  %p2 = getelementptr i8, ptr %rec, i64 {_LID + 16}
  store i64 %l2, ptr %p2, align 8
  %pk = getelementptr i8, ptr %rec, i64 {_KIND}
  store i64 %kind, ptr %pk, align 8
  %ctx = call ptr @__oracle_fiber_ctx(i64 %i)
  %pc = getelementptr i8, ptr %rec, i64 {_CTX}
  store ptr %ctx, ptr %pc, align 8
  %lo = call ptr @__oracle_fiber_lo(i64 %i)
  %top = call ptr @__oracle_fiber_top(i64 %i)
  %neg = sub i64 0, %shift
  %top2 = getelementptr i8, ptr %top, i64 %neg
  ; What the kernel's frame finds before it writes it: the run's own bytes.
  %ptop = getelementptr i8, ptr %rec, i64 {_TOP}
  store ptr %top2, ptr %ptop, align 8
  %low = getelementptr i8, ptr %top2, i64 -{STACK_FILL_BYTES}
  call void @llvm.memset.p0.i64(ptr %low, i8 %fill, i64 {STACK_FILL_BYTES}, i1 false)
  call void @__oracle_fiber_start(ptr %ctx, ptr %lo, ptr %top2, ptr %fn)
  ret void
}}

define internal void @__oracle_wg_describe(ptr %buf, ptr %rec) {{
entry:
  %pk = getelementptr i8, ptr %rec, i64 {_KIND}
  %k = load i64, ptr %pk, align 8
  %isp = icmp eq i64 %k, {PACKET}
  %fmt = select i1 %isp, ptr @__oracle_wg_fmt_packet, ptr @__oracle_wg_fmt_item
  %p0 = getelementptr i8, ptr %rec, i64 {_LID}
  %l0 = load i64, ptr %p0, align 8
  %p1 = getelementptr i8, ptr %rec, i64 {_LID + 8}
  %l1 = load i64, ptr %p1, align 8
  %p2 = getelementptr i8, ptr %rec, i64 {_LID + 16}
  %l2 = load i64, ptr %p2, align 8
  %r = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %buf, i64 96, ptr %fmt, i64 %l0, i64 %l1, i64 %l2)
  ret void
}}

; Write the fault's message and report it (fibers: print and exit, or keep).
define internal void @__oracle_wg_fault(i64 %code, ptr %a, ptr %b, i64 %n) {{
entry:
  %da = alloca [96 x i8], align 8
  %db = alloca [96 x i8], align 8
  %msg = call ptr @__oracle_fiber_message()
  switch i64 %code, label %busy [ i64 {_FAULT_ORDER}, label %pair
                                  i64 {_FAULT_SITES}, label %pair
                                  i64 {_FAULT_SIZE}, label %size ]
pair:
  call void @__oracle_wg_describe(ptr %da, ptr %a)
  call void @__oracle_wg_describe(ptr %db, ptr %b)
  %g0 = load i64, ptr {_state(3)}, align 8
  %g1 = load i64, ptr {_state(4)}, align 8
  %g2 = load i64, ptr {_state(5)}, align 8
  %order = icmp eq i64 %code, {_FAULT_ORDER}
  %fmt = select i1 %order, ptr @__oracle_wg_fmt_order, ptr @__oracle_wg_fmt_sites
  %r1 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %msg, i64 {fibers.MESSAGE_BYTES}, ptr %fmt, i64 %g0, i64 %g1, i64 %g2, ptr %da, ptr %db)
  br label %report
size:
  %r2 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %msg, i64 {fibers.MESSAGE_BYTES}, ptr @__oracle_wg_fmt_size, i64 %n)
  br label %report
busy:
  %r3 = call i32 (ptr, i64, ptr, ...) @snprintf(ptr %msg, i64 {fibers.MESSAGE_BYTES}, ptr @__oracle_wg_fmt_busy)
  br label %report
report:
  call void @__oracle_fiber_fail()
  ret void
}}

; Run the n fibers of one group to completion, in order (reversed: from the
; last), a round per barrier. 0 when they all returned, else 1 (a fault was
; reported).
define internal i64 @__oracle_wg_run_group(i64 %n, i1 %rev) {{
entry:
  %j.slot = alloca i64, align 8
  %nwait.slot = alloca i64, align 8
  %ndone.slot = alloca i64, align 8
  %fw.slot = alloca ptr, align 8
  %fd.slot = alloca ptr, align 8
  %first.slot = alloca [2 x ptr], align 8
  %bad.slot = alloca ptr, align 8
  %badref.slot = alloca ptr, align 8
  %last = sub i64 %n, 1
  br label %round
round:
  store i64 0, ptr %j.slot, align 8
  store i64 0, ptr %nwait.slot, align 8
  store i64 0, ptr %ndone.slot, align 8
  store ptr null, ptr %fw.slot, align 8
  store ptr null, ptr %fd.slot, align 8
  store [2 x ptr] zeroinitializer, ptr %first.slot, align 8
  store ptr null, ptr %bad.slot, align 8
  br label %head
head:
  %j = load i64, ptr %j.slot, align 8
  %go = icmp ult i64 %j, %n
  br i1 %go, label %body, label %tally
body:
  %jr = sub i64 %last, %j
  %f = select i1 %rev, i64 %jr, i64 %j
  %o = mul i64 %f, {fibers.RECORD_BYTES}
  %rec = getelementptr i8, ptr {rec}, i64 %o
  %st = load i64, ptr %rec, align 8
  %was.done = icmp eq i64 %st, {DONE}
  br i1 %was.done, label %count.done, label %resume
resume:
  ; The work-item state is the resumed fiber's.
{enter_fiber('%rec')}  %cp = getelementptr i8, ptr %rec, i64 {_CTX}
  %ctx = load ptr, ptr %cp, align 8
  call void @__oracle_fiber_switch(ptr {home}, ptr %ctx)
  %st2 = load i64, ptr %rec, align 8
  %now.done = icmp eq i64 %st2, {DONE}
  br i1 %now.done, label %count.done, label %count.wait
{_tally_fiber('%rec', 'next')}
next:
  %j1 = add i64 %j, 1
  store i64 %j1, ptr %j.slot, align 8
  br label %head
{_barrier_release(rec)}
}}
"""


_GROUP = "barrier divergence in work-group (%lld,%lld,%lld): "
_MESSAGES = {
    "item": "work-item (%lld,%lld,%lld)",
    "packet": "the packet at local id (%lld,%lld,%lld)",
    "order": _GROUP + "%s returned from the kernel while %s waits at a barrier",
    "sites": _GROUP + "%s and %s wait at barriers called from different places",
    "size": f"a work-group of %lld fibers is more than the fiber runtime can run (at most {fibers.MAX_FIBERS})",
    "busy": "two work-group runs at once in one process (the fiber pool is busy)",
}


def _formats() -> str:
    return "\n".join(
        f'@__oracle_wg_fmt_{k} = private unnamed_addr constant [{len(m) + 1} x i8] c"{m}\\00"'
        for k, m in _MESSAGES.items()
    )


def entry_text(name: str, kernel: str, sig: FnSig, vector_fn: str | None) -> str:
    """A fiber's first function: call the kernel (or, for a packet, the
    vectorized function) with the launch's arguments, then finish."""
    f = _Fn()
    # Keep the kernel's frame clear of the few words the fiber's start left
    # at the top of its stack (the same in every run): below them, what a
    # kernel finds in a private variable it never wrote is the run's fill.
    f.allocas.append("  %pad = alloca [256 x i8], align 16")
    f("store volatile i8 0, ptr %pad, align 16")
    blob = f.load("ptr", "@__oracle_wg_args", "args")
    args = []
    for i, t in enumerate(sig.params):
        p = f.op(f"getelementptr i8, ptr {blob}, i64 {i * ARG_SLOT}")
        a = f.v("arg")
        f(f"{a} = load {t}, ptr {p}, align 1")
        args.append(f"{t} {a}")
    call_args = ", ".join(args)
    if vector_fn is None:
        f(f"call {sig.ret} @{quote(kernel)}({call_args})")
    else:
        rec = f.load("ptr", "@__oracle_wg_cur", "rec")
        kp = f.op(f"getelementptr i8, ptr {rec}, i64 {_KIND}")
        k = f.load("i64", kp, "kind")
        isp = f.op(f"icmp eq i64 {k}, {PACKET}")
        f(f"br i1 {isp}, label %packet, label %item")
        f.block("packet")
        f(f"call {sig.ret} @{quote(vector_fn)}({call_args})")
        f("br label %done")
        f.block("item")
        f(f"call {sig.ret} @{quote(kernel)}({call_args})")
        f("br label %done")
        f.block("done")
    f("call void @__oracle_wg_finish()")
    f("unreachable")
    return f.text(f"define internal void @{name}()")


def driver_text(
    name: str, entry: str, vector: tuple[int, int, bool] | None, reverse: bool, prologue: list[str],
) -> str:
    """Driver `name(args, cfg)` with the plain drivers' contract (runtime.py):
    groups in order (reversed), each one's fibers built and run to the end."""
    f = _Fn()
    c = []
    for i in range(10):
        p = f.op(f"getelementptr i64, ptr %cfg, i64 {i}")
        c.append(f.load("i64", p, "c"))
    for d in range(3):
        f(f"store i64 {c[d]}, ptr {_state(6 + d)}, align 8")
        f(f"store i64 {c[3 + d]}, ptr {_state(9 + d)}, align 8")
        f(f"store i64 {c[6 + d]}, ptr {_state(12 + d)}, align 8")
        gs = f.op(f"mul i64 {c[d]}, {c[3 + d]}")
        f(f"store i64 {gs}, ptr {_state(16 + d)}, align 8")
    f(f"store i64 {c[9]}, ptr {_state(15)}, align 8")
    from .runtime import subgroups_state

    f.lines.extend(subgroups_state(None if vector is None else ("", *vector), "%cfg"))
    f("store ptr %args, ptr @__oracle_wg_args, align 8")
    nloc = f.load("i64", f.op(f"getelementptr i64, ptr %cfg, i64 {10}"), "nloc")
    # Fibers per group.
    if vector is None:
        nf = f.op(f"mul i64 {f.op(f'mul i64 {c[0]}, {c[1]}')}, {c[2]}", "nf")
    else:
        width, dim, pred = vector
        others = [d for d in range(3) if d != dim]
        full = f.op(f"udiv i64 {c[dim]}, {width}")
        rem = f.op(f"urem i64 {c[dim]}, {width}")
        if pred:
            rem = f.op(f"zext i1 {f.op(f'icmp ne i64 {rem}, 0')} to i64")
        row = f.op(f"add i64 {full}, {rem}")
        nf = f.op(f"mul i64 {f.op(f'mul i64 {c[others[0]]}, {c[others[1]]}')}, {row}", "nf")
    ok = f.op("call i1 @__oracle_fiber_acquire()")
    f(f"br i1 {ok}, label %acquired, label %busy")
    f.block("busy")
    f(f"call void @__oracle_wg_fault(i64 {_FAULT_BUSY}, ptr null, ptr null, i64 0)")
    f("ret void")
    f.block("acquired")
    room = f.op(f"call i1 @__oracle_fiber_reserve(i64 {nf})")
    f(f"br i1 {room}, label %groups, label %too.big")
    f.block("too.big")
    f(f"call void @__oracle_wg_fault(i64 {_FAULT_SIZE}, ptr null, ptr null, i64 {nf})")
    f("br label %stop")
    f.block("groups")
    shift = REVERSED_STACK_SHIFT if reverse else 0
    fill = REVERSED_STACK_FILL if reverse else 0
    fi = f.slot("fi")

    def add(lids: list[str], kind: int) -> None:
        i = f.load("i64", fi, "fi")
        f(f"call void @__oracle_wg_add(i64 {i}, i64 {lids[0]}, i64 {lids[1]}, i64 {lids[2]}, "
          f"i64 {kind}, ptr @{entry}, i64 {shift}, i8 {fill})")
        f(f"store i64 {f.op(f'add i64 {i}, 1')}, ptr {fi}, align 8")

    def group() -> None:
        f.lines.extend(prologue)
        # Local buffers (kernel arguments) start every group zeroed.
        def zero(k: str) -> None:
            at = f.op(f"add i64 {f.op(f'shl i64 {k}, 1')}, {CFG_SLOTS}")
            pp = f.op(f"getelementptr i64, ptr %cfg, i64 {at}")
            ptr = f.load("ptr", pp, "lb")
            nb = f.load("i64", f.op(f"getelementptr i64, ptr {pp}, i64 1"), "lbn")
            f(f"call void @llvm.memset.p0.i64(ptr {ptr}, i8 0, i64 {nb}, i1 false)")
        f.loop(nloc, zero)
        f(f"store i64 0, ptr {fi}, align 8")
        if vector is None:
            f.loop(c[2], lambda l2: f.loop(c[1], lambda l1: f.loop(c[0], lambda l0: add([l0, l1, l2], SCALAR))))
        else:
            width, dim, pred = vector
            o0, o1 = [d for d in range(3) if d != dim]

            def row(a: str, b: str) -> None:
                def lids(x: str) -> list[str]:
                    out = ["0", "0", "0"]
                    out[dim], out[o0], out[o1] = x, a, b
                    return out
                bs = f.slot("b")
                head, body, done = f.label("ch.head"), f.label("ch.body"), f.label("ch.done")
                f(f"store i64 0, ptr {bs}, align 8")
                f(f"br label %{head}")
                f.block(head)
                base = f.load("i64", bs, "b")
                end = f.op(f"add i64 {base}, {width}")
                f(f"br i1 {f.op(f'icmp ule i64 {end}, {c[dim]}')}, label %{body}, label %{done}")
                f.block(body)
                add(lids(base), PACKET)
                f(f"store i64 {end}, ptr {bs}, align 8")
                f(f"br label %{head}")
                f.block(done)
                if pred:
                    more, skip = f.label("rem"), f.label("rem.done")
                    f(f"br i1 {f.op(f'icmp ult i64 {base}, {c[dim]}')}, label %{more}, label %{skip}")
                    f.block(more)
                    add(lids(base), PACKET)
                    f(f"br label %{skip}")
                    f.block(skip)
                else:
                    f.loop(c[dim], lambda r: add(lids(r), SCALAR), start=base)

            f.loop(c[o1], lambda b: f.loop(c[o0], lambda a: row(a, b)))
        res = f.op(f"call i64 @__oracle_wg_run_group(i64 {nf}, i1 {'true' if reverse else 'false'})")
        cont = f.label("group.ok")
        f(f"br i1 {f.op(f'icmp eq i64 {res}, 0')}, label %{cont}, label %stop")
        f.block(cont)

    def gdim(d: int, inner: Callable[[], None]) -> Callable[[str], None]:
        def body(g: str) -> None:
            f(f"store i64 {g}, ptr {_state(3 + d)}, align 8")
            inner()
        return body

    f.loop(c[5], gdim(2, lambda: f.loop(c[4], gdim(1, lambda: f.loop(c[3], gdim(0, group), reverse=reverse)),
                                        reverse=reverse)), reverse=reverse)
    f("br label %stop")
    f.block("stop")
    f("store ptr null, ptr @__oracle_wg_cur, align 8")
    f("call void @__oracle_fiber_release()")
    f("ret void")
    return f.text(f"define void @{name}(ptr %args, ptr %cfg)")
