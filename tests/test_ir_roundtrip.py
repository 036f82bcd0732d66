"""Lossless round trips of `vectorizer.ir`: canonical LLVM text -> parse ->
print -> LLVM gives the same canonical text.

Sources: every verifying file of the peer corpus (vecz lit tests), a
hand-written module exercising the rarer syntax, `llvm-stress` programs when
the tool is installed, and random functions built with the Builder.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vectorizer import llvm_bridge
from vectorizer.ir import Builder, Module, parse_module, print_module
from vectorizer.ir import instructions as I
from vectorizer.ir import types as T
from vectorizer.ir import values as V

CORPUS = Path(__file__).parents[1] / ".." / "shared" / "peer-corpus" / "vecz-lit"


def roundtrip(canonical: str) -> str:
    """canonicalize(print_module(parse_module(canonical)))."""
    return llvm_bridge.canonicalize(print_module(parse_module(canonical)))


# ------------------------------------------------------------ peer corpus


def test_peer_corpus_roundtrip() -> None:
    if not CORPUS.is_dir():
        pytest.skip(f"peer corpus not found at {CORPUS.resolve()}")
    files = sorted(CORPUS.rglob("*.ll"))
    verified = 0
    failures: list[str] = []
    for path in files:
        try:
            canonical = llvm_bridge.canonicalize(path.read_text())
        except llvm_bridge.IRError:
            continue  # not valid for LLVM 22: not ours to round-trip
        verified += 1
        try:
            if roundtrip(canonical) != canonical:
                failures.append(f"{path.relative_to(CORPUS)}: text differs")
        except Exception as exc:  # report every failing file at once
            failures.append(f"{path.relative_to(CORPUS)}: {type(exc).__name__}: {exc}")
    print(f"peer corpus round trip: {verified - len(failures)}/{verified} (of {len(files)} files)")
    assert not failures, "\n".join(failures)
    assert verified == len(files) == 312


def test_optimized_peer_corpus_roundtrip() -> None:
    """The corpus after LLVM's -O3 with both vectorizers: the shapes LLVM's
    own passes print (reductions, loop metadata, flags, vector intrinsics)."""
    if not CORPUS.is_dir():
        pytest.skip(f"peer corpus not found at {CORPUS.resolve()}")
    checked = 0
    for path in sorted(CORPUS.rglob("*.ll")):
        try:
            canonical = llvm_bridge.canonicalize(llvm_bridge.optimize(path.read_text(), 3, vectorize=True))
        except llvm_bridge.IRError:
            continue
        assert roundtrip(canonical) == canonical, path.relative_to(CORPUS)
        checked += 1
    print(f"optimized peer corpus round trip: {checked}")
    assert checked == 312


# --------------------------------------------------------- rare syntax

KITCHEN_SINK = r"""
source_filename = "kitchen.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

module asm "nop"

%struct.S = type { i32, %struct.T, [4 x float] }
%struct.T = type <{ i8, i64 }>
%"quoted type" = type { ptr addrspace(1) }
%opaque.O = type opaque

$comdat.fn = comdat any

@g = dso_local global i32 5, align 4
@"\01weird name" = internal constant [6 x i8] c"he\22l\0A\00", section ".rodata", align 1
@0 = private unnamed_addr constant { i32, float } { i32 1, float 2.5 }
@tls = thread_local(initialexec) global i64 0
@ext = external addrspace(1) global float
@ext2 = external externally_initialized global i32, align 8
@arr = global [3 x ptr] [ptr @g, ptr null, ptr getelementptr inbounds (i8, ptr @g, i64 4)]
@ce = global i64 add (i64 ptrtoint (ptr @g to i64), i64 8)
@ba = global ptr blockaddress(@indirect, %target)
@vec = global <4 x i32> <i32 1, i32 -2, i32 3, i32 4>
@h = global half 0xH3C00
@bf = global bfloat 0xR3F80
@x80 = global x86_fp80 0xK4000C000000000000000
@q = global fp128 0xL00000000000000004000800000000000
@ppc = global ppc_fp128 0xM3FF00000000000000000000000000000
@nan = global double 0x7FF8000000000000
@fnan = global float 0x7FF8000020000000
@fneg0 = global float -0.000000e+00
@pk = global %struct.T <{ i8 1, i64 2 }>
@st = global %struct.S { i32 1, %struct.T <{ i8 2, i64 3 }>, [4 x float] zeroinitializer }
@qt = global %"quoted type" zeroinitializer
@dse = global ptr dso_local_equivalent @decl
@fnptr = global ptr @comdat_fn
@opq = external global %opaque.O
@md_user = global i32 0, !dbg !20

