"""Replica-symmetric saddle points of the ML mixture (the body of :mod:`.ml_mixture`).

The public face, the model and the formulas are in :mod:`statmechlearn.theory.ml_mixture`;
the one-step RSB solution built on these branches is in :mod:`._mixture_rsb`.
"""

import itertools
import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq, root

from statmechlearn._core.gauss import H, log_cosh, normal_pdf
from statmechlearn._core.validation import check_array_finite, check_real
from statmechlearn.theory._mixture_field import _field_optimum

__all__ = [
    "MixtureBranch",
    "MixtureSolution",
    "PhaseBoundaries",
    "alpha_critical",
    "field_optimum",
    "ordered_gain",
    "phase_boundaries",
    "sigma_ordered",
    "sigma_random",
    "solve",
]

_N_NODES = 160
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(_N_NODES)
_Z_MAX = 12.0
# ordered solutions are looked for in m on a geometric grid; below _M_MIN the
# branch is indistinguishable from its bifurcation point
_M_MIN = 1e-4
_M_GRID = 48


def alpha_critical(u0):
    """Critical load ``alpha_c = 4 / u0^4`` below which no ordered split exists.

    Parameters
    ----------
    u0 : float
        Normalised separation of the true centres, ``u0 > 0``.

    Returns
    -------
    float
    """
    u0 = check_real(u0, "u0", minimum=0.0, include_min=False)
    with np.errstate(over="ignore", divide="ignore"):  # inf for u0 < ~1e-77, 0 above ~1e77
        return float(4.0 / np.float64(u0) ** 4)


def sigma_ordered(alpha, u0):
    """Width ``sigma_1(alpha) = (1 + u0^2/2)(1 + 2/(alpha u0^2))`` of the ordered split.

    This is the largest eigenvalue of the sample covariance of the spiked
    model (the BBP transition), so it is where the unsplit solution loses
    stability towards the true splitting direction.

    Parameters
    ----------
    alpha : float
        Patterns per dimension, ``alpha > 0``.
    u0 : float
        Normalised separation, ``u0 > 0``.

    Returns
    -------
    float
        ``sigma_1``, or NaN for ``alpha <= alpha_c`` where no ordered split exists.
    """
    alpha = check_real(alpha, "alpha", minimum=0.0, include_min=False)
    if alpha <= alpha_critical(u0):
        return math.nan
    u2 = np.float64(u0) ** 2
    with np.errstate(over="ignore"):  # inf for u0 > ~1e154
        return float((1.0 + u2 / 2.0) * (1.0 + 2.0 / (alpha * u2)))


def sigma_random(alpha):
    """Width ``sigma_2(alpha) = (1 + alpha^(-1/2))^2`` where the random split appears.

    It is the upper edge of the Marchenko-Pastur spectrum of the noise.

    Parameters
    ----------
    alpha : float
        Patterns per dimension, ``alpha > 0``.

    Returns
    -------
    float
    """
    alpha = check_real(alpha, "alpha", minimum=0.0, include_min=False)
    return (1.0 + alpha**-0.5) ** 2


def field_optimum(u0, k):
    """Minimiser ``u*`` of ``-ln cosh(u) + (u - u0)^2 / (2k)`` (scaled local field).

    For ``k <= 1`` the objective is convex; for ``k > 1`` it has two wells
    and the minimiser takes the well on the side of ``sign(u0)``, so it jumps
    at ``u0 = 0`` (``u0 = 0`` returns the positive well). Solved by Newton's
    method on ``g(u) = u - k tanh(u) - |u0|`` from ``|u0| + k``: ``g`` is
    increasing and convex right of the largest root, so the iteration
    decreases monotonically onto it.

    Parameters
    ----------
    u0 : array_like
        Scaled cavity fields ``h0 / sigma``.
    k : float
        Scaled susceptibility ``x / sigma^2``, ``k > 0``.

    Returns
    -------
    ndarray
        ``u*`` with the shape of ``u0``.
    """
    u0 = check_array_finite(u0, "u0")
    k = check_real(k, "k", minimum=0.0, include_min=False)
    return _field_optimum(u0, k)


