"""Every public estimator's docstring ends with an Examples section that runs as a doctest.

The estimators are discovered with :func:`conventions._discovery.public_estimators`
(every ``BaseEstimator`` in a public ``__all__``), so a new estimator fails
:func:`test_estimator_docstring_has_examples` until it gets an example. The main
entry-point functions are held to the same rule (``ENTRY_POINTS``); every other
public function's Examples section, where it has one, runs too.

Each docstring runs on its own fresh namespace, as a reader would paste it: an
example imports what it uses. Any warning is an error, so an example that does
not converge or divides by zero fails here instead of teaching users to ignore it.
"""

import doctest
import inspect
import re
import warnings

import pytest

from conventions._discovery import public_estimators, public_functions

#: functions a reader starts from, which must show how to call them
ENTRY_POINTS = frozenset(
    {
        "statmechlearn.inference.mean_field",
        "statmechlearn.inference.sample_assignments",
        "statmechlearn.inference.simulated_annealing",
        "statmechlearn.inference.structured_mean_field",
        "statmechlearn.inference.metropolis_hastings",
        "statmechlearn.model_selection.gap_statistic",
        "statmechlearn.model_selection.posterior_agreement",
        "statmechlearn.model_selection.select_n_clusters",
    }
)

ESTIMATORS = public_estimators()
FUNCTIONS = public_functions()
_FUNCTION_PATHS = {path for path, _ in FUNCTIONS}

_SECTION = re.compile(r"^[ \t]*(\S[^\n]*)\n[ \t]*(-{3,})[ \t]*$", re.MULTILINE)
OPTIONS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


def _sections(doc):
    """numpydoc section titles of ``doc``, in order (a title line underlined by dashes)."""
    return [m.group(1).strip() for m in _SECTION.finditer(doc or "")]


def _has_examples(doc):
    return "Examples" in _sections(doc)


def _examples_problems(doc):
    """What is wrong with the Examples section of ``doc`` (empty when nothing is)."""
    titles = list(_SECTION.finditer(doc or ""))
    examples = [m for m in titles if m.group(1).strip() == "Examples"]
    if not examples:
        return ["no Examples section"]
    problems = []
    if titles[-1] is not examples[-1]:
        problems.append(f"Examples is not the last section (then: {titles[-1].group(1).strip()!r})")
    if not re.search(r"^[ \t]*>>> ", doc[examples[-1].end() :], re.MULTILINE):
        problems.append("the Examples section has no '>>>' line")
    return problems


def _run_doctests(path, obj):
    """Run the examples of ``obj``'s docstring (and its own methods'); return the failure report."""
    finder = doctest.DocTestFinder()
    tests = [
        t for t in finder.find(obj, path, module=inspect.getmodule(obj), globs={}) if t.examples
    ]
    assert tests, f"{path}: no doctest found"
    report = []
    attempted = 0
    for test in tests:
        runner = doctest.DocTestRunner(optionflags=OPTIONS)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            result = runner.run(test, out=report.append, clear_globs=True)
        attempted += result.attempted
    return attempted, "".join(report)


def _params(items):
    return [pytest.param(path, obj, id=path) for path, obj in items]


#: whose docstrings must have examples: every estimator and entry point
REQUIRED = ESTIMATORS + [(path, obj) for path, obj in FUNCTIONS if path in ENTRY_POINTS]
#: whose examples run: those, and every other public function that has some
RUNNABLE = ESTIMATORS + [
    (path, obj) for path, obj in FUNCTIONS if path in ENTRY_POINTS or _has_examples(obj.__doc__)
]


def test_the_discovery_finds_the_estimators_and_entry_points():
    # guards against a discovery that silently finds nothing (every test below would pass)
    names = {path.rsplit(".", 1)[1] for path, _ in ESTIMATORS}
    assert {"DeterministicAnnealing", "LVQ1", "VQ", "IsingDenoiser", "RVMClassifier"} <= names
    assert ENTRY_POINTS <= _FUNCTION_PATHS, sorted(ENTRY_POINTS - _FUNCTION_PATHS)


@pytest.mark.parametrize(("path", "obj"), _params(REQUIRED))
def test_estimator_docstring_has_examples(path, obj):
    problems = _examples_problems(obj.__doc__)
    assert not problems, f"{path}: " + "; ".join(problems)


@pytest.mark.parametrize(("path", "obj"), _params(RUNNABLE))
def test_docstring_examples_run(path, obj):
    attempted, report = _run_doctests(path, obj)
    assert attempted > 0
    assert not report, f"{path}: its Examples do not run as written\n{report}"


def test_a_missing_or_failing_example_is_caught():
    # the checks above can fail: a docstring without examples, and one whose output is wrong
    assert _examples_problems("Summary.\n\n    Parameters\n    ----------\n    x : int\n")
    no_code = "Summary.\n\n    Examples\n    --------\n    Prose only.\n"
    assert _examples_problems(no_code) == ["the Examples section has no '>>>' line"]
    not_last = "Summary.\n\n    Examples\n    --------\n    >>> 1\n    1\n\n    Notes\n    -----\n"
    assert _examples_problems(not_last) == ["Examples is not the last section (then: 'Notes')"]

    def wrong():
        """Summary.

        Examples
        --------
        >>> 1 + 1
        3
        """

    def warns():
        """Summary.

        Examples
        --------
        >>> import warnings
        >>> warnings.warn("not converged", RuntimeWarning)
        """

    assert not _examples_problems(wrong.__doc__)
    for bad in (wrong, warns):
        attempted, report = _run_doctests(bad.__name__, bad)
        assert attempted > 0 and "Failed example" in report
