"""Clustering estimators of maximum-entropy (statistical-mechanics) type.

Classes
-------
DeterministicAnnealing
    Rose's deterministic annealing for squared-Euclidean distortion.
HistogramClustering
    KL-distortion clustering of count histograms (annealed or MAP).
ParametricDistributionalClustering
    Histograms over an ordered axis, clusters as rectified-Gaussian mixtures.
PairwiseClustering
    Normalised pairwise clustering of a dissimilarity matrix (mean-field DA).
ConstantShiftEmbedding
    Vectors whose squared distances are the shifted dissimilarities.
CorrelationClustering
    Signed-similarity correlation clustering and graph partitioning.
LeastAngleClustering
    Cosine-similarity cost solved with the linearisation trick.
TopologicalVQ
    Soft topographic vector quantisation (a SOM as a noisy-channel code).
KohonenSOM
    Kohonen's on-line self-organising map (shrinking Gaussian neighbourhood).
EntropyConstrainedClustering
    Distortion + lambda * code length; the number of clusters follows.
InformationBottleneck
    Iterative IB annealed in beta, with its curve and cluster splits.
GibbsSamplerClustering
    Assignment marginals of the k-means Gibbs distribution, by sampling.
SmoothKMeans
    k-means plus a neighbourhood (Potts) penalty, by annealed mean field.
EqualWidthMixture
    The same fixed points as maximum-likelihood equal-weight isotropic
    Gaussian mixtures of width sigma (Barkai & Sompolinsky).

Functions
---------
two_centre_fixed_points
    Batched ML fixed points of two equal-weight Gaussians from many starts.
least_angle_cost, pairwise_cost
    Hard-partition costs of the least-angle and pairwise criteria.
quantization_error, topographic_error
    The two errors of a self-organising map: mean distance to the winner,
    share of samples whose two nearest units are not grid neighbours.
rate_distortion
    Blahut–Arimoto rate–distortion curve of a discrete source.
gibbs_pass
    One compiled Gibbs assignment of all points, reduced to the sums the
    fixed point needs (the building block of the estimators).
gibbs_fixed_point
    The deterministic-annealing fixed point at one temperature, batched over
    runs, with optional SQUAREM extrapolation.
"""

from typing import TYPE_CHECKING

from statmechlearn._core.lazy import attach

# Imported on first use (see statmechlearn._core.lazy): importing the package imports
# none of its estimators, and importing one imports only what it needs.
if TYPE_CHECKING:
    from statmechlearn.cluster._annealing import AnnealingPath, DeterministicAnnealing
    from statmechlearn.cluster._bottleneck import (
        InformationBottleneck,
        RateDistortionCurve,
        rate_distortion,
    )
    from statmechlearn.cluster._distributional import HistogramClustering
    from statmechlearn.cluster._entropy_constrained import EntropyConstrainedClustering
    from statmechlearn.cluster._gibbs import gibbs_fixed_point, gibbs_pass
    from statmechlearn.cluster._kohonen import (
        KohonenSOM,
        quantization_error,
        topographic_error,
    )
    from statmechlearn.cluster._mixture import EqualWidthMixture, two_centre_fixed_points
    from statmechlearn.cluster._pairwise import (
        ConstantShiftEmbedding,
        PairwiseClustering,
        pairwise_cost,
    )
    from statmechlearn.cluster._parametric import (
        ParametricDistributionalClustering,
        rectified_gaussian_bins,
    )
    from statmechlearn.cluster._quadratic import (
        CorrelationClustering,
        LeastAngleClustering,
        least_angle_cost,
    )
    from statmechlearn.cluster._sampler import GibbsSamplerClustering
    from statmechlearn.cluster._smooth_kmeans import SmoothKMeans
    from statmechlearn.cluster._topographic import (
        TopologicalVQ,
        grid_transmission,
        topographic_critical_temperature,
    )

__all__ = [
    "AnnealingPath",
    "ConstantShiftEmbedding",
    "CorrelationClustering",
    "DeterministicAnnealing",
    "EntropyConstrainedClustering",
    "EqualWidthMixture",
    "GibbsSamplerClustering",
    "HistogramClustering",
    "InformationBottleneck",
    "KohonenSOM",
    "LeastAngleClustering",
    "PairwiseClustering",
    "ParametricDistributionalClustering",
    "RateDistortionCurve",
    "SmoothKMeans",
    "TopologicalVQ",
    "gibbs_fixed_point",
    "gibbs_pass",
    "grid_transmission",
    "least_angle_cost",
    "pairwise_cost",
    "quantization_error",
    "rate_distortion",
    "rectified_gaussian_bins",
    "topographic_critical_temperature",
    "topographic_error",
    "two_centre_fixed_points",
]

__getattr__, __dir__ = attach(__name__, __file__)
