"""Table 1 of Uda & Kabashima: the colon-cancer microarray study.

``sparse-table1``. Alon et al.'s 62 tissues x 2000 genes, shipped with the
package (:func:`statmechlearn.datasets.load_colon`). One seed is one random split
into 42 training and 20 test tissues. The protocol follows §5 as closely as
its text allows (``docs/derivations/sparse_bayes_table1.md`` measures every
choice the text leaves open):

- **preprocessing** (§5): the whole data set is centred, ``(1/M) sum_mu x^mu
  = 0`` over all M = 62 tissues (no labels are used), and every row is
  scaled to norm sqrt(2000), *before* the random division;
- **SBC**: :class:`~statmechlearn.linear.SparseBayesClassifier` at every
  point of the paper's grid (9 values of C x 4 of kappa), and the point of
  least leave-one-out error eq. (56) on the training set (ties: the first in
  the paper's order, C then kappa). Two algorithms are run on the same
  grid: the paper's undamped eqs. (40)-(41), stopped after 100 updates
  (rows "SBC ...": they do not converge on these data and the text gives no
  stopping rule, but this is what reproduces Table 1, its sd and Fig. 6),
  and a damped run to the converged fixed point (rows "SBC damped ...":
  damping 0.8, the library's default before adaptive damping);
- **SBC, kappa = 0.4**: the same grid restricted to kappa = 0.4 (§5);
- **SBC whitened (all 62), kappa = 0.4** (§5 literally): the preprocessed
  data (centred over all 62 tissues, rows to norm sqrt(2000)) reduced "from
  N = 2000 to M = 62" by whitening on all 62 tissues (61 principal
  directions, unit variance, rows to norm sqrt(61)), then divided at random.
  The 62 points form a regular simplex, so a rotation-invariant classifier
  sees nothing, but the SBC's prior acts on the coordinates, and the second
  principal direction correlates 0.64 with the label. Run by the library's
  :class:`~statmechlearn.linear.SparseBayesClassifierCV` (default damping)
  with C chosen two ways: by eq. (56), the paper's cavity LOO error, and by
  exact leave-one-out refits (``cv="loo"``); the test error at each fixed C
  and both LOO errors per C are stored. The same on log10 of the
  intensities is a labelled protocol variant (not in the text);
- **SBC whitened (training), kappa = 0.4**: the whitening fitted on the 42
  training tissues only (41 directions), the reading the experiment ran
  before the literal one;
- **FDA**: scikit-learn's ``LinearDiscriminantAnalysis`` (SVD solver: the
  minimum-norm Fisher discriminant of 2000 genes from 42 tissues) on the
  sphered data, and the same on the whitened data, with the training set's
  class priors (scikit-learn's default) and with equal priors (Fisher's
  discriminant, whose threshold is the midpoint of the projected class
  means: the row compared with the paper's FDA);
- **SBL**: Tipping's relevance vector machine for classification with an ARD
  prior on the genes (logistic likelihood, Laplace approximation, fast
  marginal-likelihood maximisation; :class:`statmechlearn.linear.RVMClassifier`),
  the paper's refs. [21]-[23], on the sphered data;
- **majority**: always the class more frequent in the training set (the
  chance level the FDA rows are read against).

Each method's mean test error is compared with the paper's (its standard
error and ours combined); Welch's t-test (the paper's test between methods)
and the paper's one-sided binomial sign test of SBC against SBL are
verdicts in full mode (200 splits, as in the paper).
"""

import math
import warnings

import numpy as np

from statmechlearn.experiments import Derived, FigureSpec, Measurement, measure, subplots
from statmechlearn.papers.sparse._common import CITATION, PAPER

__all__ = [
    "METHODS",
    "PAPER_TABLE1",
    "PROTOCOLS",
    "TABLE1",
    "VARIANTS",
    "plot_table1",
    "sign_test",
    "welch",
    "whiten_all_tissues",
]


#: Rows of ``sim_error``: the SBC variants ("SBC": the paper's undamped iteration,
#: 100 updates; "SBC damped": the library's converged fixed point), FDA, SBL, chance.
METHODS = (
    "SBC",
    "SBC κ=0.4",
    "SBC whitened (training) κ=0.4",
    "SBC damped",
    "SBC damped κ=0.4",
    "SBC damped whitened (training) κ=0.4",
    "SBC whitened (all 62) κ=0.4, C by eq. (56)",
    "SBC whitened (all 62) κ=0.4, C by exact LOO",
    "SBC whitened log10 (all 62) κ=0.4, C by eq. (56)",
    "SBC whitened log10 (all 62) κ=0.4, C by exact LOO",
    "FDA",
    "FDA whitened",
    "FDA whitened, equal priors",
    "SBL",
    "majority",
)


