"""Variants of a figure spec: its grid and settings with some values changed.

``statmechlearn run lvq-fig2 --set p_plus=0.6 --set eta=0.5`` runs the spec
``lvq-fig2@eta=0.5,p_plus=0.6``: the same theory, simulation, plot and checks
at other parameter values, filed under its own result key and shown in the
report as a variant of the paper's figure.

What can be overridden:

- a **grid** coordinate: one value where the paper's axis has one point
  (``p_plus=0.6``), a comma list replacing an axis of several points
  (``eta=0.1,0.2,0.5``);
- a **setting** (the same in both modes): a number, a flag or a name
  (``n_features=400``), or a comma list for a setting that is a tuple.

A value must have the type of the spec's own values (an integer stays an
integer) and lie in the spec's declared range (:attr:`FigureSpec.ranges`,
e.g. ``{"p_plus": "(0, 1)"}``). Where no range is declared a number keeps
the sign of the spec's values (positive stays positive) and a name must be
one the spec itself uses. Bad input raises :class:`OverrideError` with a
one-line message naming the key and what it accepts.

A variant's checks are the paper spec's, evaluated on the variant's data,
except that numbers printed in the paper (or taken from another source) are
for the paper's parameters: they are not compared, and a check that has
nothing else to compare is shown as skipped with that reason. A check whose
selection is not on the variant's grid is skipped too, with its reason.

A variant is written down in ``out/store/variants/NAME.json`` when it is
run, so a later ``statmechlearn report`` re-creates it from its base spec
(:mod:`~statmechlearn.experiments._variant_store`). This module builds
variants only: it knows neither the registry nor the store.
"""

import dataclasses
import hashlib
import json
import math
import re
from dataclasses import dataclass

from statmechlearn.experiments._checks import MODES, Check, CheckResult, Derived, printed_number

__all__ = [
    "NotApplicable",
    "OverrideError",
    "check_ranges",
    "make_variant",
    "overridable",
    "parse_assignments",
    "parse_range",
]

#: Joins the values of a list in a variant's name (a comma separates the overrides).
_LIST_SEP = "~"
_SAFE_NAME = re.compile(r"^[A-Za-z0-9._+~=,@-]+$")
_MAX_NAME = 120
_INTERVAL = re.compile(r"^\s*([\[(])\s*([^,]+?)\s*,\s*([^,]+?)\s*([\])])\s*$")
_NOT_FOR_VARIANT = "the paper's number is for the paper's parameters: not compared in a variant"


class OverrideError(ValueError):
    """An override that the spec does not accept; the message is one line."""


# ------------------------------------------------------------------ ranges ----


@dataclass(frozen=True)
class _Interval:
    lower: float
    upper: float
    lower_closed: bool
    upper_closed: bool
    text: str

    def __contains__(self, x):
        above = x >= self.lower if self.lower_closed else x > self.lower
        below = x <= self.upper if self.upper_closed else x < self.upper
        return above and below


def parse_range(value, key="range"):
    """An interval such as ``"(0, 1]"`` or ``"[2, inf)"``, or a collection of choices.

    Parameters
    ----------
    value : str or sequence
        Interval text, or the allowed values (names, numbers).
    key : str
        Name shown in an error.

    Returns
    -------
    _Interval or tuple
    """
    if isinstance(value, str):
        m = _INTERVAL.match(value)
        if m is None:
            raise ValueError(
                f"range of {key!r} must be an interval such as '(0, 1]' or '[2, inf)', "
                f"or a tuple of choices; got {value!r}"
            )
        try:
            lower, upper = float(m.group(2)), float(m.group(3))
        except ValueError:
            raise ValueError(f"range of {key!r}: bounds must be numbers; got {value!r}") from None
        if not lower <= upper or math.isnan(lower) or math.isnan(upper):
            raise ValueError(f"range of {key!r} is empty: {value!r}")
        text = f"{m.group(1)}{m.group(2)}, {m.group(3)}{m.group(4)}"
        return _Interval(lower, upper, m.group(1) == "[", m.group(4) == "]", text)
    if isinstance(value, tuple | list | frozenset | set) and value:
        return tuple(value)
    raise ValueError(f"range of {key!r} must be an interval text or choices; got {value!r}")


