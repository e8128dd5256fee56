"""The annealing engine: one schedule, one loop, one vocabulary, used by every annealer."""

import importlib
import inspect
import pkgutil
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator

import statmechlearn
import statmechlearn.cluster as cluster
from statmechlearn.cluster._schedule import (
    SPLIT_MARGIN,
    GeometricSchedule,
    geometric_schedule,
    run_schedule,
)

# ------------------------------------------------------------------------------- schedule


def test_geometric_schedule_runs_from_max_to_min_by_cooling_rate():
    t = GeometricSchedule(10.0, 0.1, 0.5).temperatures()
    assert t[0] == 10.0 and t[-1] == 0.1
    np.testing.assert_allclose(t[1:-1] / t[:-2], 0.5, rtol=1e-12)
    assert 0.1 / t[-2] > 0.5 - 1e-12  # the floor is never overshot
    np.testing.assert_array_equal(geometric_schedule(10.0, 0.1, 0.5), t)
    # a start below the floor runs the floor alone
    np.testing.assert_array_equal(geometric_schedule(0.05, 0.1, 0.5), [0.1])


def test_geometric_schedule_anchored_at_min_is_a_beta_lattice():
    t = geometric_schedule(3.0, 0.1, 1 / 1.05, anchor="min")
    assert t[0] == 3.0 and t[-1] == 0.1 and np.all(np.diff(t) < 0)
    np.testing.assert_allclose(t[-1] / t[1:], 1.05 ** -np.arange(t.size - 2, -1, -1), rtol=1e-12)
    with pytest.raises(ValueError, match="anchor"):
        geometric_schedule(3.0, 0.1, 0.5, anchor="middle")


def test_refinement_lands_just_below_a_pending_critical_temperature():
    sched = GeometricSchedule(10.0, 0.1, 0.5)
    assert sched.next(10.0) == 5.0
    # a critical temperature the step would jump over: land (1 - margin) below it
    assert sched.next(10.0, critical=[8.0, 7.0]) == pytest.approx(8.0 * (1 - SPLIT_MARGIN))
    # one already passed, or not reached by the step, changes nothing
    assert sched.next(10.0, critical=[20.0, 4.0]) == 5.0
    assert sched.next(0.1) is None


# ---------------------------------------------------------------------------------- driver


def test_run_schedule_calls_the_models_hooks_in_order():
    calls = []

    def solve(state, T):
        calls.append(("solve", T))
        return state + 1

    def transition(state, T):
        calls.append(("transition", T))
        return state

    def record(state, T):
        calls.append(("record", T))

    state, temps = run_schedule(
        0, GeometricSchedule(4.0, 1.0, 0.5), solve=solve, transition=transition, record=record
    )
    np.testing.assert_array_equal(temps, [4.0, 2.0, 1.0])
    assert state == 3
    assert calls == [
        (name, T) for T in (4.0, 2.0, 1.0) for name in ("solve", "transition", "record")
    ]


def test_run_schedule_stops_early_and_refines_by_the_models_critical_temperatures():
    state, temps = run_schedule(
        0,
        GeometricSchedule(8.0, 0.01, 0.5),
        solve=lambda s, T: s + 1,
        stop=lambda s, T: s == 3,
        critical=lambda s: [7.0],
    )
    assert state == 3
    np.testing.assert_allclose(temps, [8.0, 7.0 * (1 - SPLIT_MARGIN), 3.325])
    # an explicit sequence is run as given
    _, temps = run_schedule(0, [3.0, 2.0, 0.5], solve=lambda s, T: s)
    np.testing.assert_array_equal(temps, [3.0, 2.0, 0.5])


# ------------------------------------------------- every annealer runs the engine's schedule

_VOCABULARY = {"max_temperature", "min_temperature", "cooling_rate"}
_OLD_NAMES = {"T_min", "T_max", "T_start", "T_end", "cooling", "t_start", "t_end", "beta_max"}
_OLD_NAMES |= {"growth", "beta_min", "temp", "tmin", "tmax", "temperature_min"}
# Annealed in another variable, whose schedule ends at its own parameter: the Gaussian width
# sigma (T = 2 sigma) of EqualWidthMixture, which runs DeterministicAnnealing down to it.
_OWN_FLOOR = {"EqualWidthMixture"}


