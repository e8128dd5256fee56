"""Posterior agreement (approximation set coding) for centroid clusterers (notes §8.2–8.4).

The method (Buhmann 2010; the notes' §8.4): two instances ``X'``, ``X''``,
independent measurements of the same ``n`` objects, are clustered
separately. With the Boltzmann weights of §8.2 the posterior of a labeling
given the code vectors ``Y`` is factorial, ``p(c(i) = nu | Y) ∝ exp(-beta
|x_i - y_nu|^2)``, each computed on its own instance, so the agreement
kernel of §8.4 factorises,

    k(X', X'') = sum_c P(c | X') P(c | X'') = prod_i sum_nu p'_{i nu} p''_{i nu},

(the code vectors of the second instance matched to the first by the
Hungarian method, as labels are exchangeable). The approximation capacity
per object is ``(1/n) log(|T| k(X', X''))``, ``|T|`` the codebook: the
``n! / prod n_nu!`` object permutations that change the labeling (``(1/n)
log |T|`` the entropy of the cluster sizes, the default with two
instances) or the notes' ``k^n`` labelings:

    I(beta) = (1/n) log |T| + (1/n) sum_i log(sum_nu p'_{i nu} p''_{i nu})   (nats).

Its maximum over ``beta`` is the informativeness the data support at that
k; k maximises it, ties within one standard error going to the smaller k.

With one data set, ``posterior_agreement`` without ``X_second`` runs a
heuristic: the two halves of random splits are clustered and both
posteriors are evaluated on the same points (docs/derivations/
posterior_agreement.md §0).
"""

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment
from scipy.special import logsumexp

from statmechlearn._core.optional import import_optional
from statmechlearn._core.rng import check_random_state
from statmechlearn._core.validation import (
    check_array_finite,
    check_choice,
    check_int,
    check_magnitude,
)
from statmechlearn.model_selection._asc import (
    CODEBOOKS,
    METHODS,
    WEIGHTS,
    excess_costs,
    log_weight_sums,
    weight_sums_exact,
)
from statmechlearn.model_selection._common import (
    check_clusterer,
    check_k_range,
    check_X,
    check_X_second,
    fit_labels,
)
from statmechlearn.model_selection._gap import GAP_RULES, choose_gap_k

__all__ = [
    "AnnealedAgreementResult",
    "PosteriorAgreementResult",
    "agreement_capacity",
    "assignment_costs",
    "capacity_from_costs",
    "posterior_agreement",
    "posterior_agreement_path",
]


def _check_betas(betas, Xc, *, allow_zero):
    """The inverse temperatures; by default 61 from 1e-2 to 1e3 over the mean |x - mean|^2."""
    if betas is None:
        scale = float(np.mean(np.sum(Xc**2, axis=1)))
        return np.geomspace(1e-2, 1e3, 61) / max(scale, 1e-300)
    if np.iscomplexobj(betas):
        raise TypeError("betas must be real inverse temperatures, got complex values")
    betas = np.asarray(betas, dtype=float)
    low_ok = np.all(betas >= 0) if allow_zero else np.all(betas > 0)
    if betas.ndim != 1 or betas.size == 0 or not np.all(np.isfinite(betas)) or not low_ok:
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"betas must be a non-empty 1-D array of finite values {bound}")
    return betas


def _log_posterior(X, Y, beta):
    d = np.maximum(np.sum(X**2, axis=1)[:, None] - 2.0 * X @ Y.T + np.sum(Y**2, axis=1), 0.0)
    # measured from each row's nearest centre: at a large beta no row is all -inf (NaN)
    a = -beta * (d - d.min(axis=1, keepdims=True))
    return a - logsumexp(a, axis=1, keepdims=True)


def assignment_costs(estimator, X):
    """Costs ``h(x, nu)`` whose Gibbs distribution ``∝ exp(-beta h)`` is the posterior.

    Squared distances to ``cluster_centers_`` (KMeans, DeterministicAnnealing,
    GibbsSamplerClustering, …), or the estimator's own ``assignment_costs``
    (HistogramClustering: KL divergences; PairwiseClustering: mean fields).
    """
    if hasattr(estimator, "assignment_costs"):
        return np.asarray(estimator.assignment_costs(X), dtype=float)
    if hasattr(estimator, "cluster_centers_"):
        Y = np.asarray(estimator.cluster_centers_, dtype=float)
        d = np.sum(X**2, axis=1)[:, None] - 2.0 * X @ Y.T + np.sum(Y**2, axis=1)
        return np.maximum(d, 0.0)
    raise TypeError(
        f"posterior_agreement needs cluster_centers_ or assignment_costs; "
        f"{type(estimator).__name__} has neither"
    )


