"""Hostile inputs through every command: 1,200 mutated IR files and case
journals plus hostile option values, fed to `veczc`, `vecz-oracle`,
`vecz-fuzz` and `reduce-failure` in-process (`main(argv)` with captured
streams), each checked against the command-line contract: exit status 0, 1
or 2; on 2 exactly one error line; never a traceback; never a hang.

The mutants come from a seeded mutator (tests/hostile.py) over real inputs:
the bench kernels, the corpus cases, a sample of Vecz's lit kernels and of
the real-world IR. What only a real process shows (closed streams, SIGPIPE,
/dev/full, killed parents) is in tests/test_cli_robustness.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hostile import Mutator, Outcome, commands, error_lines, real_inputs, run_in_process

SEED = 19  # the mutator's seed: every run feeds the same mutants
N_VECZC, N_ORACLE, N_REDUCE, N_JOURNAL = 450, 350, 250, 150  # 1,200 mutated files
ROOT = Path(__file__).resolve().parent.parent
SMALL_CASE = sorted((ROOT / "corpus").glob("*.ll"))[0]


@pytest.fixture(scope="module")
def mutants(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, Path, bytes]]:
    """(origin, path, bytes) of the IR mutants, written to files."""
    inputs = real_inputs()
    mut = Mutator(SEED)
    d = tmp_path_factory.mktemp("mutants")
    out = []
    for i in range(N_VECZC + N_ORACLE + N_REDUCE):
        name, data = inputs[i % len(inputs)]
        m = mut.mutate(data)
        path = d / f"m{i:04d}.ll"
        path.write_bytes(m)
        out.append((name, path, m))
    return out


@pytest.fixture(autouse=True)
def _keep_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    # Campaigns set VECZ_ORACLE_WORKERS for their own pool; undo it afterwards.
    monkeypatch.setenv("VECZ_ORACLE_WORKERS", "0")


def _not_text(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return b"\0" in data


def _check(outcomes: list[Outcome], extra: list[str] | None = None) -> None:
    bad = [o.describe() for o in outcomes if o.problems()] + (extra or [])
    assert not bad, f"{len(bad)} of {len(outcomes)} runs break the contract:\n" + "\n".join(bad[:40])


def _check_error_line(o: Outcome, prog: str) -> list[str]:
    """A usage error names the command first (`prog: ...`)."""
    lines = error_lines(o.err)
    if o.code == 2 and lines and not lines[0].startswith((f"{prog}:", f"{prog} ")):
        return [f"{o.describe()}: the error line does not start with '{prog}:'"]
    return []


# ------------------------------------------------------------------ mutated IR


def test_veczc_on_mutated_ir(mutants: list, tmp_path: Path) -> None:
    from vectorizer.llvm_bridge import IRError, parse

    main = commands()["veczc"]
    out = tmp_path / "out.ll"
    runs, extra = [], []
    for i, (origin, path, data) in enumerate(mutants[:N_VECZC]):
        width = ("4", "8", "1", "16")[i % 4]
        out.unlink(missing_ok=True)
        o = run_in_process("veczc", main, [str(path), "-S", "-w", width, "-o", str(out)])
        runs.append(o)
        extra += _check_error_line(o, "veczc")
        if _not_text(data) and o.code != 2:
            extra.append(f"{o.describe()}: input with a NUL byte or not UTF-8 ({origin}) gave exit {o.code}")
        elif o.code in (0, 1) and not o.problems():
            try:
                parse(out.read_text())
            except (OSError, IRError) as exc:
                extra.append(f"{o.describe()}: exit {o.code} but the output is not a module: {exc}")
    _check(runs, extra)


def test_vecz_oracle_on_mutated_ir(mutants: list) -> None:
    main = commands()["vecz-oracle"]
    runs, extra = [], []
    for origin, path, data in mutants[N_VECZC:N_VECZC + N_ORACLE]:
        o = run_in_process("vecz-oracle", main, [str(path), "--widths", "4", "--timeout", "2"])
        runs.append(o)
        extra += _check_error_line(o, "vecz-oracle")
        if _not_text(data) and o.code != 2:
            extra.append(f"{o.describe()}: input with a NUL byte or not UTF-8 ({origin}) gave exit {o.code}")
        if o.code in (0, 1) and "kernel " not in o.out:
            extra.append(f"{o.describe()}: exit {o.code} without a report")
    _check(runs, extra)


def test_reduce_failure_on_mutated_ir(mutants: list, tmp_path: Path) -> None:
    main = commands()["reduce-failure"]
    runs, extra = [], []
    for origin, path, data in mutants[N_VECZC + N_ORACLE:]:
        o = run_in_process("reduce-failure", main, [str(path), "--time", "5", "--timeout", "2",
                                                    "-o", str(tmp_path / "reduced.ll")])
        runs.append(o)
        extra += _check_error_line(o, "reduce-failure")
        if _not_text(data) and o.code != 2:
            extra.append(f"{o.describe()}: input with a NUL byte or not UTF-8 ({origin}) gave exit {o.code}")
    _check(runs, extra)


def _journal_lines() -> bytes:
    """A real-looking journal: a start record, seed records with and without
    failures (one with its case text), an end record."""
    from fuzz import generate

    spec = {"profile": "tiny", "knobs": {}, "widths": [4], "dims": None, "choices": None,
            "source": "ours", "peer": None, "peer_mux": False, "mutate": None, "timeout": 10.0}
    fail = {"signature": "mismatch | w=4 d=0 c=- | buffer 1 lane 2", "status": "mismatch", "width": 4,
            "dim": 0, "choices": "", "global_size": [16], "local_size": [16], "detail": "buffer 1 index 2"}
    recs = [{"type": "start", "spec": spec, "seed": 0, "count": 4, "pid": 1, "time": 1.0}]
    for s in range(4):
        failures = [fail] if s % 2 else []
        recs.append({"type": "seed", "seed": s, "n": 2, "summary": {"match": 2 - len(failures),
                     **({"mismatch": 1} if failures else {})}, "failures": failures,
                     "case": generate(s, profile="tiny") if failures and s == 1 else None, "elapsed": 0.5})
    recs.append({"type": "end", "seeds": 4, "seconds": 2.0})
    return b"".join(json.dumps(r).encode() + b"\n" for r in recs)


def test_vecz_fuzz_on_mutated_journals(tmp_path: Path) -> None:
    """`vecz-fuzz report` and `run --resume` read every damaged journal: bad
    lines are reported (file:line) and skipped, never a traceback."""
    main = commands()["vecz-fuzz"]
    base = _journal_lines()
    mut = Mutator(SEED + 1)
    runs, extra = [], []
    for i in range(N_JOURNAL):
        path = tmp_path / f"j{i}.jsonl"
        data = mut.mutate(base)
        path.write_bytes(data)
        o = run_in_process("vecz-fuzz", main, ["report", str(path), "--json"])
        runs.append(o)
        if o.code in (0, 1) and not o.problems():
            try:
                rep = json.loads(o.out)
            except json.JSONDecodeError:
                extra.append(f"{o.describe()}: exit {o.code} without the JSON report")
                continue
            if rep["seeds"] > data.count(b'"type": "seed"'):
                extra.append(f"{o.describe()}: {rep['seeds']} seeds from a journal with fewer seed lines")
        # --count 0 runs no seed: this reads the journal, locks it and appends to it.
        runs.append(run_in_process("vecz-fuzz", main, [
            "run", "--count", "0", "--profile", "tiny", "--widths", "4", "--journal", str(path),
            "--resume", "--jobs", "1", "--no-progress"]))
    _check(runs, extra)


# ------------------------------------------------------------------ hostile options

BAD_NUMBERS = ["nan", "inf", "-inf", "0", "-1", "1e400", "abc", "", "99999999999999999999999"]


def _option_runs(prog: str, argvs: list[list[str]], allowed: tuple[int, ...] = (2,)) -> list[str]:
    main = commands()[prog]
    problems = []
    for argv in argvs:
        o = run_in_process(prog, main, argv, limit=120)
        if o.problems() or o.code not in allowed:
            problems.append(o.describe() + ("" if o.problems() else f": exit {o.code}, expected {allowed}"))
        problems += _check_error_line(o, prog)
    return problems


def test_veczc_hostile_options(tmp_path: Path) -> None:
    k = str(SMALL_CASE)
    argvs = [[k, "-S", "-w", v] for v in BAD_NUMBERS + ["65", "4.0", "True"]]
    argvs += [[k, "-S", "-d", v] for v in ["3", "-1", "x", "1.5"]]
    argvs += [[k, "-S", "-k", v] for v in ["", "nope", "fuzz_kernel:", "fuzz_kernel:0",
                                             "fuzz_kernel:4,", "fuzz_kernel:.9", "fuzz_kernel:x",
                                             "fuzz_kernel:4.4", "fuzz_kernel:@", "a\"b",
                                             "fuzz_kernel:65"]]
    argvs += [[k, "-S", "--vecz-choices", v] for v in ["Bogus", "noBogus", "\0"]]
    argvs += [[k, "-S", "-o", str(tmp_path / "missing" / "x.ll")], [k, "-S", "-o", str(tmp_path)],
              ["/nonexistent.ll", "-S"], [str(tmp_path), "-S"], [k, "--no-such-option"]]
    problems = _option_runs("veczc", argvs)
    # Odd but possibly meaningful: only the contract (0/1/2, one error line) is asserted.
    odd = [[k, "-S", "--vecz-choices", ";;;;"], [k, "-S", "-vecz-target-features", "+nonsense"],
           [k, "-S", "-vecz-target-features", "garbage"], [k, "-S", "-k", "fuzz_kernel:1,1,1"]]
    problems += _option_runs("veczc", odd, allowed=(0, 1, 2))
    _check([], problems)


def test_veczc_accepts_the_hyphenated_kernel_names_llvm_allows(tmp_path: Path) -> None:
    """Issue 19: `veczc -k foo-bar` was refused; LLVM names may hold '-', '.', '$'."""
    text = SMALL_CASE.read_text()
    name = re.search(r"define spir_kernel [^@]*@([\w.$]+)\(", text)
    assert name, f"{SMALL_CASE} has no kernel"
    text = text.replace(f"@{name.group(1)}(", "@foo-bar(")
    src = tmp_path / "k.ll"
    src.write_text(text)
    _check([], _option_runs("veczc", [[str(src), "-S", "-k", "foo-bar", "-o", str(tmp_path / "o.ll")]],
                            allowed=(0,)))


def test_vecz_oracle_hostile_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    k = str(SMALL_CASE)
    argvs = [[k, "--timeout", v] for v in BAD_NUMBERS]
    argvs += [[k, "--widths", v] for v in ["0", "65", ",", "a", "-4", "4,,x"]]
    argvs += [[k, "--dims", v] for v in ["3", "-1", "x"]]
    argvs += [[k, "--local-sizes", v] for v in ["0", "4x4x4x4", "99999999", "x", "-4", "4096x4096"]]
    argvs += [[k, "--ndrange", v] for v in ["global=10 local=3", "global=-1", "global=1e9", "local=4",
                                            "global=4 offset=99999999999", "global=16777217", "junk"]]
    argvs += [[k, "--seed", v] for v in ["-1", str(2**70), "x"]]
    argvs += [[k, "--opt", "4"], [k, "--vectorized", "nope"], [k, "--vectorized", "nope", "--width", "4"],
              [k, "--vectorized", "fuzz_kernel", "--width", "0"], [k, "-k", "nope"], [k, "-k", ""],
              [k, "-k", 'a"b'], [""], [str(tmp_path)], ["/nonexistent.ll"], [k, "--bogus"], []]
    problems = _option_runs("vecz-oracle", argvs)
    for value in ["abc", "-1", "1.5", "99999"]:
        monkeypatch.setenv("VECZ_ORACLE_WORKERS", value)
        problems += _option_runs("vecz-oracle", [[k, "--widths", "4"]])
    _check([], problems)


def test_vecz_fuzz_hostile_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gen = ["generate", "--seed"]
    argvs = [gen + [v] for v in ["-1", "x", "", str(2**64), "1.5"]]
    argvs += [gen + ["1", "--knob", v] for v in ["size=-1", "nope=1", "size=abc", "vectors=maybe",
                                                 "types=i33", "memory=bogus", "size", "=", "size=1e3"]]
    argvs += [gen + ["1", "--profile", "nope"], gen + ["1", "-o", str(tmp_path / "no" / "x.ll")],
              gen + ["1", "-o", str(tmp_path)], gen + ["1", "-o", ""]]
    run = ["run", "--no-progress", "--jobs", "1"]
    argvs += [run + ["--count", v] for v in ["-5", "x", "1.5"]]
    argvs += [run + ["--time", v] for v in ["nan", "0", "-1", "inf", "1e400"]]
    argvs += [run + ["--count", "1", *opt] for opt in [
        ["--jobs", "-1"], ["--jobs", "99999"], ["--timeout", "inf"], ["--timeout", "0"],
        ["--widths", "0"], ["--widths", "65"], ["--dims", "5"], ["--choices", "Bogus"],
        ["--peer", "{nope}"], ["--peer", "{"], ["--mutate", "nope"], ["--source", "nope"],
        ["--journal", str(tmp_path)], ["--journal", "/proc/no/such/journal"],
        ["--journal", "/dev/zero", "--resume"],
        ["--reduce-time", "-1"], ["--knob", "types=i33"], ["--corpus", "/proc/no/corpus"]]]
    argvs += [["run", "--seed", "0"], ["--bogus"], [], ["mutation-score", "--kernels", "-1"],
              ["mutation-score", "--operators", "nope"], ["mutation-score", "--widths", "0"],
              ["mutation-score", "--jobs", "-1"], ["coverage", "--count", "-1"],
              ["check-scalar", "--count", "-2"], ["check-scalar", "--jobs", "99999"],
              ["report", "/dev/zero"], ["report", str(tmp_path)], ["report", "/nonexistent.jsonl"]]
    problems = _option_runs("vecz-fuzz", argvs)
    # Cheap valid corners: nothing to do is not an error.
    problems += _option_runs("vecz-fuzz", [["coverage", "--count", "0"], ["check-scalar", "--count", "0"],
                                           ["run", "--count", "0", "--no-progress", "--jobs", "1"],
                                           ["mutation-score", "--kernels", "0", "--operators",
                                            "step-swap", "--no-reduce"]], allowed=(0,))
    for value in ["abc", "-1"]:
        monkeypatch.setenv("VECZ_ORACLE_WORKERS", value)
        problems += _option_runs("vecz-fuzz", [["check-scalar", "--count", "1"]])
    _check([], problems)


def test_reduce_failure_hostile_options(tmp_path: Path) -> None:
    k = str(SMALL_CASE)
    argvs = [[k, "--time", v] for v in BAD_NUMBERS]
    argvs += [[k, "--timeout", v] for v in ["0", "nan", "-3"]]
    argvs += [[k, "--mutate", "nope"], [k, "--peer", "{nope}"], [k, "-o", str(tmp_path / "no" / "x.ll")],
              [k, "-o", str(tmp_path)], [k, "--corpus", "/proc/no/corpus"], ["/nonexistent.ll"],
              [str(tmp_path)], [""], [k, "--bogus"], []]
    _check([], _option_runs("reduce-failure", argvs))
