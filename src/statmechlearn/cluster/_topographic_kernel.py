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
is its plain-NumPy twin, which the tests hold it to, and which runs the small problems
(below ``NUMPY_ENTRIES`` assignments), where compiling the kernel would cost more than
the fit. Weighted samples (``sample_weight``) weight each row's terms of the free
energy: ``S = P^T W X``, ``m = P^T w``, entropy and log-partition summed with ``w_i``.
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
# The centroid sums P^T X from the nonzero weights only, where at most this share of P is
# nonzero (the Gibbs step counts them) and X has at least this many features: the sparse
# loop costs about 40 µs to scan a 1797 x 36 P plus its nonzero products (55 µs at 2.8 %
# nonzero, 112 µs at 14 %, 188 µs at 31 %, d = 64), BLAS about 3.1 µs per feature (9 µs
# at d = 2, 100 µs at 32, 200 µs at 64; one thread). A digits fit passes from above 30 %
# to below 15 % within an iteration or two, so any share in between takes the same
# iterations (measured at 0.15, 0.2 and 0.25: the same fit time).
SPARSE_SHARE = 0.15
SPARSE_MIN_FEATURES = 32
# Entries of P per thread below which waking numba's pool costs more than it saves: on a
# 2-core machine shared with other work one 1797 x 36 step took 35 ms on 2 threads, 2.7 ms
# on one.
_BLOCK = 1 << 17
# Assignments (n K) below which the Gibbs step runs in NumPy: compiling the kernel takes
# about 2 s of a fresh process, and at 150 x 25 (iris on a 5 x 5 map) the NumPy step costs
# about 60 µs more per iteration, 30 ms over a fit's few hundred. The published SOM
# experiments (1000 x 10 and more) stay on the compiled kernel.
NUMPY_ENTRIES = 1 << 13


def centres(S, m, transmission):
    """Codebook ``y = (T^T S) / (T^T m)`` from the sufficient statistics of the assignments."""
    return (transmission.T @ S) / np.maximum(transmission.T @ m, _TINY)[:, None]


def smoothed_codebook(Y, transmission):
    """``z = T y`` and ``q = T |y|^2``: the expected cost is ``|x|^2 - 2 x . z_r + q_r``."""
    return transmission @ Y, transmission @ np.einsum("ij,ij->i", Y, Y)