def _check_gammas(gammas):
    if np.iscomplexobj(gammas):
        raise TypeError("gammas must be real per-object resolutions, got complex values")
    gammas = np.asarray(gammas, dtype=float)
    if gammas.ndim != 1 or gammas.size == 0 or not np.all(np.isfinite(gammas)):
        raise ValueError("gammas must be a non-empty 1-D array of finite values >= 0")
    if np.any(gammas < 0):
        raise ValueError("gammas must be a non-empty 1-D array of finite values >= 0")
    return gammas


def _check_family(weights, codebook, method):
    check_choice(weights, "weights", WEIGHTS)
    check_choice(codebook, "codebook", CODEBOOKS)
    check_choice(method, "method", METHODS)


def _log_codebook(H, k, codebook):
    """``(1/n) log`` of the codebook size: ``log k`` (labelings) or the entropy of the sizes."""
    if codebook != "entropy":
        return math.log(k)
    # n! / prod n_nu! object permutations change the first solution's labeling: (1/n) log of
    # that count is the entropy of its cluster sizes (Stirling), as in Buhmann's group's code
    sizes = np.bincount(H.argmin(axis=1), minlength=k) / H.shape[0]
    sizes = sizes[sizes > 0]
    return float(-np.sum(sizes * np.log(sizes)))


def _capacity_matched(Ha, Hb, betas, gammas, weights, codebook, method, bin_width, k):
    """Capacity of two cost matrices whose columns are already matched (see capacity_from_costs)."""
    n = Ha.shape[0]
    log_size = _log_codebook(Ha, k, codebook)
    family = "permutations" if codebook == "permutations" else "labelings"
    # weights are defined on the excess over the best labeling, w(c_perp) = 1 (§8.2)
    a, b = excess_costs(Ha), excess_costs(Hb)
    if weights == "boltzmann":
        la = -betas[:, None, None] * a
        lb = -betas[:, None, None] * b
        if family == "labelings":
            la = la - logsumexp(la, axis=-1, keepdims=True)
            lb = lb - logsumexp(lb, axis=-1, keepdims=True)
            return log_size + np.mean(logsumexp(la + lb, axis=-1), axis=-1)
        # partner of object i drawn among all objects: m_nu = mean_j exp(-beta h''_j nu)
        la = la - la.max(axis=-1, keepdims=True)
        lb = lb - lb.max(axis=-1, keepdims=True)
        log_m = logsumexp(lb, axis=-2) - math.log(n)
        return np.mean(
            logsumexp(la + lb, axis=-1) - logsumexp(la + log_m[:, None, :], axis=-1), axis=-1
        )
    bb = np.full(1, np.inf) if weights == "binary" else betas
    B, G = np.meshgrid(bb, gammas, indexing="ij")
    cap = np.zeros(B.size)  # beta = 0: the Fermi weight is 1/2 for every labeling, I = 0
    live = B.ravel() > 0
    if live.any():
        args = (a, b, weights, B.ravel()[live], G.ravel()[live])
        if method == "exact":
            parts = weight_sums_exact(*args, codebook=family, bin_width=bin_width)
        else:
            parts = log_weight_sums(*args, codebook=family)
        log_z_a, log_z_b, log_agree = parts
        if family == "labelings":
            cap[live] = log_size + (log_agree - log_z_a - log_z_b) / n
        else:
            cap[live] = (log_agree - log_z_a) / n
    return cap.reshape(B.shape)


def capacity_from_costs(
    costs_a,
    costs_b,
    betas,
    *,
    weights="boltzmann",
    gammas=None,
    codebook="labelings",
    method="saddle",
    bin_width=None,
):
    """``I(beta)`` (or ``I(beta, gamma)``) from the costs of two solutions on the same objects.

    The second solution's clusters are matched to the first's by the
    Hungarian method on the confusion of their cheapest clusters.

    Parameters
    ----------
    costs_a, costs_b : ndarray of shape (n, k_a), (n, k_b)
    betas : array of float
        Ignored for binary weights.
    weights : {"boltzmann", "fermi", "binary"}, default="boltzmann"
    gammas : array of float, optional
        Per-object resolutions (Fermi and binary weights).
    codebook : {"labelings", "permutations"}, default="labelings"
    method : {"saddle", "exact"}, default="saddle"
    bin_width : float, optional
        Energy grid of ``method="exact"``.

    Returns
    -------
    ndarray of shape (len(betas),), or (len(betas), len(gammas)) (binary: (1, len(gammas)))
    """
    _check_family(weights, codebook, method)
    if weights != "boltzmann":
        if gammas is None:
            raise ValueError(f"gammas must be given for weights={weights!r}")
        gammas = _check_gammas(gammas)
    Ha, Hb, k = _matched(np.asarray(costs_a, dtype=float), np.asarray(costs_b, dtype=float))
    betas = np.asarray(betas, dtype=float)
    return _capacity_matched(Ha, Hb, betas, gammas, weights, codebook, method, bin_width, k)