#: The SBC rows, whose chosen C and kappa are stored (``variant``).
VARIANTS = METHODS[:10]

#: The literal whitening of §5 (all 62 tissues), and its log10 variant (``protocol``).
PROTOCOLS = ("whitened (all 62)", "whitened log10 (all 62)")

#: The fixed C whose test error is shown beside the two choices of C.
_FIXED_C = 0.01


#: The paper's Table 1 and §5 (mean test error %, standard deviation %).
PAPER_TABLE1 = {
    "SBC": (23.5, 10.2),
    "SBC κ=0.4": (21.0, 9.72),
    "SBC whitened κ=0.4": (16.3, 6.20),
    "FDA": (39.6, 8.39),
    "SBL": (24.3, 10.7),
}


_N_TRAIN = 42


#: Updates of the paper's undamped algorithm (it oscillates on these data; §5 gives no rule).
_UNDAMPED_UPDATES = 100


def sign_test(a, b):
    """One-sided binomial sign test of ``a < b`` under the normal approximation (§5).

    Parameters
    ----------
    a, b : array_like
        Paired error rates.

    Returns
    -------
    wins, ties, losses : int
        Splits where ``a`` is smaller, equal, larger.
    z : float
        ``(wins - n/2) / sqrt(n/4)`` with ``n = wins + losses``.
    """
    a, b = np.asarray(a), np.asarray(b)
    wins, ties = int(np.sum(a < b)), int(np.sum(a == b))
    losses = a.size - wins - ties
    n = wins + losses
    return wins, ties, losses, (wins - n / 2) / math.sqrt(n / 4) if n else math.nan


def welch(a, b, alternative="two-sided"):
    """Welch's t-test of the mean of ``a`` against that of ``b`` (§5: between methods).

    Parameters
    ----------
    a, b : array_like
        Test errors of two methods over splits (treated as two groups, as the
        paper does; the splits are in fact paired).
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        ``"less"``: the mean of ``a`` is smaller.

    Returns
    -------
    t, p : float
        ``scipy.stats.ttest_ind(a, b, equal_var=False)``.
    """
    from scipy import stats

    res = stats.ttest_ind(np.asarray(a), np.asarray(b), equal_var=False, alternative=alternative)
    return float(res.statistic), float(res.pvalue)


def whiten_all_tissues(X):
    """§5 literally: centre over all tissues, rows to norm sqrt(N), then whiten on all of them.

    Parameters
    ----------
    X : ndarray of shape (M, N)
        All tissues (training and test).

    Returns
    -------
    ndarray of shape (M, r)
        Coordinates on the ``r = M - 1`` principal directions of the sphered
        data, unit variance over the M tissues, rows scaled to norm sqrt(r).
    """
    from statmechlearn.linear import sphere_rows

    Xs = sphere_rows(X - X.mean(axis=0))
    W, _ = _whiten_training(Xs, Xs[:1])
    return W


def _whiten_training(Xtr, Xte):
    """Whitening of §5 fitted on the training tissues: rank-r coordinates, rows to sqrt(r)."""
    from statmechlearn.linear import sphere_rows

    mean = Xtr.mean(axis=0)
    _, s, vt = np.linalg.svd(Xtr - mean, full_matrices=False)
    rank = int(np.sum(s > s[0] * 1e-10))
    proj = vt[:rank].T * (math.sqrt(Xtr.shape[0]) / s[:rank])
    return sphere_rows((Xtr - mean) @ proj), sphere_rows((Xte - mean) @ proj)


def _grid(Xtr, ytr, Xte, yte, kappas, damping, max_iter):
    """LOO error and test error of the SBC at every (C, kappa), C varying slowest."""
    from statmechlearn.linear import PAPER_C_GRID, SparseBayesClassifier

    rows = []
    for C in PAPER_C_GRID:
        for kappa in kappas:
            est = SparseBayesClassifier(
                C=C, kappa=kappa, preprocessing=None, damping=damping, max_iter=max_iter
            ).fit(Xtr, ytr)
            rows.append((C, kappa, est.loo_error_, np.mean(est.predict(Xte) != yte)))
    return np.array(rows)


