"""DeterministicAnnealing, EqualWidthMixture and the batched Gibbs kernel."""

import math
import warnings

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp
from sklearn.cluster import KMeans
from sklearn.datasets import load_iris, make_blobs
from sklearn.utils.estimator_checks import check_estimator

from statmechlearn._core.exceptions import ConvergenceWarning
from statmechlearn.cluster import (
    DeterministicAnnealing,
    EqualWidthMixture,
    two_centre_fixed_points,
)
from statmechlearn.cluster._gibbs import (
    _fixed_point,
    _fixed_point_one,
    gibbs_fixed_point,
    gibbs_pass,
    gibbs_pass_numpy,
    gibbs_statistics,
    posterior,
)
from statmechlearn.cluster._gibbs_kernels import (
    _softmax_rows_numpy,
    _softmax_rows_parallel,
    _softmax_rows_serial,
)
from statmechlearn.models import TwoGaussians
from statmechlearn.theory import annealing, ml_mixture


# the defaults (mass-constrained DA, the equal-width mixture) are in the suite of
# tests/conventions/test_sklearn_suite.py; this is the other code path
def test_check_estimator_without_mass_constraint():
    # scikit-learn's sparse checks read the width of predict_proba from classifier tags,
    # which a clusterer's one column per code vector has not (sparse input is tested in
    # tests/cluster/test_annealing_inputs.py)
    width = "predict_proba has one column per code vector, which no classifier tag describes"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_estimator(
            DeterministicAnnealing(n_clusters=3, mass_constrained=False),
            expected_failed_checks={
                "check_estimator_sparse_array": width,
                "check_estimator_sparse_matrix": width,
            },
        )


def _reference_posterior(X, centers, log_w, T):
    d = ((X[:, None, :] - centers[None]) ** 2).sum(-1)
    logits = log_w[None] - d / T
    return np.exp(logits - logsumexp(logits, axis=1, keepdims=True)), d


def test_posterior_and_statistics_against_direct_formulas():
    rng = np.random.default_rng(0)
    X, centers = rng.normal(size=(50, 3)), rng.normal(size=(4, 3))
    log_w = np.log(rng.dirichlet(np.ones(4)))
    T = 0.7
    proba, _ = posterior(X, centers[None], log_w[None], T)
    ref, d = _reference_posterior(X, centers, log_w, T)
    np.testing.assert_allclose(proba[:, 0], ref, atol=1e-12)
    stats = gibbs_statistics(X, centers[None], log_w[None], T)
    np.testing.assert_allclose(stats["distortion"][0], np.mean((ref * d).sum(1)))
    np.testing.assert_allclose(
        stats["free_energy"][0], -T * np.mean(logsumexp(log_w[None] - d / T, axis=1))
    )


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 3000),
    d=st.integers(1, 6),
    k=st.integers(1, 6),
    runs=st.integers(1, 3),
    log_t=st.floats(-3.0, 3.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_compiled_pass_equals_its_numpy_twin(n, d, k, runs, log_t, seed):
    # n spans several row blocks; small T drops terms, large T keeps them all
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 3.0, size=d)
    centers = rng.normal(size=(runs, k, d))
    log_w = np.log(rng.dirichlet(np.ones(k), size=runs))
    T = 10.0**log_t
    got = gibbs_pass(X, centers, log_w, T)
    want = gibbs_pass_numpy(X, centers, log_w, T)
    for name, a, b in zip(("sums", "mass", "distortion", "log_z", "plogp"), got, want, strict=True):
        scale = max(1.0, float(np.max(np.abs(b))))
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-10 * scale * n, err_msg=name)


