"""Replica theory and state evolution of the sparse Bayesian classifier (Uda & Kabashima).

Teacher ``w_o`` Bernoulli–Gaussian (a fraction ``C_t`` of N(0, 1) components,
eq. 7), spherical inputs, labels ``P(y | x) = f(y w_o.x / sqrt(N))``; the
student keeps a fraction ``C`` of the components. With ``alpha = M / N`` the
macroscopic state is ``R = w_o.m / N`` and ``Q = m.m / N`` (``m = <c w>``)
and their conjugates ``R_hat, Q_hat``, together with the prior's tuned
precision ``A = F + Q_hat`` and log-odds ``lam``.

Output side (eqs. 47–48; the prefactor 2 counts the two labels)::

    Q_hat = 2 alpha int Dz Z_t(r z, s^2) a(sqrt(Q) z)^2
    R_hat = 2 alpha int Dz d_h Z_t(r z, s^2) a(sqrt(Q) z)
    r = R / sqrt(Q),  s^2 = C_t - R^2 / Q,  a = d_h ln Z_s(h, C - Q),

with ``Z(h, V) = int Du f(sqrt(V) u + h)``. Input side (eqs. 50–55): the
field ``h = sqrt(Q_hat) z + R_hat w_o``; ``(A, lam)`` meet the pruning
conditions ``<rho> = C``, ``<rho (1/A + h^2/A^2)> = C`` and

    Q = < (rho h / A)^2 >,    R = < w_o rho h / A >.

``R`` is taken in this form, not as the paper's second equality in eq. (53),
which drops the Stein term ``<w_o z> != 0`` at fixed ``h`` (see
``docs/derivations/sparse_bayes_state_evolution.md``). ``F = A - Q_hat`` may be
negative when ``C < C_t``; only ``A > 0`` is required.

State evolution iterates the two sides from the uninformed start ``m^0 = 0``
(``Q = R = 0``), the algorithm's own initial condition; its fixed points are
the stationary points of the replica-symmetric free entropy eqs. (14)–(16),
and :func:`replica` returns the one of largest free entropy.

Generalisation errors (eqs. 11 and 18) are closed-form for the activations
``f(u) = kappa + (1 - 2 kappa) Phi(u / width)`` (teacher and student alike)::

    eps_SBC   = kappa + (1 - 2 kappa) arccos(R / sqrt(Q (C_t + width^2))) / pi
    eps_Gibbs = kappa + (1 - 2 kappa) arccos(R / sqrt(C (C_t + width^2))) / pi

The output channel (:class:`SmoothedStepActivation`) and the spike-and-slab
beliefs with their pruning-condition solver (:func:`belief_moments`,
:func:`match_pruning`) are shared with the message-passing estimator
(:mod:`statmechlearn.linear`) and the teacher (:mod:`statmechlearn.models`),
which import them from here.
"""

import math
import numbers
from dataclasses import dataclass

import numpy as np

from statmechlearn._core.exceptions import ConvergenceWarning
from statmechlearn._core.saddle import damped_fixed_point
from statmechlearn._core.validation import check_array_finite, check_int, check_real
from statmechlearn._core.warn import warn
from statmechlearn.theory._channels import SmoothedStepActivation
from statmechlearn.theory._spike_slab import belief_moments, match_pruning

__all__ = [
    "ReplicaSolution",
    "SmoothedStepActivation",
    "StateEvolution",
    "belief_moments",
    "free_entropy",
    "generalization_error",
    "gibbs_error",
    "match_pruning",
    "replica",
    "state_evolution",
]

# Uniform grid for Gaussian averages: the trapezoid rule is spectrally accurate
# for smooth integrands times exp(-z^2/2), and the pruning sigmoid stays
# resolved far into the tails (small C puts all the weight on |h| >> 1).
_Z = np.linspace(-14.0, 14.0, 2801)
_W = np.exp(-0.5 * _Z**2) * (_Z[1] - _Z[0]) / math.sqrt(2.0 * math.pi)
_W /= _W.sum()


def _check(alpha, C, C_t, kappa, width):
    alpha = check_real(alpha, "alpha", minimum=0.0)
    C = check_real(C, "C", minimum=0.0, maximum=1.0, include_min=False)
    C_t = check_real(C_t, "C_t", minimum=0.0, maximum=1.0, include_min=False)
    kappa = check_real(kappa, "kappa", minimum=0.0, maximum=0.5, include_max=False)
    width = check_real(width, "width", minimum=0.0)
    return alpha, C, C_t, kappa, width


