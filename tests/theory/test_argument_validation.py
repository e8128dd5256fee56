"""Every public function of the theory modules refuses nonsense arguments by name.

The functions are discovered from each module's ``__all__``; a new one fails
:func:`test_every_public_callable_has_a_valid_call` until it gets an entry in
``VALID``. Each argument is then replaced, one at a time, by NaN, inf, a
negative value, zero, a complex value and an empty value; unless that kind is
listed as meaningful for the argument, the call must raise ``ValueError`` or
``TypeError`` with the argument's name in the message.
"""

import dataclasses
import inspect
import re
import warnings

import numpy as np
import pytest

from statmechlearn.model_selection import _information
from statmechlearn.theory import annealing, lvq_dynamics, sparse_bayes

MODULES = (sparse_bayes, lvq_dynamics, annealing, _information)
KINDS = ("nan", "inf", "negative", "zero", "complex", "empty")

_R = 0.1 * np.eye(2)
_Q = 0.05 * np.eye(2)
_X = np.array([[0.0, 1.0], [1.0, 0.5], [3.0, 2.0], [4.0, 2.5]])
_P = np.array([[0.9, 0.1], [0.8, 0.2], [0.1, 0.9], [0.2, 0.8]])

# A valid call of each public callable: argument -> (value, kinds that are meaningful).
VALID = {
    "sparse_bayes.SmoothedStepActivation": {
        "kappa": (0.05, {"zero"}),
        "width": (0.5, {"zero"}),
    },
    "sparse_bayes.belief_moments": {
        "h": (np.array([-1.0, 0.5, 2.0]), {"negative", "zero"}),
        "A": (1.5, set()),
        "lam": (-1.0, {"negative", "zero", "inf"}),
    },
    "sparse_bayes.match_pruning": {
        "h": (np.linspace(-2.0, 2.0, 9), {"negative", "zero"}),
        "C": (0.3, set()),
        "weights": (np.full(9, 1.0 / 9.0), set()),
        "A0": (1.2, set()),
        "lam0": (-0.5, {"negative", "zero", "inf"}),
        "tol": (1e-12, set()),
        "max_iter": (50, {"zero"}),
    },
    "sparse_bayes.generalization_error": {
        "R": (0.1, {"negative", "zero"}),
        "Q": (0.15, set()),
        "C_t": (0.2, set()),
        "kappa": (0.05, {"zero"}),
        "width": (0.0, {"zero"}),
    },
    "sparse_bayes.gibbs_error": {
        "R": (0.1, {"negative", "zero"}),
        "C": (0.2, set()),
        "C_t": (0.2, set()),
        "kappa": (0.05, {"zero"}),
        "width": (0.0, {"zero"}),
    },
    "sparse_bayes.free_entropy": {
        "R": (0.12, {"negative", "zero"}),
        "Q": (0.125, {"zero"}),  # the boundary Q = 0: -inf
        "R_hat": (4.0, {"negative", "zero"}),
        "Q_hat": (4.0, {"zero"}),
        "F": (1.0, {"negative", "zero"}),  # only F + Q_hat > 0 is required
        "lam": (-1.39, {"negative", "zero"}),
        "alpha": (1.0, {"zero"}),
        "C": (0.2, set()),
        "C_t": (0.2, set()),
        "kappa": (0.05, {"zero"}),
        "width": (0.0, {"zero"}),
    },
    "sparse_bayes.replica": {
        "alpha": (0.5, {"zero"}),
        "C": (0.2, set()),
        "C_t": (0.2, set()),
        "kappa": (0.05, {"zero"}),
        "width": (0.0, {"zero"}),
        "tol": (1e-8, set()),
        "max_iter": (30, set()),
    },
    "sparse_bayes.state_evolution": {
        "alpha": (0.5, {"zero"}),
        "C": (0.2, set()),
        "C_t": (0.2, set()),
        "kappa": (0.05, {"zero"}),
        "n_iter": (2, {"zero"}),
        "width": (0.0, {"zero"}),
    },
    "lvq_dynamics.paper_initial_overlaps": {},
    "lvq_dynamics.order_parameter_rhs": {
        "R": (_R, {"negative", "zero"}),
        "Q": (_Q, set()),
        "a": (0.5, {"negative", "zero"}),
        "b": (0.5, {"negative", "zero"}),
        "p_plus": (0.7, set()),
        "lam": (1.0, {"zero"}),
        "eta": (0.2, set()),
        "v_plus": (1.0, set()),
        "v_minus": (1.0, set()),
    },
    "lvq_dynamics.generalization_error": {
        "R": (_R, {"negative", "zero"}),
        "Q": (_Q, set()),
        "p_plus": (0.7, set()),
        "lam": (1.0, {"zero"}),
        "v_plus": (1.0, set()),
        "v_minus": (1.0, set()),
    },
    "lvq_dynamics.learning_curve": {
        "algorithm": ("lvq1", set()),
        "alphas": (np.array([0.0, 1.0]), {"zero"}),
        "p_plus": (0.7, set()),
        "lam": (1.0, {"zero"}),
        "eta": (0.2, set()),
        "v_plus": (1.0, set()),
        "v_minus": (1.0, set()),
        "init": ((_R, _Q), {"negative", "zero"}),
        "rtol": (1e-6, set()),
        "atol": (1e-9, set()),
    },
    "lvq_dynamics.asymptotic_initial_overlaps": {"delta": (0.01, set())},
    "lvq_dynamics.asymptotic_state": {
        "algorithm": ("lvq1", set()),
        "p_plus": (0.7, set()),
        "lam": (1.2, {"zero"}),
        "v_plus": (1.0, set()),
        "v_minus": (1.0, set()),
        "init": ((0.01 * np.eye(2), 2e-4 * np.eye(2)), {"negative", "zero"}),
        "tol": (1e-10, set()),
        "max_alpha_tilde": (1e6, set()),
    },
    "lvq_dynamics.asymptotic_error": {
        "algorithm": ("lvq1", set()),
        "p_plus": (0.7, set()),
        "lam": (1.2, {"zero"}),
        "v_plus": (1.0, set()),
        "v_minus": (1.0, set()),
    },
    "lvq_dynamics.bayes_error": {
        "p_plus": (0.7, set()),
        "lam": (1.2, {"zero"}),
        "v_plus": (1.0, set()),
        "v_minus": (1.0, set()),
    },
    "lvq_dynamics.trivial_error": {"p_plus": (0.7, {"zero"})},
    "lvq_dynamics.plateau_instability": {
        "p_plus": (0.8, set()),
        "lam": (1.0, {"zero"}),
        "eta": (0.2, set()),
        "v_plus": (1.0, set()),
        "v_minus": (1.0, set()),
    },
    "annealing.critical_temperature": {
        "covariance": (np.array([[2.0, 0.5], [0.5, 1.0]]), {"zero"}),
    },
    "annealing.cluster_critical_temperatures": {
        "X": (_X, {"negative", "zero"}),
        "centers": (np.array([[0.5, 0.75], [3.5, 2.25]]), {"negative", "zero"}),
        "proba": (_P, set()),
    },
    "_information.is_typical": {
        "sequence": (np.array([0, 1, 1, 0, 1]), {"zero"}),
        "probabilities": (np.array([0.4, 0.6]), set()),
        "epsilon": (0.1, set()),
    },
    "_information.typical_set": {
        "probabilities": (np.array([0.4, 0.6]), set()),
        "n": (20, set()),
        "epsilon": (0.1, set()),
        "base": ("bits", set()),
    },
}


