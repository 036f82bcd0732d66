"""Kernel extraction: vectorize each kernel of a large module on a small one.

Vectorizing one kernel parses, prints and hands to LLVM the module it sits
in, several times. Done on the whole module for each of N kernels, that is
N times the module's size: quadratic (100 kernels took seconds per kernel).
Instead, each request runs on a module holding only

- its kernel and every definition it reaches (helpers it calls, globals it
  reads, transitively), every function that is not a kernel, every
  declaration, type and attribute group, and the kernels the request could
  collide with (`__vecz_v<W>_<kernel>`);
- the metadata those reach, and the named metadata that does not name a
  kernel left out;

and what the vectorization added (the new kernel, new declarations,
globals and types) is spliced back into the whole module, in the order it
was created, with its attribute groups matched by content and its metadata
renumbered (LLVM merges identical metadata when the result is re-read).

The splice is exact only for modules LLVM prints in the regular layout
this reads; anything else (distinct metadata such as debug info, comdats,
aliases, module asm, use-list orders), a request whose vectorization edited
an entity it did not create, or a new name that exists in the parts left
out, is done on the whole module instead, as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from .. import llvm_bridge

_NAME = r'@("(?:[^"\\]|\\.)*"|[-\w$.]+)'
_GLOBAL_REF = re.compile(_NAME)
_FUNC_NAME = re.compile(_NAME + r"\(")
_ATTR_REF = re.compile(r"#(\d+)\b")
_MD_REF = re.compile(r"!(\d+)\b")
# A reference outside string constants (LLVM prints `"` inside them as \22).
_ATTR_OR_STRING = re.compile(r'"[^"]*"|#(\d+)\b')
_MD_OR_STRING = re.compile(r'"[^"]*"|!(\d+)\b')


def _sub_refs(pattern: re.Pattern, text: str, new: Callable[[str], str]) -> str:
    """`text` with each reference (group 1) replaced by `new(reference)`."""
    return pattern.sub(lambda m: m.group(0) if m.group(1) is None else new(m.group(1)), text)
_KERNEL_DEFINE = re.compile(r"^define [^\n]* spir_kernel ", re.M)  # as `Entity.is_kernel` reads it
_UNUSUAL = re.compile(r"^(\$|module asm|uselistorder)|= (?:\w+ )*(alias|ifunc) |distinct !", re.M)


class Irregular(Exception):
    """The text is not in the layout the splice reads: use the whole module."""


@dataclass
class Entity:
    """A top-level item: its name (None for attribute groups and metadata) and text."""

    name: str
    text: str
    kind: str  # "type", "global", "define", "declare"

    @property
    def is_kernel(self) -> bool:
        return self.kind == "define" and " spir_kernel " in self.text.split("\n", 1)[0]


@dataclass
class ModuleParts:
    """A canonical module's text cut into its top-level items."""

    header: list[str] = field(default_factory=list)
    types: dict[str, Entity] = field(default_factory=dict)
    globals: dict[str, Entity] = field(default_factory=dict)
    functions: dict[str, Entity] = field(default_factory=dict)
    attributes: dict[str, str] = field(default_factory=dict)  # "#N" -> content
    named_md: list[str] = field(default_factory=list)
    md: dict[str, str] = field(default_factory=dict)  # "!N" -> line

    @classmethod
    def parse(cls, text: str) -> ModuleParts:
        if _UNUSUAL.search(text):
            raise Irregular("layout")
        parts = cls()
        lines = text.split("\n")
        i = 0
        while i < len(lines):
            line = lines[i]
            i += 1
            if not line or line.startswith(";"):
                continue
            if line.startswith("define "):
                body = [line]
                while i < len(lines) and lines[i] != "}":
                    body.append(lines[i])
                    i += 1
                body.append("}")
                i += 1
                parts._add_function(Entity(_function_name(line), "\n".join(body), "define"))
            elif line.startswith("declare "):
                parts._add_function(Entity(_function_name(line), line, "declare"))
            elif line.startswith("attributes #"):
                key, _, content = line[len("attributes "):].partition(" = ")
                parts.attributes[key] = content
            elif line.startswith("%"):
                parts.types[line.split(" = ", 1)[0]] = Entity(line.split(" = ", 1)[0], line, "type")
            elif line.startswith("@"):
                m = _GLOBAL_REF.match(line)
                parts.globals[m.group(1)] = Entity(m.group(1), line, "global")
            elif re.match(r"^!\d+ = ", line):
                parts.md[line.split(" = ", 1)[0]] = line
            elif line.startswith("!"):
                parts.named_md.append(line)
            elif line.startswith(("source_filename", "target ")):
                parts.header.append(line)
            else:
                raise Irregular(line[:40])
        return parts

    def _add_function(self, e: Entity) -> None:
        if e.name in self.functions:
            raise Irregular(f"two functions named {e.name}")
        self.functions[e.name] = e

    def render(self, functions: list[Entity] | None = None, globals_: list[Entity] | None = None,
               named_md: list[str] | None = None, md: list[str] | None = None) -> str:
        """The module's text (or a sub-module's, given its parts)."""
        out = list(self.header) + [""]
        out += [t.text for t in self.types.values()]
        out += [g.text for g in (self.globals.values() if globals_ is None else globals_)]
        out.append("")
        out += [f.text + "\n" for f in (self.functions.values() if functions is None else functions)]
        out += [f"attributes {k} = {v}" for k, v in self.attributes.items()]
        out.append("")
        out += self.named_md if named_md is None else named_md
        out += list(self.md.values()) if md is None else md
        return "\n".join(out) + "\n"

    def md_closure(self, texts: list[str]) -> list[str]:
        """The metadata nodes `texts` reach, in the module's order."""
        seen: set[str] = set()
        work = [f"!{n}" for t in texts for n in _MD_REF.findall(t)]
        while work:
            key = work.pop()
            if key in seen or key not in self.md:
                continue
            seen.add(key)
            work.extend(f"!{n}" for n in _MD_REF.findall(self.md[key].split(" = ", 1)[1]))
        return [line for key, line in self.md.items() if key in seen]


