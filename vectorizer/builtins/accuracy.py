"""Measure the builtin library's math accuracy against correctly rounded references.

    python -m vectorizer.builtins.accuracy                    # 10^5 samples each
    python -m vectorizer.builtins.accuracy -n 2000 --only exp,log
    python -m vectorizer.builtins.accuracy --exhaustive       # + every half input
    python -m vectorizer.builtins.accuracy --exhaustive-float # every float input of the
                                                              # unary functions numpy covers
    python -m vectorizer.builtins.accuracy --markdown table.md

Prints each function's maximum error in ulps beside its OpenCL bound for
float, double and half; exit 1 if any bound or exact check fails, 2 on bad
usage. Needs gmpy2 (MPFR) for the references: a development dependency.
The integer, conversion and other exactly defined builtins are checked by
`python -m vectorizer.builtins.library.exact`.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def _fmt(v: float | None) -> str:
    if v is None:
        return "-"
    if v == float("inf"):
        return "inf"
    return f"{v:.3g}" if v else "0"


def run(names: list[str] | None, n: int, seed: int, exhaustive: bool, types: tuple[str, ...],
        progress: bool = True) -> list:
    from .library.measure import measure, names_for
    from .library.native import Batch
    from .library.reference import SPECS

    specs = [s for s in SPECS if names is None or s.name in names]
    wanted = []
    for i, s in enumerate(specs):
        for elem in types:
            if elem in s.types:
                wanted += list(names_for(s, elem, i))
    batch = Batch(sorted(set(wanted)))
    results = []
    rng = np.random.default_rng(seed)
    for i, s in enumerate(specs):
        for elem in types:
            if elem not in s.types:
                continue
            count = n
            if exhaustive and elem == "half" and s.args == "f":
                count = 1 << 16
            r = measure(s, elem, count if not (exhaustive and elem == "half" and s.args == "f") else count,
                        rng, batch, i)
            if exhaustive and elem == "half" and s.args == "f":
                r = _exhaustive_half(s, batch, i, r)
            results.append(r)
            if progress:
                flag = "ok" if r.ok else "FAIL"
                print(f"{s.name:>16} {elem:>6}: max {_fmt(r.max_ulp):>8} ulp (bound {_fmt(r.bound)}) "
                      f"n={r.samples} {flag}", file=sys.stderr)
                if not r.ok and r.worst:
                    print(f"      worst at {r.worst}", file=sys.stderr)
                for f in r.failures[:3]:
                    print("      " + f, file=sys.stderr)
    return results


def _exhaustive_half(spec, batch, index, sampled):
    """Every half input (2^16) of a unary function."""
    from .library.measure import Result
    from .library.reference import reference, ulp_error

    x = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    name = spec.mangled("half")
    got = batch.run(name, x)[0]
    r = Result(spec.name, "half", sampled.bound, samples=x.size, failures=list(sampled.failures))
    if spec.ref is None:
        return r
    refs = reference(spec, "half", [x])
    for i, (g, e) in enumerate(zip(got.tolist(), refs, strict=True)):
        u = ulp_error(float(g), e, "half")
        if u > r.max_ulp:
            r.max_ulp, r.worst = u, (float(x[i]), float(g), float(e))
    return r


# Float references in double precision (numpy over the C library: < 1 double ulp,
# i.e. within 2^-28 float ulp of the exact value, enough to measure float ulps).
def _np_refs() -> dict:
    def pi_reduce(x):
        n = np.rint(x * 2.0)
        return n, x - n * 0.5

    def sinpi(x):
        n, r = pi_reduce(x)
        q = np.mod(n, 4)
        s, c = np.sin(np.pi * r), np.cos(np.pi * r)
        v = np.select([q == 0, q == 1, q == 2], [s, c, -s], -c)
        return np.where((r == 0) & (np.mod(n, 2) == 0), np.copysign(0.0, x), v)

    def cospi(x):
        n, r = pi_reduce(x)
        q = np.mod(n, 4)
        s, c = np.sin(np.pi * r), np.cos(np.pi * r)
        return np.select([q == 0, q == 1, q == 2], [c, -s, -c], s) + 0.0

    return {
        "exp": np.exp, "exp2": np.exp2, "exp10": lambda x: np.power(10.0, x), "expm1": np.expm1,
        "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
        "sin": np.sin, "cos": np.cos, "tan": np.tan, "sinpi": sinpi, "cospi": cospi,
        "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
        "asinpi": lambda x: np.arcsin(x) / np.pi, "acospi": lambda x: np.arccos(x) / np.pi,
        "atanpi": lambda x: np.arctan(x) / np.pi,
        "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
        "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
        "cbrt": np.cbrt, "sqrt": np.sqrt, "rsqrt": lambda x: 1.0 / np.sqrt(x),
    }


def float_ulp_errors(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """|got - ref| in float ulps of ref (a double); infinities as 2^128; NaN mismatch: inf."""
    edge = np.ldexp(1.0, 128)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        g = np.clip(got.astype(np.float64), -edge, edge)
        r = np.clip(ref, -edge, edge)
        e = np.floor(np.log2(np.abs(np.where(np.isfinite(r) & (r != 0), r, 1.0))))
        ulp = np.ldexp(1.0, (np.clip(e, -126, 127) - 23).astype(np.int64))
        err = np.abs(g - r) / ulp
    gn, rn = np.isnan(got), np.isnan(ref)
    err[gn & rn] = 0.0
    err[gn != rn] = np.inf
    zero = (ref == 0) & (got == 0) & (np.signbit(got) != np.signbit(ref))
    err[zero] = np.inf
    return err


def exhaustive_float(names: list[str] | None, progress: bool = True) -> list:
    """Every one of the 2^32 float inputs of the unary functions with a numpy reference."""
    from .library.measure import Result
    from .library.native import Batch
    from .library.reference import spec

    refs = _np_refs()
    todo = [n for n in refs if names is None or n in names]
    batch = Batch([spec(n).mangled("float") for n in todo])
    results = []
    for n in todo:
        r = Result(n, "float", spec(n).bounds[0])
        fname = spec(n).mangled("float")
        for c in range(256):
            x = (np.arange(1 << 24, dtype=np.uint64) + (c << 24)).astype(np.uint32).view(np.float32)
            got = batch.run(fname, x)[0]
            with np.errstate(all="ignore"):
                ref = refs[n](x.astype(np.float64))
            err = float_ulp_errors(got, ref)
            i = int(np.argmax(err))
            r.samples += x.size
            if err[i] > r.max_ulp:
                r.max_ulp, r.worst = float(err[i]), (float(x[i]), float(got[i]), float(ref[i]))
        results.append(r)
        if progress:
            print(f"{n:>16}  float exhaustive: max {_fmt(r.max_ulp)} ulp (bound {_fmt(r.bound)}) "
                  f"worst {r.worst}", file=sys.stderr)
    return results


def markdown(results: list) -> str:
    by: dict[str, dict[str, object]] = {}
    for r in results:
        by.setdefault(r.name, {})[r.elem] = r
    lines = ["| function | float: max ulp | bound | double: max ulp | bound | half: max ulp | bound |",
             "|---|---|---|---|---|---|---|"]
    for name, row in by.items():
        cells = [name]
        for elem in ("float", "double", "half"):
            r = row.get(elem)
            if r is None:
                cells += ["", ""]
            else:
                mark = "" if r.ok else " **FAIL**"
                cells += [_fmt(r.max_ulp) + mark, _fmt(r.bound)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vectorizer.builtins.accuracy",
                                 description="Measure the math builtins' accuracy in ulps.")
    ap.add_argument("-n", "--samples", type=int, default=100_000, help="samples per function and type")
    ap.add_argument("--only", help="comma-separated builtin names")
    ap.add_argument("--types", default="float,double,half", help="comma-separated: float,double,half")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--exhaustive", action="store_true", help="every half input of unary functions")
    ap.add_argument("--exhaustive-float", action="store_true",
                    help="only: every float input (2^32) of the unary functions numpy can check")
    ap.add_argument("--markdown", help="write the table to this file")
    args = ap.parse_args(argv)
    try:
        import gmpy2  # noqa: F401
    except ImportError:
        print("accuracy: needs gmpy2 (pip install gmpy2)", file=sys.stderr)
        return 2
    from .library.reference import SPECS

    names = args.only.split(",") if args.only else None
    known = {s.name for s in SPECS}
    if names and not set(names) <= known:
        print(f"accuracy: unknown function(s): {', '.join(sorted(set(names) - known))}", file=sys.stderr)
        return 2
    types = tuple(args.types.split(","))
    if not set(types) <= {"float", "double", "half"}:
        print("accuracy: --types takes float, double, half", file=sys.stderr)
        return 2
    t0 = time.time()
    if args.exhaustive_float:
        results = exhaustive_float(names)
    else:
        results = run(names, args.samples, args.seed, args.exhaustive, types)
    table = markdown(results)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table)
    print(table)
    bad = [r for r in results if not r.ok]
    print(f"{len(results) - len(bad)} passed, {len(bad)} failed ({time.time() - t0:.0f} s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
