"""Fault injection for the mutation score: does the fuzzer + oracle catch bugs?

Each operator edits the vectorizer's OUTPUT, only inside the vectorized
function `__vecz_v<W>_<kernel>`, between `vectorize()` and the oracle run, the
way a plausible vectorizer bug would (a forgotten mask, an off-by-one lane,
a swapped blend...). Every operator rewrites every site it applies to (a
vectorizer bug is systematic, not one-off) and the result must still verify
in LLVM: a mutant that does not verify is no mutant (`apply` returns None).

This module only edits IR; the score that runs campaigns with a fault
injected is fuzz.mutation_score (a layer above fuzz.campaign and fuzz.reduce).

Operators are edits on our own IR (`vectorizer.ir`), so types stay right:

| name | the bug it models |
|---|---|
| mask-all-true | masked load/store/gather/scatter mask forced all-true (a store's or load's mask forgotten) |
| step-swap | two lanes of a `<k, k+s, ...>` step vector swapped (lane ids permuted) |
| lane-shift | a `<0, 1, 2, ...>` lane-id vector shifted by one (`<1, 2, 3, ...>`) |
| load-offset | a contiguous vector load one element off (wrong base of a packetized load) |
| select-swap | a vector select's operands swapped (a blend the wrong way round) |
| icmp-flip | a vector integer compare inverted (a mask negated) |
| fcmp-flip | a vector float compare inverted |
| reduce-or-and | an any/all reduction the other way (`reduce.or` <-> `reduce.and`, `umax` <-> `umin`) |
| scatter-lane0 | a scatter replaced by a store of lane 0 only |
| shuffle-swap | two lanes of a constant shuffle mask swapped |
| binop-swap | the operands of a vector `sub`/`fsub` swapped |
| ext-flip | a vector `zext` <-> `sext` (wrong extension of a packetized index) |
"""

from __future__ import annotations

from collections.abc import Callable

from vectorizer.ir import BinaryOperator as _BinOp
from vectorizer.ir import (
    Builder,
    CallInst,
    CastInst,
    ConstantInt,
    ConstantVector,
    FCmpInst,
    Function,
    ICmpInst,
    IntType,
    LoadInst,
    Module,
    SelectInst,
    ShuffleVectorInst,
    VectorType,
    i64,
    is_vector,
    parse_module,
    print_module,
)

ICMP_INVERSE = {"eq": "ne", "ne": "eq", "ugt": "ule", "ule": "ugt", "uge": "ult", "ult": "uge",
                "sgt": "sle", "sle": "sgt", "sge": "slt", "slt": "sge"}
FCMP_INVERSE = {"oeq": "une", "une": "oeq", "ogt": "ule", "ule": "ogt", "oge": "ult", "ult": "oge",
                "olt": "uge", "uge": "olt", "ole": "ugt", "ugt": "ole", "one": "ueq", "ueq": "one",
                "ord": "uno", "uno": "ord", "true": "false", "false": "true"}
# Masked memory intrinsics: name prefix -> index of the mask argument.
MASK_ARG = {"llvm.masked.load.": 1, "llvm.masked.store.": 2, "llvm.masked.gather.": 1,
            "llvm.masked.scatter.": 2, "llvm.masked.expandload.": 1, "llvm.masked.compressstore.": 2}
REDUCE_SWAP = {"or": "and", "and": "or", "umax": "umin", "umin": "umax", "smax": "smin", "smin": "smax"}


def _callee_name(inst: CallInst) -> str:
    f = inst.called_function
    return f.name or "" if f is not None else ""


def _all_true(v: object) -> bool:
    if isinstance(v, ConstantVector):
        return all(isinstance(e, ConstantInt) and e.value & 1 for e in v.elements)
    return False


def _true_mask(ty: VectorType) -> ConstantVector:
    return ConstantVector(ty, [ConstantInt(ty.element, 1)], is_splat=True)


def _mask_all_true(fn: Function, mod: Module) -> int:
    n = 0
    for inst in list(fn.instructions()):
        if not isinstance(inst, CallInst):
            continue
        name = _callee_name(inst)
        for prefix, idx in MASK_ARG.items():
            if name.startswith(prefix) and idx < inst.num_args:
                m = inst.args[idx]
                if not _all_true(m) and isinstance(m.type, VectorType):
                    inst.set_arg(idx, _true_mask(m.type))
                    n += 1
    return n


def _int_elems(c: ConstantVector) -> list[int] | None:
    if c.is_splat or not all(isinstance(e, ConstantInt) for e in c.elements):
        return None
    return [e.value for e in c.elements]  # type: ignore[attr-defined]


def _is_step(vals: list[int], bits: int) -> bool:
    if len(vals) < 2:
        return False
    mask = (1 << bits) - 1
    step = (vals[1] - vals[0]) & mask
    return step != 0 and all((vals[i + 1] - vals[i]) & mask == step for i in range(len(vals) - 1))


def _rewrite_constant_vectors(fn: Function, edit: Callable[[list[int], int], list[int] | None]) -> int:
    """Replace integer constant-vector operands for which `edit` returns new lanes."""
    n = 0
    for inst in list(fn.instructions()):
        for i, op in enumerate(inst.operands):
            if not isinstance(op, ConstantVector) or not isinstance(op.type, VectorType):
                continue
            et = op.type.element
            vals = _int_elems(op)
            if vals is None or not isinstance(et, IntType) or et.bits < 2:
                continue
            new = edit(vals, et.bits)
            if new is not None and new != vals:
                inst.set_operand(i, ConstantVector(op.type, [ConstantInt(et, v) for v in new]))
                n += 1
    return n


