"""Typical sets of i.i.d. sources (lecture notes §8.1).

The typical set ``A_eps^(n)`` holds the sequences whose per-symbol surprise
``-(1/n) log2 P(x_1..x_n)`` lies within ``eps`` of the entropy ``H``. For an
i.i.d. source the surprise depends on the sequence only through its type
(the count of each symbol), so the set is a union of type classes: its size
and probability are exact sums over the ``C(n + k - 1, k - 1)`` types, each
class of multinomial size.
"""

import math
from dataclasses import dataclass

import numpy as np

from statmechlearn._core.information import _unit, check_distribution, entropy
from statmechlearn._core.validation import check_array_finite, check_int, check_real

__all__ = ["TypicalSet", "is_typical", "typical_set"]

# Both caps keep the exact count within about ten seconds: each type costs a few
# microseconds of Python, and its multinomial is an integer of up to n log2 k bits.
_MAX_TYPES = 2_000_000
_MAX_WORK = 5e10


@dataclass(frozen=True)
class TypicalSet:
    """Size and probability of ``A_eps^(n)`` and the AEP bounds (§8.1).

    Attributes
    ----------
    n : int
        Sequence length.
    epsilon : float
    entropy : float
        ``H`` per symbol, in the unit asked for.
    size : int
        ``|A_eps^(n)|``, exact.
    log2_size : float
        ``log2 |A_eps^(n)|`` (``-inf`` when empty).
    probability : float
        ``P(A_eps^(n))``.
    upper_bound_log2 : float
        ``n (H + eps)`` in bits: ``|A| <= 2^{n(H + eps)}`` always.
    lower_bound_log2 : float
        ``log2(1 - eps) + n (H - eps)``: ``|A|`` is at least this once
        ``P(A) > 1 - eps`` (large ``n``).
    """

    n: int
    epsilon: float
    entropy: float
    size: int
    log2_size: float
    probability: float
    upper_bound_log2: float
    lower_bound_log2: float


def _surprise_bits(counts, log2p, n):
    with np.errstate(invalid="ignore"):
        terms = np.where(counts > 0, counts * log2p, 0.0)
    return -terms.sum(axis=-1) / n


def is_typical(sequence, probabilities, epsilon):
    """Whether a sequence lies in the typical set ``A_eps^(n)``.

    Parameters
    ----------
    sequence : array-like of int, shape (n,)
        Symbols ``0 .. k-1``.
    probabilities : array-like of shape (k,)
        The i.i.d. source.
    epsilon : float
        ``> 0``, in bits per symbol.

    Returns
    -------
    bool
        ``|-(1/n) log2 P(sequence) - H| <= eps`` (a sequence of probability 0
        is not typical).
    """
    p = check_array_finite(probabilities, "probabilities", ndim=1)
    p = check_distribution(p, "probabilities", ndim=1)
    eps = check_real(epsilon, "epsilon", minimum=0.0, include_min=False)
    seq = np.asarray(sequence)
    if seq.ndim != 1 or seq.size == 0:
        raise ValueError(f"sequence must be a non-empty 1-D array, got shape {seq.shape}")
    if not np.issubdtype(seq.dtype, np.integer) or seq.min() < 0 or seq.max() >= p.size:
        raise ValueError(f"sequence must hold integer symbols in [0, {p.size - 1}]")
    counts = np.bincount(seq, minlength=p.size)
    if np.any((counts > 0) & (p == 0)):
        return False
    with np.errstate(divide="ignore"):
        log2p = np.log2(p)
    s = _surprise_bits(counts.astype(float), log2p, seq.size)
    return bool(abs(s - entropy(p, "bits")) <= eps)


def _heads(n, depth, multinomial=1, head=()):
    """Counts of the first ``depth`` symbols, their multinomial factor and what remains of n."""
    if depth == 0:
        yield head, multinomial, n
        return
    for c in range(n + 1):
        yield from _heads(n - c, depth - 1, multinomial * math.comb(n, c), (*head, c))


