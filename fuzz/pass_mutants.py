"""Mutants of the passes: faults injected into the vectorizer's own source.

Output-IR mutation (`fuzz/mutation.py`) asks whether a wrong instruction in
our output would be caught. It never asks whether a mistake inside an
analysis or a transform would be: a mistake that only shows on some CFG
shape, some stride or some choice the harness never produces. This module
makes such mistakes. Each mutant is one small edit of one file under
`vectorizer/analysis/` or `vectorizer/transform/`:

| operator | the mistake it models |
|---|---|
| compare-flip | a comparison negated (`<` for `>=`, `==` for `!=`, `in` for `not in`) |
| boolop-swap | `and` for `or` and back |
| not-drop | a `not` forgotten |
| off-by-one | an integer constant one too large (a lane, a stride, an index) |
| arith-swap | `+` for `-` and back |
| select-swap | a select's arms swapped (a blend the wrong way round) |
| drop-statement | a statement skipped (a `mark_varying`, a `set_operand`, an `append`) |
| insertion-point | `position_before` for `position_after`, start for end (a wrong insertion point) |
| return-flip | `return True` for `return False` and back |

Mutants are applied to a COPY of the source tree (`copy_tree`), never to the
tree itself, and judged by two killers run on that copy: the CI
differential suite (generated kernels, the corpus and the peer corpus
through the oracle) and a time-boxed fuzz campaign stopped at its first
failure. Sites are found on the AST and chosen deterministically per file,
so a mutant's id (`<file stem>:<operator>:<n>`) names the same edit while
the file is unchanged; each record keeps the line and both texts.

    python -m fuzz.pass_mutants list
    python -m fuzz.pass_mutants run [--only ID]... [--campaign-seconds 600] [--journal F]
    python -m fuzz.pass_mutants report --journal F
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zlib
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
PASS_DIRS = ("vectorizer/analysis", "vectorizer/transform")
# Tests that make up "the CI differential suite": oracle verdicts on
# generated kernels, on the regression corpus and on Vecz's lit kernels.
CI_TESTS = ("tests/test_differential.py", "tests/test_corpus.py", "tests/test_peer_corpus.py")
# "The CI suite": everything `.ci/run` runs (`pytest` over the configured
# testpaths), unit, lit, oracle-harness and differential tests alike.
FULL_SUITE = ("tests",)
# The CI test that compares the pipeline's output, byte for byte, with the
# recorded fixtures on a subset of configurations: a change detector (it
# also fails on a mutant whose different output would still be right), so
# the report counts its kills apart.
# Seconds for the closing tests and the output fixture (about a minute on
# an idle machine, three on a loaded one) before a mutant counts as too slow.
EARLY_BUDGET = 420.0
PIPELINE_FIXTURE_TEST = "tests/test_pipeline_fixtures.py::test_pipeline_output_unchanged_on_a_subset"
# The tests written to close survivors (the rest of tests/ existed before).
CLOSING_TESTS = "tests/test_pass_mutant_kills.py"
FAILING = frozenset({"mismatch", "vector-fault", "timeout", "vectorizer-error"})
# Mutants per file: one per this many source lines, within [MIN, MAX]. Sized
# so the catalogue (65 mutants over 35 files) can be judged on two shared
# cores in about an hour; every file keeps at least one mutant.
LINES_PER_MUTANT = 100
MIN_PER_FILE, MAX_PER_FILE = 1, 3

_CMP_FLIP: dict[type, type] = {
    ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt,
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In,
    ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}
_POSITION_SWAP = {
    "position_before": "position_after", "position_after": "position_before",
    "position_at_start": "position_at_end", "position_at_end": "position_at_start",
    "insert_before": "insert_after", "insert_after": "insert_before",
}
# Calls whose statement, when skipped, models a forgotten step of a pass.
_EFFECTFUL = frozenset({
    "mark_varying", "add", "append", "extend", "update", "discard", "remove", "pop",
    "replace_all_uses_with", "replace_uses_with", "set_operand", "erase", "erase_from_parent",
    "insert", "insert_before", "insert_after", "move_before", "move_after", "add_incoming",
    "remove_incoming", "setdefault", "_mark", "mark",
})
OPERATORS = (
    "select-swap", "insertion-point", "drop-statement", "compare-flip", "off-by-one",
    "arith-swap", "boolop-swap", "not-drop", "return-flip",
)


@dataclass(frozen=True)
class Mutant:
    """One edit of one source file."""

    id: str
    path: str  # relative to the repository
    operator: str
    function: str  # qualified name of the enclosing function ("<module>" at top level)
    line: int
    original: str
    mutated: str
    start: int  # character offsets of the replaced text in the file
    end: int

    @property
    def pass_name(self) -> str:
        """The pass (file stem) the mutant belongs to."""
        return Path(self.path).stem


class _Lines:
    """Character offsets of AST positions (whose columns are UTF-8 byte offsets)."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def offset(self, lineno: int, col: int) -> int:
        line = self.lines[lineno - 1]
        return self.starts[lineno - 1] + len(line.encode("utf-8")[:col].decode("utf-8"))


def _span(node: ast.AST, lines: _Lines) -> tuple[int, int]:
    return (lines.offset(node.lineno, node.col_offset),  # type: ignore[attr-defined]
            lines.offset(node.end_lineno, node.end_col_offset))  # type: ignore[attr-defined]