def _check_values(x, name):
    x = check_array_finite(x, name)
    if x.size == 0:
        raise ValueError(f"{name} must not be empty")
    return x


def _check_overlap(R, norm, norm_name, C_t):
    """``R`` with ``|R| <= sqrt(norm C_t)`` (Cauchy-Schwarz), ``norm`` (Q or C) >= 0."""
    R = _check_values(R, "R")
    norm = _check_values(norm, norm_name)
    if np.any(norm < 0):
        raise ValueError(f"{norm_name} must be >= 0, got minimum {norm.min():g}")
    try:
        bound = np.sqrt(norm * C_t) + np.zeros_like(R)
    except ValueError:
        raise ValueError(
            f"R and {norm_name} must broadcast together, got shapes {R.shape} and {norm.shape}"
        ) from None
    # R = w_o.m / N of a student m with m.m / N = norm and a teacher with w_o.w_o / N = C_t.
    if np.any(np.abs(R) > bound * (1.0 + 1e-9) + 1e-300):
        raise ValueError(
            f"R must satisfy |R| <= sqrt({norm_name} C_t) (Cauchy-Schwarz), got R up to "
            f"{np.max(np.abs(R)):g} with sqrt({norm_name} C_t) = {np.min(bound):g}"
        )
    return R, norm


def generalization_error(R, Q, *, C_t, kappa, width=0.0):
    """Generalisation error of the Bayes (SBC) prediction, eq. (11).

    Parameters
    ----------
    R, Q : float or ndarray
        Teacher–student overlap and self-overlap of ``m = <c w>``; ``Q >= 0``
        and ``|R| <= sqrt(Q C_t)`` (Cauchy–Schwarz).
    C_t : float
        Teacher's fraction of relevant components (``|w_o|^2 / N``), in ``(0, 1]``.
    kappa, width : float
        Activation ``kappa + (1 - 2 kappa) Phi(u / width)`` (width 0: step).

    Returns
    -------
    float or ndarray
        ``kappa + (1 - 2 kappa) arccos(R / sqrt(Q (C_t + width^2))) / pi``; 1/2
        where ``Q = 0`` (no information).
    """
    act = SmoothedStepActivation(kappa, width)
    C_t = check_real(C_t, "C_t", minimum=0.0, maximum=1.0, include_min=False)
    R, Q = _check_overlap(R, Q, "Q", C_t)
    return act.sign_error(R, Q, C_t)


def gibbs_error(R, C, *, C_t, kappa, width=0.0):
    """Generalisation error of Gibbs learning (one posterior sample), eq. (18).

    Parameters
    ----------
    R : float or ndarray
        Teacher–student overlap, ``|R| <= sqrt(C C_t)``.
    C : float
        Student's active fraction (a sample has ``|c w|^2 / N = C``), in ``(0, 1]``.
    C_t, kappa, width : float
        As in :func:`generalization_error`.

    Returns
    -------
    float or ndarray
        ``kappa + (1 - 2 kappa) arccos(R / sqrt(C (C_t + width^2))) / pi``.
    """
    act = SmoothedStepActivation(kappa, width)
    C = check_real(C, "C", minimum=0.0, maximum=1.0, include_min=False)
    C_t = check_real(C_t, "C_t", minimum=0.0, maximum=1.0, include_min=False)
    R, C = _check_overlap(R, C, "C", C_t)
    return act.sign_error(R, C, C_t)


def _ratio(R, Q):
    return R / math.sqrt(Q) if Q > 0 else 0.0


def _output_hats(R, Q, alpha, C, C_t, act):
    """Q_hat and R_hat from (R, Q): eqs. (47)–(48)."""
    r = _ratio(R, Q)
    s2 = max(C_t - r * r, 0.0)
    z_t = act.probability(r * _Z, s2)
    _, d1_t, _ = act.log_partition(r * _Z, s2)
    _, a, _ = act.log_partition(math.sqrt(max(Q, 0.0)) * _Z, max(C - Q, 0.0))
    q_hat = 2.0 * alpha * np.sum(_W * z_t * a * a)
    r_hat = 2.0 * alpha * np.sum(_W * z_t * d1_t * a)
    return float(q_hat), float(r_hat)


