"""Every public function outside ``theory`` refuses nonsense arguments by name.

The functions are discovered with :func:`conventions._discovery.public_functions`;
those of the theory modules are proven by ``tests/theory/test_argument_validation.py``
(``VALID``) and ``tests/theory/test_outliers_mixture_arguments.py`` (``SPECS``),
every other one needs an entry in ``CALLS`` here, so a new public function fails
:func:`test_every_public_function_has_a_valid_call` until it gets one.

Each argument is replaced, one at a time, by NaN, inf, a negative value, zero,
a complex value and an empty value; unless that kind is listed as meaningful
for the argument, the call must raise ``ValueError`` or ``TypeError`` whose
message names the argument. A float argument scaled by 1e300 must either work
(no NaN in the result) or raise such an error.

Every public function, class and public method with a random-number argument
calls it ``random_state``, accepts None, an int, a ``RandomState`` and a
``Generator``, and an int seed reproduces its result.
"""

import dataclasses
import importlib.util
import inspect
import numbers
import pathlib
import re
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.cluster import KMeans
from sklearn.mixture import GaussianMixture

from conventions._discovery import _exported, public_functions
from statmechlearn import inference, models
from statmechlearn.theory.sparse_bayes import SmoothedStepActivation

KINDS = ("nan", "inf", "negative", "zero", "complex", "empty")
#: an argument that is an object (an estimator, a cost, a callback): nothing numeric to spoil
OBJECT = frozenset(KINDS)


def _load(name):
    path = pathlib.Path(__file__).parents[1] / "theory" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_conventions_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


VALID = _load("test_argument_validation").VALID
THEORY_CALLABLES = _load("test_argument_validation").CALLABLES
SPECS = _load("test_outliers_mixture_arguments").SPECS


class Fresh:
    """A value built anew for every call (arguments the function mutates)."""

    def __init__(self, make):
        self.make = make


_X = np.array([[0.0, 0.1], [0.2, -0.1], [-0.1, 0.0], [3.0, 3.1], [3.2, 2.9], [2.9, 3.0]])
_X12 = np.vstack([_X, _X + np.array([0.05, -0.05])])
# a second measurement of the same twelve objects (posterior agreement's two instances)
_X12_SECOND = _X12 + np.array([-0.03, 0.02])
_CENTERS = np.array([[[0.0, 0.0], [3.0, 3.0]]])
_LOG_W = np.log(np.full((1, 2), 0.5))
_LABELS = np.array([0, 0, 0, 1, 1, 1])
_D = np.sum((_X[:, None] - _X[None]) ** 2, axis=-1)
_E = (_X + 1.0) / np.linalg.norm(_X + 1.0, axis=1, keepdims=True)
_JOINT = np.array([[0.3, 0.1], [0.2, 0.4]])
_P = np.array([0.25, 0.75])
_Q = np.array([0.5, 0.5])
_ISING = inference.ising_cost(np.array([[1, 0, 1], [1, 1, 0], [0, 1, 1]]))
_KMEANS_COST = inference.KMeansCost(_X, 2)
_TRACE = np.sin(np.arange(40) * 0.7) + np.cos(np.arange(40) * 1.3)
_CHAINS = np.vstack([_TRACE, _TRACE[::-1]])
_MEAN_FIELD_Q = np.full((9, 2), 0.5)


def _kmeans():
    return KMeans(n_clusters=2, n_init=1, random_state=0)


_FITTED_KMEANS = _kmeans().fit(_X)
_FITTED_GMM = GaussianMixture(2, random_state=0).fit(_X)

# Selection EM data: 2 runs, 8 examples, 3 features.
_XR = np.random.default_rng(0).normal(size=(2, 8, 3))
_SR = np.where(np.arange(16).reshape(2, 8) % 3 == 0, -1.0, 1.0)
_VR = np.ones((2, 8))
# Sparse Bayes message passing: 12 examples of 6 features, |x| = sqrt(N).
_XB = np.random.default_rng(1).choice([-1.0, 1.0], size=(12, 6))
_YB = np.where(np.arange(12) % 2 == 0, 1.0, -1.0)
_ACTIVATION = SmoothedStepActivation(kappa=0.05, width=0.0)

