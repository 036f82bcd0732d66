"""`llvm.fmuladd` may be fused or not, as the backend likes. With both
multiplicands constant, the vectorizer's LLVM clean-up folds the product
(unfused) where the reference, compiled at -O0, fuses it: the two results
differ in the last bit and both are allowed. The generator makes such a
call an `fma` (always fused), so its kernels have one result (a 10-minute
campaign's seed 21022, `loops` profile: a 1-ulp "mismatch" at every width)."""

from __future__ import annotations

import oracle
from fuzz.choice_source import RandomSource
from fuzz.generator import plan_kernel
from fuzz.knobs import make_knobs
from fuzz.plan import Const, Expr, Math, walk_expr, walk_stmts


def _folds(e: Expr) -> bool:
    return isinstance(e, Const) or (bool(e.children()) and all(_folds(k) for k in e.children()))


def test_no_fmuladd_with_constant_multiplicands() -> None:
    fmuladds = 0
    # At least 300 kernels, more until ten fmuladds are seen: how often the
    # planner draws one moves whenever it learns a new shape.
    for s in range(3000):
        if s >= 300 and fmuladds >= 10:
            break
        plan = plan_kernel(RandomSource(s), make_knobs(profile=("loops", "default", "calls")[s % 3]))
        for body in [plan.body, *(h.body for h in plan.helpers)]:
            for st, _depth in walk_stmts(body):
                for e in st.exprs():
                    for x in walk_expr(e):
                        if isinstance(x, Math) and x.fn == "fmuladd":
                            fmuladds += 1
                            assert not (_folds(x.args[0]) and _folds(x.args[1])), (s, x)
    assert fmuladds >= 10, "too few fmuladd calls to check"


FOLDED = """
declare i64 @_Z13get_global_idj(i32)
declare double @llvm.fmuladd.f64(double, double, double)
define spir_kernel void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %id = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr double, ptr addrspace(1) %in, i64 %id
  %x = load double, ptr addrspace(1) %p
  %a = call double @llvm.fmuladd.f64(double 1.000000e-01, double 0xC075C38000000000, double %x)
  %q = getelementptr double, ptr addrspace(1) %out, i64 %id
  store double %a, ptr addrspace(1) %q
  ret void
}
"""


def test_the_same_kernel_with_fma_matches() -> None:
    text = FOLDED.replace("llvm.fmuladd.f64", "llvm.fma.f64")
    report = oracle.check(text, kernel="k", widths=[1, 4], ndranges=["global=32 local=16"],
                          layout=["buf:f64:32:random", "buf:f64:32:zero"], timeout=30)
    assert report.results and {r.status for r in report.results} == {"match"}, report.results
