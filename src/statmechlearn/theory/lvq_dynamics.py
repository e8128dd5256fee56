"""On-line dynamics of winner-takes-all LVQ with two prototypes.

Biehl, Ghosh & Hammer, *Learning Vector Quantization: the dynamics of
winner-takes-all algorithms* (seed 002), Appendix A. The ODEs are derived
from the update eq. (1) in ``docs/derivations/lvq_ode.md``; the printed
eq. (17) lacks the prior weights p_k and misplaces sigma in the
``ab(l + m)`` term, and eq. (8) lacks a factor 2 in the denominator.

Index convention: axis position 0 is the label +1, position 1 is -1, so
``R[:, 0, 1]`` is ``R_{+-}`` (prototype +, centre ``B_-``).
"""

from dataclasses import dataclass

import numpy as np

from statmechlearn._core.exceptions import ConvergenceError
from statmechlearn._core.gauss import Phi, normal_pdf
from statmechlearn._core.ode import integrate_order_parameters
from statmechlearn._core.saddle import newton
from statmechlearn._core.validation import (
    check_array_finite,
    check_probability,
    check_real,
)

__all__ = [
    "WTA_ALGORITHMS",
    "AsymptoticState",
    "LearningCurve",
    "PlateauInstability",
    "asymptotic_error",
    "asymptotic_initial_overlaps",
    "asymptotic_state",
    "bayes_error",
    "generalization_error",
    "learning_curve",
    "order_parameter_rhs",
    "paper_initial_overlaps",
    "plateau_instability",
    "trivial_error",
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


def _check_model(p_plus, lam, v_plus, v_minus):
    """Validated parameters of the mixture eq. (9)."""
    return (
        check_probability(p_plus, "p_plus", open_interval=True),
        check_real(lam, "lam", minimum=0.0),
        check_real(v_plus, "v_plus", minimum=0.0, include_min=False),
        check_real(v_minus, "v_minus", minimum=0.0, include_min=False),
    )


def paper_initial_overlaps():
    """Initial overlaps of the paper's Fig. 2: R = 0, Q_{+-} = 0, Q_{++} = Q_{--} = 1e-4.

    Returns
    -------
    R, Q : ndarray of shape (2, 2)
    """
    return np.zeros((2, 2)), np.diag([1e-4, 1e-4])


def _check_overlaps(R, Q, prefix="init "):
    R = check_array_finite(R, f"{prefix}R", shape=(2, 2))
    Q = check_array_finite(Q, f"{prefix}Q", shape=(2, 2))
    if not np.allclose(Q, Q.T, rtol=0, atol=1e-12 * max(1.0, np.abs(Q).max())):
        raise ValueError(f"{prefix}Q must be symmetric")
    C = np.block([[Q, R], [R.T, np.eye(2)]])
    if np.linalg.eigvalsh(C).min() < -1e-10 * max(1.0, np.abs(C).max()):
        raise ValueError(
            f"{prefix}(R, Q) is not realisable by vectors: Q - R R^T must be positive "
            "semi-definite (Cauchy-Schwarz)"
        )
    if Q[0, 0] + Q[1, 1] - 2 * Q[0, 1] <= 0:
        raise ValueError(f"{prefix}Q must have distinct prototypes: Q_++ + Q_-- - 2 Q_+- > 0")
    return R, Q


def _check_init(init):
    if not (isinstance(init, tuple | list) and len(init) == 2):
        raise TypeError(f"init must be a tuple (R, Q) of two 2 x 2 arrays, got {init!r}")
    return _check_overlaps(*init)


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


def _rhs_terms(R, Q, a, b, p_plus, lam, v_plus, v_minus):
    """Per-unit-eta drift of R and Q, and the diagonal eta^2 noise term of Q."""
    p = np.array([p_plus, 1.0 - p_plus])
    v = np.array([v_plus, v_minus])
    phi_, x_theta = _projection_averages(R, Q, lam, v)
    g = a + b * _LABELS[:, None] * _LABELS[None, :]  # g[l, s]
    w = p[None, :] * g
    win = np.einsum("ls,ls->l", w, phi_)
    dR = np.einsum("ls,lsm->lm", w, x_theta[:, :, 2:]) - win[:, None] * R
    M = np.einsum("ls,lsm->lm", w, x_theta[:, :, :2]) - win[:, None] * Q
    # eta^2 term: Theta_l Theta_m = delta_lm Theta_l, g_l^2 = a^2 + b^2 + 2ab l sigma
    noise = np.einsum("s,ls->l", p * v, g**2 * phi_)
    return dR, M + M.T, np.diag(noise)


def order_parameter_rhs(R, Q, *, a, b, p_plus, lam, eta, v_plus=1.0, v_minus=1.0):
    """Right-hand side dR/dalpha, dQ/dalpha of the WTA ODEs (derived form of eq. 17).

    Parameters
    ----------
    R : ndarray of shape (2, 2)
        ``R[S, sigma] = w_S . B_sigma``.
    Q : ndarray of shape (2, 2)
        ``Q[S, T] = w_S . w_T``: symmetric, realisable together with ``R``
        (``Q - R R^T`` positive semi-definite), distinct prototypes.
    a, b : float
        Modulation ``g(S, sigma) = a + b S sigma``.
    p_plus : float
        Prior of class +1, in (0, 1).
    lam : float
        Cluster separation lambda, >= 0.
    eta : float
        Learning rate, > 0.
    v_plus, v_minus : float, default=1.0
        Cluster variances, > 0.

    Returns
    -------
    dR, dQ : ndarray of shape (2, 2)
        See ``docs/derivations/lvq_ode.md`` for the derivation.
    """
    R, Q = _check_overlaps(R, Q, prefix="")
    a, b = check_real(a, "a"), check_real(b, "b")
    p_plus, lam, v_plus, v_minus = _check_model(p_plus, lam, v_plus, v_minus)
    eta = check_real(eta, "eta", minimum=0.0, include_min=False)
    return _order_parameter_rhs(R, Q, a, b, p_plus, lam, eta, v_plus, v_minus)


def _order_parameter_rhs(R, Q, a, b, p_plus, lam, eta, v_plus, v_minus):
    """:func:`order_parameter_rhs` without the checks: the ODE solver's hot path."""
    dR, dQ, noise = _rhs_terms(R, Q, a, b, p_plus, lam, v_plus, v_minus)
    return eta * dR, eta * dQ + eta**2 * noise


def generalization_error(R, Q, *, p_plus, lam, v_plus=1.0, v_minus=1.0):
    """Generalization error eq. (30) of two prototypes with overlaps R, Q.

    Parameters
    ----------
    R, Q : array_like of shape (..., 2, 2)
        Overlaps; leading axes are broadcast (e.g. a time axis). ``Q`` is
        symmetric with ``Q_SS >= 0`` and ``Q_++ + Q_-- - 2 Q_+- > 0``
        (distinct prototypes).
    p_plus : float
        Prior of class +1, in (0, 1).
    lam : float
        Cluster separation, >= 0.
    v_plus, v_minus : float, default=1.0
        Cluster variances, > 0.

    Returns
    -------
    ndarray of shape (...)
        ``sum_sigma p_sigma Phi(beta~_{-sigma,sigma} / alpha~_{-sigma,sigma})``;
        eq. (8) with the denominator's missing factor 2 restored.
    """
    p_plus, lam, v_plus, v_minus = _check_model(p_plus, lam, v_plus, v_minus)
    R = check_array_finite(R, "R")
    Q = check_array_finite(Q, "Q")
    for name, x in (("R", R), ("Q", Q)):
        if x.ndim < 2 or x.shape[-2:] != (2, 2) or x.size == 0:
            raise ValueError(f"{name} must have shape (..., 2, 2) and not be empty, got {x.shape}")
    try:
        np.broadcast_shapes(R.shape, Q.shape)
    except ValueError:
        raise ValueError(
            f"R and Q must broadcast together, got shapes {R.shape} and {Q.shape}"
        ) from None
    scale = max(1.0, float(np.abs(Q).max()))
    if np.any(np.abs(Q[..., 0, 1] - Q[..., 1, 0]) > 1e-12 * scale):
        raise ValueError("Q must be symmetric (Q_+- = Q_-+)")
    if np.any(Q[..., 0, 0] < 0) or np.any(Q[..., 1, 1] < 0):
        raise ValueError("Q must have non-negative diagonal entries Q_SS = |w_S|^2")
    p = np.array([p_plus, 1.0 - p_plus])
    v = np.array([v_plus, v_minus])
    spread = Q[..., 0, 0] + Q[..., 1, 1] - 2.0 * Q[..., 0, 1]
    if np.any(spread <= 0):
        raise ValueError(
            "Q must describe distinct prototypes, Q_++ + Q_-- - 2 Q_+- > 0: where they "
            "coincide the error is undefined"
        )
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
        ``R = 0``, ``Q_+- = 0``, ``Q_++ = Q_-- = 1e-4``.
    rtol, atol : float
        ODE solver tolerances, > 0.

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
    p_plus, lam, v_plus, v_minus = _check_model(p_plus, lam, v_plus, v_minus)
    eta = check_real(eta, "eta", minimum=0.0, include_min=False)
    rtol = check_real(rtol, "rtol", minimum=0.0, include_min=False)
    atol = check_real(atol, "atol", minimum=0.0, include_min=False)
    alphas = check_array_finite(alphas, "alphas", ndim=1)
    if alphas.size == 0 or alphas.min() < 0 or np.any(np.diff(alphas) < 0):
        raise ValueError("alphas must be a non-empty, non-decreasing array of values >= 0")
    R0, Q0 = paper_initial_overlaps() if init is None else _check_init(init)
    kw = {"a": a, "b": b, "p_plus": p_plus, "lam": lam, "eta": eta}
    kw |= {"v_plus": v_plus, "v_minus": v_minus}

    def rhs(_t, y):
        dR, dQ = _order_parameter_rhs(*_unpack(y), **kw)
        return _pack(dR, dQ)

    traj = integrate_order_parameters(rhs, _pack(R0, Q0), alphas, rtol=rtol, atol=atol)
    R, Q = _unpack(traj.y)
    eps = generalization_error(R, Q, p_plus=p_plus, lam=lam, v_plus=v_plus, v_minus=v_minus)
    params = {"p_plus": p_plus, "lam": lam, "eta": eta, "v_plus": v_plus, "v_minus": v_minus}
    return LearningCurve(alphas.copy(), R, Q, np.asarray(eps), name, a, b, params)


# ------------------------------------------------------------ asymptotics ----


def asymptotic_initial_overlaps(delta=1e-2):
    """Start of the asymptotic analysis: prototype S slightly towards B_S.

    ``R = delta * I`` and ``Q = 2 delta^2 I``: both prototypes near the origin,
    ``w_+`` leaning towards ``B_+`` and ``w_-`` towards ``B_-``. The tilt only
    matters for VQ, whose update ignores labels: from the exactly symmetric
    start of Fig. 2 its ODEs never leave the symmetric subspace (the plateau
    lasts for ever), and the tilt fixes which prototype ends up labelled
    with which class.

    Parameters
    ----------
    delta : float, default=1e-2
        Size of the tilt, > 0.

    Returns
    -------
    R, Q : ndarray of shape (2, 2)
    """
    delta = check_real(delta, "delta", minimum=0.0, include_min=False)
    return delta * np.eye(2), 2.0 * delta**2 * np.eye(2)


@dataclass(frozen=True, eq=False)
class AsymptoticState:
    """Fixed point of the WTA dynamics for eta -> 0, eta alpha -> infinity.

    Attributes
    ----------
    R, Q : ndarray of shape (2, 2)
        Overlaps at the fixed point (index 0 is label +1).
    eps_g : float
        Generalization error there, eq. (30).
    alpha_tilde : float
        Rescaled time ``eta alpha`` the dynamics needed to get within the
        tolerance of the fixed point.
    residual : float
        Largest component of the rescaled drift at the returned state.
    algorithm : str
    params : dict
        ``p_plus, lam, v_plus, v_minus``.
    """

    R: np.ndarray
    Q: np.ndarray
    eps_g: float
    alpha_tilde: float
    residual: float
    algorithm: str
    params: dict


def asymptotic_state(
    algorithm,
    *,
    p_plus,
    lam,
    v_plus=1.0,
    v_minus=1.0,
    init=None,
    tol=1e-10,
    max_alpha_tilde=1e6,
):
    """Fixed point reached by the WTA dynamics in the limit eta -> 0, eta alpha -> infinity.

    In the rescaled time ``alpha~ = eta alpha`` the ODEs lose their O(eta)
    term (the eta^2 noise of dQ); the state the remaining deterministic flow
    reaches from ``init`` is integrated until the drift falls below ``tol``
    and then refined by Newton's method (:func:`statmechlearn._core.saddle.newton`).

    Parameters
    ----------
    algorithm : {"lvq1", "lvq+", "vq"} or tuple (a, b)
        Update rule, as in :func:`learning_curve`.
    p_plus : float
        Prior of class +1, in (0, 1).
    lam : float
        Separation, >= 0.
    v_plus, v_minus : float, default=1.0
        Cluster variances, > 0.
    init : tuple (R, Q), optional
        Starting overlaps; default :func:`asymptotic_initial_overlaps`.
    tol : float, default=1e-10
        Largest allowed component of the drift at the returned state, > 0.
    max_alpha_tilde : float, default=1e6
        Give up (``ConvergenceError``) if the flow has not settled by then; > 0.

    Returns
    -------
    AsymptoticState

    Raises
    ------
    ConvergenceError
        If the flow does not settle or Newton's refinement leaves the attractor;
        ``diagnostics`` holds the last state and drift.
    """
    name, a, b = _resolve_algorithm(algorithm)
    p_plus, lam, v_plus, v_minus = _check_model(p_plus, lam, v_plus, v_minus)
    tol = check_real(tol, "tol", minimum=0.0, include_min=False)
    max_alpha_tilde = check_real(max_alpha_tilde, "max_alpha_tilde", minimum=0.0, include_min=False)
    R0, Q0 = asymptotic_initial_overlaps() if init is None else _check_init(init)
    args = (a, b, p_plus, lam, v_plus, v_minus)

    def drift(y):
        dR, dQ, _ = _rhs_terms(*_unpack(y), *args)
        return _pack(dR, dQ)

    y = _pack(R0, Q0)
    elapsed, chunk = 0.0, 50.0
    while True:
        traj = integrate_order_parameters(
            lambda _t, state: drift(state), y, [0.0, chunk], rtol=1e-10, atol=1e-13
        )
        y = traj.y[-1]
        elapsed += chunk
        residual = float(np.abs(drift(y)).max())
        if residual < 1e-7 * max(1.0, float(np.abs(y).max())):
            break
        if elapsed >= max_alpha_tilde:
            raise ConvergenceError(
                f"{name}: the eta -> 0 flow did not settle by alpha~ = {elapsed:g} "
                f"(drift {residual:.3g})",
                {"R": _unpack(y)[0], "Q": _unpack(y)[1], "residual": residual},
            )
        chunk *= 2.0
    # to round-off: a tolerance below it ends in a failed line search at the best iterate
    refined = newton(drift, y, tol=1e-15, max_iter=50, raise_on_failure=False).x
    residual = float(np.abs(drift(refined)).max())
    moved = float(np.abs(refined - y).max())
    if residual > tol or moved > 1e-4 * max(1.0, float(np.abs(y).max())):
        raise ConvergenceError(
            f"{name}: Newton refinement of the fixed point failed (drift "
            f"{residual:.3g}, moved {moved:.3g} from the integrated state)",
            {"R": _unpack(y)[0], "Q": _unpack(y)[1], "residual": residual, "moved": moved},
        )
    R, Q = _unpack(refined)
    eps = float(generalization_error(R, Q, p_plus=p_plus, lam=lam, v_plus=v_plus, v_minus=v_minus))
    params = {"p_plus": p_plus, "lam": lam, "v_plus": v_plus, "v_minus": v_minus}
    return AsymptoticState(R, Q, eps, elapsed, residual, name, params)


def asymptotic_error(algorithm, *, p_plus, lam, v_plus=1.0, v_minus=1.0):
    """Generalization error of on-line WTA learning for eta -> 0, eta alpha -> infinity.

    The error at the fixed point of :func:`asymptotic_state` from the
    default start (Fig. 3, right panel, of Biehl, Ghosh & Hammer).

    Parameters
    ----------
    algorithm : {"lvq1", "lvq+", "vq"} or tuple (a, b)
        Update rule.
    p_plus : float
        Prior of class +1, in (0, 1).
    lam : float
        Separation, >= 0.
    v_plus, v_minus : float, default=1.0
        Cluster variances, > 0.

    Returns
    -------
    float

    Examples
    --------
    >>> from statmechlearn.theory.lvq_dynamics import asymptotic_error, bayes_error
    >>> e1 = asymptotic_error("lvq1", p_plus=0.7, lam=1.2)
    >>> bool(bayes_error(p_plus=0.7, lam=1.2) <= e1 < 0.3)
    True
    """
    state = asymptotic_state(algorithm, p_plus=p_plus, lam=lam, v_plus=v_plus, v_minus=v_minus)
    return state.eps_g


def _linear_threshold_error(p_plus, lam, v_plus, v_minus):
    """Lowest error of a threshold on xi . (B_+ - B_-) / sqrt(2), and the threshold."""
    mu = lam / np.sqrt(2.0)
    p_minus = 1.0 - p_plus

    def error(theta):
        return p_plus * Phi((theta - mu) / np.sqrt(v_plus)) + p_minus * Phi(
            (-mu - theta) / np.sqrt(v_minus)
        )

    # stationary points: p+ N(theta; mu, v+) = p- N(theta; -mu, v-), a quadratic
    A = 0.5 / v_minus - 0.5 / v_plus
    B = mu / v_plus + mu / v_minus
    C = (
        mu**2 * (0.5 / v_minus - 0.5 / v_plus)
        + np.log(p_plus / p_minus)
        + 0.5 * np.log(v_minus / v_plus)
    )
    if abs(A) < 1e-14 * max(B, 1.0):
        roots = [-C / B] if B > 0 else []
    else:
        disc = B * B - 4 * A * C
        roots = [] if disc < 0 else [(-B + s * np.sqrt(disc)) / (2 * A) for s in (1.0, -1.0)]
    # limits theta -> +-inf: every example assigned to one class
    best, best_theta = min((p_plus, np.inf), (p_minus, -np.inf))
    for theta in roots:
        e = float(error(theta))
        if e < best:
            best, best_theta = e, float(theta)
    return best, best_theta


def bayes_error(*, p_plus, lam, v_plus=1.0, v_minus=1.0):
    """Lowest generalization error of a linear decision boundary in the model.

    The within-class covariances are isotropic, so the best hyperplane is
    orthogonal to ``B_+ - B_-`` and only its offset is optimised: a
    one-dimensional threshold on ``x = xi . (B_+ - B_-) / sqrt(2)``, with
    ``x ~ N(+-lam / sqrt(2), v_+-)``; the optimal offsets solve the quadratic
    ``p_+ N(x; mu, v_+) = p_- N(x; -mu, v_-)``. Two prototypes realise every
    such boundary (their perpendicular bisector), so this is the target of
    Fig. 3 (right) of Biehl, Ghosh & Hammer.

    For ``v_plus == v_minus`` it is the Bayes error of the model. For
    ``v_plus != v_minus`` it is not: the true Bayes classifier is quadratic
    and uses ``|xi|^2``, which concentrates at ``N v_+-`` and separates the
    classes perfectly as N grows, so the true Bayes error tends to 0; the
    value returned is the best that any linear rule, and so any pair of
    prototypes, can achieve.

    Parameters
    ----------
    p_plus : float
        Prior of class +1, in (0, 1).
    lam : float
        Separation, >= 0.
    v_plus, v_minus : float, default=1.0
        Cluster variances, > 0.

    Returns
    -------
    float

    See Also
    --------
    trivial_error : the error of always predicting the more frequent class.

    Examples
    --------
    >>> from statmechlearn.theory.lvq_dynamics import bayes_error
    >>> from scipy.stats import norm
    >>> bool(abs(bayes_error(p_plus=0.5, lam=1.2) - norm.cdf(-1.2 / 2**0.5)) < 1e-12)
    True
    """
    p_plus, lam, v_plus, v_minus = _check_model(p_plus, lam, v_plus, v_minus)
    return _linear_threshold_error(p_plus, lam, v_plus, v_minus)[0]


def trivial_error(p_plus):
    """Error of the trivial classifier that always predicts the more frequent class.

    Parameters
    ----------
    p_plus : float
        Prior of class +1, in [0, 1].

    Returns
    -------
    float
        ``min(p_plus, 1 - p_plus)``.
    """
    p_plus = check_probability(p_plus, "p_plus")
    return min(p_plus, 1.0 - p_plus)


# ---------------------------------------------------------------- plateau ----


@dataclass(frozen=True, eq=False)
class PlateauInstability:
    """Symmetric fixed point of unsupervised VQ and its escape rate.

    Attributes
    ----------
    R, Q : ndarray of shape (2, 2)
        Overlaps on the plateau: both prototypes have the same projections
        (``R[0] == R[1]``), so they do not distinguish the classes.
    eps_g : float
        Generalization error there (1/2).
    escape_rate : float
        Largest real part ``kappa`` of the Jacobian's eigenvalues at the fixed
        point, per unit alpha: a small asymmetry ``delta`` grows like
        ``delta exp(kappa alpha)``, so the plateau lasts ``ln(1 / delta) /
        kappa + const``.
    eigenvalues : ndarray of shape (7,)
        All eigenvalues of the Jacobian (finite differences).
    """

    R: np.ndarray
    Q: np.ndarray
    eps_g: float
    escape_rate: float
    eigenvalues: np.ndarray


def plateau_instability(*, p_plus, lam, eta, v_plus=1.0, v_minus=1.0):
    """The plateau of on-line VQ and how fast the dynamics leave it.

    From a start where both prototypes have equal projections on ``B_+-``
    the VQ dynamics (``g = 1``) never break the symmetry; they settle at a
    fixed point that splits the data along a direction orthogonal to
    ``B_+ - B_-`` (the plateau, eps_g = 1/2). Its unstable direction turns
    the split towards the cluster separation; the rate is the largest
    eigenvalue of the Jacobian of the ODEs there.

    Parameters
    ----------
    p_plus : float
        Prior of class +1, in (0, 1).
    lam : float
        Separation, >= 0.
    eta : float
        Learning rate, > 0.
    v_plus, v_minus : float, default=1.0
        Cluster variances, > 0.

    Returns
    -------
    PlateauInstability

    Raises
    ------
    ConvergenceError
        If the symmetric fixed point cannot be located.
    """
    p_plus, lam, v_plus, v_minus = _check_model(p_plus, lam, v_plus, v_minus)
    eta = check_real(eta, "eta", minimum=0.0, include_min=False)
    kw = {"a": 1.0, "b": 0.0, "p_plus": p_plus, "lam": lam, "eta": eta}
    kw |= {"v_plus": v_plus, "v_minus": v_minus}

    def rhs(y):
        return _pack(*_order_parameter_rhs(*_unpack(y), **kw))

    # exactly symmetric start: the flow stays in the symmetric subspace
    start = learning_curve(
        "vq",
        [0.0, 50.0 / eta],
        p_plus=p_plus,
        lam=lam,
        eta=eta,
        v_plus=v_plus,
        v_minus=v_minus,
        init=(np.zeros((2, 2)), 1e-4 * np.eye(2)),
    )
    y0 = _pack(start.R[-1], start.Q[-1])
    y = newton(rhs, y0, tol=1e-15, max_iter=50, raise_on_failure=False).x
    residual = float(np.abs(rhs(y)).max())
    R, Q = _unpack(y)
    if residual > 1e-10 or not np.allclose(R[0], R[1], atol=1e-8):
        raise ConvergenceError(
            f"symmetric VQ fixed point not found (drift {residual:.3g})",
            {"R": R, "Q": Q, "residual": residual},
        )
    h = 1e-6 * max(1.0, float(np.abs(y).max()))
    J = np.empty((7, 7))
    for i in range(7):
        e = np.zeros(7)
        e[i] = h
        J[:, i] = (rhs(y + e) - rhs(y - e)) / (2 * h)
    eig = np.linalg.eigvals(J)
    eps = float(generalization_error(R, Q, p_plus=p_plus, lam=lam, v_plus=v_plus, v_minus=v_minus))
    return PlateauInstability(R, Q, eps, float(eig.real.max()), eig)
