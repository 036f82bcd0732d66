"""vectorizer/ir/module_copy.py: a deep copy of a parsed module prints as the
original, is built like a fresh parse (same classes, attributes, use-list
order), shares nothing mutable with it, and editing it leaves the original
as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from vectorizer import llvm_bridge
from vectorizer.ir import instructions as I
from vectorizer.ir import parse_module, print_module
from vectorizer.ir import values as V
from vectorizer.ir.module import BasicBlock, Function, GlobalVariable, Module
from vectorizer.ir.module_copy import ModuleCopier, NotCopyable, copy_module

ROOT = Path(__file__).resolve().parents[2]

# Most of what a module can hold: a named struct, globals with aggregate,
# string and constant-expression initializers, an alias, a function with
# attributes and metadata, switch, phi, select, calls with attributes and
# bundles, inline assembly, an intrinsic with a metadata operand, debug
# records, blockaddress, invoke and landingpad (kept as text), atomics.
RICH = r"""
source_filename = "rich.cl"
target datalayout = "e-m:e-i64:64-f80:128-n8:16:32:64-S128"

%struct.S = type { i32, [2 x float], ptr }

@str = private unnamed_addr constant [6 x i8] c"hi\0A\00\01\FF", align 1
@arr = internal global [3 x i32] [i32 1, i32 -2, i32 3], align 4
@s = global %struct.S { i32 7, [2 x float] [float 1.5, float -0.0], ptr @arr }, align 8
@p = global ptr getelementptr inbounds ([3 x i32], ptr @arr, i64 0, i64 1)
@v = global <4 x i32> <i32 0, i32 1, i32 2, i32 3>
@z = global [4 x double] zeroinitializer
@al = alias i32, ptr @arr
@ba = global ptr blockaddress(@k, %other)

declare i64 @_Z13get_global_idj(i32) #1
declare float @llvm.fma.f32(float, float, float)
declare void @llvm.dbg.value(metadata, metadata, metadata)
declare i32 @__gxx_personality_v0(...)
declare void @may_throw(i32)
declare float @llvm.experimental.constrained.fadd.f32(float, float, metadata, metadata)

define spir_kernel void @k(ptr addrspace(1) noalias %a, i32 %n, float %f) #0 personality ptr @__gxx_personality_v0 !kernel_arg_addr_space !5 {
entry:
  %id = call i64 @_Z13get_global_idj(i32 0) #2
  %t = trunc i64 %id to i32
    #dbg_value(i32 %t, !6, !DIExpression(), !8)
  %c = icmp slt i32 %t, %n
  switch i32 %t, label %loop [
    i32 1, label %other
    i32 2, label %exit
  ]

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi float [ %f, %entry ], [ %fma, %loop ]
  %fma = call fast float @llvm.fma.f32(float %acc, float 2.0, float 0x3FB99999A0000000)
  %i.next = add nuw nsw i32 %i, 1
  %done = icmp eq i32 %i.next, %n
  br i1 %done, label %other, label %loop, !llvm.loop !9

other:
  %r = phi float [ %fma, %loop ], [ %f, %entry ]
  %sel = select i1 %c, float %r, float 1.0
  %cf = call float @llvm.experimental.constrained.fadd.f32(float %sel, float %sel, metadata !"round.dynamic", metadata !"fpexcept.strict") #3
  %p = getelementptr inbounds float, ptr addrspace(1) %a, i64 %id
  store float %cf, ptr addrspace(1) %p, align 4, !tbaa !10
  %old = atomicrmw add ptr addrspace(1) %a, i32 1 seq_cst, align 4
  %pair = cmpxchg ptr addrspace(1) %a, i32 0, i32 1 acq_rel monotonic, align 4
  %vec = insertelement <4 x i32> poison, i32 %t, i64 0
  %sh = shufflevector <4 x i32> %vec, <4 x i32> undef, <4 x i32> zeroinitializer
  %ev = extractvalue { i32, i1 } %pair, 0
  %asm = call i32 asm sideeffect "mov $0, $1", "=r,r"(i32 %ev)
  call void @may_throw(i32 %asm) [ "deopt"(i32 %t) ]
  invoke void @may_throw(i32 %t)
          to label %exit unwind label %lpad

lpad:
  %lp = landingpad { ptr, i32 }
          cleanup
  br label %exit

