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
from statmechlearn._core.validation import RANDOM_STATE
from statmechlearn.cluster._annealing_inputs import dense_rows, sample_weights, verbose_print
from statmechlearn.cluster._maxent import (
    gibbs_assignments,
    information_free_energy,
    run_annealing,
)
from statmechlearn.cluster._polish_kmeans import sse_moves
from statmechlearn.cluster._schedule import GeometricSchedule
from statmechlearn.theory.annealing import critical_temperature

__all__ = ["EntropyConstrainedClustering"]

_TINY = 1e-300
# The default code-length weight, as a fraction of the data's mean squared distance to
# its mean (see the class's ``entropy_weight``).
_AUTO_WEIGHT = 0.2
# The kernel's sample weights when there are none (every weight one).
_NO_WEIGHTS = np.zeros(0)


@numba.njit(cache=True)
def _gibbs_step(X, x_sq, w, P, lam, temperature):  # pragma: no cover - compiled
    """One synchronous update of the assignments, and ``max |Delta P|``.

    Centres and shares from ``P`` (each row weighted by ``w``, or by one where ``w``
    is empty), then ``P'[i, nu] ∝ p_nu exp(-(|x_i - y_nu|^2 - λ log p_nu) / T)``:
    :func:`_gibbs_step_numpy` in one compiled call. The annealing runs thousands of
    these on a few hundred rows, where NumPy's per-call cost (about 25 calls a step)
    was the whole of the time.
    """
    n, K = P.shape
    weighted = w.shape[0] > 0
    mass = np.empty(K)
    for k in range(K):
        mass[k] = 0.0
    total = 0.0
    for i in range(n):
        if weighted:
            total += w[i]
            for k in range(K):
                mass[k] += w[i] * P[i, k]
        else:
            for k in range(K):
                mass[k] += P[i, k]
    PT = np.ascontiguousarray(P.T)
    if weighted:
        for k in range(K):
            for i in range(n):
                PT[k, i] *= w[i]
    Y = np.dot(PT, X)
    log_w = np.empty(K)
    y_sq = np.empty(K)
    for k in range(K):
        m = max(mass[k], _TINY)
        # element by element: a slice assigned from an array compiles numba's shape-error
        # message (string formatting) into the kernel, seconds on a cold cache
        for j in range(Y.shape[1]):
            Y[k, j] /= m
        log_w[k] = np.log(m / total) if weighted else np.log(m / n)
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


