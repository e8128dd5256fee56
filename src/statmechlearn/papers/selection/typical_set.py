"""Typical sets and the asymptotic equipartition property (lecture notes §8.1, §9.11).

``selection-typical-set``
    The notes' coin: an i.i.d. source with ``p(1) = 0.9``. The exact
    probability and size of the typical set ``A_eps^(n)`` (counted over the
    ``n + 1`` types by :func:`~statmechlearn.model_selection.typical_set`)
    against the fraction of sequences drawn from the source that
    :func:`~statmechlearn.model_selection.is_typical` accepts; the spread of
    ``-(1/n) log2 P(X^n)`` against its closed form ``sigma / sqrt(n)``
    (the law of large numbers behind the AEP); and the bounds of §8.1 on
    ``|A_eps^(n)|``.
"""

import math

import numpy as np

from statmechlearn.experiments import (
    Check,
    Derived,
    FigureSpec,
    mean_se,
    measure,
    plot_simulation,
    plot_theory,
    simulation_label,
    subplots,
)
from statmechlearn.papers.selection._common import CITATION, PAPER

__all__ = ["TYPICAL_SET"]


#: The notes' coin (§9.11): p(0) = 0.1, p(1) = 0.9.
_SOURCE = (0.1, 0.9)


def _rate_sd(p):
    """Standard deviation of ``-log2 p(X)`` for one symbol: ``sigma`` of the AEP's sum."""
    p = np.asarray(p)
    s = -np.log2(p)
    mean = float(np.sum(p * s))
    return math.sqrt(float(np.sum(p * (s - mean) ** 2)))


def _theory(point, settings):
    from statmechlearn.model_selection import typical_set

    ts = typical_set(np.array(_SOURCE), int(point["n"]), settings["epsilon"])
    return {
        "theory_probability": np.float64(ts.probability),
        "theory_log2_size_rate": np.float64(ts.log2_size / ts.n),
        "theory_upper_rate": np.float64(ts.upper_bound_log2 / ts.n),
        "theory_lower_rate": np.float64(ts.lower_bound_log2 / ts.n),
        "theory_entropy": np.float64(ts.entropy),
        # the AEP's spread of -(1/n) log2 P(X^n): sigma / sqrt(n)
        "theory_rate_sd": np.float64(_rate_sd(np.array(_SOURCE)) / math.sqrt(ts.n)),
    }


def _simulation(point, settings, rng):
    from statmechlearn.model_selection import is_typical

    n = int(point["n"])
    p = np.array(_SOURCE)
    draws = rng.choice(p.size, size=(settings["n_sequences"], n), p=p)
    typical = np.array([is_typical(seq, p, settings["epsilon"]) for seq in draws])
    # -(1/n) log2 P(x^n) of each drawn sequence, from its symbol counts
    ones = draws.sum(axis=1)
    rate = -(ones * math.log2(p[1]) + (n - ones) * math.log2(p[0])) / n
    return {
        "sim_typical_fraction": np.float64(typical.mean()),
        "sim_rate_sd": np.float64(rate.std(ddof=1)),
    }


def _shared(settings):
    from statmechlearn.model_selection import entropy

    p = np.array(_SOURCE)
    most_likely = -math.log2(p.max())  # -(1/n) log2 of the all-ones sequence, any n
    return {
        "shared_entropy": np.float64(entropy(p, "bits")),
        "shared_most_likely_rate": np.float64(most_likely),
        "shared_symbol_sd": np.float64(_rate_sd(p)),
    }


def _done(ds):
    return ds["sim_done"].values.astype(bool)


def _plot(ds, ax=None):
    _, ax = subplots(ax, 1, 3, figsize=(14, 3.9))
    n = ds["n"].values.astype(float)
    done = ds["sim_done"]
    frac = ds["sim_typical_fraction"].where(done)
    m, se = mean_se(frac, "seed")
    runs = frac.count("seed")
    label = r"theory: exact, $\mathtt{typical\_set}$"
    plot_theory(ax[0], n, ds["theory_probability"].values, label=label)
    label = simulation_label(runs, r"drawn sequences, $\mathtt{is\_typical}$, simulation")
    plot_simulation(ax[0], n, m.values, se.values, label=label)
    ax[0].set_xscale("log")
    ax[0].set_xlabel("sequence length $n$")
    ax[0].set_ylabel(r"$P\{A_\epsilon^{(n)}\}$")
    ax[0].legend(fontsize=8)

    sd, sd_se = mean_se(ds["sim_rate_sd"].where(done), "seed")
    plot_theory(
        ax[1], n, ds["theory_rate_sd"].values, label=r"theory: $\sigma/\sqrt{n}$ (closed form)"
    )
    label = simulation_label(runs, "drawn sequences, simulation")
    plot_simulation(ax[1], n, sd.values, sd_se.values, label=label)
    ax[1].set_xscale("log")
    ax[1].set_yscale("log")
    ax[1].set_xlabel("sequence length $n$")
    ax[1].set_ylabel(r"SD of $-\frac{1}{n}\log_2 P(X^n)$ within a seed")
    ax[1].legend(fontsize=8)

    plot_theory(ax[2], n, ds["theory_log2_size_rate"].values, label=r"exact $\log_2|A|/n$")
    plot_theory(
        ax[2], n, ds["theory_upper_rate"].values, label=r"bound $H+\epsilon$", linestyle="--"
    )
    plot_theory(
        ax[2],
        n,
        ds["theory_lower_rate"].values,
        label=r"bound $H-\epsilon+\log_2(1-\epsilon)/n$",
        linestyle=":",
    )
    ax[2].set_xscale("log")
    ax[2].set_xlabel("sequence length $n$")
    ax[2].set_ylabel(r"$\log_2 |A_\epsilon^{(n)}| \,/\, n$ (bits)")
    ax[2].legend(fontsize=8)
    return ax


