"""The compiled block kernel of the Gibbs pass, and the one-run loop around it.

One pass over the data is a loop over fixed blocks of rows (:func:`_block`):
per block a BLAS product gives the cross terms ``x . y_k`` and one sweep turns
them into logits, keeping each row's two largest. A *hard* row, whose second
term is below ``e^-40`` of its largest, is assigned one-hot exactly
(the dense path zeroes the others too): it adds itself to one centroid sum, as
in a Lloyd iteration, with no exponential. The soft rows go through the
exponentials (accumulating masses, and distortions and entropy when asked) and
a second product gives their centroid sums; where more than half of a block's
rows are soft, all its rows take that dense path. A block is held as
``(code vector, row)``, so that every loop runs along the block's 1024 rows
and vectorises (along K = 10 entries per row it did not). The exponentials of a
block are one branch-free loop (:func:`~statmechlearn._core.fastexp.exp_nonpositive`,
within an ulp of libm's and vectorised by LLVM, three times faster than scalar
calls). Terms with ``p(k|x) < e^-40 p_max(x)`` lie below double precision of the
row's normaliser and are set to zero; the row's largest term is exactly
``exp(0) = 1``. Sample weights, where given, multiply each row's share of every sum.

The blocks are split over numba's threads (a ``prange``; on one thread a plain loop,
which compiles in half the time) and summed in a fixed order, so results do not depend
on the number of threads. Each kernel is compiled for one set of argument types (float64,
C-contiguous, writeable arrays, ``int`` flags, an empty weight array for none): a new
process on a cold cache compiles each once, in about two seconds for the block kernel.
"""

import math
import threading

import numba
import numpy as np

from statmechlearn._core.fastexp import exp_nonpositive
from statmechlearn._core.threads import one_blas_thread

__all__ = ["blas_held"]

# Rows per block of the compiled pass: fixed, so that the summation order (and
# hence every result bit) is independent of the thread count.
_BLOCK = 1024
# exp(-40) = 4e-18 is below half an ulp of a normaliser >= 1.
_LOG_TINY = -40.0
_SPAN = 64 * _BLOCK
_FAST = {"reassoc", "contract"}
# A run's block takes the dense path (every row through the exponentials and a
# product) when more than this fraction of its rows is soft; below it the hard
# rows are summed one by one and only the soft ones are gathered.
_SOFT_DENSE = 0.5
# Entries of a row softmax (rows times code vectors) up to which it runs on this thread.
_SOFTMAX_SERIAL = 1 << 16
# The kernels' sample weights when there are none (every weight one, the sums as unweighted).
_NO_WEIGHTS = np.zeros(0)
# Whether this thread is inside :func:`blas_held`: the passes then skip their own
# one_blas_thread, whose entry and exit (threadpoolctl reading and setting every
# library's limit) cost 14 us, as much as a whole pass over iris on one thread.
_HELD = threading.local()


class blas_held:
    """:func:`~statmechlearn._core.threads.one_blas_thread` for a whole fit, entered once.

    The passes inside it run as under their own ``one_blas_thread`` without
    entering it again (a fit runs hundreds of passes on small data); nested
    uses on the same thread enter it only at the outermost.
    """

    def __enter__(self):
        self._outer = not getattr(_HELD, "on", False)
        if self._outer:
            self._limit = one_blas_thread()
            self._limit.__enter__()
            _HELD.on = True
        return self

    def __exit__(self, *exc):
        if self._outer:
            _HELD.on = False
            return self._limit.__exit__(*exc)
        return None