@alias = alias i32, ptr @g
@ifn = ifunc void (), ptr @resolver

define dso_local i32 @kitchen(ptr noundef %p, i32 %n, <4 x float> %v, ...) #0 personality ptr @__gxx_personality_v0 !dbg !10 {
entry:
  %a = alloca [4 x i32], align 16, addrspace(5)
  %cnt = alloca i32, i32 %n, align 4
  %l = load volatile i32, ptr %p, align 4, !tbaa !5
  %la = load atomic i32, ptr %p syncscope("agent") seq_cst, align 4
  store atomic i32 %la, ptr %p release, align 4
  store volatile i32 1, ptr %p, align 4, !nontemporal !6
  fence syncscope("singlethread") acquire
  fence seq_cst
  %x = add nuw nsw i32 %l, 1, !dbg !11
    #dbg_value(i32 %x, !12, !DIExpression(), !11)
    #dbg_value(!DIArgList(i32 %x, i32 %n), !12, !DIExpression(DW_OP_LLVM_arg, 0, DW_OP_LLVM_arg, 1, DW_OP_plus, DW_OP_stack_value), !11)
    #dbg_declare(ptr %cnt, !12, !DIExpression(), !11)
  %y = udiv exact i32 %x, 4
  %z = or disjoint i32 %y, 1
  %f = fadd reassoc nnan float 1.000000e+00, 0x3FB99999A0000000
  %fn = fneg nsz float %f
  %c = icmp samesign ult i32 %x, %z
  %fc = fcmp fast ogt float %f, %fn
  %s = select nnan i1 %c, float %f, float %fn
  %e = extractelement <4 x float> %v, i64 2
  %ins = insertelement <4 x float> %v, float %e, i32 0
  %sh = shufflevector <4 x float> %ins, <4 x float> poison, <8 x i32> <i32 0, i32 poison, i32 2, i32 3, i32 0, i32 1, i32 2, i32 7>
  %sh0 = shufflevector <4 x float> %ins, <4 x float> undef, <4 x i32> zeroinitializer
  %agg = insertvalue { i32, { float, ptr } } poison, float %f, 1, 0
  %ev = extractvalue { i32, { float, ptr } } %agg, 1, 0
  %fr = freeze i32 %z
  %rmw = atomicrmw volatile fadd ptr %p, float 1.000000e+00 syncscope("agent") monotonic, align 4
  %cx = cmpxchg weak volatile ptr %p, i32 %x, i32 %y syncscope("workgroup") acq_rel monotonic, align 4
  %cx0 = extractvalue { i32, i1 } %cx, 0
  %z8 = zext nneg i32 %fr to i64
  %t8 = trunc nuw nsw i64 %z8 to i8
  %fpt = fpext nnan ninf float %f to double
  %fptr = fptrunc fast double %fpt to float
  %gep = getelementptr inbounds nuw %struct.S, ptr %p, i64 %z8, i32 2, i64 1
  %gepv = getelementptr i32, ptr %p, <4 x i64> <i64 0, i64 1, i64 2, i64 3>
  %gepn = getelementptr nusw i8, ptr %p, i64 1
  %call = call float @llvm.fma.f32(float %f, float %e, float %s)
  %tc = tail call fast float @llvm.sqrt.f32(float %f) #1
  %va = call i32 (ptr, ...) @printf(ptr @"\01weird name", i32 %x, double 1.000000e+00)
  call void asm sideeffect "nop", "~{memory}"()
  %b = call token @llvm.experimental.convergence.entry()
  call void @decl(ptr byval(%struct.S) align 8 %p, ptr nonnull dereferenceable(4) %cnt) [ "convergencectrl"(token %b) ]
  %r = call noundef zeroext i8 @retattr(i32 signext 3) #2
  %ptra = call ptr @llvm.ptrmask.p0.i64(ptr %p, i64 -8)
  %ap = alloca ptr, align 8
  call void @llvm.va_start.p0(ptr %ap)
  %vaa = va_arg ptr %ap, i32
  call void @llvm.va_end.p0(ptr %ap)
  %vs = call <vscale x 4 x i32> @llvm.vector.splice.nxv4i32(<vscale x 4 x i32> zeroinitializer, <vscale x 4 x i32> splat (i32 1), i32 1)
  %vsh = shufflevector <vscale x 4 x i32> %vs, <vscale x 4 x i32> poison, <vscale x 4 x i32> zeroinitializer
  %sx = bitcast i16 7 to half
  %hf = fadd half %sx, 0xH3C00
  switch i32 %n, label %sw.default [
    i32 0, label %bb1
    i32 7, label %"quoted block"
  ]

