"""The gap statistic (Tibshirani, Walther & Hastie 2001; lecture notes §7.2)."""

from dataclasses import dataclass

import numba
import numpy as np
from joblib import Parallel, delayed

from statmechlearn._core.optional import import_optional
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

#: The default clusterer's settings, scikit-learn's ``KMeans`` defaults: starts,
#: Lloyd iterations per start, and the centre-shift tolerance relative to the
#: mean feature variance.
_N_INIT, _MAX_ITER, _TOL = 10, 300, 1e-4

# reassociation lets LLVM keep several SIMD accumulators in the distance sums; infinities
# and NaNs keep their IEEE meaning (the searches start from inf)
_FAST = {"reassoc", "contract"}

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
        plt = import_optional("matplotlib.pyplot", purpose="plot()")

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.5))
        ax.errorbar(self.k_values, self.gap, self.s, fmt="o-", capsize=3)
        ax.axvline(self.n_clusters, color="C3", ls="--", label=f"k = {self.n_clusters}")
        ax.set_xlabel("k")
        ax.set_ylabel("gap(k)")
        ax.set_title(f"gap statistic ({self.rule}, B = {self.n_references})", fontsize=9)
        ax.legend(fontsize=8)
        return ax


def _reference_box(X, kind):
    """What the reference draws need: the box's corners and, for ``"pca"``, the rotation."""
    if kind == "uniform":
        return X.min(axis=0), X.max(axis=0), None, None
    mean = X.mean(axis=0)
    _, _, Vt = np.linalg.svd(X - mean, full_matrices=False)
    Z = (X - mean) @ Vt.T
    return Z.min(axis=0), Z.max(axis=0), Vt, mean


def _reference(box, n, rng):
    lo, hi, Vt, mean = box
    if Vt is None:
        return rng.uniform(lo, hi, size=(n, lo.size))
    return rng.uniform(lo, hi, size=(n, lo.size)) @ Vt + mean


def _log_w_curve(clusterer, X, k_values, seed):
    out = np.empty(len(k_values))
    for j, k in enumerate(k_values):
        if k == 1:
            labels = np.zeros(X.shape[0], dtype=int)
        else:
            labels, _ = fit_labels(clusterer, X, k, seed)
        out[j] = np.log(max(within_dispersion(X, labels), 1e-300))
    return out


# ---------------------------------------------------------------- the default k-means, compiled
#
# The gap statistic's cost is some (B + 1)(K - 1) k-means fits of small data sets, where a
# scikit-learn KMeans fit is mostly per-call overhead (validation, thread-pool set-up): the
# same algorithm as KMeans(n_init=10) -- greedy k-means++ seeding with 2 + log k candidates
# per centre, Lloyd iterations to its tolerance, the best of 10 starts -- compiled, with the
# starts' random numbers drawn beforehand so that a plain NumPy twin can replay them. One
# difference: a centre that loses all its points stays where it was (KMeans moves it to a far
# point); the best of 10 starts hides it, and the tests compare the W_k both reach.


def _n_trials(k):
    return 2 + int(np.log(k))


def _draws(ks, n_init, rng):
    """Uniforms of every start's seeding: one for the first centre, ``n_trials`` per other."""
    width = max(1 + (int(k) - 1) * _n_trials(int(k)) for k in ks)
    return rng.random((len(ks), n_init, width))


def _tolerance(X):
    # scikit-learn's tol is relative to the mean variance of the features
    return _TOL * float(np.mean(np.var(X, axis=0)))