def _gibbs_step_numpy(X, P, lam, temperature, sample_weight=None):
    """The NumPy twin of :func:`_gibbs_step` (the tests hold the kernel to it)."""
    w = np.ones(X.shape[0]) if sample_weight is None else sample_weight
    mass = np.maximum(w @ P, _TINY)
    Y, log_w = ((P * w[:, None]).T @ X) / mass[:, None], np.log(mass / w.sum())
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
    entropy_weight : float or "auto", default="auto"
        ``λ >= 0``, in units of squared distance per nat of code length.
        "auto" is ``0.2 s^2``, a fifth of the data's mean squared distance
        to its mean ``s^2`` (the weighted one with ``sample_weight``): the
        code length then weighs in the data's own units. Splitting a
        Gaussian cluster along its principal axis (variance ``v``) saves
        ``(2/pi) v`` of distortion per object and costs ``λ log 2`` nats of
        code length, so a cluster splits while ``v > (pi/2) log(2) λ``,
        about a fifth of ``s^2`` here: data whose largest spreads lie in a
        few directions (iris: 4 clusters) split into a handful, where
        ``λ = 0.1`` (the default of earlier versions, in absolute units)
        split iris into all 32. Data with many directions of comparable
        spread split further (each cluster keeps most of the spread of the
        other directions): raise ``λ`` or lower ``max_clusters`` there. The
        value used is ``entropy_weight_``.
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
    verbose : int, default=0
        At 1 or more, :meth:`fit` prints one line per temperature (its free
        energy and number of clusters) and one for the final moves.

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (``n_clusters_``, n_features)
        In X's float dtype (float32 for float32 ``X``).
    entropy_weight_ : float
        The code-length weight ``λ`` of the fit (``entropy_weight``, or its
        "auto" value).
    weights_ : ndarray of shape (``n_clusters_``,)
        Shares ``p_nu`` of the clusters (weighted by ``sample_weight``).
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

    Notes
    -----
    With ``sample_weight`` (``a_i >= 0``) the cost is
    ``R = sum_i a_i (|x_i - y_c(i)|^2 - λ log p_c(i))`` with ``p_nu`` the
    clusters' shares of the total weight and ``y_nu`` their weighted means: an
    integer weight is the sample repeated, a zero weight the sample dropped.
    Each sample's assignment probabilities are its own.

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
        "entropy_weight": [Interval(numbers.Real, 0, None, closed="left"), StrOptions({"auto"})],
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
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        entropy_weight="auto",
        *,
        max_clusters=32,
        max_temperature="auto",
        min_temperature="auto",
        cooling_rate=0.9,
        max_iter=500,
        tol=1e-8,
        noise=1e-3,
        random_state=None,
        verbose=0,
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
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Anneal the entropy-constrained codebook on ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Float64 or float32 (computed in float64); sparse input is
            converted to a dense array.
        y : None
            Ignored.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the samples in the cost (see Notes).

        Returns
        -------
        self
        """
        X, dtype = dense_rows(self, X, reset=True, ensure_min_samples=2)
        w = sample_weights(sample_weight, X)
        n = X.shape[0]
        total = n if w is None else float(w.sum())
        mean = X.mean(axis=0) if w is None else np.average(X, axis=0, weights=w)
        Xc = X - mean
        cov = Xc.T @ Xc / n if w is None else (Xc * w[:, None]).T @ Xc / total
        if self.entropy_weight == "auto":
            lam = _AUTO_WEIGHT * float(np.trace(cov))
        else:
            lam = float(self.entropy_weight)
        self.entropy_weight_ = lam
        rng = check_random_state(self.random_state)

        def centres(P):
            Pw = P if w is None else P * w[:, None]
            mass = np.maximum(Pw.sum(axis=0), _TINY)
            return (Pw.T @ X) / mass[:, None], np.log(mass / total)

        def fields(P):
            Y, log_w = centres(P)
            return squared_distances(X, Y) - lam * log_w, log_w

        def free_energy(P, T):
            Y, log_w = centres(P)
            if w is None:
                energy = float(np.sum(P * (squared_distances(X, Y) - lam * log_w)))
                return information_free_energy(P, energy, T)
            energy = float(w @ np.sum(P * (squared_distances(X, Y) - lam * log_w), axis=1))
            with np.errstate(divide="ignore", invalid="ignore"):
                terms = np.where(P > 0, P * (np.log(P) - log_w), 0.0).sum(axis=1)
            return float(energy + T * (w @ terms))

        scale = max(0.5 * critical_temperature(cov), _TINY)
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

        w_kernel = _NO_WEIGHTS if w is None else w

        def step(P, T):
            return _gibbs_step(X_c, x_sq, w_kernel, np.ascontiguousarray(P), lam, float(T))

        def report(k, T, P):
            verbose_print(
                self.verbose,
                f"Temperature {T:.4g}: free energy {free_energy(P, T):.6g}, {P.shape[1]} clusters.",
            )

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
            callback=report if self.verbose else None,
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
        labels, n_moves = sse_moves(
            X, labels, slots, max_clusters=slots, entropy_weight=lam, sample_weight=w
        )
        verbose_print(self.verbose, f"Single-object moves: {n_moves} made.")
        if n_moves:
            used, labels = np.unique(labels, return_inverse=True)
            P = (labels[:, None] == np.arange(used.size)).astype(float)
            Y, log_w = centres(P)
        self.cluster_centers_ = Y.astype(dtype, copy=False)
        self.weights_, self.labels_ = np.exp(log_w), labels
        self.assignments_ = P
        self.n_clusters_ = Y.shape[0]
        self.code_lengths_ = -log_w / np.log(2.0)
        counts = np.bincount(self.labels_, weights=w, minlength=self.n_clusters_) / total
        nz = counts[counts > 0]
        self.rate_ = float(-(nz * np.log2(nz)).sum())
        sq = np.sum((X - Y[self.labels_]) ** 2, axis=1)
        self.distortion_ = float(np.mean(sq) if w is None else w @ sq / total)
        self.path_ = path
        self.n_iter_ = int(sum(path.n_iter))
        verbose_print(
            self.verbose,
            f"Finished: {self.n_clusters_} clusters, distortion {self.distortion_:.6g}, "
            f"rate {self.rate_:.4g} bits.",
        )
        return self

    @property
    def _n_features_out(self):
        """Number of output columns of :meth:`transform` (for ``get_feature_names_out``)."""
        return self.cluster_centers_.shape[0]

    def transform(self, X):
        """Encoding cost ``|x - y_nu|^2 - λ log p_nu`` of each cluster.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_clusters_)
        """
        cost, dtype = self._cost(X)
        return cost.astype(dtype, copy=False)

    def _cost(self, X):
        """The encoding cost of validated ``X`` in float64, and X's float dtype."""
        check_is_fitted(self)
        X, dtype = dense_rows(self, X, reset=False)
        code_length = -np.log(self.weights_)
        cost = squared_distances(X, self.cluster_centers_.astype(float)) + (
            self.entropy_weight_ * code_length
        )
        return cost, dtype

    def predict(self, X):
        """Entropy-constrained encoder: the cluster of least distortion + λ · code length.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return np.argmin(self._cost(X)[0], axis=1)

    def predict_proba(self, X):
        """Gibbs assignments ``∝ p_nu exp(-cost / T)`` at the last annealing temperature.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_clusters_)
            In X's float dtype.
        """
        cost, dtype = self._cost(X)
        proba = gibbs_assignments(cost, self.temperature_, np.log(self.weights_))[0]
        return proba.astype(dtype, copy=False)
