"""Construct coverage against real code: which IR constructs of real kernels
the generator never produces.

Real code is `../shared/peer-corpus` (Vecz's lit kernels) and
`../shared/realworld-dev/ir` (five suites compiled by clang at -O1). Each
kernel is read as the vectorizer reads it (`--stage prepared`, the default):
canonicalised by LLVM, cloned, the functions it calls inlined, then LLVM's
preparation passes of `vectorizer.pipeline.PREPARATION`; so are generated
kernels, and the two sets of constructs are compared. `--stage input` reads
every defined function of the canonical module as written instead (early
returns and unlowered shapes that preparation removes).

A construct is a short key: an opcode with its flags and types (`add nsw
i32`, `fcmp fast olt float`, `cast zext nneg i32 to i64`), an intrinsic
(`call llvm.fmuladd.f32`), a builtin with the kinds of its arguments
(`call builtin:mad24(varying,uniform)`), a memory access by type, address
space and lane pattern, a phi/select shape, a type, or a CFG shape
(`loop-depth:3`, `loop exits:2`, `switch (varying)`, `cfg: irreducible`).

Argument kinds and varying conditions come from the vectorizer's own
`UniformValueAnalysis`, run once per dimension 0, 1, 2: a value is varying
if it varies along some dimension (a kernel is vectorized along one; any
may be chosen). That analysis follows data dependence only: a value made
varying by divergent control flow alone (a phi after a divergent branch)
counts as uniform here. Lane patterns of accesses come from the
`StrideAnalysis` over the same three analyses.

`python -m fuzz.constructs [--count 1000]` prints the constructs of real
code that `--count` generated kernels (profiles rotated per seed) never
contain, each with how many real kernels have it, an example, and the
reason it is left out when `EXPLAINED` gives one. Exit 0 when every missing
construct is explained, 1 otherwise, 2 for bad usage.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared"
DEFAULT_ROOTS = (SHARED / "peer-corpus", SHARED / "realworld-dev" / "ir")
STAGES = ("prepared", "input")

# ---------------------------------------------------------------------------
# Keys


def type_key(t: object, lanes: bool = False) -> str:
    """A type as it appears in keys: LLVM's spelling, except that named
    structs are `%struct`, array lengths `N`, and vector lengths `n` unless
    `lanes` (an operation on `<3 x i8>` is the one on `<16 x i8>`; the
    `type` keys keep the exact vector shapes)."""
    from vectorizer.ir import types as T

    if isinstance(t, (T.IntType, T.FloatType)):
        return str(t)
    if isinstance(t, T.PointerType):
        return "ptr" if not t.addrspace else f"ptr addrspace({t.addrspace})"
    if isinstance(t, T.VectorType):
        n = str(t.count) if lanes else "n"
        if t.scalable:
            n = f"vscale x {n}"
        return f"<{n} x {type_key(t.element, lanes)}>"
    if isinstance(t, T.ArrayType):
        return f"[N x {type_key(t.element)}]"
    if isinstance(t, T.StructType):
        if t.name is not None:
            return "%struct"
        return "{" + ", ".join(type_key(e) for e in t.elements) + "}"
    return str(t)


def _flags(flags: Iterable[str]) -> str:
    fs = sorted(flags)
    if {"nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc"} <= set(fs):
        fs = ["fast"]
    return "".join(" " + f for f in fs)


def _bucket(n: int, top: int) -> str:
    return f"{n}+" if n >= top else str(n)


_ADDRSPACE = re.compile(r"addrspace\((\d+)\)")


def _addrspace(t: object) -> int:
    from vectorizer.ir import types as T

    if isinstance(t, T.VectorType):
        t = t.element
    return t.addrspace if isinstance(t, T.PointerType) else 0


def _stride_class(info: object, elem_bytes: int) -> str:
    from vectorizer.analysis.stride import Pattern

    pattern = info.pattern  # type: ignore[attr-defined]
    if pattern is Pattern.UNIFORM:
        return "uniform"
    if pattern is Pattern.DIVERGENT:
        return "gather/scatter"
    stride = info.constant_stride  # type: ignore[attr-defined]
    if stride is None:
        return "symbolic stride"
    if stride == 0:
        return "uniform"
    if elem_bytes and stride == elem_bytes:
        return "contiguous"
    if elem_bytes and stride == -elem_bytes:
        return "reverse"
    if elem_bytes and stride % elem_bytes == 0:
        return "strided +k" if stride > 0 else "strided -k"
    return "strided (not a whole element)"


def builtin_name(name: str) -> str | None:
    """The OpenCL name of a mangled builtin (`_Z5mad24ii` -> `mad24`), a
    `__mux_*` name as it is, None for anything else."""
    from vectorizer.builtins.mangling import demangle

    if name.startswith("__mux_"):
        return name
    base = None
    if name.startswith("_Z"):
        d = demangle(name)
        if d is not None:
            base = d.name
        else:
            m = re.match(r"_Z(\d+)", name)
            if m:
                n = int(m.group(1))
                base = name[len(m.group(0)): len(m.group(0)) + n]
    if base is not None and base.startswith(("convert_", "vload", "vstore", "as_")):
        # The vector width in the name is in the argument types already.
        base = re.sub(r"(?<=\D)(2|3|4|8|16)(?=_|$)", "N", base)
    return base


class FunctionConstructs:
    """The constructs of one function (a prepared kernel clone or a defined function)."""

    def __init__(self, fn: object, layout: object) -> None:
        from vectorizer.analysis.loops import LoopInfo
        from vectorizer.analysis.stride import StrideAnalysis
        from vectorizer.analysis.uniformity import UniformValueAnalysis

        self.fn = fn
        self.layout = layout
        self.keys: Counter[str] = Counter()
        # Builtin call keys -> (callee, return type, parameter types): what
        # asking the oracle's runtime for a definition needs.
        self.signatures: dict[str, tuple[str, str, list[str]]] = {}
        self.uniform = []
        self.strides = []
        for d in range(3):
            try:
                u = UniformValueAnalysis(fn, d)  # type: ignore[arg-type]
            except Exception:  # noqa: BLE001 - an analysis that cannot read a shape: no kinds from it
                continue
            self.uniform.append(u)
            self.strides.append(StrideAnalysis(u, layout))  # type: ignore[arg-type]
        try:
            self.loops: LoopInfo | None = LoopInfo(fn)
        except Exception:  # noqa: BLE001
            self.loops = None

    def varying(self, v: object) -> bool:
        return any(u.is_varying(v) for u in self.uniform)

    def kind(self, v: object) -> str:
        from vectorizer.ir import values as V
        from vectorizer.ir.module import GlobalValue

        if isinstance(v, V.Constant) and not isinstance(v, GlobalValue):
            return "constant"
        return "varying" if self.varying(v) else "uniform"

    def add(self, key: str) -> None:
        self.keys[key] += 1

    def run(self) -> Counter[str]:
        from vectorizer.ir import types as T

        fn = self.fn
        rets = 0
        for bb in fn.blocks:  # type: ignore[attr-defined]
            for inst in bb.instructions:
                self.instruction(inst)
                if inst.opcode == "ret":
                    rets += 1
        if rets > 1:
            self.add("cfg: multiple returns")
        for a in fn.args:  # type: ignore[attr-defined]
            if not isinstance(a.type, T.PointerType):
                self.add(f"kernel arg {type_key(a.type, lanes=True)}")
        self.cfg()
        return self.keys

    # ------------------------------------------------------------------ CFG

    def cfg(self) -> None:
        info = self.loops
        if info is None:
            return
        if info.irreducible_regions:
            self.add("cfg: irreducible")
        for lp in info.loops:
            self.add(f"loop-depth:{lp.depth}")
            exits = lp.exit_blocks
            self.add(f"loop exits:{_bucket(len(exits), 4)}")
            if len(lp.latches) > 1:
                self.add("loop: several latches")
            varying_exit = False
            for b in lp.exiting_blocks:
                term = b.terminator
                cond = getattr(term, "condition", None)
                if cond is not None and self.varying(cond):
                    varying_exit = True
            if varying_exit:
                self.add("loop: varying exit (divergent loop)")
            latch = lp.latch
            cond = getattr(latch.terminator, "condition", None) if latch is not None else None
            if cond is not None and getattr(cond, "parent", None) is lp.header and cond.opcode == "phi":
                # The exit test carried round in a header phi (clang's loop
                # rotation; fuzz knob `carried_exit`).
                self.add("loop: latch branches on a header phi")
            outer = lp.parent
            if outer is not None and any(not outer.contains(e) for e in exits):
                self.add("loop: exit leaving an outer loop too")

    # --------------------------------------------------------- instructions

    def instruction(self, inst: object) -> None:  # noqa: C901 - one dispatch over the instruction set
        from vectorizer.ir import instructions as I
        from vectorizer.ir import types as T

        add = self.add
        ty = type_key(inst.type)  # type: ignore[attr-defined]
        if isinstance(inst, I.BinaryOperator):
            add(f"{inst.opcode}{_flags(inst.flags)} {ty}")
        elif isinstance(inst, I.UnaryOperator):
            add(f"{inst.opcode}{_flags(inst.flags)} {ty}")
        elif isinstance(inst, I.ICmpInst):
            add(f"icmp {inst.predicate}{_flags(getattr(inst, 'flags', ()))} {type_key(inst.lhs.type)}")
        elif isinstance(inst, I.FCmpInst):
            add(f"fcmp {inst.predicate}{_flags(inst.flags)} {type_key(inst.lhs.type)}")
        elif isinstance(inst, I.CastInst):
            add(f"cast {inst.opcode}{_flags(inst.flags)} {type_key(inst.value.type)} to {ty}")
        elif isinstance(inst, I.SelectInst):
            c = inst.condition
            add(f"select {type_key(c.type)}, {ty}")
            if self.varying(c):
                add("select-shape: varying condition")
                if isinstance(inst.type, (T.PointerType,)):
                    add("select-shape: pointer on a varying condition")
            elif self.varying(inst):
                add("select-shape: uniform condition, varying operands")
        elif isinstance(inst, I.PhiNode):
            self.phi(inst, ty)
        elif isinstance(inst, I.GetElementPtrInst):
            self.gep(inst)
        elif isinstance(inst, I.LoadInst):
            self.access("load", inst, inst.type, inst.pointer)
        elif isinstance(inst, I.StoreInst):
            self.access("store", inst, inst.value.type, inst.pointer)
        elif isinstance(inst, I.AllocaInst):
            at = inst.allocated_type
            kind = ("array" if isinstance(at, T.ArrayType) else "struct" if isinstance(at, T.StructType)
                    else "vector" if isinstance(at, T.VectorType) else "scalar")
            add(f"alloca {kind}")
            if inst.count is not None and self.kind(inst.count) != "constant":
                add("alloca of run-time size")
        elif isinstance(inst, I.AtomicRMWInst):
            add(f"atomicrmw {inst.operation} {type_key(inst.value.type)} addrspace({_addrspace(inst.pointer.type)})")
        elif isinstance(inst, I.AtomicCmpXchgInst):
            add(f"cmpxchg {type_key(inst.compare.type)} addrspace({_addrspace(inst.pointer.type)})")
        elif isinstance(inst, I.FenceInst):
            add("fence")
        elif isinstance(inst, I.ExtractElementInst):
            idx = "constant index" if self.kind(inst.index) == "constant" else f"{self.kind(inst.index)} index"
            add(f"extractelement {type_key(inst.vector.type)}, {idx}")
        elif isinstance(inst, I.InsertElementInst):
            idx = "constant index" if self.kind(inst.index) == "constant" else f"{self.kind(inst.index)} index"
            add(f"insertelement {type_key(inst.vector.type)}, {idx}")
        elif isinstance(inst, I.ShuffleVectorInst):
            src = inst.v1.type
            add(f"shufflevector {src.count} to {len(inst.mask)} lanes")
            add(f"shufflevector {type_key(src)}")
        elif isinstance(inst, I.ExtractValueInst):
            add(f"extractvalue {type_key(inst.aggregate.type)}")
        elif isinstance(inst, I.InsertValueInst):
            add(f"insertvalue {type_key(inst.aggregate.type)}")
        elif isinstance(inst, I.FreezeInst):
            add(f"freeze {ty}")
        elif isinstance(inst, I.CallInst):
            self.call(inst)
        elif isinstance(inst, I.BranchInst):
            if inst.is_conditional:
                add("br (varying)" if self.varying(inst.condition) else "br (uniform)")
        elif isinstance(inst, I.SwitchInst):
            add("switch (varying)" if self.varying(inst.condition) else "switch (uniform)")
            add(f"switch cases:{_bucket(len(inst.cases), 8)}")
            if len({id(b) for _, b in inst.cases} | {id(inst.default)}) < len(inst.cases) + 1:
                add("switch: several values to one block")
        elif isinstance(inst, I.UnreachableInst):
            add("unreachable")
        elif isinstance(inst, I.ReturnInst):
            if inst.value is not None:
                add(f"ret {ty}")
        elif isinstance(inst, I.OpaqueInst):
            add(f"{inst.opcode}")
        if isinstance(inst.type, (T.VectorType, T.ArrayType, T.StructType)):  # type: ignore[attr-defined]
            add(f"type {type_key(inst.type, lanes=True)}")  # type: ignore[attr-defined]

    def phi(self, inst: object, ty: str) -> None:
        add = self.add
        add(f"phi {ty}")
        n = len(inst.incoming)  # type: ignore[attr-defined]
        add(f"phi-shape: {_bucket(n, 4)} incoming")
        info = self.loops
        if info is not None and info.is_loop_header(inst.parent):  # type: ignore[attr-defined]
            add("phi-shape: loop-carried")
            from vectorizer.ir import types as T

            if isinstance(inst.type, T.PointerType):  # type: ignore[attr-defined]
                add("phi-shape: loop-carried pointer")
            if self.varying(inst):
                add("phi-shape: loop-carried varying")

    def gep(self, inst: object) -> None:
        from vectorizer.ir import types as T

        add = self.add
        ptr = inst.pointer  # type: ignore[attr-defined]
        flags = _flags(f for f in inst.flags if f != "nusw" or "inbounds" not in inst.flags)  # type: ignore[attr-defined]
        vec = isinstance(inst.type, T.VectorType)  # type: ignore[attr-defined]
        add(f"gep{flags} {type_key(T.PointerType(_addrspace(ptr.type)))}{' (vector of pointers)' if vec else ''}")
        src = inst.source_element_type  # type: ignore[attr-defined]
        kind = ("i8" if src == T.IntType(8) else "struct" if isinstance(src, T.StructType)
                else "array" if isinstance(src, T.ArrayType) else "vector" if isinstance(src, T.VectorType)
                else "scalar")
        add(f"gep into {kind}")
        idx = inst.indices  # type: ignore[attr-defined]
        if len(idx) > 2:
            add(f"gep with {_bucket(len(idx), 4)} indices")
        for i in idx:
            if isinstance(i.type, T.IntType) and i.type.bits != 64 and self.kind(i) != "constant":
                add(f"gep index {type_key(i.type)}")

    def access(self, what: str, inst: object, vty: object, ptr: object) -> None:
        add = self.add
        add(f"{what} {type_key(vty)} addrspace({_addrspace(ptr.type)})")  # type: ignore[attr-defined]
        if getattr(inst, "volatile", False):
            add(f"{what} volatile")
        if getattr(inst, "ordering", None):
            add(f"{what} atomic {inst.ordering}")  # type: ignore[attr-defined]
        try:
            elem = self.layout.store_size(vty)  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001
            elem = 0
        for s in self.strides:
            try:
                cls = _stride_class(s.info(ptr), elem)
            except Exception:  # noqa: BLE001
                continue
            add(f"access: {what} {cls}")

    def call(self, inst: object) -> None:
        add = self.add
        fn = inst.called_function  # type: ignore[attr-defined]
        if fn is None:
            add("call indirect")
            return
        name = fn.name or ""
        if name.startswith("llvm."):
            if not name.startswith(("llvm.dbg.", "llvm.lifetime.")):
                add(f"call {name}")
            return
        if not fn.is_declaration:
            add("call defined function")
            return
        kinds = ",".join(self.kind(a) for a in inst.args)  # type: ignore[attr-defined]
        if name == "printf" or name.startswith("_Z6printf"):
            add("call printf")
            return
        if name.startswith("__vecz_b_"):
            add("call Vecz internal builtin")
            return
        b = builtin_name(name)
        if b is not None:
            key = f"call builtin:{b}({kinds})"
            add(key)
            ft = fn.function_type
            self.signatures.setdefault(key, (name, str(ft.return_type), [str(t) for t in ft.params]))
        else:
            add(f"call external:{name}({kinds})")


# ---------------------------------------------------------------------------
# Reading modules


@dataclass
class ModuleResult:
    """The constructs of one module: per kernel (or function), and failures."""

    label: str
    kernels: dict[str, Counter[str]] = field(default_factory=dict)
    error: str | None = None
    signatures: dict[str, tuple[str, str, list[str]]] = field(default_factory=dict)


_KERNEL = re.compile(r'^define [^@\n]*spir_kernel [^@\n]*@"?([\w.$]+)"?\(', re.M)


def module_constructs(text: str, label: str, stage: str = "prepared") -> ModuleResult:
    """The constructs of the kernels of one module (`spir_kernel`s; every
    defined function when it has none), read at `stage`."""
    from vectorizer import llvm_bridge
    from vectorizer.analysis.data_layout import DataLayout
    from vectorizer.ir import parse_module, print_module
    from vectorizer.ir.cloning import clone_function
    from vectorizer.pipeline import PREPARATION
    from vectorizer.transform.builtin_inlining import inline_calls

    out = ModuleResult(label)
    try:
        canonical = llvm_bridge.canonicalize(text)
    except Exception as exc:  # noqa: BLE001 - a corpus file LLVM rejects is reported, not fatal
        out.error = f"{type(exc).__name__}: {str(exc)[:200]}"
        return out
    dl = re.search(r'^target datalayout = "([^"]*)"', canonical, re.M)
    layout = DataLayout.parse(dl.group(1) if dl else None)
    try:
        module = parse_module(canonical)
    except Exception as exc:  # noqa: BLE001
        out.error = f"{type(exc).__name__}: {str(exc)[:200]}"
        return out
    names = _KERNEL.findall(canonical)
    defined = [f for f in module.functions if not f.is_declaration]
    if not names:
        names = [f.name for f in defined]
    if stage == "input":
        for f in defined:
            fc = FunctionConstructs(f, layout)
            out.kernels[f.name] = fc.run()
            out.signatures.update(fc.signatures)
        return out
    clones: dict[str, str] = {}
    for i, k in enumerate(names):
        fn = module.get_function(k)
        if fn is None or fn.is_declaration:
            continue
        tmp = f"__constructs_{i}"
        clone, _ = clone_function(fn, tmp)
        try:
            inline_calls(clone, module)
        except Exception:  # noqa: BLE001 - inlining refused: analyse the clone as it is
            pass
        clones[k] = tmp
    try:
        ref = llvm_bridge.parse(print_module(module))
        prepared = canonical
        for tmp in clones.values():
            prepared = llvm_bridge.run_function_passes(ref, tmp, PREPARATION)
        pmod = parse_module(prepared)
    except Exception as exc:  # noqa: BLE001
        out.error = f"{type(exc).__name__}: {str(exc)[:200]}"
        return out
    for k, tmp in clones.items():
        f = pmod.get_function(tmp)
        if f is not None:
            try:
                fc = FunctionConstructs(f, layout)
                out.kernels[k] = fc.run()
                out.signatures.update(fc.signatures)
            except Exception as exc:  # noqa: BLE001
                out.error = f"{k}: {type(exc).__name__}: {str(exc)[:200]}"
    return out


def corpus_files(roots: Iterable[Path]) -> list[tuple[str, Path]]:
    """Every `.ll` file under `roots`, labelled by its path relative to the shared folder."""
    files: list[tuple[str, Path]] = []
    for root in roots:
        if root.is_file():
            files.append((root.name, root))
            continue
        for p in sorted(root.rglob("*.ll")):
            try:
                label = str(p.relative_to(root.parent))
            except ValueError:
                label = str(p)
            files.append((label, p))
    return files


def _real_task(args: tuple[str, str, str]) -> ModuleResult:
    label, path, stage = args
    return module_constructs(Path(path).read_text(errors="replace"), label, stage)


def _generated_task(args: tuple[int, str, str]) -> ModuleResult:
    from .generator import generate_kernel

    seed, profile, stage = args
    g = generate_kernel(seed, profile=profile)
    return module_constructs(g.text, f"seed={seed} profile={profile}", stage)


def _map(fn, tasks: list, jobs: int) -> Iterator[ModuleResult]:  # type: ignore[no-untyped-def]
    if jobs <= 1:
        for t in tasks:
            yield fn(t)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(fn, tasks, chunksize=4)


# ---------------------------------------------------------------------------
# Comparing


@dataclass
class Tally:
    """Per construct: kernels containing it, and a few examples."""

    kernels: int = 0
    errors: list[str] = field(default_factory=list)
    present: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)
    signatures: dict[str, tuple[str, str, list[str]]] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {"kernels": self.kernels, "errors": self.errors, "present": dict(self.present),
                "examples": self.examples, "signatures": self.signatures}

    @classmethod
    def from_json(cls, d: dict) -> Tally:  # type: ignore[type-arg]
        sigs = {k: (v[0], v[1], list(v[2])) for k, v in d.get("signatures", {}).items()}
        return cls(d["kernels"], list(d["errors"]), Counter(d["present"]), dict(d["examples"]), sigs)

    def add(self, result: ModuleResult, max_examples: int = 3) -> None:
        if result.error:
            self.errors.append(f"{result.label}: {result.error}")
        for k, sig in result.signatures.items():
            self.signatures.setdefault(k, sig)
        for kernel, keys in result.kernels.items():
            self.kernels += 1
            for k in keys:
                self.present[k] += 1
                ex = self.examples.setdefault(k, [])
                if len(ex) < max_examples:
                    ex.append(f"{result.label}:{kernel}")


# Constructs the generator leaves out on purpose, with the reason (a regular
# expression over keys, first match wins). docs/fuzzing.md lists them too.
_FENCES = ("an asynchronous copy, prefetch or scoped fence (`atomic_work_item_fence`): not generated (async "
           "copies run in the oracle and the builtin library defines them, but the generator makes none yet); "
           "`mem_fence`, `read_mem_fence`, `write_mem_fence` and LLVM's `fence` are generated before some atomics, "
           "barriers by the `workgroup` profile")
_COLLECTIVES = ("a sub-group or work-group collective in Vecz's `__mux_` spelling (its lit tests): the `subgroup` "
                "profile of the rotation generates the collectives by their OpenCL C names (`sub_group_*` with "
                "the non-uniform, clustered and ballot forms, `work_group_*`, `get_sub_group_*`), and `__mux_` "
                "names only for sub-group reductions and scans of add, min and max, in its kernels whose "
                "work-item queries are `__mux_` calls (a few per 1,000 rotated kernels: a sample misses some "
                "types and argument kinds); the other `__mux_` names (queries, votes, broadcasts, shuffles, "
                "work-group collectives, mul/and/or/xor and logical operations) come only from the standalone "
                "`fuzz/subgroup_kernels.subgroup_kernel`, outside the rotation")
_LIBRARY = ("an OpenCL C builtin (or overload) the builtin library, and so the oracle's runtime, does not "
            "define: a generated call to it could not run")
_ATOMIC_EXCHANGE = ("an atomic exchange builtin (`atom_xchg`, `atomic_xchg`, `atom_cmpxchg`): what stays in memory is "
                    "the last work-item's value, which depends on the order work-items run in, so scalar and "
                    "vectorized runs could not be compared; the other `atom_*`/`atomic_*` builtins are generated")
EXPLAINED: tuple[tuple[str, str], ...] = (
    (r"call builtin:(atomic_work_item_fence|__mux_mem_barrier|async_work_group\w*|wait_group_events|prefetch)\(",
     _FENCES),
    # The `__mux_` spellings only: the OpenCL C names are generated (profile
    # `subgroup`), so one a sample lacks is residue of sample size, and the
    # `__mux_` work-group barrier is generated (profile `workgroup`).
    (r"call builtin:__mux_(sub_group_|work_group_(?!barrier)|get_sub_group|get_max_sub_group|"
     r"get_num_sub_groups)", _COLLECTIVES),
    (r"spirv\.(Image|Sampler)|call builtin:(read_image|write_image|get_image_)|__translate_sampler_initializer",
     "images and samplers: the oracle runs them now (image objects in global buffers, the builtin library's "
     "read/write/query builtins), but the generator makes no image or sampler arguments yet"),
    (r"call builtin:vstoreN\(varying,varying,uniform\)",
     "vstore<N> at a per-work-item offset from the buffer's start: the offset's N elements must be the "
     "work-item's own slots, which only a buffer of exactly N slots per work-item allows; vstore<N> to a "
     "per-work-item address (offset 0 or 1) is generated"),
    (r"call builtin:clock_read", "a clock read: its value differs from run to run, so no two runs compare"),
    (r"call builtin:(atom_|atomic_)(xchg|cmpxchg)\(", _ATOMIC_EXCHANGE),
    (r"^call Vecz internal builtin$",
     "Vecz's own internal builtins (`__vecz_b_*`), in lit inputs that are already Vecz's output"),
    (r"vscale", "scalable vectors: the vectorizer produces fixed-width packets only and refuses them"),
    (r"<(1|32|64|128) x |^shufflevector (1|32|64|128) to |to (32|64|128) lanes$",
     "1-lane vectors and vectors wider than 16 lanes: no OpenCL C type (Vecz's lit tests of its legalisation)"),
    (r"\bi(48|256)\b", "integer types no OpenCL C type has (Vecz's lit tests of its legalisation)"),
    (r"\bi3\b", "an i3 value: clang -O1 turns small switches into lookup tables indexed by the selector "
                 "truncated to i3; the vectorizer's preparation builds no lookup tables, so generated switches "
                 "(which are there) stay switches"),
    (r"<16 x (i64|double)>", "16-lane 64-bit vectors: a generated kernel with them took LLVM's x86 backend "
                             "~40 s to compile at W = 16 and -O0 (256 lanes per value), which stalls campaigns; "
                             "16-lane 32-bit and 8-lane 64-bit vectors are generated"),
    (r"%struct", "first-class struct values (phi, select, load or store of a whole struct): only in Vecz's lit "
                 "tests; clang at -O1 and the vectorizer's SROA split them into fields"),
    (r"^kernel arg (i1|<\d+ x i1>)$", "bool kernel arguments: not allowed in OpenCL C (only in Vecz's lit tests)"),
    (r"call llvm\.(assume|experimental\.noalias\.scope\.decl|loop\.decrement)",
     "optimisation hints the vectorizer drops; assumptions the generator could state are folded away by "
     "the preparation's instcombine"),
    (r"^loop exits:0$", "loops without an exit: a kernel must terminate to be compared (the vectorizer's "
                        "infinite-loop handling has lit tests)"),
    (r"^cfg: irreducible$", "irreducible control flow: the vectorizer refuses it with a remark (control-flow "
                            "conversion cannot linearize it); the generator's plans are structured"),
    (r"^call external:", "a call to a function defined nowhere in the module: the oracle can only run what it "
                         "can link"),
    (r"^call defined function$", "a call left after inlining (recursion, which OpenCL C forbids): every "
                                 "generated helper is inlined"),
    (r"^(atomicrmw|cmpxchg) .* addrspace\(0\)$", "atomics on private memory (a Vecz lit test of masked "
                                                  "atomics): private memory is never shared"),
    (r"^atomicrmw (nand|xchg|fadd|fsub|fmax|fmin|fmaximum|fminimum) ",
     "an atomic whose result depends on the order work-items run in (nand, exchange, float operations: "
     "maxnum of +0 and -0 may return either): scalar and vectorized runs could not be compared"),
    (r"^(load|store) ptr", "pointers stored in memory (arrays of pointers): not generated yet; generated "
                           "pointers stay in registers (selects, phis, compares, differences, integer casts)"),
    (r"^unreachable$", "`unreachable` (a Vecz lit test of poison): reaching it is undefined behaviour, which "
                       "generated kernels exclude"),
    (r"^gep index i32$", "i32 GEP indices: kept only in modules whose pointers index with 32 bits (Vecz's "
                         "lit inputs); on x86-64 the preparation's instcombine widens them to i64"),
    (r"^phi ptr addrspace\(3\)$", "a pointer induction variable over `__local` memory shared by the "
                                    "work-group (a reduction tree): the generator's pointer induction variables "
                                    "walk input buffers; not generated yet"),
    (r"^phi-shape: 6\+ incoming$|^loop exits:5\+$",
     "a phi of six or more paths or a loop of five exits (PoCL's unit tests, where every failed check "
     "prints and returns): the generator's switches have at most four cases and its loops at most four "
     "exits (its own, break 2, break 3, return)"),
)

_FLAGS = frozenset({"nsw", "nuw", "exact", "disjoint", "nneg", "samesign", "inbounds", "nusw",
                    "fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc"})
_TYPE = re.compile(r"<(?:vscale x )?(?:\d+|n|N) x [^>]+>|\bptr addrspace\(\d+\)|\bptr\b|\bi\d+\b|\bhalf\b|"
                   r"\bfloat\b|\bdouble\b|\.(?:v\d+)?(?:[if]\d+|p\d+)\b")


def _unflagged(key: str) -> str:
    return " ".join(w for w in key.split(" ") if w not in _FLAGS)


def _untyped(key: str) -> str:
    return _TYPE.sub("T", key)


def runtime_defines(signature: tuple[str, str, list[str]] | None) -> bool | None:
    """Does the oracle's runtime define the builtin (callee, return type,
    parameter types)? None when unknown."""
    if signature is None:
        return None
    from oracle import runtime

    name, ret, params = signature
    try:
        # The runtime's own emitter: asking it is what running such a kernel does.
        return runtime.builtin_definition(name, runtime.FnSig(ret, tuple(params)), runtime._Emitter()) is not None
    except runtime.Unsupported:
        return False
    except Exception:  # noqa: BLE001 - a signature it cannot read: not defined either
        return False


def explanation(key: str, generated: Counter[str] | None = None,
                signature: tuple[str, str, list[str]] | None = None) -> str | None:
    """Why the generator does not produce construct `key`, if that is known:
    a reason of `EXPLAINED`, or, given the generated constructs, one of two
    kinds of residue that more kernels would not change in kind:
    - flags: the same operation on the same types is generated, and each of
      the flags on this opcode, but not this combination (the preparation's
      instcombine re-derives flags from the value ranges it can prove);
    - types: the same operation is generated on other types (the type
      palette is drawn per kernel; which pairs 1,000 kernels hold is chance)."""
    for pattern, reason in EXPLAINED:
        if re.search(pattern, key):
            return reason
    if generated is None:
        return None
    flags = [w for w in key.split(" ") if w in _FLAGS]
    op = key.split(" ")[0]
    if flags:
        bare = _unflagged(key)
        same = [k for k in generated if _unflagged(k) == bare]
        if same and all(any(k.split(" ")[0] == op and f in k.split(" ") for k in generated) for f in flags):
            return f"flag combination re-derived by instcombine: generated as `{sorted(same)[0]}`, each flag on `{op}`"
    shape = _untyped(key)
    if shape != key and not key.startswith(("type ", "kernel arg ")):
        others = sorted(k for k in generated if _untyped(k) == shape)
        if others:
            return f"the same operation on other types is generated (`{others[0]}`)"
    if key.startswith("call builtin:"):
        if runtime_defines(signature) is False:
            return _LIBRARY
        name = key.split("(")[0]
        conversion = re.match(r"call builtin:convert_(\w+?)(N?)(_sat)?(_rt[enpz])?\(", key)
        if conversion:
            # Ten spellings (saturation, rounding) per destination, width and
            # argument kinds; which of them 1,000 kernels hold is chance.
            dest, width = conversion.group(1), conversion.group(2)
            kinds = key[key.index("("):]
            like = [k for k in generated
                    if re.match(rf"call builtin:convert_{dest}{width}(_sat)?(_rt[enpz])?\(", k)]
            same = sorted(k for k in like if k.endswith(kinds)) or sorted(like)
            if same:
                return (f"the same conversion with another saturation or rounding mode is generated "
                        f"(`{same[0]}`)")
        kinds = sorted({k[len(name):] for k in generated if k.split("(")[0] == name})
        if kinds:
            return (f"generated with other argument kinds {', '.join(kinds[:4])}: each builtin argument is drawn "
                    "varying, uniform or constant, and which combinations 1,000 kernels hold is chance")
    return None


def _group(reason: str) -> str:
    """The heading a reason is listed under (residue reasons name their example)."""
    for head in ("flag combination re-derived by instcombine", "the same operation on other types is generated",
                 "generated with other argument kinds",
                 "the same conversion with another saturation or rounding mode is generated"):
        if reason.startswith(head):
            return head + " (residue: see docs/fuzzing.md)"
    return reason


@dataclass
class Comparison:
    real: Tally
    generated: Tally

    @property
    def missing(self) -> list[str]:
        """Constructs of real code that no generated kernel contains, most common first."""
        keys = [k for k in self.real.present if k not in self.generated.present]
        return sorted(keys, key=lambda k: (-self.real.present[k], k))

    def why(self, key: str) -> str | None:
        return explanation(key, self.generated.present, self.real.signatures.get(key))

    def unexplained(self) -> list[str]:
        return [k for k in self.missing if self.why(k) is None]

    def as_dict(self) -> dict[str, object]:
        return {
            "real_kernels": self.real.kernels,
            "generated_kernels": self.generated.kernels,
            "real_constructs": len(self.real.present),
            "generated_constructs": len(self.generated.present),
            "errors": self.real.errors + self.generated.errors,
            "missing": [
                {"construct": k, "real_kernels": self.real.present[k], "examples": self.real.examples[k],
                 "explanation": self.why(k)}
                for k in self.missing
            ],
        }

    def table(self, explained: bool = True) -> str:
        lines = [
            f"real code: {self.real.kernels} kernels, {len(self.real.present)} constructs; "
            f"generated: {self.generated.kernels} kernels, {len(self.generated.present)} constructs",
        ]
        miss = self.missing
        unexplained = [k for k in miss if self.why(k) is None]
        lines.append(f"missing from the generated kernels: {len(miss)} ({len(unexplained)} unexplained)")
        lines.append("")
        lines.append(f"{'construct':64} {'kernels':>7}  example")
        for k in unexplained:
            lines.append(f"{k:64} {self.real.present[k]:7d}  {self.real.examples[k][0]}")
        if explained:
            groups: dict[str, list[str]] = {}
            for k in miss:
                r = self.why(k)
                if r is not None:
                    groups.setdefault(_group(r), []).append(k)
            for reason, keys in groups.items():
                lines.append("")
                lines.append(f"explained: {reason}")
                for k in keys:
                    lines.append(f"  {k:62} {self.real.present[k]:7d}  {self.real.examples[k][0]}")
        for e in (self.real.errors + self.generated.errors)[:20]:
            lines.append(f"unreadable: {e}")
        return "\n".join(lines)


def real_tally(roots: Iterable[Path] = DEFAULT_ROOTS, stage: str = "prepared", jobs: int = 1,
               limit: int | None = None) -> Tally:
    """The constructs of the real corpora."""
    files = corpus_files(roots)[:limit]
    tally = Tally()
    for r in _map(_real_task, [(label, str(p), stage) for label, p in files], jobs):
        tally.add(r)
    return tally


def generated_tally(count: int = 1000, seed: int = 0, profiles: Iterable[str] | None = None,
                    stage: str = "prepared", jobs: int = 1) -> Tally:
    """The constructs of `count` generated kernels, seeds `seed..`, profile
    `profiles[i % len]` for seed number i."""
    from .knobs import PROFILES

    profs = list(profiles or PROFILES)
    tasks = [(seed + i, profs[i % len(profs)], stage) for i in range(count)]
    tally = Tally()
    for r in _map(_generated_task, tasks, jobs):
        tally.add(r, max_examples=1)
    return tally


# ---------------------------------------------------------------------------
# Command line


def main(argv: list[str] | None = None) -> int:
    """`python -m fuzz.constructs`: constructs of real kernels the generator never produces."""
    from .knobs import PROFILES

    ap = argparse.ArgumentParser(prog="python -m fuzz.constructs", description=main.__doc__)
    ap.add_argument("--count", type=int, default=1000, help="generated kernels (default 1000)")
    ap.add_argument("--seed", type=int, default=0, help="first generator seed")
    ap.add_argument("--profiles", default=",".join(PROFILES),
                    help="generator profiles, rotated over the seeds (default: all)")
    ap.add_argument("--stage", choices=STAGES, default="prepared",
                    help="read kernels as the vectorizer's analyses see them (default) or as written")
    ap.add_argument("--roots", nargs="*", type=Path, default=list(DEFAULT_ROOTS),
                    help="folders (or files) of real kernels")
    ap.add_argument("--limit", type=int, default=None, help="read at most this many real files")
    ap.add_argument("--jobs", type=int, default=1, help="processes")
    ap.add_argument("--real-cache", type=Path, default=None,
                    help="read the real corpora's constructs from this JSON file, or write it there")
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    ap.add_argument("--all", action="store_true", help="also list explained constructs (default in text)")
    try:
        args = ap.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0) and 2
    profiles = [p for p in args.profiles.split(",") if p]
    unknown = [p for p in profiles if p not in PROFILES]
    if unknown or not profiles:
        print(f"python -m fuzz.constructs: error: unknown profile(s) {', '.join(unknown) or '(none)'}; "
              f"known: {', '.join(PROFILES)}", file=sys.stderr)
        return 2
    missing_roots = [str(r) for r in args.roots if not r.exists()]
    if missing_roots:
        print(f"python -m fuzz.constructs: error: no such folder: {', '.join(missing_roots)}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    cache = args.real_cache
    if cache is not None and cache.exists():
        try:
            real = Tally.from_json(json.loads(cache.read_text()))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            print(f"python -m fuzz.constructs: error: bad cache {cache}: {exc}", file=sys.stderr)
            return 2
    else:
        real = real_tally(args.roots, args.stage, args.jobs, args.limit)
        if cache is not None:
            cache.write_text(json.dumps(real.to_json()))
    t1 = time.perf_counter()
    generated = generated_tally(args.count, args.seed, profiles, args.stage, args.jobs)
    t2 = time.perf_counter()
    cmp = Comparison(real, generated)
    if args.json:
        d = cmp.as_dict()
        d["seconds"] = {"real": round(t1 - t0, 1), "generated": round(t2 - t1, 1)}
        print(json.dumps(d, indent=1))
    else:
        print(cmp.table())
        print(f"({t1 - t0:.0f} s reading real code, {t2 - t1:.0f} s generating)")
    return 1 if cmp.unexplained() else 0


if __name__ == "__main__":
    sys.exit(main())
