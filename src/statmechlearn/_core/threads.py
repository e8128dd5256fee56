"""BLAS held to one thread around compiled loops and many small BLAS calls."""

import functools

from threadpoolctl import ThreadpoolController

__all__ = ["one_blas_thread"]


def one_blas_thread():
    """A context in which BLAS runs on one thread (numba's threads are not limited).

    Code that runs numba kernels on several threads, or many small products, between
    BLAS calls should hold BLAS to one thread: OpenBLAS's threads spin for a while after
    each call and take the cores from numba's, and splitting a small product over
    threads costs a synchronisation that can dominate it. A pairwise-clustering fit at
    n = 2000 on two cores took 0.58 s with BLAS on two threads and 0.45 s with it on
    one.

    Returns
    -------
    context manager
    """
    return _controller().limit(limits=1, user_api="blas")


@functools.cache
def _controller():
    # inspecting the loaded libraries costs milliseconds: once per process
    return ThreadpoolController()
