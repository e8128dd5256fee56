import numpy as np
import pytest

from statmechlearn.models import LabeledMixture
from statmechlearn.theory.lvq_dynamics import generalization_error


def test_sample_moments_match_model():
    m = LabeledMixture(n_features=20, p_plus=0.3, lam=1.5, v_plus=0.5, v_minus=2.0)
    n = 40_000
    X, y = m.sample(n, random_state=1)
    frac = np.mean(y == 1)
    assert abs(frac - 0.3) < 5 * np.sqrt(0.3 * 0.7 / n)
    for label, center, var in ((1, m.centers[0], 0.5), (-1, m.centers[1], 2.0)):
        Xc = X[y == label]
        se = np.sqrt(var / len(Xc))
        assert np.all(np.abs(Xc.mean(0) - center) < 5 * se)
        # sample variance per component; SE of a variance is var*sqrt(2/n)
        assert np.all(np.abs(Xc.var(0) - var) < 5 * var * np.sqrt(2 / len(Xc)))


def test_batch_shape_and_reproducibility():
    m = LabeledMixture(n_features=5, p_plus=0.5, lam=1.0)
    X, y = m.sample(7, random_state=3, batch_shape=(4,))
    assert X.shape == (4, 7, 5) and y.shape == (4, 7)
    X2, _ = m.sample(7, random_state=3, batch_shape=(4,))
    np.testing.assert_array_equal(X, X2)


@pytest.mark.parametrize("n_samples, chunk_size", [(0, 4), (1, 4), (37, 4), (37, 37), (37, 100)])
def test_chunks_are_the_stream_of_one_sample(n_samples, chunk_size):
    m = LabeledMixture(n_features=6, p_plus=0.3, lam=1.5, v_plus=0.5, v_minus=2.0)
    X, y = m.sample(n_samples, random_state=11)
    chunks = list(m.sample_chunks(n_samples, random_state=11, chunk_size=chunk_size))
    assert all(len(c[0]) <= chunk_size for c in chunks)
    got_X = np.concatenate([c[0] for c in chunks]) if chunks else np.empty((0, 6))
    got_y = np.concatenate([c[1] for c in chunks]) if chunks else np.empty(0)
    np.testing.assert_array_equal(got_X, X)
    np.testing.assert_array_equal(got_y, y)


def test_prototypes_from_overlaps_realise_them_exactly():
    m = LabeledMixture(n_features=30, p_plus=0.5, lam=1.0)
    R = np.array([[0.4, -0.1], [0.2, 0.3]])
    Q = np.array([[0.5, 0.05], [0.05, 0.4]])
    W = m.prototypes_from_overlaps(R, Q, random_state=0)
    R_, Q_ = m.overlaps(W)
    np.testing.assert_allclose(R_, R, atol=1e-12)
    np.testing.assert_allclose(Q_, Q, atol=1e-12)
    with pytest.raises(ValueError, match="positive semi-definite"):
        m.prototypes_from_overlaps(R, np.diag([0.01, 0.01]))


def test_generalization_error_matches_monte_carlo_and_theory_formula():
    m = LabeledMixture(n_features=40, p_plus=0.7, lam=1.2, v_plus=0.8, v_minus=1.5)
    R = np.array([[0.9, -0.2], [-0.1, 0.6]])
    Q = np.array([[1.3, -0.1], [-0.1, 0.9]])
    W = m.prototypes_from_overlaps(R, Q, random_state=2)
    exact = m.generalization_error(W)
    # eq. (30) from overlaps alone must agree with the geometric computation
    assert generalization_error(R, Q, p_plus=0.7, lam=1.2, v_plus=0.8, v_minus=1.5) == (
        pytest.approx(exact, rel=1e-12)
    )
    n = 200_000
    X, y = m.sample(n, random_state=4)
    d = ((X[:, None, :] - W[None]) ** 2).sum(-1)
    pred = np.where(d[:, 0] < d[:, 1], 1, -1)
    empirical = np.mean(pred != y)
    assert abs(empirical - exact) < 5 * np.sqrt(exact * (1 - exact) / n)


def test_bad_parameters_are_named():
    with pytest.raises(ValueError, match=r"p_plus must be in \(0, 1\)"):
        LabeledMixture(n_features=3, p_plus=1.2, lam=1.0)
    with pytest.raises(ValueError, match=r"v_minus must be in \(0, inf\)"):
        LabeledMixture(n_features=3, p_plus=0.5, lam=1.0, v_minus=-1.0)
    with pytest.raises(ValueError, match=r"n_features must be an integer in \[2, inf\]"):
        LabeledMixture(n_features=1, p_plus=0.5, lam=1.0)
    with pytest.raises(ValueError, match="orthonormal"):
        LabeledMixture(n_features=3, p_plus=0.5, lam=1.0, basis=np.ones((2, 3)))
    m = LabeledMixture(n_features=3, p_plus=0.5, lam=1.0)
    with pytest.raises(ValueError, match=r"prototypes must have shape"):
        m.overlaps(np.zeros((2, 4)))
