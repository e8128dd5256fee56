"""Choosing k: gap statistic, stability, BIC/MDL, posterior agreement, select_n_clusters."""

import math

import matplotlib
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs
from sklearn.mixture import GaussianMixture

from statmechlearn.cluster import DeterministicAnnealing
from statmechlearn.model_selection import (
    GAP_RULES,
    agreement_capacity,
    bic,
    choose_gap_k,
    gap_statistic,
    log_likelihood,
    mdl,
    n_parameters,
    posterior_agreement,
    posterior_agreement_path,
    random_label_disagreement,
    select_n_clusters,
    stability,
)
from statmechlearn.model_selection._common import matched_disagreement, within_dispersion
from statmechlearn.model_selection._gap import (
    _draws,
    _kmeans_log_w,
    _kmeans_log_w_numpy,
    _tolerance,
)

matplotlib.use("Agg")


def _tibshirani_three(seed):
    """Tibshirani et al.'s setting: (0,0), (0,5), (5,-3), 25/50/25 points, unit variance."""
    rng = np.random.default_rng(seed)
    return np.vstack(
        [
            rng.normal([0, 0], 1, (25, 2)),
            rng.normal([0, 5], 1, (50, 2)),
            rng.normal([5, -3], 1, (25, 2)),
        ]
    )


def test_within_dispersion_is_half_mean_pairwise_squared_distance():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    labels = rng.integers(3, size=30)
    direct = 0.0
    for k in range(3):
        M = X[labels == k]
        D = ((M[:, None] - M[None]) ** 2).sum(-1)
        direct += D.sum() / (2 * len(M))
    assert within_dispersion(X, labels) == pytest.approx(direct)


def test_gap_rules_on_a_hand_made_curve():
    k = np.arange(1, 7)
    gap = np.array([0.1, 0.5, 0.9, 0.85, 1.0, 0.95])
    s = np.full(6, 0.1)
    assert choose_gap_k(k, gap, s, "tibshirani") == 3  # 0.9 >= 0.85 - 0.1
    assert choose_gap_k(k, gap, s, "first-max") == 3
    assert choose_gap_k(k, gap, s, "global-max") == 5
    assert choose_gap_k(k, gap, s, "global-se-max") == 3  # 0.9 >= 1.0 - 0.1
    assert choose_gap_k(k, gap, s, "first-se-max") == 3
    assert set(GAP_RULES) == {
        "tibshirani",
        "first-se-max",
        "global-se-max",
        "first-max",
        "global-max",
    }


@pytest.mark.parametrize("reference", ["uniform", "pca"])
def test_gap_finds_three_clusters_and_one_in_the_null(reference):
    X = _tibshirani_three(0)
    res = gap_statistic(
        X, k_range=range(1, 7), n_references=20, reference=reference, random_state=0
    )
    assert res.n_clusters == 3
    assert res.gap[2] > res.gap[1] + res.s[2]
    null = np.random.default_rng(1).uniform(size=(200, 10))
    res0 = gap_statistic(
        null, k_range=range(1, 6), n_references=20, reference=reference, random_state=0
    )
    assert res0.n_clusters == 1
    # the reference mean is the Monte Carlo mean: s_k = sd_k sqrt(1 + 1/B)
    np.testing.assert_allclose(res0.s, res0.sd * math.sqrt(1 + 1 / 20))
    res0.plot()
    matplotlib.pyplot.close("all")


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(2, 40),
    d=st.integers(1, 5),
    k_max=st.integers(1, 6),
    seed=st.integers(0, 2**32 - 1),
)
# two k-means++ candidates with potentials one rounding apart (a mutually nearest pair):
# the twins summed them in different orders and took different centres
@example(n=5, d=3, k_max=3, seed=7)
def test_compiled_kmeans_matches_numpy_twin(n, d, k_max, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * rng.uniform(0.1, 10.0, size=d)
    ks = np.arange(1, min(k_max, n) + 1)
    U = _draws(ks, 3, rng)
    fast = _kmeans_log_w(X, ks, U, 300, _tolerance(X))
    slow = _kmeans_log_w_numpy(X, ks, U, 300, _tolerance(X))
    np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-12)