class _SiteFinder(ast.NodeVisitor):
    """Collects (operator, qualname, node, replacement node or text) sites."""

    def __init__(self) -> None:
        self.stack: list[str] = []
        self.sites: list[tuple[str, str, ast.AST, str]] = []
        self._skip = 0  # inside asserts, raises and f-strings: messages, not logic

    def _qual(self) -> str:
        return ".".join(self.stack) or "<module>"

    def _add(self, op: str, node: ast.AST, replacement: ast.AST | str) -> None:
        if self._skip:
            return
        text = replacement if isinstance(replacement, str) else ast.unparse(replacement)
        self.sites.append((op, self._qual(), node, text))

    def _scoped(self, node: ast.AST, name: str) -> None:
        self.stack.append(name)
        self.generic_visit(node)
        self.stack.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        # Decorators and annotations are not logic.
        self.stack.append(node.name)
        for stmt in node.body:
            self.visit(stmt)
        self.stack.pop()

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.stack.append(node.name)
        for stmt in node.body:
            self.visit(stmt)
        self.stack.pop()

    def _quiet(self, node: ast.AST) -> None:
        self._skip += 1
        self.generic_visit(node)
        self._skip -= 1

    visit_Assert = _quiet  # type: ignore[assignment]
    visit_Raise = _quiet  # type: ignore[assignment]
    visit_JoinedStr = _quiet  # type: ignore[assignment]

    def visit_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # a docstring
        call = node.value
        if isinstance(call, ast.Call):
            fn = call.func
            name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
            if name in _EFFECTFUL:
                self._add("drop-statement", node, "pass")
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        if len(node.ops) == 1 and type(node.ops[0]) in _CMP_FLIP:
            new = ast.Compare(node.left, [_CMP_FLIP[type(node.ops[0])]()], node.comparators)
            self._add("compare-flip", node, new)
        self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        new = ast.BoolOp(ast.Or() if isinstance(node.op, ast.And) else ast.And(), node.values)
        self._add("boolop-swap", node, new)
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if isinstance(node.op, ast.Not):
            self._add("not-drop", node, "(" + ast.unparse(node.operand) + ")")
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if isinstance(node.op, (ast.Add, ast.Sub)):
            new = ast.BinOp(node.left, ast.Sub() if isinstance(node.op, ast.Add) else ast.Add(), node.right)
            self._add("arith-swap", node, new)
        for side in (node.left, node.right):
            self._constant(side)
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        self._constant(node.slice)
        self.generic_visit(node)

    def _constant(self, node: ast.AST) -> None:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            self._add("off-by-one", node, repr(node.value + 1))
        elif (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
              and isinstance(node.operand, ast.Constant) and type(node.operand.value) is int):
            self._add("off-by-one", node, repr(-node.operand.value + 1))

    def visit_Call(self, node: ast.Call) -> None:
        fn = node.func
        if isinstance(fn, ast.Attribute):
            if fn.attr == "select" and len(node.args) >= 3:
                args = list(node.args)
                args[1], args[2] = args[2], args[1]
                self._add("select-swap", node, ast.Call(fn, args, node.keywords))
            if fn.attr in _POSITION_SWAP:
                new_fn = ast.Attribute(fn.value, _POSITION_SWAP[fn.attr], fn.ctx)
                self._add("insertion-point", node, ast.Call(new_fn, node.args, node.keywords))
        self.generic_visit(node)

    def visit_Return(self, node: ast.Return) -> None:
        if isinstance(node.value, ast.Constant) and type(node.value.value) is bool:
            self._add("return-flip", node, f"return {not node.value.value}")
        self.generic_visit(node)


def enumerate_sites(path: Path, repo: Path = REPO) -> list[Mutant]:
    """Every candidate mutant of one file, in source order."""
    text = path.read_text(encoding="utf-8")
    finder = _SiteFinder()
    finder.visit(ast.parse(text))
    starts = _Lines(text)
    rel = str(path.resolve().relative_to(repo.resolve()))
    counters: dict[str, int] = defaultdict(int)
    out = []
    sites = sorted(finder.sites, key=lambda s: (_span(s[2], starts), s[0]))
    for op, qual, node, replacement in sites:
        start, end = _span(node, starts)
        original = text[start:end]
        if original == replacement:
            continue
        n = counters[op]
        counters[op] += 1
        out.append(Mutant(f"{path.stem}:{op}:{n}", rel, op, qual, node.lineno, original,  # type: ignore[attr-defined]
                          replacement, start, end))
    return out


def pass_files(repo: Path = REPO) -> list[Path]:
    """The source files of every analysis and transform."""
    files = []
    for d in PASS_DIRS:
        files += sorted(p for p in (repo / d).glob("*.py") if p.name != "__init__.py")
    return files


def select_mutants(sites: Sequence[Mutant], lines: int, path: str) -> list[Mutant]:
    """A deterministic sample of one file's sites: one per `LINES_PER_MUTANT`
    lines (within [MIN_PER_FILE, MAX_PER_FILE]), spread over operators in the
    order of `OPERATORS` (the semantic ones first), randomly within each."""
    want = min(len(sites), max(MIN_PER_FILE, min(MAX_PER_FILE, round(lines / LINES_PER_MUTANT))))
    rng = random.Random(zlib.crc32(path.encode()))
    by_op: dict[str, list[Mutant]] = defaultdict(list)
    for m in sites:
        by_op[m.operator].append(m)
    for group in by_op.values():
        rng.shuffle(group)
    chosen: list[Mutant] = []
    while len(chosen) < want:
        progressed = False
        for op in OPERATORS:
            if by_op.get(op) and len(chosen) < want:
                chosen.append(by_op[op].pop())
                progressed = True
        if not progressed:
            break
    return sorted(chosen, key=lambda m: m.start)