@numba.njit(cache=True, nogil=True, fastmath=_FAST, error_model="numpy", inline="always")
def _soft_part(P, top, w, lw, inv_t, with_stats, mass, dist):  # pragma: no cover - compiled
    """Turn logits ``P`` (code vector, row) into ``p(k|x)`` in place; add masses and stats.

    ``P`` holds the logits relative to each row's largest, ``top``. Returns the rows'
    ``sum log Z_x`` and ``sum p log p`` (zero below ``with_stats`` 1 and 2). With row
    weights ``w`` (empty: all one) ``P`` ends as ``w_x p(k|x)`` and every sum is weighted.
    """
    K, m = P.shape
    weighted = w.shape[0] > 0
    # the logits, kept for the statistics (the exponentials overwrite P); row by row, and
    # arrays allocated alike, so that the kernel compiles few NumPy functions of its own
    logits = np.empty((K, m) if with_stats >= 2 else (0, 0))
    bits = np.empty(m, dtype=np.int64)
    for k in range(K):
        row = P[k]
        if with_stats >= 2:
            kept = logits[k]
            for r in range(m):
                kept[r] = row[r]
        exp_nonpositive(row, bits, m, _LOG_TINY)
    totals = np.empty(m)
    for r in range(m):
        totals[r] = 0.0
    for k in range(K):
        row = P[k]
        for r in range(m):
            totals[r] += row[r]
    for r in range(m):
        totals[r] = 1.0 / totals[r]
    scale = totals
    if weighted:
        scale = np.empty(m)
        for r in range(m):
            scale[r] = totals[r] * w[r]
    for k in range(K):
        row = P[k]
        acc = 0.0
        for r in range(m):
            p = row[r] * scale[r]
            row[r] = p
            acc += p
        mass[k] += acc
    log_z = 0.0
    ent = 0.0
    if with_stats >= 1:
        log_inv = np.empty(m)
        if weighted:
            for r in range(m):
                log_inv[r] = np.log(totals[r])
                log_z += w[r] * (top[r] - log_inv[r])
        else:
            for r in range(m):
                log_inv[r] = np.log(totals[r])
                log_z += top[r] - log_inv[r]
        if with_stats >= 2:
            for k in range(K):
                row = P[k]
                lwk = lw[k]
                acc = 0.0
                for r in range(m):
                    p = row[r]
                    if p > 0.0:
                        u = logits[k, r]
                        acc += p * (lwk - u - top[r])
                        ent += p * (u + log_inv[r])
                dist[k] += acc / inv_t
    return log_z, ent


@numba.njit(cache=True, nogil=True, fastmath=_FAST, error_model="numpy")
def _block(
    xb, xs, wb, cy, y_sq, log_w, inv_t, with_stats, sums, mass, dist, log_z, plogp
):  # pragma: no cover - compiled
    """One block of rows: add its centroid sums, masses and statistics to the outputs.

    A block is held as (code vector, row): every loop runs along the block's rows,
    contiguous and long, so LLVM vectorises it (along K = 10 it would not). ``wb``
    holds the rows' weights, or is empty (every weight one, the sums as they were).
    """
    m, d = xb.shape
    B, K = log_w.shape
    weighted = wb.shape[0] > 0
    # the cross terms x . y_k, turned into logits in place
    prob = np.dot(cy, xb.T)
    top = np.empty(m)
    second = np.empty(m)
    lab = np.empty(m, dtype=np.int64)
    soft = np.empty(m, dtype=np.int64)
    for b in range(B):
        P = prob[b * K : (b + 1) * K]
        lw = log_w[b]
        for r in range(m):
            top[r] = -np.inf
            second[r] = -np.inf
            lab[r] = 0
        # one sweep keeps each row's two largest logits and the first code vector
        # holding the largest: a row is hard when its second term, relative to
        # its top, is below e^-40 (a tie for the top is soft)
        for k in range(K):
            row = P[k]
            lwk = lw[k]
            yk = y_sq[b, k]
            for r in range(m):
                lk = lwk - max(xs[r] - 2.0 * row[r] + yk, 0.0) * inv_t
                row[r] = lk
                t = top[r]
                above = lk > t
                second[r] = t if above else max(second[r], lk)
                top[r] = lk if above else t
                lab[r] = k if above else lab[r]
        ns = 0
        for r in range(m):
            if second[r] - top[r] > _LOG_TINY:
                soft[ns] = r
                ns += 1
                lab[r] = -1
        sb = sums[b * K : (b + 1) * K]
        lz = 0.0
        ent = 0.0
        dense = ns > _SOFT_DENSE * m
        if dense:
            # logits relative to the row's top, u <= 0 (exactly 0 at the top)
            for k in range(K):
                row = P[k]
                for r in range(m):
                    row[r] -= top[r]
            Ps, ts, xsoft, wsoft = P, top, xb, wb
        else:
            # a hard row's assignment is one-hot exactly: the exponentials it would
            # sum are zeroed below e^-40, so it adds its row to one centroid sum
            for r in range(m):
                k = lab[r]
                if k < 0:
                    continue
                # (a weight of one adds exactly what the unweighted sum adds, fused or not)
                wr = wb[r] if weighted else 1.0
                mass[b, k] += wr
                for j in range(d):
                    sb[k, j] += wr * xb[r, j]
                if with_stats >= 1:
                    lz += wr * top[r]
                    if with_stats >= 2:
                        # |x - y_k|^2 = T (log w_k - logit_k), the top logit
                        dist[b, k] += wr * ((lw[k] - top[r]) / inv_t)
            Ps = np.empty((K, ns))
            ts = np.empty(ns)
            xsoft = np.empty((ns, d))
            wsoft = np.empty(ns if weighted else 0)
            for i in range(ns):
                r = soft[i]
                ts[i] = top[r]
                for j in range(d):
                    xsoft[i, j] = xb[r, j]
            for i in range(wsoft.shape[0]):
                wsoft[i] = wb[soft[i]]
            for k in range(K):
                for i in range(ns):
                    Ps[k, i] = P[k, soft[i]] - ts[i]
        # (one call of the soft part, compiled inline: each call site would be a copy)
        if ns > 0:
            lz2, ent = _soft_part(Ps, ts, wsoft, lw, inv_t, with_stats, mass[b], dist[b])
            lz += lz2
            prod = np.dot(Ps, xsoft)
            for k in range(K):
                for j in range(d):
                    sb[k, j] = prod[k, j] if dense else sb[k, j] + prod[k, j]
        log_z[b] += lz
        plogp[b] += ent


