"""Mean-field engine: the bound, its monotone descent, exact limits, ICM."""

import numpy as np
import pytest

from statmechlearn._core.exceptions import ConvergenceWarning
from statmechlearn.inference import (
    PairwiseMRFCost,
    exact_gibbs,
    grid_graph,
    iterated_conditional_modes,
    mean_field,
    mean_field_annealing,
    variational_free_energy,
)


def _frustrated(seed, n_side=3, k=3, scale=1.5):
    rng = np.random.default_rng(seed)
    A = grid_graph((n_side, n_side), connectivity=8)
    W = A.multiply(rng.uniform(-scale, scale, A.shape))
    return PairwiseMRFCost(rng.normal(size=(n_side * n_side, k)), (W + W.T) / 2)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("T", [0.3, 1.0])
def test_bound_is_above_exact_free_energy(seed, T):
    cost = _frustrated(seed)
    res = mean_field(cost, T, random_state=seed, max_iter=2000)
    assert res.bound >= exact_gibbs(cost, T).free_energy - 1e-12


@pytest.mark.parametrize("seed", range(6))
def test_asynchronous_updates_never_raise_the_bound(seed):
    cost = _frustrated(seed, n_side=4)
    res = mean_field(cost, 0.5, random_state=seed, max_iter=300, warn=False)
    steps = np.diff(res.bound_trace)
    assert np.all(steps <= 1e-10 * np.abs(res.bound_trace[1:]).max())


def test_singleton_blocks_descend_too():
    # a dense cost: every site couples to every other, so blocks are single sites
    rng = np.random.default_rng(2)
    J = rng.normal(size=(7, 7))
    J = (J + J.T) / 2
    np.fill_diagonal(J, 0)
    cost = PairwiseMRFCost(rng.normal(size=(7, 3)), J)
    assert all(b.size == 1 for b in cost.blocks())
    res = mean_field(cost, 0.4, random_state=0, max_iter=500, warn=False)
    assert np.all(np.diff(res.bound_trace) <= 1e-12)
    assert res.bound >= exact_gibbs(cost, 0.4).free_energy


def test_factorising_cost_is_exact():
    rng = np.random.default_rng(0)
    cost = PairwiseMRFCost(rng.normal(size=(6, 3)))
    res = mean_field(cost, 0.7)
    exact = exact_gibbs(cost, 0.7)
    assert res.bound == pytest.approx(exact.free_energy, abs=1e-10)
    np.testing.assert_allclose(res.Q, exact.marginals, atol=1e-10)


def test_synchronous_oscillates_asynchronous_converges():
    # two sites that repel: from the same start both flip together, forever
    cost = PairwiseMRFCost(np.zeros((2, 2)), -np.array([[0.0, 1.0], [1.0, 0.0]]))
    Q0 = np.array([[0.9, 0.1], [0.9, 0.1]])
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        sync = mean_field(cost, 0.1, init=Q0, update="synchronous", max_iter=50)
    assert not sync.converged
    asyn = mean_field(cost, 0.1, init=Q0)
    assert asyn.converged
    assert asyn.Q[0].argmax() != asyn.Q[1].argmax()


def test_fixed_point_is_self_consistent():
    cost = _frustrated(3)
    res = mean_field(cost, 1.0, tol=1e-12, max_iter=5000)
    h = cost.mean_fields(res.Q)
    q = np.exp(-(h - h.min(1, keepdims=True)))
    np.testing.assert_allclose(res.Q, q / q.sum(1, keepdims=True), atol=1e-9)


def test_annealing_follows_the_solution():
    cost = _frustrated(1)
    temps = np.geomspace(5.0, 0.05, 20)
    path = mean_field_annealing(cost, temps, random_state=0, max_iter=1000)
    assert [p.temperature for p in path] == pytest.approx(list(temps))
    assert path[0].Q.max() < 0.8 and path[-1].Q.max(axis=1).min() > 0.99
    with pytest.raises(ValueError, match="non-increasing"):
        mean_field_annealing(cost, [1.0, 2.0])


def test_icm_reaches_a_local_minimum_from_its_start():
    cost = _frustrated(5, n_side=4)
    rng = np.random.default_rng(0)
    start = rng.integers(3, size=cost.n_sites)
    labels, n_iter = iterated_conditional_modes(cost, start)
    assert cost.energy(labels)[0] <= cost.energy(start)[0]
    state = cost.init_state(labels)
    for i in range(cost.n_sites):  # no single move lowers the cost
        e = cost.site_energies(state, i)[0]
        assert e[labels[i]] <= e.min() + 1e-12
    assert n_iter >= 1


def test_bound_entropy_term():
    cost = PairwiseMRFCost(np.zeros((4, 2)))
    Q = np.full((4, 2), 0.5)
    assert variational_free_energy(cost, Q, 2.0) == pytest.approx(-2.0 * 4 * np.log(2))


def test_mean_field_bad_input():
    cost = _frustrated(0)
    with pytest.raises(ValueError, match="temperature"):
        mean_field(cost, 0.0)
    with pytest.raises(ValueError, match="init"):
        mean_field(cost, 1.0, init=np.ones((2, 2)))
    with pytest.raises(ValueError, match="damping"):
        mean_field(cost, 1.0, update="synchronous", damping=1.0)
    with pytest.raises(ValueError, match="update"):
        mean_field(cost, 1.0, update="parallel")


# The chain diagnostics (autocorrelation time, ESS, R-hat) are in test_diagnostics.py.


@pytest.mark.parametrize("seed", [0, 1])
def test_compiled_mean_field_sweep_matches_numpy_blocks(seed):
    cost = _frustrated(seed, n_side=5)
    a = mean_field(cost, 0.6, random_state=seed, max_iter=7, warn=False)
    b = mean_field(cost, 0.6, random_state=seed, max_iter=7, warn=False, compiled=False)
    np.testing.assert_allclose(a.Q, b.Q, atol=1e-12)
    np.testing.assert_allclose(a.bound_trace, b.bound_trace, rtol=1e-12)
