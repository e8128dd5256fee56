"""Message passing for the sparse Bayesian classifier (Uda & Kabashima §4).

Two implementations of the same belief propagation for the posterior of a
perceptron ``P(y | x, w, c) = f(y sum_l c_l w_l x_l / sqrt(N))`` with
pruning variables ``c_l in {0, 1}`` and the canonical prior eq. (19):

* :func:`sparse_bayes_amp` — the O(NM)-per-update form, eqs. (40)–(41):
  one pass costs two matrix–vector products with the data plus O(N + M).
* :func:`sparse_bayes_bp` — the naive O(N^2 M) belief propagation of
  eqs. (28)–(35), with one message per directed edge. It exists as the
  reference the fast form is tested against and as the benchmark's
  demonstration of what the reduction saves.

Both use the pattern matrix ``F[mu, l] = y_mu x_{mu l} / sqrt(N)``, start
from the uninformed beliefs ``m_l = 0`` and, at every update, tune the prior's
precision ``A = F + Qhat`` and log-odds ``lam`` so that the pruning
conditions (34)–(35) hold (:func:`~statmechlearn.theory.sparse_bayes.match_pruning`).
"""

import numpy as np

from statmechlearn._core.validation import (
    check_array_finite,
    check_int,
    check_magnitude,
    check_real,
)
from statmechlearn.linear._sparse_bayes_kernels import prior_update
from statmechlearn.theory.sparse_bayes import belief_moments, match_pruning

__all__ = ["sparse_bayes_amp", "sparse_bayes_bp"]


def _pattern_matrix(X, y):
    X = check_array_finite(X, "X", ndim=2)
    if 0 in X.shape:
        raise ValueError(f"X must have at least one example and one feature, got {X.shape}")
    check_magnitude(X, "X")
    y = check_array_finite(y, "y", shape=X.shape[:1])
    if not np.all(np.abs(y) == 1.0):
        raise ValueError("y must hold labels +1 or -1")
    return y[:, None] * X / np.sqrt(X.shape[1])


def sparse_bayes_amp(
    X,
    y,
    C,
    activation,
    *,
    max_iter=200,
    tol=1e-6,
    damping=0.0,
    callback=None,
):
    """Run the O(NM) message-passing algorithm, eqs. (40)–(41).

    One update ``t -> t + 1``::

        V     = C - Q^t                               (Xi^t, eq. 26)
        omega = F m^t - V a^t                         (cavity stabilities, eq. 38)
        a, b  = d/domega, d^2/domega^2 ln Z(omega, V) (eqs. 28-29, 40)
        theta = F^T a,   Gamma = sum(b) / N           (eqs. 33, 39)
        h     = theta - Gamma m^t                     (eq. 41)
        (A, lam) from the pruning conditions          (eqs. 34-35)
        m^{t+1} = rho(h) h / A                        (eq. 36)

    Parameters
    ----------
    X : ndarray of shape (M, N)
        Inputs, already preprocessed (the theory assumes ``|x| = sqrt(N)``).
    y : ndarray of shape (M,)
        Labels in ``{-1, +1}``.
    C : float
        Fraction of active components, in ``(0, 1]``.
    activation : object
        Output channel with ``log_partition(h, V)`` (see
        :class:`~statmechlearn.theory.sparse_bayes.SmoothedStepActivation`).
    max_iter : int, default=200
        Updates at most.
    tol : float, default=1e-6
        Stop when ``max |m^{t+1} - m^t|`` falls below ``tol`` times the RMS of
        ``m^{t+1}``.
    damping : float, default=0.0
        Weight of the old messages ``m`` and ``a`` in the new ones, in
        ``[0, 1)``; 0 is the paper's undamped update.
    callback : callable, optional
        ``callback(t, m)`` after every update (``t`` from 1); used by the
        experiments to record order parameters along the trajectory.

    Returns
    -------
    dict
        ``m`` (``<c_l w_l>``), ``rho`` (``<c_l>``), ``a``, ``omega`` (cavity
        stabilities at the last update), ``variance`` (``C - Q``), ``A``,
        ``lam``, ``Gamma``, ``n_iter``, ``converged`` and ``change`` (the
        relative change per update).
    """
    Fm = _pattern_matrix(X, y)
    C = check_real(C, "C", minimum=0.0, maximum=1.0, include_min=False)
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    tol = check_real(tol, "tol", minimum=0.0)
    damping = check_real(damping, "damping", minimum=0.0, maximum=1.0, include_max=False)
    return fixed_damping_amp(Fm, C, activation, max_iter, tol, damping, callback)


