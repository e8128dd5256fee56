"""The count clusterers as a scikit-learn user feeds them: sparse tables, sample weights,
float32 and verbose fits (HistogramClustering, InformationBottleneck,
ParametricDistributionalClustering)."""

import tracemalloc
import warnings
import zlib

import numpy as np
import pytest
from scipy import sparse
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score

from statmechlearn.cluster import (
    HistogramClustering,
    InformationBottleneck,
    ParametricDistributionalClustering,
)
from statmechlearn.cluster import _count_tables as ct
from statmechlearn.cluster._distributional import (
    _check_counts,
    _spread_counts,
    kl_critical_temperature,
)
from statmechlearn.cluster._polish import entropy_moves
from statmechlearn.cluster._split_merge import entropy_split_merge, entropy_total

FORMATS = ("csr", "csc")


@pytest.fixture
def rng(request):
    # a different, reproducible stream per test: what is tested must hold for any seed
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


def _topics(rng, n=60, m=40, per_row=12, n_topics=3, noise=0.1):
    """Sparse counts: each row draws ``per_row`` words from its topic's slice of the
    vocabulary, a fraction ``noise`` of them from anywhere."""
    topic = np.arange(n) % n_topics
    width = m // n_topics
    words = rng.integers(0, width, size=(n, per_row)) + width * topic[:, None]
    stray = rng.random((n, per_row)) < noise
    words[stray] = rng.integers(0, m, size=int(stray.sum()))
    rows = np.repeat(np.arange(n), per_row)
    X = sparse.csr_array((np.ones(n * per_row), (rows, words.ravel())), shape=(n, m))
    X.sum_duplicates()
    return X, topic


def _fit(est, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(*args, **kwargs)


def _same_fit(a, b, attributes, atol=1e-10):
    np.testing.assert_array_equal(a.labels_, b.labels_)
    for name in attributes:
        np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=0, atol=atol)


ESTIMATORS = {
    "histogram": (
        lambda: HistogramClustering(3, random_state=0),
        ("cluster_histograms_", "assignments_", "cluster_weights_", "cost_"),
    ),
    "histogram-map": (
        lambda: HistogramClustering(3, method="map", random_state=0),
        ("cluster_histograms_", "assignments_", "cost_"),
    ),
    "histogram-spread": (
        lambda: HistogramClustering(3, spreading=0.2, random_state=0),
        ("cluster_histograms_", "assignments_", "cost_"),
    ),
    "bottleneck": (
        lambda: InformationBottleneck(3, min_temperature=0.05, random_state=0),
        ("conditional_", "p_y_given_t_", "p_t_", "information_ty_", "mutual_information_"),
    ),
    "parametric": (
        lambda: ParametricDistributionalClustering(3, n_prototypes=4, random_state=0),
        ("cluster_distributions_", "assignments_", "cost_"),
    ),
}


# ---------------------------------------------------------------- sparse tables


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_a_sparse_table_gives_the_fit_of_its_dense_twin(name, fmt, rng):
    make, attributes = ESTIMATORS[name]
    X, _ = _topics(rng)
    dense = _fit(make(), X.toarray())
    sparse_fit = _fit(make(), X.asformat(fmt))
    _same_fit(dense, sparse_fit, attributes)
    if hasattr(dense, "predict_proba") and name != "bottleneck":
        np.testing.assert_allclose(
            dense.predict_proba(X.toarray()), sparse_fit.predict_proba(X.asformat(fmt)), atol=1e-10
        )
    np.testing.assert_array_equal(dense.predict(X.toarray()), sparse_fit.predict(X))


@pytest.mark.parametrize("name", ["histogram", "histogram-map", "bottleneck"])
def test_the_sparse_algorithms_match_the_dense_ones(name, rng, monkeypatch):
    """With no table small enough to densify, the critical temperature (Lanczos) and the final
    moves run on the CSR rows: the fit is still that of the dense table."""
    make, attributes = ESTIMATORS[name]
    X, _ = _topics(rng, n=90)
    dense = _fit(make(), X.toarray())
    monkeypatch.setattr(ct, "DENSE_ENTRIES", 0)
    sparse_fit = _fit(make(), X)
    _same_fit(dense, sparse_fit, attributes, atol=1e-9)
    if name != "histogram-map":
        assert sparse_fit.critical_temperature_ == pytest.approx(
            dense.critical_temperature_, rel=1e-10
        )


