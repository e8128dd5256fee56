"""Mean-field annealing of pairwise clustering, driven by the clusters' critical temperatures.

The generic engine of :mod:`statmechlearn.cluster._maxent` finds splits by
probing: at every temperature it perturbs each cluster at random and iterates
until the copies separate or close again, and it solves each fixed point by
plain iteration. For pairwise clustering every iteration reads the whole
``n x n`` matrix ``D``, and that engine spends thousands of such products
(most of them in probes above a critical temperature and in critical slowing
down just below one), whatever ``n``. This loop spends them only where
something happens:

* **Splits from the theory.** Cluster ``nu`` becomes unstable below
  ``T_c(nu) = 2 lambda_max(A_nu)``, ``A_nu = W^1/2 B_nu W^1/2`` with
  ``W = diag(p(i | nu))`` and ``B_nu[i, j] = -(D_ij - h_i - h_j) / 2``, ``h`` the
  cluster's mean field: for squared Euclidean ``D``, ``B_nu`` is the Gram matrix
  of the points centred on the cluster's centroid, so ``A_nu`` has the nonzero
  spectrum of the cluster's covariance (Rose's ``2 lambda_max`` rule; the
  constant shift embedding carries it to any symmetric ``D``). A few Lanczos
  steps, one product ``D @ Z`` for all clusters at once and warm-started from
  the last eigenvectors, give every ``T_c(nu)``; no cluster is probed above its
  critical temperature, and the schedule lands just below the next one
  (:meth:`GeometricSchedule.next`).
* **Splits along the unstable mode.** The two copies of a splitting cluster
  start apart along the top eigenvector (``(x_i - y_nu) . e_max`` for points),
  plus a small random part, instead of a ``1e-3`` random perturbation that
  needs hundreds of iterations to grow.
* **Anderson acceleration.** Each fixed point is solved by Anderson mixing of
  the last few iterates (``P`` and ``G = D @ P`` mixed with the same weights, so
  no extra product), which removes most of the iterations of slow contraction
  near a transition and in the soft regime. A mixed step that raises the free
  energy is dropped for the plain one: mixing finds roots, and left alone it
  settles on saddles.
* **Landing where a split happens.** A cluster's ``T_c`` falls as the
  temperature does; the schedule aims at ``T* = (1 - margin) T_c(T*)`` by the
  secant through the last two values instead of chasing ``T_c`` down one
  fixed point at a time.
* **Warm products.** ``G = D @ P`` of the current solution is carried from one
  temperature to the next, so the first iteration at a new temperature is free:
  where the solution is already a fixed point (one cluster above the first
  critical temperature, hard assignments at the end of the schedule) a
  temperature costs no product at all.

Weighted objects (``sample_weight``) multiply each pair's term by ``w_i w_j``: the
products become ``G = D @ (W P)`` (``W = diag(w)``), the cluster masses ``w @ P`` and
each object's entropy counts ``w_i`` times; every formula below holds with those
(:class:`Weighted` carries them through the loop).
"""

import numpy as np

from statmechlearn._core.thin_product import thin_product
from statmechlearn.cluster._maxent import (
    AssignmentPath,
    information_free_energy,
)

__all__ = [
    "ProductCounter",
    "Weighted",
    "cluster_critical_temperatures",
    "mean_fields",
    "pairwise_anneal",
]

_TINY = 1e-300
# Anderson history: more buys little on these maps and costs O(n K m^2) per iteration.
_DEPTH = 6
# A split copy must keep this share of the objects (as in the generic engine).
_MIN_SHARE = 1e-6
# Relative residual of the Lanczos Ritz value used to place the schedule and decide splits:
# the split margin is 5 %, so 1e-4 decides it safely.
_LANCZOS_TOL = 1e-4
_LANCZOS_STEPS = 60
# A split is first solved at this fraction of the temperature it is made at (see the loop).
_SPLIT_DEPTH = 0.8
# Relative slack of the split test at a landing: the schedule aims at (1 - margin) T_c by
# extrapolation, and a landing within 0.1 % of it splits rather than landing once more.
_LANDING_TOL = 1e-3