def catalogue(repo: Path = REPO) -> list[Mutant]:
    """The mutants of every pass file."""
    out = []
    for path in pass_files(repo):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        out += select_mutants(enumerate_sites(path, repo), lines, str(path.relative_to(repo)))
    return out


def mutate_text(text: str, mutant: Mutant) -> str:
    """`text` with the mutant's edit applied; refuses a stale mutant."""
    if text[mutant.start:mutant.end] != mutant.original:
        raise ValueError(f"mutant {mutant.id} is stale: the source changed at line {mutant.line}")
    out = text[:mutant.start] + mutant.mutated + text[mutant.end:]
    ast.parse(out)  # every mutant must still be Python
    return out


_IGNORE = shutil.ignore_patterns(
    ".git", ".ci-venv", "__pycache__", "*.egg-info", ".pytest_cache", "Output", ".hypothesis", "*.pyc",
)


def copy_tree(dest: Path, repo: Path = REPO) -> Path:
    """A copy of the repository at `dest/repo`, with `dest/shared` pointing at
    the real `../shared` (tests read the peer corpus from there)."""
    root = dest / "repo"
    shutil.copytree(repo, root, ignore=_IGNORE, symlinks=True)
    shared = (repo / ".." / "shared").resolve()
    if shared.exists() and not (dest / "shared").exists():
        (dest / "shared").symlink_to(shared)
    return root


def apply_mutant(root: Path, mutant: Mutant) -> None:
    """Edit the copy at `root` (never the repository itself)."""
    if root.resolve() == REPO.resolve():
        raise ValueError("refusing to mutate the repository itself")
    target = root / mutant.path
    target.write_text(mutate_text(target.read_text(encoding="utf-8"), mutant), encoding="utf-8")


def _env(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("VECZ_CHOICES", None)
    return env


def _kill_group(proc: subprocess.Popen[Any]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def ci_test_ids(repo: Path = REPO, tests: Sequence[str] = CI_TESTS) -> list[str]:
    """The CI differential suite's test ids (collected on the unmutated tree)."""
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist",
                          "-p", "no:cacheprovider", *tests], cwd=repo, env=_env(repo),
                         capture_output=True, text=True, check=False).stdout
    return [ln.strip() for ln in out.splitlines() if "::" in ln and not ln.startswith(" ")]


def _peer_size(test_id: str) -> int:
    from oracle.survey import DEFAULT_DIR  # the peer corpus beside the checkout

    rel = test_id.split("[", 1)[1][:-1] if "[" in test_id else ""
    try:
        return (DEFAULT_DIR / rel).stat().st_size
    except OSError:
        return 1 << 30


def order_tests(ids: Sequence[str]) -> list[str]:
    """The same tests, cheapest and most varied first, so a mutant the suite
    kills dies early: the peer kernels smallest file first and round-robin
    over their directories (each a family of constructs: BOSCC, loops,
    shuffles...), three to one with the generated kernels (every profile
    and choice set before a second seed) and the regression corpus. Only
    the order changes: a mutant is killed iff some test fails."""
    peer = [t for t in ids if "test_peer_kernels" in t]
    diff = [t for t in ids if t.startswith("tests/test_differential.py")]
    rest = [t for t in ids if t not in set(peer) | set(diff)]
    by_dir: dict[str, list[str]] = defaultdict(list)
    for t in sorted(peer, key=_peer_size):
        rel = t.split("[", 1)[1] if "[" in t else ""
        by_dir[rel.split("/", 1)[0] if "/" in rel else ""].append(t)
    queues = [list(q) for _, q in sorted(by_dir.items())]
    peer_rr: list[str] = []
    while any(queues):
        for q in queues:
            if q:
                peer_rr.append(q.pop(0))

    def seed_key(t: str) -> tuple[int, str]:
        tail = t.rsplit("-", 1)[-1].rstrip("]")
        return (int(tail) if tail.isdigit() else 0, t)

    diff = sorted(diff, key=seed_key)
    others = [x for pair in zip(diff, rest, strict=False) for x in pair] + diff[len(rest):] + rest[len(diff):]
    out: list[str] = []
    while peer_rr or others:
        out += peer_rr[:3]
        del peer_rr[:3]
        if others:
            out.append(others.pop(0))
    return out


# A kernel every pipeline must take: a mutant that raises on it (or whose
# copy does not even import) breaks the vectorizer on everything.
_SMOKE_IR = r"""
declare i64 @_Z13get_global_idj(i32)
define spir_kernel void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pin = getelementptr float, ptr addrspace(1) %in, i64 %gid
  %x = load float, ptr addrspace(1) %pin, align 4
  %y = fadd float %x, 1.0
  %pout = getelementptr float, ptr addrspace(1) %out, i64 %gid
  store float %y, ptr addrspace(1) %pout, align 4
  ret void
}
"""
_SMOKE = f"from vectorizer import vectorize\nfor w in (4, 8):\n    vectorize({_SMOKE_IR!r}, 'k', width=w)\n"


