"""The crossing between our Python IR and LLVM proper, through llvmlite.

Everything that parses, verifies or optimises LLVM IR goes through here, so
there is one place that knows llvmlite's quirks:

- every module is parsed in a fresh LLVM context (the global context renames
  named struct types of a later module, `%T` becoming `%T.0`);
- parse errors carry LLVM's `line:column` diagnostic, re-raised as `IRError`;
- pass pipelines are built from llvmlite's new-pass-manager `add_*` methods,
  named here by LLVM's own pass names.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass

import llvmlite.binding as llvm

from .llvm_context import new_context, parse_bitcode_in, parse_in

_initialized = False


def initialize() -> None:
    """Initialise LLVM's native target once per process."""
    global _initialized
    if not _initialized:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        _initialized = True


@dataclass
class IRError(Exception):
    """Malformed LLVM IR: LLVM's own diagnostic, with its line and column when known."""

    message: str
    line: int | None = None
    column: int | None = None
    source_line: str | None = None

    def __str__(self) -> str:
        where = ""
        if self.line is not None:
            where = f"{self.line}:{self.column}: " if self.column is not None else f"{self.line}: "
        return f"{where}{self.message}"


_DIAG = re.compile(r"<string>:(\d+):(\d+): error: (.*)")


def _parse_error(text: str) -> IRError:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    for i, ln in enumerate(lines):
        m = _DIAG.search(ln)
        if m:
            src = lines[i + 1] if i + 1 < len(lines) else None
            return IRError(m.group(3).strip(), int(m.group(1)), int(m.group(2)), src)
    body = [ln for ln in lines if not ln.startswith("LLVM IR parsing error")]
    return IRError(" ".join(body).strip() or "malformed LLVM IR")


def parse(src: str | bytes | llvm.ModuleRef, verify: bool = True) -> llvm.ModuleRef:
    """Parse LLVM text or bitcode into a fresh-context llvmlite module.

    Raises `IRError` for input LLVM rejects, or that fails the verifier.
    """
    if isinstance(src, llvm.ModuleRef):
        # Re-read through text so the caller's module is never shared or mutated.
        src = str(src)
    ctx = new_context()
    try:
        if isinstance(src, (bytes, bytearray)):
            if bytes(src[:2]) == b"BC" or bytes(src[:4]) == b"\xde\xc0\x17\x0b":
                mod = parse_bitcode_in(ctx, bytes(src))
            else:
                mod = parse_in(ctx, bytes(src).decode("utf-8"))
        else:
            mod = parse_in(ctx, src)
    except RuntimeError as exc:
        raise _parse_error(str(exc)) from None
    if verify:
        try:
            mod.verify()
        except RuntimeError as exc:
            msg = " ".join(ln.strip() for ln in str(exc).splitlines() if ln.strip())
            raise IRError(f"invalid IR: {msg}") from None
    return mod


def canonicalize(src: str | bytes | llvm.ModuleRef) -> str:
    """Parse, verify and re-print `src` as LLVM 22 prints it (opaque pointers,
    upgraded intrinsics): the only text our own parser ever reads."""
    if isinstance(src, str):
        return _canonical_text(src)
    return str(parse(src))


# Pure functions of their text, remembered for the last few texts: the oracle
# vectorizes one kernel at several widths, dimensions and choices, each time
# from the same input and through the same preparation passes.
@functools.lru_cache(maxsize=8)
def _canonical_text(src: str) -> str:
    return str(parse(src))


def verify(text: str) -> None:
    """Raise `IRError` unless LLVM parses and verifies `text`."""
    parse(text)


# LLVM pass name -> the llvmlite ModulePassManager method that adds it.
_PASSES: dict[str, str] = {
    "always-inline": "add_always_inliner_pass",
    "adce": "add_aggressive_dce_pass",
    "aggressive-instcombine": "add_aggressive_instcombine_pass",
    "dce": "add_dead_code_elimination_pass",
    "dse": "add_dead_store_elimination_pass",
    "globaldce": "add_global_dead_code_eliminate_pass",
    "instcombine": "add_instruction_combine_pass",
    "instnamer": "add_instruction_namer_pass",
    "lcssa": "add_lcssa_pass",
    "loop-rotate": "add_loop_rotate_pass",
    "loop-simplify": "add_loop_simplify_pass",
    "lower-switch": "add_lower_switch_pass",
    "mergereturn": "add_unify_function_exit_nodes_pass",
    "newgvn": "add_new_gvn_pass",
    "reassociate": "add_reassociate_pass",
    "sccp": "add_sccp_pass",
    "simplifycfg": "add_simplify_cfg_pass",
    "sink": "add_sinking_pass",
    "sroa": "add_sroa_pass",
    "strip-dead-prototypes": "add_strip_dead_prototype_pass",
    "memcpyopt": "add_mem_copy_opt_pass",
    "jump-threading": "add_jump_threading_pass",
    "tailcallelim": "add_tail_call_elimination_pass",
    "verify": "add_verifier",
}

