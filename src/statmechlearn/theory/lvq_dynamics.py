"""On-line dynamics of winner-takes-all LVQ with two prototypes.

Biehl, Ghosh & Hammer, *Learning Vector Quantization: the dynamics of
winner-takes-all algorithms* (seed 002), Appendix A. The ODEs are derived
from the update eq. (1) in ``docs/derivations/lvq_ode.md``; the printed
eq. (17) lacks the prior weights p_k and misplaces sigma in the
``ab(l + m)`` term, and eq. (8) lacks a factor 2 in the denominator.

Index convention: axis position 0 is the label +1, position 1 is -1, so
``R[:, 0, 1]`` is ``R_{+-}`` (prototype +, centre B_-).
"""

from dataclasses import dataclass

import numpy as np

from statmechlearn._core.exceptions import ConvergenceError
from statmechlearn._core.gauss import Phi, normal_pdf
from statmechlearn._core.ode import integrate_order_parameters
from statmechlearn._core.validation import (
    check_array_finite,
    check_probability,
    check_real,
)

__all__ = [
    "WTA_ALGORITHMS",
    "LearningCurve",
    "generalization_error",
    "learning_curve",
    "order_parameter_rhs",
    "paper_initial_overlaps",
]

#: Modulation g(S, sigma) = a + b S sigma of the WTA update, eq. (1) and A.2.
WTA_ALGORITHMS = {"lvq1": (0.0, 1.0), "lvq+": (0.5, 0.5), "vq": (1.0, 0.0)}
_ALIASES = {"lvqplus": "lvq+", "lvq_plus": "lvq+"}

_LABELS = np.array([1.0, -1.0])
# alpha_l = 2 l (1, -1, 0, 0), eq. (18); rows l = +1, -1
_ALPHA = np.array([[2.0, -2.0, 0.0, 0.0], [-2.0, 2.0, 0.0, 0.0]])


def _resolve_algorithm(algorithm):
    if isinstance(algorithm, tuple) and len(algorithm) == 2:
        a = check_real(algorithm[0], "algorithm[0] (a)")
        b = check_real(algorithm[1], "algorithm[1] (b)")
        return f"g = {a:g} + {b:g} S sigma", a, b
    if isinstance(algorithm, str):
        key = algorithm.strip().lower()
        key = _ALIASES.get(key, key)
        if key in WTA_ALGORITHMS:
            return key, *WTA_ALGORITHMS[key]
    allowed = ", ".join(repr(k) for k in WTA_ALGORITHMS)
    raise ValueError(
        f"algorithm must be one of {allowed} (case-insensitive) or a tuple (a, b) "
        f"for g = a + b S sigma; got {algorithm!r}"
    )


def paper_initial_overlaps():
    """Initial overlaps of the paper's Fig. 2: R = 0, Q_{+-} = 0, Q_{++} = Q_{--} = 1e-4.

    Returns
    -------
    R, Q : ndarray of shape (2, 2)
    """
    return np.zeros((2, 2)), np.diag([1e-4, 1e-4])


def _check_overlaps(R, Q):
    R = check_array_finite(R, "init R", shape=(2, 2))
    Q = check_array_finite(Q, "init Q", shape=(2, 2))
    if not np.allclose(Q, Q.T, rtol=0, atol=1e-12 * max(1.0, np.abs(Q).max())):
        raise ValueError("init Q must be symmetric")
    C = np.block([[Q, R], [R.T, np.eye(2)]])
    if np.linalg.eigvalsh(C).min() < -1e-10 * max(1.0, np.abs(C).max()):
        raise ValueError(
            "init (R, Q) is not realisable by vectors: Q - R R^T must be positive "
            "semi-definite (Cauchy-Schwarz)"
        )
    if Q[0, 0] + Q[1, 1] - 2 * Q[0, 1] <= 0:
        raise ValueError("init must have distinct prototypes: Q_++ + Q_-- - 2 Q_+- > 0")
    return R, Q