_NONNEG = {"negative", "zero"}  # any real value is meaningful
_KR = [1, 2]
_KR2 = [2, 3]

# A valid call of each public function: argument -> (value, kinds that are meaningful).
# the order-parameter chain and its NumPy twin take the same call (_valid copies it)
_OVERLAP_CHAIN = {
    "R": (np.zeros((2, 2)), _NONNEG),
    "Q": (0.01 * np.eye(2), {"zero"}),
    "n_steps": (5, {"zero"}),
    "model": (models.LabeledMixture(n_features=6, p_plus=0.6, lam=1.0), OBJECT),
    "prototype_labels": (np.array([1, -1]), _NONNEG),
    "learning_rate": (0.1, {"zero"}),
    "a": (0.0, _NONNEG),
    "b": (1.0, _NONNEG),
    "random_state": (0, {"zero"}),
}


CALLS = {
    # ---------------------------------------------------------------- cluster
    "statmechlearn.cluster.gibbs_fixed_point": {
        "X": (_X, _NONNEG),
        "centers": (_CENTERS, _NONNEG),
        "log_weights": (_LOG_W, _NONNEG),
        "temperature": (1.0, set()),
        "mass_constrained": (True, OBJECT),
        "max_iter": (20, set()),
        "tol": (1e-8, {"zero"}),
        "x_sq": (np.sum(_X**2, axis=1), {"zero"}),
        "accelerate": (False, OBJECT),
        "sample_weight": (np.arange(1.0, 7.0), set()),
    },
    "statmechlearn.cluster.gibbs_pass": {
        "X": (_X, _NONNEG),
        "centers": (_CENTERS, _NONNEG),
        "log_weights": (_LOG_W, _NONNEG),
        "temperature": (1.0, set()),
        "x_sq": (np.sum(_X**2, axis=1), {"zero"}),
        "sample_weight": (np.arange(1.0, 7.0), set()),
    },
    "statmechlearn.cluster.grid_transmission": {
        "grid": (np.array([[0.0], [1.0], [2.0]]), _NONNEG),
        "sigma": (0.5, {"zero"}),
    },
    "statmechlearn.cluster.least_angle_cost": {
        "E": (_E, _NONNEG),
        "labels": (_LABELS, _NONNEG),  # any integers name the clusters
    },
    "statmechlearn.cluster.pairwise_cost": {
        "D": (_D, {"zero"}),
        "labels": (_LABELS, _NONNEG),
    },
    "statmechlearn.cluster.quantization_error": {
        "X": (_X, _NONNEG),
        "codebook": (np.array([[0.0, 0.0], [3.0, 3.0]]), _NONNEG),
    },
    "statmechlearn.cluster.rate_distortion": {
        "p_x": (_P, set()),
        "distortion": (np.array([[0.0, 1.0], [1.0, 0.0]]), {"zero"}),
        "betas": (np.array([0.5, 2.0]), set()),
        "base": ("bits", set()),
        "max_iter": (200, set()),
        "tol": (1e-10, {"zero"}),
    },
    "statmechlearn.cluster.rectified_gaussian_bins": {
        "edges": (np.linspace(-1.0, 1.0, 5), set()),
        "means": (np.array([-0.3, 0.4]), _NONNEG),
        "widths": (np.array([0.5, 0.2]), set()),
    },
    "statmechlearn.cluster.topographic_critical_temperature": {
        "X": (_X, _NONNEG),
        "transmission": (np.array([[0.8, 0.2], [0.2, 0.8]]), set()),
    },
    "statmechlearn.cluster.topographic_error": {
        "X": (_X, _NONNEG),
        "codebook": (np.array([[0.0, 0.0], [1.5, 1.5], [3.0, 3.0]]), _NONNEG),
        "grid_shape": ((3,), set()),
    },
    "statmechlearn.cluster.two_centre_fixed_points": {
        "X": (_X, _NONNEG),
        "sigma": (1.0, set()),
        "init": (np.array([[1.0, 0.5], [-0.5, 1.0]]), _NONNEG),
        "max_iter": (50, set()),
        "tol": (1e-8, {"zero"}),
    },
    # --------------------------------------------------------------- datasets
    "statmechlearn.datasets.load_colon": {"path": (None, set())},
    # -------------------------------------------------------------- inference
    "statmechlearn.inference.effective_sample_size": {
        "x": (_CHAINS, _NONNEG),
        "c": (5.0, set()),
        "method": ("bulk", set()),
    },
    "statmechlearn.inference.exact_gibbs": {
        "cost": (_ISING, OBJECT),
        "temperature": (1.0, set()),
        "max_configurations": (1000, set()),
    },
    "statmechlearn.inference.factorial_log_partition": {
        "unary": (np.array([[0.0, 1.0], [2.0, -1.0]]), _NONNEG),
        "temperature": (1.0, set()),
    },
    "statmechlearn.inference.field_from_flip_probability": {
        "flip_probability": (0.1, set()),
        "temperature": (1.0, set()),
    },
    "statmechlearn.inference.graph_coloring": {
        # weights (couplings may be negative): a non-zero entry is an edge
        "adjacency": (np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]]), _NONNEG),
    },
    "statmechlearn.inference.grid_graph": {
        "shape": ((3, 4), set()),
        "connectivity": (4, set()),
    },
    "statmechlearn.inference.integrated_autocorrelation_time": {
        "x": (_CHAINS, _NONNEG),
        "c": (5.0, set()),
    },
    "statmechlearn.inference.ising_cost": {
        "noisy": (np.array([[1, 0, 1], [1, 1, 0]]), {"zero"}),
        "coupling": (1.0, {"zero"}),
        "field": (1.0, {"zero"}),
        "connectivity": (4, set()),
    },
    "statmechlearn.inference.iterated_conditional_modes": {
        "cost": (_ISING, OBJECT),
        "init": (np.array([0, 1, 0, 1, 1, 0, 0, 1, 1]), {"zero"}),
        "max_iter": (10, set()),
    },
    "statmechlearn.inference.mean_field": {
        "cost": (_ISING, OBJECT),
        "temperature": (1.0, set()),
        "init": (_MEAN_FIELD_Q, set()),
        "update": ("asynchronous", set()),
        "damping": (0.0, {"zero"}),
        "max_iter": (20, set()),
        "tol": (1e-6, {"zero"}),
        "random_state": (0, {"zero"}),
        "warn": (False, OBJECT),
        "compiled": (True, OBJECT),
    },
    "statmechlearn.inference.mean_field_annealing": {
        "cost": (_ISING, OBJECT),
        "temperatures": (np.array([2.0, 1.0, 0.5]), set()),
        "init": (_MEAN_FIELD_Q, set()),
        "random_state": (0, {"zero"}),
    },
    "statmechlearn.inference.metropolis_hastings": {
        "log_density": (lambda x: -0.5 * np.sum(x**2, axis=1), OBJECT),
        "init": (np.array([0.5, -0.5]), _NONNEG),
        "n_draws": (20, set()),
        "n_chains": (2, set()),
        "n_tune": (10, {"zero"}),
        "proposal_scale": ("auto", set()),
        "target_acceptance": (0.3, set()),
        "vectorized": (True, OBJECT),
        "random_state": (0, {"zero"}),
    },
    "statmechlearn.inference.r_hat": {"x": (_CHAINS, _NONNEG)},
    "statmechlearn.inference.sample_assignments": {
        "cost": (_ISING, OBJECT),
        "temperature": (1.0, set()),
        "n_chains": (2, set()),
        "n_sweeps": (20, set()),
        "burn_in": (5, {"zero"}),
        "method": ("gibbs", set()),
        "init": (np.zeros(9, dtype=int), {"zero"}),
        "random_state": (0, {"zero"}),
        "compiled": (True, OBJECT),
        "progress": (False, OBJECT),
        "verbose": (0, {"zero"}),
    },
    "statmechlearn.inference.simulated_annealing": {
        "cost": (_ISING, OBJECT),
        "schedule": (inference.CoolingSchedule(n_steps=5), OBJECT),
        "sweeps_per_temperature": (2, set()),
        "n_chains": (2, set()),
        "method": ("metropolis", set()),
        "init": (np.zeros(9, dtype=int), {"zero"}),
        "random_state": (0, {"zero"}),
        "compiled": (True, OBJECT),
        "progress": (False, OBJECT),
    },
    "statmechlearn.inference.structured_mean_field": {
        "cost": (_ISING, OBJECT),
        "temperature": (1.0, set()),
        "blocks": (np.arange(9).reshape(3, 3), set()),
        "init": (_MEAN_FIELD_Q, set()),
        "max_iter": (20, set()),
        "tol": (1e-6, {"zero"}),
        "random_state": (0, {"zero"}),
        "warn": (False, OBJECT),
        "compiled": (True, OBJECT),
    },
    "statmechlearn.inference.sweep": {
        "cost": (_ISING, OBJECT),
        "state": (Fresh(lambda: _ISING.init_state(np.zeros((1, 9), dtype=int))), OBJECT),
        "temperature": (1.0, set()),
        "uniforms": (np.full((1, 9, 2), 0.5), {"zero"}),
        "method": ("gibbs", set()),
        "compiled": (True, OBJECT),
    },
    "statmechlearn.inference.thermodynamic_free_energy": {
        "cost": (_ISING, OBJECT),
        "temperature": (1.0, set()),
        "n_nodes": (3, set()),
        "n_chains": (2, set()),
        "n_sweeps": (10, set()),
        "burn_in": (2, {"zero"}),
        "method": ("gibbs", set()),
        "random_state": (0, {"zero"}),
    },
    "statmechlearn.inference.variational_free_energy": {
        "cost": (_ISING, OBJECT),
        "Q": (_MEAN_FIELD_Q, set()),
        "temperature": (1.0, set()),
    },
    # ----------------------------------------------------------------- linear
    "statmechlearn.linear.hard_selection_em": {
        "X": (_XR, _NONNEG),
        "S": (_SR, {"negative"}),
        "gamma": (2.0, set()),
        "eta": (0.0, _NONNEG | {"inf"}),
        "V0": (_VR, {"zero"}),
        "max_iter": (20, set()),
        "polish": (True, OBJECT),
    },
    "statmechlearn.linear.hard_selection_energy": {
        "X": (_XR, _NONNEG),
        "S": (_SR, {"negative"}),
        "V": (_VR, {"zero"}),
        "gamma": (2.0, set()),
        "eta": (0.0, _NONNEG | {"inf"}),
    },
    "statmechlearn.linear.hebb_vector": {
        "X": (_XR, _NONNEG),
        "S": (_SR, {"negative"}),
        "gamma": (2.0, set()),
    },
    "statmechlearn.linear.soft_selection_em": {
        "X": (_XR, _NONNEG),
        "S": (_SR, {"negative"}),
        "gamma": (2.0, set()),
        "eta": (0.0, _NONNEG),
        "J0": (np.ones((2, 3)), _NONNEG),
        "estimate": ((), {"empty"}),
        "max_iter": (20, set()),
        "tol": (1e-9, {"zero"}),
    },
    "statmechlearn.linear.sparse_bayes_amp": {
        "X": (_XB, _NONNEG),
        "y": (_YB, {"negative"}),
        "C": (0.5, set()),
        "activation": (_ACTIVATION, OBJECT),
        "max_iter": (10, set()),
        "tol": (1e-6, {"zero"}),
        "damping": (0.0, {"zero"}),
        "callback": (None, OBJECT),
    },
    "statmechlearn.linear.sparse_bayes_bp": {
        "X": (_XB, _NONNEG),
        "y": (_YB, {"negative"}),
        "C": (0.5, set()),
        "activation": (_ACTIVATION, OBJECT),
        "n_iter": (3, set()),
    },
    "statmechlearn.linear.sphere_rows": {
        "X": (_X + 1.0, _NONNEG),  # a zero row stays zero
        "dim": (2.0, set()),
    },
    # -------------------------------------------------------------------- lvq
    "statmechlearn.lvq.wta_online_updates": {
        "prototypes": (Fresh(lambda: np.zeros((1, 2, 2))), _NONNEG),
        "X": (_X[None], _NONNEG),
        "y": (np.array([[1, 1, 1, -1, -1, -1]]), _NONNEG),
        "prototype_labels": (np.array([1, -1]), _NONNEG),
        "learning_rate": (0.1, {"zero"}),
        "a": (0.0, _NONNEG),
        "b": (1.0, _NONNEG),
    },
    "statmechlearn.lvq.wta_online_updates_numpy": {
        "prototypes": (Fresh(lambda: np.zeros((1, 2, 2))), _NONNEG),
        "X": (_X[None], _NONNEG),
        "y": (np.array([[1, 1, 1, -1, -1, -1]]), _NONNEG),
        "prototype_labels": (np.array([1, -1]), _NONNEG),
        "learning_rate": (0.1, {"zero"}),
        "a": (0.0, _NONNEG),
        "b": (1.0, _NONNEG),
    },
    "statmechlearn.lvq.wta_overlap_updates": _OVERLAP_CHAIN,
    "statmechlearn.lvq.wta_overlap_updates_numpy": _OVERLAP_CHAIN,
    "statmechlearn.lvq.wta_rule": {"name": ("lvq1", set())},
    # -------------------------------------------------------- model_selection
    "statmechlearn.model_selection.agreement_capacity": {
        "X": (_X, _NONNEG),
        "centers_a": (_CENTERS[0], _NONNEG),
        "centers_b": (_CENTERS[0, ::-1], _NONNEG),
        "betas": (np.array([0.0, 1.0, 10.0]), {"zero"}),
        "weights": ("boltzmann", set()),
        "gammas": (None, OBJECT),
        "codebook": ("labelings", set()),
        "method": ("saddle", set()),
    },
    "statmechlearn.model_selection.bic": {
        "estimator": (_FITTED_GMM, OBJECT),
        "X": (_X, _NONNEG),
    },
    "statmechlearn.model_selection.choose_gap_k": {
        "k_values": (np.array([1, 2, 3]), set()),
        "gap": (np.array([0.1, 0.5, 0.45]), _NONNEG),
        "s": (np.array([0.05, 0.05, 0.05]), {"zero"}),
        "rule": ("tibshirani", set()),
    },
    "statmechlearn.model_selection.conditional_entropy": {
        "joint": (_JOINT, set()),
        "base": ("bits", set()),
    },
    "statmechlearn.model_selection.cross_entropy": {
        "p": (_P, set()),
        "q": (_Q, set()),
        "base": ("bits", set()),
    },
    "statmechlearn.model_selection.channel_capacity": {
        "channel": (np.array([[0.9, 0.1], [0.2, 0.8]]), set()),
        "base": ("bits", set()),
        "max_iter": (200, set()),
        "tol": (1e-10, {"zero"}),
    },
    "statmechlearn.model_selection.entropy": {"p": (_P, set()), "base": ("bits", set())},
    "statmechlearn.model_selection.gap_statistic": {
        "X": (_X12, _NONNEG),
        "clusterer": (_kmeans(), OBJECT),
        "k_range": (_KR, set()),
        "n_references": (10, set()),
        "reference": ("uniform", set()),
        "rule": ("tibshirani", set()),
        "random_state": (0, {"zero"}),
        "n_jobs": (1, {"negative"}),
    },
    "statmechlearn.model_selection.information_criterion_curve": {
        "X": (_X12, _NONNEG),
        "clusterer": (_kmeans(), OBJECT),
        "k_range": (_KR, set()),
        "criterion": ("bic", set()),
        "random_state": (0, {"zero"}),
    },
    "statmechlearn.model_selection.kl_divergence": {
        "p": (_P, set()),
        "q": (_Q, set()),
        "base": ("bits", set()),
    },
    "statmechlearn.model_selection.log_likelihood": {
        "estimator": (_FITTED_GMM, OBJECT),
        "X": (_X, _NONNEG),
    },
    "statmechlearn.model_selection.maximum_entropy": {
        "features": (np.linspace(-1.0, 1.0, 5)[:, None], _NONNEG),
        "targets": (np.array([0.2]), _NONNEG),
        "base_measure": (np.ones(5), set()),
        "max_iter": (50, set()),
        "tol": (1e-10, {"zero"}),
    },
    "statmechlearn.model_selection.mdl": {
        "estimator": (_FITTED_KMEANS, OBJECT),
        "X": (_X, _NONNEG),
    },
    "statmechlearn.model_selection.mutual_information": {
        "joint": (_JOINT, set()),
        "base": ("bits", set()),
    },
    "statmechlearn.model_selection.n_parameters": {
        "estimator": (_FITTED_GMM, OBJECT),
        "n_features": (2, set()),
    },
    "statmechlearn.model_selection.posterior_agreement": {
        "X": (_X12, _NONNEG),
        "X_second": (_X12_SECOND, _NONNEG),
        "clusterer": (_kmeans(), OBJECT),
        "k_range": (_KR2, set()),
        "betas": (np.array([0.1, 1.0]), {"zero"}),
        "n_splits": (2, set()),
        "random_state": (0, {"zero"}),
        "weights": ("fermi", set()),
        "gammas": (np.array([0.0, 0.5]), {"zero"}),
        "codebook": ("permutations", set()),
        "method": ("saddle", set()),
        "rule": ("global-max", set()),
    },
    "statmechlearn.model_selection.posterior_agreement_path": {
        "X": (_X12, _NONNEG),
        "X_second": (_X12_SECOND, _NONNEG),
        "max_clusters": (2, set()),
        "betas": (np.array([0.1, 1.0]), {"zero"}),
        "n_splits": (2, set()),
        "random_state": (0, {"zero"}),
        # **annealing_params: a short schedule keeps the test fast
        "cooling_rate": (0.5, OBJECT),
        "max_iter": (20, OBJECT),
    },
    "statmechlearn.model_selection.random_label_disagreement": {
        "n": (10, set()),
        "k": (2, set()),
        "n_draws": (20, set()),
        "random_state": (0, {"zero"}),
    },
    "statmechlearn.model_selection.simulate_protocol": {
        "X": (_X12, _NONNEG),
        "X_second": (_X12_SECOND, _NONNEG),
        "n_clusters": (2, set()),
        "rates": (np.array([0.1, 0.3]), set()),
        "clusterer": (_kmeans(), OBJECT),
        "n_objects": (6, set()),
        "weights": ("fermi", set()),
        "beta": (1.0, set()),
        "gamma": (0.1, {"zero"}),
        "n_trials": (2, set()),
        "n_bound_samples": (4, set()),
        "max_codewords": (100, set()),
        "random_state": (0, {"zero"}),
    },
    "statmechlearn.model_selection.select_n_clusters": {
        "X": (_X12, _NONNEG),
        "clusterer": (_kmeans(), OBJECT),
        "k_range": (_KR, set()),
        "method": ("bic", set()),
    },
    "statmechlearn.model_selection.stability": {
        "X": (_X12, _NONNEG),
        "clusterer": (_kmeans(), OBJECT),
        "k_range": (_KR2, set()),
        "n_splits": (2, set()),
        "classifier": (None, OBJECT),
        "random_state": (0, {"zero"}),
    },
    # ----------------------------------------------------------------- models
    "statmechlearn.models.outliers.informative_fraction": {
        "eta": (np.array([-1.0, 0.0, 2.0]), {"negative", "zero", "inf", "empty"}),
    },
}