class ProductCounter:
    """``D @ Z`` with a count of the products (each reads all of ``D``: the unit of cost).

    ``D`` is symmetric, so a Fortran-ordered one is read as its transpose (C-ordered, no
    copy); the products stream it by rows (:func:`~statmechlearn._core.thin_product.thin_product`).
    """

    def __init__(self, D):
        if not D.flags.c_contiguous:
            D = D.T if D.flags.f_contiguous else np.ascontiguousarray(D)
        self.D = D
        self.count = 0

    def __call__(self, Z):
        self.count += 1
        return thin_product(self.D, Z)


class Weighted:
    """Object weights ``w`` of a weighted fit, and the product ``Z -> D @ (W Z)``.

    Parameters
    ----------
    product : callable
        ``Z -> D @ Z`` (counted).
    weights : ndarray of shape (n,)
    """

    def __init__(self, product, weights):
        self.product = product
        self.w = weights
        self.total = float(weights.sum())

    @property
    def count(self):
        return self.product.count

    def __call__(self, Z):
        return self.product(Z * self.w.reshape((-1,) + (1,) * (Z.ndim - 1)))


def _weights_of(product):
    return product.w if isinstance(product, Weighted) else None


def mean_fields(P, G, n, weights=None):
    """Mean fields ``h``, log priors and masses of assignments ``P`` with ``G = D @ P``.

    ``h[i, nu] = G[i, nu] / n_nu - (P_nu . G_nu) / (2 n_nu^2)``, as in
    :func:`statmechlearn.cluster._pairwise._mean_fields`, without the product. With
    ``weights``, ``G = D @ (W P)``, ``n_nu = w @ P_nu`` and ``P_nu . G_nu`` is
    ``(W P_nu) . G_nu``; ``n`` is then the total weight.
    """
    if weights is not None:
        mass = np.maximum(weights @ P, _TINY)
        within = weights @ (P * G) / mass / mass
        return G / mass - 0.5 * within, np.log(mass / n), mass
    mass = np.maximum(_column_sums(P), _TINY)
    # divided twice: mass**2 underflows to 0 for an empty cluster and would give 0/0
    within = _column_sums(P * G) / mass / mass
    h = G / mass - 0.5 * within
    return h, np.log(mass / n), mass


def _energy(P, G, weights=None):
    """Expected pairwise cost ``sum_nu (P_nu . D P_nu) / (2 n_nu)`` from ``G = D @ P``
    (weighted: ``G = D @ (W P)``, ``(W P_nu) . G_nu / (2 w . P_nu)``)."""
    if weights is not None:
        mass = np.maximum(weights @ P, _TINY)
        return 0.5 * float(np.sum(weights @ (P * G) / mass))
    mass = np.maximum(_column_sums(P), _TINY)
    return 0.5 * float(np.sum(_column_sums(P * G) / mass))


def _column_sums(A):
    """``A.sum(axis=0)`` of a tall, thin matrix as one BLAS product: NumPy's reduction
    along the long axis of a C-ordered (2000, 3) array takes 30 µs, the product 2 µs."""
    return np.ones(A.shape[0]) @ A


def _gibbs(h, temperature, log_weights):
    """:func:`~statmechlearn.cluster._maxent.gibbs_assignments` for a few columns.

    The same distribution, with the row maxima taken column by column and the row sums
    as a product: NumPy's reductions across the short axis cost more than the
    exponentials at the sizes of the fixed-point loop (70 µs for the maxima of a
    (2000, 3) array)."""
    logits = h * (-1.0 / temperature)
    logits += log_weights
    top = logits[:, 0].copy()
    for k in range(1, logits.shape[1]):
        np.maximum(top, logits[:, k], out=top)
    logits -= top[:, None]
    np.exp(logits, out=logits)
    logits /= (logits @ np.ones(logits.shape[1]))[:, None]
    return logits


def free_energy(P, G, T, weights=None):
    """Variational free energy of ``P`` (``G = D @ P``), as the generic engine records it;
    with ``weights`` each object's entropy term counts ``w_i`` times."""
    if weights is None:
        return information_free_energy(P, _energy(P, G), T)
    share = weights @ P / weights.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(P > 0, P * (np.log(P) - np.log(share)), 0.0)
    return float(_energy(P, G, weights) + T * (weights @ terms.sum(axis=1)))


