"""House conventions, for every estimator that ``statmechlearn.cluster`` exports.

The estimators are discovered from ``__all__``; each needs an entry in
``INPUTS`` (how to build a small valid input for it), so a new estimator
fails here until it is described, instead of being silently skipped.
"""

import inspect
import re
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, TransformerMixin

import statmechlearn.cluster as cluster
from statmechlearn.cluster._checks import MAX_ABS, MIN_SPREAD

ESTIMATORS = sorted(
    (
        getattr(cluster, name)
        for name in cluster.__all__
        if inspect.isclass(getattr(cluster, name))
        and issubclass(getattr(cluster, name), BaseEstimator)
    ),
    key=lambda cls: cls.__name__,
)
TRANSFORMERS = [cls for cls in ESTIMATORS if issubclass(cls, TransformerMixin)]

_rng = np.random.default_rng(0)
_POINTS = np.vstack([_rng.normal(0.0, 1.0, (10, 2)), _rng.normal(5.0, 1.0, (10, 2))])
_SQ = ((_POINTS[:, None, :] - _POINTS[None, :, :]) ** 2).sum(axis=-1)
_SIM = 2.0 * np.exp(-_SQ / 4.0) - 1.0
np.fill_diagonal(_SIM, 0.0)
_COUNTS = _rng.integers(1, 20, (20, 6)).astype(float)
_DATA = {"points": _POINTS, "dissimilarities": _SQ, "similarities": _SIM, "counts": _COUNTS}

# class name -> (kind of input, small fast parameters with three clusters, the
# parameter that sets the number of clusters)
INPUTS = {
    "ConstantShiftEmbedding": ("dissimilarities", {"n_components": 3}, "n_components"),
    "CorrelationClustering": ("similarities", {"n_clusters": 3}, "n_clusters"),
    "DeterministicAnnealing": ("points", {"n_clusters": 3}, "n_clusters"),
    "EntropyConstrainedClustering": ("points", {"max_clusters": 3}, "max_clusters"),
    "EqualWidthMixture": ("points", {"n_components": 3}, "n_components"),
    "GibbsSamplerClustering": ("points", {"n_clusters": 3, "n_sweeps": 20}, "n_clusters"),
    "KohonenSOM": ("points", {"grid_shape": (3,), "max_iter": 2}, "grid_shape"),
    "HistogramClustering": ("counts", {"n_clusters": 3}, "n_clusters"),
    "InformationBottleneck": ("counts", {"n_clusters": 3}, "n_clusters"),
    "LeastAngleClustering": ("points", {"n_clusters": 3}, "n_clusters"),
    "PairwiseClustering": ("dissimilarities", {"n_clusters": 3}, "n_clusters"),
    "ParametricDistributionalClustering": (
        "counts",
        {"n_clusters": 3, "n_prototypes": 3},
        "n_clusters",
    ),
    "SmoothKMeans": ("points", {"n_clusters": 3}, "n_clusters"),
    "TopologicalVQ": ("points", {"grid_shape": (3,)}, "grid_shape"),
}
# Fitted attributes that may legitimately be non-finite: R-hat is NaN when every
# draw is the same (no variance to compare).
NON_FINITE_ALLOWED = {"r_hat_"}
SQUARED_DISTANCE = [
    "DeterministicAnnealing",
    "EntropyConstrainedClustering",
    "EqualWidthMixture",
    "GibbsSamplerClustering",
    "SmoothKMeans",
    "TopologicalVQ",
]


def _make(cls, **params):
    kind, base, _ = INPUTS[cls.__name__]
    est = cls(**{**base, **params})
    return est, _DATA[kind]


def _fit(est, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X)


def _fitted(est):
    return {k: v for k, v in vars(est).items() if k.endswith("_") and not k.startswith("_")}


def test_every_exported_estimator_is_described():
    assert {cls.__name__ for cls in ESTIMATORS} == set(INPUTS)


RANDOM = [cls for cls in ESTIMATORS if "random_state" in cls().get_params()]


@pytest.mark.parametrize("cls", RANDOM, ids=lambda c: c.__name__)
@pytest.mark.parametrize(
    "random_state",
    [None, 3, np.random.RandomState(3), np.random.default_rng(3)],
    ids=["None", "int", "RandomState", "Generator"],
)
def test_random_state_accepts_every_kind(cls, random_state):
    est, X = _make(cls, random_state=random_state)
    assert hasattr(_fit(est, X), "labels_")


@pytest.mark.parametrize("cls", RANDOM, ids=lambda c: c.__name__)
def test_int_random_state_reproduces(cls):
    first, X = _make(cls, random_state=11)
    second, _ = _make(cls, random_state=11)
    a, b = _fitted(_fit(first, X)), _fitted(_fit(second, X))
    np.testing.assert_array_equal(a["labels_"], b["labels_"])
    for name, value in a.items():
        if isinstance(value, np.ndarray) and value.dtype.kind in "fi":
            np.testing.assert_array_equal(value, b[name], err_msg=name)


