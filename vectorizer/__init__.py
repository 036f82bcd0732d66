"""An SPMD whole-function vectorizer for GPU-style kernels on CPUs."""
