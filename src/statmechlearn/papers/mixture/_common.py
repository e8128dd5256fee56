"""What every figure of Barkai & Sompolinsky shares: the paper key, its citation, the
alpha grid and the critical widths found numerically from the saddle point.
"""

import functools

import numpy as np

__all__ = ["ALPHAS_FIG1", "CITATION", "PAPER", "annealed_fixed_points"]


PAPER = "mixture"


CITATION = (
    "N. Barkai, H. Sompolinsky, Statistical mechanics of the maximum-likelihood density estimation"
)


ALPHAS_FIG1 = tuple(float(a) for a in np.round(np.geomspace(0.5, 30.0, 14), 4))


# ------------------------------------------------------------------ Fig. 1 --
def _extrapolated_onset(sigma_c, order_parameter, offsets=(-4e-3, -8e-3)):
    """Width where an order parameter vanishing linearly at ``sigma_c`` reaches 0.

    Solves the saddle-point equations at ``sigma_c (1 + d)`` for the two
    relative ``offsets`` (below ``sigma_c`` by default, where the order
    parameter lives) and extrapolates the straight line through them, so the
    result tests ``sigma_c`` instead of assuming it.
    """
    pts = [sigma_c * (1 + d) for d in offsets]
    v = [order_parameter(s) for s in pts]
    return pts[0] - v[0] * (pts[1] - pts[0]) / (v[1] - v[0])


def _numeric_sigma_1(alpha, u0):
    """sigma_1 from the saddle-point equations: m^2 of the ordered branch extrapolated to 0."""
    from statmechlearn.theory import ml_mixture as mm

    return _extrapolated_onset(
        mm.sigma_ordered(alpha, u0),
        lambda s: 2 * mm.solve(alpha, s, u0=u0).branch("split-ordered").R ** 2,
    )


def _numeric_sigma_2(alpha, u0):
    """sigma_2 from the saddle-point equations: q of the random branch extrapolated to 0."""
    from statmechlearn.theory import ml_mixture as mm

    return _extrapolated_onset(
        mm.sigma_random(alpha), lambda s: mm.solve(alpha, s, u0=u0).branch("split-random").Q
    )


def _numeric_sigma_3(alpha, u0, sigma_3):
    """sigma_3 from the saddle-point equations: r^2 of the ordered branch extrapolated to 0.

    Independent of :func:`~statmechlearn.theory.ml_mixture.phase_boundaries`,
    which finds sigma_3 from the stability of the random branch.
    """
    from statmechlearn.theory import ml_mixture as mm

    # the ordered branch exists above sigma_3: extrapolate from there
    return _extrapolated_onset(
        sigma_3,
        lambda s: mm.solve(alpha, s, u0=u0).branch("split-ordered").R ** 2,
        offsets=(2e-3, 4e-3),
    )


def _numeric_alpha_c(u0):
    """alpha where the random branch's onset turns unstable towards order (gain = 1)."""
    from scipy.optimize import brentq

    from statmechlearn.theory import ml_mixture as mm

    def gain(alpha):
        return mm.ordered_gain(alpha, mm.sigma_random(alpha) * (1 - 1e-7), u0=u0) - 1.0

    ac = mm.alpha_critical(u0)
    return brentq(gain, 0.5 * ac, 2.0 * ac, xtol=1e-10)


# ------------------------------------------------------------------ Fig. 2 --
def _ground(alpha, sigma, u0):
    from statmechlearn.theory import ml_mixture as mm

    sol = mm.solve(alpha, sigma, u0=u0)
    return sol.branches[sol.ground]


@functools.lru_cache(maxsize=64)
def _rsb_ground(alpha, sigma, u0):
    """The static 1RSB ground state of the ordered branch (the RS one where RS is stable).

    Cached: a solve costs seconds, and a ladder's theory cells (one per rung) and
    Fig. 3's points ask for the same few widths.
    """
    from statmechlearn.theory import ml_mixture as mm

    return mm.solve_1rsb(alpha, sigma, u0=u0)


# ------------------------------------------------------------------ Fig. 3 --
# Near sigma_1 a start close to the unsplit saddle moves by less than 1e-10 of
# the variance per iteration while still escaping it, so the default tolerance
# stops there, above the minimum (seen as DA "beaten" by ~1e-4 at N = 500).
_FIXED_POINT_TOL = 1e-14


# The annealer's own tolerance (its default) places the path; the polish at
# _FIXED_POINT_TOL then converges within the minimum the path reached.
_DA_TOL = 1e-6


def annealed_fixed_points(S, sigmas, rng):
    """Deterministic annealing down to each width, with the library's estimator.

    For every ``sigma`` :class:`~statmechlearn.cluster.EqualWidthMixture`
    anneals from above the sample's first critical width (geometric
    schedule, adaptive at the split) down to ``sigma``, exactly as a user
    fitting at that width gets it; the fixed point is then polished with
    :func:`~statmechlearn.cluster.two_centre_fixed_points` at
    ``_FIXED_POINT_TOL`` so that its energy compares with the random-start
    minima to 10⁻¹⁰ per pattern.

    Parameters
    ----------
    S : ndarray of shape (n_samples, n_features)
    sigmas : sequence of float
    rng : numpy.random.Generator
        Seeds each anneal's symmetry-breaking perturbation.

    Returns
    -------
    splitting_vectors : ndarray of shape (len(sigmas), n_features)
    energy : ndarray of shape (len(sigmas),)
    converged : ndarray of bool, shape (len(sigmas),)
    """
    from statmechlearn.cluster import EqualWidthMixture, two_centre_fixed_points

    out, energy, converged = [], [], []
    for sigma in sigmas:
        mixture = EqualWidthMixture(
            sigma=float(sigma), tol=_DA_TOL, max_iter=20000, random_state=int(rng.integers(2**31))
        ).fit(S)
        fp = two_centre_fixed_points(
            S, sigma, mixture.splitting_vector_[None], max_iter=20000, tol=_FIXED_POINT_TOL
        )
        out.append(fp.splitting_vector[0])
        energy.append(fp.energy[0])
        converged.append(fp.converged[0])
    return np.array(out), np.array(energy), np.array(converged)


@functools.lru_cache(maxsize=4)
def _sigma_at(alpha, u0):
    """de Almeida-Thouless width: below it the RS ground state is unstable."""
    from statmechlearn.theory import ml_mixture as mm

    return mm.phase_boundaries(alpha, u0=u0).sigma_at


# Energies are negative log-likelihoods per pattern, converged to ~1e-11; two
# minima closer than this are the same minimum.
_SAME_ENERGY = 1e-8
