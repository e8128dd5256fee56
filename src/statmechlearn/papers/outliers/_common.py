"""What every figure of Dietrich & Opper shares: the paper key and citation, gamma,
the batched soft/hard-selection EM on the library's kernel, axes and error bars.
"""

import json
import math
import warnings

import numpy as np

from statmechlearn.experiments import (
    mean_se,
    padded,
    plot_simulation,
    plot_theory,
    simulation_label,
    subplots,
)
from statmechlearn.linear import hard_selection_em, hebb_vector, soft_selection_em
from statmechlearn.models.outliers import OutlierMixture
from statmechlearn.theory import outliers as theory

__all__ = [
    "ALPHA_20",
    "CITATION",
    "GAMMA",
    "HARD_STARTS",
    "MAX_BRANCHES",
    "PAPER",
    "eta_learning_lost",
    "hard_em_from_teacher",
    "hard_selection_run",
    "setting",
    "simulate_selection",
    "start_label",
]


PAPER = "outliers"


CITATION = "R. Dietrich, M. Opper, Statistical Mechanics of Learning in the Presence of Outliers"


GAMMA = 10.0


MAX_BRANCHES = 5


def simulate_selection(alpha, eta, *, n_features, n_runs, rng, methods=("soft",), gamma=GAMMA):
    """Teacher-student runs of the paper's estimators at one (alpha, eta).

    Parameters
    ----------
    alpha, eta : float
    n_features : int
    n_runs : int
    rng : numpy.random.Generator
    methods : tuple of {"soft", "hard", "hebb"}
    gamma : float

    Returns
    -------
    dict
        method -> OutlierOrderParameters of the runs (arrays of shape (n_runs,)).
    """
    model = OutlierMixture(n_features, eta, gamma)
    X, S, _ = model.sample(max(2, round(alpha * n_features)), rng, batch_shape=(n_runs,))
    S = S.astype(float)
    out = {}
    soft = None
    if "soft" in methods or "hard" in methods:
        soft = soft_selection_em(X, S, gamma=gamma, eta=eta, max_iter=2000)
        out["soft"] = model.order_parameters(soft.J)
    if "hard" in methods:
        hard = hard_selection_em(X, S, gamma=gamma, eta=eta, V0=(soft.V > 0.5).astype(float))
        out["hard"] = model.order_parameters(hard.J)
    if "hebb" in methods:
        out["hebb"] = model.order_parameters(hebb_vector(X, S, gamma))
    return out


def _errorbars(ax, ds, var, x, *, label=None, **kw):
    # bars: ± SE of the mean over runs, as in every figure (the spread of single runs,
    # the paper's finite-N fluctuations, is the SE times the square root of the runs)
    values = ds[var].where(ds["sim_done"])
    mean, se = mean_se(values)
    if label is not None:
        label = simulation_label(values.count("seed"), label)
    plot_simulation(ax, x, mean, se, label=label, **kw)
    return ds["sim_done"].sum("seed")


def _axes(ax, figsize=(6.4, 4.4)):
    _, ax = subplots(ax, figsize=figsize)
    return ax


ALPHA_20 = 20.0


#: Points of a continued branch stored per selection (NaN-padded), and the dense eta grid.
_CURVE_POINTS = 1024


_ETA_DENSE = np.linspace(0.0, 6.5, 300)


def _lines_shared(selections):
    """Shared cell: every saddle point along eta and the global minimum on a dense grid."""

    def shared(settings):
        out = {}
        for selection in selections:
            curve_fn = (
                theory.soft_selection_curve
                if selection == "soft"
                else (theory.hard_selection_curve)
            )
            solve = theory.soft_selection if selection == "soft" else theory.hard_selection
            curve = curve_fn(ALPHA_20, gamma=GAMMA, eta_range=(-2.0, 8.0))
            out[f"shared_curve_eta_{selection}"] = padded(curve.eta, _CURVE_POINTS)
            out[f"shared_curve_Phi_{selection}"] = padded(curve.Phi, _CURVE_POINTS)
            out[f"shared_Phi_min_{selection}"] = np.array(
                [solve(ALPHA_20, e, gamma=GAMMA).branch().Phi for e in _ETA_DENSE]
            )
        transition = theory.soft_transition(ALPHA_20, gamma=GAMMA)
        out["shared_eta_c_soft"] = transition.eta_c
        out["shared_spinodals_soft"] = np.array(sorted(transition.spinodals[:2]))
        # the jump of Phi between the coexisting branches at eta_c: the hysteresis' scale
        at_c = theory.soft_selection(ALPHA_20, transition.eta_c, gamma=GAMMA).Phi
        out["shared_Phi_jump_soft"] = float(np.max(at_c) - np.min(at_c))
        return out

    shared.__qualname__ = shared.__name__ = f"_lines_shared_{'_'.join(selections)}"
    return shared


def _lines_outputs(selections):
    out = {"shared_eta_c_soft": (), "shared_spinodals_soft": ("fold",), "shared_Phi_jump_soft": ()}
    for selection in selections:
        out[f"shared_curve_eta_{selection}"] = ("curve_point",)
        out[f"shared_curve_Phi_{selection}"] = ("curve_point",)
        out[f"shared_Phi_min_{selection}"] = ("eta_dense",)
    return out


