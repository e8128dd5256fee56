"""Every public estimator follows the house style (docs/architecture.md, "House style").

The estimators are discovered from the package's public ``__all__``; a new
one must add its kind of input to ``_inputs.KIND`` and then passes or fails
the same checks as the others.
"""

import inspect
import re
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning as SklearnConvergenceWarning
from sklearn.utils import estimator_checks as sk_checks
from sklearn.utils._param_validation import InvalidParameterError

from conventions._discovery import public_estimators
from conventions._inputs import KIND, SMALL, fit_args

ESTIMATORS = public_estimators()
IDS = [cls.__name__ for _, cls in ESTIMATORS]
# The fitted quantities a user reads; none may be NaN or inf after a fit that did not raise.
RESULT_ATTRIBUTES = (
    "labels_",
    "cluster_centers_",
    "prototypes_",
    "coef_",
    "intercept_",
    "weights_",
    "embedding_",
)


def make(cls, **params):
    return cls(**{**SMALL.get(cls.__name__, {}), **params})


def quiet_fit(est, *args):
    with warnings.catch_warnings():
        # non-convergence on these tiny inputs is expected and is not what is tested
        warnings.simplefilter("ignore", SklearnConvergenceWarning)
        return est.fit(*args)


def data_parameter(cls):
    """Name of ``fit``'s data argument (``X``, or ``image`` for the de-noiser)."""
    return list(inspect.signature(cls.fit).parameters)[1]


def fitted_results(est, args):
    out = {}
    for name in RESULT_ATTRIBUTES:
        value = getattr(est, name, None)
        if value is not None:
            out[name] = np.asarray(value)
    X = args[0]
    for method in ("predict", "predict_proba", "transform"):
        if hasattr(est, method) and KIND[type(est).__name__] not in ("image", "joint"):
            out[method] = np.asarray(getattr(est, method)(X))
    if KIND[type(est).__name__] == "image":
        out["transform"] = np.asarray(clone(est).fit_transform(*args))
    return out


def assert_finite(results, context):
    for name, value in results.items():
        if value.dtype.kind in "fc":
            assert np.all(np.isfinite(value)), f"{context}: {name} is not finite"


@pytest.mark.parametrize(("path", "cls"), ESTIMATORS, ids=IDS)
def test_every_estimator_has_a_test_input(path, cls):
    assert cls.__name__ in KIND, f"{path}: add its kind of input to tests/conventions/_inputs.py"


@pytest.mark.parametrize(("path", "cls"), ESTIMATORS, ids=IDS)
def test_parameter_constraints_cover_every_parameter(path, cls):
    params = set(inspect.signature(cls.__init__).parameters) - {"self"}
    constraints = getattr(cls, "_parameter_constraints", None)
    assert constraints is not None, f"{path} has no _parameter_constraints"
    assert set(constraints) == params, (
        f"{path}: constraints for {sorted(set(constraints) ^ params)} missing or stale"
    )


@pytest.mark.parametrize(("path", "cls"), ESTIMATORS, ids=IDS)
def test_invalid_parameter_is_named_with_the_class(path, cls, rng):
    args = fit_args(cls.__name__, rng)
    nonsense = type("Nonsense", (), {})()
    for name in inspect.signature(cls.__init__).parameters:
        if name == "self":
            continue
        with pytest.raises(InvalidParameterError, match=rf"'{name}' parameter of {cls.__name__}"):
            quiet_fit(make(cls, **{name: nonsense}), *args)


@pytest.mark.parametrize(("path", "cls"), ESTIMATORS, ids=IDS)
def test_random_state_accepts_none_int_randomstate_and_generator(path, cls, rng):
    if "random_state" not in inspect.signature(cls.__init__).parameters:
        pytest.skip("deterministic estimator")
    args = fit_args(cls.__name__, rng)
    for seed in (None, 7, np.random.RandomState(7), np.random.default_rng(7)):
        est = quiet_fit(make(cls, random_state=seed), *args)
        assert_finite(fitted_results(est, args), f"random_state={seed!r}")
    first = fitted_results(quiet_fit(make(cls, random_state=11), *args), args)
    again = fitted_results(quiet_fit(make(cls, random_state=11), *args), args)
    for name, value in first.items():
        np.testing.assert_array_equal(value, again[name], err_msg=f"{name} not reproduced")


SKLEARN_GENERIC_CHECKS = (
    sk_checks.check_no_attributes_set_in_init,
    sk_checks.check_get_params_invariance,
    sk_checks.check_set_params,
    sk_checks.check_parameters_default_constructible,
    sk_checks.check_estimator_repr,
    sk_checks.check_estimator_cloneable,
    sk_checks.check_do_not_raise_errors_in_init_or_set_params,
)