def _nodes(z_split):
    """Gauss-Legendre nodes and normal-weighted weights on [-Z, z_s] and [z_s, Z]."""
    zs = float(np.clip(z_split, -_Z_MAX, _Z_MAX))
    lo, hi = (zs + _Z_MAX) / 2.0, (_Z_MAX - zs) / 2.0
    z = np.concatenate([-_Z_MAX + lo * (_NODES + 1.0), zs + hi * (_NODES + 1.0)])
    w = np.concatenate([lo * _WEIGHTS, hi * _WEIGHTS]) * normal_pdf(z)
    return z, w


@dataclass(frozen=True)
class _Averages:
    t: float  # <tanh u*>
    t2: float  # <tanh^2 u*>
    zt: float  # <z tanh u*>
    phi: float  # <min_u [...]>  (the field's Moreau envelope)
    dt: float  # <d tanh(u*) / du0>, smooth part
    replicon: float  # <(1 - du*/du0)^2>, smooth part


def _averages(q, m, k, sigma, c):
    sq = math.sqrt(max(q, 1e-300))
    z, w = _nodes(-c * m / sq)
    u0 = (c * m + sq * z) / sigma
    u = _field_optimum(u0, k)
    t = np.tanh(u)
    sech2 = 1.0 - t * t
    du = 1.0 / (1.0 - k * sech2)
    return _Averages(
        t=float(w @ t),
        t2=float(w @ (t * t)),
        zt=float(w @ (z * t)),
        phi=float(w @ (-log_cosh(u) + 0.5 * k * t * t)),
        dt=float(w @ (sech2 * du)),
        replicon=float(w @ (1.0 - du) ** 2),
    )


def _residuals(q, m, k, alpha, sigma, c):
    """Saddle-point equations of e(q, m, x) with x = k sigma^2, scaled to O(1)."""
    q = max(q, 1e-300)
    a = _averages(q, m, k, sigma, c)
    with np.errstate(over="ignore", divide="ignore"):
        return (
            (q - m * m - alpha * (k * sigma) ** 2 * a.t2) / q,
            alpha - 1.0 / (k * sigma) - alpha * a.zt / math.sqrt(q),
            alpha * c * k * sigma * a.t - m,
        )


def _energy(q, m, k, alpha, sigma, c, averages=None):
    """Ground-state energy per pattern, ``E/P`` relative to the unsplit state."""
    a = _averages(q, m, k, sigma, c) if averages is None else averages
    x = k * sigma**2
    return q / (2.0 * sigma) - (q - m * m) / (2.0 * alpha * x) + a.phi


def _random_step(alpha, sigma, c, guess):
    def fun(v):
        q, k = np.exp(v)
        r = _residuals(q, 0.0, k, alpha, sigma, c)
        return [r[0], r[1]]

    sol = root(fun, np.log(guess), method="hybr", options={"xtol": 1e-12})
    if np.all(np.isfinite(sol.x)) and np.max(np.abs(sol.fun)) < 1e-9:
        q, k = np.exp(sol.x)
        return float(q), float(k)
    return None


def _solve_random(alpha, sigma, c):
    """(q, k) of the m = 0 branch, or None if it does not exist (sigma >= sigma_2).

    Tries a few generic starting points, then follows the branch down from
    its onset at sigma_2 (where q = 0 and k = 1/(1 + sqrt(alpha))).
    """
    s2 = sigma_random(alpha)
    if sigma >= s2:
        return None
    k_onset = 1.0 / (1.0 + math.sqrt(alpha))
    for guess in ((1.0, 0.5), (1e-2, k_onset)):
        out = _random_step(alpha, sigma, c, guess)
        if out is not None:
            return out
    guess, previous = (1e-3, k_onset), None
    for s in np.geomspace(s2 * (1.0 - 1e-3), sigma, 40):
        out = _random_step(alpha, s, c, guess)
        if out is None and previous is not None:
            out = _random_substeps(alpha, previous, s, c, guess)
        if out is None:
            return None
        guess, previous = out, s
    return guess


