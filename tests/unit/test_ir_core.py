"""vectorizer.ir: types, constants, use lists and IR editing."""

from __future__ import annotations

import math

import pytest

from vectorizer import llvm_bridge
from vectorizer.ir import Builder, Module, parse_module, print_function, print_module
from vectorizer.ir import instructions as I
from vectorizer.ir import types as T
from vectorizer.ir import values as V
from vectorizer.ir.cloning import clone_function

# ------------------------------------------------------------------- types


def test_type_spelling_and_equality() -> None:
    assert str(T.i32) == "i32" and T.IntType(32) == T.i32 and hash(T.IntType(32)) == hash(T.i32)
    assert str(T.PointerType(1)) == "ptr addrspace(1)" and str(T.ptr) == "ptr"
    assert str(T.VectorType(T.f32, 4)) == "<4 x float>"
    assert str(T.VectorType(T.i32, 4, scalable=True)) == "<vscale x 4 x i32>"
    assert str(T.ArrayType(T.i8, 8)) == "[8 x i8]"
    assert str(T.StructType((T.i32, T.f32))) == "{ i32, float }"
    assert str(T.StructType((T.i8,), packed=True)) == "<{ i8 }>"
    assert str(T.StructType(())) == "{}"
    assert str(T.FunctionType(T.i32, (T.ptr,), vararg=True)) == "i32 (ptr, ...)"
    named = T.StructType(name="struct.S", opaque=True)
    assert str(named) == "%struct.S" and named.body_str == "opaque"
    named.set_body((T.i32,))
    assert named == T.StructType(name="struct.S") and named.body_str == "{ i32 }"
    assert str(T.StructType(name="a b")) == '%"a b"'


def test_type_helpers() -> None:
    v = T.vector_of(T.i32, 8)
    assert T.is_vector(v) and not T.is_vector(T.i32)
    assert T.scalar_type(v) == T.i32 and T.scalar_type(T.f64) == T.f64
    assert T.vector_of(v, 4) == T.VectorType(T.i32, 4)
    assert T.size_in_bits(v) == 256 and T.size_in_bits(T.ptr) == 64 and T.size_in_bits(T.f16) == 16
    assert T.size_in_bits(T.StructType((T.i8, T.i32))) == 40
    with pytest.raises(TypeError):
        T.size_in_bits(T.void)


# --------------------------------------------------------------- constants


def test_int_constants() -> None:
    c = V.const_int(T.i8, 255)
    assert c == V.const_int(T.i8, -1) and hash(c) == hash(V.const_int(T.i8, -1))
    assert c.signed == -1 and c.unsigned == 255 and str(c) == "i8 -1"
    assert str(V.const_int(T.i1, 1)) == "i1 true" and str(V.const_int(T.i1, 0)) == "i1 false"
    assert V.const_int(T.i32, 1) != V.const_int(T.i64, 1)
    assert str(V.const_int(T.VectorType(T.i32, 4), 3)) == "<4 x i32> splat (i32 3)"


def test_float_constants_are_exact() -> None:
    assert str(V.const_fp(T.f64, 1.0)) == "double 1.000000e+00"
    assert str(V.const_fp(T.f64, 0.1)) == "double 1.000000e-01"
    assert str(V.const_fp(T.f64, 1 / 3)) == "double 0x3FD5555555555555"
    assert str(V.const_fp(T.f32, 0.1)) == "float 0x3FB99999A0000000"
    assert str(V.const_fp(T.f32, -0.0)) == "float -0.000000e+00"
    assert str(V.const_fp(T.f16, 1.0)) == "half 0xH3C00"
    assert str(V.const_fp(T.FloatType("bfloat"), 1.0)) == "bfloat 0xR3F80"
    assert str(V.const_fp(T.f64, math.inf)) == "double 0x7FF0000000000000"
    assert V.const_fp(T.f32, 0.1).value == pytest.approx(0.1, rel=1e-7)
    assert V.ConstantFP(T.FloatType("x86_fp80"), 0x4000C000000000000000).value == 3.0
    assert V.ConstantFP(T.FloatType("fp128"), 3.0).value == 3.0
    # LLVM accepts what we print, including NaN payloads.
    text = (
        "@a = global float 0x7FF8000020000000\n@b = global double 0xFFF0000000000001\n"
        "@c = global float 0x3FB99999A0000000\n"
    )
    m = parse_module(llvm_bridge.canonicalize(text))
    assert llvm_bridge.canonicalize(print_module(m)) == llvm_bridge.canonicalize(text)