bb1:
  %res = invoke i32 @may_throw(i32 %x)
          to label %cont unwind label %lpad

cont:
  %phi = phi i32 [ %res, %bb1 ], [ %fwd, %loop ]
  %fwd = add i32 %phi, 1
  br label %loop

loop:
  %cmp2 = icmp slt i32 %fwd, 100
  br i1 %cmp2, label %cont, label %"quoted block"

lpad:
  %lp = landingpad { ptr, i32 }
          cleanup
          catch ptr null
  resume { ptr, i32 } %lp

"quoted block":
  %q = phi float [ %f, %entry ], [ 2.000000e+00, %loop ]
  ret i32 %x

sw.default:
  %7 = add i32 %n, 1
  br label %8

8:
  unreachable
}

define internal void @indirect(ptr %dest) {
entry:
  indirectbr ptr %dest, [label %target, label %other]

target:
  ret void

other:
  ret void
}

define linkonce_odr hidden fastcc void @comdat_fn() unnamed_addr comdat($comdat.fn) align 16 {
  ret void
}

define void @musttail_caller(i32 %a) {
  musttail call void @musttail_callee(i32 %a)
  ret void
}

define void @musttail_callee(i32 %a) {
  ret void
}

define i32 @unnamed_entry(i32, i32) {
  %3 = add i32 %0, %1
  br label %4

4:
  %5 = phi i32 [ %3, %2 ], [ %6, %4 ]
  %6 = mul i32 %5, 2
  %7 = icmp eq i32 %6, 0
  br i1 %7, label %4, label %8

8:
  ret i32 %6
}

define void @targetext(target("spirv.Event") %ev) {
  %t = alloca target("spirv.Event"), align 8
  ret void
}

define ptr @resolver() {
  ret ptr @decl
}

define spir_kernel void @gc_fn() gc "statepoint-example" prefix i32 123 {
  ret void
}

define cc 10 void @numbered_cc() {
  ret void
}

define float @strict(float %x) #3 {
  %a = call float @llvm.experimental.constrained.fadd.f32(float %x, float %x, metadata !"round.dynamic", metadata !"fpexcept.strict") #3
  call void @llvm.experimental.noalias.scope.decl(metadata !40)
  call void @llvm.foo(metadata i32 42, metadata ptr null, metadata float %x)
  ret float %a
}

declare float @llvm.experimental.constrained.fadd.f32(float, float, metadata, metadata)
declare void @llvm.experimental.noalias.scope.decl(metadata)
declare void @llvm.foo(metadata, metadata, metadata)
declare i32 @printf(ptr, ...)
declare void @decl(ptr, ptr)
declare zeroext i8 @retattr(i32 signext)
declare i32 @may_throw(i32)
declare i32 @__gxx_personality_v0(...)
declare float @llvm.fma.f32(float, float, float)
declare float @llvm.sqrt.f32(float)
declare token @llvm.experimental.convergence.entry()
declare ptr @llvm.ptrmask.p0.i64(ptr, i64)
declare void @llvm.va_start.p0(ptr)
declare void @llvm.va_end.p0(ptr)
declare <vscale x 4 x i32> @llvm.vector.splice.nxv4i32(<vscale x 4 x i32>, <vscale x 4 x i32>, i32)