def _random_substeps(alpha, s_from, s_to, c, guess, max_depth=6):
    """Follow the random branch from s_from to s_to in 2, 4, ... geometric sub-steps."""
    for depth in range(1, max_depth + 1):
        out = guess
        for s in np.geomspace(s_from, s_to, 2**depth + 1)[1:]:
            out = _random_step(alpha, s, c, out)
            if out is None:
                break
        if out is not None:
            return out
    return None


def _linear_guess(m, alpha, sigma, c):
    """(q - m^2, k) of the small-(q, m) expansion for sigma_2 < sigma < sigma_1."""
    b = alpha * sigma**2 + sigma - alpha * sigma
    disc = b * b - 4.0 * alpha * sigma**3
    x = (b - math.sqrt(max(disc, 0.0))) / (2.0 * alpha)
    denom = (sigma**2 - x) ** 2 - alpha * x * x
    ratio = alpha * x * x * (1.0 + c * c) / denom if denom > 0 else 1.0
    return max(ratio, 1e-3) * m * m, x / sigma**2


def _solve_at_m(m, alpha, sigma, c, guess):
    """Solve the q- and x-equations at fixed m; return (q, k, G(m)) or None."""

    def fun(v):
        a, k = np.exp(v)
        r = _residuals(a + m * m, m, k, alpha, sigma, c)
        return [r[0], r[1]]

    sol = root(fun, np.log(guess), method="hybr", options={"xtol": 1e-12})
    if not (np.all(np.isfinite(sol.x)) and np.max(np.abs(sol.fun)) < 1e-9):
        return None
    a, k = np.exp(sol.x)
    q = a + m * m
    return float(a), float(k), _residuals(q, m, k, alpha, sigma, c)[2]


def _solve_ordered(alpha, sigma, c, random_qk):
    """All (q, m, k) with m > 0, by a scan of G(m) and Brent's method at sign changes.

    The scan starts from the random branch when it exists, otherwise (between
    sigma_2 and sigma_1) from the small-(q, m) expansion.
    """
    scale = max(1.0, c)
    grid = np.geomspace(_M_MIN * scale, 4.0 * scale, _M_GRID)
    guess = random_qk if random_qk is not None else _linear_guess(grid[0], alpha, sigma, c)
    values, guesses = [], []
    for m in grid:
        out = _solve_at_m(m, alpha, sigma, c, guess)
        if out is None:
            break
        guess = out[:2]
        values.append(out[2] / m)
        guesses.append(guess)
    solutions = []
    for i in range(len(values) - 1):
        if values[i] == 0.0 or np.sign(values[i]) == np.sign(values[i + 1]):
            continue
        start = [guesses[i]]

        def g(m, start=start):
            out = _solve_at_m(m, alpha, sigma, c, start[0])
            if out is None:
                raise RuntimeError
            start[0] = out[:2]
            return out[2] / m

        try:
            m = brentq(g, grid[i], grid[i + 1], xtol=1e-13, rtol=1e-12)
        except RuntimeError:
            continue
        a, k = start[0]
        solutions.append((a + m * m, m, k))
    return solutions