def test_aggregate_constants() -> None:
    s = V.ConstantDataString(T.ArrayType(T.i8, 4), b'a"\n\x00')
    assert str(s) == '[4 x i8] c"a\\22\\0A\\00"'
    vec = V.ConstantVector(T.VectorType(T.i32, 2), [V.const_int(T.i32, 1), V.PoisonValue(T.i32)])
    assert str(vec) == "<2 x i32> <i32 1, i32 poison>"
    st = V.ConstantStruct(T.StructType((T.i32, T.ptr)), [V.const_int(T.i32, 1), V.ConstantPointerNull(T.ptr)])
    assert str(st) == "{ i32, ptr } { i32 1, ptr null }"
    assert V.splat(T.VectorType(T.f32, 4), V.const_fp(T.f32, 1.0)).splat_value == V.const_fp(T.f32, 1.0)
    assert str(V.ConstantAggregateZero(T.ArrayType(T.i32, 2))) == "[2 x i32] zeroinitializer"
    assert str(V.ConstantToken()) == "token none"


# ------------------------------------------------------------ use lists


def _fn(params: tuple[T.Type, ...] = (T.i32, T.i32), ret: T.Type = T.i32) -> tuple[Module, V.Function, Builder]:
    m = Module()
    fn = m.add_function("f", T.FunctionType(ret, params))
    b = Builder(fn.add_block("entry"))
    return m, fn, b


def test_use_lists_set_operand_and_rauw() -> None:
    m, fn, b = _fn()
    x, y = fn.args
    s = b.add(x, y, name="s")
    t = b.mul(s, s, name="t")
    b.ret(t)
    assert [(u.user, u.index) for u in s.uses] == [(t, 0), (t, 1)]
    assert s.users == [t]
    t.set_operand(1, x)
    assert [u.index for u in s.uses] == [0] and t.operands == (s, x)
    assert any(u.user is t and u.index == 1 for u in x.uses)
    c = V.const_int(T.i32, 7)
    s.replace_all_uses_with(c)
    assert not s.uses and t.lhs is c
    s.erase_from_parent()
    assert s.parent is None and not any(u.user is s for u in x.uses)
    llvm_bridge.verify(print_module(m))


def test_erase_requires_no_uses_and_moves_debug_records() -> None:
    m, fn, b = _fn()
    s = b.add(*fn.args)
    r = b.ret(s)
    with pytest.raises(ValueError):
        s.erase_from_parent()
    dead = b.mul(*fn.args)
    dead.remove_from_parent()
    dead.insert_before(s)
    rec = I.DebugRecord(V.TextWithRefs(["#dbg_value(i32 ", ", !1, !DIExpression(), !2)"], [dead]))
    dead.debug_records.append(rec)
    dead.erase_from_parent()
    assert s.debug_records == [rec] and r.debug_records == []
    # The record names a value no longer in the IR: LLVM's convention is poison.
    assert "#dbg_value(i32 poison," in print_function(fn)


def test_debug_records_follow_rauw() -> None:
    m, fn, b = _fn()
    s = b.add(*fn.args, name="s")
    b.ret(s)
    rec = I.DebugRecord(V.TextWithRefs(["#dbg_value(i32 ", ", !1, !DIExpression(), !2)"], [s]))
    b.block.instructions[-1].debug_records.append(rec)
    s.replace_all_uses_with(fn.args[1])
    assert rec.text.refs == [fn.args[1]]
    assert "#dbg_value(i32 %1," in print_function(fn)


