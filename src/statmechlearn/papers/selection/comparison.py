"""Gap statistic, stability, BIC and posterior agreement compared on the same data."""

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
    _binomial,
    simulate_second_instance,
    simulate_setting,
)

__all__ = ["COMPARISON"]


from statmechlearn.model_selection import GAP_RULES, posterior_agreement


def _default_rule(two_instance):
    """The rule ``posterior_agreement`` applies by default to one protocol (its ``rule="auto"``:
    tests/papers/selection check these against the rule a call reports)."""
    return "global-se-max" if two_instance else "first-se-max"


_PA_DEFAULT_RULE = _default_rule(False)


#: Criteria whose choice the simulation stores directly
_OTHERS = ("gap", "stability", "BIC")


_CODEBOOKS = ("labelings", "permutations")


#: Posterior agreement's choices, derived at check time from the stored capacity curves (max
#: over beta, with its SE over splits) by the library's own decision rules: the default rule
#: with the notes' labeling codebook and the protocol's permutation codebook, and the argmax
_PA = {
    "PA, labelings": ("labelings", _PA_DEFAULT_RULE),
    "PA, permutations": ("permutations", _PA_DEFAULT_RULE),
    "PA, labelings, argmax": ("labelings", "global-max"),
}


#: Normalisations the two-instance protocol is run with: the count of distinct object
#: permutations exp(n H(sizes)) of Buhmann's group's code (the library's), and the notes'
#: |C| = k^n
_CODEBOOKS_2I = ("entropy", "labelings")


#: The published method: two measurements of the same objects, the largest capacity with ties
#: within one SE to the smaller k (the library's rule for two instances), and its argmax
_PA2 = {
    "PA two instances": ("entropy", _default_rule(True)),
    "PA two instances, labelings": ("labelings", _default_rule(True)),
    "PA two instances, argmax": ("entropy", "global-max"),
}


_METHODS = (*_OTHERS, *_PA2, *_PA)


