"""Model-order selection (lecture notes §7–8; Tibshirani, Walther & Hastie 2001).

Two tables:

``selection-gap``
    The gap statistic on Tibshirani et al.'s simulated settings: a null
    (200 points uniform in the 10-dimensional unit cube, one cluster) and
    three 2-D Gaussian clusters centred (0,0), (0,5), (5,−3) with 25/50/25
    points and unit variance. The chosen k over replicate data sets, for
    each named decision rule; the paper reports 49/50 and 50/50 correct.
``selection-comparison``
    Gap, stability, BIC and posterior agreement (approximation set coding,
    §8: Boltzmann weights, resolution β chosen by the largest capacity,
    with the notes' labeling codebook and with the protocol's permutation
    codebook) on the same data sets per seed: four sharp blobs, four
    blurred blobs, Tibshirani's three clusters, a 2-D null and a random
    subsample of scikit-learn's wine data (standardised, three cultivars).
    How often each criterion picks each k, and whether posterior agreement
    over-estimates k more often than the others (paired over seeds).
``selection-protocol``
    The two-instance communication protocol of §8.4 simulated with
    ``simulate_protocol``: the decoding error against the rate ``R = log(M)/n``
    beside the measured approximation capacity and the union bound of §8.5.
"""

import math

import numpy as np

from statmechlearn.experiments._plotting import (
    mean_se,
    plot_simulation,
    simulation_label,
    subplots,
)
from statmechlearn.experiments._spec import Derived, FigureSpec, Measurement, measure

__all__ = ["COMPARISON", "GAP", "PROTOCOL", "simulate_setting"]

PAPER = "selection"
CITATION = (
    "Lecture notes, Statistical Learning Theory §7–8; Tibshirani, Walther & Hastie, "
    "Estimating the number of clusters in a data set via the gap statistic (2001)"
)

_K_MAX = 8
_RULES = ("tibshirani", "first-se-max", "global-se-max", "first-max", "global-max")
_TRUE_K = {
    "null, 10-D uniform": 1,
    "three clusters, 2-D": 3,
    "four sharp blobs": 4,
    "four blurred blobs": 4,
    "null, 2-D uniform": 1,
    "wine, standardised": 3,
}
#: Rows of the wine data drawn (without replacement) for one replicate.
_WINE_ROWS = 150


def _wine():
    from sklearn.datasets import load_wine

    X = load_wine().data
    return (X - X.mean(axis=0)) / X.std(axis=0)


def simulate_setting(name, rng):
    """One replicate data set of a named setting."""
    if name == "null, 10-D uniform":
        return rng.uniform(size=(200, 10))
    if name == "null, 2-D uniform":
        return rng.uniform(size=(200, 2))
    if name == "wine, standardised":
        # a random subsample per seed, so that replicates differ (178 wines, 3 cultivars)
        X = _wine()
        return X[rng.choice(X.shape[0], _WINE_ROWS, replace=False)]
    if name == "three clusters, 2-D":
        return np.vstack(
            [
                rng.normal([0, 0], 1, (25, 2)),
                rng.normal([0, 5], 1, (50, 2)),
                rng.normal([5, -3], 1, (25, 2)),
            ]
        )
    centres = np.array([(0, 0), (6, 0), (0, 6), (6, 6)], dtype=float)
    std = 0.7 if name == "four sharp blobs" else 2.0
    return np.vstack([rng.normal(c, std, (50, 2)) for c in centres])


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

# ---------------------------------------------------------------- comparison

#: Posterior agreement as the library chooses k (argmax over k of the capacity maximised over
#: beta), with the notes' labeling codebook and the protocol's permutation codebook; and the
#: labeling codebook with a parsimony rule (the smallest k within one SE of the largest capacity)
_PA = {"PA, labelings": "labelings", "PA, permutations": "permutations"}
_PA_1SE = "PA, labelings, 1-SE"
_METHODS = ("gap", "stability", "BIC", *_PA, _PA_1SE)
_OTHERS = ("gap", "stability", "BIC")

