"""Fixed-point kernel of maximum-entropy clustering, batched over independent runs.

For code vectors ``y_k`` with log-weights ``log w_k`` at temperature ``T`` the
Gibbs assignment is ``p(k|x) = w_k exp(-|x - y_k|^2 / T) / Z_x``. The kernel
alternates it with the centroid condition ``y_k = sum_x p(k|x) x / sum_x p(k|x)``
(and ``w_k = mean_x p(k|x)`` when mass-constrained), which is EM for an
isotropic Gaussian mixture of variance ``T/2``. Arrays carry a leading run
axis ``B`` so that many starts on the same data cost one matrix product.

One pass (:func:`gibbs_pass`) is a numba loop over fixed blocks of rows:
per block a BLAS product gives the cross terms ``x . y_k`` and one sweep turns
them into logits, keeping each row's two largest. A *hard* row, whose second
term is below ``e^-40`` of its largest, is assigned one-hot exactly
(the dense path zeroes the others too): it adds itself to one centroid sum, as
in a Lloyd iteration, with no exponential. The soft rows go through the
exponentials (accumulating masses, and distortions and entropy when asked) and
a second product gives their centroid sums; where more than half of a block's
rows are soft, all its rows take that dense path. A block is held as
``(code vector, row)``, so that every loop runs along the block's 1024 rows
and vectorises (along K = 10 entries per row it did not). The exponentials of a
block are one branch-free loop (:func:`~statmechlearn._core.fastexp.exp_nonpositive`,
within an ulp of libm's and vectorised by LLVM, three times faster than scalar
calls). Terms with ``p(k|x) < e^-40 p_max(x)`` lie below double precision of the
row's normaliser and are set to zero; the row's largest term is exactly
``exp(0) = 1``. The blocks are split over numba's threads (a ``prange``; on one
thread a plain loop, which compiles in half the time) and summed in a fixed
order, so results do not depend on the number of threads.
:func:`gibbs_pass_numpy` is the dense NumPy twin the tests hold the kernel to.
Distances use ``|x|^2 - 2 x.y + |y|^2``; callers centre ``X`` first when its
mean is far from the origin. The pass needs O(B K d) memory beyond ``X``;
:func:`posterior` returns O(n B K).
"""

import threading

import numba
import numpy as np
from scipy.special import logsumexp

from statmechlearn._core.distances import squared_distances
from statmechlearn._core.fastexp import exp_nonpositive
from statmechlearn._core.threads import one_blas_thread
from statmechlearn._core.validation import (
    check_array_finite,
    check_int,
    check_magnitude,
    check_real,
)

__all__ = [
    "gibbs_fixed_point",
    "gibbs_pass",
    "gibbs_pass_numpy",
    "gibbs_statistics",
    "posterior",
    "statistics_from_pass",
]

# Rows per block of the compiled pass: fixed, so that the summation order (and
# hence every result bit) is independent of the thread count.
_BLOCK = 1024
# exp(-40) = 4e-18 is below half an ulp of a normaliser >= 1.
_LOG_TINY = -40.0
_SPAN = 64 * _BLOCK
_FAST = {"reassoc", "contract"}
# A run's block takes the dense path (every row through the exponentials and a
# product) when more than this fraction of its rows is soft; below it the hard
# rows are summed one by one and only the soft ones are gathered.
_SOFT_DENSE = 0.5
# Entries of a row softmax (rows times code vectors) up to which it runs on this thread.
_SOFTMAX_SERIAL = 1 << 16
# Whether this thread is inside :func:`blas_held`: the passes then skip their own
# one_blas_thread, whose entry and exit (threadpoolctl reading and setting every
# library's limit) cost 14 us, as much as a whole pass over iris on one thread.
_HELD = threading.local()


class blas_held:
    """:func:`~statmechlearn._core.threads.one_blas_thread` for a whole fit, entered once.

    The passes inside it run as under their own ``one_blas_thread`` without
    entering it again (a fit runs hundreds of passes on small data); nested
    uses on the same thread enter it only at the outermost.
    """

    def __enter__(self):
        self._outer = not getattr(_HELD, "on", False)
        if self._outer:
            self._limit = one_blas_thread()
            self._limit.__enter__()
            _HELD.on = True
        return self

    def __exit__(self, *exc):
        if self._outer:
            _HELD.on = False
            return self._limit.__exit__(*exc)
        return None


