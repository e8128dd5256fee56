"""Figure specifications: an experiment is data, not a script.

A :class:`FigureSpec` names a paper's figure, its parameter grid, the cell
functions that compute it (``theory``, ``simulation``, ``shared``), how it
is drawn and which checks judge it (:mod:`~statmechlearn.experiments._checks`).
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from statmechlearn.experiments._checks import MODES
from statmechlearn.experiments._variants import check_ranges, make_variant

__all__ = ["MODES", "FigureSpec"]


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
        ``theory_`` (filled by ``theory``), ``sim_`` (filled by
        ``simulation``, which gains a leading ``seed`` dimension) or
        ``shared_`` (filled once per figure by ``shared``, no grid
        dimensions).
    coords : callable
        ``coords(settings) -> {dim: values}`` for the per-cell dimensions.
    theory : callable, optional
        ``theory(point, settings) -> {var: array}``; pure and deterministic.
    simulation : callable, optional
        ``simulation(point, settings, rng) -> {var: array}``; one seed.
    shared : callable, optional
        ``shared(settings) -> {var: array}``: numbers computed once for the
        whole figure (a dense theory line, every saddle point along a
        path, an example image), so that plotting only reads the store.
    plot : callable
        ``plot(ds, ax=None) -> Axes``; reads the dataset only.
    checks : callable
        ``checks(settings) -> sequence of Check | Derived``; they read the
        dataset only.
    base_seed : int, default=0
        Root of every cell's random stream.
    peers : tuple of str, default=()
        Optional packages (import names) whose presence changes the
        numbers (a peer library compared against); which of them were
        importable is part of the stored result's key.
    requires : tuple of str, default=()
        Packages (import names) without which the experiment cannot run;
        when one is missing the experiment is reported as not run.
    seeds : callable, optional
        ``seeds(point, settings) -> int``: how many of the ``n_seeds``
        seeds run at a grid point (a finite-size ladder runs more seeds at
        small N, see :func:`~statmechlearn.experiments._finite_size.seeds_for`);
        the other seeds of that point stay not done. None runs all of them.
    extra : mapping, optional
        Anything else a module keeps with its spec.
    ranges : mapping of str to str or tuple, optional
        Allowed values of grid coordinates and settings for
        ``statmechlearn run NAME --set KEY=VALUE``: an interval such as
        ``"(0, 1)"`` or ``"[2, inf)"``, or a tuple of choices. Keys left out
        keep the sign of the spec's own values (a name: one the spec uses);
        see :mod:`~statmechlearn.experiments._variants`.
    variant_of : str, optional
        The paper spec this one varies (None for a paper spec); set by
        :meth:`with_overrides`.
    overrides : mapping, optional
        The values a variant changes, key -> value (a list for an axis of
        several points); empty for a paper spec.
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
    shared: Callable | None = None
    base_seed: int = 0
    peers: tuple = ()
    requires: tuple = ()
    seeds: Callable | None = None
    extra: Mapping = field(default_factory=dict)
    ranges: Mapping = field(default_factory=dict)
    variant_of: str | None = None
    overrides: Mapping = field(default_factory=dict)

    def __post_init__(self):
        for mode in MODES:
            if mode not in self.settings:
                raise ValueError(f"spec {self.name!r} lacks settings for mode {mode!r}")
            if "n_seeds" not in self.settings[mode]:
                raise ValueError(f"spec {self.name!r} mode {mode!r} lacks 'n_seeds'")
        for var in self.outputs:
            if not var.startswith(("theory_", "sim_", "shared_")):
                raise ValueError(f"output {var!r} must start with 'theory_', 'sim_' or 'shared_'")
        for prefix, fn in (("theory_", self.theory), ("sim_", self.simulation)):
            if fn is None and any(v.startswith(prefix) for v in self.outputs):
                raise ValueError(f"spec {self.name!r} has {prefix}* outputs but no function")
        if self.shared is None and any(v.startswith("shared_") for v in self.outputs):
            raise ValueError(f"spec {self.name!r} has shared_* outputs but no shared function")
        check_ranges(self)

    def with_overrides(self, **overrides):
        """This figure at other parameter values: a variant with its own name and result key.

        Parameters
        ----------
        **overrides
            Grid coordinates and settings, e.g. ``p_plus=0.6`` or
            ``eta=(0.1, 0.2)`` for an axis of several points; text as on the
            command line (``"0.1,0.2"``) is accepted too.

        Returns
        -------
        FigureSpec
            Named ``NAME@key=value,...``, with :attr:`variant_of` and
            :attr:`overrides` set; its checks are this spec's, except that
            numbers printed in the paper are not compared (they are for the
            paper's parameters).

        Raises
        ------
        OverrideError
            An unknown key, a value of the wrong type or outside
            :attr:`ranges`.

        Examples
        --------
        >>> from statmechlearn.experiments import get
        >>> variant = get("lvq-fig2").with_overrides(p_plus=0.6, eta=0.5)
        >>> variant.name, variant.variant_of, variant.grid["p_plus"]
        ('lvq-fig2@eta=0.5,p_plus=0.6', 'lvq-fig2', (0.6,))
        """
        return make_variant(self, overrides)

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

    def seeds_at(self, point, mode):
        """Number of seeds run at ``point`` in ``mode`` (0 without simulation).

        Parameters
        ----------
        point : dict
            One grid point, as from :meth:`points`.
        mode : {"quick", "full"}

        Returns
        -------
        int
        """
        settings = self.settings[mode]
        n_seeds = int(settings["n_seeds"]) if self.simulation is not None else 0
        if self.seeds is None:
            return n_seeds
        n = int(self.seeds(dict(point), dict(settings)))
        if not 0 <= n <= n_seeds:
            raise ValueError(
                f"spec {self.name!r}: seeds() gave {n} at {point}, "
                f"must be in [0, n_seeds={n_seeds}]"
            )
        return n

    def n_cells(self, mode):
        """Cells of a run in ``mode``: shared, theory points and (point, seed) simulations.

        Parameters
        ----------
        mode : {"quick", "full"}

        Returns
        -------
        int
        """
        return (self.shared is not None) + sum(
            (self.theory is not None) + self.seeds_at(point, mode) for point in self.points()
        )