@pytest.mark.parametrize("n_soft", [0, 7, 150, 600])
def test_hard_and_soft_rows_of_one_block_equal_the_twin(n_soft):
    """Rows far from every border are hard (one-hot, summed one by one); the points put
    between two centres are soft. A block of 1024 with none, a few, and more than a
    half soft, and a second run whose centres make every row soft."""
    rng = np.random.default_rng(n_soft)
    K, d, n = 4, 3, 2048
    centers = 20.0 * np.eye(K, d)
    X = centers[rng.integers(K, size=n)] + rng.normal(scale=0.5, size=(n, d))
    mid = 0.5 * (centers[0] + centers[1])
    X[rng.choice(1024, size=n_soft, replace=False)] = mid + rng.normal(scale=0.1, size=(n_soft, d))
    runs = np.stack([centers, 0.01 * centers])
    log_w = np.log(rng.dirichlet(np.ones(K), size=2))
    T = 1.0
    # the twin's posterior says which rows are soft: the case is the one named
    proba = np.sort(posterior(X, runs, log_w, T)[0], axis=2)
    soft = proba[:, :, -2] > np.exp(-40.0) * proba[:, :, -1]
    assert np.sum(soft[:1024, 0]) == n_soft and not np.any(soft[1024:, 0])
    assert np.all(soft[:, 1])
    got = gibbs_pass(X, runs, log_w, T)
    want = gibbs_pass_numpy(X, runs, log_w, T)
    for name, a, b in zip(("sums", "mass", "distortion", "log_z", "plogp"), got, want, strict=True):
        scale = max(1.0, float(np.max(np.abs(b))))
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12 * scale * n, err_msg=name)
    # a hard row's assignment is exactly one-hot: its cluster masses are whole numbers
    if n_soft == 0:
        np.testing.assert_array_equal(got[1][0], np.round(got[1][0]))
        assert got[4][0] == 0.0


