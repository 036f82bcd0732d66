"""fuzz."""