def typical_set(probabilities, n, epsilon, *, base="bits"):
    """Exact size and probability of the typical set of an i.i.d. source.

    Parameters
    ----------
    probabilities : array-like of shape (k,)
    n : int
        Sequence length, ``>= 1``.
    epsilon : float
        ``> 0``, in bits per symbol (the definition of §8.1 uses ``2^{...}``).
    base : {"bits", "nats"}, default="bits"
        Unit of the reported entropy.

    Returns
    -------
    TypicalSet

    Raises
    ------
    ValueError
        If the exact count would take more than about ten seconds: more than
        2e6 types (``C(n + k - 1, k - 1)``), or more than 5e10 bit operations
        (``types * n log2 k``: each multinomial is an integer of up to
        ``n log2 k`` bits; with two symbols, ``n`` up to about 2.2e5).
        Beyond, the AEP bounds (``TypicalSet.lower_bound_log2``,
        ``upper_bound_log2``) give ``log2 |A|`` to within about ``2 n eps``.
    """
    p = check_array_finite(probabilities, "probabilities", ndim=1)
    p = check_distribution(p, "probabilities", ndim=1)
    n = check_int(n, "n", minimum=1)
    eps = check_real(epsilon, "epsilon", minimum=0.0, include_min=False)
    unit = _unit(base)
    support = np.flatnonzero(p > 0)
    q = p[support]
    k = q.size
    n_types = math.comb(n + k - 1, k - 1)
    if n_types > _MAX_TYPES:
        raise ValueError(
            f"typical_set enumerates C(n + k - 1, k - 1) = {n_types} types for n={n}, "
            f"k={k} symbols of non-zero probability; at most {_MAX_TYPES:.0e} are allowed "
            "(the exact count would take minutes): use a smaller n, or the AEP bounds "
            "n (H - eps) + log2(1 - eps) <= log2 |A| <= n (H + eps)"
        )
    work = n_types * n * max(math.log2(k), 1.0)
    if work > _MAX_WORK:
        raise ValueError(
            f"typical_set counts |A| exactly, with integers of up to n log2 k bits for each "
            f"of the {n_types} types of n={n}, k={k}: about {work:.2g} bit operations, "
            f"above the limit {_MAX_WORK:.0e} (n up to about 2.2e5 for two symbols); use a "
            "smaller n, or the AEP bounds n (H - eps) + log2(1 - eps) <= log2 |A| <= n (H + eps)"
        )
    H = entropy(p, "bits")
    log2q = np.log2(q)
    size = 0
    log_prob = []
    # The last two counts of each head vary together (c, rest - c); the rest are enumerated.
    for head, factor, rest in _heads(n, max(k - 2, 0)):
        if k == 1:
            tails = np.array([[n]])
        else:
            c = np.arange(rest + 1)
            tails = np.column_stack([c, rest - c])
        counts = np.column_stack([np.broadcast_to(head, (len(tails), len(head))), tails])
        s = _surprise_bits(counts.astype(float), log2q, n)
        last = None
        for i in np.flatnonzero(np.abs(s - H) <= eps).tolist():
            if k == 1:
                comb = 1
            elif last is not None and i == last + 1:
                # C(rest, c) from C(rest, c - 1): exact, and far cheaper than math.comb.
                comb = comb * (rest - i + 1) // i
            else:
                comb = math.comb(rest, i)
            last = i
            multinomial = factor * comb
            size += multinomial
            # log P(class) = log multinomial - n s (in bits)
            log_prob.append(math.log2(multinomial) - n * s[i])
    probability = float(np.sum(np.exp2(log_prob))) if log_prob else 0.0
    return TypicalSet(
        n=n,
        epsilon=eps,
        entropy=H * math.log(2.0) / unit,
        size=size,
        log2_size=math.log2(size) if size else -math.inf,
        probability=min(probability, 1.0),
        upper_bound_log2=n * (H + eps),
        lower_bound_log2=math.log2(1.0 - eps) + n * (H - eps) if eps < 1 else -math.inf,
    )