FUNCTIONS = dict(public_functions())
_THEORY = {id(f) for f in THEORY_CALLABLES.values()} | {id(f) for f in SPECS}


def _materialise(value):
    return value.make() if isinstance(value, Fresh) else value


def _call(path, kwargs):
    fn = FUNCTIONS[path]
    params = inspect.signature(fn).parameters
    kwargs = {k: _materialise(v) for k, v in kwargs.items()}
    args = [kwargs.pop(p) for p, v in params.items() if v.kind is v.POSITIONAL_ONLY]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _valid(path):
    return {k: v for k, (v, _) in CALLS[path].items()}


def _bad(value, kind):
    if isinstance(value, list | tuple | range) and len(value):
        out = _bad(np.asarray(value), kind)
        return out.tolist() if isinstance(out, np.ndarray) else out
    if isinstance(value, np.ndarray):
        if kind == "empty":
            return np.array([])
        if kind == "complex":
            return value + 1j
        if kind == "negative":
            return -value if np.any(value) else value - 1
        if kind == "zero":
            return np.zeros_like(value)
        out = value.astype(float)
        out.flat[-1] = np.nan if kind == "nan" else np.inf
        return out
    is_number = isinstance(value, numbers.Real) and not isinstance(value, bool)
    return {
        "nan": float("nan"),
        "inf": float("inf"),
        "negative": -abs(value) if is_number and value else -1,
        "zero": 0 if isinstance(value, numbers.Integral) else 0.0,
        "complex": (value if is_number else 1.0) + 1j,
        "empty": "" if isinstance(value, str) else [],
    }[kind]


