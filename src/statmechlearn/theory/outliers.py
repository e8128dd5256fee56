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

Every branch carries its replicon (Almeida-Thouless) eigenvalue
(``SelectionBranches.at_eigenvalue``); the transitions report where each
branch is RS-unstable and where learning is lost (``eta_learn``), see
``docs/derivations/outliers_hard_branches.md``.
"""

import functools
import itertools
import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq, minimize_scalar
from scipy.special import expit, log_expit, ndtr

from statmechlearn._core.exceptions import ConvergenceError, ConvergenceWarning
from statmechlearn._core.saddle import continuation, newton
from statmechlearn._core.validation import check_choice, check_int, check_real
from statmechlearn.theory._outlier_kernels import soft_averages, soft_replicon

__all__ = [
    "HardB4OrderParameters",
    "HardHatParameters",
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
    "hard_hat_parameters",
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
# Below eta = -40 every example is informative to double precision (1 - p1 = e^eta):
# continuing the branch further down only adds steps, so a saddle point there is
# solved directly from the Hebb state (the only branch in that limit).
_ETA_HEBB = -40.0
_ETA_RANGE_MIN = -100.0  # lowest start of a continued curve (at most ~600 steps)
_LOG_FLOOR = -60.0  # continuation stops when R or Q reach e^-60 (the all-outlier limit)
_LOG_CEILING = 30.0  # order parameters beyond e^30 are never a saddle point
_LOG_END = -15.0  # a branch that stalls below e^-15 has reached J = 0


# ----------------------------------------------------------------------------- results


@dataclass(frozen=True)
class SelectionState:
    """Order parameters of one replica-symmetric saddle point.

    Attributes
    ----------
    R, Q : float
        ``J.B / N`` and ``J.J / N``.
    z : float
        ``beta (Q - q)``.
    Phi, Delta : float
        Angle / pi (eq. 14) and squared deviation (eq. 12).
    free_energy : float
        Ground-state energy per N.
    informative : float
        Mean of ``<V>`` (soft) or of V (hard) over the training set.
    """

    R: float
    Q: float
    z: float
    Phi: float
    Delta: float
    free_energy: float
    informative: float


@dataclass(frozen=True)
class HebbOrderParameters:
    """Order parameters of the Hebb rule, eq. (25).

    Attributes
    ----------
    R, Q : float
        ``J.B / N`` and ``J.J / N``.
    Phi, Delta : float
        Angle / pi and squared deviation.
    """

    R: float
    Q: float
    Phi: float
    Delta: float


@dataclass(frozen=True)
class SoftAsymptotics:
    """Large-alpha soft selection, eq. (29): ``Phi ~ sqrt(c / alpha) / (pi R_inf)``.

    Attributes
    ----------
    R_inf : float
        Limit of R as alpha -> infinity.
    c : float
        ``lim alpha (Q - R^2)``.
    """

    R_inf: float
    c: float


@dataclass(frozen=True)
class HardHatParameters:
    """The paper's V order parameters of one non-trivial hard-selection branch (App. B).

    Attributes
    ----------
    R_hat, Q_hat, z_hat : float
        ``alpha p1 <V>_1``, ``alpha <V>`` and ``beta (q^ - Q^) -> -rho``.
    threshold_density : float
        ``rho = alpha p(a + b/2 = 0)``.
    b : float
        ``gamma~^2 z / gamma``.
    lam : float
        The multiplier lambda of the selection constraint.
    R, Q, free_energy : float
        The branch's order parameters and ground-state energy.
    """

    R_hat: float
    Q_hat: float
    z_hat: float
    threshold_density: float
    b: float
    lam: float
    R: float
    Q: float
    free_energy: float


@dataclass(frozen=True)
class HardB4OrderParameters:
    """Eq. (B4): order parameters of J from the V parameters.

    Attributes
    ----------
    R : float
        ``J.B / N`` of the posterior mean.
    J2 : float
        Posterior second moment ``<J.J> / N``.
    Q_mean : float
        ``J2 - 1 / (Q^ g~ + 1)``: squared length of the posterior mean.
    """

    R: float
    J2: float
    Q_mean: float


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
    at_eigenvalue : ndarray
        Replicon (Almeida-Thouless) eigenvalue ``1 - alpha <(b Psi_b'')^2>``
        of each replica-symmetric saddle point; negative (``-inf`` where the
        single-example maximiser jumps) means RS is unstable there
        (``docs/derivations/outliers_hard_branches.md``).

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
    at_eigenvalue: np.ndarray = None

    @property
    def rs_stable(self):
        """Boolean array: the replicon eigenvalue is positive (RS is locally stable)."""
        return np.asarray(self.at_eigenvalue) > 0.0

    @property
    def n_branches(self):
        """Number of saddle points found."""
        return int(self.R.size)

    def branch(self, index=None):
        """Order parameters of one branch (default: the global minimum).

        Parameters
        ----------
        index : int, optional
            Branch index in ``range(n_branches)``.

        Returns
        -------
        SelectionState
        """
        i = self.global_minimum if index is None else index
        if isinstance(i, bool) or not isinstance(i, int | np.integer):
            raise TypeError(f"index must be an integer, got {type(i).__name__} {i!r}")
        if not -self.n_branches <= i < self.n_branches:
            raise ValueError(f"index must be in [0, {self.n_branches - 1}], got {i}")
        names = ("R", "Q", "z", "Phi", "Delta", "free_energy", "informative")
        return SelectionState(**{name: float(getattr(self, name)[i]) for name in names})


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
    eta_learn : float
        The largest eta at which the lowest-free-energy state still learns
        (its angle ``Phi <= phi_learn``); above it the global minimum is a
        state that ignores the teacher (R ~ 0) or the trivial one. NaN if
        the global minimum never learns in the range searched.
    learn_jump : bool
        True if the global minimum stops learning by a first-order jump
        (then eta_learn does not depend on phi_learn); False if Phi crosses
        phi_learn continuously.
    eta_learn_spinodal : float
        The largest eta up to which a learning state (``Phi <= phi_learn``)
        exists on the branch continued from the Hebb limit (its fold): the
        limit of metastability of a learner started at the teacher.
    phi_learn : float
        The learning criterion used.
    rs_unstable : tuple of (float, float, str)
        Intervals ``(eta_lo, eta_hi, branch)`` on which a branch exists and
        its replicon eigenvalue is negative (RS unstable). ``branch`` is
        ``"segment k"`` (the k-th monotone piece of the continued curve,
        k = 0 connected to the Hebb limit).
    """

    alpha: float
    spinodals: tuple
    eta_c: float
    transitions: tuple = ()
    eta_learn: float = math.nan
    learn_jump: bool = False
    eta_learn_spinodal: float = math.nan
    phi_learn: float = 1.0 / 3.0
    rs_unstable: tuple = ()


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

    def at_eigenvalue(self, u):
        """Replicon eigenvalue ``1 - alpha <(b Psi_b''(a))^2>`` (exact limit only)."""
        R, Q, z = np.exp(u[:3])
        eta, gs = u[-1], self.gs
        s = gs * math.sqrt(Q / self.gamma)
        b = gs * gs * z / self.gamma
        c0 = -0.5 * gs * Q - eta
        if not self.exact:
            return math.nan
        return 1.0 - self.alpha * soft_replicon(c0, c0 + gs * R, s, b, expit(-eta))


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
            with np.errstate(over="ignore"):  # |t| > 1e154 (extreme eta): the density is 0
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

    def threshold_density(self, u):
        """``rho = alpha p(a + b/2 = 0)``: examples per N per unit a at the selection threshold."""
        _R, _Q, _z, _lam, s, _b, _psi, _m1, _m, dens = self._parts(u[:-1], u[-1])
        return self.alpha * dens / s

    def at_eigenvalue(self, u):
        """Replicon eigenvalue: ``-inf`` wherever examples sit at the threshold (always).

        ``Psi_b(a) = max(0, a + b/2)`` has ``Psi_b'' = delta(a + b/2)``, so
        ``alpha <(b Psi_b'')^2>`` diverges as soon as the density of a at
        ``-b/2`` is positive, i.e. on every branch with Q > 0.
        """
        return -math.inf if self.threshold_density(u) > 0.0 else 1.0

    def hat_parameters(self, u):
        """The paper's V order parameters (App. B): R^ = alpha p1 <V>_1, Q^ = alpha <V>, z^."""
        R, Q, _z, f, _ = self.observables(u)
        _R, _Q, _z, lam, s, b, _psi, m1, m, dens = self._parts(u[:-1], u[-1])
        p1 = expit(-u[-1])
        return HardHatParameters(
            R_hat=self.alpha * p1 * m1,
            Q_hat=self.alpha * m,
            z_hat=-self.alpha * dens / s,
            threshold_density=self.alpha * dens / s,
            b=b,
            lam=lam,
            R=R,
            Q=Q,
            free_energy=f,
        )


