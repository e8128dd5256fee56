"""Binary image de-noising with the Ising model (lecture notes §9.1).

For a noisy image ``y`` with pixels ``±1`` the energy is

    E(x | y) = -(beta / 2) sum_i (x_i / |N_i|) sum_{j in N_i} x_j - mu sum_i x_i y_i,

``beta`` the coupling (``coupling``) and ``mu`` the pull towards the data
(``field``). Summed over ordered pairs, the pair ``{i, j}`` carries
``w_ij = (beta / 2) (1 / |N_i| + 1 / |N_j|)``, so
``E = -sum_{i<j} w_ij x_i x_j - mu sum_i x_i y_i`` and pixel ``i`` feels the
local field ``h_i = sum_j w_ij x_j + mu y_i``. With pixels flipped
independently with probability ``p``, ``mu = (T / 2) log((1 - p) / p)`` is the
exact log-likelihood ratio (:func:`field_from_flip_probability`).

Three estimates of the clean image: mean field (``m_i = tanh(h_i / T)``,
checkerboard-asynchronous), the posterior marginals of heat-bath (Gibbs)
sampling thresholded at 1/2 (maximiser of the posterior marginals), and
Besag's iterated conditional modes (zero temperature, a local minimum of E).

Gibbs sampling runs colour by colour (the checkerboard of the 4-neighbour
grid, four colours with the diagonals): sites of one colour share no pair
term, so they are drawn in parallel and the sweep equals the sequential
heat-bath sweep in the cost's ``sweep_order``. Each site's uniform is a
counter-based SplitMix64 draw keyed by (seed, sweep, chain, site), so the
samples do not depend on the number of threads or on how the sites are
shared among them. The energy trace is kept up to date from the flips
(``Delta E = +-d_i``, the local energy difference the move computes anyway)
instead of being recomputed after every sweep.
"""

import math
import time
from numbers import Integral, Real
from typing import ClassVar

import numba
import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils import check_array
from sklearn.utils._param_validation import Interval, Options, StrOptions

from statmechlearn._core.rng import check_random_state
from statmechlearn._core.validation import RANDOM_STATE, check_int, check_real
from statmechlearn.inference._costs import PairwiseMRFCost, check_labels
from statmechlearn.inference._mean_field import iterated_conditional_modes, mean_field
from statmechlearn.inference._sampling import sampling_result

__all__ = ["IsingDenoiser", "field_from_flip_probability", "ising_cost", "to_spins"]

_SPINS = np.array([-1.0, 1.0])


def to_spins(image, name="image"):
    """Return a binary image as ``±1`` floats and the encoding it came in.

    Parameters
    ----------
    image : array-like of shape (height, width)
        Values in {0, 1}, {False, True} or {-1, +1}.
    name : str, default="image"
        Parameter name used in the error message.

    Returns
    -------
    spins : ndarray of shape (height, width)
    encoding : {"bool", "01", "pm1"}
    """
    # scikit-learn's own messages for sparse, complex and empty input (which its checks
    # expect), after the name of the argument
    try:
        arr = check_array(
            image,
            accept_sparse=False,
            dtype=None,
            ensure_2d=False,
            allow_nd=True,
            ensure_all_finite=False,
            ensure_min_samples=0,
            input_name=name,
        )
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{name}: {exc}") from None
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D image of shape (height, width), got {arr.shape}")
    try:
        arr = check_array(arr, dtype=None, ensure_all_finite=False, input_name=name)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None
    if arr.dtype == bool:
        return np.where(arr, 1.0, -1.0), "bool"
    values = np.unique(arr)
    if not np.all(np.isfinite(values.astype(float))):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    if np.all(np.isin(values, (0, 1))):
        return np.where(arr == 1, 1.0, -1.0), "01"
    if np.all(np.isin(values, (-1, 1))):
        return arr.astype(float), "pm1"
    shown = ", ".join(f"{v:g}" for v in values[:5].astype(float))
    raise ValueError(
        f"{name} must be binary, with values in {{0, 1}}, {{False, True}} or {{-1, +1}}; "
        f"got values {shown}{' ...' if values.size > 5 else ''}"
    )


