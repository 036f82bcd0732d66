"""The printer's per-print tables: named structs found while printing, and
no spelling carried from one print to the next."""

from __future__ import annotations

from vectorizer.ir import Module, parse_module, print_module
from vectorizer.ir import instructions as I
from vectorizer.ir import printer as P
from vectorizer.ir import types as T
from vectorizer.ir import values as V

_TEXT = """\
%struct.S = type { i32, float }

define void @k(ptr %p, i32 %n) {
entry:
  %a = load %struct.S, ptr %p, align 4
  %x = extractvalue %struct.S %a, 0
  %0 = add i32 %x, %n
  %1 = add i32 %0, 1
  %y = mul i32 %1, %1
  store i32 %y, ptr %p, align 4
  ret void
}
"""


def _reference_structs(module: Module) -> list[str]:
    """The struct lines as the printer made them before it found structs
    while printing: registered ones, then `_collect_structs`' order."""
    structs = dict(module.struct_types)
    P._collect_structs(module, structs)
    return [f"{st} = type {st.body_str}" for st in structs.values()]


def _struct_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if " = type " in line]


def test_unregistered_structs_are_defined_in_the_walks_order() -> None:
    m = parse_module(_TEXT)
    fn = m.get_function("k")
    entry = fn.blocks[0]
    # Named structs no module registers, reachable only through a callee's
    # parameter, an instruction's type, and a phi's constant incoming value.
    callee_only = T.StructType((T.i8,), name="callee.only")
    inst_only = T.StructType((T.i64,), name="inst.only")
    phi_only = T.StructType((T.i16,), name="phi.only")
    decl = m.add_function("use", T.FunctionType(T.void, (T.ptr,)))
    call = I.CallInst(T.FunctionType(T.void, (callee_only,)), decl, [V.UndefValue(callee_only)])
    alloca = I.AllocaInst(inst_only)
    phi = I.PhiNode(phi_only)
    body = I.BranchInst(entry)
    loop = type(entry)("loop")
    fn.append_block(loop)
    phi.add_incoming(V.ConstantAggregateZero(phi_only), loop)
    for inst in (phi, alloca, call, body):
        loop.instructions.append(inst)
        inst.parent = loop
    text = print_module(m)
    lines = _struct_lines(text)
    assert lines == _reference_structs(m)
    assert lines[0] == "%struct.S = type { i32, float }"
    assert set(lines[1:]) == {"%phi.only = type { i16 }", "%inst.only = type { i64 }", "%callee.only = type { i8 }"}


def test_registered_structs_only_when_nothing_else_is_named() -> None:
    m = parse_module(_TEXT)
    assert _struct_lines(print_module(m)) == _reference_structs(m) == ["%struct.S = type { i32, float }"]


def test_each_print_spells_the_module_as_it_is_now() -> None:
    m = parse_module(_TEXT)
    first = print_module(m)
    fn = m.get_function("k")
    insts = fn.blocks[0].instructions
    add0, add1, mul = insts[2], insts[3], insts[4]
    # Rename, renumber (a value loses its name), change an operand and a
    # type spelling: the next print follows every edit.
    mul.name = "z"
    add0.name = None
    add1.name = "w"
    add1.set_operand(1, V.ConstantInt(T.i32, -2))
    m.struct_types["struct.S"].set_body((T.i64,))
    second = print_module(m)
    assert first != second
    assert "%z = mul i32 %w, %w" in second
    assert "%w = add i32 %0, -2" in second
    assert "%struct.S = type { i64 }" in second
    # Printing again gives the same text: nothing carried over is stale.
    assert print_module(m) == second


def test_repeated_names_get_the_next_free_suffix() -> None:
    m = parse_module(_TEXT)
    fn = m.get_function("k")
    for inst in fn.blocks[0].instructions[2:5]:
        inst.name = "x"
    text = print_module(m)
    assert "%x.1 = add i32 %x, %n" in text
    assert "%x.2 = add i32 %x.1, 1" in text
    assert "%x.3 = mul i32 %x.2, %x.2" in text