def _g_star(lam, gs):
    """Concave conjugate of ``q -> ln(1 + gs q) / 2`` at ``0 < lam <= gs/2``."""
    return 0.5 - lam / gs + 0.5 * math.log(2.0 * lam / gs)


# ----------------------------------------------------------------------------- solvers


def _start(problem, eta):
    """The saddle point at eta from the Hebb-like guess (raises if there is none)."""
    res = newton(
        lambda y: problem.residual(np.append(y, eta)), problem.start(eta), raise_on_failure=False
    )
    if not res.converged:
        raise ConvergenceError(
            f"no saddle point found at the start of the continuation (eta={eta}); "
            f"residual {res.residual:.2e}",
            {"eta": eta, "residual": res.residual},
        )
    return res.x


def _continue(problem, eta_range):
    """Pseudo-arclength continuation in eta from the Hebb-like state at eta_range[0]."""
    eta_lo, eta_hi = eta_range

    def stalled(y, _eta):
        # the branch ends on the trivial solution (J = 0), or the Gaussian form (A2)
        # ends where b reaches 4
        return min(y[0], y[1]) < _LOG_END or not getattr(problem, "exact", True)

    return continuation(
        lambda y, eta: problem.residual(np.append(y, eta)),
        _start(problem, eta_lo),
        eta_lo,
        p_range=(eta_lo - 1.0, eta_hi),
        stop=lambda y, _eta: min(y[0], y[1]) < problem.log_floor,
        accept_stall=stalled,
    )


