"""Structured mean field (§6.5): the bound between F and naive mean field, exact limits, twins."""

import itertools

import numpy as np
import pytest

from statmechlearn._core.exceptions import ConvergenceWarning
from statmechlearn.inference import (
    PairwiseMRFCost,
    exact_gibbs,
    grid_graph,
    ising_cost,
    mean_field,
    structured_mean_field,
    variational_free_energy,
)


def _grid_cost(seed, shape=(3, 3), k=3, low=-1.5, high=1.5, unary=1.0):
    """Random pair weights on a 4-connected grid (``low < 0``: frustrated)."""
    rng = np.random.default_rng(seed)
    A = grid_graph(shape)
    W = A.multiply(rng.uniform(low, high, A.shape))
    return PairwiseMRFCost(unary * rng.normal(size=(A.shape[0], k)), (W + W.T) / 2)


def _tree_cost(seed, k=3):
    """Seven sites on a tree (a star with two longer arms)."""
    rng = np.random.default_rng(seed)
    W = np.zeros((7, 7))
    for i, j in [(0, 1), (0, 2), (0, 3), (1, 4), (2, 5), (5, 6)]:
        W[i, j] = W[j, i] = rng.uniform(-2.0, 2.0)
    return PairwiseMRFCost(rng.normal(size=(7, k)), W)


def _rows(shape):
    return np.arange(shape[0] * shape[1]).reshape(shape)


def _labelings(k, m):
    """Every labeling of ``m`` sites with ``k`` states, shape ``(k**m, m)``."""
    return np.array(list(itertools.product(range(k), repeat=m)))


# ---------------------------------------------------------------- exact limits


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("T", [0.2, 1.0, 4.0])
def test_one_chain_block_is_exact(seed, T):
    cost = _grid_cost(seed, shape=(1, 8), k=3)
    ex = exact_gibbs(cost, T)
    res = structured_mean_field(cost, T, blocks=[np.arange(8)], random_state=seed)
    assert res.converged
    assert res.bound == pytest.approx(ex.free_energy, rel=1e-10, abs=1e-10)
    np.testing.assert_allclose(res.Q, ex.marginals, atol=1e-10)


@pytest.mark.parametrize("compiled", [True, False])
def test_one_tree_block_is_exact_with_its_pair_marginals(compiled):
    cost = _tree_cost(3)
    T = 0.7
    res = structured_mean_field(cost, T, blocks=[[6, 4, 2, 0, 1, 3, 5]], compiled=compiled)
    ex = exact_gibbs(cost, T)
    assert res.bound == pytest.approx(ex.free_energy, rel=1e-10)
    np.testing.assert_allclose(res.Q, ex.marginals, atol=1e-10)
    # pair marginals by enumeration
    labels = _labelings(3, 7)
    p = np.exp(-(cost.energy(labels) - ex.free_energy) / T)
    assert len(res.edges) == 6
    for (i, j), pair in zip(res.edges, res.pairwise, strict=True):
        ref = np.zeros((3, 3))
        np.add.at(ref, (labels[:, i], labels[:, j]), p)
        np.testing.assert_allclose(pair, ref, atol=1e-10)


@pytest.mark.parametrize("seed", range(3))
def test_singleton_blocks_are_naive_mean_field(seed):
    cost = _grid_cost(seed)
    T = 0.8
    naive = mean_field(cost, T, random_state=seed, tol=1e-13, max_iter=20000)
    res = structured_mean_field(
        cost, T, blocks=[[i] for i in range(cost.n_sites)], init=naive.Q, tol=1e-13
    )
    assert res.edges.shape == (0, 2) and res.pairwise.shape == (0, 3, 3)
    np.testing.assert_allclose(res.Q, naive.Q, atol=1e-10)
    assert res.bound == pytest.approx(naive.bound, rel=1e-10)
    assert res.bound == pytest.approx(variational_free_energy(cost, res.Q, T), rel=1e-12)