def _choose(rows, kappa=None):
    """The grid point of least LOO error (first in the paper's order on ties)."""
    use = np.flatnonzero(np.isclose(rows[:, 1], kappa)) if kappa is not None else None
    sub = rows if use is None else rows[use]
    C, k, _, test = sub[int(np.argmin(sub[:, 2]))]
    return test, C, k


def _literal(W, ytr, tr, te, y):
    """The SBC at kappa = 0.4 on data whitened on all tissues: test error, cavity and exact
    LOO error at every C of the grid, and the test error and C of the two choices."""
    from statmechlearn.linear import PAPER_C_GRID, SparseBayesClassifier, SparseBayesClassifierCV

    test = [
        np.mean(
            SparseBayesClassifier(C=C, kappa=0.4, preprocessing=None).fit(W[tr], ytr).predict(W[te])
            != y[te]
        )
        for C in PAPER_C_GRID
    ]
    grid = {"Cs": PAPER_C_GRID, "kappas": (0.4,), "preprocessing": None}
    cavity = SparseBayesClassifierCV(**grid).fit(W[tr], ytr)
    exact = SparseBayesClassifierCV(**grid, cv="loo").fit(W[tr], ytr)
    chosen = [(np.mean(cv.predict(W[te]) != y[te]), cv.best_C_) for cv in (cavity, exact)]
    return (
        np.array(test),
        exact.cv_results_["loo_error"],
        exact.cv_results_["cv_error"],
        chosen,
    )


def _simulation(point, settings, rng):
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    from statmechlearn.datasets import load_colon
    from statmechlearn.linear import PAPER_KAPPA_GRID, RVMClassifier, sphere_rows

    X, y, _ = load_colon()
    # §5: the whole data set centred and sphered, then divided at random
    Xs = sphere_rows(X - X.mean(axis=0))
    perm = rng.permutation(len(y))
    tr, te = perm[:_N_TRAIN], perm[_N_TRAIN:]
    Wtr, Wte = _whiten_training(X[tr], X[te])
    literal = {PROTOCOLS[0]: whiten_all_tissues(X), PROTOCOLS[1]: whiten_all_tissues(np.log10(X))}
    errors, chosen_C, chosen_kappa = {}, {}, {}
    curves = {"test": [], "cavity": [], "exact": []}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # non-converged grid points are the paper's, not errors
        for tag, damping, max_iter in (("", 0.0, _UNDAMPED_UPDATES), (" damped", 0.8, 500)):
            rows = _grid(Xs[tr], y[tr], Xs[te], y[te], PAPER_KAPPA_GRID, damping, max_iter)
            white = _grid(Wtr, y[tr], Wte, y[te], (0.4,), damping, max_iter)
            for name, grid, kappa in (
                (f"SBC{tag}", rows, None),
                (f"SBC{tag} κ=0.4", rows, 0.4),
                (f"SBC{tag} whitened (training) κ=0.4", white, 0.4),
            ):
                errors[name], chosen_C[name], chosen_kappa[name] = _choose(grid, kappa)
        for protocol, W in literal.items():
            test, cavity, exact, chosen = _literal(W, y[tr], tr, te, y)
            for values, key in ((test, "test"), (cavity, "cavity"), (exact, "exact")):
                curves[key].append(values)
            for (err, C), how in zip(chosen, ("eq. (56)", "exact LOO"), strict=True):
                name = f"SBC {protocol} κ=0.4, C by {how}"
                errors[name], chosen_C[name], chosen_kappa[name] = err, C, 0.4
        for name, (A, B), priors in (
            ("FDA", (Xs[tr], Xs[te]), None),
            ("FDA whitened", (Wtr, Wte), None),
            ("FDA whitened, equal priors", (Wtr, Wte), [0.5, 0.5]),
        ):
            fda = LinearDiscriminantAnalysis(priors=priors).fit(A, y[tr])
            errors[name] = np.mean(fda.predict(B) != y[te])
        rvm = RVMClassifier().fit(Xs[tr], y[tr])
        errors["SBL"] = np.mean(rvm.predict(Xs[te]) != y[te])
    majority = 1.0 if np.sum(y[tr] > 0) > _N_TRAIN / 2 else -1.0
    errors["majority"] = np.mean(y[te] != majority)
    return {
        "sim_error": np.array([errors[m] for m in METHODS]),
        "sim_C": np.array([chosen_C[v] for v in VARIANTS]),
        "sim_kappa": np.array([chosen_kappa[v] for v in VARIANTS]),
        "sim_n_relevant": np.array(float(rvm.relevance_.size)),
        "sim_literal_test": np.array(curves["test"]),
        "sim_literal_loo_cavity": np.array(curves["cavity"]),
        "sim_literal_loo_exact": np.array(curves["exact"]),
    }