def test_default_clusterer_fits_as_well_as_kmeans():
    # the compiled default is KMeans(n_init=10)'s algorithm: on separated blobs both reach the
    # global optimum at the true k; elsewhere both are local optima of 10 starts, so neither
    # is lower on average by more than the spread of such optima (a few per cent of W_k)
    X, _ = make_blobs(200, centers=[(0, 0), (8, 0), (0, 8), (8, 8)], random_state=3)
    ks = np.arange(1, 8)
    ours = _kmeans_log_w(X, ks, _draws(ks, 10, np.random.default_rng(0)), 300, _tolerance(X))
    sk = [np.log(KMeans(k, n_init=10, random_state=0).fit(X).inertia_) for k in ks[1:]]
    assert ours[3] == pytest.approx(sk[2], rel=1e-9)
    assert ours[0] == pytest.approx(np.log(within_dispersion(X, np.zeros(200, dtype=int))))
    rng = np.random.default_rng(1)
    excess = []
    for i in range(10):
        R = rng.uniform(size=(100, 3))
        mine = _kmeans_log_w(R, ks, _draws(ks, 10, rng), 300, _tolerance(R))[1:]
        theirs = [np.log(KMeans(k, n_init=10, random_state=i).fit(R).inertia_) for k in ks[1:]]
        excess.append(mine - theirs)
    assert abs(np.mean(excess)) < 0.01


def test_gap_default_is_reproducible_across_n_jobs():
    X = _tibshirani_three(2)
    one = gap_statistic(X, k_range=range(1, 6), n_references=12, random_state=5)
    two = gap_statistic(X, k_range=range(1, 6), n_references=12, random_state=5, n_jobs=2)
    np.testing.assert_array_equal(one.gap, two.gap)
    np.testing.assert_array_equal(one.s, two.s)
    # an explicitly given clusterer is used as given; up to the true k both find the optimum
    km = gap_statistic(X, KMeans(n_init=10), range(1, 6), n_references=10, random_state=5)
    assert km.n_clusters == 3
    np.testing.assert_allclose(km.log_w[:3], one.log_w[:3], rtol=1e-9)


def test_random_label_disagreement_tends_to_one_minus_one_over_k():
    assert random_label_disagreement(4000, 3, n_draws=20, random_state=0) == pytest.approx(
        2 / 3, abs=0.02
    )
    assert matched_disagreement([0, 0, 1, 1], [1, 1, 0, 0], 2) == 0.0
    assert matched_disagreement([0, 0, 1, 1], [0, 1, 0, 1], 2) == 0.5


def test_stability_prefers_the_true_k_for_sharp_clusters():
    X, _ = make_blobs(
        300, centers=[(0, 0), (6, 0), (0, 6), (6, 6)], cluster_std=0.8, random_state=3
    )
    res = stability(X, k_range=range(2, 7), n_splits=8, random_state=0)
    assert res.n_clusters == 4
    assert res.instability[res.k_values == 4][0] < 0.02
    assert np.all(res.normalized >= 0) and res.per_split.shape == (8, 5)
    res.plot()
    matplotlib.pyplot.close("all")


def test_bic_and_mdl_of_kmeans_spelled_out():
    X, _ = make_blobs(200, n_features=3, centers=3, random_state=0)
    km = KMeans(3, n_init=10, random_state=0).fit(X)
    assert n_parameters(km, 3) == 3 * 3 + 1 + 2
    n, d = X.shape
    sse = km.inertia_
    counts = np.bincount(km.labels_)
    ll = np.sum(counts * np.log(counts / n)) - 0.5 * n * d * (np.log(2 * np.pi * sse / (n * d)) + 1)
    assert log_likelihood(km, X) == pytest.approx(ll, rel=1e-10)
    assert bic(km, X) == pytest.approx(-ll + 0.5 * 12 * np.log(n), rel=1e-10)
    assert mdl(km, X) == pytest.approx(bic(km, X) / np.log(2))