@dataclass(frozen=True)
class MixtureBranch:
    """One replica-symmetric stationary point.

    Attributes
    ----------
    phase : {"unsplit", "split-random", "split-ordered"}
    Q : float
        ``sigma_0 |dU|^2``, squared splitting (the paper's q; upper case like
        every student self-overlap in the package).
    R : float
        ``dU.dU0 / u0``, the overlap with the true splitting (the paper's r,
        eq. 10).
    cos_theta : float
        ``sqrt(2 R^2 / Q)``; NaN in the unsplit phase (direction undefined).
    eps_c : float
        Classification error ``H(u0 cos(theta) / sqrt(2))`` (eq. 9); NaN when unsplit.
    energy : float
        Ground-state energy per pattern ``E/P`` relative to the unsplit state
        (the ``dU``-dependent part of eq. 6).
    susceptibility : float
        ``x = lim beta (q0 - q1)``; NaN when unsplit.
    replicon : float
        ``alpha <(1 - dh*/dh0)^2>`` over the smooth part; the RS solution is
        locally stable (de Almeida-Thouless) when it is below 1. For the
        unsplit state it is ``lambda_max / sigma`` of the Hessian test.
    field_jump : bool
        Whether the local field's optimiser jumps (``x > sigma^2``); the
        replicon then diverges and RS is unstable.
    rs_stable : bool
        ``replicon < 1 and not field_jump``.
    """

    phase: str
    Q: float
    R: float
    cos_theta: float
    eps_c: float
    energy: float
    susceptibility: float
    replicon: float
    field_jump: bool
    rs_stable: bool


@dataclass(frozen=True)
class MixtureSolution:
    """Every RS branch at one (alpha, sigma, u0).

    Attributes
    ----------
    alpha, sigma, u0 : float
    branches : tuple of MixtureBranch
        Unsplit first, then split-random (if ``sigma < sigma_2``), then the
        split-ordered ones (if any), each at most once.
    ground : int
        Index of the branch of lowest energy: the thermodynamic phase.
    """

    alpha: float
    sigma: float
    u0: float
    branches: tuple
    ground: int

    @property
    def phase(self):
        """Name of the thermodynamic phase (the lowest-energy branch)."""
        return self.branches[self.ground].phase

    def branch(self, phase):
        """The branch with the given phase name, or None if it does not exist.

        Parameters
        ----------
        phase : {"unsplit", "split-random", "split-ordered"}

        Returns
        -------
        MixtureBranch or None
        """
        for b in self.branches:
            if b.phase == phase:
                return b
        return None


def _make_branch(phase, q, m, k, alpha, sigma, c, u0):
    a = _averages(q, m, k, sigma, c)
    cos_theta = m / math.sqrt(q)
    jump = k > 1.0
    replicon = alpha * a.replicon
    return MixtureBranch(
        phase=phase,
        Q=q,
        R=m / math.sqrt(2.0),
        cos_theta=cos_theta,
        eps_c=float(H(u0 * cos_theta / math.sqrt(2.0))),
        energy=_energy(q, m, k, alpha, sigma, c, averages=a),
        susceptibility=k * sigma**2,
        replicon=replicon,
        field_jump=bool(jump),
        rs_stable=bool(replicon < 1.0 and not jump),
    )


# Where the saddle-point solver is checked to find every branch (a scan of the
# random branch's existence below sigma_2); outside it branches go missing silently
# (alpha < 0.1) or the fields overflow, so arguments there are refused.
_ALPHA_RANGE = (0.1, 1e4)
_SIGMA_MIN = 0.01
_U0_MAX = 100.0


def _check(alpha, sigma, u0):
    return (
        check_real(alpha, "alpha", minimum=_ALPHA_RANGE[0], maximum=_ALPHA_RANGE[1]),
        check_real(sigma, "sigma", minimum=_SIGMA_MIN),
        check_real(u0, "u0", minimum=0.0, maximum=_U0_MAX, include_min=False),
    )


def _lambda_max(alpha, u0):
    s1 = sigma_ordered(alpha, u0)
    return s1 if not math.isnan(s1) else sigma_random(alpha)