@numba.njit(cache=True, nogil=True)
def _pass_blocks(
    X, x_sq, w, cy, y_sq, log_w, inv_t, with_stats, first, last, sums, mass, dist, log_z, plogp
):  # pragma: no cover - compiled
    """Blocks ``first`` to ``last`` of ``X``, each into its own slot of the outputs."""
    n = X.shape[0]
    for blk in range(first, last):
        start = blk * _BLOCK
        stop = min(n, start + _BLOCK)
        _block(
            X[start:stop],
            x_sq[start:stop],
            w[start:stop],
            cy,
            y_sq,
            log_w,
            inv_t,
            with_stats,
            sums[blk],
            mass[blk],
            dist[blk],
            log_z[blk],
            plogp[blk],
        )


@numba.njit(cache=True, nogil=True, parallel=True)
def _pass_blocks_parallel(
    X, x_sq, w, cy, y_sq, log_w, inv_t, with_stats, sums, mass, dist, log_z, plogp
):  # pragma: no cover - compiled
    """:func:`_pass_blocks` over every block of ``X``, the blocks over numba's threads."""
    for blk in numba.prange(sums.shape[0]):
        _pass_blocks(
            X,
            x_sq,
            w,
            cy,
            y_sq,
            log_w,
            inv_t,
            with_stats,
            blk,
            blk + 1,
            sums,
            mass,
            dist,
            log_z,
            plogp,
        )


def _pass_kernel(X, x_sq, w, cy, y_sq, log_w, inv_t, with_stats):
    """One pass over ``X`` (at most ``_SPAN`` rows), its blocks split over numba's threads.

    One block (small data) is the block kernel itself; on one thread the blocks run in
    a plain loop, whose kernel compiles in half the time of the parallel one: a process
    that never runs on several threads never compiles the parallel loop.
    """
    n, d = X.shape
    B, K = log_w.shape
    n_blocks = (n + _BLOCK - 1) // _BLOCK
    slots = (
        np.zeros((n_blocks, B * K, d)),
        np.zeros((n_blocks, B, K)),
        np.zeros((n_blocks, B, K)),
        np.zeros((n_blocks, B)),
        np.zeros((n_blocks, B)),
    )
    args = (X, x_sq, w, cy, y_sq, log_w, inv_t, with_stats)
    # (numba's thread count is asked only where there are blocks to share: a few
    # microseconds, as much as a pass over small data)
    if n_blocks == 1:
        _block(*args, *(a[0] for a in slots))
    elif numba.get_num_threads() <= 1:
        _pass_blocks(*args, 0, n_blocks, *slots)
    else:
        _pass_blocks_parallel(*args, *slots)
    # the blocks' slots added in block order: no bit depends on the thread count (one
    # block's slot is its own sum, and taken as it is costs no reduction)
    if n_blocks == 1:
        sums, mass, dist, log_z, plogp = (a[0] for a in slots)
    else:
        sums, mass, dist, log_z, plogp = (np.add.reduce(a, axis=0) for a in slots)
    return sums.reshape(B, K, d), mass, dist, log_z, plogp


