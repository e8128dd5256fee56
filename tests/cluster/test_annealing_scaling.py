"""DeterministicAnnealing at scale: streaming (partial_fit, dask), split-and-merge, the schedule."""

import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.datasets import load_digits, make_blobs
from sklearn.preprocessing import StandardScaler

from statmechlearn.cluster import DeterministicAnnealing
from statmechlearn.cluster._annealing import _HARD_ENTROPY, _POLISH_TOL, _SETTLED_ENTROPY
from statmechlearn.cluster._gibbs import gibbs_pass, gibbs_statistics
from statmechlearn.cluster._schedule import SETTLED_POWER, GeometricSchedule


def _outlier_blobs(seed):
    """Four blobs and a few points far out along one axis each (a heavy-tailed feature)."""
    rng = np.random.default_rng(seed)
    X, _ = make_blobs(400, n_features=6, centers=4, cluster_std=1.0, random_state=seed)
    far = np.zeros((6, 6))
    far[np.arange(6), np.arange(6)] = rng.choice([-1, 1], 6) * rng.uniform(30, 40, 6)
    return np.vstack([X, far])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_relocation_never_raises_the_inertia_and_frees_outlier_code_vectors(seed):
    X = _outlier_blobs(seed)
    plain = DeterministicAnnealing(4, relocate=False, random_state=seed).fit(X)
    moved = DeterministicAnnealing(4, random_state=seed).fit(X)
    assert moved.inertia_ <= plain.inertia_ * (1 + 1e-12)
    # a move is kept only when it lowers the inertia, and each is recorded
    relocations = [e for e in moved.path_.events if "relocated" in e]
    if relocations:
        assert moved.inertia_ < plain.inertia_
    # the annealed path before the final temperature is the same
    np.testing.assert_array_equal(plain.path_.temperature, moved.path_.temperature)


def test_relocation_gives_back_the_code_vectors_a_capped_anneal_spends_on_outliers():
    # standardised digits: rare pixels become far outliers, whose clusters have the highest
    # critical temperatures and take code vectors first
    X = StandardScaler().fit_transform(load_digits().data)
    km = KMeans(10, n_init=10, random_state=0).fit(X)
    plain = DeterministicAnnealing(10, relocate=False, random_state=0).fit(X)
    moved = DeterministicAnnealing(10, random_state=0).fit(X)
    assert plain.inertia_ > 1.05 * km.inertia_

    def tiny(labels):
        return int(np.sum(np.bincount(labels) <= 5))

    assert tiny(plain.labels_) >= 2
    assert moved.inertia_ < 1.02 * km.inertia_
    assert tiny(moved.labels_) < tiny(plain.labels_)


def test_path_statistics_are_those_of_the_recorded_code_vectors():
    # the last pass of each temperature's fixed point supplies its statistics
    X, _ = make_blobs(500, centers=3, random_state=3)
    da = DeterministicAnnealing(3, random_state=0).fit(X)
    Xc = X - X.mean(axis=0)
    for i in range(0, len(da.path_.temperature), 5):
        centers = da.path_.centers[i] - X.mean(axis=0)
        stats = gibbs_statistics(
            Xc, centers[None], np.log(da.path_.weights[i])[None], da.path_.temperature[i]
        )
        for name in ("free_energy", "distortion", "entropy"):
            got = getattr(da.path_, name)[i]
            assert got == pytest.approx(stats[name][0], rel=1e-10, abs=1e-12), name


def test_settled_schedule_cools_by_the_power_of_the_rate():
    schedule = GeometricSchedule(10.0, 0.01, 0.9)
    assert schedule.next(5.0, settled=True) == pytest.approx(5.0 * 0.9**SETTLED_POWER)
    assert schedule.next(5.0) == pytest.approx(4.5)
    # never below the floor, which is always run
    assert schedule.next(0.011, settled=True) == 0.01


