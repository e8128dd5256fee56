"""Checks: how stored numbers become a verdict a reader can trust.

A check turns stored numbers into a verdict a reader can trust. Every check
records what was observed, what was expected and where the expectation
comes from, the observation's standard error, ``z`` and its *resolution*:
the smallest relative deviation from the expectation it could detect at its
N and number of seeds. A check is **evidence** when its resolution is at
most ``max_resolution`` (5 % by default, or the paper's own printed
precision when it compares with a paper's number) and its expectation is
computed independently of what it checks; otherwise it is shown as
**smoke** and is not counted as passed evidence. ``docs/experiments.md``
explains the rules.
"""

import json
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = [
    "EVIDENCE_RESOLUTION",
    "MODES",
    "Check",
    "CheckResult",
    "Derived",
    "Measurement",
    "critical_value",
    "measure",
    "printed_number",
    "select",
]

#: Run modes: ``quick`` (small N, few seeds, minutes) and ``full`` (the paper's N and runs).
MODES = ("quick", "full")

#: Largest relative resolution of a check that counts as evidence.
EVIDENCE_RESOLUTION = 0.05


@dataclass(frozen=True)
class Measurement:
    """A number measured from stored data, with its statistical error.

    Attributes
    ----------
    value : float
        The estimate (NaN when nothing finite was measured).
    se : float or None
        Standard error of ``value``; None for an exact (theory) number.
    n : int or None
        Runs (seeds) that entered the estimate.
    n_nonfinite : int
        Finished runs whose value was NaN or infinite (counted, never
        dropped silently: a check with non-finite runs fails).
    """

    value: float
    se: float | None = None
    n: int | None = None
    n_nonfinite: int = 0


def measure(values):
    """Mean and standard error of the finite entries of ``values``.

    Parameters
    ----------
    values : array_like
        One number per run (NaN marks a run that produced no finite number;
        it is counted in ``n_nonfinite``).

    Returns
    -------
    Measurement
        ``se`` is ``std(ddof=1) / sqrt(n)``; with fewer than two finite runs
        the value or its error is NaN.
    """
    values = np.asarray(values, dtype=float).ravel()
    finite = values[np.isfinite(values)]
    bad = int(values.size - finite.size)
    if finite.size == 0:
        return Measurement(math.nan, math.nan, 0, bad)
    se = float(finite.std(ddof=1) / math.sqrt(finite.size)) if finite.size > 1 else math.nan
    return Measurement(float(finite.mean()), se, int(finite.size), bad)


def printed_number(value):
    """A number as printed in a paper and its precision (half a unit of the last digit).

    Parameters
    ----------
    value : str or float
        ``"0.90"`` is 0.9 printed to two decimals; a float carries no
        printed precision.

    Returns
    -------
    value : float
    half_unit : float or None
        Half a unit of the last printed digit, or None for a float.
    """
    if not isinstance(value, str):
        return float(value), None
    text = value.strip().lower()
    mantissa, _, exponent = text.partition("e")
    decimals = len(mantissa.split(".", 1)[1]) if "." in mantissa else 0
    return float(text), 0.5 * 10.0 ** (int(exponent or 0) - decimals)


