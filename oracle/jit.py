"""One native program per kernel: the scalar kernel, every vectorized variant,
the runtime builtins and the drivers, linked in one LLVM module and compiled
with MCJIT for the host CPU and its features.

Variants come from separate modules (one `vectorize()` output each); they are
parsed into the kernel's own fresh LLVM context and linked in, their copies of
the scalar kernel and helpers made `linkonce_odr` so the linker keeps one.
"""

from __future__ import annotations

import ctypes
import re
import time
from dataclasses import dataclass, field

import llvmlite.binding as llvm

from vectorizer.llvm_bridge import host_target_machine, initialize
from vectorizer.llvm_context import adopt_engine, new_context, parse_in

from . import opaque_types, printf_capture, runtime, workgroup
from .instrument import BOUNDS, GLOBALS_FN, RUN_EPOCH, Instrumented, instrument
from .runtime import FnSig, Unsupported, parse_fn_type
from .sanitizer import Sanitizer, SanitizerReport, library

_CC = re.compile(r"spir_(?:kernel|func)\s+")
_NAME_CHAR = frozenset("_\"!.$-")  # before `spir_`, these make it part of a name
_MEMORY = re.compile(r"\s*\bmemory\([^)]*\)")
# The same effects in the spelling before LLVM 16 (Vecz's lit tests use it).
_LEGACY_MEMORY = re.compile(
    r"\s(?:readnone|readonly|writeonly|argmemonly|inaccessiblememonly|inaccessiblemem_or_argmemonly)(?=[\s}]|$)", re.M)
# Matched with the newline before: a pattern that starts with a literal is
# searched for fast, where `^` under re.M is tried at every position.
_ATTR_LINE = re.compile(r"\n(?:attributes #\d+ = \{|define |declare )[^\n]*")


def target_machine(opt: int = 2) -> llvm.TargetMachine:
    """A target machine for the host CPU with all its features, for the JIT."""
    return host_target_machine(opt, codemodel="jitdefault")


def strip_calling_conventions(text: str) -> str:
    """Drop `spir_kernel`/`spir_func` everywhere: the verifier rejects calls to
    a `spir_kernel`, and definitions and calls must keep agreeing, so every
    function becomes default-convention (the same on x86-64 anyway)."""
    # The check on the character before is done here, not as a look-behind:
    # a pattern starting with a literal is searched for fast (a look-behind
    # tried at every position cost a millisecond per module).
    def drop(m: re.Match[str]) -> str:
        before = text[m.start() - 1] if m.start() else ""
        return m.group(0) if before and (before.isalnum() or before in _NAME_CHAR) else ""

    return _CC.sub(drop, text)


class BuildError(Exception):
    """The scalar module itself cannot be built (bad input)."""


@dataclass
class Variant:
    """A vectorized function to link in: its source module and driver shape."""

    key: str  # unique id of the configuration
    function: str  # vectorized function name in `text`
    text: str
    width: int
    dim: int
    predicated: bool


# The driver key of the scalar kernel run in reverse work-item order.
REVERSED = "reversed"
# The driver keys of the sanitized scalar kernel (oracle.sanitizer), strict
# and in probe mode. A `Variant` with key SANITIZED in `build`'s list asks
# for the sanitized copy (its other fields are not used).
SANITIZED = "sanitized"
PROBE = "sanitized-probe"


@dataclass
class Program:
    """A compiled kernel module; drivers are called with (args blob, cfg)."""

    engine: llvm.ExecutionEngine
    drivers: dict[str, int]  # variant key ("" for scalar) -> driver address
    errors: dict[str, tuple[str, str]] = field(default_factory=dict)  # key -> (status, detail)
    compile_seconds: float = 0.0
    sanitizer: Sanitizer | None = None
    _fns: dict[str, object] = field(default_factory=dict)

    def run(self, key: str, args_addr: int, cfg_addr: int, buffers: list | None = None) -> SanitizerReport | None:
        """Run the driver of variant `key` (`""`: scalar) natively. The
        sanitized keys (SANITIZED, PROBE) need the run's `buffers` (the
        worker's GuardedBuffers, None for scalars) and return the sanitizer's
        report; other runs return None."""
        if key in (SANITIZED, PROBE):
            if self.sanitizer is None:
                raise KeyError(f"program built without the sanitizer: {self.errors.get(SANITIZED)}")
            return self.sanitizer.run(self.drivers[SANITIZED], args_addr, cfg_addr, buffers, probe=key == PROBE)
        fn = self._fns.get(key)
        if fn is None:
            proto = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
            fn = self._fns[key] = proto(self.drivers[key])
        fn(args_addr, cfg_addr)  # type: ignore[operator]
        return None


