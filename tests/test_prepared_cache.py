"""The prepared-kernel cache (vectorizer/passes/prepared_cache.py): a request
that resumes from an earlier width's snapshot gives exactly the output and
remarks a request run from the start gives."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from vectorizer import vectorize
from vectorizer.passes import DEFAULT_NAMES
from vectorizer.passes.prepared_cache import CACHE, PreparedCache
from vectorizer.pipeline import KernelRequest, PipelineOptions, vectorize_module

ROOT = Path(__file__).resolve().parents[1]

# Divergent control flow: control-flow conversion changes the kernel (a
# snapshot after it), and a private array the preparation passes promote.
DIVERGENT = """
declare i64 @_Z13get_global_idj(i32)

define spir_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b) {
entry:
  %tmp = alloca [2 x float], align 4
  %id = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr float, ptr addrspace(1) %a, i64 %id
  %v = load float, ptr addrspace(1) %p, align 4
  store float %v, ptr %tmp, align 4
  %c = fcmp ogt float %v, 0.0
  br i1 %c, label %then, label %done
then:
  %w = load float, ptr %tmp, align 4
  %m = fmul float %w, 2.0
  %q = getelementptr float, ptr addrspace(1) %b, i64 %id
  store float %m, ptr addrspace(1) %q, align 4
  br label %done
done:
  ret void
}
"""


def _fresh(text: str, width: int, dim: int = 0, choices: str = ""):
    CACHE.clear()
    return vectorize(text, kernel="k", width=width, dim=dim, choices=choices)


@pytest.mark.parametrize("choices", ["", "LinearizeBOSCC", "VectorPredication"])
def test_resumed_requests_equal_fresh_ones(choices: str) -> None:
    fresh = {(w, d): _fresh(DIVERGENT, w, d, choices) for w in (1, 4, 8) for d in (0, 1)}
    CACHE.clear()
    hits = CACHE.hits
    for (w, d), want in fresh.items():
        got = vectorize(DIVERGENT, kernel="k", width=w, dim=d, choices=choices)
        assert (got.ir, got.vectorized_name, got.remarks) == (want.ir, want.vectorized_name, want.remarks)
    # Every request but the first resumed: the other widths after control-flow
    # conversion, the first width of dimension 1 after `prepare`.
    assert CACHE.hits - hits == 5


def _key(text: str, request: KernelRequest) -> tuple:
    from vectorizer.llvm_bridge import canonicalize
    from vectorizer.target import host_target

    key = PreparedCache.key(canonicalize(text), request, host_target(), DEFAULT_NAMES)  # as vectorize() reads it
    assert key is not None
    return key


def test_snapshots_after_control_flow_conversion_and_after_prepare() -> None:
    CACHE.clear()
    vectorize(DIVERGENT, kernel="k", width=4)
    key = _key(DIVERGENT, KernelRequest("k", 4))
    snap = CACHE._entries[key]
    assert not snap.stopped and DEFAULT_NAMES[snap.after] == "control-flow-conversion"
    # The one every dimension shares stops at `prepare`.
    shared = CACHE._entries[PreparedCache.any_dimension(key)]
    assert not shared.stopped and DEFAULT_NAMES[shared.after] == "prepare"


def test_refusal_is_remembered_with_its_remarks() -> None:
    text = (ROOT / "tests/lit/control_flow/barrier_refused.ll").read_text()
    first = _fresh(text, 4)
    assert first.vectorized_name is None
    again = vectorize(text, kernel="k", width=8)
    assert CACHE._entries[_key(text, KernelRequest("k", 8))].stopped
    assert again.vectorized_name is None and again.remarks == first.remarks
    assert again.ir == first.ir


def test_observed_pipelines_run_every_pass() -> None:
    CACHE.clear()
    vectorize(DIVERGENT, kernel="k", width=4)
    seen: list[str] = []
    options = PipelineOptions(print_after_all=True, emit=lambda kernel, name, ir: seen.append(name))
    vectorize_module(DIVERGENT, [KernelRequest("k", 8)], options=options)
    assert seen[: DEFAULT_NAMES.index("prepare") + 1] == list(DEFAULT_NAMES[: DEFAULT_NAMES.index("prepare") + 1])


def test_key_separates_what_the_prefix_reads() -> None:
    from vectorizer.choices import parse_choices
    from vectorizer.target import host_target

    target = host_target()
    base = KernelRequest("k", 4)
    key = PreparedCache.key(DIVERGENT, base, target, DEFAULT_NAMES)
    assert key == PreparedCache.key(DIVERGENT, KernelRequest("k", 16), target, DEFAULT_NAMES)
    for other in (KernelRequest("k", 4, dim=1), KernelRequest("k", 4, choices=parse_choices("LinearizeBOSCC"))):
        assert PreparedCache.key(DIVERGENT, other, target, DEFAULT_NAMES) != key
    no_intptr = tuple(n for n in DEFAULT_NAMES if n != "remove-intptr")
    assert PreparedCache.key(DIVERGENT, base, target, no_intptr) != key
    # Up to `prepare`, only the dimension may differ.
    dim1 = PreparedCache.key(DIVERGENT, KernelRequest("k", 4, dim=1), target, DEFAULT_NAMES)
    assert PreparedCache.any_dimension(dim1) == PreparedCache.any_dimension(key)
    assert PreparedCache.any_dimension(PreparedCache.key(DIVERGENT, base, target, no_intptr)) == \
        PreparedCache.any_dimension(key)


def test_least_recently_used_entry_goes_first() -> None:
    cache = PreparedCache(size=2)
    from vectorizer.passes.prepared_cache import Snapshot

    for k in ("a", "b"):
        cache.put((k,), Snapshot(0, True, (k,)))
    assert cache.get(("a",)) is not None
    cache.put(("c",), Snapshot(0, True, ("c",)))
    assert cache.get(("b",)) is None and cache.get(("a",)) is not None


def test_resumed_requests_carry_a_stub_of_the_original_kernel() -> None:
    CACHE.clear()
    vectorize(DIVERGENT, kernel="k", width=4)
    snap = CACHE._entries[_key(DIVERGENT, KernelRequest("k", 4))]
    assert snap.kernel_body is not None and "fcmp ogt" in snap.kernel_body.lines
    assert "fcmp ogt" not in snap.module_text.split("@__vecz_tmp_k")[0]  # the stub stands before the clone
    # From `prepare` on: the snapshot every dimension shares has it too.
    shared = CACHE._entries[PreparedCache.any_dimension(_key(DIVERGENT, KernelRequest("k", 4)))]
    assert shared.kernel_body == snap.kernel_body


def test_kernel_body_put_back_with_its_attribute_groups_named_in_place(monkeypatch) -> None:
    from vectorizer.passes import prepared_cache

    text = DIVERGENT.replace("@_Z13get_global_idj(i32 0)", "@_Z13get_global_idj(i32 0) #0")
    text += "\nattributes #0 = { nounwind willreturn memory(none) }\n"
    want = {w: _fresh(text, w).ir for w in (4, 8)}
    snap = CACHE._entries[_key(text, KernelRequest("k", 8))]
    assert snap.kernel_body is not None and snap.kernel_body.attributes  # the call names a group
    # As if the printed module no longer defined the groups as the snapshot
    # read them: the body names the attributes itself.
    real = prepared_cache.KernelBody.put_back

    def renumbered(self, text):
        moved = tuple((key, line.replace("{ ", "{  ")) for key, line in self.attributes)
        assert not any(f"\n{line}\n" in text for _, line in moved)
        given = real(replace(self, attributes=moved), text)
        assert "@_Z13get_global_idj(i32 0) nounwind willreturn memory(none)" in given
        return given

    monkeypatch.setattr(prepared_cache.KernelBody, "put_back", renumbered)
    CACHE.clear()
    for w in (4, 8):
        assert vectorize(text, kernel="k", width=w).ir == want[w]
    assert CACHE.hits


@pytest.mark.parametrize("change", [
    ("declare i64", "define void @h(ptr addrspace(1) %x) {\n  call void @k(ptr addrspace(1) %x, ptr addrspace(1) %x)\n"
                    "  ret void\n}\n\ndeclare i64"),  # another function calls the kernel
    ("%v = load float, ptr addrspace(1) %p, align 4", "%v = load float, ptr addrspace(1) %p, align 4, !nontemporal !0"),
    ("define spir_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b)",
     "define spir_kernel void @k(ptr addrspace(1) %0, ptr addrspace(1) %b)"),
])
def test_no_stub_where_putting_the_body_back_could_differ(change) -> None:
    from vectorizer.llvm_bridge import canonicalize
    from vectorizer.passes.prepared_cache import stub_kernel

    text = DIVERGENT.replace(*change).replace("%a, i64 %id", "%0, i64 %id" if "%0" in change[1] else "%a, i64 %id")
    if "!0" in text:
        text += "!0 = !{i32 1}\n"
    assert text != DIVERGENT
    assert stub_kernel(canonicalize(DIVERGENT), "k") is not None
    assert stub_kernel(canonicalize(text), "k") is None
