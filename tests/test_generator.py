"""The generator end to end: kernels are valid LLVM IR with a runnable header,
the same seed gives the same bytes (also across processes), and a sample
runs scalar under the oracle without a fault."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings

from fuzz import generate, generate_kernel
from fuzz.cli import main as fuzz_main
from fuzz.knobs import PROFILES
from fuzz.strategies import kernels
from vectorizer import llvm_bridge

VERIFY_SEEDS = range(60)


def _verify(text: str) -> None:
    llvm_bridge.parse(text)  # raises IRError with LLVM's diagnostic


def _header(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        if not line.startswith(";"):
            break
        key, _, value = line[1:].strip().partition(":")
        out.setdefault(key.strip(), []).append(value.strip())
    return out


@pytest.mark.parametrize("chunk", range(3))
def test_kernels_parse_and_verify(chunk: int) -> None:
    for seed in VERIFY_SEEDS[chunk::3]:
        _verify(generate(seed))


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_every_profile_verifies(profile: str) -> None:
    for seed in range(8):
        _verify(generate(seed, profile=profile))


def test_same_seed_same_bytes() -> None:
    for seed in range(10):
        assert generate(seed) == generate(seed)
    assert generate(3) != generate(4)


def test_same_bytes_in_another_process() -> None:
    """No dependence on hash seeds, set order or anything process-specific."""
    code = "import sys; from fuzz import generate; sys.stdout.write(generate(11) + generate(12, profile='loops'))"
    outs = []
    for hash_seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        outs.append(subprocess.run([sys.executable, "-c", code], env=env, check=True,
                                   capture_output=True, text=True).stdout)
    assert outs[0] == outs[1] == generate(11) + generate(12, profile="loops")


def test_header_describes_every_parameter() -> None:
    for seed in range(20):
        g = generate_kernel(seed)
        h = _header(g.text)
        assert h["vecz-case"] == ["1"]
        assert h["kernel"] == [g.plan.name]
        m = re.search(rf"define spir_kernel void @{g.plan.name}\((.*)\)", g.text)
        assert m is not None
        nparams = len([p for p in m.group(1).split(",") if p.strip()])
        assert len(h["args"][0].split()) == nparams
        assert len(h["ndrange"]) == len(g.plan.ndranges)
        assert h["origin"][0].startswith(f"fuzz.generate seed={seed}")
        assert h["dims"][0] == ",".join(str(d) for d in range(g.plan.dims))


def _feeds_only_addresses(inst) -> bool:
    """Is `inst` used only to index memory: by GEPs as an index, directly or
    through more nsw index arithmetic or a clamp?"""
    from vectorizer.ir import instructions as I

    for use in inst.uses:
        user = use.user
        if isinstance(user, I.GetElementPtrInst) and user.pointer is not inst:
            continue
        if isinstance(user, I.BinaryOperator) and "nsw" in user.flags and _feeds_only_addresses(user):
            continue
        # An address formed as inttoptr(ptrtoint(base) + sext(index) * size).
        if isinstance(user, I.CastInst) and user.opcode == "inttoptr":
            continue
        if (isinstance(user, I.CastInst) and user.opcode == "sext"
                or isinstance(user, I.BinaryOperator) and user.opcode in ("mul", "add")) \
                and _feeds_only_addresses(user):
            continue
        callee = user.called_function if isinstance(user, I.CallInst) else None
        if callee is not None and callee.name.split(".")[:2] in (["llvm", "smax"], ["llvm", "smin"]) \
                and _feeds_only_addresses(user):
            continue
        return False
    return True


def _const(v) -> int | None:
    """The value of a (splat) integer constant, or of the emitter's guards
    folded on constants (`and` masks, `select(icmp eq C, 0), 1, C)` divisor
    guards); else None."""
    from vectorizer.ir import instructions as I
    from vectorizer.ir import values as V

    if isinstance(v, V.ConstantAggregateZero):
        return 0
    if isinstance(v, V.ConstantVector):  # a splat, spelled as one or lane by lane
        lanes = {_const(e) for e in v.elements}
        return lanes.pop() if len(lanes) == 1 else None
    if isinstance(v, V.ConstantInt):
        return v.signed if v.type.bits > 1 else v.value & 1
    if isinstance(v, I.ICmpInst) and v.predicate in ("eq", "ne"):
        x, y = _const(v.lhs), _const(v.rhs)
        if x is not None and y is not None:
            return int((x == y) == (v.predicate == "eq"))
    if isinstance(v, I.BinaryOperator) and v.opcode in ("and", "or"):
        x, y = _const(v.lhs), _const(v.rhs)
        if v.opcode == "and" and 0 in (x, y):
            return 0
        if x is not None and y is not None:
            return x & y if v.opcode == "and" else x | y
    if isinstance(v, I.SelectInst):
        c = _const(v.condition)
        if c is not None:
            return _const(v.true_value if c else v.false_value)
    return None


def _bounds(v) -> tuple[int, int] | None:
    """[lo, hi] (signed) of every lane of integer `v` from the shapes the
    planner puts around flagged operands (`and`/`urem` by a constant, `or`
    with a constant, `mul` by a constant, `ashr` by a constant); None when
    unknown."""
    from vectorizer.ir import instructions as I
    from vectorizer.ir import types as T

    c = _const(v)
    if c is not None:
        return c, c
    if isinstance(v, I.BinaryOperator):
        b = _const(v.rhs)
        ty = v.type.element if isinstance(v.type, T.VectorType) else v.type
        if v.opcode == "and" and b is not None and b >= 0:
            x = _bounds(v.lhs)
            return 0, min(b, x[1]) if x is not None and x[0] >= 0 else b
        if v.opcode == "urem" and b is not None and b > 0:
            return 0, b - 1
        if v.opcode == "ashr" and b is not None and 0 <= b < ty.bits:
            return -(1 << (ty.bits - 1 - b)), (1 << (ty.bits - 1 - b)) - 1
        if v.opcode == "or" and b is not None and b >= 0:
            x = _bounds(v.lhs)
            if x is not None and x[0] >= 0:
                return max(x[0], b), x[1] | b
        if v.opcode == "mul" and b is not None and b >= 0:
            x = _bounds(v.lhs)
            if x is not None and x[0] >= 0:
                return x[0] * b, x[1] * b
    return None


def _element_steps(ptr, size: int, base, seen: set) -> bool:
    """Is `ptr` `base` plus a multiple of `size` bytes (GEPs over elements of
    that size, selects and phis of such)?"""
    from vectorizer.analysis.data_layout import DataLayout
    from vectorizer.ir import instructions as I

    if id(ptr) in seen:
        return True
    seen.add(id(ptr))
    if ptr is base:
        return True
    if isinstance(ptr, I.GetElementPtrInst) and len(ptr.indices) == 1:
        return DataLayout.parse(None).alloc_size(ptr.source_element_type) % size == 0 \
            and _element_steps(ptr.pointer, size, base, seen)
    if isinstance(ptr, I.SelectInst):
        return _element_steps(ptr.true_value, size, base, seen) and _element_steps(ptr.false_value, size, base, seen)
    if isinstance(ptr, I.PhiNode):
        return all(_element_steps(v, size, base, seen) for v, _ in ptr.incoming)
    return False


def _pointer_difference(v, size: int | None) -> bool:
    """`sub (ptrtoint p), (ptrtoint q)` of two addresses a multiple of `size` bytes from one buffer."""
    from vectorizer.ir import instructions as I
    from vectorizer.ir.module import Argument

    if size is None or not (isinstance(v, I.BinaryOperator) and v.opcode == "sub"):
        return False
    ends = [v.lhs, v.rhs]
    if not all(isinstance(e, I.CastInst) and e.opcode == "ptrtoint" for e in ends):
        return False
    p, q = ends[0].value, ends[1].value
    root = p
    while isinstance(root, (I.GetElementPtrInst, I.SelectInst, I.PhiNode)):
        root = root.pointer if isinstance(root, I.GetElementPtrInst) else root.operands[1 if isinstance(
            root, I.SelectInst) else 0]
    return isinstance(root, Argument) and _element_steps(p, size, root, set()) and _element_steps(q, size, root, set())


def _flag_holds(inst) -> bool:
    """Does every flag on `inst` hold for every value its operands can take?"""
    from vectorizer.ir import instructions as I
    from vectorizer.ir import types as T

    def bits_of(t) -> int:
        return (t.element if isinstance(t, T.VectorType) else t).bits

    flags = set(inst.flags)
    if isinstance(inst, I.CastInst):
        src_bits, dst_bits = bits_of(inst.value.type), (bits_of(inst.type) if inst.opcode == "trunc" else 0)
        r = _bounds(inst.value)
        if r is None or r[0] < 0:
            return False
        if inst.opcode in ("zext", "uitofp"):  # nneg
            return r[1] < 1 << (src_bits - 1)
        if inst.opcode == "trunc":
            return r[1] < (1 << (dst_bits - 1) if "nsw" in flags else 1 << dst_bits)
        return False
    if isinstance(inst, I.ICmpInst):  # samesign: both non-negative
        top = 1 << (bits_of(inst.lhs.type) - 1)
        return all(r is not None and 0 <= r[0] and r[1] < top for r in (_bounds(inst.lhs), _bounds(inst.rhs)))
    bits = bits_of(inst.type)
    smin, smax, umax = -(1 << (bits - 1)), (1 << (bits - 1)) - 1, (1 << bits) - 1
    op, ra, rb = inst.opcode, _bounds(inst.lhs), _bounds(inst.rhs)
    if op in ("lshr", "ashr"):  # exact: the shifted-out bits are masked off
        k = _const(inst.rhs)
        m = _const(inst.lhs.rhs) if isinstance(inst.lhs, I.BinaryOperator) and inst.lhs.opcode == "and" else None
        return k is not None and m is not None and (m & ((1 << k) - 1)) == 0
    if op == "or":  # disjoint: complementary masks
        ma = _const(inst.lhs.rhs) if isinstance(inst.lhs, I.BinaryOperator) and inst.lhs.opcode == "and" else None
        mb = _const(inst.rhs.rhs) if isinstance(inst.rhs, I.BinaryOperator) and inst.rhs.opcode == "and" else None
        return ma is not None and mb is not None and (ma & mb & umax) == 0
    if op == "sdiv" and _pointer_difference(inst.lhs, _const(inst.rhs)):
        return True  # C's pointer subtraction: the distance is a whole number of elements
    if ra is None or rb is None:
        return False
    if op in ("udiv", "sdiv"):  # exact: the dividend is (masked x) * d, d the divisor
        d = _const(inst.rhs)
        lhs = inst.lhs
        return (d is not None and d > 0 and isinstance(lhs, I.BinaryOperator) and lhs.opcode == "mul"
                and _const(lhs.rhs) == d and 0 <= ra[0] and ra[1] <= smax)
    if op == "add":
        lo, hi = ra[0] + rb[0], ra[1] + rb[1]
    elif op == "sub":
        lo, hi = ra[0] - rb[1], ra[1] - rb[0]
    elif op == "mul":
        prods = [x * y for x in ra for y in rb]
        lo, hi = min(prods), max(prods)
    elif op == "shl":
        if rb[0] < 0 or rb[1] >= bits:
            return False
        lo, hi = min(ra[0] << rb[1], ra[0]), max(ra[1] << rb[1], ra[1])
    else:
        return False
    ok = True
    if "nsw" in flags:
        ok &= smin <= lo and hi <= smax
    if "nuw" in flags:
        ok &= ra[0] >= 0 and rb[0] >= 0 and 0 <= lo and hi <= umax
    return ok


def test_flags_hold_by_construction() -> None:
    """Poison-generating flags appear only where they provably hold: `nsw` on
    the affine index arithmetic (in bounds by construction), and every other
    flag on operands masked so that it cannot be violated; never fast-math
    flags. Every generated flag kind shows up."""
    from vectorizer.ir import instructions as I
    from vectorizer.ir.parser import parse_module

    seen: set[str] = set()
    for seed in range(60):
        text = generate(seed)
        body = "\n".join(ln for ln in text.splitlines() if not ln.startswith(";"))
        for flag in (" fast ", " nnan ", " ninf ", " nsz ", " arcp ", " contract ", " afn ", " reassoc "):
            assert flag not in body, (seed, flag)
        module = parse_module(llvm_bridge.canonicalize(body))
        for inst in (i for f in module.functions for i in f.instructions()):
            flags = set(getattr(inst, "flags", ())) - {"inbounds", "nuw"} if isinstance(inst, I.GetElementPtrInst) \
                else set(getattr(inst, "flags", ()))
            if isinstance(inst, I.GetElementPtrInst) or not flags:
                continue
            seen |= {f"{inst.opcode} {f}" for f in flags}
            if isinstance(inst, I.BinaryOperator) and flags == {"nsw"} and inst.opcode in ("add", "mul") \
                    and _feeds_only_addresses(inst):
                continue
            assert _flag_holds(inst), (seed, str(inst))
    for wanted in ("add nsw", "add nuw", "sub nuw", "mul nsw", "shl nuw", "lshr exact", "udiv exact",
                   "or disjoint", "trunc nuw", "trunc nsw", "zext nneg", "icmp samesign"):
        assert any(s.startswith(wanted.split()[0]) and s.endswith(wanted.split()[1]) for s in seen), wanted


@settings(max_examples=15, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(kernels())
def test_hypothesis_kernels_verify(text: str) -> None:
    _verify(text)


def test_cli_generate_and_coverage(tmp_path, capsys) -> None:
    out = tmp_path / "k.ll"
    assert fuzz_main(["generate", "--seed", "5", "-o", str(out)]) == 0
    assert out.read_text() == generate(5)
    assert fuzz_main(["generate", "--seed", "5", "--plan"]) == 0
    assert "kernel void fuzz_kernel(" in capsys.readouterr().out
    assert fuzz_main(["generate", "--seed", "5", "--profile", "tiny", "--knob", "vectors=false",
                      "-o", str(out)]) == 0
    assert out.read_text() == generate(5, profile="tiny", vectors=False)
    assert fuzz_main(["coverage", "--count", "5"]) == 0
    table = capsys.readouterr().out
    assert "kernels/s" in table and "if: divergent" in table


def _random_knobs(r: random.Random) -> dict:
    from fuzz.knobs import Knobs

    base = Knobs()
    kw: dict = {}
    for name in ("divergent_if", "uniform_if", "loops", "divergent_loops", "nested_loops",
                 "break_continue", "early_return", "multi_exit", "switch", "select", "vectors",
                 "uniform_stores", "private_arrays", "atomics", "math", "fmuladd", "helpers",
                 "side_effect_helpers", "work_item_builtins", "offsets", "multi_ndrange", "runtime_dims",
                 "mux_builtins", "flags", "access_forms", "constant_buffers", "mem_intrinsics",
                 "opencl_builtins", "printf"):
        if r.random() < 0.3:
            kw[name] = not getattr(base, name)
    kw["types"] = tuple(t for t in base.types if r.random() < 0.6) or ("f64",)
    kw["memory"] = tuple(m for m in base.memory if r.random() < 0.6)
    kw["size"] = r.randint(1, 30)
    kw["max_depth"] = r.randint(0, 5)
    kw["expr_depth"] = r.randint(0, 4)
    kw["max_dims"] = r.randint(1, 3)
    kw["max_trip"] = r.randint(1, 16)
    return kw


@pytest.mark.parametrize("chunk", range(4))
def test_random_knob_combinations_give_valid_kernels(chunk: int) -> None:
    import random

    r = random.Random(chunk)
    for i in range(15):
        kw = _random_knobs(r)
        _verify(generate(chunk * 100 + i, **kw))


def test_vector_arguments_parse_as_a_case() -> None:
    """A by-value vector argument (`scalar:4xf32:1.5`, the value in every
    lane) is written so that the oracle reads it back."""
    from oracle.case import parse_case

    seen = 0
    for seed in range(300):
        g = generate_kernel(seed)
        vec = [p for p in g.plan.scalars if p.ty.is_vector]
        if not vec:
            continue
        case = parse_case(g.text)
        specs = {str(a) for a in case.args}
        for p in vec:
            assert f"scalar:{p.ty.header}:{p.value}" in specs
            seen += p.ty.is_float
        if seen:
            break
    assert seen, "no float vector argument in 300 kernels"