# ---------------------------------------------------------------- the bound


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("T", [0.3, 1.0, 3.0])
def test_bound_lies_between_exact_and_naive(seed, T):
    cost = _grid_cost(seed, shape=(3, 4), k=3)
    naive = mean_field(cost, T, random_state=seed, tol=1e-12, max_iter=20000)
    res = structured_mean_field(cost, T, blocks=_rows((3, 4)), init=naive.Q, tol=1e-12)
    F = exact_gibbs(cost, T).free_energy
    scale = 1e-12 * abs(F)
    assert F <= res.bound + scale
    assert res.bound <= naive.bound + scale
    # the first trace entry is the factorial start, i.e. the naive bound
    assert res.bound_trace[0] == pytest.approx(naive.bound, rel=1e-12)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("axis", ["rows", "columns"])
def test_sweeps_never_raise_the_bound(seed, axis):
    cost = _grid_cost(seed, shape=(5, 6), k=3)
    blocks = _rows((5, 6)) if axis == "rows" else _rows((5, 6)).T
    init = np.random.default_rng(seed).dirichlet(np.ones(3), size=cost.n_sites)
    res = structured_mean_field(cost, 0.5, blocks=blocks, init=init, max_iter=200, warn=False)
    scale = 1e-12 * np.abs(res.bound_trace).max()
    assert np.all(np.diff(res.bound_trace) <= scale)
    assert res.bound_trace[-1] < res.bound_trace[0]


def _block_joint(res, sites, k):
    """``Q_b`` on every labeling of a tree block from its marginals and pair marginals."""
    labels = _labelings(k, len(sites))
    pos = {int(s): c for c, s in enumerate(sites)}
    logq = np.zeros(labels.shape[0])
    degree = dict.fromkeys(pos, 0)
    for (i, j), pair in zip(res.edges, res.pairwise, strict=True):
        if int(i) in pos:
            logq += np.log(pair[labels[:, pos[int(i)]], labels[:, pos[int(j)]]])
            degree[int(i)] += 1
            degree[int(j)] += 1
    for s, c in pos.items():
        logq -= (degree[s] - 1) * np.log(res.Q[s, labels[:, c]])
    return labels, np.exp(logq)


@pytest.mark.parametrize("seed", range(3))
def test_bound_equals_expected_cost_minus_entropy_by_enumeration(seed):
    # B from the tree formula against E_Q[R] - T H(Q) summed over all k^n labelings of Q
    cost = _grid_cost(seed, shape=(3, 3), k=2)
    T = 0.9
    blocks = _rows((3, 3))
    res = structured_mean_field(cost, T, blocks=blocks, max_iter=3, warn=False, random_state=0)
    parts = [_block_joint(res, b, 2) for b in blocks]
    for _, q in parts:
        assert q.sum() == pytest.approx(1.0, rel=1e-12)
    n = cost.n_sites
    labels = np.zeros((2**n, n), dtype=int)
    q = np.ones(2**n)
    for idx, combo in enumerate(itertools.product(*(range(8) for _ in blocks))):
        for r, (b, c) in enumerate(zip(blocks, combo, strict=True)):
            labels[idx, b] = parts[r][0][c]
        q[idx] = np.prod([parts[r][1][c] for r, c in enumerate(combo)])
    B = float(q @ cost.energy(labels) + T * np.sum(q * np.log(q)))
    assert res.bound == pytest.approx(B, rel=1e-10)


@pytest.mark.parametrize("seed", range(3))
def test_fixed_point_is_each_blocks_gibbs_distribution_under_mean_fields(seed):
    # stationarity (§6.3 for a block): Q_b ∝ exp(-R_eff/T), the block enumerated
    cost = _grid_cost(seed, shape=(3, 4), k=3)
    T = 0.6
    blocks = _rows((3, 4))
    res = structured_mean_field(cost, T, blocks=blocks, tol=1e-13, max_iter=5000)
    assert res.converged
    W = cost.W.toarray()
    for b in blocks:
        others = np.setdiff1d(np.arange(cost.n_sites), b)
        h = cost.unary[b] + (W[np.ix_(b, others)] @ res.Q[others]) @ cost.interaction.T
        labels = _labelings(3, b.size)
        e = h[np.arange(b.size), labels].sum(1)
        for a in range(b.size - 1):
            e = e + W[b[a], b[a + 1]] * cost.interaction[labels[:, a], labels[:, a + 1]]
        p = np.exp(-(e - e.min()) / T)
        p /= p.sum()
        for c, i in enumerate(b):
            np.testing.assert_allclose(
                res.Q[i], np.bincount(labels[:, c], weights=p, minlength=3), atol=1e-9
            )