def _c_grid():
    from statmechlearn.linear import PAPER_C_GRID

    return PAPER_C_GRID


def _shared(settings):
    """The data as the experiment reads them: class sizes and the first intensities."""
    from statmechlearn.datasets import load_colon

    X, y, _ = load_colon()
    return {
        "shared_class_size": np.array([np.sum(y == 1), np.sum(y == -1)], dtype=float),
        "shared_first_values": X[0, :3],
    }


def _done(ds):
    return ds["sim_done"].values.ravel().astype(bool)


def _errors(ds, method):
    return ds["sim_error"].sel(classifier=method).values.ravel()[_done(ds)]


def _chosen(ds, var, variant):
    return ds[var].sel(variant=variant).values.ravel()[_done(ds)]


def plot_table1(ds, ax=None):
    """Test error per method (ours vs the paper's), the chosen C (Fig. 5) and κ (Fig. 6),
    and, for §5's whitening of all 62 tissues, the test error and both LOO errors per C.

    Parameters
    ----------
    ds : xarray.Dataset
    ax : sequence of four Axes, optional

    Returns
    -------
    ndarray of Axes
    """
    _, ax = subplots(ax, 1, 4, figsize=(20, 4.2))
    x = np.arange(len(METHODS))
    ours = [100 * np.mean(_errors(ds, m)) for m in METHODS]
    # bars: the SD over splits, not an SE, to compare like with like: Table 1 gives mean ± SD
    sd = [100 * np.std(_errors(ds, m), ddof=1) for m in METHODS]
    ax[0].bar(x - 0.2, ours, 0.4, yerr=sd, capsize=3, label="this run (mean ± SD over splits)")
    paper = [PAPER_TABLE1.get(_PAPER_ROW.get(m, m), (np.nan, np.nan)) for m in METHODS]
    ax[0].bar(
        x + 0.2,
        [p[0] for p in paper],
        0.4,
        yerr=[p[1] for p in paper],
        capsize=3,
        color="0.75",
        label="paper, Table 1 (mean ± SD)",
    )
    ax[0].set_xticks(x, METHODS, rotation=30, ha="right", fontsize=7)
    ax[0].set_ylabel("test error (%)")
    n = int(_done(ds).sum())
    ax[0].set_title(f"colon data, {n} random 42/20 splits", fontsize=9)
    ax[0].legend(fontsize=8)
    for a, var, grid, xlabel in (
        (ax[1], "sim_C", None, "$C$ chosen by LOO error (Fig. 5)"),
        (ax[2], "sim_kappa", (0.1, 0.2, 0.3, 0.4), r"$\kappa$ chosen by LOO error (Fig. 6)"),
    ):
        values = {v: _chosen(ds, var, v) for v in ("SBC", "SBC damped")}
        levels = grid or sorted(set(np.concatenate(list(values.values())).tolist()))
        pos = np.arange(len(levels))
        for j, (v, vals) in enumerate(values.items()):
            counts = [int(np.sum(np.isclose(vals, c))) for c in levels]
            a.bar(pos + 0.4 * (j - 0.5), counts, 0.4, color=f"C{j + 2}", label=v)
        a.set_xticks(pos, [f"{c:g}" for c in levels])
        a.set_xlabel(xlabel)
        a.set_ylabel("splits")
        a.legend(fontsize=8)
    C = ds["C"].values
    for j, protocol in enumerate(PROTOCOLS):
        for var, style, what in (
            ("sim_literal_test", "-", "test error"),
            ("sim_literal_loo_cavity", "--", "LOO eq. (56)"),
            ("sim_literal_loo_exact", ":", "exact LOO"),
        ):
            # the stored rates themselves (their mean over splits), not rescaled to percent
            mean = [np.mean(_curve(ds, var, protocol, c)) for c in C]
            ax[3].plot(C, mean, style, marker="o", ms=3, color=f"C{j}", label=f"{protocol}: {what}")
    ax[3].axhline(PAPER_TABLE1["SBC whitened κ=0.4"][0] / 100, color="0.5", lw=0.8)
    ax[3].set_xscale("log")
    ax[3].set_xlabel("C (κ = 0.4; grey: the paper's whitened SBC)")
    ax[3].set_ylabel("error rate")
    ax[3].legend(fontsize=6)
    return ax