def _projection_averages(R, Q, lam, v):
    """Gaussian averages of eq. (26)-(27) for all winners l and classes sigma.

    Returns Phi_[l, s] = <Theta_l>_s and xTheta[l, s, n] = <x_n Theta_l>_s
    with x = (h_+, h_-, b_+, b_-).
    """
    C = np.block([[Q, R], [R.T, np.eye(2)]])
    CA = _ALPHA @ C  # (C alpha_l)_n, C symmetric
    spread = np.einsum("ln,ln->l", CA, _ALPHA)  # alpha_l^T C alpha_l
    if np.any(spread <= 0):
        raise ConvergenceError(
            "prototypes coincide (Q_++ + Q_-- - 2 Q_+- = 0): the winner is undefined",
            {"R": R, "Q": Q},
        )
    mu = np.empty((2, 4))  # mu[s, n], eq. (12)
    mu[:, :2] = lam * R.T
    mu[:, 2:] = lam * np.eye(2)
    beta = _LABELS * (Q[0, 0] - Q[1, 1])  # eq. (18)
    alpha_tilde = np.sqrt(v[None, :] * spread[:, None])  # eq. (24)
    beta_tilde = _ALPHA @ mu.T - beta[:, None]
    z = beta_tilde / alpha_tilde
    phi_ = Phi(z)
    dens = normal_pdf(z) / alpha_tilde
    x_theta = v[None, :, None] * CA[:, None, :] * dens[:, :, None] + mu[None] * phi_[:, :, None]
    return phi_, x_theta


def order_parameter_rhs(R, Q, *, a, b, p_plus, lam, eta, v_plus=1.0, v_minus=1.0):
    """Right-hand side dR/dalpha, dQ/dalpha of the WTA ODEs (derived form of eq. 17).

    Parameters
    ----------
    R : ndarray of shape (2, 2)
        ``R[S, sigma] = w_S . B_sigma``.
    Q : ndarray of shape (2, 2)
        ``Q[S, T] = w_S . w_T``.
    a, b : float
        Modulation ``g(S, sigma) = a + b S sigma``.
    p_plus : float
        Prior of class +1.
    lam : float
        Cluster separation lambda.
    eta : float
        Learning rate.
    v_plus, v_minus : float, default=1.0
        Cluster variances.

    Returns
    -------
    dR, dQ : ndarray of shape (2, 2)
        See ``docs/derivations/lvq_ode.md`` for the derivation.
    """
    p = np.array([p_plus, 1.0 - p_plus])
    v = np.array([v_plus, v_minus])
    phi_, x_theta = _projection_averages(R, Q, lam, v)
    g = a + b * _LABELS[:, None] * _LABELS[None, :]  # g[l, s]
    w = p[None, :] * g
    win = np.einsum("ls,ls->l", w, phi_)
    dR = eta * (np.einsum("ls,lsm->lm", w, x_theta[:, :, 2:]) - win[:, None] * R)
    M = np.einsum("ls,lsm->lm", w, x_theta[:, :, :2]) - win[:, None] * Q
    # eta^2 term: Theta_l Theta_m = delta_lm Theta_l, g_l^2 = a^2 + b^2 + 2ab l sigma
    noise = np.einsum("s,ls->l", p * v, g**2 * phi_)
    dQ = eta * (M + M.T) + eta**2 * np.diag(noise)
    return dR, dQ


def generalization_error(R, Q, *, p_plus, lam, v_plus=1.0, v_minus=1.0):
    """Generalization error eq. (30) of two prototypes with overlaps R, Q.

    Parameters
    ----------
    R, Q : array_like of shape (..., 2, 2)
        Overlaps; leading axes are broadcast (e.g. a time axis).
    p_plus : float
        Prior of class +1.
    lam : float
        Cluster separation.
    v_plus, v_minus : float, default=1.0
        Cluster variances.

    Returns
    -------
    ndarray of shape (...)
        ``sum_sigma p_sigma Phi(beta~_{-sigma,sigma} / alpha~_{-sigma,sigma})``;
        eq. (8) with the denominator's missing factor 2 restored.
    """
    R = np.asarray(R, dtype=float)
    Q = np.asarray(Q, dtype=float)
    p = np.array([p_plus, 1.0 - p_plus])
    v = np.array([v_plus, v_minus])
    spread = Q[..., 0, 0] + Q[..., 1, 1] - 2.0 * Q[..., 0, 1]
    if np.any(spread <= 0):
        raise ValueError("prototypes coincide (Q_++ + Q_-- - 2 Q_+- = 0): error undefined")
    eps = 0.0
    for s, S in enumerate(_LABELS):
        num = S * (Q[..., 0, 0] - Q[..., 1, 1]) - 2.0 * lam * S * (R[..., 0, s] - R[..., 1, s])
        eps = eps + p[s] * Phi(num / (2.0 * np.sqrt(v[s] * spread)))
    return eps


@dataclass(frozen=True, eq=False)
class LearningCurve:
    """Order parameters of on-line WTA learning along alpha = mu / N.

    Attributes
    ----------
    alpha : ndarray of shape (n_alphas,)
        Rescaled number of examples.
    R : ndarray of shape (n_alphas, 2, 2)
        ``R[i, S, sigma]``; index 0 is label +1, index 1 is label -1.
    Q : ndarray of shape (n_alphas, 2, 2)
        ``Q[i, S, T]``.
    eps_g : ndarray of shape (n_alphas,)
        Generalization error, eq. (30).
    algorithm : str
        Name of the update rule.
    a, b : float
        Its modulation ``g = a + b S sigma``.
    params : dict
        ``p_plus, lam, eta, v_plus, v_minus``.
    """

    alpha: np.ndarray
    R: np.ndarray
    Q: np.ndarray
    eps_g: np.ndarray
    algorithm: str
    a: float
    b: float
    params: dict


