"""Pairwise data clustering and constant shift embedding (notes §5.4, §9.10).

* :class:`ConstantShiftEmbedding` — Roth, Laub, Kawanabe & Buhmann's
  embedding of a dissimilarity matrix: shift the off-diagonal entries by
  the smallest constant that makes the centred similarities positive
  semidefinite; the shifted dissimilarities are then squared Euclidean
  distances between vectors this transformer returns.
* :class:`PairwiseClustering` — Hofmann & Buhmann's normalised pairwise
  clustering cost ``R = sum_nu 1/(2 n_nu) sum_{i,j in nu} D_ij``, solved by
  mean-field deterministic annealing. Its mean fields are
  ``h[i, nu] = (1/n_nu) sum_j P[j, nu] (D_ij - (1/(2 n_nu)) sum_k P[k, nu] D_jk)``;
  for squared Euclidean ``D`` they are the squared distances to the
  assignment-weighted centroids, so the method *is* k-means / deterministic
  annealing there, and constant shift embedding extends that equivalence
  to any symmetric ``D`` (the cost is invariant under off-diagonal shifts).
"""

import numbers
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    ClusterMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.metrics.pairwise import (
    euclidean_distances,
    pairwise_distances,
)
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from statmechlearn._core.rng import check_random_state
from statmechlearn._core.threads import one_blas_thread
from statmechlearn._core.validation import (
    RANDOM_STATE,
    validate_named,
)
from statmechlearn.cluster._dissimilarity import (
    centre,
    check_dissimilarity,
    check_metric,
    check_partition,
    dissimilarities,
    feature_rows,
)
from statmechlearn.cluster._inputs import effective_weights, proba_width_tags
from statmechlearn.cluster._maxent import gibbs_assignments, warn_annealing
from statmechlearn.cluster._pairwise_anneal import (
    ProductCounter,
    Weighted,
    cluster_critical_temperatures,
    pairwise_anneal,
)
from statmechlearn.cluster._pairwise_graph import (
    EmbeddedProduct,
    GraphCompletion,
    check_dissimilarity_graph,
)
from statmechlearn.cluster._polish import pair_moves
from statmechlearn.cluster._schedule import GeometricSchedule
from statmechlearn.cluster._split_merge import pair_split_merge
from statmechlearn.cluster._weighted_moves import weighted_pair_moves

__all__ = ["ConstantShiftEmbedding", "PairwiseClustering", "check_dissimilarity", "pairwise_cost"]

_TINY = 1e-300