# ---------------------------------------------------------------- numba kernel vs NumPy twin


@pytest.mark.parametrize("seed", range(3))
def test_kernel_matches_numpy_twin(seed):
    cost = _grid_cost(seed, shape=(4, 5), k=3)
    init = np.random.default_rng(seed).dirichlet(np.ones(3), size=cost.n_sites)
    kw = {"blocks": _rows((4, 5)), "init": init, "max_iter": 30, "warn": False}
    a = structured_mean_field(cost, 0.4, compiled=True, **kw)
    b = structured_mean_field(cost, 0.4, compiled=False, **kw)
    np.testing.assert_allclose(a.Q, b.Q, atol=1e-12)
    np.testing.assert_allclose(a.pairwise, b.pairwise, atol=1e-12)
    np.testing.assert_allclose(a.bound_trace, b.bound_trace, rtol=1e-12)
    t1 = structured_mean_field(_tree_cost(seed), 0.5, blocks=[range(7)], compiled=True)
    t2 = structured_mean_field(_tree_cost(seed), 0.5, blocks=[range(7)], compiled=False)
    np.testing.assert_allclose(t1.pairwise, t2.pairwise, atol=1e-12)


def test_ising_image_rows_and_low_temperature_stay_finite():
    rng = np.random.default_rng(0)
    cost = ising_cost(rng.random((6, 7)) < 0.5, coupling=3.0)
    res = structured_mean_field(cost, 1e-3, blocks=_rows((6, 7)), random_state=0, warn=False)
    assert np.all(np.isfinite(res.Q)) and np.isfinite(res.bound)
    np.testing.assert_allclose(res.Q.sum(1), 1.0)


def test_random_state_reproduces():
    cost = _grid_cost(0)
    a = structured_mean_field(cost, 1.0, blocks=_rows((3, 3)), random_state=5)
    b = structured_mean_field(cost, 1.0, blocks=_rows((3, 3)), random_state=5)
    np.testing.assert_array_equal(a.Q, b.Q)


# ---------------------------------------------------------------- validation


def test_non_convergence_warns():
    cost = _grid_cost(1, shape=(4, 4))
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        res = structured_mean_field(cost, 0.5, blocks=_rows((4, 4)), max_iter=1, tol=0.0)
    assert not res.converged and res.n_iter == 1


@pytest.mark.parametrize(
    ("blocks", "error", "match"),
    [
        ([[0, 1, 3, 4], [2, 5, 6, 7, 8]], ValueError, "cycle"),
        ([[0, 1, 2], [2, 3, 4, 5], [6, 7, 8]], ValueError, "disjoint"),
        ([[0, 1, 2], [3, 4, 5]], ValueError, "cover every site"),
        ([[0, 1, 2], [3, 4, 9], [6, 7, 8, 5]], ValueError, r"in \[0, 8\]"),
        ([], ValueError, "at least one block"),
        ([[0, 1, 2], [], list(range(3, 9))], ValueError, "non-empty"),
        ([[0.0, 1.0, 2.0], list(range(3, 9))], TypeError, "integer"),
        ("rows", TypeError, "sequence"),
    ],
)
def test_bad_blocks_are_refused_by_name(blocks, error, match):
    cost = _grid_cost(0)
    with pytest.raises(error, match=match) as info:
        structured_mean_field(cost, 1.0, blocks=blocks)
    assert "blocks" in str(info.value)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"temperature": 0.0}, "temperature"),
        ({"temperature": np.nan}, "temperature"),
        ({"max_iter": 0}, "max_iter"),
        ({"tol": -1.0}, "tol"),
        ({"init": np.ones((9, 2))}, "init"),
        ({"init": -np.ones((9, 3))}, "init"),
    ],
)
def test_bad_arguments_are_refused_by_name(kwargs, name):
    cost = _grid_cost(0)
    args = {"temperature": 1.0, "blocks": _rows((3, 3))} | kwargs
    T = args.pop("temperature")
    with pytest.raises((ValueError, TypeError), match=name):
        structured_mean_field(cost, T, **args)


def test_cost_must_be_pairwise():
    from statmechlearn.inference import KMeansCost

    with pytest.raises(TypeError, match="cost"):
        structured_mean_field(KMeansCost(np.eye(3), 2), 1.0, blocks=[[0, 1, 2]])