def test_remove_and_reinsert() -> None:
    m, fn, b = _fn()
    x, y = fn.args
    a = b.add(x, y, name="a")
    c = b.sub(x, y, name="c")
    r = b.ret(a)
    c.remove_from_parent()
    c.insert_before(a)
    assert b.block.instructions == [c, a, r]
    c.remove_from_parent()
    c.insert_after(a)
    assert b.block.instructions == [a, c, r]
    with pytest.raises(ValueError):
        c.insert_after(a)  # still in a block
    k = a.clone()
    assert k.parent is None and k.name is None and k.operands == a.operands and k.flags == a.flags
    assert len(x.uses) == 3
    k.insert_before(r)
    assert b.block.instructions[-2] is k


def test_builder_positions_keep_build_order() -> None:
    m, fn, b = _fn()
    x, y = fn.args
    first = b.add(x, y, name="first")
    last = b.ret(first)
    b.position_after(first)
    p = b.mul(first, x, name="p")
    q = b.mul(p, y, name="q")
    b.position_before(last)
    r = b.xor(q, x, name="r")
    assert fn.entry.instructions == [first, p, q, r, last]
    b.position_at_start(fn.entry)
    z = b.freeze(x, name="z")
    assert fn.entry.instructions[0] is z
    llvm_bridge.verify(print_module(m))


def test_block_positions_stay_exact_through_any_edit() -> None:
    """Instruction positions are renumbered lazily (`instructions._Positions`):
    after every kind of edit, including ones made on `block.instructions`
    directly, `index_of` and the neighbours are those of the list."""
    import random

    m, fn, b = _fn()
    x, y = fn.args
    blk = b.block
    insts = [b.add(x, y) for _ in range(40)]
    b.ret(insts[-1])
    rng = random.Random(7)
    detached: list[I.Instruction] = []

    def check() -> None:
        for k, inst in enumerate(blk.instructions):
            assert blk.index_of(inst) == k
            assert inst.next_instruction is (blk.instructions[k + 1] if k + 1 < len(blk.instructions) else None)
            assert inst.prev_instruction is (blk.instructions[k - 1] if k else None)

    for _ in range(400):
        body = blk.instructions[:-1]
        op = rng.randrange(7)
        anchor = rng.choice(body)
        if op == 0:
            b.position_after(anchor)
            b.mul(x, y)
        elif op == 1:
            b.position_before(anchor)
            b.sub(x, y)
        elif op == 2 and len(body) > 5:
            anchor.remove_from_parent()
            detached.append(anchor)
        elif op == 3 and detached:
            detached.pop().insert_after(anchor)
        elif op == 4:
            blk.insert(rng.randrange(-3, 3), I.BinaryOperator("or", x, y))
        elif op == 5:  # behind the block's back
            i, j = rng.randrange(len(body)), rng.randrange(len(body))
            blk.instructions[i], blk.instructions[j] = blk.instructions[j], blk.instructions[i]
        elif op == 6 and not anchor.uses and len(body) > 5:
            anchor.erase_from_parent()
        if rng.randrange(4) == 0:
            check()
    check()
    blk.instructions = list(reversed(blk.instructions))  # a new list object
    check()


def test_block_positions_stay_exact_with_spot_lookups() -> None:
    """Lookups of a few instructions between edits (what the packetizer does)
    leave most entries stale, so the lookups go through the path that looks
    a little past a stale entry (`instructions._PROBE`): each answer is the
    list's, whether the instruction moved down, up or far."""
    import random

    m, fn, b = _fn()
    x, y = fn.args
    blk = b.block
    for _ in range(30):
        b.add(x, y)
    b.ret(blk.instructions[-1])
    rng = random.Random(11)
    for step in range(3000):
        body = blk.instructions[:-1]
        anchor = rng.choice(body)
        op = rng.randrange(10)
        if op < 5:  # a run of insertions after one instruction, as lane copies are
            for _ in range(rng.randrange(1, 4)):
                I.BinaryOperator("mul", x, y).insert_after(anchor)
        elif op < 7:
            b.position_before(anchor)
            b.sub(x, y)
        elif op == 7 and len(body) > 20 and not anchor.uses:
            anchor.erase_from_parent()
        elif op == 8 and step % 50 == 0:  # behind the block's back
            i, j = rng.randrange(len(body)), rng.randrange(len(body))
            blk.instructions[i], blk.instructions[j] = blk.instructions[j], blk.instructions[i]
        elif op == 9 and step % 200 == 0:  # a long run before the spot-checked ones
            for _ in range(300):
                I.BinaryOperator("xor", x, y).insert_after(blk.instructions[0])
        for inst in rng.sample(blk.instructions, 3):
            assert blk.index_of(inst) == blk.instructions.index(inst)
    for k, inst in enumerate(blk.instructions):
        assert blk.index_of(inst) == k