def solve(alpha, sigma, *, u0=1.0):
    """Every replica-symmetric ground-state branch at one (alpha, sigma, u0).

    Parameters
    ----------
    alpha : float
        Patterns per dimension ``P/N``, in ``[0.1, 1e4]`` (where the solver is
        checked to find every branch).
    sigma : float
        Width of the fitted Gaussians in units of the true width, ``sigma >= 0.01``
        (deterministic-annealing temperature ``T = 2 sigma``).
    u0 : float, default=1.0
        Normalised separation of the true centres, in ``(0, 100]``.

    Returns
    -------
    MixtureSolution
        ``branches`` holds the unsplit state (always a stationary point), the
        split-random state (``R = 0``, for ``sigma < sigma_2``) and the
        split-ordered states (``R > 0``); ``ground`` marks the lowest energy.

    Notes
    -----
    Ordered solutions are found by scanning ``m`` on a geometric grid from
    ``1e-4 max(1, u0/sqrt(2))``, so within about ``1e-8`` of ``sigma_1`` the
    ordered branch (``m^2 ~ sigma_1 - sigma``) is reported as unsplit.

    Examples
    --------
    >>> from statmechlearn.theory import ml_mixture
    >>> sol = ml_mixture.solve(5.0, 1.5, u0=1.0)
    >>> sol.phase
    'split-ordered'
    """
    alpha, sigma, u0 = _check(alpha, sigma, u0)
    c = u0 / math.sqrt(2.0)
    lam = _lambda_max(alpha, u0)
    unsplit = MixtureBranch(
        phase="unsplit",
        Q=0.0,
        R=0.0,
        cos_theta=math.nan,
        eps_c=math.nan,
        energy=0.0,
        susceptibility=math.nan,
        replicon=lam / sigma,
        field_jump=False,
        rs_stable=bool(sigma > lam),
    )
    branches = [unsplit]
    random_qk = _solve_random(alpha, sigma, c)
    if random_qk is not None:
        q, k = random_qk
        branches.append(_make_branch("split-random", q, 0.0, k, alpha, sigma, c, u0))
    if alpha > alpha_critical(u0) and sigma < sigma_ordered(alpha, u0):
        for q, m, k in _solve_ordered(alpha, sigma, c, random_qk):
            branches.append(_make_branch("split-ordered", q, m, k, alpha, sigma, c, u0))
    ground = int(np.argmin([b.energy for b in branches]))
    return MixtureSolution(alpha, sigma, u0, tuple(branches), ground)


def ordered_gain(alpha, sigma, *, u0=1.0):
    """Linear gain of the m-equation at the split-random branch.

    Linearising the saddle-point equation of the overlap ``m`` with the
    teacher around the random branch (``m = 0``) gives ``m -> g m``; the
    random branch is unstable towards order where ``g > 1``. ``g = 1`` at the
    onset width ``sigma_random(alpha)`` locates ``alpha_c`` independently of
    the closed form ``4 / u0^4``.

    Parameters
    ----------
    alpha : float
        Examples per dimension, in [0.1, 1e4].
    sigma : float
        Model width in units of sigma_0, at least 0.01.
    u0 : float, default=1.0
        Teacher separation, in (0, 100].

    Returns
    -------
    float
        The gain ``g``; NaN where the split-random branch does not exist.
    """
    alpha, sigma, u0 = _check(alpha, sigma, u0)
    return _ordered_growth(alpha, sigma, u0)


def _ordered_growth(alpha, sigma, u0):
    """Linear gain of the m-equation on the random branch; ordered <=> gain > 1."""
    c = u0 / math.sqrt(2.0)
    random_qk = _solve_random(alpha, sigma, c)
    if random_qk is None:
        return math.nan
    q, k = random_qk
    a = _averages(q, 0.0, k, sigma, c)
    gain = alpha * c * c * k * a.dt
    if k > 1.0:
        # tanh(u*) jumps by 2 tanh(u+) at h0 = 0, with z-density phi(0)/sqrt(q)
        u_plus = float(_field_optimum(0.0, k))
        gain += alpha * c * c * k * sigma * 2.0 * math.tanh(u_plus) * normal_pdf(0.0) / math.sqrt(q)
    return gain


