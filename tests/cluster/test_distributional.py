"""Histogram clustering, information bottleneck, rate–distortion and their shared machinery."""

import itertools
import math

import numpy as np
import pytest
from scipy.stats import entropy as scipy_entropy
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

from statmechlearn._core.information import (
    check_distribution,
    entropy,
    kl_divergence,
    mutual_information,
)
from statmechlearn.cluster import (
    HistogramClustering,
    InformationBottleneck,
    rate_distortion,
)
from statmechlearn.cluster._bottleneck import _ib_fixed_point
from statmechlearn.cluster._distributional import _KLClustering, kl_critical_temperature
from statmechlearn.cluster._maxent import (
    anneal,
    effective_clusters,
    gibbs_assignments,
    solve_fixed_point,
)
from statmechlearn.cluster._schedule import geometric_schedule

# The issue's example: {00, 02, 12, 21, 22}, each 1/5.
JOINT = np.zeros((3, 3))
for _x, _y in [(0, 0), (0, 2), (1, 2), (2, 1), (2, 2)]:
    JOINT[_x, _y] = 0.2


def _h2(p):
    return scipy_entropy([p, 1 - p], base=2)


# ---------------------------------------------------------------- information


def test_information_quantities_against_scipy_and_the_issue():
    p = np.array([0.1, 0.2, 0.7])
    q = np.array([0.3, 0.3, 0.4])
    # scipy sums through the platform's log: compare at 1e-12, above any libm's rounding
    assert entropy(p) == pytest.approx(scipy_entropy(p, base=2), abs=1e-12)
    assert entropy(p, base="nats") == pytest.approx(scipy_entropy(p), abs=1e-12)
    assert kl_divergence(p, q) == pytest.approx(scipy_entropy(p, q, base=2), abs=1e-12)
    assert mutual_information(JOINT) == pytest.approx(0.570951, abs=1e-6)
    assert entropy([0.9, 0.1]) == pytest.approx(0.469, abs=1e-3)
    assert mutual_information(np.outer(p, q)) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize(
    ("p", "match"),
    [([0.5, 0.6], "sum to 1"), ([1.5, -0.5], "non-negative"), ([np.nan, 1.0], "finite")],
)
def test_distribution_checks_name_the_problem(p, match):
    with pytest.raises(ValueError, match=match):
        check_distribution(p, "p")
    with pytest.raises(ValueError, match="base"):
        entropy([0.5, 0.5], base="dits")


# ---------------------------------------------------------------- shared engine


def test_gibbs_assignments_are_normalised_softmax_in_log_space():
    rng = np.random.default_rng(0)
    h = rng.normal(size=(5, 3)) * 1e3  # would overflow a naive exp
    log_w = np.log([0.2, 0.3, 0.5])
    P, log_z = gibbs_assignments(h, 7.0, log_w)
    assert np.allclose(P.sum(axis=1), 1.0)
    logits = -h / 7.0 + log_w
    assert np.allclose(np.log(P), logits - log_z[:, None])


def test_effective_clusters_ignores_mass_and_counts_distinct_columns():
    col = np.array([0.1, 0.4, 0.5])
    P = np.column_stack([0.3 * col, 0.7 * col])  # proportional: one cluster
    assert effective_clusters(P) == 1
    P = np.column_stack([col, col[::-1]])
    assert effective_clusters(P) == 2
    t = geometric_schedule(10.0, 0.1, 0.5)
    assert t[0] == 10.0 and t[-1] == 0.1 and np.all(np.diff(t) < 0)


