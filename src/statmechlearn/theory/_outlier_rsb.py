"""One-step replica-symmetry breaking (1RSB) at zero temperature for hard selection.

Every non-trivial RS saddle point of hard selection is AT-unstable
(``docs/derivations/outliers_hard_branches.md``). With the Parisi parameter y, the
within-state response z and the spread delta = Q - q0 of the states,

    f1 = Q/2 - ln(1 + y delta/z)/(2y) - (q0 - R^2)/(2(z + y delta)) - (alpha/y) <ln Z1> - g*,
    Z1 = Phi_N(-c/s) + exp(y c + y^2 s^2/2) Phi_N(c/s + y s),   s = gs sqrt(delta/gamma),

averaged over c = gs V R + gs sqrt(q0/gamma) z0 - gs Q/2 - eta - lambda + gs^2 z/(2 gamma)
by Gauss-Legendre on panels graded towards the selection layer (width s/(1 + y s)).
Derivation and results: ``docs/derivations/outliers_1rsb.md``.
"""

import functools
import math

import numpy as np
from scipy.optimize import brentq, minimize_scalar
from scipy.special import expit, log_expit, log_ndtr, ndtr

from statmechlearn._core.exceptions import ConvergenceError, ConvergenceWarning
from statmechlearn._core.saddle import continuation, newton
from statmechlearn._core.validation import check_real
from statmechlearn._core.warn import warn
from statmechlearn.theory._outlier_saddle import (
    _check,
    _check_eta_range,
    _curve,
    _curve_result,
    _g_star,
    _learning,
    _order_parameter_arrays,
    _segments,
    _solve_on_segment,
    hard_transition,
    hard_trivial_threshold,
)
from statmechlearn.theory._outlier_states import (
    _ETA_RANGE,
    _LOG_END,
    HardComplexity,
    HardSelection1RSB,
    HardSelection1RSBCurve,
    HardTransition1RSB,
    SelectionState,
)

__all__ = [
    "hard_complexity",
    "hard_selection_1rsb",
    "hard_selection_1rsb_curve",
    "hard_transition_1rsb",
]

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
#: Gauss-Legendre order per panel and the outer range |z0| <= _TAIL (neglected mass 2e-19).
_ORDER = 12
_TAIL = 9.0
_MAX_PANEL = 2.0
_GL_X, _GL_W = np.polynomial.legendre.leggauss(_ORDER)
_T_START = 0.05  # a path in y starts at y s = 0.05, with the y -> 0 optimum of delta
#: Below delta / Q = 1e-10 (the Hebb side) 1RSB equals RS to the precision of the numerics.
_DELTA_FLOOR = 1e-10
#: A single state is reported as the RS limit (y* = inf) where the y -> 0 spread is below 1e-8 Q
#: (the 1RSB correction to f is then ~1e-8 absolute, and y* > 1e4).
_RS_LIMIT = 1e-8
_PHI_LEARN = 1.0 / 3.0


# ----------------------------------------------------------------------------- kernels


def _nodes(center, width):
    """Nodes and weights (standard normal density included) on |z0| <= _TAIL.

    Panels are graded geometrically (ratio 2) from ``width`` around ``center``
    (the selection layer), then cut to length <= _MAX_PANEL.
    """
    breaks = [-_TAIL, _TAIL]
    if -_TAIL < center < _TAIL:
        breaks.append(center)
        if width > 0.0:
            steps = width * 2.0 ** np.arange(max(math.ceil(math.log2(2.0 * _TAIL / width)), 0) + 1)
            breaks = np.concatenate([breaks, center - steps, center + steps])
    breaks = np.unique(np.clip(breaks, -_TAIL, _TAIL))
    lengths = np.diff(breaks)
    pieces = np.maximum(np.ceil(lengths / _MAX_PANEL), 1.0).astype(int)
    panel = np.repeat(np.arange(lengths.size), pieces)
    h = lengths[panel] / pieces[panel]
    lo = breaks[panel] + (np.arange(panel.size) - np.repeat(np.cumsum(pieces) - pieces, pieces)) * h
    x = (lo[:, None] + 0.5 * h[:, None] * (_GL_X + 1.0)).ravel()
    w = (0.5 * h[:, None] * _GL_W).ravel() * np.exp(-0.5 * x * x - _LOG_SQRT_2PI)
    return x, w


