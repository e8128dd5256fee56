"""Fig. 8 simulated: where the hard-selection learner at its best stops learning and
where the trivial state beats what it finds, at gamma = 0.1, 1, 10 and alpha = 100, 1000,
over a ladder of N extrapolated to N -> infinity beside the replica-symmetric and the
one-step RSB thresholds. EM started at the teacher's selection is the variant
``start=teacher``.
"""

import functools
import math

import numpy as np

from statmechlearn.experiments import (
    Derived,
    FigureSpec,
    Measurement,
    extrapolate_dataset,
    ladder_checks,
    plot_simulation,
    seeds_for,
    subplots,
)
from statmechlearn.papers.outliers._common import (
    CITATION,
    HARD_STARTS,
    PAPER,
    hard_selection_run,
    start_label,
)
from statmechlearn.theory import outliers as theory

__all__ = [
    "HARD_THRESHOLDS",
    "HARD_THRESHOLDS_LADDER",
    "plot_hard_thresholds",
    "selection_thresholds",
]


HARD_THRESHOLDS_GAMMAS = (0.1, 1.0, 10.0)


HARD_THRESHOLDS_ALPHAS = (100.0, 1000.0)


HARD_THRESHOLDS_LADDER = (25, 50, 100)


#: Bisection steps: the bracket (width about eta_c) is resolved to width / 2^(steps + 1)
_STEPS = 8


def _bracket(alpha, gamma):
    """Where both thresholds lie for every N of the ladder: from near 0 to past eta_c."""
    return 0.02, _rs_transition(float(alpha), float(gamma)).eta_c + 1.5


def selection_thresholds(alpha, gamma, *, n_features, seed, lo, hi, steps=_STEPS, start="search"):
    """The two thresholds the hard-selection learner meets, by bisection on coupled data.

    At each eta tried the learner of ``start`` runs on the data of ``seed``,
    the same at every eta
    (:func:`~statmechlearn.papers.outliers._common.hard_selection_run`):
    ``"search"`` is the estimator at its best, ``"teacher"`` EM from the true
    selection.

    Parameters
    ----------
    alpha, gamma : float
    n_features : int
    seed : int
    lo, hi : float
        The bracket in eta; a threshold outside it is returned as ``lo`` or
        ``hi`` (censored).
    steps : int, default=8
    start : {"search", "teacher"}, default="search"

    Returns
    -------
    dict
        ``lost``: the eta at which the state found stops learning
        (R/sqrt(Q) < 1/2); ``trivial``: the eta at which its energy (10)
        per N is no longer below the trivial state's (V = 0, energy 0). Each
        the midpoint of its final bracket.
    """
    runs = {}

    def run(eta):
        if eta not in runs:
            runs[eta] = hard_selection_run(
                alpha, eta, n_features=n_features, seed=seed, gamma=gamma, start=start
            )
        return runs[eta]

    def bisect(holds):
        a, b = lo, hi
        if not holds(a):
            return a
        if holds(b):
            return b
        for _ in range(steps):
            mid = 0.5 * (a + b)
            a, b = (mid, b) if holds(mid) else (a, mid)
        return 0.5 * (a + b)

    return {
        "lost": bisect(lambda eta: run(eta)["cos"] >= 0.5),
        "trivial": bisect(lambda eta: run(eta)["energy"] < 0.0),
    }


@functools.lru_cache(maxsize=16)
def _rs_transition(alpha, gamma):
    # one saddle-point scan per (alpha, gamma), shared by the ladder's rungs
    return theory.hard_transition(alpha, gamma=gamma)


@functools.lru_cache(maxsize=16)
def _rsb_transition(alpha, gamma):
    return theory.hard_transition_1rsb(alpha, gamma=gamma)


def _theory(point, settings):
    alpha, gamma = float(point["alpha"]), float(point["gamma"])
    t = _rs_transition(alpha, gamma)
    b = _rsb_transition(alpha, gamma)
    return {
        "theory_eta_learn": t.eta_learn,
        "theory_eta_spinodal": t.eta_learn_spinodal,
        "theory_eta_c": t.eta_c,
        "theory_eta_learn_1rsb": b.eta_learn,
        "theory_eta_spinodal_1rsb": b.eta_learn_spinodal,
        "theory_eta_c_1rsb": b.eta_c,
    }


