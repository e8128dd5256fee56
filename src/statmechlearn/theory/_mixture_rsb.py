"""One-step replica-symmetry breaking at zero temperature for the ML mixture.

The RS ground state of :mod:`statmechlearn.theory.ml_mixture` stationarises

    e(q, m, x) = alpha q / (2 sigma) - (q - m^2) / (2 x) + alpha < Phi_x(c m + sqrt(q) z) >_z,

with ``Phi_x(h) = min_g [-ln cosh(g / sigma) + (g - h)^2 / (2 x)]`` the field's Moreau
envelope. With one step of breaking (inter-state overlap q0, intra-state overlap
q1 = q0 + delta, Parisi parameter y = beta m_P kept finite as beta -> infinity) it becomes

    f(q0, delta, m, x; y) = alpha q1 / (2 sigma) - ln(1 + y delta / x) / (2 y)
        - (q0 - m^2) / (2 (x + y delta)) - (alpha / y) < ln < exp(-y Phi_x(h1)) >_{z1} >_{z0},

    h1 = c m + sqrt(q0) z0 + sqrt(delta) z1.

``delta -> 0`` and ``y -> 0`` both give back the RS functional (at q = q0 and q = q1).
Its Legendre structure in y gives the energy ``e(y) = d(y f)/dy`` and the complexity
``Sigma(y) = y^2 df/dy`` of the states counted at y; the ground state has Sigma = 0,
which at zero temperature is also the stationarity of f in y. The derivation and its
checks are in ``docs/derivations/ml_mixture_1rsb.md``.

Quadrature: Gauss-Legendre on [-Z, Z] in both z0 and z1, each split where its
field crosses h = 0 (the outer at h0 = 0, the inner at h1 = 0, where the optimiser
of Phi_x jumps once x > sigma^2), and log-sum-exp for the inner average.
"""

import math
from dataclasses import dataclass

import numpy as np

from statmechlearn._core.exceptions import ConvergenceError
from statmechlearn._core.gauss import H, log_cosh, normal_pdf
from statmechlearn._core.saddle import continuation, newton
from statmechlearn._core.validation import check_real
from statmechlearn.theory._mixture_field import _field_optimum
from statmechlearn.theory._mixture_rs import _check, phase_boundaries, solve

__all__ = [
    "ComplexityCurve",
    "Mixture1RSB",
    "Mixture1RSBBranch",
    "branch_1rsb",
    "complexity_curve",
    "functional",
    "gradient",
    "solve_1rsb",
]

_Z_MAX = 10.0
_N_OUTER = 128
_N_INNER = 96
_OUTER = np.polynomial.legendre.leggauss(_N_OUTER)
_INNER = np.polynomial.legendre.leggauss(_N_INNER)


def _split_nodes(split, rule):
    """Nodes and normal-weighted weights on [-Z, s] and [s, Z] (s may be an array)."""
    x, w = rule
    s = np.clip(np.asarray(split, dtype=float), -_Z_MAX, _Z_MAX)[..., None]
    lo, hi = (s + _Z_MAX) / 2.0, (_Z_MAX - s) / 2.0
    z = np.concatenate([-_Z_MAX + lo * (x + 1.0), s + hi * (x + 1.0)], axis=-1)
    wz = np.concatenate([lo * w, hi * w], axis=-1) * normal_pdf(z)
    return z, wz


def _field(h, x, sigma):
    """Optimiser of Phi_x at fields h: (u = g*/sigma, t = tanh u, Phi_x(h))."""
    k = x / sigma**2
    u = _field_optimum(h / sigma, k)
    t = np.tanh(u)
    return u, t, -log_cosh(u) + 0.5 * k * t * t


@dataclass(frozen=True)
class _Nested:
    """Nested averages of one (q0, delta, m, x, y); <.>_0 outer, <.>_1 tilted inner."""

    log_z: float  # < ln Z1 >_0
    phi_prime: float  # < <Phi'>_1 >_0
    z0_phi_prime: float  # < z0 <Phi'>_1 >_0
    z1_phi_prime: float  # < <z1 Phi'>_1 >_0
    phi_x: float  # < <dPhi/dx>_1 >_0
    phi: float  # < <Phi>_1 >_0
    replicon_within: float  # alpha-free < <(x Phi'')^2>_1 >_0, smooth part
    replicon_between: float  # alpha-free < (X F1'')^2 >_0, X = x + y delta
    jump: bool  # whether Phi_x's optimiser jumps (x > sigma^2)


