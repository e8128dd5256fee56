"""Colour-parallel (checkerboard) heat bath of the Ising de-noiser: twins, streams, statistics."""

import numba
import numpy as np
import pytest
from scipy import stats

from statmechlearn.inference import IsingDenoiser, exact_gibbs, ising_cost, sweep
from statmechlearn.inference import _ising as ising
from statmechlearn.inference._sampling import SamplingResult

_KERNELS = (ising._colour_chains, ising._parallel_chains, ising._colour_chains_numpy)


def _noisy(seed, shape=(23, 31), p=0.3):
    return np.random.default_rng(seed).random(shape) < p


def _splitmix64(seed, k):
    """The k-th output (from 0) of SplitMix64 started at ``seed``, in Python integers."""
    m = (1 << 64) - 1
    z = (seed + (k + 1) * 0x9E3779B97F4A7C15) & m
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
    return z ^ (z >> 31)


@numba.njit
def _uniforms_compiled(seed, counters):
    out = np.empty(counters.size)
    for j in range(counters.size):
        out[j] = ising._uniform(seed, counters[j])
    return out


def test_uniforms_are_splitmix64_in_numba_and_numpy():
    rng = np.random.default_rng(0)
    seed = int(rng.integers(2**64, dtype=np.uint64))
    counters = np.concatenate(
        [
            np.arange(50, dtype=np.uint64),
            rng.integers(2**64, size=50, dtype=np.uint64),
            np.array([2**64 - 2, 2**64 - 1], dtype=np.uint64),
        ]
    )
    expected = np.array([(_splitmix64(seed, int(k)) >> 11) / 2.0**53 for k in counters])
    np.testing.assert_array_equal(ising._uniforms_numpy(np.uint64(seed), counters), expected)
    np.testing.assert_array_equal(_uniforms_compiled(np.uint64(seed), counters), expected)


def test_uniforms_are_uniform():
    u = ising._uniforms_numpy(np.uint64(20260101), np.arange(200_000, dtype=np.uint64))
    assert u.min() >= 0.0 and u.max() < 1.0
    observed = np.bincount((u * 100).astype(int), minlength=100)
    # a chi-square test at false-alarm probability 1e-6
    assert stats.chisquare(observed).pvalue > 1e-6


@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("temperature", [0.4, 1.0, 3.0])
def test_colour_sweep_is_the_sequential_kernel_and_its_numpy_twin(connectivity, temperature):
    noisy = _noisy(1)
    cost = ising_cost(noisy, 2.0, 0.7, connectivity=connectivity)
    arrays = ising._colour_arrays(cost)
    rng = np.random.default_rng(2)
    L = rng.integers(2, size=(3, cost.n_sites))
    seq, par, twin = cost.init_state(L), L.copy(), L.copy()
    for _ in range(8):
        u = rng.random((3, cost.n_sites, 2))
        u0 = np.ascontiguousarray(u[:, :, 0])
        moved = sweep(cost, seq, temperature, u)
        np.testing.assert_array_equal(
            ising._colour_sweep(par, *arrays, 1.0 / temperature, u0), moved
        )
        np.testing.assert_array_equal(
            ising._colour_sweep_numpy(twin, *arrays, 1.0 / temperature, u0), moved
        )
        np.testing.assert_array_equal(par, seq["labels"])
        np.testing.assert_array_equal(twin, seq["labels"])


def test_four_neighbour_colours_are_the_checkerboard():
    cost = ising_cost(_noisy(0, (6, 7)), connectivity=4)
    blocks = cost.blocks()
    r, c = np.divmod(np.arange(cost.n_sites), 7)
    assert len(blocks) == 2
    for colour, block in enumerate(blocks):
        np.testing.assert_array_equal(block, np.flatnonzero((r + c) % 2 == colour))


def _run(kernel, cost, n_chains, n_sweeps, burn_in, seed, init):
    L = np.repeat(init[None], n_chains, axis=0)
    indptr, indices, weights = cost._csr
    energy = ising._mrf_energy(L, cost.unary, indptr, indices, weights, cost.interaction)
    energies = np.empty((n_chains, n_sweeps))
    counts = np.zeros(L.shape, dtype=np.int64)
    changed = np.zeros(n_chains, dtype=np.int64)
    arrays = ising._colour_arrays(cost)
    kernel(L, *arrays, 1.0 / 0.8, np.uint64(seed), burn_in, energy, energies, counts, changed)
    return L, energies, counts, changed


@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("n_chains", [1, 3])
def test_fused_kernels_and_numpy_twin_agree_exactly(connectivity, n_chains):
    # 40 x 37 sites: the colours span several _CHUNK-sized work items
    noisy = _noisy(3, (40, 37))
    cost = ising_cost(noisy, 2.0, 0.6, connectivity=connectivity)
    init = noisy.ravel().astype(np.int64)
    runs = [_run(k, cost, n_chains, 12, 4, 2**63 + 12345, init) for k in _KERNELS]
    for other in runs[1:]:
        for a, b in zip(runs[0], other, strict=True):
            np.testing.assert_array_equal(a, b)