def test_adaptive_anneal_steps_to_the_floor_once_settled_and_hard():
    X, _ = make_blobs(600, centers=3, cluster_std=0.5, random_state=0)
    da = DeterministicAnnealing(3, random_state=0).fit(X)
    path = da.path_
    hard = np.flatnonzero((path.n_clusters == 3) & (path.entropy < _SETTLED_ENTROPY))
    # the first settled temperature with hard assignments is followed by the floor alone
    assert hard[0] == len(path.temperature) - 2
    assert path.temperature[-1] == pytest.approx(1e-3 * da.critical_temperature_, rel=1e-12)
    assert np.all(path.entropy[path.n_clusters == 3][:-2] >= _SETTLED_ENTROPY)


def test_adaptive_anneal_takes_fewer_temperatures_once_every_code_vector_is_used():
    X, _ = make_blobs(600, centers=3, cluster_std=0.5, random_state=0)
    fast = DeterministicAnnealing(3, random_state=0).fit(X)
    slow = DeterministicAnnealing(3, adaptive=False, random_state=0).fit(X)
    assert len(fast.path_.temperature) < len(slow.path_.temperature) / 2
    assert fast.inertia_ == pytest.approx(slow.inertia_, rel=1e-6)


def test_partial_fit_accumulates_the_sufficient_statistics_of_every_batch():
    X, _ = make_blobs(900, centers=3, random_state=1)
    batches = np.array_split(X, 3)
    da = DeterministicAnnealing(3, random_state=0).partial_fit(batches[0])
    first = DeterministicAnnealing(3, random_state=0).fit(batches[0])
    np.testing.assert_array_equal(da.cluster_centers_, first.cluster_centers_)
    mean = batches[0].mean(axis=0)
    proba = first.predict_proba(batches[0])
    mass, sums = proba.sum(axis=0), proba.T @ (batches[0] - mean)
    centers, weights = first.cluster_centers_ - mean, first.cluster_weights_
    for batch in batches[1:]:
        s, m, _, _, _ = gibbs_pass(
            batch - mean, centers[None], np.log(weights)[None], first.temperature_
        )
        sums, mass = sums + s[0], mass + m[0]
        centers, weights = sums / mass[:, None], mass / mass.sum()
        da.partial_fit(batch)
    np.testing.assert_allclose(da.cluster_centers_, centers + mean, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(da.cluster_weights_, weights, rtol=1e-12)
    assert da.n_samples_seen_ == len(X)
    assert da.labels_.shape == (len(batches[-1]),)


def test_streaming_reaches_the_fit_on_all_the_data():
    X, _ = make_blobs(6000, n_features=4, centers=5, cluster_std=1.0, random_state=4)
    X = X[np.random.default_rng(0).permutation(len(X))]
    whole = DeterministicAnnealing(5, random_state=0).fit(X)
    stream = DeterministicAnnealing(5, random_state=0)
    for batch in np.array_split(X, 12):
        stream.partial_fit(batch)
    assert stream.score(X) == pytest.approx(whole.score(X), rel=2e-3)
    # a new fit starts a new stream
    stream.fit(X[:500])
    assert not hasattr(stream, "_stream_mass")


def test_partial_fit_refuses_a_batch_of_another_width():
    X, _ = make_blobs(300, centers=2, random_state=0)
    da = DeterministicAnnealing(2, random_state=0).partial_fit(X)
    with pytest.raises(ValueError, match="features"):
        da.partial_fit(np.ones((10, 3)))


def test_dask_cluster_streams_a_dask_array_and_reduces_its_statistics():
    distributed = pytest.importorskip("dask.distributed")
    dask_array = pytest.importorskip("dask.array")
    X, _ = make_blobs(8000, n_features=3, centers=4, random_state=2)
    big = dask_array.from_array(X, chunks=(2000, 3))
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False) as cluster,
        distributed.Client(cluster) as client,
    ):
        # the recipe of docs/scaling.md: anneal on the first block, stream the rest
        da = DeterministicAnnealing(4, random_state=0)
        for block in big.blocks:
            da.partial_fit(client.compute(block).result())
        # one fixed-point iteration over the whole array, each block's pass on a worker
        mean = big.mean(axis=0).compute()
        centers = (da.cluster_centers_ - mean)[None]
        log_w = np.log(da.cluster_weights_)[None]
        parts = client.map(
            lambda block: gibbs_pass(block - mean, centers, log_w, da.temperature_)[:2],
            [client.compute(b) for b in big.blocks],
        )
        sums, mass = map(sum, zip(*client.gather(parts), strict=True))
    local = gibbs_pass(X - mean, centers, log_w, da.temperature_)
    np.testing.assert_allclose(sums, local[0], rtol=1e-10, atol=1e-9)
    np.testing.assert_allclose(mass, local[1], rtol=1e-12)
    whole = DeterministicAnnealing(4, random_state=0).fit(X)
    assert da.score(X) == pytest.approx(whole.score(X), rel=2e-3)