#: The paper's row each of ours is read against in the figure.
_PAPER_ROW = {
    "SBC whitened (all 62) κ=0.4, C by eq. (56)": "SBC whitened κ=0.4",
    "SBC whitened (all 62) κ=0.4, C by exact LOO": "SBC whitened κ=0.4",
}


_FIRST = np.array([8589.4163, 5468.2409, 4263.4075])


#: Splits behind the paper's Table 1 (its sign test counts 99 + 36 + 65 = 200).
_PAPER_SPLITS = 200


#: Where the paper prints each method's numbers.
_PAPER_WHERE = {
    "SBC": "Table 1",
    "SBC κ=0.4": "§5 text",
    "SBC whitened κ=0.4": "§5 text",
    "FDA": "Table 1",
    "SBL": "Table 1",
}


_FDA_NOTE = (
    "not compared: scikit-learn's LDA on the sphered data (the minimum-norm discriminant of "
    "2000 genes from 42 tissues) is a working classifier; the paper's 39.6 ± sd 8.39 is at the "
    "chance level (the majority rule: 36 ± sd 8.5), which LDA on whitened data reproduces "
    "(next row); the paper does not say how its FDA treats the singular scatter"
)


_LITERAL_CAVITY = "SBC whitened (all 62) κ=0.4, C by eq. (56)"
_LITERAL_EXACT = "SBC whitened (all 62) κ=0.4, C by exact LOO"


_WHITENED_NOTES = {
    _LITERAL_CAVITY: (
        "; §5's protocol as written (whitening of the preprocessed data on all 62 tissues, C "
        "by eq. (56)): the cavity LOO error is far above the exact one at C <= 0.01 "
        "(N C < 1 with 61 whitened inputs) and picks a larger C of larger test error "
        "(docs/derivations/sparse_bayes_table1.md)"
    ),
    _LITERAL_EXACT: (
        "; the same data and grid, C by exact leave-one-out refits (SparseBayesClassifierCV "
        "with cv='loo'): the classifier is the same, only the estimate that picks C differs"
    ),
}


def _versus_paper(method, paper_method=None):
    """Our mean test error (%) with the paper's and our standard errors combined."""
    p_sd = PAPER_TABLE1[paper_method or method][1]

    def compute(ds):
        m = measure(100 * _errors(ds, method))
        se = math.hypot(m.se, p_sd / math.sqrt(_PAPER_SPLITS)) if m.se is not None else None
        return Measurement(m.value, se, m.n, m.n_nonfinite)

    return compute


def _paper_welch(a, b, alternative="two-sided"):
    """Welch's test on the paper's own Table 1 (means, sds, 200 splits each)."""
    from scipy import stats

    (m1, s1), (m2, s2) = PAPER_TABLE1[a], PAPER_TABLE1[b]
    n = _PAPER_SPLITS
    res = stats.ttest_ind_from_stats(m1, s1, n, m2, s2, n, equal_var=False, alternative=alternative)
    return float(res.pvalue)


def _curve(ds, var, protocol, C):
    """Per-split values of a literal-protocol output at one C of the grid."""
    sel = ds[var].sel(protocol=protocol).sel(C=C, method="nearest")
    return sel.values.ravel()[_done(ds)]