attributes #0 = { convergent noinline nounwind "frame-pointer"="all" }
attributes #1 = { nounwind }
attributes #2 = { "foo"="bar" }
attributes #3 = { strictfp }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}
!opencl.kernels = !{!30}

!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, producer: "clang", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug, globals: !2)
!1 = !DIFile(filename: "k.c", directory: "/tmp")
!2 = !{!20}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 7, !"Dwarf Version", i32 5}
!5 = !{!"int", !7, i64 0}
!6 = !{i32 1}
!7 = !{!"tbaa root"}
!10 = distinct !DISubprogram(name: "kitchen", scope: !1, file: !1, line: 1, type: !13, scopeLine: 1, spFlags: DISPFlagDefinition, unit: !0)
!11 = !DILocation(line: 2, column: 3, scope: !10)
!12 = !DILocalVariable(name: "x", scope: !10, file: !1, line: 2, type: !14)
!13 = !DISubroutineType(types: !{!14})
!14 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!20 = !DIGlobalVariableExpression(var: !21, expr: !DIExpression())
!21 = distinct !DIGlobalVariable(name: "md_user", scope: !0, file: !1, line: 1, type: !14, isLocal: false, isDefinition: true)
!30 = !{ptr @kitchen, !"kitchen"}
!40 = !{!41}
!41 = distinct !{!41, !42, !"scope"}
!42 = distinct !{!42, !"domain"}
"""


def test_kitchen_sink_roundtrip() -> None:
    canonical = llvm_bridge.canonicalize(KITCHEN_SINK)
    assert roundtrip(canonical) == canonical
    # Our own output is a fixed point of parse+print.
    ours = print_module(parse_module(canonical))
    assert print_module(parse_module(ours)) == ours


def test_kitchen_sink_renaming_follows_references() -> None:
    """Metadata, blockaddress and personality name globals by reference, so a
    renamed function is renamed everywhere."""
    m = parse_module(llvm_bridge.canonicalize(KITCHEN_SINK))
    m.get_function("kitchen").name = "renamed"
    m.get_function("indirect").name = "indirect2"
    m.get_function("__gxx_personality_v0").name = "pers"
    text = print_module(m)
    assert "!{ptr @renamed" in text
    assert "blockaddress(@indirect2, %target)" in text
    assert "personality ptr @pers" in text
    llvm_bridge.verify(text)


# ------------------------------------------------------------- llvm-stress

STRESS = shutil.which("llvm-stress") or ("/usr/bin/llvm-stress" if Path("/usr/bin/llvm-stress").exists() else None)
STRESS_SEEDS = list(range(1, 41))


@pytest.mark.skipif(STRESS is None, reason="llvm-stress is not installed")
def test_llvm_stress_roundtrip() -> None:
    assert STRESS is not None
    checked = 0
    for seed in STRESS_SEEDS:
        for size in (100, 300):
            out = subprocess.run(
                [STRESS, "-seed", str(seed), "-size", str(size)], capture_output=True, text=True, check=True
            ).stdout
            canonical = llvm_bridge.canonicalize(out)  # LLVM 22 upgrades LLVM 14's typed pointers
            assert roundtrip(canonical) == canonical, f"seed {seed} size {size}"
            optimized = llvm_bridge.canonicalize(llvm_bridge.optimize(canonical, 3, vectorize=True))
            assert roundtrip(optimized) == optimized, f"seed {seed} size {size} after -O3"
            checked += 1
    print(f"llvm-stress round trip: {checked} programs")
    assert checked == 2 * len(STRESS_SEEDS)


# ---------------------------------------------------- random Builder programs


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_builder_functions_roundtrip(data: st.DataObject) -> None:
    module = build_random_module(data.draw)
    text = print_module(module)
    canonical = llvm_bridge.canonicalize(text)  # LLVM verifies what we built
    again = parse_module(text)
    assert print_module(again) == text
    assert roundtrip(canonical) == canonical


# The generator: a function over a pool of dominating values, built from
# nested regions (straight code, if/else diamonds, loops, switches), using
# every instruction kind the IR models.

_VEC_I = T.VectorType(T.i32, 4)
_VEC_F = T.VectorType(T.f32, 4)
_VEC_B = T.VectorType(T.i1, 4)
_AGG = T.StructType((T.i32, T.f32))
_POOL_TYPES = (T.i1, T.i8, T.i32, T.i64, T.f32, T.f64, _VEC_I, _VEC_F, _VEC_B, T.ptr, _AGG)
_NAMES = (None, None, None, "x", "x", "x.1", "a b", "5", "v", "\x01q")
_INT_FLAGS = {"add": ("nuw", "nsw"), "sub": ("nuw", "nsw"), "mul": ("nuw", "nsw"), "shl": ("nuw", "nsw"),
              "udiv": ("exact",), "sdiv": ("exact",), "lshr": ("exact",), "ashr": ("exact",), "or": ("disjoint",)}
_FMF = ("nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc", "fast")


class _Gen:
    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw
        self.m = Module()
        self.m.source_filename = "random"
        self.ext = self.m.add_function("ext", T.FunctionType(T.i32, (T.i32, T.f32)))
        self.fabs = self.m.get_or_insert_function("llvm.fabs.f32", T.FunctionType(T.f32, (T.f32,)))
        fty = T.FunctionType(T.i32, (T.ptr, T.i32, T.f32, _VEC_I, T.i64))
        self.fn = self.m.add_function("f", fty)
        for a, nm in zip(self.fn.args, ("p", None, "f", None, "w"), strict=True):
            a.name = nm if draw(st.booleans()) else None
        self.b = Builder(self.fn.add_block(draw(st.sampled_from((None, "entry")))))
        self.budget = draw(st.integers(5, 60))

    def name(self) -> str | None:
        return self.draw(st.sampled_from(_NAMES))

    def pick(self, pool: dict[T.Type, list[V.Value]], ty: T.Type) -> V.Value:
        vals = pool.get(ty, [])
        if vals and self.draw(st.integers(0, 3)):
            return self.draw(st.sampled_from(vals))
        return self.const(ty)

    def const(self, ty: T.Type) -> V.Value:
        d = self.draw
        if isinstance(ty, T.IntType):
            return V.const_int(ty, d(st.integers(-(2 ** (ty.bits - 1)), 2**ty.bits - 1)))
        if isinstance(ty, T.FloatType):
            return V.const_fp(ty, d(st.floats(allow_nan=True, width=32 if ty.bits == 32 else 64)))
        if isinstance(ty, T.VectorType):
            kind = d(st.sampled_from(("splat", "vec", "zero", "poison", "undef")))
            if kind == "splat":
                return V.splat(ty, self.const(ty.element))
            if kind == "vec":
                return V.ConstantVector(ty, [self.const(ty.element) for _ in range(ty.count)])
            return {"zero": V.ConstantAggregateZero, "poison": V.PoisonValue, "undef": V.UndefValue}[kind](ty)
        if isinstance(ty, T.PointerType):
            return V.ConstantPointerNull(ty)
        if isinstance(ty, T.StructType):
            if d(st.booleans()):
                return V.ConstantStruct(ty, [self.const(e) for e in ty.elements])
            return V.PoisonValue(ty)
        raise AssertionError(ty)

    def emit(self, pool: dict[T.Type, list[V.Value]]) -> None:
        d, b = self.draw, self.b
        kind = d(st.sampled_from((
            "ibin", "fbin", "fneg", "icmp", "fcmp", "select", "cast", "gep", "load", "store",
            "extractelement", "insertelement", "shufflevector", "extractvalue", "insertvalue",
            "freeze", "atomicrmw", "cmpxchg", "fence", "call",
        )))
        p = self.fn.args[0]
        v: V.Value | None = None
        if kind == "ibin":
            ty = d(st.sampled_from((T.i32, T.i64, _VEC_I, T.i8)))
            op = d(st.sampled_from(I.INT_BINARY_OPCODES))
            flags = d(st.lists(st.sampled_from(_INT_FLAGS.get(op, ("nuw",))), max_size=2)) if op in _INT_FLAGS else []
            v = b.binop(op, self.pick(pool, ty), self.pick(pool, ty), flags, name=self.name())
        elif kind == "fbin":
            ty = d(st.sampled_from((T.f32, T.f64, _VEC_F)))
            op = d(st.sampled_from(I.FP_BINARY_OPCODES))
            v = b.binop(op, self.pick(pool, ty), self.pick(pool, ty), d(st.lists(st.sampled_from(_FMF), max_size=3)),
                        name=self.name())
        elif kind == "fneg":
            ty = d(st.sampled_from((T.f32, _VEC_F)))
            v = b.fneg(self.pick(pool, ty), d(st.lists(st.sampled_from(_FMF), max_size=2)), name=self.name())
        elif kind == "icmp":
            ty = d(st.sampled_from((T.i32, T.i64, _VEC_I, T.ptr)))
            flags = ["samesign"] if d(st.booleans()) else []
            v = b.icmp(d(st.sampled_from(I.ICMP_PREDICATES)), self.pick(pool, ty), self.pick(pool, ty), flags,
                       name=self.name())
        elif kind == "fcmp":
            ty = d(st.sampled_from((T.f32, T.f64, _VEC_F)))
            v = b.fcmp(d(st.sampled_from(I.FCMP_PREDICATES)), self.pick(pool, ty), self.pick(pool, ty),
                       d(st.lists(st.sampled_from(_FMF), max_size=2)), name=self.name())
        elif kind == "select":
            ty = d(st.sampled_from(_POOL_TYPES))
            flags = d(st.lists(st.sampled_from(_FMF), max_size=2)) if ty in (T.f32, T.f64) else []
            v = b.select(self.pick(pool, T.i1), self.pick(pool, ty), self.pick(pool, ty), flags, name=self.name())
        elif kind == "cast":
            op, src, dst, flags = d(st.sampled_from((
                ("trunc", T.i64, T.i32, ("nuw", "nsw")), ("trunc", T.i32, T.i8, ()), ("zext", T.i8, T.i32, ("nneg",)),
                ("sext", T.i32, T.i64, ()), ("sitofp", T.i32, T.f32, ()), ("uitofp", T.i64, T.f64, ("nneg",)),
                ("fptosi", T.f32, T.i32, ()), ("fptoui", T.f64, T.i64, ()), ("fpext", T.f32, T.f64, ()),
                ("fptrunc", T.f64, T.f32, ()), ("bitcast", _VEC_I, _VEC_F, ()), ("bitcast", _VEC_F, _VEC_I, ()),
                ("ptrtoint", T.ptr, T.i64, ()), ("inttoptr", T.i64, T.ptr, ()),
                ("zext", _VEC_B, _VEC_I, ()), ("trunc", _VEC_I, _VEC_B, ()),
            )))
            v = b.cast(op, self.pick(pool, src), dst, d(st.lists(st.sampled_from(flags), max_size=2)) if flags else (),
                       name=self.name())
        elif kind == "gep":
            flags = d(st.lists(st.sampled_from(("inbounds", "nuw", "nusw")), max_size=2))
            if d(st.booleans()):
                v = b.gep(T.i32, self.pick(pool, T.ptr), [self.pick(pool, T.i64)], flags, name=self.name())
            else:
                v = b.gep(_AGG, self.pick(pool, T.ptr), [self.pick(pool, T.i64), d(st.integers(0, 1))], flags,
                          name=self.name())
        elif kind == "load":
            ty = d(st.sampled_from((T.i32, T.f32, _VEC_I, T.ptr)))
            atomic = ty in (T.i32, T.ptr) and d(st.booleans())
            order = d(st.sampled_from(("unordered", "monotonic", "acquire", "seq_cst"))) if atomic else None
            scope = d(st.sampled_from((None, "singlethread", "agent"))) if atomic else None
            align = d(st.sampled_from((None, 4, 16))) if not atomic else 16
            v = b.load(ty, p, align, d(st.booleans()), order, scope, name=self.name())
        elif kind == "store":
            ty = d(st.sampled_from((T.i32, T.f32, _VEC_I, T.i64)))
            atomic = ty in (T.i32, T.i64) and d(st.booleans())
            order = d(st.sampled_from(("unordered", "monotonic", "release", "seq_cst"))) if atomic else None
            b.store(self.pick(pool, ty), p, 16 if atomic else d(st.sampled_from((None, 4, 16))), d(st.booleans()),
                    order)
        elif kind == "extractelement":
            ty = d(st.sampled_from((_VEC_I, _VEC_F, _VEC_B)))
            idx = d(st.integers(0, 3)) if d(st.booleans()) else self.pick(pool, T.i64)
            v = b.extractelement(self.pick(pool, ty), idx, name=self.name())
        elif kind == "insertelement":
            ty = d(st.sampled_from((_VEC_I, _VEC_F)))
            v = b.insertelement(self.pick(pool, ty), self.pick(pool, ty.element), d(st.integers(0, 3)),
                                name=self.name())
        elif kind == "shufflevector":
            ty = d(st.sampled_from((_VEC_I, _VEC_F)))
            mask = d(st.lists(st.integers(-1, 7), min_size=4, max_size=4))
            v = b.shufflevector(self.pick(pool, ty), self.pick(pool, ty), mask, name=self.name())
        elif kind == "extractvalue":
            v = b.extractvalue(self.pick(pool, _AGG), d(st.integers(0, 1)), name=self.name())
        elif kind == "insertvalue":
            k = d(st.integers(0, 1))
            v = b.insertvalue(self.pick(pool, _AGG), self.pick(pool, _AGG.elements[k]), k, name=self.name())
        elif kind == "freeze":
            v = b.freeze(self.pick(pool, d(st.sampled_from(_POOL_TYPES))), name=self.name())
        elif kind == "atomicrmw":
            op, ty = d(st.sampled_from((("add", T.i32), ("xchg", T.i64), ("umax", T.i32), ("fadd", T.f32),
                                         ("nand", T.i32), ("fmin", T.f32))))
            v = b.atomicrmw(op, p, self.pick(pool, ty), d(st.sampled_from(("monotonic", "acq_rel", "seq_cst"))),
                            d(st.sampled_from((None, "agent"))), d(st.booleans()), 4 if ty != T.i64 else 8,
                            name=self.name())
        elif kind == "cmpxchg":
            pair = b.cmpxchg(p, self.pick(pool, T.i32), self.pick(pool, T.i32), "seq_cst", "monotonic",
                             d(st.sampled_from((None, "workgroup"))), d(st.booleans()), d(st.booleans()), 4,
                             name=self.name())
            v = b.extractvalue(pair, d(st.integers(0, 1)))
        elif kind == "fence":
            b.fence(d(st.sampled_from(("acquire", "release", "acq_rel", "seq_cst"))),
                    d(st.sampled_from((None, "singlethread"))))
        elif kind == "call":
            if d(st.booleans()):
                v = b.call(self.ext, [self.pick(pool, T.i32), self.pick(pool, T.f32)], name=self.name(),
                           tail=d(st.sampled_from((None, "tail", "notail"))))
            else:
                v = b.call(self.fabs, [self.pick(pool, T.f32)], name=self.name(),
                           flags=d(st.lists(st.sampled_from(_FMF), max_size=2)))
        if v is not None and not isinstance(v.type, T.VoidType):
            pool.setdefault(v.type, []).append(v)

    def region(self, pool: dict[T.Type, list[V.Value]], depth: int) -> None:
        d = self.draw
        while self.budget > 0:
            self.budget -= 1
            choice = d(st.integers(0, 9))
            if choice < 7 or depth >= 3:
                self.emit(pool)
            elif choice == 7:
                self.diamond(pool, depth)
            elif choice == 8:
                self.loop(pool, depth)
            else:
                self.switch(pool, depth)
            if d(st.integers(0, 5)) == 0:
                return

    def merge(self, join: Any, arms: list[tuple[dict[T.Type, list[V.Value]], Any]],
              pool: dict[T.Type, list[V.Value]]) -> None:
        for _ in range(self.draw(st.integers(0, 3))):
            ty = self.draw(st.sampled_from(_POOL_TYPES))
            flags = self.draw(st.lists(st.sampled_from(_FMF), max_size=2)) if ty in (T.f32, T.f64) else []
            phi = self.b.phi(ty, flags=flags, name=self.name())
            for arm_pool, blk in arms:
                phi.add_incoming(self.pick(arm_pool, ty), blk)
            pool.setdefault(ty, []).append(phi)

    def diamond(self, pool: dict[T.Type, list[V.Value]], depth: int) -> None:
        b, fn = self.b, self.fn
        then_bb, else_bb, join = fn.add_block(self.name()), fn.add_block(self.name()), fn.add_block(self.name())
        b.cond_br(self.pick(pool, T.i1), then_bb, else_bb)
        arms = []
        for bb in (then_bb, else_bb):
            b.position_at_end(bb)
            arm = {k: list(v) for k, v in pool.items()}
            self.region(arm, depth + 1)
            if bb is else_bb and self.draw(st.integers(0, 4)) == 0:
                b.unreachable()  # a dead arm: not a predecessor of the join
                continue
            arms.append((arm, b.block))
            b.br(join)
        b.position_at_end(join)
        self.merge(join, arms, pool)

    def switch(self, pool: dict[T.Type, list[V.Value]], depth: int) -> None:
        b, fn = self.b, self.fn
        head = b.block
        join = fn.add_block(self.name())
        n = self.draw(st.integers(1, 3))
        cases = [fn.add_block(self.name(), before=join) for _ in range(n)]
        values = self.draw(st.lists(st.integers(-5, 5), min_size=n, max_size=n, unique=True))
        b.switch(self.pick(pool, T.i32), join, list(zip(values, cases, strict=True)))
        arms = [({k: list(v) for k, v in pool.items()}, head)]
        for bb in cases:
            b.position_at_end(bb)
            arm = {k: list(v) for k, v in pool.items()}
            self.region(arm, depth + 1)
            arms.append((arm, b.block))
            b.br(join)
        b.position_at_end(join)
        self.merge(join, arms, pool)

    def loop(self, pool: dict[T.Type, list[V.Value]], depth: int) -> None:
        b, fn = self.b, self.fn
        pre = b.block
        header, body, exit_ = fn.add_block(self.name()), fn.add_block(self.name()), fn.add_block(self.name())
        b.br(header)
        b.position_at_end(header)
        iv = b.phi(T.i32, name=self.name())
        ty = self.draw(st.sampled_from(_POOL_TYPES))
        acc = b.phi(ty, name=self.name())
        cmp = b.icmp("slt", iv, self.fn.args[1])
        b.cond_br(cmp, body, exit_)
        b.position_at_end(body)
        inner = {k: list(v) for k, v in pool.items()}
        inner.setdefault(T.i32, []).append(iv)
        inner.setdefault(ty, []).append(acc)
        self.region(inner, depth + 1)
        nxt = b.add(iv, V.const_int(T.i32, 1), ["nsw"])
        latch = b.block
        b.br(header)
        iv.add_incoming(V.const_int(T.i32, 0), pre)
        iv.add_incoming(nxt, latch)
        acc.add_incoming(self.pick(pool, ty), pre)
        acc.add_incoming(self.pick(inner, ty), latch)
        b.position_at_end(exit_)
        pool.setdefault(T.i32, []).append(iv)
        pool.setdefault(ty, []).append(acc)

    def build(self) -> Module:
        b = self.b
        pool: dict[T.Type, list[V.Value]] = {}
        for a in self.fn.args:
            pool.setdefault(a.type, []).append(a)
        pool.setdefault(T.ptr, []).append(b.alloca(_AGG, align=8, name=self.name()))
        if self.draw(st.booleans()):
            pool[T.ptr].append(b.alloca(T.i32, V.const_int(T.i32, 4), 16, name=self.name()))
        self.region(pool, 0)
        b.ret(self.pick(pool, T.i32))
        return self.m


def build_random_module(draw: st.DrawFn) -> Module:
    """A module with one random function (see `_Gen`)."""
    return _Gen(draw).build()