_LINES_COORDS = {
    "curve_point": np.arange(_CURVE_POINTS),
    "eta_dense": _ETA_DENSE,
    "fold": np.arange(2),
}


def _theory_lines(ax, ds, selection, colour, label):
    ax.plot(
        ds[f"shared_curve_eta_{selection}"],
        ds[f"shared_curve_Phi_{selection}"],
        "--",
        color=colour,
        lw=0.8,
        label=f"{label}: all saddle points",
    )
    plot_theory(
        ax,
        ds["eta_dense"],
        ds[f"shared_Phi_min_{selection}"],
        color=colour,
        label=f"{label}: global minimum",
    )


#: How a simulated hard-selection learner starts: the estimator's own search (the
#: learner at its best) or EM (26)-(28) from the teacher's selection (a labelled variant).
HARD_STARTS = ("search", "teacher")


def hard_selection_run(alpha, eta, *, n_features, seed, gamma=GAMMA, start="search"):
    """The hard-selection learner on the data of ``seed``: cos(J, B), selection, energy (10).

    ``start="search"`` fits
    :class:`~statmechlearn.linear.OutlierRobustClassifier` ``("hard")`` at the
    true gamma and eta: the lowest energy (10) over descents from its several
    starts, the learner at its best. ``start="teacher"`` runs hard-selection
    EM (eqs. 26-28, polished by single flips) from the true selection: one
    start, which the learner cannot know.

    The data of a given ``seed`` are coupled across eta (common random
    numbers): the informative examples at a larger eta are a subset of those
    at a smaller one, so a threshold in eta can be bisected per seed.

    Returns
    -------
    dict
        ``cos`` (R / sqrt(Q) of <J>, 0 for J = 0), ``selected`` (fraction of
        V = 1) and ``energy`` (eq. 10 per N, comparable with the theory's f).
    """
    from statmechlearn.linear import OutlierRobustClassifier, hard_selection_energy

    model = OutlierMixture(n_features, eta, gamma)
    X, S, V = model.sample(
        max(2, round(alpha * n_features)), np.random.default_rng(seed), batch_shape=(1,)
    )
    S = S.astype(float)
    if start == "teacher":
        res = hard_selection_em(X, S, gamma=gamma, eta=eta, V0=V.astype(float))
        J, V_found = res.J[0], res.V
        energy = float(hard_selection_energy(X, S, V_found, gamma=gamma, eta=eta)[0])
    elif start == "search":
        learner = OutlierRobustClassifier(
            "hard", gamma=gamma, eta=eta, fit_intercept=False, max_iter=_SEARCH_MAX_ITER
        )
        with warnings.catch_warnings():
            # the trivial state winning is one of the outcomes measured, not a fault
            warnings.filterwarnings("ignore", "OutlierRobustClassifier\\('hard'\\): the trivial")
            learner.fit(X[0], S[0])
        J, V_found, energy = learner.J_, learner.informative_proba_, learner.energy_
    else:
        raise ValueError(f"start must be one of {HARD_STARTS}, got {start!r}")
    op = model.order_parameters(J)
    return {
        "cos": float(op.R / math.sqrt(op.Q)) if op.Q > 0 else 0.0,
        "selected": float(np.mean(V_found)),
        "energy": float(energy),
    }


#: Descent iterations for the simulated estimator: its default (500) can end a descent
#: before its local minimum at alpha = 1000 (it then warns); the learner at its best does not.
_SEARCH_MAX_ITER = 5000


def setting(ds, key, default=None):
    """The value of setting ``key`` with which a stored result was computed."""
    return json.loads(ds.attrs["key_json"])["settings"].get(key, default)


def start_label(ds):
    """Who the simulated hard-selection learner is in a stored result, for labels."""
    start = setting(ds, "start", "search")
    return "the estimator at its best" if start == "search" else "EM from the teacher"


def hard_em_from_teacher(alpha, eta, *, n_features, seed, gamma=GAMMA):
    """:func:`hard_selection_run` with ``start="teacher"``: EM from the true selection."""
    return hard_selection_run(
        alpha, eta, n_features=n_features, seed=seed, gamma=gamma, start="teacher"
    )


def eta_learning_lost(alpha, *, n_features, seed, lo, hi, steps=5, gamma=GAMMA, start="search"):
    """eta at which the hard-selection learner stops learning (cos < 1/2), by bisection.

    ``start`` as in :func:`hard_selection_run`. Returns ``lo`` if it does not
    learn at ``lo`` and ``hi`` if it still learns at ``hi`` (censored);
    otherwise the midpoint of the final bracket (resolution
    ``(hi - lo) / 2^(steps + 1)``).
    """

    def learns(eta):
        run = hard_selection_run(
            alpha, eta, n_features=n_features, seed=seed, gamma=gamma, start=start
        )
        return run["cos"] >= 0.5

    if not learns(lo):
        return lo
    if learns(hi):
        return hi
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if learns(mid) else (lo, mid)
    return 0.5 * (lo + hi)


def _lost_bracket(alpha):
    t = theory.hard_transition(alpha, gamma=GAMMA)
    return t.eta_learn - 1.5, t.eta_c + 0.5