def strip_memory_effects(text: str) -> str:
    """Drop `memory(...)` function attributes. The runtime's work-item
    builtins read the NDRange state from globals, so a kernel that clang
    marked `memory(argmem: readwrite)`, or a builtin declared `memory(none)`,
    would let LLVM's optimisations (at -O1 and up) reorder or merge those
    reads across work-items. The older spelling (`readonly`...) too: even at
    -O0, instruction selection drops a call to a `readonly` kernel whose
    result is unused (Vecz's lit kernels are marked so and do write)."""
    def strip(m: re.Match[str]) -> str:
        line = m.group(0)
        # Every effect spelling has one of these (most lines have none).
        if "mem" not in line and "read" not in line and "only" not in line:
            return line
        return _LEGACY_MEMORY.sub("", _MEMORY.sub("", line))

    return _ATTR_LINE.sub(strip, "\n" + text)[1:]


def native_text(text: str) -> str:
    """Kernel IR made fit to run natively with the runtime: no SPIR calling
    conventions, no memory-effect attributes."""
    return opaque_types.lower(printf_capture.rewrite_calls(strip_memory_effects(strip_calling_conventions(text))))


def _parse(text: str, ctx: llvm.context.ContextRef, tm: llvm.TargetMachine) -> llvm.ModuleRef:
    return _parse_text(text, ctx, tm)[0]


def _parse_text(text: str, ctx: llvm.context.ContextRef, tm: llvm.TargetMachine) -> tuple[llvm.ModuleRef, str]:
    """The module of `text` made native, and the native text it was read
    from (what `_reachable` reads instead of printing the module again)."""
    native = native_text(text)
    mod = parse_in(ctx, native)
    mod.verify()
    mod.triple = llvm.get_process_triple()
    mod.data_layout = str(tm.target_data)
    return mod, native


def _noinline(fn: llvm.ValueRef) -> None:
    attrs = " ".join(str(a) for a in fn.attributes)
    if "alwaysinline" not in attrs and "noinline" not in attrs:
        fn.add_function_attribute("noinline")


def _quote(name: str) -> str:
    return runtime.quote_name(name)


def _drop_unreachable(mod: llvm.ModuleRef, tm: llvm.TargetMachine, roots: list[str]) -> None:
    """Delete the functions nothing we run can call (the file's other kernels
    and their helpers): they may use what the runtime cannot provide or LLVM
    cannot compile for the host (barriers, images and samplers)."""
    # Every definition but the roots is made internal for LLVM's global DCE,
    # which keeps exactly what the roots reach (through calls, any other
    # reference, and the globals that stay); the survivors then get their
    # linkage back. Finding what the roots reach ourselves meant printing
    # the whole linked module and reading it again.
    keep = set(roots)
    linkage: dict[str, llvm.Linkage] = {}
    for f in mod.functions:
        if not f.is_declaration:
            name = f.name
            if name not in keep:
                linkage[name] = f.linkage
                f.linkage = llvm.Linkage.internal
    pb = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=0))
    mpm = llvm.create_new_module_pass_manager()
    mpm.add_global_dead_code_eliminate_pass()
    mpm.run(mod, pb)
    for f in mod.functions:
        was = linkage.get(f.name)
        if was is not None and was != llvm.Linkage.internal:
            f.linkage = was


_DEFINE = re.compile(r'^define\b[^\n]*?@("(?:[^"\\]|\\.)*"|[-\w$.]+)\s*\(', re.M)
_SYMBOL = re.compile(r'@("(?:[^"\\]|\\.)*"|[-\w$.]+)')
_ESCAPE = re.compile(rb"\\([0-9A-Fa-f]{2})")


def _symbol_name(token: str) -> str:
    """The name of an `@` symbol as spelt in the text (quoted names unescaped)."""
    if not token.startswith('"'):
        return token
    raw = _ESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]), token[1:-1].encode())
    return raw.decode(errors="replace")


def _references(text: str) -> dict[str, set[str]]:
    """Each function defined in `text` -> the `@` symbols its definition
    mentions (instructions, personality, prefix data: all of them)."""
    out: dict[str, set[str]] = {}
    for m in _DEFINE.finditer(text):
        end = text.find("\n}", m.end())
        body = text[m.end(): len(text) if end < 0 else end]
        out[_symbol_name(m.group(1))] = {_symbol_name(t) for t in _SYMBOL.findall(body)}
    return out