def inner_average(c, s, y):
    """The closed-form inner average and its derivatives.

    ``Z1 = < exp(y max(0, c + s z1)) >_{z1} = Phi_N(-c/s) + B``,
    ``B = exp(y c + y^2 s^2 / 2) Phi_N(c/s + y s)``.

    Parameters
    ----------
    c : ndarray
        ``a0 + b/2``, the field relative to the selection threshold.
    s : float
        Spread of the field inside a state, >= 0 (0: the RS limit, ``Z1 = e^{y max(0, c)}``).
    y : float
        Parisi parameter, > 0.

    Returns
    -------
    lnz, p, q, r : ndarray
        ``ln Z1``; the tilted selection probability ``p = B / Z1`` and
        ``q = 1 - p``; ``r = phi(c/s) / (s Z1)`` (0 for s = 0, where it is a
        delta function of c). ``d ln Z1/dc = y p``, ``d p/dc = y p q + r``,
        ``d ln Z1/dy = (c + y s^2) p + s^2 r``, ``d ln Z1/ds = y (y s p + s r)``.
    """
    return _inner(np.asarray(c, dtype=float), s, y)[:4]


def _inner(c, s, y):
    """inner_average's four arrays and the layer complexity (see _Averages)."""
    if s == 0.0:
        p = (c > 0.0).astype(float)
        zero = np.zeros_like(c)
        return y * np.maximum(c, 0.0), p, 1.0 - p, zero, zero
    u = c / s
    t = y * s
    log_a = log_ndtr(-u)
    log_phi = log_ndtr(u + t)
    log_b = y * c + 0.5 * t * t + log_phi
    lnz = np.logaddexp(log_a, log_b)
    p, q = np.exp(log_b - lnz), np.exp(log_a - lnz)
    r = np.exp(-0.5 * u * u - _LOG_SQRT_2PI - lnz) / s
    # ln Z1 - y d ln Z1/dy + t^2 p^2 / 2 per example, zero away from the layer; where B
    # dominates, ln Z1 = y c + t^2/2 + ln Phi_N(u + t) + ln(1 + A/B) so the O(y c) terms cancel
    # exactly
    above = (
        y * c * q + 0.5 * t * t * q * q + log_phi + np.log1p(np.exp(np.minimum(log_a - log_b, 0.0)))
    )
    below = lnz - y * c * p - t * t * p * (1.0 - 0.5 * p)
    return lnz, p, q, r, np.where(log_b > log_a, above, below) - t * s * r


# ----------------------------------------------------------------------------- the problem


class _Averages:
    """Outer averages over (z0, V) at one point (R, q0, delta, z, lambda; eta, y).

    ``p``, ``p2``, ``pq``, ``r``, ``lnz``, ``sig``, ``dp2``: the averages of p, p^2,
    p q, r, ln Z1, the layer complexity and ``(dp/dc)^2``; ``p_1`` over informative
    examples only. At delta = 0 (s = 0) r is the delta function of c, averaged exactly.
    """

    __slots__ = ("dp2", "lnz", "p", "p2", "p_1", "pq", "r", "sig")

    def __init__(self, problem, R, q0, delta, z, lam, eta, y):
        gs, g = problem.gs, problem.gamma
        s = gs * math.sqrt(delta / g)
        s0 = gs * math.sqrt(q0 / g)
        base = -0.5 * gs * (q0 + delta) - eta - lam + 0.5 * gs * gs * z / g
        p1 = expit(-eta)
        t = y * s
        acc = np.zeros(7)
        for c_v, weight in ((base, 1.0 - p1), (base + gs * R, p1)):
            # the layer where p goes from 0 to 1 sits at c = -y s^2 / 2 with width s / (1 + y s)
            x, w = _nodes((-0.5 * t * s - c_v) / s0, s / (1.0 + t) / s0)
            lnz, p, q, r, sig = _inner(c_v + s0 * x, s, y)
            rows = np.stack([p, p * p, p * q, r, lnz, sig, (y * p * q + r) ** 2])
            acc += weight * (rows @ w)
            if s == 0.0:
                acc[3] += weight * math.exp(-0.5 * (c_v / s0) ** 2 - _LOG_SQRT_2PI) / s0
                acc[6] = math.inf
            self.p_1 = float(p @ w)  # the last pass is V = 1
        self.p, self.p2, self.pq, self.r, self.lnz, self.sig, self.dp2 = acc


