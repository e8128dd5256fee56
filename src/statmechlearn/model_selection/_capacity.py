"""Capacity of a discrete memoryless channel by Blahut–Arimoto (lecture notes §8, §9.11).

The capacity ``C = max_{p(x)} I(X; Y)`` of a channel ``W(y|x)`` is the
largest rate at which messages can cross it with vanishing error. Blahut
(1972) and Arimoto (1972) find it by alternating maximisation: with the
output distribution ``q = r W`` of the current input ``r`` and the
divergences ``D_x = KL(W(.|x) || q)``,

* ``r(x) <- r(x) exp(D_x) / sum_x' r(x') exp(D_x')``, and
* ``I_L = log sum_x r(x) exp(D_x) <= C <= I_U = max_x D_x``,

so every step brackets ``C``; the iteration stops when the bracket is
narrower than ``tol``. The rate of the next input is at least ``I_L``
(it maximises the same auxiliary functional whose value at ``r`` is
``I_L``), so the returned ``capacity`` is achieved by the returned input
distribution and lies within ``gap`` of the true ``C``.

:func:`statmechlearn.cluster.rate_distortion` runs the other Blahut–Arimoto
iteration, the minimisation of ``I(X; Xhat)`` over test channels at a
fixed slope; the two share the Shannon quantities of
``statmechlearn._core.information`` and nothing else (one iterates a test
channel ``p(xhat|x)`` per multiplier, this one an input distribution).
"""

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import rel_entr

from statmechlearn._core.exceptions import ConvergenceWarning
from statmechlearn._core.information import _unit
from statmechlearn._core.validation import check_int, check_real
from statmechlearn._core.warn import warn

__all__ = ["ChannelCapacity", "channel_capacity"]

#: Allowed deviation of a channel row's total from one.
_ROW_ATOL = 1e-9


@dataclass(frozen=True)
class ChannelCapacity:
    """Capacity of a discrete memoryless channel and the input that achieves it.

    Attributes
    ----------
    capacity : float
        ``I(X; Y)`` of :attr:`input_distribution`, in the unit asked for: a
        lower bound on the capacity ``C``, within :attr:`gap` of it.
    input_distribution : ndarray of shape (n_inputs,)
        ``p(x)`` that achieves :attr:`capacity`.
    output_distribution : ndarray of shape (n_outputs,)
        ``q(y) = sum_x p(x) W(y|x)``.
    upper_bound : float
        Smallest ``max_x KL(W(.|x) || q)`` seen along the iteration: ``C <=
        upper_bound``.
    gap : float
        ``upper_bound - capacity >= 0``: ``C`` lies in ``[capacity,
        capacity + gap]``; below ``tol`` when converged.
    n_iter : int
        Blahut–Arimoto steps.
    converged : bool
        Whether the bracket closed to ``tol`` within ``max_iter`` steps.
    base : str
        ``"bits"`` or ``"nats"``.
    """

    capacity: float
    input_distribution: np.ndarray
    output_distribution: np.ndarray
    upper_bound: float
    gap: float
    n_iter: int
    converged: bool
    base: str


def _check_channel(channel):
    if np.iscomplexobj(channel):
        raise TypeError("channel must be real transition probabilities, got complex values")
    W = np.asarray(channel, dtype=float)
    if W.ndim != 2:
        raise ValueError(f"channel must be 2-dimensional (inputs x outputs), got shape {W.shape}")
    if W.size == 0:
        raise ValueError(f"channel must not be empty, got shape {W.shape}")
    if not np.all(np.isfinite(W)):
        raise ValueError("channel must be finite (no NaN or inf)")
    if np.any(W < 0):
        raise ValueError(
            f"channel must be non-negative (probabilities W(y|x)), smallest entry {W.min():g}"
        )
    totals = W.sum(axis=1)
    bad = np.flatnonzero(np.abs(totals - 1.0) > _ROW_ATOL)
    if bad.size:
        raise ValueError(
            f"channel rows must each sum to 1 (within {_ROW_ATOL:g}): W(.|x) is a distribution; "
            f"row {int(bad[0])} sums to {totals[bad[0]]!r}"
        )
    return W