#: Relative difference below which two k-means++ candidates' potentials count as a tie.
_TIE = 1e-12


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def _sq_dist(A, i, B, j):
    s = 0.0
    for f in range(A.shape[1]):
        t = A[i, f] - B[j, f]
        s += t * t
    return s


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def _seed_kmeanspp(X, k, n_trials, u, C):
    n = X.shape[0]
    first = min(int(u[0] * n), n - 1)
    C[0, :] = X[first]
    closest = np.empty(n)
    pot = 0.0
    for i in range(n):
        closest[i] = _sq_dist(X, i, C, 0)
        pot += closest[i]
    cum = np.empty(n)
    trial = np.empty(n)
    best = np.empty(n)
    pos = 1
    for c in range(1, k):
        acc = 0.0
        for i in range(n):
            acc += closest[i]
            cum[i] = acc
        best_pot = np.inf
        best_idx = 0
        for _ in range(n_trials):
            idx = min(np.searchsorted(cum, u[pos] * pot), n - 1)
            pos += 1
            p = 0.0
            for i in range(n):
                dd = min(_sq_dist(X, i, X, idx), closest[i])
                trial[i] = dd
                p += dd
            # candidates whose potentials differ only by rounding (two points that are each
            # other's nearest give the same potential) go to the first drawn, in both twins
            if p < best_pot * (1.0 - _TIE):
                best_pot = p
                best_idx = idx
                best[:] = trial
        C[c, :] = X[best_idx]
        closest[:] = best
        pot = best_pot


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def _assign(X, C, labels):
    changed = 0
    for i in range(X.shape[0]):
        best = 0
        best_d = _sq_dist(X, i, C, 0)
        for c in range(1, C.shape[0]):
            dd = _sq_dist(X, i, C, c)
            if dd < best_d:
                best_d = dd
                best = c
        if best != labels[i]:
            changed += 1
            labels[i] = best
    return changed


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def _within_ss(X, labels, k):
    n, d = X.shape
    sums = np.zeros((k, d))
    counts = np.zeros(k)
    for i in range(n):
        counts[labels[i]] += 1.0
        for f in range(d):
            sums[labels[i], f] += X[i, f]
    total = 0.0
    for i in range(n):
        c = labels[i]
        for f in range(d):
            t = X[i, f] - sums[c, f] / counts[c]
            total += t * t
    return total


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def _lloyd(X, C, labels, max_iter, tol):
    n, d = X.shape
    k = C.shape[0]
    labels[:] = -1
    sums = np.empty((k, d))
    counts = np.empty(k)
    for it in range(max_iter):
        if _assign(X, C, labels) == 0 and it > 0:
            break
        sums[:] = 0.0
        counts[:] = 0.0
        for i in range(n):
            counts[labels[i]] += 1.0
            for f in range(d):
                sums[labels[i], f] += X[i, f]
        shift = 0.0
        for c in range(k):
            if counts[c] > 0.0:  # an emptied centre stays where it was
                for f in range(d):
                    new = sums[c, f] / counts[c]
                    shift += (new - C[c, f]) ** 2
                    C[c, f] = new
        if shift <= tol:
            _assign(X, C, labels)
            break


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def _kmeans_log_w(X, ks, U, max_iter, tol):
    """``log W_k`` for each k: the best of ``U.shape[1]`` seeded Lloyd runs (k = 1: no fit)."""
    n, d = X.shape
    out = np.empty(ks.size)
    labels = np.empty(n, dtype=np.int64)
    for j in range(ks.size):
        k = ks[j]
        if k == 1:
            labels[:] = 0
            best = _within_ss(X, labels, 1)
        else:
            n_trials = 2 + int(np.log(k))
            C = np.empty((k, d))
            best = np.inf
            for s in range(U.shape[1]):
                _seed_kmeanspp(X, k, n_trials, U[j, s], C)
                _lloyd(X, C, labels, max_iter, tol)
                best = min(best, _within_ss(X, labels, k))
        out[j] = np.log(max(best, 1e-300))
    return out