@numba.njit(cache=True, nogil=True, fastmath=_FAST, error_model="numpy")
def _soft_part(P, top, lw, inv_t, with_stats, mass, dist):  # pragma: no cover - compiled
    """Turn logits ``P`` (code vector, row) into ``p(k|x)`` in place; add masses and stats.

    ``P`` holds the logits relative to each row's largest, ``top``. Returns the rows'
    ``sum log Z_x`` and ``sum p log p`` (zero below ``with_stats`` 1 and 2).
    """
    K, m = P.shape
    flat = P.reshape(K * m)
    logits = flat.copy() if with_stats >= 2 else flat[:0]
    bits = np.empty(K * m, dtype=np.int64)
    exp_nonpositive(flat, bits, K * m, _LOG_TINY)
    totals = np.zeros(m)
    for k in range(K):
        row = P[k]
        for r in range(m):
            totals[r] += row[r]
    for r in range(m):
        totals[r] = 1.0 / totals[r]
    for k in range(K):
        row = P[k]
        acc = 0.0
        for r in range(m):
            p = row[r] * totals[r]
            row[r] = p
            acc += p
        mass[k] += acc
    log_z = 0.0
    ent = 0.0
    if with_stats >= 1:
        log_inv = np.empty(m)
        for r in range(m):
            log_inv[r] = np.log(totals[r])
            log_z += top[r] - log_inv[r]
        if with_stats >= 2:
            for k in range(K):
                row = P[k]
                lwk = lw[k]
                acc = 0.0
                for r in range(m):
                    p = row[r]
                    if p > 0.0:
                        u = logits[k * m + r]
                        acc += p * (lwk - u - top[r])
                        ent += p * (u + log_inv[r])
                dist[k] += acc / inv_t
    return log_z, ent


@numba.njit(cache=True, nogil=True, fastmath=_FAST, error_model="numpy")
def _block(
    xb, xs, cy, y_sq, log_w, inv_t, with_stats, sums, mass, dist, log_z, plogp
):  # pragma: no cover - compiled
    """One block of rows: add its centroid sums, masses and statistics to the outputs.

    A block is held as (code vector, row): every loop runs along the block's rows,
    contiguous and long, so LLVM vectorises it (along K = 10 it would not).
    """
    m, d = xb.shape
    B, K = log_w.shape
    # the cross terms x . y_k, turned into logits in place
    prob = np.dot(cy, xb.T).reshape(B, K, m)
    top = np.empty(m)
    second = np.empty(m)
    lab = np.empty(m, dtype=np.int64)
    soft = np.empty(m, dtype=np.int64)
    for b in range(B):
        P = prob[b]
        lw = log_w[b]
        for r in range(m):
            top[r] = -np.inf
            second[r] = -np.inf
            lab[r] = 0
        # one sweep keeps each row's two largest logits and the first code vector
        # holding the largest: a row is hard when its second term, relative to
        # its top, is below e^-40 (a tie for the top is soft)
        for k in range(K):
            row = P[k]
            lwk = lw[k]
            yk = y_sq[b, k]
            for r in range(m):
                lk = lwk - max(xs[r] - 2.0 * row[r] + yk, 0.0) * inv_t
                row[r] = lk
                t = top[r]
                above = lk > t
                second[r] = t if above else max(second[r], lk)
                top[r] = lk if above else t
                lab[r] = k if above else lab[r]
        ns = 0
        for r in range(m):
            if second[r] - top[r] > _LOG_TINY:
                soft[ns] = r
                ns += 1
                lab[r] = -1
        sb = sums[b * K : (b + 1) * K]
        if ns > _SOFT_DENSE * m:
            # logits relative to the row's top, u <= 0 (exactly 0 at the top)
            for k in range(K):
                row = P[k]
                for r in range(m):
                    row[r] -= top[r]
            lz, ent = _soft_part(P, top, lw, inv_t, with_stats, mass[b], dist[b])
            sb[:, :] = np.dot(P, xb)
        else:
            # a hard row's assignment is one-hot exactly: the exponentials it would
            # sum are zeroed below e^-40, so it adds its row to one centroid sum
            lz = 0.0
            for r in range(m):
                k = lab[r]
                if k < 0:
                    continue
                mass[b, k] += 1.0
                for j in range(d):
                    sb[k, j] += xb[r, j]
                if with_stats >= 1:
                    lz += top[r]
                    if with_stats >= 2:
                        # |x - y_k|^2 = T (log w_k - logit_k), the top logit
                        dist[b, k] += (lw[k] - top[r]) / inv_t
            ent = 0.0
            if ns > 0:
                Ps = np.empty((K, ns))
                ts = np.empty(ns)
                xsoft = np.empty((ns, d))
                for i in range(ns):
                    r = soft[i]
                    ts[i] = top[r]
                    for j in range(d):
                        xsoft[i, j] = xb[r, j]
                for k in range(K):
                    for i in range(ns):
                        Ps[k, i] = P[k, soft[i]] - ts[i]
                lz2, ent = _soft_part(Ps, ts, lw, inv_t, with_stats, mass[b], dist[b])
                lz += lz2
                sb[:, :] += np.dot(Ps, xsoft)
        log_z[b] += lz
        plogp[b] += ent


