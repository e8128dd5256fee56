"""Figure specifications and checks: an experiment is data, not a script."""

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

__all__ = ["MODES", "Check", "CheckResult", "Derived", "FigureSpec"]

#: Run modes: ``quick`` (small N, few seeds, minutes) and ``full`` (the paper's N and runs).
MODES = ("quick", "full")


@dataclass(frozen=True)
class CheckResult:
    """Outcome of one :class:`Check` on a dataset (one row of the report's table)."""

    quantity: str
    theory: float | None
    simulation: float | None
    simulation_se: float | None
    paper: float | None
    tolerance: str
    passed: bool
    note: str = ""
    reported: bool = False


def _select(da, sel, keep):
    """``da.sel(sel)`` with length-one grid dimensions squeezed; only ``keep`` may remain."""
    out = da.sel({k: v for k, v in sel.items() if k in da.dims})
    out = out.squeeze([d for d in out.dims if d not in keep and out.sizes[d] == 1])
    extra = [d for d in out.dims if d not in keep]
    if extra:
        raise ValueError(f"check selection {sel} leaves dimensions {extra} of {da.name!r}")
    return out


@dataclass(frozen=True)
class Check:
    """A number the report verifies.

    Theory is compared with simulation when both are given: they agree if
    ``|theory - mean| <= n_standard_errors * SE``, with mean and standard error
    over the completed seeds. A paper value, when given, is compared with the
    theory (or, without theory, the simulation) within ``paper_tolerance``.

    Parameters
    ----------
    quantity : str
        Label shown in the report, e.g. ``"R_{++}(alpha=10)"``.
    theory : tuple (variable, selection), optional
        Dataset variable and ``.sel`` mapping that give one theory number.
    simulation : tuple (variable, selection), optional
        Dataset variable (with a ``seed`` dimension) and selection.
    paper_value : float, optional
        The value the paper quotes.
    paper_tolerance : float, optional
        Allowed absolute deviation from ``paper_value`` (half a unit of the
        last quoted digit, or what reading a figure allows).
    n_standard_errors : float, default=4.0
        Theory-vs-simulation tolerance in standard errors of the mean.
    """

    quantity: str
    theory: tuple | None = None
    simulation: tuple | None = None
    paper_value: float | None = None
    paper_tolerance: float | None = None
    n_standard_errors: float = 4.0

    def evaluate(self, ds):
        """Evaluate the check on a completed dataset.

        Parameters
        ----------
        ds : xarray.Dataset
            The experiment's dataset.

        Returns
        -------
        CheckResult
        """
        th = sim = se = None
        if self.theory is not None:
            var, sel = self.theory
            th = float(_select(ds[var], sel, keep=()).values)
        if self.simulation is not None:
            var, sel = self.simulation
            values = _select(ds[var], sel, keep=("seed",))
            done = _select(ds["sim_done"], sel, keep=("seed",))
            values = values.values[np.asarray(done.values, dtype=bool)]
            values = values[np.isfinite(values)]
            if values.size >= 2:
                sim = float(values.mean())
                se = float(values.std(ddof=1) / math.sqrt(values.size))
        tolerances, verdicts, notes = [], [], []
        if self.theory is not None and self.simulation is not None:
            if sim is None or th is None or not math.isfinite(th):
                verdicts.append(False)
                notes.append("fewer than two finished seeds")
            elif se == 0.0:
                verdicts.append(False)
                notes.append("zero spread over seeds: compare at a non-deterministic point")
            else:
                tol = self.n_standard_errors * se
                tolerances.append(f"{self.n_standard_errors:g} SE = {tol:.3g}")
                verdicts.append(abs(th - sim) <= tol)
        if self.paper_value is not None:
            ref = th if th is not None else sim
            tol = self.paper_tolerance or 0.0
            tolerances.append(f"paper ± {tol:.3g}")
            verdicts.append(ref is not None and abs(ref - self.paper_value) <= tol)
        return CheckResult(
            quantity=self.quantity,
            theory=th,
            simulation=sim,
            simulation_se=se,
            paper=self.paper_value,
            tolerance="; ".join(tolerances) if tolerances else "—",
            passed=bool(verdicts) and all(verdicts),
            note="; ".join(notes),
        )


