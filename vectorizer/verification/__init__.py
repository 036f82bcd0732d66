"""Analysis verification (`--verify-analyses`), in the manner of LLVM's
`-verify-dom-info`, `-verify-loop-info` and EXPENSIVE_CHECKS.

With `PipelineOptions.verify_analyses` on, the pipeline checks, after each
pass, the analyses it relies on against independent reference computations
written plainly here (set dataflow, breadth-first searches, llvmlite's own
target data) and a few post-conditions of its transforms. The references
never call the code they check: a mistake in an analysis must not be
repeated by its reference. A difference raises `AnalysisMismatch`, which the
pipeline reports as a `VectorizerBug` (the oracle's `vectorizer-error`)
naming the analysis, the function, the pass after which it was found and
the first difference.

The package lives outside `vectorizer/analysis/` on purpose: the pass
mutants (fuzz/pass_mutants.py) are drawn from that directory, and a checker
is not a pass.

- `cfg`: dominators, post-dominators, loops and irreducible regions, the
  block ordering, BOSCC's reachability;
- `layout`: struct sizes, field offsets and alignments vs LLVM's;
- `postconditions`: one terminator per block, phis that match the
  predecessors, no dead code after the dead-code pass, Packetization
  Analysis' value list, control-flow conversion's statistics;
- `calls`: calls to recursive functions survive builtin inlining;
- `hook`: what the pipeline runs after each pass.
"""

from .errors import AnalysisMismatch
from .hook import AnalysisVerifier

__all__ = ["AnalysisMismatch", "AnalysisVerifier"]