@dataclass(frozen=True)
class CheckResult:
    """Outcome of one check (one row of the report's table).

    Attributes
    ----------
    quantity : str
    observed, observed_se : float or None
        The measured value and its standard error (None when exact).
    expected : float or None
        What ``observed`` is compared with; ``expected_from`` says what it
        is (``"theory"``, ``"paper"``, ``"reference"``, ``"target"``,
        ``"bound"``).
    z : float or None
        ``(observed - expected) / SE`` where there is a standard error.
    tolerance : str
        The acceptance rule, in words.
    resolution : float or None
        Smallest relative deviation from the expectation the check could
        detect (``n_standard_errors * SE / scale``, or an exact tolerance
        over the scale); 0 for an exact inequality.
    kind : {"evidence", "smoke", "reported", "skipped"}
    passed : bool or None
        None for reported and skipped rows.
    note : str
    theory, simulation, simulation_se : float or None
        The two sides of a theory-vs-simulation comparison, for display.
    paper, paper_source : float or None, str
        A number printed in the paper and where (figure, table, equation).
    paper_compared, reference_compared : bool
        False where the paper's (or the reference) number is shown beside
        ours but not compared (the note says why the re-derived value
        differs).
    reference, reference_source : float or None, str
        Any other external number (not printed in the paper) and its origin.
    n_runs, n_nonfinite : int or None, int
        Runs that entered the observation and finished runs without a
        finite value.
    two_sided : bool
        Whether ``z`` measures agreement (two-sided) rather than a margin.
    rs_unstable : bool
        The comparison is with replica-symmetric theory where replica
        symmetry is broken (de Almeida-Thouless unstable): RS is not the
        N → ∞ limit there, and the report marks the row.
    """

    quantity: str
    observed: float | None
    observed_se: float | None
    expected: float | None
    expected_from: str
    z: float | None
    tolerance: str
    resolution: float | None
    kind: str
    passed: bool | None
    note: str = ""
    theory: float | None = None
    simulation: float | None = None
    simulation_se: float | None = None
    paper: float | None = None
    paper_source: str = ""
    paper_compared: bool = True
    reference: float | None = None
    reference_source: str = ""
    reference_compared: bool = True
    n_runs: int | None = None
    n_nonfinite: int = 0
    two_sided: bool = True
    rs_unstable: bool = False

    @property
    def reported(self):
        """True for a measurement shown without a verdict."""
        return self.kind == "reported"

    @property
    def is_evidence(self):
        """True when the row counts as evidence (passed or failed)."""
        return self.kind == "evidence"


def select(da, sel, keep):
    """``da.sel(sel)`` with length-one grid dimensions squeezed; only ``keep`` may remain.

    Parameters
    ----------
    da : xarray.DataArray
        A stored variable.
    sel : mapping
        Coordinates to select; names that are not dimensions of ``da`` are ignored.
    keep : tuple of str
        Dimensions allowed to remain (``("seed",)`` for per-run values).

    Returns
    -------
    xarray.DataArray

    Raises
    ------
    ValueError
        When a dimension outside ``keep`` is left after the selection.
    """
    out = da.sel({k: v for k, v in sel.items() if k in da.dims})
    out = out.squeeze([d for d in out.dims if d not in keep and out.sizes[d] == 1])
    extra = [d for d in out.dims if d not in keep]
    if extra:
        raise ValueError(f"check selection {sel} leaves dimensions {extra} of {da.name!r}")
    return out


def _finite(x):
    return x is not None and math.isfinite(x)


def critical_value(n_standard_errors, n_runs):
    """Multiple of the standard error that keeps a normal ``n_standard_errors`` tail rate.

    A mean over ``n_runs`` runs divided by its estimated standard error is
    Student-t distributed with ``n_runs - 1`` degrees of freedom, so a fixed
    4-SE band is far too narrow for few runs (with 2 runs it is crossed 16 %
    of the time). The band is widened to the t quantile of the same tail
    probability as ``n_standard_errors`` normal standard deviations.

    Parameters
    ----------
    n_standard_errors : float
    n_runs : int or None
        None (a standard error from elsewhere: bootstrap, binomial) keeps
        the normal value.

    Returns
    -------
    float
    """
    if n_runs is None:
        return float(n_standard_errors)
    if n_runs < 2:
        return math.inf
    from scipy import stats

    return float(stats.t.isf(stats.norm.sf(n_standard_errors), n_runs - 1))


def _missing_peers(ds, requires):
    """Required optional packages that were not importable when ``ds`` was computed."""
    peers = json.loads(ds.attrs.get("peers_json", "{}"))
    return [p for p in requires if p in peers and peers[p] is None]


