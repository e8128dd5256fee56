"""Replica theory of learning with outliers (Dietrich & Opper), zero temperature, RS.

Both estimators minimise an energy over the student vector J (per N, with
``Q = J.J/N``, ``R = J.B/N`` and fields ``h = S xi.J / sqrt(N)``):

- soft selection (MAP of J, eq. 7): ``Q/2 - (1/N) sum_mu softplus(a_mu)``;
- hard selection (MAP of the V's, eq. 10), rewritten exactly as a minimum
  over J and a multiplier lambda: ``Q/2 - (1/N) sum_mu max(0, a_mu) - g*(lambda)``,

with ``a = gamma~ h - gamma~ Q / 2 - eta (- lambda)``. Their replica-symmetric
ground-state energies are

    f = (R^2 - Q) / (2z) + Q/2 - alpha <Psi_b(a)> [- g*(lambda)],   b = gamma~^2 z / gamma,

averaged over ``a = gamma~ (V R + sqrt(Q/gamma) x) - gamma~ Q/2 - eta``,
with ``Psi_b(a) = max_t [phi(t) - (t - a)^2 / (2b)]``. The derivation, the
paper's typos this corrects and the checks are in
``docs/derivations/outliers_replica.md``.

Every stationary point is found by pseudo-arclength continuation in eta at
fixed alpha, which follows the S-shaped branch through its folds
(spinodals); the physical branch is the one of lowest f.

Public functions
----------------
soft_selection, hard_selection
    All branches at one (alpha, eta), with R, Q, Phi, Delta, f.
soft_transition, hard_transition
    Spinodals and the first-order transition at fixed alpha.
soft_selection_curve, hard_selection_curve
    The whole branch as a function of eta (for plots).
hebb
    Closed form for the Hebb rule eq. (25).
soft_selection_asymptotics
    R_inf and c of eq. (29).
hard_hat_parameters, hard_b3_free_energy, hard_b4_order_parameters, hard_b5, hard_b5_roots
    The paper's App. B in its own variables, as printed and corrected.
hard_selection_1rsb, hard_selection_1rsb_curve, hard_transition_1rsb, hard_complexity
    Hard selection with one step of replica-symmetry breaking (its RS saddle points are
    all unstable): the learning state, its branch in eta, the thresholds and the
    complexity of the learning states (``docs/derivations/outliers_1rsb.md``).

Every branch carries its replicon (Almeida-Thouless) eigenvalue
(``SelectionBranches.at_eigenvalue``); the transitions report where each
branch is RS-unstable and where learning is lost (``eta_learn``), see
``docs/derivations/outliers_hard_branches.md``.
"""

# the saddle point, its result types and its limits live in private modules of their own;
# this module is their public face

import math

from statmechlearn._core.validation import check_choice
from statmechlearn.theory._outlier_asymptotics import (
    hard_b3_free_energy,
    hard_b4_order_parameters,
    hard_b5,
    hard_b5_roots,
    hard_hat_parameters,
    hebb,
    soft_selection_asymptotics,
)
from statmechlearn.theory._outlier_rsb import (
    hard_complexity,
    hard_selection_1rsb,
    hard_selection_1rsb_curve,
    hard_transition_1rsb,
)
from statmechlearn.theory._outlier_saddle import (
    _branches,
    _check,
    _check_eta_range,
    _curve,
    _curve_result,
    _eta_range,
    _learning,
    _no_solution,
    _rs_unstable,
    _solutions_at,
    _transitions,
    hard_transition,
    hard_trivial_threshold,
)
from statmechlearn.theory._outlier_states import (
    _ETA_RANGE,
    HardB4OrderParameters,
    HardComplexity,
    HardHatParameters,
    HardSelection1RSB,
    HardSelection1RSBCurve,
    HardTransition1RSB,
    HebbOrderParameters,
    SelectionBranches,
    SelectionCurve,
    SelectionState,
    SelectionTransition,
    SoftAsymptotics,
)

__all__ = [
    "HardB4OrderParameters",
    "HardComplexity",
    "HardHatParameters",
    "HardSelection1RSB",
    "HardSelection1RSBCurve",
    "HardTransition1RSB",
    "HebbOrderParameters",
    "SelectionBranches",
    "SelectionCurve",
    "SelectionState",
    "SelectionTransition",
    "SoftAsymptotics",
    "hard_b3_free_energy",
    "hard_b4_order_parameters",
    "hard_b5",
    "hard_b5_roots",
    "hard_complexity",
    "hard_hat_parameters",
    "hard_selection",
    "hard_selection_1rsb",
    "hard_selection_1rsb_curve",
    "hard_selection_curve",
    "hard_transition",
    "hard_transition_1rsb",
    "hard_trivial_threshold",
    "hebb",
    "soft_selection",
    "soft_selection_asymptotics",
    "soft_selection_curve",
    "soft_transition",
]