def test_kl_critical_temperature_separates_stable_from_split():
    """Just above T_c the perturbed one-cluster solution comes back; just below it splits."""
    rng = np.random.default_rng(3)
    counts = rng.poisson(rng.uniform(1, 10, size=(2, 6))[rng.integers(0, 2, 40)])
    cond = (counts + 1) / (counts + 1).sum(axis=1, keepdims=True)
    w = np.full(40, 1 / 40)
    t_c = kl_critical_temperature(cond, w)
    for mass_constrained in (False, True):
        model = _KLClustering(cond, w, mass_constrained)
        for factor, expected in ((1.1, 1), (0.9, 2)):
            P0 = np.full((40, 2), 0.5) * np.exp(1e-3 * rng.standard_normal((40, 2)))
            P0 /= P0.sum(axis=1, keepdims=True)
            P, _, converged, _ = solve_fixed_point(
                model.field, P0, factor * t_c, max_iter=20_000, tol=1e-13
            )
            assert converged
            assert effective_clusters(P, 1e-4) == expected, (mass_constrained, factor)


# ---------------------------------------------------------------- rate-distortion


def test_fair_coin_rate_distortion_is_one_minus_binary_entropy():
    curve = rate_distortion([0.5, 0.5], 1 - np.eye(2))
    inside = curve.distortion < 0.5 - 1e-9
    assert inside.sum() > 20
    expected = 1 - np.array([_h2(d) for d in curve.distortion[inside]])
    np.testing.assert_allclose(curve.rate[inside], expected, atol=1e-9)
    # The optimal test channel is a binary symmetric channel with D = 1 / (1 + e^beta).
    np.testing.assert_allclose(curve.distortion, 1 / (1 + np.exp(curve.beta)), atol=1e-12)


def test_biased_source_rate_distortion_closed_form():
    p = 0.2
    curve = rate_distortion([1 - p, p], 1 - np.eye(2), betas=np.geomspace(2, 30, 15))
    inside = curve.distortion < p - 1e-6
    assert inside.any()
    expected = _h2(p) - np.array([_h2(d) for d in curve.distortion[inside]])
    np.testing.assert_allclose(curve.rate[inside], expected, atol=1e-8)
    # Slope of R(D) in nats is -beta.
    d, r = curve.distortion[inside], curve.rate[inside] * math.log(2)
    slope = np.gradient(r, d)
    np.testing.assert_allclose(-slope[1:-1], curve.beta[inside][1:-1], rtol=0.05)


def test_rate_distortion_rejects_bad_input():
    with pytest.raises(ValueError, match="p_x must sum to 1"):
        rate_distortion([0.5, 0.4], 1 - np.eye(2))
    with pytest.raises(ValueError, match="distortion must have shape"):
        rate_distortion([0.5, 0.5], np.ones((3, 2)))
    with pytest.raises(ValueError, match="non-negative"):
        rate_distortion([0.5, 0.5], -np.eye(2))
    with pytest.raises(ValueError, match="betas must be finite and > 0"):
        rate_distortion([0.5, 0.5], 1 - np.eye(2), betas=[0.0])


# ---------------------------------------------------------------- information bottleneck


@pytest.fixture(scope="module")
def ib_path():
    return InformationBottleneck(min_temperature=1 / 10, random_state=0).fit(JOINT)


def test_ib_reaches_the_issues_optimum_at_beta_10(ib_path):
    assert ib_path.mutual_information_ == pytest.approx(0.570951, abs=1e-6)
    assert ib_path.information_xt_[-1] == pytest.approx(1.5129, abs=1e-4)
    assert ib_path.information_ty_[-1] == pytest.approx(0.5702, abs=1e-4)


def test_ib_first_transition_at_inverse_second_singular_value_squared(ib_path):
    px, py = JOINT.sum(axis=1), JOINT.sum(axis=0)
    s = np.linalg.svd(JOINT / np.sqrt(np.outer(px, py)), compute_uv=False)
    assert s[0] == pytest.approx(1.0)
    beta_c = 1 / s[1] ** 2
    assert 1 / ib_path.critical_temperature_ == pytest.approx(beta_c) == pytest.approx(2.0)
    first = 1 / ib_path.transitions_[0]
    assert beta_c < first <= beta_c * 1.05 * (1 + 1e-12)
    below = 1 / np.asarray(ib_path.path_.temperature) < beta_c
    assert np.all(ib_path.information_xt_[below] < 1e-6)  # critical slowing just below


