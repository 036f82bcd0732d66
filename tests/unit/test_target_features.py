"""veczc's -vecz-target-features: the host target adjusted by LLVM-style
feature entries (register width, whether gathers are fast)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from vectorizer.target import TargetInfo, with_features

AVX2_ZEN = TargetInfo("znver3", "+sse4.2,+avx,+avx2", 256, fast_gather=False)


def test_fast_gather_is_switched_both_ways() -> None:
    assert with_features(AVX2_ZEN, "+fast-gather").fast_gather
    assert not with_features(with_features(AVX2_ZEN, "+fast-gather"), "-fast-gather").fast_gather


def test_register_width_follows_the_vector_extensions() -> None:
    wide = with_features(AVX2_ZEN, "+avx512f")
    assert wide.register_bits == 512 and "+avx512f" in wide.features.split(",")
    assert with_features(wide, "-avx512f").register_bits == 256
    assert with_features(AVX2_ZEN, "-avx2").register_bits == 256  # AVX's registers remain
    narrow = with_features(AVX2_ZEN, "-avx2,-avx")
    assert narrow.register_bits == 128
    assert "-avx2" in narrow.features.split(",") and "+avx2" not in narrow.features.split(",")


def test_other_features_are_kept_and_blank_entries_ignored() -> None:
    t = with_features(AVX2_ZEN, " +fma, ,")
    assert t.register_bits == 256 and t.features.split(",")[-1] == "+fma"


@pytest.mark.parametrize("bad", ["avx2", "+", "fast-gather"])
def test_entries_need_a_sign(bad: str) -> None:
    with pytest.raises(ValueError, match="must be \\+name or -name"):
        with_features(AVX2_ZEN, bad)


def test_veczc_reports_a_bad_feature_list_without_a_traceback(tmp_path) -> None:
    src = tmp_path / "k.ll"
    src.write_text("define spir_kernel void @k() {\n  ret void\n}\n")
    run = subprocess.run([sys.executable, "-m", "vectorizer.cli", "-S", "-vecz-target-features=avx2", str(src)],
                         capture_output=True, text=True)
    assert run.returncode == 2
    assert run.stderr.strip() == "veczc: error: -vecz-target-features: target feature 'avx2' must be +name or -name"


def test_avx512_makes_untuned_gathers_legal_but_microcoded() -> None:
    wide = with_features(AVX2_ZEN, "+avx512f")
    assert wide.fast_gather and wide.microcoded_gather
    back = with_features(wide, "-avx512f")
    assert not back.fast_gather and not back.microcoded_gather
    # Declaring gathers fast overrides the tuning either way.
    tuned = with_features(wide, "+fast-gather")
    assert tuned.fast_gather and not tuned.microcoded_gather
    assert not with_features(wide, "-fast-gather").microcoded_gather
    # A CPU already tuned for fast gathers keeps them when AVX-512 is added.
    intel = TargetInfo("skylake", "+avx,+avx2", 256, fast_gather=True)
    assert not with_features(intel, "+avx512f").microcoded_gather
