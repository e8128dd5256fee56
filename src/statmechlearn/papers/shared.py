"""Helpers that more than one paper's figures use.

A paper package imports the engine (:mod:`statmechlearn.experiments`), the
library's numeric packages and this module; never another paper's modules.
"""

import math
import warnings

import numpy as np

from statmechlearn.experiments import Reference

__all__ = ["LECTURE_NOTES", "matched_accuracy", "measured_critical_temperature"]

#: The lecture notes behind the maxent, sampling and selection figures (unpublished).
LECTURE_NOTES = Reference(
    authors="D. Çetin",
    title="Statistical Learning Theory (lecture notes)",
    year=2019,
    note=(
        "Unpublished course notes dated 13 September 2019, quoting the lecturer (Buhmann); "
        "they print no institution. No DOI or stable public link exists."
    ),
    source="title, author and date as printed on the notes",
)


_SCAN = (0.99, 0.98, 0.97, 0.96)  # temperatures below the bracket, relative to it


def _split_gap(X, temperature, direction, half_gap):
    """Squared distance of two code vectors at the fixed point reached from mean ± half_gap·v."""
    from statmechlearn.cluster import DeterministicAnnealing

    mean = X.mean(axis=0)
    init = np.stack([mean + half_gap * direction, mean - half_gap * direction])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # near T_c the fixed point is slow; max_iter is ample
        da = DeterministicAnnealing(
            2,
            mass_constrained=False,
            anneal=False,
            temperature=temperature,
            init=init,
            max_iter=50_000,
            tol=1e-16,
        ).fit(X)
    c = da.cluster_centers_
    return float(np.sum((c[0] - c[-1]) ** 2))


def measured_critical_temperature(X, rng, *, n_bisections=10):
    """First critical temperature of deterministic annealing, measured without its split rule.

    Two code vectors start at the mean ± a tenth of the data's standard
    deviation along a random direction, and :class:`~statmechlearn.cluster.
    DeterministicAnnealing` iterates them to the fixed point at a fixed
    temperature (``anneal=False``, equal weights). Above the first critical
    temperature they merge, below it they stay apart: bisection in ``T``
    brackets the bifurcation, and the squared gap at four temperatures 1–4 %
    below the bracket (linear in ``T_c - T`` near a pitchfork, plus a small
    quadratic term) is extrapolated to zero. Nothing here uses the theory's
    ``2 lambda_max(C)``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    rng : numpy.random.Generator
        Draws the direction of the initial split.
    n_bisections : int, default=10
        Halvings of ``[0, 2 tr C]`` (``2 lambda_max <= 2 tr C``).

    Returns
    -------
    float
        The extrapolated critical temperature.
    """
    Xc = X - X.mean(axis=0)
    trace = float(np.sum(Xc * Xc) / len(Xc))
    v = rng.standard_normal(X.shape[1])
    v /= np.linalg.norm(v)
    half = 0.1 * math.sqrt(trace)
    lo, hi = 0.0, 2.0 * trace
    for _ in range(n_bisections):
        mid = 0.5 * (lo + hi)
        if _split_gap(X, mid, v, half) > 1e-6 * trace:
            lo = mid
        else:
            hi = mid
    temps = lo * np.array(_SCAN)
    gaps = np.array([_split_gap(X, t, v, half) for t in temps])
    roots = np.roots(np.polyfit(temps, gaps, 2))
    roots = roots[np.isreal(roots)].real
    return float(roots[np.argmin(np.abs(roots - lo))]) if roots.size else math.nan


def matched_accuracy(truth, labels):
    """Fraction of points labelled correctly under the best matching of cluster labels.

    Parameters
    ----------
    truth, labels : ndarray of int, shape (n,)
        True classes and cluster labels, both ``0 .. k-1``.

    Returns
    -------
    float
        ``max over permutations pi of mean(truth == pi(labels))``, found as a
        linear assignment (Hungarian method) on the confusion matrix.
    """
    from scipy.optimize import linear_sum_assignment

    k = max(truth.max(), labels.max()) + 1
    C = np.zeros((k, k))
    np.add.at(C, (truth, labels), 1)
    r, c = linear_sum_assignment(-C)
    return float(C[r, c].sum() / truth.size)
