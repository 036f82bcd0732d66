"""The sanitized reference run, worker side: registers the objects (buffers,
local memory, global variables) with the run-time library
(oracle/sanitizer_rt.c), runs the instrumented kernel (oracle/instrument.py)
and turns what the library recorded into a verdict.

A run returns a `SanitizerReport` (a dict, so it crosses the worker pipe):
- `status`: "clean", "out-of-bounds" or "race";
- `detail`: one line naming the buffer (argument index and name, or the
  global), byte offset, work-item(s) and instruction(s);
- `extents`: per kernel argument (None for scalars), in probe mode the
  highest byte offset + 1 the kernel touched, past a buffer's end too (in
  other runs only the accesses that reached the library: inline checks
  that pass do not record them);
- `redirected`: accesses past the end of a buffer that probe mode sent to
  scratch memory (the run's data are then not meaningful).

Probe mode serves launch inference: a buffer whose size the oracle guessed
may be too small; the run records how far the kernel reaches instead of
stopping, so the buffer can be sized to the touched range and the run
repeated.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .instrument import Instrumented

K_GLOBAL, K_LOCAL, K_CONST = 1, 2, 3
R_OOB, R_RACE, R_WILD, R_FAR = 1, 2, 3, 4
M_PROBE, M_RACES, M_DETAIL = 1, 2, 4
MANY = 0xFFFFFFFF
CELL_BYTES = 16  # sizeof(struct cell): one per granule (4 bytes, or 1) of a tracked object
DETAIL_BYTES = 24  # sizeof(struct detail)
# The largest size probe mode lets an inferred buffer grow to (its shadow is
# 4 or 16 times that, allocated by the OS as it is touched).
PROBE_LIMIT = 64 << 20
_KINDS = {"global": K_GLOBAL, "local": K_LOCAL, "constant": K_CONST}
# The run-time library's entry points, published as process symbols.
EXPORTS = ("__oracle_san_access", "__oracle_san_store", "__oracle_san_masked", "__oracle_san_mem")

SanitizerReport = dict[str, Any]


class _Object(ctypes.Structure):
    _fields_ = [("base", ctypes.c_uint64), ("size", ctypes.c_uint64), ("cells", ctypes.c_uint64),
                ("detail", ctypes.c_uint64), ("kind", ctypes.c_uint32), ("growable", ctypes.c_uint32),
                ("hi", ctypes.c_uint64), ("shift", ctypes.c_uint32), ("pad", ctypes.c_uint32)]


class _Report(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_uint32), ("obj", ctypes.c_uint32), ("site", ctypes.c_uint32),
                ("flags", ctypes.c_uint32), ("addr", ctypes.c_uint64), ("size", ctypes.c_uint64),
                ("item", ctypes.c_uint32), ("other_item", ctypes.c_uint32),
                ("other_site", ctypes.c_uint32), ("other_flags", ctypes.c_uint32)]


class _San(ctypes.Structure):
    _fields_ = [("objects", ctypes.c_uint64), ("nobjects", ctypes.c_uint64), ("mode", ctypes.c_uint32),
                ("redirected", ctypes.c_uint32), ("rep", _Report), ("jmp", ctypes.c_uint64 * 5),
                ("probe_limit", ctypes.c_uint64), ("item", ctypes.c_uint64), ("epoch", ctypes.c_uint64),
                ("group_epoch", ctypes.c_uint64), ("stack_hi", ctypes.c_uint64), ("bounds", ctypes.c_uint64),
                ("run_epoch", ctypes.c_uint64)]


@dataclass
class _Library:
    """The run-time library, compiled once per process (optimised: it runs
    on every access) and published as process symbols."""

    engine: Any
    state: int  # address of `__oracle_san`
    run: Any  # `__oracle_san_run`, callable


_LIB: _Library | None = None


def library() -> _Library:
    """Compile the run-time library (once) and publish its entry points, so
    that programs declaring them link against this copy."""
    global _LIB
    if _LIB is None:
        import llvmlite.binding as llvm

        from vectorizer.llvm_bridge import host_target_machine, initialize
        from vectorizer.llvm_context import adopt_engine, new_context, parse_in

        from . import sanitizer_rt

        initialize()
        tm = host_target_machine(2, codemodel="jitdefault")
        ctx = new_context()
        mod = parse_in(ctx, sanitizer_rt.ir_text())
        mod.triple = llvm.get_process_triple()
        mod.data_layout = str(tm.target_data)
        mod.verify()
        engine = adopt_engine(ctx, llvm.create_mcjit_compiler(mod, tm))
        engine.finalize_object()
        for name in EXPORTS:
            llvm.add_symbol(name, engine.get_function_address(name))
        run = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)(
            engine.get_function_address("__oracle_san_run"))
        _LIB = _Library(engine, engine.get_global_value_address("__oracle_san"), run)
    return _LIB


class _Shadows:
    """Shadow arrays, reused between runs: fresh memory costs a page fault
    per page on first touch, which would dominate short runs. They are not
    cleared either: every run has epochs of its own (`epochs`), and the
    library treats cells of older epochs as empty."""

    LIMIT = 128 << 20  # bytes of arrays kept for reuse
    EPOCH_LIMIT = (1 << 27) - (1 << 24)  # the cells' epoch field has 27 bits

    def __init__(self) -> None:
        self.free: dict[int, list[np.ndarray]] = {}
        self.held = 0
        self.next_epoch = 1
        # Bumped when the epochs start again from 1: arrays taken before
        # hold cells of higher epochs, which would look live; their holders
        # (a Sanitizer's prepared layout) must drop them, not give them back.
        self.generation = 0

    def epochs(self) -> int:
        """The first epoch of a new run (all reused arrays drop when the
        epoch counter would overflow)."""
        if self.next_epoch > self.EPOCH_LIMIT:
            self.free.clear()
            self.held = 0
            self.next_epoch = 1
            self.generation += 1
        return self.next_epoch

    def used(self, last_epoch: int) -> None:
        """The run ended at `last_epoch`."""
        self.next_epoch = max(self.next_epoch, last_epoch) + 1

    def take(self, nbytes: int) -> np.ndarray:
        nbytes = max(64, nbytes)
        got = self.free.get(nbytes)
        if got:
            self.held -= nbytes
            return got.pop()
        return np.zeros(nbytes, dtype=np.uint8)

    def give(self, arr: np.ndarray) -> None:
        if self.held + arr.size > self.LIMIT:
            return
        self.free.setdefault(arr.size, []).append(arr)
        self.held += arr.size


_SHADOWS = _Shadows()
_VOID_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


@dataclass
class _Prepared:
    """A Sanitizer's tables for one set of buffers (see `Sanitizer._prepare`)."""

    key: tuple
    objs: Any  # ctypes array of _Object
    held: list[np.ndarray]  # the shadows it took from _SHADOWS
    table: Any  # the inline checks' table to copy into the program
    hi_views: list[Any]  # per argument, its object's `hi` (None: a scalar)
    objs_init: bytes  # `objs` as a run starts (every `hi` 0)
    san_init: bytes  # the library's state as a run starts (but the epoch)


