"""The zero-temperature RS saddle point of soft and hard selection, solved along eta.

The problems (fields and free energies of eqs. A and B of Dietrich & Opper), their
continuation in eta by pseudo-arclength with fold detection, every branch at one eta,
and the first-order transitions between branches; :mod:`statmechlearn.theory.outliers`
is the public face.
"""

import functools
import itertools
import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import expit, log_expit

from statmechlearn._core.exceptions import ConvergenceError, ConvergenceWarning
from statmechlearn._core.saddle import continuation, newton
from statmechlearn._core.validation import check_real
from statmechlearn._core.warn import warn
from statmechlearn.theory._outlier_kernels import soft_averages, soft_replicon
from statmechlearn.theory._outlier_states import (
    _ETA_HEBB,
    _ETA_RANGE,
    _ETA_RANGE_MIN,
    _LOG_CEILING,
    _LOG_END,
    _LOG_FLOOR,
    HardHatParameters,
    SelectionBranches,
    SelectionCurve,
    SelectionTransition,
)

__all__ = ["hard_transition", "hard_trivial_threshold"]


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
        warn(
            f"saddle point at eta={eta:.6g} did not converge (residual {res.residual:.1e}); "
            "reported from the continuation's interpolation",
            ConvergenceWarning,
        )
    return np.append(res.x, eta)


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


def _hebb_order_parameters(alpha, eta, gamma, gamma_student):
    p1 = expit(-eta)
    scale = gamma_student / (1.0 + alpha * gamma_student)
    R = scale * alpha * p1
    Q = scale**2 * (alpha**2 * p1**2 + alpha / gamma)
    Phi, Delta = _order_parameter_arrays(R, Q)
    return R, Q, float(Phi), float(Delta)


# ----------------------------------------------------------------------------- thresholds


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