def test_ib_curve_obeys_information_inequalities(ib_path):
    i_xt, i_ty = ib_path.information_xt_, ib_path.information_ty_
    assert np.all(np.diff(i_xt) > -1e-9) and np.all(np.diff(i_ty) > -1e-9)
    assert np.all(i_ty <= i_xt + 1e-9)  # data processing
    assert np.all(i_ty <= ib_path.mutual_information_ + 1e-9)
    assert np.all(i_xt <= entropy(JOINT.sum(axis=1)) + 1e-9)


def test_annealed_ib_is_no_worse_than_random_starts(ib_path):
    px = JOINT.sum(axis=1)
    cond = JOINT / px[:, None]
    beta = 10.0

    def functional(P):
        i_xt, i_ty = InformationBottleneck._informations(P, cond, px)
        return i_xt - beta * i_ty

    rng = np.random.default_rng(1)
    best = np.inf
    for _ in range(30):
        P0 = rng.dirichlet(np.ones(3), size=3)
        P, *_ = _ib_fixed_point(cond, px, P0, beta)
        best = min(best, functional(P))
    assert functional(ib_path.conditional_) <= best + 1e-8


def test_ib_predicts_new_rows_with_its_own_encoder(ib_path):
    proba = ib_path.predict_proba(JOINT * 5)  # counts of the same rows
    np.testing.assert_allclose(proba, ib_path.conditional_, atol=1e-6)
    assert ib_path.predict(JOINT * 5).tolist() == ib_path.labels_.tolist()


def test_ib_input_rules():
    with pytest.raises(ValueError, match="sum to 1"):
        InformationBottleneck(normalize=False).fit(JOINT * 2)
    with pytest.raises(ValueError, match="integer counts"):
        InformationBottleneck().fit(JOINT * 1.5)
    ib = InformationBottleneck(min_temperature=0.1, random_state=0, normalize=True).fit(JOINT * 1.5)
    assert ib.information_ty_[-1] == pytest.approx(0.5702, abs=1e-4)
    counts = InformationBottleneck(min_temperature=0.1, random_state=0).fit(JOINT * 5)
    assert counts.information_xt_[-1] == pytest.approx(1.5129, abs=1e-4)
    with pytest.raises(ValueError, match="rows of zeros"):
        InformationBottleneck().fit(np.array([[1, 1], [0, 0]]))
    with pytest.raises(InvalidParameterError, match="min_temperature"):
        InformationBottleneck(min_temperature=0).fit(JOINT)
    with pytest.raises(InvalidParameterError, match="cooling_rate"):
        InformationBottleneck(cooling_rate=1.05).fit(JOINT)
    with pytest.raises(ValueError, match="Negative values"):
        InformationBottleneck().fit(-JOINT)


# ---------------------------------------------------------------- histogram clustering


def _multinomial_objects(rng, n=8, m=5, total=40):
    protos = np.array([[0.5, 0.3, 0.1, 0.05, 0.05], [0.05, 0.1, 0.2, 0.3, 0.35]])
    labels = np.arange(n) % 2
    counts = np.array([rng.multinomial(total, protos[k]) for k in labels]) + 1
    return counts, labels


def _best_partition_cost(cond, k):
    """Global minimum of the hard KL cost by enumerating all labelings."""
    n = cond.shape[0]
    neg_h = np.sum(cond * np.log(cond), axis=1)
    best = np.inf
    for labels in itertools.product(range(k), repeat=n - 1):
        labels = np.array((0, *labels))
        if len(set(labels.tolist())) < k:
            continue
        q = np.array([cond[labels == c].mean(axis=0) for c in range(k)])
        cost = neg_h - np.sum(cond * np.log(q[labels]), axis=1)
        best = min(best, cost.mean())
    return best


