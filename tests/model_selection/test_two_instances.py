"""Posterior agreement on two measurements of the same objects (the published protocol)."""

import math

import numpy as np
import pytest

from statmechlearn.model_selection import (
    posterior_agreement,
    posterior_agreement_path,
    select_n_clusters,
    simulate_protocol,
)
from statmechlearn.model_selection._agreement import (
    _two_instance_capacity,
    capacity_from_costs,
)


def _split_costs(n_per, rng, k_split):
    """Hard costs of ``n_per`` objects in each of three clusters; with ``k_split`` the third
    cluster is cut in two, each of its objects a hair closer to a random side."""
    n = 3 * n_per
    k = 4 if k_split else 3
    H = np.ones((n, k))
    for c in range(3):
        H[c * n_per : (c + 1) * n_per, c] = 0.0
    if k_split:
        rows = np.arange(2 * n_per, n)
        side = 2 + rng.integers(0, 2, rows.size)
        H[rows, 2] = H[rows, 3] = 1e-12
        H[rows, side] = 0.0
    return H


def test_entropy_codebook_makes_a_split_cluster_neutral_and_labelings_reward_it():
    # three equal clusters found hard by both instances; at k = 4 the third is cut in two and
    # each object's two measurements fall on either side at random (posterior 1/2, 1/2)
    rng = np.random.default_rng()
    betas = np.array([1e3])
    h3a, h3b = _split_costs(20, rng, False), _split_costs(20, rng, False)
    h4a, h4b = _split_costs(20, rng, True), _split_costs(20, rng, True)
    for codebook in ("entropy", "labelings"):
        cap3 = capacity_from_costs(h3a, h3b, betas, codebook=codebook)[0]
        assert cap3 == pytest.approx(math.log(3), abs=1e-9)
    # closed forms: sum_nu p'p'' = 1/2 on a third of the objects
    labelings = capacity_from_costs(h4a, h4b, betas, codebook="labelings")[0]
    assert labelings == pytest.approx(math.log(4) - math.log(2) / 3, abs=1e-6)
    entropy = capacity_from_costs(h4a, h4b, betas, codebook="entropy")[0]
    sizes = np.bincount(h4a.argmin(axis=1), minlength=4) / h4a.shape[0]
    h = -float(np.sum(sizes * np.log(sizes)))
    assert entropy == pytest.approx(h - math.log(2) / 3, abs=1e-6)
    # the cut halves of 20 objects: H = log 3 + (1/3) log 2 exactly for a 10/10 cut, so the
    # split is neutral up to the cut's imbalance, never a gain beyond it
    assert entropy <= math.log(3) + 1e-9
    assert labelings > math.log(3) + 0.05


def _instances(rng, sigma, n_per=40):
    centres = np.repeat([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0], [6.0, 6.0]], n_per, axis=0)
    return (
        centres + rng.normal(0.0, sigma, centres.shape),
        centres + rng.normal(0.0, sigma, centres.shape),
    )


def test_two_instances_find_four_blobs_with_the_published_defaults():
    rng = np.random.default_rng()
    # 100 objects a blob: a k-means cut of a blob ties k = 4 up to its imbalance, whose gain
    # (the entropy less the order-2 Renyi entropy of the cut) falls like 1/n, faster than the
    # SE; with 40 a blob k = 5 came within one SE of k = 4 in 1 of 12 seeds, with 100 the
    # largest capacity was k = 4's in 8 of 8
    X1, X2 = _instances(rng, 0.5, n_per=100)
    res = posterior_agreement(X1, k_range=range(1, 7), X_second=X2, random_state=rng)
    assert (res.protocol, res.codebook, res.rule) == ("two-instance", "entropy", "global-se-max")
    assert res.n_clusters == 4
    # k = 4 is found hard by both instances: I = H(sizes) = log 4
    assert res.max_capacity[res.k_values == 4][0] == pytest.approx(math.log(4), abs=0.02)
    assert res.max_capacity_se.shape == res.k_values.shape and np.all(res.max_capacity_se >= 0)
    one = posterior_agreement(X1, k_range=range(1, 5), n_splits=3, random_state=0)
    assert (one.protocol, one.codebook, one.rule) == (
        "split-sample",
        "labelings",
        "first-se-max",
    )
    sel = select_n_clusters(
        X1, k_range=range(1, 7), method="posterior_agreement", X_second=X2, random_state=0
    )
    assert sel.n_clusters == 4 and sel.details.protocol == "two-instance"


