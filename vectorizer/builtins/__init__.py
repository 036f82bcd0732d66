"""vectorizer/builtins."""