def agreement_capacity(
    X,
    centers_a,
    centers_b,
    betas,
    *,
    weights="boltzmann",
    gammas=None,
    codebook="labelings",
    method="saddle",
):
    """``I(beta)`` of two sets of code vectors on the objects ``X`` (nats per object).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    centers_a, centers_b : ndarray of shape (k, d)
        Code vectors from the two halves; ``centers_b`` is matched to
        ``centers_a`` here.
    betas : array of float
        Inverse temperatures, ``>= 0`` (Boltzmann) or sharpness of the
        Fermi weights; ignored for binary weights.
    weights : {"boltzmann", "fermi", "binary"}, default="boltzmann"
        Approximation weights of §8.2 on the excess cost ``dR`` over the best
        labeling: ``exp(-beta dR)``, ``1 / (1 + exp(beta (dR - n gamma)))``
        or ``1{dR <= n gamma}``.
    gammas : array of float, optional
        Per-object resolutions ``gamma >= 0`` (required for Fermi and binary).
    codebook : {"labelings", "permutations"}, default="labelings"
        ``"labelings"``: ``I = (1/n) log(k^n kernel)`` (the notes' ``|C|``);
        ``"permutations"``: ``I = (1/n) log(kernel / E_tau kernel_tau)`` for
        object permutations ``tau``, the capacity of the protocol of §8.4.
    method : {"saddle", "exact"}, default="saddle"
        How Fermi and binary weight sums are computed (module
        ``_asc``); Boltzmann sums are exact either way.

    Returns
    -------
    ndarray of shape (len(betas),)
        Or ``(len(betas), len(gammas))`` for Fermi and ``(1, len(gammas))``
        for binary weights.

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn.model_selection import agreement_capacity
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [3.0, 3.0], [3.1, 3.0]])
    >>> Y = np.array([[0.05, 0.0], [3.05, 3.0]])
    >>> agreement_capacity(X, Y, Y[::-1], [0.0, 100.0]).round(4)  # 0 and log 2
    array([0.    , 0.6931])
    """
    X = check_X(X, min_samples=1)
    A = check_array_finite(centers_a, "centers_a", shape=(None, X.shape[1]))
    B = check_array_finite(centers_b, "centers_b", shape=A.shape)
    if A.shape[0] == 0:
        raise ValueError("centers_a must hold at least one code vector")
    check_magnitude(A, "centers_a")
    check_magnitude(B, "centers_b")
    _check_family(weights, codebook, method)
    betas = _check_betas(betas, X, allow_zero=True)
    if weights != "boltzmann":
        if gammas is None:
            raise ValueError(f"gammas must be given for weights={weights!r}")
        gammas = _check_gammas(gammas)
    k = A.shape[0]
    cost = np.sum((A[:, None, :] - B[None, :, :]) ** 2, axis=-1)
    _, perm = linear_sum_assignment(cost)
    B = B[perm]
    d = np.sum(X**2, axis=1)[:, None]
    Ha = np.maximum(d - 2.0 * X @ A.T + np.sum(A**2, axis=1), 0.0)
    Hb = np.maximum(d - 2.0 * X @ B.T + np.sum(B**2, axis=1), 0.0)
    with np.errstate(over="ignore", invalid="ignore"):
        out = _capacity_matched(Ha, Hb, betas, gammas, weights, codebook, method, None, k)
    if not np.all(np.isfinite(out) | (out == -np.inf)):
        raise ValueError("betas are too large for these costs: the capacity is not finite")
    return out


