"""Kohonen's on-line self-organising map, and the two errors every SOM is judged by (§3.5).

The on-line rule moves every unit towards the presented sample,

    y_nu <- y_nu + eta(t) h(c(x), nu; t) (x - y_nu),    c(x) = argmin_mu |x - y_mu|,

with a Gaussian neighbourhood ``h(r, nu) = exp(-|g_r - g_nu|^2 / (2 sigma(t)^2))`` on
the grid coordinates ``g``. With a fixed neighbourhood it is the stochastic
approximation of the batch map ``y_nu = sum_i h(c(i), nu) x_i / sum_i h(c(i), nu)``,
the zero-temperature fixed point of the noisy-channel cost that
:class:`~statmechlearn.cluster.TopologicalVQ` anneals, except that Kohonen
takes the nearest unit as winner instead of the one of least expected cost
``sum_nu T[mu, nu] |x - y_nu|^2`` (``docs/derivations/topographic_vq.md``).

:func:`som_epochs` is the compiled loop over the presented samples and
:func:`som_epochs_numpy` its plain-NumPy twin (the same arithmetic, one step at
a time, vectorised over the units); the tests hold one to the other.
"""

import numbers
from typing import ClassVar

import numba
import numpy as np
import scipy.sparse as sp
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
from statmechlearn._core.validation import (
    RANDOM_STATE,
    check_array_finite,
    check_magnitude,
    validate_named,
)
from statmechlearn.cluster._checks import check_scale
from statmechlearn.cluster._inputs import dense_float64, effective_weights

__all__ = [
    "KohonenSOM",
    "quantization_error",
    "som_epochs",
    "som_epochs_numpy",
    "topographic_error",
]

#: Units closer than this on the grid are neighbours: the two (chain) or eight
#: (rectangle) surrounding units, MiniSom's convention.
_NEIGHBOUR_DISTANCE = 1.42


def _check_grid_shape(grid_shape, name="grid_shape"):
    """``grid_shape`` as a tuple of one or two positive ints, or an error naming it."""
    if isinstance(grid_shape, numbers.Integral) and not isinstance(grid_shape, bool):
        shape = (grid_shape,)
    elif isinstance(grid_shape, tuple | list | np.ndarray):
        shape = tuple(np.asarray(grid_shape, dtype=object).ravel())
    else:
        raise TypeError(
            f"{name} must be a positive int or a tuple of one or two positive ints, "
            f"got {grid_shape!r}"
        )
    if not 1 <= len(shape) <= 2 or not all(
        isinstance(s, numbers.Integral) and not isinstance(s, bool) and s >= 1 for s in shape
    ):
        raise ValueError(
            f"{name} must be a positive int or a tuple of one or two positive ints, "
            f"got {grid_shape!r}"
        )
    return tuple(int(s) for s in shape)


def _grid_coordinates(shape):
    axes = np.meshgrid(*[np.arange(s, dtype=float) for s in shape], indexing="ij")
    return np.column_stack([a.ravel() for a in axes])


def _check_codebook(X, codebook):
    X = check_array_finite(X, "X", ndim=2)
    if 0 in X.shape:
        raise ValueError(f"X must hold at least one sample and one feature, got {X.shape}")
    check_magnitude(X, "X")
    Y = check_array_finite(codebook, "codebook", ndim=2)
    if Y.shape[0] == 0 or Y.shape[1] != X.shape[1]:
        raise ValueError(
            f"codebook must have shape (n_units >= 1, {X.shape[1]}) to match X, got {Y.shape}"
        )
    check_magnitude(Y, "codebook")
    return X, Y


