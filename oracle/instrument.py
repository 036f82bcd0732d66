"""The sanitized reference: a checked copy of the scalar kernel.

`instrument(text, kernel)` returns the module with, beside the original
functions (which the vectorized variants share), a copy of the kernel and of
every function it calls, named `__oracle_san.<name>`, in which every memory
access is preceded by a call into the sanitizer's run-time library
(oracle/sanitizer_rt.c):

- loads, stores, `atomicrmw`, `cmpxchg` (atomic ones flagged atomic);
- `llvm.memcpy`/`memmove`/`memset` (both sides, the length);
- `llvm.masked.load`/`store` (active lanes), `gather`/`scatter` (each active
  lane's pointer), `expandload`/`compressstore` (the popcount of the mask);
- OpenCL builtins that access memory through a pointer: `vloadN`/`vstoreN`,
  every atomic form (`atom_*`, `atomic_*`, `atomic_fetch_*`, `*_explicit`,
  stores, loads, compare-exchange, flags), and the ones with an output pointer (`fract`,
  `modf`, `sincos`, `frexp`, `remquo`, `lgamma_r`).

Each check names the object the pointer is based on (oracle.provenance):
kernel argument k (object k), global variable j (object nargs + j), an
alloca (its bounds, computed in the IR), or none (looked up by address at run
time). The check returns the address to use, which the access then uses
(the same address, except in the probe mode that sizes inferred buffers).

The reference must not depend on the vectorizer's own passes: this module
uses only `vectorizer.ir` (parser, printer, builder, cloning), never its
analyses or transforms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from vectorizer.ir import Builder, parse_module, print_module
from vectorizer.ir import instructions as I
from vectorizer.ir import module as M
from vectorizer.ir import types as T
from vectorizer.ir import values as V
from vectorizer.ir.cloning import clone_function
from vectorizer.ir.printer import print_instructions

from .provenance import Provenance, Root
from .runtime import _BARRIER as _SYNC
from .runtime import base_name

PREFIX = "__oracle_san."
GLOBALS_FN = "__oracle_san_globals"
BOUNDS = "__oracle_san_bounds"
RUN_EPOCH = "__oracle_san_run_epoch"
E_MASK, E_BYTES = 0x07FFFFFF, 28  # a shadow cell's epoch word (oracle/sanitizer_rt.c)
READ, WRITE, ATOMIC = 1, 2, 4
OBJ_LOOKUP, OBJ_RANGE = -1, -2

_ACCESS = T.FunctionType(T.i64, (T.i64,) * 6)
_STORE = T.FunctionType(T.i64, (T.i64,) * 5)
VALUE_SLOT = 256  # bytes of the per-function slot a store's value is passed in
# The slot's alignment. Stores into it say so explicitly: left implicit, a
# store takes its type's ABI alignment (32 for <4 x double>, 64 for <16 x
# float>), more than the slot has, and the JIT emits an aligned vector move
# that faults whenever the kernel's frame sits only 16 bytes aligned (half
# of all processes, by where the OS puts the stack).
VALUE_SLOT_ALIGN = 16
_MASKED = T.FunctionType(T.i64, (T.i64,) * 7)
_MEM = T.FunctionType(T.i64, (T.i64,) * 10)
# OpenCL builtins writing their second result through a pointer:
# name -> True when the pointee is int-typed (one i32 per lane), else of the return type.
_OUT_POINTER = {"fract": False, "modf": False, "sincos": False, "frexp": True, "remquo": True, "lgamma_r": True}


@dataclass
class Site:
    """An instrumented access, for reports."""

    function: str
    text: str


@dataclass
class GlobalObject:
    """A global variable registered as a sanitizer object."""

    name: str
    kind: str  # "global", "local" (addrspace 3) or "constant"


@dataclass
class Instrumented:
    """The result of `instrument`."""

    text: str
    entry: str  # the checked copy of the kernel
    sites: list[Site] = field(default_factory=list)
    globals: list[GlobalObject] = field(default_factory=list)
    args: list[str] = field(default_factory=list)  # the kernel's parameter names (for reports)
    # Objects accessed in units of fewer than 4 bytes (shadowed per byte);
    # None: possibly any (such an access whose object is not known).
    subword: set[int] | None = field(default_factory=set)


def _store_size(t: T.Type) -> int | None:
    """Bytes a load or store of `t` touches; None for aggregates (their size
    comes from the data layout, computed in the IR)."""
    if isinstance(t, (T.IntType, T.FloatType, T.PointerType)) or (
        isinstance(t, T.VectorType) and not t.scalable
        and isinstance(t.element, (T.IntType, T.FloatType, T.PointerType))
    ):
        return (T.size_in_bits(t) + 7) // 8
    return None


def _reachable(mod: M.Module, kernel: M.Function) -> list[M.Function]:
    seen = {id(kernel)}
    order = [kernel]
    for fn in order:
        for inst in fn.instructions():
            if isinstance(inst, I.CallInst):
                f = inst.called_function
                if f is not None and not f.is_declaration and id(f) not in seen:
                    seen.add(id(f))
                    order.append(f)
    return order


class _Instrumenter:
    """Inserts the checks. Accesses to an object the kernel never writes
    (and to private variables) are bounds checked inline, calling the
    library only when they fail (it reports them, or grows the buffer in
    probe mode): such accesses cannot race, and most reads are of such
    objects. Every other access calls the library, which tracks races.
    `tracked` holds the object indices written somewhere (None: all, when a
    write's object is not known statically)."""

    def __init__(self, mod: M.Module, nargs: int, global_index: dict[int, int], sites: list[Site],
                 tracked: set[int] | None, subword: set[int] | None) -> None:
        self.mod = mod
        self.nargs = nargs
        self.global_index = global_index
        self.sites = sites
        self.tracked = tracked
        self.subword = subword
        self.origin: dict[int, I.Instruction] = {}  # id(copied instruction) -> original
        self.texts: dict[int, str] = {}  # id(original instruction) -> its text
        self.alloca_bounds: dict[int, tuple[V.Value, V.Value]] = {}
        nobj = max(1, nargs + len(global_index))
        self.bounds_t = T.ArrayType(T.ArrayType(T.i64, 4), nobj)
        # (base, limit, shadow cells, unused) per object, filled by
        # oracle.sanitizer: an inline check passes when the access ends at or
        # below base + limit.
        self.bounds = M.GlobalVariable(BOUNDS, self.bounds_t, V.ConstantAggregateZero(self.bounds_t))
        mod.add_global(self.bounds)
        # The first epoch of the running run: older shadow cells are empty.
        self.run_epoch = M.GlobalVariable(RUN_EPOCH, T.i64, V.ConstantInt(T.i64, 0))
        mod.add_global(self.run_epoch)
        self.item = self._hook("__oracle_san_item")
        self.epoch = self._hook("__oracle_san_epoch")
        self.access = mod.get_or_insert_function("__oracle_san_access", _ACCESS)
        self.store = mod.get_or_insert_function("__oracle_san_store", _STORE)
        self.value_slot: V.Value | None = None  # of the function being instrumented
        self.masked = mod.get_or_insert_function("__oracle_san_masked", _MASKED)
        self.mem = mod.get_or_insert_function("__oracle_san_mem", _MEM)

    # -- helpers ---------------------------------------------------------

    def _hook(self, name: str) -> M.GlobalVariable:
        """A declaration of one of the runtime's hook globals (oracle.runtime)."""
        g = M.GlobalVariable(name, T.i64, None, linkage="external")
        self.mod.add_global(g)
        return g

    def _site(self, fn_name: str, inst: I.Instruction, flags: int) -> V.Value:
        # The original's text: the copy's numbering shifts as checks go in.
        orig = self.origin.get(id(inst), inst)
        text = self.texts.get(id(orig))
        self.sites.append(Site(fn_name, text if text is not None else str(orig).strip()))
        return V.ConstantInt(T.i64, (len(self.sites) - 1) << 4 | flags)

    def _object(self, b: Builder, prov: Provenance, ptr: V.Value, is_kernel: bool) -> tuple[V.Value, V.Value, V.Value]:
        """(object, base, end) operands describing what `ptr` is based on."""
        zero = V.ConstantInt(T.i64, 0)
        root: Root | None = prov.root(ptr)
        if root is not None and _byval(root):
            # A struct passed by value: the callee reads a copy on the stack
            # (private memory), not the buffer the oracle passed.
            return V.ConstantInt(T.i64, OBJ_LOOKUP), zero, zero
        if root is not None:
            if root.kind == "arg" and is_kernel:
                return V.ConstantInt(T.i64, root.value.index), zero, zero  # type: ignore[attr-defined]
            if root.kind == "global" and id(root.value) in self.global_index:
                return V.ConstantInt(T.i64, self.nargs + self.global_index[id(root.value)]), zero, zero
            if root.kind == "alloca":
                a = root.value
                assert isinstance(a, I.AllocaInst)
                base, end = self._alloca_bounds(a)
                return V.ConstantInt(T.i64, OBJ_RANGE), base, end
        return V.ConstantInt(T.i64, OBJ_LOOKUP), zero, zero

    def _alloca_bounds(self, a: I.AllocaInst) -> tuple[V.Value, V.Value]:
        """[base, end) of a private variable as i64s, computed once, right
        after the alloca (which dominates every access based on it)."""
        got = self.alloca_bounds.get(id(a))
        if got is None:
            b = Builder()
            nxt = a.next_instruction
            assert nxt is not None
            b.position_before(nxt)
            count = a.count if a.count is not None else V.ConstantInt(T.i64, 1)
            end = b.gep(a.allocated_type, a, [count])
            got = (b.ptrtoint(a, T.i64), b.ptrtoint(end, T.i64))
            self.alloca_bounds[id(a)] = got
        return got

    def _size(self, b: Builder, t: T.Type) -> V.Value:
        n = _store_size(t)
        if n is not None:
            return V.ConstantInt(T.i64, n)
        # An aggregate: its allocation size from the data layout.
        end = b.gep(t, V.ConstantPointerNull(T.ptr), [V.ConstantInt(T.i64, 1)])
        return b.ptrtoint(end, T.i64)

    def _check(self, b: Builder, prov: Provenance, is_kernel: bool, ptr: V.Value, size: V.Value,
               info: V.Value, at: I.Instruction | None = None, bounds_only: bool = False) -> V.Value:
        """Emit the check of one access; the pointer to use instead of `ptr`.
        With `at` (the access, before which `b` inserts) the check may be
        inline (see the class docstring); `bounds_only` says the access
        cannot race unless a later check of the same item finds it."""
        obj, base, end = self._object(b, prov, ptr, is_kernel)
        addr = b.ptrtoint(ptr, T.i64)
        k = obj.value  # type: ignore[attr-defined]
        untracked = k >= 0 and (bounds_only or self.tracked is not None and k not in self.tracked)
        if at is not None and isinstance(size, V.ConstantInt) and (k == OBJ_RANGE or untracked):
            r = self._inline(b, at, addr, size, k, obj, base, end, info)
            b.position_before(at)
            if r is None:
                return ptr
        elif (k >= 0 and isinstance(at, I.StoreInst) and not at.ordering and isinstance(size, V.ConstantInt)
              and size.value == 4 and (at.align or 1) >= 4 and self.subword is not None and k not in self.subword):
            r = self._inline_store(b, at, addr, k, obj, info)
            b.position_before(at)
        elif isinstance(at, I.StoreInst) and k != OBJ_RANGE:
            r = b.call(self.store, [addr, size, obj, self._value(b, at), info])
        else:
            r = b.call(self.access, [addr, size, obj, base, end, info])
        return b.inttoptr(r, ptr.type)

    def _inline(self, b: Builder, at: I.Instruction, addr: V.Value, size: V.ConstantInt, k: int,
                obj: V.Value, base: V.Value, end: V.Value, info: V.Value) -> V.Value | None:
        """An inline bounds check before `at`: the library is called only
        when it fails (it reports the access, or in probe mode records it
        and may redirect it). Returns the address to use (an i64), None
        when it is the original one."""
        def i64(v: int) -> V.Value:
            return V.ConstantInt(T.i64, v)

        if k >= 0:
            base = b.load(T.i64, b.gep(self.bounds_t, self.bounds, [i64(0), i64(k), i64(0)]))
            end = b.add(base, b.load(T.i64, b.gep(self.bounds_t, self.bounds, [i64(0), i64(k), i64(1)])))
        # base <= addr <= end - size (no wrap: objects sit far from 0 and 2**64).
        ok = b.and_(b.icmp("uge", addr, base), b.icmp("ule", addr, b.sub(end, size)))
        blk = at.parent
        fn = blk.parent
        cont = blk.split_before(at)
        blk.terminator.erase_from_parent()
        slow = fn.add_block(None, after=blk)
        Builder(blk).cond_br(ok, cont, slow)
        bs = Builder(slow)
        r = bs.call(self.access, [addr, size, obj, base if k < 0 else i64(0), end if k < 0 else i64(0), info])
        bs.br(cont)
        if k < 0:
            return None  # a private variable: never redirected (the library stops the run)
        bp = Builder()
        bp.position_at_start(cont)
        return bp.phi(T.i64, [(addr, blk), (r, slow)])

    def _value(self, b: Builder, st: I.StoreInst) -> V.Value:
        """The address (i64) of a copy of the value `st` stores, for the
        library's uniform-write test; 0 when it does not fit the slot."""
        n = _store_size(st.value.type)
        if n is None or n > VALUE_SLOT:
            return V.ConstantInt(T.i64, 0)
        if self.value_slot is None:
            entry = self.fn.entry
            eb = Builder()
            eb.position_before(entry.first_non_phi)
            self.value_slot = eb.alloca(T.ArrayType(T.i8, VALUE_SLOT), align=VALUE_SLOT_ALIGN)
        b.store(st.value, self.value_slot, align=VALUE_SLOT_ALIGN)
        return b.ptrtoint(self.value_slot, T.i64)

    def _inline_store(self, b: Builder, at: I.StoreInst, addr: V.Value, k: int, obj: V.Value,
                      info: V.Value) -> V.Value:
        """A 4-byte aligned store to a tracked object: inline, the bounds
        check and, when the granule's cell shows no other work-item's live
        access, the cell's update (the library's write path, restricted to
        the case that cannot race); anything else calls the library."""
        def i64(v: int) -> V.Value:
            return V.ConstantInt(T.i64, v)

        def i32(v: int) -> V.Value:
            return V.ConstantInt(T.i32, v)

        def col(bb: Builder, c: int) -> V.Value:
            return bb.load(T.i64, bb.gep(self.bounds_t, self.bounds, [i64(0), i64(k), i64(c)]))

        base = col(b, 0)
        end = b.add(base, col(b, 1))
        cells = col(b, 2)
        # In bounds, a shadow to update, and really 4-byte aligned (an
        # `align 4` the address does not keep is the library's case).
        ok = b.and_(b.and_(b.icmp("uge", addr, base), b.icmp("ule", addr, b.sub(end, i64(4)))),
                    b.and_(b.icmp("ne", cells, i64(0)), b.icmp("eq", b.and_(addr, i64(3)), i64(0))))
        blk = at.parent
        fn = blk.parent
        cont = blk.split_before(at)
        blk.terminator.erase_from_parent()
        chk = fn.add_block(None, after=blk)
        fast = fn.add_block(None, after=chk)
        slow = fn.add_block(None, after=fast)
        Builder(blk).cond_br(ok, chk, slow)
        bc = Builder(chk)
        cell = bc.inttoptr(bc.add(cells, bc.shl(bc.lshr(bc.sub(addr, base), i64(2)), i64(4))), T.ptr)
        word = [bc.load(T.i32, bc.gep(T.i32, cell, [i64(j)])) for j in range(4)]
        t = bc.trunc(bc.load(T.i64, self.item), T.i32)
        run = bc.trunc(bc.load(T.i64, self.run_epoch), T.i32)

        def quiet(item: V.Value, epoch: V.Value) -> V.Value:
            # No access, this work-item's, or an earlier run's.
            old = bc.icmp("ult", bc.and_(epoch, i32(E_MASK)), run)
            return bc.or_(bc.or_(bc.icmp("eq", item, i32(0)), bc.icmp("eq", item, t)), old)

        bc.cond_br(bc.and_(quiet(word[0], word[1]), quiet(word[2], word[3])), fast, slow)
        bf = Builder(fast)
        now = bf.and_(bf.trunc(bf.load(T.i64, self.epoch), T.i32), i32(E_MASK))
        word0 = bf.or_(now, i32(0xF << E_BYTES))
        bf.store(t, bf.gep(T.i32, cell, [i64(0)]))
        bf.store(word0, bf.gep(T.i32, cell, [i64(1)]))
        if info.value & READ:  # type: ignore[attr-defined]
            # The store completes this work-item's read of the granule.
            bf.store(t, bf.gep(T.i32, cell, [i64(2)]))
            bf.store(word0, bf.gep(T.i32, cell, [i64(3)]))
        bf.br(cont)
        bs = Builder(slow)
        r = bs.call(self.store, [addr, i64(4), obj, self._value(bs, at), info])
        bs.br(cont)
        bp = Builder()
        bp.position_at_start(cont)
        return bp.phi(T.i64, [(addr, fast), (r, slow)])

    # -- per instruction -----------------------------------------------------

    def function(self, fn: M.Function, original_name: str, is_kernel: bool, prov: Provenance) -> None:
        covered, covering = _covered_loads(fn)
        self.value_slot = None
        self.fn = fn
        for inst in list(fn.instructions()):
            b = Builder()
            b.position_before(inst)
            if isinstance(inst, I.LoadInst):
                flags = READ | (ATOMIC if inst.ordering else 0)
                info = self._site(original_name, inst, flags)
                inst.set_operand(0, self._check(b, prov, is_kernel, inst.pointer, self._size(b, inst.type), info, inst,
                                                bounds_only=id(inst) in covered))
            elif isinstance(inst, I.StoreInst):
                flags = WRITE | (ATOMIC if inst.ordering else 0) | (READ if id(inst) in covering else 0)
                info = self._site(original_name, inst, flags)
                inst.set_operand(1, self._check(b, prov, is_kernel, inst.pointer, self._size(b, inst.value.type), info, inst))
            elif isinstance(inst, I.AtomicRMWInst):
                info = self._site(original_name, inst, READ | WRITE | ATOMIC)
                inst.set_operand(0, self._check(b, prov, is_kernel, inst.pointer, self._size(b, inst.value.type), info))
            elif isinstance(inst, I.AtomicCmpXchgInst):
                info = self._site(original_name, inst, READ | WRITE | ATOMIC)
                inst.set_operand(0, self._check(b, prov, is_kernel, inst.pointer, self._size(b, inst.compare.type), info))
            elif isinstance(inst, I.CallInst):
                self._call(b, prov, is_kernel, inst, original_name)

    def _call(self, b: Builder, prov: Provenance, is_kernel: bool, call: I.CallInst, fn_name: str) -> None:
        f = call.called_function
        if f is None or f.name is None:
            return
        name = f.name
        if name.startswith("llvm."):
            self._intrinsic(b, prov, is_kernel, call, name, fn_name)
        elif f.is_declaration:
            self._builtin(b, prov, is_kernel, call, name, fn_name)

    def _intrinsic(self, b: Builder, prov: Provenance, is_kernel: bool, call: I.CallInst, name: str,
                   fn_name: str) -> None:
        args = call.args
        m = re.match(r"llvm\.(memcpy|memmove|memset)(?:\.inline)?\.", name)
        if m:
            zero = V.ConstantInt(T.i64, 0)
            dst, length = args[0], args[2]
            info = self._site(fn_name, call, 0)
            dobj, dbase, dend = self._object(b, prov, dst, is_kernel)
            if m.group(1) == "memset":
                src, sobj, sbase, send = zero, zero, zero, zero
            else:
                sobj, sbase, send = self._object(b, prov, args[1], is_kernel)
                src = b.ptrtoint(args[1], T.i64)
            n = length if length.type == T.i64 else b.zext(length, T.i64)
            keep = b.call(self.mem, [b.ptrtoint(dst, T.i64), src, n, dobj, dbase, dend, sobj, sbase, send, info])
            call.set_arg(2, keep if length.type == T.i64 else b.trunc(keep, length.type))
            return
        m = re.match(r"llvm\.masked\.(load|store|gather|scatter|expandload|compressstore)\.", name)
        if not m:
            return
        kind = m.group(1)
        reads = kind in ("load", "gather", "expandload")
        flags = READ if reads else WRITE
        ptr_i = 0 if reads else 1
        mask_i = next((i for i, a in enumerate(args)
                       if isinstance(a.type, T.VectorType) and a.type.element == T.i1 and i != ptr_i), None)
        vec_t = call.type if reads else args[0].type
        if mask_i is None or not isinstance(vec_t, T.VectorType) or vec_t.scalable:
            return
        elem = _store_size(vec_t.element)
        if elem is None:
            return
        mask = args[mask_i]
        lanes = vec_t.count
        info = self._site(fn_name, call, flags)
        if kind in ("gather", "scatter"):
            ptrs = args[ptr_i]
            size = V.ConstantInt(T.i64, elem)
            zero = V.ConstantInt(T.i64, 0)
            new: V.Value = V.PoisonValue(ptrs.type)
            for lane in range(lanes):
                p = b.extractelement(ptrs, lane)
                on = b.extractelement(mask, lane)
                q = self._check(b, prov, is_kernel, p, b.select(on, size, zero), info)
                new = b.insertelement(new, q, lane)
            call.set_arg(ptr_i, new)
            return
        ptr = args[ptr_i]
        if lanes > 64:
            return
        bits = b.bitcast(mask, T.IntType(lanes))
        if kind in ("expandload", "compressstore"):
            ctpop = self.mod.get_or_insert_function(f"llvm.ctpop.i{lanes}", T.FunctionType(T.IntType(lanes), (T.IntType(lanes),)))
            cnt = b.call(ctpop, [bits])
            n = cnt if lanes == 64 else b.zext(cnt, T.i64)
            size = b.mul(n, V.ConstantInt(T.i64, elem))
            call.set_arg(ptr_i, self._check(b, prov, is_kernel, ptr, size, info))
            return
        wide = bits if lanes == 64 else b.zext(bits, T.i64)
        obj, base, end = self._object(b, prov, ptr, is_kernel)
        r = b.call(self.masked, [b.ptrtoint(ptr, T.i64), V.ConstantInt(T.i64, elem), wide, obj, base, end, info])
        call.set_arg(ptr_i, b.inttoptr(r, ptr.type))

    def _builtin(self, b: Builder, prov: Provenance, is_kernel: bool, call: I.CallInst, name: str,
                 fn_name: str) -> None:
        base = base_name(name)
        if base is None:
            return
        args = call.args
        ptr_args = [i for i, a in enumerate(args) if isinstance(a.type, T.PointerType)]
        if not ptr_args:
            return
        m = re.fullmatch(r"v(load|store)(\d+)", base)
        if m and len(args) == (2 if m.group(1) == "load" else 3):
            vec_t = call.type if m.group(1) == "load" else args[0].type
            off_i, ptr_i = (0, 1) if m.group(1) == "load" else (1, 2)
            if not isinstance(vec_t, T.VectorType) or ptr_i not in ptr_args:
                return
            elem = _store_size(vec_t.element)
            if elem is None or not isinstance(args[off_i].type, T.IntType):
                return
            nbytes = elem * vec_t.count
            off = args[off_i] if args[off_i].type == T.i64 else b.zext(args[off_i], T.i64)
            delta = b.mul(off, V.ConstantInt(T.i64, nbytes))
            info = self._site(fn_name, call, READ if m.group(1) == "load" else WRITE)
            ptr = args[ptr_i]
            addr = b.add(b.ptrtoint(ptr, T.i64), delta)
            obj, base_v, end = self._object(b, prov, ptr, is_kernel)
            r = b.call(self.access, [addr, V.ConstantInt(T.i64, nbytes), obj, base_v, end, info])
            call.set_arg(ptr_i, b.inttoptr(b.sub(r, delta), ptr.type))
            return
        accesses = _atomic_accesses(base, call)
        if accesses is not None:
            # Every form (`atom_*`, `atomic_*`, `atomic_fetch_*`, `*_explicit`,
            # compare-exchange, flags), whatever the address space: the
            # runtime's body is an atomicrmw/cmpxchg/atomic load or store on
            # the pointer, which the check must see before the call.
            for i, t, flags in accesses:
                info = self._site(fn_name, call, flags)
                size = V.ConstantInt(T.i64, t) if isinstance(t, int) else self._size(b, t)
                call.set_arg(i, self._check(b, prov, is_kernel, args[i], size, info))
            return
        if base in _OUT_POINTER:
            i = ptr_args[-1]
            lanes = call.type.count if isinstance(call.type, T.VectorType) else 1
            nbytes = 4 * lanes if _OUT_POINTER[base] else _store_size(call.type)
            if nbytes is None:
                return
            info = self._site(fn_name, call, WRITE)
            call.set_arg(i, self._check(b, prov, is_kernel, args[i], V.ConstantInt(T.i64, nbytes), info))
            return


_ATOMIC_NAME = re.compile(r"atom(?:ic)?_(?:fetch_)?(\w+?)(?:_explicit)?")


def _atomic_accesses(base: str, call: I.CallInst) -> list[tuple[int, T.Type | int, int]] | None:
    """The memory an OpenCL atomic builtin call accesses, as (argument
    index, type or byte count, flags) per pointer; None when `base` is not
    an atomic builtin taking its object as first argument."""
    m = _ATOMIC_NAME.fullmatch(base)
    args = call.args
    if m is None or not args or not isinstance(args[0].type, T.PointerType):
        return None
    op = m.group(1)
    ret = None if isinstance(call.type, T.VoidType) else call.type
    rmw = READ | WRITE | ATOMIC
    if op in ("compare_exchange_strong", "compare_exchange_weak"):
        if len(args) < 3 or not isinstance(args[1].type, T.PointerType):
            return None
        # *expected is read, and written on failure: a plain access.
        return [(0, args[2].type, rmw), (1, args[2].type, READ | WRITE)]
    if op in ("flag_test_and_set", "flag_clear"):
        return [(0, 4, rmw if op == "flag_test_and_set" else WRITE | ATOMIC)]  # atomic_flag: an int
    if op == "load":
        return [(0, ret, READ | ATOMIC)] if ret is not None else None
    if op in ("store", "init"):
        if len(args) < 2:
            return None
        return [(0, args[1].type, WRITE | (ATOMIC if op == "store" else 0))]
    val_t = ret if ret is not None else (args[1].type if len(args) > 1 else None)
    return [(0, val_t, rmw)] if val_t is not None else None


def _byval(root: Root) -> bool:
    """Is `root` a parameter passed by value (`byval(T)`): a private copy?"""
    return root.kind == "arg" and "byval" in getattr(root.value, "attributes", "")


def _may_sync(call: I.CallInst) -> bool:
    """Could this call synchronise work-items (a barrier, or a function that
    might call one)?"""
    f = call.called_function
    if f is None or not f.is_declaration:
        return True
    name = f.name or ""
    if name.startswith("llvm."):
        return False
    base = base_name(name)
    return base is None or bool(_SYNC.search(base))


def _covered_loads(fn: M.Function) -> tuple[set[int], set[int]]:
    """Non-atomic loads whose bytes the same work-item then stores to, later
    in the same block, with no synchronisation between, and those stores.
    Such a store is checked as a read and a write of its bytes (it records
    both, and is never a uniform write): that finds every race the load's
    own check would, so the load needs a bounds check only."""
    out: set[int] = set()
    stores: set[int] = set()
    for bb in fn.blocks:
        pending: dict[int, list[I.LoadInst]] = {}  # id(pointer) -> loads since the last sync
        for inst in bb.instructions:
            if isinstance(inst, I.LoadInst) and not inst.ordering:
                pending.setdefault(id(inst.pointer), []).append(inst)
            elif isinstance(inst, I.StoreInst) and not inst.ordering:
                n = _store_size(inst.value.type)
                for ld in pending.pop(id(inst.pointer), []):
                    m = _store_size(ld.type)
                    if n is not None and m is not None and m <= n:
                        out.add(id(ld))
                        stores.add(id(inst))
            elif isinstance(inst, (I.CallInst, I.FenceInst, I.OpaqueInst)) and (
                    not isinstance(inst, I.CallInst) or _may_sync(inst)):
                pending.clear()
    return out, stores


def _instruction_texts(fn: M.Function) -> dict[int, str]:
    """id(instruction) -> its text, from one numbering of `fn` (printing
    instructions one by one numbers the function each time). Every
    instruction's: a `switch` spans several lines of the printed function."""
    return {id(i): t.strip() for i, t in zip(fn.instructions(), print_instructions(fn), strict=True)}


def _written_pointers(fn: M.Function) -> list[V.Value]:
    """The pointers `fn` writes through (any pointer passed to a function
    the sanitizer does not look into counts as written)."""
    out: list[V.Value] = []
    for inst in fn.instructions():
        if isinstance(inst, (I.StoreInst, I.AtomicRMWInst, I.AtomicCmpXchgInst)):
            out.append(inst.pointer)
        elif isinstance(inst, I.CallInst):
            f = inst.called_function
            name = f.name if f is not None and f.name else ""
            if re.match(r"llvm\.(memcpy|memmove|memset)", name):
                out.append(inst.args[0])
            elif re.match(r"llvm\.masked\.(store|scatter|compressstore)", name):
                out.append(inst.args[1])
            elif name.startswith("llvm.") or re.fullmatch(r"vload\d+", base_name(name) or ""):
                continue
            elif f is None or f.is_declaration:
                out += [a for a in inst.args if isinstance(T.scalar_type(a.type), T.PointerType)]
    return out


def _tracked(funcs: list[M.Function], provs: dict[int, Provenance], kfn: M.Function, nargs: int,
             global_index: dict[int, int]) -> set[int] | None:
    """Indices of the objects the kernel may write; None when a write's
    object is not known statically (then every object is tracked)."""
    out: set[int] = set()
    for f in funcs:
        for p in _written_pointers(f):
            root = provs[id(f)].root(p)
            if root is None:
                return None
            if root.kind == "alloca" or _byval(root):
                continue
            if root.kind == "arg" and f is kfn:
                out.add(root.value.index)  # type: ignore[attr-defined]
            elif root.kind == "global" and id(root.value) in global_index:
                out.add(nargs + global_index[id(root.value)])
            else:
                return None
    return out


def _access_units(fn: M.Function) -> list[tuple[V.Value, int | None]]:
    """(pointer, unit) of every access of `fn`: the unit is the number of
    bytes the access works in when that is a multiple of 4 and the access
    is declared that aligned, else None (bytes)."""
    out: list[tuple[V.Value, int | None]] = []

    def unit(t: T.Type, align: int | None) -> int | None:
        n = _store_size(T.scalar_type(t))
        return n if n is not None and n % 4 == 0 and (align or 0) >= 4 else None

    for inst in fn.instructions():
        if isinstance(inst, I.LoadInst):
            out.append((inst.pointer, unit(inst.type, inst.align)))
        elif isinstance(inst, I.StoreInst):
            out.append((inst.pointer, unit(inst.value.type, inst.align)))
        elif isinstance(inst, (I.AtomicRMWInst, I.AtomicCmpXchgInst)):
            t = inst.value.type if isinstance(inst, I.AtomicRMWInst) else inst.compare.type
            out.append((inst.pointer, unit(t, inst.align)))
        elif isinstance(inst, I.CallInst):
            out += [(a, None) for a in inst.args if isinstance(T.scalar_type(a.type), T.PointerType)]
    return out


def _subword(funcs: list[M.Function], provs: dict[int, Provenance], kfn: M.Function, nargs: int,
             global_index: dict[int, int]) -> set[int] | None:
    """Indices of the objects some access reaches in units smaller than 4
    bytes (or not 4-aligned); None when such an access's object is unknown."""
    out: set[int] = set()
    for f in funcs:
        for p, u in _access_units(f):
            if u is not None:
                continue
            root = provs[id(f)].root(p)
            if root is None:
                return None
            if root.kind == "arg" and f is kfn:
                out.add(root.value.index)  # type: ignore[attr-defined]
            elif root.kind == "global" and id(root.value) in global_index:
                out.add(nargs + global_index[id(root.value)])
            elif root.kind != "alloca" and not _byval(root):
                return None
    return out


def _globals_function(objects: list[M.GlobalVariable]) -> str:
    """`__oracle_san_globals(ptr out)`: writes (base, end) of every global object."""
    lines = [f"define void @{GLOBALS_FN}(ptr %out) {{", "entry:"]
    for k, g in enumerate(objects):
        pt = str(g.type)
        ref = "@" + T.quote_name(g.name or "")
        lines += [
            f"  %b{k} = ptrtoint {pt} {ref} to i64",
            f"  %ep{k} = getelementptr {g.value_type}, {pt} {ref}, i64 1",
            f"  %e{k} = ptrtoint {pt} %ep{k} to i64",
            f"  %sb{k} = getelementptr i64, ptr %out, i64 {2 * k}",
            f"  store i64 %b{k}, ptr %sb{k}, align 8",
            f"  %se{k} = getelementptr i64, ptr %out, i64 {2 * k + 1}",
            f"  store i64 %e{k}, ptr %se{k}, align 8",
        ]
    lines += ["  ret void", "}"]
    return "\n".join(lines) + "\n"


def _sized(t: T.Type) -> bool:
    try:
        T.size_in_bits(t)
    except TypeError:
        return False
    return True


def instrument(canonical: str, kernel: str) -> Instrumented:
    """Add checked copies of `kernel` and its callees to `canonical` (LLVM's
    own printing of the module). Raises `ParseError`/`ValueError` when our
    IR cannot read it."""
    mod = parse_module(canonical)
    kfn = next((f for f in mod.functions if f.name == kernel and not f.is_declaration), None)
    if kfn is None:
        raise ValueError(f"kernel {kernel!r} not defined")
    objects = [g for g in mod.globals if g.name and not g.name.startswith("llvm.") and _sized(g.value_type)]
    global_index = {id(g): k for k, g in enumerate(objects)}
    funcs = _reachable(mod, kfn)
    clones: dict[int, M.Function] = {}
    origin: dict[int, I.Instruction] = {}
    for f in funcs:
        c, vmap = clone_function(f, PREFIX + (f.name or ""))
        origin.update((id(new), old) for old, new in vmap.items() if isinstance(old, I.Instruction))
        if f is not kfn:
            c.linkage = "internal"
        clones[id(f)] = c
    sites: list[Site] = []
    for f in funcs:
        c = clones[id(f)]
        for inst in c.instructions():
            if isinstance(inst, I.CallInst):
                callee = inst.called_function
                if callee is not None and id(callee) in clones:
                    inst.callee = clones[id(callee)]
    kclone = clones[id(kfn)]
    provs = {id(clones[id(f)]): Provenance(clones[id(f)]) for f in funcs}
    copies = [clones[id(f)] for f in funcs]
    tracked = _tracked(copies, provs, kclone, len(kfn.args), global_index)
    subword = _subword(copies, provs, kclone, len(kfn.args), global_index)
    ins = _Instrumenter(mod, len(kfn.args), global_index, sites, tracked, subword)
    ins.origin = origin
    for f in funcs:
        ins.texts.update(_instruction_texts(f))
    for f in funcs:
        c = clones[id(f)]
        ins.function(c, f.name or "", f is kfn, provs[id(c)])
    text = print_module(mod) + "\n" + _globals_function(objects)
    kinds = []
    for g in objects:
        kinds.append(GlobalObject(g.name or "", "local" if g.addrspace == 3 else "constant" if g.is_constant else "global"))
    args = [("%" + a.name) if a.name else f"%{i}" for i, a in enumerate(kfn.args)]
    return Instrumented(text, PREFIX + kernel, sites, kinds, args, subword)
