"""vectorizer/transform."""