_COMPARISON_SETTINGS = (
    "four sharp blobs",
    "four blurred blobs",
    "three clusters, 2-D",
    "wine, standardised",
    "null, 2-D uniform",
)


def _comparison_simulation(point, settings, rng):
    import warnings

    from sklearn.cluster import KMeans

    from statmechlearn.model_selection import (
        gap_statistic,
        information_criterion_curve,
        posterior_agreement,
        stability,
    )

    X = simulate_setting(point["setting"], rng)
    # one clusterer for every criterion: the comparison is of the criteria, not of k-means runs
    km = KMeans(n_init=settings["n_init"])
    ks = range(1, _K_MAX + 1)
    stable = stability(
        X, km, k_range=range(2, _K_MAX + 1), n_splits=settings["n_splits"], random_state=rng
    )
    chosen = [
        gap_statistic(
            X, km, k_range=ks, n_references=settings["n_references"], random_state=rng
        ).n_clusters,
        stable.n_clusters,
    ]
    k_bic, scores = information_criterion_curve(X, km, k_range=ks, random_state=rng)
    chosen.append(int(k_bic[np.argmin(scores)]))
    out = {"sim_instability": stable.instability}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for codebook in _PA.values():
            res = posterior_agreement(
                X,
                km,
                k_range=ks,
                n_splits=settings["n_splits"],
                random_state=rng,
                codebook=codebook,
            )
            chosen.append(res.n_clusters)
            if codebook == "labelings":
                flat_se = res.capacity_se.reshape(len(res.k_values), -1)
                flat = res.capacity.reshape(len(res.k_values), -1)
                se = flat_se[np.arange(flat.shape[0]), np.nanargmax(flat, axis=1)]
                out["sim_pa_capacity"] = res.max_capacity
                out["sim_pa_capacity_se"] = np.nan_to_num(se)
    top = int(np.argmax(out["sim_pa_capacity"]))
    within = out["sim_pa_capacity"] >= out["sim_pa_capacity"][top] - out["sim_pa_capacity_se"][top]
    chosen.append(int(np.flatnonzero(within)[0]) + 1)  # k_range starts at 1
    out["sim_chosen"] = np.array(chosen, dtype=float)
    return out


def _picks(ds, setting, method):
    v = ds["sim_chosen"].sel({"setting": setting, "method": method})
    return v.values[ds["sim_done"].sel({"setting": setting}).values.astype(bool)]


def _pick_rates(ds):
    """``{setting: {method: fraction of seeds choosing k, for k = 1…8}}`` from a stored result."""
    ks = np.arange(1, _K_MAX + 1)
    return {
        str(s): {
            str(m): np.array([np.mean(_picks(ds, str(s), str(m)) == k) for k in ks])
            for m in ds["method"].values
        }
        for s in ds["setting"].values
    }


def _plot_comparison(ds, ax=None):
    settings = [str(s) for s in ds["setting"].values]
    methods = [str(m) for m in ds["method"].values]
    _, ax = subplots(ax, 1, len(settings), figsize=(4.2 * len(settings), 3.6))
    ax = np.atleast_1d(ax)
    ks = np.arange(1, _K_MAX + 1)
    rates = _pick_rates(ds)
    w = 0.8 / len(methods)
    for j, setting in enumerate(settings):
        for r, m in enumerate(methods):
            ax[j].bar(ks + w * (r - (len(methods) - 1) / 2), rates[setting][m], width=w, label=m)
        ax[j].axvline(_TRUE_K[setting], color="k", ls=":", lw=1, gid="guide")
        n = int(ds["sim_done"].sel({"setting": setting}).sum())
        ax[j].set_title(f"{setting} (true $k = {_TRUE_K[setting]}$, {n} seeds)", fontsize=8)
        ax[j].set_xlabel("chosen $k$")
        ax[j].set_xticks(ks)
    ax[0].set_ylabel("fraction of seeds")
    ax[0].legend(fontsize=6)
    return ax


def _binomial(p, n):
    # binomial SE, floored at one miss in n (a normal approximation: n is not given)
    return math.sqrt(max(p * (1 - p), 1.0 / n) / n) if n > 0 else math.nan