def _kmeans_log_w_numpy(X, ks, U, max_iter, tol):
    """Plain-NumPy twin of :func:`_kmeans_log_w` (same draws, same steps), for the tests."""
    n = X.shape[0]
    out = np.empty(len(ks))
    for j, k in enumerate(ks):
        k = int(k)
        if k == 1:
            out[j] = np.log(max(within_dispersion(X, np.zeros(n, dtype=int)), 1e-300))
            continue
        best = np.inf
        for u in U[j]:
            closest = ((X - X[min(int(u[0] * n), n - 1)]) ** 2).sum(axis=1)
            C = [X[min(int(u[0] * n), n - 1)]]
            pos = 1
            for _ in range(1, k):
                cum = np.cumsum(closest)
                pot = cum[-1]
                trials = []
                for _ in range(_n_trials(k)):
                    idx = min(int(np.searchsorted(cum, u[pos] * pot)), n - 1)
                    pos += 1
                    trials.append((idx, np.minimum(((X - X[idx]) ** 2).sum(axis=1), closest)))
                idx, closest = trials[0]
                for cand, pot_c in trials[1:]:
                    if pot_c.sum() < closest.sum() * (1.0 - _TIE):
                        idx, closest = cand, pot_c
                C.append(X[idx])
            C = np.array(C)
            labels = np.full(n, -1)
            for it in range(max_iter):
                new = np.argmin(((X[:, None, :] - C[None]) ** 2).sum(axis=2), axis=1)
                same = np.array_equal(new, labels)
                labels = new
                if same and it > 0:
                    break
                old = C.copy()
                for c in range(k):
                    if np.any(labels == c):
                        C[c] = X[labels == c].mean(axis=0)
                if ((C - old) ** 2).sum() <= tol:
                    labels = np.argmin(((X[:, None, :] - C[None]) ** 2).sum(axis=2), axis=1)
                    break
            best = min(best, within_dispersion(X, labels))
        out[j] = np.log(max(best, 1e-300))
    return out


def _compiled_curve(X, ks, rng):
    return _kmeans_log_w(X, ks, _draws(ks, _N_INIT, rng), _MAX_ITER, _tolerance(X))


def _reference_curve(box, n, ks, clusterer, seed):
    rng = np.random.default_rng(seed)
    R = _reference(box, n, rng)
    if clusterer is None:
        return _compiled_curve(R, ks, rng)
    return _log_w_curve(clusterer, R, ks, int(seed))


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
        Anything with ``n_clusters`` and ``fit_predict``, cloned for every fit.
        By default, a compiled k-means with scikit-learn's ``KMeans()``
        defaults (greedy k-means++ seeding, Lloyd iterations to
        ``tol=1e-4`` of the mean feature variance, at most 300, the best of
        10 starts), the same fits without the per-call overhead that
        dominates the (B + 1)(K - 1) fits of small data sets. k = 1 needs no
        fit.
    k_range : iterable of int, default=range(1, 11)
        Consecutive values from 1 give the paper's rule its meaning.
    n_references : int, default=50
        ``B``; at least 10 (the standard error of ``E*`` falls like B^-1/2).
    reference : {"uniform", "pca"}, default="uniform"
    rule : str, default="tibshirani"
        One of :data:`GAP_RULES`.
    random_state : int, Generator or None
    n_jobs : int, optional
        Reference sets in parallel (joblib; threads with the default
        clusterer, which releases the GIL, processes otherwise). None: one.

    Returns
    -------
    GapResult

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from statmechlearn.model_selection import gap_statistic
    >>> X, _ = make_blobs(60, centers=3, cluster_std=0.3, random_state=0)
    >>> result = gap_statistic(X, k_range=range(1, 6), n_references=10, random_state=0)
    >>> result.n_clusters
    3
    >>> result.gap.shape
    (5,)
    """
    X = check_X(X)
    ks = check_k_range(k_range, X.shape[0])
    if clusterer is not None:
        clusterer = check_clusterer(clusterer)
    B = check_int(n_references, "n_references", minimum=10)
    reference = check_choice(reference, "reference", ("uniform", "pca"))
    check_choice(rule, "rule", GAP_RULES)
    if n_jobs is not None and check_int(n_jobs, "n_jobs") == 0:
        raise ValueError("n_jobs must be None or a non-zero int (-1: all cores), got 0")
    rng = check_random_state(random_state)
    seeds = rng.integers(2**31 - 1, size=B + 1)
    if clusterer is None:
        log_w = _compiled_curve(X, ks, np.random.default_rng(seeds[0]))
    else:
        log_w = _log_w_curve(clusterer, X, ks, seeds[0])
    box = _reference_box(X, reference)
    # the compiled k-means releases the GIL: threads share X and start at once
    ref_log_w = np.array(
        Parallel(n_jobs=n_jobs, prefer="threads" if clusterer is None else None)(
            delayed(_reference_curve)(box, X.shape[0], ks, clusterer, s) for s in seeds[1:]
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
