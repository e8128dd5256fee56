"""Finite-size scaling: one simulation cell at a ladder of N, extrapolated to N → ∞.

Replica and mean-field theories describe N → ∞; a simulation at one N
agrees with them up to a finite-size correction. Running the same cell at a
ladder of N and fitting the form the theory predicts for that correction
separates a finite-size offset (which the fit removes) from a wrong theory,
a metastable simulation or a wrong branch (which it does not).

Usage in a :class:`~statmechlearn.experiments.FigureSpec`: put the ladder in
the grid as ``n_features``, give ``seeds=`` a function built from
:func:`seeds_for` (more seeds at small N, so that every rung has a
comparable standard error), read the stored cells with
:func:`extrapolate_dataset`, check with :func:`ladder_checks` and draw with
:func:`plot_extrapolation`.

The forms
---------
``"1/N"``
    The default. Around a replica-symmetric saddle point that is locally
    stable (a gapped, self-averaging phase), the average of an order
    parameter over samples is its saddle-point value plus ``O(1/N)``: the
    Gaussian fluctuations about the saddle point are ``O(N^-1/2)`` and enter
    the mean at second order. On-line learning ODEs are the ``N → ∞`` limit
    of stochastic recursions whose drift is exact and whose noise is
    ``O(N^-1/2)``; again the mean moves by ``O(1/N)``.
``"1/sqrt(N)"``
    Where the quantity itself is a fluctuation (``|r|`` of a direction that
    is not learned, a maximum over samples), or near a continuous
    transition, where the scaling window is ``O(N^-1/2)`` wide.
``"N^-2/3"``
    The edge of a Marchenko-Pastur spectrum (the first critical temperature
    of deterministic annealing on Gaussian data), whose fluctuations are of
    Tracy-Widom size ``N^-2/3``.

The fit is weighted least squares of the per-N means against ``x = N^-p``.
The weights are ``runs / variance`` with the per-rung variances smoothed as
``c N^q`` (a variance estimated from three runs, used as its own weight,
makes the rungs that happened to scatter little dominate and understates
the error: measured, the intercept's z then has a spread of 1.75 instead of
1). The intercept's standard error is the sandwich ``Σ_k h_k² SE_k²`` of the
fixed-weight estimator with each rung's own standard error, and its degrees
of freedom are Welch-Satterthwaite's. The fit's goodness is its ``χ²``;
where ``χ² / dof > 1`` the errors are inflated by ``sqrt(χ² / dof)`` (the
Birge ratio), so a form that fits a little worse than the error bars widens
the extrapolation's error instead of giving a falsely sharp value; the
``χ²`` p-value is reported and checked beside it.
"""

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from statmechlearn.experiments._checks import Derived, Measurement, select

__all__ = [
    "FORMS",
    "LIMIT_MARK",
    "Extrapolation",
    "extrapolate",
    "extrapolate_dataset",
    "ladder_checks",
    "plot_extrapolation",
    "seeds_for",
]

#: Finite-size forms ``a + b N^-p``: name -> exponent ``p``.
FORMS = {"1/N": 1.0, "1/sqrt(N)": 0.5, "N^-2/3": 2.0 / 3.0}

#: Marks the quantity of an extrapolated row; the report gathers these rows in its summary.
LIMIT_MARK = "N → ∞"

#: The p-value below which a fitted form is rejected.
FIT_P_MIN = 1e-3


