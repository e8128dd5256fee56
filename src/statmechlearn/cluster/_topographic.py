"""Soft topographic vector quantisation: the self-organising map as a noisy-channel code (§3.5).

The cost ``R = sum_i sum_nu T[c(i), nu] |x_i - y_nu|^2`` charges an object
sent as index ``c(i)`` for every index ``nu`` the channel may turn it into,
``T[r, nu]`` being the probability that ``r`` is received as ``nu``. With a
neighbourhood kernel on a 1-D or 2-D grid the codebook becomes a map whose
neighbours hold similar vectors (Kohonen's map, Luttrell's and Graepel,
Burger & Obermayer's derivation). The cost is linear in the assignments, so
its Gibbs distribution factorises: ``P[i, r] ∝ exp(-h[i, r] / T)`` with
``h = D T^T``, ``D[i, nu] = |x_i - y_nu|^2``, and the centroids are
``y_nu = sum_i (P T)[i, nu] x_i / sum_i (P T)[i, nu]``. Deterministic
annealing over ``T`` unfolds the map at the critical temperature
``T_c = 2 lambda_max(C) mu_max(M)`` (``C`` the data covariance, ``M`` the
linearised neighbourhood operator, see :func:`topographic_critical_temperature`).

Above ``T_c`` the collapsed codebook is the exact, stable fixed point, so the
anneal starts iterating only there (the schedule lands just below ``T_c``).
Each iteration works on the sufficient statistics ``P^T X`` and ``P^T 1``
(:mod:`statmechlearn.cluster._topographic_kernel`): two ``n x d x K``
products and ``n K`` exponentials, no ``n x K x K`` product; SQUAREM
extrapolation shortens the slow convergence near the ordering transitions,
and each temperature starts from a linear prediction along the path.
"""

import numbers
from contextlib import nullcontext
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from scipy.spatial.distance import cdist
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
from statmechlearn._core.threads import one_blas_thread
from statmechlearn._core.validation import (
    RANDOM_STATE,
    check_array_finite,
    check_magnitude,
    check_real,
    validate_named,
)
from statmechlearn._core.warn import warn
from statmechlearn.cluster._checks import check_scale
from statmechlearn.cluster._inputs import dense_float64, effective_weights, proba_width_tags
from statmechlearn.cluster._kohonen import _grid_coordinates, _som_errors
from statmechlearn.cluster._maxent import AssignmentPath, gibbs_assignments
from statmechlearn.cluster._polish import map_moves
from statmechlearn.cluster._schedule import GeometricSchedule, run_schedule
from statmechlearn.cluster._split_merge import map_relocate
from statmechlearn.cluster._topographic_kernel import (
    centres,
    smoothed_codebook,
    solve_temperature,
)
from statmechlearn.cluster._weighted_moves import weighted_map_moves
from statmechlearn.theory.annealing import critical_temperature

__all__ = ["TopologicalVQ", "grid_transmission", "topographic_critical_temperature"]

_TINY = 1e-300
# n d K below which the fit keeps BLAS to one thread (see fit)
_SMALL = 1 << 24


def _grid(grid_shape):
    shape = (grid_shape,) if isinstance(grid_shape, numbers.Integral) else tuple(grid_shape)
    if not 1 <= len(shape) <= 2 or any(int(s) < 1 for s in shape):
        raise ValueError(
            f"grid_shape must be a positive int or a tuple of one or two positive ints, "
            f"got {grid_shape!r}"
        )
    return _grid_coordinates(tuple(int(s) for s in shape))


def grid_transmission(grid, sigma):
    """Channel matrix of a Gaussian neighbourhood on a grid.

    ``T[r, nu] ∝ exp(-|g_r - g_nu|^2 / (2 sigma^2))``, each row normalised:
    the probability that index ``r`` is received as ``nu``.

    Parameters
    ----------
    grid : ndarray of shape (K, 1 or 2)
        Grid coordinates of the units.
    sigma : float
        Neighbourhood width in grid units, ``>= 0``; ``0`` is the noiseless
        channel (``T = I``, plain clustering).

    Returns
    -------
    ndarray of shape (K, K)
    """
    grid = check_array_finite(grid, "grid", ndim=2)
    if 0 in grid.shape:
        raise ValueError(f"grid must hold at least one unit with coordinates, got {grid.shape}")
    sigma = check_real(sigma, "sigma", minimum=0.0)
    K = grid.shape[0]
    if sigma == 0:
        return np.eye(K)
    # distances in units of sigma: no overflow of d^2 or sigma^2 at extreme scales
    G = grid / sigma
    d2 = ((G[:, None, :] - G[None, :, :]) ** 2).sum(-1)
    T = np.exp(-d2 / 2.0)
    return T / T.sum(axis=1, keepdims=True)


