"""The packages' public names load on first use, and every one of them still loads."""

import importlib
import json
import subprocess
import sys
import textwrap

import pytest

from statmechlearn._core.lazy import attach, lazy_names

LAZY = [
    "statmechlearn.cluster",
    "statmechlearn.inference",
    "statmechlearn.linear",
    "statmechlearn.lvq",
    "statmechlearn.model_selection",
]


def _fresh(code):
    """``sys.modules`` keys after running ``code`` in a fresh interpreter."""
    probe = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(probe)], capture_output=True, text=True, check=True
    )
    return set(json.loads(done.stdout.splitlines()[-1]))


@pytest.mark.parametrize("package", LAZY)
def test_importing_a_package_imports_none_of_its_modules(package):
    loaded = _fresh(f"import {package}")
    ours = {m for m in loaded if m.startswith(package + ".")}
    assert not ours, ours
    assert "numba" not in loaded


def test_importing_one_estimator_imports_its_module_not_its_siblings():
    loaded = _fresh("from statmechlearn.lvq import VQ")
    assert "statmechlearn.lvq._vq" in loaded
    assert "statmechlearn.cluster" not in loaded
    assert "statmechlearn.linear" not in loaded


@pytest.mark.parametrize("package", LAZY)
def test_every_public_name_loads_and_is_listed(package):
    module = importlib.import_module(package)
    lazy = lazy_names(module.__file__)
    assert set(lazy) == set(module.__all__)
    assert set(module.__all__) <= set(dir(module))
    for name in module.__all__:
        value = getattr(module, name)
        assert value is not None
        # stored once loaded: the next access does not go through __getattr__
        assert name in vars(module)


def test_unknown_names_raise_attribute_error_and_submodules_load():
    import statmechlearn
    import statmechlearn.lvq

    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        statmechlearn.lvq.no_such_name  # noqa: B018
    assert not hasattr(statmechlearn.lvq, "__wrapped__")
    assert statmechlearn.lvq._vq.VQ is statmechlearn.lvq.VQ
    assert statmechlearn.lvq is importlib.import_module("statmechlearn.lvq")
    assert statmechlearn.cluster.__name__ == "statmechlearn.cluster"
    assert "cluster" in dir(statmechlearn)
    with pytest.raises(AttributeError):
        statmechlearn.no_such_package  # noqa: B018


def test_star_import_gives_every_public_name():
    namespace = {}
    exec("from statmechlearn.lvq import *", namespace)
    import statmechlearn.lvq

    assert set(statmechlearn.lvq.__all__) <= set(namespace)


def test_only_imports_may_stand_under_type_checking(tmp_path):
    init = tmp_path / "__init__.py"
    init.write_text("if TYPE_CHECKING:\n    x = 1\n")
    with pytest.raises(TypeError, match="TYPE_CHECKING"):
        lazy_names(init)
    init.write_text(
        "import typing\nif typing.TYPE_CHECKING:\n    from os import path as p, sep\n"
        "    from pkg import sub\n"
    )
    assert lazy_names(init) == {"p": ("os", "path"), "sep": ("os", "sep"), "sub": ("pkg", "sub")}


def test_attach_loads_a_submodule_named_under_type_checking(tmp_path, monkeypatch):
    package = tmp_path / "lazypkg"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "from statmechlearn._core.lazy import attach\n"
        "if TYPE_CHECKING:\n    from lazypkg import sub\n    from lazypkg.sub import VALUE\n"
        "__all__ = ['VALUE', 'sub']\n"
        "__getattr__, __dir__ = attach(__name__, __file__)\n"
    )
    (package / "sub.py").write_text("VALUE = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    lazypkg = importlib.import_module("lazypkg")
    try:
        assert "lazypkg.sub" not in sys.modules
        assert lazypkg.VALUE == 42
        assert lazypkg.sub.VALUE == 42
        getattr_, dir_ = attach("lazypkg", package / "__init__.py")
        assert {"VALUE", "sub"} <= set(dir_())
        with pytest.raises(AttributeError):
            getattr_("missing")
    finally:
        for name in ("lazypkg", "lazypkg.sub"):
            sys.modules.pop(name, None)