def _nested(q0, delta, m, x, y, sigma, c):
    sq0, sd = math.sqrt(q0), math.sqrt(delta)
    z0, w0 = _split_nodes(-c * m / sq0, _OUTER)
    h0 = c * m + sq0 * z0
    z1, w1 = _split_nodes(-h0 / sd, _INNER)  # (n0, n1)
    h1 = h0[:, None] + sd * z1
    _, t, phi = _field(h1, x, sigma)
    log_w = np.log(w1, out=np.full_like(w1, -np.inf), where=w1 > 0.0) - y * phi
    top = log_w.max(axis=1, keepdims=True)
    p = np.exp(log_w - top)
    norm = p.sum(axis=1, keepdims=True)
    log_z1 = np.log(norm[:, 0]) + top[:, 0]
    p /= norm
    d1 = -t / sigma  # Phi'
    dx = -0.5 * (t / sigma) ** 2  # dPhi/dx
    k = x / sigma**2
    sech2 = 1.0 - t * t
    xd2 = -k * sech2 / (1.0 - k * sech2)  # x Phi'', smooth part (= 1 - du/du0)
    mean_d1 = (p * d1).sum(axis=1)
    var_d1 = (p * d1 * d1).sum(axis=1) - mean_d1**2
    mean_xd2 = (p * xd2).sum(axis=1)
    jump = k > 1.0
    if jump:
        # Phi' jumps by -2 tanh(u+)/sigma at h1 = 0: a delta in Phi'' of that weight,
        # times the tilted density of h1 at 0
        u_plus = float(_field(np.array(1e-300), x, sigma)[0])
        zs = -h0 / sd
        phi0 = -log_cosh(u_plus) + 0.5 * k * math.tanh(u_plus) ** 2
        dens = np.exp(-y * phi0 - 0.5 * zs * zs - log_z1) / (math.sqrt(2.0 * math.pi) * sd)
        mean_xd2 = mean_xd2 - x * 2.0 * math.tanh(u_plus) / sigma * dens
    big_x = x + y * delta
    f1_second = (mean_xd2 / x) - y * var_d1  # d^2/dh0^2 of -(1/y) ln Z1
    return _Nested(
        log_z=float(w0 @ log_z1),
        phi_prime=float(w0 @ mean_d1),
        z0_phi_prime=float(w0 @ (z0 * mean_d1)),
        z1_phi_prime=float(w0 @ (p * z1 * d1).sum(axis=1)),
        phi_x=float(w0 @ (p * dx).sum(axis=1)),
        phi=float(w0 @ (p * phi).sum(axis=1)),
        replicon_within=float(w0 @ (p * xd2 * xd2).sum(axis=1)),
        replicon_between=float(w0 @ (big_x * f1_second) ** 2),
        jump=bool(jump),
    )


def functional(q0, delta, m, x, y, *, alpha, sigma, u0):
    """The 1RSB functional f per N (not per pattern) at one point of its arguments.

    Parameters
    ----------
    q0, delta, m, x, y : float
        Inter-state overlap, ``q1 - q0`` (> 0), overlap with the teacher's
        direction, within-state susceptibility (> 0), Parisi parameter (> 0).
    alpha, sigma, u0 : float
        Load, model width, separation (as in :func:`ml_mixture.solve`).

    Returns
    -------
    float
    """
    c = u0 / math.sqrt(2.0)
    a = _nested(q0, delta, m, x, y, sigma, c)
    return _assemble(q0, delta, m, x, y, alpha, sigma, a)


def _assemble(q0, delta, m, x, y, alpha, sigma, a):
    big_x = x + y * delta
    return (
        alpha * (q0 + delta) / (2.0 * sigma)
        - math.log1p(y * delta / x) / (2.0 * y)
        - (q0 - m * m) / (2.0 * big_x)
        - alpha * a.log_z / y
    )


