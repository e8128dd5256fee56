"""EM for learning with outliers (Dietrich & Opper, Sec. 4), batched over runs.

Notation of the paper: P examples ``xi`` (rows of X) with labels S = +-1 in
N dimensions, estimate J with ``J.J / N = Q``, local fields
``h = S xi.J / sqrt(N)`` and the per-example energy
``f = -gamma h + gamma Q / 2 + eta``.

- soft selection, eqs. (23)-(24): ``<V> = 1 / (1 + e^f)`` and
  ``J = sqrt(N) sum <V> S xi / (sum <V> + N / gamma)``;
- hard selection, eqs. (26)-(28): with ``a = gamma sum V / N + 1``,
  ``<J> = sqrt(N) sum V S xi / (sum V + N / gamma)`` and V = 1 exactly where
  ``f(<J>) + gamma / (2 a) < 0`` (the ``<J_j^2> = <J_j>^2 + 1/a`` term of
  eq. 26 adds ``gamma / (2a)`` to every example's cost);
- Hebb, eq. (25): all ``<V> = 1``.

Every function takes a leading run axis (arrays ``(n_runs, P, N)``) so that a
teacher-student simulation advances many runs per BLAS call; the estimators
in :mod:`statmechlearn.linear` call them with one run.
"""

import numba
import numpy as np
from scipy.special import expit

from statmechlearn._core.validation import (
    check_array_finite,
    check_int,
    check_magnitude,
    check_real,
)

__all__ = [
    "EMResult",
    "hard_selection_em",
    "hard_selection_energy",
    "hebb_vector",
    "soft_em_pass",
    "soft_em_pass_numpy",
    "soft_selection_em",
]


class EMResult:
    """Outcome of an EM run (arrays with the run axis first).

    Parameters
    ----------
    J, V, gamma, eta, n_iter, converged, residual
        Stored as the attributes of the same names.

    Attributes
    ----------
    J : ndarray of shape (n_runs, N)
    V : ndarray of shape (n_runs, P)
        ``<V>`` (soft) or V in {0, 1} (hard) at the returned J.
    gamma, eta : ndarray of shape (n_runs,)
        The values used at the end (estimated ones if requested).
    n_iter : int
    converged : ndarray of bool, shape (n_runs,)
    residual : ndarray of shape (n_runs,)
        Last relative change of J (soft) or number of flipped V (hard).
    """

    def __init__(self, J, V, gamma, eta, n_iter, converged, residual):
        self.J, self.V, self.gamma, self.eta = J, V, gamma, eta
        self.n_iter, self.converged, self.residual = n_iter, converged, residual


def _check_data(X, S):
    """``X`` (n_runs, P, N) and the +-1 labels ``S`` (n_runs, P) as float arrays."""
    X = check_array_finite(X, "X", ndim=3)
    if 0 in X.shape:
        raise ValueError(f"X must have at least one run, example and feature, got {X.shape}")
    check_magnitude(X, "X")
    S = check_array_finite(S, "S", shape=X.shape[:2])
    if not np.all(np.abs(S) == 1.0):
        raise ValueError("S must hold labels +1 or -1")
    return X, S


def _per_run(value, name, n_runs, *, positive):
    """A finite scalar or one value per run, broadcast to shape (n_runs,)."""
    value = check_array_finite(value, name)
    if value.size == 0 or value.ndim > 1:
        raise ValueError(f"{name} must be a float or an array of shape ({n_runs},)")
    try:
        value = np.array(np.broadcast_to(value, (n_runs,)))
    except ValueError:
        raise ValueError(f"{name} must be a float or have shape ({n_runs},)") from None
    if positive and np.any(value <= 0):
        raise ValueError(f"{name} must be > 0, got {value}")
    return value


def _iterable(value, name):
    try:
        return list(value)
    except TypeError:
        raise TypeError(f"{name} must be an iterable, got {value!r}") from None


