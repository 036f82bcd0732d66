"""Work-item loops: running a kernel with barriers as plain loops, the way
PoCL and the oneAPI Construction Kit run work-groups on a CPU.

A kernel with barriers cannot be called once per work-item: every work-item
of the group must reach a barrier before any passes it. Instead of giving
each work-item a stack of its own (the fibers of `oracle.fibers`), the
kernel is cut at its barriers into regions, and the group runs region after
region, each as one loop over the work-items (or over the packets of a
vectorized kernel). This module makes the one function all those loops
call:

    <kernel>.wil(<kernel's arguments>, ptr %frame, i64 %item, i64 %items, i32 %resume) -> i32

It starts at resume point `%resume` (0: the kernel's entry, k: just after
barrier k), runs until the next barrier and returns that barrier's number,
or -1 when the work-item has finished the kernel. A group is done when a
region returns -1 for every item; items returning different numbers reached
different barriers (barrier divergence, the input's fault).

What a work-item keeps across a barrier lives in its frame:
- every `alloca` (private variables and arrays) becomes a frame slot;
- an SSA value used where its definition no longer dominates the use
  (after a resume point) is stored to a frame slot where it is defined and
  loaded where it is used; a value that is cheap to recompute from the
  arguments, constants and work-item queries is recomputed instead, so the
  work-item id stays visible to LLVM as the loop's induction variable.
Frames are laid out as a structure of arrays over the items: slot k of item
i is at `frame + off_k * items + i * size_k`, so consecutive items touch
consecutive memory and LLVM's LoopVectorize can widen the loops.

The driver that loops the regions calls `<kernel>.wil` with a constant
`%resume` in each region's loop; once it is inlined there (it is
`alwaysinline`), the dispatch switch folds and each loop holds only its
region's code. This is the benchmark's baseline for barrier kernels (LLVM's
LoopVectorize on PoCL's work-item loops) and the way our vectorized barrier
kernels run there (loops over packets). The oracle's reference does not use
it: it runs barriers with fibers, a mechanism that shares nothing with this
transformation, so each can check the other.
"""

from __future__ import annotations

from dataclasses import dataclass

from vectorizer.analysis.data_layout import DataLayout
from vectorizer.analysis.dominance import DominatorTree
from vectorizer.ir import instructions as I
from vectorizer.ir import types as T
from vectorizer.ir import values as V
from vectorizer.ir.builder import Builder
from vectorizer.ir.cloning import clone_function
from vectorizer.ir.module import BasicBlock, Function, Module

EXIT = -1
SUFFIX = ".wil"


class WorkItemLoopsError(Exception):
    """The kernel cannot be cut at its barriers (say why)."""


def is_barrier(name: str | None) -> bool:
    """Work-group barriers: OpenCL's `barrier`/`work_group_barrier` (SPIR
    mangled) and the `__mux_work_group_barrier` of the oneAPI Construction Kit."""
    if not name:
        return False
    return name.startswith(("_Z7barrier", "_Z18work_group_barrier")) or name == "__mux_work_group_barrier"


@dataclass
class Slot:
    """A frame slot: per-item bytes and alignment, and its offset in the
    per-item layout (multiplied by the item count in the frame)."""

    size: int
    align: int
    offset: int = 0


@dataclass
class WorkItemLoops:
    """The result of `split_at_barriers` for one kernel."""

    function: Function  # <kernel>.wil
    barriers: int  # resume points 1..barriers
    frame_bytes_per_item: int  # frame size = this * items (+ alignment slack)
    spilled: int  # SSA values kept in the frame across barriers
    rematerialized: int  # SSA values recomputed after resume points instead


def _barrier_calls(fn: Function) -> list[I.CallInst]:
    out = []
    for inst in fn.instructions():
        if isinstance(inst, I.CallInst):
            callee = inst.called_function
            if callee is not None and is_barrier(callee.name):
                out.append(inst)
            elif callee is not None and not callee.is_declaration and _calls_barrier(callee, set()):
                raise WorkItemLoopsError(
                    f"'{callee.name}' calls a barrier: inline it into the kernel first"
                )
    return out


