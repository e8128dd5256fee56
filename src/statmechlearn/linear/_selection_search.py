"""The minimum of the hard-selection energy (10) from several starts (Dietrich & Opper).

EM for the hard selection, eqs. (26)-(28), is a descent on the energy (10)
from one start, and at large alpha and a large fraction of outliers the
energy has many local minima: from the soft solution or the teacher's
selection it can fall into the trivial state V = 0 while a state far below
it exists. :func:`hard_selection_search` descends from several starts at
once and keeps the lowest state.

The descent is exact coordinate descent on a variational form of (10). With
``k = sum V``, ``A = 1 + gamma k / N`` and ``b = gamma sum V S xi / sqrt(N)``
the energy per N is ``E(V) = eta k / N - |b|^2 / (2 N A) + ln(A) / 2``
(:func:`~statmechlearn.linear.hard_selection_energy`), and since
``-|b|^2 / (2A) = min_J [A |J|^2 / 2 - b.J]``,

    N E(V) = min_J F(V, J),
    F(V, J) = sum_mu V_mu c_mu(J) + |J|^2 / 2 + (N / 2) ln(1 + gamma k / N),
    c_mu(J) = eta + gamma |J|^2 / (2 N) - gamma S_mu xi_mu.J / sqrt(N),

minimised over J at ``<J> = b / A`` (eq. 28). For a fixed J, F depends on V
through the sum of the selected costs and through k alone, so its minimum
over all 2^P selections is the k smallest costs for the best k (one sort and
a cumulative sum). Alternating the two exact minimisations never raises F,
and F equals N E(V) after every J-step, so the energy (10) descends
monotonically; EM's V-step (eq. 26) is the same with the logarithm
linearised at the previous k. Its fixed points are then refined by exact
single-example flips (the change of (10) with J re-optimised) until no flip
lowers the energy. The derivation is in
``docs/derivations/outliers_hard_branches.md``.

All starts share X: the fields of every start's J are one product
``X @ J.T`` and the sums ``b`` one product ``(V S) @ X``, so m starts cost
about as much as one.
"""

import numpy as np

from statmechlearn._core.validation import check_array_finite, check_int
from statmechlearn.linear._selection_em import (
    _flip_gain_terms,
    _hard_em,
    _selection_energy,
)
from statmechlearn.linear._selection_kernels import descent_step

__all__ = [
    "HARD_START_QUANTILES",
    "SearchResult",
    "direction_starts",
    "hard_selection_search",
    "hebb_quantile_starts",
]


#: Fractions of the examples selected by the Hebb-field quantile starts.
HARD_START_QUANTILES = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.85)


class SearchResult:
    """The lowest state :func:`hard_selection_search` found.

    Attributes
    ----------
    J : ndarray of shape (N,)
        ``<J>`` of eq. (28) given ``V``; zero for the trivial state.
    V : ndarray of shape (P,)
        The selection, 0 or 1.
    energy : float
        Energy (10) per N of ``V``, without its V-independent constants (the
        trivial state V = 0 has energy 0).
    start : int
        Index of the start whose descent reached ``V``; -1 when the trivial
        state is below every state reached.
    energies : ndarray of shape (n_descents,)
        Energy per N reached by each descent: one per start, then (with
        ``em_fixed_points``) one per start's EM fixed point.
    trivial_lowest : bool
        True when the trivial state is below every state reached, which is
        then returned.
    n_iter : int
        Coordinate-descent and flip iterations, together.
    converged : bool
        Whether every start's descent stopped at a state that no single flip
        lowers within ``max_iter``.
    """

    def __init__(self, J, V, energy, start, energies, trivial_lowest, n_iter, converged):
        self.J, self.V, self.energy, self.start = J, V, energy, start
        self.energies, self.trivial_lowest = energies, trivial_lowest
        self.n_iter, self.converged = n_iter, converged


