"""On-line winner-takes-all learning simulated in its order parameters, exactly at finite N.

For the paper's data (``x = lam B_sigma + sqrt(v_sigma) z``, ``z`` standard normal in
N dimensions, orthonormal ``B_+, B_-``) eq. (1) changes the prototypes only through
``x``, and the winner depends on ``x`` only through its projections. Write ``W_k⊥``
for the part of prototype ``k`` outside the span of the ``B``; their Gram matrix is
``S = Q - R R^T``. For a fresh example

- ``z . B_tau = xi_tau`` and ``z . W_k = sum_tau R_k tau xi_tau + (L eta)_k`` with
  ``S = L L^T`` and ``xi, eta`` independent standard normals;
- ``|z|^2 = |xi|^2 + |eta|^2 + chi2``, ``chi2`` a chi-square of ``N - 2 - K`` degrees
  of freedom, independent of both (the part of ``z`` outside the span of the ``B``
  and ``W``; where ``S`` is singular, the ``eta`` along its null directions count
  with it, which makes up the missing degrees of freedom).

With ``b_tau = x . B_tau``, ``h_k = x . W_k`` and ``|x|^2`` from these, the winner
``k`` (least ``Q_kk - 2 h_k``) moves by ``W_k <- (1 - s) W_k + s x``, so

    R_k tau <- (1 - s) R_k tau + s b_tau,
    Q_kk   <- (1 - s)^2 Q_kk + 2 s (1 - s) h_k + s^2 |x|^2,
    Q_kj   <- (1 - s) Q_kj + s h_j          (j != k).

After the update the prototypes again lie in a space that the next example's fresh
``z`` sees only through the new ``(R, Q)``: the chain of order parameters is the same
Markov chain as the N-dimensional simulation's, in law, at any N, for
``O(K^2)`` work per example instead of ``O(N K)`` (and no N-dimensional example is
drawn). :func:`wta_overlap_updates` is the compiled chain; its NumPy twin
:func:`wta_overlap_updates_numpy` is what the tests hold it to, and they check the
update algebra step by step against N-dimensional prototypes and the law against the
N-dimensional simulation.
"""

import math

import numba
import numpy as np

from statmechlearn._core.rng import check_random_state
from statmechlearn._core.validation import check_array_finite, check_int, check_real
from statmechlearn.models.labeled_mixture import LABELS

__all__ = ["wta_overlap_updates", "wta_overlap_updates_numpy"]


def _check(R, Q, n_steps, model, prototype_labels, learning_rate, a, b, random_state):
    R = np.array(check_array_finite(R, "R", ndim=2), dtype=float)
    K = R.shape[0]
    if R.shape != (K, 2) or K == 0:
        raise ValueError(f"R must have shape (n_prototypes, 2), got {R.shape}")
    Q = np.array(check_array_finite(Q, "Q", shape=(K, K)), dtype=float)
    if not np.allclose(Q, Q.T, rtol=0.0, atol=1e-12 * max(1.0, np.abs(Q).max())):
        raise ValueError("Q must be symmetric")
    gram = Q - R @ R.T
    scale = max(1.0, float(np.abs(Q).max()), float((R * R).sum(axis=1).max()))
    if np.linalg.eigvalsh(gram)[0] < -1e-10 * scale:
        raise ValueError(
            "Q - R R^T must be positive semi-definite (the Gram matrix of the prototypes' "
            "parts outside the span of the cluster centres); R and Q are not the overlaps "
            "of real vectors"
        )
    labels = np.asarray(check_array_finite(prototype_labels, "prototype_labels", shape=(K,)))
    n_steps = check_int(n_steps, "n_steps", minimum=0)
    if model.n_features <= 2 + K:
        raise ValueError(
            f"model.n_features must exceed 2 + n_prototypes = {2 + K} (the order parameters "
            f"span that many dimensions), got {model.n_features}"
        )
    learning_rate = check_real(learning_rate, "learning_rate", minimum=0.0)
    a, b = check_real(a, "a"), check_real(b, "b")
    rng = check_random_state(random_state)
    # the examples' randomness, drawn in the order LabeledMixture.sample draws its labels
    cluster = (rng.random(n_steps) >= model.p_plus).astype(np.intp)
    normals = rng.standard_normal((n_steps, 2 + K))
    chi2 = rng.chisquare(model.n_features - 2 - K, n_steps)
    return R, Q, labels.astype(float), cluster, normals, chi2, learning_rate, float(a), float(b)