@dataclass(frozen=True)
class PosteriorAgreementResult:
    """Approximation capacity over k and the weights' resolution.

    Attributes
    ----------
    n_clusters : int
        The k of largest ``max I``.
    k_values : ndarray of int
    betas : ndarray
        Inverse temperatures (Boltzmann), sharpness (Fermi) or ``[inf]``
        (binary).
    capacity : ndarray
        ``I`` averaged over splits (nats per object): shape (n_k, n_beta)
        for Boltzmann weights, (n_k, n_beta, n_gamma) for Fermi and binary.
    capacity_se : ndarray
        Its standard error over splits, same shape.
    max_capacity : ndarray of shape (n_k,)
        The largest ``I`` for each k.
    best_beta : ndarray of shape (n_k,)
        Its maximiser: the resolution the data support.
    weights : str
        ``"boltzmann"``, ``"fermi"`` or ``"binary"``.
    gammas : ndarray or None
        Per-object resolutions (Fermi, binary).
    best_gamma : ndarray of shape (n_k,) or None
    codebook : str
        ``"labelings"`` or ``"permutations"``.
    max_capacity_se : ndarray of shape (n_k,)
        The standard error over splits of ``max_capacity`` (at its ``beta``).
    rule : str
        The decision rule that chose ``n_clusters``, one of
        :data:`~statmechlearn.model_selection.GAP_RULES`.
    protocol : str
        ``"two-instance"`` (two measurements of the same objects, the
        published method) or ``"split-sample"`` (the one-sample heuristic).
    """

    n_clusters: int
    k_values: np.ndarray
    betas: np.ndarray
    capacity: np.ndarray
    capacity_se: np.ndarray
    max_capacity: np.ndarray
    best_beta: np.ndarray
    weights: str = "boltzmann"
    gammas: np.ndarray | None = None
    best_gamma: np.ndarray | None = None
    codebook: str = "labelings"
    max_capacity_se: np.ndarray | None = None
    rule: str = "first-se-max"
    protocol: str = "split-sample"

    def choose(self, rule):
        """The k another decision rule picks from the same capacities."""
        se = (
            np.zeros_like(self.max_capacity)
            if self.max_capacity_se is None
            else self.max_capacity_se
        )
        return choose_gap_k(self.k_values, self.max_capacity, se, rule)

    def plot(self, ax=None):
        """``I`` against the resolution for each k (max over the other parameter)."""
        plt = import_optional("matplotlib.pyplot", purpose="plot()")

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.5))
        if self.weights == "boltzmann":
            x, curves, label = self.betas, self.capacity, "β"
        elif self.weights == "binary":
            x, curves, label = self.gammas, self.capacity[:, 0, :], "γ (per object)"
        else:
            x, curves, label = self.betas, self.capacity.max(axis=2), "β (max over γ)"
        for j, k in enumerate(self.k_values):
            ax.plot(x, curves[j], label=f"k = {k}", lw=2.5 if k == self.n_clusters else 1.0)
        ax.set_xscale("log")
        ax.set_xlabel(label)
        ax.set_ylabel(f"capacity I [nats/object] ({self.weights})")
        ax.axhline(0.0, color="0.6", lw=0.8)
        ax.legend(fontsize=7, ncol=2)
        return ax


def _default_grids(pairs, weights, betas, gammas):
    """Grids in the units of the costs: around the mean gap between a point's cheapest and
    dearest cluster (squared distance, KL, ...)."""
    spread = (
        np.mean([np.mean(h.max(axis=1) - h.min(axis=1)) for _, _, h, _ in pairs]) if pairs else 1.0
    )
    spread = max(float(spread), 1e-300)
    if weights == "binary":
        betas = np.full(1, np.inf)
    elif betas is None:
        count = 61 if weights == "boltzmann" else 13
        betas = np.geomspace(1e-2, 1e3, count) / spread
    if weights != "boltzmann" and gammas is None:
        gammas = np.geomspace(1e-3, 1.0, 16) * spread
    return betas, gammas


def _matched(Ha, Hb):
    """Columns of ``Hb`` matched to those of ``Ha`` (Hungarian on the confusion of the cheapest)."""
    C = np.zeros((Ha.shape[1], Hb.shape[1]))
    np.add.at(C, (Ha.argmin(axis=1), Hb.argmin(axis=1)), 1.0)
    ra, rb = linear_sum_assignment(-C)
    return Ha[:, ra], Hb[:, rb], max(Ha.shape[1], Hb.shape[1])


def _boltzmann_terms(Ha, Hb, k, betas, codebook):
    """``I(beta) = log_size + mean_i t_i(beta)``: the codebook term and the objects' terms."""
    a, b = excess_costs(Ha), excess_costs(Hb)
    la = -betas[:, None, None] * a
    lb = -betas[:, None, None] * b
    if codebook == "permutations":
        la = la - la.max(axis=-1, keepdims=True)
        lb = lb - lb.max(axis=-1, keepdims=True)
        log_m = logsumexp(lb, axis=-2) - math.log(Ha.shape[0])
        return 0.0, logsumexp(la + lb, axis=-1) - logsumexp(la + log_m[:, None, :], axis=-1)
    la = la - logsumexp(la, axis=-1, keepdims=True)
    lb = lb - logsumexp(lb, axis=-1, keepdims=True)
    return _log_codebook(Ha, k, codebook), logsumexp(la + lb, axis=-1)