def soft_selection(alpha, eta, *, gamma, gamma_student=None, limit="exact"):
    """Saddle points of soft selection (MAP of J by EM) at one (alpha, eta).

    Parameters
    ----------
    alpha : float
        Examples per dimension ``P / N``, in ``[1e-6, 1e8]``.
    eta : float
        Chemical potential of the outliers; ``1 / (1 + e^eta)`` of the
        examples are informative. Any finite value up to the end of the
        branch (where R and Q fall below ``e^-60``; beyond it a ValueError
        says where the branch ends).
    gamma : float
        Inverse variance of the clusters (teacher), in ``[0.01, 1000]``.
    gamma_student : float, optional
        The learner's gamma~ (default: gamma, the matched case), in ``[0.01, 1000]``.
    limit : {"exact", "gaussian"}, default="exact"
        ``"exact"``: the exact beta -> infinity limit of the replica free
        energy. ``"gaussian"``: the paper's eq. (A2) (the second-order
        expansion; undefined once ``b = gamma~^2 z / gamma >= 4``, where its
        branches end).

    Returns
    -------
    SelectionBranches
        Every branch (one, or three in the first-order region) and the
        index of the global minimum.

    Examples
    --------
    >>> from statmechlearn.theory.outliers import soft_selection
    >>> res = soft_selection(5.0, 0.0, gamma=10.0)
    >>> res.n_branches, round(res.branch().Phi, 3)
    (1, 0.066)
    """
    alpha, eta, gamma, gs = _check(alpha, eta, gamma, gamma_student)
    limit = check_choice(limit, "limit", ("exact", "gaussian"))
    problem, points, _, folds = _curve("soft", alpha, gamma, gs, limit, *_eta_range(eta))
    states = _solutions_at(problem, points, folds, eta)
    if not states:
        _no_solution("soft", eta, points)
    return _branches("soft", problem, states, alpha, eta, gamma, gs)


def hard_selection(alpha, eta, *, gamma, gamma_student=None):
    """Saddle points of hard selection (MAP of the V's, eq. 10) at one (alpha, eta).

    Parameters
    ----------
    alpha, eta, gamma, gamma_student : float
        As in :func:`soft_selection`.

    Returns
    -------
    SelectionBranches
        The non-trivial branches and, for ``eta >= eta0``
        (:func:`hard_trivial_threshold`), the trivial one (all V = 0: R = Q =
        0, Phi = 1/2, f = 0), flagged in ``trivial``. ``informative`` is
        the selected fraction of the examples.
    """
    alpha, eta, gamma, gs = _check(alpha, eta, gamma, gamma_student)
    problem, points, _, folds = _curve("hard", alpha, gamma, gs, "exact", *_eta_range(eta))
    states = _solutions_at(problem, points, folds, eta)
    eta0 = hard_trivial_threshold(gamma=gamma, gamma_student=gs)
    trivial = (0.0, 0.0, 1.0, 0.0, 0.0) if eta >= eta0 else None
    return _branches("hard", problem, states, alpha, eta, gamma, gs, trivial)


def soft_selection_curve(alpha, *, gamma, gamma_student=None, limit="exact", eta_range=None):
    """The soft-selection branch at fixed alpha, continued through its folds.

    Parameters
    ----------
    alpha, gamma, gamma_student, limit
        As in :func:`soft_selection`.
    eta_range : (float, float), optional
        Where to follow the branch, ``-100 <= eta_lo < eta_hi``; default (-8, 14).
        The curve ends earlier where R and Q fall below ``e^-60``.

    Returns
    -------
    SelectionCurve
    """
    alpha, _, gamma, gs = _check(alpha, 0.0, gamma, gamma_student)
    limit = check_choice(limit, "limit", ("exact", "gaussian"))
    eta_range = _check_eta_range(eta_range)
    return _curve_result("soft", alpha, gamma, gs, limit, eta_range)


def hard_selection_curve(alpha, *, gamma, gamma_student=None, eta_range=None):
    """The non-trivial hard-selection branch at fixed alpha (see :func:`soft_selection_curve`)."""
    alpha, _, gamma, gs = _check(alpha, 0.0, gamma, gamma_student)
    eta_range = _check_eta_range(eta_range)
    return _curve_result("hard", alpha, gamma, gs, "exact", eta_range)


def soft_transition(alpha, *, gamma, gamma_student=None, limit="exact"):
    """Spinodals and first-order transitions of soft selection at fixed alpha.

    Parameters
    ----------
    alpha, gamma, gamma_student, limit
        As in :func:`soft_selection`.

    Returns
    -------
    SelectionTransition
        ``spinodals``: the folds of the branch (empty if there is a single
        solution for every eta); ``eta_c``: the first eta where the global
        minimum leaves the branch connected to the Hebb limit (NaN if never);
        ``transitions``: every switch of the global minimum.
    """
    alpha, _, gamma, gs = _check(alpha, 0.0, gamma, gamma_student)
    limit = check_choice(limit, "limit", ("exact", "gaussian"))
    problem, points, obs, folds = _curve("soft", alpha, gamma, gs, limit, *_ETA_RANGE)
    switches = _transitions(problem, points, folds)
    eta_c = next((e for e, k, _ in switches if k == 0), math.nan)
    phi_learn = 1.0 / 3.0
    eta_learn, jump, spinodal = _learning(
        problem, points, obs, folds, switches, phi_learn, float(points[:, -1].max())
    )
    return SelectionTransition(
        alpha,
        tuple(points[folds, -1].tolist()),
        eta_c,
        tuple(e for e, _, _ in switches),
        eta_learn=eta_learn,
        learn_jump=jump,
        eta_learn_spinodal=spinodal,
        phi_learn=phi_learn,
        rs_unstable=_rs_unstable(problem, points, folds) if limit == "exact" else (),
    )
