"""The gap statistic's choice of k against Tibshirani et al.'s table."""

import math

import numpy as np

from statmechlearn.experiments import (
    Derived,
    FigureSpec,
    Measurement,
    measure,
    subplots,
)
from statmechlearn.papers.selection._common import (
    _K_MAX,
    _TRUE_K,
    CITATION,
    PAPER,
    simulate_setting,
)

__all__ = ["GAP"]


_RULES = ("tibshirani", "first-se-max", "global-se-max", "first-max", "global-max")


def _gap_simulation(point, settings, rng):
    from statmechlearn.model_selection import gap_statistic

    X = simulate_setting(point["setting"], rng)
    res = gap_statistic(
        X,
        k_range=range(1, _K_MAX + 1),
        n_references=settings["n_references"],
        random_state=rng,
    )
    return {
        "sim_chosen": np.array([res.choose(r) for r in _RULES], dtype=float),
        "sim_log_w": res.log_w,
    }


def _fraction(ds, setting, rule, k):
    v = ds["sim_chosen"].sel({"setting": setting, "rule": rule})
    v = v.values[ds["sim_done"].sel({"setting": setting}).values.astype(bool)]
    return float(np.mean(v == k)), v.size


def _plot_gap(ds, ax=None):
    settings = [str(s) for s in ds["setting"].values]
    _, ax = subplots(ax, 1, len(settings), figsize=(5 * len(settings), 3.8))
    ax = np.atleast_1d(ax)
    ks = np.arange(1, _K_MAX + 1)
    for j, setting in enumerate(settings):
        for r, rule in enumerate(_RULES):
            frac = [_fraction(ds, setting, rule, k)[0] for k in ks]
            ax[j].bar(ks + 0.16 * (r - 2), frac, width=0.16, label=rule)
        ax[j].set_xlabel("chosen $k$")
        ax[j].set_ylabel("fraction of replicates")
        ax[j].set_title(f"{setting} (true $k = {_TRUE_K[setting]}$)", fontsize=9)
        ax[j].legend(fontsize=7)
    return ax


#: Tibshirani, Walther & Hastie (2001), simulations 1 and 2: 49 of 50 null data sets and 50 of
#: 50 three-cluster data sets chose the right k with their 1-SE rule (not in the lecture notes).
_TIBSHIRANI = {"null, 10-D uniform": (49, 50), "three clusters, 2-D": (50, 50)}


def _gap_checks(settings):
    def w1_null(ds):
        # W_1 of n points uniform in the unit d-cube: E = (n - 1) d / 12 (section 7.2's W_k is
        # the within-cluster sum of squares)
        at = {"setting": "null, 10-D uniform"}
        log_w = ds["sim_log_w"].sel(at).sel(k=1).values
        n, d = 200, 10
        return measure(
            np.exp(log_w[ds["sim_done"].sel(at).values.astype(bool)]) / ((n - 1) * d / 12)
        )

    checks = [
        Derived(
            "null, 10-D uniform: W₁ of the data / its expectation (n − 1)·d/12",
            w1_null,
            target=1.0,
            source="simulation",
            note="W_k as the gap statistic computes it, at k = 1, against the uniform law",
        )
    ]
    for setting, (hits, total) in _TIBSHIRANI.items():
        k = _TRUE_K[setting]
        rate = hits / total

        def compute(ds, setting=setting, k=k, rate=rate):
            frac, n = _fraction(ds, setting, "tibshirani", k)
            # binomial SE under the reference rate, floored at one miss in n
            return Measurement(frac, math.sqrt(max(rate * (1 - rate), 1.0 / n) / n))

        checks.append(
            Derived(
                f"{setting}: fraction choosing k={k}, Tibshirani's 1-SE rule",
                compute,
                target=rate,
                target_from=f"reference: Tibshirani, Walther & Hastie (2001), {hits}/{total}",
                scale=rate,
                source="simulation",
                note="binomial SE under the reference's rate, floored at one miss",
            )
        )
        checks.append(
            Derived(
                f"{setting}: fraction choosing k={k}, global-max rule",
                lambda ds, s=setting, k=k: (_fraction(ds, s, "global-max", k)[0], None),
                source="simulation",
                reported=True,
            )
        )
    return checks


GAP = FigureSpec(
    name="selection-gap",
    paper=PAPER,
    citation=CITATION,
    figure="§7.2; Tibshirani et al. (2001), simulations 1–2",
    caption=(
        "The gap statistic (k-means with 10 starts, k = 1…8, uniform reference box) on "
        "replicate data sets of two of Tibshirani et al.'s settings; bars: how often each "
        "decision rule chose each k. Tibshirani's 1-SE rule recovers k in almost every "
        "replicate; the global maximum, which many packages return, over-estimates k."
    ),
    grid={"setting": ("null, 10-D uniform", "three clusters, 2-D")},
    settings={
        "quick": {"n_seeds": 12, "n_references": 20},
        "full": {"n_seeds": 200, "n_references": 50},
    },
    outputs={"sim_chosen": ("rule",), "sim_log_w": ("k",)},
    coords=lambda s: {"rule": np.array(_RULES), "k": np.arange(1, _K_MAX + 1)},
    simulation=_gap_simulation,
    plot=_plot_gap,
    checks=_gap_checks,
    base_seed=20261301,
)