def _assert_same_fixed_point(fit, whole, X):
    assert fit.inertia_ == pytest.approx(whole.inertia_, rel=1e-9)
    # each run stops polishing when a pass moves the code vectors by less than `step` (the
    # squared-norm criterion _POLISH_TOL * tol * variance); at the floor the pass contracts
    # by far more than a half, so each is within one step of the fixed point: two within two
    step = np.sqrt(_POLISH_TOL * whole.tol * X.var(axis=0).mean())
    np.testing.assert_allclose(
        np.sort(fit.cluster_centers_, axis=0),
        np.sort(whole.cluster_centers_, axis=0),
        rtol=0,
        atol=2 * step,
    )


@pytest.mark.parametrize("mass_constrained", [True, False])
def test_splits_found_on_a_subsample_give_the_fit_on_all_rows(mass_constrained):
    X, _ = make_blobs(4000, n_features=3, centers=5, cluster_std=1.0, random_state=6)
    whole = DeterministicAnnealing(
        5, mass_constrained=mass_constrained, split_sample_size=None, random_state=0
    ).fit(X)
    sampled = DeterministicAnnealing(
        5, mass_constrained=mass_constrained, split_sample_size=400, random_state=0
    ).fit(X)
    # the answer is the final temperature's fixed point on all the rows, as the full anneal's
    _assert_same_fixed_point(sampled, whole, X)
    # once no split can come and the subsample's assignments are hard, the path is
    # computed on every row
    path = sampled.path_
    settled = np.argmax(path.n_clusters == 5)
    hard = settled + np.argmax(path.entropy[settled:] < _HARD_ENTROPY)
    assert path.entropy[hard] < _HARD_ENTROPY and hard + 1 < len(path.temperature)
    Xc = X - X.mean(axis=0)

    def on_all_rows(i):
        centers = (path.centers[i] - X.mean(axis=0))[None]
        stats = gibbs_statistics(Xc, centers, np.log(path.weights[i])[None], path.temperature[i])
        return stats["free_energy"][0]

    assert path.free_energy[hard + 1] == pytest.approx(on_all_rows(hard + 1), rel=1e-10)
    # and before, on the subsample
    assert path.free_energy[hard] != pytest.approx(on_all_rows(hard), rel=1e-6)


def test_the_default_subsample_gives_the_fit_on_all_rows():
    """Above the default split_sample_size: the splits on 2^14 rows, the relocation moves
    proposed from thinned clusters of more than 4096 rows, and still the fit on all rows."""
    X, _ = make_blobs(24000, n_features=4, centers=4, cluster_std=1.5, random_state=3)
    whole = DeterministicAnnealing(4, split_sample_size=None, random_state=0).fit(X)
    default = DeterministicAnnealing(4, random_state=0).fit(X)
    assert default.split_sample_size < len(X)
    _assert_same_fixed_point(default, whole, X)
