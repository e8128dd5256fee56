"""The layering of docs/architecture.md and the module conventions, as tests.

The import contracts live in pyproject.toml (``[tool.importlinter]``) and run
here through import-linter; the rest are static checks over the source tree.
"""

import ast
import pathlib

import pytest

SRC = pathlib.Path(__file__).resolve().parents[2] / "src" / "statmechlearn"
MODULES = sorted(p for p in SRC.rglob("*.py") if "__pycache__" not in p.parts)


def _module_name(path):
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path):
    """(line, imported module) of every absolute import of statmechlearn in ``path``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith("statmechlearn"):
                yield node.lineno, node.module
                for alias in node.names:
                    yield node.lineno, f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("statmechlearn"):
                    yield node.lineno, alias.name


def test_import_contracts_hold():
    importlinter = pytest.importorskip("importlinter")
    from importlinter.application.use_cases import lint_imports
    from importlinter.configuration import configure

    del importlinter
    configure()
    config = str(SRC.parents[1] / "pyproject.toml")
    kept = lint_imports(config_filename=config, cache_dir=None, no_logo=True)
    assert kept, "import-linter contracts broken: run `lint-imports` for the chains"


def _package(module):
    # each paper is a package of its own: statmechlearn.papers.<key>
    parts = module.split(".")
    if len(parts) > 2 and parts[1] == "papers":
        return ".".join(parts[1:3])
    return parts[1] if len(parts) > 1 else ""


def _cycles(edges):
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def _import_graph():
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("statmechlearn", include_external_packages=False)
    edges = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    return graph, edges


def test_the_cycle_finder_finds_a_cycle():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert _cycles(edges) == [["a", "b", "c"]]


def test_no_import_circle_anywhere_in_the_package():
    # every import counts, those inside functions too: a circle closed by a deferred import
    # is still a circle a reader must hold in mind (the registry and variants had one)
    graph, edges = _import_graph()
    circles = _cycles(edges)
    chains = []
    for members in circles:
        first, second = members[0], members[1]
        there = graph.find_shortest_chain(importer=first, imported=second) or ()
        back = graph.find_shortest_chain(importer=second, imported=first) or ()
        chains.append(" -> ".join([*there, *back[1:]]))
    assert not circles, "import circles:\n" + "\n".join(chains)


def test_no_private_module_of_another_package_is_imported():
    # _core is the shared private base every layer builds on; anything else private
    # stays inside its package, and other packages use its public names
    offences = []
    for path in MODULES:
        here = _module_name(path)
        for line, target in _imports(path):
            parts = target.split(".")
            if len(parts) < 3 or _package(target) in (_package(here), "_core"):
                continue
            if any(part.startswith("_") for part in parts[2:]) and not parts[-1].startswith("__"):
                offences.append(f"{path.relative_to(SRC.parent)}:{line} imports {target}")
    # statmechlearn.exceptions is the public face of _core.exceptions
    assert not offences, "\n".join(offences)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_every_module_declares_its_public_names(path):
    tree = ast.parse(path.read_text())
    if path.name in ("__main__.py", "_version.py"):
        pytest.skip("entry point")
    names = {
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    assert "__all__" in names, f"{path.relative_to(SRC)} has no __all__"


def test_convergence_warnings_are_the_public_ones():
    # users filter statmechlearn.exceptions.ConvergenceWarning (a subclass of
    # scikit-learn's); warning with scikit-learn's own class would escape that filter
    offences = []
    for path in MODULES:
        if path.parts[-2:] == ("_core", "exceptions.py"):
            continue
        text = path.read_text()
        if "sklearn.exceptions import ConvergenceWarning" in text:
            offences.append(str(path.relative_to(SRC)))
    assert not offences, offences


def test_public_exceptions_module():
    import warnings

    from sklearn.exceptions import ConvergenceWarning as SklearnConvergenceWarning

    from statmechlearn import exceptions

    assert issubclass(exceptions.ConvergenceWarning, SklearnConvergenceWarning)
    assert issubclass(exceptions.ConvergenceError, RuntimeError)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("ignore", SklearnConvergenceWarning)
        warnings.warn("x", exceptions.ConvergenceWarning, stacklevel=1)
    assert not caught