@numba.njit(cache=True, nogil=True)
def _pass_blocks(
    X, cy, x_sq, y_sq, log_w, inv_t, with_stats, first, last, sums, mass, dist, log_z, plogp
):  # pragma: no cover - compiled
    """Blocks ``first`` to ``last`` of ``X``, each into its own slot of the outputs."""
    n = X.shape[0]
    for blk in range(first, last):
        start = blk * _BLOCK
        stop = min(n, start + _BLOCK)
        _block(
            X[start:stop],
            x_sq[start:stop],
            cy,
            y_sq,
            log_w,
            inv_t,
            with_stats,
            sums[blk],
            mass[blk],
            dist[blk],
            log_z[blk],
            plogp[blk],
        )


@numba.njit(cache=True, nogil=True, parallel=True)
def _pass_blocks_parallel(
    X, cy, x_sq, y_sq, log_w, inv_t, with_stats, sums, mass, dist, log_z, plogp
):  # pragma: no cover - compiled
    """:func:`_pass_blocks` over every block of ``X``, the blocks over numba's threads."""
    for blk in numba.prange(sums.shape[0]):
        _pass_blocks(
            X,
            cy,
            x_sq,
            y_sq,
            log_w,
            inv_t,
            with_stats,
            blk,
            blk + 1,
            sums,
            mass,
            dist,
            log_z,
            plogp,
        )


def _pass_kernel(X, cy, x_sq, y_sq, log_w, inv_t, with_stats):
    """One pass over ``X`` (at most ``_SPAN`` rows), its blocks split over numba's threads.

    On one thread the blocks run in a plain loop, whose kernel compiles in half the
    time of the parallel one (12 s instead of 25 s in a new process on a cold cache):
    a process that never runs on several threads never compiles the parallel loop.
    """
    n, d = X.shape
    B, K = log_w.shape
    n_blocks = (n + _BLOCK - 1) // _BLOCK
    slots = (
        np.zeros((n_blocks, B * K, d)),
        np.zeros((n_blocks, B, K)),
        np.zeros((n_blocks, B, K)),
        np.zeros((n_blocks, B)),
        np.zeros((n_blocks, B)),
    )
    args = (X, cy, x_sq, y_sq, log_w, inv_t, with_stats)
    # (numba's thread count is asked only where there are blocks to share: a few
    # microseconds, as much as a pass over small data)
    if n_blocks <= 1 or numba.get_num_threads() <= 1:
        _pass_blocks(*args, 0, n_blocks, *slots)
    else:
        _pass_blocks_parallel(*args, *slots)
    # the blocks' slots added in block order: no bit depends on the thread count (one
    # block's slot is its own sum, and taken as it is costs no reduction)
    if n_blocks == 1:
        sums, mass, dist, log_z, plogp = (a[0] for a in slots)
    else:
        sums, mass, dist, log_z, plogp = (np.add.reduce(a, axis=0) for a in slots)
    return sums.reshape(B, K, d), mass, dist, log_z, plogp


@numba.njit(cache=True, nogil=True, inline="always")
def _softmax_row(logits, i):  # pragma: no cover - compiled
    """Row ``i`` of ``logits`` into its softmax in place; returns its log normaliser."""
    m = logits.shape[1]
    top = -np.inf
    for k in range(m):
        top = max(top, logits[i, k])
    total = 0.0
    for k in range(m):
        e = np.exp(logits[i, k] - top)
        logits[i, k] = e
        total += e
    for k in range(m):
        logits[i, k] /= total
    return np.log(total) + top


@numba.njit(cache=True, nogil=True, parallel=True)
def _softmax_rows_parallel(logits):  # pragma: no cover - compiled
    """:func:`_softmax_rows_serial`, the rows over numba's threads."""
    n = logits.shape[0]
    log_z = np.empty(n)
    for i in numba.prange(n):
        log_z[i] = _softmax_row(logits, i)
    return log_z


@numba.njit(cache=True, nogil=True)
def _softmax_rows_serial(logits):  # pragma: no cover - compiled
    """Each row of ``logits`` into its softmax in place; returns the rows' log normalisers."""
    n = logits.shape[0]
    log_z = np.empty(n)
    for i in range(n):
        log_z[i] = _softmax_row(logits, i)
    return log_z


def _softmax_rows(logits):
    """Row softmax in place, returning ``log sum exp`` of each row (the same bits either way).

    Below ``_SOFTMAX_SERIAL`` entries, or on one numba thread, a plain loop: a
    parallel region's launch costs more than the work on small data (the split
    axes of iris, 150 rows, are computed at every temperature).
    """
    if logits.size <= _SOFTMAX_SERIAL or numba.get_num_threads() <= 1:
        return _softmax_rows_serial(logits)
    return _softmax_rows_parallel(logits)