def _public_callables():
    out = []
    for module in MODULES:
        short = module.__name__.rsplit(".", 1)[-1]
        for name in module.__all__:
            obj = getattr(module, name)
            # result containers (frozen dataclasses) and constants take no arguments to check
            if callable(obj) and not dataclasses.is_dataclass(obj):
                out.append((f"{short}.{name}", obj))
    return out


CALLABLES = dict(_public_callables())


def _bad(value, kind):
    if isinstance(value, tuple):  # init = (R, Q): spoil R
        return () if kind == "empty" else (_bad(value[0], kind), *value[1:])
    if isinstance(value, np.ndarray):
        if kind == "empty":
            return np.array([])
        if kind == "complex":
            return value + 1j
        if kind == "negative":
            return -value
        if kind == "zero":
            return np.zeros_like(value)
        out = value.astype(float)
        out.flat[0] = np.nan if kind == "nan" else np.inf
        return out
    return {
        "nan": float("nan"),
        "inf": float("inf"),
        "negative": -abs(value) if isinstance(value, int | float) and value else -1.0,
        "zero": 0 if isinstance(value, int) and not isinstance(value, bool) else 0.0,
        "complex": (value if isinstance(value, int | float) else 1.0) + 1j,
        "empty": "" if isinstance(value, str) else [],
    }[kind]


def _call(path, kwargs):
    fn = CALLABLES[path]
    params = inspect.signature(fn).parameters
    args = [kwargs[p] for p, v in params.items() if v.kind is v.POSITIONAL_ONLY]
    rest = {k: v for k, v in kwargs.items() if params[k].kind is not params[k].POSITIONAL_ONLY}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **rest)


def test_every_public_callable_has_a_valid_call():
    assert len(CALLABLES) >= 20
    missing = sorted(set(CALLABLES) - set(VALID))
    assert not missing, f"add a valid call to VALID for {missing}"
    for path, spec in VALID.items():
        params = inspect.signature(CALLABLES[path]).parameters
        # every argument is exercised, the optional ones included
        assert set(spec) == set(params), path


@pytest.mark.parametrize("path", sorted(VALID))
def test_the_valid_call_runs(path):
    _call(path, {k: v for k, (v, _) in VALID[path].items()})


CASES = [
    (path, arg, kind)
    for path, spec in sorted(VALID.items())
    for arg, (_, accepted) in spec.items()
    for kind in KINDS
    if kind not in accepted
]


@pytest.mark.parametrize(("path", "arg", "kind"), CASES)
def test_nonsense_argument_is_refused_by_name(path, arg, kind):
    kwargs = {k: v for k, (v, _) in VALID[path].items()}
    kwargs[arg] = _bad(kwargs[arg], kind)
    with pytest.raises((ValueError, TypeError)) as info:
        _call(path, kwargs)
    assert re.search(rf"(?<![\w.]){re.escape(arg)}(?!\w)", str(info.value)), str(info.value)
