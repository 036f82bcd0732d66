"""Internal masked builtins: naming, creation and recognition.

Control-flow conversion is scalar-to-scalar: after it, every side effect of
a block whose mask may be partial is a call to one of these internal
functions, with the block mask as an explicit `i1` operand. Each is a real
internal definition in the module, so the scalar IR stays runnable and its
W=1 meaning is exact; the packetizer recognises them by name
(`classify_masked_call`) and widens or instantiates them.

- `__vecz_b_masked_load<A>_<T>_p<AS>(ptr addrspace(AS) p, i1 m) -> T`:
  if `m`, load `T` from `p` with alignment `A`, else poison.
- `__vecz_b_masked_store<A>_<T>_p<AS>(T v, ptr addrspace(AS) p, i1 m)`:
  if `m`, store.
- `__vecz_b_masked_<what>(operands..., i1 m)`: any other side effect (calls,
  atomics, volatile accesses) done only when `m`; the result under a false
  mask is zero (never read by an active lane).
- `__vecz_b_divergence_any(i1) -> i1` / `__vecz_b_divergence_all(i1) -> i1`:
  "some / all active lanes"; uniform results; the identity at one lane.

The type suffix `<T>` is LLVM's overloaded-intrinsic spelling (`i32`, `f32`,
`v4f32`, `p1`).
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass, field

from ..ir import instructions as I
from ..ir import types as T
from ..ir import values as V
from ..ir.builder import Builder

PREFIX = "__vecz_b_"
LOAD_PREFIX = PREFIX + "masked_load"
STORE_PREFIX = PREFIX + "masked_store"
WRAPPER_PREFIX = PREFIX + "masked_"
ANY_NAME = PREFIX + "divergence_any"
ALL_NAME = PREFIX + "divergence_all"

_LOAD_RE = re.compile(r"^__vecz_b_masked_load(\d+)_([A-Za-z0-9]+)_p(\d+)$")
_STORE_RE = re.compile(r"^__vecz_b_masked_store(\d+)_([A-Za-z0-9]+)_p(\d+)$")


class MaskedBuiltinError(ValueError):
    """The operation has no masked builtin form (the caller refuses with the message)."""


def type_suffix(ty: T.Type) -> str:
    """LLVM's overloaded-intrinsic type suffix: `i32`, `f32`, `v4f32`, `p1`."""
    if isinstance(ty, T.VectorType) and not ty.scalable:
        return f"v{ty.count}{type_suffix(ty.element)}"
    if isinstance(ty, T.PointerType):
        return f"p{ty.addrspace}"
    if isinstance(ty, T.IntType):
        return f"i{ty.bits}"
    if isinstance(ty, T.FloatType):
        names = {"half": "f16", "bfloat": "bf16", "float": "f32", "double": "f64", "fp128": "f128"}
        if ty.kind in names:
            return names[ty.kind]
    raise MaskedBuiltinError(f"no masked memory builtin for type {ty}")


def _mangle_any(ty: T.Type) -> str:
    """A name-safe spelling of any type (for wrapper names)."""
    try:
        return type_suffix(ty)
    except MaskedBuiltinError:
        return "t" + hashlib.sha1(str(ty).encode()).hexdigest()[:8]


def _new_internal(module: V.Module, name: str, fty: T.FunctionType, arg_names: list[str]) -> V.Function:
    fn = module.add_function(name, fty)
    fn.linkage = "internal"
    for a, n in zip(fn.args, arg_names, strict=True):
        a.name = n
    return fn


def _guarded_body(fn: V.Function, mask: V.Value, emit) -> None:
    """`entry: br m, do, done; do: r = emit(b); br done; done: ret phi(r, zero)`."""
    entry = fn.add_block("entry")
    do = fn.add_block("do")
    done = fn.add_block("done")
    b = Builder(entry)
    b.cond_br(mask, do, done)
    b.position_at_end(do)
    result = emit(b)
    b.br(done)
    b.position_at_end(done)
    rty = fn.return_type
    if isinstance(rty, T.VoidType):
        b.ret()
        return
    phi = b.phi(rty, name="r")
    phi.add_incoming(result, do)
    phi.add_incoming(_off_value(rty), entry)
    b.ret(phi)


def _off_value(ty: T.Type) -> V.Value:
    return V.ConstantAggregateZero(ty) if not isinstance(ty, T.IntType) else V.ConstantInt(ty, 0)


def masked_load_name(ty: T.Type, align: int, addrspace: int) -> str:
    """`__vecz_b_masked_load<A>_<T>_p<AS>`."""
    return f"{LOAD_PREFIX}{align}_{type_suffix(ty)}_p{addrspace}"


def masked_store_name(ty: T.Type, align: int, addrspace: int) -> str:
    """`__vecz_b_masked_store<A>_<T>_p<AS>`."""
    return f"{STORE_PREFIX}{align}_{type_suffix(ty)}_p{addrspace}"