@numba.njit(cache=True, nogil=True, inline="always")
def _softmax_row(logits, i):  # pragma: no cover - compiled
    """Row ``i`` of ``logits`` into its softmax in place; returns its log normaliser."""
    m = logits.shape[1]
    top = -np.inf
    for k in range(m):
        top = max(top, logits[i, k])
    total = 0.0
    for k in range(m):
        e = np.exp(logits[i, k] - top)
        logits[i, k] = e
        total += e
    for k in range(m):
        logits[i, k] /= total
    return np.log(total) + top


@numba.njit(cache=True, nogil=True, parallel=True)
def _softmax_rows_parallel(logits):  # pragma: no cover - compiled
    """:func:`_softmax_rows_serial`, the rows over numba's threads."""
    n = logits.shape[0]
    log_z = np.empty(n)
    for i in numba.prange(n):
        log_z[i] = _softmax_row(logits, i)
    return log_z


def _softmax_rows_serial(logits):
    """Each row of ``logits`` into its softmax in place; returns the rows' log normalisers."""
    log_z = np.empty(logits.shape[0])
    _softmax_rows_into(logits, log_z)
    return log_z


@numba.njit(cache=True, nogil=True)
def _softmax_rows_into(logits, log_z):  # pragma: no cover - compiled
    """:func:`_softmax_rows_serial` into ``log_z``, allocated by the caller (a kernel that
    allocates nothing compiles no NumPy allocation of its own)."""
    for i in range(logits.shape[0]):
        log_z[i] = _softmax_row(logits, i)


def _softmax_rows(logits):
    """Row softmax in place, returning ``log sum exp`` of each row (the same bits either way).

    Below ``_SOFTMAX_SERIAL`` entries, or on one numba thread, a plain loop: a
    parallel region's launch costs more than the work on small data (the split
    axes of iris, 150 rows, are computed at every temperature).
    """
    if logits.size <= _SOFTMAX_SERIAL or numba.get_num_threads() <= 1:
        return _softmax_rows_serial(logits)
    return _softmax_rows_parallel(logits)


def _softmax_rows_numpy(logits):
    """NumPy twin of :func:`_softmax_rows`, in place as it is."""
    top = logits.max(axis=1, keepdims=True)
    np.exp(logits - top, out=logits)
    total = logits.sum(axis=1, keepdims=True)
    logits /= total
    return np.log(total[:, 0]) + top[:, 0]