def _field_nodes(q_hat, r_hat, C_t):
    """Quadrature of h = sqrt(Q_hat) z + R_hat w_o over the spike and the slab of w_o."""
    s_slab = math.sqrt(q_hat + r_hat * r_hat)
    h = np.concatenate([math.sqrt(q_hat) * _Z, s_slab * _Z])
    weights = np.concatenate([(1.0 - C_t) * _W, C_t * _W])
    # E[w_o | h] on the slab: w_o and h are jointly Gaussian there.
    w_given_h = np.concatenate([np.zeros_like(_Z), (r_hat / s_slab if s_slab > 0 else 0.0) * _Z])
    return h, weights, w_given_h


def _input_side(q_hat, r_hat, C, C_t, A0=None, lam0=None):
    """(Q, R, A, lam) from (Q_hat, R_hat): eqs. (50)–(55), R with the Stein term kept."""
    h, weights, w_given_h = _field_nodes(q_hat, r_hat, C_t)
    A, lam = match_pruning(h, C, weights=weights, A0=A0, lam0=lam0)
    _, mean, _ = belief_moments(h, A, lam)
    Q = float(weights @ (mean * mean))
    R = float(weights @ (w_given_h * mean))
    return Q, R, A, lam


@dataclass(frozen=True)
class StateEvolution:
    """Order parameters after each update of the O(NM) algorithm, ``t`` from 0 to ``n_iter``.

    Attributes
    ----------
    alpha, C, C_t, kappa, width : float
        The problem.
    t : ndarray of int
        Update index; ``t = 0`` is the start ``m = 0``.
    R, Q : ndarray
        Overlaps of ``m^t`` with the teacher and itself.
    R_hat, Q_hat, A, lam : ndarray
        Conjugates and prior hyperparameters used to reach ``m^t`` (NaN at t = 0).
    F : ndarray
        ``A - Q_hat`` (the canonical prior's ``F``).
    eps_g : ndarray
        Generalisation error of the Bayes prediction from ``m^t`` (eq. 11).
    eps_gibbs : ndarray
        Gibbs-learning error at the same ``R`` (eq. 18).
    """

    alpha: float
    C: float
    C_t: float
    kappa: float
    width: float
    t: np.ndarray
    R: np.ndarray
    Q: np.ndarray
    R_hat: np.ndarray
    Q_hat: np.ndarray
    A: np.ndarray
    lam: np.ndarray
    F: np.ndarray
    eps_g: np.ndarray
    eps_gibbs: np.ndarray


class _StateEvolutionStep:
    """One update ``(R, Q) -> (R', Q')``, eqs. (47)-(55).

    Keeps the conjugates of the last update, and warm-starts the prior's
    tuning ``(A, lam)`` from it.
    """

    def __init__(self, alpha, C, C_t, act):
        self.problem = (alpha, C, C_t, act)
        self.r_hat = self.q_hat = self.A = self.lam = None

    def __call__(self, x):
        alpha, C, C_t, act = self.problem
        R, Q = x
        self.q_hat, self.r_hat = _output_hats(R, Q, alpha, C, C_t, act)
        Q_new, R_new, self.A, self.lam = _input_side(
            self.q_hat, self.r_hat, C, C_t, self.A, self.lam
        )
        return np.array([R_new, Q_new])

    def row(self, x):
        return (x[0], x[1], self.r_hat, self.q_hat, self.A, self.lam)


def state_evolution(alpha, C, *, C_t, kappa, n_iter, width=0.0):
    """Predicted trajectory of the O(NM) algorithm, eqs. (47)–(55).

    Parameters
    ----------
    alpha : float
        ``M / N``, ``>= 0``.
    C : float
        Student's active fraction, in ``(0, 1]``.
    C_t : float
        Teacher's fraction of relevant components, in ``(0, 1]``.
    kappa : float
        Activation's label-noise level, in ``[0, 1/2)`` (teacher and student).
    n_iter : int
        Number of updates.
    width : float, default=0.0
        Probit width of the activation (0: the step of eq. 17).

    Returns
    -------
    StateEvolution
        Starting from ``m^0 = 0`` (``R = Q = 0``), the initial condition of
        the algorithm (the paper does not state one).
    """
    alpha, C, C_t, kappa, width = _check(alpha, C, C_t, kappa, width)
    n_iter = check_int(n_iter, "n_iter", minimum=0)
    act = SmoothedStepActivation(kappa, width)
    step = _StateEvolutionStep(alpha, C, C_t, act)
    x = np.zeros(2)
    rows = [(0.0, 0.0, np.nan, np.nan, np.nan, np.nan)]
    # a trajectory of exactly n_iter updates, as the algorithm runs: not a solve to convergence
    for _ in range(n_iter):
        x = step(x)
        rows.append(step.row(x))
    R, Q, r_hat, q_hat, A, lam = (np.array(c, dtype=float) for c in zip(*rows, strict=True))
    return StateEvolution(
        alpha=alpha,
        C=C,
        C_t=C_t,
        kappa=kappa,
        width=width,
        t=np.arange(len(rows)),
        R=R,
        Q=Q,
        R_hat=r_hat,
        Q_hat=q_hat,
        A=A,
        lam=lam,
        F=A - q_hat,
        eps_g=generalization_error(R, Q, C_t=C_t, kappa=kappa, width=width),
        eps_gibbs=gibbs_error(R, C, C_t=C_t, kappa=kappa, width=width),
    )


