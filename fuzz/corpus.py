"""The regression corpus: reduced failing cases in `corpus/`, one `.ll` case each.

`write_case` files a case under a stable name (its failure status and a hash
of the IR, so the same reduced kernel is never filed twice); `cases` lists
the corpus for `tests/test_corpus.py`.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

CORPUS_DIR = Path(__file__).resolve().parent.parent / "corpus"


def case_name(status: str, ir: str, tag: str = "") -> str:
    """`<status>[-<tag>]-<12 hex of the IR>.ll`."""
    h = hashlib.sha1(ir.encode()).hexdigest()[:12]
    slug = re.sub(r"[^A-Za-z0-9]+", "-", f"{status}-{tag}" if tag else status).strip("-").lower()
    return f"{slug}-{h}.ll"


def write_case(text: str, status: str, directory: str | Path | None = None, tag: str = "") -> Path:
    """Write case `text` into the corpus (default `corpus/`); returns its path."""
    from oracle import parse_case

    d = Path(directory) if directory else CORPUS_DIR
    d.mkdir(parents=True, exist_ok=True)
    path = d / case_name(status, parse_case(text).ir, tag)
    path.write_text(text)
    return path


def cases(directory: str | Path | None = None) -> list[Path]:
    """Every case file of the corpus, sorted."""
    d = Path(directory) if directory else CORPUS_DIR
    return sorted(d.glob("*.ll"))