def topographic_critical_temperature(X, transmission):
    """Temperature at which the collapsed codebook (all ``y_nu`` at the mean) becomes unstable.

    Linearising the fixed point about ``y_nu = mean(X)`` gives
    ``delta = (2/T) C delta M^T`` with
    ``M = diag(1/c) T^T (I - 1 1^T / K) T``, ``c_nu = sum_r T[r, nu]``:
    the collapse is stable while ``T > T_c = 2 lambda_max(C) mu_max(M)``, and
    the map first unfolds along the leading principal axis.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    transmission : ndarray of shape (K, K)

    Returns
    -------
    float
    """
    X = check_array_finite(X, "X", ndim=2)
    if 0 in X.shape:
        raise ValueError(f"X must hold at least one sample and one feature, got {X.shape}")
    check_magnitude(X, "X")
    T = check_array_finite(transmission, "transmission", ndim=2)
    K = T.shape[0]
    if T.shape != (K, K) or K == 0:
        raise ValueError(f"transmission must be a non-empty square matrix, got {T.shape}")
    if np.any(T < 0) or not np.allclose(T.sum(axis=1), 1.0, rtol=0.0, atol=1e-8):
        raise ValueError("transmission must be row-stochastic: entries >= 0, rows summing to 1")
    return _critical(X, T)


def _critical(X, T, sample_weight=None):
    """:func:`topographic_critical_temperature` of checked arguments, the covariance
    weighted by ``sample_weight`` (None: equal weights)."""
    K = T.shape[0]
    t_c = critical_temperature(_covariance(X, sample_weight))
    if K == 1:
        return 0.0
    M = (T.T @ (np.eye(K) - 1.0 / K) @ T) / T.sum(axis=0)[:, None]
    mu = float(np.max(np.real(np.linalg.eigvals(M))))
    return t_c * mu


def _valid_grid(est):
    try:
        _grid(est.grid_shape)
    except (TypeError, ValueError):
        return False
    return True


def _covariance(X, sample_weight=None):
    """Covariance of the rows of ``X``, weighted by ``sample_weight`` (None: equal weights)."""
    if sample_weight is None:
        Xc = X - X.mean(axis=0)
        return Xc.T @ Xc / X.shape[0]
    w = np.asarray(sample_weight, dtype=float)
    Xc = X - w @ X / w.sum()
    return (Xc * w[:, None]).T @ Xc / w.sum()


