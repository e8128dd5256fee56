"""Stability-based model-order selection (Lange, Roth, Braun & Buhmann 2004; notes §7.3)."""

import math
from dataclasses import dataclass

import numpy as np
from sklearn.base import clone

from statmechlearn._core.optional import import_optional
from statmechlearn._core.rng import check_random_state
from statmechlearn._core.validation import check_int
from statmechlearn.model_selection._common import (
    check_clusterer,
    check_k_range,
    check_X,
    fit_labels,
    matched_disagreement,
)

__all__ = ["StabilityResult", "random_label_disagreement", "stability"]


def random_label_disagreement(n, k, *, n_draws=200, random_state=None):
    """``S(R_k)``: matched disagreement of two independent uniform labelings (§7.3 step 4).

    Parameters
    ----------
    n : int
        Objects per labeling.
    k : int
        Labels, each drawn with probability ``1/k``.
    n_draws : int, default=200
    random_state : int, Generator or None

    Returns
    -------
    float
        Monte Carlo mean; tends to ``1 - 1/k`` for large n (matching helps
        less and less).
    """
    n = check_int(n, "n", minimum=1)
    k = check_int(k, "k", minimum=1)
    n_draws = check_int(n_draws, "n_draws", minimum=1)
    rng = check_random_state(random_state)
    vals = [
        matched_disagreement(rng.integers(k, size=n), rng.integers(k, size=n), k)
        for _ in range(n_draws)
    ]
    return float(np.mean(vals))


@dataclass(frozen=True)
class StabilityResult:
    """Instability of a clusterer over k.

    Attributes
    ----------
    n_clusters : int
        The k of smallest normalised instability (the largest such k on ties).
    k_values : ndarray of int
    instability : ndarray
        ``S(A_k)``: mean matched disagreement between the transferred and
        the direct labels of the second half, over splits.
    instability_se : ndarray
        Its standard error over splits.
    random_instability : ndarray
        ``S(R_k)`` of random labelings of the same size.
    normalized : ndarray
        ``S(A_k) / S(R_k)``.
    normalized_se : ndarray
    per_split : ndarray of shape (n_splits, n_k)
        Each split's disagreement.
    """

    n_clusters: int
    k_values: np.ndarray
    instability: np.ndarray
    instability_se: np.ndarray
    random_instability: np.ndarray
    normalized: np.ndarray
    normalized_se: np.ndarray
    per_split: np.ndarray

    def plot(self, ax=None):
        """Normalised instability with standard errors; returns the Axes."""
        plt = import_optional("matplotlib.pyplot", purpose="plot()")

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.5))
        ax.errorbar(self.k_values, self.normalized, self.normalized_se, fmt="o-", capsize=3)
        ax.axvline(self.n_clusters, color="C3", ls="--", label=f"k = {self.n_clusters}")
        ax.set_xlabel("k")
        ax.set_ylabel("S(A_k) / S(R_k)")
        ax.set_title("stability (smaller is more stable)", fontsize=9)
        ax.legend(fontsize=8)
        return ax


def stability(
    X,
    clusterer=None,
    k_range=range(2, 11),
    *,
    n_splits=20,
    classifier=None,
    random_state=None,
):
    """Stability of a clustering algorithm under resampling, normalised by random labelling.

    §7.3 exactly: for each of ``n_splits`` random splits into two disjoint
    halves of equal size, cluster both halves; train ``classifier`` on the
    first half's labels and predict the second half; the disagreement is
    the fraction of the second half where prediction and clustering differ
    after the best matching of labels (Hungarian method). Its mean over
    splits, ``S(A_k)``, divided by the same for random labelings, is the
    normalised instability; the chosen k minimises it.

    The classifier matters: it must be able to reproduce the clusterer's
    partitions. The default nearest-centroid rule suits k-means; for
    clusterers with non-convex clusters (spectral, single-link, pairwise
    clustering of path-based distances) it turns correct partitions into
    apparent instability — use a k-nearest-neighbour classifier there.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    clusterer : estimator, optional
        ``n_clusters`` and ``fit_predict``; default ``KMeans(n_init=10)``.
    k_range : iterable of int, default=range(2, 11)
        ``k >= 2``: stability is not defined for one cluster.
    n_splits : int, default=20
    classifier : classifier, optional
        Default ``sklearn.neighbors.NearestCentroid()``.
    random_state : int, Generator or None

    Returns
    -------
    StabilityResult
    """
    X = check_X(X, min_samples=4)
    n = X.shape[0]
    half = n // 2
    ks = check_k_range(k_range, half, minimum=2)
    clusterer = check_clusterer(clusterer)
    n_splits = check_int(n_splits, "n_splits", minimum=2)
    if classifier is None:
        from sklearn.neighbors import NearestCentroid

        classifier = NearestCentroid()
    if not hasattr(classifier, "fit") or not hasattr(classifier, "predict"):
        raise TypeError(f"classifier must have fit and predict, got {type(classifier).__name__}")
    rng = check_random_state(random_state)
    per_split = np.empty((n_splits, ks.size))
    for s in range(n_splits):
        perm = rng.permutation(n)
        A, B = X[perm[:half]], X[perm[half : 2 * half]]
        seed = int(rng.integers(2**31 - 1))
        for j, k in enumerate(ks):
            ya, _ = fit_labels(clusterer, A, k, seed)
            yb, _ = fit_labels(clusterer, B, k, seed + 1)
            if np.unique(ya).size < 2:
                predicted = np.full(half, ya[0])
            else:
                predicted = clone(classifier).fit(A, ya).predict(B)
            per_split[s, j] = matched_disagreement(predicted, yb, k)
    random = np.array([random_label_disagreement(half, int(k), random_state=rng) for k in ks])
    inst = per_split.mean(axis=0)
    se = per_split.std(axis=0, ddof=1) / math.sqrt(n_splits)
    normalized = inst / random
    # equally stable partitions (often several at zero for sharp clusters): the finer one
    # carries more information, so ties go to the larger k
    best = np.flatnonzero(normalized <= normalized.min() + 1e-12)[-1]
    return StabilityResult(
        n_clusters=int(ks[best]),
        k_values=ks,
        instability=inst,
        instability_se=se,
        random_instability=random,
        normalized=normalized,
        normalized_se=se / random,
        per_split=per_split,
    )
