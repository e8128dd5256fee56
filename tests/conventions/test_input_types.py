"""Every public estimator takes the input types a scikit-learn user hands its peers.

The sweep covers feature names (kept through every inner fit), sparse matrices,
``sample_weight``, float32 and multiclass targets. An estimator whose input domain
forbids one of them is listed below with the reason; the lists run strictly, so an
estimator that starts to take an input must leave its list.
"""

import inspect
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import ClassifierMixin, clone
from sklearn.exceptions import ConvergenceWarning as SklearnConvergenceWarning
from sklearn.metrics import adjusted_rand_score
from sklearn.preprocessing import StandardScaler

from conventions._discovery import public_estimators
from conventions._inputs import KIND, SMALL, fit_args

ESTIMATORS = public_estimators()
IDS = [cls.__name__ for _, cls in ESTIMATORS]
_IMAGE = "takes one binary image, not a table of samples"

#: estimator -> why it takes no scipy.sparse input
NO_SPARSE = {
    "IsingDenoiser": _IMAGE,
}
#: estimator -> why its ``fit`` has no ``sample_weight``
NO_SAMPLE_WEIGHT = {
    "IsingDenoiser": _IMAGE,
    "ConstantShiftEmbedding": (
        "the shift would pull the copies of a repeated object apart: a weight has no "
        "repeated-row meaning for an embedding (as for MDS and Isomap)"
    ),
    "InformationBottleneck": (
        "X is the joint distribution p(x, y) itself: a row's weight is its mass"
    ),
}
#: estimator -> why integer sample weights are not the same fit as repeated rows
_ONLINE = (
    "on-line rule: a weight scales the sample's step, which equals repeating the row to "
    "first order in the learning rate only (as for scikit-learn's SGDClassifier)"
)
WEIGHTS_NOT_REPEATS = {
    "KohonenSOM": _ONLINE,
    "GLVQ": _ONLINE,
    "LVQ1": _ONLINE,
    "LVQ21": _ONLINE,
    "LVQPlus": _ONLINE,
    "VQ": _ONLINE,
}
#: estimator -> why float32 input gives float64 results
NO_FLOAT32 = {
    "IsingDenoiser": _IMAGE,
}

# The fitted float arrays and method outputs whose dtype follows the input's.
FLOAT_ATTRIBUTES = ("cluster_centers_", "prototypes_", "coef_", "intercept_", "embedding_")
FLOAT_METHODS = ("transform", "decision_function", "predict_proba")
PREDICTING = ("predict", "predict_proba", "decision_function", "transform", "score_samples")


def make(cls, **params):
    params = {**SMALL.get(cls.__name__, {}), **params}
    if "random_state" in inspect.signature(cls.__init__).parameters:
        params.setdefault("random_state", 0)
    return cls(**params)


def fit(est, *args, **kwargs):
    with warnings.catch_warnings():
        # non-convergence on these tiny inputs is expected and is not what is tested
        warnings.simplefilter("ignore", SklearnConvergenceWarning)
        return est.fit(*args, **kwargs)


def tabular(names):
    return [(p, c) for p, c in ESTIMATORS if KIND[c.__name__] != "image" and p in names]


ALL = [p for p, _ in ESTIMATORS]
TABLES = tabular(ALL)


def _outputs(est, X):
    """What a fit produced for ``X``: its labels or predictions, as a partition or values."""
    if hasattr(est, "predict") and KIND[type(est).__name__] not in ("joint",):
        return np.asarray(est.predict(X))
    if hasattr(est, "labels_"):
        return np.asarray(est.labels_)
    return np.abs(np.asarray(est.embedding_))  # an embedding, up to the signs of its axes