def _gradient(q0, delta, m, x, y, alpha, sigma, c, a):
    """(df/dq0, df/ddelta, df/dm, df/dx, df/dy), analytic in the nested averages."""
    big_x = x + y * delta
    v = q0 - m * m
    prior = alpha / (2.0 * sigma)
    return np.array(
        [
            prior - 1.0 / (2.0 * big_x) + alpha * a.z0_phi_prime / (2.0 * math.sqrt(q0)),
            prior
            - 1.0 / (2.0 * big_x)
            + y * v / (2.0 * big_x**2)
            + alpha * a.z1_phi_prime / (2.0 * math.sqrt(delta)),
            m / big_x + alpha * c * a.phi_prime,
            delta / (2.0 * x * big_x) + v / (2.0 * big_x**2) + alpha * a.phi_x,
            math.log1p(y * delta / x) / (2.0 * y * y)
            - delta / (2.0 * y * big_x)
            + delta * v / (2.0 * big_x**2)
            + alpha * (a.log_z / (y * y) + a.phi / y),
        ]
    )


def gradient(q0, delta, m, x, y, *, alpha, sigma, u0):
    """Analytic gradient of :func:`functional` in ``(q0, delta, m, x, y)``.

    Parameters
    ----------
    q0, delta, m, x, y, alpha, sigma, u0 : float
        As in :func:`functional`.

    Returns
    -------
    ndarray of shape (5,)
    """
    c = u0 / math.sqrt(2.0)
    a = _nested(q0, delta, m, x, y, sigma, c)
    return _gradient(q0, delta, m, x, y, alpha, sigma, c, a)


def _unpack(v):
    return tuple(float(t) for t in np.exp(v))


def _fixed_y_residual(v, y, alpha, sigma, c):
    """The four saddle-point equations at fixed y, in v = ln(q0, delta, m, x), scaled to O(1)."""
    if np.max(v) > 30.0 or np.min(v) < -40.0:
        return np.full(4, np.nan)
    q0, delta, m, x = _unpack(v)
    a = _nested(q0, delta, m, x, y, sigma, c)
    g = _gradient(q0, delta, m, x, y, alpha, sigma, c, a)
    return g[:4] * np.array([q0, delta, m, x]) / alpha


def _static_residual(v, alpha, sigma, c):
    """All five equations in v = ln(q0, delta, m, x, y); the fifth is Sigma / alpha."""
    if np.max(v) > 30.0 or np.min(v) < -40.0:
        return np.full(5, np.nan)
    q0, delta, m, x, y = _unpack(v)
    a = _nested(q0, delta, m, x, y, sigma, c)
    g = _gradient(q0, delta, m, x, y, alpha, sigma, c, a)
    return g * np.array([q0, delta, m, x, y * y]) / alpha


@dataclass(frozen=True)
class Mixture1RSB:
    """One zero-temperature 1RSB saddle point of the ML mixture (ordered branch).

    Attributes
    ----------
    alpha, sigma, u0 : float
        Load, model width, separation.
    y : float
        Parisi parameter ``beta m`` (the static one, ``Sigma = 0``, unless fixed
        by the caller); NaN where the solution is replica symmetric.
    Q : float
        ``q1``: squared splitting of one state (the self-overlap).
    q0 : float
        Overlap between two different states; ``Q - q0`` is ``delta``.
    delta : float
        ``q1 - q0``; 0 where the solution is replica symmetric.
    R : float
        Overlap with the true splitting, the paper's r (``m / sqrt(2)``).
    cos_theta : float
        ``sqrt(2 R^2 / Q)``.
    eps_c : float
        Classification error ``H(u0 cos(theta) / sqrt(2))`` of one state.
    energy : float
        Energy per pattern of the states counted at ``y``, ``e(y) = d(y f)/dy``;
        at the static y the ground-state energy, comparable with
        :attr:`MixtureBranch.energy`.
    free_energy : float
        The 1RSB functional ``f(y)`` per pattern (equal to ``energy`` at the static y).
    complexity : float
        ``Sigma(y) = y^2 df/dy``, log-number of states per dimension N.
    susceptibility : float
        Within-state ``x = lim beta (Q - q1)``.
    replicon_within, replicon_between : float
        ``alpha <<(x Phi'')^2>_1>_0`` (inf when the field optimiser jumps,
        ``x > sigma^2``) and ``alpha (x + y delta)^2 <F1''^2>_0``; the 1RSB
        solution is stable when both are below 1.
    field_jump : bool
        Whether ``x > sigma^2`` (the within-state optimiser jumps).
    stable : bool
        Both replicons below 1.
    """

    alpha: float
    sigma: float
    u0: float
    y: float
    Q: float
    q0: float
    delta: float
    R: float
    cos_theta: float
    eps_c: float
    energy: float
    free_energy: float
    complexity: float
    susceptibility: float
    replicon_within: float
    replicon_between: float
    field_jump: bool
    stable: bool