def _pack(R, Q):
    return np.concatenate([R.ravel(), [Q[0, 0], Q[0, 1], Q[1, 1]]])


def _unpack(y):
    R = y[..., :4].reshape((*y.shape[:-1], 2, 2))
    Q = np.empty((*y.shape[:-1], 2, 2))
    Q[..., 0, 0] = y[..., 4]
    Q[..., 0, 1] = Q[..., 1, 0] = y[..., 5]
    Q[..., 1, 1] = y[..., 6]
    return R, Q


def learning_curve(
    algorithm,
    alphas,
    *,
    p_plus,
    lam,
    eta,
    v_plus=1.0,
    v_minus=1.0,
    init=None,
    rtol=1e-8,
    atol=1e-11,
):
    """Integrate the order-parameter ODEs of on-line LVQ1, LVQ+ or VQ.

    Implements the N -> infinity dynamics of eq. (1) with two prototypes on
    the mixture eq. (9) (Biehl, Ghosh & Hammer, App. A, eq. 17 as derived in
    ``docs/derivations/lvq_ode.md``), and the generalization error eq. (30).

    Parameters
    ----------
    algorithm : {"lvq1", "lvq+", "vq"} or tuple (a, b)
        Update rule ``g(S, sigma) = a + b S sigma``: LVQ1 (0, 1), LVQ+
        (1/2, 1/2), VQ (1, 0). Names are case-insensitive.
    alphas : array_like of shape (n_alphas,)
        Non-decreasing, non-negative report times alpha = mu / N.
    p_plus : float
        Prior of class +1, in (0, 1).
    lam : float
        Separation lambda of the cluster centres lambda B_+-, >= 0.
    eta : float
        Learning rate, > 0.
    v_plus, v_minus : float, default=1.0
        Cluster variances, > 0.
    init : tuple (R, Q) of arrays of shape (2, 2), optional
        Initial overlaps at alpha = 0. Default: the paper's Fig. 2,
        R = 0, Q_+- = 0, Q_++ = Q_-- = 1e-4.
    rtol, atol : float
        ODE solver tolerances.

    Returns
    -------
    LearningCurve

    Raises
    ------
    ConvergenceError
        If the integration fails (e.g. the prototypes collapse onto each other).

    Examples
    --------
    >>> from statmechlearn.theory.lvq_dynamics import learning_curve
    >>> curve = learning_curve("lvq1", [0, 10, 50], p_plus=0.8, lam=1.0, eta=0.2)
    >>> curve.R.shape, curve.Q.shape, curve.eps_g.shape
    ((3, 2, 2), (3, 2, 2), (3,))
    """
    name, a, b = _resolve_algorithm(algorithm)
    p_plus = check_probability(p_plus, "p_plus", open_interval=True)
    lam = check_real(lam, "lam", minimum=0.0)
    eta = check_real(eta, "eta", minimum=0.0, include_min=False)
    v_plus = check_real(v_plus, "v_plus", minimum=0.0, include_min=False)
    v_minus = check_real(v_minus, "v_minus", minimum=0.0, include_min=False)
    alphas = check_array_finite(alphas, "alphas", ndim=1)
    if alphas.size == 0 or alphas.min() < 0 or np.any(np.diff(alphas) < 0):
        raise ValueError("alphas must be a non-empty, non-decreasing array of values >= 0")
    R0, Q0 = paper_initial_overlaps() if init is None else _check_overlaps(*init)
    kw = {"a": a, "b": b, "p_plus": p_plus, "lam": lam, "eta": eta}
    kw |= {"v_plus": v_plus, "v_minus": v_minus}

    def rhs(_t, y):
        dR, dQ = order_parameter_rhs(*_unpack(y), **kw)
        return _pack(dR, dQ)

    traj = integrate_order_parameters(rhs, _pack(R0, Q0), alphas, rtol=rtol, atol=atol)
    R, Q = _unpack(traj.y)
    eps = generalization_error(R, Q, p_plus=p_plus, lam=lam, v_plus=v_plus, v_minus=v_minus)
    params = {"p_plus": p_plus, "lam": lam, "eta": eta, "v_plus": v_plus, "v_minus": v_minus}
    return LearningCurve(alphas.copy(), R, Q, np.asarray(eps), name, a, b, params)