@functools.lru_cache(maxsize=512)
def _curve(selection, alpha, gamma, gamma_student, limit, eta_lo, eta_hi):
    """Continued branch with its folds inserted; returns (problem, points, obs, fold_index)."""
    if selection == "soft":
        problem = _SoftProblem(alpha, gamma, gamma_student, limit == "exact")
    else:
        problem = _HardProblem(alpha, gamma, gamma_student)
    branch = _continue(problem, (eta_lo, eta_hi))
    points = branch.points
    obs = np.array([problem.observables(u) for u in points])
    return problem, points, obs, branch.fold_index


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
    res = newton(lambda y: problem.residual(np.append(y, eta)), guess, raise_on_failure=False)
    if not res.converged:
        warnings.warn(
            f"saddle point at eta={eta:.6g} did not converge (residual {res.residual:.1e}); "
            "reported from the continuation's interpolation",
            ConvergenceWarning,
            stacklevel=4,
        )
    return np.append(res.x, eta)


# ----------------------------------------------------------------------------- helpers


# Where the saddle points are checked to be found (and the Hebb start is
# representable): outside these ranges the continuation starts below its floor
# (alpha -> 0) or the Gaussian averages overflow (gamma, alpha -> infinity).
_ALPHA_RANGE = (1e-6, 1e8)
_GAMMA_RANGE = (1e-2, 1e3)


def _check(alpha, eta, gamma, gamma_student):
    alpha = check_real(alpha, "alpha", minimum=_ALPHA_RANGE[0], maximum=_ALPHA_RANGE[1])
    eta = check_real(eta, "eta")
    gamma = check_real(gamma, "gamma", minimum=_GAMMA_RANGE[0], maximum=_GAMMA_RANGE[1])
    gamma_student = gamma if gamma_student is None else gamma_student
    gamma_student = check_real(
        gamma_student, "gamma_student", minimum=_GAMMA_RANGE[0], maximum=_GAMMA_RANGE[1]
    )
    return alpha, eta, gamma, gamma_student