def _from_spins(spins, encoding):
    if encoding == "bool":
        return spins > 0
    if encoding == "01":
        return (spins > 0).astype(np.int64)
    return np.where(spins > 0, 1, -1)


def field_from_flip_probability(flip_probability, temperature=1.0):
    """``mu = (T / 2) log((1 - p) / p)``: the data term of independent pixel flips.

    Parameters
    ----------
    flip_probability : float in (0, 1/2)
    temperature : float, default=1.0

    Returns
    -------
    float
    """
    p = check_real(
        flip_probability,
        "flip_probability",
        minimum=0.0,
        maximum=0.5,
        include_min=False,
        include_max=False,
    )
    T = check_real(temperature, "temperature", minimum=0.0, include_min=False)
    return 0.5 * T * math.log((1.0 - p) / p)


def ising_cost(noisy, coupling=1.0, field=1.0, connectivity=4):
    """The Ising energy of §9.1 as a :class:`PairwiseMRFCost` (state 0 = -1, 1 = +1).

    Parameters
    ----------
    noisy : array-like of shape (height, width)
        Binary observed image.
    coupling : float, default=1.0
        ``beta >= 0``, the smoothing strength (per pixel, as the energy
        divides by the neighbourhood size).
    field : float, default=1.0
        ``mu >= 0``, the pull towards the observation.
    connectivity : {4, 8}, default=4

    Returns
    -------
    PairwiseMRFCost
        Sites are the pixels in C order.
    """
    y, _ = to_spins(noisy, "noisy")
    beta = check_real(coupling, "coupling", minimum=0.0)
    mu = check_real(field, "field", minimum=0.0)
    if connectivity not in (4, 8):
        raise ValueError(f"connectivity must be 4 or 8, got {connectivity!r}")
    unary = -mu * y.ravel()[:, None] * _SPINS[None, :]
    return PairwiseMRFCost(
        unary, _grid_couplings(y.shape, connectivity, beta), -np.outer(_SPINS, _SPINS)
    )


def _grid_couplings(shape, connectivity, beta):
    """``w_ij = (beta / 2) (1 / |N_i| + 1 / |N_j|)`` on the pixel grid, as a sorted CSR array.

    The same matrix, entry for entry, as weighting :func:`grid_graph`, built
    row by row from the neighbour offsets in index order instead of through a
    COO sort (which took most of the time of ``ising_cost`` on large images).
    """
    h, w = shape
    offsets = [(-1, 0), (0, -1), (0, 1), (1, 0)]
    if connectivity == 8:
        offsets = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
    r, c = np.divmod(np.arange(h * w), w)
    cols = np.stack([(r + dr) * w + (c + dc) for dr, dc in offsets], axis=1)
    valid = np.stack(
        [(r + dr >= 0) & (r + dr < h) & (c + dc >= 0) & (c + dc < w) for dr, dc in offsets],
        axis=1,
    )
    deg = valid.sum(axis=1)
    inv_deg = 1.0 / np.maximum(deg.astype(float), 1.0)
    indices = cols[valid]
    rows = np.repeat(np.arange(h * w), deg)
    indptr = np.concatenate([[0], np.cumsum(deg)])
    data = 0.5 * beta * (inv_deg[rows] + inv_deg[indices])
    return sparse.csr_array((data, indices, indptr), shape=(h * w, h * w))


# ---------------------------------------------------------------- colour-parallel heat bath
# SplitMix64 (Steele, Lea & Flood 2014) read at position ``counter``: a counter-based
# stream, so any site's uniform can be drawn by any thread in any order.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
# Sites per work item of a colour: energy changes are summed per chunk in site order and
# the chunk sums in chunk order, so the trace is the same whatever the thread count.
_CHUNK = 512


@numba.njit(cache=True, nogil=True, inline="always")
def _uniform(seed, counter):
    z = seed + (counter + np.uint64(1)) * _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    z = z ^ (z >> np.uint64(31))
    return np.float64(z >> np.uint64(11)) * 1.1102230246251565e-16