def _literal_checks():
    """Rows of the literal whitening (§5): fixed C, both choices of C, and their LOO errors."""
    p_mean = PAPER_TABLE1["SBC whitened κ=0.4"][0]
    paper = {
        "source": "simulation",
        "reported": True,
        "paper_value": str(p_mean),
        "paper_source": "§5 text",
        "paper_checked": False,
    }
    checks = [
        Derived(
            "SBC whitened (training) κ=0.4 (the whitening fitted on the 42 training tissues): "
            "mean test error % ± SE",
            lambda ds: measure(100 * _errors(ds, "SBC whitened (training) κ=0.4")),
            **paper,
            note="not compared: not §5's protocol, which whitens all 62 tissues (rows below)",
        )
    ]
    for protocol in PROTOCOLS:
        label = "log10 of the intensities first (not in §5)" if "log10" in protocol else "§5"
        checks.append(
            Derived(
                f"SBC {protocol} κ=0.4 at fixed C = {_FIXED_C:g}: mean test error % ± SE",
                lambda ds, p=protocol: measure(100 * _curve(ds, "sim_literal_test", p, _FIXED_C)),
                **paper,
                note=f"{label}; C fixed, not chosen: what the classifier does where the exact "
                "LOO error is least",
            )
        )
    for how in ("eq. (56)", "exact LOO"):
        name = f"SBC whitened log10 (all 62) κ=0.4, C by {how}"
        checks.append(
            Derived(
                f"{name}: mean test error % ± SE",
                lambda ds, n=name: measure(100 * _errors(ds, n)),
                **paper,
                note="protocol variant: log10 of the intensities before §5's preprocessing "
                "and whitening (not in the text)",
            )
        )
    for protocol in PROTOCOLS:
        for C in (min(_c_grid()), 0.1):
            checks.append(
                Derived(
                    f"SBC {protocol} κ=0.4, C = {C:g}: eq. (56) LOO error − exact refit LOO "
                    "error %, mean ± SE over splits",
                    lambda ds, p=protocol, C=C: measure(
                        100
                        * (
                            _curve(ds, "sim_literal_loo_cavity", p, C)
                            - _curve(ds, "sim_literal_loo_exact", p, C)
                        )
                    ),
                    source="simulation",
                    reported=True,
                    note="the cavity estimate of the training set's LOO error against 42 "
                    "refits, each without one tissue",
                )
            )
    checks.append(
        Derived(
            "C by exact LOO − C by eq. (56), whitened (all 62): paired test-error "
            "difference % ± SE",
            lambda ds: measure(100 * (_errors(ds, _LITERAL_EXACT) - _errors(ds, _LITERAL_CAVITY))),
            source="simulation",
            reported=True,
        )
    )
    return checks