def _eta_range(eta):
    return (min(_ETA_RANGE[0], max(eta, _ETA_HEBB) - 1.0), max(_ETA_RANGE[1], eta + 1.0))


def _check_eta_range(eta_range):
    if eta_range is None:
        return _ETA_RANGE
    try:
        lo, hi = eta_range
    except (TypeError, ValueError):
        raise TypeError(f"eta_range must be a pair (eta_lo, eta_hi), got {eta_range!r}") from None
    lo = check_real(lo, "eta_range[0]", minimum=_ETA_RANGE_MIN)
    hi = check_real(hi, "eta_range[1]", minimum=lo, include_min=False)
    return lo, hi


def _no_solution(selection, eta, points):
    raise ValueError(
        f"eta={eta:g} is beyond the end of the {selection}-selection branch, which the "
        f"continuation follows up to eta={points[:, -1].max():.6g} (where R and Q fall "
        f"below e^{_LOG_FLOOR:g}, the all-outlier limit J -> 0, or, for limit='gaussian', "
        "where b reaches 4); eta must be below that"
    )


def _order_parameter_arrays(R, Q):
    R, Q = np.asarray(R, dtype=float), np.asarray(Q, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        cosine = np.where(Q > 0, R / np.sqrt(np.where(Q > 0, Q, 1.0)), 0.0)
    # J = 0 (the trivial state) has no direction: Phi is exactly 1/2, not arccos(0)/pi
    phi = np.where(Q > 0, np.arccos(np.clip(cosine, -1.0, 1.0)) / np.pi, 0.5)
    return phi, Q - 2.0 * R + 1.0


def _solutions_at(problem, points, fold_index, eta, *, tol=1e-7):
    """Every saddle point at eta: one per monotone piece of the curve that spans it."""
    if eta < points[:, -1].min():
        # far below the curve's start: the Hebb-like branch alone (see _ETA_HEBB)
        guess = problem.start(eta)
        res = newton(lambda y: problem.residual(np.append(y, eta)), guess, raise_on_failure=False)
        if not res.converged:
            raise ConvergenceError(
                f"no saddle point found at eta={eta:g} from the Hebb state "
                f"(residual {res.residual:.2e})",
                {"eta": eta, "residual": res.residual},
            )
        return [np.append(res.x, eta)]
    found = []
    for segment in _segments(points, fold_index):
        u = _solve_on_segment(problem, points, segment, eta)
        if u is not None and all(np.max(np.abs(u - v)) > tol for v in found):
            found.append(u)
    return found


def _branches(selection, problem, states, alpha, eta, gamma, gs, trivial_state=None):
    rows = [(*problem.observables(u), problem.at_eigenvalue(u)) for u in states]
    trivial = [False] * len(rows)
    if trivial_state is not None:
        # the trivial state has no example at the threshold: only the sign of eta - eta0 matters
        eta0 = 0.5 * gs * gs / gamma - 0.5 * gs
        rows.append((*trivial_state, 1.0 if eta > eta0 else 0.0))
        trivial.append(True)
    rows = np.array(rows, dtype=float).reshape(-1, 6)
    order = np.argsort(-rows[:, 0], kind="stable")
    rows = rows[order]
    R, Q, z, f, informative, at = rows.T
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
        at_eigenvalue=at,
    )


# ----------------------------------------------------------------------------- public API


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
    # a narrow S (two folds closer than the grid step) must not fall between grid points
    fold_etas = points[fold_index, -1] if len(fold_index) else np.zeros(0)
    grid = np.union1d(grid, fold_etas[(fold_etas > lo) & (fold_etas < hi)])
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
    inside = fold_etas[(fold_etas > grid[0]) & (fold_etas < grid[-1])]
    grid = np.union1d(grid, inside)
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