def _names(message, arg):
    return re.search(rf"(?<![\w.]){re.escape(arg)}(?!\w)", message)


def test_every_public_function_has_a_valid_call():
    ours = {path for path, fn in FUNCTIONS.items() if id(fn) not in _THEORY}
    missing = sorted(ours - set(CALLS))
    assert not missing, f"add a valid call to CALLS for {missing}"
    assert not sorted(set(CALLS) - ours), "CALLS names functions that are not public"
    for path, spec in CALLS.items():
        # every argument is exercised, the optional ones included
        params = {
            name
            for name, p in inspect.signature(FUNCTIONS[path]).parameters.items()
            if p.kind is not p.VAR_KEYWORD
        }
        # (besides extra keywords of a **kwargs)
        assert params <= set(spec), path


def test_the_three_registries_cover_every_public_function():
    covered = (
        {id(THEORY_CALLABLES[path]) for path in VALID}
        | {id(fn) for fn in SPECS}
        | {id(FUNCTIONS[path]) for path in CALLS}
    )
    missing = [path for path, fn in public_functions() if id(fn) not in covered]
    assert not missing, f"public functions without a registered valid call: {missing}"


@pytest.mark.parametrize("path", sorted(CALLS))
def test_the_valid_call_runs(path):
    _call(path, _valid(path))