def _seeds(point, settings):
    n = point["n_features"]
    if n > settings["max_n"] or point["alpha"] not in settings["sim_alphas"]:
        return 0
    return seeds_for(n, n_seeds=settings["n_seeds"], n_ref=HARD_THRESHOLDS_LADDER[0])


def _simulation(point, settings, rng):
    alpha, gamma = point["alpha"], point["gamma"]
    lo, hi = _bracket(alpha, gamma)
    found = selection_thresholds(
        alpha,
        gamma,
        n_features=int(point["n_features"]),
        seed=int(rng.integers(2**62)),
        lo=lo,
        hi=hi,
        start=settings["start"],
    )
    return {"sim_eta_lost": found["lost"], "sim_eta_trivial": found["trivial"]}


def _limit(ds, var, gamma, alpha):
    return extrapolate_dataset(ds, var, sel={"gamma": gamma, "alpha": alpha})


#: Theory lines of the thresholds figure: (variable, colour, style, width, label) (plots only).
_THEORY_LINES = (
    ("theory_eta_learn", "C3", "--", 0.9, r"RS theory: $\eta_{learn}$"),
    ("theory_eta_spinodal", "C3", ":", 0.9, "RS theory: learning spinodal"),
    ("theory_eta_c", "C0", "--", 0.9, r"RS theory: $\eta_c$ (trivial state wins)"),
    ("theory_eta_learn_1rsb", "C3", "-", 2.0, r"1RSB theory: $\eta_{learn}$"),
    ("theory_eta_spinodal_1rsb", "C3", "-.", 1.4, "1RSB theory: learning spinodal"),
    ("theory_eta_c_1rsb", "C0", "-", 2.0, r"1RSB theory: $\eta_c$ (trivial state wins)"),
)


#: The two simulated thresholds: (variable, colour, marker, x offset factor, label) (plots only).
_SIM_POINTS = (
    ("sim_eta_lost", "k", "o", 0.92, r"stops learning ($R/\sqrt{Q} < 1/2$)"),
    ("sim_eta_trivial", "C0", "s", 1.08, "trivial state below the state found"),
)


def plot_hard_thresholds(ds, ax=None):
    """Thresholds against gamma, one panel per alpha: RS and 1RSB lines, the learner at N -> inf."""
    alphas = [float(a) for a in ds["alpha"].values]
    if ax is None:
        fig, axes = subplots(None, 1, len(alphas), figsize=(5.4 * len(alphas), 5.4))
        axes = np.atleast_1d(axes)
    else:
        axes = [ax] * len(alphas)
    g = ds["gamma"].values
    for panel, alpha in zip(axes, alphas, strict=True):
        at = ds.sel(alpha=alpha).isel(n_features=0)
        for var, colour, style, width, label in _THEORY_LINES:
            panel.plot(g, at[var], color=colour, ls=style, lw=width, marker=".", label=label)
        # quick mode simulates the smaller alpha only: its other panel has the theory alone
        simulated = bool(np.isfinite(ds["sim_eta_lost"].sel(alpha=alpha)).any())
        for var, colour, marker, shift, label in _SIM_POINTS if simulated else ():
            # one N -> infinity intercept per gamma, each a point with its fit's SE; the two
            # thresholds side by side (shifted in gamma) where they nearly coincide
            for j, x in enumerate(g):
                m = _limit(ds, var, float(x), alpha).measurement()
                plot_simulation(
                    panel,
                    [x * shift],
                    [m.value],
                    [m.se],
                    color=colour,
                    marker=marker,
                    linestyle="none",
                    zorder=3,
                    label=(
                        f"simulation, {start_label(ds)}: {label}, N → ∞ (± SE)" if j == 0 else None
                    ),
                )
        panel.set_xscale("log")
        panel.set_xlabel(r"$\gamma = \tilde\gamma$")
        panel.set_ylabel(r"$\eta$ (hard selection)")
        title = rf"$\alpha = {alpha:g}$" + ("" if simulated else " (theory only in this mode)")
        panel.set_title(title, fontsize=9)
    if ax is not None:
        ax.legend(fontsize=7)
        return ax
    # one legend under the panels (the lines are the same in each; a panel may lack the runs)
    entries = {}
    for panel in axes:
        for handle, label in zip(*panel.get_legend_handles_labels(), strict=True):
            entries.setdefault(label, handle)
    fig.legend(
        list(entries.values()), list(entries), loc="outside lower center", ncol=3, fontsize=7
    )
    return axes[0]