@dataclass(frozen=True)
class Derived:
    """A number computed from the whole dataset, checked against a target or bounds.

    For statements about a figure as a whole rather than one cell: "the
    asymptote of LVQ+ does not depend on p_+" (spread over p_+ below a
    bound), "the spread falls like N^-1/2" (a fitted slope within a few
    standard errors of -1/2).

    Parameters
    ----------
    quantity : str
        Label shown in the report.
    compute : callable
        ``compute(ds) -> (value, se)``; ``se`` is the standard error of a
        statistical estimate, or None for an exact (theory) number.
    target : float, optional
        Expected value; passes if ``|value - target| <= n_standard_errors * se``
        (``se`` must then be given).
    lower, upper : float or callable, optional
        Bounds the value must respect (inclusive); a callable ``bound(ds)``
        gives a bound that depends on the data (say, a number of standard
        errors of a null model that depends on the sample size).
    source : {"theory", "simulation"}, default="theory"
        Report column the value is shown in.
    n_standard_errors : float, default=4.0
        Tolerance for ``target`` in standard errors.
    paper_value, paper_tolerance : float, optional
        A value quoted by the paper and the allowed deviation from it.
    reported : bool, default=False
        A measurement shown in the table without a verdict (say, how often
        an algorithm is beaten where the theory predicts no bound); it is
        counted apart from the checks. Bounds and targets are not allowed.
    """

    quantity: str
    compute: Callable
    target: float | None = None
    lower: float | Callable | None = None
    upper: float | Callable | None = None
    source: str = "theory"
    n_standard_errors: float = 4.0
    paper_value: float | None = None
    paper_tolerance: float | None = None
    reported: bool = False

    def __post_init__(self):
        bounded = (self.target, self.lower, self.upper, self.paper_value)
        if self.reported and any(b is not None for b in bounded):
            raise ValueError(f"Derived {self.quantity!r}: reported=True takes no target or bounds")

    def evaluate(self, ds):
        """Evaluate on a completed dataset.

        Parameters
        ----------
        ds : xarray.Dataset

        Returns
        -------
        CheckResult
        """
        value, se = self.compute(ds)
        value = None if value is None else float(value)
        se = None if se is None else float(se)
        tolerances, verdicts, notes = [], [], []
        finite = value is not None and math.isfinite(value)
        if not finite:
            notes.append("not computable from the finished cells")
        if self.target is not None:
            if se is None or not math.isfinite(se) or not finite:
                verdicts.append(False)
            else:
                tol = self.n_standard_errors * se
                tolerances.append(f"{self.target:g} ± {self.n_standard_errors:g} SE = {tol:.3g}")
                verdicts.append(abs(value - self.target) <= tol)
        lower = self.lower(ds) if callable(self.lower) else self.lower
        upper = self.upper(ds) if callable(self.upper) else self.upper
        if lower is not None:
            tolerances.append(f"≥ {lower:.4g}")
            verdicts.append(finite and value >= lower)
        if upper is not None:
            tolerances.append(f"≤ {upper:.4g}")
            verdicts.append(finite and value <= upper)
        if self.paper_value is not None:
            tol = self.paper_tolerance or 0.0
            tolerances.append(f"paper ± {tol:.3g}")
            verdicts.append(finite and abs(value - self.paper_value) <= tol)
        is_theory = self.source == "theory"
        if self.reported:
            tolerances, verdicts = ["reported, no bound"], [finite]
        return CheckResult(
            quantity=self.quantity,
            theory=value if is_theory else None,
            simulation=None if is_theory else value,
            simulation_se=None if is_theory else se,
            paper=self.paper_value,
            tolerance="; ".join(tolerances) if tolerances else "—",
            passed=bool(verdicts) and all(verdicts),
            note="; ".join(notes),
            reported=self.reported,
        )


@dataclass(frozen=True)
class FigureSpec:
    """Everything needed to reproduce one published figure or table.

    Parameters
    ----------
    name : str
        CLI name, e.g. ``"lvq-fig2"``.
    paper : str
        Short key of the paper (``statmechlearn reproduce PAPER``).
    citation : str
        Authors and title, shown in the caption.
    figure : str
        Which figure or table of the paper, e.g. ``"Fig. 2"``.
    caption : str
        What is shown, with the parameters.
    grid : mapping of str to tuple
        Parameter points: the outer product of these values. Each name
        becomes a dimension of the dataset.
    settings : mapping of mode to mapping
        Per-mode settings (``"quick"``, ``"full"``); must contain ``n_seeds``
        (0 without simulation) and, for teacher-student simulations,
        ``n_features``; anything else is passed through.
    outputs : mapping of str to tuple of str
        Dataset variables and their per-cell dimensions. Names start with
        ``theory_`` (filled by ``theory``) or ``sim_`` (filled by ``simulation``,
        which gains leading ``seed`` dimension).
    coords : callable
        ``coords(settings) -> {dim: values}`` for the per-cell dimensions.
    theory : callable, optional
        ``theory(point, settings) -> {var: array}``; pure and deterministic.
    simulation : callable, optional
        ``simulation(point, settings, rng) -> {var: array}``; one seed.
    plot : callable
        ``plot(ds, ax=None) -> Axes``.
    checks : callable
        ``checks(settings) -> sequence of Check``.
    base_seed : int, default=0
        Root of every cell's random stream.
    """

    name: str
    paper: str
    citation: str
    figure: str
    caption: str
    grid: Mapping[str, tuple]
    settings: Mapping[str, Mapping]
    outputs: Mapping[str, tuple]
    coords: Callable
    plot: Callable
    checks: Callable
    theory: Callable | None = None
    simulation: Callable | None = None
    base_seed: int = 0
    extra: Mapping = field(default_factory=dict)

    def __post_init__(self):
        for mode in MODES:
            if mode not in self.settings:
                raise ValueError(f"spec {self.name!r} lacks settings for mode {mode!r}")
            if "n_seeds" not in self.settings[mode]:
                raise ValueError(f"spec {self.name!r} mode {mode!r} lacks 'n_seeds'")
        for var in self.outputs:
            if not var.startswith(("theory_", "sim_")):
                raise ValueError(f"output {var!r} must start with 'theory_' or 'sim_'")

    def points(self):
        """Parameter points as a list of dicts, in C order of the grid."""
        names = list(self.grid)
        shape = tuple(len(self.grid[n]) for n in names)
        out = []
        for idx in np.ndindex(*shape):
            out.append({n: self.grid[n][i] for n, i in zip(names, idx, strict=True)})
        return out

    def grid_shape(self):
        """Shape of the parameter grid."""
        return tuple(len(v) for v in self.grid.values())