def hebb_quantile_starts(X, S, quantiles=HARD_START_QUANTILES):
    """Selections of the examples with the largest Hebb field ``S xi . sum_nu S xi``.

    Parameters
    ----------
    X : ndarray of shape (P, N)
    S : ndarray of shape (P,), +-1
    quantiles : sequence of float in (0, 1]
        Fraction of the examples each start selects.

    Returns
    -------
    ndarray of shape (len(quantiles), P)
    """
    h = S * (X @ (S @ X))
    order = np.argsort(-h, kind="stable")
    starts = np.zeros((len(quantiles), X.shape[0]))
    for i, q in enumerate(quantiles):
        starts[i, order[: max(1, round(q * X.shape[0]))]] = 1.0
    return starts


def direction_starts(X, S, n_directions=4, quantiles=(0.1, 0.25, 0.5)):
    """Selections of the examples of largest field along the leading principal axes of X.

    The informative examples' centres ``+-m`` add ``rho |m|^2`` to the second
    moment of X along ``m``, so ``m`` is near a leading eigenvector of
    ``X.T @ X`` whatever the labels; each of the ``n_directions`` leading
    eigenvectors ``u``, with either sign, gives the selections of the
    examples of largest ``S xi . u`` at each fraction of ``quantiles``.

    Parameters
    ----------
    X : ndarray of shape (P, N)
    S : ndarray of shape (P,), +-1
    n_directions : int, default=4
        Eigenvectors used (at most N).
    quantiles : sequence of float in (0, 1], default=(0.1, 0.25, 0.5)

    Returns
    -------
    ndarray of shape (2 * min(n_directions, N) * len(quantiles), P)
    """
    _, vectors = np.linalg.eigh(X.T @ X)
    P = X.shape[0]
    starts = []
    for u in vectors[:, ::-1][:, : min(n_directions, X.shape[1])].T:
        for sign in (1.0, -1.0):
            order = np.argsort(-sign * S * (X @ u), kind="stable")
            for q in quantiles:
                V = np.zeros(P)
                V[order[: max(1, round(q * P))]] = 1.0
                starts.append(V)
    return np.array(starts)


def _state(X, S, V, gamma, eta):
    """``b`` (m, N) and energy per N (m,) of the selections V (m, P): one pass over X."""
    N = X.shape[1]
    # X.T @ W.T: OpenBLAS's threaded (m, P) @ (P, N) with m << P is 40x slower
    b = gamma * (X.T @ (V * S).T).T / np.sqrt(N)
    return b, _selection_energy(np.einsum("mn,mn->m", b, b), V.sum(axis=1), N, gamma, eta)


def _moved_state(X, S, V, trial, b, gamma, eta):
    """``b`` and energy per N of the selections ``trial`` from ``b`` of ``V``.

    Late in a descent a step changes few examples and ``b`` moves by their
    ``w_mu = gamma S_mu xi_mu / sqrt(N)``: only those rows of X are read. A
    selection that changed in many examples is summed anew.
    """
    P, N = X.shape
    new_b = np.empty_like(b)
    for r in range(trial.shape[0]):
        changed = np.flatnonzero(trial[r] != V[r])
        if changed.size > P // 8:
            new_b[r] = gamma * ((trial[r] * S) @ X) / np.sqrt(N)
        else:
            delta = (trial[r, changed] - V[r, changed]) * S[changed]
            new_b[r] = b[r] + gamma * (delta @ X[changed]) / np.sqrt(N)
    bb = np.einsum("mn,mn->m", new_b, new_b)
    return new_b, _selection_energy(bb, trial.sum(axis=1), N, gamma, eta)


def _best_selection(cost, gamma, N):
    """Exact ``argmin_V F(V, J)`` for each row of ``cost``: the k smallest costs at the best k.

    The k-th example selected adds its cost and ``(N/2) ln(A_k / A_{k-1})``,
    which lies in ``[N gamma / (2 (N + gamma k_max)), gamma / 2]`` for the
    ``k_max`` examples of negative cost. So every example of cost below
    ``-gamma / 2`` is in the minimum, none above minus the lower bound is, and
    only the band between them is sorted.
    """
    V = np.zeros_like(cost)
    for r in range(cost.shape[0]):
        c = cost[r]
        negative = np.flatnonzero(c < 0.0)
        if negative.size == 0:
            continue
        lowest = 0.5 * N * gamma / (N + gamma * negative.size)
        sure = negative[c[negative] < -0.5 * gamma]
        band = negative[(c[negative] >= -0.5 * gamma) & (c[negative] < -lowest)]
        band = band[np.argsort(c[band], kind="stable")]
        k = sure.size + np.arange(band.size + 1)
        total = np.concatenate(([0.0], np.cumsum(c[band]))) + 0.5 * N * np.log1p(gamma * k / N)
        V[r, sure] = 1.0
        V[r, band[: int(np.argmin(total))]] = 1.0
    return V