def _softmax_rows_numpy(logits):
    """NumPy twin of :func:`_softmax_rows`, in place as it is."""
    top = logits.max(axis=1, keepdims=True)
    np.exp(logits - top, out=logits)
    total = logits.sum(axis=1, keepdims=True)
    logits /= total
    return np.log(total[:, 0]) + top[:, 0]


def _check_x_sq(X, x_sq):
    return np.einsum("ij,ij->i", X, X) if x_sq is None else x_sq


def _check_pass_inputs(X, centers, log_weights, temperature):
    """Validated float arrays for the public entry points (the estimators pass checked data)."""
    for name, a in (("X", X), ("centers", centers), ("log_weights", log_weights)):
        if np.iscomplexobj(a):
            raise TypeError(f"{name} must be real, got complex values")
    X = np.ascontiguousarray(X, dtype=float)
    centers = np.array(centers, dtype=float)
    log_weights = np.array(log_weights, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features), got shape {X.shape}")
    if centers.ndim != 3 or centers.shape[2] != X.shape[1]:
        raise ValueError(
            f"centers must have shape (n_runs, n_clusters, n_features={X.shape[1]}), "
            f"got {centers.shape}"
        )
    if log_weights.shape != centers.shape[:2]:
        raise ValueError(
            f"log_weights must have shape (n_runs, n_clusters) = {centers.shape[:2]}, "
            f"got {log_weights.shape}"
        )
    for name, a in (("X", X), ("centers", centers)):
        if not np.isfinite(a).all():
            raise ValueError(f"{name} contains NaN or infinity")
    if np.isnan(log_weights).any() or np.isposinf(log_weights).any():
        raise ValueError("log_weights must be finite or -inf (an empty cluster)")
    check_magnitude(X, "X")
    check_magnitude(centers, "centers")
    temperature = check_real(temperature, "temperature", minimum=0.0, include_min=False)
    return X, centers, log_weights, temperature


def _check_public_x_sq(X, x_sq):
    """The squared row norms a caller passed: shape (n_samples,), finite, >= 0."""
    if x_sq is None:
        return None
    x_sq = check_array_finite(x_sq, "x_sq", shape=X.shape[:1])
    if np.any(x_sq < 0):
        raise ValueError("x_sq must hold squared norms >= 0")
    return x_sq


def _logits(X, centers, log_weights, temperature, x_sq):
    """``log w_k - |x - y_k|^2 / T`` with shape (n, B, K), BLAS for the cross term."""
    B, K, d = centers.shape
    cross = X @ centers.reshape(B * K, d).T  # (n, B*K)
    y_sq = np.einsum("bkd,bkd->bk", centers, centers).reshape(B * K)
    cross *= 2.0
    cross -= y_sq
    cross -= x_sq[:, None]
    np.minimum(cross, 0.0, out=cross)  # a squared distance is never negative
    cross /= temperature
    logits = cross.reshape(X.shape[0], B, K)
    logits += log_weights[None, :, :]
    return logits


def posterior(X, centers, log_weights, temperature, x_sq=None):
    """Gibbs assignment probabilities and per-point log partition function.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    centers : ndarray of shape (n_runs, n_clusters, n_features)
    log_weights : ndarray of shape (n_runs, n_clusters)
    temperature : float
    x_sq : ndarray of shape (n_samples,), optional
        Precomputed squared norms of the rows of ``X``.

    Returns
    -------
    proba : ndarray of shape (n_samples, n_runs, n_clusters)
    log_z : ndarray of shape (n_samples, n_runs)
        ``log sum_k w_k exp(-|x - y_k|^2 / T)``.
    """
    logits = _logits(X, centers, log_weights, temperature, _check_x_sq(X, x_sq))
    n, B, K = logits.shape
    log_z = _softmax_rows(logits.reshape(n * B, K))
    return logits, log_z.reshape(n, B)


def gibbs_pass(X, centers, log_weights, temperature, x_sq=None):
    """One Gibbs assignment of every point, reduced to what the fixed point needs.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    centers : ndarray of shape (n_runs, n_clusters, n_features)
    log_weights : ndarray of shape (n_runs, n_clusters)
    temperature : float
        ``T > 0``.
    x_sq : ndarray of shape (n_samples,), optional

    Returns
    -------
    sums : ndarray of shape (n_runs, n_clusters, n_features)
        ``sum_x p(k|x) x``.
    mass : ndarray of shape (n_runs, n_clusters)
        ``sum_x p(k|x)``.
    distortion : ndarray of shape (n_runs, n_clusters)
        ``sum_x p(k|x) |x - y_k|^2``.
    log_z : ndarray of shape (n_runs,)
        ``sum_x log sum_k w_k exp(-|x - y_k|^2 / T)``.
    plogp : ndarray of shape (n_runs,)
        ``sum_x sum_k p(k|x) log p(k|x)``.
    """
    X, centers, log_weights, temperature = _check_pass_inputs(X, centers, log_weights, temperature)
    x_sq = _check_x_sq(X, _check_public_x_sq(X, x_sq))
    return _checked_pass(X, centers, log_weights, temperature, x_sq)