@dataclass(frozen=True)
class Extrapolation:
    """A fit ``mean(N) = value + slope * N^-p`` over a ladder of N.

    Attributes
    ----------
    value, se : float
        The ``N → ∞`` intercept and its standard error.
    slope, slope_se : float
        The finite-size coefficient ``b`` and its standard error.
    form : str
        Key of :data:`FORMS`.
    chi2 : float
        ``χ²`` of the weighted fit.
    dof : int
        Rungs used minus 2.
    p_value : float
        Probability of a ``χ²`` at least this large if the form is right
        (NaN with ``dof = 0``).
    n : ndarray of int
        The rungs used (those with at least two finite runs).
    mean, mean_se : ndarray
        Mean and standard error at each rung.
    n_runs : ndarray of int
        Finite runs at each rung.
    n_nonfinite : int
        Finished runs whose value was not finite (counted, never dropped
        silently).
    effective_runs : float
        One plus the Welch-Satterthwaite degrees of freedom of ``se``: the
        number of runs a plain mean with an error as well determined would
        average (it sets the Student-t critical value of a check).
    """

    value: float
    se: float
    slope: float
    slope_se: float
    form: str
    chi2: float
    dof: int
    p_value: float
    n: np.ndarray
    mean: np.ndarray
    mean_se: np.ndarray
    n_runs: np.ndarray
    n_nonfinite: int = 0
    effective_runs: float = math.nan

    @property
    def x(self):
        """The abscissa ``N^-p`` of each rung."""
        return self.n.astype(float) ** -FORMS[self.form]

    def measurement(self):
        """The intercept as a :class:`~statmechlearn.experiments.Measurement`.

        ``n`` is :attr:`effective_runs` (rounded down), so that a check's
        critical value is the Student-t one of the intercept's error.
        """
        return Measurement(self.value, self.se, max(2, int(self.effective_runs)), self.n_nonfinite)


def seeds_for(n, *, n_seeds, n_ref):
    """Seeds at ladder size ``n`` for a standard error comparable with ``n_ref``'s.

    A self-averaging quantity has variance ``∝ 1/N`` over samples, so
    ``n_seeds * n_ref / n`` seeds at size ``n`` give the standard error that
    ``n_seeds`` seeds give at ``n_ref``.

    Parameters
    ----------
    n : int
        Ladder size.
    n_seeds : int
        Seeds at the reference size, and the most any size gets.
    n_ref : int
        Reference size: the smallest rung, so that seeds fall as ``1/N``
        above it (with the largest rung every rung gets ``n_seeds``).

    Returns
    -------
    int
        ``min(n_seeds, ceil(n_seeds * n_ref / n))``, at least 2.
    """
    if n <= 0 or n_ref <= 0 or n_seeds < 2:
        raise ValueError(f"need n > 0, n_ref > 0 and n_seeds >= 2, got {n}, {n_ref}, {n_seeds}")
    return int(min(n_seeds, max(2, math.ceil(n_seeds * n_ref / n - 1e-9))))


def _form_exponent(form):
    if form not in FORMS:
        raise ValueError(f"form must be one of {sorted(FORMS)}, got {form!r}")
    return FORMS[form]


