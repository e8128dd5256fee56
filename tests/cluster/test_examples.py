"""The Examples sections of the maximum-entropy clusterers and samplers run as written."""

import doctest
import importlib

import pytest

MODULES = [
    "statmechlearn.cluster._distributional",
    "statmechlearn.cluster._entropy_constrained",
    "statmechlearn.cluster._pairwise",
    "statmechlearn.cluster._parametric",
    "statmechlearn.cluster._quadratic",
    "statmechlearn.cluster._sampler",
    "statmechlearn.cluster._smooth_kmeans",
    "statmechlearn.cluster._topographic",
    "statmechlearn.inference._ising",
    "statmechlearn.model_selection._maxent",
    "statmechlearn.model_selection._select",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
