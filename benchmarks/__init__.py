"""Benchmarks: speed targets measured side by side in one run (never timed tests)."""