#: Non-inferiority margin of posterior agreement's over-estimation rate against each other
#: criterion's: the claim fails where it over-estimates k more often by more than this
_MARGIN = 0.25


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
    out = {"sim_chosen": np.array(chosen, dtype=float), "sim_instability": stable.instability}
    # the same splits for both codebooks: their difference is then the codebook's alone
    split_seed = int(rng.integers(2**31 - 1))
    cap, se, picks = [], [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for codebook in _CODEBOOKS:
            res = posterior_agreement(
                X,
                km,
                k_range=ks,
                n_splits=settings["n_splits"],
                random_state=split_seed,
                codebook=codebook,
            )
            cap.append(res.max_capacity)
            se.append(res.max_capacity_se)
            # every rule on the same curve, chosen here: plots and checks read stored data
            picks.append([res.choose(rule) for rule in GAP_RULES])
    out["sim_pa_capacity"] = np.array(cap)
    out["sim_pa_capacity_se"] = np.array(se)
    out["sim_pa_chosen"] = np.array(picks, dtype=float)
    # drawn last, so that every criterion above sees the data and random states it saw before
    X_second = simulate_second_instance(point["setting"], rng)
    shape = (len(_CODEBOOKS_2I), _K_MAX)
    cap2, se2 = np.full(shape, np.nan), np.full(shape, np.nan)
    picks2 = np.full((len(_CODEBOOKS_2I), len(GAP_RULES)), np.nan)
    if X_second is not None:
        seed = int(rng.integers(2**31 - 1))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for c, codebook in enumerate(_CODEBOOKS_2I):
                # the same seed: the same k-means solutions under each normalisation
                res = posterior_agreement(
                    X, km, k_range=ks, X_second=X_second, random_state=seed, codebook=codebook
                )
                cap2[c], se2[c] = res.max_capacity, res.max_capacity_se
                picks2[c] = [res.choose(rule) for rule in GAP_RULES]
    out["sim_pa2_capacity"] = cap2
    out["sim_pa2_capacity_se"] = se2
    out["sim_pa2_chosen"] = picks2
    return out


def _done(ds, setting):
    return ds["sim_done"].sel({"setting": setting}).values.astype(bool)


def _pa_picks(ds, setting, codebook, rule):
    """The k a posterior-agreement rule chose on each finished seed's capacity curve."""
    at = {"setting": setting, "codebook": codebook, "rule": rule}
    return ds["sim_pa_chosen"].sel(at).values[_done(ds, setting)]


def _pa2_picks(ds, setting, codebook, rule):
    """The k the two-instance protocol chose (none for a setting without a second instance)."""
    at = {"setting": setting, "codebook_2i": codebook, "rule": rule}
    v = ds["sim_pa2_chosen"].sel(at).values[_done(ds, setting)]
    return v[np.isfinite(v)]


def _picks(ds, setting, method):
    if method in _PA2:
        return _pa2_picks(ds, setting, *_PA2[method])
    if method in _PA:
        return _pa_picks(ds, setting, *_PA[method])
    v = ds["sim_chosen"].sel({"setting": setting, "method": method})
    return v.values[_done(ds, setting)]


def _pick_rates(ds):
    """``{setting: {method: fraction of seeds choosing k, for k = 1…8}}`` from a stored result."""
    ks = np.arange(1, _K_MAX + 1)

    def rates(v):
        return np.array([np.mean(v == k) for k in ks]) if v.size else np.full(ks.size, np.nan)

    return {
        str(s): {str(m): rates(_picks(ds, str(s), str(m))) for m in _METHODS}
        for s in ds["setting"].values
    }


def _plot_comparison(ds, ax=None):
    settings = [str(s) for s in ds["setting"].values]
    methods = list(_METHODS)
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


def _true_k_rate(picks, setting):
    """Fraction of seeds whose pick is the true k, with its binomial standard error."""
    p = float(np.mean(picks == _TRUE_K[setting])) if picks.size else math.nan
    return Measurement(p, _binomial(p, picks.size))


def _comparison_checks(settings):
    def frac(setting, method):
        def compute(ds):
            return _true_k_rate(_picks(ds, setting, method), setting)

        return compute

    def frac_rule(setting, codebook, rule):
        def compute(ds):
            return _true_k_rate(_pa_picks(ds, setting, codebook, rule), setting)

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
        if method in _PA2:
            continue
        checks.append(
            Derived(
                f"four sharp blobs: fraction of seeds where {method} chooses k=4 (> 0.75)",
                frac("four sharp blobs", method),
                **({"lower": 0.75, "scale": 1.0} if powered else {"reported": True}),
                source="simulation",
            )
        )
    # the published protocol: two measurements of the same objects (the wine rows have none).
    # The claim is a rate of at least 0.95; 40 seeds resolve a one-sided bound 4 binomial SEs
    # (floored at one miss: 0.1) below the rate, so the verdict is "> 0.85", which 39 or 40
    # of 40 pass and 38 of 40 fail
    for setting in ("four sharp blobs", "three clusters, 2-D"):
        checks.append(
            Derived(
                f"{setting}: fraction of seeds where PA two instances chooses "
                f"k={_TRUE_K[setting]} (> 0.85; the count is the fraction times the seeds)",
                frac(setting, "PA two instances"),
                **({"lower": 0.85, "scale": 1.0} if powered else {"reported": True}),
                source="simulation",
                note="binomial SE floored at one miss in the number of seeds",
            )
        )
    for setting in _COMPARISON_SETTINGS:
        if _TRUE_K[setting] < 2:
            continue
        # the library's choice (its default rule) is the claim; the argmax is shown beside it
        pas = ("PA, labelings", "PA, permutations")
        if setting != "wine, standardised":
            pas = ("PA two instances", *pas)
        for pa in pas:
            for other in _OTHERS:
                checks.append(
                    Derived(
                        f"{setting}: over-estimation rate P(k̂ > {_TRUE_K[setting]}), "
                        f"{pa} − {other} (≤ {_MARGIN:g}: not worse by more)",
                        overshoot_excess(setting, pa, other),
                        **(
                            {"upper": _MARGIN, "scale": 1.0, "max_resolution": _MARGIN}
                            if powered
                            else {"reported": True}
                        ),
                        source="simulation",
                        note="paired over seeds (same data set); non-inferiority: fails where "
                        "posterior agreement over-estimates k significantly more often, by "
                        f"more than {_MARGIN:g} (the argmax does, by up to 1.0)",
                    )
                )
    for setting in _COMPARISON_SETTINGS:
        for method in _METHODS:
            if method in _PA2 and setting == "wine, standardised":
                continue
            checks.append(
                Derived(
                    f"{setting}: fraction choosing the true k, {method}",
                    frac(setting, method),
                    source="simulation",
                    reported=True,
                )
            )

    # every decision rule on the same capacity curves: what the default rule is chosen from
    def frac_rule_2i(setting, codebook, rule):
        def compute(ds):
            return _true_k_rate(_pa2_picks(ds, setting, codebook, rule), setting)

        return compute

    for setting in _COMPARISON_SETTINGS:
        if setting == "wine, standardised":
            continue
        for codebook in _CODEBOOKS_2I:
            for rule in GAP_RULES:
                checks.append(
                    Derived(
                        f"{setting}: fraction choosing the true k, PA two instances, "
                        f"{codebook}, rule {rule}",
                        frac_rule_2i(setting, codebook, rule),
                        source="simulation",
                        reported=True,
                    )
                )
    for setting in _COMPARISON_SETTINGS:
        for codebook in _CODEBOOKS:
            for rule in GAP_RULES:
                checks.append(
                    Derived(
                        f"{setting}: fraction choosing the true k, PA, {codebook}, rule {rule}",
                        frac_rule(setting, codebook, rule),
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
        "capacity). Posterior agreement as published (PA two instances): a second "
        "measurement of the same objects is drawn (each object's two measurements "
        "independent draws from its generating cluster; the null a fresh uniform sample; "
        "wine has none), each instance is clustered and each posterior computed on its own "
        "instance, the codebook counts the object permutations (the entropy of the cluster "
        "sizes per object) and k is the largest capacity, ties within one SE over objects "
        "going to the smaller k; beside it the notes' log k codebook and the argmax. "
        "Measured with these generators at 40 seeds it finds the true k on 40 of 40 "
        "sharp-blob and 40 of 40 three-cluster data sets (log k: 21 and 40; argmax: 34 "
        "and 34). The one-sample heuristic (PA, labelings / permutations: both halves' "
        "posteriors on the same points, the smallest k within one SE of the first local "
        "maximum; PA, labelings, argmax) found it on 70 and 93 % (argmax 40 and 0 %) at "
        "full size: evaluated on the same points, a k-means tessellation of a Gaussian "
        "cluster is reproduced and the capacity grows with k. Every rule's true-k rate on "
        "the stored capacity curves is reported. Checks: the two-instance method's true-k "
        "rate on sharp blobs and on the three clusters above 0.85 (the strongest bound 40 "
        "seeds resolve at 4 binomial SEs below a 0.95 claim); the over-estimation rate of "
        "posterior agreement minus each other criterion's, paired over seeds, at most 0.25 "
        "(non-inferiority, by 4 SE): with the heuristic's permutation codebook it "
        "over-estimates on 15 % of the three-cluster data sets, which 40 seeds cannot place "
        "below the margin (4 SE ≈ 0.23), and those checks fail. Stability is undefined at "
        "k = 1."
    ),
    grid={"setting": _COMPARISON_SETTINGS},
    settings={
        "quick": {"n_seeds": 6, "n_references": 10, "n_splits": 3, "n_init": 2},
        "full": {"n_seeds": 40, "n_references": 20, "n_splits": 6, "n_init": 3},
    },
    outputs={
        "sim_chosen": ("method",),
        "sim_instability": ("k_stability",),
        "sim_pa_capacity": ("codebook", "k"),
        "sim_pa_capacity_se": ("codebook", "k"),
        "sim_pa_chosen": ("codebook", "rule"),
        "sim_pa2_capacity": ("codebook_2i", "k"),
        "sim_pa2_capacity_se": ("codebook_2i", "k"),
        "sim_pa2_chosen": ("codebook_2i", "rule"),
    },
    coords=lambda s: {
        "method": np.array(_OTHERS),
        "codebook": np.array(_CODEBOOKS),
        "codebook_2i": np.array(_CODEBOOKS_2I),
        "rule": np.array(GAP_RULES),
        "k_stability": np.arange(2, _K_MAX + 1),
        "k": np.arange(1, _K_MAX + 1),
    },
    simulation=_comparison_simulation,
    plot=_plot_comparison,
    checks=_comparison_checks,
    base_seed=20261302,
)