def solve(P, G, T, product, *, damping=0.0, max_iter=2000, tol=1e-7, depth=_DEPTH, guard=None):
    """Fixed point of ``P <- Gibbs(h(P), T)`` by Anderson-accelerated iteration.

    The state is the pair ``(P, G = D @ P)``; mixing both with the same weights
    keeps them consistent without a product. One product per iteration.

    Anderson mixing is a root finder: it converges to unstable fixed points as
    readily as to stable ones. After a split the merged state (both copies
    equal) and the states where one copy is empty are such points, and an
    extrapolation can land on them. ``guard=(a, b)`` names the split copies: a
    mixed step that shrinks their gap or the smaller copy's mass to less than
    half of the plain step's is replaced by the plain step, which moves away
    from an unstable point. Away from a split the same happens in general: a
    mixed step whose output has a higher free energy than the last one is
    dropped, and the iteration goes on from the last plain output with a fresh
    history (on random starts below a split the unguarded mixing ended at saddles
    25-35 % above plain iteration's free energy, and on 384 small blob problems
    the whole anneal spent 4.4 times fewer products with the safeguard).

    Returns
    -------
    P, G : ndarray
        The last iterate and its product (the state to continue from).
    out : ndarray
        ``Gibbs(h(P), T)``: the assignments (a valid distribution) at ``T``.
    n_iter : int
        Products spent.
    converged : bool
        ``max |out - P| < tol``.
    """
    w = _weights_of(product)
    n = P.shape[0] if w is None else product.total
    res_hist, out_hist, g_hist = [], [], []
    best = np.inf
    n_iter = 0
    mixed = False  # P is an extrapolation, not the map's last output
    last_energy = np.inf
    while True:
        h, log_w, _ = mean_fields(P, G, n, w)
        out = _gibbs(h, T, log_w)
        if damping:
            out = damping * P + (1.0 - damping) * out
        r = out - P
        change = float(np.max(np.abs(r)))
        if change < tol:
            return P, G, out, n_iter, True
        if n_iter >= max_iter:
            return P, G, out, n_iter, False
        G_out = product(out)
        n_iter += 1
        energy = free_energy(out, G_out, T, w)
        if mixed and energy > last_energy + 1e-12 * abs(last_energy):
            # The extrapolation raised the free energy: it heads for a saddle (Anderson
            # finds roots, stable or not), or the history no longer describes the map.
            # Go on from the last plain output (its product is known) with a fresh
            # history; plain steps are always taken.
            P, G = out_hist[-1], g_hist[-1]
            res_hist, out_hist, g_hist = [], [], []
            mixed = False
            continue
        last_energy = energy
        if change > 1e3 * best:
            # The history no longer describes the map (a jump across a basin): restart it.
            res_hist, out_hist, g_hist = [], [], []
        best = min(best, change)
        res_hist.append(r.ravel())
        out_hist.append(out)
        g_hist.append(G_out)
        if len(res_hist) > depth + 1:
            del res_hist[0], out_hist[0], g_hist[0]
        if len(res_hist) == 1:
            P, G = out, G_out
            mixed = False
            continue
        dR = np.column_stack([res_hist[k + 1] - res_hist[k] for k in range(len(res_hist) - 1)])
        # the normal equations of the least squares (a few columns: 30 µs where lstsq on
        # dR takes 250 µs); their cut-off at 1e-14 of the largest eigenvalue drops the
        # directions of dR below 1e-7 of its largest singular value
        gamma = np.linalg.lstsq(dR.T @ dR, dR.T @ res_hist[-1], rcond=1e-14)[0]
        P_new, G_new = out.copy(), G_out.copy()
        for k, c in enumerate(gamma):
            P_new -= c * (out_hist[k + 1] - out_hist[k])
            G_new -= c * (g_hist[k + 1] - g_hist[k])
        collapsing = guard is not None and _split_size(P_new, guard) < 0.5 * _split_size(out, guard)
        if collapsing or _column_sums(P_new).min() <= 0 or P_new.min() < -0.05:
            # An extrapolation that empties a cluster or leaves the simplex far: plain step.
            res_hist, out_hist, g_hist = res_hist[-1:], out_hist[-1:], g_hist[-1:]
            P, G = out, G_out
            mixed = False
        else:
            P, G = P_new, G_new
            mixed = True


def _split_size(P, pair):
    """How far apart split copies are: their gap times the smaller one's share of their mass."""
    a, b = pair
    ma, mb = P[:, a].sum(), P[:, b].sum()
    return _column_gap(P, a, b) * min(ma, mb) / max(ma + mb, _TINY)