def _checks(settings):
    powered = settings["n_seeds"] >= 100

    def paired(a, b):
        return lambda ds: measure(100 * (_errors(ds, a) - _errors(ds, b)))

    def verdict(**full):
        # the paper's criteria have power at its 200 splits: verdicts in full mode only
        return full if powered else {"reported": True}

    checks = [
        # the data the table is computed from: Alon et al.'s distribution, as shipped
        Derived(
            "normal tissues in the data (tissues.txt, positive labels)",
            lambda ds: (float(ds["shared_class_size"].sel(tissue="normal")), None),
            target=22,
            tolerance=0,
            target_from="reference: Alon et al. (1999), 22 normal and 40 tumour tissues",
            paper_value="20",
            paper_source="§5 text",
            paper_checked=False,
            note="the paper's 20 normal / 42 cancerous is a slip (its splits are 42/20)",
        ),
        Derived(
            "first intensities of tissue 1 (I2000.txt, column 1)",
            lambda ds: (float(np.abs(ds["shared_first_values"].values - _FIRST).max()), None),
            upper=0.0,
            note="8589.4163, 5468.2409, 4263.4075 as in the original files",
        ),
    ]
    for m, paper_m in (
        ("SBC", "SBC"),
        ("SBC κ=0.4", "SBC κ=0.4"),
        (_LITERAL_CAVITY, "SBC whitened κ=0.4"),
        (_LITERAL_EXACT, "SBC whitened κ=0.4"),
        ("SBL", "SBL"),
    ):
        p_mean, p_sd = PAPER_TABLE1[paper_m]
        checks.append(
            Derived(
                f"{m}: mean test error % vs the paper's (SE: ours and the paper's sd/√200 "
                "combined)",
                _versus_paper(m, paper_m),
                target=p_mean,
                target_from=f"paper, {_PAPER_WHERE[paper_m]}",
                source="simulation",
                paper_value=str(p_mean),
                paper_source=_PAPER_WHERE[paper_m],
                paper_checked=False,
                note=f"paper: {p_mean} ± sd {p_sd} over {_PAPER_SPLITS} splits"
                + ("; SBL: Tipping's RVM classifier, ARD on the genes" if m == "SBL" else "")
                + _WHITENED_NOTES.get(m, ""),
            )
        )
    checks += _literal_checks()
    for m, paper_m in (
        ("SBC damped", "SBC"),
        ("SBC damped κ=0.4", "SBC κ=0.4"),
        ("SBC damped whitened (training) κ=0.4", "SBC whitened κ=0.4"),
    ):
        checks.append(
            Derived(
                f"{m} (damping 0.8, converged): mean test error % ± SE",
                lambda ds, m=m: measure(100 * _errors(ds, m)),
                source="simulation",
                reported=True,
                paper_value=str(PAPER_TABLE1[paper_m][0]),
                paper_source=_PAPER_WHERE[paper_m],
                paper_checked=False,
                note=(
                    "not compared: the library's converged fixed point; the paper ran the "
                    "undamped iteration (the SBC rows), which oscillates on these data"
                ),
            )
        )
    checks += [
        Derived(
            "FDA (LDA, sphered data): mean test error % ± SE",
            lambda ds: measure(100 * _errors(ds, "FDA")),
            source="simulation",
            reported=True,
            paper_value="39.6",
            paper_source="Table 1",
            paper_checked=False,
            note=_FDA_NOTE,
        ),
        Derived(
            "FDA whitened (LDA on the whitened data, the training set's class priors): mean "
            "test error % ± SE",
            lambda ds: measure(100 * _errors(ds, "FDA whitened")),
            source="simulation",
            reported=True,
            paper_value="39.6",
            paper_source="Table 1",
            paper_checked=False,
            note="not compared: the class priors pull a discriminant that carries no "
            "information towards the majority rule (36 %); Fisher's discriminant has no "
            "priors (next row). Compared with 39.6 at 200 splits this row gave z = −4.6",
        ),
        Derived(
            "FDA whitened, equal priors (Fisher's midpoint threshold): mean test error % vs "
            "the paper's FDA (SE combined)",
            _versus_paper("FDA whitened, equal priors", "FDA"),
            target=39.6,
            target_from="paper, Table 1 (FDA)",
            source="simulation",
            paper_value="39.6",
            paper_source="Table 1",
            paper_checked=False,
            note="paper: 39.6 ± sd 8.39; a Fisher discriminant at the chance level",
        ),
        Derived(
            "majority class: mean test error % ± SE (chance level)",
            lambda ds: measure(100 * _errors(ds, "majority")),
            source="simulation",
            reported=True,
        ),
        Derived(
            "SBC − FDA: paired test-error difference % ± SE",
            paired("SBC", "FDA"),
            source="simulation",
            reported=True,
        ),
        Derived(
            "SBL (RVM): relevant genes kept, mean ± SE",
            lambda ds: measure(ds["sim_n_relevant"].values.ravel()[_done(ds)]),
            source="simulation",
            reported=True,
        ),
    ]

    def welch_p(a, b, alternative="two-sided"):
        return lambda ds: (welch(_errors(ds, a), _errors(ds, b), alternative)[1], None)

    # Welch's test between methods (§5): FDA is significantly worse than SBC and SBL
    checks += [
        Derived(
            "Welch p, SBC < FDA whitened (one-sided; the paper: FDA significantly worse)",
            welch_p("SBC", "FDA whitened", "less"),
            source="simulation",
            **verdict(upper=0.05),
            note="the FDA row at the paper's FDA level",
        ),
        Derived(
            "Welch p, SBL < FDA whitened (one-sided; the paper: FDA significantly worse)",
            welch_p("SBL", "FDA whitened", "less"),
            source="simulation",
            **verdict(upper=0.05),
        ),
        Derived(
            "Welch p, SBC vs FDA on sphered data (two-sided)",
            welch_p("SBC", "FDA"),
            source="simulation",
            reported=True,
            note="scikit-learn's LDA on the sphered data is no worse than the SBC",
        ),
        Derived(
            "Welch p, SBC vs SBL (two-sided; the paper: the means do not settle it)",
            welch_p("SBC", "SBL"),
            source="simulation",
            reported=True,
        ),
        Derived(
            "Welch p, SBC damped vs SBC (two-sided)",
            welch_p("SBC damped", "SBC"),
            source="simulation",
            reported=True,
        ),
        Derived(
            "Welch p from the paper's Table 1: SBC < FDA (one-sided, n = 200 each)",
            lambda ds: (_paper_welch("SBC", "FDA", "less"), None),
            reported=True,
            note="the paper's means and sds; its statement 'supported by Welch's test'",
        ),
        Derived(
            "Welch p from the paper's Table 1: SBC vs SBL (two-sided, n = 200 each)",
            lambda ds: (_paper_welch("SBC", "SBL"), None),
            reported=True,
            note="not significant, as the paper says (hence its sign test)",
        ),
    ]

    def sign(peer):
        def compute(ds):
            *_, z = sign_test(_errors(ds, "SBC"), _errors(ds, peer))
            return float(z), None

        return compute

    # The paper's own criterion (§5): SBC beats SBL if the sign test's z exceeds u(0.05) = 1.64.
    # Its SBL (24.3 %) is not Tipping's RVM (about 21 % here), so its z is shown, not compared.
    checks.append(
        Derived(
            "sign test SBC < SBL (RVM) over paired splits: z (the paper's criterion: "
            "> u(0.05) = 1.64)",
            sign("SBL"),
            source="simulation",
            reported=True,
            paper_value="2.65",
            paper_source="§5 text",
            paper_checked=False,
            note=(
                "not compared: the paper's SBL (24.3 %) is not the RVM classifier compared "
                "here, which is 3 points better than the undamped SBC (sparse_bayes_table1.md)"
            ),
        )
    )

    def kappa_mode(variant):
        def compute(ds):
            k = _chosen(ds, "sim_kappa", variant)
            levels, counts = np.unique(np.round(k, 6), return_counts=True)
            return float(levels[np.argmax(counts)]), None

        return compute

    for v in ("SBC", "SBC damped"):
        checks.append(
            Derived(
                f"{v}: most frequent κ chosen (Fig. 6)",
                kappa_mode(v),
                source="simulation",
                reported=True,
                paper_value="0.4",
                paper_source="§5 text",
                paper_checked=False,
                note="ties in the LOO error (k/42) go to the first grid point; the paper's "
                "rule is not stated, and it decides the histogram (doc: sparse_bayes_table1.md)",
            )
        )
    return checks


