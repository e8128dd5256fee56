"""Registry of figure specs, discovered through the ``statmechlearn.experiments`` entry points.

Discovery is one-way: an experiment module (the package's paper packages
and any module or package a user's package lists under the entry-point
group ``statmechlearn.experiments``) only defines its :class:`FigureSpec`
instances, and at most one :class:`PaperSection` per paper key, at module
level and imports nothing from here; the first query loads every module the
group lists (every submodule of a listed package) and collects them, so the
registry imports no paper module by name. :func:`load_module` adds the specs of a
Python file given by its path (``--module my_experiment.py``), and
:func:`register` a spec built at run time (a test's variant).
"""

import difflib
import hashlib
import importlib
import importlib.metadata
import importlib.util
import pkgutil
import sys
from pathlib import Path

from statmechlearn._core.warn import warn
from statmechlearn.experiments._fingerprint import follow_functions_in
from statmechlearn.experiments._references import PaperSection
from statmechlearn.experiments._spec import FigureSpec

__all__ = [
    "ENTRY_POINT_GROUP",
    "UnknownExperimentError",
    "get",
    "load_module",
    "module_names",
    "names",
    "paper_section",
    "papers",
    "register",
    "specs_for",
]

#: Entry-point group that lists experiment modules (``pyproject.toml`` of this and users' packages).
ENTRY_POINT_GROUP = "statmechlearn.experiments"
_OWN = "statmechlearn."

#: name -> spec, discovered and registered
_SPECS = {}
#: name -> where the spec came from, for the error on a name defined twice
_ORIGIN = {}
#: paper key -> its section of the report, as the paper's package defines it
_SECTIONS = {}
#: resolved path of a module loaded by load_module -> (SHA-256 of its source, module)
_FILES = {}
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


def _forget(name):
    _SPECS.pop(name, None)
    _ORIGIN.pop(name, None)


def register(spec):
    """Add a spec built at run time; names must be unique.

    The experiment modules need not call this: their module-level specs are
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


def _add_section(section, origin):
    held = _SECTIONS.get(section.key)
    if held is not None and held != section:
        raise ValueError(
            f"paper key {section.key!r} has two different PaperSections (the second in "
            f"{origin}); define one per paper"
        )
    _SECTIONS[section.key] = section


def _collect(module):
    """Add the module-level specs and paper sections of ``module``; return the specs' names."""
    found = []
    for value in vars(module).values():
        # a spec imported from another experiment module is the same object: _add keeps one
        if isinstance(value, FigureSpec):
            found.append(_add(value, f"module {module.__name__}").name)
        elif isinstance(value, PaperSection):
            _add_section(value, f"module {module.__name__}")
    return found


def _modules_of(module):
    """``module`` and, when it is a package, every module inside it (sorted by name)."""
    out = [module]
    if hasattr(module, "__path__"):
        prefix = module.__name__ + "."
        for info in sorted(pkgutil.walk_packages(module.__path__, prefix), key=lambda m: m.name):
            out.append(importlib.import_module(info.name))
    return out


def _followed(name):
    """What to fingerprint function by function for an entry point's module ``name``.

    A user's top-level package as a whole; inside this package only the
    listed paper package (its theory, models and estimators are hashed as
    whole modules, as any library code a cell reaches).
    """
    top = name.partition(".")[0]
    return name if f"{top}." == _OWN else top


def _entry_points():
    return sorted(
        importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: (e.value, e.name)
    )


def _load():
    """Import every module of the entry-point group once and collect its specs.

    A module of this package that fails to import is a bug and raises; a
    user package's module that fails is reported as a warning naming the
    entry point, so one broken plug-in does not take every experiment down.
    """
    global _discovered
    if _discovered:
        return
    points = _entry_points()
    if not any(e.value.startswith(_OWN) for e in points):
        raise RuntimeError(
            f"no experiment modules are registered under the entry-point group "
            f"{ENTRY_POINT_GROUP!r}: the package's metadata is out of date; reinstall it "
            "(pip install -e . in a source checkout)"
        )
    for point in points:
        own = point.value.startswith(_OWN)
        try:
            module = point.load()
            follow_functions_in(_followed(module.__name__))
            modules = _modules_of(module)
        except Exception as exc:
            if own:
                raise
            warn(
                f"experiment entry point {point.name!r} = {point.value!r} cannot be loaded "
                f"({type(exc).__name__}: {exc}); its experiments are left out",
                RuntimeWarning,
            )
            continue
        for each in modules:
            _collect(each)
    _discovered = True


