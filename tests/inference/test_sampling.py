"""Samplers against exact enumeration, the numba kernels against their NumPy twins."""

import math

import numpy as np
import pytest
from scipy import sparse, stats

from statmechlearn.inference import (
    CoolingSchedule,
    KMeansCost,
    PairwiseMRFCost,
    exact_gibbs,
    factorial_log_partition,
    graph_coloring,
    grid_graph,
    sample_assignments,
    simulated_annealing,
    sweep,
    thermodynamic_free_energy,
)

# Estimates are compared within z_limit standard errors over independent chains: the
# Student-t quantile (B - 1 degrees of freedom) at a family-wise false-alarm rate of 1e-4
# over all the entries compared, so a correct sampler fails once in ~10^4 runs.


def z_limit(n_compared, n_chains, alpha=1e-4):
    return float(stats.t.isf(alpha / (2 * n_compared), n_chains - 1))


def _mrf(seed, n_side=3, k=3, scale=0.8):
    rng = np.random.default_rng(seed)
    A = grid_graph((n_side, n_side))
    W = A.multiply(rng.uniform(-scale, scale, A.shape))
    W = (W + W.T) / 2
    return PairwiseMRFCost(rng.normal(size=(n_side * n_side, k)), W)


def _blobs(seed, n=8, k=2, sep=1.2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    X[: n // 2] += sep
    return KMeansCost(X, k)


# ----------------------------------------------------------------- costs


@pytest.mark.parametrize("seed", [0, 1])
def test_mrf_site_energies_are_energy_differences(seed):
    cost = _mrf(seed)
    rng = np.random.default_rng(seed + 10)
    L = rng.integers(cost.n_states, size=(3, cost.n_sites))
    state = cost.init_state(L)
    for i in range(cost.n_sites):
        e = cost.site_energies(state, i)
        for nu in range(cost.n_states):
            moved = L.copy()
            moved[:, i] = nu
            np.testing.assert_allclose(
                cost.energy(moved) - cost.energy(L), e[:, nu] - e[np.arange(3), L[:, i]], atol=1e-12
            )


@pytest.mark.parametrize("seed", [0, 1])
def test_kmeans_site_energies_are_hartigan_moves(seed):
    cost = _blobs(seed, n=9, k=3)
    rng = np.random.default_rng(seed)
    L = rng.integers(3, size=(4, 9))
    state = cost.init_state(L)
    for i in range(9):
        e = cost.site_energies(state, i)
        for nu in range(3):
            moved = L.copy()
            moved[:, i] = nu
            np.testing.assert_allclose(
                cost.energy(moved) - cost.energy(L),
                e[:, nu] - e[np.arange(4), L[:, i]],
                atol=1e-10,
            )


def test_kmeans_energy_is_within_cluster_sum_of_squares():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(12, 3)) + 50.0
    labels = rng.integers(3, size=12)
    direct = sum(((X[labels == j] - X[labels == j].mean(0)) ** 2).sum() for j in range(3))
    assert KMeansCost(X, 3).energy(labels)[0] == pytest.approx(direct, rel=1e-12)


def test_mean_fields_are_gradients_of_expected_cost():
    cost = _mrf(4)
    rng = np.random.default_rng(0)
    Q = rng.dirichlet(np.ones(cost.n_states), size=cost.n_sites)
    h = cost.mean_fields(Q)
    eps = 1e-6
    for u in (0, 4, 8):
        for a in range(cost.n_states):
            Qp, Qm = Q.copy(), Q.copy()
            Qp[u, a] += eps
            Qm[u, a] -= eps
            fd = (cost.expected_cost(Qp) - cost.expected_cost(Qm)) / (2 * eps)
            assert fd == pytest.approx(h[u, a], abs=1e-7)


def test_grid_graph_and_coloring():
    A = grid_graph((4, 5))
    deg = np.asarray(A.sum(axis=1)).ravel()
    assert deg.min() == 2 and deg.max() == 4 and A.nnz == 2 * (4 * 4 + 3 * 5)
    colors = graph_coloring(A)
    assert colors.max() == 1  # the checkerboard
    coo = A.tocoo()
    assert np.all(colors[coo.row] != colors[coo.col])
    colors8 = graph_coloring(grid_graph((4, 5), connectivity=8))
    coo8 = grid_graph((4, 5), connectivity=8).tocoo()
    assert np.all(colors8[coo8.row] != colors8[coo8.col]) and colors8.max() <= 3


# ----------------------------------------------------------------- twins


@pytest.mark.parametrize("method", ["gibbs", "metropolis"])
@pytest.mark.parametrize("which", ["mrf", "kmeans"])
def test_compiled_sweep_matches_numpy_twin(method, which):
    cost = _mrf(2) if which == "mrf" else _blobs(2, n=10, k=3)
    rng = np.random.default_rng(7)
    L = rng.integers(cost.n_states, size=(5, cost.n_sites))
    a, b = cost.init_state(L), cost.init_state(L)
    for _ in range(20):
        u = rng.random((5, cost.n_sites, 2))
        ca = sweep(cost, a, 0.7, u, method=method, compiled=True)
        cb = sweep(cost, b, 0.7, u, method=method, compiled=False)
        np.testing.assert_array_equal(ca, cb)
        np.testing.assert_array_equal(cost.labels(a), cost.labels(b))
    if which == "kmeans":
        np.testing.assert_allclose(a["sums"], b["sums"], atol=1e-12)
        np.testing.assert_array_equal(a["counts"], b["counts"])


# ----------------------------------------------------------------- exactness


def test_sum_product_partition_function_is_exact():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(9, 2))
    Y = rng.normal(size=(3, 2))
    U = ((X[:, None] - Y[None]) ** 2).sum(-1)
    for T in (0.3, 1.0, 5.0):
        exact = exact_gibbs(PairwiseMRFCost(U), T)
        assert factorial_log_partition(U, T) == pytest.approx(exact.log_partition, rel=1e-12)
        p = np.exp(-U / T)
        np.testing.assert_allclose(exact.marginals, p / p.sum(1, keepdims=True), atol=1e-12)


