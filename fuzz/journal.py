"""An append-only JSONL campaign journal, so `--resume` continues a campaign.

One JSON object per line:
- `{"type": "start", "spec": {...}, "time": ...}` when a campaign (or a
  resumed part of it) starts;
- `{"type": "seed", "seed": N, "n": configurations, "summary": {...},
  "failures": [...], "case": text-or-null, "elapsed": s}` when one seed is
  finished. A seed's failures and its case text are in that one line, which
  is written, flushed and fsync'ed as soon as the seed finishes: an
  interruption (Ctrl-C, a kill, a power cut) loses at most the seeds still
  running, which were never recorded and so run again on `--resume`;
- `{"type": "end", ...}` when a campaign ends normally.

A torn last line (the process died mid-write) is ignored on reading.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any


class Journal:
    """Appends records to a JSONL file and reads them back."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._fh: Any = None

    def records(self) -> Iterator[dict[str, Any]]:
        """Every complete record written so far, in order."""
        if not self.path.exists():
            return
        with self.path.open("r", encoding="utf-8") as fh:
            for line in fh:
                line = line.strip()
                if not line:
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    continue  # torn write at the end of an interrupted run
                if isinstance(rec, dict):
                    yield rec

    def done_seeds(self) -> set[int]:
        """Seeds that already have a result."""
        return {r["seed"] for r in self.records() if r.get("type") == "seed"}

    def seed_records(self) -> list[dict[str, Any]]:
        """The result records of every finished seed."""
        return [r for r in self.records() if r.get("type") == "seed"]

    def last_spec(self) -> dict[str, Any] | None:
        """The campaign spec of the most recent start record."""
        spec = None
        for r in self.records():
            if r.get("type") == "start":
                spec = r.get("spec")
        return spec

    def append(self, record: dict[str, Any]) -> None:
        """Write one record durably (flush + fsync before returning)."""
        if self._fh is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # A torn line from an earlier crash must not glue onto this record.
            needs_nl = self.path.exists() and self.path.stat().st_size > 0 and not self._ends_with_newline()
            self._fh = self.path.open("a", encoding="utf-8")
            if needs_nl:
                self._fh.write("\n")
        record.setdefault("time", time.time())
        self._fh.write(json.dumps(record, sort_keys=True) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def _ends_with_newline(self) -> bool:
        with self.path.open("rb") as fh:
            fh.seek(-1, os.SEEK_END)
            return fh.read(1) == b"\n"

    def close(self) -> None:
        """Close the file (records are already on disk)."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None