def _checked_pass(X, centers, log_weights, temperature, x_sq):
    """:func:`gibbs_pass` on checked inputs (the estimators' per-temperature call)."""
    return _pass(X, centers, log_weights, temperature, x_sq, with_stats=2)


def gibbs_pass_numpy(X, centers, log_weights, temperature, x_sq=None):
    """Dense NumPy twin of :func:`gibbs_pass`: same contract, nothing dropped or compiled."""
    logits = _logits(X, centers, log_weights, temperature, _check_x_sq(X, x_sq))
    log_z = logsumexp(logits, axis=2)
    proba = np.exp(logits - log_z[:, :, None])
    n, B, K = proba.shape
    d2 = np.stack([squared_distances(X, c, x_sq) for c in centers], axis=1)
    sums = (proba.reshape(n, B * K).T @ X).reshape(B, K, -1)
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(proba > 0, proba * np.log(proba), 0.0).sum(axis=(0, 2))
    return sums, proba.sum(axis=0), (proba * d2).sum(axis=0), log_z.sum(axis=0), plogp


def _pass(X, centers, log_weights, temperature, x_sq, *, with_stats):
    # one layout for the kernel: a Fortran-ordered X (a user's, or a transposed
    # view) would otherwise compile and cache a second specialisation of it
    X = np.ascontiguousarray(X)
    centers = np.asarray(centers, dtype=float)
    B, K, d = centers.shape
    cy = np.ascontiguousarray(centers.reshape(B * K, d))
    y_sq = np.einsum("bkd,bkd->bk", centers, centers)
    log_weights = np.ascontiguousarray(log_weights, dtype=float)
    args = (X, cy, x_sq, y_sq, log_weights, 1.0 / temperature, with_stats)
    if getattr(_HELD, "on", False):
        return _spans(*args)
    # the kernel's per-block products must not start BLAS threads of their own
    with one_blas_thread():
        return _spans(*args)


def _spans(X, cy, x_sq, y_sq, log_weights, inv_t, with_stats):
    """The pass over ``X``, ``_SPAN`` rows per kernel call, summed in order."""
    if 0 < X.shape[0] <= _SPAN:
        return _pass_kernel(X, cy, x_sq, y_sq, log_weights, inv_t, with_stats)
    out = None
    # at most _SPAN rows per call bounds the per-block buffers at O(K d)
    for start in range(0, X.shape[0], _SPAN):
        stop = start + _SPAN
        part = _pass_kernel(
            X[start:stop], cy, x_sq[start:stop], y_sq, log_weights, inv_t, with_stats
        )
        out = part if out is None else tuple(a + b for a, b in zip(out, part, strict=True))
    return out


def _centroids(sums, mass, centers):
    """Centroid condition; a code vector with no mass stays where it is."""
    alive = mass > 0.0
    if alive.all():
        # the same values without the two selections (a pass over small data is a few
        # microseconds, as much as the selections)
        return sums / mass[:, :, None]
    return np.where(alive[:, :, None], sums / np.where(alive, mass, 1.0)[:, :, None], centers)


def gibbs_fixed_point(
    X,
    centers,
    log_weights,
    temperature,
    *,
    mass_constrained,
    max_iter,
    tol,
    x_sq=None,
    accelerate=False,
):
    """Iterate the Gibbs assignment and centroid condition to a fixed point.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    centers : ndarray of shape (n_runs, n_clusters, n_features)
        Starting code vectors (not modified).
    log_weights : ndarray of shape (n_runs, n_clusters)
        Starting log cluster weights; kept fixed unless ``mass_constrained``.
    temperature : float
        ``T > 0``.
    mass_constrained : bool
        Whether the weights follow the cluster masses.
    max_iter : int
        Maximum number of passes over the data.
    tol : float
        Convergence when the squared Frobenius norm of the change of a run's
        code vectors in one plain iteration is below it (as KMeans).
    x_sq : ndarray of shape (n_samples,), optional
    accelerate : bool, default=False
        Squared extrapolation (SQUAREM, Varadhan & Roland 2008) of the code
        vectors from two plain iterations, kept only where it lowers the free
        energy below the plain iterate's. It cuts the iterations where the
        fixed point converges slowly, near a phase transition, but may settle
        in a different local minimum than plain iteration would, so leave it
        off to follow one minimum.

    Returns
    -------
    centers : ndarray of shape (n_runs, n_clusters, n_features)
    log_weights : ndarray of shape (n_runs, n_clusters)
    n_iter : int
        Passes over the data.
    shift : ndarray of shape (n_runs,)
        Last squared Frobenius change of each run in a plain iteration
        (``<= tol`` when converged).
    """
    X, centers, log_weights, temperature = _check_pass_inputs(X, centers, log_weights, temperature)
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    tol = check_real(tol, "tol", minimum=0.0)
    x_sq = _check_x_sq(X, _check_public_x_sq(X, x_sq))
    return _fixed_point(
        X,
        centers,
        log_weights,
        temperature,
        x_sq,
        mass_constrained=mass_constrained,
        max_iter=max_iter,
        tol=tol,
        accelerate=accelerate,
    )