def _case(cls, case):
    kind, _, _ = INPUTS[cls.__name__]
    A = _DATA[kind]
    square = kind in ("dissimilarities", "similarities")
    if case == "scaled_1e300":
        return A * 1e300
    if case == "scaled_1e-300":
        return A * 1e-300
    if case == "identical_rows":
        if kind == "dissimilarities":
            return np.zeros_like(A)
        if kind == "similarities":
            return 1.0 - np.eye(len(A))
        return np.repeat(A[:1], len(A), axis=0)
    if case == "fewer_samples_than_clusters":
        return A[:2, :2] if square else A[:2]
    if case == "one_sample":
        return A[:1, :1] if square else A[:1]
    if case in ("nan", "inf"):
        B = A.copy()
        B[0, 1] = B[1, 0] = np.nan if case == "nan" else np.inf
        return B
    if case == "one_dimensional":
        return A[0]
    if case == "empty":
        return A[:0, :0] if square else A[:0]
    raise AssertionError(case)


CASES = [
    "scaled_1e300",
    "scaled_1e-300",
    "identical_rows",
    "fewer_samples_than_clusters",
    "one_sample",
    "nan",
    "inf",
    "one_dimensional",
    "empty",
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_bad_input_fits_finitely_or_says_which_parameter(cls, case):
    """Either a finite fit, or ValueError/TypeError naming X or one of the class's parameters."""
    params = {"random_state": 0} if cls in RANDOM else {}
    est, _ = _make(cls, **params)
    X = _case(cls, case)
    try:
        with np.errstate(over="raise", invalid="raise", divide="raise"):
            _fit(est, X)
    except (ValueError, TypeError) as exc:
        names = {"X", *cls().get_params()}
        said = set(re.findall(r"[A-Za-z_]\w*", str(exc)))
        assert names & said, f"{cls.__name__} on {case}: {exc}"
        if case == "fewer_samples_than_clusters" and "X" not in said:
            assert INPUTS[cls.__name__][2] in said, str(exc)
        return
    for name, value in _fitted(est).items():
        if name in NON_FINITE_ALLOWED or not isinstance(value, float | np.ndarray):
            continue
        value = np.asarray(value)
        if value.dtype.kind == "f":
            assert np.all(np.isfinite(value)), f"{cls.__name__}.{name} on {case}"


@pytest.mark.parametrize("name", SQUARED_DISTANCE)
def test_squared_distance_clusterers_name_the_representable_range(name):
    cls = getattr(cluster, name)
    est, X = _make(cls, random_state=0)
    with pytest.raises(ValueError, match=r"max \|X\| <= 1e\+100"):
        est.fit(X * (10 * MAX_ABS))
    with pytest.raises(ValueError, match=r"X spans only .* >= 1e-100"):
        est.fit(X * (0.1 * MIN_SPREAD))


# parameters in units of squared distance, which scale with X
_SQUARED_UNITS = {
    "EqualWidthMixture": {"sigma": 1.0},
    "EntropyConstrainedClustering": {"entropy_weight": 0.1},
    "GibbsSamplerClustering": {"temperature": 1.0},
}


@pytest.mark.parametrize("power", [300, -300])
@pytest.mark.parametrize("name", SQUARED_DISTANCE)
def test_squared_distance_clusterers_are_scale_equivariant(name, power):
    """At 2^±300 (~1e±90, exact in binary) the fit is the same, in the data's units."""
    cls = getattr(cluster, name)
    s = 2.0**power
    base = _SQUARED_UNITS.get(name, {})
    ref, X = _make(cls, random_state=0, **base)
    scaled, _ = _make(cls, random_state=0, **{k: v * s**2 for k, v in base.items()})
    _fit(ref, X)
    _fit(scaled, X * s)
    np.testing.assert_array_equal(ref.labels_, scaled.labels_)
    centres = "means_" if name == "EqualWidthMixture" else "cluster_centers_"
    np.testing.assert_allclose(getattr(scaled, centres) / s, getattr(ref, centres), rtol=1e-9)
    for attr in ("temperature_", "inertia_", "critical_temperature_", "distortion_"):
        if hasattr(ref, attr):
            np.testing.assert_allclose(getattr(scaled, attr) / s**2, getattr(ref, attr), rtol=1e-9)


@pytest.mark.parametrize("cls", TRANSFORMERS, ids=lambda c: c.__name__)
def test_transformers_name_their_output_features(cls):
    pd = pytest.importorskip("pandas")
    params = {"random_state": 0} if cls in RANDOM else {}
    est, X = _make(cls, **params)
    _fit(est, X)
    Xt = est.transform(X) if hasattr(est, "transform") else est.fit_transform(X)
    names = est.get_feature_names_out()
    assert names.shape == (Xt.shape[1],)
    assert len(set(names)) == len(names)
    assert all(n.startswith(cls.__name__.lower()) for n in names)
    est.set_output(transform="pandas")
    frame = est.fit_transform(pd.DataFrame(X))
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == list(est.get_feature_names_out())