def run_smoke(root: Path, timeout: float = 120.0) -> dict[str, Any] | None:
    """A trivial kill (the copy fails to import, or raises on a saxpy), or None."""
    t0 = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, "-c", _SMOKE], cwd=root, env=_env(root), capture_output=True,
                              text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"killed": True, "trivial": True, "how": f"smoke kernel exceeded {timeout:.0f} s",
                "seconds": time.monotonic() - t0}
    if proc.returncode == 0:
        return None
    last = (proc.stderr.strip().splitlines() or ["?"])[-1][:300]
    return {"killed": True, "trivial": True, "how": f"smoke: {last}", "seconds": time.monotonic() - t0}


def run_ci(root: Path, jobs: int, timeout: float, tests: Sequence[str] = CI_TESTS) -> dict[str, Any]:
    """Run the CI differential suite on the copy, stopping at the first
    failure; killed when a test fails. `tests` are files or test ids (run in
    the order given). Past `timeout` seconds the run stops and the mutant
    survived the `tests_run` tests that finished (`partial`): a suite too
    slow for the budget is not a kill."""
    t0 = time.monotonic()
    cmd = [sys.executable, "-m", "pytest", "-x", "-v", "-p", "no:cacheprovider"]
    cmd += ["-p", "no:xdist"] if jobs <= 1 else ["-n", str(jobs)]
    with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
        proc = subprocess.Popen([*cmd, *tests], cwd=root, env=_env(root), stdout=log, stderr=subprocess.STDOUT,
                                text=True, start_new_session=True)
        partial = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            partial = True
        except BaseException:  # interrupted: leave no suite running on a deleted copy
            _kill_group(proc)
            raise
        log.seek(0)
        out = log.read()
    lines = [ln for ln in out.splitlines() if ln.strip()]
    ran = sum(1 for ln in lines if ("::" in ln and (" PASSED" in ln or " SKIPPED" in ln or " XFAIL" in ln)))
    failed = [ln for ln in lines if ln.startswith(("FAILED", "ERROR")) or ("::" in ln and (" FAILED" in ln or " ERROR" in ln))]
    secs = time.monotonic() - t0
    if failed:
        # The test and the first assertion line: which kernel, which verdict.
        why = next((ln[2:].strip() for ln in lines if ln.startswith("E ")), "")
        return {"killed": True, "how": (failed[-1].split(" ", 1)[-1] + ": " + why)[:400], "tests_run": ran + 1,
                "seconds": secs}
    if partial:
        # `-v` names a test before its verdict: the last line without one is
        # the test the budget cut (a hang shows as a test cut after minutes).
        cut = out.rstrip("\n").rsplit("\n", 1)[-1].strip() if out.strip() else ""
        verdicts = (" PASSED", " FAILED", " SKIPPED", " ERROR", " XFAIL", " XPASS")
        cut = cut.split(" ", 1)[0] if "::" in cut and not any(v in cut for v in verdicts) else ""
        return {"killed": False, "partial": True, "tests_run": ran, "seconds": secs, "cut": cut,
                "how": f"no failure in the first {ran} tests ({timeout:.0f} s budget)"}
    return {"killed": proc.returncode not in (0, 5), "how": lines[-1][:300] if lines else "",
            "exit": proc.returncode, "tests_run": ran, "seconds": secs}


def _first_failure(journal: Path) -> dict[str, Any] | None:
    if not journal.exists():
        return None
    for line in journal.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(rec, dict) and rec.get("type") == "seed":
            for f in rec.get("failures") or []:
                if f.get("status") in FAILING:
                    return {"seed": rec.get("seed"), "status": f.get("status"),
                            "signature": f.get("signature", "")}
    return None


