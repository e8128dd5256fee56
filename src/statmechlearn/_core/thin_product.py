"""``A @ Z`` for a large matrix ``A`` and a thin ``Z`` (a few columns), at memory speed.

Pairwise clustering and correlation clustering spend their time in products of an
``n x n`` matrix with the ``K`` columns of an assignment matrix. For ``2 <= K`` of a few
dozen, OpenBLAS's ``dgemm`` packs ``A`` into its own buffer before it multiplies, so that
each product reads and writes ``A`` more than once: at ``n = 2000`` on one core it takes
5-6 ms where reading ``A`` once takes 1.2 ms (its ``dgemv``, ``K = 1``). The kernel
here reads ``A`` once, four rows at a time, and keeps the 4 x 4 sums of four rows with
four columns of ``Z`` in registers (LLVM vectorises along the rows of ``A``); ``Z`` is
read from cache. It takes 1.8 ms at ``n = 2000`` for ``K <= 4`` (see
``benchmarks/bench_pairwise.py``). One column (``dgemv`` streams ``A`` already) and many
columns (``dgemm``'s blocking pays off) go to BLAS.

Every output row is summed by the same compiled loop whatever the number of threads, so
the result does not depend on it.
"""

import numba
import numpy as np

__all__ = ["thin_product"]

_FAST = {"reassoc", "contract"}
# Rows and columns of the register block.
_ROWS = 4
_COLS = 4
# Up to this many columns the kernel beats OpenBLAS's dgemm (measured up to 64 at
# n = 500 and 2000 on AVX-512; the margin shrinks with the columns).
MAX_COLUMNS = 32


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def _rows(A, Zt, out, first, last):  # pragma: no cover - compiled
    """``out[i, :] = A[i] @ Zt.T`` for rows ``first <= i < last``.

    ``Zt`` has a multiple of four rows (the columns of ``Z``, zero-padded). A group of
    fewer than four rows repeats its last row; each row's sums run in the same order
    wherever its group starts.
    """
    k_pad, n = Zt.shape
    for i in range(first, last, _ROWS):
        r0 = i
        r1 = min(i + 1, last - 1)
        r2 = min(i + 2, last - 1)
        r3 = min(i + 3, last - 1)
        for c in range(0, k_pad, _COLS):
            s00 = s01 = s02 = s03 = 0.0
            s10 = s11 = s12 = s13 = 0.0
            s20 = s21 = s22 = s23 = 0.0
            s30 = s31 = s32 = s33 = 0.0
            for j in range(n):
                a0 = A[r0, j]
                a1 = A[r1, j]
                a2 = A[r2, j]
                a3 = A[r3, j]
                z0 = Zt[c, j]
                z1 = Zt[c + 1, j]
                z2 = Zt[c + 2, j]
                z3 = Zt[c + 3, j]
                s00 += a0 * z0
                s01 += a0 * z1
                s02 += a0 * z2
                s03 += a0 * z3
                s10 += a1 * z0
                s11 += a1 * z1
                s12 += a1 * z2
                s13 += a1 * z3
                s20 += a2 * z0
                s21 += a2 * z1
                s22 += a2 * z2
                s23 += a2 * z3
                s30 += a3 * z0
                s31 += a3 * z1
                s32 += a3 * z2
                s33 += a3 * z3
            # in a short last group r1..r3 repeat the last row, with identical sums
            out[r3, c] = s30
            out[r3, c + 1] = s31
            out[r3, c + 2] = s32
            out[r3, c + 3] = s33
            out[r2, c] = s20
            out[r2, c + 1] = s21
            out[r2, c + 2] = s22
            out[r2, c + 3] = s23
            out[r1, c] = s10
            out[r1, c + 1] = s11
            out[r1, c + 2] = s12
            out[r1, c + 3] = s13
            out[r0, c] = s00
            out[r0, c + 1] = s01
            out[r0, c + 2] = s02
            out[r0, c + 3] = s03


@numba.njit(cache=True, nogil=True, parallel=True)
def _rows_parallel(A, Zt, out, n_chunks):  # pragma: no cover - compiled
    """:func:`_rows` over all rows, in ``n_chunks`` chunks (multiples of four) over threads."""
    m = A.shape[0]
    step = ((m + n_chunks - 1) // n_chunks + _ROWS - 1) // _ROWS * _ROWS
    for chunk in numba.prange(n_chunks):
        _rows(A, Zt, out, min(m, chunk * step), min(m, (chunk + 1) * step))


def thin_product(A, Z):
    """``A @ Z``, reading ``A`` once, for a thin ``Z``.

    Parameters
    ----------
    A : ndarray of shape (m, n), float64
        Read in place when C-contiguous (otherwise copied once).
    Z : ndarray of shape (n,) or (n, k)

    Returns
    -------
    ndarray of shape (m,) or (m, k)
        ``A @ Z``, each entry summed in a fixed order whatever numba's thread count;
        it differs from BLAS's by rounding only.
    """
    Z = np.asarray(Z, dtype=float)
    if Z.ndim == 1 or Z.shape[1] == 1 or Z.shape[1] > MAX_COLUMNS or A.shape[0] < _ROWS:
        return A @ Z
    A = np.ascontiguousarray(A, dtype=float)
    m = A.shape[0]
    k = Z.shape[1]
    k_pad = -(-k // _COLS) * _COLS
    Zt = np.zeros((k_pad, Z.shape[0]))
    Zt[:k] = Z.T
    out = np.empty((m, k_pad))
    # a chunk per thread; a process that never runs on several threads never compiles
    # the parallel loop
    n_chunks = min(numba.get_num_threads(), m // (16 * _ROWS))
    if n_chunks <= 1:
        _rows(A, Zt, out, 0, m)
    else:
        _rows_parallel(A, Zt, out, n_chunks)
    return np.ascontiguousarray(out[:, :k]) if k < k_pad else out
