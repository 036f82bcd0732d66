"""What a barrier costs in the oracle's work-group runtime.

    python -m oracle.barrier_cost [--local 256] [--barriers 2000] [--groups 4]
        [--width 8] [--opt 0] [--mechanism x86-64|ucontext] [--repeat 5]

Runs a kernel whose work-items loop over `--barriers` barriers, and the same
kernel with an empty call in place of the barrier (which runs on the plain
work-item loops), in this process. The difference, divided by the barriers
each fiber passed, is the cost of one barrier per fiber: two context
switches (into the fiber and back to the scheduler) and the scheduler's
bookkeeping. The same with no barrier passed gives what starting and
ending a fiber costs (its stack's top is filled, its context made). Packets: the same with the kernel standing in as a W-wide
vectorized function (the driver makes one fiber per W work-items). Prints
the best of `--repeat` runs, in CPU time of the running thread (the
machine may be shared). A measurement, not a test.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import sys
import time

_KERNEL = """
declare void @{callee}(i32)

define spir_kernel void @spin(ptr addrspace(1) %out, i32 %n) {{
entry:
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %i1, %body ]
  %go = icmp ult i32 %i, %n
  br i1 %go, label %body, label %done
body:
  call void @{callee}(i32 1)
  %i1 = add i32 %i, 1
  br label %head
done:
  store i32 %n, ptr addrspace(1) %out, align 4
  ret void
}}
"""
# Stands in for the barrier in the baseline: a call to an empty function.
_NOP = '\ndefine void @nop(i32 %f) noinline {\n  call void asm sideeffect "", ""()\n  ret void\n}\n'


def _measure(text: str, local: int, groups: int, barriers: int, vector_width: int | None,
             opt: int, repeat: int) -> float:
    from . import fibers, jit, runtime

    variants = []
    if vector_width:
        variants = [jit.Variant("v", "spin", text, vector_width, 0, False)]
    prog = jit.build("spin", text, variants, opt)
    out = (ctypes.c_int32 * 4)()
    blob = (ctypes.c_uint8 * (2 * runtime.ARG_SLOT))()
    ctypes.memmove(blob, ctypes.byref(ctypes.c_uint64(ctypes.addressof(out))), 8)
    ctypes.memmove(ctypes.addressof(blob) + runtime.ARG_SLOT, ctypes.byref(ctypes.c_int32(barriers)), 4)
    cfg = (ctypes.c_uint64 * runtime.CFG_SLOTS)()
    cfg[0], cfg[1], cfg[2] = local, 1, 1
    cfg[3], cfg[4], cfg[5] = groups, 1, 1
    cfg[9] = 1
    old = fibers.set_exit_on_fault(False)
    try:
        best = float("inf")
        for _ in range(repeat):
            # CPU time of this thread: the machine may be shared.
            t0 = time.thread_time()
            prog.run("v" if vector_width else "", ctypes.addressof(blob), ctypes.addressof(cfg))
            best = min(best, time.thread_time() - t0)
            fault = fibers.take_fault()
            if fault:
                raise RuntimeError(fault)
    finally:
        fibers.set_exit_on_fault(old)
    return best


def main(argv: list[str] | None = None) -> int:
    """Entry point: print the cost of a barrier per fiber (scalar work-items
    and W-wide packets)."""
    p = argparse.ArgumentParser(prog="python -m oracle.barrier_cost", description=__doc__.split("\n")[0])
    p.add_argument("--local", type=int, default=256, help="work-items per group")
    p.add_argument("--groups", type=int, default=4)
    p.add_argument("--barriers", type=int, default=2000, help="barriers each work-item passes")
    p.add_argument("--width", type=int, default=8, help="packet width for the packet measurement")
    p.add_argument("--opt", type=int, default=0, choices=range(4), help="JIT -O level (the oracle's default: 0)")
    p.add_argument("--mechanism", choices=("x86-64", "ucontext"), help="force a context-switch mechanism")
    p.add_argument("--repeat", type=int, default=5)
    ns = p.parse_args(argv)
    if ns.mechanism:
        os.environ["VECZ_ORACLE_FIBERS"] = ns.mechanism
    from . import fibers

    barrier_text = _KERNEL.format(callee="_Z7barrierj")
    plain_text = _KERNEL.format(callee="nop").replace("declare void @nop(i32)\n", "") + _NOP
    print(f"mechanism {fibers.mechanism()}, -O{ns.opt}, {ns.groups} groups of {ns.local} work-items, "
          f"{ns.barriers} barriers each")
    for label, width in (("work-item", None), (f"packet (W={ns.width})", ns.width)):
        fibers_per_group = ns.local if width is None else -(-ns.local // width)
        t_bar = _measure(barrier_text, ns.local, ns.groups, ns.barriers, width, ns.opt, ns.repeat)
        t_nop = _measure(plain_text, ns.local, ns.groups, ns.barriers, width, ns.opt, ns.repeat)
        # The same kernel passing no barrier: what starting and ending a
        # fiber costs (once per work-item, or packet, per group).
        s_bar = _measure(barrier_text, ns.local, ns.groups, 0, width, ns.opt, ns.repeat)
        s_nop = _measure(plain_text, ns.local, ns.groups, 0, width, ns.opt, ns.repeat)
        starts = ns.groups * fibers_per_group
        passes = starts * ns.barriers
        barrier = ((t_bar - t_nop) - (s_bar - s_nop)) / passes
        print(f"  per {label}: {barrier * 1e9:7.1f} ns a barrier, {(s_bar - s_nop) / starts * 1e9:7.1f} ns "
              f"a fiber's start and end ({t_bar * 1e3:.1f} ms with barriers, {t_nop * 1e3:.1f} ms with an empty call)")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