class _Hard1RSB:
    """The 1RSB saddle point of hard selection.

    Fixed y: unknowns ``x = ln(R, q0, delta, z, lambda)``. Static (``residual``,
    ``observables``: the interface of :mod:`._outlier_saddle`'s continuation and
    transitions): unknowns ``(x, ln y)``, with ``Sigma(y) = 0`` as sixth equation.
    """

    n_unknowns = 6
    log_floor = _LOG_END

    def __init__(self, alpha, gamma, gamma_student):
        self.alpha, self.gamma, self.gs = alpha, gamma, gamma_student

    def averages(self, params, eta, y):
        return _Averages(self, *params, eta, y)

    def stationarity(self, params, eta, y, avg=None):
        """df1 = 0 in fixed-point form, as logs (derivation, section 4); NaN off the domain.

        R = Z a gs p1 <p>_1, q0 = R^2 + Z^2 k <p^2>, delta = z Z k <p q>,
        1/z = 1 + a gs <p> - k <r>, lambda = gs / (2 (1 + gs a <p>)), with
        Z = z + y delta, k = a gs^2 / gamma. At delta = 0 the third is dropped (0).
        """
        R, q0, delta, z, lam = params
        a, gs = self.alpha, self.gs
        avg = self.averages(params, eta, y) if avg is None else avg
        zz = z + y * delta
        k = a * gs * gs / self.gamma
        inv_z = 1.0 + a * gs * avg.p - k * avg.r
        if not (inv_z > 0.0 and avg.p_1 > 0.0 and (avg.pq > 0.0 or delta == 0.0)):
            return np.full(5, np.nan)
        return np.array(
            [
                math.log(R / (zz * a * gs * avg.p_1)) - log_expit(-eta),
                math.log(q0 / (R * R + zz * zz * k * avg.p2)),
                math.log(delta / (z * zz * k * avg.pq)) if delta > 0.0 else 0.0,
                math.log(z * inv_z),
                math.log(2.0 * lam * (1.0 + gs * a * avg.p) / gs),
            ]
        )

    def equations(self, x, eta, y):
        return self.stationarity(np.exp(x), eta, y)

    def sigma(self, params, eta, y, avg=None):
        """Complexity ``y^2 df1/dy``; valid at a saddle point (uses q0 - R^2 = Z^2 k <p^2>)."""
        avg = self.averages(params, eta, y) if avg is None else avg
        ratio = y * params[2] / params[3]
        return 0.5 * (math.log1p(ratio) - ratio / (1.0 + ratio)) + self.alpha * avg.sig

    def functional(self, params, eta, y, avg=None):
        """f1 at arbitrary order parameters (delta = 0: the RS functional at Q = q0)."""
        R, q0, delta, z, lam = params
        avg = self.averages(params, eta, y) if avg is None else avg
        return (
            0.5 * (q0 + delta)
            - math.log1p(y * delta / z) / (2.0 * y)
            - (q0 - R * R) / (2.0 * (z + y * delta))
            - self.alpha * avg.lnz / y
            - _g_star(lam, self.gs)
        )

    # static problem: u = (ln R, ln q0, ln delta, ln z, ln lambda, ln y, eta)
    def residual(self, u):
        if np.max(u[:6]) > 30.0:
            return np.full(6, np.nan)
        params, y, eta = np.exp(u[:5]), math.exp(u[5]), u[6]
        avg = self.averages(params, eta, y)
        eqs = self.stationarity(params, eta, y, avg)
        if not np.all(np.isfinite(eqs)):
            return np.full(6, np.nan)
        # Sigma is O(alpha <p q>): the density of examples in the selection layer
        return np.append(eqs, self.sigma(params, eta, y, avg) / (self.alpha * avg.pq))

    def values(self, x, eta, y):
        """Everything reported at a saddle point (a dict)."""
        params = np.exp(x)
        R, q0, delta, z, lam = params
        avg = self.averages(params, eta, y)
        f = self.functional(params, eta, y, avg)
        sigma = self.sigma(params, eta, y, avg)
        k = self.gs * self.gs / self.gamma
        return {
            "R": R,
            "Q": q0 + delta,
            "q0": q0,
            "delta": delta,
            "z": z,
            "lam": lam,
            "y": y,
            "free_energy": f,
            "complexity": sigma,
            "energy": f + sigma / y,
            "informative": avg.p,
            "replicon_between": self.alpha * (k * (z + y * delta)) ** 2 * avg.dp2,
        }

    def observables(self, u):
        v = self.values(u[:5], u[6], math.exp(u[5]))
        return v["R"], v["Q"], v["z"], v["free_energy"], v["informative"]


# ----------------------------------------------------------------------------- paths in y