def _limit_minus(var, theory_var, at):
    """The N -> infinity threshold less a theory's (RS or 1RSB) counterpart, with the fit's SE."""

    def compute(ds):
        m = _limit(ds, var, **at).measurement()
        rs = float(ds[theory_var].sel(at).isel(n_features=0))
        return Measurement(m.value - rs, m.se, m.n, m.n_nonfinite)

    return compute


def _rs_gap(ds):
    """Smallest eta_c - eta_learn of the RS theory over the grid."""
    gap = ds["theory_eta_c"] - ds["theory_eta_learn"]
    return float(gap.isel(n_features=0).min()), None


def _rs_minus_rsb_eta_c(ds):
    """Smallest RS eta_c - 1RSB eta_c over the grid (a NaN propagates)."""
    gap = ds["theory_eta_c"] - ds["theory_eta_c_1rsb"]
    return float(gap.isel(n_features=0).min(skipna=False)), None


def _half_step(ds, at):
    """Largest distance of a bisected threshold from its true value: half the final bracket.

    The bracket is :func:`_bracket`'s, read from the stored RS eta_c: (0.02, eta_c + 1.5),
    halved ``_STEPS`` times, and its midpoint returned.
    """
    hi = float(ds["theory_eta_c"].sel(at).isel(n_features=0)) + 1.5
    return (hi - 0.02) / 2 ** (_STEPS + 1)


def _intercept_weights(ds, var, at):
    """Weights h_k of each rung's mean in the N -> infinity intercept (they sum to 1).

    The fit is linear in the rung means with weights fixed by the (smoothed) variances, so
    adding 1 to every run of one rung moves the intercept by that rung's weight.
    """
    base = _limit(ds, var, **at).value
    rungs = ds["n_features"]
    return np.array(
        [
            extrapolate_dataset(ds.assign({var: ds[var] + (rungs == n)}), var, sel=at).value - base
            for n in rungs.values
        ]
    )


def _trivial_excess(at):
    """How far the learner's trivial-wins eta at N -> inf lies above 1RSB eta_c (0 below it).

    The intercept is first lowered by the worst bias of the bisection: sum_k |h_k| times
    half its final bracket (each run is within half a bracket of its own threshold, and
    h_k are the rungs' weights in the intercept). The fit's SE is kept, so that a check
    with target 0 fails only where the excess is significant.
    """

    def compute(ds):
        m = _limit(ds, "sim_eta_trivial", **at).measurement()
        weights = _intercept_weights(ds, "sim_eta_trivial", at)
        bias = _half_step(ds, at) * float(np.abs(weights).sum())
        excess = m.value - bias - float(ds["theory_eta_c_1rsb"].sel(at).isel(n_features=0))
        # a NaN (no fit, no theory) must stay NaN: max(0, nan) would read as "below"
        value = max(excess, 0.0) if math.isfinite(excess) else math.nan
        return Measurement(value, m.se, m.n, m.n_nonfinite)

    return compute


def _theory_at(var, at):
    """A stored theory threshold at one (gamma, alpha), as a bound read from the dataset."""
    return lambda ds: float(ds[var].sel(at).isel(n_features=0))