def _model_arrays(model):
    return float(model.lam), np.sqrt(model.variances), LABELS.astype(float)


def wta_overlap_updates(
    R, Q, n_steps, *, model, prototype_labels, learning_rate, a, b, random_state=None
):
    """Apply eq. (1) for ``n_steps`` fresh examples of ``model``, in the order parameters.

    The exact finite-N law of the order parameters of an on-line run
    (module docstring): the same chain as :func:`wta_online_updates` on
    N-dimensional prototypes with ``R = W B^T`` and ``Q = W W^T``, at
    ``O(K^2)`` per example whatever N.

    Parameters
    ----------
    R : array_like of shape (n_prototypes, 2)
        ``R[k, tau] = W_k . B_tau`` before the first example.
    Q : array_like of shape (n_prototypes, n_prototypes)
        ``Q[k, j] = W_k . W_j``, symmetric.
    n_steps : int
        Examples to present, >= 0.
    model : LabeledMixture
        The data: N, the prior, ``lam`` and the variances (the basis does not matter).
        N must exceed ``2 + n_prototypes``.
    prototype_labels : array_like of shape (n_prototypes,)
        Labels of the prototypes, compared with the examples' labels +-1.
    learning_rate : float
        Step per example (``eta / N`` in the paper's scaling), >= 0.
    a, b : float
        Modulation ``g(S, sigma) = a + b S sigma`` (:data:`WTA_RULES`).
    random_state : None, int, numpy.random.RandomState or numpy.random.Generator
        Source of the examples.

    Returns
    -------
    R : ndarray of shape (n_prototypes, 2)
    Q : ndarray of shape (n_prototypes, n_prototypes)
        The order parameters after the last example (new arrays).
    """
    R, Q, labels, cluster, normals, chi2, lr, a, b = _check(
        R, Q, n_steps, model, prototype_labels, learning_rate, a, b, random_state
    )
    lam, sd, class_labels = _model_arrays(model)
    _chain(R, Q, labels, cluster, normals, chi2, lam, sd, class_labels, lr, a, b)
    return _finite(R, Q)


def _finite(R, Q):
    if not (np.all(np.isfinite(R)) and np.all(np.isfinite(Q))):
        raise ValueError(
            "the order parameters overflowed: the step learning_rate * (a +- b) is too "
            "large for the data's scale"
        )
    return R, Q


@numba.njit(cache=True, nogil=True)
def _factor(S, L):  # pragma: no cover - compiled
    """``L`` with ``L L^T = S``: Cholesky, or the eigen square root where S is singular."""
    K = S.shape[0]
    L[:] = 0.0
    for j in range(K):
        diag = S[j, j]
        for m in range(j):
            diag -= L[j, m] * L[j, m]
        if not diag > 1e-300:
            values, vectors = np.linalg.eigh(S)
            for r in range(K):
                for c in range(K):
                    L[r, c] = vectors[r, c] * math.sqrt(max(values[c], 0.0))
            return
        L[j, j] = math.sqrt(diag)
        for i in range(j + 1, K):
            off = S[i, j]
            for m in range(j):
                off -= L[i, m] * L[j, m]
            L[i, j] = off / L[j, j]