class _Verdict:
    """Accumulates the parts of one check: acceptance, resolution and its allowance."""

    def __init__(self):
        self.rules, self.passes, self.notes = [], [], []
        self.resolutions, self.powerful = [], []

    def add(self, rule, passed, resolution, allowance):
        self.rules.append(rule)
        self.passes.append(bool(passed))
        res = math.inf if resolution is None or not math.isfinite(resolution) else resolution
        self.resolutions.append(res)
        self.powerful.append(res <= allowance)

    def nonfinite(self, m, allowance):
        """Runs without a finite value fail the check, and the note counts them."""
        if m.n_nonfinite:
            self.add("every finished run finite", False, 0.0, allowance)
            self.notes.append(f"{m.n_nonfinite} of {m.n_nonfinite + (m.n or 0)} runs non-finite")

    def externals(self, check, value, paper, ref, expected, source):
        """Judge ``value`` against the paper's and a reference's number where compared.

        Returns the expectation shown: the first external number when there
        is no other.
        """
        for ext, what, compared in (
            (paper, "paper", check.paper_checked),
            (ref, "reference", check.reference_checked),
        ):
            if ext is not None and compared:
                ext.judge(self, value, what, check.max_resolution)
                if expected is None:
                    expected, source = ext.value, what
        return expected, source

    def result(self, smoke, **fields):
        kind = "evidence" if self.passes and all(self.powerful) and not smoke else "smoke"
        resolution = max(self.resolutions) if self.resolutions else None
        if resolution is not None and not math.isfinite(resolution):
            resolution = None
        return CheckResult(
            tolerance="; ".join(self.rules) if self.rules else "—",
            resolution=resolution,
            kind=kind,
            passed=bool(self.passes) and all(self.passes),
            note="; ".join(n for n in self.notes if n),
            **fields,
        )


def _relative(tol, scale):
    if scale is None or not math.isfinite(scale) or scale == 0.0:
        return 0.0 if tol == 0.0 else math.inf
    return abs(tol) / abs(scale)


@dataclass(frozen=True)
class _External:
    """A paper's or another source's number, with its tolerance and origin."""

    value: float
    tolerance: float
    source: str
    precision: float | None

    @classmethod
    def make(cls, value, tolerance, source, what):
        if value is None:
            return None
        if not source:
            raise ValueError(f"a {what} value needs its source (figure, table, equation, text)")
        number, half_unit = printed_number(value)
        tol = tolerance if tolerance is not None else half_unit
        if tol is None:
            raise ValueError(
                f"{what} value {value!r}: give it as printed (a string such as '0.90') "
                f"or with a {what}_tolerance"
            )
        return cls(number, float(tol), source, half_unit)

    def judge(self, verdict, observed, what, max_resolution):
        ok = _finite(observed) and abs(observed - self.value) <= self.tolerance
        allowance = max(max_resolution, _relative(self.precision or 0.0, self.value))
        verdict.add(
            f"{what} ± {self.tolerance:.3g}",
            ok,
            _relative(self.tolerance, self.value),
            allowance,
        )


