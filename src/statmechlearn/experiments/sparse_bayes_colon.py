"""Table 1 of Uda & Kabashima: the colon-cancer microarray study.

``sparse-table1``. Alon et al.'s 62 tissues x 2000 genes, shipped with the
package (:func:`statmechlearn.datasets.load_colon`). One seed is one random split
into 42 training and 20 test tissues. On each split:

- **SBC**: :class:`~statmechlearn.linear.SparseBayesClassifierCV` over the
  paper's grid (9 values of C x 4 of kappa) by leave-one-out error eq. (56),
  preprocessing exactly as §5: subtract the training mean, scale every row
  to norm sqrt(2000) (test rows with the training mean);
- **SBC, kappa = 0.4**: the same with kappa fixed (the paper's variant);
- **SBC whitened, kappa = 0.4**: training data projected on their 41
  principal directions, scaled to unit variance, rows to norm sqrt(41);
- **FDA**: scikit-learn's ``LinearDiscriminantAnalysis`` (SVD solver, the
  plain Fisher discriminant) on the same sphered data;
- **SBL**: sparse Bayesian learning with an ARD prior on the *genes*
  (Tipping 2001; Li, Campbell & Tipping 2002, the paper's refs. [3], [21]):
  scikit-learn's ``ARDRegression`` fitted to the +-1 labels (evidence
  maximisation of one precision per gene; the sign of the posterior-mean
  output is the prediction), on the same sphered data;
- **RVM**: Tipping's relevance vector machine with a linear kernel
  (``sklearn_rvm.EMRVC``, ARD over the *training tissues* with a logistic
  likelihood), on the same sphered data, when installed (NaN otherwise).

Each method's mean test error is compared with the paper's (its standard
error and ours combined); the paper's one-sided binomial sign test of SBC
against SBL is a verdict in full mode (200 splits, as in the paper). No
maintained Python package fits Tipping's ARD *classifier* over features; the
regression form on the labels is the feature-ARD model that a user would
pick, and the RVM row shows the classification likelihood with ARD over
samples instead.
"""

import math
import warnings

import numpy as np

from statmechlearn.experiments._registry import register
from statmechlearn.experiments._spec import Derived, FigureSpec, Measurement, measure
from statmechlearn.experiments.sparse_bayes_uda import CITATION, PAPER

__all__ = ["METHODS", "PAPER_TABLE1", "plot_table1", "sign_test"]

METHODS = ("SBC", "SBC κ=0.4", "SBC whitened κ=0.4", "FDA", "SBL", "RVM")
#: The paper's Table 1 and §5 (mean test error %, standard deviation %).
PAPER_TABLE1 = {
    "SBC": (23.5, 10.2),
    "SBC κ=0.4": (21.0, 9.72),
    "SBC whitened κ=0.4": (16.3, 6.20),
    "FDA": (39.6, 8.39),
    "SBL": (24.3, 10.7),
    "RVM": (math.nan, math.nan),  # not in the paper
}
_N_TRAIN = 42


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