def cluster_critical_temperatures(
    P, h, mass, product, *, starts, tol=_LANCZOS_TOL, max_steps=_LANCZOS_STEPS
):
    """``T_c(nu) = 2 lambda_max(A_nu)`` of every cluster, and its unstable direction.

    Lanczos with full reorthogonalisation on each ``A_nu = W^1/2 B_nu W^1/2``
    (see the module docstring), the clusters advanced together so that one
    product ``D @ Z`` serves a step of all of them.

    Parameters
    ----------
    P : ndarray of shape (n, K)
    h : ndarray of shape (n, K)
        Mean fields of ``P``.
    mass : ndarray of shape (K,)
    product : callable
        ``Z -> D @ Z``.
    starts : list of ndarray of shape (n,)
        Start vectors (the last top eigenvectors, or random).
    tol : float
        Stop a cluster when its Ritz residual is below ``tol`` times its Ritz value.
    max_steps : int

    Returns
    -------
    t_c : ndarray of shape (K,)
    vectors : list of ndarray
        Top eigenvectors of ``A_nu`` (unit norm), to warm-start the next call.
    directions : ndarray of shape (n, K)
        ``B_nu W^1/2 q_nu``: for points ``(x_i - y_nu) . e_max`` up to a factor,
        the coordinate along which cluster ``nu`` splits.
    """
    n, K = P.shape
    sw = np.sqrt(np.maximum(P / mass, 0.0))
    Q = [[] for _ in range(K)]  # Lanczos vectors per cluster
    BZ = [[] for _ in range(K)]  # B_nu W^1/2 q for each Lanczos vector
    alpha = [[] for _ in range(K)]
    beta = [[] for _ in range(K)]
    theta = np.zeros(K)
    ritz = [None] * K
    active = []
    for k in range(K):
        q = starts[k] * 1.0
        norm = np.linalg.norm(q)
        if norm == 0 or not np.isfinite(norm):
            q = np.ones(n)
            norm = np.linalg.norm(q)
        Q[k].append(q / norm)
        active.append(k)
    for _ in range(min(max_steps, n)):
        if not active:
            break
        Z = np.column_stack([sw[:, k] * Q[k][-1] for k in active])
        DZ = product(Z)
        still = []
        for col, k in enumerate(active):
            z = Z[:, col]
            bz = -0.5 * (DZ[:, col] - h[:, k] * z.sum() - (h[:, k] @ z))
            BZ[k].append(bz)
            a = sw[:, k] * bz
            q = Q[k][-1]
            al = float(q @ a)
            alpha[k].append(al)
            a -= al * q
            if len(Q[k]) > 1:
                a -= beta[k][-1] * Q[k][-2]
            V = np.column_stack(Q[k])
            a -= V @ (V.T @ a)  # full reorthogonalisation: a few dozen vectors at most
            b = float(np.linalg.norm(a))
            m = len(alpha[k])
            Tm = np.diag(alpha[k]) + np.diag(beta[k], 1) + np.diag(beta[k], -1)
            w, y = np.linalg.eigh(Tm)
            theta[k], ritz[k] = w[-1], y[:, -1]
            scale = max(abs(w[-1]), abs(w[0]), _TINY)
            if b * abs(y[-1, -1]) <= tol * scale or b <= 1e-13 * scale or m >= n:
                continue
            beta[k].append(b)
            Q[k].append(a / b)
            still.append(k)
        active = still
    vectors, directions = [], np.zeros((n, K))
    for k in range(K):
        m = len(ritz[k])
        V = np.column_stack(Q[k][:m])
        vectors.append(V @ ritz[k])
        directions[:, k] = np.column_stack(BZ[k][:m]) @ ritz[k]
    return 2.0 * np.maximum(theta, 0.0), vectors, directions


def _extrapolated(t_c, T, previous, margin):
    """Critical temperatures as the schedule should aim at them.

    A cluster's ``T_c`` is not a constant: as the temperature drops, its members
    sharpen and ``T_c`` drops too. The schedule lands at ``(1 - margin) T_c`` of the
    current temperature's value, finds ``T_c`` lower there, lands again, and so on, a
    fixed point's worth of products each time, towards the temperature ``T*`` where
    ``T* = (1 - margin) T_c(T*)``. With ``T_c`` at the temperature before, the secant
    ``T_c(T') = T_c + s (T' - T)`` places ``T*`` at once; the value returned for a
    cluster is ``T* / (1 - margin)``, so that the schedule lands at ``T*``. Where the
    secant does not apply (no earlier value, ``T_c`` not falling with ``T``, or no root
    below ``T``) the current value is returned.
    """
    if previous is None:
        return t_c
    T0, t0 = previous
    keep = 1.0 - margin
    out = np.array(t_c, dtype=float)
    for k in range(min(len(out), len(t0))):
        slope = (t_c[k] - t0[k]) / (T - T0)
        if not 0.0 < slope < 1.0 / keep:
            continue
        target = keep * (t_c[k] - slope * T) / (1.0 - keep * slope)
        if 0.0 < target < T:
            out[k] = target / keep
    return out


