"""Fixed point of maximum-entropy clustering, batched over independent runs.

For code vectors ``y_k`` with log-weights ``log w_k`` at temperature ``T`` the
Gibbs assignment is ``p(k|x) = w_k exp(-|x - y_k|^2 / T) / Z_x``. The kernel
alternates it with the centroid condition ``y_k = sum_x p(k|x) x / sum_x p(k|x)``
(and ``w_k = mean_x p(k|x)`` when mass-constrained), which is EM for an
isotropic Gaussian mixture of variance ``T/2``. Arrays carry a leading run
axis ``B`` so that many starts on the same data cost one matrix product.

One pass (:func:`gibbs_pass`) is a numba loop over fixed blocks of rows
(:mod:`statmechlearn.cluster._gibbs_kernels`, which says how); sample weights,
where given, multiply each point's share of every sum, so that an integer weight
is the point repeated. :func:`gibbs_pass_numpy` is the dense NumPy twin the tests
hold the kernel to.
Distances use ``|x|^2 - 2 x.y + |y|^2``; callers centre ``X`` first when its
mean is far from the origin. The pass needs O(B K d) memory beyond ``X``;
:func:`posterior` returns O(n B K).
"""

import numpy as np
from scipy.special import logsumexp

from statmechlearn._core.distances import squared_distances
from statmechlearn._core.threads import one_blas_thread
from statmechlearn._core.validation import (
    check_array_finite,
    check_int,
    check_magnitude,
    check_real,
)
from statmechlearn.cluster._gibbs_kernels import (
    _BLOCK,
    _HELD,
    _LOG_TINY,  # noqa: F401 - its users import it here
    _NO_WEIGHTS,
    _SPAN,
    _one_run_loop,
    _OneRun,
    _pass_kernel,
    _softmax_rows,
    blas_held,
)

__all__ = [
    "blas_held",
    "gibbs_fixed_point",
    "gibbs_pass",
    "gibbs_pass_numpy",
    "gibbs_statistics",
    "posterior",
    "statistics_from_pass",
]

# Rows up to which the estimators' fixed point of one run is :class:`_OneRun`'s loop
# (above, and for several runs, :func:`_fixed_point`). Its sums follow the order of the
# compiled one-run loop it replaced (the same bits); on a few blocks of rows its Python
# costs tens of microseconds a pass, where that loop cost seconds to compile.
_ONE_RUN_ROWS = 4 * _BLOCK


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


def _check_public_weights(X, sample_weight):
    """Sample weights a caller passed: None, or finite, >= 0, of shape (n_samples,), sum > 0."""
    if sample_weight is None:
        return None
    w = check_array_finite(sample_weight, "sample_weight", shape=X.shape[:1])
    if np.any(w < 0):
        raise ValueError("sample_weight must be non-negative")
    if not w.sum() > 0:
        raise ValueError("sample_weight must have a positive sum (not all zero)")
    return w


def total_weight(n_samples, sample_weight):
    """``n_samples``, or the sum of the weights: the normaliser of the per-sample sums."""
    return n_samples if sample_weight is None else float(np.sum(sample_weight))


