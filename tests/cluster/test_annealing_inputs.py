"""The squared-distance annealers' inputs: sample weights, sparse and float32 X, verbose.

``DeterministicAnnealing``, ``SmoothKMeans``, ``EntropyConstrainedClustering`` and
``EqualWidthMixture`` take what ``KMeans`` takes; their kernels are compiled once
(one specialisation each) whatever the input's dtype, layout or weights.
"""

import warnings

import numpy as np
import pytest
from scipy import sparse
from sklearn.datasets import load_iris, make_blobs

from statmechlearn.cluster import (
    DeterministicAnnealing,
    EntropyConstrainedClustering,
    EqualWidthMixture,
    SmoothKMeans,
)
from statmechlearn.cluster._annealing_moves import (
    _two_means_in_order,
    _two_means_loop,
    _two_means_start,
    two_means,
)
from statmechlearn.cluster._entropy_constrained import _gibbs_step
from statmechlearn.cluster._gibbs import (
    _fixed_point,
    _fixed_point_one,
    gibbs_pass,
    gibbs_pass_numpy,
    gibbs_statistics,
)
from statmechlearn.cluster._gibbs_kernels import _block, _softmax_rows_into
from statmechlearn.cluster._polish_kmeans import _kmeans_moves, sse_moves, sse_moves_numpy

ESTIMATORS = {
    "DeterministicAnnealing": lambda seed: DeterministicAnnealing(3, random_state=seed),
    "SmoothKMeans": lambda seed: SmoothKMeans(3, random_state=seed),
    "EntropyConstrainedClustering": lambda seed: EntropyConstrainedClustering(
        entropy_weight=2.0, random_state=seed
    ),
    "EqualWidthMixture": lambda seed: EqualWidthMixture(3, sigma=0.5, random_state=seed),
}


def _blobs(seed, n=90):
    X, _ = make_blobs(n, centers=3, cluster_std=0.7, random_state=seed)
    return X


def _sorted(centers):
    return centers[np.lexsort(centers.T[::-1])]