def _som_errors(D, grid):
    """Quantisation and topographic errors from the squared distances ``D`` to the units."""
    rows = np.arange(D.shape[0])
    if D.shape[1] < 2:
        return float(np.mean(np.sqrt(D[:, 0]))), 0.0
    # the two nearest units without sorting every row
    two = np.argpartition(D, 1, axis=1)[:, :2]
    swap = D[rows, two[:, 1]] < D[rows, two[:, 0]]
    two[swap] = two[swap, ::-1]
    quantization = float(np.mean(np.sqrt(D[rows, two[:, 0]])))
    gap = np.linalg.norm(grid[two[:, 0]] - grid[two[:, 1]], axis=1)
    return quantization, float(np.mean(gap > _NEIGHBOUR_DISTANCE))


def quantization_error(X, codebook):
    """Mean Euclidean distance from each sample to its nearest codebook vector.

    The usual SOM quantisation error (MiniSom's definition): the mean
    ``|x_i - y_c(i)|``, ``c(i)`` the nearest unit; not squared, so for ``k``
    equal cells on ``[0, 1]`` it is ``1 / (4 k)``.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
    codebook : array_like of shape (n_units, n_features)

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn.cluster import quantization_error
    >>> quantization_error(np.array([[0.0], [1.0], [3.0]]), np.array([[0.0], [2.0]]))
    0.6666666666666666
    """
    X, Y = _check_codebook(X, codebook)
    return _som_errors(squared_distances(X, Y), np.zeros((Y.shape[0], 1)))[0]


def topographic_error(X, codebook, grid_shape):
    """Share of samples whose two nearest codebook vectors are not grid neighbours.

    Units are neighbours at grid distance below 1.42: the two surrounding
    units on a chain, the eight on a rectangle (MiniSom's convention). The
    codebook's rows are the units in C order of the grid (row by row).

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
    codebook : array_like of shape (n_units, n_features)
    grid_shape : int or tuple of one or two ints
        ``n_units`` on a chain (int or 1-tuple) or a rectangle (2-tuple).

    Returns
    -------
    float
        In ``[0, 1]``; 0 for a single unit.

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn.cluster import topographic_error
    >>> X = np.array([[0.1], [0.9], [2.1]])
    >>> topographic_error(X, np.array([[0.0], [1.0], [2.0]]), 3)  # an ordered chain
    0.0
    >>> topographic_error(X, np.array([[0.0], [2.0], [1.0]]), 3)  # a twisted one
    0.6666666666666666
    """
    X, Y = _check_codebook(X, codebook)
    shape = _check_grid_shape(grid_shape)
    if int(np.prod(shape)) != Y.shape[0]:
        raise ValueError(
            f"grid_shape={grid_shape!r} has {int(np.prod(shape))} units but codebook has "
            f"{Y.shape[0]} rows; they must agree"
        )
    return _som_errors(squared_distances(X, Y), _grid_coordinates(shape))[1]


@numba.njit(cache=True, nogil=True)
def som_epochs(codebook, X, order, grid_sq, learning_rates, sigmas):  # pragma: no cover
    """Kohonen's on-line rule over the samples ``X[order[t]]``, in place; compiled.

    Step ``t`` finds the nearest unit ``c`` of ``x = X[order[t]]`` (first of
    equals) and moves every unit by ``learning_rates[t] * exp(-grid_sq[c, nu]
    / (2 sigmas[t]^2)) * (x - y_nu)``.

    Parameters
    ----------
    codebook : ndarray of shape (n_units, n_features)
        Updated in place.
    X : ndarray of shape (n_samples, n_features)
    order : ndarray of int of shape (n_steps,)
    grid_sq : ndarray of shape (n_units, n_units)
        Squared grid distances of the units.
    learning_rates, sigmas : ndarray of shape (n_steps,)

    Returns
    -------
    ndarray of shape (n_steps,)
        The winner of each step.
    """
    K, d = codebook.shape
    winners = np.empty(order.shape[0], dtype=np.int64)
    for t in range(order.shape[0]):
        x = X[order[t]]
        best = 0
        best_d = np.inf
        for k in range(K):
            s = 0.0
            for j in range(d):
                diff = x[j] - codebook[k, j]
                s += diff * diff
            if s < best_d:
                best_d = s
                best = k
        winners[t] = best
        scale = -0.5 / (sigmas[t] * sigmas[t])
        for k in range(K):
            step = learning_rates[t] * np.exp(grid_sq[best, k] * scale)
            for j in range(d):
                codebook[k, j] += step * (x[j] - codebook[k, j])
    return winners