def _functions(mod: llvm.ModuleRef) -> list[tuple[str, bool, llvm.ValueRef]]:
    """(name, is a declaration, the function) of every function of `mod`,
    read once: each name and flag is a foreign call, and a build asks both
    of every module twice (its declarations, and what its kernel reaches)."""
    return [(f.name, f.is_declaration, f) for f in mod.functions]


# With the newline before (see _ATTR_LINE); `_DEFINE` alike, for `_definitions`.
_DECLARE = re.compile(r'\ndeclare\b[^\n]*?@("(?:[^"\\]|\\.)*"|[-\w$.]+)\s*\(')
_DEFINE_NL = re.compile(r'\ndefine\b[^\n]*?@("(?:[^"\\]|\\.)*"|[-\w$.]+)\s*\(')


def _text_declarations(text: str) -> list[str] | None:
    """The functions `text` (a module's text) declares without defining,
    None when a declaration is spelt so that we cannot read its name."""
    text = "\n" + text
    names = _DECLARE.findall(text)
    if len(names) != text.count("\ndeclare"):
        return None
    return [_symbol_name(t) for t in names]


def _definitions(mod: llvm.ModuleRef, text: str) -> list[llvm.ValueRef]:
    """The functions `mod` defines, found by name from `text`, the text it
    was parsed from: looking a few names up is cheaper than asking every
    function of the module (declarations included) whether it is one."""
    text = "\n" + text
    names = _DEFINE_NL.findall(text)
    try:
        if len(names) != text.count("\ndefine"):
            raise NameError  # a definition spelt so that we cannot read its name
        return [mod.get_function(_symbol_name(t)) for t in names]
    except NameError:  # ask every function
        return [f for f in mod.functions if not f.is_declaration]


def _reachable(mod: llvm.ModuleRef, roots: list[str], text: str | None = None,
               table: list[tuple[str, bool, llvm.ValueRef]] | None = None) -> set[str]:
    """The functions (defined or declared) `roots` may call, directly or
    through other functions of `mod` (any reference to a function counts).

    Read from the module's text: walking every operand of every instruction
    through llvmlite costs one foreign call per operand, which made this the
    most expensive step of a campaign's JIT build. `text`, when given, is
    the text `mod` was just parsed from (unchanged since): read instead of
    printing the module again; `table`, `_functions(mod)` if already read."""
    fns = {name for name, _, _ in (_functions(mod) if table is None else table)}
    refs = _references(str(mod) if text is None else text)
    seen: set[str] = set()
    stack = [r for r in roots if r in fns]
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        stack.extend(n for n in refs.get(name, ()) if n in fns and n not in seen)
    return seen


def _reachable_declarations(mod: llvm.ModuleRef, roots: list[str], text: str | None = None,
                            table: list[tuple[str, bool, llvm.ValueRef]] | None = None) -> set[str]:
    """Declared functions that the functions `roots` may call (`text` and `table` as for `_reachable`)."""
    table = _functions(mod) if table is None else table
    decl = {name for name, is_decl, _ in table if is_decl}
    return _reachable(mod, roots, text, table) & decl


def _declared(mod: llvm.ModuleRef, table: list[tuple[str, bool, llvm.ValueRef]] | None = None) -> dict[str, FnSig]:
    return {
        name: parse_fn_type(str(f.global_value_type))
        for name, is_decl, f in (_functions(mod) if table is None else table)
        if is_decl and not name.startswith("llvm.")
    }


_PROCESS: ctypes.CDLL | None = None


def _in_process(name: str) -> bool:
    """Can the JIT resolve `name` from the host process (libm's `sin`, ...)?

    LLVM searches the process's own symbols only once an execution engine
    has been made in it (the engine builder opens the process as a library),
    so `address_of_symbol` alone says no in a fresh worker and yes after its
    first build: the same kernel got `vectorizer-error: undefined function
    sin` or a verdict depending on the worker's history. The process's
    global symbols are asked directly, as the engine's resolver will."""
    global _PROCESS
    if llvm.address_of_symbol(name):
        return True
    if _PROCESS is None:
        _PROCESS = ctypes.CDLL(None)
    try:
        getattr(_PROCESS, name)
    except AttributeError:
        return False
    return True