def test_sparse_conditionals_and_critical_temperature_match_dense(rng):
    X, _ = _topics(rng, n=50, m=30)
    X = X.tolil()
    X[3, :] = 0  # a row without counts
    X = sparse.csr_array(X)
    cond, totals = _check_counts(X)
    dense_cond, dense_totals = _check_counts(X.toarray())
    assert sparse.issparse(cond)
    np.testing.assert_array_equal(cond.toarray(), dense_cond)
    np.testing.assert_array_equal(totals, dense_totals)
    weights = rng.random(50)
    weights /= weights.sum()
    assert ct.critical_temperature(cond, weights) == pytest.approx(
        kl_critical_temperature(dense_cond, weights), rel=1e-10
    )


@pytest.mark.parametrize("bin_shape", [None, (5, 6), (2, 3, 5)])
def test_the_spreading_matrix_is_the_dense_spreading(bin_shape, rng):
    X = rng.random((7, 30))
    shape = (30,) if bin_shape is None else bin_shape
    expected = _spread_counts(X, 0.3, bin_shape)
    np.testing.assert_allclose(_spread_counts(sparse.csr_array(X), 0.3, shape).toarray(), expected)
    assert ct.spreading_matrix(shape, 0.3).sum(axis=1) == pytest.approx(np.ones(30))


@pytest.mark.parametrize("seed", range(3))
def test_csr_entropy_moves_end_where_the_dense_moves_do(seed):
    """From random labels the first moves are near-ties between clusters alike, which rounding
    decides; where the CSR moves end no dense move lowers the cost, and back."""
    rng = np.random.default_rng(seed)
    X, _ = _topics(rng, n=80, m=30, noise=0.4)
    cond, _ = _check_counts(X)
    dense = cond.toarray()
    weights = rng.random(80)
    labels = rng.integers(0, 4, 80)
    A = ct.scale_rows(cond, weights)
    start = entropy_total(A.toarray(), labels, 4)
    assert ct.entropy_total(A, labels, 4) == pytest.approx(start, rel=1e-12)
    got, n_got = ct.entropy_moves(cond, weights, labels, 4)
    assert n_got > 0
    assert ct.entropy_total(A, got, 4) < start
    np.testing.assert_array_equal(entropy_moves(dense, weights, got, 4)[0], got)
    want, _ = entropy_moves(dense, weights, labels, 4)
    np.testing.assert_array_equal(ct.entropy_moves(cond, weights, want, 4)[0], want)
    merged = ct.entropy_split_merge(cond, weights, got, 4)
    assert entropy_total(A.toarray(), merged, 4) <= entropy_total(A.toarray(), got, 4)
    np.testing.assert_array_equal(entropy_split_merge(dense, weights, merged, 4), merged)


def test_csr_entropy_moves_from_a_clear_start_are_the_dense_moves(rng):
    X, topic = _topics(rng, n=90, m=30, noise=0.2)
    cond, _ = _check_counts(X)
    weights = np.full(90, 1 / 90)
    labels = topic.copy()
    flip = rng.choice(90, 15, replace=False)
    labels[flip] = (labels[flip] + 1) % 3
    got, n_got = ct.entropy_moves(cond, weights, labels, 3)
    want, n_want = entropy_moves(cond.toarray(), weights, labels, 3)
    np.testing.assert_array_equal(got, want)
    assert n_got == n_want >= 15


def _two_topics(rng, n=20_000, m=50_000, per_row=50):
    """A documents x words table at 0.1% density: two topics on halves of the vocabulary."""
    return _topics(rng, n=n, m=m, per_row=per_row, n_topics=2)


