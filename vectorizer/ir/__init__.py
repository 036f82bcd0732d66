"""The vectorizer's own mutable SSA IR (see docs/ir.md).

llvmlite can parse, verify and optimise LLVM IR but not edit it, so the
vectorizer parses LLVM's canonical text into this IR, edits it, and prints it
back for LLVM.
"""

from . import types, values  # noqa: I001  (values before module: import cycle)
from . import instructions, module
from .builder import Builder
from .cloning import clone_function
from .instructions import *  # noqa: F403
from .module import Argument, BasicBlock, Function, GlobalAlias, GlobalValue, GlobalVariable, Module
from .parser import ParseError, parse_module
from .printer import print_function, print_instruction, print_module
from .types import *  # noqa: F403
from .values import *  # noqa: F403

__all__ = [
    "types",
    "values",
    "instructions",
    "module",
    "Builder",
    "clone_function",
    "Argument",
    "BasicBlock",
    "Function",
    "GlobalAlias",
    "GlobalValue",
    "GlobalVariable",
    "Module",
    "ParseError",
    "parse_module",
    "print_function",
    "print_instruction",
    "print_module",
    *instructions.__all__,
    *types.__all__,
    *[n for n in values.__all__ if n not in {"Argument", "BasicBlock", "Function", "GlobalAlias", "GlobalValue", "GlobalVariable", "Module"}],
]