@dataclass(frozen=True)
class PhaseBoundaries:
    """Phase boundaries at one (alpha, u0), widths in units of sigma_0.

    Attributes
    ----------
    alpha, u0 : float
    alpha_c : float
        ``4 / u0^4``.
    sigma_1 : float
        Unsplit to split-ordered (NaN for ``alpha <= alpha_c``).
    sigma_2 : float
        Where the split-random branch appears.
    sigma_3 : float
        Where the ordered branch merges into the random one (``R -> 0``); NaN
        when ``alpha <= alpha_c`` or when it stays ordered down to
        ``sigma_min``.
    sigma_jump : float
        Below this width the ground state's field optimiser jumps (RS unstable).
    sigma_at : float
        Largest width below ``max(sigma_1, sigma_2)`` at which the ground state's
        replicon reaches 1 (de Almeida-Thouless), scanning down to ``sigma_min``.
    """

    alpha: float
    u0: float
    alpha_c: float
    sigma_1: float
    sigma_2: float
    sigma_3: float
    sigma_jump: float
    sigma_at: float


def _first_crossing(fun, hi, lo, n=60, xtol=1e-10):
    """Largest s in (lo, hi) with fun changing sign, scanning down from hi."""
    grid = np.geomspace(hi, lo, n)
    prev = fun(grid[0])
    for a, b in itertools.pairwise(grid):
        cur = fun(b)
        if np.isfinite(cur) and np.isfinite(prev) and np.sign(cur) != np.sign(prev):
            return brentq(fun, b, a, xtol=xtol, rtol=1e-10)
        prev = cur
    return math.nan


def phase_boundaries(alpha, *, u0=1.0, sigma_min=0.05, rs_lines=True):
    """Phase boundaries of the ML mixture estimate at fixed load alpha.

    Parameters
    ----------
    alpha : float
        Patterns per dimension, in ``[0.1, 1e4]`` (as in :func:`solve`).
    u0 : float, default=1.0
        Normalised separation of the true centres, in ``(0, 100]``.
    sigma_min : float, default=0.05
        Lower end of the width range searched for the numerical lines,
        ``>= 0.01`` and below ``sigma_2``.
    rs_lines : bool, default=True
        Whether to locate ``sigma_jump`` and ``sigma_at`` (a scan of
        :func:`solve` in sigma, the slow part); NaN when False.

    Returns
    -------
    PhaseBoundaries

    Examples
    --------
    >>> from statmechlearn.theory import ml_mixture
    >>> pb = ml_mixture.phase_boundaries(5.0, u0=1.0, rs_lines=False)
    >>> round(pb.sigma_1, 3), round(pb.sigma_3, 2)
    (2.1, 0.89)
    """
    alpha, _, u0 = _check(alpha, 1.0, u0)
    sigma_min = check_real(sigma_min, "sigma_min", minimum=_SIGMA_MIN)
    if not isinstance(rs_lines, bool | np.bool_):
        raise TypeError(f"rs_lines must be a bool, got {type(rs_lines).__name__} {rs_lines!r}")
    s1, s2 = sigma_ordered(alpha, u0), sigma_random(alpha)
    top = s2 * (1.0 - 1e-6)
    if sigma_min >= top:
        raise ValueError(f"sigma_min must be below sigma_2 = {s2:.6g}, got {sigma_min}")
    s3 = math.nan
    if not math.isnan(s1):
        s3 = _first_crossing(lambda s: _ordered_growth(alpha, s, u0) - 1.0, top, sigma_min)
    s_jump = s_at = math.nan
    if rs_lines:
        cache = {}

        def ground(s):
            if s not in cache:
                sol = solve(alpha, s, u0=u0)
                cache[s] = sol.branches[sol.ground]
            return cache[s]

        def jump(s):
            b = ground(s)
            return (b.susceptibility / s**2 - 1.0) if b.phase != "unsplit" else -1.0

        def at(s):
            b = ground(s)
            return b.replicon - 1.0 if b.phase != "unsplit" else -1.0

        hi = (s1 if not math.isnan(s1) else s2) * (1.0 - 1e-3)
        s_jump = _first_crossing(jump, hi, sigma_min, n=30, xtol=1e-5)
        s_at = _first_crossing(at, hi, sigma_min, n=30, xtol=1e-5)
    return PhaseBoundaries(alpha, u0, alpha_critical(u0), s1, s2, s3, s_jump, s_at)
