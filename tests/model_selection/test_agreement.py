"""Approximation set coding (§8): weights, exact and saddle-point weight sums, the protocol."""

import itertools
import math

import numpy as np
import pytest
from scipy.special import logsumexp

from statmechlearn.model_selection import (
    agreement_capacity,
    posterior_agreement,
    simulate_protocol,
)
from statmechlearn.model_selection._agreement import capacity_from_costs
from statmechlearn.model_selection._asc import (
    excess_costs,
    log_weight,
    log_weight_sums,
    weight_sums_exact,
)


def _brute(a, b, weights, beta, gamma, *, annealed=False):
    """Every one of the k^n labelings (and, annealed, every map of partners) enumerated."""
    n, k = a.shape
    labelings = np.array(list(itertools.product(range(k), repeat=n)))
    rows = np.arange(n)
    ea, eb = a[rows, labelings].sum(1), b[rows, labelings].sum(1)

    def lw(e):
        return log_weight(e, weights, beta, n * gamma)

    agree = logsumexp(lw(ea) + lw(eb))
    if annealed:
        sums = [
            logsumexp(lw(ea) + lw(b[np.array(tau)[None, :], labelings].sum(1)))
            for tau in itertools.product(range(n), repeat=n)
        ]
        return logsumexp(sums) - n * math.log(n), 0.0, agree
    return logsumexp(lw(ea)), logsumexp(lw(eb)), agree


def _integer_costs(n, k, seed):
    rng = np.random.default_rng(seed)
    return (
        excess_costs(rng.integers(0, 5, (n, k)).astype(float)),
        excess_costs(rng.integers(0, 5, (n, k)).astype(float)),
    )


@pytest.mark.parametrize(
    ("weights", "beta", "gamma", "n", "k"),
    [("fermi", 1.3, 0.7, 6, 3), ("fermi", 0.2, 0.1, 8, 2), ("binary", np.inf, 0.8, 7, 3)],
)
def test_exact_weight_sums_equal_enumeration_of_all_labelings(weights, beta, gamma, n, k):
    a, b = _integer_costs(n, k, n)
    exact = weight_sums_exact(a, b, weights, np.array([beta]), np.array([gamma]), bin_width=1.0)
    ref = _brute(a, b, weights, beta, gamma)
    np.testing.assert_allclose([e[0] for e in exact], ref, rtol=1e-12)
    # the saddle point is a Chernoff bound: never below the exact log sums
    saddle = log_weight_sums(a, b, weights, np.array([beta]), np.array([gamma]))
    assert all(s[0] >= r - 1e-9 for s, r in zip(saddle, ref, strict=True))


@pytest.mark.parametrize("weights", ["fermi", "binary"])
def test_exact_annealed_kernel_equals_enumeration_of_partner_maps(weights):
    a, b = _integer_costs(4, 2, 3)
    beta = 1.3 if weights == "fermi" else np.inf
    exact = weight_sums_exact(
        a, b, weights, np.array([beta]), np.array([0.7]), codebook="permutations", bin_width=1.0
    )
    ref = _brute(a, b, weights, beta, 0.7, annealed=True)
    np.testing.assert_allclose([e[0] for e in exact], ref, rtol=1e-12, atol=1e-12)


def test_saddle_error_per_object_shrinks_with_n():
    rng = np.random.default_rng(2)
    errors = []
    for n in (10, 40, 80):
        base = rng.integers(0, 4, (n, 3)).astype(float)
        a, b = excess_costs(base), excess_costs(base + rng.integers(0, 2, (n, 3)))
        args = (a, b, "fermi", np.array([2.0]), np.array([0.3]))
        ex = np.array(weight_sums_exact(*args, bin_width=1.0))[:, 0]
        sd = np.array(log_weight_sums(*args))[:, 0]
        assert np.all(sd >= ex - 1e-9)
        errors.append(np.max(sd - ex) / n)
    # O(log n / n): measured 0.08, 0.04, 0.02
    assert errors[2] < errors[1] < errors[0] < 0.1