def _check_selection(V, name, shape):
    V = check_array_finite(V, name, shape=shape)
    if not np.all((V == 0.0) | (V == 1.0)):
        raise ValueError(f"{name} must hold selections 0 or 1")
    return V


def _hebb_sum(X, S, weights):
    """``sum_mu w_mu S_mu xi_mu`` per run: one pass over X (BLAS).

    With one shared data set (``X`` of shape (1, P, N)) and m rows of
    ``weights``, all m sums are one matrix product, which reads X once.
    """
    W = weights * S
    if X.shape[0] == 1:
        # X.T @ W.T: OpenBLAS's threaded (m, P) @ (P, N) with m << P is 40x slower
        return (X[0].T @ W.T).T
    return np.matmul(W[:, None, :], X)[:, 0, :]


def _fields(X, S, J):
    """Local fields ``h = S xi.J / sqrt(N)``, shape (n_runs, P); X may be shared (1, P, N)."""
    if X.shape[0] == 1:
        return S * (X[0] @ J.T).T / np.sqrt(X.shape[-1])
    return S * np.matmul(X, J[:, :, None])[:, :, 0] / np.sqrt(X.shape[-1])


def _j_from_weights(X, S, weights, gamma):
    N = X.shape[-1]
    total = weights.sum(axis=1)
    return np.sqrt(N) * _hebb_sum(X, S, weights) / (total + N / gamma)[:, None]


@numba.njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _soft_em_rows(X, S, J, root, gamma, c, start, stop, u, v):  # pragma: no cover
    total_v = 0.0
    total_vh = 0.0
    N = X.shape[1]
    for j in range(N):
        u[j] = 0.0
    for mu in range(start, stop):
        h = 0.0
        for j in range(N):
            h += X[mu, j] * J[j]
        h *= S[mu] / root
        f = c - gamma * h
        if f > 0.0:  # 1 / (1 + e^f) without overflow
            e = np.exp(-f)
            w = e / (1.0 + e)
        else:
            w = 1.0 / (1.0 + np.exp(f))
        v[mu] = w
        total_v += w
        total_vh += w * h
        ws = w * S[mu]
        for j in range(N):
            u[j] += ws * X[mu, j]
    return total_v, total_vh


@numba.njit(cache=True, nogil=True, parallel=True)
def _soft_em_pass_kernel(X, S, J, gamma, eta, U, v, totals):  # pragma: no cover - compiled
    P, N = X.shape
    n_chunks = U.shape[0]
    c = gamma * np.dot(J, J) / N / 2.0 + eta
    root = np.sqrt(N)
    for k in numba.prange(n_chunks):  # row blocks; each thread its own partial sum
        start = k * P // n_chunks
        stop = (k + 1) * P // n_chunks
        tv, tvh = _soft_em_rows(X, S, J, root, gamma, c, start, stop, U[k], v)
        totals[k, 0] = tv
        totals[k, 1] = tvh


@numba.njit(cache=True, nogil=True)
def _soft_em_pass_serial(X, S, J, gamma, eta, u, v):  # pragma: no cover - compiled
    P, N = X.shape
    c = gamma * np.dot(J, J) / N / 2.0 + eta
    return _soft_em_rows(X, S, J, np.sqrt(N), gamma, c, 0, P, u, v)