@pytest.mark.parametrize("shape", [(150, 3), (5000, 10), (7, 1)])
def test_softmax_rows_serial_and_parallel_match_the_numpy_twin(shape):
    # the serial loop (small data) and the parallel one give the same bits; the twin agrees
    rng = np.random.default_rng(shape[0])
    logits = rng.normal(scale=30.0, size=shape)
    if shape[1] > 1:
        logits[0, 0] = -np.inf  # an empty cluster's weight
    serial, parallel, twin = logits.copy(), logits.copy(), logits.copy()
    log_z = _softmax_rows_serial(serial)
    np.testing.assert_array_equal(_softmax_rows_parallel(parallel), log_z)
    np.testing.assert_array_equal(parallel, serial)
    np.testing.assert_allclose(_softmax_rows_numpy(twin), log_z, rtol=1e-12)
    np.testing.assert_allclose(twin, serial, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("mass_constrained", [True, False])
@pytest.mark.parametrize(
    ("accelerate", "final_stats"), [(True, True), (False, False), (True, False)]
)
@pytest.mark.parametrize("n", [150, 2500])
def test_one_run_fixed_point_equals_the_numpy_loop(n, mass_constrained, accelerate, final_stats):
    # the one-run loop (blocks summed in order, SQUAREM as in NumPy) against the
    # several-run NumPy loop: the same iterations, to round-off; soft (T = 4) and hard
    # (T = 0.05) rows
    X, _ = make_blobs(n, n_features=3, centers=4, random_state=n)
    X -= X.mean(axis=0)
    x_sq = np.einsum("ij,ij->i", X, X)
    rng = np.random.default_rng(0)
    centers = (X[rng.choice(n, 4, replace=False)] + rng.normal(scale=0.1, size=(4, 3)))[None]
    log_w = np.log(np.array([[0.1, 0.2, 0.3, 0.4]]))
    for T in (4.0, 0.05):
        kwargs = dict(
            mass_constrained=mass_constrained,
            max_iter=60,
            tol=1e-10,
            accelerate=accelerate,
            final_stats=final_stats,
        )
        got = _fixed_point_one(X, centers, log_w, T, x_sq, **kwargs)
        want = _fixed_point(X, centers, log_w, T, x_sq, **kwargs)
        assert len(got) == len(want) == (5 if final_stats else 4)
        assert got[2] == want[2]
        np.testing.assert_allclose(got[0], want[0], rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(got[3], want[3], rtol=1e-6, atol=1e-15)
        if final_stats:
            for a, b in zip(got[4], want[4], strict=True):
                assert np.shape(a) == np.shape(b)
                np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9 * n)


def test_pass_is_bit_identical_for_any_thread_count():
    X, _ = make_blobs(5000, n_features=4, centers=6, random_state=11)
    centers = X[:6][None]
    log_w = np.full((1, 6), -np.log(6))
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = gibbs_pass(X, centers, log_w, 2.0)
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        many = gibbs_pass(X, centers, log_w, 2.0)
    finally:
        numba.set_num_threads(before)
    for a, b in zip(one, many, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("mass_constrained", [True, False])
def test_extrapolated_iteration_reaches_a_fixed_point_no_higher_in_free_energy(mass_constrained):
    X, _ = make_blobs(3000, n_features=3, centers=5, cluster_std=1.5, random_state=12)
    rng = np.random.default_rng(12)
    starts = X[rng.choice(len(X), size=(4, 5), replace=False)]
    log_w = np.full((4, 5), -np.log(5))
    T = 3.0
    common = dict(mass_constrained=mass_constrained, max_iter=5000, tol=1e-20)
    plain = gibbs_fixed_point(X, starts, log_w, T, **common)
    fast = gibbs_fixed_point(X, starts, log_w, T, accelerate=True, **common)
    assert np.all(fast[3] <= 1e-20) and np.all(plain[3] <= 1e-20)
    # a fixed point: one more plain pass does not move it
    again = gibbs_fixed_point(
        X, fast[0], fast[1], T, mass_constrained=mass_constrained, max_iter=1, tol=0
    )
    np.testing.assert_allclose(again[0], fast[0], atol=1e-8)
    f_plain = gibbs_statistics(X, plain[0], plain[1], T)["free_energy"]
    f_fast = gibbs_statistics(X, fast[0], fast[1], T)["free_energy"]
    assert np.all(f_fast <= f_plain + 1e-9 * np.abs(f_plain))
    assert fast[2] <= plain[2]


def test_mass_constrained_fixed_point_satisfies_f_equals_d_plus_t_i():
    X, _ = make_blobs(200, centers=3, random_state=1)
    rng = np.random.default_rng(1)
    centers = X[rng.choice(200, 3, replace=False)][None]
    T = 2.0
    c, lw, _, _ = gibbs_fixed_point(
        X, centers, np.log(np.full((1, 3), 1 / 3)), T, mass_constrained=True, max_iter=5000, tol=0
    )
    s = gibbs_statistics(X, c, lw, T)
    assert s["free_energy"][0] == pytest.approx(
        s["distortion"][0] + T * s["mutual_information"][0], rel=1e-8
    )
    # stationarity: the centres are centroids of their posterior
    proba, _ = posterior(X, c, lw, T)
    np.testing.assert_allclose(c[0], (proba[:, 0].T @ X) / proba[:, 0].sum(0)[:, None], atol=1e-8)


def test_batched_runs_equal_separate_runs():
    X, _ = make_blobs(120, centers=2, random_state=2)
    rng = np.random.default_rng(2)
    starts = rng.normal(size=(3, 2, 2))
    log_w = np.full((3, 2), -np.log(2))
    together = gibbs_fixed_point(X, starts, log_w, 3.0, mass_constrained=False, max_iter=40, tol=0)
    for b in range(3):
        alone = gibbs_fixed_point(
            X, starts[b : b + 1], log_w[b : b + 1], 3.0, mass_constrained=False, max_iter=40, tol=0
        )
        np.testing.assert_allclose(together[0][b], alone[0][0], atol=1e-10)


def test_first_split_at_critical_temperature():
    X, _ = make_blobs(400, centers=[[0, 0], [6, 0]], cluster_std=1.0, random_state=3)
    da = DeterministicAnnealing(n_clusters=2, random_state=0).fit(X)
    Tc = annealing.critical_temperature(np.cov(X, rowvar=False, bias=True))
    assert da.critical_temperature_ == pytest.approx(Tc)
    first = da.path_.events[0]
    assert first["accepted"] and first["critical_temperature"] == pytest.approx(Tc, rel=1e-6)
    # one cluster above T_c, two below
    temps, n = da.path_.temperature, da.path_.n_clusters
    assert np.all(n[temps > Tc] == 1)
    assert np.all(n[temps < 0.98 * Tc] == 2)


def test_unconstrained_and_sigma_view_split_at_lambda_max():
    X, _ = make_blobs(300, centers=[[0, 0], [5, 0]], random_state=4)
    lam = np.linalg.eigvalsh(np.cov(X, rowvar=False, bias=True))[-1]
    above = EqualWidthMixture(sigma=1.05 * lam, random_state=0).fit(X)
    below = EqualWidthMixture(sigma=0.9 * lam, random_state=0).fit(X)
    assert np.linalg.norm(above.splitting_vector_) < 1e-3
    assert np.linalg.norm(below.splitting_vector_) > 0.5


@pytest.mark.parametrize("mass_constrained", [True, False])
def test_matches_kmeans_distortion_on_blobs(mass_constrained):
    X, _ = make_blobs(600, centers=5, cluster_std=0.8, random_state=5)
    da = DeterministicAnnealing(5, mass_constrained=mass_constrained, random_state=0).fit(X)
    km = KMeans(5, n_init=10, random_state=0).fit(X)
    assert da.inertia_ <= km.inertia_ * (1 + 1e-9)
    assert da.cluster_centers_.shape == (5, 2)
    np.testing.assert_array_equal(da.predict(X), da.labels_)


def test_ten_blobs_reach_kmeans_inertia_and_keep_every_code_vector():
    # splits made while clusters are still soft may fall back together; the
    # merged code vectors must be freed and re-split, not left coincident
    X, _ = make_blobs(5000, n_features=10, centers=10, cluster_std=2.0, random_state=2)
    da = DeterministicAnnealing(10, random_state=2).fit(X)
    km = KMeans(10, n_init=10, random_state=2).fit(X)
    assert da.inertia_ <= km.inertia_ * (1 + 1e-9)
    assert da.path_.n_clusters[-1] == 10
    # the moves at the final temperature are recorded as accepted events too
    merges = [
        e
        for e in da.path_.events
        if np.isnan(e["critical_temperature"]) and not ({"relocated", "swapped"} & set(e))
    ]
    assert all(not e["accepted"] for e in merges)


def test_far_from_origin_data_give_the_same_fit():
    X, _ = make_blobs(400, centers=3, random_state=13)
    da = DeterministicAnnealing(3, random_state=0).fit(X)
    shifted = DeterministicAnnealing(3, random_state=0).fit(X + 1e6)
    np.testing.assert_allclose(shifted.cluster_centers_ - 1e6, da.cluster_centers_, atol=1e-6)
    assert shifted.inertia_ == pytest.approx(da.inertia_, rel=1e-8)
    np.testing.assert_allclose(shifted.predict_proba(X + 1e6), da.predict_proba(X), atol=1e-8)
    np.testing.assert_allclose(shifted.transform(X + 1e6), da.transform(X), atol=1e-6)
    assert shifted.score(X + 1e6) == pytest.approx(da.score(X), rel=1e-8)
    mix = EqualWidthMixture(3, sigma=1.0, random_state=0).fit(X)
    far = EqualWidthMixture(3, sigma=1.0, random_state=0).fit(X + 1e6)
    np.testing.assert_allclose(far.predict_proba(X + 1e6), mix.predict_proba(X), atol=1e-8)
    np.testing.assert_array_equal(far.predict(X + 1e6), mix.predict(X))
    assert far.score(X + 1e6) == pytest.approx(mix.score(X), rel=1e-8)


def test_predict_proba_transform_score():
    X = load_iris().data
    da = DeterministicAnnealing(3, random_state=0).fit(X)
    proba = da.predict_proba(X)
    np.testing.assert_allclose(proba.sum(1), 1.0)
    dist = da.transform(X)
    np.testing.assert_allclose(dist[:, 0], np.linalg.norm(X - da.cluster_centers_[0], axis=1))
    assert da.score(X) == pytest.approx(-da.path_.free_energy[-1])
    # the path is monotone: F decreases with T... and entropy falls as T falls
    assert np.all(np.diff(da.path_.temperature) < 0)
    assert da.path_.entropy[-1] < 1e-3 and da.path_.n_clusters[-1] == 3


def test_fixed_temperature_mode_follows_a_given_minimum():
    X, _ = make_blobs(200, centers=3, random_state=6)
    km = KMeans(3, n_init=1, random_state=0).fit(X)
    da = DeterministicAnnealing(3, anneal=False, temperature=1e-3, init=km.cluster_centers_).fit(X)
    np.testing.assert_allclose(
        np.sort(da.cluster_centers_, axis=0), np.sort(km.cluster_centers_, axis=0), atol=1e-6
    )
    assert da.temperature_ == 1e-3 and len(da.path_.temperature) == 1


def test_two_centre_fixed_points_equal_the_estimator():
    model = TwoGaussians(60, u0=2.0)
    S, _ = model.sample(120, random_state=0)
    start = np.random.default_rng(0).normal(size=(1, 60))
    fp = two_centre_fixed_points(S, 1.5, start, tol=1e-15, max_iter=20000)
    m0 = S.mean(0)
    est = EqualWidthMixture(
        sigma=1.5,
        anneal=False,
        init=np.stack([m0 + start[0], m0 - start[0]]),
        tol=1e-15,
        max_iter=20000,
    ).fit(S)
    np.testing.assert_allclose(fp.splitting_vector[0], est.splitting_vector_, atol=1e-6)
    # energy: NLL difference to the unsplit solution
    unsplit = EqualWidthMixture(sigma=1.5, anneal=False, init=np.stack([m0, m0])).fit(S)
    assert fp.energy[0] == pytest.approx(unsplit.score(S) - est.score(S), abs=1e-8)


def test_da_reaches_the_rs_ground_state():
    """r and q of the annealed ML estimate against the RS theory (alpha=1, u0=2, sigma=2).

    Tolerance: 4 standard errors of the 6-sample mean plus the O(1/sqrt(N)) bias
    bound measured at N=400 (q is biased low by about 0.04 there).
    """
    N, u0, sigma = 300, 2.0, 2.0
    model = TwoGaussians(N, u0=u0)
    sol = ml_mixture.solve(1.0, sigma, u0=u0)
    ground = sol.branches[sol.ground]
    assert ground.phase == "split-ordered" and ground.rs_stable
    r, q = [], []
    for seed in range(6):
        S, _ = model.sample(N, random_state=seed)
        m = EqualWidthMixture(sigma=sigma, random_state=seed, tol=1e-9, max_iter=2000).fit(S)
        op = model.order_parameters(m.splitting_vector_)
        r.append(abs(op.R))
        q.append(op.Q)
    se_r, se_q = np.std(r, ddof=1) / math.sqrt(6), np.std(q, ddof=1) / math.sqrt(6)
    assert abs(np.mean(r) - ground.R) < 4 * se_r + 0.02
    assert abs(np.mean(q) - ground.Q) < 4 * se_q + 0.1


@pytest.mark.parametrize(
    ("params", "X", "match"),
    [
        ({"n_clusters": 5}, np.ones((3, 2)) * np.arange(3)[:, None], "n_samples=3"),
        ({"cooling_rate": 1.5}, np.eye(4), "cooling_rate"),
        ({"min_temperature": -1.0}, np.eye(4), "min_temperature"),
        ({"anneal": False, "n_clusters": 2}, np.eye(4), "temperature must be given"),
        (
            {"anneal": False, "temperature": 1.0, "n_clusters": 2, "init": np.ones((3, 4))},
            np.eye(4),
            "init must",
        ),
        ({"n_clusters": 2}, np.array([[0.0, np.nan]] * 3), "NaN"),
    ],
)
def test_bad_input(params, X, match):
    with pytest.raises(ValueError, match=match):
        DeterministicAnnealing(**params).fit(X)


def test_constant_data_and_too_few_points_warn():
    with pytest.warns(UserWarning, match="constant") as record:
        da = DeterministicAnnealing(3).fit(np.ones((10, 2)))
    assert da.cluster_centers_.shape == (1, 2)
    X = np.repeat(np.array([[0.0, 0.0], [1.0, 1.0]]), 5, axis=0)
    with pytest.warns(UserWarning, match="2 distinct code vectors instead of n_clusters=3") as more:
        DeterministicAnnealing(3).fit(X)
    # each warning names the caller's line, not one inside the library or scikit-learn
    assert {w.filename for w in [*record, *more]} == {__file__}


def test_non_convergence_warns_with_diagnostics():
    X, _ = make_blobs(200, centers=3, random_state=7)
    with pytest.warns(ConvergenceWarning, match="max_iter=1") as record:
        DeterministicAnnealing(3, max_iter=1, tol=0.0).fit(X)
    assert {w.filename for w in record} == {__file__}


@pytest.mark.parametrize(
    "change, match",
    [
        ({"temperature": 0.0}, "temperature must be"),
        ({"temperature": np.nan}, "temperature must be"),
        ({"centers": np.zeros((1, 2, 3))}, "centers must have shape"),
        ({"log_weights": np.zeros((1, 3))}, "log_weights must have shape"),
        ({"X": np.full((5, 2), np.nan)}, "X contains NaN"),
        ({"log_weights": np.array([[np.nan, 0.0]])}, "log_weights must be finite"),
    ],
)
def test_public_kernel_entry_points_reject_bad_input(change, match):
    from statmechlearn.cluster import gibbs_fixed_point, gibbs_pass

    args = {
        "X": np.ones((5, 2)),
        "centers": np.zeros((1, 2, 2)),
        "log_weights": np.log(np.full((1, 2), 0.5)),
        "temperature": 1.0,
    }
    args.update(change)
    with pytest.raises(ValueError, match=match):
        gibbs_pass(args["X"], args["centers"], args["log_weights"], args["temperature"])
    with pytest.raises(ValueError, match=match):
        gibbs_fixed_point(
            args["X"],
            args["centers"],
            args["log_weights"],
            args["temperature"],
            mass_constrained=True,
            max_iter=10,
            tol=1e-8,
        )


@pytest.mark.parametrize("degenerate", [False, True])
def test_lanczos_principal_axis_is_the_dense_one(degenerate):
    from statmechlearn.cluster import _annealing_moves

    rng = np.random.default_rng(4)
    d = _annealing_moves.DENSE_EIGH_MAX + 44
    X = rng.standard_normal((2 * d, d))
    cov = X.T @ X / (2 * d)
    if degenerate:  # a doubly degenerate top: any unit vector of the plane is an answer
        q, _ = np.linalg.qr(rng.standard_normal((d, d)))
        values = np.linspace(1.0, 2.0, d)
        values[-2:] = 3.0
        cov = (q * values) @ q.T
    lam, vec = _annealing_moves.top_eigenpair(cov)
    exact = np.linalg.eigvalsh(cov)[-1]
    assert abs(lam - exact) <= 1e-12 * exact
    assert abs(np.linalg.norm(vec) - 1.0) < 1e-12
    assert np.linalg.norm(cov @ vec - lam * vec) < 1e-10 * exact


def test_lanczos_that_does_not_converge_falls_back_to_lapack(monkeypatch):
    from scipy.sparse.linalg import ArpackNoConvergence

    from statmechlearn.cluster import _annealing_moves

    def fail(*args, **kwargs):
        raise ArpackNoConvergence("no", np.empty(0), np.empty((0, 0)))

    monkeypatch.setattr(_annealing_moves, "eigsh", fail)
    d = _annealing_moves.DENSE_EIGH_MAX + 1
    cov = np.diag(np.arange(1.0, d + 1.0))
    lam, vec = _annealing_moves.top_eigenpair(cov)
    assert lam == d and abs(abs(vec[-1]) - 1.0) < 1e-15


def test_a_wide_fit_splits_into_its_two_clusters():
    # above the dense limit every split's principal axis comes from Lanczos
    rng = np.random.default_rng(0)
    X = rng.standard_normal((600, 300)) + np.where(rng.random(600) < 0.5, 3.0, -3.0)[:, None] * (
        np.arange(300) == 0
    )
    da = DeterministicAnnealing(2, random_state=0).fit(X)
    lam = np.linalg.eigvalsh(np.cov(X, rowvar=False, bias=True))[-1]
    assert da.critical_temperature_ == pytest.approx(2 * lam, rel=1e-10)
    assert len(da.cluster_centers_) == 2
    np.testing.assert_allclose(np.sort(da.cluster_centers_[:, 0]), [-3.0, 3.0], atol=0.2)


def test_the_whole_fit_holds_blas_to_one_thread(monkeypatch):
    """Between the compiled passes every BLAS call runs on one thread: a threaded one
    leaves OpenBLAS's threads spinning on the cores the next parallel pass needs."""
    from threadpoolctl import threadpool_info, threadpool_limits

    from statmechlearn.cluster import _annealing_moves

    seen = []
    principal_axes = _annealing_moves.principal_axes

    def probing(*args, **kwargs):
        seen.extend(info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas")
        return principal_axes(*args, **kwargs)

    monkeypatch.setattr("statmechlearn.cluster._annealing_transitions.principal_axes", probing)
    X, _ = make_blobs(300, centers=3, random_state=0)
    # the suite's workers hold BLAS to one thread; a user's session may not
    with threadpool_limits(limits=2, user_api="blas"):
        DeterministicAnnealing(3, random_state=0).fit(X)
    assert seen and set(seen) == {1}