def extrapolate(n, values, *, form="1/N"):
    """Fit ``value + slope * N^-p`` to per-run values at a ladder of N.

    Parameters
    ----------
    n : array_like of shape (n_rungs,)
        The sizes.
    values : array_like of shape (n_rungs, n_runs)
        One value per run; NaN marks a run that was not done (seeds beyond
        a rung's :func:`seeds_for`). Infinite values are counted as
        non-finite runs.
    form : {"1/N", "1/sqrt(N)", "N^-2/3"}, default="1/N"
        The finite-size form (see the module notes for when each applies).

    Returns
    -------
    Extrapolation

    Raises
    ------
    ValueError
        When fewer than two rungs have two or more finite runs, or the
        shapes disagree.
    """
    p = _form_exponent(form)
    n = np.asarray(n, dtype=float).ravel()
    values = np.asarray(values, dtype=float)
    if values.ndim != 2 or values.shape[0] != n.size:
        raise ValueError(f"values must have shape (len(n)={n.size}, n_runs), got {values.shape}")
    n_nonfinite = int(np.isinf(values).sum())
    finite = np.isfinite(values)
    counts = finite.sum(axis=1)
    use = counts >= 2
    if use.sum() < 2:
        raise ValueError(
            f"a finite-size fit needs two or more rungs with two or more finite runs, "
            f"got runs per rung {counts.tolist()}"
        )
    v = np.where(finite, values, 0.0)[use]
    k = counts[use]
    mean = v.sum(axis=1) / k
    var = (np.where(finite[use], values[use] - mean[:, None], 0.0) ** 2).sum(axis=1) / (k - 1)
    se = np.sqrt(var / k)
    x = n[use] ** -p
    design = np.column_stack([np.ones_like(x), x])
    # Weights from the rung variances smoothed as a power of N: a variance
    # estimated from a handful of runs, used as its own weight, gives the rungs
    # that happened to scatter little too much say and understates the error.
    smooth = _smoothed_variance(n[use], var, k)
    w = k / smooth
    normal_inv = np.linalg.inv(design.T @ (design * w[:, None]))
    hat = normal_inv @ (design.T * w)
    coef = hat @ mean
    resid = mean - design @ coef
    chi2 = float(np.sum(w * resid**2))
    dof = int(x.size - 2)
    # sandwich: the fixed-weight estimator's variance from each rung's own error
    parts = hat**2 * se**2
    cov_diag = parts.sum(axis=1)
    birge = max(1.0, chi2 / dof) if dof > 0 else 1.0
    p_value = float(stats.chi2.sf(chi2, dof)) if dof > 0 else math.nan
    # Welch-Satterthwaite: the degrees of freedom of the intercept's error
    with np.errstate(divide="ignore", invalid="ignore"):
        nu = cov_diag[0] ** 2 / np.sum(parts[0] ** 2 / (k - 1))
    nu = float(nu) if np.isfinite(nu) else float(k.sum() - 2)
    return Extrapolation(
        value=float(coef[0]),
        se=float(math.sqrt(birge * cov_diag[0])),
        slope=float(coef[1]),
        slope_se=float(math.sqrt(birge * cov_diag[1])),
        form=form,
        chi2=chi2,
        dof=dof,
        p_value=p_value,
        n=n[use].astype(int),
        mean=mean,
        mean_se=se,
        n_runs=k.astype(int),
        n_nonfinite=n_nonfinite,
        effective_runs=nu + 1.0,
    )


def _smoothed_variance(n, var, runs):
    """Rung variances fitted as ``c N^q`` (log-linear, weighted by degrees of freedom)."""
    positive = var > 0
    if positive.sum() < 2:
        floor = var[positive].min() if positive.any() else 1.0
        return np.where(positive, var, floor)
    slope, intercept = np.polyfit(
        np.log(n[positive]), np.log(var[positive]), 1, w=np.sqrt(runs[positive] - 1)
    )
    return np.exp(intercept + slope * np.log(n))


def extrapolate_dataset(ds, var, *, sel=None, form="1/N", dim="n_features", subtract=None):
    """:func:`extrapolate` on a stored ladder: ``ds[var]`` over ``dim`` and ``seed``.

    Parameters
    ----------
    ds : xarray.Dataset
        A figure's dataset whose grid has the ladder dimension ``dim``.
    var : str
        A ``sim_*`` variable.
    sel : dict, optional
        Selection of the other dimensions (one value each).
    form : str, default="1/N"
    dim : str, default="n_features"
    subtract : callable, optional
        ``subtract(n)`` gives, per rung size, a known correction taken off
        every run before the fit (higher-order terms of a finite-size law
        that the fitted form would otherwise absorb into its slope).

    Returns
    -------
    Extrapolation
    """
    sel = dict(sel or {})
    values = select(ds[var], sel, keep=(dim, "seed")).transpose(dim, "seed")
    done = select(ds["sim_done"], sel, keep=(dim, "seed")).transpose(dim, "seed")
    data = np.where(done.values, values.values, np.nan)
    # a finished run with a NaN value is a failure, not a missing run
    nan_done = done.values & np.isnan(values.values)
    data = np.where(nan_done, np.inf, data)
    if subtract is not None:
        data = data - np.asarray(subtract(ds[dim].values), dtype=float)[:, None]
    return extrapolate(ds[dim].values, data, form=form)


