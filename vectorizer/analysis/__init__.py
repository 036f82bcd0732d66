"""vectorizer/analysis."""
