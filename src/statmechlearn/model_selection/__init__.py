"""Model-order selection, validation and information-theory utilities (lecture notes §2, §7–8).

Choosing k
----------
select_n_clusters
    One interface: ``method`` in gap, stability, bic, mdl, posterior_agreement;
    returns the chosen k and the whole curve (with a plot helper).
gap_statistic
    Tibshirani's gap with B uniform or PCA-aligned reference sets, standard
    errors and the named decision rules (``GAP_RULES``).
stability
    §7.3: two disjoint halves, a classifier transfers labels, Hungarian
    matching, normalised by random labelling.
bic, mdl, n_parameters, log_likelihood
    Information criteria with the parameter count spelled out per model.
posterior_agreement, posterior_agreement_path
    Approximation capacity (§8.4) over beta and k for centroid clusterers,
    or along deterministic annealing's own path (k and beta at once);
    Boltzmann, Fermi or binary approximation weights (§8.2).
simulate_protocol
    The two-instance communication protocol of §8.4 simulated: decoding
    error against the rate, with the union/Markov bound of §8.5.

Information theory
------------------
entropy, conditional_entropy, mutual_information, kl_divergence, cross_entropy
    Shannon quantities of discrete distributions, in bits or nats.
typical_set, is_typical
    The typical set of an i.i.d. source: exact size, probability, AEP bounds.
channel_capacity
    Capacity of a discrete memoryless channel by Blahut–Arimoto, bracketed.
maximum_entropy
    The largest-entropy distribution matching feature expectations (Gibbs
    form, multipliers from the convex dual by Newton's method).
"""

from typing import TYPE_CHECKING

from statmechlearn._core.lazy import attach

# Imported on first use (see statmechlearn._core.lazy): importing the package imports
# none of its estimators, and importing one imports only what it needs.
if TYPE_CHECKING:
    from statmechlearn._core.information import (
        conditional_entropy,
        cross_entropy,
        entropy,
        kl_divergence,
        mutual_information,
    )
    from statmechlearn.model_selection._agreement import (
        AnnealedAgreementResult,
        PosteriorAgreementResult,
        agreement_capacity,
        posterior_agreement,
        posterior_agreement_path,
    )
    from statmechlearn.model_selection._capacity import ChannelCapacity, channel_capacity
    from statmechlearn.model_selection._criteria import bic, log_likelihood, mdl, n_parameters
    from statmechlearn.model_selection._gap import GAP_RULES, GapResult, choose_gap_k, gap_statistic
    from statmechlearn.model_selection._information import TypicalSet, is_typical, typical_set
    from statmechlearn.model_selection._maxent import MaxEntDistribution, maximum_entropy
    from statmechlearn.model_selection._protocol import ProtocolResult, simulate_protocol
    from statmechlearn.model_selection._select import (
        METHODS,
        SelectionResult,
        information_criterion_curve,
        select_n_clusters,
    )
    from statmechlearn.model_selection._stability import (
        StabilityResult,
        random_label_disagreement,
        stability,
    )

__all__ = [
    "GAP_RULES",
    "METHODS",
    "AnnealedAgreementResult",
    "ChannelCapacity",
    "GapResult",
    "MaxEntDistribution",
    "PosteriorAgreementResult",
    "ProtocolResult",
    "SelectionResult",
    "StabilityResult",
    "TypicalSet",
    "agreement_capacity",
    "bic",
    "channel_capacity",
    "choose_gap_k",
    "conditional_entropy",
    "cross_entropy",
    "entropy",
    "gap_statistic",
    "information_criterion_curve",
    "is_typical",
    "kl_divergence",
    "log_likelihood",
    "maximum_entropy",
    "mdl",
    "mutual_information",
    "n_parameters",
    "posterior_agreement",
    "posterior_agreement_path",
    "random_label_disagreement",
    "select_n_clusters",
    "simulate_protocol",
    "stability",
    "typical_set",
]

__getattr__, __dir__ = attach(__name__, __file__)