# Absolute values of doubles compare as their bit patterns do, as integers: an integer
# maximum vectorises where LLVM leaves a floating-point one scalar (NaN semantics); the
# largest change of a digits step took 70 of the kernel's 280 µs as a float maximum.
_ABS_BITS = np.int64(0x7FFFFFFFFFFFFFFF)
# reassoc: the row sums vectorise; their rounding differs from a left-to-right sum by
# ulps (the NumPy twin agrees to 1e-12)
_FAST = {"reassoc"}


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def _shifted_logits(L, q, inv_temperature, buf, shifted, w):  # pragma: no cover - compiled
    """``buf = shifted = logit - top`` for the flattened rows of ``L``; returns the sum of
    the tops (the rows' largest logits), row ``i``'s times ``w[i]``."""
    K = q.shape[0]
    total = 0.0
    for i in range(L.shape[0] // K):
        o = i * K
        top = (2.0 * L[o] - q[0]) * inv_temperature
        for r in range(K):
            v = (2.0 * L[o + r] - q[r]) * inv_temperature
            buf[o + r] = v
            top = max(top, v)
        for r in range(K):
            v = buf[o + r] - top
            buf[o + r] = v
            shifted[o + r] = v
        total += w[i] * top
    return total


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def _normalise(buf, shifted, P, delta, K, w):  # pragma: no cover - compiled
    """Rows of ``buf`` (exponentials) normalised into the flattened rows of ``P``;
    ``delta = P_new - P_old``. Returns ``(sum w log s, sum -w p log p)`` (``w`` the rows'
    weights: a product by 1.0 is exact, so unit weights change no bit)."""
    log_total = 0.0
    entropy = 0.0
    for i in range(P.shape[0] // K):
        o = i * K
        s = 0.0
        for r in range(K):
            s += buf[o + r]
        inv_s = 1.0 / s
        weighted = 0.0
        for r in range(K):
            p = buf[o + r] * inv_s
            weighted += p * shifted[o + r]  # 0 where p underflowed: shifted is finite
            delta[o + r] = p - P[o + r]
            P[o + r] = p
        log_s = np.log(s)
        log_total += w[i] * log_s
        entropy += w[i] * (log_s - weighted)
    return log_total, entropy


@numba.njit(cache=True, nogil=True)
def _largest_and_nonzero(bits, weights, size):  # pragma: no cover - compiled
    """``max |x|`` of the doubles whose bit patterns are ``bits[:size]``, as an integer, and
    how many of ``weights[:size]`` (bit patterns too) are nonzero: one integer loop."""
    largest = np.int64(0)
    nonzero = 0
    for j in range(size):
        b = bits[j] & _ABS_BITS
        largest = b if b > largest else largest
        nonzero += weights[j] != 0
    return largest, nonzero


@numba.njit(cache=True, nogil=True)
def _gibbs_block(L, q, inv_temperature, P, lo, hi, w):  # pragma: no cover - compiled
    """Rows ``lo:hi`` of :func:`gibbs_rows` (``L``, ``P`` flattened in C order).

    In three loops over a chunk of rows, each its own function: LLVM vectorises them
    there, and left the same loops scalar in one function indexing two-dimensional
    arrays (280 µs against 150 µs for a digits step). The exponentials are taken in
    one branch-free loop (:func:`~statmechlearn._core.fastexp.exp_nonpositive`, within
    an ulp of libm), not one scalar ``exp`` call per entry. The shifted logits are kept
    for the entropy, ``-sum p log p = log s - sum p (logit - top)``: no logarithm per
    entry."""
    K = q.shape[0]
    rows = min(_CHUNK_ROWS, max(hi - lo, 1))
    buf = np.empty(rows * K)
    shifted = np.empty(rows * K)
    bits = np.empty(rows * K, dtype=np.int64)
    delta = np.empty(rows * K)
    largest = np.int64(0)
    nonzero = 0
    entropy = 0.0
    log_partition = 0.0
    for start in range(lo, hi, rows):
        stop = min(hi, start + rows)
        size = (stop - start) * K
        rows_L, rows_P, rows_w = L[start * K : stop * K], P[start * K : stop * K], w[start:stop]
        log_partition += _shifted_logits(rows_L, q, inv_temperature, buf, shifted, rows_w)
        exp_nonpositive(buf, bits, size, _LOG_TINY)  # exp(0) = 1 exactly for the top term
        log_s, h = _normalise(buf, shifted, rows_P, delta, K, rows_w)
        log_partition += log_s
        entropy += h
        # the exponentials (buf) are zero exactly where the new weights are
        chunk_largest, chunk_nonzero = _largest_and_nonzero(
            delta.view(np.int64), buf.view(np.int64), size
        )
        largest = max(largest, chunk_largest)
        nonzero += chunk_nonzero
    bits[0] = largest
    return bits[:1].view(np.float64)[0], entropy, log_partition, nonzero


@numba.njit(cache=True, nogil=True, parallel=True)
def _gibbs_blocks(L, q, inv_temperature, P, n, blocks, w):  # pragma: no cover - compiled
    out = np.zeros((blocks, 3))
    counts = np.zeros(blocks, dtype=np.int64)
    for b in numba.prange(blocks):
        lo, hi = b * n // blocks, (b + 1) * n // blocks
        out[b, 0], out[b, 1], out[b, 2], counts[b] = _gibbs_block(
            L, q, inv_temperature, P, lo, hi, w
        )
    return out[:, 0].max(), out[:, 1].sum(), out[:, 2].sum(), counts.sum()


def gibbs_rows(L, q, inv_temperature, P, m, weights=None):
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
        Overwritten by the column sums of the new assignments (weighted).
    weights : ndarray of shape (n,), optional
        Row weights of ``m``, the entropy and the log-partition; None: ones.

    Returns
    -------
    change : float
        ``max |P_new - P_old|``.
    entropy : float
        ``-sum_i w_i sum_r P_new log P_new`` (nats).
    log_partition : float
        ``sum_i w_i log sum_r exp((2 L[i, r] - q_r) / T)``.
    nonzero : int
        Nonzero entries of the new assignments (the rest underflowed to exactly 0).
    """
    if not (L.flags.c_contiguous and P.flags.c_contiguous):
        raise ValueError("gibbs_rows needs C-contiguous L and P (it works on their flat views)")
    n = L.shape[0]
    w = np.ones(n) if weights is None else weights
    flat_L, flat_P = L.reshape(-1), P.reshape(-1)
    blocks = min(numba.get_num_threads(), max(1, L.size // _BLOCK))
    if blocks == 1:  # no thread pool to wake
        out = _gibbs_block(flat_L, q, inv_temperature, flat_P, 0, n, w)
    else:
        out = _gibbs_blocks(flat_L, q, inv_temperature, flat_P, n, blocks, w)
    # the column sums as one product (a loop adding rows into m stayed scalar)
    m[:] = w @ P
    return out


def gibbs_rows_numpy(L, q, inv_temperature, P, m, weights=None):
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
    log_rows = top[:, 0] + np.log(s[:, 0])
    if weights is None:
        m[...] = new.sum(axis=0)
        return change, float(-terms.sum()), float(np.sum(log_rows)), int(np.count_nonzero(new))
    m[...] = weights @ new
    entropy = -float(weights @ terms.sum(axis=1))
    return change, entropy, float(weights @ log_rows), int(np.count_nonzero(new))


@numba.njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _sparse_statistics(P, X, S):  # pragma: no cover - compiled
    """``S = P^T X`` from the nonzero weights of ``P`` only (one pass over ``P``)."""
    n, K = P.shape
    S[:] = 0.0
    for i in range(n):
        for r in range(K):
            p = P[i, r]
            if p != 0.0:
                for j in range(X.shape[1]):
                    S[r, j] += p * X[i, j]


def topographic_map(X, Y, transmission, temperature, L, P, m, *, kernel=None, weights=None):
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
        Overwritten by ``P^T w`` (``P^T 1`` without weights).
    kernel : callable, optional
        The Gibbs step: :func:`gibbs_rows`, or :func:`gibbs_rows_numpy` (the reference);
        None: the compiled one from ``NUMPY_ENTRIES`` assignments on, NumPy below.
    weights : tuple of (ndarray of shape (n,), ndarray of shape (n, d)), optional
        The samples' weights ``w`` and the weighted data ``w_i x_i``; None: unit weights.

    Returns
    -------
    S : ndarray of shape (K, d)
        ``P^T W X`` of the new assignments (their codebook is ``centres(S, m)``).
    change : float
        ``max |Delta P|``.
    entropy : float
        ``-sum_i w_i sum_r P log P`` of the new assignments.
    potential : float
        ``-T sum_i w_i log sum_r exp(-h[i, r] / T)`` up to the constant ``sum w |x|^2``:
        the free energy of ``Y``, which the iteration never raises (it is an MM step).
    """
    small = L.size < NUMPY_ENTRIES
    if kernel is None:
        kernel = gibbs_rows_numpy if small else gibbs_rows
    w, WX = (None, X) if weights is None else weights
    Z, q = smoothed_codebook(Y, transmission)
    np.dot(X, Z.T, out=L)
    change, entropy, log_partition, nonzero = kernel(L, q, 1.0 / temperature, P, m, w)
    S = np.empty((P.shape[1], X.shape[1]))
    if not small and X.shape[1] >= SPARSE_MIN_FEATURES and nonzero <= SPARSE_SHARE * P.size:
        _sparse_statistics(P, WX, S)
    else:
        np.dot(P.T, WX, out=S)
    return S, change, entropy, -temperature * log_partition


def solve_temperature(
    X, Y, transmission, temperature, L, P, m, *, max_iter, tol, accelerate=True, weights=None
):
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
    weights : tuple, optional
        As in :func:`topographic_map`.

    Returns
    -------
    S : ndarray of shape (K, d)
        ``P^T W X`` of the final assignments ``P`` (``m`` holds ``P^T w``).
    n_iter : int
    converged : bool
    entropy : float
    """
    it = 0

    def step(Y):
        nonlocal it
        it += 1
        S, change, entropy, potential = topographic_map(
            X, Y, transmission, temperature, L, P, m, weights=weights
        )
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
