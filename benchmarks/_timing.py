"""Timing helper shared by the benchmark scripts (run them as ``python benchmarks/NAME.py``)."""

import time

import numpy as np

__all__ = ["best_of"]


def best_of(fn, repeat=5):
    """Smallest wall time of ``repeat`` calls of ``fn()``, in seconds (the least disturbed run)."""
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best