def _column_gap(P, a, b):
    """Max-norm distance of the normalised columns ``a`` and ``b``, relative to their scale."""
    ca = P[:, a] / max(P[:, a].sum(), _TINY)
    cb = P[:, b] / max(P[:, b].sum(), _TINY)
    return float(np.max(np.abs(ca - cb)) / max(ca.max(), cb.max(), _TINY))


def _merge(out, P, G, atol):
    """Sum coincident columns (a split that closed again) and drop empty ones, in all three."""
    keep, groups = [], []
    for k in range(out.shape[1]):
        if out[:, k].sum() <= 1e-9:
            continue
        for g, j in enumerate(keep):
            if _column_gap(out, j, k) <= atol:
                groups[g].append(k)
                break
        else:
            keep.append(k)
            groups.append([k])
    if len(keep) == out.shape[1]:
        return out, P, G
    merged = [np.column_stack([M[:, g].sum(axis=1) for g in groups]) for M in (out, P, G)]
    out = merged[0] / merged[0].sum(axis=1, keepdims=True)
    return out, merged[1], merged[2]


def _start(vector, rng, n):
    """A Lanczos start: the last top eigenvector, tilted at random so that it cannot be
    orthogonal to the new one; a random vector for a new cluster."""
    xi = rng.standard_normal(n)
    if vector is None:
        return xi
    return vector / np.linalg.norm(vector) + 0.05 * xi / np.linalg.norm(xi)


def _split(P, G, k, direction, rng, noise, product):
    """Cluster ``k`` shared by two copies along ``direction`` (plus relative noise ``noise``)."""
    col = P[:, k]
    weights = _weights_of(product)
    if weights is None:
        w = np.maximum(col, 0.0) / max(col.sum(), _TINY)
    else:
        w = np.maximum(col, 0.0) * weights
        w /= max(w.sum(), _TINY)
    centred = direction - w @ direction
    rms = np.sqrt(w @ centred**2)
    z = centred / rms if rms > 0 else np.zeros_like(centred)
    z = np.clip(z, -30.0, 30.0) + noise * rng.standard_normal(col.shape[0])
    share = 1.0 / (1.0 + np.exp(-z))
    a = col * share
    Ga = product(a[:, None])[:, 0]
    P2 = np.column_stack([P[:, :k], a, P[:, k + 1 :], col - a])
    G2 = np.column_stack([G[:, :k], Ga, G[:, k + 1 :], G[:, k] - Ga])
    return P2, G2


