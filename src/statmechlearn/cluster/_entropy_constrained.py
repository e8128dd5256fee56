"""Entropy-constrained clustering: distortion plus λ times code length (notes §3.6).

An object sent as index ``nu`` costs its squared distortion plus ``λ`` times
the length of ``nu``'s code word, ``-log p_nu`` nats for an ideal
(Huffman-like) code, ``p_nu`` the share of objects using ``nu``:
``R = sum_i |x_i - y_c(i)|^2 - λ sum_i log p_c(i)``. Rarely used indices are
expensive, so the number of clusters is not set in advance: a cluster splits
only when the distortion it saves pays for the longer code words (Chou,
Lookabaugh & Gray's entropy-constrained VQ; its annealed form follows Rose).
At temperature ``T`` the Gibbs assignments of the free energy
``R + T n I(object; cluster)`` are
``P[i, nu] ∝ p_nu exp(-(|x_i - y_nu|^2 - λ log p_nu) / T)``, with ``y_nu``
the weighted means and ``p_nu`` the mean of column ``nu``; they run on the
shared annealing engine (:mod:`statmechlearn.cluster._maxent`).
"""

import numbers
from typing import ClassVar

import numba
import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    ClusterMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from statmechlearn._core.distances import squared_distances
from statmechlearn._core.rng import check_random_state
from statmechlearn._core.validation import RANDOM_STATE, validate_named
from statmechlearn.cluster._checks import check_scale
from statmechlearn.cluster._maxent import (
    gibbs_assignments,
    information_free_energy,
    run_annealing,
)
from statmechlearn.cluster._polish import sse_moves
from statmechlearn.cluster._schedule import GeometricSchedule
from statmechlearn.theory.annealing import critical_temperature

__all__ = ["EntropyConstrainedClustering"]

_TINY = 1e-300


@numba.njit(cache=True)
def _gibbs_step(X, x_sq, P, lam, temperature):  # pragma: no cover - compiled
    """One synchronous update of the assignments, and ``max |Delta P|``.

    Centres and shares from ``P``, then ``P'[i, nu] ∝ p_nu exp(-(|x_i - y_nu|^2
    - λ log p_nu) / T)``: :func:`_gibbs_step_numpy` in one compiled call. The
    annealing runs thousands of these on a few hundred rows, where NumPy's
    per-call cost (about 25 calls a step) was the whole of the time.
    """
    n, K = P.shape
    mass = np.empty(K)
    for k in range(K):
        mass[k] = 0.0
    for i in range(n):
        for k in range(K):
            mass[k] += P[i, k]
    Y = np.dot(np.ascontiguousarray(P.T), X)
    log_w = np.empty(K)
    y_sq = np.empty(K)
    for k in range(K):
        m = max(mass[k], _TINY)
        Y[k] /= m
        log_w[k] = np.log(m / n)
        y_sq[k] = np.dot(Y[k], Y[k])
    cross = np.dot(X, np.ascontiguousarray(Y.T))
    # the row softmax by hand, not _gibbs._softmax_rows: that one is a parallel region, whose
    # launch costs more than this whole step on a few hundred rows (measured 0.75 s -> 0.96 s
    # for a default fit of 30 rows); nor its serial row (_softmax_row), which has no guard
    # for a row whose logits are all -inf; and the change is taken in the same pass
    new = np.empty_like(P)
    change = 0.0
    for i in range(n):
        top = -np.inf
        for k in range(K):
            d = max(x_sq[i] - 2.0 * cross[i, k] + y_sq[k], 0.0)
            logit = -(d - lam * log_w[k]) / temperature + log_w[k]
            new[i, k] = logit
            top = max(top, logit)
        if not np.isfinite(top):
            top = 0.0
        z = 0.0
        for k in range(K):
            e = np.exp(new[i, k] - top)
            new[i, k] = e
            z += e
        for k in range(K):
            new[i, k] /= z
            change = max(change, abs(new[i, k] - P[i, k]))
    return new, change


def _gibbs_step_numpy(X, P, lam, temperature):
    """The NumPy twin of :func:`_gibbs_step` (the tests hold the kernel to it)."""
    mass = np.maximum(P.sum(axis=0), _TINY)
    Y, log_w = (P.T @ X) / mass[:, None], np.log(mass / X.shape[0])
    new, _ = gibbs_assignments(squared_distances(X, Y) - lam * log_w, temperature, log_w)
    return new, float(np.max(np.abs(new - P)))


