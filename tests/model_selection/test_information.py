"""Information-theory utilities, typical sets and maximum-entropy inference (notes §2, §8.1)."""

import math

import numpy as np
import pytest

from statmechlearn._core.exceptions import ConvergenceError
from statmechlearn.model_selection import (
    conditional_entropy,
    cross_entropy,
    entropy,
    is_typical,
    kl_divergence,
    maximum_entropy,
    mutual_information,
    typical_set,
)


def test_identities_on_a_random_joint():
    rng = np.random.default_rng(0)
    J = rng.random((4, 3))
    J /= J.sum()
    px, py = J.sum(1), J.sum(0)
    H_xy = entropy(J)
    # chain rule and the three forms of the mutual information
    assert conditional_entropy(J) == pytest.approx(H_xy - entropy(py), abs=1e-12)
    mi = mutual_information(J)
    assert mi == pytest.approx(entropy(px) + entropy(py) - H_xy, abs=1e-12)
    assert mi == pytest.approx(kl_divergence(J, np.outer(px, py)), abs=1e-12)
    assert mi == pytest.approx(entropy(px) - conditional_entropy(J), abs=1e-12)
    q = rng.dirichlet(np.ones(3))
    assert cross_entropy(py, q) == pytest.approx(entropy(py) + kl_divergence(py, q), abs=1e-12)
    assert entropy(px, base="nats") == pytest.approx(entropy(px) * math.log(2))
    assert cross_entropy([0.5, 0.5], [1.0, 0.0]) == math.inf


def test_information_bad_input():
    with pytest.raises(ValueError, match="p"):
        entropy([0.5, 0.6])
    with pytest.raises(ValueError, match="p"):
        entropy([1.5, -0.5])
    with pytest.raises(ValueError, match="base"):
        entropy([0.5, 0.5], base="dits")
    with pytest.raises(ValueError, match="same shape"):
        kl_divergence([0.5, 0.5], [1.0])


def test_coin_example_of_the_notes():
    p = [0.1, 0.9]  # symbol 1 with probability 0.9
    assert entropy(p) == pytest.approx(0.469, abs=5e-4)
    n = 100
    # the most probable sequence is not typical: its surprise is -log2 0.9 = 0.152 bits
    assert not is_typical(np.ones(n, dtype=int), p, 0.1)
    assert is_typical(np.r_[np.ones(90, dtype=int), np.zeros(10, dtype=int)], p, 0.01)


@pytest.mark.parametrize("n", [25, 100, 400])
def test_typical_set_against_brute_force_and_aep_bounds(n):
    p = [0.1, 0.9]
    eps = 0.1
    t = typical_set(p, n, eps)
    # brute force over the number of zeros (the type)
    H = entropy(p)
    size = prob = 0
    for m in range(n + 1):
        s = -(m * math.log2(0.1) + (n - m) * math.log2(0.9)) / n
        if abs(s - H) <= eps:
            size += math.comb(n, m)
            prob += math.comb(n, m) * 0.1**m * 0.9 ** (n - m)
    assert t.size == size
    assert t.probability == pytest.approx(prob, rel=1e-9)
    assert t.log2_size <= t.upper_bound_log2
    if t.probability > 1 - eps:
        assert t.log2_size >= t.lower_bound_log2
    assert t.entropy == pytest.approx(H)


def test_typical_set_probability_tends_to_one():
    probs = [typical_set([0.2, 0.3, 0.5], n, 0.1).probability for n in (20, 80, 200)]
    assert probs[0] < probs[1] < probs[2] and probs[2] > 0.9
    with pytest.raises(ValueError, match="types"):
        typical_set(np.full(20, 0.05), 100, 0.1)