@pytest.mark.parametrize("method", ["annealing", "map"])
def test_histogram_clustering_reaches_the_enumerated_optimum(method):
    rng = np.random.default_rng(5)
    counts, labels = _multinomial_objects(rng)
    cond = counts / counts.sum(axis=1, keepdims=True)
    two = HistogramClustering(2, method=method, random_state=1).fit(counts)
    assert two.cost_ == pytest.approx(_best_partition_cost(cond, 2), rel=1e-9)
    assert np.mean(two.labels_ == labels) in (0.0, 1.0)
    if method == "map":  # ten random starts find the best 3-partition too
        three = HistogramClustering(3, method=method, random_state=0).fit(counts)
        assert three.cost_ == pytest.approx(_best_partition_cost(cond, 3), rel=1e-9)


def test_annealing_splits_the_cluster_that_goes_unstable_first():
    """With K = 3 on two groups DA splits the group of larger critical temperature.

    That is a local optimum of the hard cost, not always the global one (here
    the enumerated optimum splits the other group), and it is exactly
    predicted: each group's own T_c decides which one splits.
    """
    rng = np.random.default_rng(5)
    counts, labels = _multinomial_objects(rng)
    cond = counts / counts.sum(axis=1, keepdims=True)
    est = HistogramClustering(3, random_state=0).fit(counts)
    t_group = [kl_critical_temperature(cond[labels == g], np.full(4, 0.25)) for g in (0, 1)]
    first = int(np.argmax(t_group))
    split = est.labels_[labels == first]
    assert len(set(split.tolist())) == 2 and len(set(est.labels_[labels != first].tolist())) == 1
    t_second = est.path_.transitions()[-1][0]
    temps = np.array(est.path_.temperature)
    assert t_second == temps[temps < max(t_group)][0]
    assert est.cost_ >= _best_partition_cost(cond, 3) - 1e-12


def test_histogram_clustering_path_and_prediction():
    rng = np.random.default_rng(2)
    counts, _ = _multinomial_objects(rng, n=30)
    est = HistogramClustering(2, random_state=0).fit(counts)
    path = est.path_
    assert path.n_effective[0] == 1 and path.n_effective[-1] == 2
    t_split = path.transitions()[0][0]
    # The split happens at the first temperature of the schedule below T_c.
    temps = np.array(path.temperature)
    assert t_split == temps[temps < est.critical_temperature_][0]
    np.testing.assert_array_equal(est.predict(counts), est.labels_)
    proba = est.predict_proba(counts)
    assert proba.shape == (30, 2) and np.allclose(proba.sum(axis=1), 1)
    # A new object that looks like cluster 0's histogram is put there.
    assert est.predict(100 * est.cluster_histograms_[:1] + 1)[0] == 0


def test_histogram_clustering_bad_input():
    good = np.array([[1, 2], [3, 4], [5, 1]])
    with pytest.raises(ValueError, match="Negative values"):
        HistogramClustering().fit(np.array([[1, -1], [2, 2]]))
    with pytest.raises(ValueError, match="no counts: every row is zero"):
        HistogramClustering().fit(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="n_features = 1 bin"):
        HistogramClustering().fit(np.ones((3, 1)))
    with pytest.raises(ValueError, match="n_clusters=4 must be <= n_samples=3"):
        HistogramClustering(4).fit(good)
    with pytest.raises(ValueError, match="NaN"):
        HistogramClustering().fit(np.array([[1, np.nan], [2, 2]]))
    with pytest.raises(InvalidParameterError, match="cooling_rate"):
        HistogramClustering(cooling_rate=1.0).fit(good)
    est = HistogramClustering(random_state=0).fit(good)
    with pytest.raises(ValueError, match="features"):
        est.predict(np.ones((2, 3)))


