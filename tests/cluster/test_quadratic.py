"""Costs quadratic in the assignments: least-angle, correlation clustering, graph partitioning.

Their scikit-learn suite at the defaults is tests/conventions/test_sklearn_suite.py.
"""

import warnings

import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score
from sklearn.preprocessing import normalize
from sklearn.utils._param_validation import InvalidParameterError

from statmechlearn.cluster import CorrelationClustering, LeastAngleClustering, least_angle_cost
from statmechlearn.cluster._maxent import gibbs_assignments, information_free_energy
from statmechlearn.cluster._mean_field import async_sweep, async_sweep_reference


def _signed_couplings(rng, n):
    J = rng.standard_normal((n, n))
    J = J + J.T
    np.fill_diagonal(J, 0.0)
    return J


def _random_assignments(rng, n, K):
    P = rng.uniform(0.1, 1.0, (n, K))
    return P / P.sum(axis=1, keepdims=True)


def _planted_signs(rng, sizes, flip):
    """+1 within, -1 between the planted groups, each sign flipped with probability ``flip``."""
    y = np.repeat(np.arange(len(sizes)), sizes)
    S = np.where(y[:, None] == y[None, :], 1.0, -1.0)
    flips = np.triu(rng.random(S.shape) < flip, 1)
    S[flips | flips.T] *= -1
    np.fill_diagonal(S, 0.0)
    return S, y


def _quadratic_energy(J, P):
    return -0.5 * float(np.einsum("ik,ij,jk->", P, J, P))


# --- asynchronous mean field -------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1])
def test_async_sweep_matches_numpy_reference(seed):
    rng = np.random.default_rng(seed)
    J, P = _signed_couplings(rng, 30), _random_assignments(rng, 30, 4)
    got, change = async_sweep(J, P, 3.0)
    want, want_change = async_sweep_reference(J, P, 3.0)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    assert change == pytest.approx(want_change, rel=1e-12)
    np.testing.assert_allclose(got.sum(axis=1), 1.0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_async_sweeps_lower_the_free_energy_every_time(seed):
    """Each row update minimises ``E + T sum P log(P/w)`` over that row (priors held), so the
    free energy never rises, even for frustrated couplings where synchronous updates cycle."""
    rng = np.random.default_rng(seed)
    J, P = _signed_couplings(rng, 40), _random_assignments(rng, 40, 3)
    T = 1.0
    values = [information_free_energy(P, _quadratic_energy(J, P), T)]
    for _ in range(30):
        P, _ = async_sweep(J, P, T)
        values.append(information_free_energy(P, _quadratic_energy(J, P), T))
    scale = max(abs(v) for v in values)
    assert np.all(np.diff(values) <= 1e-10 * scale)


def test_synchronous_updates_cycle_where_asynchronous_sweeps_converge():
    """Why the asynchronous sweep exists: two repulsive objects flip together forever."""
    J = np.array([[0.0, -1.0], [-1.0, 0.0]])
    P = np.array([[0.9, 0.1], [0.8, 0.2]])
    T = 0.1
    sync = P
    for _ in range(50):
        sync, _ = gibbs_assignments(-(J @ sync), T, np.log(sync.mean(axis=0)))
    after_49 = sync
    sync, _ = gibbs_assignments(-(J @ sync), T, np.log(sync.mean(axis=0)))
    assert np.max(np.abs(sync - after_49)) > 0.5  # still flipping
    asyn = P
    for _ in range(50):
        asyn, change = async_sweep(J, asyn, T)
    assert change < 1e-12
    assert np.argmax(asyn[0]) != np.argmax(asyn[1])  # the two repel into different clusters


# --- least-angle clustering --------------------------------------------------------------------


def test_linearised_fields_are_the_gradient_of_the_cost():
    """The auxiliary-field fields ``-e_i . y_nu`` equal ``dR/dP[i, nu]`` by finite differences
    of ``R(P) = -(n/2) sum_nu |y_nu|^2``, ``y = P^T E / n``."""
    rng = np.random.default_rng(0)
    E = normalize(rng.standard_normal((12, 3)))
    P = _random_assignments(rng, 12, 3)
    n = E.shape[0]

    def cost(P):
        Y = P.T @ E / n
        return -0.5 * n * float(np.sum(Y * Y))

    fields = -E @ (P.T @ E / n).T
    eps = 1e-6
    for i, k in [(0, 0), (5, 2), (11, 1)]:
        up, down = P.copy(), P.copy()
        up[i, k] += eps
        down[i, k] -= eps
        assert (cost(up) - cost(down)) / (2 * eps) == pytest.approx(fields[i, k], rel=1e-6)


def test_least_angle_cost_of_a_hard_partition():
    E = normalize(np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, -1.0]]))
    # clusters {0,1} and {2,3}: |2 e_x|^2 = 4 and |e_y - e_y|^2 = 0
    assert least_angle_cost(E, np.array([0, 0, 1, 1])) == pytest.approx(-4 / 8 + 1)
    # each object alone: every |e|^2 = 1
    assert least_angle_cost(E, np.arange(4)) == pytest.approx(-4 / 8 + 1)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_least_angle_clusters_directions_whatever_the_radius(seed):
    """Three angular sectors, radii spread over two decades: the directions are recovered,
    where k-means on the raw points follows the radii."""
    rng = np.random.default_rng(seed)
    angles = np.repeat([0.0, 2.1, 4.2], 40) + 0.15 * rng.standard_normal(120)
    radii = 10 ** rng.uniform(-1, 1, 120)
    X = radii[:, None] * np.column_stack([np.cos(angles), np.sin(angles)])
    y = np.repeat([0, 1, 2], 40)
    model = LeastAngleClustering(3, random_state=seed).fit(X)
    assert adjusted_rand_score(y, model.labels_) == 1.0
    assert model.cost_ == pytest.approx(least_angle_cost(normalize(X), y))
    np.testing.assert_array_equal(model.predict(X), model.labels_)
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(np.argmax(proba, axis=1), model.labels_)
    raw = KMeans(3, n_init=10, random_state=seed).fit_predict(X)
    assert adjusted_rand_score(y, raw) < 0.9