def _fixed_point(
    X,
    centers,
    log_weights,
    temperature,
    x_sq,
    *,
    mass_constrained,
    max_iter,
    tol,
    accelerate,
    final_stats=False,
):
    """:func:`gibbs_fixed_point` on checked inputs: the estimators call it once per
    temperature, on data they validated once in ``fit``.

    With ``final_stats`` the converged state is the one the last pass was
    evaluated at (within ``tol`` of its update), returned with that pass's
    sums as a fifth element: the path statistics then cost no extra pass.
    """
    # an empty cluster's log-weight is -inf: no warning (entered once, not per pass)
    with np.errstate(divide="ignore"):
        return _fixed_point_loop(
            X,
            centers,
            log_weights,
            temperature,
            x_sq,
            mass_constrained=mass_constrained,
            max_iter=max_iter,
            tol=tol,
            accelerate=accelerate,
            final_stats=final_stats,
        )


def _fixed_point_loop(
    X,
    centers,
    log_weights,
    temperature,
    x_sq,
    *,
    mass_constrained,
    max_iter,
    tol,
    accelerate,
    final_stats,
):
    """The iteration of :func:`_fixed_point`, with division by zero silenced."""
    n = X.shape[0]
    check_level = 2 if final_stats else 0

    def step(c, lw, level=0):
        out = _pass(X, c, lw, temperature, x_sq, with_stats=level)
        sums, mass = out[0], out[1]
        if mass_constrained:
            lw = np.log(mass / n)
        return _centroids(sums, mass, c), lw, out

    def moved(a, b):
        return np.sum((a - b) ** 2, axis=(1, 2))

    def done(c, lw, new, new_lw, out):
        if final_stats:
            return c, lw, n_iter, shift, out
        return new, new_lw, n_iter, shift

    shift = np.full(centers.shape[0], np.inf)
    step_max = np.full(centers.shape[0], 4.0)
    n_iter = 0
    while n_iter < max_iter:
        if not accelerate or max_iter - n_iter < 3:
            new, new_lw, out = step(centers, log_weights, check_level)
            shift = moved(new, centers)
            n_iter += 1
            if (shift <= tol).all():
                return done(centers, log_weights, new, new_lw, out)
            centers, log_weights = new, new_lw
        else:
            c1, lw1, out1 = step(centers, log_weights, check_level)
            shift = moved(c1, centers)
            if (shift <= tol).all():
                n_iter += 1
                return done(centers, log_weights, c1, lw1, out1)
            c2, lw2, out2 = step(c1, lw1, level=1)
            r, v = c1 - centers, c2 - 2.0 * c1 + centers
            norm_r = np.sqrt(np.sum(r**2, axis=(1, 2)))
            norm_v = np.sqrt(np.sum(v**2, axis=(1, 2)))
            # min(max(.)) is np.clip's value at a fraction of its overhead
            step_length = np.minimum(np.maximum(norm_r / np.maximum(norm_v, 1e-300), 1.0), step_max)
            alpha = -step_length[:, None, None]
            jump = centers - 2.0 * alpha * r + alpha**2 * v
            c3, lw3, out3 = step(jump, lw2, level=1)
            n_iter += 3
            # keep the extrapolation only where it did not raise the free energy
            good = (out3[3] >= out2[3]) & np.all(np.isfinite(c3), axis=(1, 2))
            # a step that overshot shortens the next; one accepted at the cap lengthens it
            step_max = np.where(
                good, np.where(step_length >= step_max, 2.0 * step_max, step_max), step_max / 2.0
            )
            step_max = np.minimum(np.maximum(step_max, 1.0), 1e3)
            if good.all():
                centers, log_weights = c3, lw3
            else:
                centers = np.where(good[:, None, None], c3, c2)
                log_weights = np.where(good[:, None], lw3, lw2)
    if final_stats:
        out = _pass(X, centers, log_weights, temperature, x_sq, with_stats=2)
        return centers, log_weights, n_iter, shift, out
    return centers, log_weights, n_iter, shift


