"""The vectorizer's output is byte-for-byte what the pipeline produced when
tests/fixtures/pipeline_outputs.json was recorded (before it was rebuilt
from passes, issue 18).

CI checks a deterministic subset (every SUBSET-th configuration, across the
benchmark kernels, the lit inputs and the peer corpus) to stay within a
minute on one core; `python scripts/regenerate_pipeline_fixtures.py --check`
checks all of them.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUBSET = 5


def _script():
    spec = importlib.util.spec_from_file_location("regenerate_pipeline_fixtures",
                                                  ROOT / "scripts" / "regenerate_pipeline_fixtures.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


def test_every_configuration_is_recorded() -> None:
    script = _script()
    want = json.loads(script.FIXTURE.read_text())
    keys = {c.key for c in script.configurations()}
    assert keys == set(want), f"{len(keys ^ set(want))} configurations differ from the record: regenerate it"


def test_pipeline_output_unchanged_on_a_subset() -> None:
    script = _script()
    want = json.loads(script.FIXTURE.read_text())
    configs = script.subset(script.configurations(), SUBSET)
    assert len(configs) > 300
    got = script.compute(configs)
    diffs = [f"{k}: recorded {want.get(k)}, now {v}" for k, v in got.items() if want.get(k) != v]
    assert not diffs, "\n".join(diffs[:20])
