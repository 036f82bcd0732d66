"""fuzz/ and bench/ are layered: their import graph has no cycle, and no
library module imports a command-line module.

The graph is read statically (ast) and counts every import, including the
ones inside functions: a lazy import hides a circle from Python, not from a
reader, and it still ties the two modules together.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("fuzz", "bench")
# Command-line modules: the top of each stack, imported by nothing else in
# their package. bench's subcommands (compile_time, divergence) are libraries
# with a main(); bench.cli dispatches to them, never the other way round.
CLI_MODULES = {"fuzz.cli", "fuzz.reduce_cli", "fuzz.csmith.__main__", "fuzz.csmith.survey", "bench.cli"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> list[str]:
    """The fuzz modules one `from ... import ...` names (a name may be a submodule)."""
    if node.level:
        base = module.split(".")
        if not is_package:
            base = base[:-1]
        base = base[: len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    return [target] + [f"{target}.{a.name}" for a in node.names]


def import_graph() -> dict[str, set[str]]:
    """module of fuzz/ or bench/ -> the modules of those packages it imports
    anywhere in its text."""
    files = {_module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in files}
    for mod, path in files.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = _resolve(mod, is_package, node)
            else:
                continue
            graph[mod].update(n for n in names if n in files and n != mod)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_graph_reader_sees_function_level_and_relative_imports() -> None:
    g = import_graph()
    # Known edges of each kind, so an empty graph cannot pass the tests below.
    assert "fuzz.generator" in g["fuzz.campaign"]  # inside make_case()
    assert "fuzz.csmith" in g["fuzz.campaign"]  # `from . import csmith` inside a function
    assert "fuzz.journal" in g["fuzz.campaign"]  # module level
    assert "fuzz.campaign" in g["fuzz.reduce"]
    assert "fuzz.csmith.bridge" in g["fuzz.csmith"]
    assert "bench.suite" in g["bench.cli"]  # module level, relative
    assert "bench.compile_time" in g["bench.cli"]  # inside main()
    assert "bench.usage" in g["bench.divergence"]  # inside main()
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_fuzz_and_bench_imports_have_no_cycle() -> None:
    found = cycles(import_graph())
    assert found == [], "import circle(s): " + "; ".join(" <-> ".join(c) for c in found)


def test_library_modules_never_import_command_line_modules() -> None:
    g = import_graph()
    bad = {m: sorted(g[m] & CLI_MODULES) for m in g if m not in CLI_MODULES and g[m] & CLI_MODULES}
    assert bad == {}, f"library modules importing a command-line module: {bad}"
