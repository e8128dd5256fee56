"""The house style of the figures: mean ± SE over runs, axes, theory beside simulation.

Every figure draws a theory as a line and a simulation as markers with ± one
standard error of the mean over runs (seeds); the legend says which is which.
These helpers only read what they are given: plots and checks call them,
cell functions do not (a cell's result key fingerprints the code it runs).
"""

import warnings

import numpy as np
import xarray as xr

__all__ = [
    "SIMULATION_STYLE",
    "THEORY_STYLE",
    "mean_se",
    "plot_simulation",
    "plot_theory",
    "subplots",
]

#: A theory: a solid line under the markers.
THEORY_STYLE = {"linestyle": "-", "linewidth": 1.5, "zorder": 2}
#: A simulation: markers with ± SE bars, not joined.
SIMULATION_STYLE = {
    "linestyle": "none",
    "marker": "o",
    "markersize": 4,
    "capsize": 2,
    "elinewidth": 1.0,
    "zorder": 3,
}


def mean_se(values, dim="seed"):
    """Mean and standard error of the mean over runs, ignoring NaN.

    Parameters
    ----------
    values : xarray.DataArray or array_like
        One number per run along ``dim``; NaN marks a run without a number
        (mask runs that did not finish with ``where(done)`` first).
    dim : str, int, tuple or None, default="seed"
        The runs: a dimension name of a DataArray; an axis (or None for all
        entries) of an array.

    Returns
    -------
    mean, se : DataArray or ndarray (float where the reduction is total)
        ``se = std(ddof=1) / sqrt(n)`` with ``n`` the finite entries; NaN
        where fewer than two runs have a number (the mean is NaN for none).
    """
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        # fewer than two runs: NaN by design, not a warning
        warnings.simplefilter("ignore", RuntimeWarning)
        if isinstance(values, xr.DataArray):
            n = values.count(dim)
            mean = values.mean(dim, skipna=True)
            se = values.std(dim, ddof=1, skipna=True).where(n > 1) / np.sqrt(n)
            return mean, se
        if isinstance(dim, str):
            raise TypeError(f"dim must be an axis or None for an array, got {dim!r}")
        values = np.asarray(values, dtype=float)
        n = np.sum(np.isfinite(values), axis=dim)
        mean = np.nanmean(values, axis=dim)
        se = np.where(n > 1, np.nanstd(values, axis=dim, ddof=1), np.nan) / np.sqrt(n)
    if np.ndim(se) == 0:
        return float(mean), float(se)
    return mean, se


def subplots(ax=None, nrows=1, ncols=1, *, figsize=None, **kwargs):
    """The axes to draw on: the caller's, or a new figure's.

    Parameters
    ----------
    ax : matplotlib Axes or array of Axes, optional
        Given by the caller (a report, a composite figure): returned as they
        are, an array of them as an ndarray.
    nrows, ncols : int, default=1
        The grid of a new figure.
    figsize : tuple of float, optional
        Size of a new figure, inches.
    **kwargs
        Passed to :func:`matplotlib.pyplot.subplots`.

    Returns
    -------
    fig : matplotlib Figure
    ax : Axes, or ndarray of Axes for a grid (or when the caller gave several)
    """
    if ax is None:
        # pyplot only when a figure is drawn: importing a paper module stays light
        import matplotlib.pyplot as plt

        kwargs.setdefault("constrained_layout", True)
        return plt.subplots(nrows, ncols, figsize=figsize, **kwargs)
    if isinstance(ax, list | tuple | np.ndarray):
        ax = np.asarray(ax)
        return ax.flat[0].figure, ax
    return ax.figure, ax


def plot_theory(ax, x, y, *, label="theory", **kwargs):
    """Draw a theory curve as a line (:data:`THEORY_STYLE`).

    Parameters
    ----------
    ax : matplotlib Axes
    x, y : array_like
        Stored points of the curve: never re-interpolated.
    label : str or None, default="theory"
        Legend entry; name the theory in it (``"R (theory)"``); None for none.
    **kwargs
        Matplotlib line properties, overriding the style (``color``, ``linestyle``).

    Returns
    -------
    matplotlib.lines.Line2D
    """
    style = {**THEORY_STYLE, **kwargs}
    if label is not None:
        style["label"] = label
    (line,) = ax.plot(x, y, **style)
    return line


def plot_simulation(ax, x, mean, se, *, label="simulation", **kwargs):
    """Draw simulation means as markers with ± SE bars (:data:`SIMULATION_STYLE`).

    Parameters
    ----------
    ax : matplotlib Axes
    x : array_like
    mean, se : array_like
        From :func:`mean_se`; a NaN ``se`` (a single run) draws no bar.
    label : str or None, default="simulation"
        Legend entry; name the simulation in it (``"R (simulation)"``); None
        for none.
    **kwargs
        :meth:`matplotlib.axes.Axes.errorbar` properties, overriding the style
        (``color``, ``marker``, ``markerfacecolor``; ``linestyle="-"`` joins
        the markers of a comparison without a theory).

    Returns
    -------
    matplotlib.container.ErrorbarContainer
    """
    style = {**SIMULATION_STYLE, **kwargs}
    if label is not None:
        style["label"] = label
    return ax.errorbar(x, mean, yerr=se, **style)
