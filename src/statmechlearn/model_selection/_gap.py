"""The gap statistic (Tibshirani, Walther & Hastie 2001; lecture notes §7.2)."""

from dataclasses import dataclass

import numpy as np
from joblib import Parallel, delayed

from statmechlearn._core.rng import check_random_state
from statmechlearn._core.validation import check_array_finite, check_choice, check_int
from statmechlearn.model_selection._common import (
    check_clusterer,
    check_k_range,
    check_X,
    fit_labels,
    within_dispersion,
)

__all__ = ["GAP_RULES", "GapResult", "choose_gap_k", "gap_statistic"]

#: Decision rules, named as in R's ``cluster::clusGap`` (``maxSE``):
#: ``tibshirani`` (Tibs2001SEmax, the paper's): smallest k with
#: ``gap(k) >= gap(k+1) - s(k+1)``; ``first-se-max``: smallest k within one
#: ``s`` of the first local maximum; ``global-se-max``: smallest k within one
#: ``s`` of the global maximum; ``first-max``; ``global-max`` (what many
#: packages return).
GAP_RULES = ("tibshirani", "first-se-max", "global-se-max", "first-max", "global-max")


def choose_gap_k(k_values, gap, s, rule="tibshirani"):
    """Apply a gap decision rule.

    Parameters
    ----------
    k_values : array of int
        Increasing and consecutive for the rules that compare neighbours.
    gap, s : arrays
        ``gap(k)`` and its standard error ``s_k = sd_k sqrt(1 + 1/B)``.
    rule : str, default="tibshirani"
        One of :data:`GAP_RULES`.

    Returns
    -------
    int
    """
    rule = check_choice(rule, "rule", GAP_RULES)
    k_values = check_array_finite(k_values, "k_values", ndim=1, dtype=None)
    if k_values.size == 0 or k_values.dtype.kind not in "iu" or np.any(k_values < 1):
        raise ValueError(f"k_values must be a non-empty array of ints >= 1, got {k_values}")
    gap = check_array_finite(gap, "gap", shape=k_values.shape)
    s = check_array_finite(s, "s", shape=k_values.shape)
    if np.any(s < 0):
        raise ValueError(f"s (standard errors) must be >= 0, got {s}")
    if rule == "global-max":
        return int(k_values[np.argmax(gap)])
    first = len(gap) - 1
    for i in range(len(gap) - 1):
        if gap[i] >= gap[i + 1]:
            first = i
            break
    if rule == "first-max":
        return int(k_values[first])
    if rule == "tibshirani":
        for i in range(len(gap) - 1):
            if gap[i] >= gap[i + 1] - s[i + 1]:
                return int(k_values[i])
        return int(k_values[-1])
    j = first if rule == "first-se-max" else int(np.argmax(gap))
    within = np.flatnonzero(gap[: j + 1] >= gap[j] - s[j])
    return int(k_values[within[0]])