@pytest.mark.parametrize(("path", "cls"), TABLES, ids=[c.__name__ for _, c in TABLES])
def test_reordered_dataframe_columns_are_refused(path, cls, rng):
    pd = pytest.importorskip("pandas")
    args = fit_args(cls.__name__, rng)
    X = np.asarray(args[0])
    columns = [f"f{j}" for j in range(X.shape[1])]
    frame = pd.DataFrame(X, columns=columns)
    est = fit(make(cls), frame, *args[1:])
    np.testing.assert_array_equal(est.feature_names_in_, columns)
    methods = [m for m in PREDICTING if hasattr(est, m)]
    for method in methods:
        getattr(est, method)(frame)  # the same names, in order: no warning, no error
        with pytest.raises(ValueError, match=r"[Ff]eature names"):
            getattr(est, method)(frame[columns[::-1]])
    # an estimator that refits something inside (a search, a refit) names its features too
    for attribute in ("best_estimator_", "estimator_", "estimators_"):
        inner = getattr(est, attribute, None)
        for sub in inner if isinstance(inner, list) else [inner]:
            if sub is not None and hasattr(sub, "feature_names_in_"):
                assert list(sub.feature_names_in_) == columns


SPARSE = tabular([p for p, c in ESTIMATORS if c.__name__ not in NO_SPARSE])


@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize(("path", "cls"), SPARSE, ids=[c.__name__ for _, c in SPARSE])
def test_sparse_input_gives_the_dense_fit(path, cls, fmt, rng):
    args = fit_args(cls.__name__, rng)
    X = np.asarray(args[0])
    if KIND[cls.__name__] == "dissimilarity":
        # a sparse square matrix is a neighbour graph whose missing pairs are completed by
        # path lengths: a full graph of distances (triangle inequality) is its own completion
        X = np.sqrt(X)
    dense = fit(make(cls), X, *args[1:])
    sparse = fit(make(cls), sp.csr_matrix(X).asformat(fmt), *args[1:])
    a, b = _outputs(dense, X), _outputs(sparse, sp.csr_matrix(X).asformat(fmt))
    if a.dtype.kind == "f":
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)
    else:
        same = np.array_equal(a, b) if isinstance(dense, ClassifierMixin) else None
        assert same if same is not None else adjusted_rand_score(a, b) == 1.0


@pytest.mark.parametrize(("path", "cls"), ESTIMATORS, ids=IDS)
def test_sparse_input_is_taken_or_refused_with_reason(path, cls):
    tagged = cls().__sklearn_tags__().input_tags.sparse
    if cls.__name__ in NO_SPARSE:
        assert not tagged, f"{cls.__name__} is listed in NO_SPARSE but its tags take sparse input"
    else:
        assert tagged, f"{cls.__name__}: its input_tags.sparse is False"


WEIGHTED = tabular([p for p, c in ESTIMATORS if c.__name__ not in NO_SAMPLE_WEIGHT])


@pytest.mark.parametrize(("path", "cls"), ESTIMATORS, ids=IDS)
def test_sample_weight_is_taken_or_its_absence_is_listed(path, cls):
    takes = "sample_weight" in inspect.signature(cls.fit).parameters
    assert takes != (cls.__name__ in NO_SAMPLE_WEIGHT), cls.__name__


def _repeat(name, args, counts):
    """``args`` with row i repeated ``counts[i]`` times (rows and columns of a square matrix)."""
    X = np.asarray(args[0])
    idx = np.repeat(np.arange(len(counts)), counts)
    Xr = X[np.ix_(idx, idx)] if KIND[name] in ("dissimilarity", "similarity") else X[idx]
    return (Xr, *(a[idx] for a in args[1:])), idx


@pytest.mark.parametrize(("path", "cls"), WEIGHTED, ids=[c.__name__ for _, c in WEIGHTED])
def test_unit_weights_change_nothing_and_bad_weights_are_named(path, cls, rng):
    args = fit_args(cls.__name__, rng)
    X = args[0]
    n = np.asarray(X).shape[0]
    plain = fit(make(cls), *args)
    ones = fit(make(cls), *args, sample_weight=np.ones(n))
    np.testing.assert_array_equal(_outputs(plain, X), _outputs(ones, X))
    with pytest.raises(ValueError, match="sample_weight"):
        fit(make(cls), *args, sample_weight=-np.ones(n))
    with pytest.raises(ValueError, match="sample_weight"):
        fit(make(cls), *args, sample_weight=np.ones(n + 1))