def masked_load_fn(module: V.Module, ty: T.Type, align: int, addrspace: int = 0) -> V.Function:
    """The internal `T masked_load(ptr addrspace(AS) p, i1 m)`: loads only when `m`,
    else returns poison. Created on first use."""
    name = masked_load_name(ty, align, addrspace)
    fn = module.get_function(name)
    if fn is not None:
        return fn
    pty = T.PointerType(addrspace)
    fn = _new_internal(module, name, T.FunctionType(ty, (pty, T.i1)), ["p", "m"])
    # Only reads through its pointer: a call nobody uses can be deleted, so
    # the scalar lane-0 copy the packetizer leaves behind goes away.
    fn.attributes = "nounwind willreturn memory(argmem: read)"
    entry = fn.add_block("entry")
    do = fn.add_block("do")
    done = fn.add_block("done")
    b = Builder(entry)
    b.cond_br(fn.args[1], do, done)
    b.position_at_end(do)
    v = b.load(ty, fn.args[0], align=align, name="v")
    b.br(done)
    b.position_at_end(done)
    phi = b.phi(ty, name="r")
    phi.add_incoming(v, do)
    phi.add_incoming(V.PoisonValue(ty), entry)
    b.ret(phi)
    return fn


def masked_store_fn(module: V.Module, ty: T.Type, align: int, addrspace: int = 0) -> V.Function:
    """The internal `void masked_store(T v, ptr addrspace(AS) p, i1 m)`: stores only when `m`."""
    name = masked_store_name(ty, align, addrspace)
    fn = module.get_function(name)
    if fn is not None:
        return fn
    pty = T.PointerType(addrspace)
    fn = _new_internal(module, name, T.FunctionType(T.VoidType(), (ty, pty, T.i1)), ["v", "p", "m"])
    _guarded_body(fn, fn.args[2], lambda b: b.store(fn.args[0], fn.args[1], align=align))
    return fn


def _identity_fn(module: V.Module, name: str) -> V.Function:
    fn = module.get_function(name)
    if fn is not None:
        return fn
    fn = _new_internal(module, name, T.FunctionType(T.i1, (T.i1,)), ["m"])
    b = Builder(fn.add_block("entry"))
    b.ret(fn.args[0])
    return fn


def divergence_any_fn(module: V.Module) -> V.Function:
    """`i1 __vecz_b_divergence_any(i1)`: true if the operand is true in some lane."""
    return _identity_fn(module, ANY_NAME)


def divergence_all_fn(module: V.Module) -> V.Function:
    """`i1 __vecz_b_divergence_all(i1)`: true if the operand is true in every lane."""
    return _identity_fn(module, ALL_NAME)


def _wrapper_name(inst: I.Instruction) -> str:
    if isinstance(inst, I.CallInst):
        fn = inst.called_function
        if fn is None or not fn.name:
            raise MaskedBuiltinError("cannot mask an indirect call")
        sig = "".join(_mangle_any(a.type) for a in inst.args)
        base = re.sub(r"[^A-Za-z0-9_.$]", "_", fn.name)
        extra = ""
        baked = _baked(inst)
        if inst.calling_conv or inst.attributes or any(inst.arg_attributes) or inst.return_attributes or baked:
            key = f"{inst.calling_conv}|{inst.attributes}|{inst.arg_attributes}|{inst.return_attributes}"
            key += "|" + ";".join(f"{i}={inst.args[i]}" for i in baked)
            extra = "_" + hashlib.sha1(key.encode()).hexdigest()[:6]
        return f"{WRAPPER_PREFIX}{base}_{sig}{extra}"
    if isinstance(inst, I.AtomicRMWInst):
        return (
            f"{WRAPPER_PREFIX}atomicrmw_{inst.operation}_{inst.ordering}_{inst.syncscope or 'system'}"
            f"{'_volatile' if inst.volatile else ''}_a{inst.align or 0}_{_mangle_any(inst.type)}"
            f"_p{_addrspace(inst.pointer)}"
        )
    if isinstance(inst, I.AtomicCmpXchgInst):
        return (
            f"{WRAPPER_PREFIX}cmpxchg_{inst.success_ordering}_{inst.failure_ordering}"
            f"_{inst.syncscope or 'system'}{'_weak' if inst.weak else ''}{'_volatile' if inst.volatile else ''}"
            f"_a{inst.align or 0}_{_mangle_any(inst.compare.type)}_p{_addrspace(inst.pointer)}"
        )
    if isinstance(inst, I.LoadInst):
        return (
            f"{WRAPPER_PREFIX}load_{'volatile_' if inst.volatile else ''}{inst.ordering or 'plain'}"
            f"_{inst.syncscope or 'system'}_a{inst.align or 0}_{_mangle_any(inst.type)}_p{_addrspace(inst.pointer)}"
        )
    if isinstance(inst, I.StoreInst):
        return (
            f"{WRAPPER_PREFIX}store_{'volatile_' if inst.volatile else ''}{inst.ordering or 'plain'}"
            f"_{inst.syncscope or 'system'}_a{inst.align or 0}_{_mangle_any(inst.value.type)}"
            f"_p{_addrspace(inst.pointer)}"
        )
    raise MaskedBuiltinError(f"no masked form for '{inst.opcode}'")