def _calls_barrier(fn: Function, seen: set[int]) -> bool:
    if id(fn) in seen:
        return False
    seen.add(id(fn))
    for inst in fn.instructions():
        if isinstance(inst, I.CallInst) and inst.called_function is not None:
            callee = inst.called_function
            if is_barrier(callee.name) or (not callee.is_declaration and _calls_barrier(callee, seen)):
                return True
    return False


def _strip_debug(fn: Function) -> None:
    # The region function is a new function: the kernel's debug locations
    # would name the kernel's subprogram, which the verifier rejects.
    for inst in fn.instructions():
        inst.metadata = [(k, t) for k, t in inst.metadata if k != "dbg"]
        inst.debug_records = []
    fn.metadata = [(k, t) for k, t in fn.metadata if k != "dbg"]


def _is_work_item_query(v: V.Value) -> bool:
    if not isinstance(v, I.CallInst) or v.called_function is None:
        return False
    from vectorizer.builtins.work_item import work_item_query

    return work_item_query(v.called_function.name or "") is not None and all(
        isinstance(a, (V.Constant, V.Argument)) for a in v.args
    )


_REMAT_TYPES = (I.BinaryOperator, I.CastInst, I.ICmpInst, I.GetElementPtrInst, I.SelectInst)


def _rematerializable(v: V.Value, dispatch: BasicBlock, depth: int = 0) -> bool:
    """Cheap to recompute anywhere: built from arguments, constants, frame
    addresses and work-item queries by a few pure instructions (no loads,
    no phis)."""
    if isinstance(v, (V.Constant, V.Argument)):
        return True
    if isinstance(v, I.Instruction) and v.parent is dispatch:
        return True  # a frame address: dominates everything
    if depth > 6 or not isinstance(v, I.Instruction):
        return False
    if _is_work_item_query(v):
        return True
    if isinstance(v, I.BinaryOperator) and v.opcode in ("sdiv", "udiv", "srem", "urem"):
        return False  # may trap where the original did not run
    if isinstance(v, _REMAT_TYPES):
        return all(_rematerializable(op, dispatch, depth + 1) for op in v.operands)
    return False