class EntropyConstrainedClustering(
    ClusterMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator
):
    """Clustering whose number of clusters follows from distortion + λ · code length.

    Minimises ``sum_i |x_i - y_c(i)|^2 - λ sum_i log p_c(i)`` (notes §3.6)
    by deterministic annealing: starting from one cluster at high ``T``, a
    cluster splits where it becomes unstable *and* the split lowers the free
    energy including the longer code words; clusters whose share vanishes
    are dropped. At ``λ = 0`` this is Rose's mass-constrained deterministic
    annealing with ``max_clusters`` clusters; a larger ``λ`` gives fewer
    clusters (a lower rate at a higher distortion). For a uniform source
    the optimal cells are of equal width (at high rate uniform quantisation
    is optimal whatever the source, Gish & Pierce).

    Parameters
    ----------
    entropy_weight : float, default=0.1
        ``λ >= 0``, in units of squared distance per nat of code length.
    max_clusters : int, default=32
        Upper bound on the number of clusters. A data set of fewer rows is
        annealed with at most ``n_samples`` clusters (one per object), as
        a code of more words than objects has unused words.
    max_temperature : float or "auto", default="auto"
        First temperature; "auto" is four times the largest variance (the
        first split of squared-distance DA is at twice it), at least twice
        ``min_temperature``.
    min_temperature : float or "auto", default="auto"
        Last temperature; "auto" is ``1e-4`` times the largest variance.
    cooling_rate : float, default=0.9
        Ratio of successive temperatures, in (0, 1).
    max_iter : int, default=500
    tol : float, default=1e-8
    noise : float, default=1e-3
        Relative size of the split perturbation (> 0).
    random_state : None, int, RandomState or Generator, default=None

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (``n_clusters_``, n_features)
    weights_ : ndarray of shape (``n_clusters_``,)
        Shares ``p_nu`` of the clusters.
    code_lengths_ : ndarray of shape (``n_clusters_``,)
        ``-log2 p_nu`` in bits.
    n_clusters_ : int
    labels_ : ndarray of shape (n_samples,)
        The hard partition: the encoder ``argmin |x - y_nu|^2 - λ log p_nu``
        of the annealed codebook, then single-object moves (which may empty a
        cluster or open one) until none lowers ``R``: a local minimum of the
        cost the anneal minimises at ``T -> 0``. :meth:`predict` applies the
        encoder of ``cluster_centers_`` and ``weights_``.
    assignments_ : ndarray of shape (n_samples, ``n_clusters_``)
    distortion_ : float
        Mean squared distance of ``labels_``.
    rate_ : float
        Entropy of ``labels_`` in bits (the mean code length).
    path_ : AssignmentPath
    n_iter_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn.cluster import EntropyConstrainedClustering
    >>> X = np.linspace(0, 1, 400)[:, None]
    >>> # distortion 1/(12 K^2) + λ ln K is least at K = 1/sqrt(6 λ) = 4 cells
    >>> ecc = EntropyConstrainedClustering(entropy_weight=1 / 96, random_state=0).fit(X)
    >>> ecc.n_clusters_
    4
    >>> len(set(ecc.predict([[0.1], [0.4], [0.6], [0.9]]).tolist()))  # one point per cell
    4
    """

    _parameter_constraints: ClassVar[dict] = {
        "entropy_weight": [Interval(numbers.Real, 0, None, closed="left")],
        "max_clusters": [Interval(numbers.Integral, 1, None, closed="left")],
        "max_temperature": [
            Interval(numbers.Real, 0, None, closed="neither"),
            StrOptions({"auto"}),
        ],
        "min_temperature": [
            Interval(numbers.Real, 0, None, closed="neither"),
            StrOptions({"auto"}),
        ],
        "cooling_rate": [Interval(numbers.Real, 0, 1, closed="neither")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "noise": [Interval(numbers.Real, 0, None, closed="neither")],
        "random_state": [*RANDOM_STATE],
    }

    def __init__(
        self,
        entropy_weight=0.1,
        *,
        max_clusters=32,
        max_temperature="auto",
        min_temperature="auto",
        cooling_rate=0.9,
        max_iter=500,
        tol=1e-8,
        noise=1e-3,
        random_state=None,
    ):
        self.entropy_weight = entropy_weight
        self.max_clusters = max_clusters
        self.max_temperature = max_temperature
        self.min_temperature = min_temperature
        self.cooling_rate = cooling_rate
        self.max_iter = max_iter
        self.tol = tol
        self.noise = noise
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Anneal the entropy-constrained codebook on ``X``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : None
            Ignored.

        Returns
        -------
        self
        """
        X = check_scale(validate_named(self, X, dtype=float, ensure_min_samples=2))
        n = X.shape[0]
        lam = float(self.entropy_weight)
        rng = check_random_state(self.random_state)

        def centres(P):
            mass = np.maximum(P.sum(axis=0), _TINY)
            return (P.T @ X) / mass[:, None], np.log(mass / n)

        def fields(P):
            Y, log_w = centres(P)
            return squared_distances(X, Y) - lam * log_w, log_w

        def free_energy(P, T):
            Y, log_w = centres(P)
            energy = float(np.sum(P * (squared_distances(X, Y) - lam * log_w)))
            return information_free_energy(P, energy, T)

        Xc = X - X.mean(axis=0)
        scale = max(0.5 * critical_temperature(Xc.T @ Xc / n), _TINY)
        t_min = 1e-4 * scale if self.min_temperature == "auto" else float(self.min_temperature)
        # The first split of squared-distance DA is at 2 lambda_max; the code length only delays it.
        t_max = (
            max(4.0 * scale, 2.0 * t_min)
            if self.max_temperature == "auto"
            else self.max_temperature
        )
        temps = GeometricSchedule(t_max, t_min, self.cooling_rate)
        X_c = np.ascontiguousarray(X)
        x_sq = np.einsum("ij,ij->i", X_c, X_c)

        def step(P, T):
            return _gibbs_step(X_c, x_sq, np.ascontiguousarray(P), lam, float(T))

        P, path = run_annealing(
            "EntropyConstrainedClustering",
            fields,
            free_energy,
            n,
            min(self.max_clusters, n),
            temps,
            rng=rng,
            noise=self.noise,
            max_iter=self.max_iter,
            tol=self.tol,
            warn_fewer=False,
            sweep=step,
        )
        Y, log_w = centres(P)
        self.temperature_ = float(path.temperature[-1])
        labels = np.argmin(squared_distances(X, Y) - lam * log_w, axis=1)
        # Clusters that no object is encoded into at T -> 0 carry no code word.
        used = np.unique(labels)
        if used.size < Y.shape[0]:
            P = P[:, used]
            P /= np.maximum(P.sum(axis=1, keepdims=True), _TINY)
            Y, log_w = centres(P)
            labels = np.argmin(squared_distances(X, Y) - lam * log_w, axis=1)
        # The encoder of the annealed codebook need not be a local minimum of R: single-object
        # moves, which may empty a cluster or open one (up to max_clusters), take it there.
        slots = min(self.max_clusters, n)
        labels, n_moves = sse_moves(X, labels, slots, max_clusters=slots, entropy_weight=lam)
        if n_moves:
            used, labels = np.unique(labels, return_inverse=True)
            P = (labels[:, None] == np.arange(used.size)).astype(float)
            Y, log_w = centres(P)
        self.cluster_centers_, self.weights_, self.labels_ = Y, np.exp(log_w), labels
        self.assignments_ = P
        self.n_clusters_ = Y.shape[0]
        self.code_lengths_ = -log_w / np.log(2.0)
        counts = np.bincount(self.labels_, minlength=self.n_clusters_) / n
        nz = counts[counts > 0]
        self.rate_ = float(-(nz * np.log2(nz)).sum())
        self.distortion_ = float(np.mean(np.sum((X - Y[self.labels_]) ** 2, axis=1)))
        self.path_ = path
        self.n_iter_ = int(sum(path.n_iter))
        return self

    @property
    def _n_features_out(self):
        """Number of output columns of :meth:`transform` (for ``get_feature_names_out``)."""
        return self.cluster_centers_.shape[0]

    def transform(self, X):
        """Encoding cost ``|x - y_nu|^2 - λ log p_nu`` of each cluster.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_clusters_)
        """
        check_is_fitted(self)
        X = validate_named(self, X, dtype=float, reset=False)
        code_length = -np.log(self.weights_)
        return squared_distances(X, self.cluster_centers_) + self.entropy_weight * code_length

    def predict(self, X):
        """Entropy-constrained encoder: the cluster of least distortion + λ · code length.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return np.argmin(self.transform(X), axis=1)

    def predict_proba(self, X):
        """Gibbs assignments ``∝ p_nu exp(-cost / T)`` at the last annealing temperature.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_clusters_)
        """
        return gibbs_assignments(self.transform(X), self.temperature_, np.log(self.weights_))[0]