def pairwise_anneal(
    product,
    row_sums,
    n_clusters,
    schedule,
    *,
    rng,
    noise=1e-3,
    damping=0.0,
    max_iter=2000,
    tol=1e-7,
    merge_tol=1e-5,
    first_vector=None,
    first_direction=None,
    first_critical=None,
    adaptive=True,
    verbose=0,
):
    """Anneal pairwise clustering down ``schedule``, splitting clusters below their ``T_c``.

    Parameters
    ----------
    product : ProductCounter or Weighted
        ``Z -> D @ Z`` (or ``D @ (W Z)`` for weighted objects).
    row_sums : ndarray of shape (n,)
        ``product(1)``, the product of the one-cluster solution.
    n_clusters : int
    schedule : GeometricSchedule
    rng : numpy.random.Generator
    noise, damping, max_iter, tol, merge_tol
        As in :class:`~statmechlearn.cluster.PairwiseClustering`.
    first_vector, first_direction, first_critical
        The one-cluster eigenproblem, already solved for ``critical_temperature_``.
    adaptive : bool, default=True
        Land ``SPLIT_MARGIN`` below pending critical temperatures and take the
        engine's settled steps once ``n_clusters`` clusters exist; False runs
        ``schedule`` unrefined.
    verbose : int, default=0
        At 1 or more, print one line per temperature.

    Returns
    -------
    out : ndarray of shape (n, n_found)
        Assignments at the last temperature.
    path : AssignmentPath
        ``n_iter`` counts the products of each temperature (fixed point, splits and
        critical temperatures).
    """
    n = row_sums.shape[0]
    w = _weights_of(product)
    total = n if w is None else product.total
    # the Lanczos steps read D itself: the weights enter through the assignments
    raw = product if w is None else product.product
    min_mass = _MIN_SHARE * total
    P = np.ones((n, 1))
    G = row_sums[:, None].astype(float)
    out = P
    path = AssignmentPath()
    # The one-cluster eigenproblem is the one solved for critical_temperature_.
    t_c = np.array([first_critical])
    vectors, directions = [first_vector], first_direction[:, None]
    fresh = True  # t_c, vectors, directions describe the current clusters
    previous = None  # (T, t_c) of the same clusters at the temperature before
    T = schedule.start
    while T is not None:
        P, G, out, n_iter, converged = solve(
            P, G, T, product, damping=damping, max_iter=max_iter, tol=tol
        )
        if n_iter:
            fresh = False
        out, P, G = _merge(out, P, G, merge_tol)
        if out.shape[1] != len(t_c):
            fresh = False
            previous = None
        failed = set()
        while out.shape[1] < n_clusters:
            if not fresh:
                h, _, mass = mean_fields(P, G, total, w)
                starts = [_start(v, rng, n) for v in vectors]
                before = product.count
                t_c, vectors, directions = cluster_critical_temperatures(
                    P if w is None else P * w[:, None], h, mass, raw, starts=starts
                )
                n_iter += product.count - before
                fresh = True
            unstable = [
                k
                for k in np.argsort(-t_c)
                if k not in failed and T <= (1.0 - schedule.margin) * t_c[k] * (1 + _LANDING_TOL)
            ]
            if not unstable:
                break
            k = int(unstable[0])
            before_split = (P, G, out, converged)
            current = free_energy(out, G, T, w)
            before = product.count
            P2, G2 = _split(P, G, k, directions[:, k], rng, noise, product)
            # Just below T_c the copies' masses form a soft mode: iterations from a fresh split
            # crawl (hundreds of them) or, mixed, slide into a state where one copy is empty.
            # From the split solved a little deeper, where it is robust, they converge fast.
            for t in (_SPLIT_DEPTH * T, T):
                P2, G2, out2, _, conv2 = solve(
                    P2,
                    G2,
                    t,
                    product,
                    damping=damping,
                    max_iter=max_iter,
                    tol=tol,
                    guard=(k, P2.shape[1] - 1),
                )
            n_iter += product.count - before
            last = out2.shape[1] - 1
            if w is None:
                smaller = min(out2[:, k].sum(), out2[:, last].sum())
            else:
                smaller = min(w @ out2[:, k], w @ out2[:, last])
            real = (
                _column_gap(out2, k, last) > merge_tol
                and smaller > min_mass
                and free_energy(out2, G2, T, w) < current - 1e-12 * abs(current)
            )
            if real:
                P, G, out, converged = P2, G2, out2, conv2
                # the halves' unstable modes are new: random starts for both
                vectors = [*vectors[:k], None, *vectors[k + 1 :], None]
                fresh = False
                previous = None
            else:
                # the estimate was above the true instability (non-Euclidean D): not at this T
                P, G, out, converged = before_split
                failed.add(k)
        path.temperature.append(float(T))
        path.free_energy.append(free_energy(out, G, T, w))
        path.n_effective.append(out.shape[1])
        path.n_iter.append(int(n_iter))
        path.converged.append(bool(converged))
        if verbose:
            print(
                f"Temperature {len(path.temperature)}: T={T:.6g}, free energy "
                f"{path.free_energy[-1]:.6g}, {out.shape[1]} clusters, {n_iter} products"
                + ("" if converged else " (max_iter reached)")
                + "."
            )
        pending = []
        if out.shape[1] < n_clusters and fresh:
            pending = [t for t in _extrapolated(t_c, T, previous, schedule.margin) if t > 0]
            previous = (T, t_c.copy())
        else:
            previous = None
        # Once every cluster is found none can split again: no transition is near, and
        # the warm-started fixed point follows the engine's settled steps in a few more
        # iterations each (the path ends hard either way).
        T = schedule.next(
            T, pending if adaptive else (), settled=adaptive and out.shape[1] >= n_clusters
        )
    return out, path