class _Splitter:
    def __init__(self, module: Module, kernel: Function, layout: DataLayout) -> None:
        self.module = module
        self.kernel = kernel
        self.layout = layout
        self.slots: list[Slot] = []
        self.next_offset = 0

    def slot(self, size: int, align: int) -> Slot:
        align = max(1, align)
        off = -(-self.next_offset // align) * align
        s = Slot(size, align, off)
        self.next_offset = off + size
        self.slots.append(s)
        return s

    def run(self) -> WorkItemLoops:
        kernel = self.kernel
        if not isinstance(kernel.return_type, T.VoidType):
            raise WorkItemLoopsError(f"kernel '{kernel.name}' returns a value")
        barriers = _barrier_calls(kernel)
        fn = self._new_function()
        _strip_debug(fn)
        self.frame, self.item, self.items, self.resume = fn.args[-4:]
        entry = fn.entry
        for inst in list(fn.instructions()):
            if isinstance(inst, I.ReturnInst):
                Builder().position_before(inst).ret(V.const_int(T.i32, EXIT))
                inst.erase_from_parent()
        resumes = self._cut(fn, _barrier_calls(fn))
        assert len(resumes) == len(barriers)
        dispatch = fn.add_block("wil.dispatch", before=entry)
        cases = [(V.const_int(T.i32, k + 1), r) for k, r in enumerate(resumes)]
        switch = Builder(dispatch).switch(self.resume, entry, cases)
        self.dispatch = dispatch
        self.builder = Builder().position_before(switch)
        self._frame_allocas(fn)
        spilled, remat = self._repair_ssa(fn)
        total = -(-self.next_offset // 16) * 16
        return WorkItemLoops(fn, len(barriers), total, spilled, remat)

    def _new_function(self) -> Function:
        k = self.kernel
        params = [*k.function_type.params, T.ptr, T.i64, T.i64, T.i32]
        fty = T.FunctionType(T.i32, params)
        name = (k.name or "kernel") + SUFFIX
        if self.module.get_function(name) is not None:
            raise WorkItemLoopsError(f"'{name}' already exists in the module")
        tmp, _ = clone_function(k, name + ".tmp")
        fn = self.module.add_function(name, fty)
        fn.attributes = ""
        for a, na in zip(tmp.args, fn.args, strict=False):
            na.name = a.name
            a.replace_all_uses_with(na)
        for extra, name_ in zip(fn.args[len(tmp.args):], ("wil.frame", "wil.item", "wil.items", "wil.resume"),
                                strict=True):
            extra.name = name_
        fn.args[len(tmp.args)].attributes = "noalias"
        for b in list(tmp.blocks):
            b.remove_from_parent()
            fn.append_block(b)
        tmp.erase_from_parent()
        return fn

    def _slot_address(self, slot: Slot, name: str) -> V.Value:
        """`frame + off * items + item * size`, computed in the dispatch block."""
        b = self.builder
        base = b.mul(self.items, V.const_int(T.i64, slot.offset)) if slot.offset else None
        idx = b.mul(self.item, V.const_int(T.i64, slot.size))
        off = b.add(base, idx) if base is not None else idx
        return b.gep(T.i8, self.frame, [off], flags=("inbounds",), name=name)

    def _frame_allocas(self, fn: Function) -> None:
        for inst in list(fn.instructions()):
            if not isinstance(inst, I.AllocaInst):
                continue
            count = 1
            if inst.count is not None:
                if not isinstance(inst.count, V.ConstantInt):
                    raise WorkItemLoopsError("a private array of run-time size")
                count = inst.count.unsigned
            if inst.addrspace != 0:
                raise WorkItemLoopsError(f"an alloca in address space {inst.addrspace}")
            size = self.layout.alloc_size(inst.allocated_type) * count
            align = max(inst.align or 1, self.layout.abi_align(inst.allocated_type))
            addr = self._slot_address(self.slot(max(size, 1), align), (inst.name or "priv") + ".frame")
            inst.replace_all_uses_with(addr)
            inst.erase_from_parent()

    def _cut(self, fn: Function, barriers: list[I.CallInst]) -> list[BasicBlock]:
        """End the block at each barrier with `ret i32 k`; return the resume blocks."""
        resumes = []
        for k, call in enumerate(barriers, 1):
            block = call.parent
            nxt = block.instructions[block.index_of(call) + 1]
            cont = block.split_before(nxt, name=f"wil.resume{k}")
            term = block.terminator
            Builder().position_before(term).ret(V.const_int(T.i32, k))
            term.erase_from_parent()
            call.erase_from_parent()
            resumes.append(cont)
        return resumes

    def _repair_ssa(self, fn: Function) -> tuple[int, int]:
        dom = DominatorTree(fn)
        broken: list[tuple[I.Instruction, list[V.Use]]] = []
        for inst in fn.instructions():
            if inst.parent is self.dispatch:
                continue
            bad = []
            for u in inst.uses:
                user = u.user
                if not isinstance(user, I.Instruction):
                    continue
                if isinstance(user, I.PhiNode):
                    if u.index % 2:
                        continue  # the block operand
                    ok = dom.dominates_use(inst, user, incoming_block=user.operands[u.index + 1])
                else:
                    ok = dom.dominates_use(inst, user)
                if not ok:
                    bad.append(u)
            if bad:
                broken.append((inst, bad))
        spilled = remat = 0
        for inst, uses in broken:
            if _rematerializable(inst, self.dispatch):
                for u in uses:
                    self._recompute_at(inst, u, dom)
                remat += 1
            else:
                self._spill(inst, uses)
                spilled += 1
        return spilled, remat

    def _use_point(self, u: V.Use) -> Builder:
        user = u.user
        if isinstance(user, I.PhiNode):
            pred = user.operands[u.index + 1]
            return Builder().position_before(pred.terminator)
        return Builder().position_before(user)

    def _recompute_at(self, inst: I.Instruction, u: V.Use, dom: DominatorTree) -> None:
        b = self._use_point(u)
        memo: dict[int, V.Value] = {}

        def copy(v: V.Value) -> V.Value:
            if not isinstance(v, I.Instruction) or v.parent is self.dispatch:
                return v
            if id(v) in memo:
                return memo[id(v)]
            c = v.clone()
            for k, op in enumerate(v.operands):
                if isinstance(op, I.Instruction):
                    c.set_operand(k, copy(op))
            b.insert(c, name=(v.name + ".remat") if v.name else None)
            memo[id(v)] = c
            return c

        u.user.set_operand(u.index, copy(inst))

    def _spill(self, inst: I.Instruction, uses: list[V.Use]) -> None:
        ty = inst.type
        slot = self.slot(self.layout.store_size(ty), self.layout.abi_align(ty))
        addr = self._slot_address(slot, (inst.name or "v") + ".spill")
        block = inst.parent
        if isinstance(inst, I.PhiNode):
            after = block.first_non_phi
            Builder().position_before(after).store(inst, addr)
        else:
            Builder().position_after(inst).store(inst, addr)
        for u in uses:
            load = self._use_point(u).load(ty, addr, name=(inst.name or "v") + ".reload")
            u.user.set_operand(u.index, load)


def split_at_barriers(module: Module, kernel: Function, layout: DataLayout | None = None) -> WorkItemLoops:
    """Add `<kernel>.wil` to `module` (the kernel itself is left as it is)."""
    layout = layout or DataLayout.parse(module.data_layout)
    return _Splitter(module, kernel, layout).run()



# --------------------------------------------------------------------------
# The driver: groups, then regions, each a loop over the items (or packets).

DIVERGENCE_FLAG = "__oracle_wil_divergence"


def _quote(name: str) -> str:
    import re

    return name if re.fullmatch(r"[-a-zA-Z$._][-a-zA-Z$._0-9]*", name) else '"' + name + '"'


class _Text:
    """IR text with fresh local names and counted loops over alloca'd counters
    (mem2reg removes the counters; the generator needs no phi bookkeeping)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.n = 0
        self.slots: list[str] = []

    def fresh(self, stem: str) -> str:
        self.n += 1
        return f"%{stem}.{self.n}"

    def emit(self, line: str) -> None:
        self.lines.append("  " + line)

    def label(self, name: str) -> None:
        self.lines.append(f"{name}:")

    def state(self, slot: int | str, value: str) -> None:
        p = self.fresh("st")
        self.emit(f"{p} = getelementptr [24 x i64], ptr @__oracle_st, i64 0, i64 {slot}")
        self.emit(f"store i64 {value}, ptr {p}, align 8")

    def loop(self, var: str, bound: str, body) -> None:
        """for var in [0, bound): body(var value) — `body` emits into self."""
        slot, head, go, exit_ = f"%{var}.slot", f"{var}.head", f"{var}.body", f"{var}.exit"
        self.slots.append(slot)
        self.emit(f"store i64 0, ptr {slot}, align 8")
        self.emit(f"br label %{head}")
        self.label(head)
        v = f"%{var}"
        self.emit(f"{v} = load i64, ptr {slot}, align 8")
        self.emit(f"%{var}.go = icmp ult i64 {v}, {bound}")
        self.emit(f"br i1 %{var}.go, label %{go}, label %{exit_}")
        self.label(go)
        body(v)
        self.emit(f"%{var}.next = add i64 {v}, 1")
        self.emit(f"store i64 %{var}.next, ptr {slot}, align 8")
        self.emit(f"br label %{head}")
        self.label(exit_)


def driver_text(name: str, wil: str, params: list[str], barriers: int, frame_bytes_per_item: int,
                width: int = 1, dim: int = 0, arg_slot: int = 64, cfg_slots: int = 16) -> str:
    """A driver `void @name(ptr %args, ptr %cfg)` with the oracle runtime's
    calling convention (argument blob, cfg slots: local sizes, group counts,
    offsets, work dim, local buffers) that runs every group region by region.

    `width` > 1: `wil` is a vectorized kernel's region function; each item is
    a packet of `width` work-items along `dim`, whose local size must be a
    multiple of `width` (the caller checks). Barrier divergence sets
    `@__oracle_wil_divergence` and abandons the run."""
    t = _Text()
    t.lines.append(f"define void @{_quote(name)}(ptr %args, ptr %cfg) {{")
    t.label("entry")
    t.emit("%resume.slot = alloca i32, align 4")
    t.emit("%first.slot = alloca i32, align 4")
    t.emit("%ok.slot = alloca i1, align 1")
    for i, ty in enumerate(params):
        t.emit(f"%argp{i} = getelementptr i8, ptr %args, i64 {i * arg_slot}")
        t.emit(f"%arg{i} = load {ty}, ptr %argp{i}, align 1")
    for i in range(11):
        t.emit(f"%cp{i} = getelementptr i64, ptr %cfg, i64 {i}")
        t.emit(f"%c{i} = load i64, ptr %cp{i}, align 8")
    for d in range(3):
        t.state(6 + d, f"%c{d}")
        t.state(9 + d, f"%c{3 + d}")
        t.state(12 + d, f"%c{6 + d}")
        t.emit(f"%gs{d} = mul i64 %c{d}, %c{3 + d}")
        t.state(16 + d, f"%gs{d}")
    t.state(15, "%c9")
    # Item space: dims in order (dim first, then the two others), the first
    # one counted in packets.
    order = [dim] + [d for d in range(3) if d != dim]
    t.emit(f"%n0 = udiv i64 %c{order[0]}, {width}")
    t.emit(f"%n01 = mul i64 %n0, %c{order[1]}")
    t.emit(f"%items = mul i64 %n01, %c{order[2]}")
    t.emit(f"%fbytes = mul i64 %items, {max(frame_bytes_per_item, 16)}")
    t.emit("%fbytes.pad = add i64 %fbytes, 64")
    t.emit("%frame.raw = call ptr @malloc(i64 %fbytes.pad)")
    t.emit("%frame.int = ptrtoint ptr %frame.raw to i64")
    t.emit("%frame.up = add i64 %frame.int, 63")
    t.emit("%frame.al = and i64 %frame.up, -64")
    t.emit("%frame.off = sub i64 %frame.al, %frame.int")
    t.emit("%frame = getelementptr i8, ptr %frame.raw, i64 %frame.off")
    args = ", ".join(f"{ty} %arg{i}" for i, ty in enumerate(params))

    def region(k: int) -> None:
        t.emit("store i32 -2, ptr %first.slot, align 4")
        t.emit("store i1 true, ptr %ok.slot, align 1")
        outer_vals: dict[str, str] = {}

        def inner(v0: str) -> None:
            base = t.fresh("b")
            t.emit(f"{base} = mul i64 {v0}, {width}")
            t.state(order[0], base)
            t.emit(f"%it.{k}.a = mul i64 {outer_vals['l2']}, %c{order[1]}")
            t.emit(f"%it.{k}.b = add i64 %it.{k}.a, {outer_vals['l1']}")
            t.emit(f"%it.{k}.c = mul i64 %it.{k}.b, %n0")
            t.emit(f"%it.{k} = add i64 %it.{k}.c, {v0}")
            t.emit(f"%ret.{k} = call i32 @{_quote(wil)}({args}{', ' if args else ''}ptr %frame, i64 %it.{k}, "
                   f"i64 %items, i32 {k})")
            t.emit(f"%f.{k} = load i32, ptr %first.slot, align 4")
            t.emit(f"%isfirst.{k} = icmp eq i32 %f.{k}, -2")
            t.emit(f"%f2.{k} = select i1 %isfirst.{k}, i32 %ret.{k}, i32 %f.{k}")
            t.emit(f"store i32 %f2.{k}, ptr %first.slot, align 4")
            t.emit(f"%same.{k} = icmp eq i32 %ret.{k}, %f2.{k}")
            t.emit(f"%ok.{k} = load i1, ptr %ok.slot, align 1")
            t.emit(f"%ok2.{k} = and i1 %ok.{k}, %same.{k}")
            t.emit(f"store i1 %ok2.{k}, ptr %ok.slot, align 1")

        def mid(v1: str) -> None:
            outer_vals["l1"] = v1
            t.state(order[1], v1)
            t.loop(f"r{k}.l0", "%n0", inner)

        def outer(v2: str) -> None:
            outer_vals["l2"] = v2
            t.state(order[2], v2)
            t.loop(f"r{k}.l1", f"%c{order[1]}", mid)

        t.loop(f"r{k}.l2", f"%c{order[2]}", outer)

    def group_body() -> None:
        # Local buffers start every group zeroed (as in the oracle's drivers).
        def reset(kv: str) -> None:
            t.emit(f"%kp2.{t.n} = shl i64 {kv}, 1")
            i0 = f"%kp2.{t.n}"
            t.emit(f"%kpi.{t.n} = add i64 {i0}, {cfg_slots}")
            i1 = f"%kpi.{t.n}"
            pp, ptr_, bp, by = t.fresh("kpp"), t.fresh("kptr"), t.fresh("kbp"), t.fresh("kbytes")
            t.emit(f"{pp} = getelementptr i64, ptr %cfg, i64 {i1}")
            t.emit(f"{ptr_} = load ptr, ptr {pp}, align 8")
            t.emit(f"{bp} = getelementptr i64, ptr {pp}, i64 1")
            t.emit(f"{by} = load i64, ptr {bp}, align 8")
            t.emit(f"call void @llvm.memset.p0.i64(ptr {ptr_}, i8 0, i64 {by}, i1 false)")

        t.loop("k", "%c10", reset)
        t.emit("store i32 0, ptr %resume.slot, align 4")
        t.emit("br label %rg.head")
        t.label("rg.head")
        t.emit("%resume = load i32, ptr %resume.slot, align 4")
        cases = " ".join(f"i32 {k}, label %rg.{k}" for k in range(barriers + 1))
        t.emit(f"switch i32 %resume, label %rg.done [ {cases} ]")
        for k in range(barriers + 1):
            t.label(f"rg.{k}")
            region(k)
            t.emit("br label %rg.check")
        t.label("rg.check")
        t.emit("%okf = load i1, ptr %ok.slot, align 1")
        t.emit("br i1 %okf, label %rg.next, label %rg.diverged")
        t.label("rg.diverged")
        t.emit(f"store i32 1, ptr @{DIVERGENCE_FLAG}, align 4")
        t.emit("br label %out")
        t.label("rg.next")
        t.emit("%nxt = load i32, ptr %first.slot, align 4")
        t.emit("store i32 %nxt, ptr %resume.slot, align 4")
        t.emit("br label %rg.head")
        t.label("rg.done")

    def g0(v: str) -> None:
        t.state(3, v)
        group_body()

    def g1(v: str) -> None:
        t.state(4, v)
        t.loop("g0", "%c3", g0)

    def g2(v: str) -> None:
        t.state(5, v)
        t.loop("g1", "%c4", g1)

    t.loop("g2", "%c5", g2)
    t.emit("br label %out")
    t.label("out")
    t.emit("call void @free(ptr %frame.raw)")
    t.emit("ret void")
    t.lines.append("}")
    # The counters' slots, at the top of the entry block.
    allocas = [f"  {s} = alloca i64, align 8" for s in dict.fromkeys(t.slots)]
    t.lines[2:2] = allocas
    return "\n".join(t.lines) + "\n"


def driver_declarations() -> str:
    """What `driver_text` needs besides the runtime's state."""
    return (
        "declare ptr @malloc(i64)\ndeclare void @free(ptr)\n"
        "declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)\n"
        f"@{DIVERGENCE_FLAG} = global i32 0, align 4\n"
    )