@dataclass
class _Views:
    """ctypes views of the words every run sets or reads."""

    run_epoch: Any  # the program's __oracle_san_run_epoch
    epoch: Any  # __oracle_san_epoch
    group_epoch: Any  # __oracle_san_group_epoch
    san_run_epoch: Any  # __oracle_san.run_epoch
    redirected: Any  # __oracle_san.redirected
    rep_kind: Any  # __oracle_san.rep.kind


@dataclass
class Sanitizer:
    """The sanitizer of one compiled program (addresses inside its engine)."""

    info: Instrumented
    globals_fn: int  # address of `__oracle_san_globals`
    hooks: tuple[int, int, int, int]  # addresses of __oracle_san_item, _epoch, _group_epoch, _stack_hi
    bounds: int  # address of `__oracle_san_bounds` (the inline checks' table)
    run_epoch: int  # address of `__oracle_san_run_epoch`
    KEEP_SHADOWS = 4 << 20  # bytes of shadow a kept layout may hold
    _prepared: _Prepared | None = field(default=None, repr=False)
    _global_pairs: list[tuple[int, int]] | None = field(default=None, repr=False)
    _view: _Views | None = field(default=None, repr=False)

    def run(self, driver: int, args_addr: int, cfg_addr: int, buffers: list[Any] | None,
            probe: bool = False) -> SanitizerReport:
        """Run `driver` (the sanitized driver) once; see the module docstring.
        In probe mode a buffer may grow up to PROBE_LIMIT bytes; an access
        beyond is out of bounds (`far` in the report). A race found by the
        fast run is run again in detail mode, to name both instructions."""
        out = self._run(driver, args_addr, cfg_addr, buffers, probe, False)
        if out["status"] == "race":
            again = self._run(driver, args_addr, cfg_addr, buffers, probe, True)
            if again["status"] == "race":
                again["redirected"] = out["redirected"]
                return again
        return out

    def _prepare(self, bufs: list[Any], probe: bool, detail: bool) -> _Prepared:
        """The object table, shadows and the inline checks' table for these
        buffers. The last one is kept: the oracle runs a kernel at one
        layout many times (reference, reruns, the benchmark), and building
        the tables in Python would cost as much as running a small NDRange."""
        key = (tuple((b.address, b.array.nbytes, b.spec.kind) if b is not None else None for b in bufs),
               probe, detail, _SHADOWS.generation)
        got = self._prepared
        if got is not None and got.key == key:
            return got
        if got is not None:
            self._release()
        nargs = len(self.info.args)
        nglob = len(self.info.globals)
        nobj = max(1, nargs + nglob)
        objs = (_Object * nobj)()
        held: list[np.ndarray] = []
        subword = self.info.subword

        def shadow(o: _Object, index: int) -> None:
            o.shift = 0 if subword is None or index in subword else 2
            granules = (o.size + (1 << o.shift) - 1) >> o.shift
            cells = _SHADOWS.take(granules * CELL_BYTES)
            held.append(cells)
            o.cells = cells.ctypes.data
            if detail:
                d = _SHADOWS.take(granules * DETAIL_BYTES)
                held.append(d)
                o.detail = d.ctypes.data

        for i, b in enumerate(bufs[:nargs]):
            if b is None:
                continue
            o = objs[i]
            o.base, o.size = b.address, b.array.nbytes
            o.kind = K_LOCAL if b.spec.kind == "local" else K_GLOBAL
            o.growable = 1 if probe else 0
            shadow(o, i)
        if nglob:
            if self._global_pairs is None:
                pairs = (ctypes.c_uint64 * (2 * nglob))()
                _VOID_FN(self.globals_fn)(ctypes.addressof(pairs))
                self._global_pairs = [(pairs[2 * k], pairs[2 * k + 1]) for k in range(nglob)]
            for k, g in enumerate(self.info.globals):
                o = objs[nargs + k]
                lo, hi = self._global_pairs[k]
                o.base, o.size = lo, hi - lo
                o.kind = _KINDS[g.kind]
                if o.kind != K_CONST:
                    shadow(o, nargs + k)
        # The inline checks' table: (base, limit, cells). In probe mode the
        # limit starts at 0 (every access reaches the library, which records
        # how far each buffer is used) and follows what the library has
        # seen; in detail mode it stays 0 (the library records instructions).
        table = (ctypes.c_uint64 * (4 * nobj))()
        for i in range(nargs + nglob):
            o = objs[i]
            table[4 * i], table[4 * i + 1], table[4 * i + 2] = o.base, 0 if probe or detail else o.size, o.cells
        hi_views = [ctypes.c_uint64.from_address(ctypes.addressof(objs[i]) + _Object.hi.offset)
                    if bufs[i] is not None else None for i in range(nargs)]
        san = _San()
        san.objects = ctypes.addressof(objs)
        san.nobjects = nargs + nglob
        san.mode = M_RACES | (M_PROBE if probe else 0) | (M_DETAIL if detail else 0)
        san.probe_limit = PROBE_LIMIT
        san.item, san.epoch, san.group_epoch, san.stack_hi = self.hooks
        san.bounds = self.bounds
        got = _Prepared(key, objs, held, table, hi_views, bytes(objs), bytes(san))
        # Kept only for small shadows (whose Python set-up would show): large
        # ones go back to the pool after the run, so that the programs a
        # worker caches do not each hold a large run's shadows.
        if not detail and sum(a.size for a in held) <= self.KEEP_SHADOWS:
            self._prepared = got
        return got

    def _release(self) -> None:
        got, self._prepared = self._prepared, None
        if got is not None and got.key[-1] == _SHADOWS.generation:
            for arr in got.held:
                _SHADOWS.give(arr)

    def _run(self, driver: int, args_addr: int, cfg_addr: int, buffers: list[Any] | None,
             probe: bool, detail: bool) -> SanitizerReport:
        lib = library()
        first_epoch = _SHADOWS.epochs()
        nargs = len(self.info.args)
        bufs = list(buffers or [])[:nargs]
        bufs += [None] * (nargs - len(bufs))
        prep = self._prepare(bufs, probe, detail)
        # Per run, each a single copy: the objects (their `hi`, how far the
        # kernel reached, back to 0), the inline checks' table (probe runs
        # move its limits) and the library's state.
        ctypes.memmove(prep.objs, prep.objs_init, len(prep.objs_init))
        ctypes.memmove(self.bounds, prep.table, ctypes.sizeof(prep.table))
        ctypes.memmove(lib.state, prep.san_init, len(prep.san_init))
        v = self._views(lib.state)
        # The drivers add 1 at the first group: epochs of this run are above.
        v.san_run_epoch.value = v.run_epoch.value = first_epoch + 1
        v.epoch.value = v.group_epoch.value = first_epoch
        if lib.run(driver, args_addr, cfg_addr):
            # A check stopped the run (long jump), perhaps out of a fiber of a
            # group with barriers: the fiber pool must not stay busy.
            from . import fibers

            fibers.abandon()
        _SHADOWS.used(v.epoch.value)
        extents = [h.value if h is not None else None for h in prep.hi_views]
        out: SanitizerReport = {"status": "clean", "detail": "", "extents": extents,
                                "redirected": v.redirected.value, "far": False}
        if v.rep_kind.value:
            rep = _San.from_address(lib.state).rep
            out["far"] = rep.kind == R_FAR
            nd = _NDShape.from_cfg(cfg_addr)
            out["status"] = "race" if rep.kind == R_RACE else "out-of-bounds"
            out["detail"] = self._describe(rep, prep.objs, nd)
        if prep is not self._prepared:
            for arr in prep.held:
                _SHADOWS.give(arr)
        return out

    def _views(self, state: int) -> _Views:
        if self._view is None:
            u64, u32 = ctypes.c_uint64, ctypes.c_uint32
            rep_at = state + _San.rep.offset
            self._view = _Views(u64.from_address(self.run_epoch), u64.from_address(self.hooks[1]),
                                u64.from_address(self.hooks[2]), u64.from_address(state + _San.run_epoch.offset),
                                u32.from_address(state + _San.redirected.offset),
                                u32.from_address(rep_at + _Report.kind.offset))
        return self._view

    # -- reports ---------------------------------------------------------------

    def _object_name(self, oi: int) -> str:
        nargs = len(self.info.args)
        if oi < nargs:
            return f"buffer {oi} (argument {self.info.args[oi]})"
        return f"global @{self.info.globals[oi - nargs].name}"

    def _site(self, site: int) -> str:
        if 0 <= site < len(self.info.sites):
            s = self.info.sites[site]
            return f"`{s.text}` in {s.function}"
        return "an instruction not recorded"

    def _describe(self, rep: _Report, objs: Any, nd: _NDShape) -> str:
        what = _access(rep.flags)
        who = f"work-item {nd.item(rep.item)}"
        if rep.kind == R_RACE:
            o = objs[rep.obj]
            other = _access(rep.other_flags)
            if rep.other_item == MANY:  # not named (the detail run did not happen)
                return (f"data race on {self._object_name(rep.obj)} byte {rep.addr - o.base}: "
                        f"{what} by {who} ({self._site(rep.site)}) and {other}s by other work-items")
            return (f"data race on {self._object_name(rep.obj)} byte {rep.addr - o.base}: "
                    f"{what} by {who} ({self._site(rep.site)}) and {other} by work-item "
                    f"{nd.item(rep.other_item)} ({self._site(rep.other_site)})"
                    f"{nd.same_group(rep.item, rep.other_item)}")
        if rep.kind == R_WILD:
            return (f"out-of-bounds {what} of {rep.size} bytes at address {rep.addr:#x}, inside no buffer, "
                    f"global or private variable, by {who} ({self._site(rep.site)})")
        if rep.obj == 0xFFFFFFFF:
            return (f"out-of-bounds {what} of {rep.size} bytes outside its private variable "
                    f"by {who} ({self._site(rep.site)})")
        o = objs[rep.obj]
        off = rep.addr - o.base if rep.addr >= o.base else -(o.base - rep.addr)
        size = (f"past the {PROBE_LIMIT >> 20} MiB the oracle lets an inferred buffer grow to" if rep.kind == R_FAR
                else f"({o.size} bytes)")
        return (f"out-of-bounds {what} of {rep.size} bytes at offset {off} of {self._object_name(rep.obj)}"
                f" {size} by {who} ({self._site(rep.site)})")


