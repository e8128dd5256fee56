"""Closed forms and limits of the outlier theory: Hebb's order parameters, soft
selection for large alpha, and hard selection's large-alpha equations of App. B
(the hat parameters, B3, B4 and the B5 jump); :mod:`statmechlearn.theory.outliers`
is the public face.
"""

import math

import numpy as np
from scipy.optimize import brentq, minimize_scalar
from scipy.special import expit, ndtr

from statmechlearn._core.validation import check_choice, check_int, check_real
from statmechlearn.theory._outlier_kernels import soft_averages
from statmechlearn.theory._outlier_saddle import (
    _check,
    _curve,
    _eta_range,
    _hebb_order_parameters,
    _solutions_at,
)
from statmechlearn.theory._outlier_states import (
    HardB4OrderParameters,
    HebbOrderParameters,
    SoftAsymptotics,
)

__all__ = [
    "hard_b3_free_energy",
    "hard_b4_order_parameters",
    "hard_b5",
    "hard_b5_roots",
    "hard_hat_parameters",
    "hebb",
    "soft_selection_asymptotics",
]


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