def _two_instance_capacity(Ha, Hb, k, groups, betas, gammas, weights, codebook, method):
    """Capacity on all objects and its standard error over the objects.

    The codebook's size is that of the solutions, held fixed. Boltzmann weights: the capacity
    is a mean over objects and its SE that of a mean; Fermi and binary weights: a
    delete-one-group jackknife over ``groups``.
    """
    if weights == "boltzmann":
        log_size, terms = _boltzmann_terms(Ha, Hb, k, betas, codebook)
        se = terms.std(axis=-1, ddof=1) / math.sqrt(terms.shape[-1])
        return log_size + terms.mean(axis=-1), se
    full = _capacity_matched(Ha, Hb, betas, gammas, weights, codebook, method, None, k)
    fixed = _log_codebook(Ha, k, codebook) if codebook != "permutations" else 0.0
    n_groups = int(groups.max()) + 1
    parts = []
    for g in range(n_groups):
        keep = groups != g
        part = _capacity_matched(
            Ha[keep], Hb[keep], betas, gammas, weights, codebook, method, None, k
        )
        if codebook == "entropy":  # the subset's own sizes replaced by the solution's
            part = part - _log_codebook(Ha[keep], k, codebook) + fixed
        parts.append(part)
    parts = np.stack(parts)
    with np.errstate(invalid="ignore"):
        dev = parts - parts.mean(axis=0)
        se = np.sqrt((n_groups - 1) / n_groups * np.sum(dev**2, axis=0))
    return full, se


def _resolve_rule(rule, two_instance):
    rule = check_choice(rule, "rule", ("auto", *GAP_RULES))
    if rule == "auto":
        return "global-se-max" if two_instance else "first-se-max"
    return rule


def _instance_pair(X, X_second, rng, half):
    """The two instances a split compares, and the points each one's posterior is read on.

    With a second measurement, each instance is its own; without one (the one-sample
    heuristic) two disjoint random halves of ``X``, both read on the union of the halves.
    """
    if X_second is not None:
        return X, X_second, X, X_second
    perm = rng.permutation(X.shape[0])
    both = X[perm[: 2 * half]]
    return X[perm[:half]], X[perm[half : 2 * half]], both, both


