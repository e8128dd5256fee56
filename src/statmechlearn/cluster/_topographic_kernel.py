"""One fixed-point iteration of soft topographic VQ on sufficient statistics (§3.5).

The expected cost of sending ``x`` as index ``r`` is
``h[r] = sum_nu T[r, nu] |x - y_nu|^2 = |x|^2 - 2 x . z_r + q_r`` with the
smoothed codebook ``z = T y`` and ``q = T |y|^2``; ``|x|^2`` is the same for
every ``r`` and drops out of the Gibbs distribution. The centroids
``y_nu = sum_i (P T)[i, nu] x_i / sum_i (P T)[i, nu]`` need only
``S = P^T X`` and ``m = P^T 1``: ``y = (T^T S) / (T^T m)``. So an iteration
costs two ``n x K x d`` products and ``n K`` exponentials, like one
iteration of deterministic-annealing k-means, instead of the
``n x K x K`` products of the channel in data space.

:func:`gibbs_rows` is the compiled Gibbs step (in place, with the change of
the assignments and their entropy in the same pass); :func:`gibbs_rows_numpy`
is its plain-NumPy twin, which the tests hold it to.
"""

import numba
import numpy as np

from statmechlearn._core.fastexp import exp_nonpositive
from statmechlearn.cluster._gibbs import _LOG_TINY

__all__ = [
    "centres",
    "gibbs_rows",
    "gibbs_rows_numpy",
    "smoothed_codebook",
    "solve_temperature",
    "topographic_map",
]

_TINY = 1e-300
# Weights below exp(-40) = 4e-18 of a row's largest (which is 1) are set to 0 without an
# exponential: less than half an ulp of the row's sum, so P changes by < 4.3e-18 absolute;
# at the temperatures where the map orders most of the n K weights are this small (10 %
# of a digits fit's time, the same codebook to every printed digit).
_UNDERFLOW = -40.0
# Rows whose exponentials are taken in one vectorised loop (a 1024 x K buffer).
_CHUNK_ROWS = 1024
# Entries of P per thread below which waking numba's pool costs more than it saves: on a
# 2-core machine shared with other work one 1797 x 36 step took 35 ms on 2 threads, 2.7 ms
# on one.
_BLOCK = 1 << 17


def centres(S, m, transmission):
    """Codebook ``y = (T^T S) / (T^T m)`` from the sufficient statistics of the assignments."""
    return (transmission.T @ S) / np.maximum(transmission.T @ m, _TINY)[:, None]


def smoothed_codebook(Y, transmission):
    """``z = T y`` and ``q = T |y|^2``: the expected cost is ``|x|^2 - 2 x . z_r + q_r``."""
    return transmission @ Y, transmission @ np.einsum("ij,ij->i", Y, Y)


# no fastmath: the logit formed again for the entropy must round exactly as the first time
@numba.njit(cache=True, nogil=True)
def _gibbs_block(L, q, inv_temperature, P, m, lo, hi):  # pragma: no cover - compiled
    """Rows ``lo:hi`` of :func:`gibbs_rows`; their column sums added to ``m``.

    The exponentials of a chunk of rows are taken in one branch-free, vectorised loop
    (:func:`~statmechlearn._core.fastexp.exp_nonpositive`, within an ulp of libm), not
    one scalar ``exp`` call per entry."""
    K = L.shape[1]
    rows = min(_CHUNK_ROWS, max(hi - lo, 1))
    buf = np.empty(rows * K)
    bits = np.empty(rows * K, dtype=np.int64)
    tops = np.empty(rows)
    change = 0.0
    entropy = 0.0
    log_partition = 0.0
    for start in range(lo, hi, rows):
        stop = min(hi, start + rows)
        size = (stop - start) * K
        for i in range(start, stop):
            o = (i - start) * K
            top = -np.inf
            for r in range(K):
                v = (2.0 * L[i, r] - q[r]) * inv_temperature
                buf[o + r] = v
                top = max(top, v)
            tops[i - start] = top
            for r in range(K):
                buf[o + r] -= top
        exp_nonpositive(buf, bits, size, _LOG_TINY)  # exp(0) = 1 exactly for the top term
        for i in range(start, stop):
            o = (i - start) * K
            top = tops[i - start]
            s = 0.0
            for r in range(K):
                s += buf[o + r]
            log_s = np.log(s)
            inv_s = 1.0 / s
            plogp = 0.0
            for r in range(K):
                p = buf[o + r] * inv_s
                if p > 0.0:
                    # log p = (logit - top) - log s, the logit formed again (no logarithm)
                    plogp += p * ((2.0 * L[i, r] - q[r]) * inv_temperature - top - log_s)
                d = abs(p - P[i, r])
                if d > change:
                    change = d
                P[i, r] = p
                m[r] += p
            entropy -= plogp
            log_partition += top + log_s
    return change, entropy, log_partition


@numba.njit(cache=True, nogil=True, parallel=True)
def _gibbs_blocks(L, q, inv_temperature, P, m, blocks):  # pragma: no cover - compiled
    n, K = L.shape
    sums = np.zeros((blocks, K))
    out = np.zeros((blocks, 3))
    for b in numba.prange(blocks):
        lo, hi = b * n // blocks, (b + 1) * n // blocks
        out[b, 0], out[b, 1], out[b, 2] = _gibbs_block(L, q, inv_temperature, P, sums[b], lo, hi)
    m[:] = 0.0
    for b in range(blocks):
        m += sums[b]
    return out[:, 0].max(), out[:, 1].sum(), out[:, 2].sum()