def _flip_step(X, S, V, b, energy, gains, tiny, gamma, eta):
    """Exact single-example flips: the t best improving ones at once, t halved until (10) drops.

    ``gains`` are the exact changes of the energy per N of each single flip.
    Returns the new (V, b, energy) and whether each row moved; a row with no
    improving flip is a local minimum of (10) under single flips.
    """
    # only the improving flips are ranked: late in a descent they are few of P
    order = []
    for g in gains:
        improving = np.flatnonzero(g < -tiny)
        order.append(improving[np.argsort(g[improving], kind="stable")])
    n_improving = np.array([o.size for o in order], dtype=int)
    moved = np.zeros(V.shape[0], dtype=bool)
    V, b, energy = V.copy(), b.copy(), energy.copy()
    t = n_improving.copy()
    pending = t > 0
    while pending.any():
        rows = np.nonzero(pending)[0]
        trial = V[rows].copy()
        for i, r in enumerate(rows):
            chosen = order[r][: t[r]]
            trial[i, chosen] = 1.0 - trial[i, chosen]
        tb, te = _moved_state(X, S, V[rows], trial, b[rows], gamma, eta)
        lower = te < energy[rows] - tiny
        done = rows[lower]
        V[done], b[done], energy[done] = trial[lower], tb[lower], te[lower]
        moved[done] = True
        pending[done] = False
        # a single improving flip always lowers (10): its gain is exact
        stop = rows[~lower & (t[rows] == 1)]
        pending[stop] = False
        t[rows[~lower]] = np.maximum(1, t[rows[~lower]] // 2)
    return V, b, energy, moved


def descent_step_numpy(X, S, V, b, energy, rows, bw, w2, gamma, eta, tiny):
    """NumPy twin of :func:`~statmechlearn.linear._selection_kernels.descent_step`."""
    N = X.shape[1]
    status = np.zeros(rows.size, dtype=np.int64)
    Vi, bi = V[rows], b[rows]
    k = Vi.sum(axis=1)
    A = 1.0 + gamma * k / N
    bb = np.einsum("mn,mn->m", bi, bi)
    cost = eta + gamma * bb[:, None] / (2.0 * N * A[:, None] ** 2) - bw / A[:, None]
    trial = _best_selection(cost, gamma, N)
    trial_b, trial_energy = _moved_state(X, S, Vi, trial, bi, gamma, eta)
    moved = trial_energy < energy[rows] - tiny
    keep = rows[moved]
    V[keep], b[keep], energy[keep] = trial[moved], trial_b[moved], trial_energy[moved]
    status[moved] = 1
    # where the coordinate step is stuck, the exact single flips at the same b
    if not moved.all():
        st = ~moved
        gains = _flip_gain_terms(bb[st, None], k[st, None], bw[st], w2, Vi[st], gamma, eta, N) / N
        stuck = rows[st]
        fV, fb, fe, flipped = _flip_step(
            X, S, Vi[st], bi[st], energy[stuck], gains, tiny, gamma, eta
        )
        V[stuck], b[stuck], energy[stuck] = fV, fb, fe
        status[np.flatnonzero(st)[flipped]] = 2
    return status


def _descend(X, S, V, gamma, eta, max_iter, step=descent_step):
    """Coordinate descent, then single flips, repeated until neither lowers (10).

    One pass over X per iteration: the products ``b . w_mu`` of every example
    give both the coordinate step's costs at ``J = b / A`` and the exact
    single-flip gains at the same ``b``; the ``b`` of each trial selection is
    updated from the examples it changes (``step``, compiled, or its NumPy
    twin). ``b`` and the energies are summed anew from X at the end.
    """
    N = X.shape[1]
    w2 = gamma**2 * np.einsum("pn,pn->p", X, X) / N
    V = np.ascontiguousarray(V, dtype=np.float64)
    b, energy = _state(X, S, V, gamma, eta)
    active = np.ones(V.shape[0], dtype=bool)
    n_iter = 0
    tiny = 1e-12
    while active.any() and n_iter < max_iter:
        n_iter += 1
        idx = np.nonzero(active)[0]
        # b . w_mu, the iteration's one pass over X, laid out (descents, examples)
        bw = b[idx] @ X.T
        bw *= S * (gamma / np.sqrt(N))
        status = step(X, S, V, b, energy, idx, bw, w2, gamma, eta, tiny)
        active[idx[status == 0]] = False
        # descents that met continue as one: the later copies stop
        for i in np.nonzero(active)[0]:
            earlier = np.nonzero(np.abs(energy[:i] - energy[i]) < 1e-9)[0]
            if any(np.array_equal(V[j], V[i]) for j in earlier):
                active[i] = False
    b, energy = _state(X, S, V, gamma, eta)
    return V, b, energy, n_iter, ~active


def hard_selection_search(X, S, *, gamma, eta, starts, max_iter=500, em_fixed_points=True):
    """The lowest energy (10) over descents from several starting selections.

    Each start descends by exact coordinate descent on ``F(V, J)`` (the
    module's docstring) and exact single-example flips until neither lowers
    the energy; the lowest state reached is returned, or the trivial state
    V = 0 (energy 0) when it is lower than all of them.

    Parameters
    ----------
    X : ndarray of shape (P, N)
    S : ndarray of shape (P,), +-1
    gamma : float
        The learner's gamma~ (> 0).
    eta : float
    starts : ndarray of shape (n_starts, P)
        Starting selections, 0 or 1.
    max_iter : int, default=500
        Bound on the descent's iterations (each one pass over X for all starts).
    em_fixed_points : bool, default=True
        Also descend from the fixed point that the published EM
        (:func:`~statmechlearn.linear.hard_selection_em`, eqs. 26-28 with its
        single-flip polish) reaches from each start: the result is then at or
        below EM's from every start.

    Returns
    -------
    SearchResult
    """
    X = np.ascontiguousarray(check_array_finite(X, "X", ndim=2), dtype=np.float64)
    P, N = X.shape
    S = np.asarray(check_array_finite(S, "S", shape=(P,)), dtype=np.float64)
    starts = np.array(check_array_finite(starts, "starts", ndim=2), dtype=np.float64)
    if starts.shape[1] != P or starts.shape[0] == 0:
        raise ValueError(f"starts must have shape (n_starts, {P}), got {starts.shape}")
    if not np.all((starts == 0.0) | (starts == 1.0)):
        raise ValueError("starts must hold selections 0 or 1")
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    gamma, eta = float(gamma), float(eta)
    if em_fixed_points:
        # the published EM's fixed point of every start descends too, so the search ends
        # at or below what EM (26)-(28) with its flip polish reaches from the same starts
        # at once: one product over the shared X per EM step for all starts
        m = starts.shape[0]
        em = _hard_em(
            X[None], S[None], starts.copy(), np.full(m, gamma), np.full(m, eta), max_iter, True
        )
        starts = np.vstack([starts, em.V])
    V, b, energies, n_iter, converged = _descend(X, S, starts, gamma, eta, max_iter)
    best = int(np.argmin(energies))
    if energies[best] < 0.0:
        k = V[best].sum()
        J = b[best] / (1.0 + gamma * k / N)
        return SearchResult(
            J, V[best], float(energies[best]), best, energies, False, n_iter, bool(converged.all())
        )
    return SearchResult(
        np.zeros(N), np.zeros(P), 0.0, -1, energies, True, n_iter, bool(converged.all())
    )