def posterior_agreement(
    X,
    clusterer=None,
    k_range=range(2, 11),
    *,
    X_second=None,
    betas=None,
    n_splits=10,
    random_state=None,
    weights="boltzmann",
    gammas=None,
    codebook="auto",
    method="saddle",
    rule="auto",
):
    """Approximation capacity of a centroid clusterer as a function of resolution and k (§8).

    **Two instances (the published method).** With ``X_second``, a second
    measurement of the same objects (row ``i`` of ``X`` and of ``X_second``
    measure object ``i``, with independent noise), the clusterer is fitted
    to each instance, each instance's Gibbs posterior is computed on its
    own measurements, the clusters of the second are matched to the first's
    (Hungarian method on the confusion of the two labelings), and the
    capacity is maximised over the resolution (``beta``, ``gamma``); k is the
    largest maximum capacity, ties within one standard error going to the
    smaller k (``rule="global-se-max"``). This is the protocol of Buhmann
    (2010) and of the notes' §8.4.

    **One data set (a heuristic).** Without ``X_second``, each of
    ``n_splits`` random halvings clusters the halves ``X'`` and ``X''`` and
    evaluates both posteriors on the *same* points (the union of the
    halves): both posteriors then see the same measurement noise, which the
    method is meant to expose. Neither resampled halves paired object to
    object nor instances drawn from a noise model fitted to the data
    reproduce the two-instance choice of k (see Notes), so this shortcut
    stays a heuristic with its own decision rule (``"first-se-max"``).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The objects, or their first measurement ``X'``.
    clusterer : estimator, optional
        Must expose ``cluster_centers_`` (KMeans, DeterministicAnnealing,
        GibbsSamplerClustering: squared-distance costs) or
        ``assignment_costs`` (HistogramClustering: KL divergences of count
        rows; PairwiseClustering with a feature metric: mean fields) after
        fitting; default ``KMeans(n_init=10)``.
    k_range : iterable of int, default=range(2, 11)
    X_second : array-like of shape (n_samples, n_features), optional
        A second, independent measurement ``X''`` of the objects of ``X``,
        row-aligned with it. Given: the two-instance protocol. None (the
        default): the split-sample heuristic on ``X`` alone.
    betas : array-like of float, optional
        Inverse temperatures (Boltzmann) or sharpness (Fermi); default 61
        (Fermi: 13) values over five decades around the inverse of the mean
        gap between each object's cheapest and dearest cluster. Not used by
        binary weights.
    n_splits : int, default=10
        Split-sample heuristic: random halvings averaged over (the standard
        error is over them). Two instances: the capacity is a statistic of
        the objects, and its standard error is over them (Boltzmann weights:
        that of a mean over objects; Fermi and binary weights: a
        delete-one-group jackknife over ``n_splits`` random groups of
        objects).
    random_state : int, Generator or None
    weights : {"boltzmann", "fermi", "binary"}, default="boltzmann"
        Approximation weights of §8.2 on the excess cost ``dR = R(c) -
        R(c_perp)``: ``exp(-beta dR)``, ``1 / (1 + exp(beta (dR - n
        gamma)))``, ``1{dR <= n gamma}``.
    gammas : array-like of float, optional
        Per-object resolutions ``>= 0`` (Fermi, binary); default 16 values
        from 1e-3 to 1 times the mean gap.
    codebook : {"auto", "entropy", "labelings", "permutations"}, default="auto"
        Normalisation of the kernel, ``I = (1/n) log(|codebook| k(X', X''))``:
        ``"entropy"``, the number ``n! / prod_nu n_nu!`` of object
        permutations that change the first solution's labeling, ``(1/n) log``
        of which is the entropy of its cluster sizes (the code published by
        Buhmann's group); ``"labelings"``, the notes' ``|C| = k^n``;
        ``"permutations"``, the annealed average over object permutations
        (see :func:`agreement_capacity`). ``"auto"``: ``"entropy"`` with two
        instances, ``"labelings"`` for the split-sample heuristic. With two
        instances ``"labelings"`` over-estimates k: a cluster split in two
        halves its objects' agreement (``-log 2`` each) but adds ``log(k+1) -
        log k`` for every object.
    method : {"saddle", "exact"}, default="saddle"
        Weight sums of Fermi and binary weights by the Chernoff saddle point
        or by exact dynamic programming (small problems).
    rule : "auto" or str, default="auto"
        How k is chosen from ``max_capacity`` and its standard error, one of
        :data:`~statmechlearn.model_selection.GAP_RULES`. ``"auto"``: the
        published choice, ``"global-se-max"`` (the largest capacity, the
        smallest k within one standard error of it), with two instances; the
        smallest k within one standard error of the first local maximum,
        ``"first-se-max"``, for the split-sample heuristic, whose capacity
        keeps growing with k (see Notes).

    Returns
    -------
    PosteriorAgreementResult

    Notes
    -----
    Fraction of 40 data sets on which k-means posterior agreement (k = 1…8)
    finds the true k on the generators of ``selection-comparison`` (two
    instances: each object's two measurements independent draws from its
    generating cluster):

    ===========================================  =======  ==============
    protocol, codebook, rule                     4 sharp  Tibshirani's 3
    ===========================================  =======  ==============
    two instances, entropy, ``global-se-max``    1.00     1.00
    two instances, entropy, ``global-max``       0.85     0.85
    two instances, labelings, ``global-se-max``  0.53     1.00
    split sample, labelings, ``first-se-max``    0.70     0.93
    split sample, labelings, ``global-max``      0.40     0.00
    ===========================================  =======  ==============

    With one sample the two posteriors are evaluated on the same points, so
    a k-means tessellation of a single Gaussian cluster is reproduced and
    the capacity keeps growing with k (on a uniform null too); with two
    instances each object's two measurements fall on either side of such a
    cut independently, and with the entropy codebook a cut cluster costs as
    much agreement as the larger codebook gains (an exact tie for an even
    cut, a gain of order 1/n for an uneven one, which the 1-SE rule gives
    to the smaller k). Neither halves paired object to
    object nor instances drawn from a kernel-density noise model reproduce
    the two-instance choice (0.48 and 0.78 on the three clusters). See
    :ref:`the selection comparison <selection-pick-rates>` and
    ``docs/derivations/posterior_agreement.md``.

    Examples
    --------
    Two measurements of the same 120 objects in three clusters:

    >>> import numpy as np
    >>> from statmechlearn.model_selection import posterior_agreement
    >>> rng = np.random.default_rng(0)
    >>> centres = np.repeat([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]], 40, axis=0)
    >>> X1 = centres + rng.normal(0, 0.5, centres.shape)
    >>> X2 = centres + rng.normal(0, 0.5, centres.shape)
    >>> res = posterior_agreement(X1, k_range=range(1, 7), X_second=X2, random_state=0)
    >>> int(res.n_clusters), res.protocol
    (3, 'two-instance')
    >>> fermi = posterior_agreement(
    ...     X1, k_range=[2, 3], n_splits=2, weights="fermi", random_state=0
    ... )
    >>> fermi.capacity.shape  # k, beta, gamma
    (2, 13, 16)
    """
    two = X_second is not None
    X = check_X(X, min_samples=4)
    n = X.shape[0]
    half = n // 2
    if two:
        X_second = check_X_second(X_second, X)
    ks = check_k_range(k_range, n if two else half, minimum=1)
    clusterer = check_clusterer(clusterer)
    n_splits = check_int(n_splits, "n_splits", minimum=2, maximum=n if two else None)
    if codebook == "auto":
        codebook = "entropy" if two else "labelings"
    _check_family(weights, codebook, method)
    rule = _resolve_rule(rule, two)
    if betas is not None and weights != "binary":
        betas = _check_betas(betas, X, allow_zero=True)
    if gammas is not None:
        gammas = _check_gammas(gammas)
    rng = check_random_state(random_state)
    pairs = []  # (split, k index, costs of the two solutions)
    for s in range(1 if two else n_splits):
        A, B, on_a, on_b = _instance_pair(X, X_second, rng, half)
        seed = int(rng.integers(2**31 - 1))
        for j, k in enumerate(ks):
            if k == 1:
                continue
            _, est_a = fit_labels(clusterer, A, k, seed)
            _, est_b = fit_labels(clusterer, B, k, seed + 1)
            pairs.append((s, j, assignment_costs(est_a, on_a), assignment_costs(est_b, on_b)))
    betas, gammas = _default_grids(pairs, weights, betas, gammas)
    shape = (betas.size,) if weights == "boltzmann" else (betas.size, gammas.size)
    if two:
        # groups of objects for the jackknife: the capacity is a statistic of the objects
        groups = rng.permutation(np.arange(n) % n_splits)
        cap = np.zeros((ks.size, *shape))  # k = 1: capacity 0 everywhere
        se = np.zeros((ks.size, *shape))
        for _, j, ha, hb in pairs:
            ha, hb, k = _matched(ha, hb)
            with np.errstate(over="ignore", invalid="ignore"):
                cap[j], se[j] = _two_instance_capacity(
                    ha, hb, k, groups, betas, gammas, weights, codebook, method
                )
        bad = int(np.isnan(cap).any(axis=tuple(range(1, cap.ndim))).sum())
    else:
        values = np.zeros((n_splits, ks.size, *shape))
        for s, j, ha, hb in pairs:
            with np.errstate(over="ignore", invalid="ignore"):
                values[s, j] = capacity_from_costs(
                    ha, hb, betas, weights=weights, gammas=gammas, codebook=codebook, method=method
                )
        bad = int(np.isnan(values).any(axis=tuple(range(2, values.ndim))).sum())
        if not bad:
            with np.errstate(invalid="ignore"):
                cap = values.mean(axis=0)
                se = values.std(axis=0, ddof=1) / math.sqrt(n_splits)
    if bad:
        raise ValueError(
            f"the capacity is not finite for {bad} (split, k) pairs: betas (or gammas) are "
            "too large for these costs"
        )
    flat = np.where(np.isnan(cap), -np.inf, cap).reshape(ks.size, -1)
    best = flat.argmax(axis=1)
    max_cap = flat[np.arange(ks.size), best]
    max_se = np.nan_to_num(se.reshape(ks.size, -1)[np.arange(ks.size), best])
    index = np.unravel_index(best, shape)
    return PosteriorAgreementResult(
        n_clusters=choose_gap_k(ks, max_cap, max_se, rule),
        k_values=ks,
        betas=betas,
        capacity=cap,
        capacity_se=se,
        max_capacity=max_cap,
        best_beta=betas[index[0]],
        weights=weights,
        gammas=gammas,
        best_gamma=None if weights == "boltzmann" else gammas[index[1]],
        codebook=codebook,
        max_capacity_se=max_se,
        rule=rule,
        protocol="two-instance" if two else "split-sample",
    )