TABLE1 = FigureSpec(
    name="sparse-table1",
    paper=PAPER,
    citation=CITATION,
    figure="Table 1, Figs. 5–6 and §5",
    caption=(
        "Colon-cancer microarray data (Alon et al.; 22 normal, 40 tumour tissues — "
        "the paper's 20/42 is a slip), centred over all 62 tissues and rows scaled to "
        "norm √2000 (§5), random 42/20 training/test splits. SBC: C and κ by the "
        "leave-one-out error eq. (56) over the paper's grid, ties to the first grid point "
        "(SBC: the paper's undamped iteration, 100 updates; SBC damped: the converged "
        "fixed point); variants with κ = 0.4 and with whitened data: §5's whitening of "
        "the preprocessed data on all 62 tissues (and of log10 intensities, a variant), "
        "C by eq. (56) or by exact leave-one-out refits, and the whitening fitted on the "
        "training tissues; FDA: Fisher discriminant (scikit-learn LDA) on the "
        "sphered and on the whitened data; SBL: Tipping's RVM classifier with an ARD prior "
        "on the genes (Laplace approximation); majority: the chance level. Middle and "
        "right: C (Fig. 5) and κ (Fig. 6) chosen per split; right: §5's whitening, test "
        "error and both leave-one-out errors against C."
    ),
    grid={"split": ("random",)},
    settings={"quick": {"n_seeds": 12}, "full": {"n_seeds": 200}},
    outputs={
        "sim_error": ("classifier",),
        "sim_C": ("variant",),
        "sim_kappa": ("variant",),
        "sim_n_relevant": (),
        "sim_literal_test": ("protocol", "C"),
        "sim_literal_loo_cavity": ("protocol", "C"),
        "sim_literal_loo_exact": ("protocol", "C"),
        "shared_class_size": ("tissue",),
        "shared_first_values": ("gene",),
    },
    coords=lambda s: {
        "classifier": np.array(METHODS),
        "variant": np.array(VARIANTS),
        "protocol": np.array(PROTOCOLS),
        "C": np.array(_c_grid()),
        "tissue": np.array(["normal", "tumour"]),
        "gene": np.arange(3),
    },
    shared=_shared,
    simulation=_simulation,
    plot=plot_table1,
    checks=_checks,
    base_seed=19990601,
)