def gibbs_statistics(X, centers, log_weights, temperature, x_sq=None):
    """Free energy, distortion and entropy of the Gibbs assignment, per sample.

    Parameters
    ----------
    X, centers, log_weights, temperature, x_sq
        As in :func:`posterior`.

    Returns
    -------
    dict of ndarray of shape (n_runs,)
        ``free_energy`` ``F = -T <log sum_k w_k exp(-d_k/T)>_x``,
        ``distortion`` ``D = <sum_k p(k|x) d_k>_x``, ``entropy`` ``H(K|X)``
        in nats, and ``mutual_information`` ``I(X;K) = H(K) - H(K|X)``
        of the assignment (at a mass-constrained fixed point ``F = D + T I``).
    """
    X = np.ascontiguousarray(X, dtype=float)
    _, mass, dist, log_z, plogp = gibbs_pass(X, centers, log_weights, temperature, x_sq)
    return statistics_from_pass(X.shape[0], temperature, mass, dist, log_z, plogp)


def statistics_from_pass(n_samples, temperature, mass, distortion, log_z, plogp):
    """Per-sample path statistics from the sums of one :func:`gibbs_pass`.

    Parameters
    ----------
    n_samples : int
    temperature : float
    mass, distortion, log_z, plogp : ndarray
        As returned by :func:`gibbs_pass`.

    Returns
    -------
    dict of ndarray of shape (n_runs,)
        As :func:`gibbs_statistics`.
    """
    entropy = -plogp / n_samples
    marginal = mass / n_samples
    with np.errstate(divide="ignore", invalid="ignore"):
        h_k = -np.where(marginal > 0, marginal * np.log(marginal), 0.0).sum(axis=1)
    return {
        "free_energy": -temperature * log_z / n_samples,
        "distortion": distortion.sum(axis=1) / n_samples,
        "entropy": entropy,
        "mutual_information": h_k - entropy,
    }


# Rows up to which the estimators' fixed point of one run is iterated by one compiled
# loop (:func:`_fixed_point_one`): its blocks on this thread, whatever numba's thread
# count (so that no bit depends on it), where each pass costs tens of microseconds and
# the Python-level step around it (the pass's buffers, the centroids, the SQUAREM
# extrapolation, the tests of convergence) as much again.
_COMPILED_ROWS = 4 * _BLOCK


@numba.njit(cache=True, nogil=True)
def _pass_one(X, x_sq, centers, log_w, inv_t, with_stats):  # pragma: no cover - compiled
    """One pass of one run (``centers`` (K, d), ``log_w`` (K,)), its blocks summed in order."""
    n, d = X.shape
    K = centers.shape[0]
    n_blocks = (n + _BLOCK - 1) // _BLOCK
    cy = np.ascontiguousarray(centers)
    y_sq = np.empty((1, K))
    for k in range(K):
        acc = 0.0
        for j in range(d):
            acc += cy[k, j] * cy[k, j]
        y_sq[0, k] = acc
    lw = np.ascontiguousarray(log_w).reshape(1, K)
    sums = np.zeros((n_blocks, K, d))
    mass = np.zeros((n_blocks, 1, K))
    dist = np.zeros((n_blocks, 1, K))
    log_z = np.zeros((n_blocks, 1))
    plogp = np.zeros((n_blocks, 1))
    _pass_blocks(
        X, cy, x_sq, y_sq, lw, inv_t, with_stats, 0, n_blocks, sums, mass, dist, log_z, plogp
    )
    for blk in range(1, n_blocks):
        sums[0] += sums[blk]
        mass[0] += mass[blk]
        dist[0] += dist[blk]
        log_z[0] += log_z[blk]
        plogp[0] += plogp[blk]
    return sums[0], mass[0, 0], dist[0, 0], log_z[0, 0], plogp[0, 0]


@numba.njit(cache=True, nogil=True)
def _step_one(X, x_sq, centers, log_w, inv_t, mass_constrained, with_stats):  # pragma: no cover
    """One fixed-point step of one run: the pass, then the centroid condition and weights."""
    sums, mass, dist, log_z, plogp = _pass_one(X, x_sq, centers, log_w, inv_t, with_stats)
    K, d = centers.shape
    new = np.empty((K, d))
    for k in range(K):
        if mass[k] > 0.0:
            for j in range(d):
                new[k, j] = sums[k, j] / mass[k]
        else:
            for j in range(d):
                new[k, j] = centers[k, j]
    if mass_constrained:
        n = X.shape[0]
        new_lw = np.empty(K)
        for k in range(K):
            new_lw[k] = np.log(mass[k] / n) if mass[k] > 0.0 else -np.inf
    else:
        new_lw = log_w.copy()
    return new, new_lw, (sums, mass, dist, log_z, plogp)