@dataclass(frozen=True)
class AnnealedAgreementResult:
    """Approximation capacity along deterministic-annealing paths.

    Attributes
    ----------
    n_clusters : int
        Code vectors (of the first half) at ``best_beta``.
    best_beta : float
        The ``beta`` of largest capacity.
    betas : ndarray
    capacity : ndarray
        ``I(beta)`` averaged over splits (nats per object).
    capacity_se : ndarray
    n_effective : ndarray
        Mean number of code vectors of the two halves at each ``beta``.
    """

    n_clusters: int
    best_beta: float
    betas: np.ndarray
    capacity: np.ndarray
    capacity_se: np.ndarray
    n_effective: np.ndarray

    def plot(self, ax=None):
        """``I(beta)`` with the number of clusters on a second axis; returns the Axes."""
        plt = import_optional("matplotlib.pyplot", purpose="plot()")

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.5))
        ax.errorbar(self.betas, self.capacity, self.capacity_se, fmt="-", color="C0")
        ax.axvline(self.best_beta, color="C3", ls="--", label=f"k = {self.n_clusters}")
        ax.set_xscale("log")
        ax.set_xlabel("β = 1/T")
        ax.set_ylabel("I(β) [nats/object]")
        twin = ax.twinx()
        twin.step(self.betas, self.n_effective, where="post", color="0.5", lw=0.8)
        twin.set_ylabel("clusters on the path", color="0.5")
        ax.legend(fontsize=8)
        return ax


def _state_at(path, T):
    """Code vectors and weights of an annealing path at temperature ``T`` (last entry >= T)."""
    temps = np.asarray(path.temperature)
    idx = np.flatnonzero(temps >= T)
    j = idx[-1] if idx.size else 0
    return np.asarray(path.centers[j]), np.asarray(path.weights[j])


