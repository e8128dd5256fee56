"""``A @ Z`` for a large matrix ``A`` and a thin ``Z`` (a few columns), at memory speed.

Pairwise clustering and correlation clustering spend their time in products of an
``n x n`` matrix with the ``K`` columns of an assignment matrix. For ``2 <= K`` of a few
dozen, OpenBLAS's ``dgemm`` packs ``A`` into its own buffer before it multiplies, so that
each product reads and writes ``A`` more than once: at ``n = 2000`` on one core it takes
5-6 ms where reading ``A`` once takes 1.2 ms (its ``dgemv``, ``K = 1``). The kernel
here reads ``A`` once, eight rows at a time, and keeps the 8 x 4 sums of eight rows with
four columns of ``Z`` in registers (LLVM vectorises along the rows of ``A``); ``Z`` is
read from cache. It takes about 1.5 ms at ``n = 2000`` for ``K <= 4`` (see
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
_ROWS = 8
_COLS = 4
# Up to this many columns the kernel beats OpenBLAS's dgemm (measured up to 64 at
# n = 500 and 2000 on AVX-512; the margin shrinks with the columns).
MAX_COLUMNS = 32


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def _rows(A, Zt, out, first, last):  # pragma: no cover - compiled
    """``out[i, :] = A[i] @ Zt.T`` for rows ``first <= i < last``.

    ``Zt`` has a multiple of four rows (the columns of ``Z``, zero-padded). A group of
    fewer than eight rows repeats its last row; each row's sums run in the same order
    wherever its group starts. The 32 sums of eight rows and four columns fit the 32
    vector registers of AVX-512: at n = 2000 a product takes 1.45 ms with eight rows a
    group, 2.0 ms with four and 2.1 ms with sixteen (measured interleaved, one thread).
    """
    k_pad, n = Zt.shape
    for i in range(first, last, _ROWS):
        r0 = i
        r1 = min(i + 1, last - 1)
        r2 = min(i + 2, last - 1)
        r3 = min(i + 3, last - 1)
        r4 = min(i + 4, last - 1)
        r5 = min(i + 5, last - 1)
        r6 = min(i + 6, last - 1)
        r7 = min(i + 7, last - 1)
        for c in range(0, k_pad, _COLS):
            s00 = s01 = s02 = s03 = 0.0
            s10 = s11 = s12 = s13 = 0.0
            s20 = s21 = s22 = s23 = 0.0
            s30 = s31 = s32 = s33 = 0.0
            s40 = s41 = s42 = s43 = 0.0
            s50 = s51 = s52 = s53 = 0.0
            s60 = s61 = s62 = s63 = 0.0
            s70 = s71 = s72 = s73 = 0.0
            for j in range(n):
                z0 = Zt[c, j]
                z1 = Zt[c + 1, j]
                z2 = Zt[c + 2, j]
                z3 = Zt[c + 3, j]
                a = A[r0, j]
                s00 += a * z0
                s01 += a * z1
                s02 += a * z2
                s03 += a * z3
                a = A[r1, j]
                s10 += a * z0
                s11 += a * z1
                s12 += a * z2
                s13 += a * z3
                a = A[r2, j]
                s20 += a * z0
                s21 += a * z1
                s22 += a * z2
                s23 += a * z3
                a = A[r3, j]
                s30 += a * z0
                s31 += a * z1
                s32 += a * z2
                s33 += a * z3
                a = A[r4, j]
                s40 += a * z0
                s41 += a * z1
                s42 += a * z2
                s43 += a * z3
                a = A[r5, j]
                s50 += a * z0
                s51 += a * z1
                s52 += a * z2
                s53 += a * z3
                a = A[r6, j]
                s60 += a * z0
                s61 += a * z1
                s62 += a * z2
                s63 += a * z3
                a = A[r7, j]
                s70 += a * z0
                s71 += a * z1
                s72 += a * z2
                s73 += a * z3
            # in a short last group the repeated rows hold identical sums
            out[r7, c] = s70
            out[r7, c + 1] = s71
            out[r7, c + 2] = s72
            out[r7, c + 3] = s73
            out[r6, c] = s60
            out[r6, c + 1] = s61
            out[r6, c + 2] = s62
            out[r6, c + 3] = s63
            out[r5, c] = s50
            out[r5, c + 1] = s51
            out[r5, c + 2] = s52
            out[r5, c + 3] = s53
            out[r4, c] = s40
            out[r4, c + 1] = s41
            out[r4, c + 2] = s42
            out[r4, c + 3] = s43
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
    """:func:`_rows` over all rows, in ``n_chunks`` chunks (multiples of eight) over threads."""
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
