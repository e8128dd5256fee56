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
"""

import functools
import itertools
import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq, minimize_scalar
from scipy.special import expit, log_expit

from statmechlearn._core.exceptions import ConvergenceError, ConvergenceWarning
from statmechlearn._core.validation import check_choice, check_real
from statmechlearn.theory._outlier_kernels import soft_averages

__all__ = [
    "SelectionBranches",
    "SelectionCurve",
    "SelectionTransition",
    "hard_selection",
    "hard_selection_curve",
    "hard_transition",
    "hard_trivial_threshold",
    "hebb",
    "soft_selection",
    "soft_selection_asymptotics",
    "soft_selection_curve",
    "soft_transition",
]

_ETA_RANGE = (-8.0, 14.0)
_LOG_FLOOR = -60.0  # continuation stops when R or Q reach e^-60 (the all-outlier limit)
_LOG_CEILING = 30.0  # order parameters beyond e^30 are never a saddle point
_LOG_END = -15.0  # a branch that stalls below e^-15 has reached J = 0


# ----------------------------------------------------------------------------- results


@dataclass(frozen=True)
class SelectionBranches:
    """All replica-symmetric saddle points at one (alpha, eta).

    Attributes
    ----------
    selection : {"soft", "hard"}
    alpha, eta, gamma, gamma_student : float
    R, Q : ndarray of shape (n_branches,)
        ``J.B / N`` and ``J.J / N`` of the estimate (for hard selection the
        posterior mean ``<J>`` of eq. 28).
    z : ndarray
        ``beta (Q - q)``, the response of J to one example.
    Phi, Delta : ndarray
        Angle / pi (eq. 14) and squared deviation (eq. 12).
    free_energy : ndarray
        Ground-state energy per N (the minimum of the training energy, up to
        J-independent constants): comparable between branches and with
        ``H(J)/N`` of a simulation.
    informative : ndarray
        Mean of ``<V>`` (soft) or of V (hard) over the training set.
    global_minimum : int
        Index of the branch of lowest free energy (the thermodynamic state).
    trivial : ndarray of bool
        Hard selection's all-outlier solution (every V = 0, J = 0).

    Branches are sorted by decreasing R.
    """

    selection: str
    alpha: float
    eta: float
    gamma: float
    gamma_student: float
    R: np.ndarray
    Q: np.ndarray
    z: np.ndarray
    Phi: np.ndarray
    Delta: np.ndarray
    free_energy: np.ndarray
    informative: np.ndarray
    global_minimum: int
    trivial: np.ndarray

    @property
    def n_branches(self):
        """Number of saddle points found."""
        return int(self.R.size)

    def branch(self, index=None):
        """Order parameters of one branch as a dict (default: the global minimum)."""
        i = self.global_minimum if index is None else index
        names = ("R", "Q", "z", "Phi", "Delta", "free_energy", "informative")
        return {name: float(getattr(self, name)[i]) for name in names}


@dataclass(frozen=True)
class SelectionCurve:
    """The continued branch of saddle points at fixed alpha, as a function of eta.

    Attributes
    ----------
    eta, R, Q, z, Phi, Delta, free_energy, informative : ndarray of shape (n_points,)
        Along the curve in arclength order (eta is not monotone across folds).
    folds : ndarray
        eta of the turning points (spinodals), in curve order.
    """

    eta: np.ndarray
    R: np.ndarray
    Q: np.ndarray
    z: np.ndarray
    Phi: np.ndarray
    Delta: np.ndarray
    free_energy: np.ndarray
    informative: np.ndarray
    folds: np.ndarray


@dataclass(frozen=True)
class SelectionTransition:
    """Where the saddle-point structure changes at fixed alpha.

    Attributes
    ----------
    alpha : float
    spinodals : tuple of float
        eta where a branch appears or disappears (folds; for hard selection
        also eta0, where the trivial solution appears).
    eta_c : float
        First-order transition: the global minimum leaves the branch that is
        connected to the Hebb limit (eta -> -infinity). NaN if it never does
        in the eta range searched.
    transitions : tuple of float
        Every eta where the global minimum jumps between branches.
    """

    alpha: float
    spinodals: tuple
    eta_c: float
    transitions: tuple = ()


# ----------------------------------------------------------------------------- problems


class _SoftProblem:
    """Stationarity of f(R, Q, z) for soft selection; unknowns y = (ln R, ln Q, ln z)."""

    n_unknowns = 3
    log_floor = _LOG_FLOOR

    def __init__(self, alpha, gamma, gamma_student, exact):
        self.alpha, self.gamma, self.gs, self.exact = alpha, gamma, gamma_student, exact

    def _parts(self, y, eta):
        R, Q, z = np.exp(y[:3])
        gs = self.gs
        s = gs * math.sqrt(Q / self.gamma)
        b = gs * gs * z / self.gamma
        c0 = -0.5 * gs * Q - eta
        avg = soft_averages(c0, c0 + gs * R, s, b, expit(-eta), exact=self.exact)
        return R, Q, z, s, b, avg

    def residual(self, u):
        y, eta = u[:-1], u[-1]
        if np.max(y) > _LOG_CEILING:  # a Newton step far outside: reject it
            return np.full(3, np.nan)
        R, Q, z, _s, _b, avg = self._parts(y, eta)
        psi, m1, m, xm, n = avg
        a, g, gs = self.alpha, self.gamma, self.gs
        if not (m1 > 0 and np.isfinite(psi)):
            return np.full(3, np.nan)
        return np.array(
            [
                y[0] - math.log(z * a * gs * m1) - log_expit(-eta),
                y[1] - math.log(R * R + 2.0 * z * z * a * gs * gs / g * n),
                z * (1.0 + a * gs * m - a * gs * xm / math.sqrt(g * Q)) - 1.0,
            ]
        )

    def observables(self, u):
        R, Q, z, _s, _b, avg = self._parts(u[:-1], u[-1])
        f = (R * R - Q) / (2.0 * z) + 0.5 * Q - self.alpha * avg[0]
        return R, Q, z, f, avg[2]

    def start(self, eta):
        R, Q, _, _ = _hebb_order_parameters(self.alpha, eta, self.gamma, self.gs)
        z = 1.0 / (1.0 + self.alpha * self.gs)
        return np.log([R, Q, z])


class _HardProblem:
    """Stationarity for hard selection; unknowns y = (ln R, ln Q, ln z, ln lambda).

    Psi_b(a) = max(0, a + b/2), so every Gaussian average is an error function.
    """

    n_unknowns = 4
    log_floor = _LOG_END  # the branch merges with the trivial solution

    def __init__(self, alpha, gamma, gamma_student):
        self.alpha, self.gamma, self.gs = alpha, gamma, gamma_student

    def _parts(self, y, eta):
        R, Q, z, lam = np.exp(y[:4])
        gs, g = self.gs, self.gamma
        s = gs * math.sqrt(Q / g)
        b = gs * gs * z / g
        c0 = -0.5 * gs * Q - eta - lam + 0.5 * b
        p1 = expit(-eta)
        psi = on = dens = on1 = 0.0
        for c, pv in ((c0, 1.0 - p1), (c0 + gs * R, p1)):
            t = c / s
            cdf = 0.5 * math.erfc(-t / math.sqrt(2.0))  # <theta(a + b/2)>
            pdf = math.exp(-0.5 * t * t) / math.sqrt(2.0 * math.pi)
            psi += pv * (c * cdf + s * pdf)
            on += pv * cdf
            dens += pv * pdf
            on1 = cdf
        return R, Q, z, lam, s, b, psi, on1, on, dens

    def residual(self, u):
        y, eta = u[:-1], u[-1]
        if np.max(y) > _LOG_CEILING:
            return np.full(4, np.nan)
        R, Q, z, _lam, _s, _b, _psi, m1, m, xm = self._parts(y, eta)
        a, g, gs = self.alpha, self.gamma, self.gs
        if not m1 > 0:
            return np.full(4, np.nan)
        return np.array(
            [
                y[0] - math.log(z * a * gs * m1) - log_expit(-eta),
                y[1] - math.log(R * R + z * z * a * gs * gs / g * m),
                z * (1.0 + a * gs * m - a * gs * xm / math.sqrt(g * Q)) - 1.0,
                y[3] - math.log(0.5 * gs / (1.0 + gs * a * m)),
            ]
        )

    def observables(self, u):
        R, Q, z, lam, _s, _b, psi, _m1, m, _xm = self._parts(u[:-1], u[-1])
        f = (R * R - Q) / (2.0 * z) + 0.5 * Q - self.alpha * psi - _g_star(lam, self.gs)
        return R, Q, z, f, m

    def start(self, eta):
        R, Q, _, _ = _hebb_order_parameters(self.alpha, eta, self.gamma, self.gs)
        z = 1.0 / (1.0 + self.alpha * self.gs)
        lam = 0.5 * self.gs / (1.0 + self.gs * self.alpha)
        return np.log([R, Q, z, lam])


def _g_star(lam, gs):
    """Concave conjugate of ``q -> ln(1 + gs q) / 2`` at ``0 < lam <= gs/2``."""
    return 0.5 - lam / gs + 0.5 * math.log(2.0 * lam / gs)


# ----------------------------------------------------------------------------- solvers


def _jacobian(fun, u, step=1e-7):
    f0 = fun(u)
    jac = np.empty((f0.size, u.size))
    for i in range(u.size):
        du = np.zeros_like(u)
        du[i] = step * max(1.0, abs(u[i]))
        jac[:, i] = (fun(u + du) - fun(u - du)) / (2.0 * du[i])
    return f0, jac


def _newton(fun, x0, *, tol=1e-10, max_iter=30):
    """Newton with a finite-difference Jacobian and step halving; (x, converged, residual)."""
    x = np.array(x0, dtype=float)
    f, jac = _jacobian(fun, x)
    norm = np.max(np.abs(f)) if np.all(np.isfinite(f)) else np.inf
    for _ in range(max_iter):
        if norm <= tol:
            return x, True, norm
        try:
            dx = np.linalg.solve(jac, -f)
        except np.linalg.LinAlgError:
            return x, False, norm
        scale = 1.0
        while scale > 1e-4:
            x_new = x + scale * dx
            f_new = fun(x_new)
            norm_new = np.max(np.abs(f_new)) if np.all(np.isfinite(f_new)) else np.inf
            if norm_new < norm or norm_new <= tol:
                break
            scale *= 0.5
        else:
            return x, False, norm
        x, norm = x_new, norm_new
        if norm > tol:
            f, jac = _jacobian(fun, x)
    return x, norm <= tol, norm


def _tangent(jac, previous=None):
    t = np.linalg.svd(jac)[2][-1]
    if previous is None:
        return t if t[-1] > 0 else -t
    return t if t @ previous > 0 else -t


def _continue(problem, eta_range, *, ds_max=0.2, max_steps=20000):
    """Pseudo-arclength continuation in eta from the Hebb-like state at eta_range[0]."""
    eta_lo, eta_hi = eta_range
    y0, ok, res = _newton(lambda y: problem.residual(np.append(y, eta_lo)), problem.start(eta_lo))
    if not ok:
        raise ConvergenceError(
            f"no saddle point found at the start of the continuation (eta={eta_lo}); "
            f"residual {res:.2e}",
            {"eta": eta_lo, "residual": res},
        )
    u = np.append(y0, eta_lo)
    points = [u]
    tangent = _tangent(_jacobian(problem.residual, u)[1])
    tangents = [tangent]
    ds = 0.02
    for _ in range(max_steps):
        predicted = u + ds * tangent

        def corrector(v, predicted=predicted, tangent=tangent):
            return np.append(problem.residual(v), tangent @ (v - predicted))

        v, ok, _ = _newton(corrector, predicted, tol=1e-9, max_iter=8)
        jac = _jacobian(problem.residual, v)[1] if ok else None
        if not ok or not np.all(np.isfinite(jac)):
            ds *= 0.5
            if ds < 1e-7 and min(u[0], u[1]) < _LOG_END:
                break  # the branch ends on the trivial solution (J = 0)
            if ds < 1e-7 and not getattr(problem, "exact", True):
                break  # the Gaussian form (A2) ends where b reaches 4
            if ds < 1e-7:
                raise ConvergenceError(
                    f"continuation stalled at eta={u[-1]:.4g} (step {ds:.1e}); the branch "
                    "may end in a singular point",
                    {"eta": float(u[-1]), "state": u.tolist()},
                )
            continue
        new_tangent = _tangent(jac, tangent)
        if new_tangent @ tangent < 0.9:  # turned too fast: retry with a shorter step
            ds *= 0.5
            continue
        u, tangent = v, new_tangent
        points.append(u)
        tangents.append(tangent)
        ds = min(ds * 1.3, ds_max)
        if u[-1] > eta_hi or u[-1] < eta_lo - 1.0 or min(u[0], u[1]) < problem.log_floor:
            break
    else:
        warnings.warn(
            f"continuation stopped after {max_steps} steps at eta={u[-1]:.4g} before "
            f"reaching eta={eta_hi}; widen max_steps",
            ConvergenceWarning,
            stacklevel=3,
        )
    return np.array(points), np.array(tangents)


def _refine_fold(problem, u):
    """A fold: F(u) = 0 and det dF/dy = 0, by Newton from a nearby curve point."""

    def augmented(v):
        jac = _jacobian(problem.residual, v, step=1e-6)[1][:, :-1]
        return np.append(problem.residual(v), np.linalg.det(jac))

    v, ok, _ = _newton(augmented, u, tol=1e-9, max_iter=15)
    return v if ok else u


@functools.lru_cache(maxsize=512)
def _curve(selection, alpha, gamma, gamma_student, limit, eta_lo, eta_hi):
    """Continued branch with its folds inserted; returns (problem, points, obs, fold_index)."""
    if selection == "soft":
        problem = _SoftProblem(alpha, gamma, gamma_student, limit == "exact")
    else:
        problem = _HardProblem(alpha, gamma, gamma_student)
    points, tangents = _continue(problem, (eta_lo, eta_hi))
    turning = np.nonzero(np.sign(tangents[1:, -1]) != np.sign(tangents[:-1, -1]))[0]
    rows, fold_index = [], []
    start = 0
    for i in turning:
        best = i if abs(tangents[i, -1]) < abs(tangents[i + 1, -1]) else i + 1
        rows.extend(points[start : i + 1])
        fold_index.append(len(rows))
        rows.append(_refine_fold(problem, points[best]))
        start = i + 1
    rows.extend(points[start:])
    points = np.array(rows)
    obs = np.array([problem.observables(u) for u in points])
    return problem, points, obs, np.array(fold_index, dtype=int)


def _segments(points, fold_index):
    """Index ranges of the pieces of the curve on which eta is monotone (folds shared)."""
    bounds = [0, *fold_index.tolist(), len(points) - 1]
    return [np.arange(lo, hi + 1) for lo, hi in itertools.pairwise(bounds)]


def _solve_on_segment(problem, points, segment, eta):
    """The saddle point on one monotone piece of the curve at eta (None if outside it)."""
    etas = points[segment, -1]
    if not etas.min() <= eta <= etas.max():
        return None
    order = np.argsort(etas)
    guess = np.array(
        [np.interp(eta, etas[order], points[segment[order], k]) for k in range(points.shape[1] - 1)]
    )
    y, ok, res = _newton(lambda y: problem.residual(np.append(y, eta)), guess)
    if not ok:
        warnings.warn(
            f"saddle point at eta={eta:.6g} did not converge (residual {res:.1e}); "
            "reported from the continuation's interpolation",
            ConvergenceWarning,
            stacklevel=4,
        )
    return np.append(y, eta)


# ----------------------------------------------------------------------------- helpers


def _check(alpha, eta, gamma, gamma_student):
    alpha = check_real(alpha, "alpha", minimum=0.0, include_min=False)
    eta = check_real(eta, "eta")
    gamma = check_real(gamma, "gamma", minimum=0.0, include_min=False)
    gamma_student = gamma if gamma_student is None else gamma_student
    gamma_student = check_real(gamma_student, "gamma_student", minimum=0.0, include_min=False)
    return alpha, eta, gamma, gamma_student


def _eta_range(eta):
    return (min(_ETA_RANGE[0], eta - 1.0), max(_ETA_RANGE[1], eta + 1.0))


def _order_parameter_arrays(R, Q):
    R, Q = np.asarray(R, dtype=float), np.asarray(Q, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        cosine = np.where(Q > 0, R / np.sqrt(np.where(Q > 0, Q, 1.0)), 0.0)
    # J = 0 (the trivial state) has no direction: Phi is exactly 1/2, not arccos(0)/pi
    phi = np.where(Q > 0, np.arccos(np.clip(cosine, -1.0, 1.0)) / np.pi, 0.5)
    return phi, Q - 2.0 * R + 1.0


def _solutions_at(problem, points, fold_index, eta, *, tol=1e-7):
    """Every saddle point at eta: one per monotone piece of the curve that spans it."""
    found = []
    for segment in _segments(points, fold_index):
        u = _solve_on_segment(problem, points, segment, eta)
        if u is not None and all(np.max(np.abs(u - v)) > tol for v in found):
            found.append(u)
    return found


def _branches(selection, problem, states, alpha, eta, gamma, gs, trivial_state=None):
    rows = [problem.observables(u) for u in states]
    trivial = [False] * len(rows)
    if trivial_state is not None:
        rows.append(trivial_state)
        trivial.append(True)
    rows = np.array(rows, dtype=float).reshape(-1, 5)
    order = np.argsort(-rows[:, 0], kind="stable")
    rows = rows[order]
    R, Q, z, f, informative = rows.T
    Phi, Delta = _order_parameter_arrays(R, Q)
    return SelectionBranches(
        selection=selection,
        alpha=alpha,
        eta=eta,
        gamma=gamma,
        gamma_student=gs,
        R=R,
        Q=Q,
        z=z,
        Phi=Phi,
        Delta=Delta,
        free_energy=f,
        informative=informative,
        global_minimum=int(np.argmin(f)),
        trivial=np.asarray(trivial)[order],
    )


# ----------------------------------------------------------------------------- public API


def soft_selection(alpha, eta, *, gamma, gamma_student=None, limit="exact"):
    """Saddle points of soft selection (MAP of J by EM) at one (alpha, eta).

    Parameters
    ----------
    alpha : float
        Examples per dimension, ``P / N > 0``.
    eta : float
        Chemical potential of the outliers; ``1 / (1 + e^eta)`` of the
        examples are informative.
    gamma : float
        Inverse variance of the clusters (teacher), > 0.
    gamma_student : float, optional
        The learner's gamma~ (default: gamma, the matched case).
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
    >>> res.n_branches, round(res.branch()["Phi"], 3)
    (1, 0.066)
    """
    alpha, eta, gamma, gs = _check(alpha, eta, gamma, gamma_student)
    limit = check_choice(limit, "limit", ("exact", "gaussian"))
    problem, points, _, folds = _curve("soft", alpha, gamma, gs, limit, *_eta_range(eta))
    states = _solutions_at(problem, points, folds, eta)
    return _branches("soft", problem, states, alpha, eta, gamma, gs)


def hard_trivial_threshold(*, gamma, gamma_student=None):
    """eta0: the all-outlier solution (every V = 0) exists for eta >= eta0.

    Selecting one example into the empty set changes the energy (10) by
    ``eta + gamma~/2 - gamma~^2 / (2 gamma)`` (its own field included), so

        eta0 = gamma~^2 / (2 gamma) - gamma~ / 2

    (0 in the matched case), not the paper's eq. (30),
    ``gamma~^2 / (4 gamma) - gamma~ / 2``.

    Parameters
    ----------
    gamma : float
    gamma_student : float, optional

    Returns
    -------
    float
    """
    _, _, gamma, gs = _check(1.0, 0.0, gamma, gamma_student)
    return 0.5 * gs * gs / gamma - 0.5 * gs


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


def _curve_result(selection, alpha, gamma, gamma_student, limit, eta_range):
    _problem, points, obs, folds = _curve(selection, alpha, gamma, gamma_student, limit, *eta_range)
    R, Q, z, f, informative = obs.T
    folds = points[folds, -1]
    Phi, Delta = _order_parameter_arrays(R, Q)
    return SelectionCurve(
        eta=points[:, -1],
        R=R,
        Q=Q,
        z=z,
        Phi=Phi,
        Delta=Delta,
        free_energy=f,
        informative=informative,
        folds=folds,
    )


def soft_selection_curve(alpha, *, gamma, gamma_student=None, limit="exact", eta_range=None):
    """The soft-selection branch at fixed alpha, continued through its folds.

    Parameters
    ----------
    alpha, gamma, gamma_student, limit
        As in :func:`soft_selection`.
    eta_range : (float, float), optional
        Default (-8, 14).

    Returns
    -------
    SelectionCurve
    """
    alpha, _, gamma, gs = _check(alpha, 0.0, gamma, gamma_student)
    limit = check_choice(limit, "limit", ("exact", "gaussian"))
    eta_range = _ETA_RANGE if eta_range is None else tuple(float(e) for e in eta_range)
    return _curve_result("soft", alpha, gamma, gs, limit, eta_range)


def hard_selection_curve(alpha, *, gamma, gamma_student=None, eta_range=None):
    """The non-trivial hard-selection branch at fixed alpha (see :func:`soft_selection_curve`)."""
    alpha, _, gamma, gs = _check(alpha, 0.0, gamma, gamma_student)
    eta_range = _ETA_RANGE if eta_range is None else tuple(float(e) for e in eta_range)
    return _curve_result("hard", alpha, gamma, gs, "exact", eta_range)


def _transitions(problem, points, fold_index, *, trivial_from=None, n_grid=400):
    """Where the lowest-f branch changes, scanning eta over the curve's range.

    Returns the list of (eta, from_segment, to_segment); segment -1 is the
    trivial solution (f = 0 for eta >= trivial_from).
    """
    segments = _segments(points, fold_index)

    def energy(k, eta):
        if k < 0:
            return 0.0 if eta >= trivial_from else math.inf
        u = _solve_on_segment(problem, points, segments[k], eta)
        return math.inf if u is None else problem.observables(u)[3]

    etas = points[:, -1]
    lo, hi = etas[0], etas.max()
    candidates = list(range(len(segments))) + ([-1] if trivial_from is not None else [])
    # only eta where several solutions coexist can hold a transition
    if len(segments) == 1 and trivial_from is None:
        return []
    grid = np.linspace(lo, hi, n_grid)
    if trivial_from is not None:
        grid = np.union1d(grid, [trivial_from])
    coexist = [
        eta
        for eta in grid
        if sum(
            (k < 0 and eta >= trivial_from)
            or (k >= 0 and etas[segments[k]].min() <= eta <= etas[segments[k]].max())
            for k in candidates
        )
        > 1
    ]
    if not coexist:
        return []
    grid = np.linspace(min(coexist), max(coexist), n_grid)
    best = [min(candidates, key=lambda k, e=eta: energy(k, e)) for eta in grid]
    out = []
    for i in range(len(grid) - 1):
        if best[i] != best[i + 1]:
            k, j = best[i], best[i + 1]
            a, b = grid[i], grid[i + 1]

            def gap(eta, k=k, j=j):
                return energy(k, eta) - energy(j, eta)

            try:
                eta_c = brentq(gap, a, b, xtol=1e-10)
            except ValueError:  # a branch ends inside [a, b]: the switch is at its fold
                eta_c = 0.5 * (a + b)
            out.append((eta_c, k, j))
    return out


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
    problem, points, _, folds = _curve("soft", alpha, gamma, gs, limit, *_ETA_RANGE)
    switches = _transitions(problem, points, folds)
    eta_c = next((e for e, k, _ in switches if k == 0), math.nan)
    return SelectionTransition(
        alpha, tuple(points[folds, -1].tolist()), eta_c, tuple(e for e, _, _ in switches)
    )


def hard_transition(alpha, *, gamma, gamma_student=None):
    """eta0, the non-trivial branch's spinodals and the transition to the trivial state.

    Parameters
    ----------
    alpha, gamma, gamma_student : float

    Returns
    -------
    SelectionTransition
        ``spinodals``: eta0 (:func:`hard_trivial_threshold`), then the folds
        of the non-trivial branch; ``eta_c``: the first eta where the trivial
        solution (all V = 0) becomes the global minimum (the paper's
        definition); NaN if it never does below eta = 14.
    """
    alpha, _, gamma, gs = _check(alpha, 0.0, gamma, gamma_student)
    eta0 = hard_trivial_threshold(gamma=gamma, gamma_student=gs)
    problem, points, _, folds = _curve("hard", alpha, gamma, gs, "exact", *_ETA_RANGE)
    switches = _transitions(problem, points, folds, trivial_from=eta0)
    eta_c = next((e for e, _, j in switches if j == -1), math.nan)
    return SelectionTransition(
        alpha, (eta0, *points[folds, -1].tolist()), eta_c, tuple(e for e, _, _ in switches)
    )


def _hebb_order_parameters(alpha, eta, gamma, gamma_student):
    p1 = expit(-eta)
    scale = gamma_student / (1.0 + alpha * gamma_student)
    R = scale * alpha * p1
    Q = scale**2 * (alpha**2 * p1**2 + alpha / gamma)
    Phi, Delta = _order_parameter_arrays(R, Q)
    return R, Q, float(Phi), float(Delta)


def hebb(alpha, eta, *, gamma, gamma_student=None):
    """Order parameters of the Hebb rule eq. (25) (closed form).

    ``J = gamma~ (sum_mu S xi / sqrt(N)) / (1 + alpha gamma~)`` gives
    ``R = gamma~ alpha p1 / (1 + alpha gamma~)`` and
    ``Q = gamma~^2 (alpha^2 p1^2 + alpha / gamma) / (1 + alpha gamma~)^2`` with
    ``p1 = 1 / (1 + e^eta)``; it is also the eta -> -infinity limit of soft
    selection, with ``z = 1 / (1 + alpha gamma~)``.

    Parameters
    ----------
    alpha, eta, gamma, gamma_student : float

    Returns
    -------
    dict
        R, Q, Phi, Delta.
    """
    alpha, eta, gamma, gs = _check(alpha, eta, gamma, gamma_student)
    R, Q, Phi, Delta = _hebb_order_parameters(alpha, eta, gamma, gs)
    return {"R": float(R), "Q": float(Q), "Phi": Phi, "Delta": Delta}


def soft_selection_asymptotics(eta, *, gamma, gamma_student=None):
    """Large-alpha behaviour of soft selection, eq. (29): Phi ~ sqrt(c / alpha) / (pi R_inf).

    As alpha -> infinity, ``Q - R^2 = c / alpha`` and R tends to the R_inf
    that maximises ``<softplus(a)>`` at ``Q = R^2``; c follows from the
    z and Q equations with ``alpha z`` finite.

    Parameters
    ----------
    eta, gamma, gamma_student : float

    Returns
    -------
    dict
        ``R_inf`` and ``c``.
    """
    _, eta, gamma, gs = _check(1.0, eta, gamma, gamma_student)
    p1 = expit(-eta)

    def averages(R):
        return soft_averages(
            -0.5 * gs * R * R - eta,
            0.5 * gs * R * (2.0 - R) - eta,
            gs * R / math.sqrt(gamma),
            0.0,
            p1,
            exact=True,
        )

    best = minimize_scalar(
        lambda R: -averages(R)[0], bounds=(1e-6, 10.0), method="bounded", options={"xatol": 1e-12}
    )
    R = float(best.x)
    _, _m1, m, xm, n = averages(R)
    alpha_z = 1.0 / (gs * m - gs * xm / (math.sqrt(gamma) * R))
    return {"R_inf": R, "c": alpha_z**2 * gs * gs / gamma * 2.0 * n}
