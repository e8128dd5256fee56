"""Variants written down and brought back: ``out/store/variants/NAME.json``.

A variant (:mod:`~statmechlearn.experiments._variants`) is recorded when it is
run (:func:`save_variant`), so a later ``statmechlearn report`` in a new
process re-creates it from its base spec and registers it
(:func:`register_stored_variants`).
"""

import json
import os
import tempfile
from pathlib import Path

from statmechlearn.experiments import _registry
from statmechlearn.experiments._store import ResultStore
from statmechlearn.experiments._variants import OverrideError, make_variant

__all__ = ["register_stored_variants", "register_variant", "save_variant"]


def _manifest_dir(out):
    return Path(out) / "store" / "variants"


def save_variant(out, spec):
    """Write down a variant in ``out/store/variants/`` so a later report can re-create it.

    Parameters
    ----------
    out : str or Path
        The ``--out`` folder.
    spec : FigureSpec
        A variant (``spec.variant_of`` set).

    Returns
    -------
    Path
    """
    if spec.variant_of is None:
        raise ValueError(f"{spec.name} is not a variant")
    folder = _manifest_dir(out)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{spec.name}.json"
    text = json.dumps(
        {"name": spec.name, "variant_of": spec.variant_of, "overrides": spec.overrides},
        sort_keys=True,
        indent=1,
    )
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=path.name + ".", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text + "\n")
    os.replace(tmp, path)
    return path


def register_stored_variants(out, bases=None, registry=None):
    """Re-create the variants written down in ``out`` and register those with a current result.

    A variant whose base is unknown here (a user experiment not loaded with
    ``--module``), or that can no longer be built, is returned as a problem
    rather than dropped silently; one without a result computed by the
    current code is left out (it would only be "not run").

    Parameters
    ----------
    out : str or Path
        The ``--out`` folder.
    bases : collection of str, optional
        Only variants of these experiments.
    registry : module, optional
        The registry to use (the package's by default).

    Returns
    -------
    names : list of str
        Registered variants that have a current result, sorted.
    problems : dict of str to str
        Variant name -> why it cannot be shown.
    """
    registry = _registry if registry is None else registry
    store = ResultStore(Path(out) / "store")
    folder = _manifest_dir(out)
    names, problems = [], {}
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            name, base, overrides = record["name"], record["variant_of"], record["overrides"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            problems[path.stem] = f"unreadable variant record {path.name}: {exc}"
            continue
        if bases is not None and base not in bases:
            continue
        try:
            spec = registry.get(base)
        except KeyError:
            problems[name] = (
                f"variant of {base!r}, which is not registered here "
                "(a user experiment: give its --module)"
            )
            continue
        try:
            variant = make_variant(spec, overrides)
        except OverrideError as exc:
            problems[name] = f"can no longer be built: {exc}"
            continue
        if store.latest(variant) is None:
            continue
        names.append(register_variant(variant, registry).name)
    return sorted(names), problems


def register_variant(variant, registry=None):
    """Register ``variant``, replacing an earlier variant of the same name.

    The same overrides give the same name; registering them again (a
    second run in one process, a base module loaded again) replaces the
    earlier object.

    Parameters
    ----------
    variant : FigureSpec
    registry : module, optional

    Returns
    -------
    FigureSpec
    """
    registry = _registry if registry is None else registry
    if variant.variant_of is None:
        raise ValueError(f"{variant.name} is not a variant")
    held = registry._SPECS.get(variant.name)
    if held is not None and held.variant_of is None:
        raise ValueError(f"experiment name {variant.name!r} is taken by a paper spec")
    registry._forget(variant.name)
    return registry.register(variant)