def _checks(settings):
    checks = [
        Derived(
            "entropy H(X) of the coin p(1) = 0.9, bits",
            lambda ds: (float(ds["shared_entropy"]), None),
            paper_value="0.469",
            paper_source="notes §9.11, coin toss example",
        ),
        Derived(
            "-(1/n) log2 P of the most likely sequence (all ones), bits",
            lambda ds: (float(ds["shared_most_likely_rate"]), None),
            paper_value="0.152",
            paper_source="notes §9.11, coin toss example",
        ),
        # The notes' point: the most likely sequence is not typical; |0.152 - 0.469| > eps.
        Derived(
            "distance of the most likely sequence's rate from H, bits (> ε: not typical)",
            lambda ds: (float(ds["shared_entropy"] - ds["shared_most_likely_rate"]), None),
            lower=settings["epsilon"],
        ),
    ]
    for n in settings["check_n"]:
        checks.append(
            Check(
                f"P(A_ε^(n)) at n = {n}: drawn sequences vs exact count",
                theory=("theory_probability", {"n": n}),
                simulation=("sim_typical_fraction", {"n": n}),
                scale=1.0,
            )
        )

    def sd_ratio(ds):
        # sd of the per-sequence rate over sigma / sqrt(n), pooled over n and seeds
        n = ds["n"].values.astype(float)
        sigma = float(ds["shared_symbol_sd"])
        ratio = ds["sim_rate_sd"].values / (sigma / np.sqrt(n))[:, None]
        return measure(ratio[_done(ds)])

    checks.append(
        Derived(
            "SD of -(1/n) log2 P(X^n) / (σ/√n), all n",
            sd_ratio,
            target=1.0,
            target_from="closed form: variance of a sum of i.i.d. terms",
            source="simulation",
        )
    )

    def bound_violations(ds):
        rate = ds["theory_log2_size_rate"].values
        upper = ds["theory_upper_rate"].values
        lower = ds["theory_lower_rate"].values
        prob = ds["theory_probability"].values
        # the lower bound of §8.1 is claimed only where P(A) > 1 - eps ("n sufficiently large")
        large = prob > 1 - settings["epsilon"]
        return float(np.sum(rate > upper) + np.sum(large & (rate < lower))), None

    checks.append(
        Derived(
            "exact log2|A| outside the AEP bounds of §8.1 (count over n)",
            bound_violations,
            target=0.0,
            tolerance=0.0,
            scale=1.0,
        )
    )
    return checks


TYPICAL_SET = FigureSpec(
    name="selection-typical-set",
    paper=PAPER,
    citation=CITATION,
    figure="§8.1, §9.11: typical sets",
    caption=(
        "The notes' coin, p(1) = 0.9 (H = 0.469 bits), typical sets at ε = 0.1 bits. "
        "Left: probability of the typical set, counted exactly over the n + 1 types "
        "(line) and as the fraction of sequences drawn from the source that is_typical "
        "accepts (markers, mean ± SE over seeds); it approaches 1 only slowly (the "
        "per-symbol rate has SD σ/√n with σ = 1.04 bits). Middle: that SD measured on the "
        "drawn sequences (markers) against σ/√n (line). Right: log₂|A|/n, exact, with the "
        "bounds of §8.1 (the lower one claimed where P(A) > 1 − ε). The most likely "
        "sequence (all ones, 0.152 bits per symbol) is never typical."
    ),
    grid={"n": (10, 25, 50, 100, 200, 400, 800)},
    settings={
        "quick": {"n_seeds": 12, "n_sequences": 1000, "epsilon": 0.1, "check_n": (50, 200, 800)},
        "full": {
            "n_seeds": 32,
            "n_sequences": 2000,
            "epsilon": 0.1,
            "check_n": (10, 25, 50, 100, 200, 400, 800),
        },
    },
    outputs={
        "theory_probability": (),
        "theory_log2_size_rate": (),
        "theory_upper_rate": (),
        "theory_lower_rate": (),
        "theory_entropy": (),
        "theory_rate_sd": (),
        "sim_typical_fraction": (),
        "sim_rate_sd": (),
        "shared_entropy": (),
        "shared_most_likely_rate": (),
        "shared_symbol_sd": (),
    },
    coords=lambda s: {},
    theory=_theory,
    simulation=_simulation,
    shared=_shared,
    plot=_plot,
    checks=_checks,
    base_seed=20261124,
)