def test_clone_keeps_use_lists_in_order() -> None:
    """The clone's operands naming the original's values are never recorded
    as uses of them, and every use list reads as if each copy had been made
    with the original operands and then remapped operand by operand."""
    m = parse_module(CLONE_SRC, canonicalize=True)
    fn = m.get_function("k")
    before = {id(v): list(v.uses) for v in [*fn.args, *fn.blocks, *fn.instructions()]}
    clone, vmap = clone_function(fn, "k.clone")
    for v in [*fn.args, *fn.blocks, *fn.instructions()]:
        assert v.uses == before[id(v)]  # the same Use objects, in the same order
    for new in [*clone.args, *clone.blocks, *clone.instructions()]:
        expected = [(u, k) for u in clone.instructions() for k, op in enumerate(u.operands) if op is new]
        got = [(use.user, use.index) for use in new.uses if isinstance(use.user, I.Instruction)]
        assert got == expected  # (a new blockaddress constant names a block too)
    for inst in clone.instructions():
        for k, op in enumerate(inst.operands):
            assert any(u.user is inst and u.index == k for u in op.uses)


# ------------------------------------------------------------------ CFG


def _diamond() -> tuple[Module, V.Function, dict[str, V.BasicBlock], I.PhiNode]:
    m, fn, b = _fn((T.i1, T.i32))
    c, x = fn.args
    entry = b.block
    then, els, join = fn.add_block("then"), fn.add_block("else"), fn.add_block("join")
    b.cond_br(c, then, els)
    b.position_at_end(then)
    t = b.add(x, V.const_int(T.i32, 1), name="t")
    b.br(join)
    b.position_at_end(els)
    e = b.sub(x, V.const_int(T.i32, 1), name="e")
    b.br(join)
    b.position_at_end(join)
    phi = b.phi(T.i32, name="p")
    phi.add_incoming(t, then)
    phi.add_incoming(e, els)
    b.ret(phi)
    return m, fn, {"entry": entry, "then": then, "else": els, "join": join}, phi


def test_successors_predecessors_and_block_uses() -> None:
    m, fn, bb, phi = _diamond()
    assert bb["entry"].successors == [bb["then"], bb["else"]]
    assert bb["join"].predecessors == [bb["then"], bb["else"]]
    assert bb["entry"].predecessors == []
    assert {type(u.user) for u in bb["then"].uses} == {I.BranchInst, I.PhiNode}
    br = bb["entry"].terminator
    assert isinstance(br, I.BranchInst) and br.is_conditional and br.condition is fn.args[0]
    llvm_bridge.verify(print_module(m))


def test_phi_editing() -> None:
    m, fn, bb, phi = _diamond()
    t, e = phi.incoming_values
    assert phi.incoming == [(t, bb["then"]), (e, bb["else"])]
    assert phi.incoming_value_for(bb["else"]) is e
    phi.set_incoming_value(bb["else"], fn.args[1])
    assert phi.incoming_value_for(bb["else"]) is fn.args[1] and not e.uses
    assert phi.remove_incoming(bb["then"]) is t
    assert phi.incoming == [(fn.args[1], bb["else"])] and not t.uses
    assert all(u.user is not phi for u in bb["then"].uses)
    phi.add_incoming(t, bb["then"])
    assert phi.incoming_blocks == [bb["else"], bb["then"]]
    assert [u.index for u in phi._uses] == [0, 1, 2, 3]
    with pytest.raises(KeyError):
        phi.incoming_value_for(bb["entry"])
    llvm_bridge.verify(print_module(m))


def test_replace_block_with_rauw() -> None:
    m, fn, bb, phi = _diamond()
    # Route then -> mid -> join: phis follow a block RAUW only where we say.
    mid = fn.add_block("mid", after=bb["then"])
    bb["then"].terminator.set_operand(0, mid)
    Builder(mid).br(bb["join"])
    phi.replace_incoming_block(bb["then"], mid)
    assert bb["join"].predecessors == [bb["else"], mid]
    assert [b.name for b in fn.blocks] == ["entry", "then", "mid", "else", "join"]
    llvm_bridge.verify(print_module(m))


