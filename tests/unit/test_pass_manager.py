"""The pass manager, the pipeline built from passes, the textual pipeline,
vectorize()'s argument checks and the per-kernel splice (issues 18 and 19)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vectorizer import vectorize
from vectorizer.choices import VectorizationChoices
from vectorizer.pass_manager import (
    ALL,
    Analysis,
    AnalysisManager,
    Instrumentation,
    Pass,
    PassManager,
    PassResult,
    PassVerificationError,
)
from vectorizer.passes import (
    DEFAULT_NAMES,
    OPTIONAL,
    PipelineError,
    kernel_extraction,
    parse_pipeline,
)
from vectorizer.pipeline import (
    KernelRequest,
    PipelineOptions,
    VectorizerBug,
    link_metadata,
    vectorize_kernel,
    vectorize_module,
)

ROOT = Path(__file__).resolve().parents[2]
SAXPY = (ROOT / "bench" / "kernels" / "saxpy.ll").read_text()


# --- the managers, on a toy state -------------------------------------------

class _State:
    def __init__(self) -> None:
        self.fn = object()
        self.log: list[str] = []


class _Count(Analysis):
    name = "count"

    def compute(self, state, am):
        state.log.append("computed")
        return len(state.log)


class _Reads(Pass):
    name = "reads"
    requires = (_Count,)

    def run(self, state, am):
        return PassResult()


class _Edits(Pass):
    name = "edits"

    def run(self, state, am):
        return PassResult(changed=True)


class _EditsPreserving(Pass):
    name = "edits-preserving"
    preserves = frozenset({"count"})

    def run(self, state, am):
        return PassResult(changed=True)


def test_analysis_computed_once_until_a_pass_invalidates_it() -> None:
    state, am = _State(), AnalysisManager(lambda s: s.fn)
    PassManager([_Reads(), _Reads(), _EditsPreserving(), _Reads(), _Edits(), _Reads()]).run(state, am)
    assert am.stats["count"].computed == 2  # first use, and after the one non-preserving change


def test_analysis_recomputed_for_a_new_function() -> None:
    state, am = _State(), AnalysisManager(lambda s: s.fn)
    am.get(_Count, state)
    state.fn = object()  # a function re-read from LLVM
    am.get(_Count, state)
    assert am.stats["count"].computed == 2


def test_all_preserves_everything() -> None:
    state, am = _State(), AnalysisManager(lambda s: s.fn)
    am.get(_Count, state)
    am.invalidate(ALL)
    assert am.cached(_Count, state) is not None


def test_stop_ends_the_pipeline() -> None:
    class Stop(Pass):
        name = "stop"

        def run(self, state, am):
            state.log.append("stop")
            return PassResult(stop=True)

    state = _State()
    pm = PassManager([Stop(), _Reads()])
    pm.run(state, AnalysisManager(lambda s: s.fn))
    assert state.log == ["stop"] and list(pm.timings) == ["stop"]


def test_verify_each_names_the_pass() -> None:
    def verifier(state):
        if "broken" in state.log:
            raise RuntimeError("bad IR")

    class Breaks(Pass):
        name = "breaks"

        def run(self, state, am):
            state.log.append("broken")
            return PassResult(changed=True)

    pm = PassManager([_Edits(), Breaks(), _Edits()], verifier=verifier,
                     instrumentation=Instrumentation(verify_each=True))
    with pytest.raises(PassVerificationError) as err:
        pm.run(_State(), AnalysisManager(lambda s: s.fn))
    assert err.value.pass_name == "breaks"


def test_print_after_emits_only_the_named_passes() -> None:
    seen: list[str] = []
    pm = PassManager([_Edits(), _Reads()], printer=lambda s: "IR",
                     instrumentation=Instrumentation(frozenset({"reads"}), emit=lambda p, ir: seen.append(p)))
    pm.run(_State(), AnalysisManager(lambda s: s.fn))
    assert seen == ["reads"]


# --- the textual pipeline ---------------------------------------------------

def test_default_pipeline_parses_to_itself() -> None:
    assert parse_pipeline(",".join(DEFAULT_NAMES)) == DEFAULT_NAMES
    assert parse_pipeline(None) == DEFAULT_NAMES


@pytest.mark.parametrize("text, message", [
    ("check-input,nonsense", "unknown pass 'nonsense'"),
    (",".join(n for n in DEFAULT_NAMES if n != "packetize"), "required pass 'packetize' is missing"),
    (",".join(reversed(DEFAULT_NAMES)), "must come before"),
    (",".join(DEFAULT_NAMES + ("cleanup",)), "appears twice"),
    ("", "empty"),
])
def test_bad_pipelines(text: str, message: str) -> None:
    with pytest.raises(PipelineError, match=message):
        parse_pipeline(text)


def test_leaving_out_an_optional_pass_changes_the_output() -> None:
    """Without `clamp-versioning` (an optional pass) a clamped load gets no
    contiguous fast path; the kernel is still vectorized."""
    text = (ROOT / "tests" / "lit" / "packetization" / "clamp_versioning.ll").read_text()
    kernel = re.search(r"^define spir_kernel void @(\w+)", text, re.M).group(1)
    full = vectorize(text, kernel, 4)
    without = vectorize(text, kernel, 4, passes=[n for n in DEFAULT_NAMES if n != "clamp-versioning"])
    assert full.vectorized_name and without.vectorized_name
    assert full.stats["clamp_versioned_loads"] > 0 and without.stats["clamp_versioned_loads"] == 0
    assert "clamp-versioning" in OPTIONAL


def test_time_report_counts_uniform_value_analysis() -> None:
    """Each computation of UniformValueAnalysis follows a declared
    invalidation: at most one per pass that changed the function and does
    not preserve it, plus the first."""
    options = PipelineOptions()
    vectorize_module(SAXPY, [KernelRequest("saxpy", 4)], options=options)
    assert 1 <= options.analyses["UniformValueAnalysis"].computed <= 3
    assert set(options.timings) == set(DEFAULT_NAMES)


def test_broken_ir_names_the_pass(monkeypatch) -> None:
    from oracle.worker import vectorize_in_worker
    from vectorizer.passes.packetization import WidenIndexArithmetic

    def corrupt(self, state, am):
        state.fn.blocks[0].terminator.erase_from_parent()
        return PassResult(changed=True)

    monkeypatch.setattr(WidenIndexArithmetic, "run", corrupt)
    with pytest.raises(VectorizerBug, match="after pass 'widen-index-arithmetic'"):
        vectorize(SAXPY, "saxpy", 4)
    status, detail = vectorize_in_worker(SAXPY, "saxpy", 4, 0, "")[:2]
    assert status == "vectorizer-error" and "widen-index-arithmetic" in detail


# --- vectorize(): wrongly typed arguments are ValueError ----------------------

@pytest.mark.parametrize("kwargs", [
    {"width": True}, {"width": 4.0}, {"width": "4"}, {"dim": 1.0}, {"dim": False},
    {"choices": 123}, {"ir": None}, {"ir": 42}, {"kernel": None}, {"auto": "yes"},
    {"passes": 5}, {"passes": "check-input,bogus"},
])
def test_wrongly_typed_arguments_raise_value_error(kwargs) -> None:
    args = {"ir": SAXPY, "kernel": "saxpy", **kwargs}
    with pytest.raises(ValueError):
        vectorize(**args)


def test_integer_like_width_is_accepted() -> None:
    class Four:
        def __index__(self) -> int:
            return 4

    assert vectorize(SAXPY, "saxpy", width=Four()).vectorized_name == "__vecz_v4_saxpy"


# --- many kernels: one small module each, spliced back -------------------------

def _copies(n: int) -> str:
    fn = re.search(r"(; Function Attrs: convergent mustprogress nofree norecurse.*?\n}\n)", SAXPY, re.S).group(1)
    return SAXPY.replace(fn, "\n".join(fn.replace("@saxpy(", f"@saxpy{i}(") for i in range(n)))


def _whole_module(text: str, requests: list[KernelRequest]) -> str:
    """The previous way: every request on the whole module."""
    from vectorizer import llvm_bridge

    text = llvm_bridge.canonicalize(text)
    outcomes = []
    for req in requests:
        text, out = vectorize_kernel(text, req)
        outcomes.append(out)
    return link_metadata(text, outcomes)


def _requests(names, widths=(4, 8)) -> list[KernelRequest]:
    return [KernelRequest(k, w) for k in names for w in widths]


def test_spliced_output_equals_whole_module_output() -> None:
    reqs = _requests([f"saxpy{i}" for i in range(4)]) + [KernelRequest("saxpy1", None)]
    text = _copies(4)
    assert vectorize_module(text, reqs)[0] == _whole_module(text, reqs)


def test_spliced_output_equals_whole_module_output_with_helpers_and_metadata() -> None:
    peer = ROOT.parent / "shared" / "peer-corpus" / "vecz-lit"
    if not peer.is_dir():
        pytest.skip("the peer corpus is not beside the checkout")
    from oracle.infer import spir_kernels
    from vectorizer import llvm_bridge

    checked = 0
    for path in sorted(peer.rglob("*.ll")):
        try:
            text = llvm_bridge.canonicalize(path.read_text())
        except Exception:  # noqa: BLE001  (files the corpus keeps for LLVM's own errors)
            continue
        kernels = spir_kernels(text)
        if len(kernels) < 3:
            continue
        reqs = _requests(kernels)
        assert vectorize_module(text, reqs)[0] == _whole_module(text, reqs), path.name
        checked += 1
        if checked == 4:
            break
    assert checked == 4


def test_each_request_sees_a_module_of_constant_size(monkeypatch) -> None:
    """Linear time: the module each kernel is vectorized on does not grow
    with the number of kernels (no timed assertion: the sizes tell)."""
    sizes: dict[int, list[int]] = {}
    real = kernel_extraction.vectorize_split

    for n in (5, 40):
        seen: list[int] = []

        def spy(text, requests, run_one, seen=seen):
            return real(text, requests, lambda t, r: (seen.append(len(t)), run_one(t, r))[1])

        monkeypatch.setattr("vectorizer.pipeline.vectorize_split", spy)
        vectorize_module(_copies(n), _requests([f"saxpy{i}" for i in range(n)], (4,)))
        sizes[n] = seen
    assert max(sizes[40]) <= max(sizes[5]) + 200  # names grow by a digit


def test_refused_kernels_leave_the_module_as_it_was() -> None:
    reqs = [KernelRequest("saxpy0", 4, 0, VectorizationChoices(frozenset({"NoSuchChoice"})))]
    text = _copies(3)
    out, outcomes = vectorize_module(text, reqs)
    assert outcomes[0].vectorized_name is None and "__vecz" not in out


def test_docs_show_the_default_pipeline_and_every_pass() -> None:
    from vectorizer.passes import default_pipeline_text

    docs = (ROOT / "docs" / "vectorizer.md").read_text()
    assert default_pipeline_text() in docs.splitlines()
    for name in DEFAULT_NAMES:
        kind = "optional" if name in OPTIONAL else "required"
        assert f"| `{name}` | {kind} |" in docs, name