@pytest.mark.parametrize("method", ["gibbs", "metropolis"])
@pytest.mark.parametrize("seed", [0, 1])
def test_mrf_sampler_marginals_match_enumeration(method, seed):
    cost = _mrf(seed)
    T = 1.0
    exact = exact_gibbs(cost, T)
    res = sample_assignments(
        cost, T, n_chains=24, n_sweeps=800, method=method, random_state=seed + 100
    )
    se = res.chain_marginals.std(axis=0, ddof=1) / math.sqrt(24)
    z = np.abs(res.marginals - exact.marginals) / se
    assert z.max() < z_limit(z.size, 24), (z.max(), np.abs(res.marginals - exact.marginals).max())
    e_chain = res.energies[:, res.burn_in :].mean(axis=1)
    z_e = abs(e_chain.mean() - exact.mean_energy) / (e_chain.std(ddof=1) / math.sqrt(24))
    assert z_e < z_limit(1, 24)
    assert res.r_hat < 1.1


@pytest.mark.parametrize("method", ["gibbs", "metropolis"])
def test_kmeans_sampler_coassignment_matches_enumeration(method):
    # Cluster labels are exchangeable: single-site marginals are uniform by
    # symmetry, so compare the label-free co-assignment P(c_i = c_j).
    cost = _blobs(5, n=8, k=2)
    T = 1.5
    exact = exact_gibbs(cost, T)
    n, k = cost.n_sites, cost.n_states
    powers = k ** np.arange(n)
    labels = (np.arange(k**n)[:, None] // powers) % k
    w = np.exp(-(cost.energy(labels) - exact.ground_energy) / T)
    w /= w.sum()
    same = labels[:, :, None] == labels[:, None, :]
    exact_co = np.tensordot(w, same, axes=1)
    rng = np.random.default_rng(11)
    B, n_sweeps, burn = 24, 1500, 300
    state = cost.init_state(rng.integers(k, size=(B, n)))
    co = np.zeros((B, n, n))
    for t in range(n_sweeps):
        sweep(cost, state, T, rng.random((B, n, 2)), method=method)
        if t >= burn:
            L = state["labels"]
            co += L[:, :, None] == L[:, None, :]
    co /= n_sweeps - burn
    se = co.std(axis=0, ddof=1) / math.sqrt(B)
    off = ~np.eye(n, dtype=bool)
    z = np.abs(co.mean(0) - exact_co)[off] / se[off]
    assert z.max() < z_limit(z.size // 2, B)


def test_thermodynamic_integration_recovers_free_energy():
    cost = _mrf(3)
    T = 0.8
    exact = exact_gibbs(cost, T)
    # quadrature alone (exact <R> at the nodes) is far more accurate than the sampling
    beta = 1 / T
    x, w = np.polynomial.legendre.leggauss(12)
    b = 0.5 * beta * (x + 1)
    quad = -cost.n_sites * math.log(cost.n_states) + sum(
        0.5 * beta * wj * exact_gibbs(cost, 1 / bj).mean_energy for bj, wj in zip(b, w, strict=True)
    )
    assert quad / beta == pytest.approx(exact.free_energy, abs=1e-6)
    F, se = thermodynamic_free_energy(cost, T, n_chains=12, n_sweeps=300, random_state=5)
    assert abs(F - exact.free_energy) < z_limit(1, 12) * se


def test_exact_entropy_identity_and_limits():
    cost = _mrf(6)
    hot = exact_gibbs(cost, 1e6)
    assert hot.entropy == pytest.approx(cost.n_sites * math.log(cost.n_states), rel=1e-5)
    cold = exact_gibbs(cost, 1e-3)
    assert cold.free_energy == pytest.approx(cold.ground_energy, abs=1e-2)
    assert cost.energy(cold.ground_labels)[0] == pytest.approx(cold.ground_energy)


# ----------------------------------------------------------------- annealing


def test_schedules():
    exp = CoolingSchedule("exponential", 10.0, 0.1, n_steps=3)
    assert exp.next_temperature(0, 10.0, 1.0) == pytest.approx(1.0)
    assert exp.next_temperature(1, 1.0, 1.0) == pytest.approx(0.1)
    assert exp.next_temperature(2, 0.1, 1.0) is None
    log = CoolingSchedule("logarithmic", 2.0, n_steps=10)
    assert log.next_temperature(0, 2.0, 1.0) == pytest.approx(2.0 * math.log(2) / math.log(3))
    ada = CoolingSchedule("adaptive", 10.0, 1.0, n_steps=1000, delta=0.1)
    slow = ada.next_temperature(0, 5.0, 100.0)
    fast = ada.next_temperature(0, 5.0, 0.01)
    assert 5.0 > slow > 4.9 and fast is None


@pytest.mark.parametrize("method", ["gibbs", "metropolis"])
def test_simulated_annealing_finds_ground_state(method):
    cost = _blobs(8, n=9, k=3, sep=3.0)
    exact = exact_gibbs(cost, 1.0)
    sched = CoolingSchedule("exponential", 20.0, 0.01, n_steps=300)
    res = simulated_annealing(cost, sched, n_chains=4, method=method, random_state=1)
    assert res.best_energy == pytest.approx(exact.ground_energy, rel=1e-9)
    assert res.temperatures.size == 300 and res.n_sweeps == 300
    assert res.acceptance_rate[0] > res.acceptance_rate[-1]


def test_adaptive_schedule_runs_to_min_temperature():
    cost = _blobs(9, n=10, k=2)
    sched = CoolingSchedule("adaptive", 10.0, 0.05, n_steps=10_000, delta=0.3)
    res = simulated_annealing(cost, sched, sweeps_per_temperature=5, n_chains=2, random_state=0)
    assert res.temperatures[-1] >= 0.05 and np.all(np.diff(res.temperatures) < 0)


# ----------------------------------------------------------------- bad input


def test_bad_input():
    cost = _mrf(0)
    with pytest.raises(ValueError, match="temperature"):
        sample_assignments(cost, 0.0)
    with pytest.raises(ValueError, match="temperature"):
        exact_gibbs(cost, -1.0)
    with pytest.raises(ValueError, match="init"):
        sample_assignments(cost, 1.0, init=np.full(cost.n_sites, 7))
    with pytest.raises(ValueError, match="max_configurations"):
        exact_gibbs(PairwiseMRFCost(np.zeros((30, 3))), 1.0)
    with pytest.raises(ValueError, match="method"):
        sample_assignments(cost, 1.0, method="hmc")
    with pytest.raises(ValueError, match="self-loops"):
        PairwiseMRFCost(np.zeros((3, 2)), np.eye(3))
    with pytest.raises(ValueError, match="symmetric"):
        PairwiseMRFCost(np.zeros((3, 2)), np.triu(np.ones((3, 3)), 1))
    with pytest.raises(ValueError, match="finite"):
        PairwiseMRFCost(np.full((3, 2), np.nan))
    with pytest.raises(ValueError, match="n_clusters"):
        KMeansCost(np.zeros((3, 2)), 4)
    with pytest.raises(ValueError, match="min_temperature"):
        CoolingSchedule("exponential", 1.0, 2.0)
    with pytest.raises(ValueError, match="couplings"):
        PairwiseMRFCost(np.zeros((3, 2)), sparse.eye(4))
