"""Registry of figure specs, discovered in the per-paper modules.

Discovery is one-way: a paper module of this package (every module whose name
does not start with an underscore) only defines its :class:`FigureSpec`
instances at module level and imports nothing from here; the first query
imports those modules with :func:`pkgutil.iter_modules` and collects the
specs. :func:`register` adds a spec built at run time (a test's variant).
"""

import difflib
import importlib
import pkgutil

from statmechlearn.experiments._spec import FigureSpec

__all__ = ["UnknownExperimentError", "get", "names", "papers", "register", "specs_for"]

#: name -> spec, discovered and registered
_SPECS = {}
#: name -> where the spec came from, for the error on a name defined twice
_ORIGIN = {}
_discovered = False


class UnknownExperimentError(KeyError):
    """An experiment or paper name that the registry does not know."""

    def __str__(self):
        return str(self.args[0])


def _add(spec, origin):
    held = _SPECS.get(spec.name)
    if held is not None and held is not spec:
        first = _ORIGIN.get(spec.name, "register()")
        raise ValueError(
            f"experiment name {spec.name!r} is defined twice: in {first} and in {origin}; "
            "experiment names must be unique"
        )
    _SPECS[spec.name] = spec
    _ORIGIN.setdefault(spec.name, origin)
    return spec


def register(spec):
    """Add a spec built at run time; names must be unique.

    The paper modules need not call this: their module-level specs are
    discovered.

    Parameters
    ----------
    spec : FigureSpec

    Returns
    -------
    FigureSpec

    Raises
    ------
    TypeError
        When ``spec`` is not a :class:`FigureSpec`.
    ValueError
        When another spec already has its name.
    """
    if not isinstance(spec, FigureSpec):
        raise TypeError(f"spec must be a FigureSpec, got {type(spec).__name__}")
    return _add(spec, "register()")


def _load():
    """Import every paper module of the package once and collect its specs."""
    global _discovered
    if _discovered:
        return
    package = importlib.import_module("statmechlearn.experiments")
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for value in vars(module).values():
            # a spec imported from another paper module is the same object: _add keeps one
            if isinstance(value, FigureSpec):
                _add(value, f"module {module.__name__}")
    _discovered = True


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