class ConstantShiftEmbedding(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Constant shift embedding of a dissimilarity matrix (notes §9.10).

    Steps: symmetrise ``D`` (see :func:`check_dissimilarity`); centre,
    ``S^c = -Q D Q / 2``; shift, ``S~ = S^c - lambda_min(S^c) I``; the shifted
    dissimilarities ``D~_ij = S~_ii + S~_jj - 2 S~_ij = D_ij - 2 lambda_min``
    (off the diagonal) are squared Euclidean distances between the rows of
    ``V sqrt(Lambda)`` from the eigendecomposition of ``S~``, which is what
    :meth:`fit_transform` returns. Like t-SNE and MDS the embedding is
    transductive (new objects would change the shift), so there is no
    ``transform``. ``lambda_min = 0`` (no shift) exactly when
    ``D`` already is a matrix of squared Euclidean distances.

    Parameters
    ----------
    n_components : int or None, default=None
        Keep the leading eigenvectors; None keeps all with eigenvalue above
        ``1e-10`` times the largest (the exact embedding).
    metric : str, default="precomputed"
        ``"precomputed"``: ``X`` is the dissimilarity matrix, or a sparse
        neighbour graph of dissimilarities whose missing pairs are completed by
        shortest paths (as for :class:`PairwiseClustering`). Otherwise ``X``
        holds feature vectors and ``D`` is computed with
        ``"sqeuclidean"`` or any metric of
        :func:`sklearn.metrics.pairwise_distances`.

    Attributes
    ----------
    shift_ : float
        ``-2 lambda_min(S^c) >= 0``, added to every off-diagonal
        dissimilarity.
    eigenvalues_ : ndarray
        Eigenvalues of ``S~`` in decreasing order (all ``>= 0``), in the float
        dtype of ``X``.
    embedding_ : ndarray of shape (n_samples, ``n_components_``)
        In the float dtype of ``X`` (float32 input gives a float32 embedding;
        the eigendecomposition runs in float64).
    shifted_dissimilarity_ : ndarray of shape (n_samples, n_samples)
        ``D~``, in the float dtype of ``X``.
    n_components_ : int

    Notes
    -----
    ``fit`` takes no ``sample_weight``: the embedding places every object, and a
    weight per object has no repeated-object reading here (the shift would pull the
    copies of a repeated object apart, by ``shift_``).

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn.cluster import ConstantShiftEmbedding
    >>> D = np.array([[0, 1, 4], [1, 0, 1], [4, 1, 0.]])  # points 0, 1, 2 on a line
    >>> cse = ConstantShiftEmbedding().fit(D)
    >>> bool(abs(cse.shift_) < 1e-9), cse.n_components_
    (True, 1)
    >>> ConstantShiftEmbedding().fit_transform(D).shape
    (3, 1)
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_components": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "metric": [str],
    }

    def __init__(self, n_components=None, *, metric="precomputed"):
        self.n_components = n_components
        self.metric = metric

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # a dissimilarity matrix has no negative entries (check_dissimilarity refuses them)
        tags.input_tags.pairwise = tags.input_tags.positive_only = self.metric == "precomputed"
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Embed the dissimilarity matrix ``X``.

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n_samples, n_samples) or \
(n_samples, n_features)
            Dissimilarities (see :func:`check_dissimilarity`), a sparse
            neighbour graph of them (the pairs not stored are completed by the
            shortest path along stored pairs, then the matrix is dense), or
            feature vectors when ``metric`` is not ``"precomputed"``.
        y : None
            Ignored.

        Returns
        -------
        self
        """
        check_metric(self.metric)
        D, _, dtype = dissimilarities(self, X, reset=True)
        S_c = -0.5 * centre(D)
        lam, V = np.linalg.eigh(S_c)
        lam_min = min(float(lam[0]), 0.0)
        # Eigenvectors of S~ = S^c - lam_min I are those of S^c; eigenvalues shift.
        lam = (lam - lam_min)[::-1]
        V = V[:, ::-1]
        self.shift_ = -2.0 * lam_min + 0.0  # + 0.0: no negative zero
        n = D.shape[0]
        self.shifted_dissimilarity_ = D + self.shift_ * (1.0 - np.eye(n))
        keep = lam > 1e-10 * max(lam[0], _TINY)
        k = int(keep.sum()) if self.n_components is None else min(self.n_components, n)
        k = max(k, 1)
        self.eigenvalues_ = lam.astype(dtype, copy=False)
        self.n_components_ = k
        self.embedding_ = (V[:, :k] * np.sqrt(np.maximum(lam[:k], 0.0))).astype(dtype, copy=False)
        self.shifted_dissimilarity_ = self.shifted_dissimilarity_.astype(dtype, copy=False)
        return self

    @property
    def _n_features_out(self):
        """Number of output columns of :meth:`fit_transform` (for ``get_feature_names_out``)."""
        return self.embedding_.shape[1]

    def fit_transform(self, X, y=None):
        """Fit to the dissimilarities and return the embedding.

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n_samples, n_samples)
        y : None
            Ignored.

        Returns
        -------
        ndarray of shape (n_samples, n_components_)
        """
        return self.fit(X).embedding_


def _mean_fields(D, P, weights=None):
    """Pairwise-clustering mean fields (n, K) and the cluster masses, O(n^2 K) by BLAS.

    With ``weights`` the masses are ``w @ P`` and the fields those of the weighted cost
    (each object's field is its gradient divided by its weight)."""
    if weights is not None:
        WP = P * weights[:, None]
        mass = np.maximum(weights @ P, _TINY)
        DP = D @ WP
        within = np.einsum("jk,jk->k", WP, DP) / mass / mass
        return DP / mass - 0.5 * within, mass
    mass = np.maximum(P.sum(axis=0), _TINY)
    DP = D @ P
    # (1/n_nu^2) sum_jk P_j P_k D_jk, divided twice: mass**2 underflows to 0 for an empty
    # cluster (mass at its floor) and would give 0/0
    within = np.einsum("jk,jk->k", P, DP) / mass / mass
    return DP / mass - 0.5 * within, mass


class PairwiseClustering(ClusterMixin, BaseEstimator):
    """Normalised pairwise clustering of a dissimilarity matrix by mean-field annealing.

    Minimises ``R = sum_nu (1 / (2 n_nu)) sum_{i, j in nu} D_ij`` (Hofmann &
    Buhmann; notes §5.4) over partitions. The Gibbs distribution over
    partitions is replaced by its factorial mean-field approximation
    ``P[i, nu] ∝ p_nu exp(-h[i, nu] / T)`` with the mean fields
    ``h[i, nu] = (1/n_nu) sum_j P[j,nu] (D_ij - (1/(2 n_nu)) sum_k P[k,nu] D_jk)``
    and priors ``p_nu = n_nu / n`` (so that coincident clusters count once),
    iterated to a fixed point at each temperature of a geometric schedule,
    clusters splitting as they become unstable. For squared Euclidean ``D``
    this is deterministic annealing of k-means on the underlying points. For
    other symmetric ``D`` the hard cost equals, up to a constant, the k-means
    cost of the :class:`ConstantShiftEmbedding` (it is invariant under
    off-diagonal shifts). The mean-field iteration is only approximately
    invariant, since its ``1/n_nu`` includes object ``i``'s own share, so
    on small non-Euclidean problems clustering ``D`` and its shifted form can
    end in different local minima; cluster ``shifted_dissimilarity_`` for the
    exact k-means equivalence.

    The cost unit is the product ``D @ Z`` (``Z`` of shape ``(n, k)``), which
    reads all of ``D``; the annealing spends them only where something
    happens. Each cluster's critical temperature ``T_c = 2 lambda_max`` of its
    (embedded) covariance is computed by a few Lanczos steps, all clusters
    sharing each product; a cluster is split, along its unstable direction,
    once the temperature is ``SPLIT_MARGIN`` (5 %) below its ``T_c``, and the
    schedule lands there. Fixed points are solved by Anderson-accelerated
    iteration, warm-started with the previous temperature's product, so that
    temperatures where nothing moves (one cluster above the first ``T_c``,
    hard assignments at the end) cost no product. Once ``n_clusters`` clusters
    exist, no split is near and the schedule cools by ``cooling_rate**4``
    (the engine's settled step). ``D`` is only read: a symmetric float64 input is not
    copied, and it is not kept after :meth:`fit`.

    Parameters
    ----------
    n_clusters : int, default=2
    max_temperature : float or "auto", default="auto"
        First temperature; "auto" is twice the first critical temperature
        (where the one-cluster solution becomes unstable, ``2 lambda_max`` of
        the centred similarities ``-Q D Q / 2``, divided by ``n``; or the mean
        dissimilarity over ``n`` when that is larger), at least twice
        ``min_temperature``.
    min_temperature : float or "auto", default="auto"
        Last temperature; "auto" is ``1e-4`` times the same scale.
    cooling_rate : float, default=0.9
        Ratio of successive temperatures, in (0, 1), while clusters can still
        split.
    adaptive : bool, default=True
        If True the schedule lands ``SPLIT_MARGIN`` below the highest pending
        critical temperature of a cluster and cools by ``cooling_rate**4``
        once ``n_clusters`` clusters exist (as in
        :class:`DeterministicAnnealing`); if False it is the plain geometric
        schedule, and a cluster splits at the first temperature below
        ``(1 - SPLIT_MARGIN) T_c``.
    damping : float, default=0.0
        Weight of the old assignments in each synchronous update.
    max_iter : int, default=2000
        Products (iterations) per fixed point.
    tol : float, default=1e-7
        Stop a fixed point when ``max |Delta P| < tol``.
    noise : float, default=1e-3
        Relative size of the random part of a split perturbation (> 0), added to
        the unstable direction.
    metric : str, default="precomputed"
        ``"precomputed"``: ``X`` is the dissimilarity matrix, dense, or sparse
        for a neighbour graph (see Notes). Otherwise ``X`` holds feature
        vectors and ``D`` is computed with ``"sqeuclidean"`` (then the method
        is k-means by deterministic annealing) or any metric of
        :func:`sklearn.metrics.pairwise_distances`.
    n_landmarks : int, default=100
        For a sparse ``X`` only: the landmarks through which the completed
        ``D`` is held (``n * n_landmarks`` path lengths instead of ``n^2``
        entries), at most ``n``.
    random_state : None, int, RandomState or Generator, default=None
    verbose : int, default=0
        At 1 or more, print the first critical temperature, one line per
        temperature (free energy, clusters, products) and the final moves.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
    assignments_ : ndarray of shape (n_samples, n_found)
        Mean-field assignments at ``min_temperature``.
    temperature_ : float
        Last temperature (of :meth:`predict_proba`).
    cost_ : float
        The pairwise cost ``R`` of ``labels_``.
    critical_temperature_ : float
        ``2 lambda_max`` of ``-Q D Q / (2 n)``: the first split's temperature.
    path_ : AssignmentPath
        Per temperature; ``n_iter`` counts its products.
    n_iter_ : int
        Products of the annealing (the sum of ``path_.n_iter``).
    n_products_ : int
        All products ``D @ Z`` of :meth:`fit`, including the first critical
        temperature and the final mean fields and cost.
    landmarks_ : ndarray of shape (n_landmarks,)
        For a sparse ``X`` only: the landmark objects.
    embedding_ : ndarray of shape (n_samples, n_dimensions)
        For a sparse ``X`` only: the objects' coordinates, whose squared
        distances stand for the completed ``D`` (in the float dtype of ``X``).

    Notes
    -----
    A dense ``D`` costs ``n^2`` memory, and each product reads all of it.

    A sparse ``X`` (with ``metric="precomputed"``) is a neighbour graph, for
    example ``sklearn.neighbors.kneighbors_graph(points, 10, mode="distance")``:
    the stored entries are the known dissimilarities (an explicitly stored 0
    is a known 0), a pair stored one way is known both ways, and the pairs not
    stored are completed by the length of the shortest path between them
    along stored pairs. The stored values should therefore be lengths that add
    along a path (distances, not squared distances); pairs in different
    connected components get the largest path length, with a warning. The
    completed ``D`` is held through ``n_landmarks`` landmarks: the path lengths
    from each landmark to every object, and the landmark multidimensional
    scaling of them, the points ``embedding_`` whose squared distances
    approximate ``D`` (it keeps the directions above the largest negative
    eigenvalue of the landmarks' Gram matrix). The annealing then runs on
    ``|y_i - y_j|^2``, in memory and time linear in ``n``: at n = 10^5 with ten
    neighbours and 100 landmarks, about 0.3 GB against the 80 GB of a dense
    ``D``. On overlapping blobs it gives the partitions of the dense ``D`` and of
    spectral clustering of the same graph (``benchmarks/bench_pairwise_graph.py``).
    ``predict`` takes new objects' dissimilarities to the training objects, sparse
    (the stored ones) or dense; their paths to the landmarks run through them.
    The derivation is in ``docs/derivations/pairwise_graph.md``. A sparse ``X``
    that is not square is refused with that reading named; sparse feature
    vectors are clustered with a ``metric`` (``"sqeuclidean"``, ...), whose
    distances take them as they are.

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn.cluster import PairwiseClustering
    >>> x = np.array([0.0, 0.1, 0.2, 5.0, 5.1])
    >>> D = (x[:, None] - x[None, :]) ** 2
    >>> pc = PairwiseClustering(2, random_state=0).fit(D)
    >>> pc.labels_.tolist() in ([0, 0, 0, 1, 1], [1, 1, 1, 0, 0])
    True
    >>> pc.predict_proba(D).shape
    (5, 2)

    A sparse neighbour graph of distances (the missing pairs completed by path lengths):

    >>> from sklearn.neighbors import kneighbors_graph
    >>> points = np.r_[np.linspace(0, 1, 10), np.linspace(3, 4, 10)][:, None]
    >>> graph = kneighbors_graph(points, 10, mode="distance")
    >>> labels = PairwiseClustering(2, random_state=0).fit(graph).labels_
    >>> len(set(labels[:10])), len(set(labels[10:])), bool(labels[0] != labels[-1])
    (1, 1, True)
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_clusters": [Interval(numbers.Integral, 1, None, closed="left")],
        "max_temperature": [
            Interval(numbers.Real, 0, None, closed="neither"),
            StrOptions({"auto"}),
        ],
        "min_temperature": [
            Interval(numbers.Real, 0, None, closed="neither"),
            StrOptions({"auto"}),
        ],
        "cooling_rate": [Interval(numbers.Real, 0, 1, closed="neither")],
        "adaptive": ["boolean"],
        "damping": [Interval(numbers.Real, 0, 1, closed="left")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "noise": [Interval(numbers.Real, 0, None, closed="neither")],
        "metric": [str],
        "n_landmarks": [Interval(numbers.Integral, 2, None, closed="left")],
        "random_state": [*RANDOM_STATE],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        n_clusters=2,
        *,
        max_temperature="auto",
        min_temperature="auto",
        cooling_rate=0.9,
        adaptive=True,
        damping=0.0,
        max_iter=2000,
        tol=1e-7,
        noise=1e-3,
        metric="precomputed",
        n_landmarks=100,
        random_state=None,
        verbose=0,
    ):
        self.n_clusters = n_clusters
        self.max_temperature = max_temperature
        self.min_temperature = min_temperature
        self.cooling_rate = cooling_rate
        self.adaptive = adaptive
        self.damping = damping
        self.max_iter = max_iter
        self.tol = tol
        self.noise = noise
        self.metric = metric
        self.n_landmarks = n_landmarks
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # a dissimilarity matrix has no negative entries (check_dissimilarity refuses them)
        tags.input_tags.pairwise = tags.input_tags.positive_only = self.metric == "precomputed"
        # a sparse precomputed X is a neighbour graph; sparse features go to the metric
        tags.input_tags.sparse = True
        return proba_width_tags(tags, self.n_clusters)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Cluster the objects of the dissimilarity matrix ``X``.

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n_samples, n_samples) or (n_samples, n_features)
            Dissimilarities (see :func:`check_dissimilarity`), a sparse
            neighbour graph of them (see Notes), or feature vectors (dense or
            sparse) when ``metric`` is not ``"precomputed"``. float32 input is
            accepted (the fit computes in float64; :meth:`predict_proba` and
            :meth:`assignment_costs` return the float dtype of their input).
        y : None
            Ignored.
        sample_weight : array_like of shape (n_samples,), default=None
            Weight of each object: each pair's term of the cost is multiplied
            by ``w_i w_j`` and cluster sizes are sums of weights,
            ``R = sum_nu (1/(2 m_nu)) sum_{i,j in nu} w_i w_j D_ij``,
            ``m_nu = sum_{i in nu} w_i``; the mean fields are those of this cost
            (``h = D W P / m - ...``, the priors ``m_nu / sum w``) and each
            object's entropy counts ``w_i`` times. An integer weight is the
            object repeated that many times with its copies kept together (they
            are at dissimilarity 0), a zero weight drops it (its label is then
            that of its least mean field). With weights the final moves are
            single-object moves only (no split-and-merge moves).

        Returns
        -------
        self
        """
        check_metric(self.metric)
        rng = check_random_state(self.random_state)
        self._completion = self._product = None
        if self.metric == "precomputed" and sp.issparse(X):
            X = validate_named(
                self,
                X,
                accept_sparse=["csr", "csc", "coo"],
                dtype=[np.float64, np.float32],
                reset=True,
                ensure_min_samples=2,
            )
            n = X.shape[0]
            self._check_n_clusters(n)
            graph = check_dissimilarity_graph(X, "X")
            self._completion = GraphCompletion(self.n_landmarks, rng).fit(graph)
            self.landmarks_ = self._completion.landmarks_
            # the products read the float64 coordinates; the attribute keeps X's dtype
            self.embedding_ = self._completion.embedding_.astype(X.dtype, copy=False)
            self._X_fit = None
            product = self._product = EmbeddedProduct(self._completion.coordinates_t_)
        else:
            # D is only read (products D @ Z): a symmetric input is not copied.
            D, self._X_fit, _ = dissimilarities(self, X, reset=True, copy=False)
            n = D.shape[0]
            self._check_n_clusters(n)
            product = ProductCounter(D)
        self._sample_weight = effective_weights(sample_weight, np.empty((n, 0)))
        # the products run on numba's threads; the O(nK) BLAS calls between them gain
        # nothing from threads of their own, whose spinning slows the products
        with one_blas_thread():
            self._anneal(product, n, rng)
        return self

    def _check_n_clusters(self, n):
        if self.n_clusters > n:
            raise ValueError(f"n_clusters={self.n_clusters} must be <= n_samples={n}")

    def _anneal(self, product, n, rng):
        """The fit proper, from the products ``D @ Z`` of the ``n`` objects: the annealing
        path and its results."""
        w = self._sample_weight
        raw = product
        if w is not None:
            # the weighted cost's products are D @ (W Z)
            product = Weighted(raw, w)
        total = float(n) if w is None else float(w.sum())
        row_sums = product(np.ones(n))
        # Squared-Euclidean DA splits at 2 lambda_max of the covariance, whose nonzero
        # eigenvalues are those of the centred Gram matrix -Q D Q / 2 divided by n: found by
        # Lanczos (a few products) rather than a dense O(n^3) eigendecomposition.
        grand = row_sums.sum() if w is None else w @ row_sums
        h = (row_sums / total - 0.5 * grand / total**2)[:, None]
        t_c, vectors, directions = cluster_critical_temperatures(
            np.ones((n, 1)) if w is None else w[:, None],
            h,
            np.array([total]),
            raw,
            starts=[rng.standard_normal(n)],
            tol=1e-9,
            max_steps=min(n, 300),
        )
        self.critical_temperature_ = float(t_c[0])
        scale = max(self.critical_temperature_, float(grand) / total**3, _TINY)
        t_min = 1e-4 * scale if self.min_temperature == "auto" else float(self.min_temperature)
        t_max = (
            max(2.0 * scale, 2.0 * t_min)
            if self.max_temperature == "auto"
            else self.max_temperature
        )
        if self.verbose:
            print(
                f"Initialization complete: critical temperature {self.critical_temperature_:.6g}."
            )
        temps = GeometricSchedule(t_max, t_min, self.cooling_rate)
        P, path = pairwise_anneal(
            product,
            row_sums,
            self.n_clusters,
            temps,
            rng=rng,
            noise=self.noise,
            damping=self.damping,
            max_iter=self.max_iter,
            tol=self.tol,
            first_vector=vectors[0],
            first_direction=directions[:, 0],
            first_critical=self.critical_temperature_,
            adaptive=self.adaptive,
            verbose=self.verbose,
        )
        warn_annealing("PairwiseClustering", P, path, self.n_clusters, self.max_iter)
        labels = np.argmax(P, axis=1)
        if isinstance(raw, ProductCounter) and P.shape[1] > 1:
            # the last temperature's mean-field fixed point need not be a local minimum of
            # the hard cost: single-object moves take its labels to one, split-and-merge
            # moves exchange whole clusters, and the assignments become those labels (the
            # fixed point they leave is not theirs)
            start = labels
            if w is None:
                labels, n_moves = pair_moves(raw.D, labels, P.shape[1], normalised=True)
                labels = pair_split_merge(raw.D, labels, P.shape[1], normalised=True)
            else:
                labels, n_moves = weighted_pair_moves(raw.D, labels, P.shape[1], w, normalised=True)
            if not np.array_equal(labels, start):
                P = (labels[:, None] == np.arange(P.shape[1])).astype(float)
            if self.verbose:
                print(f"Final moves: {n_moves} single-object moves to a local minimum of the cost.")
        self.assignments_ = P
        self.labels_ = labels
        # One product serves the mean fields of predict and the cost of the labels.
        onehot = (self.labels_[:, None] == np.arange(P.shape[1])).astype(float)
        G = product(np.hstack([P, onehot]))
        K = P.shape[1]
        if w is None:
            mass = np.maximum(P.sum(axis=0), _TINY)
            self._within = np.einsum("jk,jk->k", P, G[:, :K]) / mass / mass
            sizes = np.maximum(onehot.sum(axis=0), 1.0)
            self.cost_ = 0.5 * float(np.sum(np.einsum("jk,jk->k", onehot, G[:, K:]) / sizes))
        else:
            mass = np.maximum(w @ P, _TINY)
            self._within = w @ (P * G[:, :K]) / mass / mass
            sizes = np.maximum(w @ onehot, _TINY)
            self.cost_ = 0.5 * float(np.sum(w @ (onehot * G[:, K:]) / sizes))
        self.path_ = path
        self.n_iter_ = int(sum(path.n_iter))
        self.n_products_ = int(product.count)
        self.temperature_ = float(path.temperature[-1])
        self._n_train = n

    def _weighted_assignments(self):
        """``(W P, w @ P)``: the assignments as the mean fields weigh them, and the masses."""
        P = self.assignments_
        if getattr(self, "_sample_weight", None) is None:
            return P, P.sum(axis=0)
        w = self._sample_weight
        return P * w[:, None], w @ P

    def predict(self, X):
        """Cluster of lowest mean field for new objects.

        Parameters
        ----------
        X : array_like of shape (n_new, n_train) or (n_new, n_features)
            With ``metric="precomputed"``, ``X[a, i]`` is the dissimilarity of
            new object ``a`` to training object ``i``; otherwise feature vectors.

        Returns
        -------
        ndarray of shape (n_new,)
        """
        return np.argmin(self._fields(X), axis=1)

    def assignment_costs(self, X):
        """Mean fields ``h`` of new objects: the cost of joining each cluster.

        The assignment at temperature ``T`` is ``∝ w exp(-h / T)``
        (:meth:`predict_proba` at ``temperature_``); posterior agreement scans ``T``.

        Parameters
        ----------
        X : array_like of shape (n_new, n_train) or (n_new, n_features)
            As in :meth:`predict`.

        Returns
        -------
        ndarray of shape (n_new, n_found)
            In the float dtype of ``X``.
        """
        h, dtype = self._fields(X, with_dtype=True)
        return h.astype(dtype, copy=False)

    def predict_proba(self, X):
        """Mean-field assignment probabilities of new objects at ``temperature_``.

        Parameters
        ----------
        X : array_like of shape (n_new, n_train) or (n_new, n_features)
            As in :meth:`predict`.

        Returns
        -------
        ndarray of shape (n_new, n_found)
        """
        h, dtype = self._fields(X, with_dtype=True)
        _, mass = self._weighted_assignments()
        P = gibbs_assignments(h, self.temperature_, np.log(mass / mass.sum()))[0]
        return P.astype(dtype, copy=False)

    def _fields(self, X, with_dtype=False):
        check_is_fitted(self)
        n = self._n_train
        if self._completion is not None:
            h, dtype = self._graph_fields(X)
            return (h, dtype) if with_dtype else h
        # as in fit: n_features_in_ is n_train for a precomputed matrix
        sparse_ok = ("csr", "csc") if self.metric != "precomputed" else False
        X = validate_named(
            self, X, accept_sparse=sparse_ok, dtype=[np.float64, np.float32], reset=False
        )
        dtype = X.dtype
        if self.metric != "precomputed":
            X = feature_rows(X, self.metric)
            if self.metric == "sqeuclidean":
                X = euclidean_distances(X, self._X_fit, squared=True)
            else:
                X = pairwise_distances(X, self._X_fit, metric=self.metric)
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[1] != n:
            raise ValueError(
                f"X must have shape (n_new, {n}) (dissimilarities to the training objects), "
                f"got {X.shape}"
            )
        if not np.all(np.isfinite(X)) or np.any(X < 0):
            raise ValueError("X must be finite and non-negative")
        WP, mass = self._weighted_assignments()
        h = X @ WP / mass - 0.5 * self._within
        return (h, dtype) if with_dtype else h

    def _graph_fields(self, X):
        """Mean fields of new objects after a fit on a sparse graph: their coordinates from
        their paths to the landmarks, then ``D_new @ P`` of the squared distances."""
        X = validate_named(
            self,
            X,
            accept_sparse=["csr", "csc", "coo"],
            dtype=[np.float64, np.float32],
            reset=False,
        )
        dtype = X.dtype
        X = X.astype(np.float64)
        values = X.data if sp.issparse(X) else X
        if np.any(values < 0):
            raise ValueError(
                f"X must be non-negative dissimilarities, smallest {float(values.min()):g}"
            )
        Y = self._completion.embed(self._completion.landmark_distances(X))
        WP, mass = self._weighted_assignments()
        return self._product.rows(Y, WP) / mass - 0.5 * self._within, dtype


def pairwise_cost(D, labels):
    """``R = sum_nu (1/(2 n_nu)) sum_{i,j in nu} D_ij`` of a hard partition.

    Parameters
    ----------
    D : ndarray of shape (n, n)
    labels : ndarray of shape (n,)

    Returns
    -------
    float
    """
    D = check_dissimilarity(D, "D")
    labels = check_partition(labels, D.shape[0])
    total = 0.0
    for k in np.unique(labels):
        idx = labels == k
        total += D[np.ix_(idx, idx)].sum() / (2.0 * idx.sum())
    return float(total)
