"""An append-only JSONL campaign journal, so `--resume` continues a campaign.

One JSON object per line:
- `{"type": "start", "spec": {...}, "pid": N, "host": H, "time": ...}` when a
  campaign (or a resumed part of it) starts;
- `{"type": "seed", "seed": N, "n": configurations, "summary": {...},
  "failures": [...], "case": text-or-null, "elapsed": s}` when one seed is
  finished. A seed's failures and its case text are in that one line, which
  is written, flushed and fsync'ed as soon as the seed finishes: an
  interruption (Ctrl-C, a kill, a power cut) loses at most the seeds still
  running, which were never recorded and so run again on `--resume`;
- `{"type": "end", ...}` when a campaign ends normally.

Reading never fails on a bad line: a line that is not a JSON object (a torn
write at the end of an interrupted run, an edit gone wrong) or a record
without the fields it needs (a seed record without a seed number ...) is
skipped and reported in `problems` as `file:line: what is wrong`; a skipped
seed record's seed simply runs again.

One campaign at a time writes a journal: `lock()` takes an exclusive lock
(flock) for as long as the journal is open, and a second campaign on the
same file gets `JournalError: journal X is in use by pid N`.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # pragma: no cover - not a POSIX system: no locking
    fcntl = None  # type: ignore[assignment]

# How long a busy journal lock is retried before it counts as in use.
LOCK_GRACE_SECONDS = 3.0


class JournalError(Exception):
    """The journal cannot be used (in use by another campaign, unreadable)."""


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def seed_record_problem(rec: dict[str, Any]) -> str | None:
    """Why `rec` is not a usable seed record, or None when it is."""
    if not _is_int(rec.get("seed")):
        return "a seed record without a seed number"
    if "n" in rec and not (_is_int(rec["n"]) and rec["n"] >= 0):
        return f"seed {rec['seed']}: 'n' is not a count"
    summary = rec.get("summary", {})
    if not isinstance(summary, dict) or not all(
            isinstance(k, str) and _is_int(v) for k, v in summary.items()):
        return f"seed {rec['seed']}: 'summary' is not a table of status counts"
    failures = rec.get("failures", [])
    if not isinstance(failures, list) or not all(
            isinstance(f, dict) and isinstance(f.get("signature"), str) and isinstance(f.get("status"), str)
            for f in failures):
        return f"seed {rec['seed']}: 'failures' is not a list of failures with signature and status"
    if not isinstance(rec.get("case"), (str, type(None))):
        return f"seed {rec['seed']}: 'case' is not a case text"
    return None


class Journal:
    """Appends records to a JSONL file and reads them back."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._fh: Any = None
        self._locked = False
        self._checked_end = False
        self.problems: list[str] = []  # `file:line: ...` of every line the last read skipped

    def records(self) -> Iterator[dict[str, Any]]:
        """Every usable record written so far, in order (see the module doc)."""
        self.problems = []
        if not self.path.exists():
            return
        self._check_regular()
        try:
            fh = self.path.open("rb")
        except OSError as exc:
            raise JournalError(f"cannot read journal {self.path}: {exc.strerror or exc}") from None
        with fh:
            for lineno, raw in enumerate(fh, 1):
                line = raw.strip()
                if not line:
                    continue
                where = f"{self.path}:{lineno}"
                try:
                    rec = json.loads(line.decode("utf-8"))
                except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
                    self.problems.append(f"{where}: not a JSON record (a torn write of an "
                                         "interrupted run?); skipped")
                    continue
                if not isinstance(rec, dict):
                    self.problems.append(f"{where}: not a JSON object; skipped")
                    continue
                kind = rec.get("type")
                if kind == "seed":
                    why = seed_record_problem(rec)
                    if why is not None:
                        self.problems.append(f"{where}: {why}; skipped (that seed runs again)")
                        continue
                elif kind == "start" and not isinstance(rec.get("spec", {}), dict):
                    self.problems.append(f"{where}: a start record whose spec is not an object; skipped")
                    continue
                elif kind not in ("start", "end"):
                    self.problems.append(f"{where}: unknown record type {kind!r}; skipped")
                    continue
                yield rec

    def done_seeds(self) -> set[int]:
        """Seeds that already have a result."""
        return {r["seed"] for r in self.seed_records()}

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

    def _holder(self) -> str:
        """Who holds the lock, from the most recent start record."""
        pid = host = None
        try:
            for r in self.records():
                if r.get("type") == "start":
                    pid, host = r.get("pid"), r.get("host")
        except JournalError:
            pass
        if not _is_int(pid):
            return "another process"
        return f"pid {pid}" + (f" on {host}" if isinstance(host, str) and host != socket.gethostname() else "")

    def lock(self) -> None:
        """Open the journal for appending (creating it) and lock it against other
        campaigns until `close()`; JournalError naming the holder if it is in use."""
        self._open()
        if fcntl is None or self._locked:
            return
        # A campaign that has just ended may still share its lock for a moment
        # with an oracle worker forked before it closed the journal (the child
        # holds the descriptor until it execs), so a busy lock is retried
        # briefly before it is reported as another campaign's.
        deadline = time.monotonic() + LOCK_GRACE_SECONDS
        while True:
            try:
                fcntl.flock(self._fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() < deadline:
                    time.sleep(0.05)
                    continue
                self.close()
                raise JournalError(f"journal {self.path} is in use by {self._holder()}: wait for that "
                                   "campaign to end, or give another --journal") from None
            except OSError:
                return  # a file system without locks: go on unlocked, as before
        self._locked = True

    def _check_regular(self) -> None:
        # A device or a pipe (/dev/zero) would be read forever.
        if self.path.exists() and not self.path.is_file():
            kind = "a directory" if self.path.is_dir() else "not a regular file"
            raise JournalError(f"journal {self.path} is {kind}")

    def _open(self) -> None:
        if self._fh is not None:
            return
        self._check_regular()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = self.path.open("a", encoding="utf-8")
        except OSError as exc:
            raise JournalError(f"cannot open journal {self.path}: {exc.strerror or exc}") from None

    def is_empty(self) -> bool:
        """True when nothing has been written to the journal yet."""
        return not self.path.exists() or self.path.stat().st_size == 0

    def append(self, record: dict[str, Any]) -> None:
        """Write one record durably (flush + fsync before returning)."""
        if self._fh is None:
            self._open()
        if not self._checked_end:
            # A torn line from an earlier crash must not glue onto this record
            # (checked once we may write: after the lock, if any).
            if not self._ends_with_newline():
                self._fh.write("\n")
            self._checked_end = True
        if record.get("type") == "start":
            record.setdefault("pid", os.getpid())
            record.setdefault("host", socket.gethostname())
        record.setdefault("time", time.time())
        self._fh.write(json.dumps(record, sort_keys=True) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def _ends_with_newline(self) -> bool:
        if self.path.stat().st_size == 0:
            return True
        with self.path.open("rb") as fh:
            fh.seek(-1, os.SEEK_END)
            return fh.read(1) == b"\n"

    def close(self) -> None:
        """Close the file (records are already on disk) and release the lock."""
        if self._fh is not None:
            self._fh.close()  # closing releases the flock
            self._fh = None
        self._locked = False
        self._checked_end = False