def _function_name(line: str) -> str:
    m = _FUNC_NAME.search(line)
    if not m:
        raise Irregular(line[:40])
    return m.group(1)


def _refs(text: str) -> set[str]:
    return set(_GLOBAL_REF.findall(text))


def _reach(parts: ModuleParts, work: list[str], keep: set[str]) -> None:
    """Add to `keep` every function and global the names in `work` refer to,
    transitively."""
    while work:
        name = work.pop()
        if name in keep:
            continue
        keep.add(name)
        e = parts.functions.get(name) or parts.globals.get(name)
        if e is not None:
            work.extend(_refs(e.text) - keep)


def sub_module(parts: ModuleParts, kernel: str) -> tuple[str, set[str]]:
    """The text of a module holding what vectorizing `kernel` needs, and the
    names of the functions and globals left out."""
    if kernel not in parts.functions:
        raise Irregular("no such kernel")
    collide = re.compile(rf"^__vecz_v\d+_{re.escape(kernel)}$")
    keep: set[str] = set()
    work = [kernel]
    _reach(parts, work, keep)
    for name, f in parts.functions.items():
        if not f.is_kernel or collide.match(name):
            keep.add(name)
            work.extend(_refs(f.text))
    _reach(parts, work, keep)  # what the kept non-kernels reach
    functions = [f for n, f in parts.functions.items() if n in keep]
    globals_ = [g for n, g in parts.globals.items() if n in keep or n.startswith("__vecz")]
    dropped = {n for n in parts.functions if n not in keep} | {n for n in parts.globals if n not in keep}
    texts = [e.text for e in functions + globals_]
    named: list[str] = []
    for line in parts.named_md:
        reach = parts.md_closure([line])
        if any(_refs(x) & dropped for x in reach):
            continue  # it names a kernel left out (`!opencl.kernels`)
        named.append(line)
    md = parts.md_closure(texts + named)
    return parts.render(functions, globals_, named, md), dropped


