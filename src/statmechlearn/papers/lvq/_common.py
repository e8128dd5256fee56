"""What every LVQ figure shares: the paper key, its citation, the label order and the
batched on-line simulation of a learning curve (the library's own WTA kernel).
"""

import numpy as np

from statmechlearn.lvq import wta_online_updates, wta_overlap_updates, wta_rule
from statmechlearn.models import LabeledMixture
from statmechlearn.theory.lvq_dynamics import (
    paper_initial_overlaps,
)

__all__ = ["CITATION", "LABELS", "PAPER", "simulate_learning_curve"]


PAPER = "lvq"


CITATION = (
    "M. Biehl, A. Ghosh, B. Hammer, Learning Vector Quantization: the dynamics of "
    "winner-takes-all algorithms"
)


LABELS = (1, -1)


_SYMBOL = {1: "+", -1: "-"}


def simulate_learning_curve(
    rule,
    alphas,
    *,
    n_features,
    p_plus,
    lam,
    eta,
    rng,
    v_plus=1.0,
    v_minus=1.0,
    init=None,
    n_runs=1,
    in_order_parameters=False,
):
    """Monte Carlo of on-line WTA learning with two prototypes (eq. 1).

    Parameters
    ----------
    rule : {"lvq1", "lvq+", "vq"}
        Update rule.
    alphas : array_like of shape (n_alphas,)
        Non-decreasing times alpha = mu / N at which overlaps are recorded;
        ``round(alpha * N)`` examples have been presented at each.
    n_features : int
        Dimension N.
    p_plus, lam, eta : float
        Model prior, separation and learning rate.
    v_plus, v_minus : float, default=1.0
        Cluster variances.
    rng : numpy.random.Generator
        Stream for the initial prototypes and the data.
    init : tuple (R, Q), optional
        Initial overlaps; default the paper's (R = 0, Q = diag(1e-4, 1e-4)).
    n_runs : int, default=1
        Independent runs advanced together along the kernel's run axis.
    in_order_parameters : bool, default=False
        Run the exact order-parameter chain
        (:func:`~statmechlearn.lvq.wta_overlap_updates`: the same law at every N,
        O(1) work per example) instead of N-dimensional prototypes; one run at a time.

    Returns
    -------
    R : ndarray of shape (n_runs, n_alphas, 2, 2)
    Q : ndarray of shape (n_runs, n_alphas, 2, 2)
    eps_g : ndarray of shape (n_runs, n_alphas)
        Exact generalization error of the prototypes at each time.
    """
    a, b = wta_rule(rule)
    model = LabeledMixture(
        n_features=n_features, p_plus=p_plus, lam=lam, v_plus=v_plus, v_minus=v_minus
    )
    R0, Q0 = paper_initial_overlaps() if init is None else init
    if in_order_parameters:
        return _chain_curve(model, alphas, R0, Q0, eta, a, b, rng, n_runs)
    W = np.stack([model.prototypes_from_overlaps(R0, Q0, rng) for _ in range(n_runs)])
    steps = np.round(np.asarray(alphas, dtype=float) * n_features).astype(np.int64)
    if np.any(np.diff(steps) < 0) or steps[0] < 0:
        raise ValueError("alphas must be non-negative and non-decreasing")
    R = np.empty((n_runs, steps.size, 2, 2))
    Q = np.empty((n_runs, steps.size, 2, 2))
    eps = np.empty((n_runs, steps.size))
    done = 0
    for i, target in enumerate(steps):
        if target > done:
            if n_runs == 1:
                # one run: the same stream a chunk at a time, in bounded memory
                for X, y in model.sample_chunks(int(target - done), rng):
                    wta_online_updates(
                        W, X[None], y[None], LABELS, learning_rate=eta / n_features, a=a, b=b
                    )
            else:
                X, y = model.sample(int(target - done), rng, batch_shape=(n_runs,))
                wta_online_updates(W, X, y, LABELS, learning_rate=eta / n_features, a=a, b=b)
            done = int(target)
        R[:, i], Q[:, i] = model.overlaps(W)
        eps[:, i] = model.generalization_error(W, LABELS)
    return R, Q, eps


def _chain_curve(model, alphas, R0, Q0, eta, a, b, rng, n_runs):
    """:func:`simulate_learning_curve` on the order-parameter chain."""
    from statmechlearn.theory.lvq_dynamics import generalization_error

    N = model.n_features
    steps = np.round(np.asarray(alphas, dtype=float) * N).astype(np.int64)
    if np.any(np.diff(steps) < 0) or steps[0] < 0:
        raise ValueError("alphas must be non-negative and non-decreasing")
    R = np.empty((n_runs, steps.size, 2, 2))
    Q = np.empty((n_runs, steps.size, 2, 2))
    for r in range(n_runs):
        Rr, Qr = np.array(R0, dtype=float), np.array(Q0, dtype=float)
        done = 0
        for i, target in enumerate(steps):
            Rr, Qr = wta_overlap_updates(
                Rr,
                Qr,
                int(target - done),
                model=model,
                prototype_labels=LABELS,
                learning_rate=eta / N,
                a=a,
                b=b,
                random_state=rng,
            )
            done = int(target)
            R[r, i], Q[r, i] = Rr, Qr
    eps = generalization_error(
        R, Q, p_plus=model.p_plus, lam=model.lam, v_plus=model.v_plus, v_minus=model.v_minus
    )
    return R, Q, eps


def _complete_runs(da):
    """``da`` of the runs whose whole curve is finite (NaN elsewhere)."""
    done = da.notnull().all([d for d in da.dims if d not in ("seed", "alpha_sim")])
    return da.where(done)