def _phi_of(problem, points, segments, k, eta):
    """Angle / pi of the state on segment k at eta (k = -1: the trivial state, 1/2)."""
    if k < 0:
        return 0.5
    etas = points[segments[k], -1]
    u = _solve_on_segment(problem, points, segments[k], float(np.clip(eta, etas.min(), etas.max())))
    R, Q = problem.observables(u)[:2]
    return float(_order_parameter_arrays(R, Q)[0])


def _learning(problem, points, obs, fold_index, switches, phi_learn, eta_hi):
    """(eta_learn, learn_jump, eta_learn_spinodal); see :class:`SelectionTransition`."""
    segments = _segments(points, fold_index)
    phi_curve = _order_parameter_arrays(obs[:, 0], obs[:, 1])[0]
    learning = phi_curve <= phi_learn
    if not learning[0]:
        return math.nan, False, math.nan
    stop = int(np.argmin(learning)) if not learning.all() else len(learning)
    spinodal = float(points[:stop, -1].max())
    if stop < len(learning):  # the crossing between two curve points, on their segment
        k = next(k for k, seg in enumerate(segments) if seg[0] < stop <= seg[-1])
        e0, e1 = sorted((points[stop - 1, -1], points[stop, -1]))

        def excess_curve(eta, k=k):
            return _phi_of(problem, points, segments, k, eta) - phi_learn

        if e1 > e0 and excess_curve(e0) * excess_curve(e1) < 0:
            spinodal = max(spinodal, float(brentq(excess_curve, e0, e1, xtol=1e-10)))
    bounds = [points[0, -1]] + [e for e, _, _ in switches] + [eta_hi]
    states = [switches[0][1] if switches else 0] + [j for _, _, j in switches]
    for n, k in enumerate(states):
        lo, hi = bounds[n], bounds[n + 1]
        if _phi_of(problem, points, segments, k, lo) > phi_learn:
            return (float(lo), True, spinodal) if n > 0 else (math.nan, False, spinodal)
        if k >= 0:
            etas = points[segments[k], -1]
            hi_k = min(hi, etas.max())
            if _phi_of(problem, points, segments, k, hi_k) > phi_learn:

                def excess(eta, k=k):
                    return _phi_of(problem, points, segments, k, eta) - phi_learn

                lo_k = max(lo, etas.min())
                return float(brentq(excess, lo_k, hi_k, xtol=1e-10)), False, spinodal
    return math.nan, False, spinodal


def _rs_unstable(problem, points, fold_index):
    """Intervals (eta_lo, eta_hi, "segment k") where the replicon eigenvalue is negative."""
    at = np.array([problem.at_eigenvalue(u) for u in points])
    out = []
    for k, seg in enumerate(_segments(points, fold_index)):
        neg = at[seg] < 0.0
        if not neg.any():
            continue
        # contiguous runs of RS-unstable points, widened to the linear zero of the eigenvalue
        edges = np.flatnonzero(np.diff(np.r_[0, neg.astype(int), 0]))
        for start, stop in zip(edges[::2], edges[1::2], strict=True):
            etas = list(points[seg[start:stop], -1])
            for i, j in ((start - 1, start), (stop, stop - 1)):
                if 0 <= i < len(seg) and np.isfinite(at[seg[j]]):
                    e_i, e_j = points[seg[i], -1], points[seg[j], -1]
                    a_i, a_j = at[seg[i]], at[seg[j]]
                    etas.append(e_i + a_i * (e_j - e_i) / (a_i - a_j))
            out.append((float(min(etas)), float(max(etas)), f"segment {k}"))
    return tuple(out)


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