@pytest.mark.slow
@pytest.mark.parametrize(
    "make",
    [
        lambda: HistogramClustering(2, min_temperature=1e-2, cooling_rate=0.7, random_state=0),
        lambda: InformationBottleneck(2, min_temperature=1e-1, cooling_rate=0.7, random_state=0),
    ],
    ids=["histogram", "bottleneck"],
)
def test_a_large_sparse_table_is_never_densified(make, rng):
    """20 000 x 50 000 counts at 0.1% density: the dense table would take 7.5 GiB; the fit
    allocates less than 200 MiB (the table itself is 12 MiB)."""
    X, topic = _two_topics(rng)
    est = make()
    tracemalloc.start()
    try:
        _fit(est, X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200 * 2**20, f"peak {peak / 2**20:.0f} MiB"
    assert adjusted_rand_score(topic, est.labels_) == 1.0
    assert est.predict(X[:5]).tolist() == est.labels_[:5].tolist()


def test_smoothing_densifies_a_sparse_table_as_documented(rng):
    X, _ = _topics(rng)
    a = _fit(HistogramClustering(3, smoothing=0.5, random_state=0), X)
    b = _fit(HistogramClustering(3, smoothing=0.5, random_state=0), X.toarray())
    _same_fit(a, b, ("cluster_histograms_", "cost_"))


def test_sparse_input_is_checked_like_dense(rng):
    X, _ = _topics(rng)
    bad = X.copy()
    bad.data[0] = -1.0
    with pytest.raises(ValueError, match="Negative values in data passed to X"):
        HistogramClustering(3).fit(bad)
    with pytest.raises(ValueError, match="Negative values in data passed to X"):
        InformationBottleneck(3).fit(bad)
    with pytest.raises(ValueError, match="integer counts"):
        InformationBottleneck(3).fit(X * 0.5)
    with pytest.raises(ValueError, match="rows of zeros"):
        InformationBottleneck(3).fit(sparse.csr_array(np.array([[1.0, 2.0], [0.0, 0.0]])))
    assert HistogramClustering().__sklearn_tags__().input_tags.sparse


# ---------------------------------------------------------------- sample weights


def _weights_and_repeats(rng, X):
    counts = rng.integers(0, 4, size=X.shape[0])
    counts[:3] = [0, 1, 2]  # a dropped row, a kept one, a doubled one, whatever the seed
    return counts, np.repeat(np.arange(X.shape[0]), counts)


@pytest.mark.parametrize(
    "make",
    [
        lambda: HistogramClustering(3, random_state=0),
        lambda: HistogramClustering(3, method="map", random_state=0),
        lambda: ParametricDistributionalClustering(3, n_prototypes=4, random_state=0),
    ],
    ids=["annealing", "map", "parametric"],
)
def test_integer_weights_are_repeated_rows(make, rng):
    """Weights and repeats anneal along other paths (the split noise is drawn per row), so
    the fits are compared at their end: the same partition, histograms and cost."""
    X, _ = _topics(rng, noise=0.0)
    X = X.toarray()
    counts, idx = _weights_and_repeats(rng, X)
    weighted = _fit(make(), X, sample_weight=counts)
    repeated = _fit(make(), X[idx])
    kept = counts > 0
    assert adjusted_rand_score(weighted.labels_[idx], repeated.labels_) == 1.0
    # the parametric prototypes sit in a flat optimum, found by a quasi-Newton search to
    # ~1e-3 (below): its cost agrees to second order in that, ~1e-6
    parametric = isinstance(weighted, ParametricDistributionalClustering)
    assert weighted.cost_ == pytest.approx(repeated.cost_, rel=1e-6 if parametric else 1e-8)
    # the same clusters, matched through a row of each
    order = [repeated.labels_[np.flatnonzero(idx == i)[0]] for i in np.flatnonzero(kept)]
    mapping = dict(zip(weighted.labels_[kept], order, strict=True))
    attr = (
        "cluster_histograms_"
        if hasattr(weighted, "cluster_histograms_")
        else "cluster_distributions_"
    )
    # the prototypes of the parametric fit sit in a flat optimum, found to ~1e-3 of their
    # distributions' largest entries (scipy 1.11's quasi-Newton stops 1e-5 apart in a bin)
    tol = {"rtol": 1e-6, "atol": 1e-8} if not parametric else {"rtol": 1e-3, "atol": 1e-4}
    for a, b in mapping.items():
        np.testing.assert_allclose(getattr(weighted, attr)[a], getattr(repeated, attr)[b], **tol)
        assert weighted.cluster_weights_[a] == pytest.approx(repeated.cluster_weights_[b])


def test_unit_weights_are_no_weights_and_bad_weights_are_named(rng):
    X, _ = _topics(rng)
    plain = _fit(HistogramClustering(3, random_state=0), X)
    ones = _fit(HistogramClustering(3, random_state=0), X, sample_weight=np.ones(X.shape[0]))
    _same_fit(plain, ones, ("cluster_histograms_", "assignments_", "cost_"), atol=0)
    n = X.shape[0]
    for est in (HistogramClustering(3), ParametricDistributionalClustering(3)):
        with pytest.raises(ValueError, match="sample_weight"):
            est.fit(X, sample_weight=-np.ones(n))
        with pytest.raises(ValueError, match="sample_weight"):
            est.fit(X, sample_weight=np.ones(n + 1))
        with pytest.raises(ValueError, match="sample_weight"):
            est.fit(X, sample_weight=np.zeros(n))
        with pytest.raises(ValueError, match="sample_weight"):
            est.fit(X, sample_weight=np.r_[np.nan, np.ones(n - 1)])
    Xz = X.toarray()
    Xz[0] = 0.0
    only_empty = np.zeros(n)
    only_empty[0] = 1.0
    with pytest.raises(ValueError, match="sample_weight is zero on every row of X with counts"):
        HistogramClustering(3).fit(Xz, sample_weight=only_empty)


# ---------------------------------------------------------------- float32


@pytest.mark.parametrize("name", ["histogram", "bottleneck", "parametric"])
def test_float32_is_kept_and_fits_as_float64(name, rng):
    make, attributes = ESTIMATORS[name]
    X, _ = _topics(rng)
    X = X.toarray()
    if name == "bottleneck":
        X = X / X.sum()
    X32 = X.astype(np.float32)
    single = _fit(make(), X32)
    double = _fit(make(), X32.astype(np.float64))
    np.testing.assert_array_equal(single.labels_, double.labels_)
    for attribute in attributes:
        value = getattr(single, attribute)
        if isinstance(value, np.ndarray) and attribute[-1] == "_" and value.ndim == 2:
            assert value.dtype == np.float32, attribute
            np.testing.assert_allclose(value, getattr(double, attribute), rtol=1e-5, atol=1e-7)
    out = single.predict_proba(X32)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(single.predict(X32), double.predict(X32.astype(np.float64)))
    if name == "histogram":
        assert single.assignment_costs(X32).dtype == np.float32


def test_a_float32_joint_is_a_distribution(rng):
    """A joint rounded to float32 sums to 1 only within float32's rounding."""
    joint = rng.random((6, 4)) + np.kron(np.eye(2), np.ones((3, 2)))
    joint = (joint / joint.sum()).astype(np.float32)
    ib = InformationBottleneck(2, min_temperature=0.1, normalize=False, random_state=0).fit(joint)
    assert ib.conditional_.dtype == np.float32
    with pytest.raises(ValueError, match=r"sum to 1 \(within 1e-05\)"):
        InformationBottleneck(normalize=False).fit(joint * 1.001)


# ---------------------------------------------------------------- verbose


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda v: HistogramClustering(3, random_state=0, verbose=v), "Temperature 1, T="),
        (
            lambda v: HistogramClustering(3, method="map", n_init=2, random_state=0, verbose=v),
            "Restart 2 of 2",
        ),
        (lambda v: InformationBottleneck(3, min_temperature=0.1, verbose=v), "beta "),
        (
            lambda v: ParametricDistributionalClustering(3, n_prototypes=4, verbose=v),
            "Temperature 1, T=",
        ),
    ],
    ids=["annealing", "map", "bottleneck", "parametric"],
)
def test_verbose_prints_a_line_per_step_and_silent_prints_nothing(make, expected, rng, capsys):
    X, _ = _topics(rng)
    _fit(make(0), X)
    assert capsys.readouterr().out == ""
    _fit(make(1), X)
    out = capsys.readouterr().out
    assert expected in out
    assert len(out.splitlines()) >= 3


def test_verbose_two_prints_every_lloyd_step(rng, capsys):
    X, _ = _topics(rng)
    _fit(HistogramClustering(3, method="map", n_init=1, random_state=0, verbose=2), X)
    assert "Iteration 1, cost " in capsys.readouterr().out


def test_verbose_is_validated():
    with pytest.raises(ValueError, match="verbose"):
        HistogramClustering(verbose=-1).fit(np.eye(3) + 1)