def test_switch_successors() -> None:
    m, fn, b = _fn((T.i32,), T.void)
    a, c, d = fn.add_block("a"), fn.add_block("c"), fn.add_block("d")
    sw = b.switch(fn.args[0], d, [(0, a), (V.const_int(T.i32, 5), c)])
    for blk in (a, c, d):
        Builder(blk).ret()
    assert sw.successors == [d, a, c] and [v.value for v, _ in sw.cases] == [0, 5]
    assert a.predecessors == [fn.entry]
    sw.remove_case(0)
    assert sw.successors == [d, c] and not a.uses
    a.erase()
    assert a not in fn.blocks
    llvm_bridge.verify(print_module(m))


def test_split_before_updates_phis() -> None:
    m, fn, bb, phi = _diamond()
    then = bb["then"]
    t = then.instructions[0]
    cont = then.split_before(then.terminator, "then.cont")
    assert then.successors == [cont] and cont.successors == [bb["join"]]
    assert phi.incoming_blocks[0] is cont
    assert then.instructions[0] is t
    llvm_bridge.verify(print_module(m))


def test_block_erase_refuses_live_block() -> None:
    m, fn, bb, phi = _diamond()
    with pytest.raises(ValueError):
        bb["then"].erase()
    empty = fn.add_block("dead")
    empty.erase()
    assert empty.parent is None and empty not in fn.blocks


# ------------------------------------------------------------- printing


def test_numbering_quoting_and_name_collisions() -> None:
    m, fn, b = _fn()
    fn.args[0].name = "a b"
    s1 = b.add(*fn.args, name="x")
    s2 = b.add(s1, s1, name="x")
    s3 = b.add(s2, s2)
    s4 = b.add(s3, s3, name="5")
    b.ret(s4)
    text = print_function(fn)
    assert 'define i32 @f(i32 %"a b", i32 %0) {' in text
    assert "%x = add i32" in text and "%x.1 = add i32 %x, %x" in text
    assert "%1 = add i32 %x.1, %x.1" in text and '%"5" = add i32 %1, %1' in text
    assert str(s3) == "%1 = add i32 %x.1, %x.1"
    llvm_bridge.verify(print_module(m))
    # A collision-free module re-parses to the same text.
    again = print_module(parse_module(print_module(m)))
    assert again == print_module(parse_module(again))


def test_unnamed_entry_block_numbering() -> None:
    m, fn, b = _fn()
    fn.entry.name = None
    nxt = fn.add_block()
    s = b.add(*fn.args)
    b.br(nxt)
    Builder(nxt).ret(s)
    text = print_function(fn)
    assert "%3 = add i32 %0, %1" in text and "br label %4" in text and "\n4:\n" in text
    llvm_bridge.verify(print_module(m))


# -------------------------------------------------------------- cloning


CLONE_SRC = """
define i32 @k(i32 %n, ptr %p) !dbg !3 {
entry:
  %a = alloca i32, align 4
    #dbg_declare(ptr %a, !6, !DIExpression(), !7)
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %i.next = add nsw i32 %i, 1, !dbg !7
    #dbg_value(i32 %i.next, !6, !DIExpression(), !7)
  store i32 %i, ptr %a, align 4
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %exit

exit:
  %bl = ptrtoint ptr blockaddress(@k, %loop) to i64
  ret i32 %i.next
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2}
!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, emissionKind: FullDebug)
!1 = !DIFile(filename: "k.c", directory: "/")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = distinct !DISubprogram(name: "k", scope: !1, file: !1, line: 1, type: !4, spFlags: DISPFlagDefinition, unit: !0, retainedNodes: !8)
!4 = !DISubroutineType(types: !5)
!5 = !{null}
!6 = !DILocalVariable(name: "i", scope: !3, file: !1, line: 2, type: !9)
!7 = !DILocation(line: 2, column: 1, scope: !3)
!8 = !{!6}
!9 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
"""