class TopologicalVQ(ClusterMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Soft topographic vector quantisation (a self-organising map) by deterministic annealing.

    Minimises ``sum_i sum_nu T[c(i), nu] |x_i - y_nu|^2`` (notes §3.5): the
    quantisation error plus the confusion of a noisy channel whose
    transmission matrix ``T`` is a Gaussian neighbourhood of width
    ``sigma`` on a 1-D or 2-D grid of ``K`` units. The units never split or
    merge (the grid is fixed); above :attr:`critical_temperature_` they sit
    together at the mean, below it the map unfolds. At each temperature
    below :attr:`critical_temperature_` the assignments and codebook are
    iterated to their fixed point (batch updates on the sufficient
    statistics: two ``n x d x K`` products and ``n K`` exponentials per
    iteration, SQUAREM-accelerated, started from a linear prediction along
    the annealing path); above it the collapsed codebook is the exact fixed
    point and is not iterated.

    Parameters
    ----------
    grid_shape : int or tuple of int, default=(5, 5)
        ``K`` units on a chain (int or 1-tuple) or a rectangle (2-tuple).
    sigma : float, default=1.0
        Neighbourhood width in grid units (``>= 0``; 0 is plain DA k-means
        with a fixed number of units).
    max_temperature : float or "auto", default="auto"
        First temperature; "auto" is twice :attr:`critical_temperature_` (at
        least twice ``min_temperature``).
    min_temperature : float or "auto", default="auto"
        Last temperature; "auto" is ``1e-3`` times the largest variance of
        the data.
    cooling_rate : float, default=0.8
        Ratio of successive temperatures, in (0, 1). Faster cooling can
        freeze a kink into the map. With every temperature iterated to
        ``tol`` from the predicted start, none of 100 fits of a 5 × 5 map to
        1000 uniform points in the square kept one at 0.8, for ``sigma`` 0.5
        and 1.0 alike, and a 6 × 6 map of the digits reached the
        same codebook as at 0.9 in half the iterations. The default was 0.9
        until the accelerated iteration (with the former plain iteration, 3
        of 150 such fits kept a kink at 0.9).
    max_iter : int, default=500
        Fixed-point iterations (evaluations of the map, extrapolated ones
        included) per temperature.
    tol : float, default=1e-5
        On ``max |Delta P|`` (the codebook then moves by less than about
        ``1e-5`` of the data's spread per iteration).
    noise : float, default=1e-3
        Perturbation at each temperature, which lets the map leave the
        collapsed state once it is unstable (> 0): each codebook vector moves
        by ``noise`` times the data's largest standard deviation over
        ``sqrt(mass)``, as much as a relative perturbation ``noise`` of each
        assignment would move it.
    random_state : None, int, RandomState or Generator, default=None
    verbose : int, default=0
        At 1 or more, print one line per temperature (free energy, distinct
        units, iterations) and the final moves.

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (K, n_features)
        Codebook ``y_nu``, in grid order, in the float dtype of ``X``.
    grid_ : ndarray of shape (K, 1 or 2)
        Grid coordinates of the units.
    transmission_ : ndarray of shape (K, K)
        ``T``.
    labels_ : ndarray of shape (n_samples,)
        The sent index of each sample: least expected cost ``h[i, r]`` under
        the annealed codebook, then single-object moves until none lowers
        the hard cost ``sum_i sum_nu T[c(i), nu] |x_i - y_nu|^2`` (at its
        best codebook): a local minimum of the cost the anneal minimises at
        ``T -> 0``. (Above :attr:`critical_temperature_` the map has not
        unfolded and every sample takes the same index.)
    assignments_ : ndarray of shape (n_samples, K)
        Soft assignments at the last temperature.
    critical_temperature_ : float
        ``T_c`` of the unfolding.
    path_ : AssignmentPath
        Per temperature: free energy ``E - T H``, number of distinct
        codebook vectors, iterations, convergence.
    n_iter_ : int

    See Also
    --------
    minisom.MiniSom : on-line SOM with a shrinking neighbourhood (the usual peer).

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn.cluster import TopologicalVQ
    >>> X = np.linspace(0, 1, 200)[:, None] * [1.0, 0.5]
    >>> som = TopologicalVQ(grid_shape=5, sigma=0.5, random_state=0).fit(X)
    >>> c = som.cluster_centers_[:, 0]
    >>> bool(np.all(np.diff(c) > 0) or np.all(np.diff(c) < 0))  # ordered along the chain
    True
    >>> som.topographic_error(X)
    0.0
    """

    _parameter_constraints: ClassVar[dict] = {
        "grid_shape": [Interval(numbers.Integral, 1, None, closed="left"), tuple],
        "sigma": [Interval(numbers.Real, 0, None, closed="left")],
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
        grid_shape=(5, 5),
        *,
        sigma=1.0,
        max_temperature="auto",
        min_temperature="auto",
        cooling_rate=0.8,
        max_iter=500,
        tol=1e-5,
        noise=1e-3,
        random_state=None,
        verbose=0,
    ):
        self.grid_shape = grid_shape
        self.sigma = sigma
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
        return proba_width_tags(tags, _grid(self.grid_shape).shape[0] if _valid_grid(self) else 0)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Anneal the map on ``X``.

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n_samples, n_features)
            Sparse input is converted to a dense array (the codebook is dense).
            float32 input is kept: the fitted codebook and the outputs of
            :meth:`transform` and :meth:`predict_proba` are float32 (the fit
            computes in float64).
        y : None
            Ignored.
        sample_weight : array_like of shape (n_samples,), default=None
            Weight of each sample in the cost,
            ``sum_i w_i sum_nu T[c(i), nu] |x_i - y_nu|^2``, and in the free
            energy the anneal minimises (each sample's assignment entropy
            times ``w_i``): an integer weight is the sample repeated that many
            times, a zero weight drops it. The codebook is the weighted mean
            ``y_nu = sum_i w_i (P T)[i, nu] x_i / sum_i w_i (P T)[i, nu]``.
            With weights the final single-object moves are made on the
            weighted cost, and the relocation of whole units is left out.

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
        grid = _grid(self.grid_shape)
        K, n = grid.shape[0], X.shape[0]
        n_used = n if w is None else int(np.count_nonzero(w))
        if K > n_used and self.sigma == 0:
            # without a neighbourhood every unit is a cluster of its own, which needs an object
            raise ValueError(
                f"grid_shape={self.grid_shape!r} has K={K} units > n_samples={n_used}"
                + ("" if w is None else " of positive weight")
                + ", which sigma=0 (plain clustering) cannot fill"
            )
        Tm = grid_transmission(grid, float(self.sigma))
        rng = check_random_state(self.random_state)
        scale = 0.5 * critical_temperature(_covariance(X, w))
        t_c = topographic_critical_temperature(X, Tm) if w is None else _critical(X, Tm, w)
        t_min = (
            1e-3 * max(scale, _TINY)
            if self.min_temperature == "auto"
            else float(self.min_temperature)
        )
        t_max = (
            max(2.0 * t_c, 2.0 * t_min, _TINY)
            if self.max_temperature == "auto"
            else self.max_temperature
        )

        # Centred data: the products x . z then carry no cancellation against |x|^2.
        mean = X.mean(axis=0) if w is None else w @ X / w.sum()
        Xc = X - mean
        weights = None if w is None else (w, Xc * w[:, None])
        total = float(n if w is None else w.sum())
        path = AssignmentPath()
        spread = 1e-3 * np.sqrt(max(scale, _TINY))
        P = np.full((n, K), 1.0 / K)
        L = np.empty((n, K))
        m = P.sum(axis=0) if w is None else w @ P
        # A relative perturbation `noise` of each assignment moves S_r = sum_i P_ir x_i by
        # about noise * sqrt(sum_i P_ir^2 x_i^2) <= noise * sqrt(m_r * scale) per coordinate,
        # y_r by that over m_r: the same size, drawn for the K x d codebook instead of the
        # n x K assignments.
        kick = self.noise * np.sqrt(max(scale, _TINY))
        S0 = P.T @ Xc if w is None else P.T @ weights[1]
        state = {"S": S0, "entropy": total * np.log(K), "collapsed": True, "T": t_max}

        # Above T_c the collapsed codebook (every unit at the mean, P uniform) is the exact
        # fixed point and it is stable, so nothing is iterated there; below it, the
        # perturbation lets the map leave the collapsed state. The units never split or
        # merge (the grid is fixed), so there is no transition step.
        def solve(state, T):
            if state["collapsed"] and T > t_c:
                return {**state, "it": 0, "converged": True}
            Y = centres(state["S"], m, Tm)
            start = Y.copy()
            if state.get("previous") is not None:
                # continuation: the fixed point moves smoothly with log T between transitions,
                # so a linear step along the path from the last two starts closer to it
                Y_prev, T_prev = state["previous"]
                Y += (Y - Y_prev) * (np.log(state["T"] / T) / np.log(T_prev / state["T"]))
            Y += kick / np.sqrt(np.maximum(m, 1.0))[:, None] * rng.standard_normal(Y.shape)
            S, it, converged, entropy = solve_temperature(
                Xc, Y, Tm, T, L, P, m, max_iter=self.max_iter, tol=self.tol, weights=weights
            )
            return {
                "S": S,
                "entropy": entropy,
                "collapsed": False,
                "it": it,
                "converged": converged,
                "T": T,
                "previous": None if state["collapsed"] else (start, state["T"]),
            }

        def record(state, T):
            Y = centres(state["S"], m, Tm)
            Z, q = smoothed_codebook(Y, Tm)
            # E = sum_i w_i sum_r P_ir h_ir from the statistics alone (x centred)
            energy = float(x_sq - 2.0 * np.sum(state["S"] * Z) + m @ q)
            path.temperature.append(float(T))
            path.free_energy.append(energy - T * state["entropy"])
            path.n_effective.append(_distinct_rows(Y, spread))
            path.n_iter.append(state["it"])
            path.converged.append(state["converged"])
            if self.verbose:
                print(
                    f"Temperature {len(path.temperature)}: T={T:.6g}, free energy "
                    f"{path.free_energy[-1]:.6g}, {path.n_effective[-1]} distinct units, "
                    f"{state['it']} iterations"
                    + ("" if state["converged"] else f" (max_iter={self.max_iter} reached)")
                    + "."
                )

        x_sq = float(
            np.einsum("ij,ij->", Xc, Xc) if w is None else w @ np.einsum("ij,ij->i", Xc, Xc)
        )
        if self.verbose:
            print(f"Initialization complete: critical temperature {t_c:.6g}.")
        # The two products per iteration are small (n d K flops, thousands of times):
        # threaded BLAS gains little there and, on a machine shared with other work, its
        # spinning threads cost 40x (a 1797 x 64 x 36 step: 112 ms on 2 threads, 2.7 ms on 1).
        blas = one_blas_thread() if n * X.shape[1] * K < _SMALL else nullcontext()
        with blas:
            state, temps = run_schedule(
                state,
                GeometricSchedule(t_max, t_min, self.cooling_rate),
                solve=solve,
                record=record,
                critical=lambda state: (t_c,) if state["collapsed"] else (),
            )
        converged = state["converged"]
        if not converged:
            from statmechlearn._core.exceptions import ConvergenceWarning

            warn(
                f"TopologicalVQ: the fixed point at the last temperature T={temps[-1]:g} was "
                f"not reached in max_iter={self.max_iter} iterations",
                ConvergenceWarning,
            )
        Y = centres(state["S"], m, Tm)
        Z, q = smoothed_codebook(Y, Tm)
        # least expected cost: argmin of |x|^2 - 2 x . z_r + q_r
        labels = np.argmax(2.0 * (Xc @ Z.T) - q, axis=1)
        if not state["collapsed"]:
            # The encoder of the annealed codebook need not be a local minimum of the hard
            # cost: single-object moves take the labels there, and relocating a unit's code
            # vector reaches what needs several objects to move at once. The codebook stays
            # the annealed one at the last temperature (a fit stopped at a finite temperature
            # keeps its soft map); in the collapsed state, above T_c, there is no map to label.
            if w is None:
                labels, n_moves = map_moves(Xc, labels, Tm)
                labels = map_relocate(Xc, labels, Tm)
            else:
                labels, n_moves = weighted_map_moves(Xc, labels, Tm, w)
            if self.verbose:
                print(f"Final moves: {n_moves} single-object moves to a local minimum of the cost.")
        self.grid_ = grid
        self.transmission_ = Tm
        self.cluster_centers_ = (Y + mean).astype(dtype, copy=False)
        self.assignments_ = P
        self.labels_ = labels
        self.critical_temperature_ = t_c
        self.temperature_ = float(temps[-1])
        self.path_ = path
        self.n_iter_ = int(sum(path.n_iter))
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
        """Expected topographic cost ``h[i, r] = sum_nu T[r, nu] |x_i - y_nu|^2`` of each index.

        Parameters
        ----------
        X : {array_like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, K)
            In the float dtype of ``X``.
        """
        X = self._check_X(X)
        return (squared_distances(X, self.cluster_centers_) @ self.transmission_.T).astype(
            X.dtype, copy=False
        )

    def predict(self, X):
        """Index of least expected topographic cost.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        X = self._check_X(X)
        return np.argmin(squared_distances(X, self.cluster_centers_) @ self.transmission_.T, axis=1)

    def predict_proba(self, X):
        """Gibbs assignments ``∝ exp(-h / T)`` at the last annealing temperature.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, K)
            In the float dtype of ``X``.
        """
        h = self.transform(X)
        return gibbs_assignments(h.astype(np.float64), self.temperature_)[0].astype(h.dtype)

    def quantization_error(self, X):
        """Mean Euclidean distance to the nearest codebook vector (MiniSom's definition).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        float
        """
        D = squared_distances(self._check_X(X), self.cluster_centers_)
        return _som_errors(D, self.grid_)[0]

    def topographic_error(self, X):
        """Fraction of samples whose two nearest codebook vectors are not grid neighbours.

        Neighbours are units at grid distance below 1.42 (the eight
        surrounding units of a rectangle, two on a chain), as in MiniSom.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        float
        """
        D = squared_distances(self._check_X(X), self.cluster_centers_)
        return _som_errors(D, self.grid_)[1]


def _distinct_rows(Y, atol):
    """Rows of ``Y`` kept greedily, in order, while beyond ``atol`` (max norm) of all kept."""
    close = cdist(Y, Y, "chebyshev") <= atol
    keep = np.zeros(len(Y), dtype=bool)
    for j in range(len(Y)):
        keep[j] = not np.any(close[j, :j] & keep[:j])
    return int(keep.sum())
