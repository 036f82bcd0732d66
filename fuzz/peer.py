"""Fuzz another vectorizer (`--peer CMD`): its output goes through our oracle.

CMD is a command template, for example

    veczc -k {kernel} -w {width} -d {dim} -S {input} -o {output}

with the fields `{kernel} {width} {dim} {choices} {input} {output}`. The
input is the case's IR (with `mux=True`, OpenCL work-item builtins renamed
to their `__mux_*` equivalents, for tools that only know those). The tool
must write a module holding the scalar kernel and one new function, its
vectorized kernel; exit status 1 means "not vectorized" (veczc's
convention), anything else non-zero a vectorizer error.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import tempfile
from pathlib import Path
from typing import Any

# OpenCL SPIR mangled work-item builtins -> the __mux_* names (same signatures).
MUX_NAMES = {
    "_Z13get_global_idj": "__mux_get_global_id",
    "_Z12get_local_idj": "__mux_get_local_id",
    "_Z12get_group_idj": "__mux_get_group_id",
    "_Z15get_global_sizej": "__mux_get_global_size",
    "_Z14get_local_sizej": "__mux_get_local_size",
    "_Z14get_num_groupsj": "__mux_get_num_groups",
    "_Z17get_global_offsetj": "__mux_get_global_offset",
    "_Z12get_work_dimv": "__mux_get_work_dim",
}
_DEFINE = re.compile(r"^define\b[^@]*@(\"[^\"]+\"|[\w.$-]+)\(", re.M)


def rename_to_mux(ir: str) -> str:
    """`ir` with the OpenCL work-item builtins renamed to `__mux_*`."""
    for old, new in MUX_NAMES.items():
        ir = re.sub(rf"@{re.escape(old)}\b", f"@{new}", ir)
    return ir


def defined_functions(ir: str) -> list[str]:
    """Names of the functions `ir` defines, in order."""
    return [m.group(1).strip('"') for m in _DEFINE.finditer(ir)]


def vectorized_function(before: str, after: str, kernel: str, width: int) -> str | None:
    """The function the peer added: the Vecz name if present, else the one new definition."""
    new = [f for f in defined_functions(after) if f not in set(defined_functions(before))]
    for name in (f"__vecz_v{width}_{kernel}",):
        if name in new:
            return name
    named = [f for f in new if kernel in f]
    if len(named) == 1:
        return named[0]
    return new[0] if len(new) == 1 else None


def run_peer(template: str, case: Any, width: int, dim: int, choices: str, mux: bool = False,
             timeout: float = 60.0) -> tuple[str, str, str, str]:
    """Run the peer on one configuration: (status, detail, output module text,
    vectorized function name); status `ok`, `not-vectorized` or `vectorizer-error`."""
    ir = rename_to_mux(case.ir) if mux else case.ir
    with tempfile.TemporaryDirectory(prefix="vecz-peer-") as tmp:
        inp, out = Path(tmp, "input.ll"), Path(tmp, "output.ll")
        inp.write_text(ir)
        try:
            cmd = template.format(kernel=case.kernel, width=width, dim=dim, choices=choices,
                                  input=shlex.quote(str(inp)), output=shlex.quote(str(out)))
        except (KeyError, IndexError) as exc:
            raise ValueError(f"bad --peer template {template!r}: unknown field {exc}") from None
        try:
            p = subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return ("vectorizer-error", f"peer timed out after {timeout:g}s", "", "")
        tail = (p.stderr.strip().splitlines() or [""])[-1][:300]
        if p.returncode == 1:
            return ("not-vectorized", tail or "peer exit 1", "", "")
        if p.returncode != 0:
            return ("vectorizer-error", f"peer exit {p.returncode}: {tail}", "", "")
        if not out.exists():
            return ("vectorizer-error", "peer wrote no output file", "", "")
        text = out.read_text()
    name = vectorized_function(ir, text, case.kernel, width)
    if name is None:
        return ("not-vectorized", "no new function in the peer's output", "", "")
    return ("ok", "", text, name)