def fixed_damping_amp(Fm, C, activation, max_iter, tol, damping, callback=None, weights=None):
    """:func:`sparse_bayes_amp` on the pattern matrix ``Fm`` and checked parameters.

    ``weights`` (shape (M,), optional) multiply every example's output messages
    ``a`` and ``b`` where they are summed into ``theta`` and ``Gamma``: for an
    integer weight, the iteration on the data with the example repeated.
    """
    n_samples, n_features = Fm.shape
    m = np.zeros(n_features)
    a = np.zeros(n_samples)
    A, lam = None, None
    change = []
    converged = False
    t = 0
    for t in range(1, max_iter + 1):
        V = max(C - np.mean(m * m), 1e-12 * C)
        omega = Fm @ m - V * a
        _, a_new, b = activation.log_partition(omega, V)
        if damping and t > 1:
            a_new = damping * a + (1.0 - damping) * a_new
        if weights is None:
            theta = Fm.T @ a_new
            gamma = np.sum(b) / n_features
        else:
            theta = Fm.T @ (weights * a_new)
            gamma = np.sum(weights * b) / n_features
        h = theta - gamma * m
        A, lam, rho, m_new = prior_update(h, C, A, lam)
        if damping and t > 1:
            m_new = damping * m + (1.0 - damping) * m_new
        scale = np.sqrt(np.mean(m_new * m_new))
        delta = np.max(np.abs(m_new - m)) / scale if scale > 0 else 0.0
        change.append(delta)
        m, a = m_new, a_new
        if callback is not None:
            callback(t, m)
        if not np.isfinite(delta):
            break
        if delta < tol:
            converged = True
            break
    V = max(C - np.mean(m * m), 1e-12 * C)
    omega = Fm @ m - V * a
    return {
        "m": m,
        "rho": rho,
        "a": a,
        "omega": omega,
        "variance": V,
        "A": A,
        "lam": lam,
        "Gamma": gamma,
        "n_iter": t,
        "converged": converged,
        "change": np.asarray(change),
    }


def sparse_bayes_bp(X, y, C, activation, *, n_iter=50):
    """Naive belief propagation with one message per edge, eqs. (28)–(35).

    Keeps the cavity means ``m_{l -> mu}`` (N x M) and the output messages
    ``a_{mu -> l}`` (M x N) and forms every cavity sum by excluding one term
    explicitly, which costs O(N^2 M) per update: the reference the O(NM)
    form is tested against.

    Parameters
    ----------
    X : ndarray of shape (M, N)
        Inputs, already preprocessed.
    y : ndarray of shape (M,)
        Labels in ``{-1, +1}``.
    C : float
        Fraction of active components, in ``(0, 1]``.
    activation : object
        Output channel with ``log_partition(h, V)``.
    n_iter : int, default=50
        Number of updates.

    Returns
    -------
    dict
        ``m`` (``<c_l w_l>`` from the full fields, eq. 36), ``rho``,
        ``omega`` (cavity stabilities ``<Delta_mu>_mu``), ``variance``,
        ``A`` and ``lam``.
    """
    Fm = _pattern_matrix(X, y)
    C = check_real(C, "C", minimum=0.0, maximum=1.0, include_min=False)
    n_iter = check_int(n_iter, "n_iter", minimum=1)
    n_samples, n_features = Fm.shape
    m_cav = np.zeros((n_features, n_samples))  # m_{l -> mu}
    m = np.zeros(n_features)
    A, lam = None, None
    idx = np.arange(n_features)
    for _ in range(n_iter):
        V = max(C - np.mean(m * m), 1e-12 * C)
        # <Delta_{mu \ l}>_mu = sum_{j != l} F[mu, j] m_{j -> mu}: an explicit sum per excluded l.
        terms = Fm * m_cav.T  # (M, N)
        cav = np.empty((n_samples, n_features))
        for l in range(n_features):
            cav[:, l] = terms[:, idx != l].sum(axis=1)
        _, a_edge, _ = activation.log_partition(cav, V)  # a_{mu -> l}
        contrib = Fm * a_edge  # F[mu, l] a_{mu -> l}
        h_full = contrib.sum(axis=0)  # h_l
        h_cav = h_full[:, None] - contrib.T  # h_{l \ mu}, (N, M)
        A, lam = match_pruning(h_full, C, A0=A, lam0=lam)
        rho, m, _ = belief_moments(h_full, A, lam)
        m_cav = belief_moments(h_cav, A, lam)[1]
    V = max(C - np.mean(m * m), 1e-12 * C)
    omega = np.sum(Fm * m_cav.T, axis=1)
    return {"m": m, "rho": rho, "omega": omega, "variance": V, "A": A, "lam": lam}