def _comparison_checks(settings):
    def frac(setting, method):
        def compute(ds):
            v = _picks(ds, setting, method)
            p = float(np.mean(v == _TRUE_K[setting])) if v.size else math.nan
            return Measurement(p, _binomial(p, v.size))

        return compute

    def overshoot_excess(setting, pa, other):
        # paired over seeds: both criteria saw the same data set
        def compute(ds):
            k = _TRUE_K[setting]
            d = (_picks(ds, setting, pa) > k).astype(float) - (_picks(ds, setting, other) > k)
            n = d.size
            if n < 2:
                return Measurement(math.nan, math.nan, n)
            var = float(d.var(ddof=1))
            # floored at one discordant pair in n, as the binomial SE above
            return Measurement(float(d.mean()), math.sqrt(max(var, 1.0 / n) / n))

        return compute

    def instability(k):
        def compute(ds):
            at = {"setting": "four sharp blobs"}
            v = ds["sim_instability"].sel(at).sel(k_stability=k)
            return measure(v.values[ds["sim_done"].sel(at).values.astype(bool)])

        return compute

    # Well-separated clusters split the same way in both halves at the true k (§7.3): the
    # instability is zero there, against ~0.16 one cluster too many.
    checks = [
        Derived(
            "four sharp blobs: instability S(A_k) at the true k = 4 (§7.3: zero)",
            instability(4),
            target=0.0,
            scale=lambda ds: float(instability(5)(ds).value),
            source="simulation",
            note="resolution relative to the instability at k = 5",
        )
    ]
    # a rate from a few seeds resolves little: a verdict in full mode, a measurement in quick
    powered = settings["n_seeds"] >= 16
    for method in _METHODS:
        checks.append(
            Derived(
                f"four sharp blobs: fraction of seeds where {method} chooses k=4 (> 0.75)",
                frac("four sharp blobs", method),
                **({"lower": 0.75, "scale": 1.0} if powered else {"reported": True}),
                source="simulation",
            )
        )
    for setting in _COMPARISON_SETTINGS:
        if _TRUE_K[setting] < 2:
            continue
        for pa in _PA:
            for other in _OTHERS:
                checks.append(
                    Derived(
                        f"{setting}: over-estimation rate P(k̂ > {_TRUE_K[setting]}), "
                        f"{pa} − {other} (≤ 0)",
                        overshoot_excess(setting, pa, other),
                        **(
                            {"upper": 0.0, "scale": 1.0, "max_resolution": 0.25}
                            if powered
                            else {"reported": True}
                        ),
                        source="simulation",
                        note="paired over seeds (same data set); resolves a difference of "
                        "25 points in the over-estimation rate",
                    )
                )
    for setting in _COMPARISON_SETTINGS:
        for method in _METHODS:
            checks.append(
                Derived(
                    f"{setting}: fraction choosing the true k, {method}",
                    frac(setting, method),
                    source="simulation",
                    reported=True,
                )
            )
    return checks


