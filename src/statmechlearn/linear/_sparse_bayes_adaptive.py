"""Message passing of the sparse Bayesian classifier with adaptive damping.

The same fixed point as :func:`~statmechlearn.linear.sparse_bayes_amp` (eqs. 40–41 of
Uda & Kabashima), reached by a damped iteration whose step size adapts to the data:

* **damped in the GAMP form** (Rangan, Schniter, Fletcher, Sarkar, "On the convergence
  of approximate message passing with arbitrary matrices", IEEE Trans. Inf. Theory 65,
  5339 (2019), Alg. 2): with step ``beta`` (damping ``1 - beta``) the output messages
  ``a``, the Onsager coefficient ``Gamma`` and the estimate ``m_bar`` that enters the
  Onsager term of the fields are running averages, ``x <- beta x_new + (1 - beta) x``,
  and so is ``m``. Damping only ``m`` and ``a`` (the fixed-damping kernel) leaves the
  reaction term out of step with the damped messages: on teacher data (N = M = 1000,
  C_t = 0.2) at C = 0.05, kappa = 0.1 that kernel fails in 500-2000 updates at every
  damping tried (0, 0.3, 0.5, 0.8, 0.95, 0.99); this form converges at 0.5 (112 updates);
* **adaptive step**: every update compares the undamped proposal ``m* = <c w>(h)`` with
  the current ``m``. The residual ``d_t = m* - m`` of a damped fixed-point iteration
  flips sign from one update to the next when the step is too long (the damped map's
  Jacobian has an eigenvalue near -1: oscillation) and keeps its direction when it is
  too short (one near +1: slow creep). So ``beta`` is halved when the relative residual grew *and*
  ``d_t`` points against ``d_{t-1}``, and otherwise multiplied by ``exp(0.15 cos)``
  with ``cos`` the cosine between ``d_t`` and ``d_{t-1}`` (capped at 1, floored at
  :data:`MIN_STEP`). The first update is undamped, as in the paper;
* **convergence** is measured on the undamped residual, ``max |m* - m| < tol rms(m*)``,
  which does not shrink with the step (the damped change ``beta |m* - m|`` does);
* **stall**: with ``patience`` set, the iteration stops when the residual has not
  reached a new minimum for ``patience`` updates (an unstable fixed point, e.g. a
  handful of kept components out of N, where no damping converges).

The prior's hyperparameters and the beliefs come from the compiled
:func:`~statmechlearn.linear._sparse_bayes_kernels.prior_update` (the theory's
``match_pruning`` and ``belief_moments`` are its reference). For the smoothed step
channel (every estimator's) the whole iteration runs compiled
(:func:`~statmechlearn.linear._sparse_bayes_kernels.adaptive_step_loop`): at the colon
data's size (42 x 2000) an update is two small matrix-vector products and O(M + N)
arithmetic, and the NumPy loop's per-call overhead (the channel's ``log_ndtr`` and
masks, means, norms) was more than half of it. :func:`adaptive_amp_numpy` is its
reference and serves every other channel, and the rare run whose prior update needs
the bracketing fallback.

Warm starts along the ``(C, kappa)`` grid were measured and left out: from ``m = 0`` the
adaptive iteration needs 7–25 updates where it converges fast, so a warm start saves
5–15 % of the grid's updates and, on teacher data, turned one converging grid point into
a stalled one.
"""

from contextlib import nullcontext

import numpy as np

from statmechlearn._core.threads import one_blas_thread
from statmechlearn.linear._sparse_bayes_kernels import (
    _GAIN,
    _SHRINK,
    adaptive_step_loop,
    prior_update,
)
from statmechlearn.theory.sparse_bayes import SmoothedStepActivation

__all__ = ["MIN_STEP", "adaptive_amp", "adaptive_amp_numpy", "blas_threads_for", "pattern_matrix"]

#: Pattern matrices with at most this many entries are multiplied on one BLAS thread.
SERIAL_BLAS_SIZE = 2**22

#: Smallest step ``beta`` (largest damping ``1 - beta``) the adaptive rule uses.
MIN_STEP = 0.01


def blas_threads_for(F):
    """A context that runs the iteration's matrix-vector products on one BLAS thread if small.

    An update makes two matrix-vector products and little else; below
    :data:`SERIAL_BLAS_SIZE` entries (32 MiB) each takes under a few ms on one thread,
    and splitting it over threads costs a synchronisation per call that dominates as
    soon as another process shares the cores: at N = M = 1000 on a loaded 2-core
    machine a pair of products took 0.7 ms on one OpenBLAS thread and 40 ms on two.
    """
    if F.size > SERIAL_BLAS_SIZE:
        return nullcontext()
    return one_blas_thread()


def pattern_matrix(X, y):
    """``F[mu, l] = y_mu x_{mu l} / sqrt(N)`` for already validated inputs and ``y = +-1``."""
    return y[:, None] * X / np.sqrt(X.shape[1])