def check_ranges(spec):
    """Raise ``ValueError`` unless every key of ``spec.ranges`` is a grid or setting key."""
    keys = set(spec.grid) | {k for mode in MODES for k in spec.settings[mode]}
    for key, value in spec.ranges.items():
        if key not in keys:
            raise ValueError(
                f"spec {spec.name!r}: ranges names {key!r}, which is neither a grid "
                f"coordinate nor a setting; those are {', '.join(sorted(keys))}"
            )
        parse_range(value, key)


# -------------------------------------------------------------- parameters ----


def _kind(values):
    """'bool', 'int', 'float' or 'str' when all ``values`` share one, else None."""
    kinds = set()
    for v in values:
        if isinstance(v, bool) or type(v).__name__ == "bool_":
            kinds.add("bool")
        elif isinstance(v, str):
            kinds.add("str")
        elif isinstance(v, int) or (hasattr(v, "dtype") and v.dtype.kind in "iu"):
            kinds.add("int")
        elif isinstance(v, float) or (hasattr(v, "dtype") and v.dtype.kind == "f"):
            kinds.add("float")
        else:
            return None
    if kinds == {"int", "float"}:
        return "float"
    return kinds.pop() if len(kinds) == 1 else None


@dataclass(frozen=True)
class _Parameter:
    key: str
    kind: str
    in_grid: bool
    setting: str | None  # None, "scalar" or "tuple"
    single: bool
    paper: tuple
    allowed: object  # _Interval or tuple of choices

    def describe(self):
        how = "one value" if self.single else "a comma list"
        if isinstance(self.allowed, _Interval):
            kind = {"int": "integer", "float": "number"}[self.kind]
            what = f"{kind} in {self.allowed.text}"
        else:
            what = "one of " + ", ".join(_text(c) for c in self.allowed)
        paper = ", ".join(_text(v) for v in self.paper)
        return f"{self.key}: {what}, {how} (paper: {paper})"


def _plain(v):
    """A numpy scalar as the Python number it holds."""
    return v.item() if hasattr(v, "item") and not isinstance(v, str) else v


def _text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def _default_range(kind, values):
    if kind == "bool":
        return (False, True)
    if kind == "str":
        return tuple(sorted(set(values)))
    if all(v > 0 for v in values):
        return parse_range("(0, inf)")
    if all(v >= 0 for v in values):
        return parse_range("[0, inf)")
    return parse_range("(-inf, inf)")


def _parameters(spec):
    """Every overridable key of ``spec``: grid coordinates and scalar (or tuple) settings."""
    keys = list(spec.grid)
    for mode in MODES:
        keys += [k for k in spec.settings[mode] if k not in keys]
    out = {}
    for key in keys:
        values, single = [], False
        in_grid = key in spec.grid
        if in_grid:
            values += [_plain(v) for v in spec.grid[key]]
            single = len(spec.grid[key]) == 1
        setting = None
        for mode in MODES:
            if key not in spec.settings[mode]:
                continue
            value = spec.settings[mode][key]
            if isinstance(value, tuple | list):
                setting = setting or "tuple"
                values += [_plain(v) for v in value]
            else:
                setting = "scalar"
                values.append(_plain(value))
                single = True
        kind = _kind(values)
        if kind is None or not values:
            continue  # a mapping, an array, mixed types: not something to set from a command line
        if kind == "float" and not all(math.isfinite(v) for v in values):
            continue
        allowed = (
            parse_range(spec.ranges[key], key)
            if key in spec.ranges
            else _default_range(kind, values)
        )
        if isinstance(allowed, _Interval) and kind not in ("int", "float"):
            raise ValueError(
                f"spec {spec.name!r}: range of {key!r} is an interval but its values are {kind}"
            )
        paper = tuple(dict.fromkeys(values))
        out[key] = _Parameter(key, kind, in_grid, setting, single, paper, allowed)
    return out


