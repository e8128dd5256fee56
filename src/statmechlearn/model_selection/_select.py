"""One entry point for choosing the number of clusters."""

from dataclasses import dataclass

import numpy as np

from statmechlearn._core.optional import import_optional
from statmechlearn._core.rng import check_random_state
from statmechlearn._core.validation import check_choice
from statmechlearn.model_selection._agreement import posterior_agreement
from statmechlearn.model_selection._common import (
    check_clusterer,
    check_k_range,
    check_X,
    fit_labels,
)
from statmechlearn.model_selection._criteria import bic, mdl
from statmechlearn.model_selection._gap import gap_statistic
from statmechlearn.model_selection._stability import stability

__all__ = ["METHODS", "SelectionResult", "information_criterion_curve", "select_n_clusters"]

#: Methods of :func:`select_n_clusters` and what each curve means.
METHODS = {
    "gap": "gap statistic (larger is better; chosen by the rule, Tibshirani's by default)",
    "stability": "normalised instability S(A_k)/S(R_k) (smaller is better)",
    "bic": "BIC in nats (smaller is better)",
    "mdl": "two-part code length in bits (smaller is better)",
    "posterior_agreement": "max over beta of the approximation capacity (larger is better)",
}


@dataclass(frozen=True)
class SelectionResult:
    """The chosen number of clusters and the curve it was read from.

    Attributes
    ----------
    n_clusters : int
    method : str
    k_values : ndarray of int
    scores : ndarray
        The curve (see :data:`METHODS` for its direction).
    errors : ndarray or None
        Standard errors of the curve where the method has them.
    details : object
        The method's full result (``GapResult``, ``StabilityResult``,
        ``PosteriorAgreementResult``) or None.
    """

    n_clusters: int
    method: str
    k_values: np.ndarray
    scores: np.ndarray
    errors: np.ndarray | None
    details: object

    def plot(self, ax=None):
        """The curve with its chosen k; returns the Axes."""
        plt = import_optional("matplotlib.pyplot", purpose="plot()")

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.5))
        if self.errors is not None:
            ax.errorbar(self.k_values, self.scores, self.errors, fmt="o-", capsize=3)
        else:
            ax.plot(self.k_values, self.scores, "o-")
        ax.axvline(self.n_clusters, color="C3", ls="--", label=f"k = {self.n_clusters}")
        ax.set_xlabel("k")
        ax.set_ylabel(self.method)
        ax.set_title(METHODS[self.method], fontsize=8)
        ax.legend(fontsize=8)
        return ax


def information_criterion_curve(
    X, clusterer=None, k_range=range(1, 11), *, criterion="bic", random_state=None
):
    """BIC or MDL of ``clusterer`` fitted at each k.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    clusterer : estimator, optional
        Default ``KMeans(n_init=10)``; a ``GaussianMixture`` uses
        ``n_components``.
    k_range : iterable of int, default=range(1, 11)
    criterion : {"bic", "mdl"}, default="bic"
    random_state : int, Generator or None

    Returns
    -------
    k_values : ndarray of int
    scores : ndarray
    """
    X = check_X(X)
    ks = check_k_range(k_range, X.shape[0])
    criterion = check_choice(criterion, "criterion", ("bic", "mdl"))
    fn = bic if criterion == "bic" else mdl
    rng = check_random_state(random_state)
    from sklearn.base import clone
    from sklearn.mixture import GaussianMixture

    scores = np.empty(ks.size)
    for j, k in enumerate(ks):
        seed = int(rng.integers(2**31 - 1))
        if isinstance(clusterer, GaussianMixture):
            est = clone(clusterer).set_params(n_components=int(k), random_state=seed).fit(X)
        else:
            _, est = fit_labels(check_clusterer(clusterer), X, k, seed)
        scores[j] = fn(est, X)
    return ks, scores


def select_n_clusters(X, clusterer=None, k_range=range(1, 11), method="gap", **kwargs):
    """Choose the number of clusters by one of :data:`METHODS`.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    clusterer : estimator, optional
        ``n_clusters`` and ``fit_predict`` (``GaussianMixture`` for BIC/MDL
        also works); default ``KMeans(n_init=10)``.
    k_range : iterable of int, default=range(1, 11)
        Values below 2 are dropped for ``stability`` (undefined for one
        cluster).
    method : {"gap", "stability", "bic", "mdl", "posterior_agreement"}, default="gap"
    **kwargs
        Passed to the method: ``n_references``, ``reference``, ``rule``,
        ``n_splits``, ``classifier``, ``betas``, ``random_state``, ``n_jobs``;
        for ``posterior_agreement``, ``X_second`` (a second measurement of the
        same objects, row-aligned with ``X``: the published two-instance
        protocol; without it, a one-sample heuristic).

    Returns
    -------
    SelectionResult

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from statmechlearn.model_selection import select_n_clusters
    >>> X, _ = make_blobs(150, centers=3, random_state=1)
    >>> select_n_clusters(X, k_range=range(1, 7), random_state=0).n_clusters
    3
    """
    method = check_choice(method, "method", tuple(METHODS))
    X = check_X(X)
    if method == "gap":
        res = gap_statistic(X, clusterer, k_range, **kwargs)
        return SelectionResult(res.n_clusters, method, res.k_values, res.gap, res.s, res)
    if method == "stability":
        ks = [k for k in k_range if k >= 2]
        res = stability(X, clusterer, ks, **kwargs)
        return SelectionResult(
            res.n_clusters, method, res.k_values, res.normalized, res.normalized_se, res
        )
    if method == "posterior_agreement":
        res = posterior_agreement(X, clusterer, k_range, **kwargs)
        return SelectionResult(res.n_clusters, method, res.k_values, res.max_capacity, None, res)
    ks, scores = information_criterion_curve(X, clusterer, k_range, criterion=method, **kwargs)
    return SelectionResult(int(ks[np.argmin(scores)]), method, ks, scores, None, None)