KNOWN_PASSES = frozenset(_PASSES)


def host_target_machine(opt: int = 2, codemodel: str = "default", features: str | None = None) -> llvm.TargetMachine:
    """A target machine for the host CPU with all its features, or with
    `features` instead (`codemodel` "jitdefault" for code that is JIT-compiled)."""
    initialize()
    target = llvm.Target.from_triple(llvm.get_process_triple())
    return target.create_target_machine(
        cpu=llvm.get_host_cpu_name(),
        features=llvm.get_host_cpu_features().flatten() if features is None else features,
        opt=opt,
        codemodel=codemodel,
    )


_PASS_TARGET = threading.local()


def pass_target_machine() -> llvm.TargetMachine:
    """The host target machine (-O2 defaults) the pass builders here use,
    made once per thread: creating one costs about a millisecond, paid on
    every crossing to LLVM before. Never handed to a JIT (an execution
    engine takes ownership of its target machine)."""
    tm = getattr(_PASS_TARGET, "tm", None)
    if tm is None:
        tm = _PASS_TARGET.tm = host_target_machine()
    return tm


def run_passes(src: str | llvm.ModuleRef, passes: Iterable[str]) -> str:
    """Run LLVM passes (by LLVM name, see `KNOWN_PASSES`) over a module; return its text."""
    mod = src if isinstance(src, llvm.ModuleRef) else parse(src)
    pto = llvm.create_pipeline_tuning_options(speed_level=2)
    pb = llvm.create_pass_builder(pass_target_machine(), pto)
    mpm = llvm.create_new_module_pass_manager()
    for name in passes:
        try:
            adder = getattr(mpm, _PASSES[name])
        except KeyError:
            raise ValueError(f"unknown LLVM pass {name!r}") from None
        adder()
    mpm.run(mod, pb)
    return str(mod)


def optimize(src: str | llvm.ModuleRef, speed_level: int = 3, vectorize: bool = False) -> str:
    """Run LLVM's default -O<n> pipeline (optionally with LoopVectorize and SLP)."""
    mod = src if isinstance(src, llvm.ModuleRef) else parse(src)
    pto = llvm.create_pipeline_tuning_options(speed_level=speed_level)
    pto.loop_vectorization = vectorize
    pto.slp_vectorization = vectorize
    pb = llvm.create_pass_builder(pass_target_machine(), pto)
    mpm = pb.getModulePassManager()
    mpm.run(mod, pb)
    return str(mod)


def run_function_passes(src: str | llvm.ModuleRef, function: str, passes: Iterable[str]) -> str:
    """Run LLVM function passes over one function of a module, leaving the rest untouched."""
    if isinstance(src, str):
        return _passes_on_text(src, function, tuple(passes))
    return _run_function_passes(src, function, passes)


@functools.lru_cache(maxsize=8)
def _passes_on_text(src: str, function: str, passes: tuple[str, ...]) -> str:
    return _run_function_passes(parse(src), function, passes)


def _run_function_passes(mod: llvm.ModuleRef, function: str, passes: Iterable[str]) -> str:
    pto = llvm.create_pipeline_tuning_options(speed_level=2)
    pb = llvm.create_pass_builder(pass_target_machine(), pto)
    fpm = llvm.create_new_function_pass_manager()
    for name in passes:
        if name not in _FUNCTION_PASSES:
            raise ValueError(f"unknown LLVM function pass {name!r}")
        getattr(fpm, _PASSES[name])()
    fn = mod.get_function(function)
    fpm.run(fn, pb)
    return str(mod)


_FUNCTION_PASSES = frozenset(
    name
    for name, method in _PASSES.items()
    if hasattr(llvm.FunctionPassManager, method)
)
