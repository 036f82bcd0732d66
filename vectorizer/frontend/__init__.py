"""Front ends that turn kernel source languages into LLVM IR for the vectorizer."""
