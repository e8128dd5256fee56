"""Every warning the library gives names the caller's line, whatever the call depth.

A warning that names a line inside statmechlearn or scikit-learn tells the user
nothing about which of their calls it concerns, and warning filters keyed on the
user's module miss it. Each case calls a public entry point from this file,
through ``fit``, ``fit_predict``, ``fit_transform``, ``partial_fit`` and a
SciPy callback alike.
"""

import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import brentq
from sklearn.datasets import make_blobs
from sklearn.neighbors import kneighbors_graph

from statmechlearn._core.warn import caller_stacklevel, warn
from statmechlearn.cluster import (
    ConstantShiftEmbedding,
    CorrelationClustering,
    DeterministicAnnealing,
    EqualWidthMixture,
    HistogramClustering,
    PairwiseClustering,
    TopologicalVQ,
)
from statmechlearn.inference import (
    IsingDenoiser,
    PairwiseMRFCost,
    integrated_autocorrelation_time,
    mean_field,
    mean_field_annealing,
)
from statmechlearn.linear import OutlierRobustClassifier, SparseBayesClassifier
from statmechlearn.lvq import LVQ1, VQ
from statmechlearn.model_selection import channel_capacity
from statmechlearn.models.outliers import OutlierMixture
from statmechlearn.theory import sparse_bayes

_BLOBS, _LABELS = make_blobs(100, centers=2, random_state=0)
_THREE, _ = make_blobs(200, centers=3, random_state=7)
_D = ((_BLOBS[:40, None] - _BLOBS[None, :40]) ** 2).sum(-1)
_ASYMMETRIC = _D.copy()
_ASYMMETRIC[0, 1] += 0.5


def _asymmetric_graph():
    graph = sp.lil_matrix(kneighbors_graph(_BLOBS[:40], 5, mode="distance"))
    r, c = graph.nonzero()
    graph[c[0], r[0]] = graph[r[0], c[0]] + 1.0
    return graph.tocsr()


def _ising_cost():
    coupling = -np.array([[0.0, 1.0], [1.0, 0.0]])
    return PairwiseMRFCost(np.zeros((2, 2)), coupling)


_Q0 = np.array([[0.9, 0.1], [0.9, 0.1]])
_IMAGE = np.zeros((12, 12), dtype=bool)
_IMAGE[3:9, 3:9] = True
_IMAGE ^= np.random.default_rng(1).random(_IMAGE.shape) < 0.1
_OUTLIERS = OutlierMixture(n_features=20, eta=0.0, gamma=10.0).sample(200, random_state=9)

CASES = {
    "DeterministicAnnealing.fit, constant X": lambda: DeterministicAnnealing(3).fit(
        np.ones((10, 2))
    ),
    "DeterministicAnnealing.fit_predict, not converged": lambda: DeterministicAnnealing(
        3, max_iter=1, tol=0.0
    ).fit_predict(_THREE),
    "DeterministicAnnealing.partial_fit, constant X": lambda: DeterministicAnnealing(3).partial_fit(
        np.ones((10, 2))
    ),
    "EqualWidthMixture.fit": lambda: EqualWidthMixture(3, sigma=0.3, max_iter=1, tol=0.0).fit(
        _THREE
    ),
    "TopologicalVQ.fit": lambda: TopologicalVQ(4, max_iter=2, tol=0.0, random_state=0).fit(_BLOBS),
    "HistogramClustering.fit": lambda: HistogramClustering(
        n_clusters=2, max_iter=1, tol=0.0, random_state=0
    ).fit(np.array([[9, 1, 0], [8, 2, 0], [0, 1, 9], [1, 0, 9]])),
    "CorrelationClustering.fit_predict": lambda: CorrelationClustering(
        3, cost="normalized_graph_partitioning", min_temperature=10.0
    ).fit_predict(np.ones((6, 6)) - np.eye(6)),
    "PairwiseClustering.fit, asymmetric": lambda: PairwiseClustering(2, random_state=0).fit(
        _ASYMMETRIC
    ),
    "PairwiseClustering.fit, asymmetric graph": lambda: PairwiseClustering(2, random_state=0).fit(
        _asymmetric_graph()
    ),
    "PairwiseClustering.fit, not converged": lambda: PairwiseClustering(
        2, max_iter=1, tol=0.0, min_temperature=1e3, random_state=0
    ).fit(_D),
    "ConstantShiftEmbedding.fit_transform": lambda: ConstantShiftEmbedding().fit_transform(
        _ASYMMETRIC
    ),
    "LVQ1.fit": lambda: LVQ1(max_iter=1, tol=1e-12, random_state=0).fit(_BLOBS, _LABELS),
    "VQ.fit_predict": lambda: VQ(n_prototypes=2, max_iter=1, tol=1e-12, random_state=0).fit_predict(
        _BLOBS
    ),
    "mean_field": lambda: mean_field(
        _ising_cost(), 0.1, init=_Q0, update="synchronous", max_iter=50
    ),
    "mean_field_annealing": lambda: mean_field_annealing(
        _ising_cost(), [0.2, 0.1], init=_Q0, update="synchronous", max_iter=50
    ),
    "IsingDenoiser.fit_transform": lambda: IsingDenoiser(
        method="mean_field", max_iter=1, tol=0.0
    ).fit_transform(_IMAGE),
    "integrated_autocorrelation_time": lambda: integrated_autocorrelation_time(
        np.random.default_rng(0).standard_normal((2, 200)), c=5.0
    ),
    "SparseBayesClassifier.fit": lambda: SparseBayesClassifier(max_iter=2).fit(
        _BLOBS, np.where(_LABELS == 1, 1.0, -1.0)
    ),
    "OutlierRobustClassifier.fit": lambda: OutlierRobustClassifier(max_iter=1).fit(
        _OUTLIERS[0], _OUTLIERS[1].astype(float)
    ),
    "sparse_bayes.replica": lambda: sparse_bayes.replica(2.0, 0.5, C_t=0.5, kappa=0.1, max_iter=1),
    "channel_capacity": lambda: channel_capacity([[1.0, 0.0], [0.9, 0.1]], max_iter=3),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_warning_names_the_callers_line(name):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        CASES[name]()
    ours = [w for w in caught if not issubclass(w.category, DeprecationWarning)]
    assert ours, f"{name}: the case no longer warns"
    assert {w.filename for w in ours} == {__file__}, [
        (w.filename, w.lineno, str(w.message)[:60]) for w in ours
    ]


def test_through_a_scipy_callback_the_warning_names_the_callback():
    def root(x):
        warn("from a callback")
        return x

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        brentq(root, -1.0, 2.0)
    assert {w.filename for w in caught} == {__file__}
    assert {w.lineno for w in caught} == {root.__code__.co_firstlineno + 1}


def test_the_stacklevel_of_a_direct_call_is_its_own_frame():
    # called from outside the libraries, the first frame not passed over is the caller's
    assert caller_stacklevel() == 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warn("direct", RuntimeWarning)
    assert caught[0].filename == __file__
    assert caught[0].category is RuntimeWarning


def test_where_every_frame_is_passed_over_the_outermost_is_named():
    # a worker running library code only: no frame is the user's, and the warning goes to
    # the outermost frame rather than past the end of the stack
    depth, frame = 1, sys._getframe(0)
    while frame.f_back is not None:
        depth, frame = depth + 1, frame.f_back
    assert caller_stacklevel(skip=("",)) == depth
