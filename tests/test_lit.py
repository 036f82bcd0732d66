"""Runs the lit + FileCheck tests under tests/lit as part of the pytest suite."""

import subprocess
import sys
from pathlib import Path

import pytest

LIT_DIR = Path(__file__).parent / "lit"


def _lit_tests() -> list[Path]:
    return sorted(p for p in LIT_DIR.rglob("*.ll") if not {"Inputs", "Output"} & set(p.parts))


@pytest.mark.parametrize("test", _lit_tests(), ids=lambda p: str(p.relative_to(LIT_DIR)))
def test_lit(test: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", "from lit.main import main; main()", "-v", str(test)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