@pytest.mark.parametrize(("path", "cls"), ESTIMATORS, ids=IDS)
@pytest.mark.parametrize("check", SKLEARN_GENERIC_CHECKS, ids=lambda c: c.__name__)
def test_scikit_learn_estimator_contract(path, cls, check):
    check(cls.__name__, cls())


@pytest.mark.parametrize(
    ("path", "cls"),
    [(p, c) for p, c in ESTIMATORS if hasattr(c, "transform")],
    ids=[c.__name__ for _, c in ESTIMATORS if hasattr(c, "transform")],
)
def test_transformers_name_their_output_features(path, cls, rng):
    args = fit_args(cls.__name__, rng)
    est = quiet_fit(make(cls), *args)
    Z = np.asarray(est.transform(args[0]))
    names = est.get_feature_names_out()
    assert len(names) == Z.shape[1]
    assert len(set(names)) == len(names)
    pd = pytest.importorskip("pandas")
    frame = quiet_fit(make(cls).set_output(transform="pandas"), *args).transform(args[0])
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == list(names)


@pytest.mark.parametrize(
    ("path", "cls"),
    [(p, c) for p, c in ESTIMATORS if hasattr(c, "predict_proba")],
    ids=[c.__name__ for _, c in ESTIMATORS if hasattr(c, "predict_proba")],
)
def test_probabilities_are_distributions_consistent_with_predict(path, cls, rng):
    args = fit_args(cls.__name__, rng)
    est = quiet_fit(make(cls), *args)
    P = est.predict_proba(args[0])
    assert np.all((P >= 0) & (P <= 1))
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    if hasattr(est, "classes_"):
        agree = np.mean(est.classes_[np.argmax(P, axis=1)] == est.predict(args[0]))
        assert agree > 0.95


def _corrupt(kind, X, how):
    X = np.array(X, dtype=float)
    if how == "nan":
        X.flat[1] = np.nan
    elif how == "inf":
        X.flat[1] = np.inf
    elif how == "3d":
        X = X[..., None] if X.ndim == 2 else X[None, None]
    elif how == "empty":
        X = X[:0]
    elif how == "huge":
        X = X * 1e300
    elif how == "tiny":
        X = X * 1e-300
    elif how == "identical":
        X = np.repeat(X[:1], X.shape[0], axis=0)
    elif how == "one-sample":
        X = X[:1]
    return X


# nan/inf/3d/empty must raise; the others must work or raise, never emit NaN or a raw error.
MUST_RAISE = ("nan", "inf", "3d", "empty")
MAY_WORK = ("huge", "tiny", "identical", "one-sample")
BAD_INPUTS = MUST_RAISE + MAY_WORK


@pytest.mark.parametrize("how", BAD_INPUTS)
@pytest.mark.parametrize(("path", "cls"), ESTIMATORS, ids=IDS)
def test_bad_input_gives_a_clear_error_or_a_finite_fit(path, cls, how, rng):
    name = cls.__name__
    args = list(fit_args(name, rng))
    kind = KIND[name]
    if kind == "image" and how in ("huge", "tiny"):
        pytest.skip("a binary image has no scale")
    if kind in ("dissimilarity", "similarity") and how == "identical":
        pytest.skip("a matrix of identical rows is not a dissimilarity")
    args[0] = _corrupt(kind, args[0], how)
    if kind in ("dissimilarity", "similarity") and how == "one-sample":
        args[0] = args[0][:, :1]
    if len(args) == 2 and how in ("empty", "one-sample"):
        args[1] = args[1][: len(args[0])]
    allowed = {data_parameter(cls), "y", *inspect.signature(cls.__init__).parameters}
    try:
        est = quiet_fit(
            make(cls, **({"random_state": 0} if "random_state" in allowed else {})), *args
        )
    except (ValueError, TypeError) as exc:
        message = str(exc)
        named = any(re.search(rf"\b{re.escape(p)}\b", message) for p in allowed)
        assert named, f"message names no parameter: {message}"
        return
    assert how in MAY_WORK, f"{how} input was accepted"
    assert_finite(fitted_results(est, args), how)


@pytest.mark.parametrize(
    ("path", "cls"),
    [(p, c) for p, c in ESTIMATORS if KIND[c.__name__] == "labelled"],
    ids=[c.__name__ for _, c in ESTIMATORS if KIND[c.__name__] == "labelled"],
)
def test_one_class_is_refused_naming_y(path, cls, rng):
    X, y = fit_args(cls.__name__, rng)
    with pytest.raises(ValueError, match=r"\by\b|class"):
        quiet_fit(make(cls), X, np.zeros_like(y))