def _make(q0, delta, m, x, y, alpha, sigma, u0):
    c = u0 / math.sqrt(2.0)
    a = _nested(q0, delta, m, x, y, sigma, c)
    f = _assemble(q0, delta, m, x, y, alpha, sigma, a)
    f_y = _gradient(q0, delta, m, x, y, alpha, sigma, c, a)[4]
    q1 = q0 + delta
    cos_theta = m / math.sqrt(q1)
    within = math.inf if a.jump else alpha * a.replicon_within
    between = alpha * a.replicon_between
    return Mixture1RSB(
        alpha=alpha,
        sigma=sigma,
        u0=u0,
        y=y,
        Q=q1,
        q0=q0,
        delta=delta,
        R=m / math.sqrt(2.0),
        cos_theta=cos_theta,
        eps_c=float(H(u0 * cos_theta / math.sqrt(2.0))),
        energy=(f + y * f_y) / alpha,
        free_energy=f / alpha,
        complexity=y * y * f_y,
        susceptibility=x,
        replicon_within=within,
        replicon_between=between,
        field_jump=a.jump,
        stable=bool(within < 1.0 and between < 1.0),
    )


#: Parisi parameters scanned for the sign change of Sigma(y) when no start is given
_Y_SCAN = np.geomspace(0.25, 64.0, 17)

#: delta / Q below which a fixed-y solution of the scan counts as collapsed onto RS
_COLLAPSED = 1e-3

#: Largest step in sigma when a static solution is walked from a width where the scan works
_WALK_STEP = 0.05


def _solve_fixed_y(y, alpha, sigma, c, v4):
    res = newton(
        lambda v: _fixed_y_residual(v, y, alpha, sigma, c),
        v4,
        tol=1e-11,
        max_iter=40,
        fd_step=1e-6,
        raise_on_failure=False,
    )
    ok = res.converged and np.exp(res.x[1]) > 1e-10 * np.exp(res.x[0])
    return res.x if ok else None


def _complexity_at(y, alpha, sigma, c, v4):
    q0, delta, m, x = _unpack(v4)
    a = _nested(q0, delta, m, x, y, sigma, c)
    return y * y * _gradient(q0, delta, m, x, y, alpha, sigma, c, a)[4]


def _rs_start(alpha, sigma, u0):
    branch = solve(alpha, sigma, u0=u0).branch("split-ordered")
    if branch is None:
        raise ValueError(
            f"no split-ordered RS branch at alpha={alpha}, sigma={sigma}, u0={u0}: "
            "the 1RSB solution is built on the ordered ground state"
        )
    return branch


def _static_start(alpha, sigma, u0, rs):
    """ln(q0, delta, m, x, y) bracketing Sigma(y) = 0 on a scan of y at fixed y."""
    c = u0 / math.sqrt(2.0)
    q, m, x = rs.Q, rs.R * math.sqrt(2.0), rs.susceptibility
    v4 = np.log([0.9 * q, 0.1 * q, m, x])
    previous = None
    for y in _Y_SCAN:
        v = _solve_fixed_y(y, alpha, sigma, c, v4)
        # a point that fell back onto RS (delta/Q ~ 1e-5 where the branch has 1e-2) would
        # pull the next y's start onto RS too: it neither brackets nor starts anything
        if v is None or math.exp(v[1] - v[0]) < _COLLAPSED:
            continue
        v4 = v
        s = _complexity_at(y, alpha, sigma, c, v4)
        if previous is not None and previous[1] > 0.0 >= s:
            y_lo, s_lo, v_lo = previous
            # linear interpolation of Sigma between the two scanned points (in ln y)
            t = s_lo / (s_lo - s)
            y_star = math.exp((1 - t) * math.log(y_lo) + t * math.log(y))
            return np.append((1 - t) * v_lo + t * v4, math.log(y_star))
        previous = (y, s, v4)
    raise ConvergenceError(
        f"no 1RSB solution with Sigma(y) = 0 found for y in [{_Y_SCAN[0]}, {_Y_SCAN[-1]}] "
        f"at alpha={alpha}, sigma={sigma}, u0={u0}",
        diagnostics={"alpha": alpha, "sigma": sigma, "u0": u0},
    )