def test_least_angle_zero_rows_follow_the_priors():
    X = np.array([[1.0, 0.0], [2.0, 0.1], [3.0, -0.1], [-1.0, 0.0], [0.0, 0.0]])
    model = LeastAngleClustering(2, random_state=0).fit(X)
    big = model.labels_[0]
    assert model.labels_[4] == big
    assert model.predict([[0.0, 0.0]])[0] == big


# --- correlation clustering and graph partitioning ---------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_correlation_clustering_finds_a_partition_at_least_as_good_as_the_planted_one(seed):
    """Signs of a planted 3-partition, 20 % flipped; ``n_clusters`` is only an upper bound."""
    rng = np.random.default_rng(seed)
    S, y = _planted_signs(rng, [20, 20, 20], 0.2)
    model = CorrelationClustering(8, random_state=seed).fit(S)
    planted = _quadratic_energy(S, np.eye(3)[y])
    assert model.cost_ <= planted + 1e-9
    assert adjusted_rand_score(y, model.labels_) > 0.9
    assert 3 <= model.n_clusters_ <= 4


def test_shifted_correlation_counts_similarities_relative_to_the_threshold():
    """All similarities positive: the plain cost puts everything together; shifted at a
    threshold between the within (0.7) and between (0.3) levels it finds the groups."""
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 15)
    S = np.where(y[:, None] == y[None, :], 0.7, 0.3) + 0.1 * rng.uniform(-1, 1, (45, 45))
    S = (S + S.T) / 2
    plain = CorrelationClustering(random_state=0).fit(S)
    assert plain.n_clusters_ == 1
    shifted = CorrelationClustering(cost="shifted_correlation", threshold=0.5, random_state=0)
    assert adjusted_rand_score(y, shifted.fit_predict(S)) == 1.0


def test_unnormalised_partitioning_prefers_balanced_clusters_normalised_does_not():
    """45 points around 0 and 15 around (6, 0): the un-normalised cut cost is lowered by moving
    points of the big cluster into the small one (§5.2), the normalised cost is not."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (45, 2)), rng.normal([6, 0], 0.5, (15, 2))])
    y = np.repeat([0, 1], [45, 15])
    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    planted = np.eye(2)[y]
    plain = CorrelationClustering(2, cost="graph_partitioning", random_state=0).fit(D)
    assert plain.cost_ < _quadratic_energy(-D, planted)
    assert np.bincount(plain.labels_).min() > 15
    normed = CorrelationClustering(2, cost="normalized_graph_partitioning", random_state=0)
    assert adjusted_rand_score(y, normed.fit_predict(D)) == 1.0


def test_graph_partitioning_warns_when_fewer_clusters_separate():
    D = np.ones((6, 6)) - np.eye(6)
    model = CorrelationClustering(3, cost="normalized_graph_partitioning", min_temperature=10.0)
    with pytest.warns(ConvergenceWarning, match="clusters separated"):
        model.fit(D)


@pytest.mark.parametrize(
    ("X", "cost", "message"),
    [
        (np.ones((3, 4)), "correlation", "square"),
        (np.array([[0.0, 1.0], [2.0, 0.0]]), "correlation", "symmetric"),
        (np.array([[0.0, np.nan], [np.nan, 0.0]]), "correlation", "NaN"),
        (np.array([[0.0, -1.0], [-1.0, 0.0]]), "graph_partitioning", "(?i)negative"),
    ],
)
def test_correlation_clustering_rejects_bad_matrices(X, cost, message):
    with pytest.raises(ValueError, match=message):
        CorrelationClustering(2, cost=cost).fit(X)


def test_bad_parameters_are_named():
    D = np.ones((3, 3)) - np.eye(3)
    with pytest.raises(ValueError, match="n_clusters=5 must be <= n_samples=3"):
        CorrelationClustering(5, cost="graph_partitioning").fit(D)
    with pytest.raises(InvalidParameterError, match="cost"):
        CorrelationClustering(cost="modularity").fit(D)
    with pytest.raises(ValueError, match="n_clusters=4 must be <= n_samples=3"):
        LeastAngleClustering(4).fit(np.eye(3))
    with pytest.raises(InvalidParameterError, match="min_temperature"):
        LeastAngleClustering(min_temperature=-1.0).fit(np.eye(3))


def test_correlation_caps_its_upper_bound_at_n_samples():
    S = -(np.ones((3, 3)) - np.eye(3))  # everyone repels everyone
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = CorrelationClustering(8, random_state=0).fit(S)
    assert model.n_clusters_ == 3


@pytest.mark.parametrize("seed", range(6))
def test_least_angle_labels_are_single_move_local_minima_of_the_cost(seed):
    # Each object's field leaves out its own pull (naive mean field of the exact cost); with
    # the notes' saddle-point field a 1/n stay bonus left about a third of such runs stuck.
    rng = np.random.default_rng(seed)
    X = normalize(rng.normal(size=(9, 3)) + 0.8 * np.repeat(np.eye(3), 3, axis=0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        labels = LeastAngleClustering(3, random_state=seed).fit(X).labels_
    base = least_angle_cost(X, labels)
    for i in range(9):
        for nu in range(3):
            moved = labels.copy()
            moved[i] = nu
            assert least_angle_cost(X, moved) >= base - 1e-12