@pytest.mark.parametrize(
    ("path", "cls"),
    [(p, c) for p, c in WEIGHTED if c.__name__ not in WEIGHTS_NOT_REPEATS],
    ids=[c.__name__ for p, c in WEIGHTED if c.__name__ not in WEIGHTS_NOT_REPEATS],
)
def test_integer_weights_are_repeated_rows(path, cls, rng):
    name = cls.__name__
    args = fit_args(name, rng)
    X = np.asarray(args[0])
    n = X.shape[0]
    counts = rng.integers(1, 4, size=n)
    repeated, idx = _repeat(name, args, counts)
    weighted = fit(make(cls), *args, sample_weight=counts.astype(float))
    copies = fit(make(cls), *repeated)
    if KIND[name] in ("dissimilarity", "similarity"):
        a = np.asarray(weighted.labels_)[idx]
        b = np.asarray(copies.labels_)
    else:
        a, b = _outputs(weighted, X)[idx], _outputs(copies, X[idx])
    if isinstance(weighted, ClassifierMixin):
        assert np.mean(a == b) >= 0.95
    else:
        assert adjusted_rand_score(a, b) == 1.0


FLOAT32 = tabular([p for p, c in ESTIMATORS if c.__name__ not in NO_FLOAT32])


@pytest.mark.parametrize(("path", "cls"), FLOAT32, ids=[c.__name__ for _, c in FLOAT32])
def test_float32_input_gives_float32_results(path, cls, rng):
    args = fit_args(cls.__name__, rng)
    X = np.asarray(args[0])
    X32 = X.astype(np.float32)
    est = fit(make(cls), X32, *args[1:])
    ref = fit(make(cls), X32.astype(np.float64), *args[1:])
    seen = 0
    for name in FLOAT_ATTRIBUTES:
        value = getattr(est, name, None)
        if isinstance(value, np.ndarray) and value.dtype.kind == "f":
            assert value.dtype == np.float32, f"{name} is {value.dtype}"
            np.testing.assert_allclose(value, getattr(ref, name), rtol=1e-3, atol=1e-4)
            seen += 1
    if KIND[cls.__name__] != "joint":
        for method in FLOAT_METHODS:
            if hasattr(est, method):
                out = np.asarray(getattr(est, method)(X32))
                assert out.dtype == np.float32, f"{method} returns {out.dtype}"
                seen += 1
    a, b = _outputs(est, X32), _outputs(ref, X32.astype(np.float64))
    if a.dtype.kind == "f":
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-4)
    else:
        np.testing.assert_array_equal(a, b)
    if seen == 0:
        assert hasattr(est, "labels_")  # a clusterer whose only result is its partition


CLASSIFIERS = [(p, c) for p, c in ESTIMATORS if issubclass(c, ClassifierMixin)]


@pytest.mark.parametrize(("path", "cls"), CLASSIFIERS, ids=[c.__name__ for _, c in CLASSIFIERS])
def test_classifiers_take_three_classes(path, cls):
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)  # as a user would for a linear model
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    est = fit(make(cls), X, names)
    np.testing.assert_array_equal(est.classes_, np.unique(names))
    assert np.mean(est.predict(X) == names) > 0.7
    if hasattr(est, "predict_proba"):
        P = est.predict_proba(X)
        assert P.shape == (len(X), 3)
        np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(est.classes_[P.argmax(axis=1)], est.predict(X))
    if hasattr(est, "decision_function"):
        assert est.decision_function(X).shape == (len(X), 3)
    clone(est)


def test_the_users_page_lists_every_estimator_as_the_sweep_finds_it():
    from pathlib import Path

    page = (Path(__file__).parents[2] / "docs" / "on_your_data.md").read_text()
    rows = {
        cells[0].strip("` "): [c.strip() for c in cells[1:]]
        for line in page.splitlines()
        if line.startswith("| `")
        for cells in [line.strip("|").split("|")]
    }
    assert set(rows) == set(IDS)
    for _, cls in ESTIMATORS:
        name = cls.__name__
        sparse, weight, float32, classes, verbose = rows[name]
        assert (sparse == "no") == (name in NO_SPARSE), name
        assert (weight == "no") == (name in NO_SAMPLE_WEIGHT), name
        assert (weight == "scales the step") == (name in WEIGHTS_NOT_REPEATS), name
        assert (float32 == "no") == (name in NO_FLOAT32), name
        assert (classes == "any number") == issubclass(cls, ClassifierMixin), name
        takes = "verbose" in inspect.signature(cls.__init__).parameters
        assert (verbose == "yes") == takes, name