def test_clone_function() -> None:
    m = parse_module(CLONE_SRC, canonicalize=True)
    fn = m.get_function("k")
    clone, vmap = clone_function(fn, "k.clone")
    assert m.get_function("k.clone") is clone and clone.parent is m
    assert [b.name for b in clone.blocks] == ["entry", "loop", "exit"]
    for old, new in zip(fn.instructions(), clone.instructions(), strict=True):
        assert vmap[old] is new and old is not new and old.name == new.name and type(old) is type(new)
        for op in new.operands:
            assert not (isinstance(op, (I.Instruction, V.Argument, V.BasicBlock)) and op in vmap)
            if isinstance(op, (I.Instruction, V.BasicBlock)):
                assert (op.function if isinstance(op, I.Instruction) else op.parent) is clone
    assert all(vmap[a] is b for a, b in zip(fn.args, clone.args, strict=True))
    phi = clone.blocks[1].instructions[0]
    assert isinstance(phi, I.PhiNode) and phi.incoming_blocks == [clone.blocks[0], clone.blocks[1]]
    # The clone's debug records name the clone's values.
    rec = clone.blocks[1].instructions[2].debug_records[0]
    assert rec.text.refs == [clone.blocks[1].instructions[1]]
    # Editing the clone leaves the original alone.
    clone.blocks[2].instructions[-1].set_operand(0, V.const_int(T.i32, 0))
    assert fn.blocks[2].instructions[-1].value is fn.blocks[1].instructions[1]
    text = print_module(m)
    canonical = llvm_bridge.canonicalize(text)
    # A subprogram may have one function: the clone got its own.
    assert canonical.count("distinct !DISubprogram(") == 2
    assert "blockaddress(@k.clone, %loop)" in canonical
    assert "warning" not in canonical


# --------------------------------------------------------------- errors


def test_parse_errors_carry_line_and_column() -> None:
    from vectorizer.ir import ParseError

    bad = "define void @f() {\nentry:\n  %x = frobnicate i32 1\n  ret void\n}\n"
    with pytest.raises(ParseError) as ei:
        parse_module(bad)
    assert ei.value.line == 3 and ei.value.column == 8 and "unknown instruction" in str(ei.value)
    assert str(ei.value).startswith("3:8: ")
    assert isinstance(ei.value, llvm_bridge.IRError)
    with pytest.raises(ParseError) as ei:
        parse_module("define void @f() {\n  %x = add i32 %y, 1\n  ret void\n}\n")
    assert ei.value.line == 2 and "undefined value %y" in str(ei.value)
    # Through the bridge, LLVM's own diagnostic surfaces.
    with pytest.raises(llvm_bridge.IRError) as ei2:
        parse_module(bad, canonicalize=True)
    assert ei2.value.line == 3


def test_module_helpers() -> None:
    m = Module()
    fty = T.FunctionType(T.void, ())
    f = m.get_or_insert_function("g", fty)
    assert m.get_or_insert_function("g", fty) is f and m.get_function("g") is f and f.is_declaration
    with pytest.raises(ValueError):
        m.add_function("g", fty)
    gv = m.add_global(V.GlobalVariable("counter", T.i32, V.const_int(T.i32, 0), align=4))
    assert m.get_global("counter") is gv
    m.triple = "spir64-unknown-unknown"
    m.datalayout = "e-i64:64"
    text = print_module(m)
    assert '@counter = global i32 0, align 4' in text and 'target triple = "spir64-unknown-unknown"' in text
    llvm_bridge.verify(text)
    assert m.data_layout == "e-i64:64"


def test_parse_bitcode_and_module_ref_through_the_bridge() -> None:
    text = "define i32 @f(i32 %x) {\n  %y = add i32 %x, 1\n  ret i32 %y\n}\n"
    ref = llvm_bridge.parse(text)
    for src in (ref.as_bitcode(), ref, text.encode()):
        m = parse_module(src, canonicalize=True)  # type: ignore[arg-type]
        f = m.get_function("f")
        assert f is not None and [i.opcode for i in f.instructions()] == ["add", "ret"]