# (name, signature) -> whether the runtime defines that builtin, or the
# message of the Unsupported it raises: the same few builtins come back in
# every kernel of a campaign, and making a definition (the builtin library's
# in particular) only to see that there is one cost a millisecond each.
_DEFINES: dict[tuple[str, FnSig], bool | str] = {}


def _runtime_defines(name: str, sig: FnSig) -> bool:
    """Whether `runtime.builtin_definition` gives `name` a definition (it
    depends on nothing but the name and the signature); raises its
    Unsupported."""
    got = _DEFINES.get((name, sig))
    if got is None:
        try:
            got = runtime.builtin_definition(name, sig, runtime._Emitter()) is not None
        except Unsupported as exc:
            got = str(exc)
        if len(_DEFINES) > 4096:
            _DEFINES.clear()
        _DEFINES[(name, sig)] = got
    if isinstance(got, str):
        raise Unsupported(got)
    return got


def _check_symbols(names: dict[str, FnSig]) -> None:
    """Raise Unsupported for declared functions neither the runtime nor the
    host process can provide."""
    for name, sig in names.items():
        if name.startswith("__oracle_san_"):
            continue  # the sanitizer's library (published before the engine is made)
        if not _runtime_defines(name, sig) and not _in_process(name):
            raise Unsupported(f"undefined function {name}")