def test_energy_trace_is_the_energy_of_the_chain():
    noisy = _noisy(4, (30, 30))
    cost = ising_cost(noisy, 2.0, 0.9, connectivity=8)
    init = noisy.ravel().astype(np.int64)
    long = _run(ising._colour_chains, cost, 2, 10, 0, 7, init)
    np.testing.assert_allclose(long[1][:, -1], cost.energy(long[0]), rtol=1e-12)
    # a site's uniform depends on (seed, sweep, chain, site) only: a shorter run is a prefix
    for t in (1, 4):
        short = _run(ising._colour_chains, cost, 2, t, 0, 7, init)
        np.testing.assert_array_equal(short[1], long[1][:, :t])
        np.testing.assert_allclose(short[1][:, -1], cost.energy(short[0]), rtol=1e-12)


def test_tallies_and_flips_count_what_the_chain_did():
    noisy = _noisy(5, (12, 12))
    cost = ising_cost(noisy, 1.0, 0.5)
    init = noisy.ravel().astype(np.int64)
    n_sweeps, burn_in = 9, 3
    total = np.zeros(cost.n_sites, dtype=np.int64)
    flips = 0
    previous = _run(ising._colour_chains, cost, 1, burn_in, 0, 11, init)[0]
    for t in range(burn_in + 1, n_sweeps + 1):
        L = _run(ising._colour_chains, cost, 1, t, 0, 11, init)[0]
        total += L[0]
        flips += int(np.sum(L != previous))  # each site moves at most once per sweep
        previous = L
    _, _, counts, changed = _run(ising._colour_chains, cost, 1, n_sweeps, burn_in, 11, init)
    np.testing.assert_array_equal(counts[0], total)
    assert changed[0] == flips


def test_samples_do_not_depend_on_the_thread_count():
    noisy = _noisy(6, (50, 45))
    cost = ising_cost(noisy, 2.0, 0.8)
    init = noisy.ravel().astype(np.int64)
    before = numba.get_num_threads()
    results = []
    try:
        for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
            numba.set_num_threads(threads)
            for n_chains in (1, 2, 5):
                res = ising._colour_gibbs(
                    cost, 0.9, n_chains=n_chains, n_sweeps=15, init=init, random_state=8
                )
                results.append((n_chains, res))
    finally:
        numba.set_num_threads(before)
    by_chains = {}
    for n_chains, res in results:
        if n_chains in by_chains:
            ref = by_chains[n_chains]
            np.testing.assert_array_equal(res.labels, ref.labels)
            np.testing.assert_array_equal(res.energies, ref.energies)
            np.testing.assert_array_equal(res.chain_marginals, ref.chain_marginals)
        by_chains[n_chains] = res


@pytest.mark.parametrize("connectivity", [4, 8])
def test_gibbs_marginals_on_a_tiny_image_match_enumeration(connectivity):
    noisy = _noisy(7, (3, 4), p=0.5)
    cost = ising_cost(noisy, 1.5, 0.5, connectivity=connectivity)
    exact = exact_gibbs(cost, 1.0)
    n_chains = 24
    res = ising._colour_gibbs(cost, 1.0, n_chains=n_chains, n_sweeps=2000, random_state=4)
    se = res.chain_marginals[:, :, 1].std(0, ddof=1) / np.sqrt(n_chains)
    z = np.abs(res.marginals[:, 1] - exact.marginals[:, 1]) / se
    # Student t over chains, Bonferroni over the 12 sites, false alarm 1e-4
    assert z.max() < stats.t.isf(1e-4 / (2 * cost.n_sites), n_chains - 1)
    chain_means = res.energies[:, res.burn_in :].mean(axis=1)
    z_e = abs(chain_means.mean() - exact.mean_energy) / (chain_means.std(ddof=1) / n_chains**0.5)
    assert z_e < stats.t.isf(1e-4 / 2, n_chains - 1)


def test_denoiser_gibbs_diagnostics():
    noisy = _noisy(8, (20, 24), p=0.1)
    den = IsingDenoiser(method="gibbs", n_chains=3, n_sweeps=40, random_state=0).fit(noisy)
    res = den.diagnostics_
    assert isinstance(res, SamplingResult)
    assert res.energies.shape == (3, 40) and res.burn_in == 10 and den.n_iter_ == 40
    assert res.chain_marginals.shape == (3, noisy.size, 2)
    np.testing.assert_allclose(res.chain_marginals.sum(-1), 1.0)
    np.testing.assert_array_equal(den.marginals_.ravel(), res.marginals[:, 1])
    cost = ising_cost(noisy, den.coupling, den.field)
    np.testing.assert_allclose(res.energies[:, -1], cost.energy(res.labels), rtol=1e-12)
    assert np.all((res.acceptance_rate > 0) & (res.acceptance_rate < 1))
    again = IsingDenoiser(method="gibbs", n_chains=3, n_sweeps=40, random_state=0).fit(noisy)
    np.testing.assert_array_equal(again.marginals_, den.marginals_)
    with pytest.raises(ValueError, match="burn_in"):
        IsingDenoiser(method="gibbs", n_sweeps=5, burn_in=5).fit(noisy)


def test_colour_gibbs_refuses_other_costs_and_bad_init():
    cost = ising_cost(_noisy(0, (4, 4)))
    with pytest.raises(ValueError, match="two-state"):
        ising._colour_gibbs(type(cost)(np.zeros((4, 3))), 1.0)
    with pytest.raises(ValueError, match="chains"):
        ising._colour_gibbs(cost, 1.0, n_chains=3, init=np.zeros((2, 16), dtype=int))
