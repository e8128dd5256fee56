"""Extreme, degenerate and malformed inputs for every estimator of lvq, linear and inference.

The estimators are discovered from the packages' ``__all__``. Each input
either works, with finite output, or raises ``ValueError``/``TypeError``
whose message names a parameter (``X``, ``y``, ``image`` or one of the
class's own) as a word; never NaN output, never a raw ``LinAlgError``,
``IndexError``, ``FloatingPointError`` or ``ZeroDivisionError``.
"""

import inspect
import re
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

import statmechlearn.inference as inference
import statmechlearn.linear as linear
import statmechlearn.lvq as lvq

ESTIMATORS = sorted(
    {
        obj
        for package in (lvq, linear, inference)
        for obj in (getattr(package, name) for name in package.__all__)
        if inspect.isclass(obj) and issubclass(obj, BaseEstimator)
    },
    key=lambda cls: cls.__name__,
)
# Parameters that keep the fits small; the sweep fails for a new estimator only if
# its defaults are slow, not because it is missing here.
FAST = {"SparseBayesClassifierCV": {"Cs": (0.2, 0.5), "kappas": (0.1,)}}
# documented as infinite: the prior precision of a pruned feature
NON_FINITE_ALLOWED = {"alpha_"}
MUST_RAISE = ("nan", "inf", "3d", "1d", "empty", "one-class")
MAY_WORK = ("huge", "tiny", "identical", "few-samples", "one-feature")


def _takes_image(cls):
    return "image" in inspect.signature(cls.fit).parameters


def _data(cls, how):
    rng = np.random.default_rng(0)
    if _takes_image(cls):
        X = np.zeros((12, 12), dtype=float)
        X[3:9, 3:9] = 1.0
        X = np.abs(X - (rng.random(X.shape) < 0.1))
    else:
        y = np.repeat([0, 1], 20)
        X = np.where(y[:, None] == 1, 2.0, -2.0) + rng.standard_normal((40, 4))
    if how == "nan":
        X[1, 1] = np.nan
    elif how == "inf":
        X[1, 1] = np.inf
    elif how == "3d":
        X = X[..., None]
    elif how == "1d":
        X = X[:, 0]
    elif how == "empty":
        X = X[:0]
    elif how == "huge":
        X = X * 1e300
    elif how == "tiny":
        X = X * 1e-300
    elif how == "identical":
        X = np.repeat(X[:1], X.shape[0], axis=0)
    elif how == "few-samples":
        X = X[[0, 1, -1]]
    elif how == "one-feature":
        X = X[:, :1]
    if _takes_image(cls):
        return (X,)
    y = np.repeat([0, 1], 20)
    if how == "few-samples":
        y = y[[0, 1, -1]]
    elif how == "empty":
        y = y[:0]
    elif how == "one-class":
        y = np.zeros_like(y)
    return (X, y)


def _params(cls, how):
    sig = inspect.signature(cls.__init__).parameters
    params = dict(FAST.get(cls.__name__, {}))
    if "random_state" in sig:
        params["random_state"] = 0
    if how == "few-samples":  # more prototypes than samples
        if "n_prototypes_per_class" in sig:
            params["n_prototypes_per_class"] = 3
        if "n_prototypes" in sig:
            params["n_prototypes"] = 5
    return params


def _outputs(est, X):
    out = {}
    for method in ("predict", "decision_function", "predict_proba", "transform"):
        if hasattr(est, method):
            out[method] = np.asarray(getattr(est, method)(X))
    for name, value in vars(est).items():
        if name.endswith("_") and not name.startswith("_"):
            value = np.asarray(value) if isinstance(value, float | np.ndarray) else None
            if value is not None and value.dtype.kind == "f" and name not in NON_FINITE_ALLOWED:
                out[name] = value
    return out


def _names_a_parameter(cls, message):
    names = {"X", "y", "image", *inspect.signature(cls.__init__).parameters} - {"self"}
    return any(re.search(rf"(?<![\w.]){re.escape(n)}(?!\w)", message) for n in names)


def _fit(est, args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence on degenerate data is not the point
        return est.fit(*args)


@pytest.mark.parametrize("how", MUST_RAISE + MAY_WORK)
@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_bad_input_works_or_is_refused_naming_a_parameter(cls, how):
    if how == "one-class" and not issubclass(cls, ClassifierMixin):
        pytest.skip("no classes")
    args = _data(cls, how)
    try:
        est = _fit(cls(**_params(cls, how)), args)
    except (ValueError, TypeError) as exc:
        assert _names_a_parameter(cls, str(exc)), f"names no parameter: {exc}"
        return
    assert how in MAY_WORK, f"{how} input was accepted"
    for name, value in _outputs(est, args[0]).items():
        assert np.all(np.isfinite(value)), f"{name} is not finite"


@pytest.mark.parametrize("how", ["huge", "tiny", "nan", "3d", "one-feature"])
@pytest.mark.parametrize(
    "cls", [c for c in ESTIMATORS if not _takes_image(c)], ids=lambda c: c.__name__
)
def test_prediction_on_bad_input_is_finite_or_refused(cls, how):
    est = _fit(cls(**_params(cls, "normal")), _data(cls, "normal"))
    X = _data(cls, how)[0]
    for method in ("predict", "decision_function", "predict_proba", "transform"):
        if not hasattr(est, method):
            continue
        try:
            out = np.asarray(getattr(est, method)(X))
        except (ValueError, TypeError) as exc:
            assert _names_a_parameter(cls, str(exc)), f"{method}: names no parameter: {exc}"
            continue
        assert how in MAY_WORK, f"{method} accepted {how} input"
        assert np.all(np.isfinite(out)), f"{method} is not finite"


def test_the_sweep_finds_every_estimator():
    names = {cls.__name__ for cls in ESTIMATORS}
    assert {"LVQ1", "VQ", "OutlierRobustClassifier", "SparseBayesClassifier", "IsingDenoiser"} <= (
        names
    )