def _newton_static(v, alpha, sigma, c):
    """Newton's method on the five static equations from ``v`` (the result, converged or not)."""
    return newton(
        lambda w: _static_residual(w, alpha, sigma, c),
        v,
        tol=1e-10,
        max_iter=40,
        fd_step=1e-6,
        raise_on_failure=False,
    )


def _static_guess(alpha, sigma, u0):
    """A start for the static equations at sigma: the scan of y, or else a walk in sigma.

    Where the scan finds no bracket (next to the onset, where every delta is small, or
    where its fixed-y solutions collapse onto RS), the static solution is solved at
    0.8 sigma_AT and walked to sigma in steps of at most ``_WALK_STEP``.
    """
    try:
        return _static_start(alpha, sigma, u0, _rs_start(alpha, sigma, u0))
    except ConvergenceError:
        s_at = phase_boundaries(alpha, u0=u0, sigma_min=min(sigma, 0.8) * 0.9).sigma_at
        if not math.isfinite(s_at) or abs(sigma - 0.8 * s_at) < 1e-9:
            raise
    c = u0 / math.sqrt(2.0)
    s_from = 0.8 * s_at
    v = _static_start(alpha, s_from, u0, _rs_start(alpha, s_from, u0))
    n = max(1, math.ceil(abs(sigma - s_from) / _WALK_STEP))
    for s in np.linspace(s_from, sigma, n + 1)[1:]:
        res = _newton_static(v, alpha, s, c)
        if not res.converged:
            raise ConvergenceError(
                f"the static 1RSB solution could not be followed from sigma={s_from:.4g} "
                f"to sigma={sigma} (alpha={alpha}, u0={u0}; lost at sigma={s:.4g})",
                diagnostics={"sigma": s, "residual": res.residual},
            )
        v = res.x
    return v


def solve_at(alpha, sigma, u0, *, y=None, start=None):
    """1RSB saddle point (static y when ``y`` is None) from ``start`` = ln(q0, delta, m, x[, y])."""
    c = u0 / math.sqrt(2.0)
    if y is None:
        v = _static_guess(alpha, sigma, u0) if start is None else start
        res = _newton_static(v, alpha, sigma, c)
        if not res.converged:
            raise ConvergenceError(
                f"the static 1RSB equations did not converge at alpha={alpha}, sigma={sigma}, "
                f"u0={u0} (residual {res.residual:.2e})",
                diagnostics={"residual": res.residual, "x": res.x},
            )
        return _make(*_unpack(res.x), alpha, sigma, u0), res.x
    if start is None:
        rs = _rs_start(alpha, sigma, u0)
        q, m, x = rs.Q, rs.R * math.sqrt(2.0), rs.susceptibility
        start = np.log([0.9 * q, 0.1 * q, m, x])
    v4 = _solve_fixed_y(y, alpha, sigma, c, np.asarray(start, dtype=float)[:4])
    if v4 is None:
        raise ConvergenceError(
            f"no 1RSB solution with delta > 0 at fixed y={y} "
            f"(alpha={alpha}, sigma={sigma}, u0={u0})",
            diagnostics={"y": y},
        )
    return _make(*_unpack(v4), y, alpha, sigma, u0), v4


@dataclass(frozen=True)
class Mixture1RSBBranch:
    """The static 1RSB ordered branch as a function of the width sigma.

    Attributes
    ----------
    alpha, u0 : float
    sigma_onset : float
        Where the branch leaves replica symmetry (``delta -> 0``): the RS
        solution's de Almeida-Thouless width ``sigma_AT``, found here from the
        1RSB side.
    states : tuple of Mixture1RSB
        The branch from ``sigma_onset`` down to ``sigma_min``, sigma decreasing.
    """

    alpha: float
    u0: float
    sigma_onset: float
    states: tuple

    def __getattr__(self, name):
        # column access: branch.R, branch.sigma, ... as arrays over the states
        if name.startswith("_") or name not in Mixture1RSB.__dataclass_fields__:
            raise AttributeError(name)
        return np.array([getattr(s, name) for s in self.states])