COMPARISON = FigureSpec(
    name="selection-comparison",
    paper=PAPER,
    citation=CITATION,
    figure="§7–8: gap vs stability vs BIC vs posterior agreement",
    caption=(
        "How often each criterion chooses each k (k = 1…8; stability k ≥ 2; bars: fraction "
        "of seeds, dotted line: the true k) on the same data set per seed: four sharp blobs "
        "(σ = 0.7, centres 6 apart), four blurred blobs (σ = 2), Tibshirani's three clusters, "
        "150 random rows of scikit-learn's wine data (standardised, 3 cultivars) and a 2-D "
        "null. Criteria, all with the same k-means: the gap statistic (Tibshirani's 1-SE "
        "rule, §7.2), stability (§7.3, nearest-centroid transfer), BIC of the spherical "
        "mixture, and posterior agreement (§8, Boltzmann weights, β maximising the "
        "capacity, k maximising max_β I) with the notes' labeling codebook |C| = kⁿ and with "
        "the protocol's permutation codebook (§8.4); 'PA, labelings, 1-SE' takes the "
        "smallest k within one SE (over splits) of the largest capacity. Posterior agreement "
        "as argmax over k over-estimates k, and the checks (paired over seeds: its rate of "
        "k̂ > k_true minus each other criterion's, ≤ 0) fail in full mode. Why, measured "
        "(full mode, mean max_β I over 40 seeds, nats/object): duplicating a code vector "
        "leaves the capacity unchanged (two soft halves of a cluster give Σ_ν p′p″ = 1/2, "
        "cancelling the log 2 of the larger codebook), so on four sharp blobs I = 1.386 = "
        "log 4 at k = 4 and 1.30, 1.27, 1.32, 1.384 at k = 5…8: a tie that noise breaks "
        "upwards in half the seeds; on the three clusters (I = 1.09 at k = 3, 1.23 at "
        "k = 8), blurred blobs and wine the k-means tessellation of a cluster is itself "
        "reproducible between halves, and I grows with k as it does on the null. The "
        "permutation codebook changes little on the synthetic sets but picks k = 3 on 90 % "
        "of the wine subsamples (labelings 28 %, stability 100 %); Fermi weights "
        "(measured on two data sets, not shown) made the same choices at 5–10× the cost; "
        "the 1-SE parsimony rule "
        "recovers the true k most often on sharp blobs but not on the others. Stability "
        "is undefined at k = 1, posterior agreement can choose k = 1 only on a tie."
    ),
    grid={"setting": _COMPARISON_SETTINGS},
    settings={
        "quick": {"n_seeds": 6, "n_references": 10, "n_splits": 3, "n_init": 2},
        "full": {"n_seeds": 40, "n_references": 20, "n_splits": 6, "n_init": 3},
    },
    outputs={
        "sim_chosen": ("method",),
        "sim_instability": ("k_stability",),
        "sim_pa_capacity": ("k",),
        "sim_pa_capacity_se": ("k",),
    },
    coords=lambda s: {
        "method": np.array(_METHODS),
        "k_stability": np.arange(2, _K_MAX + 1),
        "k": np.arange(1, _K_MAX + 1),
    },
    simulation=_comparison_simulation,
    plot=_plot_comparison,
    checks=_comparison_checks,
    base_seed=20261302,
)

# ---------------------------------------------------------------- protocol

#: Nominal rates (nats per object); with n = 8 objects M = round(e^{nR}) = 2, 3, 11, 55, 270,
#: 1339, 6634 codewords. The capacity of the setting below is about 0.49 nats.
_PROTOCOL_RATES = (0.09, 0.14, 0.3, 0.5, 0.7, 0.9, 1.1)
_PROTOCOL_OBJECTS = 8
_PROTOCOL_BETA = 0.5
_LOW = (0.09, 0.14)
_HIGH = 1.1


def _protocol_simulation(point, settings, rng):
    from statmechlearn.model_selection import simulate_protocol

    # two unit-variance blobs 3 apart, 40 points each
    X = np.vstack([rng.normal(c, 1.0, (40, 2)) for c in [(0, 0), (3, 0)]])
    res = simulate_protocol(
        X,
        2,
        _PROTOCOL_RATES,
        n_objects=_PROTOCOL_OBJECTS,
        beta=_PROTOCOL_BETA,
        n_trials=settings["n_trials"],
        random_state=rng,
    )
    return {
        "sim_error": res.error_rate,
        "sim_union_bound": res.union_bound,
        "sim_used_rate": res.rates,
        "sim_capacity": np.array(res.capacity),
        "sim_capacity_se": np.array(res.capacity_se),
    }


def _pooled_error(ds, rates, n_trials):
    done = ds["sim_done"].values.astype(bool).ravel()
    v = ds["sim_error"].sel(rate=list(rates)).values.reshape(done.size, -1)[done]
    n = v.size * n_trials
    p = float(v.mean())
    return Measurement(p, _binomial(p, n))


def _capacity(ds):
    # each seed's capacity is a mean over its trials: combine their SEs (trials are independent)
    done = ds["sim_done"].values.astype(bool).ravel()
    c = ds["sim_capacity"].values.ravel()[done]
    se = ds["sim_capacity_se"].values.ravel()[done]
    return Measurement(float(c.mean()), float(np.sqrt(np.sum(se**2)) / c.size))