@dataclass(frozen=True)
class Check:
    """Theory against simulation at one point, and/or a value against the paper's.

    Theory and simulation agree if ``|z| <= k`` with ``z = (mean - theory) /
    SE``, mean and standard error over the finished seeds, and ``k`` the
    Student-t equivalent of ``n_standard_errors`` normal standard deviations
    at ``n - 1`` degrees of freedom (:func:`critical_value`: 4.9 at 24 runs,
    7.0 at 10, 4.2 at 100). Its resolution is ``k * SE / scale`` (``scale``
    defaults to ``|theory|``). A paper value is compared
    with the theory (or, without theory, the simulation) within
    ``paper_tolerance``, by default half a unit of its last printed digit.

    Parameters
    ----------
    quantity : str
        Label shown in the report, e.g. ``"R_{++}(alpha=10)"``.
    theory : tuple (variable, selection), optional
        Dataset variable and ``.sel`` mapping that give one theory number.
    simulation : tuple (variable, selection), optional
        Dataset variable (with a ``seed`` dimension) and selection.
    paper_value : str or float, optional
        A number printed in the paper, best as printed (``"0.90"``), which
        sets its precision.
    paper_tolerance : float, optional
        Allowed absolute deviation from ``paper_value``.
    paper_source : str, optional
        Where the paper prints it (``"Fig. 2 caption"``, ``"Table 1"``,
        ``"eq. (30)"``); required with ``paper_value``.
    paper_checked : bool, default=True
        False shows the paper's number beside ours without comparing them,
        where the re-derived theory disagrees with the paper (the note says
        why; the check's expectation is then the re-derived one).
    reference_value, reference_tolerance, reference_source, reference_checked : optional
        The same for a number that is not printed in the paper (another
        paper, a peer library, an issue, the paper's formula evaluated by
        us): shown as a reference.
    n_standard_errors : float, default=4.0
        Theory-vs-simulation tolerance in normal standard deviations (widened
        to the Student-t quantile of the same tail probability).
    scale : float, optional
        Magnitude against which the resolution is relative (default
        ``|theory|``); give the quantity's natural scale for values near 0.
    max_resolution : float, default=EVIDENCE_RESOLUTION
        Largest resolution at which the check is evidence.
    smoke : bool, default=False
        Declare the check smoke whatever its resolution (its expectation is
        not independent of what it checks).
    requires : tuple of str, default=()
        Optional packages the simulated value needs; without them the check
        is skipped.
    note : str, default=""
        Shown beside the verdict (why a known deviation is expected, say).
    rs_unstable : bool, default=False
        The comparison is with replica-symmetric theory inside a region where
        replica symmetry is broken; the report marks the row (a check there
        tests the learner, not the theory).
    """

    quantity: str
    theory: tuple | None = None
    simulation: tuple | None = None
    paper_value: float | str | None = None
    paper_tolerance: float | None = None
    paper_source: str = ""
    paper_checked: bool = True
    reference_value: float | str | None = None
    reference_tolerance: float | None = None
    reference_source: str = ""
    reference_checked: bool = True
    n_standard_errors: float = 4.0
    scale: float | None = None
    max_resolution: float = EVIDENCE_RESOLUTION
    smoke: bool = False
    requires: tuple = ()
    note: str = ""
    rs_unstable: bool = False

    def __post_init__(self):
        if self.theory is None and self.simulation is None:
            raise ValueError(f"check {self.quantity!r} needs a theory or a simulation value")
        _External.make(self.paper_value, self.paper_tolerance, self.paper_source, "paper")
        _External.make(
            self.reference_value, self.reference_tolerance, self.reference_source, "reference"
        )

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
        paper = _External.make(self.paper_value, self.paper_tolerance, self.paper_source, "paper")
        ref = _External.make(
            self.reference_value, self.reference_tolerance, self.reference_source, "reference"
        )
        th = None
        m = Measurement(math.nan, None, None, 0)
        if self.theory is not None:
            var, sel = self.theory
            th = float(select(ds[var], sel, keep=()).values)
        if self.simulation is not None:
            var, sel = self.simulation
            values = select(ds[var], sel, keep=("seed",))
            done = select(ds["sim_done"], sel, keep=("seed",))
            m = measure(values.values[np.asarray(done.values, dtype=bool)])
        common = {
            "quantity": self.quantity,
            "theory": th,
            "simulation": m.value if self.simulation is not None else None,
            "simulation_se": m.se if self.simulation is not None else None,
            "paper": paper.value if paper else None,
            "paper_source": paper.source if paper else "",
            "paper_compared": self.paper_checked,
            "reference": ref.value if ref else None,
            "reference_source": ref.source if ref else "",
            "reference_compared": self.reference_checked,
            "n_runs": m.n,
            "n_nonfinite": m.n_nonfinite,
            "rs_unstable": self.rs_unstable,
        }
        missing = _missing_peers(ds, self.requires) if self.simulation is not None else []
        if missing:
            return _without_verdict("skipped", f"peer not installed: {', '.join(missing)}", common)
        v = _Verdict()
        v.notes.append(self.note)
        z = None
        if self.theory is not None and self.simulation is not None:
            observed, observed_se, expected, source = m.value, m.se, th, "theory"
            if not (_finite(m.value) and _finite(m.se) and _finite(th)):
                v.add("theory vs simulation", False, None, self.max_resolution)
                v.notes.append("fewer than two finite runs")
            elif m.se == 0.0:
                v.add("theory vs simulation", False, None, self.max_resolution)
                v.notes.append("zero spread over seeds: compare at a non-deterministic point")
            else:
                k = critical_value(self.n_standard_errors, m.n)
                tol = k * m.se
                z = (m.value - th) / m.se
                scale = self.scale if self.scale is not None else th
                v.add(
                    f"|z| ≤ {k:.3g} (± {tol:.3g})",
                    abs(z) <= k,
                    _relative(tol, scale),
                    self.max_resolution,
                )
        else:
            observed = th if self.theory is not None else m.value
            observed_se = None if self.theory is not None else m.se
            expected, source = None, ""
        v.nonfinite(m, self.max_resolution)
        target = th if self.theory is not None else m.value
        expected, source = v.externals(self, target, paper, ref, expected, source)
        return v.result(
            self.smoke,
            observed=observed,
            observed_se=observed_se,
            expected=expected,
            expected_from=source,
            z=z,
            **common,
        )