def _module_name(path):
    name = path.stem
    if not name.isidentifier():
        raise ValueError(
            f"--module {path}: the file name must be a Python identifier (letters, digits, "
            f"underscores) so that it can be a module name; rename {path.name}"
        )
    held = sys.modules.get(name)
    if held is not None and Path(getattr(held, "__file__", "") or "").resolve() != path:
        raise ValueError(
            f"--module {path}: a module named {name!r} is already imported from "
            f"{getattr(held, '__file__', 'elsewhere')}; rename the file"
        )
    if held is None:
        try:
            found = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            found = None
        if found is not None and found.origin and Path(found.origin).resolve() != path:
            raise ValueError(
                f"--module {path}: its name {name!r} would shadow the installed module at "
                f"{found.origin}; rename the file"
            )
    return name


def _pickle_by_value(module):
    """Send the module's functions to worker processes by value: they cannot import it."""
    for pickler in ("joblib.externals.cloudpickle", "cloudpickle"):
        try:
            importlib.import_module(pickler).register_pickle_by_value(module)
        except (ImportError, AttributeError):
            continue


def load_module(path):
    """Load a Python file as a module and register its module-level specs.

    The module is named after the file (``my_exp.py`` is ``my_exp``) and its
    functions are fingerprinted one by one, as the package's own experiment
    functions are, so an edited file gives new result keys. Loading the same
    unchanged file again does nothing; an edited file is executed again and
    its specs replace the old ones.

    Parameters
    ----------
    path : str or Path
        A ``.py`` file defining :class:`FigureSpec` instances at module level.

    Returns
    -------
    list of str
        Names of the experiments it defines.

    Raises
    ------
    ValueError
        When the file is missing, is not a ``.py`` file, defines no spec,
        its name is not an identifier or shadows another module, or one of
        its names is already taken.
    """
    _load()
    path = Path(path).expanduser().resolve()
    if path.suffix != ".py" or not path.is_file():
        raise ValueError(f"--module must name an existing .py file; got {path}")
    source = path.read_bytes()
    digest = hashlib.sha256(source).hexdigest()
    held = _FILES.get(path)
    if held is not None and held[0] == digest:
        return sorted(n for n, o in _ORIGIN.items() if o == f"module {held[1].__name__}")
    name = _module_name(path)
    if held is not None:  # the file was edited: its specs are replaced
        for old in [n for n, o in _ORIGIN.items() if o == f"module {name}"]:
            _forget(old)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        # the bytes just hashed, not a cached .pyc: an edit that keeps the file's size within
        # the one-second mtime a .pyc is checked against would otherwise run the old code
        exec(compile(source, str(path), "exec"), module.__dict__)
        follow_functions_in(name)
        _pickle_by_value(module)
        found = _collect(module)
    except BaseException:
        sys.modules.pop(name, None)
        _FILES.pop(path, None)
        raise
    if not found:
        raise ValueError(f"--module {path}: defines no FigureSpec at module level")
    _FILES[path] = (digest, module)
    return sorted(found)


def names():
    """Registered experiment names, sorted."""
    _load()
    return sorted(_SPECS)


def module_names():
    """Names of the experiments defined in experiment modules, sorted.

    Those of the entry points and of :func:`load_module` files; not the
    specs added at run time with :func:`register` (variants, a test's specs).
    """
    _load()
    return sorted(n for n in _SPECS if _ORIGIN.get(n, "").startswith("module "))


def papers():
    """Paper keys with their experiment names."""
    _load()
    out = {}
    for spec in _SPECS.values():
        out.setdefault(spec.paper, []).append(spec.name)
    return {k: sorted(v) for k, v in sorted(out.items())}


def paper_section(key):
    """The report section of paper ``key``, as its package defines it.

    A key whose package defines no :class:`PaperSection` gets one with the
    key as its heading and no references.

    Parameters
    ----------
    key : str
        A paper key (``FigureSpec.paper``).

    Returns
    -------
    PaperSection
    """
    _load()
    return _SECTIONS.get(key) or PaperSection(key, key, ())


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