def adaptive_amp(F, C, activation, *, max_iter=500, tol=1e-6, patience=None, weights=None):
    """Run eqs. (40)–(41) with adaptive damping from ``m = 0``, compiled where it can.

    Same parameters and returns as :func:`adaptive_amp_numpy`; a
    :class:`~statmechlearn.linear.SmoothedStepActivation` channel with ``C < 1`` runs
    the compiled loop, anything else (or a run whose prior update needs the
    bracketing fallback) the NumPy one.
    """
    if type(activation) is SmoothedStepActivation and C < 1.0:
        F = np.ascontiguousarray(F, dtype=float)
        # the channel's own logs, from its public kappa (as the NumPy channel takes them)
        kappa = float(activation.kappa)
        log_kappa = float(np.log(kappa)) if kappa > 0 else -np.inf
        w = np.ones(F.shape[0]) if weights is None else np.asarray(weights, dtype=float)
        status, m, rho, a, gamma, A, lam, t, converged, stalled, change, steps = adaptive_step_loop(
            F,
            w,
            float(C),
            log_kappa,
            float(np.log1p(-2.0 * kappa)),
            activation.width**2,
            int(max_iter),
            float(tol),
            0 if patience is None else int(patience),
            MIN_STEP,
        )
        if status == 0:
            V = max(C - np.mean(m * m), 1e-12 * C)
            return {
                "m": m,
                "rho": rho,
                "a": a,
                "omega": F @ m - V * a,
                "variance": V,
                "A": A,
                "lam": lam,
                "Gamma": gamma,
                "n_iter": int(t),
                "converged": bool(converged),
                "stalled": bool(stalled),
                "change": np.asarray(change),
                "step": np.asarray(steps),
            }
    return adaptive_amp_numpy(
        F, C, activation, max_iter=max_iter, tol=tol, patience=patience, weights=weights
    )


def adaptive_amp_numpy(F, C, activation, *, max_iter=500, tol=1e-6, patience=None, weights=None):
    """Run eqs. (40)–(41) with adaptive damping from ``m = 0`` (the NumPy iteration).

    Parameters
    ----------
    F : ndarray of shape (M, N)
        Pattern matrix ``y_mu x_mu / sqrt(N)`` (:func:`pattern_matrix`).
    C : float
        Fraction of active components, in ``(0, 1]``.
    activation : object
        Output channel with ``log_partition(h, V)``.
    max_iter : int, default=500
        Updates at most.
    tol : float, default=1e-6
        Stop when the undamped residual ``max |m* - m|`` is below ``tol rms(m*)``.
    patience : int, optional
        Stop unconverged after this many updates without a new smallest residual.
    weights : ndarray of shape (M,), optional
        Sample weights: example ``mu``'s messages ``a_mu`` and ``b_mu`` enter the
        fields ``theta = F^T (w a)`` and ``Gamma = sum w b / N`` times ``w_mu``. For an
        integer weight this is the iteration on the data with the example repeated
        (every copy a factor of its own, with the same messages).

    Returns
    -------
    dict
        As :func:`~statmechlearn.linear.sparse_bayes_amp` (``m``, ``rho``, ``a``,
        ``omega``, ``variance``, ``A``, ``lam``, ``Gamma``, ``n_iter``, ``converged``,
        ``change``: the relative residual per update), plus ``step`` (``beta`` per
        update) and ``stalled``.
    """
    n_samples, n_features = F.shape
    m = np.zeros(n_features)
    m_bar = np.zeros(n_features)
    a = np.zeros(n_samples)
    gamma, A, lam = 0.0, None, None
    beta = 1.0
    change, steps = [], []
    d_prev, res_prev, best, since_best = None, np.inf, np.inf, 0
    converged = stalled = False
    rho = np.zeros(n_features)
    t = 0
    for t in range(1, max_iter + 1):
        V = max(C - np.mean(m * m), 1e-12 * C)
        omega = F @ m - V * a
        _, a_new, b = activation.log_partition(omega, V)
        if weights is not None:
            b = weights * b
        gamma_new = np.sum(b) / n_features
        if t == 1:
            # the paper's first update, undamped from m = 0
            a, gamma, m_bar = a_new, gamma_new, m
        else:
            a = beta * a_new + (1.0 - beta) * a
            gamma = beta * gamma_new + (1.0 - beta) * gamma
            m_bar = beta * m + (1.0 - beta) * m_bar
        h = F.T @ (a if weights is None else weights * a) - gamma * m_bar
        A, lam, rho, proposal = prior_update(h, C, A, lam)
        d = proposal - m
        scale = np.sqrt(np.mean(proposal * proposal))
        res = float(np.max(np.abs(d)) / scale) if scale > 0 else 0.0
        change.append(res)
        steps.append(beta)
        if not np.isfinite(res):
            m = proposal
            break
        if res < tol:
            m = proposal
            converged = True
            break
        if d_prev is not None:
            norms = np.linalg.norm(d) * np.linalg.norm(d_prev)
            cos = float(d @ d_prev) / norms if norms > 0 else 0.0
            if res > res_prev and cos < 0.0:
                beta = max(beta * _SHRINK, MIN_STEP)
            else:
                beta = min(1.0, max(beta * np.exp(_GAIN * cos), MIN_STEP))
        d_prev, res_prev = d, res
        m = beta * proposal + (1.0 - beta) * m
        if res < best:
            best, since_best = res, 0
        else:
            since_best += 1
            if patience is not None and since_best >= patience:
                stalled = True
                break
    V = max(C - np.mean(m * m), 1e-12 * C)
    omega = F @ m - V * a
    return {
        "m": m,
        "rho": rho,
        "a": a,
        "omega": omega,
        "variance": V,
        "A": A,
        "lam": lam,
        "Gamma": gamma,
        "n_iter": t,
        "converged": converged,
        "stalled": stalled,
        "change": np.asarray(change),
        "step": np.asarray(steps),
    }