def free_entropy(R, Q, R_hat, Q_hat, F, lam, *, alpha, C, C_t, kappa, width=0.0):
    """Replica-symmetric free entropy per component, eqs. (14)–(16).

    ``(1/N) [ln Z]`` with the prior normalisation ``(1/N) ln V = C/2 + H(C)``
    (the value of the bracket at ``alpha = 0``) subtracted, so that it is 0
    without data and its stationary points in all six arguments are the
    fixed points of state evolution.

    Parameters
    ----------
    R, Q, R_hat, Q_hat, F, lam : float
        Order parameters and conjugates: ``Q`` in ``[0, C]``, ``|R| <= sqrt(Q
        C_t)``, ``Q_hat >= 0``, ``F + Q_hat > 0``; ``lam`` finite, or ``+inf``
        when ``C = 1``.
    alpha, C, C_t, kappa, width : float
        The problem, as in :func:`state_evolution`.

    Returns
    -------
    float
        ``-inf`` on the boundary ``Q = 0`` or ``Q = C``.
    """
    alpha, C, C_t, kappa, width = _check(alpha, C, C_t, kappa, width)
    R, Q, R_hat, Q_hat, F = (
        check_real(v, name)
        for v, name in zip((R, Q, R_hat, Q_hat, F), ("R", "Q", "R_hat", "Q_hat", "F"), strict=True)
    )
    lam = _check_lam(lam, C)
    if not 0.0 <= Q <= C:
        raise ValueError(f"Q must be in [0, C] = [0, {C:g}], got {Q!r}")
    if Q_hat < 0:
        raise ValueError(f"Q_hat must be >= 0, got {Q_hat!r}")
    if F + Q_hat <= 0:
        raise ValueError(f"F must satisfy F + Q_hat > 0 (the prior's precision), got F = {F!r}")
    _check_overlap(R, Q, "Q", C_t)
    return _free_entropy(R, Q, R_hat, Q_hat, F, lam, alpha, C, C_t, kappa, width)


def _free_entropy(R, Q, R_hat, Q_hat, F, lam, alpha, C, C_t, kappa, width):
    """:func:`free_entropy` without the checks; ``-inf`` outside the domain."""
    act = SmoothedStepActivation(kappa, width)
    A = F + Q_hat
    if A <= 0 or Q_hat < 0 or Q <= 0 or Q >= C:
        return -np.inf
    r = R / math.sqrt(Q)
    s2 = C_t - r * r
    if s2 < 0:
        return -np.inf
    z_t = act.probability(r * _Z, s2)
    log_z_s, _, _ = act.log_partition(math.sqrt(Q) * _Z, C - Q)
    energy = 2.0 * alpha * np.sum(_W * z_t * log_z_s)
    h, weights, _ = _field_nodes(Q_hat, R_hat, C_t)
    base = -0.5 * math.log(A) + 0.5 * h * h / A
    if np.isposinf(lam):
        # C = 1: ln(1 + e^(lam + base)) - lam C -> base as lam -> inf.
        entropy, lam_term = weights @ base, 0.0
    else:
        entropy, lam_term = weights @ np.logaddexp(0.0, lam + base), -lam * C
    conj = -R_hat * R + 0.5 * Q_hat * Q + 0.5 * F * C + lam_term
    binary = -C * math.log(C) - (1.0 - C) * math.log1p(-C) if C < 1 else 0.0
    return float(energy + conj + entropy - 0.5 * C - binary)