def gibbs_rows(L, q, inv_temperature, P, m):
    """Gibbs assignments ``P[i] ∝ exp((2 L[i] - q) / T)`` in place; compiled.

    Rows are split into one block per numba thread (of at least ``2^17``
    entries), each with its own partial sums, reduced at the end.

    Parameters
    ----------
    L : ndarray of shape (n, K)
        ``x_i . z_r``.
    q : ndarray of shape (K,)
    inv_temperature : float
    P : ndarray of shape (n, K)
        The previous assignments, overwritten by the new ones.
    m : ndarray of shape (K,)
        Overwritten by the column sums of the new assignments.

    Returns
    -------
    change : float
        ``max |P_new - P_old|``.
    entropy : float
        ``-sum P_new log P_new`` (nats).
    log_partition : float
        ``sum_i log sum_r exp((2 L[i, r] - q_r) / T)``.
    """
    blocks = min(numba.get_num_threads(), max(1, L.size // _BLOCK))
    if blocks == 1:  # no thread pool to wake
        m[:] = 0.0
        return _gibbs_block(L, q, inv_temperature, P, m, 0, L.shape[0])
    return _gibbs_blocks(L, q, inv_temperature, P, m, blocks)


def gibbs_rows_numpy(L, q, inv_temperature, P, m):
    """Plain-NumPy twin of :func:`gibbs_rows` (same arithmetic, vectorised)."""
    logits = (2.0 * L - q) * inv_temperature
    top = logits.max(axis=1, keepdims=True)
    logits -= top
    E = np.where(logits > _UNDERFLOW, np.exp(logits), 0.0)
    s = E.sum(axis=1, keepdims=True)
    new = E / s
    terms = np.where(new > 0, new * (logits - np.log(s)), 0.0)
    change = float(np.max(np.abs(new - P)))
    P[...] = new
    m[...] = new.sum(axis=0)
    return change, float(-terms.sum()), float(np.sum(top[:, 0] + np.log(s[:, 0])))


def topographic_map(X, Y, transmission, temperature, L, P, m, *, kernel=gibbs_rows):
    """One iteration of the fixed point from the codebook ``Y``: Gibbs assignments, new codebook.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Data (centred by the caller, which keeps ``x . z`` free of cancellation).
    Y : ndarray of shape (K, d)
        Codebook.
    transmission : ndarray of shape (K, K)
    temperature : float
    L : ndarray of shape (n, K)
        Work buffer, overwritten.
    P : ndarray of shape (n, K)
        Previous assignments, replaced by ``Gibbs(Y)`` in place.
    m : ndarray of shape (K,)
        Overwritten by ``P^T 1``.
    kernel : callable, default=gibbs_rows
        The Gibbs step (:func:`gibbs_rows_numpy` for the reference).

    Returns
    -------
    S : ndarray of shape (K, d)
        ``P^T X`` of the new assignments (their codebook is ``centres(S, m)``).
    change : float
        ``max |Delta P|``.
    entropy : float
        ``-sum P log P`` of the new assignments.
    potential : float
        ``-T sum_i log sum_r exp(-h[i, r] / T)`` up to the constant ``sum |x|^2``: the
        free energy of ``Y``, which the iteration never raises (it is an MM step).
    """
    Z, q = smoothed_codebook(Y, transmission)
    np.dot(X, Z.T, out=L)
    change, entropy, log_partition = kernel(L, q, 1.0 / temperature, P, m)
    return P.T @ X, change, entropy, -temperature * log_partition


def solve_temperature(X, Y, transmission, temperature, L, P, m, *, max_iter, tol, accelerate=True):
    """Iterate :func:`topographic_map` to ``max |Delta P| < tol``, SQUAREM-accelerated.

    Near the unfolding and ordering transitions the plain iteration contracts
    by a factor close to 1 per step (critical slowing down). SQUAREM
    (Varadhan & Roland 2008, scheme S3) extrapolates two plain steps along
    their polynomial path and keeps the result only when it does not raise
    the free energy of the codebook, which the plain step never does; the
    convergence test is on plain steps only.

    Parameters
    ----------
    X, Y, transmission, temperature, L, P, m
        As in :func:`topographic_map`; ``P`` and ``m`` are updated in place.
    max_iter : int
        Iterations (evaluations of the map) at most.
    tol : float
    accelerate : bool, default=True
        False: plain iterations.

    Returns
    -------
    S : ndarray of shape (K, d)
        ``P^T X`` of the final assignments ``P`` (``m`` holds ``P^T 1``).
    n_iter : int
    converged : bool
    entropy : float
    """
    it = 0

    def step(Y):
        nonlocal it
        it += 1
        S, change, entropy, potential = topographic_map(X, Y, transmission, temperature, L, P, m)
        return S, centres(S, m, transmission), change, entropy, potential

    plain = True  # whether Y is the image of the point last evaluated (P belongs to it)
    while True:
        S, Y1, change, entropy, _ = step(Y)
        if (plain and change < tol) or it >= max_iter:
            return S, it, plain and change < tol, entropy
        S, Y2, change, entropy, potential = step(Y1)
        if change < tol or it >= max_iter:
            return S, it, change < tol, entropy
        plain = True
        if not accelerate:
            Y = Y2
            continue
        r = Y1 - Y
        v = Y2 - Y1 - r
        rr, vv = float(np.vdot(r, r)), float(np.vdot(v, v))
        alpha = min(-np.sqrt(rr / vv), -1.0) if vv > 0.0 else -1.0
        if alpha == -1.0:  # the plain double step
            Y = Y2
            continue
        S, Y_next, change, entropy, jumped = step(Y - 2.0 * alpha * r + alpha * alpha * v)
        if it >= max_iter:
            return S, it, False, entropy
        # a jump that raised the free energy above that of Y1 is dropped for the plain Y2
        plain = jumped <= potential
        Y = Y_next if plain else Y2