@numba.njit(cache=True, nogil=True)
def _sq_norm(a):  # pragma: no cover - compiled
    acc = 0.0
    for v in a.ravel():
        acc += v * v
    return acc


@numba.njit(cache=True, nogil=True)
def _sq_change(a, b):  # pragma: no cover - compiled
    K, d = a.shape
    acc = 0.0
    for k in range(K):
        for j in range(d):
            t = a[k, j] - b[k, j]
            acc += t * t
    return acc


@numba.njit(cache=True, nogil=True)
def _fixed_point_one_loop(
    X, x_sq, centers, log_w, inv_t, mass_constrained, max_iter, tol, accelerate, final_stats
):  # pragma: no cover - compiled
    """:func:`_fixed_point_loop` for one run, compiled: the same steps and tests."""
    check_level = 2 if final_stats else 0
    shift = np.inf
    step_max = 4.0
    n_iter = 0
    while n_iter < max_iter:
        if not accelerate or max_iter - n_iter < 3:
            new, new_lw, out = _step_one(
                X, x_sq, centers, log_w, inv_t, mass_constrained, check_level
            )
            shift = _sq_change(new, centers)
            n_iter += 1
            if shift <= tol:
                if final_stats:
                    return centers, log_w, n_iter, shift, out
                return new, new_lw, n_iter, shift, out
            centers, log_w = new, new_lw
        else:
            c1, lw1, out1 = _step_one(X, x_sq, centers, log_w, inv_t, mass_constrained, check_level)
            shift = _sq_change(c1, centers)
            if shift <= tol:
                n_iter += 1
                if final_stats:
                    return centers, log_w, n_iter, shift, out1
                return c1, lw1, n_iter, shift, out1
            c2, lw2, out2 = _step_one(X, x_sq, c1, lw1, inv_t, mass_constrained, 1)
            r = c1 - centers
            v = c2 - 2.0 * c1 + centers
            norm_r = np.sqrt(_sq_norm(r))
            norm_v = np.sqrt(_sq_norm(v))
            step_length = min(max(norm_r / max(norm_v, 1e-300), 1.0), step_max)
            alpha = -step_length
            jump = centers - 2.0 * alpha * r + alpha**2 * v
            c3, lw3, out3 = _step_one(X, x_sq, jump, lw2, inv_t, mass_constrained, 1)
            n_iter += 3
            # keep the extrapolation only where it did not raise the free energy
            good = out3[3] >= out2[3] and np.all(np.isfinite(c3))
            # a step that overshot shortens the next; one accepted at the cap lengthens it
            if good:
                if step_length >= step_max:
                    step_max = 2.0 * step_max
            else:
                step_max = step_max / 2.0
            step_max = min(max(step_max, 1.0), 1e3)
            if good:
                centers, log_w = c3, lw3
            else:
                centers, log_w = c2, lw2
    out = _step_one(X, x_sq, centers, log_w, inv_t, mass_constrained, 2)[2]
    return centers, log_w, n_iter, shift, out


def _fixed_point_one(
    X,
    centers,
    log_weights,
    temperature,
    x_sq,
    *,
    mass_constrained,
    max_iter,
    tol,
    accelerate,
    final_stats=False,
):
    """:func:`_fixed_point` of one run (``centers`` (1, K, d)), compiled on small data.

    Up to ``_COMPILED_ROWS`` rows the whole iteration is one compiled loop
    (:func:`_fixed_point_one_loop`); above, and for several runs, it is
    :func:`_fixed_point`, its twin in NumPy. Same contract and returns.
    """
    if centers.shape[0] != 1 or X.shape[0] > _COMPILED_ROWS:
        return _fixed_point(
            X,
            centers,
            log_weights,
            temperature,
            x_sq,
            mass_constrained=mass_constrained,
            max_iter=max_iter,
            tol=tol,
            accelerate=accelerate,
            final_stats=final_stats,
        )
    args = (
        np.ascontiguousarray(X, dtype=float),
        np.ascontiguousarray(x_sq, dtype=float),
        np.ascontiguousarray(centers[0], dtype=float),
        np.ascontiguousarray(log_weights[0], dtype=float),
        1.0 / temperature,
        bool(mass_constrained),
        int(max_iter),
        float(tol),
        bool(accelerate),
        bool(final_stats),
    )
    if getattr(_HELD, "on", False):
        c, lw, n_iter, shift, out = _fixed_point_one_loop(*args)
    else:
        with one_blas_thread():
            c, lw, n_iter, shift, out = _fixed_point_one_loop(*args)
    sums, mass, dist, log_z, plogp = out
    shift = np.array([shift])
    if not final_stats:
        return c[None], lw[None], n_iter, shift
    stats = (sums[None], mass[None], dist[None], np.array([log_z]), np.array([plogp]))
    return c[None], lw[None], n_iter, shift, stats
