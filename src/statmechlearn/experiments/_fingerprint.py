"""What a stored result's numbers depend on, as content hashes.

A figure's numbers come from its cell functions (``theory``,
``simulation``, ``shared``) and everything they call. Inside the
experiment modules the dependency is followed function by function (a
cell function, the module-level helpers and constants it names, and so
on), so editing a plot or a check recomputes nothing; any other package
module a cell reaches (theory, models, estimators, kernels, ``_core``) is
covered as a whole module together with the package modules it imports.
Source is hashed through its syntax tree without docstrings, so comments,
docstrings and formatting do not count and everything else does.

Third-party code is covered by the versions of the numeric libraries and
of the optional peers a figure declares.
"""

import ast
import functools
import hashlib
import importlib
import importlib.metadata
import importlib.util
import inspect
import json
import platform
import sys
import textwrap
import types

import numpy as np

__all__ = [
    "cell_code",
    "follow_functions_in",
    "library_versions",
    "module_closure",
    "peer_versions",
]

_PACKAGE = "statmechlearn"
_EXPERIMENTS = "statmechlearn.experiments"
#: Experiment modules and packages outside the engine (a paper package, a user's package listed
#: under the entry points, a file loaded by path): followed function by function, like the
#: engine's own helpers.
_USER_EXPERIMENTS = set()
#: Libraries whose versions are part of every key (they compute the numbers).
NUMERIC_LIBRARIES = ("numpy", "scipy", "numba", "scikit-learn")


def _strip_docstrings(tree):
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]
    return tree


def follow_functions_in(name):
    """Fingerprint an experiment module (and its submodules) function by function.

    Without this a cell function outside the engine would be hashed as a
    whole module (or, outside the package, not at all), and an edited user
    experiment would be served its old numbers.

    Parameters
    ----------
    name : str
        Module or package name: ``"my_exp"`` for a file ``my_exp.py``, a
        user's top-level package, or one of this package's paper packages
        (``"statmechlearn.papers.lvq"``); its submodules are included.
    """
    _USER_EXPERIMENTS.add(name)
    # a file loaded again after an edit must be read again
    for cached in (_module_source, _module_tree, _module_node, module_closure, _function_node):
        cached.cache_clear()


def _in_experiments(module):
    if module.startswith(_EXPERIMENTS):
        return True
    parts = module.split(".")
    return any(".".join(parts[:i]) in _USER_EXPERIMENTS for i in range(1, len(parts) + 1))


def _digest(text):
    return hashlib.sha256(text.encode()).hexdigest()


def _tree_digest(tree):
    return _digest(ast.dump(_strip_docstrings(tree), annotate_fields=False))


@functools.cache
def _module_source(name):
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        raise ValueError(f"cannot read the source of module {name!r}")
    with open(spec.origin, encoding="utf-8") as fh:
        return fh.read()


@functools.cache
def _module_tree(name):
    return ast.parse(_module_source(name))


def _is_module(name):
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _package_of(name):
    spec = importlib.util.find_spec(name)
    return name if spec.submodule_search_locations is not None else name.rpartition(".")[0]


def _resolve_from(module, level, base, names):
    """Package modules an ``from base import names`` statement in ``module`` depends on."""
    if level:
        package = _package_of(module)
        for _ in range(level - 1):
            package = package.rpartition(".")[0]
        base = f"{package}.{base}" if base else package
    if not base or not (base == _PACKAGE or base.startswith(_PACKAGE + ".")):
        return set()
    out = set()
    for name in names:
        if name == "*":
            out.add(base)
            continue
        full = f"{base}.{name}"
        if _is_module(full):
            out.add(full)
            continue
        obj = getattr(importlib.import_module(base), name, None)
        owner = getattr(obj, "__module__", None)
        # a name re-exported by a package __init__ depends on where it is defined
        out.add(owner if owner and owner.startswith(_PACKAGE) else base)
    return out