@numba.njit(cache=True, nogil=True)
def _chain(
    R, Q, labels, cluster, normals, chi2, lam, sd, class_labels, lr, a, b
):  # pragma: no cover
    K = R.shape[0]
    S = np.empty((K, K))
    L = np.empty((K, K))
    h = np.empty(K)
    bproj = np.empty(2)
    for t in range(cluster.size):
        sigma = cluster[t]
        s_dev = sd[sigma]
        for i in range(K):
            for j in range(K):
                S[i, j] = Q[i, j] - R[i, 0] * R[j, 0] - R[i, 1] * R[j, 1]
        _factor(S, L)
        norm2 = chi2[t]
        for c in range(2 + K):
            norm2 += normals[t, c] * normals[t, c]
        for tau in range(2):
            bproj[tau] = s_dev * normals[t, tau]
        bproj[sigma] += lam
        best = 0
        best_d = np.inf
        for k in range(K):
            zw = R[k, 0] * normals[t, 0] + R[k, 1] * normals[t, 1]
            for c in range(K):
                zw += L[k, c] * normals[t, 2 + c]
            h[k] = lam * R[k, sigma] + s_dev * zw
            d = Q[k, k] - 2.0 * h[k]
            if d < best_d:
                best_d = d
                best = k
        x2 = lam * lam + 2.0 * lam * s_dev * normals[t, sigma] + s_dev * s_dev * norm2
        g = a + b if labels[best] == class_labels[sigma] else a - b
        s = lr * g
        if s == 0.0:
            continue
        k = best
        for tau in range(2):
            R[k, tau] = (1.0 - s) * R[k, tau] + s * bproj[tau]
        for j in range(K):
            if j != k:
                Q[k, j] = (1.0 - s) * Q[k, j] + s * h[j]
                Q[j, k] = Q[k, j]
        Q[k, k] = (1.0 - s) * (1.0 - s) * Q[k, k] + 2.0 * s * (1.0 - s) * h[k] + s * s * x2
        if not math.isfinite(Q[k, k]):
            return  # overflowed: the caller refuses the step size


def wta_overlap_updates_numpy(
    R, Q, n_steps, *, model, prototype_labels, learning_rate, a, b, random_state=None
):
    """Plain-NumPy twin of :func:`wta_overlap_updates` (same contract, same draws).

    Parameters
    ----------
    R, Q, n_steps, model, prototype_labels, learning_rate, a, b, random_state
        As in :func:`wta_overlap_updates`.

    Returns
    -------
    R, Q : ndarray
    """
    R, Q, labels, cluster, normals, chi2, lr, a, b = _check(
        R, Q, n_steps, model, prototype_labels, learning_rate, a, b, random_state
    )
    lam, sd, class_labels = _model_arrays(model)
    with np.errstate(over="ignore", invalid="ignore"):
        _chain_numpy(R, Q, labels, cluster, normals, chi2, lam, sd, class_labels, lr, a, b)
    return _finite(R, Q)


def _chain_numpy(R, Q, labels, cluster, normals, chi2, lam, sd, class_labels, lr, a, b):
    """:func:`_chain` step by step in NumPy, on given draws (``R``, ``Q`` in place)."""
    K = R.shape[0]
    for t in range(cluster.size):
        sigma = cluster[t]
        S = Q - R @ R.T
        try:
            L = np.linalg.cholesky(S)
        except np.linalg.LinAlgError:
            values, vectors = np.linalg.eigh(S)
            L = vectors * np.sqrt(np.maximum(values, 0.0))
        xi, eta = normals[t, :2], normals[t, 2:]
        s_dev = sd[sigma]
        bproj = s_dev * xi + lam * (np.arange(2) == sigma)
        h = lam * R[:, sigma] + s_dev * (R @ xi + L @ eta)
        norm2 = normals[t] @ normals[t] + chi2[t]
        x2 = lam**2 + 2 * lam * s_dev * xi[sigma] + s_dev**2 * norm2
        k = int(np.argmin(np.diag(Q) - 2.0 * h))
        s = lr * (a + b if labels[k] == class_labels[sigma] else a - b)
        if s == 0.0:
            continue
        R[k] = (1.0 - s) * R[k] + s * bproj
        others = np.arange(K) != k
        Q[k, others] = (1.0 - s) * Q[k, others] + s * h[others]
        Q[others, k] = Q[k, others]
        Q[k, k] = (1.0 - s) * (1.0 - s) * Q[k, k] + 2.0 * s * (1.0 - s) * h[k] + s * s * x2
        if not np.isfinite(Q[k, k]):
            return