def _path_capacity(Xa, Xb, path_a, path_b, betas, codebook):
    out = np.empty(len(betas))
    k_eff = np.empty(len(betas))
    for j, beta in enumerate(betas):
        Ya, wa = _state_at(path_a, 1.0 / beta)
        Yb, wb = _state_at(path_b, 1.0 / beta)
        la = _log_posterior(Xa, Ya, beta) + np.log(np.maximum(wa, 1e-300))
        la -= logsumexp(la, axis=1, keepdims=True)
        lb = _log_posterior(Xb, Yb, beta) + np.log(np.maximum(wb, 1e-300))
        lb -= logsumexp(lb, axis=1, keepdims=True)
        cost = np.sum((Ya[:, None, :] - Yb[None, :, :]) ** 2, axis=-1)
        ra, rb = linear_sum_assignment(cost)
        k = max(Ya.shape[0], Yb.shape[0])
        # unmatched code vectors have no partner: their products are zero
        log_size = _log_codebook(-la, k, codebook)
        out[j] = log_size + float(np.mean(logsumexp(la[:, ra] + lb[:, rb], axis=1)))
        k_eff[j] = 0.5 * (Ya.shape[0] + Yb.shape[0])
    return out, k_eff


def posterior_agreement_path(
    X,
    max_clusters=10,
    *,
    X_second=None,
    betas=None,
    n_splits=10,
    random_state=None,
    **annealing_params,
):
    """Approximation capacity of deterministic annealing along its own path (§8.4).

    With ``X_second``, a second measurement of the objects of ``X``
    (row-aligned), each instance is annealed and each posterior is computed
    on its own instance's measurements (the published two-instance
    protocol), and the codebook is the entropy of the first instance's
    cluster sizes at each temperature (``log k`` rewards a cut cluster, see
    :func:`posterior_agreement`). Without it (a one-sample heuristic), each split's halves are
    annealed and both posteriors are computed on the same points. Each
    instance (or half) is annealed by :class:`~statmechlearn.cluster.DeterministicAnnealing`
    up to ``max_clusters``; at inverse temperature ``beta`` each half's
    posterior is the Gibbs assignment ``p(nu | x) ∝ w_nu exp(-beta |x - y_nu|^2)``
    with the code vectors and weights its path holds at ``T = 1/beta`` (so
    the number of clusters is the one the annealing reached there). The
    chosen ``beta`` maximises the capacity, and the chosen k is the number
    of clusters at it: model order and resolution at once.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    max_clusters : int, default=10
    X_second : array-like of shape (n_samples, n_features), optional
        The second instance, row-aligned with ``X``; None: the split-sample
        heuristic.
    betas : array-like of float, optional
        Default 61 values from ``1e-2`` to ``1e3`` over the mean squared
        distance to the mean.
    n_splits : int, default=10
        Random halvings (split sample), or independent annealing runs of
        the two instances (two instances), averaged over.
    random_state : int, Generator or None
    **annealing_params
        Passed to ``DeterministicAnnealing`` (``cooling_rate``, ``tol``, …).

    Returns
    -------
    AnnealedAgreementResult
    """
    import warnings

    from statmechlearn.cluster import DeterministicAnnealing

    X = check_X(X, min_samples=4)
    n = X.shape[0]
    half = n // 2
    two = X_second is not None
    if two:
        X_second = check_X_second(X_second, X) - X.mean(axis=0)
    max_clusters = check_int(max_clusters, "max_clusters", minimum=1, maximum=n if two else half)
    n_splits = check_int(n_splits, "n_splits", minimum=2)
    Xc = X - X.mean(axis=0)
    betas = _check_betas(betas, Xc, allow_zero=False)
    rng = check_random_state(random_state)
    values = np.empty((n_splits, betas.size))
    k_eff = np.empty((n_splits, betas.size))
    for s in range(n_splits):
        A, B, on_a, on_b = _instance_pair(Xc, X_second, rng, half)
        paths = []
        for part in (A, B):
            da = DeterministicAnnealing(
                max_clusters, random_state=int(rng.integers(2**31 - 1)), **annealing_params
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                paths.append(da.fit(part).path_)
        values[s], k_eff[s] = _path_capacity(
            on_a, on_b, *paths, betas, "entropy" if two else "labelings"
        )
    cap = values.mean(axis=0)
    se = values.std(axis=0, ddof=1) / math.sqrt(n_splits)
    best = int(np.argmax(cap))
    return AnnealedAgreementResult(
        n_clusters=round(float(k_eff[:, best].mean())),
        best_beta=float(betas[best]),
        betas=betas,
        capacity=cap,
        capacity_se=se,
        n_effective=k_eff.mean(axis=0),
    )