def _public_callables():
    """Every public class and function of every statmechlearn subpackage."""
    seen = {}
    for info in pkgutil.iter_modules(statmechlearn.__path__):
        if info.name.startswith("_") or info.name in ("cli", "experiments"):
            continue
        module = importlib.import_module(f"statmechlearn.{info.name}")
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if inspect.isclass(obj) or inspect.isfunction(obj):
                seen[f"{info.name}.{name}"] = obj
    return seen


def _annealers():
    """Cluster estimators with a cooling schedule (found by their parameters, not listed)."""
    out = []
    for name in cluster.__all__:
        cls = getattr(cluster, name)
        if (
            inspect.isclass(cls)
            and issubclass(cls, BaseEstimator)
            and "cooling_rate" in inspect.signature(cls).parameters
        ):
            out.append(cls)
    return out


def test_one_annealing_vocabulary_everywhere():
    public = _public_callables()
    assert len(public) > 50
    for name, obj in public.items():
        try:
            params = set(inspect.signature(obj).parameters)
        except (TypeError, ValueError):  # builtins, numba dispatchers
            continue
        assert not params & _OLD_NAMES, f"{name} uses {params & _OLD_NAMES}"
    annealers = _annealers()
    assert len(annealers) >= 10
    for cls in annealers:
        params = set(inspect.signature(cls).parameters)
        if cls.__name__ in _OWN_FLOOR:
            continue
        assert params >= _VOCABULARY, f"{cls.__name__} lacks {_VOCABULARY - params}"


def _data(estimator):
    rng = np.random.default_rng(0)
    tags = estimator.__sklearn_tags__()
    X = np.r_[rng.normal(-2, 0.5, (20, 2)), rng.normal(2, 0.5, (20, 2))]
    if tags.input_tags.pairwise:  # a dissimilarity matrix, which is also positive-only
        return ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    if tags.input_tags.positive_only:
        return rng.poisson(4.0, (40, 5)) + np.eye(5, dtype=int)[rng.integers(0, 5, 40)] * 8
    return X


@pytest.mark.parametrize("cls", _annealers(), ids=lambda c: c.__name__)
def test_every_annealer_runs_the_engines_schedule(cls):
    """Fitted with given ends and rate, the path's temperatures are the engine's schedule."""
    if cls.__name__ in _OWN_FLOOR:
        _check_own_floor(cls)
        return
    params = {"max_temperature": 3.0, "min_temperature": 0.3, "cooling_rate": 0.6}
    if "adaptive" in inspect.signature(cls).parameters:
        params["adaptive"] = False  # the refined schedule depends on the data
    est = cls(**params)
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    X = _data(est)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X)
    # The information bottleneck's grid is anchored at beta_max = 1 / min_temperature.
    anchor = "min" if cls is cluster.InformationBottleneck else "max"
    expected = geometric_schedule(3.0, 0.3, 0.6, anchor=anchor)
    temps = np.asarray(est.path_.temperature)
    # SmoothKMeans may stop once every assignment is hard, and restarts from lower down.
    first_run = temps[: np.argmax(np.r_[np.diff(temps) > 0, True]) + 1]
    if cls is cluster.SmoothKMeans:
        np.testing.assert_array_equal(first_run, expected[: first_run.size])
    else:
        np.testing.assert_array_equal(temps, expected)
        assert est.temperature_ == 0.3


def _check_own_floor(cls):
    """EqualWidthMixture anneals unconstrained DA down to T = 2 sigma: the same path."""
    X = _data(cluster.DeterministicAnnealing())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = cls(sigma=0.15, cooling_rate=0.6, random_state=0).fit(X)
        da = cluster.DeterministicAnnealing(
            2, mass_constrained=False, min_temperature=0.3, cooling_rate=0.6, random_state=0
        ).fit(X)
    np.testing.assert_array_equal(est.path_.temperature, da.path_.temperature)
    assert est.path_.temperature[-1] == 0.3