def _capacity_over_low_rate(ds):
    c = _capacity(ds)
    return Measurement(c.value / _LOW[1], c.se / _LOW[1])


def _plot_protocol(ds, ax=None):
    _, ax = subplots(ax, figsize=(5.5, 3.8))
    done = ds["sim_done"]
    rate, _ = mean_se(ds["sim_used_rate"].where(done))
    err, se = mean_se(ds["sim_error"].where(done))
    bound, _ = mean_se(ds["sim_union_bound"].where(done))
    cap = _capacity(ds)
    label = simulation_label(done.sum("seed"), "decoding error, simulation")
    plot_simulation(ax, np.ravel(rate), np.ravel(err), np.ravel(se), label=label)
    ax.plot(np.ravel(rate), np.ravel(bound), "-", color="C1", label="theory: union bound (§8.5)")
    ax.axvline(cap.value, color="C3", ls="--", label=f"capacity {cap.value:.2f} nats")
    ax.set_xlabel(r"rate $R = \log(M)/n$ [nats per object]")
    ax.set_ylabel("P(wrong transformation decoded)")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=8)
    return ax


def _protocol_checks(settings):
    n_trials = settings["n_trials"]
    return [
        Derived(
            f"decoding error at R ≈ {_LOW[0]}, {_LOW[1]} (below capacity / 2; §8.4: ≈ 0)",
            lambda ds: _pooled_error(ds, _LOW, n_trials),
            target=0.0,
            scale=1.0,
            source="simulation",
            note="binomial SE over all trials of all seeds, floored at one error in n",
        ),
        Derived(
            "approximation capacity / the second-lowest rate (≥ 2: the low rates are "
            "well below capacity)",
            _capacity_over_low_rate,
            lower=2.0,
            source="simulation",
        ),
        Derived(
            f"decoding error at R ≈ {_HIGH} (about twice the capacity; > 0)",
            lambda ds: _pooled_error(ds, (_HIGH,), n_trials),
            lower=0.0,
            scale=1.0,
            source="simulation",
            note="binomial SE over all trials of all seeds",
        ),
        Derived(
            "approximation capacity (permutation codebook, nats per object)",
            _capacity,
            source="simulation",
            reported=True,
        ),
    ] + [
        Derived(
            f"decoding error at R ≈ {r}",
            lambda ds, r=r: _pooled_error(ds, (r,), n_trials),
            source="simulation",
            reported=True,
        )
        for r in _PROTOCOL_RATES
    ]


PROTOCOL = FigureSpec(
    name="selection-protocol",
    paper=PAPER,
    citation=CITATION,
    figure="§8.4–8.5: the approximation-set-coding protocol",
    caption=(
        "The two-instance communication protocol of approximation set coding (§8.4), "
        "simulated by simulate_protocol: two blobs (σ = 1, centres 3 apart, 80 points), "
        "k = 2 by k-means, Boltzmann weights at β = 0.5, n = 8 common objects; sender and "
        "receiver share M = e^{nR} random object permutations, the receiver decodes the one "
        "whose agreement kernel with its own instance is largest. Markers: decoding error "
        "± binomial SE over trials and seeds; line: the union (Markov) bound of §8.5, "
        "(M − 1)·E[k_τ/k], averaged over seeds; dashed: the measured approximation capacity "
        "(permutation codebook). Below the capacity the error vanishes; above it decoding "
        "fails more and more often."
    ),
    grid={"setting": ("two blobs, 3σ apart",)},
    settings={
        "quick": {"n_seeds": 2, "n_trials": 50},
        "full": {"n_seeds": 10, "n_trials": 150},
    },
    outputs={
        "sim_error": ("rate",),
        "sim_union_bound": ("rate",),
        "sim_used_rate": ("rate",),
        "sim_capacity": (),
        "sim_capacity_se": (),
    },
    coords=lambda s: {"rate": np.array(_PROTOCOL_RATES)},
    simulation=_protocol_simulation,
    plot=_plot_protocol,
    checks=_protocol_checks,
    base_seed=20261303,
)