def test_metadata_operands_and_bundles_keep_references() -> None:
    src = """
declare void @llvm.fake.use(...)
define void @f(i32 %x, ptr %p) {
  %t = call token @llvm.experimental.convergence.anchor()
  call void @g(ptr %p) [ "convergencectrl"(token %t) ]
  call void (...) @llvm.fake.use(i32 %x)
  ret void
}
declare void @g(ptr)
declare token @llvm.experimental.convergence.anchor()
"""
    m = parse_module(src, canonicalize=True)
    f = m.get_function("f")
    call = f.entry.instructions[1]
    assert isinstance(call, I.CallInst) and call.bundles == [("convergencectrl", [f.entry.instructions[0]])]
    assert call.args == [f.args[1]] and call.called_function is m.get_function("g")
    assert f.entry.instructions[0].users == [call]
    assert llvm_bridge.canonicalize(print_module(m)) == llvm_bridge.canonicalize(src)


def test_a_kernel_in_its_own_comdat_is_cloned_into_that_comdat() -> None:
    from vectorizer import vectorize

    text = """$g = comdat any
declare i64 @_Z13get_global_idj(i32)
define linkonce_odr spir_kernel void @g(ptr addrspace(1) %out) comdat {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %gid
  store i32 1, ptr addrspace(1) %p, align 4
  ret void
}
"""
    r = vectorize(text, kernel="g", width=4)
    assert r.vectorized_name == "__vecz_v4_g", r.remarks
    assert "@__vecz_v4_g(ptr addrspace(1) %out) comdat($g) {" in r.ir


_EVERY_KIND = """
%pair = type { i32, float }

@g = global i32 0

declare void @use(...)

define void @kinds(ptr %p, i32 %x, float %f, <4 x i32> %v) {
entry:
  %a = add nuw nsw i32 %x, 1
  %n = fneg fast float %f
  %c = icmp samesign ult i32 %a, 7
  %fc = fcmp nnan olt float %n, 1.0
  %s = select i1 %c, i32 %a, i32 3
  %z = zext nneg i32 %s to i64
  %q = getelementptr inbounds nuw %pair, ptr %p, i64 %z, i32 1
  %l = load volatile float, ptr %q, align 4
  store atomic i32 %a, ptr @g seq_cst, align 4
  %m = alloca [2 x i32], align 8
  %e = extractelement <4 x i32> %v, i32 1
  %i = insertelement <4 x i32> %v, i32 %e, i32 0
  %h = shufflevector <4 x i32> %i, <4 x i32> poison, <2 x i32> <i32 3, i32 poison>
  %sv = insertvalue %pair poison, float %l, 1
  %ev = extractvalue %pair %sv, 1
  %fr = freeze i32 %a
  %rmw = atomicrmw add ptr %p, i32 %fr syncscope("agent") monotonic, align 4
  %cx = cmpxchg weak ptr %p, i32 %rmw, i32 0 acq_rel monotonic, align 4
  fence release
  call void (...) @use(i32 %a, <2 x i32> %h, float %ev, { i32, i1 } %cx, ptr %m, i1 %fc)
  br i1 %c, label %next, label %done

next:
  %ph = phi i32 [ %a, %entry ]
  switch i32 %ph, label %done [
    i32 1, label %done
  ]

done:
  ret void
}
"""


def test_clone_copies_every_attribute() -> None:
    """`clone` copies the attributes each class declares: a declaration
    missing one would leave the copy without it (or sharing a list or set
    with the original)."""
    fn = parse_module(_EVERY_KIND).get_function("kinds")
    assert fn is not None
    fresh = {"uses", "_operands", "_uses", "parent", "name", "_debug_records"}
    kinds = set()
    for inst in fn.instructions():
        inst.set_metadata("keep", "!{}")
        copy = inst.clone()
        kinds.add(type(copy))
        own, got = vars(inst), vars(copy)
        assert set(got) | fresh == set(own) | fresh, type(inst)
        for k, v in own.items():
            if k in fresh:
                continue
            assert got[k] == v, (type(inst), k)
            if isinstance(v, (list, set, dict)):
                assert got[k] is not v, (type(inst), k)
        assert copy.operands == inst.operands and copy.parent is None and copy.name is None
        assert copy.get_metadata("keep") == "!{}"
    assert len(kinds) == 24