def _uniforms_numpy(seed, counters):
    """Twin of ``_uniform`` for an array of counters (uint64 arithmetic wraps mod 2**64)."""
    c = np.asarray(counters, dtype=np.uint64)
    z = np.uint64(seed) + (c + np.uint64(1)) * _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) * 1.1102230246251565e-16


@numba.njit(cache=True, nogil=True, inline="always")
def _local_difference(row, i, udiff, indptr, indices, weights, dV0, dV1):
    # R(c_i = 1) - R(c_i = 0), summed in the order of the sequential kernel (_mrf_sweep)
    d = udiff[i]
    for p in range(indptr[i], indptr[i + 1]):
        d += weights[p] * (dV1 if row[indices[p]] == 1 else dV0)
    return d


@numba.njit(cache=True, nogil=True, parallel=True)
def _colour_sweep(labels, udiff, indptr, indices, weights, dV0, dV1, order, starts, beta, u):
    """One heat-bath sweep of every chain with given uniforms ``u`` (B, n); returns flips."""
    B = labels.shape[0]
    changed = np.zeros(B, dtype=np.int64)
    for b in range(B):
        row = labels[b]
        for c in range(starts.size - 1):
            moved = 0
            for idx in numba.prange(starts[c], starts[c + 1]):
                i = order[idx]
                d = _local_difference(row, i, udiff, indptr, indices, weights, dV0, dV1)
                new = 0 if u[b, i] * (1.0 + np.exp(-beta * d)) < 1.0 else 1
                if new != row[i]:
                    row[i] = new
                    moved += 1
            changed[b] += moved
    return changed


@numba.njit(cache=True, nogil=True, inline="always")
def _heat_bath_chunk(
    row, tally, order, lo, hi, udiff, indptr, indices, weights, dV0, dV1, beta, seed, base, keep
):
    """Draw sites ``order[lo:hi]`` of one chain; return their energy change and flips."""
    acc = 0.0
    moved = 0
    for idx in range(lo, hi):
        i = order[idx]
        d = _local_difference(row, i, udiff, indptr, indices, weights, dV0, dV1)
        u = _uniform(seed, base + np.uint64(i))
        new = 0 if u * (1.0 + np.exp(-beta * d)) < 1.0 else 1
        if new != row[i]:
            row[i] = new
            acc += d if new == 1 else -d
            moved += 1
        if keep:
            tally[i] += new
    return acc, moved