@dataclass(frozen=True)
class GapResult:
    """Gap curve and the chosen number of clusters.

    Attributes
    ----------
    n_clusters : int
        Chosen by ``rule``.
    rule : str
    k_values : ndarray of int
    gap : ndarray
        ``E*[log W_k] - log W_k``.
    s : ndarray
        ``sd_k sqrt(1 + 1/B)``, the standard error of the gap.
    log_w : ndarray
        ``log W_k`` of the data.
    expected_log_w : ndarray
        Mean of ``log W*_k`` over the reference sets.
    sd : ndarray
        Standard deviation of ``log W*_k`` over the reference sets.
    n_references : int
    reference : str
    """

    n_clusters: int
    rule: str
    k_values: np.ndarray
    gap: np.ndarray
    s: np.ndarray
    log_w: np.ndarray
    expected_log_w: np.ndarray
    sd: np.ndarray
    n_references: int
    reference: str

    def choose(self, rule):
        """The k another rule picks from the same curve."""
        return choose_gap_k(self.k_values, self.gap, self.s, rule)

    def plot(self, ax=None):
        """Gap with ``± s`` bars, the chosen k marked; returns the Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.5))
        ax.errorbar(self.k_values, self.gap, self.s, fmt="o-", capsize=3)
        ax.axvline(self.n_clusters, color="C3", ls="--", label=f"k = {self.n_clusters}")
        ax.set_xlabel("k")
        ax.set_ylabel("gap(k)")
        ax.set_title(f"gap statistic ({self.rule}, B = {self.n_references})", fontsize=9)
        ax.legend(fontsize=8)
        return ax


def _reference(X, kind, rng):
    n, d = X.shape
    if kind == "uniform":
        lo, hi = X.min(axis=0), X.max(axis=0)
        return rng.uniform(lo, hi, size=(n, d))
    mean = X.mean(axis=0)
    _, _, Vt = np.linalg.svd(X - mean, full_matrices=False)
    Z = (X - mean) @ Vt.T
    lo, hi = Z.min(axis=0), Z.max(axis=0)
    return rng.uniform(lo, hi, size=(n, Z.shape[1])) @ Vt + mean


def _log_w_curve(clusterer, X, k_values, seed):
    out = np.empty(len(k_values))
    for j, k in enumerate(k_values):
        if k == 1:
            labels = np.zeros(X.shape[0], dtype=int)
        else:
            labels, _ = fit_labels(clusterer, X, k, seed)
        out[j] = np.log(max(within_dispersion(X, labels), 1e-300))
    return out


def gap_statistic(
    X,
    clusterer=None,
    k_range=range(1, 11),
    *,
    n_references=50,
    reference="uniform",
    rule="tibshirani",
    random_state=None,
    n_jobs=None,
):
    """Gap statistic: ``gap(k) = E*[log W_k] - log W_k`` against a null reference.

    ``W_k`` is the pooled within-cluster dispersion of §7.2 (squared
    distances halved per pair and divided by the cluster size, which is the
    within-cluster sum of squares). ``E*`` is estimated from
    ``n_references`` data sets of the same size drawn uniformly from the
    bounding box of the features (``"uniform"``) or of the principal
    components (``"pca"``, Tibshirani et al.'s second reference, which
    follows the data's orientation), each clustered like the data.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    clusterer : estimator, optional
        Anything with ``n_clusters`` and ``fit_predict``; default
        ``KMeans(n_init=10)``. k = 1 needs no fit.
    k_range : iterable of int, default=range(1, 11)
        Consecutive values from 1 give the paper's rule its meaning.
    n_references : int, default=50
        ``B``; at least 10 (the standard error of ``E*`` falls like B^-1/2).
    reference : {"uniform", "pca"}, default="uniform"
    rule : str, default="tibshirani"
        One of :data:`GAP_RULES`.
    random_state : int, Generator or None
    n_jobs : int, optional
        Reference sets in parallel (joblib).

    Returns
    -------
    GapResult
    """
    X = check_X(X)
    ks = check_k_range(k_range, X.shape[0])
    clusterer = check_clusterer(clusterer)
    B = check_int(n_references, "n_references", minimum=10)
    reference = check_choice(reference, "reference", ("uniform", "pca"))
    check_choice(rule, "rule", GAP_RULES)
    if n_jobs is not None and check_int(n_jobs, "n_jobs") == 0:
        raise ValueError("n_jobs must be None or a non-zero int (-1: all cores), got 0")
    rng = check_random_state(random_state)
    seeds = rng.integers(2**31 - 1, size=B + 1)
    log_w = _log_w_curve(clusterer, X, ks, seeds[0])
    refs = [_reference(X, reference, np.random.default_rng(s)) for s in seeds[1:]]
    ref_log_w = np.array(
        Parallel(n_jobs=n_jobs)(
            delayed(_log_w_curve)(clusterer, R, ks, int(s))
            for R, s in zip(refs, seeds[1:], strict=True)
        )
    )
    expected = ref_log_w.mean(axis=0)
    sd = ref_log_w.std(axis=0)  # 1/B, as in the paper
    s = sd * np.sqrt(1.0 + 1.0 / B)
    gap = expected - log_w
    return GapResult(
        n_clusters=choose_gap_k(ks, gap, s, rule),
        rule=rule,
        k_values=ks,
        gap=gap,
        s=s,
        log_w=log_w,
        expected_log_w=expected,
        sd=sd,
        n_references=B,
        reference=reference,
    )
