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
        callee = user.called_function if isinstance(user, I.CallInst) else None
        if callee is not None and callee.name.split(".")[:2] in (["llvm", "smax"], ["llvm", "smin"]) \
                and _feeds_only_addresses(user):
            continue
        return False
    return True


def test_no_flags_that_could_be_violated() -> None:
    from vectorizer.ir import instructions as I
    from vectorizer.ir.parser import parse_module

    nsw_indices = 0
    for seed in range(30):
        text = generate(seed)
        body = "\n".join(ln for ln in text.splitlines() if not ln.startswith(";"))
        for flag in (" nuw", " exact", " inbounds", " nneg", " fast", " nnan", " ninf"):
            assert flag not in body, (seed, flag)
        # nsw only on the affine index arithmetic, which is in bounds by construction.
        module = parse_module(llvm_bridge.canonicalize(body))
        for inst in (i for f in module.functions for i in f.instructions()):
            if isinstance(inst, I.BinaryOperator) and "nsw" in inst.flags:
                assert inst.opcode in ("add", "mul") and _feeds_only_addresses(inst), (seed, str(inst))
                nsw_indices += 1
    assert nsw_indices


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
                 "side_effect_helpers", "work_item_builtins", "offsets", "multi_ndrange"):
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
