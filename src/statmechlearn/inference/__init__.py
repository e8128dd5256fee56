"""Sampling and mean-field inference over assignments (lecture notes §3.2, §6, §9.1–9.8).

Costs
-----
PairwiseMRFCost
    Single-site plus pair terms: k-means with fixed centroids, smooth
    k-means, Potts and Ising models; mean fields in closed form.
KMeansCost
    The combinatorial k-means cost, centroids at the cluster means.
grid_graph, graph_coloring
    Pixel adjacency of an image; colour classes for block updates.

Sampling
--------
sample_assignments
    Metropolis or heat-bath sweeps of independent chains, with marginals,
    energy trace, acceptance, autocorrelation time and R-hat.
simulated_annealing, CoolingSchedule
    Sampling at falling temperature (exponential, logarithmic, adaptive).
exact_gibbs, factorial_log_partition, thermodynamic_free_energy
    Exact enumeration, the sum-product partition function of factorising
    costs, and the free energy from samples.
integrated_autocorrelation_time, effective_sample_size, r_hat
    Chain diagnostics (ArviZ's rank-normalised split R-hat and ESS).
metropolis_hastings, MetropolisResult
    Random-walk Metropolis–Hastings on ``R^d`` with a tuned proposal scale
    (§9.6).

Mean field
----------
mean_field, mean_field_annealing, variational_free_energy
    Factorial fixed points ``q ∝ exp(-h/T)``, asynchronous or damped
    synchronous, and the bound ``B >= F``.
structured_mean_field, StructuredMeanFieldResult
    A product over blocks (chains, trees) that keeps each block's own
    couplings, by sum-product: a bound between ``F`` and naive mean field's (§6.5).
iterated_conditional_modes
    The zero-temperature limit.

Images
------
IsingDenoiser, ising_cost, field_from_flip_probability
    Binary de-noising by mean field, Gibbs sampling or ICM.
"""

from typing import TYPE_CHECKING

from statmechlearn._core.lazy import attach

# Imported on first use (see statmechlearn._core.lazy): importing the package imports
# none of its estimators, and importing one imports only what it needs.
if TYPE_CHECKING:
    from statmechlearn.inference._costs import (
        KMeansCost,
        PairwiseMRFCost,
        graph_coloring,
        grid_graph,
    )
    from statmechlearn.inference._diagnostics import (
        effective_sample_size,
        integrated_autocorrelation_time,
        r_hat,
    )
    from statmechlearn.inference._ising import (
        IsingDenoiser,
        field_from_flip_probability,
        ising_cost,
    )
    from statmechlearn.inference._mean_field import (
        MeanFieldResult,
        iterated_conditional_modes,
        mean_field,
        mean_field_annealing,
        variational_free_energy,
    )
    from statmechlearn.inference._metropolis import MetropolisResult, metropolis_hastings
    from statmechlearn.inference._sampling import (
        CoolingSchedule,
        ExactGibbs,
        SamplingResult,
        SimulatedAnnealingResult,
        exact_gibbs,
        factorial_log_partition,
        sample_assignments,
        simulated_annealing,
        sweep,
        thermodynamic_free_energy,
    )
    from statmechlearn.inference._structured_mean_field import (
        StructuredMeanFieldResult,
        structured_mean_field,
    )

__all__ = [
    "CoolingSchedule",
    "ExactGibbs",
    "IsingDenoiser",
    "KMeansCost",
    "MeanFieldResult",
    "MetropolisResult",
    "PairwiseMRFCost",
    "SamplingResult",
    "SimulatedAnnealingResult",
    "StructuredMeanFieldResult",
    "effective_sample_size",
    "exact_gibbs",
    "factorial_log_partition",
    "field_from_flip_probability",
    "graph_coloring",
    "grid_graph",
    "integrated_autocorrelation_time",
    "ising_cost",
    "iterated_conditional_modes",
    "mean_field",
    "mean_field_annealing",
    "metropolis_hastings",
    "r_hat",
    "sample_assignments",
    "simulated_annealing",
    "structured_mean_field",
    "sweep",
    "thermodynamic_free_energy",
    "variational_free_energy",
]

__getattr__, __dir__ = attach(__name__, __file__)