def follow_branch(alpha, u0, sigma_start, sigma_min, *, onset_delta=1e-4):
    """Continuation in sigma of the static 1RSB branch, both ways from ``sigma_start``."""
    c = u0 / math.sqrt(2.0)
    _, v0 = solve_at(alpha, sigma_start, u0)

    def residual(v, sigma):
        return _static_residual(v, alpha, sigma, c)

    def at_onset(v, _sigma):
        return math.exp(v[1] - v[0]) < onset_delta

    branches = []
    for direction, p_range in ((-1, (sigma_min, sigma_start)), (1, (sigma_min, 10.0))):
        res = continuation(
            residual,
            v0,
            sigma_start,
            step=0.05,
            max_step=0.25,
            min_step=1e-5,
            direction=direction,
            p_range=p_range,
            stop=at_onset if direction > 0 else None,
            accept_stall=lambda v, s: True,
            tol=1e-9,
            refine_folds=False,
        )
        branches.append(res)
    down, up = branches
    pts = [(p, v) for p, v in zip(up.parameter[::-1], up.x[::-1], strict=True)]
    pts += [(p, v) for p, v in zip(down.parameter[1:], down.x[1:], strict=True)]
    pts = [(p, v) for p, v in pts if sigma_min <= p]
    states = tuple(_make(*_unpack(v), alpha, float(p), u0) for p, v in pts)
    # delta grows linearly below the onset: its zero from the points next to it (the
    # continuation itself stops at delta / Q = onset_delta, a little below the onset)
    top = [(st.sigma, st.delta) for st in states if st.sigma > states[0].sigma - 0.03]
    if len(top) >= 3:
        slope, intercept = np.polyfit(*np.array(top).T, 1)
        onset = float(-intercept / slope)
    else:
        onset = float(up.parameter[-1])
    return Mixture1RSBBranch(alpha, u0, onset, states)


def _replica_symmetric(alpha, sigma, u0, rs):
    """The RS ordered branch in 1RSB clothes (delta = 0, y undefined): where RS is stable."""
    return Mixture1RSB(
        alpha=alpha,
        sigma=sigma,
        u0=u0,
        y=math.nan,
        Q=rs.Q,
        q0=rs.Q,
        delta=0.0,
        R=rs.R,
        cos_theta=rs.cos_theta,
        eps_c=rs.eps_c,
        energy=rs.energy,
        free_energy=rs.energy,
        complexity=0.0,
        susceptibility=rs.susceptibility,
        replicon_within=rs.replicon,
        replicon_between=math.nan,
        field_jump=rs.field_jump,
        stable=rs.rs_stable,
    )


def solve_1rsb(alpha, sigma, *, u0=1.0, y=None):
    """Zero-temperature 1RSB saddle point of the ordered ML-mixture branch at one width.

    Parameters
    ----------
    alpha : float
        Patterns per dimension, in ``[0.1, 1e4]``.
    sigma : float
        Width of the fitted Gaussians in units of the true width, ``>= 0.01``.
    u0 : float, default=1.0
        Normalised separation of the true centres, in ``(0, 100]``.
    y : float, optional
        Parisi parameter ``beta m`` in ``(0, 1e3]``. Default: the static one, the
        root of the complexity ``Sigma(y) = 0`` (the ground state). A given y
        returns the states counted at that y: their energy ``e(y)`` and
        complexity ``Sigma(y)`` (one point of the curve ``Sigma(e)``).

    Returns
    -------
    Mixture1RSB
        Where the RS ordered ground state is stable (replicon below 1, no field
        jump) the 1RSB solution is the RS one: ``delta = 0``, ``y = NaN``.

    Raises
    ------
    ValueError
        Where there is no split-ordered branch (``sigma >= sigma_1`` or
        ``alpha <= alpha_c``), or for arguments out of range.
    ConvergenceError
        If no solution with ``delta > 0`` is found.

    Notes
    -----
    The functional, its limits and its checks are in
    ``docs/derivations/ml_mixture_1rsb.md``. The 1RSB solution is itself
    unstable wherever ``field_jump`` (its within-state replicon is infinite) or
    ``replicon_between > 1``: it is then an approximation to the full-RSB
    ground state, one step better than RS.

    Examples
    --------
    >>> from statmechlearn.theory import ml_mixture
    >>> s = ml_mixture.solve_1rsb(1.0, 1.0, u0=2.0)
    >>> round(s.R, 3), round(s.y, 2)
    (0.916, 3.14)
    """
    alpha, sigma, u0 = _check(alpha, sigma, u0)
    if y is not None:
        y = check_real(y, "y", minimum=0.0, maximum=1e3, include_min=False)
    rs = _rs_start(alpha, sigma, u0)
    if rs.rs_stable:
        return _replica_symmetric(alpha, sigma, u0, rs)
    return solve_at(alpha, sigma, u0, y=y)[0]