@numba.njit(cache=True, nogil=True, parallel=True)
def _colour_chains(
    labels,
    udiff,
    indptr,
    indices,
    weights,
    dV0,
    dV1,
    order,
    starts,
    beta,
    seed,
    burn_in,
    energy,
    energies,
    counts,
    changed,
):
    """All sweeps of all chains, each colour's sites in parallel (heat bath, fused bookkeeping).

    Site ``i`` of chain ``b`` in sweep ``t`` draws the uniform at counter
    ``(t * B + b) * n + i``. ``energies[b, t]`` gets ``R`` after sweep ``t``
    (``energy[b]`` plus the flips' energy changes, summed per chunk of
    ``_CHUNK`` sites and then chunk by chunk), ``counts[b, i]`` the sweeps after
    burn-in with ``c_i = 1`` and ``changed[b]`` the flips after burn-in.
    """
    B, n = labels.shape
    n_sweeps = energies.shape[1]
    n_colours = starts.size - 1
    widest = 0
    for c in range(n_colours):
        widest = max(widest, starts[c + 1] - starts[c])
    # one parallel loop per colour over (chain, chunk): fewer fork-joins than one per chain
    part_e = np.zeros((B, (widest + _CHUNK - 1) // _CHUNK))
    part_m = np.zeros(part_e.shape, dtype=np.int64)
    E = energy.copy()
    for t in range(n_sweeps):
        keep = t >= burn_in
        for c in range(n_colours):
            lo, hi = starts[c], starts[c + 1]
            n_chunks = (hi - lo + _CHUNK - 1) // _CHUNK
            for job in numba.prange(B * n_chunks):
                b = job // n_chunks
                q = job - b * n_chunks
                base = np.uint64(t * B + b) * np.uint64(n)
                first = lo + q * _CHUNK
                acc, moved = _heat_bath_chunk(
                    labels[b],
                    counts[b],
                    order,
                    first,
                    min(hi, first + _CHUNK),
                    udiff,
                    indptr,
                    indices,
                    weights,
                    dV0,
                    dV1,
                    beta,
                    seed,
                    base,
                    keep,
                )
                part_e[b, q] = acc
                part_m[b, q] = moved
            for b in range(B):
                for q in range(n_chunks):
                    E[b] += part_e[b, q]
                    if keep:
                        changed[b] += part_m[b, q]
        for b in range(B):
            energies[b, t] = E[b]
    return labels


@numba.njit(cache=True, nogil=True, parallel=True)
def _parallel_chains(
    labels,
    udiff,
    indptr,
    indices,
    weights,
    dV0,
    dV1,
    order,
    starts,
    beta,
    seed,
    burn_in,
    energy,
    energies,
    counts,
    changed,
):
    """``_colour_chains`` with one chain per thread: one fork-join for the whole run.

    Same uniforms, same order and same sums, hence the same numbers; chosen when
    there are at least as many chains as threads.
    """
    B, n = labels.shape
    n_sweeps = energies.shape[1]
    for b in numba.prange(B):
        E = energy[b]
        row = labels[b]
        tally = counts[b]
        for t in range(n_sweeps):
            keep = t >= burn_in
            base = np.uint64(t * B + b) * np.uint64(n)
            for c in range(starts.size - 1):
                for first in range(starts[c], starts[c + 1], _CHUNK):
                    acc, moved = _heat_bath_chunk(
                        row,
                        tally,
                        order,
                        first,
                        min(starts[c + 1], first + _CHUNK),
                        udiff,
                        indptr,
                        indices,
                        weights,
                        dV0,
                        dV1,
                        beta,
                        seed,
                        base,
                        keep,
                    )
                    E += acc
                    if keep:
                        changed[b] += moved
            energies[b, t] = E
    return labels


@numba.njit(cache=True, nogil=True)
def _mrf_energy(labels, unary, indptr, indices, weights, V):
    """``R(c)`` of each row of ``labels``, each pair once (the samplers' starting energy)."""
    B, n = labels.shape
    out = np.zeros(B)
    for b in range(B):
        row = labels[b]
        E = 0.0
        for i in range(n):
            li = row[i]
            E += unary[i, li]
            for p in range(indptr[i], indptr[i + 1]):
                j = indices[p]
                if j > i:
                    E += weights[p] * V[li, row[j]]
        out[b] = E
    return out


def _colour_sweep_numpy(labels, udiff, indptr, indices, weights, dV0, dV1, order, starts, beta, u):
    """Twin of ``_colour_sweep``: each colour in one vectorised step (same sums, same order)."""
    changed = np.zeros(labels.shape[0], dtype=np.int64)
    for c in range(starts.size - 1):
        sites = order[starts[c] : starts[c + 1]]
        d = _block_differences(labels, sites, udiff, indptr, indices, weights, dV0, dV1)
        with np.errstate(over="ignore"):
            new = np.where(u[:, sites] * (1.0 + np.exp(-beta * d)) < 1.0, 0, 1)
        changed += np.sum(new != labels[:, sites], axis=1)
        labels[:, sites] = new
    return changed


def _block_differences(labels, sites, udiff, indptr, indices, weights, dV0, dV1):
    # neighbour slot by neighbour slot, so that every site adds its terms in CSR order
    lo, deg = indptr[sites], indptr[sites + 1] - indptr[sites]
    d = np.broadcast_to(udiff[sites], (labels.shape[0], sites.size)).copy()
    for q in range(int(deg.max(initial=0))):
        has = deg > q
        p = lo[has] + q
        d[:, has] += weights[p] * np.where(labels[:, indices[p]] == 1, dV1, dV0)
    return d


def _colour_chains_numpy(
    labels,
    udiff,
    indptr,
    indices,
    weights,
    dV0,
    dV1,
    order,
    starts,
    beta,
    seed,
    burn_in,
    energy,
    energies,
    counts,
    changed,
):
    """Twin of ``_colour_chains`` (same uniforms, flips, chunked energy sums and tallies)."""
    B, n = labels.shape
    for b in range(B):
        E = float(energy[b])
        for t in range(energies.shape[1]):
            counters = np.uint64(t * B + b) * np.uint64(n) + np.arange(n, dtype=np.uint64)
            u = _uniforms_numpy(seed, counters)
            for c in range(starts.size - 1):
                sites = order[starts[c] : starts[c + 1]]
                row = labels[b : b + 1]
                d = _block_differences(row, sites, udiff, indptr, indices, weights, dV0, dV1)[0]
                with np.errstate(over="ignore"):
                    new = np.where(u[sites] * (1.0 + np.exp(-beta * d)) < 1.0, 0, 1)
                flip = new != row[0, sites]
                delta = np.where(flip, np.where(new == 1, d, -d), 0.0)
                for lo in range(0, sites.size, _CHUNK):
                    chunk = delta[lo : lo + _CHUNK][flip[lo : lo + _CHUNK]]
                    # cumsum adds left to right, as the kernel's loop does
                    E += float(np.cumsum(np.concatenate([[0.0], chunk]))[-1])
                labels[b, sites] = new
                if t >= burn_in:
                    counts[b, sites] += new
                    changed[b] += int(flip.sum())
            energies[b, t] = E
    return labels


def _colour_arrays(cost):
    """What the colour kernels read from a two-state :class:`PairwiseMRFCost`."""
    V = cost.interaction
    blocks = cost.blocks()
    starts = np.concatenate([[0], np.cumsum([blk.size for blk in blocks])]).astype(np.int64)
    indptr, indices, weights = cost._csr
    return (
        np.ascontiguousarray(cost.unary[:, 1] - cost.unary[:, 0]),
        indptr,
        indices,
        np.ascontiguousarray(weights, dtype=float),
        float(V[1, 0] - V[0, 0]),
        float(V[1, 1] - V[0, 1]),
        cost.sweep_order(),
        starts,
    )


def _colour_gibbs(
    cost,
    temperature,
    *,
    n_chains=2,
    n_sweeps=200,
    burn_in=None,
    init=None,
    random_state=None,
    compiled=True,
):
    """Heat-bath sampling of a two-state :class:`PairwiseMRFCost`, one colour at a time.

    The colours are those of ``cost.blocks()`` (the checkerboard on a 4-neighbour
    grid); a colour's sites are drawn in parallel, which is the sequential sweep
    in ``cost.sweep_order()``. Site ``i`` of chain ``b`` in sweep ``t`` uses the
    uniform at position ``(t * n_chains + b) * n_sites + i`` of a SplitMix64
    stream seeded from ``random_state``: the samples do not depend on the number
    of threads. The energy after each sweep is the initial one plus the flips'
    energy changes.

    Parameters
    ----------
    cost : PairwiseMRFCost
        With ``n_states == 2``.
    temperature : float
        ``T > 0``.
    n_chains : int, default=2
    n_sweeps : int, default=200
        Sweeps per chain, burn-in included.
    burn_in : int, optional
        Default ``n_sweeps // 4``.
    init : array-like of shape (n_sites,) or (n_chains, n_sites)
        Starting labels (0/1).
    random_state : int, Generator or None
        One 64-bit seed is drawn from it.
    compiled : bool, default=True
        The numba kernel (parallel over a colour's sites); False runs its NumPy twin.

    Returns
    -------
    SamplingResult
    """
    if not isinstance(cost, PairwiseMRFCost) or cost.n_states != 2:
        raise ValueError("_colour_gibbs needs a two-state PairwiseMRFCost")
    T = check_real(temperature, "temperature", minimum=0.0, include_min=False)
    n_chains = check_int(n_chains, "n_chains", minimum=1)
    n_sweeps = check_int(n_sweeps, "n_sweeps", minimum=1)
    burn_in = n_sweeps // 4 if burn_in is None else burn_in
    burn_in = check_int(burn_in, "burn_in", minimum=0, maximum=n_sweeps - 1)
    rng = check_random_state(random_state)
    if init is None:
        labels = rng.integers(2, size=(n_chains, cost.n_sites))
    else:
        labels = check_labels(init, cost.n_sites, 2, "init")
        if labels.shape[0] == 1:
            labels = np.repeat(labels, n_chains, axis=0)
        if labels.shape[0] != n_chains:
            raise ValueError(f"init has {labels.shape[0]} chains, n_chains={n_chains}")
    seed = rng.integers(np.iinfo(np.uint64).max, dtype=np.uint64, endpoint=True)
    n = cost.n_sites
    indptr, indices, weights = cost._csr
    energy = _mrf_energy(labels, cost.unary, indptr, indices, weights, cost.interaction)
    energies = np.empty((n_chains, n_sweeps))
    counts = np.zeros((n_chains, n), dtype=np.int64)
    changed = np.zeros(n_chains, dtype=np.int64)
    if not compiled:
        kernel = _colour_chains_numpy
    elif n_chains >= numba.get_num_threads():
        kernel = _parallel_chains
    else:
        kernel = _colour_chains
    start = time.perf_counter()
    kernel(labels, *_colour_arrays(cost), 1.0 / T, seed, burn_in, energy, energies, counts, changed)
    seconds = time.perf_counter() - start
    # the kernels count the sweeps in state 1; state 0 has the rest
    kept = n_sweeps - burn_in
    counts = np.stack([kept - counts, counts], axis=-1)
    return sampling_result(energies, counts, changed, labels, burn_in, T, seconds)


class IsingDenoiser(BaseEstimator):
    """De-noise a binary image with the Ising model by mean field, Gibbs sampling or ICM.

    Lecture notes §9.1: the clean image minimises (ICM), or is read off the
    posterior marginals of (Gibbs sampling, mean field), the Gibbs
    distribution of ``E(x | y)`` at temperature ``T``.

    Parameters
    ----------
    coupling : float, default=2.0
        ``beta >= 0`` of §9.1 (smoothing; normalised by the neighbourhood size).
    field : float, default=1.0
        ``mu >= 0``, the data term; :func:`field_from_flip_probability` gives
        the exact one for independent flips.
    method : {"mean_field", "gibbs", "icm"}, default="mean_field"
    temperature : float, default=1.0
        ``T > 0`` (mean field and Gibbs).
    connectivity : {4, 8}, default=4
    n_chains : int, default=2
        Gibbs: independent chains, all started from the noisy image.
    n_sweeps : int, default=200
        Gibbs: sweeps per chain, burn-in included.
    burn_in : int, optional
        Gibbs: discarded sweeps; default ``n_sweeps // 4``.
    max_iter : int, default=200
        Mean field and ICM: maximum sweeps.
    tol : float, default=1e-4
        Mean field: stop when no marginal moves more than this.
    random_state : None, int, numpy.random.RandomState or numpy.random.Generator, default=None
        Gibbs: one 64-bit seed is drawn from it; the site uniforms are a
        SplitMix64 stream read at (sweep, chain, site), so a seed gives the
        same samples on any number of threads.

    Attributes
    ----------
    denoised_ : ndarray of shape (height, width)
        The estimate, in the encoding of the input.
    marginals_ : ndarray of shape (height, width)
        ``P(x_i = +1)`` (mean field, Gibbs); 0/1 for ICM.
    energy_ : float
        ``E(x | y)`` of the estimate.
    n_iter_ : int
        Sweeps done.
    diagnostics_ : object
        The :class:`MeanFieldResult` or :class:`SamplingResult` (None for ICM).

    Notes
    -----
    ``fit`` takes one image, not a feature matrix, so this is not a
    scikit-learn transformer of rows (``check_estimator`` does not apply);
    it keeps the parameter API (``get_params``/``set_params``, ``clone``).

    Gibbs sampling draws the sites colour by colour (the checkerboard with 4
    neighbours, four colours with 8), every colour's sites in parallel on
    numba's threads (``numba.set_num_threads``), or one chain per thread when
    there are at least as many chains as threads; either way the samples are
    those of the sequential heat-bath sweep in colour order. The energy trace
    in ``diagnostics_.energies`` is updated from the flips, not recomputed.
    The uniforms do not come from ``random_state``'s generator directly: one
    seed is drawn from it and drives the counter-based streams of the
    threads, so a given ``random_state`` gives the same samples on any
    number of threads.

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn.inference import IsingDenoiser
    >>> rng = np.random.default_rng(0)
    >>> clean = np.zeros((40, 40), dtype=bool); clean[10:30, 10:30] = True
    >>> noisy = clean ^ (rng.random(clean.shape) < 0.1)
    >>> den = IsingDenoiser(method="icm").fit(noisy)
    >>> bool(np.mean(den.denoised_ != clean) < np.mean(noisy != clean))
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "coupling": [Interval(Real, 0, np.inf, closed="left")],
        "field": [Interval(Real, 0, np.inf, closed="left")],
        "method": [StrOptions({"mean_field", "gibbs", "icm"})],
        "temperature": [Interval(Real, 0, np.inf, closed="neither")],
        "connectivity": [Options(Integral, {4, 8})],
        "n_chains": [Interval(Integral, 1, None, closed="left")],
        "n_sweeps": [Interval(Integral, 1, None, closed="left")],
        "burn_in": [Interval(Integral, 0, None, closed="left"), None],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, np.inf, closed="left")],
        "random_state": [*RANDOM_STATE],
    }

    def __init__(
        self,
        coupling=2.0,
        field=1.0,
        method="mean_field",
        temperature=1.0,
        connectivity=4,
        n_chains=2,
        n_sweeps=200,
        burn_in=None,
        max_iter=200,
        tol=1e-4,
        random_state=None,
    ):
        self.coupling = coupling
        self.field = field
        self.method = method
        self.temperature = temperature
        self.connectivity = connectivity
        self.n_chains = n_chains
        self.n_sweeps = n_sweeps
        self.burn_in = burn_in
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, image, y=None):
        """De-noise ``image``.

        Parameters
        ----------
        image : array-like of shape (height, width)
            Binary noisy image ({0, 1}, bool or ±1).
        y : None
            Ignored.

        Returns
        -------
        self
        """
        method = self.method
        spins, encoding = to_spins(image)
        T = float(self.temperature)
        cost = ising_cost(spins, self.coupling, self.field, self.connectivity)
        rng = check_random_state(self.random_state)
        start = (spins.ravel() > 0).astype(np.int64)
        self.diagnostics_ = None
        if method == "icm":
            labels, self.n_iter_ = iterated_conditional_modes(cost, start, max_iter=self.max_iter)
            marg = labels.astype(float)
        elif method == "mean_field":
            Q0 = np.column_stack([1.0 - start, start]) * 0.8 + 0.1
            res = mean_field(cost, T, init=Q0, max_iter=self.max_iter, tol=self.tol)
            marg = res.Q[:, 1]
            self.n_iter_ = res.n_iter
            self.diagnostics_ = res
        else:
            res = _colour_gibbs(
                cost,
                T,
                n_chains=self.n_chains,
                n_sweeps=self.n_sweeps,
                burn_in=self.burn_in,
                init=start,
                random_state=rng,
            )
            marg = res.marginals[:, 1]
            self.n_iter_ = res.energies.shape[1]
            self.diagnostics_ = res
        x = np.where(marg > 0.5, 1.0, -1.0)
        self.marginals_ = marg.reshape(spins.shape)
        self.energy_ = float(cost.energy((x > 0).astype(np.int64))[0])
        self.denoised_ = _from_spins(x.reshape(spins.shape), encoding)
        return self

    def fit_transform(self, image, y=None):
        """De-noise ``image`` and return the estimate (same encoding as the input).

        Parameters
        ----------
        image : array-like of shape (height, width)
        y : None
            Ignored.

        Returns
        -------
        ndarray of shape (height, width)
        """
        return self.fit(image).denoised_