exit:
  ret void
}

attributes #0 = { nounwind "uniform-work-group-size"="true" }
attributes #1 = { nounwind willreturn memory(none) }
attributes #2 = { nounwind }
attributes #3 = { strictfp }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}

!0 = distinct !DICompileUnit(language: DW_LANG_OpenCL, file: !1, producer: "t", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "rich.cl", directory: "/")
!2 = !{}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 1, !"wchar_size", i32 4}
!5 = !{i32 1, i32 0, i32 0}
!6 = !DILocalVariable(name: "t", scope: !7, file: !1, line: 1, type: !12)
!7 = distinct !DISubprogram(name: "k", scope: !1, file: !1, line: 1, type: !11, unit: !0)
!8 = !DILocation(line: 1, scope: !7)
!9 = distinct !{!9}
!10 = !{!"float", !2}
!11 = !DISubroutineType(types: !2)
!12 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
"""


def _rich() -> Module:
    return parse_module(llvm_bridge.canonicalize(RICH))


def _inputs() -> list[str]:
    """LLVM's text of the repository's IR files our parser reads."""
    out = []
    for d in ("tests/lit", "bench/kernels", "corpus"):
        for path in sorted((ROOT / d).rglob("*.ll")):
            try:
                out.append(llvm_bridge.canonicalize(path.read_text()))
            except llvm_bridge.IRError:
                continue  # (lit tests of invalid input)
    return out


def _objects(m: Module) -> list[object]:
    """Every IR object of `m` (values, metadata holders, debug records), each once."""
    seen: dict[int, object] = {}

    def visit(o: object) -> None:
        if id(o) in seen:
            return
        seen[id(o)] = o
        if isinstance(o, V.User):
            for op in o._operands:
                visit(op)
        for attr in ("text", "trailing", "_initializer"):
            h = getattr(o, attr, None)
            if isinstance(h, V.TextWithRefs):
                visit(h)
        if isinstance(o, V.TextWithRefs):
            for r in o.refs:
                visit(r)

    for h in [*m.named_metadata, *m.metadata_nodes, *m.trailer]:
        visit(h)
    for g in [*m.globals, *m.aliases]:
        visit(g)
    for f in m.functions:
        visit(f)
        for h in f.uselistorder:
            visit(h)
        for a in f.args:
            visit(a)
        for b in f.blocks:
            visit(b)
            for i in b.instructions:
                visit(i)
                for r in i._debug_records or ():
                    visit(r)
                    visit(r.text)
    return list(seen.values())


def _correspondence(orig: Module, copy: Module) -> dict[int, object]:
    """id of each object of `orig` -> its counterpart in `copy`, found by
    walking both in step (which also checks they have the same shape)."""
    pairs: dict[int, object] = {}

    def pair(a: object, b: object) -> None:
        assert type(a) is type(b)
        if id(a) in pairs:
            assert pairs[id(a)] is b
            return
        pairs[id(a)] = b
        if isinstance(a, V.User):
            assert len(a._operands) == len(b._operands)  # type: ignore[attr-defined]
            for x, y in zip(a._operands, b._operands, strict=True):  # type: ignore[attr-defined]
                pair(x, y)
        for attr in ("text", "trailing"):
            h = getattr(a, attr, None)
            if isinstance(h, V.TextWithRefs):
                pair(h, getattr(b, attr))
        if isinstance(a, V.TextWithRefs):
            for x, y in zip(a.refs, b.refs, strict=True):  # type: ignore[attr-defined]
                pair(x, y)
        if isinstance(a, I.DebugRecord):
            pair(a.text, b.text)  # type: ignore[attr-defined]

    for x, y in zip([*orig.named_metadata, *orig.metadata_nodes, *orig.trailer],
                    [*copy.named_metadata, *copy.metadata_nodes, *copy.trailer], strict=True):
        pair(x, y)
    for x, y in zip([*orig.globals, *orig.aliases], [*copy.globals, *copy.aliases], strict=True):
        pair(x, y)
    for f, g in zip(orig.functions, copy.functions, strict=True):
        pair(f, g)
        for x, y in zip(f.uselistorder, g.uselistorder, strict=True):
            pair(x, y)
        for x, y in zip(f.args, g.args, strict=True):
            pair(x, y)
        assert len(f.blocks) == len(g.blocks)
        for b, c in zip(f.blocks, g.blocks, strict=True):
            pair(b, c)
            assert len(b.instructions) == len(c.instructions)
            for i, j in zip(b.instructions, c.instructions, strict=True):
                pair(i, j)
                assert len(i._debug_records or ()) == len(j._debug_records or ())
                for r, s in zip(i._debug_records or (), j._debug_records or (), strict=True):
                    pair(r, s)
    return pairs


_IMMUTABLE = (str, int, float, bool, bytes, tuple, frozenset, type(None))


def _check_copy(orig: Module, copy: Module | None = None) -> Module:
    before = print_module(orig)
    copy = copy_module(orig) if copy is None else copy
    assert print_module(copy) == before
    assert print_module(orig) == before
    pairs = _correspondence(orig, copy)
    originals = {id(o) for o in _objects(orig)}
    for o in _objects(orig):
        c = pairs[id(o)]
        assert c is not o
        # Built like the original: the same attributes (a field the copier
        # forgot, or one it invented, shows here), equal plain values, and
        # references mapped to the copies.
        mine, theirs = vars(o) if hasattr(o, "__dict__") else {}, vars(c) if hasattr(c, "__dict__") else {}
        assert mine.keys() == theirs.keys(), type(o)
        for k, v in mine.items():
            w = theirs[k]
            if isinstance(v, _IMMUTABLE) and not isinstance(v, tuple) or k == "type" or k == "function_type":
                assert v == w and type(v) is type(w), (type(o), k)
            elif isinstance(v, (list, set, dict)):
                assert v is not w, (type(o), k)  # its own container
        if isinstance(o, V.Value):
            # The same use list, in the same order, each use a new one.
            assert [(pairs[id(u.user)], u.index) for u in o.uses if id(u.user) in originals] == \
                [(u.user, u.index) for u in c.uses]  # type: ignore[attr-defined]
            assert all(u.user._uses[u.index] is u for u in c.uses)  # type: ignore[attr-defined]
            assert not {id(u) for u in o.uses} & {id(u) for u in c.uses}  # type: ignore[attr-defined]
            md = [pairs[id(h)] for h in o._md_users or () if id(h) in pairs]
            assert md == list(c._md_users or ())  # type: ignore[attr-defined]
        if isinstance(o, V.User) and not isinstance(o, V._LeafConstant):
            assert [u.index for u in c._uses] == list(range(len(c._operands)))  # type: ignore[attr-defined]
            assert all(u.user is c for u in c._uses)  # type: ignore[attr-defined]
    return copy


def test_copy_of_a_rich_module_is_a_faithful_deep_copy() -> None:
    m = _rich()
    kinds = {type(o) for o in _objects(m)}
    # (the module really holds what it is meant to exercise)
    for cls in (V.ConstantExpr, V.ConstantArray, V.ConstantStruct, V.ConstantVector, V.ConstantDataString,
                V.ConstantFP, V.ConstantAggregateZero, V.BlockAddress, V.InlineAsm, V.MetadataValue,
                I.OpaqueInst, I.SwitchInst, I.PhiNode, I.DebugRecord, V.TextWithRefs, V.GlobalAlias):
        assert cls in kinds, cls
    copy = _check_copy(m)
    assert copy.struct_types == m.struct_types and copy.struct_types is not m.struct_types


def test_copies_of_the_repository_ir_print_alike() -> None:
    texts = _inputs()
    assert len(texts) > 40
    for text in texts:
        _check_copy(parse_module(text))


def test_repeated_copies_wired_from_the_first_are_faithful_too() -> None:
    """`ModuleCopier` wires its later copies from positions worked out by
    the first: each is as faithful as the first, and independent of it."""
    for m in [_rich(), *(parse_module(t) for t in _inputs()[:20])]:
        copier = ModuleCopier(m)
        first = _check_copy(m, copier.copy())
        assert copier._plan is not None
        second = _check_copy(m, copier.copy())
        third = copier.copy()
        assert not {id(o) for o in _objects(second)} & {id(o) for o in _objects(first) + _objects(third)}
        assert print_module(third) == print_module(m)


def test_the_copier_of_a_copy_wires_its_first_copy_from_the_plan() -> None:
    """`ModuleCopier.of_copy` keeps a copy of a module that goes on
    changing (the pipeline's state): its copies are faithful copies of the
    module as it was, whatever happens to the module after."""
    m = _rich()
    before = print_module(m)
    copier = ModuleCopier.of_copy(m)
    assert copier._plan is not None and copier.src is not m
    k = m.get_function("k")
    assert k is not None
    k.blocks[-1].instructions[-1].erase_from_parent()
    k.name = "changed"
    first = copier.copy()
    assert print_module(first) == before
    _check_copy(copier.src, first)
    _check_copy(copier.src, copier.copy())


def _second_copy(m: Module) -> Module:
    copier = ModuleCopier(m)
    copier.copy()
    return copier.copy()


@pytest.mark.parametrize("copy", [copy_module, _second_copy])
def test_editing_the_copy_leaves_the_original_as_parsed(copy) -> None:
    m = _rich()
    before = print_module(m)
    uses_before = {id(o): [(id(u.user), u.index) for u in o.uses] for o in _objects(m) if isinstance(o, V.Value)}
    c = copy(m)
    k = c.get_function("k")
    assert k is not None
    loop, other = k.blocks[1], k.blocks[2]
    # Rename, re-attribute, replace uses, erase, add blocks and instructions,
    # edit constants, metadata, debug records, globals, the module's lists.
    k.name = "k2"
    k.attributes = ""
    k.metadata.append(("foo", "!2"))
    k.args[0].name = "renamed"
    k.args[1].attributes = "signext"
    t = k.blocks[0].instructions[1]
    k.blocks[0].instructions[2].debug_records[0].text.parts[0] = "#dbg_declare("
    t.name = "tt"
    t.replace_all_uses_with(V.ConstantInt(t.type, 5))
    fma = loop.instructions[2]
    fma.flags.clear()
    fma.get_operand(2).bits = 0  # type: ignore[attr-defined]
    store = next(i for i in other.instructions if isinstance(i, I.StoreInst))
    store.set_metadata("tbaa", None)
    store.align = 16
    sel = next(i for i in other.instructions if isinstance(i, I.SelectInst))
    sel.erase_from_parent() if not sel.uses else sel.replace_all_uses_with(sel.get_operand(1))
    new = k.add_block("new", after=other)
    new.append(I.UnreachableInst())
    phi = loop.instructions[0]
    assert isinstance(phi, I.PhiNode)
    phi.add_incoming(V.ConstantInt(phi.type, 9), new)
    gv = c.get_global("arr")
    assert isinstance(gv, GlobalVariable)
    gv.initializer.get_operand(0).value = 100  # type: ignore[union-attr]
    gv.align = 16
    gep = c.get_global("p").initializer  # type: ignore[union-attr]
    gep.flags.add("nuw")  # type: ignore[union-attr]
    c.aliases[0].text.parts[0] = "changed "
    c.metadata_nodes[0].parts[0] = "!{}"
    c.named_metadata.pop()
    c.attribute_groups.clear()
    c.struct_types.clear()
    c.functions.append(Function("extra", k.function_type, c))
    k.blocks[-1].instructions[-1].erase_from_parent()
    print_module(c)  # (the copy still prints)
    assert print_module(m) == before
    assert {id(o): [(id(u.user), u.index) for u in o.uses]
            for o in _objects(m) if isinstance(o, V.Value)} == uses_before


def test_a_copy_of_a_copy_prints_as_the_original() -> None:
    m = parse_module(_inputs()[0])
    c = copy_module(copy_module(m))
    assert print_module(c) == print_module(m)


def test_an_object_the_copier_does_not_know_is_refused() -> None:
    m = _rich()
    k = m.get_function("k")
    assert k is not None

    class Strange(V.Value):
        pass

    add = next(i for i in k.instructions() if isinstance(i, I.BinaryOperator))
    add.set_operand(1, Strange(add.type))
    with pytest.raises(NotCopyable):
        copy_module(m)


def test_a_block_outside_the_function_is_refused() -> None:
    m = _rich()
    k = m.get_function("k")
    assert k is not None
    br = next(i for i in k.instructions() if isinstance(i, I.BranchInst) and i.num_operands == 3)
    br.set_operand(1, BasicBlock("stray"))
    with pytest.raises(NotCopyable):
        copy_module(m)