def overridable(spec):
    """What each overridable key of ``spec`` accepts, in words.

    Parameters
    ----------
    spec : FigureSpec

    Returns
    -------
    dict of str to str
        Key -> e.g. ``"p_plus: number in (0, 1), one value (paper: 0.8)"``.
    """
    return {k: p.describe() for k, p in sorted(_parameters(spec).items())}


_TRUE, _FALSE = {"true", "yes", "1", "on"}, {"false", "no", "0", "off"}


def _convert(param, raw, spec):
    """One value of ``param`` from text or a Python value; raises OverrideError."""
    where = f"{spec.name}: {param.key}"
    if param.kind == "bool":
        if isinstance(raw, bool):
            value = raw
        elif isinstance(raw, str) and raw.strip().lower() in _TRUE | _FALSE:
            value = raw.strip().lower() in _TRUE
        else:
            raise OverrideError(f"{where} must be true or false; got {raw!r}")
    elif param.kind == "str":
        value = raw.strip() if isinstance(raw, str) else raw
    else:
        try:
            if isinstance(raw, str):
                value = int(raw.strip()) if param.kind == "int" else float(raw.strip())
            elif isinstance(raw, bool):
                raise TypeError
            elif param.kind == "int":
                if float(raw) != int(raw):
                    raise ValueError
                value = int(raw)
            else:
                value = float(raw)
        except (TypeError, ValueError):
            kind = "an integer" if param.kind == "int" else "a number"
            raise OverrideError(f"{where} must be {kind}; got {raw!r}") from None
        # an int is exact however large (math.isfinite would overflow converting it), but
        # the arrays it sizes hold 64-bit integers
        if isinstance(value, float) and not math.isfinite(value):
            raise OverrideError(f"{where} must be finite; got {raw!r}")
        if isinstance(value, int) and abs(value) >= 2**63:
            raise OverrideError(f"{where} must be an integer below 2**63 in size; got {raw!r}")
        # a real setting scales sizes and counts (alpha times N examples), which the same
        # 64-bit arrays hold
        if isinstance(value, float) and abs(value) >= 2.0**63:
            raise OverrideError(f"{where} must be below 2**63 in size; got {raw!r}")
    allowed = param.allowed
    if isinstance(allowed, _Interval):
        if value not in allowed:
            raise OverrideError(f"{where} must be in {allowed.text}; got {_text(value)}")
    elif value not in allowed:
        raise OverrideError(
            f"{where} must be one of {', '.join(_text(c) for c in allowed)}; got {raw!r}"
        )
    return value


def _values(param, raw, spec):
    if isinstance(raw, str):
        items = raw.split(",")
    elif isinstance(raw, tuple | list):
        items = list(raw)
    else:
        items = [raw]
    if not items or any(isinstance(s, str) and not s.strip() for s in items):
        raise OverrideError(f"{spec.name}: {param.key} needs a value; got {raw!r}")
    values = [_convert(param, item, spec) for item in items]
    if param.single and len(values) != 1:
        raise OverrideError(
            f"{spec.name}: {param.key} takes one value (the paper's figure has one); "
            f"got {len(values)}: {raw!r}"
        )
    if len(set(values)) != len(values):
        raise OverrideError(f"{spec.name}: {param.key} lists a value twice: {raw!r}")
    return values