@pytest.mark.parametrize("cov", ["full", "tied", "diag", "spherical"])
def test_bic_of_gaussian_mixture_is_half_sklearns(cov):
    X, _ = make_blobs(200, n_features=3, centers=2, random_state=0)
    gm = GaussianMixture(2, covariance_type=cov, random_state=0).fit(X)
    assert n_parameters(gm, 3) == gm._n_parameters()
    assert bic(gm, X) == pytest.approx(gm.bic(X) / 2, rel=1e-10)


def test_agreement_capacity_limits():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 2))
    Y = np.array([[0.0, 0.0], [5.0, 5.0], [-5.0, 5.0]])
    # identical code vectors (in another order): capacity rises to log k at large beta
    cap = agreement_capacity(X, Y, Y[[2, 0, 1]], [0.0, 1e3])
    assert cap[0] == pytest.approx(0.0, abs=1e-12)
    assert cap[1] == pytest.approx(math.log(3), abs=1e-9)


def test_posterior_agreement_prefers_separated_clusters():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.3, (60, 2)) for c in [(0, 0), (5, 0), (0, 5)]])
    res = posterior_agreement(X, k_range=range(1, 5), n_splits=4, random_state=0)
    # the three clusters are found in both halves: capacity log 3 per object; a fourth
    # cluster can be as reproducible (it splits a blob the same way in both halves), so
    # the choice is 3 or more, never fewer (docs/derivations/model_selection.md)
    assert res.max_capacity[res.k_values == 3][0] == pytest.approx(math.log(3), abs=0.02)
    assert res.n_clusters >= 3 and res.max_capacity[1] < math.log(3) - 0.3
    path = posterior_agreement_path(X, 6, n_splits=3, random_state=0)
    assert path.n_clusters >= 3 and path.capacity.max() >= math.log(3) - 0.02
    assert path.capacity[0] == pytest.approx(0.0, abs=1e-12)
    sel = select_n_clusters(
        X, k_range=range(1, 5), method="posterior_agreement", n_splits=4, random_state=0
    )
    assert sel.n_clusters >= 3
    res.plot()
    path.plot()
    matplotlib.pyplot.close("all")


def test_posterior_agreement_rule_is_applied_to_the_capacity_and_its_se():
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(c, 0.3, (40, 2)) for c in [(0, 0), (5, 0), (0, 5), (5, 5)]])
    res = posterior_agreement(X, k_range=range(1, 7), n_splits=3, random_state=1)
    assert res.rule == "first-se-max"
    assert res.max_capacity_se.shape == res.k_values.shape and np.all(res.max_capacity_se >= 0)
    # the default: the smallest k within one SE of the first local maximum, by hand
    cap, se = res.max_capacity, res.max_capacity_se
    first = next((i for i in range(cap.size - 1) if cap[i] >= cap[i + 1]), cap.size - 1)
    within = cap[: first + 1] >= cap[first] - se[first]
    assert res.n_clusters == res.k_values[np.flatnonzero(within)[0]]
    top = int(np.argmax(cap))
    assert res.choose("global-max") == res.k_values[top]
    # the same splits under another rule: the same curve, only the choice may differ
    argmax = posterior_agreement(
        X, k_range=range(1, 7), n_splits=3, random_state=1, rule="global-max"
    )
    np.testing.assert_array_equal(argmax.max_capacity, res.max_capacity)
    assert argmax.n_clusters == res.k_values[top] and argmax.n_clusters >= res.n_clusters
    with pytest.raises(ValueError, match="rule"):
        posterior_agreement(X, k_range=[2, 3], n_splits=2, rule="largest")


