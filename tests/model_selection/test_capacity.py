"""Channel capacity by Blahut–Arimoto against closed forms, and its bracket."""

import dataclasses
import math
import warnings

import numpy as np
import pytest

from statmechlearn.exceptions import ConvergenceWarning
from statmechlearn.model_selection import ChannelCapacity, channel_capacity, mutual_information


def binary_entropy(p):
    return 0.0 if p in (0.0, 1.0) else -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


def bsc(eps):
    return np.array([[1 - eps, eps], [eps, 1 - eps]])


def bec(eps):
    return np.array([[1 - eps, eps, 0.0], [0.0, eps, 1 - eps]])


def z_channel(p):
    # input 0 always arrives; input 1 flips to 0 with probability p
    return np.array([[1.0, 0.0], [p, 1 - p]])


def z_capacity(p):
    return math.log2(1 + (1 - p) * p ** (p / (1 - p)))


def _brackets(result, exact, tol=1e-12):
    # C lies in [capacity, capacity + gap]; a few ulps of rounding aside
    assert result.converged
    assert result.gap <= tol
    assert result.capacity <= exact + 1e-14
    assert exact <= result.capacity + result.gap + 1e-14


@pytest.mark.parametrize("eps", [0.0, 0.01, 0.1, 0.25, 0.5, 0.9])
def test_binary_symmetric_channel(eps):
    result = channel_capacity(bsc(eps))
    _brackets(result, 1.0 - binary_entropy(eps))
    np.testing.assert_allclose(result.input_distribution, [0.5, 0.5], atol=1e-12)


@pytest.mark.parametrize("eps", [0.0, 0.2, 0.5, 0.99])
def test_binary_erasure_channel(eps):
    _brackets(channel_capacity(bec(eps)), 1.0 - eps)


@pytest.mark.parametrize("p", [0.05, 0.3, 0.5, 0.8, 0.95])
def test_z_channel_closed_form_and_its_input(p):
    result = channel_capacity(z_channel(p))
    _brackets(result, z_capacity(p))
    # the optimal P(x = 1) = 1 / ((1 - p)(1 + 2^{H(p)/(1-p)}))
    p1 = 1.0 / ((1 - p) * (1 + 2 ** (binary_entropy(p) / (1 - p))))
    assert result.input_distribution[1] == pytest.approx(p1, abs=1e-5)


@pytest.mark.parametrize("k", [2, 3, 5, 8])
def test_noiseless_channel_carries_log_k(k):
    result = channel_capacity(np.eye(k))
    _brackets(result, math.log2(k))
    result_nats = channel_capacity(np.eye(k)[::-1], base="nats")
    _brackets(result_nats, math.log(k))


def test_symmetric_channel_is_log_outputs_minus_row_entropy():
    # every row a permutation of the same row, every column sums to the same: uniform is optimal
    row = np.array([0.5, 0.3, 0.2])
    W = np.array([np.roll(row, s) for s in range(3)])
    h_row = -float(np.sum(row * np.log2(row)))
    result = channel_capacity(W)
    _brackets(result, math.log2(3) - h_row)
    np.testing.assert_allclose(result.input_distribution, np.full(3, 1 / 3), atol=1e-12)


def test_useless_channel_has_zero_capacity():
    result = channel_capacity(np.full((4, 3), 1 / 3))
    assert result.capacity == pytest.approx(0.0, abs=1e-15) and result.gap <= 1e-12


@pytest.mark.parametrize("seed", range(20))
def test_bounds_bracket_the_capacity_of_random_channels(seed):
    rng = np.random.default_rng(seed)
    W = rng.dirichlet(np.full(4, 0.7), size=int(rng.integers(2, 6)))
    result = channel_capacity(W, tol=1e-9)
    # the reported rate is the mutual information of the reported input, exactly
    joint = result.input_distribution[:, None] * W
    assert result.capacity == pytest.approx(mutual_information(joint), abs=1e-12)
    np.testing.assert_allclose(result.output_distribution, joint.sum(axis=0), atol=1e-14)
    # and no input distribution does better than the upper bound (random search)
    for _ in range(200):
        p = rng.dirichlet(np.ones(W.shape[0]))
        assert mutual_information(p[:, None] * W) <= result.upper_bound + 1e-12
    assert 0.0 <= result.gap <= 1e-9


def test_stopping_early_warns_and_still_brackets():
    W = z_channel(0.9)
    exact = z_capacity(0.9)
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        result = channel_capacity(W, max_iter=3)
    assert not result.converged and result.n_iter == 3
    assert result.capacity <= exact <= result.upper_bound
    assert result.gap > 1e-3


def test_result_is_a_frozen_dataclass():
    result = channel_capacity(bsc(0.1))
    assert isinstance(result, ChannelCapacity) and result.base == "bits"
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.capacity = 1.0


@pytest.mark.parametrize(
    ("channel", "match"),
    [
        ([[0.5, 0.5]], None),
        ([0.5, 0.5], "2-dimensional"),
        ([[0.5, 0.6], [0.5, 0.5]], "sum to 1"),
        ([[1.5, -0.5], [0.5, 0.5]], "non-negative"),
        ([[np.nan, 1.0], [0.5, 0.5]], "finite"),
        (np.empty((0, 2)), "empty"),
    ],
)
def test_bad_channels_are_refused_by_name(channel, match):
    if match is None:  # one input: capacity 0, fine
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert channel_capacity(channel).capacity == 0.0
        return
    with pytest.raises(ValueError, match=match) as info:
        channel_capacity(channel)
    assert "channel" in str(info.value)


def test_bad_options_are_refused_by_name():
    with pytest.raises(ValueError, match="base"):
        channel_capacity(bsc(0.1), base="dits")
    with pytest.raises(ValueError, match="max_iter"):
        channel_capacity(bsc(0.1), max_iter=0)
    with pytest.raises(ValueError, match="tol"):
        channel_capacity(bsc(0.1), tol=-1.0)
    with pytest.raises(TypeError, match="channel"):
        channel_capacity(bsc(0.1) + 0j)