CASES = [
    (path, arg, kind)
    for path, spec in sorted(CALLS.items())
    for arg, (_, accepted) in spec.items()
    for kind in KINDS
    if kind not in accepted
]


@pytest.mark.parametrize(("path", "arg", "kind"), CASES)
def test_nonsense_argument_is_refused_by_name(path, arg, kind):
    kwargs = _valid(path)
    kwargs[arg] = _bad(kwargs[arg], kind)
    with pytest.raises((ValueError, TypeError)) as info:
        _call(path, kwargs)
    assert _names(str(info.value), arg), str(info.value)


def _floats(result, depth=0):
    """Every float array reachable from a result (tuples, dicts, dataclasses, objects)."""
    if depth > 4:
        return
    if isinstance(result, np.ndarray | float | np.floating):
        array = np.asarray(result)
        if np.issubdtype(array.dtype, np.inexact):
            yield array
    elif dataclasses.is_dataclass(result) and not isinstance(result, type):
        for field in dataclasses.fields(result):
            yield from _floats(getattr(result, field.name), depth + 1)
    elif isinstance(result, dict):
        for value in result.values():
            yield from _floats(value, depth + 1)
    elif isinstance(result, list | tuple):
        for value in result:
            yield from _floats(value, depth + 1)
    elif hasattr(result, "__dict__") and type(result).__module__.startswith("statmechlearn"):
        for value in vars(result).values():
            yield from _floats(value, depth + 1)


