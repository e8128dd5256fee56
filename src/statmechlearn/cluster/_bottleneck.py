"""The information bottleneck and rate-distortion curves (§4.3–4.4 of the notes).

* :class:`InformationBottleneck` — the KL cost of :class:`HistogramClustering` with
  objects weighted by ``p(x)`` and cluster priors ``p(t)``: the iterative IB of
  Tishby, Pereira & Bialek at ``beta = 1/T``, annealed in ``beta``; the curve
  ``I(X;T)`` vs ``I(T;Y)`` with its cluster splits. Its first split is at
  ``beta_c = 1 / s_2^2``, the square of the second singular value of
  ``p(x,y) / sqrt(p(x) p(y))`` (``docs/derivations/information_bottleneck.md``).
* :func:`rate_distortion` — Blahut–Arimoto for ``R(D)`` of a discrete source.
"""

import math
import numbers
from typing import ClassVar

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, ClusterMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from statmechlearn._core.information import xlogy_sum
from statmechlearn._core.rng import check_random_state
from statmechlearn._core.validation import (
    RANDOM_STATE,
    check_array_finite,
    check_int,
    check_real,
    validate_named,
)
from statmechlearn.cluster import _count_tables
from statmechlearn.cluster._distributional import (
    _centroids,
    _check_counts,
    _clusters,
    _count_tags,
    _entropy_polish,
    _entropy_total,
    _kl_cost,
    _KLClustering,
    _mix,
    _neg_entropy_rows,
    kl_critical_temperature,
)
from statmechlearn.cluster._maxent import (
    anneal,
    gibbs_assignments,
    solve_fixed_point,
)
from statmechlearn.cluster._polish import TOL
from statmechlearn.cluster._schedule import geometric_schedule

__all__ = ["InformationBottleneck", "RateDistortionCurve", "rate_distortion"]

_TINY = 1e-300
_LN2 = math.log(2.0)


#: How far from 1 the total of a joint distribution may be and still be read as one (it is
#: then divided by its total): a distribution rounded to float32 sums to 1 within 6e-8, one
#: normalised in float32 arithmetic within about 1e-6; counts or a table of conditionals
#: are far off.
SUM_TOL = 1e-5


def _check_joint(X, normalize):
    """The joint distribution from ``X`` under the ``normalize`` rule of InformationBottleneck
    (float64; CSR for sparse ``X``)."""
    if sparse.issparse(X):
        X = _count_tables.as_csr(X)
        values = X.data
    else:
        X = np.asarray(X, dtype=float)
        values = X
    if X.ndim != 2:
        raise ValueError(f"X (the joint p(x, y)) must be 2-dimensional, got shape {X.shape}")
    if not np.all(np.isfinite(values)):
        raise ValueError("X (the joint p(x, y)) must be finite (no NaN or inf)")
    if np.any(values < 0):
        raise ValueError(f"Negative values in data passed to X: smallest entry {values.min():g}")
    total = float(values.sum())
    if total <= 0:
        raise ValueError("X (the joint p(x, y)) must have positive total mass")
    sums_to_one = abs(total - 1.0) <= SUM_TOL
    if normalize is True or sums_to_one:
        return X / total
    if normalize == "auto" and np.all(values == np.round(values)):
        return X / total
    raise ValueError(
        f"X (the joint p(x, y)) must sum to 1 (within {SUM_TOL:g})"
        f"{' or be integer counts' if normalize == 'auto' else ''}"
        f"; got entries summing to {total!r}. Pass normalize=True to divide by the total."
    )


