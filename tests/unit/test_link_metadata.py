"""`link_metadata` writes `!vecz.vectorized` into LLVM's text directly when
it can tell how LLVM would print it (pipeline._append_link_metadata); the
result must be exactly what LLVM's round trip gives, and inputs it cannot
tell about must take the round trip."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vectorizer import llvm_bridge, pipeline
from vectorizer.pipeline import KernelOutcome, KernelRequest, link_metadata, vectorize_module

ROOT = Path(__file__).resolve().parents[2]
SAXPY = (ROOT / "bench" / "kernels" / "saxpy.ll").read_text()  # metadata on instructions and kernels
KERNEL = """
define spir_kernel void @k(ptr addrspace(1) %a) {
entry:
  %id = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr float, ptr addrspace(1) %a, i64 %id
  %v = load float, ptr addrspace(1) %p, align 4
  %w = fadd float %v, 1.0
  store float %w, ptr addrspace(1) %p, align 4
  ret void
}

declare i64 @_Z13get_global_idj(i32)
"""
PLAIN = KERNEL + """
; (the vectorized kernels the metadata names; bodies do not matter here)
declare void @__vecz_v4_k(ptr addrspace(1))
declare void @__vecz_v8_k(ptr addrspace(1))
"""


def _outcome(kernel: str, name: str, width: int = 4, dim: int = 0) -> KernelOutcome:
    return KernelOutcome(KernelRequest(kernel, width, dim), name, width)


def _round_trip(text: str, outcomes: list[KernelOutcome], monkeypatch) -> str:
    with monkeypatch.context() as m:
        m.setattr(pipeline, "_append_link_metadata", lambda *a: None)
        return link_metadata(text, outcomes)


def _with_metadata(named: str, nodes: str, attachment: str = "") -> str:
    """A plain kernel, canonical, with metadata appended (and `attachment` on its definition)."""
    text = llvm_bridge.canonicalize(PLAIN).rstrip("\n")
    if attachment:
        text = re.sub(r"^(define [^\n]*@k\([^\n]*) \{$", rf"\1 {attachment} {{", text, count=1, flags=re.M)
        assert attachment in text
    return llvm_bridge.canonicalize(f"{text}\n\n{named}\n\n{nodes}\n")


CASES = {
    "no metadata": llvm_bridge.canonicalize(PLAIN),
    "named metadata": _with_metadata("!opencl.ocl.version = !{!0}\n!other = !{!1, !0}",
                                     '!0 = !{i32 1, i32 2}\n!1 = !{!"x", !2}\n!2 = !{i32 3}'),
    "named metadata without nodes": _with_metadata("!empty = !{}", "").rstrip("\n") + "\n",
    "a node like the new one": _with_metadata(
        "!keep = !{!0}", "!0 = !{ptr @k, ptr @__vecz_v4_k, i32 4, i32 0}"),
    "function attachment": _with_metadata("!keep = !{!0}", "!0 = !{i32 1}\n!1 = !{i32 7}", "!foo !1"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_direct_text_equals_llvm_round_trip(name: str, monkeypatch) -> None:
    text = CASES[name]
    outcomes = [_outcome("k", "__vecz_v4_k"), _outcome("k", "__vecz_v8_k", 8, 1)]
    assert link_metadata(text, outcomes) == _round_trip(text, outcomes, monkeypatch)


def test_direct_text_taken_only_where_llvm_numbering_is_known() -> None:
    outcomes = [_outcome("k", "__vecz_v4_k")]
    assert pipeline._append_link_metadata(CASES["no metadata"], outcomes) is not None
    assert pipeline._append_link_metadata(CASES["named metadata"], outcomes) is not None
    # LLVM would merge the new node with the existing one, or renumber the
    # nodes a function mentions: the round trip decides.
    assert pipeline._append_link_metadata(CASES["a node like the new one"], outcomes) is None
    assert pipeline._append_link_metadata(CASES["function attachment"], outcomes) is None
    once = link_metadata(CASES["no metadata"], outcomes)
    assert pipeline._append_link_metadata(once, [_outcome("k", "__vecz_v8_k", 8)]) is None


BOSCC = ROOT / "tests" / "lit" / "control_flow" / "boscc.ll"


@pytest.mark.parametrize("kernel", ["k", "saxpy", "region"])
def test_vectorized_module_equals_llvm_round_trip(kernel: str, monkeypatch) -> None:
    # saxpy carries clang's metadata (on instructions and on the kernel): the
    # round trip. In `region`, LLVM's cleanup leaves a block's predecessors in
    # another order than a fresh parse lists them (`; preds =` comments).
    src = {"k": KERNEL, "saxpy": SAXPY, "region": BOSCC.read_text()}[kernel]
    requests = [KernelRequest(kernel, 4), KernelRequest(kernel, 8, 0)]
    text, _ = vectorize_module(src, requests)
    with monkeypatch.context() as m:
        m.setattr(pipeline, "_append_link_metadata", lambda *a: None)
        assert vectorize_module(src, requests)[0] == text
    assert "!vecz.vectorized = !{!" in text
    assert text == llvm_bridge.canonicalize(text)


def test_preds_comments_follow_a_fresh_parse() -> None:
    text, _ = vectorize_module(BOSCC.read_text(), [KernelRequest("region", 4)])
    # The same module without the metadata, as LLVM prints it after a parse.
    lines = text.split("\n")
    assert pipeline._preds_as_parsed(lines) == lines
    reordered = [ln.replace("; preds = %logged, %entry", "; preds = %entry, %logged") for ln in lines]
    assert reordered != lines
    assert pipeline._preds_as_parsed(reordered) == lines