def _theory_value(theory, ds):
    if callable(theory):
        return float(theory(ds))
    if isinstance(theory, tuple):
        var, sel = theory
        da = ds[var]
        # the theory does not depend on N: any rung's value
        if "n_features" in da.dims:
            da = da.isel(n_features=0)
        return float(select(da, sel, keep=()).values)
    return float(theory)


def _slope(ext):
    return ext.slope, ext.slope_se


def ladder_checks(
    quantity,
    var,
    *,
    theory,
    sel=None,
    form="1/N",
    scale=None,
    n_standard_errors=4.0,
    note="",
    rs_unstable=False,
):
    """The checks of a finite-size ladder: the N → ∞ value vs theory, and the fit.

    Parameters
    ----------
    quantity : str
        What is extrapolated, as shown in the report.
    var : str
        The ``sim_*`` variable.
    theory : float, callable or (var, sel)
        The ``N → ∞`` prediction: a number, ``theory(ds)``, or a stored
        ``theory_*`` variable and its selection.
    sel : dict, optional
        Selection of the other grid dimensions.
    form : str, default="1/N"
    scale : float, optional
        Size of the effect the comparison claims, for the resolution
        (default ``|theory|``; give it where the theory is 0).
    n_standard_errors : float, default=4.0
    note : str, default=""
        Why this form (shown in the report).
    rs_unstable : bool, default=False
        The theory is replica-symmetric inside a region where replica
        symmetry is broken: the report marks the comparison.

    Returns
    -------
    list of Derived
        ``N → ∞`` value vs theory (two-sided, ``z`` from the fit's standard
        error), the χ² p-value of the fit (must exceed :data:`FIT_P_MIN`),
        and the fitted slope (reported).
    """
    _form_exponent(form)

    def fit(ds):
        return extrapolate_dataset(ds, var, sel=sel, form=form)

    return [
        Derived(
            f"{quantity}, {LIMIT_MARK} ({form} fit) vs theory",
            lambda ds: fit(ds).measurement(),
            target=lambda ds: _theory_value(theory, ds),
            target_from="theory",
            source="simulation",
            scale=scale,
            n_standard_errors=n_standard_errors,
            note=note,
            rs_unstable=rs_unstable,
        ),
        Derived(
            f"{quantity}: χ² p-value of the {form} fit",
            lambda ds: (fit(ds).p_value, None),
            lower=FIT_P_MIN,
            source="simulation",
            note="the finite-size form describes the ladder (rejected below p = 10⁻³)",
        ),
        Derived(
            f"{quantity}: finite-size coefficient b of a + b·{form}",
            lambda ds: _slope(fit(ds)),
            source="simulation",
            reported=True,
            note="",
        ),
    ]


def plot_extrapolation(ax, ext, *, theory=None, label=None, color="C0"):
    """Means ± SE against ``N^-p``, the fitted line, its intercept and the theory.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        A panel or an inset (``ax.inset_axes``).
    ext : Extrapolation
    theory : float, optional
        The ``N → ∞`` prediction, drawn at ``N^-p = 0``.
    label : str, optional
        Legend label of the points.
    color : str, default="C0"

    Returns
    -------
    matplotlib.axes.Axes
    """
    x = ext.x
    ax.errorbar(x, ext.mean, yerr=ext.mean_se, fmt="o", color=color, ms=3, label=label)
    grid = np.linspace(0.0, x.max() * 1.05, 50)
    # the fitted line is computed from the stored points, not stored itself
    (line,) = ax.plot(grid, ext.value + ext.slope * grid, "-", color=color, lw=1)
    line.set_gid("guide")
    ax.errorbar([0.0], [ext.value], yerr=[ext.se], fmt="s", color=color, ms=4, mfc="white")
    if theory is not None:
        ax.plot([0.0], [theory], "k*", ms=9, label="theory (N → ∞)")
    labels = {"1/N": "$1/N$", "1/sqrt(N)": r"$1/\sqrt{N}$", "N^-2/3": "$N^{-2/3}$"}
    ax.set_xlabel(labels[ext.form])
    ax.set_xlim(left=-0.03 * x.max())
    return ax