def test_two_instance_standard_error_is_that_of_a_mean_over_objects():
    # matched costs of two instances: I(beta) = log k + mean_i log sum_nu p'_i p''_i, and its
    # SE the objects' spread over sqrt(n), both written out object by object here
    rng = np.random.default_rng()
    n, k = 40, 3
    Ha, Hb = rng.random((n, k)) * 4, rng.random((n, k)) * 4
    betas = np.array([0.3, 1.0, 3.0])
    groups = rng.permutation(np.arange(n) % 5)
    cap, se = _two_instance_capacity(Ha, Hb, k, groups, betas, None, "boltzmann", "labelings", "")
    for j, beta in enumerate(betas):
        terms = []
        for i in range(n):
            pa = np.exp(-beta * Ha[i]) / np.exp(-beta * Ha[i]).sum()
            pb = np.exp(-beta * Hb[i]) / np.exp(-beta * Hb[i]).sum()
            terms.append(math.log(k * float(pa @ pb)))
        assert cap[j] == pytest.approx(np.mean(terms), abs=1e-12)
        assert se[j] == pytest.approx(np.std(terms, ddof=1) / math.sqrt(n), abs=1e-12)
    # Fermi weights are not a mean over objects: a delete-one-group jackknife, which for the
    # Boltzmann mean would give the same order of spread
    gammas = np.array([0.5])
    capf, sef = _two_instance_capacity(
        Ha, Hb, k, groups, betas, gammas, "fermi", "labelings", "saddle"
    )
    assert capf.shape == sef.shape == (3, 1) and np.all(np.isfinite(sef)) and np.all(sef > 0)
    assert np.all(sef < 10 * se.max())


def test_second_instance_is_validated():
    X = np.random.default_rng(0).normal(size=(30, 2))
    with pytest.raises(ValueError, match="X_second must be row-aligned with X"):
        posterior_agreement(X, k_range=[2], X_second=X[:20])
    with pytest.raises(ValueError, match="X_second"):
        posterior_agreement(X, k_range=[2], X_second=np.full_like(X, np.nan))
    with pytest.raises(TypeError, match="X_second"):
        posterior_agreement(X, k_range=[2], X_second=X + 1j)
    with pytest.raises(ValueError, match="X_second must be row-aligned"):
        simulate_protocol(X, 2, [0.1], X_second=X[:, :1], n_trials=2)
    with pytest.raises(ValueError, match="X_second must be row-aligned"):
        posterior_agreement_path(X, 2, X_second=X.T, n_splits=2)
    with pytest.raises(ValueError, match="codebook"):
        posterior_agreement(X, k_range=[2], X_second=X, codebook="bits")
    with pytest.raises(ValueError, match="rule"):
        posterior_agreement(X, k_range=[2], X_second=X, rule="largest")


def test_protocol_and_path_run_on_two_instances():
    rng = np.random.default_rng()
    X1, X2 = _instances(rng, 0.3, n_per=20)
    res = simulate_protocol(
        X1, 4, [0.1], X_second=X2, n_objects=8, beta=2.0, n_trials=4, random_state=rng
    )
    # four blobs found hard by both instances: every object agrees, the permutation
    # codebook's capacity is the entropy of the labels of 8 random objects, at most log 4
    assert 0.0 < res.capacity <= math.log(4) + 1e-9
    path = posterior_agreement_path(X1, 6, X_second=X2, n_splits=2, random_state=rng)
    assert path.n_clusters == 4
