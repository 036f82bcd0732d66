"""vecz-py's benchmark suite: OpenCL C compute kernels (with checked-in LLVM
IR), a native NDRange driver, and `vecz-bench`, which compares the scalar
work-item loop, LLVM's LoopVectorize on that loop (PoCL's approach) and our
vectorizer side by side, plus the vectorizer's own compile-time scaling."""

from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
KERNEL_DIR = BENCH_DIR / "kernels"
PRELUDE = BENCH_DIR / "prelude" / "opencl.h"
