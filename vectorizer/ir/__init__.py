"""vectorizer/ir."""