def build(kernel: str, text: str, variants: list[Variant], opt: int = 2) -> Program:
    """Compile `kernel` from `text` with `variants` into one native program.

    Raises `Unsupported` when the scalar module uses something the runtime
    cannot provide and `BuildError` for IR that LLVM rejects. A variant that
    fails to parse, verify or link is left out and recorded in
    `Program.errors` (as vectorizer-error, or unsupported-input when it calls
    a builtin the runtime lacks)."""
    t0 = time.perf_counter()
    initialize()
    tm = target_machine(opt)
    ctx = new_context()
    sanitize = any(v.key == SANITIZED for v in variants)
    variants = [v for v in variants if v.key != SANITIZED]
    try:
        main, main_text = _parse_text(text, ctx, tm)
    except RuntimeError as exc:
        raise BuildError(str(exc).strip().splitlines()[0] if str(exc).strip() else "bad IR") from None
    kfn = main.get_function(kernel)  # raises NameError when absent
    if kfn.is_declaration:
        raise BuildError(f"kernel {kernel} is only declared")
    ksig = parse_fn_type(str(kfn.global_value_type))
    # Drivers call kernels from several loops; inlining them there multiplies
    # the code the optimiser and code generator chew on, for little gain.
    _noinline(kfn)
    workgroup.share_local_memory(main)
    for p in ksig.params:
        if not re.fullmatch(r"(i\d+|half|float|double|ptr( addrspace\(\d+\))?|<\d+ x [\w ()]+>)", p):
            raise Unsupported(f"kernel parameter of type {p}")
    table = _functions(main)
    scalar_decls = _declared(main, table)
    used = _reachable_declarations(main, [kernel], main_text, table)
    _check_symbols({n: s for n, s in scalar_decls.items() if n in used})
    errors: dict[str, tuple[str, str]] = {}
    info: Instrumented | None = None
    if sanitize:
        # The sanitized copy lives in the same module as the kernel (it shares
        # the kernel's globals); the vectorized variants never call it.
        try:
            info = instrument(str(main), kernel)
            main = _parse(info.text, ctx, tm)
            kfn = main.get_function(kernel)
            _noinline(main.get_function(info.entry))
        except Exception as exc:  # our IR could not read or rewrite it: run unsanitized
            info = None
            main = _parse(text, ctx, tm)
            kfn = main.get_function(kernel)
            _noinline(kfn)
            detail = " ".join(str(exc).split())[:300]
            errors[SANITIZED] = ("unsupported-input", f"the sanitizer cannot instrument this kernel: "
                                 f"{type(exc).__name__}: {detail}")
    shapes: list[tuple[str, str, int, int, bool]] = []
    keys: dict[str, str] = {}
    for i, v in enumerate(variants):
        try:
            vm, vm_text = _parse_text(v.text, ctx, tm)
        except RuntimeError as exc:
            errors[v.key] = ("vectorizer-error", "invalid vectorizer output: " + " ".join(str(exc).split())[:300])
            continue
        try:
            vf = vm.get_function(v.function)
        except NameError:
            errors[v.key] = ("vectorizer-error", f"vectorized function {v.function} not in output")
            continue
        new: dict[str, FnSig] = {}
        # Only a declaration the scalar module lacks needs checking: read
        # the module's functions (one foreign call each) only when its text
        # has one.
        decls = _text_declarations(vm_text)
        if decls is None or any(n not in scalar_decls and not n.startswith("llvm.") for n in decls):
            vtable = _functions(vm)
            vused = _reachable_declarations(vm, [v.function], vm_text, vtable)
            new = {n: s for n, s in _declared(vm, vtable).items() if n not in scalar_decls and n in vused}
        try:
            _check_symbols(new)
        except Unsupported as exc:
            status = "unsupported-input" if any(runtime.base_name(n) for n in new) else "vectorizer-error"
            errors[v.key] = (status, str(exc))
            continue
        if parse_fn_type(str(vf.global_value_type)) != ksig:
            errors[v.key] = ("vectorizer-error", f"{v.function} has signature {vf.global_value_type}, kernel has {kfn.global_value_type}")
            continue
        for f in _definitions(vm, vm_text):
            if f.name != v.function and f.linkage == llvm.Linkage.external:
                f.linkage = llvm.Linkage.linkonce_odr
        for g in vm.global_variables:
            # __local globals too: packets and scalar remainders share them.
            if not g.is_declaration and (g.linkage == llvm.Linkage.external or workgroup.is_local_memory(g)):
                g.linkage = llvm.Linkage.linkonce_odr
        # Several configurations may produce the same name (__vecz_v8_foo).
        vname = f"__oracle_v{i}_{v.function}"
        vf.name = vname
        _noinline(vf)
        try:
            main.link_in(vm)
        except RuntimeError as exc:
            errors[v.key] = ("vectorizer-error", "link failed: " + " ".join(str(exc).split())[:300])
            continue
        keys[v.key] = f"__oracle_run_v{i}"
        shapes.append((keys[v.key], vname, v.width, v.dim, v.predicated))
    if info is not None:
        # The run-time library is compiled once per process, optimised, and
        # published as symbols the engine resolves the checks' calls to.
        library()
    roots = [kernel, *(name for _, name, _, _, _ in shapes), *([info.entry, GLOBALS_FN] if info else [])]
    _drop_unreachable(main, tm, roots)
    declared = _declared(main)
    rt_text, _ = runtime.runtime_module(declared, kernel, ksig, shapes, workgroup.local_globals(main, tm.target_data),
                                        sanitized=info.entry if info else None, shared_drivers=opt == 0)
    # External globals (Vecz's lit tests model local memory so) get a zeroed
    # definition: reading them must not fault.
    for g in main.global_variables:
        if (g.is_declaration and not g.name.startswith(("llvm.", "__oracle_"))
                and not llvm.address_of_symbol(g.name)):
            m = re.search(r"addrspace\((\d+)\)", str(g.type))
            space = f" addrspace({m.group(1)})" if m else ""
            rt_text += f"\n@{_quote(g.name)} ={space} global {g.global_value_type} zeroinitializer, align 64\n"
    rt = parse_in(ctx, rt_text)
    rt.triple = main.triple
    rt.data_layout = main.data_layout
    main.link_in(rt)
    main.verify()
    if opt > 0:
        pto = llvm.create_pipeline_tuning_options(speed_level=opt)
        pb = llvm.create_pass_builder(tm, pto)
        pb.getModulePassManager().run(main, pb)
    engine = adopt_engine(ctx, llvm.create_mcjit_compiler(main, tm))
    engine.finalize_object()
    drivers = {
        "": engine.get_function_address("__oracle_run_scalar"),
        REVERSED: engine.get_function_address("__oracle_run_scalar_reversed"),
    }
    for key, dname in keys.items():
        drivers[key] = engine.get_function_address(dname)
    san = None
    if info is not None:
        drivers[SANITIZED] = engine.get_function_address(runtime.SANITIZED_DRIVER)
        hooks = tuple(engine.get_global_value_address(f"__oracle_san_{h}")
                      for h in ("item", "epoch", "group_epoch", "stack_hi"))
        san = Sanitizer(info, engine.get_function_address(GLOBALS_FN), hooks,  # type: ignore[arg-type]
                        engine.get_global_value_address(BOUNDS), engine.get_global_value_address(RUN_EPOCH))
    return Program(engine, drivers, errors, time.perf_counter() - t0, san)