def _checks(settings):
    # the theory side of the figure: between eta_learn and eta_c the R ~ 0 state wins
    # (Fig. 8), and one step of RSB moves eta_c down
    checks = [
        Derived(
            "RS: eta_c − eta_learn, smallest over gamma and alpha (the R ~ 0 state wins "
            "between them)",
            _rs_gap,
            lower=0.1,
        ),
        Derived(
            "RS eta_c − 1RSB eta_c, smallest over gamma and alpha (the trivial state wins "
            "earlier in 1RSB)",
            _rs_minus_rsb_eta_c,
            lower=0.0,
            note="derived (outliers_1rsb.md §6): every branch's static 1RSB energy lies above "
            "its RS energy while the trivial state keeps f = 0 in both, so the lowest "
            "non-trivial state crosses 0 at a smaller eta; two separate computations (the RS "
            "curve and the continued 1RSB curve)",
        ),
    ]
    learner = "EM from the teacher" if settings["start"] == "teacher" else "the learner"
    for gamma in HARD_THRESHOLDS_GAMMAS:
        for alpha in settings["sim_alphas"]:
            at = {"gamma": gamma, "alpha": alpha}
            where = f"gamma={gamma:g}, alpha={alpha:g}"
            for var, what in (
                ("sim_eta_lost", f"{learner} stops learning"),
                ("sim_eta_trivial", f"the trivial state beats what {learner} finds"),
            ):
                checks.append(
                    Derived(
                        f"{where}: eta where {what}, N → ∞ (1/N fit)",
                        lambda ds, var=var, at=at: _limit(ds, var, **at).measurement(),
                        source="simulation",
                        reported=True,
                    )
                )
            rs_note = (
                "RS is no prediction for an AT-unstable branch: the difference "
                f"over its SE says how far {learner} is from it"
            )
            rsb_note = (
                "1RSB is itself unstable (within-state replicon infinite, "
                "between-state 1.27-1.40; 2RSB moves the thresholds by a few 1e-3): no "
                f"exact prediction either; the difference over its SE says how far "
                f"{learner} is from it"
            )
            for var, theory_var, name, rs_unstable, note in (
                ("sim_eta_lost", "theory_eta_learn", "RS eta_learn", True, rs_note),
                ("sim_eta_trivial", "theory_eta_c", "RS eta_c", True, rs_note),
                ("sim_eta_lost", "theory_eta_learn_1rsb", "1RSB eta_learn", False, rsb_note),
                ("sim_eta_trivial", "theory_eta_c_1rsb", "1RSB eta_c", False, rsb_note),
            ):
                checks.append(
                    Derived(
                        f"{where}: {var.removeprefix('sim_')} at N → ∞ minus {name}",
                        _limit_minus(var, theory_var, at),
                        source="simulation",
                        reported=True,
                        rs_unstable=rs_unstable,
                        note=note,
                    )
                )
            if settings["claims"]:
                # the bound needs the full ladder: at quick mode's few runs the Student-t band
                # is many SE wide and the check would say nothing
                checks.append(
                    Derived(
                        f"{where}: eta where the trivial state beats what {learner} finds, "
                        "N → ∞, above 1RSB eta_c (0 where below)",
                        _trivial_excess(at),
                        target=0.0,
                        target_from="bound: 1RSB eta_c",
                        scale=_theory_at("theory_eta_c_1rsb", at),
                        source="simulation",
                        note="a bound, derived: at T = 0 each step of RSB raises the ground-"
                        "state energy towards the true one (RS ≤ 1RSB ≤ 2RSB ≤ … ≤ exact, the "
                        "Parisi functional maximised over its parameters; outliers_1rsb.md "
                        f"§6, §8), and the state {learner} finds is at or above the lowest "
                        "non-trivial one, so the trivial state beats it at or below the true "
                        "eta_c ≤ 1RSB eta_c. Tolerance: the 1/N fit's SE (Student-t band), "
                        "after taking off the bisection's worst bias (Σ|h_k| × half the final "
                        "bracket, h_k the rungs' weights in the intercept). Further steps of "
                        "RSB move eta_c down (2RSB: −0.004 at gamma = 10, alpha = 100; ~1e-2 "
                        "estimated elsewhere): they tighten the bound and take nothing from "
                        "the tolerance. It fails only where the learner holds negative-energy "
                        "states where 1RSB has none",
                    )
                )
                # the fits' own consistency: a 1/N law describes each ladder
                for var in ("sim_eta_lost", "sim_eta_trivial"):
                    checks += [
                        c
                        for c in ladder_checks(
                            f"{where}: {var.removeprefix('sim_')}",
                            var,
                            theory=0.0,
                            sel=at,
                        )
                        if "χ²" in c.quantity
                    ]
    return checks