class _OneRun:
    """The fixed-point step of one run on small data: the block kernel, block by block.

    The loop around the compiled :func:`_block` is Python with the arithmetic of a
    compiled loop: every sum in order (``np.add.accumulate``'s last entry), logarithms
    by libm (``math.log``), so that no bit depends on NumPy's SIMD loops. A compiled
    loop costs seconds to compile in a new process on a cold cache, and on a few
    blocks of rows saves tens of microseconds a pass.
    """

    def __init__(self, X, x_sq, temperature, mass_constrained, sample_weight):
        w = _NO_WEIGHTS if sample_weight is None else sample_weight
        self.n = X.shape[0] if sample_weight is None else float(np.sum(sample_weight))
        self.inv_t = 1.0 / temperature
        self.mass_constrained = bool(mass_constrained)
        self.blocks = [
            (X[rows], x_sq[rows], w[rows] if w.size else w)
            for rows in (slice(start, start + _BLOCK) for start in range(0, X.shape[0], _BLOCK))
        ]

    def _buffers(self, K, d):
        """The pass's outputs, one slot per block, as views of one array zeroed per pass.

        A pass's sums are read before the next pass overwrites them (the loop keeps
        only the free energy of an earlier pass, as a float).
        """
        n_blocks = len(self.blocks)
        sizes = (K * d, K, K, 1, 1)
        flat = np.zeros(n_blocks * sum(sizes))
        slots, start = [], 0
        for size, shape in zip(sizes, ((K, d), (1, K), (1, K), (1,), (1,)), strict=True):
            slots.append(flat[start : start + n_blocks * size].reshape(n_blocks, *shape))
            start += n_blocks * size
        self._flat, self._slots, self._shape = flat, tuple(slots), (K, d)
        self._views = [tuple(a[blk] for a in slots) for blk in range(n_blocks)]
        self._y_sq = np.empty((1, K))

    def __call__(self, centers, log_w, with_stats):
        """One pass and the centroid condition: (centers, log_w, pass sums) of the step."""
        K, d = centers.shape
        if getattr(self, "_shape", None) != (K, d):
            self._buffers(K, d)
        self._flat.fill(0.0)
        slots = self._slots
        # |y_k|^2 summed in order along the features (an accumulate; a reduce along a
        # contiguous axis is pairwise)
        y_sq = self._y_sq
        y_sq[0] = np.add.accumulate(centers * centers, axis=1)[:, -1]
        lw = log_w.reshape(1, K)
        for (xb, xs, wb), views in zip(self.blocks, self._views, strict=True):
            _block(xb, xs, wb, centers, y_sq, lw, self.inv_t, with_stats, *views)
        # the blocks added in block order (one block's slot is its own sum)
        sums, mass, dist, log_z, plogp = self._views[0]
        for blk in range(1, len(self.blocks)):
            sums += slots[0][blk]
            mass += slots[1][blk]
            dist += slots[2][blk]
            log_z += slots[3][blk]
            plogp += slots[4][blk]
        mass, dist = mass[0], dist[0]
        if mass.min() > 0.0:
            new = sums / mass[:, None]
        else:
            # a code vector with no mass stays where it is
            alive = mass > 0.0
            new = np.where(alive[:, None], sums / np.where(alive, mass, 1.0)[:, None], centers)
        if self.mass_constrained:
            n = self.n
            new_lw = np.array([math.log(m / n) if m > 0.0 else -math.inf for m in mass.tolist()])
        else:
            new_lw = log_w.copy()
        return new, new_lw, (sums, mass, dist, float(log_z[0]), float(plogp[0]))


def _sq_sum(a):
    """``sum a^2``, summed in order."""
    a = a.ravel()
    return float(np.add.accumulate(a * a)[-1])


def _one_run_loop(step, centers, log_w, max_iter, tol, accelerate, final_stats):
    """:func:`_fixed_point_loop` for one run, on :class:`_OneRun`: the same steps and tests."""
    check_level = 2 if final_stats else 0
    shift = np.inf
    step_max = 4.0
    n_iter = 0
    while n_iter < max_iter:
        if not accelerate or max_iter - n_iter < 3:
            new, new_lw, out = step(centers, log_w, check_level)
            shift = _sq_sum(new - centers)
            n_iter += 1
            if shift <= tol:
                if final_stats:
                    return centers, log_w, n_iter, shift, out
                return new, new_lw, n_iter, shift, out
            centers, log_w = new, new_lw
        else:
            c1, lw1, out1 = step(centers, log_w, check_level)
            shift = _sq_sum(c1 - centers)
            if shift <= tol:
                n_iter += 1
                if final_stats:
                    return centers, log_w, n_iter, shift, out1
                return c1, lw1, n_iter, shift, out1
            c2, lw2, out2 = step(c1, lw1, 1)
            r = c1 - centers
            v = c2 - 2.0 * c1 + centers
            norm_r = math.sqrt(_sq_sum(r))
            norm_v = math.sqrt(_sq_sum(v))
            step_length = min(max(norm_r / max(norm_v, 1e-300), 1.0), step_max)
            alpha = -step_length
            jump = centers - 2.0 * alpha * r + (alpha * alpha) * v
            c3, lw3, out3 = step(jump, lw2, 1)
            n_iter += 3
            # keep the extrapolation only where it did not raise the free energy
            good = out3[3] >= out2[3] and bool(np.isfinite(c3).all())
            # a step that overshot shortens the next; one accepted at the cap lengthens it
            if good:
                if step_length >= step_max:
                    step_max = 2.0 * step_max
            else:
                step_max = step_max / 2.0
            step_max = min(max(step_max, 1.0), 1e3)
            if good:
                centers, log_w = c3, lw3
            else:
                centers, log_w = c2, lw2
    out = step(centers, log_w, 2)[2]
    return centers, log_w, n_iter, shift, out