@pytest.mark.parametrize("method", ["gap", "stability", "bic", "mdl"])
def test_select_n_clusters_on_well_separated_blobs(method):
    X, _ = make_blobs(240, centers=[(0, 0), (6, 0), (0, 6)], cluster_std=0.8, random_state=5)
    kw = {"n_references": 15} if method == "gap" else {}
    if method == "stability":
        kw = {"n_splits": 4}
    res = select_n_clusters(X, k_range=range(1, 6), method=method, random_state=0, **kw)
    assert res.n_clusters == 3
    assert res.scores.shape == res.k_values.shape
    res.plot()
    matplotlib.pyplot.close("all")


def test_select_with_a_library_clusterer_and_mixture():
    X, _ = make_blobs(150, centers=2, cluster_std=0.5, random_state=2)
    res = select_n_clusters(X, DeterministicAnnealing(random_state=0), range(1, 5), "bic")
    assert res.n_clusters == 2
    res = select_n_clusters(X, GaussianMixture(), range(1, 5), "bic", random_state=0)
    assert res.n_clusters == 2


def test_selection_bad_input():
    X = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.raises(ValueError, match="k_range"):
        gap_statistic(X, k_range=[0, 1, 2])
    with pytest.raises(ValueError, match="k_range"):
        gap_statistic(X, k_range=[2, 25])
    with pytest.raises(ValueError, match="k_range"):
        stability(X, k_range=[1, 2])
    with pytest.raises(ValueError, match="k_range"):
        stability(X, k_range=[2, 11])  # halves of 10
    with pytest.raises(ValueError, match="minimum of 4"):
        stability(X[:3], k_range=[2])
    with pytest.raises(TypeError, match="fit_predict"):
        gap_statistic(X, clusterer=object())
    with pytest.raises(TypeError, match="n_clusters"):
        from sklearn.cluster import DBSCAN

        gap_statistic(X, clusterer=DBSCAN())
    with pytest.raises(ValueError, match="n_references"):
        gap_statistic(X, n_references=5)
    with pytest.raises(ValueError, match="method"):
        select_n_clusters(X, method="aic")
    with pytest.raises(ValueError, match=r"NaN|infinity"):
        gap_statistic(np.array([[0.0, np.nan]] * 5))


def test_betas_are_checked():
    X = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.raises(ValueError, match="betas"):
        posterior_agreement(X, k_range=[2], betas=[-1.0], n_splits=2)
    with pytest.raises(ValueError, match="betas"):
        posterior_agreement_path(X, 2, betas=[0.0], n_splits=2)


def test_posterior_agreement_with_histogram_and_pairwise_clustering():
    from statmechlearn.cluster import HistogramClustering, PairwiseClustering

    rng = np.random.default_rng(0)
    sources = rng.dirichlet(np.full(12, 0.5), size=3)
    counts = np.vstack([rng.multinomial(200, sources[i], size=40) for i in range(3)])
    res = posterior_agreement(
        counts, HistogramClustering(random_state=0), range(1, 5), n_splits=3, random_state=0
    )
    assert res.n_clusters >= 3 and res.max_capacity[2] > res.max_capacity[1] + 0.2
    X = np.vstack([rng.normal(c, 0.3, (60, 2)) for c in [(0, 0), (5, 0), (0, 5)]])
    res = posterior_agreement(
        X,
        PairwiseClustering(metric="sqeuclidean", random_state=0),
        range(1, 5),
        n_splits=3,
        random_state=0,
    )
    assert res.max_capacity[2] == pytest.approx(math.log(3), abs=0.02)
    assert res.n_clusters >= 3 and res.max_capacity[1] < math.log(3) - 0.3
    with pytest.raises(TypeError, match="cluster_centers_ or assignment_costs"):
        from sklearn.cluster import AgglomerativeClustering

        posterior_agreement(X, AgglomerativeClustering(), [2], n_splits=2)
