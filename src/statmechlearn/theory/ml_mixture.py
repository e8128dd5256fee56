"""Replica theory of maximum-likelihood two-Gaussian mixtures (Barkai & Sompolinsky).

Data ``S = s dU0 + xi`` (centred, ``s = +-1``, ``xi ~ N(0, I_N)``, units of
``sigma_0 = 1``, ``|dU0|^2 = u0^2 / 2``) are fitted with two equal-weight
Gaussians of width ``sigma``; after ``U_bar = S_bar`` the energy per pattern is
``eps(dU) = q / (2 sigma) - <ln cosh(dU.S / sigma)>`` with ``q = |dU|^2``.
Its zero-temperature replica-symmetric ground state (per N, ``P = alpha N``)
is the stationary point of

    e(q, m, x) = alpha q / (2 sigma) - (q - m^2) / (2 x)
                 + alpha < min_h [ -ln cosh(h / sigma) + (h - h0)^2 / (2 x) ] >_z,

    h0 = c m + sqrt(q) z,   c = u0 / sqrt(2),

where ``m = dU.dU0 / |dU0|`` (so the paper's ``r = m / sqrt(2)``) and ``x`` is
the zero-temperature susceptibility. In ``u = h / sigma``, ``k = x / sigma^2``
the field's optimiser solves ``u - u_0 = k tanh u``; for ``k > 1`` it jumps at
``h0 = 0`` and Gaussian averages are split there. The derivation, the
bifurcation analysis and the de Almeida-Thouless (replicon) condition
``alpha < (1 - du/du_0)^2 > < 1`` are in ``docs/derivations/ml_mixture_replica.md``.

Public functions
----------------
solve
    Every RS branch (unsplit, split-random, split-ordered) at one (alpha, sigma).
phase_boundaries
    alpha_c, sigma_1(alpha), sigma_2(alpha) (closed forms) and the numerical
    ordered-to-random line sigma_3(alpha) and RS-instability points.
alpha_critical, sigma_ordered, sigma_random
    The closed forms alone.
solve_1rsb, branch_1rsb, complexity_curve
    One step of replica-symmetry breaking at zero temperature below sigma_AT:
    the ground state (Parisi parameter from zero complexity), the branch in
    sigma, and the complexity of the states against their energy
    (``docs/derivations/ml_mixture_1rsb.md``).
solve_2rsb
    One more step of breaking, to measure how far the hierarchy still moves
    the 1RSB answer.
"""

# the RS saddle point and the 1RSB solution built on it live in private modules of their
# own; this module is their public face

from statmechlearn.theory._mixture_rs import (
    MixtureBranch,
    MixtureSolution,
    PhaseBoundaries,
    alpha_critical,
    field_optimum,
    ordered_gain,
    phase_boundaries,
    sigma_ordered,
    sigma_random,
    solve,
)
from statmechlearn.theory._mixture_rsb import (
    ComplexityCurve,
    Mixture1RSB,
    Mixture1RSBBranch,
    branch_1rsb,
    complexity_curve,
    solve_1rsb,
)
from statmechlearn.theory._mixture_rsb2 import Mixture2RSB, solve_2rsb

__all__ = [
    "ComplexityCurve",
    "Mixture1RSB",
    "Mixture1RSBBranch",
    "Mixture2RSB",
    "MixtureBranch",
    "MixtureSolution",
    "PhaseBoundaries",
    "alpha_critical",
    "branch_1rsb",
    "complexity_curve",
    "field_optimum",
    "ordered_gain",
    "phase_boundaries",
    "sigma_ordered",
    "sigma_random",
    "solve",
    "solve_1rsb",
    "solve_2rsb",
]