HUGE_CASES = [
    (path, arg)
    for path, spec in sorted(CALLS.items())
    for arg, (value, accepted) in spec.items()
    if accepted is not OBJECT
    and (
        (isinstance(value, float) and value != 0.0)
        or (isinstance(value, np.ndarray) and value.dtype.kind == "f" and np.any(value))
    )
]


@pytest.mark.parametrize(("path", "arg"), HUGE_CASES)
def test_extreme_but_finite_argument_works_or_is_refused_by_name(path, arg):
    kwargs = _valid(path)
    kwargs[arg] = kwargs[arg] * 1e300
    try:
        result = _call(path, kwargs)
    except (ValueError, TypeError) as exc:
        assert _names(str(exc), arg), str(exc)
        return
    for array in _floats(result):
        assert not np.isnan(array).any(), f"{path}({arg}=... * 1e300) returned NaN"


# ----------------------------------------------------------- random_state

_RANDOM_NAMES = ("rng", "seed", "random_seed", "generator", "random_generator")

#: public classes and methods taking random_state (not estimators: test_estimators.py).
RANDOM_CALLS = {
    "statmechlearn.models.LabeledMixture.sample": lambda rs: models.LabeledMixture(
        n_features=5, p_plus=0.6, lam=1.0
    ).sample(7, random_state=rs),
    "statmechlearn.models.LabeledMixture.sample_chunks": lambda rs: list(
        models.LabeledMixture(n_features=5, p_plus=0.6, lam=1.0).sample_chunks(
            7, random_state=rs, chunk_size=3
        )
    ),
    "statmechlearn.models.LabeledMixture.prototypes_from_overlaps": lambda rs: (
        models.LabeledMixture(n_features=5, p_plus=0.6, lam=1.0).prototypes_from_overlaps(
            0.1 * np.eye(2), 0.05 * np.eye(2), random_state=rs
        )
    ),
    "statmechlearn.models.OutlierMixture.sample": lambda rs: models.OutlierMixture(
        n_features=5, eta=0.0, gamma=2.0
    ).sample(7, random_state=rs),
    "statmechlearn.models.SparsePerceptron": lambda rs: (
        models.SparsePerceptron(n_features=10, C_t=0.3, random_state=rs).w_o
    ),
    "statmechlearn.models.SparsePerceptron.sample": lambda rs: models.SparsePerceptron(
        n_features=10, C_t=0.3, random_state=0
    ).sample(7, random_state=rs),
    "statmechlearn.models.TwoGaussians.sample": lambda rs: models.TwoGaussians(n_features=5).sample(
        7, random_state=rs
    ),
}