def gibbs_pass(X, centers, log_weights, temperature, x_sq=None, sample_weight=None):
    """One Gibbs assignment of every point, reduced to what the fixed point needs.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    centers : ndarray of shape (n_runs, n_clusters, n_features)
    log_weights : ndarray of shape (n_runs, n_clusters)
    temperature : float
        ``T > 0``.
    x_sq : ndarray of shape (n_samples,), optional
    sample_weight : ndarray of shape (n_samples,), optional
        Weights ``a_x >= 0`` of the points: every sum below is ``sum_x a_x (...)``
        (an integer weight is the point repeated). None: all one.

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
    sample_weight = _check_public_weights(X, sample_weight)
    return _checked_pass(X, centers, log_weights, temperature, x_sq, sample_weight)


def _checked_pass(X, centers, log_weights, temperature, x_sq, sample_weight=None):
    """:func:`gibbs_pass` on checked inputs (the estimators' per-temperature call)."""
    return _pass(
        X, centers, log_weights, temperature, x_sq, with_stats=2, sample_weight=sample_weight
    )


def gibbs_pass_numpy(X, centers, log_weights, temperature, x_sq=None, sample_weight=None):
    """Dense NumPy twin of :func:`gibbs_pass`: same contract, nothing dropped or compiled."""
    logits = _logits(X, centers, log_weights, temperature, _check_x_sq(X, x_sq))
    log_z = logsumexp(logits, axis=2)
    proba = np.exp(logits - log_z[:, :, None])
    n, B, K = proba.shape
    a = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    d2 = np.stack([squared_distances(X, c, x_sq) for c in centers], axis=1)
    weighted = proba * a[:, None, None]
    sums = (weighted.reshape(n, B * K).T @ X).reshape(B, K, -1)
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(proba > 0, weighted * np.log(proba), 0.0).sum(axis=(0, 2))
    return (
        sums,
        weighted.sum(axis=0),
        (weighted * d2).sum(axis=0),
        (a[:, None] * log_z).sum(axis=0),
        plogp,
    )


def _pass(X, centers, log_weights, temperature, x_sq, *, with_stats, sample_weight=None):
    # one layout for the kernel: a Fortran-ordered X (a user's, or a transposed
    # view), a strided x_sq or a read-only array would otherwise compile and cache a
    # second specialisation of it
    X, x_sq = _kernel_array(X), _kernel_array(x_sq)
    w = _NO_WEIGHTS if sample_weight is None else _kernel_array(sample_weight)
    centers = np.asarray(centers, dtype=float)
    B, K, d = centers.shape
    cy = _kernel_array(centers.reshape(B * K, d))
    y_sq = _kernel_array(np.einsum("bkd,bkd->bk", centers, centers))
    log_weights = _kernel_array(log_weights)
    args = (X, x_sq, w, cy, y_sq, log_weights, 1.0 / temperature, with_stats)
    if getattr(_HELD, "on", False):
        return _spans(*args)
    # the kernel's per-block products must not start BLAS threads of their own
    with one_blas_thread():
        return _spans(*args)


def _kernel_array(a):
    """``a`` as the kernels take it: float64, C-contiguous and writeable (one signature)."""
    a = np.ascontiguousarray(a, dtype=float)
    return a if a.flags.writeable else a.copy()


def _spans(X, x_sq, w, cy, y_sq, log_weights, inv_t, with_stats):
    """The pass over ``X``, ``_SPAN`` rows per kernel call, summed in order."""
    if 0 < X.shape[0] <= _SPAN:
        return _pass_kernel(X, x_sq, w, cy, y_sq, log_weights, inv_t, with_stats)
    out = None
    # at most _SPAN rows per call bounds the per-block buffers at O(K d)
    for start in range(0, X.shape[0], _SPAN):
        rows = slice(start, start + _SPAN)
        part = _pass_kernel(X[rows], x_sq[rows], w[rows], cy, y_sq, log_weights, inv_t, with_stats)
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
    sample_weight=None,
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
    sample_weight : ndarray of shape (n_samples,), optional
        Weights of the points in the masses and centroid sums (an integer
        weight is the point repeated); None: all one.

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
        sample_weight=_check_public_weights(X, sample_weight),
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
    sample_weight=None,
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
            sample_weight=sample_weight,
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
    sample_weight,
):
    """The iteration of :func:`_fixed_point`, with division by zero silenced."""
    n = total_weight(X.shape[0], sample_weight)
    check_level = 2 if final_stats else 0

    def step(c, lw, level=0):
        out = _pass(X, c, lw, temperature, x_sq, with_stats=level, sample_weight=sample_weight)
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
        out = _pass(
            X, centers, log_weights, temperature, x_sq, with_stats=2, sample_weight=sample_weight
        )
        return centers, log_weights, n_iter, shift, out
    return centers, log_weights, n_iter, shift


def gibbs_statistics(X, centers, log_weights, temperature, x_sq=None, sample_weight=None):
    """Free energy, distortion and entropy of the Gibbs assignment, per sample.

    Parameters
    ----------
    X, centers, log_weights, temperature, x_sq
        As in :func:`posterior`.
    sample_weight : ndarray of shape (n_samples,), optional
        As in :func:`gibbs_pass`: the averages below are then weighted.

    Returns
    -------
    dict of ndarray of shape (n_runs,)
        ``free_energy`` ``F = -T <log sum_k w_k exp(-d_k/T)>_x``,
        ``distortion`` ``D = <sum_k p(k|x) d_k>_x``, ``entropy`` ``H(K|X)``
        in nats, and ``mutual_information`` ``I(X;K) = H(K) - H(K|X)``
        of the assignment (at a mass-constrained fixed point ``F = D + T I``).
    """
    X = np.ascontiguousarray(X, dtype=float)
    _, mass, dist, log_z, plogp = gibbs_pass(
        X, centers, log_weights, temperature, x_sq, sample_weight
    )
    n = total_weight(X.shape[0], sample_weight)
    return statistics_from_pass(n, temperature, mass, dist, log_z, plogp)


def statistics_from_pass(n_samples, temperature, mass, distortion, log_z, plogp):
    """Per-sample path statistics from the sums of one :func:`gibbs_pass`.

    Parameters
    ----------
    n_samples : int or float
        The number of samples, or the sum of their weights.
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
    sample_weight=None,
):
    """:func:`_fixed_point` of one run (``centers`` (1, K, d)), block by block on small data.

    Up to ``_ONE_RUN_ROWS`` rows the iteration is :class:`_OneRun`'s; above, and
    for several runs, it is :func:`_fixed_point`. Same contract and returns.
    """
    if centers.shape[0] != 1 or X.shape[0] > _ONE_RUN_ROWS:
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
            sample_weight=sample_weight,
        )
    step = _OneRun(
        _kernel_array(X),
        _kernel_array(x_sq),
        temperature,
        mass_constrained,
        None if sample_weight is None else _kernel_array(sample_weight),
    )
    args = (
        step,
        _kernel_array(centers[0]),
        _kernel_array(log_weights[0]),
        int(max_iter),
        float(tol),
        bool(accelerate),
        bool(final_stats),
    )
    if getattr(_HELD, "on", False):
        c, lw, n_iter, shift, out = _one_run_loop(*args)
    else:
        with one_blas_thread():
            c, lw, n_iter, shift, out = _one_run_loop(*args)
    sums, mass, dist, log_z, plogp = out
    shift = np.array([shift])
    if not final_stats:
        return c[None], lw[None], n_iter, shift
    stats = (sums[None], mass[None], dist[None], np.array([log_z]), np.array([plogp]))
    return c[None], lw[None], n_iter, shift, stats