def parse_assignments(items):
    """``["p_plus=0.6", "eta=0.5"]`` as ``{"p_plus": "0.6", "eta": "0.5"}``.

    Parameters
    ----------
    items : sequence of str
        ``KEY=VALUE`` texts (``--set`` options).

    Returns
    -------
    dict of str to str

    Raises
    ------
    OverrideError
        On a text without ``=``, an empty key or a key given twice.
    """
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise OverrideError(f"--set takes KEY=VALUE (e.g. --set p_plus=0.6); got {item!r}")
        if key in out:
            raise OverrideError(f"--set {key} is given twice")
        out[key] = value
    return out


# ---------------------------------------------------------------- variants ----


def _variant_name(base, canon):
    parts = []
    for key, value in canon.items():
        text = _LIST_SEP.join(map(_text, value)) if isinstance(value, list) else _text(value)
        parts.append(f"{key}={text}")
    name = f"{base}@{','.join(parts)}"
    if len(name) <= _MAX_NAME and _SAFE_NAME.match(name):
        return name
    digest = hashlib.sha256(json.dumps(canon, sort_keys=True).encode()).hexdigest()[:12]
    return f"{base}@{digest}"


def _caption(base, canon, params):
    changes = []
    for key, value in canon.items():
        shown = ", ".join(map(_text, value)) if isinstance(value, list) else _text(value)
        paper = ", ".join(map(_text, params[key].paper))
        changes.append(f"{key} = {shown} (paper: {paper})")
    return (
        f"{base.caption} — Variant of {base.name} with {'; '.join(changes)}: the caption's "
        "parameter values are the paper's; theory and simulation here are at the variant's."
    )


def make_variant(spec, overrides):
    """The spec ``spec`` with some grid coordinates and settings changed.

    Parameters
    ----------
    spec : FigureSpec
        A paper spec (not itself a variant).
    overrides : mapping of str to str, scalar or sequence
        Key -> value: text as on the command line (``"0.6"``,
        ``"0.1,0.2"``) or Python values (``0.6``, ``(0.1, 0.2)``).

    Returns
    -------
    FigureSpec
        Named ``BASE@key=value,...`` (keys sorted; list values joined by
        ``~``), with ``variant_of`` the base name and ``overrides`` the
        validated values.

    Raises
    ------
    OverrideError
        An unknown key, a value of the wrong type or outside the allowed
        range, several values where the figure has one, or no override.
    """
    if spec.variant_of is not None:
        raise OverrideError(
            f"{spec.name} is already a variant of {spec.variant_of}; "
            "give every override to the paper's spec at once"
        )
    if not overrides:
        raise OverrideError(f"{spec.name}: no override given")
    params = _parameters(spec)
    canon = {}
    for key in sorted(overrides):
        if key not in params:
            valid = ", ".join(sorted(params)) or "none"
            raise OverrideError(f"{spec.name} has no overridable {key!r}; valid keys: {valid}")
        param = params[key]
        values = _values(param, overrides[key], spec)
        canon[key] = values[0] if param.single else values
    grid = dict(spec.grid)
    settings = {mode: dict(s) for mode, s in spec.settings.items()}
    for key, value in canon.items():
        param = params[key]
        values = value if isinstance(value, list) else [value]
        if param.in_grid:
            grid[key] = tuple(values)
        for mode in MODES:
            if key in settings[mode]:
                held = settings[mode][key]
                settings[mode][key] = tuple(values) if isinstance(held, tuple | list) else value
    variant = dataclasses.replace(
        spec,
        name=_variant_name(spec.name, canon),
        grid=grid,
        settings=settings,
        caption=_caption(spec, canon, params),
        checks=_VariantChecks(spec.checks),
        variant_of=spec.name,
        overrides=canon,
    )
    _try_layout(variant, canon)
    return variant


def _try_layout(variant, canon):
    """Build the variant's coordinates and seed counts now, not in the middle of a run."""
    for mode in MODES:
        try:
            variant.coords(dict(variant.settings[mode]))
            for point in variant.points():
                variant.seeds_at(point, mode)
        except Exception as exc:
            given = ", ".join(f"{k}={v}" for k, v in canon.items())
            raise OverrideError(
                f"{variant.variant_of}: the overrides {given} do not give a valid {mode} run: "
                f"{type(exc).__name__}: {exc}"
            ) from None