def branch_1rsb(alpha, *, u0=1.0, sigma_min=0.3):
    """The static 1RSB ordered branch from where RS breaks down to ``sigma_min``.

    Pseudo-arclength continuation in sigma (:func:`statmechlearn._core.saddle.continuation`)
    of the five equations (the four saddle-point equations and ``Sigma(y) = 0``),
    started below the RS de Almeida-Thouless width and followed up to where
    ``delta / Q`` falls below 1e-4 (the onset) and down to ``sigma_min``.

    Parameters
    ----------
    alpha : float
        Patterns per dimension, in ``[0.1, 1e4]``.
    u0 : float, default=1.0
        Normalised separation, in ``(0, 100]``.
    sigma_min : float, default=0.3
        Lowest width, ``>= 0.05``.

    Returns
    -------
    Mixture1RSBBranch
        Empty (``sigma_onset`` NaN) where the RS ground state is stable down to
        ``sigma_min``.
    """
    alpha, _, u0 = _check(alpha, 1.0, u0)
    sigma_min = check_real(sigma_min, "sigma_min", minimum=0.05)
    bounds = phase_boundaries(alpha, u0=u0, sigma_min=sigma_min)
    s_at = bounds.sigma_at
    if not math.isfinite(s_at):
        return Mixture1RSBBranch(alpha, u0, math.nan, ())
    return follow_branch(alpha, u0, max(sigma_min, 0.8 * s_at), sigma_min)


@dataclass(frozen=True)
class ComplexityCurve:
    """The complexity of the 1RSB states against their energy at one width.

    Attributes
    ----------
    alpha, sigma, u0 : float
    y, energy, complexity, R, Q : ndarray
        Parisi parameter, energy per pattern ``e(y)``, complexity per
        dimension ``Sigma(y)`` and the states' overlaps, one entry per y.
    static : Mixture1RSB
        The ground state (``Sigma = 0``).
    """

    alpha: float
    sigma: float
    u0: float
    y: np.ndarray
    energy: np.ndarray
    complexity: np.ndarray
    R: np.ndarray
    Q: np.ndarray
    static: Mixture1RSB


def complexity_curve(alpha, sigma, *, u0=1.0, y=None):
    """``Sigma(e)`` of the ordered branch's 1RSB states, parametric in the Parisi parameter.

    Parameters
    ----------
    alpha, sigma, u0 : float
        As in :func:`solve_1rsb`; RS must be unstable at ``sigma``.
    y : array_like, optional
        Parisi parameters, each in ``(0, 1e3]``. Default: 24 points from
        ``y*/8`` to ``4 y*`` (``y*`` the static one).

    Returns
    -------
    ComplexityCurve
    """
    alpha, sigma, u0 = _check(alpha, sigma, u0)
    rs = _rs_start(alpha, sigma, u0)
    if rs.rs_stable:
        raise ValueError(
            f"the RS ground state is stable at sigma={sigma} (alpha={alpha}, u0={u0}): "
            "there is one state and no complexity curve"
        )
    static, v = solve_at(alpha, sigma, u0)
    if y is None:
        y = np.geomspace(static.y / 8.0, 4.0 * static.y, 24)
    y = np.asarray(y, dtype=float).ravel()
    if y.size == 0 or not np.all(np.isfinite(y)) or np.any(y <= 0.0) or np.any(y > 1e3):
        raise ValueError(f"y must be a non-empty array of values in (0, 1e3], got {y!r}")
    states = []
    order = np.argsort(np.abs(np.log(y / static.y)))  # start next to the static point
    found = {}
    for i in order:
        near = min(found, key=lambda j: abs(math.log(y[j] / y[i])), default=None)
        start = found[near][1] if near is not None else v[:4]
        state, v4 = solve_at(alpha, sigma, u0, y=float(y[i]), start=start)
        found[i] = (state, v4)
    states = [found[i][0] for i in range(y.size)]
    return ComplexityCurve(
        alpha,
        sigma,
        u0,
        y,
        np.array([s.energy for s in states]),
        np.array([s.complexity for s in states]),
        np.array([s.R for s in states]),
        np.array([s.Q for s in states]),
        static,
    )