def hard_transition(alpha, *, gamma, gamma_student=None, phi_learn=1.0 / 3.0):
    """eta0, the branches' spinodals, the loss of learning and the transition to the trivial state.

    Every branch of the continued curve is followed: the learning branch
    connected to the Hebb limit (R ~ 1), the state that fits a few tail
    examples and ignores the teacher (R ~ 0, Q = O(1)), the unstable middle
    pieces, and the trivial state (every V = 0).

    Parameters
    ----------
    alpha, gamma, gamma_student : float
    phi_learn : float, default=1/3
        A state "learns" if its angle Phi <= phi_learn (R / sqrt(Q) >= 1/2).
        Where learning is lost by a first-order jump (gamma = 10) the result
        does not depend on it (``learn_jump``).

    Returns
    -------
    SelectionTransition
        ``spinodals``: eta0 (:func:`hard_trivial_threshold`), then the folds
        of the non-trivial branch; ``eta_c``: the first eta where the trivial
        solution (all V = 0) becomes the global minimum (the paper's
        definition); NaN if it never does below eta = 14. ``eta_learn``: the
        largest eta at which the global minimum still learns (below eta_c
        when a non-learning R ~ 0 state takes over first).
        ``eta_learn_spinodal``: where the learning branch itself ends (fold).
        ``rs_unstable``: every non-trivial branch over its whole range (its
        replicon eigenvalue is -inf; the trivial state is RS-stable above eta0).
    """
    alpha, _, gamma, gs = _check(alpha, 0.0, gamma, gamma_student)
    phi_learn = check_real(phi_learn, "phi_learn", minimum=0.0, maximum=0.5)
    eta0 = hard_trivial_threshold(gamma=gamma, gamma_student=gs)
    problem, points, obs, folds = _curve("hard", alpha, gamma, gs, "exact", *_ETA_RANGE)
    switches = _transitions(problem, points, folds, trivial_from=eta0)
    eta_c = next((e for e, _, j in switches if j == -1), math.nan)
    eta_learn, jump, spinodal = _learning(
        problem, points, obs, folds, switches, phi_learn, _ETA_RANGE[1]
    )
    return SelectionTransition(
        alpha,
        (eta0, *points[folds, -1].tolist()),
        eta_c,
        tuple(e for e, _, _ in switches),
        eta_learn=eta_learn,
        learn_jump=jump,
        eta_learn_spinodal=spinodal,
        phi_learn=phi_learn,
        rs_unstable=_rs_unstable(problem, points, folds),
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
    HebbOrderParameters
        R, Q, Phi, Delta.
    """
    alpha, eta, gamma, gs = _check(alpha, eta, gamma, gamma_student)
    R, Q, Phi, Delta = _hebb_order_parameters(alpha, eta, gamma, gs)
    return HebbOrderParameters(R=float(R), Q=float(Q), Phi=Phi, Delta=Delta)


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
    SoftAsymptotics
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
    c = float(alpha_z**2 * gs * gs / gamma * 2.0 * n)
    if not (math.isfinite(c) and R < 10.0 - 1e-6):
        # the maximiser ran onto the search bound: <softplus> has no interior maximum
        raise ValueError(
            f"no finite large-alpha limit at eta={eta:g}, gamma={gamma:g}, "
            f"gamma_student={gs:g} (R_inf={R:.6g}, c={c:.6g}); decrease gamma_student / gamma"
        )
    return SoftAsymptotics(R_inf=R, c=c)


# ----------------------------------------------------------------------------- App. B as printed


def hard_hat_parameters(alpha, eta, *, gamma, gamma_student=None):
    """The paper's V order parameters of every non-trivial hard-selection branch.

    ``R^ = (1/N) sum V V_true = alpha p1 <V>_1``, ``Q^ = (1/N) sum V = alpha <V>``
    and ``z^ = beta (q^ - Q^) -> -rho``, where ``rho = alpha p(a + b/2 = 0)`` is
    the number of examples per N (per unit of the flip energy) at the
    selection threshold: at inverse temperature beta on the V's,
    ``Q^ - q^ = alpha <p (1 - p)>`` with ``p = sigma(beta (a + b/2))``.

    Parameters
    ----------
    alpha, eta, gamma, gamma_student : float

    Returns
    -------
    list of HardHatParameters
        One per non-trivial branch, sorted by decreasing R (as in
        :func:`hard_selection`).
    """
    alpha, eta, gamma, gs = _check(alpha, eta, gamma, gamma_student)
    problem, points, _, folds = _curve("hard", alpha, gamma, gs, "exact", *_eta_range(eta))
    out = [problem.hat_parameters(u) for u in _solutions_at(problem, points, folds, eta)]
    return sorted(out, key=lambda h: -h.R)


def _check_hat(R_hat, Q_hat, z_hat, gamma, gamma_student):
    R_hat = check_real(R_hat, "R_hat", minimum=0.0)
    Q_hat = check_real(Q_hat, "Q_hat", minimum=0.0)
    z_hat = check_real(z_hat, "z_hat", maximum=0.0)
    _, _, g, gs = _check(1.0, 0.0, gamma, gamma_student)
    return R_hat, Q_hat, z_hat, g, gs


def _b_denominator(Q_hat, z_hat, g, gs):
    D = Q_hat * g * gs + z_hat * gs * gs + g
    if not (math.isfinite(D) and D != 0.0):
        raise ValueError(
            f"z_hat={z_hat:g} makes D = Q_hat gamma gamma~ + z_hat gamma~^2 + gamma = {D:g}; "
            "it must be finite and non-zero (z_hat > -(Q_hat gamma~ + 1) gamma / gamma~^2)"
        )
    return D


def _b_weight(Q_hat, R_hat, g, rho, corrected):
    # printed: (Q^ + 2 R^2 g rho^2) / 2; corrected: Q^ + R^2 g (the diagonal term doubled)
    if corrected:
        return Q_hat + R_hat**2 * g * rho**2
    return 0.5 * (Q_hat + 2.0 * R_hat**2 * g * rho**2)


def hard_b3_free_energy(
    R_hat, Q_hat, z_hat, *, eta, gamma, gamma_student=None, rho=1.0, corrected=False
):
    """Eq. (B3): ``f_h(Q^, R^, z^)`` at zero temperature.

    As printed (``corrected=False``),
    ``f_h = eta Q^ + ln(Q^ g~ + 1)/2
    - (Q^ + 2 R^2 g rho^2)(Q^ g~ + 1) g g~^2 / (4 (Q^ g g~ + z^ g~^2 + g)^2)``
    (``rho = 1`` for ``B.B/N = 1``). With ``corrected=True`` the factor
    ``(Q^ + 2 R^2 g) / 4`` becomes ``(Q^ + R^2 g) / 2``: each selected
    example's own squared length ``|xi|^2 = N / gamma`` enters ``|b|^2``
    with weight 1, not 1/2 (the same factor 2 as in eq. 30). At the
    parameters of :func:`hard_hat_parameters` the corrected form equals the
    re-derived ground-state energy (``docs/derivations/outliers_hard_branches.md``).
    """
    R_hat, Q_hat, z_hat, g, gs = _check_hat(R_hat, Q_hat, z_hat, gamma, gamma_student)
    eta = check_real(eta, "eta")
    rho = check_real(rho, "rho", minimum=0.0)
    A = Q_hat * gs + 1.0
    D = _b_denominator(Q_hat, z_hat, g, gs)
    weight = _b_weight(Q_hat, R_hat, g, rho, corrected)
    return eta * Q_hat + 0.5 * math.log(A) - weight * A * g * gs * gs / (2.0 * D * D)


def hard_b4_order_parameters(R_hat, Q_hat, z_hat, *, gamma, gamma_student=None, corrected=False):
    """Eq. (B4): R and the posterior second moment of J from the V parameters.

    Returns
    -------
    HardB4OrderParameters
        ``R = R^ g~/(Q^ g~ + 1) (1 - z^ g~^2 / D)`` and
        ``J2 = g g~^2 (Q^ + 2 R^2 g) / (2 D^2) + 1 / (Q^ g~ + 1)`` with
        ``D = Q^ g g~ + z^ g~^2 + g`` (``corrected=True``: ``(Q^ + 2 R^2 g)/2``
        becomes ``Q^ + R^2 g``, as in :func:`hard_b3_free_energy`);
        ``Q_mean = J2 - 1/(Q^ g~ + 1)`` is the squared length of the posterior
        mean.
    """
    R_hat, Q_hat, z_hat, g, gs = _check_hat(R_hat, Q_hat, z_hat, gamma, gamma_student)
    A = Q_hat * gs + 1.0
    D = _b_denominator(Q_hat, z_hat, g, gs)
    R = R_hat * gs / A * (1.0 - z_hat * gs * gs / D)
    J2 = g * gs * gs * _b_weight(Q_hat, R_hat, g, 1.0, corrected) / (D * D) + 1.0 / A
    return HardB4OrderParameters(R=float(R), J2=float(J2), Q_mean=float(J2 - 1.0 / A))


_B5_READINGS = {
    "cdf": ndtr,  # Phi[x] = standard normal distribution function
    "erf": lambda x: math.erf(x),
}


def hard_b5(eta, *, gamma, reading="cdf"):
    """The right-hand side of eq. (B5) as printed (gamma = gamma~, c = sqrt(gamma)).

    ``eta - 2 c^2 pi eta e^(c^2 + 2 eta) Phi[c - sqrt(2 eta)]^2
    / (e^(c sqrt(2 eta)) + e^(c^2/2 + eta))
    + sqrt(pi eta) e^(c^2/2 + eta) (-2 Phi[c - sqrt(2 eta)] - 2 e^eta
    + 2 e^eta Phi[sqrt(2 eta)])^2``.
    The paper does not define ``Phi[.]``; ``reading="cdf"`` takes the
    standard normal distribution function, ``"erf"`` the error function.
    """
    reading = check_choice(reading, "reading", tuple(_B5_READINGS))
    P = _B5_READINGS[reading]
    eta = check_real(eta, "eta", minimum=0.0, include_min=False)
    gamma = check_real(gamma, "gamma", minimum=0.0, include_min=False)
    c = math.sqrt(gamma)
    r = math.sqrt(2.0 * eta)
    try:
        value = _b5(eta, c, r, P)
    except OverflowError:
        value = math.inf
    if not math.isfinite(value):
        raise ValueError(
            f"eq. (B5) overflows the float range at eta={eta:g}, gamma={gamma:g}: its terms "
            "grow like e^(gamma + 2 eta); eta and gamma must satisfy gamma + 2 eta < ~700"
        )
    return value


def _b5(eta, c, r, P):
    t1 = (
        2.0
        * c
        * c
        * math.pi
        * eta
        * math.exp(c * c + 2.0 * eta)
        * float(P(c - r)) ** 2
        / (math.exp(c * r) + math.exp(0.5 * c * c + eta))
    )
    bracket = -2.0 * float(P(c - r)) - 2.0 * math.exp(eta) + 2.0 * math.exp(eta) * float(P(r))
    t2 = math.sqrt(math.pi * eta) * math.exp(0.5 * c * c + eta) * bracket**2
    return eta - t1 + t2


def hard_b5_roots(*, gamma, reading="cdf", eta_max=10.0, n_grid=4001):
    """All roots of :func:`hard_b5` in ``0 < eta <= eta_max`` (sign changes on a grid, refined).

    Parameters
    ----------
    gamma : float
        > 0.
    reading : {"cdf", "erf"}, default="cdf"
        See :func:`hard_b5`.
    eta_max : float, default=10.0
        End of the scan, ``1e-6 < eta_max``, with ``gamma + 2 eta_max`` inside
        the float range of eq. (B5).
    n_grid : int, default=4001
        Grid points of the scan, in [2, 10**7].

    Returns
    -------
    tuple of float
    """
    eta_max = check_real(eta_max, "eta_max", minimum=1e-6, include_min=False)
    n_grid = check_int(n_grid, "n_grid", minimum=2, maximum=10**7)
    try:
        hard_b5(eta_max, gamma=gamma, reading=reading)
    except ValueError as exc:
        if "overflows" not in str(exc):
            raise
        raise ValueError(f"eta_max={eta_max:g} is too large: {exc}") from None
    grid = np.linspace(1e-6, eta_max, n_grid)
    vals = np.array([hard_b5(e, gamma=gamma, reading=reading) for e in grid])
    roots = []
    for i in np.flatnonzero(np.sign(vals[1:]) != np.sign(vals[:-1])):
        roots.append(
            brentq(lambda e: hard_b5(e, gamma=gamma, reading=reading), grid[i], grid[i + 1])
        )
    return tuple(float(r) for r in roots)
