"""Registry of figure specs, filled by the per-paper modules on import."""

import difflib

__all__ = ["UnknownExperimentError", "get", "names", "papers", "register", "specs_for"]

_SPECS = {}


class UnknownExperimentError(KeyError):
    """An experiment or paper name that the registry does not know."""

    def __str__(self):
        return str(self.args[0])


def register(spec):
    """Add a spec; names must be unique.

    Parameters
    ----------
    spec : FigureSpec

    Returns
    -------
    FigureSpec
    """
    if spec.name in _SPECS and _SPECS[spec.name] is not spec:
        raise ValueError(f"experiment {spec.name!r} is registered twice")
    _SPECS[spec.name] = spec
    return spec


def _load():
    # importing the per-paper modules registers their specs
    from statmechlearn.experiments import (  # noqa: F401
        lvq_beyond,
        lvq_biehl,
        lvq_real_data,
        maxent_clustering,
        mixture_barkai,
        mixture_real_data,
        model_selection,
        outliers_dietrich,
        outliers_real_data,
        sampling_mean_field,
        sparse_bayes_colon,
        sparse_bayes_uda,
    )


def names():
    """Registered experiment names, sorted."""
    _load()
    return sorted(_SPECS)


def papers():
    """Paper keys with their experiment names."""
    _load()
    out = {}
    for spec in _SPECS.values():
        out.setdefault(spec.paper, []).append(spec.name)
    return {k: sorted(v) for k, v in sorted(out.items())}


def get(name):
    """The spec called ``name``; an unknown name lists the valid ones.

    Parameters
    ----------
    name : str

    Returns
    -------
    FigureSpec
    """
    _load()
    if name not in _SPECS:
        close = difflib.get_close_matches(name, _SPECS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise UnknownExperimentError(
            f"unknown experiment {name!r}{hint}; valid names: {', '.join(sorted(_SPECS))}"
        )
    return _SPECS[name]


def specs_for(target):
    """Specs for ``"all"`` or a paper key.

    Parameters
    ----------
    target : str

    Returns
    -------
    list of FigureSpec
    """
    _load()
    if target == "all":
        return [_SPECS[n] for n in sorted(_SPECS)]
    by_paper = papers()
    if target not in by_paper:
        raise UnknownExperimentError(f"unknown paper {target!r}; valid: all, {', '.join(by_paper)}")
    return [_SPECS[n] for n in by_paper[target]]