def _delta_start(problem, rs_x, eta):
    """delta of the 1RSB saddle as y -> 0, from the RS state ``rs_x = ln(R, Q, z, lambda)``.

    To first order in y, f1 = f_RS(Q) + y F1(delta) with
    ``F1 = [(Q - R^2) delta / 2 - delta^2 / 4] / z^2 - (alpha/2) <Var_{z1} Psi>``;
    the saddle point maximises F1 (derivation, section 5).
    """
    R, Q, z, lam = np.exp(rs_x)
    gs, g = problem.gs, problem.gamma
    base = -0.5 * gs * Q - eta - lam + 0.5 * gs * gs * z / g
    p1 = expit(-eta)

    def minus_f1(log_ratio):
        delta = Q * math.exp(log_ratio)
        s, s0 = gs * math.sqrt(delta / g), gs * math.sqrt((Q - delta) / g)
        var = 0.0
        for c_v, weight in ((base, 1.0 - p1), (base + gs * R, p1)):
            x, w = _nodes(-c_v / s0, s / s0)
            c = c_v + s0 * x
            cdf, pdf = ndtr(c / s), np.exp(-0.5 * (c / s) ** 2 - _LOG_SQRT_2PI)
            m1 = c * cdf + s * pdf  # the first two moments of max(0, c + s z1)
            var += weight * (((c * c + s * s) * cdf + c * s * pdf - m1 * m1) @ w)
        f1 = ((Q - R * R) * delta / 2.0 - delta * delta / 4.0) / (z * z)
        return 0.5 * problem.alpha * var - f1

    grid = np.linspace(-36.0, -0.02, 60)
    i = int(np.argmin([minus_f1(v) for v in grid]))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    best = minimize_scalar(minus_f1, bounds=(lo, hi), method="bounded", options={"xatol": 1e-8})
    return Q * math.exp(best.x)


def _solve_fixed_y(problem, eta, y, guess):
    res = newton(lambda x: problem.equations(x, eta, y), guess, raise_on_failure=False)
    return res.x if res.converged else None


def _y_path(problem, eta, rs_x, *, log_y_target=None):
    """The 1RSB saddle continued in ln y from y -> 0 (the RS state rs_x).

    Returns ``(points, sigmas)``: rows ``(x, ln y)``. The path ends where the
    complexity turns negative (``log_y_target=None``: the static y lies on the
    last step) or beyond ``log_y_target``; ConvergenceError if it turns back in y.
    """
    R, Q, z, lam = np.exp(rs_x)
    delta = _delta_start(problem, rs_x, eta)
    log_y0 = math.log(_T_START / (problem.gs * math.sqrt(delta / problem.gamma)))
    if log_y_target is not None:
        log_y0 = min(log_y0, log_y_target)
    x0 = _solve_fixed_y(problem, eta, math.exp(log_y0), np.log([R, Q - delta, delta, z, lam]))
    if x0 is None:
        raise ConvergenceError(
            f"no 1RSB saddle point near the RS state at eta={eta:g} for small y",
            {"eta": eta, "y": math.exp(log_y0)},
        )
    state = {"top": log_y0, "turned": False}

    def stop(x, log_y):
        if log_y < state["top"]:
            state["turned"] = True
            return True
        state["top"] = log_y
        if log_y_target is not None:
            return log_y >= log_y_target
        return problem.sigma(np.exp(x), eta, math.exp(log_y)) < 0.0

    branch = continuation(
        lambda x, log_y: problem.equations(x, eta, math.exp(log_y)),
        x0,
        log_y0,
        step=0.2,
        max_step=1.0,
        p_range=(log_y0 - 1.0, log_y0 + 40.0),
        stop=stop,
        refine_folds=False,
    )
    if state["turned"] or branch.reason != "stop":
        raise ConvergenceError(
            f"the 1RSB saddle at eta={eta:g} turns back in y (or ends) at y="
            f"{math.exp(state['top']):.4g} before its complexity vanishes: no static "
            "1RSB state continues this RS state",
            {"eta": eta, "y": math.exp(state["top"]), "reason": branch.reason},
        )
    return branch.points


def _at_log_y(problem, eta, points, log_y):
    """The fixed-y saddle at ln y, from a path of (x, ln y) points increasing in ln y."""
    i = int(np.clip(np.searchsorted(points[:, 5], log_y), 1, len(points) - 1))
    (xa, pa), (xb, pb) = (points[i - 1, :5], points[i - 1, 5]), (points[i, :5], points[i, 5])
    x = _solve_fixed_y(problem, eta, math.exp(log_y), xa + (xb - xa) * (log_y - pa) / (pb - pa))
    if x is None:
        raise ConvergenceError(
            f"no fixed-y 1RSB saddle point at eta={eta:g}, y={math.exp(log_y):.6g}",
            {"eta": eta, "y": math.exp(log_y)},
        )
    return x


def _static_from_rs(problem, eta, rs_x, *, with_path=False):
    """``(x, ln y*)`` of the static 1RSB state continued from the RS state rs_x (and the path)."""
    points = _y_path(problem, eta, rs_x)
    pa, pb = points[-2, 5], points[-1, 5]

    def sigma(log_y):
        return problem.sigma(np.exp(_at_log_y(problem, eta, points, log_y)), eta, math.exp(log_y))

    log_y = brentq(sigma, pa, pb, xtol=1e-13, rtol=1e-15)
    u = np.append(_at_log_y(problem, eta, points, log_y), log_y)
    return (u, points) if with_path else u


# ----------------------------------------------------------------------------- branches in eta