def test_weights_obey_the_order_constraint():
    # R(c) <= R(c~)  <=>  w(c) >= w(c~) (§8.2): every family decreases in the excess cost
    e = np.linspace(0.0, 10.0, 201)
    for weights, beta in (("boltzmann", 0.7), ("fermi", 0.7), ("fermi", 50.0), ("binary", 1.0)):
        w = np.exp(log_weight(e, weights, beta, 4.0))
        assert np.all(np.diff(w) <= 0.0)
        assert w[0] == pytest.approx(1.0, abs=0.06)
    # the notes' printed Fermi weight (1 + exp(-beta (R - gamma)))^-1 increases with R
    printed = 1.0 / (1.0 + np.exp(-0.7 * (e - 4.0)))
    assert np.all(np.diff(printed) > 0.0)


def test_capacity_vanishes_at_zero_resolution_and_binary_is_the_fermi_limit():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    Y = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0]])
    Z = Y + 0.2
    for weights in ("boltzmann", "fermi"):
        cap = agreement_capacity(X, Y, Z, [0.0, 1e-9], weights=weights, gammas=[0.5])
        np.testing.assert_allclose(cap, 0.0, atol=1e-7)
    a, b = _integer_costs(6, 3, 1)
    fermi = weight_sums_exact(a, b, "fermi", np.array([400.0]), np.array([0.75]), bin_width=1)
    binary = weight_sums_exact(a, b, "binary", np.array([np.inf]), np.array([0.75]), bin_width=1)
    # thresholds off the integer grid: the Fermi weight tends to the indicator
    np.testing.assert_allclose(np.ravel(fermi), np.ravel(binary), atol=1e-12)


def test_posterior_agreement_families_agree_on_sharp_clusters():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.3, (40, 2)) for c in [(0, 0), (4, 0), (0, 4)]])
    for weights in ("fermi", "binary"):
        res = posterior_agreement(
            X, k_range=range(1, 5), n_splits=2, weights=weights, random_state=0
        )
        assert res.n_clusters == 3
        assert res.max_capacity[2] == pytest.approx(math.log(3), abs=0.03)
        assert res.best_gamma.shape == (4,)
    perm = posterior_agreement(
        X, k_range=range(1, 5), n_splits=3, codebook="permutations", random_state=0
    )
    # balanced hard clusters: the permutation codebook's capacity is the entropy of the sizes
    assert perm.n_clusters == 3
    assert perm.max_capacity[2] == pytest.approx(math.log(3), abs=0.02)


def test_protocol_decodes_below_capacity_and_fails_above():
    from sklearn.cluster import KMeans

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 1.0, (40, 2)) for c in [(0, 0), (3, 0)]])
    res = simulate_protocol(
        X,
        2,
        [0.1, 0.9],
        clusterer=KMeans(n_init=1),
        n_objects=10,
        beta=0.5,
        n_trials=40,
        random_state=0,
    )
    assert 0.3 < res.capacity < 0.7
    assert res.rates[0] < res.capacity < res.rates[1]
    # union bound holds below capacity; above it decoding fails in a good fraction of trials
    assert res.error_rate[0] <= res.union_bound[0] + 3 * res.error_se[0]
    assert res.error_rate[0] == 0.0 and res.error_rate[1] >= 0.1
    with pytest.raises(ValueError, match="max_codewords"):
        simulate_protocol(X, 2, [5.0], n_objects=10)


def test_exact_method_refuses_a_grid_it_cannot_hold():
    X = np.random.default_rng(0).normal(size=(40, 2))
    with pytest.raises(ValueError, match="method='saddle'"):
        posterior_agreement(
            X,
            k_range=[2],
            n_splits=2,
            weights="fermi",
            gammas=[0.5],
            method="exact",
            random_state=0,
        )


def test_exact_method_with_the_default_grid_matches_the_saddle_point_roughly():
    # six objects: the default grid (1/256 of the largest excess cost) fits
    rng = np.random.default_rng(1)
    a, b = rng.uniform(0, 2, size=(6, 2)), rng.uniform(0, 2, size=(6, 2))
    exact = capacity_from_costs(a, b, [1.0], weights="fermi", gammas=[0.3], method="exact")
    saddle = capacity_from_costs(a, b, [1.0], weights="fermi", gammas=[0.3])
    assert np.all(np.isfinite(exact)) and abs(exact - saddle).max() < 0.2