def soft_em_pass(X, S, J, gamma, eta):
    """One E-step and the sums of the M-step in a single pass over X (numba).

    The row of X that gives an example's field ``h`` is still in cache when
    it is added to the weighted Hebb sum, so the pass reads X once: the cost
    of one matrix-vector product, where the NumPy twin needs two. Blocks of
    rows run on numba's threads, each with its own partial sum.

    Parameters
    ----------
    X : ndarray of shape (P, N), float64, C-contiguous
    S : ndarray of shape (P,), +-1
    J : ndarray of shape (N,)
    gamma, eta : float

    Returns
    -------
    u : ndarray of shape (N,)
        ``sum_mu <V_mu> S_mu xi_mu``.
    v : ndarray of shape (P,)
        ``<V_mu> = 1 / (1 + e^{f_mu(J)})``, eq. (24).
    sum_v, sum_vh : float
        ``sum <V>`` and ``sum <V> h``.
    """
    # enough rows per block to amortise the thread start; at most one block per thread
    n_chunks = max(1, min(numba.get_num_threads(), X.shape[0] // 2048))
    v = np.empty(X.shape[0])
    if n_chunks == 1:
        # one block: starting the parallel region costs more than the block on a busy
        # machine (P = 800, N = 40: EM of 186 passes took seconds on two cores)
        u = np.empty(X.shape[1])
        sum_v, sum_vh = _soft_em_pass_serial(X, S, J, float(gamma), float(eta), u, v)
        return u, v, float(sum_v), float(sum_vh)
    U = np.empty((n_chunks, X.shape[1]))
    totals = np.empty((n_chunks, 2))
    _soft_em_pass_kernel(X, S, J, float(gamma), float(eta), U, v, totals)
    sum_v, sum_vh = totals.sum(axis=0)
    return U.sum(axis=0), v, float(sum_v), float(sum_vh)


def soft_em_pass_numpy(X, S, J, gamma, eta):
    """NumPy twin of :func:`soft_em_pass` (two BLAS passes over X)."""
    N = X.shape[1]
    h = S * (X @ J) / np.sqrt(N)
    v = expit(-(gamma * (J @ J) / N / 2.0 + eta - gamma * h))
    return (v * S) @ X, v, float(v.sum()), float(v @ h)


def hebb_vector(X, S, gamma):
    """The Hebbian estimate eq. (25): ``J = sum S xi / (sqrt(N) (alpha + 1/gamma))``.

    Parameters
    ----------
    X : ndarray of shape (n_runs, P, N)
    S : ndarray of shape (n_runs, P), +-1
    gamma : float or ndarray of shape (n_runs,)
        The learner's gamma~.

    Returns
    -------
    ndarray of shape (n_runs, N)
    """
    X, S = _check_data(X, S)
    gamma = _per_run(gamma, "gamma", X.shape[0], positive=True)
    return _j_from_weights(X, S, np.ones(S.shape), gamma)


def soft_selection_em(X, S, *, gamma, eta, J0=None, estimate=(), max_iter=500, tol=1e-9):
    """MAP estimate of J by EM with soft selection of the examples, eqs. (23)-(24).

    Parameters
    ----------
    X : ndarray of shape (n_runs, P, N)
    S : ndarray of shape (n_runs, P), +-1
    gamma, eta : float or ndarray of shape (n_runs,)
        The learner's gamma~ and eta (starting values if estimated).
    J0 : ndarray of shape (n_runs, N), optional
        Starting J; default the Hebbian vector eq. (25).
    estimate : subset of {"gamma", "eta"}
        Parameters re-estimated in every M-step by maximising the marginal
        likelihood of the mixture (an ECM step: the posterior of J, gamma and
        eta never decreases).
    max_iter : int, default=500
    tol : float, default=1e-9
        Stop when the relative change of every run's J is below tol.

    Returns
    -------
    EMResult
    """
    X, S = _check_data(X, S)
    n_runs, _, N = X.shape
    gamma = _per_run(gamma, "gamma", n_runs, positive=True)
    eta = _per_run(eta, "eta", n_runs, positive=False)
    if isinstance(estimate, str) or not all(
        isinstance(e, str) and e in ("gamma", "eta") for e in _iterable(estimate, "estimate")
    ):
        raise ValueError(f"estimate must be a subset of {{'gamma', 'eta'}}, got {estimate!r}")
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    tol = check_real(tol, "tol", minimum=0.0)
    if J0 is not None:
        J0 = check_array_finite(J0, "J0", shape=(n_runs, N))
    return _soft_em(X, S, gamma, eta, J0, tuple(estimate), max_iter, tol)


def _weighted_em_pass(X, S, J, gamma, eta, w):
    """:func:`soft_em_pass_numpy` with every example's sums weighted by ``w``.

    ``<V>`` itself is the unweighted E-step; ``u``, ``sum <V>`` and ``sum <V> h``
    are the weighted sums of the M-step.
    """
    N = X.shape[1]
    h = S * (X @ J) / np.sqrt(N)
    v = expit(-(gamma * (J @ J) / N / 2.0 + eta - gamma * h))
    wv = w * v
    return (wv * S) @ X, v, float(wv.sum()), float(wv @ h)


def _soft_em(X, S, gamma, eta, J0, estimate, max_iter, tol, weights=None, callback=None):
    """:func:`soft_selection_em` on checked arrays, optionally weighted.

    ``weights`` (shape (P,), shared by the runs) multiply every example's term of
    the log posterior: the M-step's sums become weighted sums, and in the
    re-estimates ``P`` becomes ``sum w``. ``callback(n_iter, residual)`` is called
    after every iteration.
    """
    n_runs, P, N = X.shape
    X = np.ascontiguousarray(X, dtype=np.float64)
    S = np.ascontiguousarray(S, dtype=np.float64)
    if J0 is None:
        J = _j_from_weights(X, S, np.ones(S.shape) if weights is None else weights[None], gamma)
    else:
        J = np.array(J0, dtype=np.float64)
    if weights is None:
        total = P
        sq_norms = np.einsum("rpn,rpn->r", X, X) if estimate else None
    else:
        total = float(weights.sum())
        sq_norms = np.einsum("p,rpn,rpn->r", weights, X, X) if estimate else None
    residual = np.full(n_runs, np.inf)
    v = np.ones((n_runs, P))
    u = np.empty((n_runs, N))
    sum_v = np.empty(n_runs)
    sum_vh = np.empty(n_runs)
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        for r in range(n_runs):
            if weights is None:
                u[r], v[r], sum_v[r], sum_vh[r] = soft_em_pass(X[r], S[r], J[r], gamma[r], eta[r])
            else:
                u[r], v[r], sum_v[r], sum_vh[r] = _weighted_em_pass(
                    X[r], S[r], J[r], gamma[r], eta[r], weights
                )
        if estimate:
            # M-step of the marginal likelihood: 1/(1+e^eta) = mean <V>, and 1/gamma =
            # sum_mu [<V>|xi - S J/sqrt(N)|^2 + (1 - <V>)|xi|^2] / (P N)
            if "eta" in estimate:
                mean_v = np.clip(sum_v / total, 1e-12, 1.0 - 1e-12)
                eta = np.log1p(-mean_v) - np.log(mean_v)
            if "gamma" in estimate:
                Q = np.einsum("rn,rn->r", J, J) / N
                spread = sq_norms - 2.0 * sum_vh + Q * sum_v
                gamma = total * N / np.maximum(spread, np.finfo(float).tiny)
        J_new = np.sqrt(N) * u / (sum_v + N / gamma)[:, None]
        scale = np.maximum(np.linalg.norm(J_new, axis=1), np.finfo(float).tiny)
        residual = np.linalg.norm(J_new - J, axis=1) / scale
        J = J_new
        if callback is not None:
            callback(n_iter, residual)
        if np.all(residual <= tol):
            break
    return EMResult(J, v, gamma, eta, n_iter, residual <= tol, residual)


def hard_selection_energy(X, S, V, *, gamma, eta):
    """Energy (10) of a selection per N, without its V-independent constants.

    ``H_h(V) / N = eta k / N - |b|^2 / (2 N A) + ln(A) / 2`` with ``k = sum V``,
    ``b = gamma sum_mu V S xi / sqrt(N)`` and ``A = 1 + gamma k / N``.

    Parameters
    ----------
    X : ndarray of shape (n_runs, P, N)
    S, V : ndarray of shape (n_runs, P)
    gamma, eta : float or ndarray of shape (n_runs,)

    Returns
    -------
    ndarray of shape (n_runs,)
    """
    X, S = _check_data(X, S)
    V = _check_selection(V, "V", S.shape)
    gamma = _per_run(gamma, "gamma", X.shape[0], positive=True)
    eta = _per_run(eta, "eta", X.shape[0], positive=False)
    return _selection_state(X, S, V, gamma, eta)[1]


def _selection_energy(bb, k, N, gamma, eta):
    """Energy (10) per N from ``|b|^2`` and the number ``k`` of examples selected."""
    A = 1.0 + gamma * k / N
    return eta * k / N - bb / (2.0 * N * A) + 0.5 * np.log(A)


def _flip_gain_terms(bb, k, bw, w2, V, gamma, eta, N):
    """Exact change of ``N`` times the energy (10) when each ``V_mu`` alone is flipped.

    From ``|b|^2`` and ``k`` per selection, ``b . w_mu`` and ``|w_mu|^2`` per example
    (``w_mu = gamma S_mu xi_mu / sqrt(N)``): adding or removing ``w_mu`` moves ``b`` and
    ``A = 1 + gamma k / N`` by one example each.
    """
    A = 1.0 + gamma * k / N
    d = 1.0 - 2.0 * V  # +1 adds the example, -1 removes it
    A_new = A + d * gamma / N
    return (
        eta * d
        - (bb + 2.0 * d * bw + w2) / (2.0 * A_new)
        + bb / (2.0 * A)
        + 0.5 * N * np.log(A_new / A)
    )


def _selection_state(X, S, V, gamma, eta):
    """``b = gamma sum V S xi / sqrt(N)`` (one pass over X) and the energy (10) per N."""
    N = X.shape[-1]
    b = gamma[:, None] * _hebb_sum(X, S, V) / np.sqrt(N)
    return b, _selection_energy(np.einsum("rn,rn->r", b, b), V.sum(axis=1), N, gamma, eta)


def _flip_gains(X, S, V, b, gamma, eta, row_sq):
    """Exact change of the energy (10) when each V_mu alone is flipped (one pass over X)."""
    N = X.shape[-1]
    bb = np.einsum("rn,rn->r", b, b)[:, None]
    bw = gamma[:, None] * _fields(X, S, b)
    w2 = gamma[:, None] ** 2 * row_sq / N
    k = V.sum(axis=1)[:, None]
    return _flip_gain_terms(bb, k, bw, w2, V, gamma[:, None], eta[:, None], N)


def _rows(X, S, idx):
    """The data of the runs ``idx``: all of them share X and S when X has one run."""
    return (X, S) if X.shape[0] == 1 else (X[idx], S[idx])


def _flip_descent(X, S, V, gamma, eta, max_iter):
    """Flip V's until no single flip lowers the energy (10); (V, iterations, converged).

    Each iteration reads X twice: the fields of the current ``b`` and the
    ``b`` of the trial selection, which is the next iteration's ``b``. Runs
    at a local minimum drop out of the products.
    """
    row_sq = np.einsum("rpn,rpn->rp", X, X)
    V = V.copy()
    converged = np.zeros(V.shape[0], dtype=bool)
    b, energy = _selection_state(X, S, V, gamma, eta)
    n_iter = 0
    for n_iter in range(1, max_iter + 1):  # noqa: B007 - n_iter is reported
        idx = np.flatnonzero(~converged)
        Xa, Sa = _rows(X, S, idx)
        ga, ea, Va = gamma[idx], eta[idx], V[idx]
        gains = _flip_gains(Xa, Sa, Va, b[idx], ga, ea, _rows(row_sq, row_sq, idx)[0])
        improving = gains * X.shape[-1] < -1e-10
        stuck = ~improving.any(axis=1)
        converged[idx[stuck]] = True
        if converged.all():
            break
        # all improving flips at once; where their interaction undoes the gain, the best one
        trial = np.where(improving, 1.0 - Va, Va)
        trial_b, trial_energy = _selection_state(Xa, Sa, trial, ga, ea)
        worse = (trial_energy >= energy[idx]) & ~stuck
        if worse.any():
            rows = np.nonzero(worse)[0]
            best = np.argmin(gains[rows], axis=1)
            trial[rows] = Va[rows]
            trial[rows, best] = 1.0 - Va[rows, best]
            Xw, Sw = _rows(Xa, Sa, rows)
            trial_b[rows], trial_energy[rows] = _selection_state(
                Xw, Sw, trial[rows], ga[rows], ea[rows]
            )
        V[idx], b[idx], energy[idx] = trial, trial_b, trial_energy
    return V, n_iter, converged


def hard_selection_em(X, S, *, gamma, eta, V0=None, max_iter=500, polish=True):
    """MAP estimate of the selection variables V by EM, eqs. (26)-(28).

    EM is block-coordinate descent on J and V, and its fixed points keep
    an example selected as long as its field *including its own
    contribution* passes the threshold: they are not always local minima of
    the energy (10). With ``polish=True`` the EM result is refined by exact
    single-example flips (each flip's change of (10) is computed for all
    examples in one pass over X) until no flip lowers the energy, which is
    what the replica theory of the MAP (``theory.outliers.hard_selection``)
    describes.

    Parameters
    ----------
    X : ndarray of shape (n_runs, P, N)
    S : ndarray of shape (n_runs, P), +-1
    gamma, eta : float or ndarray of shape (n_runs,)
    V0 : ndarray of shape (n_runs, P), optional
        Starting selection; default all examples selected (the Hebb start).
    max_iter : int, default=500
        V takes finitely many values and every step lowers the energy (10),
        so the iteration stops when V repeats; ``max_iter`` bounds it (and,
        separately, the flip descent).
    polish : bool, default=True
        Refine the EM fixed point by single-flip descent on (10).

    Returns
    -------
    EMResult
        ``J`` is ``<J>`` of eq. (28) for the final V; ``n_iter`` counts EM
        and flip iterations together.
    """
    X, S = _check_data(X, S)
    n_runs = X.shape[0]
    gamma = _per_run(gamma, "gamma", n_runs, positive=True)
    eta = _per_run(eta, "eta", n_runs, positive=False)
    V = np.ones(S.shape) if V0 is None else np.array(_check_selection(V0, "V0", S.shape))
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    return _hard_em(X, S, V, gamma, eta, max_iter, polish)


def _hard_em(X, S, V, gamma, eta, max_iter, polish):
    """:func:`hard_selection_em` on checked arrays; X and S may be shared by all V's rows.

    ``X`` (1, P, N) and ``S`` (1, P) with ``V``, ``gamma`` and ``eta`` of m rows run
    EM from m starts on one data set, one matrix product per step for all of them.
    """
    N = X.shape[-1]
    flips = np.full(V.shape[0], S.shape[1])
    n_iter = 0
    V = V.copy()
    J = _j_from_weights(X, S, V, gamma)
    for n_iter in range(1, max_iter + 1):  # noqa: B007 - n_iter is reported
        # runs at a fixed point drop out of the products
        idx = np.flatnonzero(flips > 0)
        Xa, Sa = _rows(X, S, idx)
        ga, Ja = gamma[idx], J[idx]
        a = ga * V[idx].sum(axis=1) / N + 1.0
        Q = np.einsum("rn,rn->r", Ja, Ja) / N
        threshold = ga * Q / 2.0 + eta[idx] + ga / (2 * a)
        cost = -ga[:, None] * _fields(Xa, Sa, Ja) + threshold[:, None]
        V_new = (cost < 0).astype(float)
        flips[idx] = np.sum(V_new != V[idx], axis=1)
        V[idx] = V_new
        J[idx] = _j_from_weights(Xa, Sa, V_new, ga)
        if np.all(flips == 0):
            break
    converged = flips == 0
    if polish:
        V_em = V
        V, n_flip_iter, converged = _flip_descent(X, S, V, gamma, eta, max_iter)
        flips = np.sum(V_em != V, axis=1)
        n_iter += n_flip_iter
        J = _j_from_weights(X, S, V, gamma)
    return EMResult(J, V, gamma, eta, n_iter, converged, flips.astype(float))
