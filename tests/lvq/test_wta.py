import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from statmechlearn.lvq import wta_online_updates, wta_online_updates_numpy, wta_rule


@settings(max_examples=30, deadline=None)
@given(
    n_runs=st.integers(1, 3),
    n_protos=st.integers(1, 4),
    n_steps=st.integers(0, 30),
    n_features=st.integers(1, 6),
    rule=st.sampled_from(["lvq1", "lvq+", "vq"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_numba_kernel_matches_numpy_twin(n_runs, n_protos, n_steps, n_features, rule, seed):
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((n_runs, n_protos, n_features))
    X = rng.standard_normal((n_runs, n_steps, n_features))
    y = rng.choice([1, -1], size=(n_runs, n_steps))
    labels = rng.choice([1, -1], size=n_protos)
    a, b = wta_rule(rule)
    W1, W2 = W.copy(), W.copy()
    wta_online_updates(W1, X, y, labels, learning_rate=0.1, a=a, b=b)
    wta_online_updates_numpy(W2, X, y, labels, learning_rate=0.1, a=a, b=b)
    np.testing.assert_allclose(W1, W2, rtol=1e-12, atol=1e-12)


def test_single_step_follows_eq_1():
    W = np.array([[[0.0, 0.0], [2.0, 0.0]]])
    x = np.array([[[0.5, 1.0]]])  # closest to prototype 0 (label +1)
    # LVQ1, wrong class: winner pushed away
    out = wta_online_updates(W.copy(), x, [[-1]], [1, -1], learning_rate=0.5, a=0, b=1)
    np.testing.assert_allclose(out[0, 0], -0.5 * (x[0, 0] - W[0, 0]))
    np.testing.assert_allclose(out[0, 1], W[0, 1])
    # LVQ+, wrong class: no update at all
    out = wta_online_updates(W.copy(), x, [[-1]], [1, -1], learning_rate=0.5, a=0.5, b=0.5)
    np.testing.assert_array_equal(out, W)
    # VQ ignores labels: winner moves towards x
    out = wta_online_updates(W.copy(), x, [[-1]], [1, -1], learning_rate=0.5, a=1, b=0)
    np.testing.assert_allclose(out[0, 0], 0.5 * x[0, 0])


def test_input_errors():
    W = np.zeros((1, 2, 3))
    with pytest.raises(ValueError, match=r"X must have shape \(1, n_steps, 3\)"):
        wta_online_updates(
            W, np.zeros((1, 4, 2)), np.ones((1, 4)), [1, -1], learning_rate=0.1, a=0, b=1
        )
    with pytest.raises(ValueError, match="prototype_labels must have shape"):
        wta_online_updates(
            W, np.zeros((1, 4, 3)), np.ones((1, 4)), [1], learning_rate=0.1, a=0, b=1
        )
    with pytest.raises(ValueError, match=r"learning_rate must be in \[0, inf\)"):
        wta_online_updates(
            W, np.zeros((1, 4, 3)), np.ones((1, 4)), [1, -1], learning_rate=-1.0, a=0, b=1
        )
    with pytest.raises(TypeError, match="float64"):
        wta_online_updates(
            W.astype(np.float32),
            np.zeros((1, 4, 3)),
            np.ones((1, 4)),
            [1, -1],
            learning_rate=0.1,
            a=0,
            b=1,
        )
    with pytest.raises(ValueError, match="name must be one of"):
        wta_rule("lvq3")