def _divergences(W, log_r):
    """``KL(W(.|x) || q)`` in nats for every input, and ``q = r W``."""
    q = np.exp(log_r) @ W
    return rel_entr(W, q).sum(axis=1), q


def channel_capacity(channel, *, base="bits", max_iter=100_000, tol=1e-12):
    """Capacity ``C = max_{p(x)} I(X; Y)`` of a discrete memoryless channel (Blahut–Arimoto).

    Each step re-weights the input by ``exp(KL(W(.|x) || q))`` in log space
    and brackets the capacity between ``log sum_x p(x) exp(KL(W(.|x) || q))``
    and ``max_x KL(W(.|x) || q)`` (notes §8: all rates below ``C`` are
    achievable; ``docs/derivations/channel_capacity.md``).

    Parameters
    ----------
    channel : array_like of shape (n_inputs, n_outputs)
        Transition probabilities ``W(y|x)``: finite, non-negative, each row
        summing to 1 (within 1e-9).
    base : {"bits", "nats"}, default="bits"
        Unit of the capacity, its bounds and ``tol``.
    max_iter : int, default=100000
        Largest number of steps (>= 1). The bracket closes geometrically, but
        slowly when an input that the optimum leaves unused is nearly as
        informative as the used ones (its weight decays like
        ``exp(-(C - D_x) t)``): a few per cent of random channels need
        thousands of steps for ``tol=1e-12``.
    tol : float, default=1e-12
        Stop when the bracket ``I_U - I_L`` is narrower than this (>= 0, in
        the unit of ``base``).

    Returns
    -------
    ChannelCapacity

    Warns
    -----
    ConvergenceWarning
        When the bracket is still wider than ``tol`` after ``max_iter``
        steps (the result is then a valid lower bound with its ``gap``).

    Examples
    --------
    Binary symmetric channel with crossover 0.1: ``C = 1 - H(0.1)``.

    >>> from statmechlearn.model_selection import channel_capacity
    >>> result = channel_capacity([[0.9, 0.1], [0.1, 0.9]])
    >>> round(result.capacity, 6), result.input_distribution.tolist()
    (0.531004, [0.5, 0.5])
    """
    W = _check_channel(channel)
    unit = _unit(base)
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    tol = check_real(tol, "tol", minimum=0.0)
    log_r = np.full(W.shape[0], -math.log(W.shape[0]))
    D, q = _divergences(W, log_r)
    upper = math.inf
    converged = False
    for it in range(1, max_iter + 1):  # noqa: B007 - it is reported after the loop
        weighted = log_r + D
        # by hand: scipy's logsumexp dispatch costs more than this arithmetic, per step
        top = float(weighted.max())
        lower = top + math.log(float(np.exp(weighted - top).sum()))
        upper = min(upper, float(D.max()))
        log_r = weighted - lower
        D, q = _divergences(W, log_r)
        if (upper - lower) / unit < tol:
            converged = True
            break
    r = np.exp(log_r)
    rate = float(r @ D)
    upper = min(upper, float(D.max()))
    if not converged:
        warn(
            f"channel_capacity: the Blahut–Arimoto bracket is {(upper - rate) / unit:.3g} "
            f"{base} wide after max_iter={max_iter} steps (tol={tol:g}); "
            "the capacity returned is a lower bound",
            ConvergenceWarning,
        )
    # I(r_next) >= I_L(r) holds exactly; rounding can leave it a few ulps above upper
    gap = max(upper - rate, 0.0) / unit
    return ChannelCapacity(
        capacity=rate / unit,
        input_distribution=r,
        output_distribution=q,
        upper_bound=upper / unit,
        gap=gap,
        n_iter=it,
        converged=converged,
        base=base,
    )