def som_epochs_numpy(codebook, X, order, grid_sq, learning_rates, sigmas):
    """Plain-NumPy twin of :func:`som_epochs` (same contract, same arithmetic)."""
    winners = np.empty(len(order), dtype=np.int64)
    for t, i in enumerate(order):
        x = X[i]
        diff = x - codebook
        best = int(np.argmin(np.sum(diff * diff, axis=1)))
        winners[t] = best
        step = learning_rates[t] * np.exp(grid_sq[best] * (-0.5 / (sigmas[t] * sigmas[t])))
        codebook += step[:, None] * (x - codebook)
    return winners


class KohonenSOM(ClusterMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Kohonen's on-line self-organising map on a chain or a rectangle.

    For each presented sample ``x`` the winner is the nearest unit
    ``c = argmin_mu |x - y_mu|`` and every unit moves towards ``x``:
    ``y_nu += eta(t) h(c, nu; t) (x - y_nu)`` with the Gaussian neighbourhood
    ``h(c, nu; t) = exp(-|g_c - g_nu|^2 / (2 sigma(t)^2))`` on the grid (notes
    §3.5). Learning rate and width shrink geometrically from their initial
    to their final values over the ``max_iter * n_samples`` steps. With
    ``sigma == final_sigma`` the neighbourhood is fixed and the map is the
    stochastic approximation of the zero-temperature limit of the noisy-channel
    cost that :class:`TopologicalVQ` anneals (with the nearest unit standing
    in for the winner of least expected cost; see
    ``docs/derivations/topographic_vq.md``).

    The rule minimises no cost: for a continuous distribution of inputs
    Kohonen's on-line update is not the gradient of any energy function
    (Erwin, Obermayer & Schulten 1992), and its labels are the nearest
    units, not a minimum of the noisy-channel cost. The map that does
    minimise that cost, and ends at a local minimum of it checked against
    exhaustive enumeration on small data, is :class:`TopologicalVQ`.

    Parameters
    ----------
    grid_shape : int or tuple of int, default=(5, 5)
        Units on a chain (int or 1-tuple) or a rectangle (2-tuple).
    learning_rate : float, default=0.5
        Initial learning rate ``eta(0)``, in (0, 1].
    final_learning_rate : float, default=0.01
        Learning rate of the last step, in (0, 1].
    sigma : float or "auto", default="auto"
        Initial neighbourhood width in grid units (> 0); "auto" is half the
        longest side of the grid, at least 1.
    final_sigma : float, default=0.5
        Neighbourhood width of the last step, in grid units (> 0).
    max_iter : int, default=20
        Epochs: passes over the data, each in a fresh random order (as the
        ``max_iter`` of scikit-learn's stochastic-gradient estimators); the
        schedules run over ``max_iter * n_samples`` on-line steps.
    init : {"auto", "random", "pca"} or array-like of shape (K, n_features), \
default="auto"
        "auto": "random" when the data have at least ``K`` rows, else "pca"
        (a map of more units than samples, which "random" cannot draw);
        "random": ``K`` distinct samples; "pca": the grid laid out on the
        plane of the two leading principal axes, spanning two standard
        deviations each way; an array: that codebook (in grid order), e.g.
        a coarse map to fine-tune with a small fixed neighbourhood
        (Kohonen's ordering and convergence phases).
    random_state : None, int, RandomState or Generator, default=None
    verbose : int, default=0
        At 1 or more, print one line per epoch (learning rate, width and the
        quantisation error of the training data).

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (K, n_features)
        Codebook ``y_nu``, in grid order (row by row on a rectangle), in the
        float dtype of ``X``.
    grid_ : ndarray of shape (K, 1 or 2)
        Grid coordinates of the units.
    labels_ : ndarray of shape (n_samples,)
        Nearest unit of each training sample.
    quantization_error_ : float
        :func:`quantization_error` of the training data.
    topographic_error_ : float
        :func:`topographic_error` of the training data.
    n_iter_ : int
        Epochs run (``max_iter``; the on-line rule has no stopping test).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Defined when ``X`` has string column names.

    See Also
    --------
    TopologicalVQ : the same cost as a noisy-channel code, annealed in batch.
    minisom.MiniSom : the usual on-line SOM (the peer in ``maxent-som``).

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn.cluster import KohonenSOM
    >>> X = np.random.default_rng(0).uniform(0, 1, (500, 1))
    >>> som = KohonenSOM(grid_shape=5, max_iter=10, random_state=0).fit(X)
    >>> c = som.cluster_centers_[:, 0]
    >>> bool(np.all(np.diff(c) > 0) or np.all(np.diff(c) < 0))  # ordered along the chain
    True
    >>> som.topographic_error_
    0.0
    >>> round(som.quantization_error_, 2)  # 1 / (4 * 5) for five equal cells
    0.05
    >>> som.transform(X[:3]).shape
    (3, 5)
    """

    _parameter_constraints: ClassVar[dict] = {
        "grid_shape": [Interval(numbers.Integral, 1, None, closed="left"), tuple],
        "learning_rate": [Interval(numbers.Real, 0, 1, closed="right")],
        "final_learning_rate": [Interval(numbers.Real, 0, 1, closed="right")],
        "sigma": [Interval(numbers.Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "final_sigma": [Interval(numbers.Real, 0, None, closed="neither")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "init": [StrOptions({"auto", "random", "pca"}), "array-like"],
        "random_state": [*RANDOM_STATE],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        grid_shape=(5, 5),
        *,
        learning_rate=0.5,
        final_learning_rate=0.01,
        sigma="auto",
        final_sigma=0.5,
        max_iter=20,
        init="auto",
        random_state=None,
        verbose=0,
    ):
        self.grid_shape = grid_shape
        self.learning_rate = learning_rate
        self.final_learning_rate = final_learning_rate
        self.sigma = sigma
        self.final_sigma = final_sigma
        self.max_iter = max_iter
        self.init = init
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    def _schedules(self, shape, n_steps):
        """Geometric learning-rate and width schedules, first step to last."""
        sigma0 = max(1.0, max(shape) / 2.0) if self.sigma == "auto" else float(self.sigma)
        frac = np.arange(n_steps) / max(n_steps - 1, 1)
        eta0, eta1 = float(self.learning_rate), float(self.final_learning_rate)
        sigma1 = float(self.final_sigma)
        return eta0 * (eta1 / eta0) ** frac, sigma0 * (sigma1 / sigma0) ** frac

    def _initial_codebook(self, X, grid, rng):
        K = grid.shape[0]
        if not isinstance(self.init, str):
            Y = check_array_finite(self.init, "init", ndim=2)
            if Y.shape != (K, X.shape[1]):
                raise ValueError(
                    f"init must have shape (K={K}, n_features={X.shape[1]}) for "
                    f"grid_shape={self.grid_shape!r}, got {Y.shape}"
                )
            return check_scale(Y, "init").copy()
        if self.init == "random" or (self.init == "auto" and K <= X.shape[0]):
            return X[rng.choice(X.shape[0], size=K, replace=False)].copy()
        mean = X.mean(axis=0)
        _, s, Vt = np.linalg.svd(X - mean, full_matrices=False)
        std = s / np.sqrt(X.shape[0])
        Y = np.tile(mean, (K, 1))
        for a in range(min(grid.shape[1], Vt.shape[0])):
            side = grid[:, a].max()
            # units spread over +-2 standard deviations of principal axis a
            u = 2.0 * grid[:, a] / side - 1.0 if side > 0 else np.zeros(K)
            Y += (2.0 * std[a] * u)[:, None] * Vt[a]
        return Y

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Train the map on-line on ``X``.

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n_samples, n_features)
            Sparse input is converted to a dense array (each on-line step moves
            every unit towards a dense row). float32 input is kept: the codebook
            and :meth:`transform` are float32 (the rule runs in float64).
        y : None
            Ignored.
        sample_weight : array_like of shape (n_samples,), default=None
            Scales each sample's on-line step: ``y_nu += min(1, eta(t) w_i / w̄)
            h(c, nu; t) (x_i - y_nu)``, ``w̄`` the mean weight, so that a sample
            pulls the map in proportion to its weight and the expected step is
            that of the weighted batch map
            ``y_nu = sum_i w_i h(c(i), nu) x_i / sum_i w_i h(c(i), nu)``. A zero
            weight leaves the map where it is at that sample's steps. The rule
            minimises no cost, so an integer weight is not exactly a repeated
            row: the repeats would be presented at other steps of the schedule.

        Returns
        -------
        self
        """
        X = validate_named(
            self,
            X,
            accept_sparse=("csr", "csc"),
            dtype=[np.float64, np.float32],
            ensure_min_samples=2,
        )
        dtype = X.dtype
        X = check_scale(dense_float64(X))
        w = effective_weights(sample_weight, X)
        shape = _check_grid_shape(self.grid_shape)
        grid = _grid_coordinates(shape)
        K, n = grid.shape[0], X.shape[0]
        if isinstance(self.init, str) and self.init == "random" and K > n:
            raise ValueError(
                f"grid_shape={self.grid_shape!r} has K={K} units > n_samples={n}; "
                'init="random" draws K distinct samples (use init="pca", or "auto", which picks it)'
            )
        rng = check_random_state(self.random_state)
        Y = self._initial_codebook(X, grid, rng)
        order = np.concatenate([rng.permutation(n) for _ in range(self.max_iter)])
        learning_rates, sigmas = self._schedules(shape, order.shape[0])
        steps = learning_rates
        if w is not None:
            steps = np.minimum(learning_rates * (w / w.mean())[order], 1.0)
        grid_sq = squared_distances(grid, grid)
        X = np.ascontiguousarray(X)
        # One call per epoch (the rule is sequential, so the codebook is the same as from
        # one call over all steps) lets a verbose fit report each epoch.
        for epoch in range(self.max_iter):
            span = slice(epoch * n, (epoch + 1) * n)
            som_epochs(Y, X, order[span], grid_sq, steps[span], sigmas[span])
            if self.verbose:
                error = _som_errors(squared_distances(X, Y), grid)[0]
                print(
                    f"Epoch {epoch + 1}/{self.max_iter}: learning rate "
                    f"{learning_rates[span.stop - 1]:.4g}, sigma {sigmas[span.stop - 1]:.4g}, "
                    f"quantization error {error:.6g}."
                )
        self.grid_ = grid
        self.cluster_centers_ = Y.astype(dtype, copy=False)
        D = squared_distances(X, Y)
        self.labels_ = np.argmin(D, axis=1)
        self.quantization_error_, self.topographic_error_ = _som_errors(D, grid)
        self.n_iter_ = int(self.max_iter)
        return self

    def _check_X(self, X):
        check_is_fitted(self)
        X = validate_named(
            self, X, accept_sparse=("csr", "csc"), dtype=[np.float64, np.float32], reset=False
        )
        return X.toarray() if sp.issparse(X) else X

    @property
    def _n_features_out(self):
        """Number of output columns of :meth:`transform` (for ``get_feature_names_out``)."""
        return self.cluster_centers_.shape[0]

    def transform(self, X):
        """Euclidean distance of each sample to each unit.

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, K)
            In the float dtype of ``X``.
        """
        X = self._check_X(X)
        return np.sqrt(squared_distances(X, self.cluster_centers_)).astype(X.dtype, copy=False)

    def predict(self, X):
        """Nearest unit (the winner) of each sample.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return np.argmin(squared_distances(self._check_X(X), self.cluster_centers_), axis=1)
