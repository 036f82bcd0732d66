"""Scalar equivalence for control-flow conversion: run the converted scalar
function (W=1 semantics of the masked builtins) against the original kernel
through the oracle's scalar runner, comparing every output buffer."""

from __future__ import annotations

import numpy as np

from oracle.case import parse_case
from oracle.check import run_scalar
from vectorizer import llvm_bridge
from vectorizer.analysis.uniformity import UniformValueAnalysis
from vectorizer.ir import parse_module, print_module
from vectorizer.ir.cloning import clone_function
from vectorizer.pipeline import PREPARATION
from vectorizer.transform.builtin_inlining import inline_calls
from vectorizer.transform.control_flow_conversion import ConversionOutcome, convert_control_flow

CONVERTED = "__cfc_converted"


def convert(text: str, kernel: str, dim: int = 0, **kw) -> tuple[str, ConversionOutcome]:
    """The module with `CONVERTED`, the prepared and converted clone of `kernel`."""
    text = llvm_bridge.canonicalize(text)
    module = parse_module(text)
    clone, _ = clone_function(module.get_function(kernel), CONVERTED)
    inline_calls(clone, module)
    prepared = llvm_bridge.run_function_passes(print_module(module), CONVERTED, PREPARATION)
    module = parse_module(prepared)
    fn = module.get_function(CONVERTED)
    out = convert_control_flow(module, fn, UniformValueAnalysis(fn, dim), dim, **kw)
    return (out.text if out.text is not None else print_module(module)), out


def check_equivalent(case_text: str, **kw) -> ConversionOutcome:
    """Assert the converted kernel computes what the original does, at every NDRange of the case."""
    case = parse_case(case_text)
    kernel = case.kernel
    converted, out = convert(case.ir, kernel, **kw)
    assert out.refusal is None, out.refusal
    for nd in case.ndranges:
        want = run_scalar(case.ir, nd, kernel=kernel, layout=case.args, seed=case.seed)
        got = run_scalar(converted, nd, kernel=CONVERTED, layout=case.args, seed=case.seed)
        for i, (w, g) in enumerate(zip(want, got, strict=True)):
            if w is not None:
                assert np.array_equal(w.view(np.uint8), g.view(np.uint8)), f"argument {i} differs at {nd}"
    return out