def _learning_segments(points, fold_index, obs):
    """Segments of a continued curve on which eta increases and whose first state learns."""
    phi = _order_parameter_arrays(obs[:, 0], obs[:, 1])[0]
    segs = enumerate(_segments(points, fold_index))
    return [k for k, g in segs if points[g[-1], -1] > points[g[0], -1] and phi[g[0]] <= _PHI_LEARN]


def _rs_learning_x(alpha, eta, gamma, gs):
    """ln(R, Q, z, lambda) of the RS learning state at eta (None where there is none)."""
    problem, points, obs, folds = _curve("hard", alpha, gamma, gs, "exact", *_ETA_RANGE)
    if eta < points[0, -1]:  # below the curve: the Hebb-like state, solved directly
        fun = lambda y: problem.residual(np.append(y, eta))  # noqa: E731
        res = newton(fun, problem.start(eta), raise_on_failure=False)
        return res.x if res.converged else None
    segments = _segments(points, folds)
    for k in _learning_segments(points, folds, obs):
        u = _solve_on_segment(problem, points, segments[k], eta)
        if u is not None:
            return u[:4]
    return None


def _eta_start(alpha, gamma, gs):
    """Where the static branch is started: 0.5 below the largest eta of an RS learning state."""
    _problem, points, obs, folds = _curve("hard", alpha, gamma, gs, "exact", *_ETA_RANGE)
    phi = _order_parameter_arrays(obs[:, 0], obs[:, 1])[0]
    segments = _segments(points, folds)
    top = max(
        points[segments[k][phi[segments[k]] <= _PHI_LEARN], -1].max()
        for k in _learning_segments(points, folds, obs)
    )
    return top - 0.5


@functools.lru_cache(maxsize=64)
def _curve_1rsb(alpha, gamma, gs, eta_lo, eta_hi):
    """The static 1RSB branch continued in eta: (problem, points, obs, fold_index).

    Started on the RS learning branch where its RSB is well resolved, continued
    down towards the Hebb limit until delta / Q < 1e-10 (below, 1RSB = RS to that
    precision) and up through every fold until J -> 0.
    """
    problem = _Hard1RSB(alpha, gamma, gs)
    eta0 = min(max(_eta_start(alpha, gamma, gs), eta_lo + 0.5), eta_hi - 0.5)
    for eta_s in (eta0, eta0 - 0.5, eta0 - 1.0, eta0 + 0.25):
        rs_x = _rs_learning_x(alpha, eta_s, gamma, gs)
        if rs_x is None:
            continue
        try:
            x6 = _static_from_rs(problem, eta_s, rs_x)
            break
        except ConvergenceError:
            continue
    else:
        raise ConvergenceError(f"no static 1RSB learning state found near eta={eta0:g}")

    def fun(x, eta):
        return problem.residual(np.append(x, eta))

    def run(direction, stop):
        return continuation(
            fun,
            x6,
            eta_s,
            direction=direction,
            step=0.02,
            max_step=0.5,
            p_range=(eta_lo, eta_hi),
            stop=stop,
            accept_stall=lambda _x, _eta: True,
        )

    last = {"eta": eta_s}

    def stop_up(x, eta):
        # a piece running back (eta falling) above the trivial state (f > 0) only leads to J = 0
        falling, last["eta"] = eta < last["eta"], eta
        if min(x[0], x[1]) < _LOG_END:
            return True
        return falling and problem.observables(np.append(x, eta))[3] > 0.0

    down = run(-1, lambda x, _eta: x[2] - x[1] < math.log(_DELTA_FLOOR))
    up = run(1, stop_up)
    if down.reason == "stalled" or up.reason == "stalled":
        warn(
            f"the static 1RSB branch stalled (alpha={alpha:g}, gamma={gamma:g}): "
            f"followed over eta in [{down.parameter[-1]:.4g}, {up.parameter.max():.4g}]",
            ConvergenceWarning,
        )
    points, n = np.vstack([down.points[::-1], up.points[1:]]), len(down.points) - 1
    folds = np.concatenate([n - down.fold_index[::-1], up.fold_index + n])
    folds = np.sort(folds[(folds > 0) & (folds < len(points) - 1)]).astype(int)
    obs = np.array([problem.observables(u) for u in points])
    return problem, points, obs, folds