def _simulation(point, settings, rng):
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.linear_model import ARDRegression

    from statmechlearn.datasets import load_colon
    from statmechlearn.linear import SparseBayesClassifierCV, sphere_rows

    X, y, _ = load_colon()
    perm = rng.permutation(len(y))
    tr, te = perm[:_N_TRAIN], perm[_N_TRAIN:]
    errors, chosen_C, chosen_kappa = [], [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # non-converged grid points are counted, not printed
        for kappas, prep in (
            ((0.1, 0.2, 0.3, 0.4), "sphere"),
            ((0.4,), "sphere"),
            ((0.4,), "whiten"),
        ):
            cv = SparseBayesClassifierCV(kappas=kappas, preprocessing=prep).fit(X[tr], y[tr])
            errors.append(np.mean(cv.predict(X[te]) != y[te]))
            chosen_C.append(cv.best_C_)
            chosen_kappa.append(cv.best_kappa_)
        mean = X[tr].mean(axis=0)
        Xtr, Xte = sphere_rows(X[tr] - mean), sphere_rows(X[te] - mean)
        fda = LinearDiscriminantAnalysis().fit(Xtr, y[tr])
        errors.append(np.mean(fda.predict(Xte) != y[te]))
        ard = ARDRegression().fit(Xtr, y[tr])
        errors.append(np.mean(np.where(ard.predict(Xte) >= 0, 1, -1) != y[te]))
        try:
            from sklearn_rvm import EMRVC
        except ImportError:
            errors.append(math.nan)
        else:
            rvm = EMRVC(kernel="linear").fit(Xtr, y[tr])
            errors.append(np.mean(rvm.predict(Xte) != y[te]))
    return {
        "sim_error": np.array(errors),
        "sim_C": np.array(chosen_C),
        "sim_kappa": np.array(chosen_kappa),
    }


def _shared(settings):
    """The data as the experiment reads them: class sizes and the first intensities."""
    from statmechlearn.datasets import load_colon

    X, y, _ = load_colon()
    return {
        "shared_class_size": np.array([np.sum(y == 1), np.sum(y == -1)], dtype=float),
        "shared_first_values": X[0, :3],
    }


def _errors(ds, method):
    return (
        ds["sim_error"]
        .sel(classifier=method)
        .values.ravel()[ds["sim_done"].values.ravel().astype(bool)]
    )


def plot_table1(ds, ax=None):
    """Test error per method (ours vs the paper's) and the chosen C.

    Parameters
    ----------
    ds : xarray.Dataset
    ax : sequence of two Axes, optional

    Returns
    -------
    ndarray of Axes
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(1, 2, figsize=(11, 4.2), constrained_layout=True)
    ax = np.asarray(ax)
    x = np.arange(len(METHODS))
    ours = [100 * np.mean(_errors(ds, m)) for m in METHODS]
    sd = [100 * np.std(_errors(ds, m), ddof=1) for m in METHODS]
    ax[0].bar(x - 0.2, ours, 0.4, yerr=sd, capsize=3, label="this run (mean ± sd)")
    ax[0].bar(
        x + 0.2,
        [PAPER_TABLE1[m][0] for m in METHODS],
        0.4,
        yerr=[PAPER_TABLE1[m][1] for m in METHODS],
        capsize=3,
        color="0.75",
        label="paper",
    )
    ax[0].set_xticks(x, METHODS, rotation=15, fontsize=8)
    ax[0].set_ylabel("test error (%)")
    n = int(ds["sim_done"].sum())
    ax[0].set_title(f"colon data, {n} random 42/20 splits", fontsize=9)
    ax[0].legend(fontsize=8)
    Cs = ds["sim_C"].sel(variant="SBC").where(ds["sim_done"]).values.ravel()
    Cs = Cs[np.isfinite(Cs)]
    grid = np.array(sorted(set(Cs.tolist())))
    counts = [int(np.sum(Cs == c)) for c in grid]
    ax[1].bar(np.arange(grid.size), counts, color="C2")
    ax[1].set_xticks(np.arange(grid.size), [f"{c:g}" for c in grid])
    ax[1].set_xlabel("C chosen by LOO error (SBC, κ from the grid)")
    ax[1].set_ylabel("splits")
    return ax


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
    "not compared: our FDA is scikit-learn's LDA (SVD solver, the minimum-norm discriminant of "
    "2000 genes from 42 tissues); the paper does not say how its Fisher discriminant treats the "
    "singular within-class scatter (a pseudo-inverse one gives 30 ± 16 % on our splits)"
)


def _versus_paper(method):
    """Our mean test error (%) with the paper's and our standard errors combined."""
    p_sd = PAPER_TABLE1[method][1]

    def compute(ds):
        m = measure(100 * _errors(ds, method))
        se = math.hypot(m.se, p_sd / math.sqrt(_PAPER_SPLITS)) if m.se is not None else None
        return Measurement(m.value, se, m.n, m.n_nonfinite)

    return compute


def _checks(settings):
    powered = settings["n_seeds"] >= 100

    def paired(a, b):
        return lambda ds: measure(100 * (_errors(ds, a) - _errors(ds, b)))

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
    for m in METHODS:
        p_mean, p_sd = PAPER_TABLE1[m]
        if m == "FDA":
            checks.append(
                Derived(
                    "FDA: mean test error % ± SE",
                    lambda ds: measure(100 * _errors(ds, "FDA")),
                    source="simulation",
                    reported=True,
                    paper_value=str(p_mean),
                    paper_source=_PAPER_WHERE[m],
                    paper_checked=False,
                    note=_FDA_NOTE,
                )
            )
        elif math.isfinite(p_mean):
            checks.append(
                Derived(
                    f"{m}: mean test error % vs the paper's (SE: ours and the paper's sd/√200 "
                    "combined)",
                    _versus_paper(m),
                    target=p_mean,
                    target_from=f"paper, {_PAPER_WHERE[m]}",
                    source="simulation",
                    paper_value=str(p_mean),
                    paper_source=_PAPER_WHERE[m],
                    paper_checked=False,
                    note=f"paper: {p_mean} ± sd {p_sd} over {_PAPER_SPLITS} splits",
                )
            )
        else:
            checks.append(
                Derived(
                    f"{m}: mean test error % ± SE (not in the paper)",
                    lambda ds, m=m: measure(100 * _errors(ds, m)),
                    source="simulation",
                    reported=True,
                    requires=("sklearn_rvm",),
                )
            )
    checks.append(
        Derived(
            "SBC − FDA: paired test-error difference % ± SE",
            paired("SBC", "FDA"),
            source="simulation",
            reported=True,
        )
    )

    def sign(peer):
        def compute(ds):
            *_, z = sign_test(_errors(ds, "SBC"), _errors(ds, peer))
            return float(z), None

        return compute

    # The paper's own criterion (§5): SBC beats SBL if the sign test's z exceeds u(0.05) = 1.64.
    # Its power grows with the number of splits: a verdict in full mode (200 splits, as the
    # paper), a measurement in quick mode.
    checks.append(
        Derived(
            "sign test SBC < SBL over paired splits: z (the paper's criterion: > u(0.05) = 1.64)",
            sign("SBL"),
            source="simulation",
            **(
                {"lower": 1.64, "paper_value": "2.65", "paper_source": "§5 text"}
                if powered
                else {"reported": True}
            ),
            paper_checked=False,
        )
    )
    checks.append(
        Derived(
            "sign test SBC < RVM over paired splits: z (not in the paper)",
            sign("RVM"),
            source="simulation",
            reported=True,
            requires=("sklearn_rvm",),
        )
    )
    return checks


TABLE1 = register(
    FigureSpec(
        name="sparse-table1",
        paper=PAPER,
        citation=CITATION,
        figure="Table 1 and §5",
        caption=(
            "Colon-cancer microarray data (Alon et al.; 22 normal, 40 tumour tissues — "
            "the paper's 20/42 is a slip), random 42/20 training/test splits. SBC: C and "
            "κ chosen on each training set by the leave-one-out error over the paper's "
            "grid; variants with κ = 0.4 fixed and with whitened data; FDA: Fisher "
            "discriminant (scikit-learn LDA); SBL: ARD prior on the genes (scikit-learn "
            "ARDRegression on the ±1 labels); RVM: ARD over training tissues, linear kernel "
            "(sklearn-rvm). Preprocessing: training mean subtracted, rows scaled to "
            "norm √2000. Right: C chosen per split."
        ),
        grid={"split": ("random",)},
        settings={"quick": {"n_seeds": 12}, "full": {"n_seeds": 200}},
        outputs={
            "sim_error": ("classifier",),
            "sim_C": ("variant",),
            "sim_kappa": ("variant",),
            "shared_class_size": ("tissue",),
            "shared_first_values": ("gene",),
        },
        coords=lambda s: {
            "classifier": np.array(METHODS),
            "variant": np.array(METHODS[:3]),
            "tissue": np.array(["normal", "tumour"]),
            "gene": np.arange(3),
        },
        shared=_shared,
        simulation=_simulation,
        plot=plot_table1,
        peers=("sklearn_rvm",),
        checks=_checks,
        base_seed=19990601,
    )
)
