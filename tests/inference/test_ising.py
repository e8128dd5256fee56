"""Ising de-noising (§9.1): the energy, the three estimators, bad images."""

import numpy as np
import pytest

from statmechlearn.inference import (
    IsingDenoiser,
    exact_gibbs,
    field_from_flip_probability,
    grid_graph,
    ising_cost,
    mean_field,
    sample_assignments,
    sweep,
)


def _square(seed, p, size=48):
    rng = np.random.default_rng(seed)
    clean = np.zeros((size, size), dtype=bool)
    clean[size // 4 : 3 * size // 4, size // 5 : 4 * size // 5] = True
    return clean, clean ^ (rng.random(clean.shape) < p)


_STEPS = {
    4: ((0, 1), (1, 0), (0, -1), (-1, 0)),
    8: ((0, 1), (1, 0), (0, -1), (-1, 0), (1, 1), (1, -1), (-1, 1), (-1, -1)),
}


@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("shape", [(5, 6), (1, 7), (6, 1), (1, 1), (2, 3)])
def test_energy_is_the_lecture_notes_formula(shape, connectivity):
    rng = np.random.default_rng(0)
    y = np.where(rng.random(shape) < 0.5, -1, 1)
    x = np.where(rng.random(shape) < 0.5, -1, 1)
    beta, mu = 1.7, 0.6
    cost = ising_cost(y, beta, mu, connectivity=connectivity)
    # E = -(beta/2) sum_i x_i / |N_i| sum_{j in N_i} x_j - mu sum_i x_i y_i, by loops
    h, w = y.shape
    E = 0.0
    for r in range(h):
        for c in range(w):
            nb = [(r + dr, c + dc) for dr, dc in _STEPS[connectivity]]
            nb = [(a, b) for a, b in nb if 0 <= a < h and 0 <= b < w]
            if nb:
                E -= beta / 2 * x[r, c] / len(nb) * sum(x[a, b] for a, b in nb)
            E -= mu * x[r, c] * y[r, c]
    assert cost.energy((x.ravel() > 0).astype(int))[0] == pytest.approx(E, rel=1e-12)


@pytest.mark.parametrize("connectivity", [4, 8])
def test_couplings_are_the_weighted_grid_graph(connectivity):
    y = np.random.default_rng(1).random((9, 13)) < 0.5
    A = grid_graph(y.shape, connectivity)
    inv = 1.0 / np.asarray(A.sum(axis=1)).ravel()
    coo = A.tocoo()
    W = ising_cost(y, 1.3, 1.0, connectivity=connectivity).W
    expected = A.copy()
    expected.data = 0.65 * (inv[coo.row] + inv[coo.col])
    expected.sort_indices()
    np.testing.assert_array_equal(W.indptr, expected.indptr)
    np.testing.assert_array_equal(W.indices, expected.indices)
    np.testing.assert_array_equal(W.data, expected.data)


def test_mean_field_is_tanh_of_local_field():
    _, noisy = _square(1, 0.15, size=20)
    cost = ising_cost(noisy, 2.0, 0.8)
    res = mean_field(cost, 1.3, tol=1e-13, max_iter=10_000)
    m = res.Q[:, 1] - res.Q[:, 0]
    W = cost.W
    y = np.where(noisy.ravel(), 1.0, -1.0)
    np.testing.assert_allclose(m, np.tanh((W @ m + 0.8 * y) / 1.3), atol=1e-10)


def test_gibbs_marginals_on_a_tiny_image_match_enumeration():
    rng = np.random.default_rng(3)
    noisy = rng.random((3, 3)) < 0.5
    cost = ising_cost(noisy, 1.5, 0.5, connectivity=8)
    exact = exact_gibbs(cost, 1.0)
    res = sample_assignments(cost, 1.0, n_chains=24, n_sweeps=1500, random_state=4)
    se = res.chain_marginals[:, :, 1].std(0, ddof=1) / np.sqrt(24)
    z = np.abs(res.marginals[:, 1] - exact.marginals[:, 1]) / se
    from scipy import stats

    assert z.max() < stats.t.isf(1e-4 / 18, 23)


@pytest.mark.parametrize("method", ["gibbs", "metropolis"])
def test_ising_kernel_matches_numpy_twin(method):
    _, noisy = _square(2, 0.2, size=16)
    cost = ising_cost(noisy, 2.0, 1.0, connectivity=8)
    rng = np.random.default_rng(0)
    L = rng.integers(2, size=(3, cost.n_sites))
    a, b = cost.init_state(L), cost.init_state(L)
    for _ in range(10):
        u = rng.random((3, cost.n_sites, 2))
        sweep(cost, a, 0.9, u, method=method)
        sweep(cost, b, 0.9, u, method=method, compiled=False)
    np.testing.assert_array_equal(a["labels"], b["labels"])


@pytest.mark.parametrize("method", ["mean_field", "gibbs", "icm"])
@pytest.mark.parametrize("seed", [0, 1])
def test_denoising_removes_most_flips(method, seed):
    p = 0.1
    clean, noisy = _square(seed, p)
    den = IsingDenoiser(
        field=field_from_flip_probability(p), method=method, n_sweeps=60, random_state=seed
    ).fit(noisy)
    err = np.mean(den.denoised_ != clean)
    # ~230 flipped pixels: mean field and Gibbs remove most; ICM stops in the first local
    # minimum (flipped pairs and corners survive) and removes about two thirds
    assert err < (0.5 if method == "icm" else 0.3) * np.mean(noisy != clean)
    assert den.denoised_.dtype == bool and den.marginals_.shape == clean.shape
    cost = ising_cost(noisy, den.coupling, den.field)
    assert den.energy_ < cost.energy(noisy.ravel().astype(int))[0]


def test_encodings_round_trip():
    _, noisy = _square(0, 0.05, size=12)
    out01 = IsingDenoiser(method="icm").fit_transform(noisy.astype(int))
    outpm = IsingDenoiser(method="icm").fit_transform(np.where(noisy, 1, -1))
    assert set(np.unique(out01)) <= {0, 1} and set(np.unique(outpm)) <= {-1, 1}
    np.testing.assert_array_equal(out01 == 1, outpm == 1)


def test_bad_images_and_parameters():
    with pytest.raises(ValueError, match="binary"):
        IsingDenoiser().fit(np.array([[0.0, 0.5], [1.0, 0.0]]))
    with pytest.raises(ValueError, match="2-D"):
        IsingDenoiser().fit(np.zeros(5, dtype=bool))
    with pytest.raises(ValueError, match="temperature"):
        IsingDenoiser(temperature=0.0).fit(np.zeros((3, 3), dtype=bool))
    with pytest.raises(ValueError, match="coupling"):
        IsingDenoiser(coupling=-1.0).fit(np.zeros((3, 3), dtype=bool))
    with pytest.raises(ValueError, match="method"):
        IsingDenoiser(method="bp").fit(np.zeros((3, 3), dtype=bool))
    with pytest.raises(ValueError, match="connectivity"):
        IsingDenoiser(connectivity=6).fit(np.zeros((3, 3), dtype=bool))
    with pytest.raises(ValueError, match="flip_probability"):
        field_from_flip_probability(0.5)