def _random_callables():
    """(public path, callable) of every public function, class and method (estimators
    aside) and the names of its parameters."""
    for path, obj in _exported():
        if inspect.isfunction(obj):
            yield path, obj
        elif inspect.isclass(obj):
            yield path, obj
            for name, member in inspect.getmembers(obj):
                if not name.startswith("_") and inspect.isfunction(member):
                    yield f"{path}.{name}", member


def _parameters(obj):
    try:
        return inspect.signature(obj).parameters
    except (TypeError, ValueError):
        return {}


def _is_estimator(obj):
    return inspect.isclass(obj) and issubclass(obj, BaseEstimator)


#: non-estimator classes and their public methods that take random_state
RANDOM_MEMBERS = {
    path
    for path, obj in _random_callables()
    if path not in FUNCTIONS
    and "random_state" in _parameters(obj)
    and not _is_estimator(obj)
    and not any(path.startswith(f"{p}.") for p, cls in _exported() if _is_estimator(cls))
}
RANDOM_PATHS = sorted(
    {path for path, fn in FUNCTIONS.items() if "random_state" in _parameters(fn)} | RANDOM_MEMBERS
)


def test_one_name_for_the_random_argument():
    wrong = [
        f"{path}({name})"
        for path, obj in _random_callables()
        for name in _parameters(obj)
        if name in _RANDOM_NAMES
    ]
    assert not wrong, f"call the random argument random_state: {wrong}"