def _step_swap(fn: Function, mod: Module) -> int:
    def edit(vals: list[int], bits: int) -> list[int] | None:
        if not _is_step(vals, bits):
            return None
        return [vals[1], vals[0], *vals[2:]]

    return _rewrite_constant_vectors(fn, edit)


def _lane_shift(fn: Function, mod: Module) -> int:
    def edit(vals: list[int], bits: int) -> list[int] | None:
        if vals != list(range(len(vals))) or len(vals) < 2:
            return None
        return [v + 1 for v in vals]

    return _rewrite_constant_vectors(fn, edit)


def _load_offset(fn: Function, mod: Module) -> int:
    n = 0
    for inst in list(fn.instructions()):
        if isinstance(inst, LoadInst) and isinstance(inst.type, VectorType) and not is_vector(inst.pointer.type):
            b = Builder().position_before(inst)
            g = b.gep(inst.type.element, inst.pointer, [ConstantInt(i64, 1)])
            inst.set_operand(0, g)
            n += 1
    return n


def _select_swap(fn: Function, mod: Module) -> int:
    n = 0
    for inst in list(fn.instructions()):
        if isinstance(inst, SelectInst) and is_vector(inst.type):
            t, f = inst.operands[1], inst.operands[2]
            if t is not f:
                inst.set_operand(1, f)
                inst.set_operand(2, t)
                n += 1
    return n


def _icmp_flip(fn: Function, mod: Module) -> int:
    n = 0
    for inst in fn.instructions():
        if isinstance(inst, ICmpInst) and is_vector(inst.type):
            inst.predicate = ICMP_INVERSE[inst.predicate]
            inst.flags.discard("samesign")
            n += 1
    return n


def _fcmp_flip(fn: Function, mod: Module) -> int:
    n = 0
    for inst in fn.instructions():
        if isinstance(inst, FCmpInst) and is_vector(inst.type):
            inst.predicate = FCMP_INVERSE[inst.predicate]
            n += 1
    return n


def _reduce_or_and(fn: Function, mod: Module) -> int:
    n = 0
    for inst in list(fn.instructions()):
        if not isinstance(inst, CallInst):
            continue
        name = _callee_name(inst)
        if not name.startswith("llvm.vector.reduce."):
            continue
        kind, _, suffix = name[len("llvm.vector.reduce."):].partition(".")
        if kind in REDUCE_SWAP:
            f = inst.called_function
            assert f is not None
            inst.callee = mod.get_or_insert_function(f"llvm.vector.reduce.{REDUCE_SWAP[kind]}.{suffix}",
                                                     f.function_type)
            n += 1
    return n


def _scatter_lane0(fn: Function, mod: Module) -> int:
    n = 0
    for inst in list(fn.instructions()):
        if isinstance(inst, CallInst) and _callee_name(inst).startswith("llvm.masked.scatter."):
            val, ptrs = inst.args[0], inst.args[1]
            b = Builder().position_before(inst)
            v0 = b.extractelement(val, 0)
            p0 = b.extractelement(ptrs, 0)
            b.store(v0, p0, align=1)
            inst.erase_from_parent()
            n += 1
    return n


def _shuffle_swap(fn: Function, mod: Module) -> int:
    n = 0
    for inst in fn.instructions():
        if isinstance(inst, ShuffleVectorInst):
            m = list(inst.mask)
            if len(m) >= 2 and m[0] != m[1] and len(set(m)) > 1:
                m[0], m[1] = m[1], m[0]
                inst.mask = m
                n += 1
    return n


def _binop_swap(fn: Function, mod: Module) -> int:
    n = 0
    for inst in fn.instructions():
        if isinstance(inst, _BinOp) and inst.opcode in ("sub", "fsub") and is_vector(inst.type):
            a, b = inst.operands
            if a is not b:
                inst.set_operand(0, b)
                inst.set_operand(1, a)
                inst.flags.difference_update({"nsw", "nuw"})
                n += 1
    return n


def _ext_flip(fn: Function, mod: Module) -> int:
    n = 0
    for inst in fn.instructions():
        if isinstance(inst, CastInst) and inst.opcode in ("zext", "sext") and is_vector(inst.type):
            inst.opcode = "sext" if inst.opcode == "zext" else "zext"
            inst.flags.discard("nneg")
            n += 1
    return n


OPERATORS: dict[str, Callable[[Function, Module], int]] = {
    "mask-all-true": _mask_all_true,
    "step-swap": _step_swap,
    "lane-shift": _lane_shift,
    "load-offset": _load_offset,
    "select-swap": _select_swap,
    "icmp-flip": _icmp_flip,
    "fcmp-flip": _fcmp_flip,
    "reduce-or-and": _reduce_or_and,
    "scatter-lane0": _scatter_lane0,
    "shuffle-swap": _shuffle_swap,
    "binop-swap": _binop_swap,
    "ext-flip": _ext_flip,
}


def apply(operator: str, ir: str, function: str) -> str | None:
    """The module `ir` with `operator` applied to every site in `function`, or
    None when the operator has no site there (or the mutant would not verify).
    Raises ValueError for an unknown operator."""
    from vectorizer.llvm_bridge import verify

    if operator not in OPERATORS:
        raise ValueError(f"unknown mutation operator {operator!r}; known: {', '.join(OPERATORS)}")
    mod = parse_module(ir)
    fn = mod.get_function(function)
    if fn is None or fn.is_declaration:
        return None
    if OPERATORS[operator](fn, mod) == 0:
        return None
    text = print_module(mod)
    try:
        verify(text)
    except Exception:
        return None
    return text