def run_campaign(root: Path, seconds: float, jobs: int, seed: int, extra: Sequence[str] = ()) -> dict[str, Any]:
    """A `vecz-fuzz run` campaign on the copy, stopped at its first failure."""
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="vecz-mutant-campaign-") as tmp:
        journal = Path(tmp) / "journal.jsonl"
        cmd = [sys.executable, "-m", "fuzz.cli", "run", "--seed", str(seed), "--time", str(seconds),
               "--jobs", str(jobs), "--journal", str(journal), "--no-progress", *extra]
        proc = subprocess.Popen(cmd, cwd=root, env=_env(root), stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        found = None
        deadline = t0 + seconds + 120  # the campaign stops submitting at `seconds`
        try:
            while proc.poll() is None:
                found = _first_failure(journal)
                if found or time.monotonic() > deadline:
                    _kill_group(proc)
                    break
                time.sleep(1.0)
        except BaseException:  # interrupted: leave no campaign running on a deleted copy
            _kill_group(proc)
            raise
        found = found or _first_failure(journal)
        seeds = sum(1 for ln in journal.read_text(encoding="utf-8", errors="replace").splitlines()
                    if '"type": "seed"' in ln) if journal.exists() else 0
        err = proc.stderr.read() if proc.stderr else ""
    result: dict[str, Any] = {"killed": found is not None, "seconds": time.monotonic() - t0, "seeds": seeds}
    if found:
        result["how"] = f"seed {found['seed']}: {found['status']}: {found['signature']}"[:300]
    elif proc.returncode not in (0, 1, -signal.SIGKILL):
        # The campaign itself broke (the mutant crashed the harness): a kill.
        result["killed"] = True
        result["how"] = f"campaign exited {proc.returncode}: " + (err.strip().splitlines() or [""])[-1][:200]
    return result


def _done(journal: Path) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    if journal.exists():
        for line in journal.read_text(encoding="utf-8").splitlines():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(rec, dict) and "mutant" in rec:
                out[rec["mutant"]["id"]] = rec
    return out


def _append(journal: Path, rec: dict[str, Any]) -> None:
    # One write(2) on an O_APPEND descriptor: shards running side by side
    # never interleave their lines.
    fd = os.open(journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (json.dumps(rec) + "\n").encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)


_TEST_ID = re.compile(r"(tests/[\w./-]+\.py::[^\s:]+(?:\[[^\]]*\])?)")


def _edit_key(m: dict[str, Any]) -> tuple[str, str, str, str]:
    # Ids shift when a file changes (the n-th site of an operator); the edit
    # itself (file, function, old and new text) is what a hint must match.
    return (m["path"], m.get("function", ""), m["original"], m["mutated"])


def kill_hints(journals: Sequence[Path]) -> dict[tuple[str, str, str, str], list[str]]:
    """Per edit, the tests that failed on it in earlier journals (its CI
    kill, or the closing test that killed it): run first, so a mutant the
    suite kills is usually killed in seconds. Only the order changes: the
    suite still decides."""
    hints: dict[tuple[str, str, str, str], list[str]] = defaultdict(list)
    for journal in journals:
        for rec in _done(journal).values():
            key = _edit_key(rec["mutant"])
            found: list[str] = []
            for k in ("ci", "closing"):
                r = rec.get(k) or {}
                if r.get("killed") and not r.get("trivial"):
                    found += _TEST_ID.findall(r.get("how", ""))
                    if k == "closing":
                        found += [t for t in r.get("tests", []) if "::" in t]
            for t in found:
                if t not in hints[key]:
                    hints[key].append(t)
    return hints


def run_full_suite(root: Path, jobs: int, timeout: float, hints: Sequence[str]) -> dict[str, Any]:
    """The whole CI suite on the copy, stopped at its first failure: first
    the hinted tests, then the closing tests and the output fixture (one
    process, about a minute), then, if none fails, every test (`jobs`
    workers). Killed iff some test fails; the order only saves time."""
    t0 = time.monotonic()
    quick = run_ci(root, 1, min(timeout, 600.0), hints) if hints else None
    if quick and quick["killed"]:
        return {**quick, "stage": "hinted", "suite": "full"}
    # Then the tests that kill most cheaply: the closing tests (seconds) and
    # the output fixture (a minute), before the rest of the suite.
    first = [t for t in (CLOSING_TESTS, PIPELINE_FIXTURE_TEST) if (root / t.split("::")[0]).exists()]
    early = run_ci(root, 1, min(timeout, EARLY_BUDGET), first) if first else None
    if early and early["killed"]:
        return {**early, "stage": "early", "suite": "full"}
    if early and early.get("partial"):
        # Tests that take about a minute unmutated have not finished: the
        # whole suite would run for hours (a mutant that loses a `seen` set
        # makes a walk exponential). Not a kill by any failing test; the
        # campaign, whose requests time out, judges it instead.
        return {**early, "stage": "early", "suite": "full", "slow": True,
                "how": f"too slow: the closing tests and the output fixture did not finish in "
                       f"{EARLY_BUDGET:.0f} s (about a minute unmutated); the rest of the suite was not run"}
    quick = {"tests_run": (quick or {}).get("tests_run", 0) + (early or {}).get("tests_run", 0)}
    rest = run_ci(root, jobs, max(60.0, timeout - (time.monotonic() - t0)), FULL_SUITE)
    rest["seconds"] = time.monotonic() - t0
    rest["tests_run"] = rest.get("tests_run", 0) + quick["tests_run"]
    return {**rest, "stage": "suite", "suite": "full"}


def run(mutants: Sequence[Mutant], journal: Path, *, ci: bool, campaign_seconds: float, jobs: int,
        seed: int, ci_timeout: float, campaign_args: Sequence[str] = (), progress: bool = True,
        campaign_all: bool = False, again: bool = False,
        closing_tests: Sequence[str] = (), suite: str = "full",
        hints: dict[tuple[str, str, str, str], list[str]] | None = None,
        skip: Sequence[str] = (), campaign_survivors: bool = False,
        extend_to: float = 0.0) -> list[dict[str, Any]]:
    """Judge each mutant (skipping those `journal` already holds, unless
    `again`) and append one JSON line per mutant to `journal` as soon as it
    is judged. A mutant whose copy fails the smoke kernel is killed there
    (`trivial`); the CI suite runs cheapest-first and stops at its first
    failure; the campaign runs only on CI survivors unless `campaign_all`.
    With `closing_tests` (the tests written to close survivors) only those
    run, recorded as `closing` beside the mutant's earlier verdicts."""
    earlier = _done(journal)
    done = {} if again or closing_tests else earlier
    if skip:
        mutants = [m for m in mutants if m.id not in skip]
    if campaign_survivors:
        # Only the campaign, on mutants the journal says survived its CI
        # suite; the record keeps their CI verdict beside the campaign's.
        done = {k: r for k, r in earlier.items() if "campaign" in r or (r.get("ci") or {}).get("killed")}
        ci = False
    if extend_to:
        # Only mutants whose campaign ran for less than `extend_to` without a kill.
        done = {k: r for k, r in earlier.items()
                if not ("campaign" in r and not r["campaign"].get("killed")
                        and r["campaign"].get("budget", extend_to) < extend_to)}
        ci = False
    results = [done[m.id] for m in mutants if m.id in done]
    todo = [m for m in mutants if m.id not in done and (m.id in earlier or not (campaign_survivors or extend_to))]
    journal.parent.mkdir(parents=True, exist_ok=True)
    tests = order_tests(ci_test_ids()) if ci and todo and suite == "differential" else []
    hints = hints or {}
    for i, m in enumerate(todo, 1):
        now = _done(journal).get(m.id)
        if extend_to:
            if now and now.get("campaign", {}).get("budget", 0) >= extend_to:
                continue  # extended meanwhile by another shard
            earlier[m.id] = now or earlier[m.id]
        elif not (again or closing_tests) and now and (not campaign_survivors or "campaign" in now):
            continue  # judged meanwhile by another shard
        if progress:
            print(f"[{i}/{len(todo)}] {m.id} ({m.path}:{m.line}) {m.original!r} -> {m.mutated!r}",
                  file=sys.stderr, flush=True)
        with tempfile.TemporaryDirectory(prefix="vecz-mutant-") as tmp:
            root = copy_tree(Path(tmp))
            apply_mutant(root, m)
            rec: dict[str, Any] = {"mutant": asdict(m)}
            if campaign_survivors or extend_to or closing_tests:
                # One more verdict beside the mutant's earlier ones.
                rec = {**earlier.get(m.id, {}), "mutant": asdict(m)}
                if closing_tests:
                    key = "closing"
                    rec[key] = {**run_ci(root, jobs, ci_timeout, closing_tests), "tests": list(closing_tests)}
                elif extend_to:
                    # The campaign goes on from the seed after the last one run:
                    # seeds are judged in order, each with its own rotation, so
                    # the two parts are one campaign of `extend_to` seconds.
                    key, before = "campaign", rec["campaign"]
                    more = run_campaign(root, extend_to - before["budget"], jobs, seed + before.get("seeds", 0),
                                        campaign_args)
                    rec[key] = {**more, "seconds": before["seconds"] + more["seconds"],
                                "seeds": before.get("seeds", 0) + more["seeds"], "budget": extend_to}
                else:
                    key = "campaign"
                    rec[key] = {**run_campaign(root, campaign_seconds, jobs, seed, campaign_args),
                                "budget": campaign_seconds}
                _append(journal, rec)
                print(f"    {key}: {'killed' if rec[key]['killed'] else 'survived'} "
                      f"({rec[key].get('how', '')[:160]})", file=sys.stderr, flush=True)
                results.append(rec)
                continue
            smoke = run_smoke(root)
            if smoke:
                rec["ci"] = smoke
            elif ci and suite == "full":
                rec["ci"] = run_full_suite(root, jobs, ci_timeout, hints.get(_edit_key(asdict(m)), []))
            elif ci:
                rec["ci"] = {**run_ci(root, jobs, ci_timeout, tests or CI_TESTS), "suite": "differential"}
            if campaign_seconds > 0 and not smoke and (campaign_all or not rec.get("ci", {}).get("killed")):
                rec["campaign"] = run_campaign(root, campaign_seconds, jobs, seed, campaign_args)
                rec["campaign"]["budget"] = campaign_seconds
        _append(journal, rec)
        if progress:
            verdicts = [f"{k}: {'killed' if rec[k]['killed'] else 'survived'} ({rec[k].get('how', '')[:120]})"
                        for k in ("ci", "campaign") if k in rec]
            print("    " + "; ".join(verdicts), file=sys.stderr, flush=True)
        results.append(rec)
    return results


def summarize(results: Sequence[dict[str, Any]], equivalent: dict[str, str] | None = None) -> dict[str, Any]:
    """Per pass: mutants, trivial kills, kills by the CI suite, kills by the
    campaign among CI survivors, kills by the tests written to close
    survivors, equivalents and survivors; and the scores over non-equivalent
    mutants (`campaign_score`: killed by the CI suite or, for its survivors,
    by the campaign; `closed_score`: by any of them or a closing test)."""
    equivalent = equivalent or {}
    per: dict[str, dict[str, Any]] = {}
    budgets: set[float] = set()

    def killed(r: dict[str, Any], *keys: str) -> bool:
        return any(r.get(k, {}).get("killed") for k in keys)

    for rec in results:
        m = rec["mutant"]
        p = per.setdefault(Path(m["path"]).stem, {"mutants": 0, "trivial": 0, "ci": 0, "campaign": 0,
                                                   "closed": 0, "either": 0, "equivalent": 0, "fixture": 0,
                                                   "campaign_alone": 0, "survivors": [], "equivalents": []})
        p["mutants"] += 1
        if "campaign" in rec:
            budgets.add(rec["campaign"].get("budget", round(rec["campaign"].get("seconds", 0))))
        ci, camp, closed = killed(rec, "ci"), killed(rec, "campaign"), killed(rec, "closing")
        if m["id"] in equivalent:
            ci = camp = closed = False  # argued equivalent: its verdicts are not scored
        p["trivial"] += bool(rec.get("ci", {}).get("trivial")) and m["id"] not in equivalent
        p["ci"] += ci
        # First failure in the byte-for-byte output fixture (a change detector; the
        # run stops there, so whether an oracle test fails too is not known).
        p["fixture"] += ci and "test_pipeline_output_unchanged" in rec.get("ci", {}).get("how", "")
        p["campaign_alone"] += camp
        p["campaign"] += camp and not ci
        p["either"] += ci or camp
        if m["id"] in equivalent:
            p["equivalent"] += 1
            p["equivalents"].append(m["id"])
        elif not (ci or camp):
            p["closed"] += closed
            p["survivors"].append({"id": m["id"], "line": m["line"], "original": m["original"],
                                   "mutated": m["mutated"], "ci": rec.get("ci", {}).get("how", ""),
                                   "campaign": rec.get("campaign", {}).get("how", "not run"),
                                   "closed_by": rec["closing"]["tests"] if closed else None})
    live = [r for r in results if r["mutant"]["id"] not in equivalent]
    n = len(live) or 1
    ci_k = sum(1 for r in live if killed(r, "ci"))
    either = sum(1 for r in live if killed(r, "ci", "campaign"))
    closed = sum(1 for r in live if killed(r, "ci", "campaign", "closing"))
    suites = sorted({r["ci"].get("suite", "differential") for r in results
                     if "ci" in r and not r["ci"].get("trivial")})
    fixture = sum(1 for r in live if killed(r, "ci")
                  and "test_pipeline_output_unchanged" in r.get("ci", {}).get("how", ""))
    slow = [r["mutant"]["id"] for r in live if r.get("ci", {}).get("slow")]
    # The campaign ran on every mutant (not only on CI survivors): its own
    # kill rate, a mutant the smoke kernel kills counted as killed.
    ran = [r for r in live if not r.get("ci", {}).get("trivial")]
    on_all = bool(ran) and all("campaign" in r for r in ran)
    alone = sum(1 for r in live if killed(r, "campaign") or r.get("ci", {}).get("trivial"))
    return {"mutants": len(results), "equivalent": len(results) - len(live), "live": len(live),
            "suites": suites, "fixture_killed": fixture, "slow": slow, "campaign_on_all": on_all,
            "campaign_alone_killed": alone, "campaign_alone_score": alone / n,
            "trivial": sum(1 for r in results if r.get("ci", {}).get("trivial")),
            "ci_killed": ci_k, "either_killed": either, "closed_killed": closed,
            "ci_score": ci_k / n, "campaign_score": either / n, "closed_score": closed / n,
            "campaign_budgets": sorted(budgets), "passes": per}


def markdown(summary: dict[str, Any]) -> str:
    """The per-pass table for docs/campaigns.md."""
    full = summary.get("suites") == ["full"]
    suite = "CI suite" if full else "CI differential suite"
    outside = "" if full else ", ● by an existing test outside the differential suite"
    on_all = summary.get("campaign_on_all", False)
    budgets = "/".join(f"{b:.0f} s" for b in summary.get("campaign_budgets", [])) or "none run"
    camp_head = f"killed by a campaign alone ({budgets})" if on_all else f"then by a campaign ({budgets})"
    rows = [f"| pass | mutants | equivalent | trivial | killed by the {suite} (the output fixture failed first) "
            f"| {camp_head} | by either | survivors (✓ killed by a new test{outside}) |",
            "|---|---|---|---|---|---|---|---|"]

    def mark(x: dict[str, Any]) -> str:
        if not x["closed_by"]:
            return ""
        return " ✓" if any(t.startswith(CLOSING_TESTS) for t in x["closed_by"]) else " ●"

    def camp(p: dict[str, Any]) -> int:
        return p["campaign_alone"] + p["trivial"] if on_all else p["campaign"]

    for name, p in sorted(summary["passes"].items()):
        surv = ", ".join(x["id"].split(":", 1)[1] + mark(x) for x in p["survivors"]) or "-"
        rows.append(f"| {name} | {p['mutants']} | {p['equivalent']} | {p['trivial']} | {p['ci']} ({p['fixture']}) "
                    f"| {camp(p)} | {p['either']} | {surv} |")
    s = summary
    tot = {k: sum(p[k] for p in s["passes"].values()) for k in ("ci", "either")}
    rows.append(f"| **total** | {s['mutants']} | {s['equivalent']} | {s['trivial']} | {tot['ci']} "
                f"({s['fixture_killed']}) | {sum(camp(p) for p in s['passes'].values())} | {tot['either']} "
                f"| {sum(len(p['survivors']) for p in s['passes'].values())} |")
    rows.append("")
    camp_line = (f"a campaign alone kills {s['campaign_alone_killed']} ({s['campaign_alone_score']:.0%}, the "
                 f"trivial ones counted), " if on_all else "")
    rows.append(f"{s['mutants']} mutants ({s['trivial']} trivial: the copy fails the smoke kernel), "
                f"{s['equivalent']} argued equivalent; over the other {s['live']} the {suite} kills "
                f"{s['ci_killed']} ({s['ci_score']:.0%}), {camp_line}the CI suite or the campaign "
                f"{s['either_killed']} ({s['campaign_score']:.0%}), and with the closing tests "
                f"{s['closed_killed']} ({s['closed_score']:.0%}).")
    return "\n".join(rows)


def merge_journals(journals: Sequence[Path], with_equivalent: bool = True) -> list[dict[str, Any]]:
    """One record per mutant from several journals (a CI run, a campaign
    run, closing tests): the verdicts of each, the later journal's kept on
    a clash. With `with_equivalent`, the catalogue's mutants argued
    equivalent are listed too (a run skips them), so every pass shows."""
    from .pass_mutants_equivalent import EQUIVALENT

    merged: dict[str, dict[str, Any]] = {}
    for journal in journals:
        for mid, rec in _done(journal).items():
            merged[mid] = {**merged.get(mid, {}), **rec}
    if with_equivalent:
        for m in catalogue():
            if m.id in EQUIVALENT and m.id not in merged:
                merged[m.id] = {"mutant": asdict(m)}
    return list(merged.values())


def _iter_selected(only: Sequence[str]) -> Iterator[Mutant]:
    muts = catalogue()
    if not only:
        yield from muts
        return
    ids = {m.id: m for m in muts}
    for o in only:
        if o in ids:
            yield ids[o]
        else:
            matching = [m for m in muts if m.id.startswith(o + ":") or m.pass_name == o]
            if not matching:
                raise SystemExit(f"pass_mutants: no mutant or pass named {o!r} (see `list`)")
            yield from matching


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (also `vecz-fuzz mutation-score --passes`)."""
    ap = argparse.ArgumentParser(prog="python -m fuzz.pass_mutants", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    lp = sub.add_parser("list", help="print the mutant catalogue")
    lp.add_argument("--json", action="store_true")
    rp = sub.add_parser("run", help="judge mutants on copies of the tree")
    rp.add_argument("--only", action="append", default=[], metavar="ID|PASS", help="a mutant id or a pass (repeatable)")
    rp.add_argument("--journal", default="pass-mutants.jsonl", help="JSONL results; a re-run resumes it")
    rp.add_argument("--no-ci", action="store_true", help="skip the CI suite")
    rp.add_argument("--suite", choices=("full", "differential"), default="full",
                    help="the whole CI suite (default; tests that killed the same edit before run first) "
                         "or the differential tests only")
    rp.add_argument("--include-equivalent", action="store_true",
                    help="judge the mutants argued equivalent too (skipped by default)")
    rp.add_argument("--hints", action="append", default=[], metavar="JOURNAL",
                    help="an earlier journal whose killing tests run first (repeatable)")
    rp.add_argument("--ci-timeout", type=float, default=1800.0,
                    help="seconds of CI suite per mutant; a mutant with no failure by then survived it (partial)")
    rp.add_argument("--campaign-seconds", type=float, default=600.0, help="0: no campaign")
    rp.add_argument("--campaign-arg", action="append", default=[], help="extra `vecz-fuzz run` argument")
    rp.add_argument("--jobs", type=int, default=1, help="pytest / campaign workers per mutant (default 1)")
    rp.add_argument("--seed", type=int, default=1_000_000)
    rp.add_argument("--shard", default="0/1", metavar="I/N", help="judge only every N-th mutant from the I-th")
    rp.add_argument("--reverse", action="store_true",
                    help="judge from the last mutant (a helper shard meeting the others halfway)")
    rp.add_argument("--campaign-all", action="store_true", help="run the campaign on CI-killed mutants too")
    rp.add_argument("--extend-to", type=float, default=0.0, metavar="S",
                    help="continue the journal's surviving campaigns, from their next seed, to S seconds in all")
    rp.add_argument("--campaign-survivors", action="store_true",
                    help="run only the campaign, on the mutants the journal has as CI survivors")
    rp.add_argument("--again", action="store_true", help="judge the selected mutants even if the journal has them")
    rp.add_argument("--closing-test", action="append", default=[], metavar="TEST",
                    help="run only this test (file or id; repeatable) on the mutants: the test closing a survivor")
    sp = sub.add_parser("report", help="summarise a journal")
    sp.add_argument("--journal", action="append", default=[],
                    help="a journal (repeatable: a CI run's and a campaign run's are merged per mutant)")
    sp.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    from .pass_mutants_equivalent import EQUIVALENT

    if args.cmd == "list":
        muts = catalogue()
        if args.json:
            print(json.dumps([asdict(m) for m in muts], indent=1))
        else:
            for m in muts:
                print(f"{m.id:45} {m.path}:{m.line:<5} {m.original!r} -> {m.mutated!r}")
            print(f"{len(muts)} mutants over {len({m.path for m in muts})} files", file=sys.stderr)
        return 0
    if args.cmd == "run":
        # `kill PID` stops a run like ^C: the running mutant's suite is killed and its copy removed.
        signal.signal(signal.SIGTERM, signal.default_int_handler)
        if args.jobs < 1 or args.campaign_seconds < 0 or args.ci_timeout <= 0:
            ap.error("--jobs must be >= 1, --campaign-seconds >= 0, --ci-timeout > 0")
        try:
            shard, shards = (int(x) for x in args.shard.split("/"))
            if not 0 <= shard < shards:
                raise ValueError
        except ValueError:
            ap.error("--shard must be I/N with 0 <= I < N")
        muts = list(_iter_selected(args.only))[shard::shards]
        if args.reverse:
            muts.reverse()
        results = run(muts, Path(args.journal), ci=not args.no_ci,
                      campaign_seconds=args.campaign_seconds, jobs=args.jobs, seed=args.seed,
                      ci_timeout=args.ci_timeout, campaign_args=args.campaign_arg,
                      campaign_all=args.campaign_all, again=args.again, closing_tests=args.closing_test,
                      suite=args.suite, hints=kill_hints([Path(h) for h in args.hints]),
                      skip=() if args.include_equivalent or args.only else tuple(EQUIVALENT),
                      campaign_survivors=args.campaign_survivors, extend_to=args.extend_to)
        print(markdown(summarize(results, EQUIVALENT)))
        return 0
    journals = [Path(j) for j in args.journal or ["pass-mutants.jsonl"]]
    if not any(_done(j) for j in journals):
        print(f"pass_mutants: no results in {', '.join(map(str, journals))}", file=sys.stderr)
        return 2
    results = merge_journals(journals)
    summary = summarize(results, EQUIVALENT)
    print(json.dumps(summary, indent=1) if args.json else markdown(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