def test_every_random_class_and_method_has_a_call():
    assert set(RANDOM_CALLS) == RANDOM_MEMBERS
    assert len(RANDOM_PATHS) >= 15


def _random_call(path, random_state):
    if path in RANDOM_CALLS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return RANDOM_CALLS[path](random_state)
    return _call(path, {**_valid(path), "random_state": random_state})


_WALL_TIME = ("seconds",)  # measured, not computed: differs between identical runs


def _arrays(result, depth=0):
    if depth > 4:
        return
    if isinstance(result, np.ndarray | numbers.Number):
        yield np.asarray(result)
    elif dataclasses.is_dataclass(result) and not isinstance(result, type):
        for field in dataclasses.fields(result):
            if field.name not in _WALL_TIME:
                yield from _arrays(getattr(result, field.name), depth + 1)
    elif isinstance(result, dict):
        for value in result.values():
            yield from _arrays(value, depth + 1)
    elif isinstance(result, list | tuple):
        for value in result:
            yield from _arrays(value, depth + 1)
    elif hasattr(result, "__dict__") and type(result).__module__.startswith("statmechlearn"):
        for value in vars(result).values():
            yield from _arrays(value, depth + 1)


@pytest.mark.parametrize("path", RANDOM_PATHS)
def test_random_state_accepts_every_kind_and_an_int_reproduces(path):
    first = list(_arrays(_random_call(path, 12345)))
    assert first, f"{path} returned nothing to compare"
    again = list(_arrays(_random_call(path, 12345)))
    assert len(first) == len(again)
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a, b)
    for random_state in (None, np.random.RandomState(0), np.random.default_rng(0)):
        _random_call(path, random_state)