def _addrspace(p: V.Value) -> int:
    ty = p.type
    return ty.addrspace if isinstance(ty, T.PointerType) else 0


def _baked(inst: I.Instruction) -> list[int]:
    """Argument positions kept as constants inside the wrapper rather than
    passed in: an intrinsic's constant arguments, some of which LLVM requires
    to be immediates (`immarg`, like memset's volatile flag)."""
    if not isinstance(inst, I.CallInst):
        return []
    fn = inst.called_function
    if fn is None or not fn.name.startswith("llvm."):
        return []
    return [i for i, a in enumerate(inst.args) if isinstance(a, V.Constant)]


def wrapped_operands(inst: I.Instruction) -> list[V.Value]:
    """The operands a masked wrapper of `inst` takes before the mask (call
    arguments for a call, less an intrinsic's constants; the instruction's
    operands otherwise)."""
    if isinstance(inst, I.CallInst):
        baked = set(_baked(inst))
        return [a for i, a in enumerate(inst.args) if i not in baked]
    return list(inst.operands)


def masked_wrapper_fn(module: V.Module, inst: I.Instruction) -> V.Function:
    """The internal `__vecz_b_masked_<what>(operands..., i1 m)` doing `inst`
    only when `m` (call the result with `wrapped_operands(inst) + [mask]`).

    Raises MaskedBuiltinError for what cannot be wrapped (indirect calls,
    calls with operand bundles, non-call terminators...)."""
    if isinstance(inst, I.CallInst) and inst.bundle_layout:
        raise MaskedBuiltinError("cannot mask a call with operand bundles")
    name = _wrapper_name(inst)
    fn = module.get_function(name)
    if fn is not None:
        return fn
    ops = wrapped_operands(inst)
    params = tuple(o.type for o in ops) + (T.i1,)
    rty = inst.type
    fn = _new_internal(module, name, T.FunctionType(rty, params), [f"a{i}" for i in range(len(ops))] + ["m"])
    fn_args = fn.args

    def emit(b: Builder) -> V.Value:
        new = inst.clone()
        new.metadata = []
        if isinstance(inst, I.CallInst):
            baked = set(_baked(inst))
            passed = [i for i in range(len(inst.args)) if i not in baked]
            for k, i in enumerate(passed):
                new.set_operand(i, fn_args[k])
        else:
            for i in range(len(ops)):
                new.set_operand(i, fn_args[i])
        b.insert(new, name=None if isinstance(rty, T.VoidType) else "x")
        return new

    _guarded_body(fn, fn_args[-1], emit)
    return fn


@dataclass(slots=True)  # built for every masked call every analysis asks about
class MaskedCall:
    """A call to one of the masked builtins, taken apart.

    kind: "load", "store", "any", "all" or "wrapper".
    For loads/stores `align`, `elem_type` (the loaded/stored type),
    `pointer`, `value` (stores) and `mask`; for any/all `mask` is the
    operand; for wrappers `args` are the wrapped operands and `mask` the last
    argument.
    """

    kind: str
    call: I.CallInst
    mask: V.Value
    align: int | None = None
    elem_type: T.Type | None = None
    pointer: V.Value | None = None
    value: V.Value | None = None
    args: list[V.Value] = field(default_factory=list)


@functools.lru_cache(maxsize=4096)
def _name_forms(name: str) -> tuple[bool, bool, int | None, int | None, bool]:
    """What a masked builtin's name says, whatever the call's operands:
    (any, all, load alignment, store alignment, wrapper prefix). A function
    of the name alone, asked for every call of every analysis: remembered."""
    load = _LOAD_RE.match(name)
    store = _STORE_RE.match(name)
    return (name == ANY_NAME, name == ALL_NAME, int(load.group(1)) if load else None,
            int(store.group(1)) if store else None, name.startswith(WRAPPER_PREFIX))


def classify_masked_call(call: V.Value) -> MaskedCall | None:
    """Recognise a call to a masked builtin; None for anything else."""
    if not isinstance(call, I.CallInst):
        return None
    fn = call.called_function
    if fn is None or not fn.name or not fn.name.startswith(PREFIX):
        return None
    is_any, is_all, load_align, store_align, wrapper = _name_forms(fn.name)
    args = call.args
    if is_any and len(args) == 1:
        return MaskedCall("any", call, args[0])
    if is_all and len(args) == 1:
        return MaskedCall("all", call, args[0])
    if load_align is not None and len(args) == 2:
        return MaskedCall("load", call, args[1], align=load_align, elem_type=call.type, pointer=args[0])
    if store_align is not None and len(args) == 3:
        return MaskedCall(
            "store", call, args[2], align=store_align, elem_type=args[0].type, pointer=args[1], value=args[0]
        )
    if wrapper and args and args[-1].type == T.i1:
        return MaskedCall("wrapper", call, args[-1], args=list(args[:-1]))
    return None


def is_masked_builtin_name(name: str | None) -> bool:
    """Is `name` one of this module's builtins?"""
    return bool(name) and name.startswith(PREFIX)  # type: ignore[union-attr]