def _switches(problem, points, obs, fold_index, eta0):
    """Where the lowest-f state changes: (eta, from, to); -1 is the trivial state (f = 0).

    Each monotone piece's f(eta) is interpolated between its curve points to
    find the order; every switch is then refined by Brent on exact solutions.
    """
    segments = _segments(points, fold_index)
    etas = points[:, -1]

    def energy(k, eta, exact=True):
        if k < 0:
            return 0.0 if eta >= eta0 else math.inf
        seg = segments[k]
        if not etas[seg].min() <= eta <= etas[seg].max():
            return math.inf
        if not exact:
            order = np.argsort(etas[seg])
            return float(np.interp(eta, etas[seg][order], obs[seg, 3][order]))
        return problem.observables(_solve_on_segment(problem, points, seg, eta))[3]

    candidates = [*range(len(segments)), -1]
    # below the curve's start (delta / Q < 1e-10 there) the learning state is the RS one,
    # and df/deta = alpha <selected> >= 0, so its f stays below its value at the start:
    # the trivial state (from eta0 on) cannot win there unless it already wins at the start
    grid = np.unique(np.concatenate([etas, [eta0]]))
    grid = grid[grid >= etas.min()]
    best = [min(candidates, key=lambda k, e=e: energy(k, e, exact=False)) for e in grid]
    if eta0 < etas.min() and best[0] == -1:
        raise ConvergenceError(
            f"the trivial state is already the lowest where the 1RSB curve starts "
            f"(eta={etas.min():.4g} > eta0={eta0:.4g}): its switch lies in the RS region"
        )
    out = []
    for i in range(len(grid) - 1):
        k, j = best[i], best[i + 1]
        if k == j:
            continue
        a, b = grid[i], grid[i + 1]
        try:
            eta_c = brentq(lambda e, k=k, j=j: energy(k, e) - energy(j, e), a, b, xtol=1e-10)
        except ValueError:  # a piece ends inside [a, b]: the switch is at its fold
            eta_c = 0.5 * (a + b)
        out.append((float(eta_c), k, j))
    return out


def _curve_values(problem, points):
    rows = [problem.values(u[:5], u[6], math.exp(u[5])) for u in points]
    keys = [k for k in rows[0] if k not in ("complexity", "energy")]  # 0 and f at y*
    return {key: np.array([row[key] for row in rows]) for key in keys}


# ----------------------------------------------------------------------------- public


def _result(problem, x, eta, y, static, rs_x):
    """The public result; ``x = None``: the RS limit (delta -> 0, y -> inf) of the Hebb side."""
    rs = v = None
    if rs_x is not None:
        args = (problem.alpha, problem.gamma, problem.gs, "exact", *_ETA_RANGE)
        R, Q, z, f, sel = map(float, _curve("hard", *args)[0].observables(np.append(rs_x, eta)))
        rs = SelectionState(R, Q, z, *map(float, _order_parameter_arrays(R, Q)), f, sel)
        lam = math.exp(rs_x[3])
        v = {"R": R, "Q": Q, "q0": Q, "delta": 0.0, "z": z, "lam": lam, "y": math.inf}
        v |= {"free_energy": f, "complexity": 0.0, "energy": f, "informative": sel}
        v["replicon_between"] = math.nan
    v = problem.values(x, eta, y) if x is not None else v
    phi, dev = _order_parameter_arrays(v["R"], v["Q"])
    return HardSelection1RSB(
        alpha=problem.alpha,
        eta=eta,
        gamma=problem.gamma,
        gamma_student=problem.gs,
        Phi=float(phi),
        Delta=float(dev),
        replicon_within=math.inf,  # Psi'' = delta(c): infinite wherever delta > 0
        static=static,
        rs=rs,
        **{k: float(val) for k, val in v.items()},
    )


def _static_on_curve(alpha, eta, gamma, gs):
    """The static learning state at eta from the continued 1RSB curve (x, ln y)."""
    problem, points, obs, folds = _curve_1rsb(alpha, gamma, gs, *_ETA_RANGE)
    segments = _segments(points, folds)
    for k in _learning_segments(points, folds, obs):
        u = _solve_on_segment(problem, points, segments[k], eta)
        if u is not None:
            return u[:6]
    lo = points[0, -1]
    hi = max(points[segments[k], -1].max() for k in _learning_segments(points, folds, obs))
    raise ValueError(
        f"eta={eta:g} is outside the static 1RSB learning branch at alpha={alpha:g}, which "
        f"the continuation follows over eta in [{lo:.6g}, {hi:.6g}] (below it delta/Q < "
        f"{_DELTA_FLOOR:g} and 1RSB equals RS; above it no learning state exists)"
    )