def _without_verdict(kind, note, common, *, tolerance="—", observed=None, observed_se=None):
    """A reported or skipped row: shown, with no verdict."""
    return CheckResult(
        observed=observed,
        observed_se=observed_se,
        expected=None,
        expected_from="",
        z=None,
        tolerance=tolerance,
        resolution=None,
        kind=kind,
        passed=None,
        note=note,
        **common,
    )


@dataclass(frozen=True)
class Derived:
    """A number computed from the whole dataset, checked against an expectation.

    For statements about a figure as a whole rather than one cell: "the
    asymptote of LVQ+ does not depend on p_+", "the spread falls like
    N^-1/2" (a fitted slope against -1/2), "SBC beats SBL on paired splits".

    ``compute(ds)`` returns a :class:`Measurement` or ``(value, se)``
    (``se`` None for an exact theory number). It only reads the dataset.

    - ``target``: two-sided. With a standard error, ``|value - target| <=
      k * se`` and ``z = (value - target) / se``, ``k`` the critical value
      of ``n_standard_errors`` (:func:`critical_value`; a Student-t quantile
      when the :class:`Measurement` says how many runs it averages); for an
      exact value, ``|value - target| <= tolerance``.
    - ``lower`` / ``upper``: one-sided (or an interval). With a standard
      error the value must lie beyond the bound by ``k * se`` (a
      significant margin, not "not contradicted"); an exact value must lie
      within the bounds.

    The resolution is ``k * se / scale`` (or ``tolerance / scale``, or the
    half-width of an exact interval over ``scale``); an exact one-sided
    inequality has resolution 0. ``scale`` defaults to ``|target|`` (or the
    bound, or the value).

    Parameters
    ----------
    quantity : str
        Label shown in the report.
    compute : callable
        ``compute(ds) -> Measurement | (value, se)``.
    target : float or callable, optional
        Expected value, computed independently of ``compute``; a callable
        ``target(ds)`` reads it from the dataset (a second, independent
        computation stored by a cell).
    target_from : str, default="target"
        What the target is, shown in the report (``"theory"``, ``"paper,
        Table 1"``, ``"reference: Tibshirani et al. (2001)"``).
    tolerance : float, optional
        Allowed absolute deviation of an exact value from ``target``.
    lower, upper : float or callable, optional
        Bounds (inclusive); a callable ``bound(ds)`` may depend on the data.
    scale : float or callable, optional
        Magnitude against which the resolution is relative: the size of the
        effect the check claims (a callable ``scale(ds)`` reads it from the
        dataset, e.g. a theory's predicted jump).
    source : {"theory", "simulation"}, default="theory"
        Report column the value is shown in.
    n_standard_errors : float, default=4.0
    paper_value, paper_tolerance, paper_source, paper_checked : optional
        A number printed in the paper (see :class:`Check`).
    reference_value, reference_tolerance, reference_source, reference_checked : optional
        Any other external number (see :class:`Check`).
    max_resolution : float, default=EVIDENCE_RESOLUTION
    smoke : bool, default=False
        Declare the check smoke (an internal consistency or sanity check
        whose expectation is not independent of what it checks).
    reported : bool, default=False
        A measurement shown without a verdict (a speed ratio, a count);
        it is counted apart from the checks. Bounds and targets are not
        allowed.
    requires : tuple of str, default=()
        Optional packages the value needs; without them it is skipped.
    note : str, default=""
    rs_unstable : bool, default=False
        The comparison is with replica-symmetric theory inside a region where
        replica symmetry is broken; the report marks the row (a check there
        tests the learner, not the theory).
    """

    quantity: str
    compute: Callable
    target: float | Callable | None = None
    target_from: str = "target"
    tolerance: float | None = None
    lower: float | Callable | None = None
    upper: float | Callable | None = None
    scale: float | Callable | None = None
    source: str = "theory"
    n_standard_errors: float = 4.0
    paper_value: float | str | None = None
    paper_tolerance: float | None = None
    paper_source: str = ""
    paper_checked: bool = True
    reference_value: float | str | None = None
    reference_tolerance: float | None = None
    reference_source: str = ""
    reference_checked: bool = True
    max_resolution: float = EVIDENCE_RESOLUTION
    smoke: bool = False
    reported: bool = False
    requires: tuple = ()
    note: str = ""
    rs_unstable: bool = False

    def __post_init__(self):
        paper = self.paper_value if self.paper_checked else None
        reference = self.reference_value if self.reference_checked else None
        bounded = (self.target, self.lower, self.upper, paper, reference)
        if self.reported and any(b is not None for b in bounded):
            raise ValueError(f"Derived {self.quantity!r}: reported=True takes no target or bounds")
        if not self.reported and all(b is None for b in bounded):
            raise ValueError(f"Derived {self.quantity!r}: give a target, bounds or reported=True")
        if self.source not in ("theory", "simulation"):
            raise ValueError(f"source must be 'theory' or 'simulation', got {self.source!r}")
        _External.make(self.paper_value, self.paper_tolerance, self.paper_source, "paper")
        _External.make(
            self.reference_value, self.reference_tolerance, self.reference_source, "reference"
        )

    def evaluate(self, ds):
        """Evaluate on a completed dataset.

        Parameters
        ----------
        ds : xarray.Dataset

        Returns
        -------
        CheckResult
        """
        paper = _External.make(self.paper_value, self.paper_tolerance, self.paper_source, "paper")
        ref = _External.make(
            self.reference_value, self.reference_tolerance, self.reference_source, "reference"
        )
        is_theory = self.source == "theory"
        # a paper number that is this check's statistical target is compared, through the target
        as_target = paper is not None and not callable(self.target) and self.target == paper.value
        base = {
            "quantity": self.quantity,
            "paper": paper.value if paper else None,
            "paper_source": paper.source if paper else "",
            "paper_compared": self.paper_checked or as_target,
            "reference": ref.value if ref else None,
            "reference_source": ref.source if ref else "",
            "reference_compared": self.reference_checked,
            "rs_unstable": self.rs_unstable,
        }
        missing = _missing_peers(ds, self.requires)
        if missing:
            return _without_verdict(
                "skipped",
                f"peer not installed: {', '.join(missing)}",
                base | {"theory": None, "simulation": None, "simulation_se": None},
            )
        m = self.compute(ds)
        if not isinstance(m, Measurement):
            value, se = m
            m = Measurement(
                math.nan if value is None else float(value), None if se is None else float(se)
            )
        value, se = m.value, m.se
        common = base | {
            "theory": value if is_theory else None,
            "simulation": None if is_theory else value,
            "simulation_se": None if is_theory else se,
            "n_runs": m.n,
            "n_nonfinite": m.n_nonfinite,
        }
        v = _Verdict()
        v.notes.append(self.note)
        finite = _finite(value)
        if not finite:
            v.notes.append("not computable from the finished cells")
        statistical = se is not None
        if statistical and not _finite(se):
            v.notes.append("no standard error (fewer than two finite runs)")
        n = critical_value(self.n_standard_errors, m.n if statistical else None)
        expected, source, z, two_sided = None, "", None, True
        target = self.target(ds) if callable(self.target) else self.target
        given_scale = self.scale(ds) if callable(self.scale) else self.scale
        if target is not None:
            target = float(target)
            expected, source = target, self.target_from
            scale = given_scale if given_scale is not None else target
            if statistical:
                # every run exactly on target (zero spread) agrees; otherwise within k SE
                ok = (
                    finite
                    and _finite(se)
                    and (abs(value - target) <= n * se if se > 0 else value == target)
                )
                z = (value - target) / se if finite and _finite(se) and se > 0 else None
                tol = n * se if _finite(se) else math.inf
                rule = f"|z| ≤ {n:.3g} (± {tol:.3g})"
                v.add(rule, ok, _relative(tol, scale), self.max_resolution)
            else:
                tol = self.tolerance or 0.0
                ok = finite and _finite(target) and abs(value - target) <= tol
                v.add(f"{target:.6g} ± {tol:.3g}", ok, _relative(tol, scale), self.max_resolution)
        lower = self.lower(ds) if callable(self.lower) else self.lower
        upper = self.upper(ds) if callable(self.upper) else self.upper
        if lower is not None or upper is not None:
            if expected is None:
                expected, source = (lower if lower is not None else upper), "bound"
            two_sided = target is not None
            if statistical:
                margin = n * se if _finite(se) else math.inf
                ref_bound = lower if lower is not None else upper
                scale = given_scale if given_scale is not None else (ref_bound or value)
                if z is None and _finite(se) and se > 0 and finite:
                    z = (value - ref_bound) / se
                for bound, sign, word in ((lower, 1, "≥"), (upper, -1, "≤")):
                    if bound is None:
                        continue
                    ok = finite and sign * (value - bound) >= margin
                    v.add(
                        f"{word} {bound:.4g} by {n:.3g} SE",
                        ok,
                        _relative(margin, scale),
                        self.max_resolution,
                    )
            else:
                if lower is not None and upper is not None:
                    half = 0.5 * (upper - lower)
                    scale = given_scale if given_scale is not None else 0.5 * (upper + lower)
                    res = _relative(half, scale)
                else:
                    res = 0.0
                if lower is not None:
                    v.add(f"≥ {lower:.4g}", finite and value >= lower, res, self.max_resolution)
                if upper is not None:
                    v.add(f"≤ {upper:.4g}", finite and value <= upper, res, self.max_resolution)
        v.nonfinite(m, self.max_resolution)
        expected, source = v.externals(self, value, paper, ref, expected, source)
        if self.reported:
            return _without_verdict(
                "reported",
                "; ".join(n for n in v.notes if n),
                common,
                tolerance="reported, no bound",
                observed=value if finite else None,
                observed_se=se,
            )
        return v.result(
            self.smoke,
            observed=value if finite else None,
            observed_se=se,
            expected=expected,
            expected_from=source,
            z=z,
            two_sided=two_sided,
            **common,
        )