def _fit(est, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(*args, **kwargs)


# -- sample weights ------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_integer_weights_are_the_rows_repeated(name, seed):
    rng = np.random.default_rng(seed)
    X = _blobs(seed)
    counts = rng.integers(1, 4, len(X))
    weighted = _fit(ESTIMATORS[name](seed), X, sample_weight=counts.astype(float))
    repeated = _fit(ESTIMATORS[name](seed), np.repeat(X, counts, axis=0))
    labels_w, labels_r = np.repeat(weighted.labels_, counts), repeated.labels_
    # the same partition, up to the clusters' names
    pairs = np.unique(labels_w * 100 + labels_r)
    assert len(pairs) == len(np.unique(labels_w)) == len(np.unique(labels_r))
    attr = "means_" if name == "EqualWidthMixture" else "cluster_centers_"
    np.testing.assert_allclose(
        _sorted(getattr(weighted, attr)), _sorted(getattr(repeated, attr)), rtol=1e-6, atol=1e-6
    )
    if hasattr(weighted, "inertia_"):
        assert weighted.inertia_ == pytest.approx(repeated.inertia_, rel=1e-8)


@pytest.mark.parametrize("seed", range(3))
def test_a_zero_weight_drops_the_row(seed):
    X = _blobs(seed)
    far = np.vstack([X, X.mean(axis=0) + 50.0 * X.std(axis=0)])
    w = np.r_[np.ones(len(X)), 0.0]
    dropped = DeterministicAnnealing(3, random_state=seed).fit(X)
    zero = DeterministicAnnealing(3, random_state=seed).fit(far, sample_weight=w)
    np.testing.assert_allclose(
        _sorted(zero.cluster_centers_), _sorted(dropped.cluster_centers_), rtol=1e-7, atol=1e-7
    )
    assert zero.inertia_ == pytest.approx(dropped.inertia_, rel=1e-8)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_bad_weights_name_sample_weight(name):
    X = _blobs(0)
    for bad in (-np.ones(len(X)), np.ones(len(X) + 1), np.zeros(len(X))):
        with pytest.raises(ValueError, match=r"(?i)sample.weight"):
            _fit(ESTIMATORS[name](0), X, sample_weight=bad)


@pytest.mark.parametrize("n", [150, 2500])
@pytest.mark.parametrize("T", [8.0, 0.5, 0.01])
def test_weighted_pass_is_the_rows_repeated_and_its_numpy_twin(n, T):
    X, _ = make_blobs(n, n_features=3, centers=4, random_state=n)
    X -= X.mean(axis=0)
    rng = np.random.default_rng(n)
    w = rng.integers(0, 4, n).astype(float)
    centers = X[rng.choice(n, 4, replace=False)][None] + 0.1
    log_w = np.log(rng.dirichlet(np.ones(4)))[None]
    got = gibbs_pass(X, centers, log_w, T, sample_weight=w)
    for want in (
        gibbs_pass(np.repeat(X, w.astype(int), axis=0), centers, log_w, T),
        gibbs_pass_numpy(X, centers, log_w, T, sample_weight=w),
    ):
        for a, b in zip(got, want, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9 * n)
    stats = gibbs_statistics(X, centers, log_w, T, sample_weight=w)
    free = -T * got[3] / w.sum()
    np.testing.assert_allclose(stats["free_energy"], free, rtol=1e-12)


@pytest.mark.parametrize("n", [150, 2500, 5000])
@pytest.mark.parametrize("accelerate", [False, True])
def test_weighted_one_run_loop_equals_the_numpy_loop(n, accelerate):
    X, _ = make_blobs(n, n_features=3, centers=4, random_state=n)
    X -= X.mean(axis=0)
    x_sq = np.einsum("ij,ij->i", X, X)
    rng = np.random.default_rng(0)
    w = rng.uniform(0.0, 3.0, n)
    centers = X[rng.choice(n, 4, replace=False)][None]
    log_w = np.full((1, 4), -np.log(4))
    kwargs = dict(mass_constrained=True, max_iter=60, tol=1e-12, accelerate=accelerate)
    got = _fixed_point_one(X, centers, log_w, 1.0, x_sq, sample_weight=w, **kwargs)
    want = _fixed_point(X, centers, log_w, 1.0, x_sq, sample_weight=w, **kwargs)
    assert got[2] == want[2]
    np.testing.assert_allclose(got[0], want[0], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(np.exp(got[1]), np.exp(want[1]), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("entropy_weight", [0.0, 0.5])
def test_weighted_single_moves_equal_their_numpy_twin(seed, entropy_weight):
    rng = np.random.default_rng(seed)
    n, k = 30, 4
    X = rng.normal(size=(n, 2))
    labels = rng.integers(0, k, n)
    labels[:k] = np.arange(k)
    w = rng.uniform(0.2, 3.0, n)
    limit = k if entropy_weight else None
    kwargs = dict(max_clusters=limit, entropy_weight=entropy_weight, sample_weight=w)
    got = sse_moves(X, labels, k, **kwargs)
    want = sse_moves_numpy(X, labels, k, **kwargs)
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1] == want[1]


def test_weighted_two_means_is_the_rows_repeated():
    X, _ = make_blobs(60, n_features=3, centers=2, random_state=4)
    counts = np.random.default_rng(4).integers(1, 4, 60)
    pair, sse = two_means(X, weights=counts.astype(float))
    rep_pair, rep_sse = two_means(np.repeat(X, counts, axis=0))
    np.testing.assert_allclose(_sorted(pair), _sorted(rep_pair), rtol=1e-9)
    assert sse == pytest.approx(rep_sse, rel=1e-9)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_unit_weights_are_the_unweighted_fit(name):
    X = _blobs(1)
    plain = _fit(ESTIMATORS[name](1), X)
    ones = _fit(ESTIMATORS[name](1), X, sample_weight=np.ones(len(X)))
    np.testing.assert_array_equal(plain.labels_, ones.labels_)


# -- sparse and float32 X ------------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_sparse_input_is_the_dense_fit(name, fmt):
    X = _blobs(2)
    X[np.abs(X) < 1.0] = 0.0
    dense = _fit(ESTIMATORS[name](2), X)
    sp = _fit(ESTIMATORS[name](2), sparse.csr_matrix(X).asformat(fmt))
    np.testing.assert_array_equal(dense.labels_, sp.labels_)
    attr = "means_" if name == "EqualWidthMixture" else "cluster_centers_"
    np.testing.assert_array_equal(getattr(dense, attr), getattr(sp, attr))
    if hasattr(dense, "predict"):
        np.testing.assert_array_equal(dense.predict(X), sp.predict(sparse.csr_matrix(X)))


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_float32_is_kept_and_close_to_the_float64_fit(name):
    X = _blobs(3).astype(np.float32)
    est = _fit(ESTIMATORS[name](3), X)
    ref = _fit(ESTIMATORS[name](3), X.astype(np.float64))
    attr = "means_" if name == "EqualWidthMixture" else "cluster_centers_"
    assert getattr(est, attr).dtype == np.float32
    np.testing.assert_allclose(getattr(est, attr), getattr(ref, attr), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(est.labels_, ref.labels_)
    for method in ("transform", "predict_proba"):
        if hasattr(est, method):
            out = getattr(est, method)(X)
            assert out.dtype == np.float32
            np.testing.assert_allclose(
                out, getattr(ref, method)(X.astype(np.float64)), rtol=1e-4, atol=1e-5
            )


def test_each_kernel_is_compiled_once_whatever_the_input():
    # one specialisation per kernel: float32, Fortran-ordered, read-only, weighted and
    # sparse input all reach the kernels as the same float64 C-ordered writeable arrays
    X = _blobs(5)
    inputs = [X, X.astype(np.float32), np.asfortranarray(X), sparse.csc_matrix(X)]
    readonly = X.copy()
    readonly.flags.writeable = False
    inputs.append(readonly)
    w = np.random.default_rng(5).uniform(0.5, 2.0, len(X))
    for Xi in inputs:
        for sample_weight in (None, w):
            for name in sorted(ESTIMATORS):
                _fit(ESTIMATORS[name](5), Xi, sample_weight=sample_weight)
    two_means(np.repeat(X, 100, axis=0))  # a cluster large enough for the compiled loop
    for kernel in (_block, _kmeans_moves, _two_means_loop, _softmax_rows_into, _gibbs_step):
        assert len(kernel.signatures) == 1, (kernel.__name__, kernel.signatures)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("n", "d"), [(2, 3), (57, 4), (300, 13), (150, 64)])
def test_two_means_in_numpy_has_the_compiled_loops_bits(seed, n, d):
    X, _ = make_blobs(n, n_features=d, centers=2, cluster_std=1.0 + seed, random_state=seed)
    if seed == 3:
        X = np.round(X)  # ties between the two centres
    pair = np.ascontiguousarray(_two_means_start(X))
    for n_iter in (0, 1, 20):
        got = _two_means_in_order(X, pair.copy(), n_iter)
        want = _two_means_loop(X, pair.copy(), n_iter, np.empty(n, np.int64), np.empty((2, d)))
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1] == want[1]


# -- verbose -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_verbose_prints_per_temperature_and_quiet_prints_nothing(name, capsys):
    X = _blobs(6)
    _fit(ESTIMATORS[name](6), X)
    assert capsys.readouterr().out == ""
    est = ESTIMATORS[name](6).set_params(verbose=1)
    _fit(est, X)
    lines = capsys.readouterr().out.splitlines()
    temperatures = [line for line in lines if line.startswith("Temperature ")]
    assert len(temperatures) == len(est.path_.temperature) >= 2
    assert any(line.startswith("Finished") for line in lines)


# -- EntropyConstrainedClustering's default code-length weight -----------------------------
def test_entropy_constrained_default_uses_a_handful_of_clusters_on_iris():
    X, _ = load_iris(return_X_y=True)
    for seed in range(3):
        est = EntropyConstrainedClustering(random_state=seed).fit(X)
        assert 2 <= est.n_clusters_ <= 6
        assert est.entropy_weight_ == pytest.approx(0.2 * np.trace(np.cov(X.T, bias=True)))


def test_entropy_constrained_auto_weight_follows_the_data_scale():
    # the same clusters for the data in other units: the weight scales with s^2
    X = _blobs(7)
    a = EntropyConstrainedClustering(random_state=0).fit(X)
    b = EntropyConstrainedClustering(random_state=0).fit(1000.0 * X)
    assert b.entropy_weight_ == pytest.approx(1e6 * a.entropy_weight_, rel=1e-12)
    assert a.n_clusters_ == b.n_clusters_
    np.testing.assert_array_equal(a.labels_, b.labels_)


@pytest.mark.parametrize("seed", range(3))
def test_weighted_entropy_constrained_step_equals_its_numpy_twin(seed):
    from statmechlearn.cluster._entropy_constrained import _gibbs_step_numpy

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 3)) * 3.0
    P = rng.dirichlet(np.ones(5), size=40)
    w = rng.uniform(0.0, 3.0, 40)
    for lam, T in [(0.0, 5.0), (0.3, 0.5), (2.0, 1e-3)]:
        got, change = _gibbs_step(X, np.einsum("ij,ij->i", X, X), w, P, lam, T)
        want, want_change = _gibbs_step_numpy(X, P, lam, T, sample_weight=w)
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
        assert change == pytest.approx(want_change, rel=1e-9, abs=1e-12)