def _check_lam(lam, C):
    if isinstance(lam, numbers.Real) and not isinstance(lam, bool) and lam == math.inf and C == 1:
        return math.inf
    return check_real(lam, "lam (finite; +inf only when C = 1)")


@dataclass(frozen=True)
class ReplicaSolution:
    """Replica-symmetric saddle point at one ``(alpha, C)``.

    Attributes
    ----------
    alpha, C, C_t, kappa, width : float
        The problem.
    R, Q, R_hat, Q_hat, F, lam : float
        The saddle point (``F + Q_hat`` is the prior's tuned precision).
    eps_g : float
        SBC generalisation error, eq. (11).
    eps_gibbs : float
        Gibbs-learning error, eq. (18).
    free_entropy : float
        Eqs. (14)–(16), zero at ``alpha = 0``.
    n_iter : int
        State-evolution updates to convergence.
    other_fixed_points : tuple of tuple
        ``(R, Q, free_entropy)`` of any other fixed point found (from the
        informed start); empty when the two starts agree.
    """

    alpha: float
    C: float
    C_t: float
    kappa: float
    width: float
    R: float
    Q: float
    R_hat: float
    Q_hat: float
    F: float
    lam: float
    eps_g: float
    eps_gibbs: float
    free_entropy: float
    n_iter: int
    other_fixed_points: tuple = ()


def replica(alpha, C, *, C_t, kappa, width=0.0, tol=1e-12, max_iter=20000):
    """Replica-symmetric saddle point of eqs. (14)–(16), with eps_g of SBC and Gibbs learning.

    The saddle-point equations are iterated (state evolution) to a fixed
    point from the uninformed start ``R = Q = 0`` and from an informed one
    (``R = Q = 0.999 min(C, C_t)``); if they end apart, the fixed point of
    larger free entropy is returned and the other is listed.

    Parameters
    ----------
    alpha : float
        ``M / N``, ``>= 0``.
    C : float
        Student's active fraction, in ``(0, 1]``.
    C_t : float
        Teacher's fraction, in ``(0, 1]``.
    kappa : float
        Activation's label-noise level, in ``[0, 1/2)``.
    width : float, default=0.0
        Probit width (0: step).
    tol : float, default=1e-12
        Convergence of ``R`` and ``Q`` between iterations, > 0.
    max_iter : int, default=20000
        Iterations per start, >= 1.

    Returns
    -------
    ReplicaSolution
    """
    alpha, C, C_t, kappa, width = _check(alpha, C, C_t, kappa, width)
    tol = check_real(tol, "tol", minimum=0.0, include_min=False)
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    act = SmoothedStepActivation(kappa, width)
    found = []
    for start in (0.0, 0.999 * min(C, C_t)):
        step = _StateEvolutionStep(alpha, C, C_t, act)
        res = damped_fixed_point(
            step, [start, start], tol=tol, max_iter=max_iter, raise_on_failure=False
        )
        R, Q, r_hat, q_hat, A, lam = (float(v) for v in step.row(res.x))
        if not res.converged:
            warn(
                f"replica: state evolution from R=Q={start:g} not converged in {max_iter} "
                f"iterations at alpha={alpha:g}, C={C:g} (R={R:.6g}, Q={Q:.6g})",
                ConvergenceWarning,
            )
        phi = _free_entropy(R, Q, r_hat, q_hat, A - q_hat, lam, alpha, C, C_t, kappa, width)
        found.append((phi, R, Q, r_hat, q_hat, A, lam, res.n_iter))
    best = max(found, key=lambda f: f[0])
    others = tuple(
        (f[1], f[2], f[0]) for f in found if f is not best and abs(f[2] - best[2]) > 1e-6
    )
    phi, R, Q, r_hat, q_hat, A, lam, n = best
    return ReplicaSolution(
        alpha=alpha,
        C=C,
        C_t=C_t,
        kappa=kappa,
        width=width,
        R=R,
        Q=Q,
        R_hat=r_hat,
        Q_hat=q_hat,
        F=A - q_hat,
        lam=lam,
        eps_g=float(generalization_error(R, Q, C_t=C_t, kappa=kappa, width=width)),
        eps_gibbs=float(gibbs_error(R, C, C_t=C_t, kappa=kappa, width=width)),
        free_entropy=phi,
        n_iter=n,
        other_fixed_points=others,
    )