HARD_THRESHOLDS = FigureSpec(
    name="outliers-hard-thresholds",
    paper=PAPER,
    citation=CITATION,
    figure="Fig. 8 (EM thresholds at finite N)",
    caption=(
        "The thresholds of Fig. 8 as the hard-selection learner at its best meets them, at "
        "gamma = gamma~ = 0.1, 1, 10 and alpha = 100, 1000: OutlierRobustClassifier('hard') "
        "at the true gamma and eta (the lowest energy (10) over descents from its several "
        "starts, docs/derivations/outliers_hard_branches.md), on data coupled across eta, "
        "bisected per sample for the eta at which the state it finds stops learning "
        "(R/sqrt(Q) < 1/2, circles) and at which the trivial state V = 0 (energy 0) is lower "
        "than that state (squares); each extrapolated in 1/N over N = 25, 50, 100 (seeds ∝ "
        "1/N). Lines: the thresholds of Fig. 8 (red: eta_learn and the end of the learning "
        "branch, the spinodal; blue: eta_c), replica-symmetric (thin dashed, spinodal "
        "dotted) and with one step of RSB (thick solid, spinodal dash-dot; "
        "docs/derivations/outliers_1rsb.md). Every RS branch is AT-unstable and 1RSB is "
        "unstable too (a second step moves the thresholds by a few 1e-3), so neither is an "
        "exact prediction: the report gives the learner's distance to each with its z, "
        "without a verdict. It checks (full mode) the bound that holds whatever the further "
        "steps: each step of RSB raises the ground-state energies, and the learner's state "
        "is at or above the lowest, so the trivial state beats it at or below 1RSB eta_c. "
        "Which threshold the learner meets (full run, docs/experiments.md): one step of RSB "
        "closes about half (40-65 %) of the gap between the learner's trivial-state "
        "threshold and RS eta_c, but the learner still meets it 0.02-1.1 below 1RSB eta_c "
        "(3.5-45 SE), much more than the next step of RSB is expected to add: the gap is "
        "algorithmic, the search does not reach the lowest non-learning states. The learner "
        "stops learning within 1.6 SE of 1RSB eta_learn at gamma <= 1 (RS eta_learn lies "
        "0.4-4.6 SE below it), but before 1RSB eta_learn at gamma = 10 (by 0.18 ± 0.09 at "
        "alpha = 100 and 0.55 ± 0.13 at alpha = 1000), where RS was the closer. The variant "
        "start=teacher runs hard EM (eqs. 26-28, polished by single flips) from the "
        "teacher's selection instead: one start, which a learner cannot know; at gamma = "
        "0.1, alpha = 1000 it falls into the trivial state far below the thresholds of the "
        "learner's search (docs/experiments.md)."
    ),
    grid={
        "gamma": HARD_THRESHOLDS_GAMMAS,
        "alpha": HARD_THRESHOLDS_ALPHAS,
        "n_features": HARD_THRESHOLDS_LADDER,
    },
    settings={
        "quick": {
            "n_seeds": 4,
            "max_n": 50,
            "sim_alphas": (100.0,),
            "start": "search",
            "claims": False,
        },
        "full": {
            "n_seeds": 24,
            "max_n": 100,
            "sim_alphas": HARD_THRESHOLDS_ALPHAS,
            "start": "search",
            "claims": True,
        },
    },
    ranges={"start": HARD_STARTS},
    outputs={
        "theory_eta_learn": (),
        "theory_eta_spinodal": (),
        "theory_eta_c": (),
        "theory_eta_learn_1rsb": (),
        "theory_eta_spinodal_1rsb": (),
        "theory_eta_c_1rsb": (),
        "sim_eta_lost": (),
        "sim_eta_trivial": (),
    },
    coords=lambda s: {},
    theory=_theory,
    simulation=_simulation,
    seeds=_seeds,
    plot=plot_hard_thresholds,
    checks=_checks,
    base_seed=19960110,
)
