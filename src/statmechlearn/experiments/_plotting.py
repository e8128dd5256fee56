r"""The house style of the figures: mean ± SE over runs, axes, theory beside simulation.

Every figure draws a theory as a line and a simulation as markers with ± one
standard error of the mean over runs (seeds); the legend says which is which
(:func:`simulation_label`, :func:`legend_with_key`), and symbols are written
in mathtext (``r"$\epsilon_g$"``), never as raw ``eps_g`` or ``T_c``. A
figure that shows a spread on purpose (a standard deviation, a histogram)
says so on the figure. These helpers only read what they are given: plots
and checks call them, cell functions do not (a cell's result key
fingerprints the code it runs).
"""

import warnings

import numpy as np
import xarray as xr

__all__ = [
    "SIMULATION_STYLE",
    "THEORY_STYLE",
    "legend_with_key",
    "mean_se",
    "plot_simulation",
    "plot_theory",
    "simulation_label",
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


def simulation_label(n=None, what="simulation"):
    """The legend text of a simulation: what it is, mean ± SE, over how many runs.

    Parameters
    ----------
    n : int or array_like, optional
        Runs behind each point: a number, or the per-point counts (their
        range is given when they differ). None says nothing about the count.
    what : str, default="simulation"
        What was run (``"LVQ1, simulation"``); keep the word "simulation"
        in it when the figure also draws a theory.

    Returns
    -------
    str
        For example ``"simulation (mean ± SE, 24 seeds)"``.
    """
    if n is None:
        return f"{what} (mean ± SE)"
    counts = np.unique(np.asarray(n, dtype=int))
    counts = counts[counts > 0]
    if counts.size == 0:
        return f"{what} (mean ± SE)"
    runs = str(counts[0]) if counts.size == 1 else f"{counts[0]}–{counts[-1]}"
    return f"{what} (mean ± SE, {runs} seeds)"


def legend_with_key(ax, *, theory="theory", simulation="simulation (mean ± SE)", **kwargs):
    """A legend with the Axes' own entries and a key: black line = theory, marker = simulation.

    For figures whose colours name the curves (a parameter value, an order
    parameter) while line and marker say theory or simulation: the key adds
    one entry for each kind, drawn in black, not on the Axes.

    Parameters
    ----------
    ax : matplotlib Axes
    theory, simulation : str or None
        Texts of the two key entries; None leaves one out.
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.legend`.

    Returns
    -------
    matplotlib.legend.Legend
    """
    from matplotlib.collections import LineCollection
    from matplotlib.container import ErrorbarContainer
    from matplotlib.lines import Line2D

    handles, labels = ax.get_legend_handles_labels()
    if theory is not None:
        handles.append(Line2D([], [], color="k", **THEORY_STYLE))
        labels.append(theory)
    if simulation is not None:
        marker = Line2D([], [], color="k", linestyle="none", marker="o", markersize=4)
        bars = ErrorbarContainer((marker, (), (LineCollection([], colors="k"),)), has_yerr=True)
        handles.append(bars)
        labels.append(simulation)
    return ax.legend(handles, labels, **kwargs)