def test_typical_set_of_long_sequences_is_exact_or_refused():
    # n = 3e4 used to run for minutes (a 1e5-digit n! divided once per type)
    n = 30_000
    t = typical_set([0.3, 0.7], n, 0.05)
    H = entropy([0.3, 0.7])
    m = np.arange(n + 1)
    s = -(m * math.log2(0.3) + (n - m) * math.log2(0.7)) / n
    typical = m[np.abs(s - H) <= 0.05]
    # exact, by the recurrence C(n, c + 1) = C(n, c) (n - c) / (c + 1) over the contiguous
    # typical counts (a math.comb per count took 18 s)
    assert np.array_equal(typical, np.arange(typical[0], typical[-1] + 1))
    term = total = math.comb(n, int(typical[0]))
    for c in range(int(typical[0]), int(typical[-1])):
        term = term * (n - c) // (c + 1)
        total += term
    assert t.size == total
    assert t.lower_bound_log2 <= t.log2_size <= t.upper_bound_log2
    with pytest.raises(ValueError, match=r"n=1000000.*AEP bounds"):
        typical_set([0.3, 0.7], 10**6, 0.05)


def test_maxent_without_constraints_is_uniform():
    res = maximum_entropy(np.zeros((7, 0)), [])
    np.testing.assert_allclose(res.probabilities, 1 / 7)
    assert res.entropy == pytest.approx(math.log(7))


def test_maxent_mean_on_a_grid_of_half_line_is_exponential():
    mu, dx = 2.0, 0.01
    x = np.arange(0, 80, dx)
    res = maximum_entropy(x[:, None], [mu], base_measure=np.full(x.size, dx))
    # on the grid: geometric with lambda = log(1 + dx/mu) / dx exactly, -> 1/mu as dx -> 0
    assert res.multipliers[0] == pytest.approx(math.log1p(dx / mu) / dx, rel=1e-8)
    assert res.multipliers[0] == pytest.approx(1 / mu, rel=dx)
    assert res.entropy == pytest.approx(1 + math.log(mu), rel=1e-2)  # differential entropy
    assert res.max_violation < 1e-8


def test_maxent_mean_and_variance_is_gaussian():
    # the notes print exp(-x^2 / sigma^2); the Gibbs form with E[x^2] = sigma^2 gives
    # lambda_2 = 1 / (2 sigma^2), i.e. exp(-x^2 / (2 sigma^2)) (docs/derivations/model_selection.md)
    sigma = 1.5
    x = np.linspace(-15, 15, 3001)
    dx = x[1] - x[0]
    res = maximum_entropy(np.c_[x, x**2], [0.0, sigma**2], base_measure=np.full(x.size, dx))
    assert res.multipliers[0] == pytest.approx(0.0, abs=1e-9)
    assert res.multipliers[1] == pytest.approx(1 / (2 * sigma**2), rel=1e-6)
    assert res.entropy == pytest.approx(0.5 * math.log(2 * math.pi * math.e * sigma**2), rel=1e-6)
    gauss = np.exp(-(x**2) / (2 * sigma**2))
    np.testing.assert_allclose(res.probabilities, gauss / gauss.sum(), atol=1e-10)


def test_maxent_matches_the_dual_gradient_and_beats_other_distributions():
    rng = np.random.default_rng(1)
    R = rng.normal(size=(30, 3))
    mu = R.T @ rng.dirichlet(np.ones(30))
    res = maximum_entropy(R, mu)
    np.testing.assert_allclose(res.expectations, mu, atol=1e-9)
    # any other feasible distribution (mix in a null-space direction) has lower entropy
    for _ in range(5):
        q = rng.dirichlet(np.ones(30))
        A = np.vstack([R.T, np.ones(30)])
        d = q - res.probabilities
        d -= np.linalg.pinv(A) @ (A @ d)
        other = res.probabilities + 0.5 * d / max(1.0, np.max(-d / res.probabilities))
        assert -np.sum(other * np.log(other)) < res.entropy


def test_maxent_infeasible_and_degenerate_targets():
    x = np.arange(5.0)[:, None]
    with pytest.raises(ValueError, match="infeasible"):
        maximum_entropy(x, [7.0])
    with pytest.raises(ValueError, match="boundary"):
        maximum_entropy(x, [0.0])
    with pytest.raises(ValueError, match="targets"):
        maximum_entropy(x, [1.0, 2.0])
    with pytest.raises(ValueError, match="base_measure"):
        maximum_entropy(x, [1.0], base_measure=-np.ones(5))
    with pytest.raises(ConvergenceError, match="max_iter"):
        maximum_entropy(np.arange(200.0)[:, None], [2.0], max_iter=1)