# ------------------------------------------------------------------ checks ----


def _has_externals(check):
    return check.paper_value is not None or check.reference_value is not None


_NO_EXTERNALS = {
    "paper_value": None,
    "paper_tolerance": None,
    "paper_source": "",
    "paper_checked": True,
    "reference_value": None,
    "reference_tolerance": None,
    "reference_source": "",
    "reference_checked": True,
}


def _joined(*notes):
    return "; ".join(n for n in notes if n)


def _skipped(quantity, note):
    return CheckResult(
        quantity=quantity,
        observed=None,
        observed_se=None,
        expected=None,
        expected_from="",
        z=None,
        tolerance="—",
        resolution=None,
        kind="skipped",
        passed=None,
        note=note,
    )


def _guarded(evaluate, check, ds):
    try:
        return evaluate(check, ds)
    except (KeyError, IndexError, ValueError) as exc:
        # a selection the paper's grid has and the variant's has not (alpha=10 off the grid)
        why = exc.args[0] if exc.args else type(exc).__name__
        return _skipped(check.quantity, f"not applicable to this variant: {why}")


@dataclass(frozen=True)
class _VariantCheck(Check):
    """A paper spec's :class:`Check` on a variant's data (a selection off its grid is skipped)."""

    def evaluate(self, ds):
        return _guarded(Check.evaluate, self, ds)


@dataclass(frozen=True)
class _VariantDerived(Derived):
    """A paper spec's :class:`Derived` on a variant's data (a selection off its grid is skipped)."""

    def evaluate(self, ds):
        return _guarded(Derived.evaluate, self, ds)


@dataclass(frozen=True)
class NotApplicable:
    """A check of the paper's figure that cannot apply to a variant; shown as skipped."""

    quantity: str
    note: str

    def evaluate(self, ds):
        """The skipped row, with the reason.

        Parameters
        ----------
        ds : xarray.Dataset

        Returns
        -------
        CheckResult
        """
        return _skipped(self.quantity, self.note)


def _fields(check):
    return {f.name: getattr(check, f.name) for f in dataclasses.fields(check)}


def _for_variant(check):
    if isinstance(check, Check):
        if not _has_externals(check):
            return _VariantCheck(**_fields(check))
        if check.theory is not None and check.simulation is not None:
            note = _joined(check.note, _NOT_FOR_VARIANT)
            return _VariantCheck(**(_fields(check) | _NO_EXTERNALS | {"note": note}))
        return NotApplicable(check.quantity, f"compares with the paper: {_NOT_FOR_VARIANT}")
    if isinstance(check, Derived):
        fixed = check.target is not None and not callable(check.target)
        external_target = fixed and (
            check.target_from.lower().startswith(("paper", "reference"))
            or (
                check.paper_value is not None
                and float(check.target) == printed_number(check.paper_value)[0]
            )
        )
        if external_target:
            return NotApplicable(
                check.quantity, f"target from the {check.target_from}: {_NOT_FOR_VARIANT}"
            )
        if not _has_externals(check):
            return _VariantDerived(**_fields(check))
        bounded = (check.target, check.lower, check.upper)
        if check.reported or any(b is not None for b in bounded):
            note = _joined(check.note, _NOT_FOR_VARIANT)
            return _VariantDerived(**(_fields(check) | _NO_EXTERNALS | {"note": note}))
        return NotApplicable(check.quantity, f"compares with the paper: {_NOT_FOR_VARIANT}")
    return check


@dataclass(frozen=True)
class _VariantChecks:
    """``checks(settings)`` of a variant: the base's, adapted by :func:`_for_variant`."""

    base: object

    def __call__(self, settings):
        return [_for_variant(c) for c in self.base(settings)]


# ------------------------------------------------------------------- store ----