@pytest.mark.parametrize("method", ["annealing", "map"])
def test_a_row_of_zeros_is_an_object_without_evidence(method):
    """It moves no cluster histogram and goes to the heaviest cluster, by the prior."""
    rng = np.random.default_rng(3)
    X = np.r_[rng.poisson([8, 1, 1], (12, 3)), rng.poisson([1, 1, 8], (6, 3))]
    X = X + (X.sum(axis=1, keepdims=True) == 0)
    with_empty = np.r_[X, np.zeros((2, 3))]
    est = HistogramClustering(method=method, random_state=0).fit(with_empty)
    ref = HistogramClustering(method=method, random_state=0).fit(X)
    order = np.argsort(est.cluster_histograms_[:, 0])
    ref_order = np.argsort(ref.cluster_histograms_[:, 0])
    np.testing.assert_allclose(
        est.cluster_histograms_[order], ref.cluster_histograms_[ref_order], atol=1e-6
    )
    heaviest = int(np.argmax(est.cluster_weights_))
    assert est.cluster_weights_[heaviest] == pytest.approx(12 / 18, abs=1e-6)
    assert list(est.labels_[-2:]) == [heaviest, heaviest]
    assert list(est.predict(np.zeros((1, 3)))) == [heaviest]
    np.testing.assert_array_equal(est.predict(with_empty), est.labels_)
    assert est.cost_ == pytest.approx(ref.cost_, rel=1e-6)


# The estimator checks feed data outside the domain of count histograms.
_DOMAIN = {
    "check_clustering": "negative features (blobs): counts must be >= 0",
    **dict.fromkeys(
        ("check_estimator_sparse_array", "check_estimator_sparse_matrix"),
        "the sparse checks read classifier tags for any estimator with predict_proba "
        "(sparse input is tested in tests/cluster/test_count_inputs.py)",
    ),
}
_IB_DOMAIN = {
    **_DOMAIN,
    "check_estimators_dtypes": "random integers give rows of zeros: p(x) = 0 has no p(y|x)",
    "check_fit2d_1feature": "its data has rows of zeros, rejected before the 1-feature check",
    "check_estimator_sparse_tag": "its sparse data has rows of zeros: p(x) = 0 has no p(y|x)",
}


# Repeated rows change the random partitions the MAP restarts from, and so which local
# minimum is kept (test_count_inputs.py compares weights and repeats where every restart
# finds the same partition).
_MAP_RESTARTS = dict.fromkeys(
    (
        "check_sample_weight_equivalence_on_dense_data",
        "check_sample_weight_equivalence_on_sparse_data",
    ),
    "random restarts of the rows: repeated rows restart from other partitions",
)


@parametrize_with_checks(
    [
        HistogramClustering(random_state=0),
        HistogramClustering(method="map", random_state=0),
        InformationBottleneck(min_temperature=1 / 5, normalize=True, random_state=0),
    ],
    expected_failed_checks=lambda est: (
        _IB_DOMAIN
        if isinstance(est, InformationBottleneck)
        else {**_DOMAIN, **_MAP_RESTARTS}
        if est.method == "map"
        else _DOMAIN
    ),
)
def test_sklearn_contract(estimator, check):
    check(estimator)


def test_anneal_records_a_path_for_any_field():
    """The engine with a plain squared-distance field reproduces a two-blob split."""
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(-3, 0.3, (20, 1)), rng.normal(3, 0.3, (20, 1))]

    def field(P):
        mass = P.sum(axis=0)
        centres = (P.T @ X) / mass[:, None]
        return (X - centres.T) ** 2, np.log(mass / 40)

    def objective(P, T):  # -T sum_i log Z_i, with coincident copies counted once
        h, log_w = field(P)
        return float(-T * gibbs_assignments(h, T, log_w)[1].sum())

    temps = geometric_schedule(40.0, 0.5, 0.8)
    P, path = anneal(field, objective, 40, 2, temps, rng=rng)
    assert P.shape == (40, 2)
    # Squared-distance DA splits at T_c = 2 var(X) = 2 * ~9.
    t_split = path.transitions()[0][0]
    assert 0.8 * 2 * X.var() <= t_split <= 2 * X.var()
    # With cluster priors F = E + T I(i; nu), and dF/dT = I >= 0: F falls with T.
    assert np.all(np.diff(path.free_energy) < 1e-9)