class InformationBottleneck(ClusterMixin, BaseEstimator):
    """Iterative information bottleneck, annealed in ``beta``.

    Finds soft clusters ``p(t|x)`` of the rows of a joint distribution
    ``p(x, y)`` that minimise ``I(X;T) - beta I(T;Y)`` (Tishby, Pereira &
    Bialek; notes §4.3). At fixed ``beta`` the stationary equations are
    ``p(t|x) ∝ p(t) exp(-beta KL(p(y|x) || p(y|t)))`` with
    ``p(t) = sum_x p(x) p(t|x)`` and
    ``p(y|t) = sum_x p(y|x) p(t|x) p(x) / p(t)``, solved by iteration. Here
    ``beta`` grows geometrically from below the first critical value
    ``beta_c = 1 / s_2^2`` (``s_2``: second singular value of
    ``p(x,y) / sqrt(p(x) p(y))``) to ``1 / min_temperature``, each solution starting
    from the previous one; a cluster is split in two when that lowers the
    functional (its copies separate instead of merging back). The curve and
    the values of ``beta`` where the number of clusters grows are recorded. All
    updates are in log space.

    Parameters
    ----------
    n_clusters : int or None, default=8
        Most clusters (the cardinality of ``T``), at most the number of rows
        (a larger value is read as that). The annealing splits a cluster
        where it becomes unstable, so ``beta_max = 1 / min_temperature``
        decides how many of them separate; this caps them, as ``n_clusters``
        caps a clustering. None is one cluster per row, ``|T| = |X|``, which
        is always enough for the optimum at any ``beta`` (Tishby, Pereira &
        Bialek) but leaves every row its own cluster at a large ``beta``, and
        costs a split attempt per cluster at every ``beta`` (time grows
        faster than the cube of the rows: minutes for a hundred).
    max_temperature : float or "auto", default="auto"
        First temperature ``T = 1/beta``; "auto" is ``2 / beta_c`` (at least
        twice ``min_temperature``).
    min_temperature : float, default=0.01
        Last temperature, ``1 / beta_max`` (the default is ``beta_max = 100``).
    cooling_rate : float, default=1/1.05
        Ratio of successive temperatures, in (0, 1): ``beta`` grows by
        ``1 / cooling_rate`` per step. The schedule is anchored at
        ``min_temperature``, ``beta = beta_max cooling_rate^k``.
    max_iter : int, default=2000
        Iterations per ``beta``.
    tol : float, default=1e-10
        Stop when ``p(t|x)`` changes by less than this.
    noise : float, default=1e-3
        Relative size of the uneven sharing that tries to split a cluster in
        two at each ``beta`` (> 0).
    normalize : {"auto", True, False}, default="auto"
        How ``X`` becomes ``p(x, y)``. ``False``: ``X`` must sum to 1 within
        1e-5 (room for the rounding of a table stored or normalised in
        float32) and is divided by its total; ``"auto"``: also integer
        co-occurrence counts are accepted and divided by their total;
        ``True``: any non-negative ``X`` is divided by its total. Anything
        else is an error, never silently rescaled.
    random_state : None, int, RandomState or Generator, default=None
    verbose : int, default=0
        0 prints nothing; 1 prints a line per ``beta`` (clusters and the two
        informations) and the final moves.

    Attributes
    ----------
    conditional_ : ndarray of shape (n_x, n_found)
        ``p(t|x)`` at ``min_temperature``; the clusters that have separated by then
        (``n_found <= n_clusters``). ``conditional_``, ``p_t_`` and
        ``p_y_given_t_`` are in the float dtype of ``X`` (float32 stays
        float32; the fit runs in float64).
    labels_ : ndarray of shape (n_x,)
        ``argmax_t p(t|x)``: a local minimum of the hard cost
        ``I(X;Y) - I(T;Y)`` (the ``beta -> infinity`` limit of the functional
        over ``beta``) under single-object and split-and-merge moves. Where
        the moves find labels of lower hard cost than the annealed fixed
        point's, the fixed point at ``min_temperature`` is found again from
        them and kept: its functional at ``beta_max`` can then be higher, by
        less than ``ln(n_clusters) / beta_max``.
    p_t_ : ndarray of shape (n_found,)
    p_y_given_t_ : ndarray of shape (n_found, n_y)
    information_xt_, information_ty_ : ndarray
        ``I(X;T)`` and ``I(T;Y)`` in bits along the path (the IB curve).
    n_effective_ : ndarray of int
        Distinct clusters along the path.
    transitions_ : list of float
        Temperatures ``1 / beta`` at which the number of distinct clusters grew.
    critical_temperature_ : float
        ``s_2^2 = 1 / beta_c``, below which ``T`` stops being trivial.
    temperature_ : float
        Last temperature (of :meth:`predict_proba`).
    path_ : AssignmentPath
        Temperatures ``1 / beta``, free energies and distinct clusters along
        the annealing.
    mutual_information_ : float
        ``I(X;Y)`` in bits, the curve's ceiling.
    n_iter_ : int

    Notes
    -----
    ``fit`` takes no ``sample_weight``: ``X`` is the joint ``p(x, y)``
    itself, so the weight of a row is its mass ``p(x)`` (scale a row of
    counts to weigh it).

    A sparse ``X`` (CSR or CSC) is never densified: the cost of a row needs
    only its nonzero ``p(y|x)`` and the cluster distributions ``p(y|t)`` are
    sparse-times-dense products. On a table of at most 2**22 entries the
    final moves run on a dense copy (the fit is that of the dense twin up to
    rounding), on a larger one on the sparse rows.

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn.cluster import InformationBottleneck
    >>> joint = np.array([[1, 0, 1], [0, 0, 1], [0, 1, 1]]) / 5
    >>> ib = InformationBottleneck(min_temperature=1 / 10, random_state=0).fit(joint)
    >>> round(float(ib.information_ty_[-1]), 3)
    0.57
    >>> ib.predict_proba(joint).shape
    (3, 3)
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_clusters": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "max_temperature": [
            Interval(numbers.Real, 0, None, closed="neither"),
            StrOptions({"auto"}),
        ],
        "min_temperature": [Interval(numbers.Real, 0, None, closed="neither")],
        "cooling_rate": [Interval(numbers.Real, 0, 1, closed="neither")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "noise": [Interval(numbers.Real, 0, None, closed="neither")],
        "normalize": [StrOptions({"auto"}), "boolean"],
        "random_state": [*RANDOM_STATE],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        n_clusters=8,
        *,
        max_temperature="auto",
        min_temperature=0.01,
        cooling_rate=1 / 1.05,
        max_iter=2000,
        tol=1e-10,
        noise=1e-3,
        normalize="auto",
        random_state=None,
        verbose=0,
    ):
        self.n_clusters = n_clusters
        self.max_temperature = max_temperature
        self.min_temperature = min_temperature
        self.cooling_rate = cooling_rate
        self.max_iter = max_iter
        self.tol = tol
        self.noise = noise
        self.normalize = normalize
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        return _count_tags(super().__sklearn_tags__())

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Anneal the IB on the joint distribution ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_x, n_y)
            ``p(x, y)``; see ``normalize``. Rows with zero mass are rejected.
            Sparse input (CSR or CSC) stays sparse (see Notes).
        y : None
            Ignored.

        Returns
        -------
        self
        """
        X = validate_named(
            self,
            X,
            accept_sparse=("csr", "csc"),
            dtype=[np.float64, np.float32],
            ensure_all_finite=True,
        )
        dtype = X.dtype
        joint = _check_joint(X, self.normalize)
        if sparse.issparse(joint):
            cond, px = _count_tables.row_conditionals(joint)
        else:
            px = joint.sum(axis=1)
        if np.any(px <= 0):
            raise ValueError(f"X has rows of zeros (x = {np.flatnonzero(px <= 0)[:5]})")
        if not sparse.issparse(joint):
            cond = joint / px[:, None]
        n_x = joint.shape[0]
        k = n_x if self.n_clusters is None else min(self.n_clusters, n_x)
        rng = check_random_state(self.random_state)
        model = _KLClustering(cond, px, mass_constrained=True)
        t_c = kl_critical_temperature(cond, px)
        self.critical_temperature_ = t_c
        py = np.asarray(joint.sum(axis=0)).ravel()
        self.mutual_information_ = _mutual_information(joint, px, py)
        t_min = self.min_temperature
        t_start = (
            max(2.0 * t_c, 2.0 * t_min) if self.max_temperature == "auto" else self.max_temperature
        )
        # anchored at beta_max: the grid of beta does not move with the data's beta_c
        temps = geometric_schedule(t_start, t_min, self.cooling_rate, anchor="min")
        info = []

        def record(_, T, P):
            info.append(self._informations(P, cond, px))
            if self.verbose:
                print(
                    f"beta {1.0 / T:.6g} (T={T:.6g}): {_clusters(P.shape[1])}, "
                    f"I(X;T) {info[-1][0]:.6g} bits, I(T;Y) {info[-1][1]:.6g} bits."
                )

        P, path = anneal(
            model.field,
            model.free_energy,
            n_x,
            k,
            temps,
            rng=rng,
            noise=self.noise,
            max_iter=self.max_iter,
            tol=self.tol,
            callback=record,
        )
        T = float(path.temperature[-1])
        if P.shape[1] > 1:
            # the annealed fixed point need not be the best at beta_max: single-object and
            # split-and-merge moves take its labels to a local minimum of the hard cost
            # I(X;Y) - I(T;Y), the fixed point at beta_max is found again from them, and the
            # one whose labels have the lower hard cost is kept. The hard cost, not the
            # functional at beta_max, decides: near-degenerate fixed points can swap order
            # between beta_max and beta -> infinity (both functionals differ by I(X;T)/beta,
            # at most ln(k)/beta), and labels_ promise a local minimum of the hard cost.
            K = P.shape[1]
            labels = np.argmax(P, axis=1)
            moved, _ = _entropy_polish(cond, px, labels, K)
            kept = True
            if not np.array_equal(moved, labels):
                start = (moved[:, None] == np.arange(K)).astype(float)
                Q, _, _, _ = solve_fixed_point(
                    model.field, start, T, max_iter=self.max_iter, tol=self.tol
                )
                before = _entropy_total(cond, px, labels, K)
                after = _entropy_total(cond, px, np.argmax(Q, axis=1), K)
                if after < before - TOL * max(float(px.sum()), 1.0) or (
                    after <= before and model.free_energy(Q, T) < model.free_energy(P, T)
                ):
                    P, kept = Q, False
            if self.verbose:
                print(
                    "Final moves: "
                    + ("the annealed labels kept." if kept else "a lower hard cost found.")
                )
        p_y_given_t, p_t = _centroids(P, cond, px)
        self.conditional_ = P.astype(dtype, copy=False)
        self.labels_ = np.argmax(P, axis=1)
        self.p_y_given_t_ = p_y_given_t.astype(dtype, copy=False)
        self.p_t_ = p_t.astype(dtype, copy=False)
        self.temperature_ = T
        self.information_xt_, self.information_ty_ = (np.array(v) for v in zip(*info, strict=True))
        self.n_effective_ = np.asarray(path.n_effective)
        self.transitions_ = [T for T, _, _ in path.transitions()]
        self.n_iter_ = int(sum(path.n_iter))
        self.path_ = path
        return self

    @staticmethod
    def _informations(P, cond, px):
        joint_xt = P * px[:, None]
        pt = joint_xt.sum(axis=0)
        i_xt = xlogy_sum(joint_xt) - xlogy_sum(px) - xlogy_sum(pt)
        joint_ty = _mix(joint_xt, cond)
        py = _mix(px, cond)
        i_ty = xlogy_sum(joint_ty) - xlogy_sum(pt) - xlogy_sum(py)
        return i_xt / _LN2, i_ty / _LN2

    def predict_proba(self, X):
        """``p(t|x)`` at ``min_temperature`` for new rows of counts (or conditionals ``p(y|x)``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_y)

        Returns
        -------
        ndarray of shape (n_samples, n_clusters)
            In the float dtype of ``X``.
        """
        check_is_fitted(self)
        X = validate_named(
            self,
            X,
            accept_sparse=("csr", "csc"),
            dtype=[np.float64, np.float32],
            reset=False,
            ensure_all_finite=True,
        )
        cond, _ = _check_counts(X)
        cost = _kl_cost(cond, _neg_entropy_rows(cond), self.p_y_given_t_)
        log_w = np.log(np.maximum(self.p_t_.astype(np.float64), _TINY))
        return gibbs_assignments(cost, self.temperature_, log_w)[0].astype(X.dtype, copy=False)

    def predict(self, X):
        """Most probable cluster for new rows.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_y)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return np.argmax(self.predict_proba(X), axis=1)


def _mutual_information(joint, px, py):
    """``I(X;Y)`` in bits from the nonzero entries of the joint (dense or CSR)."""
    if sparse.issparse(joint):
        coo = joint.tocoo()
        positive = coo.data > 0
        values = coo.data[positive]
        outer = px[coo.row[positive]] * py[coo.col[positive]]
        return float(np.sum(values * np.log(values / outer)) / _LN2)
    positive = joint > 0
    return float(
        np.sum(joint[positive] * np.log(joint[positive] / np.outer(px, py)[positive])) / _LN2
    )


class RateDistortionCurve:
    """Points ``(D, R)`` of a rate–distortion function, one per ``beta``.

    Attributes
    ----------
    beta : ndarray
        Lagrange multipliers (minus the slope ``dR/dD`` in nats).
    rate : ndarray
        ``R = I(X; Xhat)`` in the requested unit.
    distortion : ndarray
        Expected distortion ``D``.
    conditional : ndarray of shape (n_beta, n_x, n_xhat)
        The optimal test channels ``p(xhat|x)``.
    n_iter : ndarray of int
        Blahut–Arimoto iterations per ``beta``.
    """

    def __init__(self, beta, rate, distortion, conditional, n_iter):
        self.beta = beta
        self.rate = rate
        self.distortion = distortion
        self.conditional = conditional
        self.n_iter = n_iter

    def __repr__(self):
        d = self.distortion
        return f"RateDistortionCurve({self.beta.size} points, D in [{d.min():.3g}, {d.max():.3g}])"


def rate_distortion(p_x, distortion, betas=None, *, base="bits", max_iter=10_000, tol=1e-12):
    """Rate–distortion function of a discrete source by Blahut–Arimoto.

    For each ``beta`` iterates ``p(xhat|x) ∝ q(xhat) exp(-beta d(x, xhat))``,
    ``q(xhat) = sum_x p(x) p(xhat|x)`` to convergence (a convex problem: the
    fixed point is the global optimum), starting from the previous
    ``beta``'s ``q``.

    Parameters
    ----------
    p_x : array_like of shape (n_x,)
        The source distribution.
    distortion : array_like of shape (n_x, n_xhat)
        ``d(x, xhat) >= 0``.
    betas : array_like, optional
        Positive multipliers; default 60 values from ``0.01 / dbar`` to
        ``100 / dbar`` (``dbar``: mean positive distortion), which spans the
        curve from ``R = 0`` to nearly ``D = 0``.
    base : {"bits", "nats"}, default="bits"
    max_iter : int, default=10000
    tol : float, default=1e-12
        Stop when ``q`` changes by less than this.

    Returns
    -------
    RateDistortionCurve

    Examples
    --------
    Fair coin, Hamming distortion: ``R(D) = 1 - H(D)``.

    >>> import numpy as np
    >>> from statmechlearn.cluster import rate_distortion
    >>> curve = rate_distortion([0.5, 0.5], 1 - np.eye(2), betas=[np.log(9)])
    >>> round(float(curve.distortion[0]), 6), round(float(curve.rate[0]), 6)
    (0.1, 0.531004)
    """
    from statmechlearn._core.information import check_distribution

    p_x = check_distribution(p_x, "p_x", ndim=1)
    d = check_array_finite(distortion, "distortion")
    if d.ndim != 2 or d.shape[0] != p_x.size or d.shape[1] == 0:
        raise ValueError(f"distortion must have shape ({p_x.size}, n_xhat), got {d.shape}")
    if not np.all(np.isfinite(d)) or np.any(d < 0):
        raise ValueError("distortion must be finite and non-negative")
    if base not in ("bits", "nats"):
        raise ValueError(f"base must be 'bits' or 'nats', got {base!r}")
    if betas is None:
        dbar = float(np.mean(d[d > 0])) if np.any(d > 0) else 1.0
        betas = np.geomspace(0.01, 100.0, 60) / dbar
    betas = np.atleast_1d(check_array_finite(betas, "betas"))
    if betas.ndim != 1 or betas.size == 0 or np.any(betas <= 0):
        raise ValueError("betas must be finite and > 0 (a non-empty 1-D array)")
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    tol = check_real(tol, "tol", minimum=0.0)
    unit = _LN2 if base == "bits" else 1.0
    q = np.full(d.shape[1], 1.0 / d.shape[1])
    rates, dists, conds, iters = [], [], [], []
    for beta in betas:
        for it in range(1, max_iter + 1):  # noqa: B007 - it is recorded after the loop
            log_c = np.log(np.maximum(q, _TINY)) - beta * d
            c, _ = gibbs_assignments(-log_c, 1.0)
            new = p_x @ c
            done = np.max(np.abs(new - q)) < tol
            q = new
            if done:
                break
        joint = c * p_x[:, None]
        rates.append((xlogy_sum(joint) - xlogy_sum(p_x) - xlogy_sum(q)) / unit)
        dists.append(float(np.sum(joint * d)))
        conds.append(c)
        iters.append(it)
    return RateDistortionCurve(
        betas, np.array(rates), np.array(dists), np.array(conds), np.array(iters)
    )


# A fixed point of the IB at one beta, for tests and users who want no annealing.
def _ib_fixed_point(cond, px, P, beta, *, max_iter=2000, tol=1e-12):
    model = _KLClustering(cond, px, mass_constrained=True)
    return solve_fixed_point(model.field, P, 1.0 / beta, max_iter=max_iter, tol=tol)