def hard_selection_1rsb(alpha, eta, *, gamma, gamma_student=None, y=None):
    """The 1RSB saddle point of hard selection's learning branch at one (alpha, eta).

    The branch continued from the Hebb limit (eta -> -inf), whose RS saddle point is
    AT-unstable everywhere, with one step of RSB (``docs/derivations/outliers_1rsb.md``).

    Parameters
    ----------
    alpha, eta, gamma, gamma_student : float
        As in :func:`hard_selection`.
    y : float, optional
        Parisi parameter in ``(0, 1e8]``. Default: the static one, the
        nontrivial root of the complexity ``Sigma(y) = 0`` (the ground state).
        Given: the saddle point at that y, which counts the states of energy
        ``e(y)``.

    Returns
    -------
    HardSelection1RSB
        On the Hebb side, where the states' spread delta / Q would be below
        1e-8 (the correction to f ~1e-8), the RS limit: delta = 0, y = inf.

    Raises
    ------
    ValueError
        If there is no learning state at eta (beyond the fold of the learning
        branch), or a parameter is out of range.
    ConvergenceError
        If the saddle point is not found.
    """
    alpha, eta, gamma, gs = _check(alpha, eta, gamma, gamma_student)
    if y is not None:
        y = check_real(y, "y", minimum=0.0, maximum=1e8, include_min=False)
    problem = _Hard1RSB(alpha, gamma, gs)
    rs_x = _rs_learning_x(alpha, eta, gamma, gs)
    if y is None:
        u = None
        if rs_x is not None:
            # Hebb side: the states' spread is below resolution (or underflows), 1RSB = RS
            if not _delta_start(problem, rs_x, eta) >= _RS_LIMIT * math.exp(rs_x[1]):
                return _result(problem, None, eta, math.inf, True, rs_x)
            try:
                u = _static_from_rs(problem, eta, rs_x)
            except ConvergenceError:
                u = None
        if u is None:  # past the RS fold, or the path from RS is lost: the continued branch
            u = _static_on_curve(alpha, eta, gamma, gs)
        return _result(problem, u[:5], eta, math.exp(u[5]), True, rs_x)
    if rs_x is None:
        raise ValueError(
            f"eta={eta:g} is beyond the RS learning branch at alpha={alpha:g}: a fixed y is "
            "followed from the RS state (y -> 0); use y=None for the static state"
        )
    points = _y_path(problem, eta, rs_x, log_y_target=math.log(y))
    x = _at_log_y(problem, eta, points, math.log(y))
    return _result(problem, x, eta, y, False, rs_x)


def hard_selection_1rsb_curve(alpha, *, gamma, gamma_student=None, eta_range=None):
    """The static 1RSB branch of hard selection at fixed alpha, continued in eta.

    Started on the learning branch, followed down towards the Hebb limit until
    the states' spread ``delta / Q`` falls below 1e-10 (1RSB = RS there) and up
    through every fold until a falling piece lies above the trivial state.

    Parameters
    ----------
    alpha, gamma, gamma_student : float
        As in :func:`hard_selection`.
    eta_range : (float, float), optional
        As in :func:`hard_selection_curve`; default (-8, 14).

    Returns
    -------
    HardSelection1RSBCurve
        With the RS curve (:func:`hard_selection_curve`) in ``rs``.
    """
    alpha, _, gamma, gs = _check(alpha, 0.0, gamma, gamma_student)
    eta_range = _check_eta_range(eta_range)
    problem, points, _obs, folds = _curve_1rsb(alpha, gamma, gs, *eta_range)
    v = _curve_values(problem, points)
    phi, dev = _order_parameter_arrays(v["R"], v["Q"])
    return HardSelection1RSBCurve(
        eta=points[:, -1].copy(),
        Phi=phi,
        Delta=dev,
        folds=points[folds, -1].copy(),
        rs=_curve_result("hard", alpha, gamma, gs, "exact", eta_range),
        **v,
    )


def hard_transition_1rsb(alpha, *, gamma, gamma_student=None, phi_learn=_PHI_LEARN):
    """The thresholds of hard selection from the static 1RSB branches, beside the RS ones.

    Parameters
    ----------
    alpha, gamma, gamma_student : float
    phi_learn : float, default=1/3
        As in :func:`hard_transition`.

    Returns
    -------
    HardTransition1RSB
        ``eta_c``: where the trivial state (f = 0) becomes the global minimum;
        ``eta_learn``: the largest eta at which the global minimum learns
        (against the non-learning R ~ 0 branch where there is one);
        ``eta_learn_spinodal``: where the learning branch ends; ``rs``:
        :func:`hard_transition`.
    """
    alpha, _, gamma, gs = _check(alpha, 0.0, gamma, gamma_student)
    phi_learn = check_real(phi_learn, "phi_learn", minimum=0.0, maximum=0.5)
    eta0 = hard_trivial_threshold(gamma=gamma, gamma_student=gs)
    problem, points, obs, folds = _curve_1rsb(alpha, gamma, gs, *_ETA_RANGE)
    switches = _switches(problem, points, obs, folds, eta0)
    eta_c = next((e for e, _, j in switches if j == -1), math.nan)
    eta_learn, jump, spinodal = _learning(
        problem, points, obs, folds, switches, phi_learn, _ETA_RANGE[1]
    )
    return HardTransition1RSB(
        alpha=alpha,
        gamma=gamma,
        gamma_student=gs,
        eta0=eta0,
        spinodals=tuple(points[folds, -1].tolist()),
        eta_c=eta_c,
        transitions=tuple(e for e, _, _ in switches),
        eta_learn=eta_learn,
        learn_jump=jump,
        eta_learn_spinodal=spinodal,
        phi_learn=phi_learn,
        rs=hard_transition(alpha, gamma=gamma, gamma_student=gs, phi_learn=phi_learn),
    )