def _imports(tree, module):
    """Package modules imported anywhere in ``tree`` (inside functions too)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == _PACKAGE or alias.name.startswith(_PACKAGE + "."):
                    out.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            out |= _resolve_from(module, node.level, node.module, [a.name for a in node.names])
    return out


@functools.cache
def _module_node(name):
    """(digest of the module's code, package modules it imports)."""
    tree = _module_tree(name)
    return _tree_digest(tree), frozenset(_imports(tree, name))


@functools.cache
def module_closure(name):
    """Every package module ``name`` reaches through its imports, with its code digest.

    Parameters
    ----------
    name : str
        A module of the package, e.g. ``"statmechlearn.theory.outliers"``.

    Returns
    -------
    dict of str to str
        Module name -> SHA-256 of its syntax tree (docstrings removed).
    """
    out, todo = {}, [name]
    while todo:
        current = todo.pop()
        if current in out:
            continue
        digest, deps = _module_node(current)
        out[current] = digest
        todo.extend(d for d in deps if d not in out)
    return dict(sorted(out.items()))


def _value_digest(value):
    """Digest of a constant a cell function names (numbers, strings, arrays, containers)."""
    if callable(value) and not isinstance(value, np.ndarray | np.generic):
        # by name: a repr would hold a memory address (its code is visited separately)
        return _digest(f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', '')}")
    if isinstance(value, np.ndarray):
        h = hashlib.sha256(str((value.dtype.str, value.shape)).encode())
        h.update(np.ascontiguousarray(value).tobytes() if value.dtype != object else b"")
        if value.dtype == object:
            h.update(repr(value.tolist()).encode())
        return h.hexdigest()
    if isinstance(value, dict):
        return _digest(
            json.dumps({repr(k): _value_digest(v) for k, v in value.items()}, sort_keys=True)
        )
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value, key=repr) if isinstance(value, set | frozenset) else value
        return _digest(type(value).__name__ + json.dumps([_value_digest(v) for v in items]))
    return _digest(repr(value))


def _function_tree(fn):
    source = textwrap.dedent(inspect.getsource(fn))
    try:
        return ast.parse(source)
    except SyntaxError:  # a lambda cut out of a longer expression
        return ast.parse("(" + source.strip().rstrip(",") + ")")


@functools.cache
def _function_node(fn):
    """``(digest, tree)`` of a function's code, docstrings stripped: parsed once per function
    however many experiments reach it (parsing was most of the time of hashing every spec)."""
    tree = _function_tree(fn)
    return _tree_digest(tree), tree


class _CellCode:
    """Walks from the cell functions through the experiment modules, function by function."""

    def __init__(self):
        self.parts = {}

    def add_module(self, name):
        if _in_experiments(name):
            # only reached through `import module`; its registry would pull in every
            # experiment, so take the module's own code and what it imports besides
            digest, deps = _module_node(name)
            self.parts[f"module:{name}"] = digest
            for dep in deps:
                if not dep.startswith(_EXPERIMENTS):
                    self.add_module(dep)
            return
        for mod, digest in module_closure(name).items():
            self.parts[f"module:{mod}"] = digest

    def visit(self, obj, label=None):
        if isinstance(obj, functools.partial):
            self.parts[f"partial:{label or id(obj)}"] = _value_digest((obj.args, obj.keywords))
            self.visit(obj.func)
            return
        if hasattr(obj, "__wrapped__"):  # functools.lru_cache, wraps
            self.visit(obj.__wrapped__, label)
            return
        module = getattr(obj, "__module__", None) or ""
        if not (module.startswith(_PACKAGE) or _in_experiments(module)):
            return
        if not _in_experiments(module) or not isinstance(obj, types.FunctionType | type):
            self.add_module(module)
            return
        key = f"function:{module}.{obj.__qualname__}"
        if key in self.parts:
            return
        self.parts[key], tree = _function_node(obj)
        self._imports_in(tree, module)
        namespace = dict(vars(sys.modules[module]))
        if isinstance(obj, types.FunctionType):
            if obj.__closure__:
                namespace |= dict(
                    zip(
                        obj.__code__.co_freevars,
                        (c.cell_contents for c in obj.__closure__),
                        strict=True,
                    )
                )
            if obj.__defaults__:
                self.parts[key + ":defaults"] = _value_digest(obj.__defaults__)
            if obj.__kwdefaults__:
                self.parts[key + ":kwdefaults"] = _value_digest(obj.__kwdefaults__)
        for name in sorted(
            {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} & set(namespace)
        ):
            self.visit_name(module, name, namespace[name])

    def _imports_in(self, tree, module):
        """Imports inside a cell function: experiment helpers by name, the rest by module."""
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and _in_experiments(node.module or ""):
                source = importlib.import_module(node.module)
                for alias in node.names:
                    self.visit_name(node.module, alias.name, getattr(source, alias.name))
            elif isinstance(node, ast.Import | ast.ImportFrom):
                for dep in _imports(ast.Module(body=[node], type_ignores=[]), module):
                    self.add_module(dep)

    def visit_name(self, module, name, value):
        if isinstance(value, types.ModuleType):
            if value.__name__.startswith(_PACKAGE) or _in_experiments(value.__name__):
                self.add_module(value.__name__)
            return
        if callable(value) and not isinstance(value, np.ndarray | np.generic):
            self.visit(value, label=f"{module}.{name}")
            return
        owner = getattr(type(value), "__module__", "") or ""
        if owner.startswith(_PACKAGE) and not owner.startswith(_EXPERIMENTS):
            self.add_module(owner)  # an instance of a package class
        items = value.values() if isinstance(value, dict) else value
        if isinstance(items, list | tuple | type({}.values())):
            for k, item in enumerate(items):  # a dispatch table of functions
                if callable(item) and not isinstance(item, np.ndarray | np.generic):
                    self.visit(item, label=f"{module}.{name}[{k}]")
        self.parts[f"value:{module}.{name}"] = _value_digest(value)


def _source_function(module, name):
    """Digest of the top-level function ``name`` as written in ``module``'s source file."""
    for node in _module_tree(module).body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return _tree_digest(ast.Module(body=[node], type_ignores=[]))
    raise ValueError(f"{module} defines no function {name!r}")


def cell_code(functions, always=(), always_modules=()):
    """Content digests of the code that cell functions run.

    Parameters
    ----------
    functions : iterable of callable or None
        The cell functions of a figure (None entries are skipped).
    always : iterable of (module, function name)
        Functions that run every cell whatever the figure (the runner's
        cell executor and seeding), read from their source files so that a
        function replaced at run time does not change the key.
    always_modules : iterable of str
        Modules those functions use.

    Returns
    -------
    dict of str to str
        ``"function:..."``, ``"value:..."`` and ``"module:..."`` entries
        mapped to SHA-256 digests, sorted by name.
    """
    walker = _CellCode()
    for fn in functions:
        if fn is not None:
            walker.visit(fn)
    for module, name in always:
        walker.parts[f"function:{module}.{name}"] = _source_function(module, name)
    for module in always_modules:
        walker.add_module(module)
    return dict(sorted(walker.parts.items()))


@functools.lru_cache(maxsize=1)
def library_versions():
    """Python and the numeric libraries that compute the numbers.

    Returns
    -------
    dict of str to str
    """
    out = {"python": platform.python_version()}
    for dist in NUMERIC_LIBRARIES:
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[dist] = None
    return out


@functools.lru_cache(maxsize=1)
def _distributions():
    return importlib.metadata.packages_distributions()


def peer_versions(peers):
    """Which optional packages are importable, with their versions.

    Parameters
    ----------
    peers : iterable of str
        Import names (``"minisom"``, ``"skimage"``).

    Returns
    -------
    dict of str to str or None
        Version of the distribution that provides each one (``"unknown"``
        when it cannot be told), None when it cannot be imported.
    """
    out = {}
    for name in peers:
        if importlib.util.find_spec(name) is None:
            out[name] = None
            continue
        version = "unknown"
        for dist in _distributions().get(name, ()):
            try:
                version = importlib.metadata.version(dist)
                break
            except importlib.metadata.PackageNotFoundError:
                continue
        out[name] = version
    return out
