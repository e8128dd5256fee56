"""One small valid training input per public estimator, by the kind of data it takes.

A new estimator must be added to ``KIND``: the convention tests fail for any
estimator they find here without an entry.
"""

import numpy as np

__all__ = ["KIND", "fit_args", "primary"]

KIND = {
    # clusterers of points in R^d
    "DeterministicAnnealing": "points",
    "EqualWidthMixture": "points",
    "EntropyConstrainedClustering": "points",
    "GibbsSamplerClustering": "points",
    "KohonenSOM": "points",
    "LeastAngleClustering": "points",
    "SmoothKMeans": "points",
    "TopologicalVQ": "points",
    "VQ": "points",
    # clusterers of a dissimilarity or similarity matrix
    "ConstantShiftEmbedding": "dissimilarity",
    "PairwiseClustering": "dissimilarity",
    "CorrelationClustering": "similarity",
    # clusterers of count vectors and joint distributions
    "HistogramClustering": "counts",
    "ParametricDistributionalClustering": "counts",
    "InformationBottleneck": "joint",
    # classifiers
    "GLVQ": "labelled",
    "LVQ1": "labelled",
    "LVQ21": "labelled",
    "LVQPlus": "labelled",
    "HebbClassifier": "labelled",
    "OutlierRobustClassifier": "labelled",
    "RVMClassifier": "labelled",
    "SparseBayesClassifier": "labelled",
    "SparseBayesClassifierCV": "labelled",
    # images
    "IsingDenoiser": "image",
}

# Parameters that keep the fits of the convention tests small and fast.
SMALL = {
    "DeterministicAnnealing": {"n_clusters": 2},
    "EqualWidthMixture": {"n_components": 2},
    "EntropyConstrainedClustering": {},
    "GibbsSamplerClustering": {"n_clusters": 2, "n_sweeps": 20},
    "KohonenSOM": {"grid_shape": 2, "max_iter": 2},
    "SmoothKMeans": {"n_clusters": 2},
    "TopologicalVQ": {"grid_shape": 2},
    "VQ": {"n_prototypes": 2},
    "PairwiseClustering": {"n_clusters": 2},
    "HistogramClustering": {"n_clusters": 2},
    "ParametricDistributionalClustering": {"n_clusters": 2, "n_prototypes": 4},
    "SparseBayesClassifierCV": {"Cs": (0.2, 0.5), "kappas": (0.1,)},
}


def _points(rng, n=40, d=3):
    centres = np.array([[4.0] + [0.0] * (d - 1), [-4.0] + [0.0] * (d - 1)])
    y = np.repeat([0, 1], n // 2)
    return centres[y] + rng.standard_normal((n, d)), y


def fit_args(name, rng):
    """Positional arguments of ``fit`` for estimator ``name``: ``(X,)`` or ``(X, y)``."""
    kind = KIND[name]
    if kind == "points":
        return (_points(rng)[0],)
    if kind == "labelled":
        return _points(rng, d=4)
    if kind == "dissimilarity":
        X = _points(rng, n=20)[0]
        return (((X[:, None, :] - X[None, :, :]) ** 2).sum(-1),)
    if kind == "similarity":
        y = np.repeat([0, 1], 10)
        S = np.where(y[:, None] == y[None, :], 1.0, -1.0) + 0.3 * rng.standard_normal((20, 20))
        S = (S + S.T) / 2
        np.fill_diagonal(S, 0.0)
        return (S,)
    if kind == "counts":
        grid = np.arange(12)
        rows = [
            rng.multinomial(50, p / p.sum(), 10)
            for p in (np.exp(-0.5 * (grid - 3.0) ** 2), np.exp(-0.5 * (grid - 8.0) ** 2))
        ]
        return (np.vstack(rows).astype(float),)
    if kind == "joint":
        joint = rng.random((6, 4)) + np.kron(np.eye(2), np.ones((3, 2)))
        return (joint / joint.sum(),)
    if kind == "image":
        clean = np.zeros((16, 16), dtype=bool)
        clean[4:12, 4:12] = True
        return (clean ^ (rng.random(clean.shape) < 0.1),)
    raise KeyError(kind)


def primary(args):
    """The argument that carries the data (the one bad-input tests corrupt)."""
    return args[0]