def splice(parts: ModuleParts, before: ModuleParts, after: ModuleParts, dropped: set[str]) -> None:
    """Add to `parts` what `after` (the sub-module vectorized) has that
    `before` (the sub-module) had not; raise Irregular when that is not a
    pure addition."""
    def resolved(e: Entity, side: ModuleParts) -> str:
        text = _sub_refs(_ATTR_OR_STRING, e.text, lambda n: side.attributes.get(f"#{n}", "?"))
        return _sub_refs(_MD_OR_STRING, text, lambda n: "!?")

    for table in ("types", "globals", "functions"):
        old, new = getattr(before, table), getattr(after, table)
        for name, e in old.items():
            if name not in new or resolved(new[name], after) != resolved(e, before):
                raise Irregular(f"{name} was edited")
        for name in new:
            if name not in old and (name in dropped or name in getattr(parts, table)):
                raise Irregular(f"{name} exists in the parts left out")
    by_content = {v: k for k, v in parts.attributes.items()}
    next_attr = max((int(k[1:]) for k in parts.attributes), default=-1) + 1
    next_md = max((int(k[1:]) for k in parts.md), default=-1) + 1
    added = [e for table in ("types", "globals", "functions")
             for n, e in getattr(after, table).items() if n not in getattr(before, table)]
    attr_map: dict[str, str] = {}
    for e in added:
        for n in _ATTR_REF.findall(e.text):
            key = f"#{n}"
            content = after.attributes.get(key)
            if content is None or key in attr_map:
                continue
            if content not in by_content:
                by_content[content] = f"#{next_attr}"
                parts.attributes[f"#{next_attr}"] = content
                next_attr += 1
            attr_map[key] = by_content[content]
    md_nodes = after.md_closure([e.text for e in added])
    md_map = {line.split(" = ", 1)[0]: f"!{next_md + i}" for i, line in enumerate(md_nodes)}

    def renumber(text: str) -> str:
        text = _sub_refs(_ATTR_OR_STRING, text, lambda n: attr_map.get(f"#{n}", f"#{n}"))
        return _sub_refs(_MD_OR_STRING, text, lambda n: md_map.get(f"!{n}", f"!{n}"))

    for line in md_nodes:
        key, _, body = line.partition(" = ")
        parts.md[md_map[key]] = f"{md_map[key]} = {renumber(body)}"
    for e in added:
        table = {"type": parts.types, "global": parts.globals}.get(e.kind, parts.functions)
        table[e.name] = Entity(e.name, renumber(e.text), e.kind)


def vectorize_split(
    text: str, requests: list, run_one: Callable[[str, object], tuple[str, object]]
) -> tuple[str, list]:
    """Perform `requests` on the canonical module `text`, each on a module
    holding only what it needs (`run_one(sub_text, request)` vectorizes one);
    requests the splice cannot take run on the whole module. Returns the
    final (canonical) text and the outcomes."""
    parts = None
    # One kernel: its module is as small as it gets (counted without cutting
    # the module up: the oracle's requests are all of this kind).
    if len(_KERNEL_DEFINE.findall(text, 0)) >= 2:
        try:
            parts = ModuleParts.parse(text)
        except Irregular:
            parts = None
    if parts is not None and sum(f.is_kernel for f in parts.functions.values()) < 2:
        parts = None
    outcomes = []
    current = text  # the whole module, when the parts are not kept up to date
    spliced = False
    for req in requests:
        if parts is not None:
            try:
                sub, dropped = sub_module(parts, req.kernel)
                sub = llvm_bridge.canonicalize(sub)
                before = ModuleParts.parse(sub)
            except (Irregular, llvm_bridge.IRError):
                sub = None
            if sub is not None:
                result, outcome = run_one(sub, req)
                if result is sub:
                    outcomes.append(outcome)  # refused: nothing to add
                    continue
                try:
                    after = ModuleParts.parse(result)
                    splice(parts, before, after, dropped)  # checks everything before it edits
                except Irregular:
                    pass  # fall back to the whole module for this request
                else:
                    spliced = True
                    outcomes.append(outcome)
                    continue
            if spliced:
                current = llvm_bridge.canonicalize(parts.render())
            parts = None
            spliced = False
        current, outcome = run_one(current, req)
        outcomes.append(outcome)
        if len(outcomes) == len(requests):
            break  # no request left to split for
        try:
            parts = ModuleParts.parse(current)
        except Irregular:
            parts = None
    if parts is not None and spliced:
        current = llvm_bridge.canonicalize(parts.render())
    return current, outcomes