def hard_complexity(alpha, eta, *, gamma, gamma_student=None, y_grid=None):
    """Complexity curve ``Sigma(e)`` of the learning states at one (alpha, eta), parametric in y.

    ``exp(N Sigma)`` states of energy ``N e``: ``e(y) = d(y f1)/dy``, ``Sigma(y) = y^2 df1/dy``,
    ``dSigma/de = y``. On ``y_turn <= y <= y_static`` (``physical``) Sigma(e) is concave,
    from 0 at the ground state ``energy_static`` up to ``energy_max`` at y_turn, where e(y)
    turns: learning states exist at energies in ``[energy_static, energy_max]``. Below
    y_turn the parametric curve runs back to the RS energy (Sigma(e) convex, below the
    ground state): not a count of states.

    Parameters
    ----------
    alpha, eta, gamma, gamma_student : float
        As in :func:`hard_selection`; eta must lie on the RS learning branch
        (the path in y starts from its RS state at y -> 0).
    y_grid : array_like, optional
        Parisi parameters in ``(0, 1e8]``. Default: 40 values, log-spaced
        from ``y_static / 1000`` to the static y, where Sigma >= 0.

    Returns
    -------
    HardComplexity
    """
    alpha, eta, gamma, gs = _check(alpha, eta, gamma, gamma_student)
    if y_grid is not None:
        y_grid = np.sort(np.asarray(y_grid, dtype=float).ravel())
        if y_grid.size == 0 or not (
            np.all(np.isfinite(y_grid)) and 0.0 < y_grid[0] <= y_grid[-1] <= 1e8
        ):
            raise ValueError(f"y_grid must hold finite values in (0, 1e8], got {y_grid!r}")
    problem = _Hard1RSB(alpha, gamma, gs)
    rs_x = _rs_learning_x(alpha, eta, gamma, gs)
    if rs_x is None:
        raise ValueError(
            f"eta={eta:g} is beyond the RS learning branch at alpha={alpha:g}: the complexity "
            "curve is followed from its RS state"
        )
    u, points = _static_from_rs(problem, eta, rs_x, with_path=True)
    y_grid = np.geomspace(math.exp(u[5]) / 1000.0, math.exp(u[5]), 40) if y_grid is None else y_grid
    if math.log(y_grid[-1]) > points[-1, 5]:
        points = _y_path(problem, eta, rs_x, log_y_target=math.log(y_grid[-1]))

    def state(log_y):
        if log_y == u[5]:
            return problem.values(u[:5], eta, math.exp(log_y))
        if log_y < points[0, 5]:  # below the path's start: Newton from its first point
            x = _solve_fixed_y(problem, eta, math.exp(log_y), points[0, :5])
            if x is None:
                raise ConvergenceError(f"no 1RSB saddle point at y={math.exp(log_y):.6g}")
        else:
            x = _at_log_y(problem, eta, points, log_y)
        return problem.values(x, eta, math.exp(log_y))

    rows = [state(math.log(y)) for y in y_grid]
    v = {k: np.array([row[k] for row in rows]) for k in rows[0]}
    # the turning point of e(y): bracketed on the path, refined by Brent
    e_path = [state(p)["energy"] for p in points[:, 5] if p <= u[5]]
    i = int(np.clip(np.argmax(e_path), 1, len(e_path) - 2))
    turn = minimize_scalar(
        lambda p: -state(p)["energy"],
        bounds=(points[i - 1, 5], points[i + 1, 5]),
        method="bounded",
        options={"xatol": 1e-7},
    )
    return HardComplexity(
        alpha=alpha,
        eta=eta,
        gamma=gamma,
        gamma_student=gs,
        Phi=_order_parameter_arrays(v["R"], v["Q"])[0],
        y_static=math.exp(u[5]),
        energy_static=float(problem.values(u[:5], eta, math.exp(u[5]))["energy"]),
        y_turn=math.exp(turn.x),
        energy_max=float(-turn.fun),
        **{k: v[k] for k in ("y", "energy", "complexity", "free_energy")},
        **{k: v[k] for k in ("R", "Q", "q0", "delta", "z", "lam")},
    )
