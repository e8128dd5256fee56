"""The LVQ estimators: learning rules, inputs (their scikit-learn suite at the defaults is
tests/conventions/test_sklearn_suite.py)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.cluster import KMeans
from sklearn.datasets import load_iris, make_blobs

from statmechlearn._core.exceptions import ConvergenceWarning
from statmechlearn.lvq import GLVQ, LVQ1, LVQ21, VQ, LVQPlus, wta_online_updates
from statmechlearn.lvq import _kernels as K

CLASSIFIERS = (LVQ1, LVQPlus, LVQ21, GLVQ)


# ----------------------------------------------------------- kernels vs twins


def _problem(seed, n, k, d, n_classes):
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((k, d))
    X = rng.standard_normal((n, d))
    y = rng.integers(0, n_classes, size=n).astype(np.int64)
    labels = rng.integers(0, n_classes, size=k).astype(np.int64)
    order = rng.permutation(n)
    return W, X, y, labels, order


_shapes = {
    "seed": st.integers(0, 2**32 - 1),
    "n": st.integers(0, 25),
    "k": st.integers(1, 5),
    "d": st.integers(1, 5),
    "n_classes": st.integers(1, 3),
}


@settings(max_examples=40, deadline=None)
@given(**_shapes, a=st.sampled_from([0.0, 0.5, 1.0]), b=st.sampled_from([0.0, 0.5, 1.0]))
def test_wta_epoch_matches_twin(seed, n, k, d, n_classes, a, b):
    W, X, y, labels, order = _problem(seed, n, k, d, n_classes)
    W1, W2 = W.copy(), W.copy()
    K.wta_epoch(W1, X, y, labels, order, 0.1, a, b)
    K.wta_epoch_numpy(W2, X, y, labels, order, 0.1, a, b)
    np.testing.assert_allclose(W1, W2, rtol=1e-12, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(**_shapes, window=st.sampled_from([0.1, 0.3, 0.9]))
def test_lvq21_epoch_matches_twin(seed, n, k, d, n_classes, window):
    W, X, y, labels, order = _problem(seed, n, k, d, n_classes)
    s = (1 - window) / (1 + window)
    W1, W2 = W.copy(), W.copy()
    n1 = K.lvq21_epoch(W1, X, y, labels, order, 0.1, s)
    n2 = K.lvq21_epoch_numpy(W2, X, y, labels, order, 0.1, s)
    assert n1 == n2
    np.testing.assert_allclose(W1, W2, rtol=1e-12, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(**_shapes, activation=st.sampled_from([0, 1]))
def test_glvq_epoch_matches_twin(seed, n, k, d, n_classes, activation):
    W, X, y, labels, order = _problem(seed, n, k, d, n_classes)
    W1, W2 = W.copy(), W.copy()
    m1 = K.glvq_epoch(W1, X, y, labels, order, 0.1, activation, 2.0)
    m2 = K.glvq_epoch_numpy(W2, X, y, labels, order, 0.1, activation, 2.0)
    assert m1 == pytest.approx(m2, rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(W1, W2, rtol=1e-11, atol=1e-11)


@pytest.mark.parametrize("activation", [0, 1])
def test_glvq_step_is_gradient_descent_on_the_cost(activation):
    rng = np.random.default_rng(3)
    W = rng.standard_normal((3, 4))
    x = rng.standard_normal(4)
    labels = np.array([0, 1, 1])
    beta = 2.0

    def cost(Wflat):
        d = np.sum((x - Wflat.reshape(3, 4)) ** 2, axis=1)
        dj, dk = d[0], min(d[1], d[2])
        mu = (dj - dk) / (dj + dk)
        return 1 / (1 + np.exp(-beta * mu)) if activation else mu

    h = 1e-6
    grad = np.array(
        [(cost(W.ravel() + h * e) - cost(W.ravel() - h * e)) / (2 * h) for e in np.eye(12)]
    )
    d = np.sum((x - W) ** 2, axis=1)
    W1 = W.copy()
    lr = 1e-3
    K.glvq_step(W1, x, 0, labels, lr, activation, beta)
    step = lr * (d[0] + min(d[1], d[2])) / 2  # the documented scale-free step size
    np.testing.assert_allclose((W1 - W).ravel(), -step * grad, rtol=1e-6, atol=1e-12)


def test_lvq21_updates_only_inside_the_window():
    W = np.array([[0.0, 0.0], [2.0, 0.0]])
    labels = np.array([0, 1])
    inside = np.array([0.9, 0.0])  # distances 0.9, 1.1: ratio 0.82 > s = 0.54
    outside = np.array([0.1, 0.0])  # ratio 0.05
    for x, moved in ((inside, True), (outside, False)):
        W1 = W.copy()
        K.lvq21_step(W1, x, 0, labels, 0.1, (1 - 0.3) / 1.3)
        assert (not np.array_equal(W1, W)) is moved
    W1 = W.copy()
    K.lvq21_step(W1, inside, 0, labels, 0.1, (1 - 0.3) / 1.3)
    np.testing.assert_allclose(W1[0], W[0] + 0.1 * (inside - W[0]))
    np.testing.assert_allclose(W1[1], W[1] - 0.1 * (inside - W[1]))


# ------------------------------------------------------------- estimators


def test_partial_fit_is_the_papers_online_rule_and_the_simulation_kernel():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 5))
    y = np.where(rng.random(300) < 0.7, 1, -1)
    W0 = rng.standard_normal((2, 5)) * 0.1  # prototype 0 is class -1 (sorted classes)
    for cls, (a, b) in ((LVQ1, (0, 1)), (LVQPlus, (0.5, 0.5))):
        est = cls(init=W0, learning_rate=0.02).partial_fit(X, y, classes=[-1, 1])
        W = W0[None].copy()
        wta_online_updates(W, X[None], y[None], [-1, 1], learning_rate=0.02, a=a, b=b)
        np.testing.assert_allclose(est.prototypes_, W[0], rtol=1e-13)
    vq = VQ(init=W0, learning_rate=0.02).partial_fit(X)
    W = W0[None].copy()
    wta_online_updates(W, X[None], y[None], [-1, 1], learning_rate=0.02, a=1, b=0)
    np.testing.assert_allclose(vq.prototypes_, W[0], rtol=1e-13)


@pytest.mark.parametrize("cls", CLASSIFIERS)
def test_partial_fit_in_chunks_equals_one_pass(cls):
    X, y = make_blobs(200, centers=3, n_features=4, random_state=1)
    W0 = cls(random_state=0).partial_fit(X[:1], y[:1], classes=[0, 1, 2]).prototypes_
    one = cls(init=W0).partial_fit(X, y, classes=[0, 1, 2])
    chunked = cls(init=W0).partial_fit(X[:50], y[:50], classes=[0, 1, 2])
    chunked.partial_fit(X[50:], y[50:])
    np.testing.assert_allclose(chunked.prototypes_, one.prototypes_, rtol=1e-12)
    assert one.n_updates_ == chunked.n_updates_ == 200


@pytest.mark.parametrize("cls", CLASSIFIERS)
@pytest.mark.parametrize("init", ["kmeans", "class-mean", "random-sample"])
def test_several_prototypes_per_class_on_iris(cls, init):
    X, y = load_iris(return_X_y=True)
    est = cls([1, 2, 3], init=init, random_state=0, max_iter=50).fit(X, y)
    assert est.prototypes_.shape == (6, 4)
    np.testing.assert_array_equal(est.prototype_labels_, [0, 1, 1, 2, 2, 2])
    assert est.score(X, y) > 0.8  # worst over 10 seeds and all inits: 0.84 (LVQ2.1, random-sample)
    proba = est.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(est.classes_[proba.argmax(axis=1)], est.predict(X))
    assert est.transform(X).shape == (150, 6)
    assert est.decision_function(X).shape == (150, 3)


def test_string_labels_and_binary_decision_function():
    X, y = make_blobs(100, centers=2, cluster_std=0.5, random_state=0)
    labels = np.array(["cat", "dog"])[y]
    est = LVQ1(random_state=0).fit(X, labels)
    score = est.decision_function(X)
    np.testing.assert_array_equal(np.where(score > 0, "dog", "cat"), est.predict(X))
    assert est.score(X, labels) > 0.95


def test_several_prototypes_per_class_solve_a_non_convex_class():
    # XOR: each class is two opposite blobs, so one prototype per class is at chance
    centres = np.array([[3, 3], [-3, -3], [3, -3], [-3, 3]])
    X, blob = make_blobs(400, centers=centres, cluster_std=0.7, random_state=0)
    y = blob // 2
    for cls in CLASSIFIERS:
        one = cls(1, random_state=0).fit(X, y).score(X, y)
        two = cls(2, random_state=0).fit(X, y).score(X, y)
        assert one < 0.75 and two > 0.97, (cls.__name__, one, two)


def test_not_converging_warns_with_the_displacement():
    X, y = make_blobs(100, centers=2, random_state=0)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        LVQ1(max_iter=1, tol=1e-12, random_state=0).fit(X, y)


def test_vq_quantizes_without_labels():
    X, _ = make_blobs(300, centers=3, n_features=2, cluster_std=0.3, random_state=0)
    vq = VQ(n_prototypes=3, init="kmeans", random_state=0).fit(X)
    assert vq.labels_.shape == (300,)
    np.testing.assert_array_equal(vq.predict(X), vq.labels_)
    assert vq.score(X) == pytest.approx(-vq.quantization_error_)
    km = KMeans(3, n_init=10, random_state=0).fit(X)
    assert vq.quantization_error_ < 1.05 * km.inertia_ / 300
    np.testing.assert_array_equal(vq.cluster_centers_, vq.prototypes_)
    start = VQ(n_prototypes=3, max_iter=1, learning_rate=1e-12, random_state=0).fit(X)
    trained = VQ(n_prototypes=3, random_state=0).fit(X)
    assert trained.quantization_error_ < start.quantization_error_


# ------------------------------------------------------------- bad input


@pytest.mark.parametrize("cls", CLASSIFIERS)
def test_bad_input_is_named(cls):
    X, y = make_blobs(30, centers=2, random_state=0)
    with pytest.raises(ValueError, match=r"at least 2 classes.*1 class"):
        cls().fit(X, np.zeros(30))
    with pytest.raises(ValueError, match="n_prototypes_per_class"):
        cls(0).fit(X, y)
    with pytest.raises(ValueError, match="n_prototypes_per_class"):
        cls([1, 0]).fit(X, y)
    with pytest.raises(ValueError, match="n_prototypes_per_class"):
        cls([1, 1, 1]).fit(X, y)
    with pytest.raises(ValueError, match="learning_rate"):
        cls(learning_rate=0.0).fit(X, y)
    with pytest.raises(ValueError, match="learning_rate_schedule"):
        cls(learning_rate_schedule="cosine").fit(X, y)
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        cls().fit(bad, y)
    bad[3, 1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        cls().fit(bad, y)
    with pytest.raises(ValueError, match="classes must be passed"):
        cls().partial_fit(X, y)
    est = cls().partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match=r"labels \[7\] that are not in classes"):
        est.partial_fit(X[:2], [0, 7])
    with pytest.raises(ValueError, match="features"):
        est.partial_fit(X[:, :1], y)
    with pytest.raises(ValueError, match="features"):
        est.predict(np.ones((2, 3)))
    with pytest.raises(ValueError, match="needs at least 20 samples of class 0"):
        cls(20, init="random-sample").fit(X, y)
    with pytest.raises(ValueError, match=r"init array must have shape \(2, 2\)"):
        cls(init=np.zeros((3, 2))).fit(X, y)
    with pytest.raises(ValueError, match="'init' parameter of " + cls.__name__):
        cls(init="origin").fit(X, y)


def test_rule_parameters_are_checked():
    X, y = make_blobs(30, centers=2, random_state=0)
    with pytest.raises(ValueError, match=r"'window' parameter of LVQ21 .*\(0.0, 1.0\)"):
        LVQ21(window=1.5).fit(X, y)
    with pytest.raises(ValueError, match="activation"):
        GLVQ(activation="relu").fit(X, y)
    with pytest.raises(ValueError, match="beta"):
        GLVQ(beta=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="n_prototypes"):
        VQ(n_prototypes=0).fit(X)
    with pytest.raises(ValueError, match="exceeds n_samples"):
        VQ(n_prototypes=40).fit(X)


# ------------------------------------------------- conventions: seeds, feature names


@pytest.mark.parametrize("cls", [*CLASSIFIERS, VQ])
def test_random_state_accepts_none_int_randomstate_and_generator(cls):
    X, y = make_blobs(40, centers=2, random_state=0)
    fits = {}
    for name, seed in [
        ("none", None),
        ("int", 3),
        ("randomstate", np.random.RandomState(3)),
        ("generator", np.random.default_rng(3)),
    ]:
        est = cls(random_state=seed, max_iter=5, tol=0.0)
        fits[name] = (est.fit(X) if cls is VQ else est.fit(X, y)).prototypes_
        assert np.all(np.isfinite(fits[name]))
    again = cls(random_state=3, max_iter=5, tol=0.0)
    again = again.fit(X) if cls is VQ else again.fit(X, y)
    np.testing.assert_array_equal(again.prototypes_, fits["int"])
    with pytest.raises(ValueError, match=f"'random_state' parameter of {cls.__name__}"):
        cls(random_state="seven").fit(X, y)


@pytest.mark.parametrize("cls", [*CLASSIFIERS, VQ])
def test_transform_names_its_columns_and_sets_pandas_output(cls):
    pd = pytest.importorskip("pandas")
    X, y = make_blobs(40, centers=2, random_state=0)
    data = pd.DataFrame(X, columns=["a", "b"])
    est = cls(random_state=0).set_output(transform="pandas")
    est = est.fit(data) if cls is VQ else est.fit(data, y)
    names = est.get_feature_names_out()
    k = est.prototypes_.shape[0]
    assert list(names) == [f"{cls.__name__.lower()}_prototype{i}" for i in range(k)]
    frame = est.transform(data)
    assert isinstance(frame, pd.DataFrame) and list(frame.columns) == list(names)
    np.testing.assert_allclose(
        frame.to_numpy(), np.sqrt(((X[:, None] - est.prototypes_) ** 2).sum(-1))
    )