def _access(flags: int) -> str:
    kind = "read-modify-write" if flags & 3 == 3 else "write" if flags & 2 else "read"
    return ("atomic " if flags & 4 else "") + kind


@dataclass
class _NDShape:
    local: tuple[int, int, int]
    groups: tuple[int, int, int]
    offset: tuple[int, int, int]
    dims: int

    @classmethod
    def from_cfg(cls, cfg_addr: int) -> _NDShape:
        c = (ctypes.c_uint64 * 10).from_address(cfg_addr)
        return cls((c[0], c[1], c[2]), (c[3], c[4], c[5]), (c[6], c[7], c[8]), max(1, min(3, c[9])))

    def _ids(self, item: int) -> tuple[int, int, int]:
        lin = item - 1
        g = [self.local[d] * self.groups[d] for d in range(3)]
        return (lin % g[0], lin // g[0] % g[1], lin // (g[0] * g[1]))

    def item(self, item: int) -> str:
        """`(x,y,z)` global id of the work-item the library numbered `item`."""
        ids = [i + o for i, o in zip(self._ids(item), self.offset, strict=True)]
        return "(" + ",".join(map(str, ids[: self.dims])) + ")"

    def same_group(self, a: int, b: int) -> str:
        ga = [i // loc for i, loc in zip(self._ids(a), self.local, strict=True)]
        gb = [i // loc for i, loc in zip(self._ids(b), self.local, strict=True)]
        return ", same work-group" if ga == gb else ", different work-groups"
