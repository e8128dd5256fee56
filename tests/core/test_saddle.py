"""The shared saddle-point toolkit against closed forms, and its failure modes."""

import math
import warnings

import numpy as np
import pytest

from statmechlearn._core.exceptions import ConvergenceError, ConvergenceWarning
from statmechlearn._core.saddle import (
    ContinuationResult,
    FixedPointResult,
    NewtonResult,
    continuation,
    damped_fixed_point,
    finite_difference_jacobian,
    newton,
    refine_fold,
)

DOTTIE = 0.7390851332151607  # the root of x = cos x


# ----------------------------------------------------------------------------- fixed point


@pytest.mark.parametrize("damping", [1.0, 0.6, 0.2])
def test_fixed_point_of_cosine(damping):
    res = damped_fixed_point(np.cos, 1.0, damping=damping, tol=1e-13, max_iter=2000)
    assert isinstance(res, FixedPointResult)
    assert res.converged
    assert res.x[0] == pytest.approx(DOTTIE, abs=1e-11)
    assert 1 <= res.n_iter <= 2000
    assert res.residual <= 1e-13


def test_damping_stabilises_an_oscillating_map():
    # G(x) = -2x + 3 has the fixed point 1 but |G'| = 2: the plain iteration diverges,
    # damping 0.25 makes the map x -> x + 0.25 (G(x) - x) = 0.25 x + 0.75 a contraction
    with pytest.raises(ConvergenceError):
        damped_fixed_point(lambda x: -2.0 * x + 3.0, 0.0, max_iter=50)
    res = damped_fixed_point(lambda x: -2.0 * x + 3.0, 0.0, damping=0.25, tol=1e-12)
    assert res.x[0] == pytest.approx(1.0, abs=1e-11)


def test_fixed_point_vector_state_and_path():
    A = np.array([[0.5, 0.1], [0.2, 0.3]])
    b = np.array([1.0, -1.0])
    res = damped_fixed_point(lambda x: A @ x + b, [0.0, 0.0], tol=1e-14, return_path=True)
    np.testing.assert_allclose(res.x, np.linalg.solve(np.eye(2) - A, b), atol=1e-12)
    assert res.path.shape == (res.n_iter + 1, 2)
    np.testing.assert_array_equal(res.path[0], [0.0, 0.0])


def test_fixed_point_relative_tolerance_stops_earlier_on_large_states():
    absolute = damped_fixed_point(lambda x: 0.5 * x + 1e6, 0.0, tol=1e-6)
    relative = damped_fixed_point(lambda x: 0.5 * x + 1e6, 0.0, tol=1e-6, rtol=1e-6)
    assert relative.n_iter < absolute.n_iter
    assert abs(relative.x[0] - 2e6) <= 4.0  # change <= 2 (x* - x_k), change <= rtol |x|


def test_fixed_point_failure_carries_diagnostics():
    with pytest.raises(ConvergenceError, match="max_iter=5") as info:
        damped_fixed_point(lambda x: x + 1.0, 0.0, max_iter=5)
    assert info.value.diagnostics["n_iter"] == 5
    assert info.value.diagnostics["residual"] == pytest.approx(1.0)
    res = damped_fixed_point(lambda x: x + 1.0, 0.0, max_iter=5, raise_on_failure=False)
    assert not res.converged and res.n_iter == 5 and res.x[0] == 5.0


def test_fixed_point_non_finite_map_fails():
    with pytest.raises(ConvergenceError, match="non-finite"):
        damped_fixed_point(lambda x: np.full_like(x, np.nan), 0.0)


# ----------------------------------------------------------------------------- Newton


def test_newton_scalar_root():
    res = newton(lambda x: x - np.cos(x), 0.0, tol=1e-14)
    assert isinstance(res, NewtonResult)
    assert res.converged and res.x[0] == pytest.approx(DOTTIE, abs=1e-13)
    assert res.residual <= 1e-14
    assert res.n_iter < 10


def _circle_line(x):
    # x^2 + y^2 = 4 and y = x: the root in the first quadrant is (sqrt 2, sqrt 2)
    return np.array([x[0] ** 2 + x[1] ** 2 - 4.0, x[1] - x[0]])


@pytest.mark.parametrize("analytic", [False, True])
def test_newton_two_dimensional_system(analytic):
    jac = (lambda x: np.array([[2.0 * x[0], 2.0 * x[1]], [-1.0, 1.0]])) if analytic else None
    res = newton(_circle_line, [3.0, 0.5], jacobian=jac, tol=1e-13)
    np.testing.assert_allclose(res.x, [math.sqrt(2.0), math.sqrt(2.0)], atol=1e-12)


def test_newton_step_halving_rescues_an_overshooting_step():
    # arctan: plain Newton from |x0| > 1.39 diverges; step halving converges
    res = newton(np.arctan, 3.0, tol=1e-12)
    assert res.converged and abs(res.x[0]) < 1e-12


def test_newton_nan_rejects_trial_points():
    # sqrt is undefined left of 0: the residual's NaN must shorten the step, not poison x
    res = newton(lambda x: np.sqrt(x) - 0.5 if x[0] >= 0 else np.array([np.nan]), 4.0, tol=1e-12)
    assert res.x[0] == pytest.approx(0.25, abs=1e-12)


def test_newton_failure_modes():
    # x^2 + 1 has no real root: the line search gives up
    with pytest.raises(ConvergenceError) as info:
        newton(lambda x: x**2 + 1.0, 1.0)
    diag = info.value.diagnostics
    assert diag["reason"] in {"line_search", "singular_jacobian", "max_iter"}
    assert diag["residual"] >= 1.0 and "x" in diag and "n_iter" in diag
    # a singular Jacobian
    with pytest.raises(ConvergenceError, match="singular"):
        newton(lambda x: np.array([x[0] + x[1] - 1.0, 2.0 * (x[0] + x[1]) - 3.0]), [0.0, 0.0])
    # too few steps
    res = newton(lambda x: x - np.cos(x), 0.0, tol=1e-15, max_iter=1, raise_on_failure=False)
    assert not res.converged and res.n_iter == 1


def test_finite_difference_jacobian_is_accurate():
    x = np.array([0.3, -1.2])
    f0, jac = finite_difference_jacobian(_circle_line, x)
    np.testing.assert_allclose(f0, _circle_line(x))
    np.testing.assert_allclose(jac, [[0.6, -2.4], [-1.0, 1.0]], atol=1e-7)


# ----------------------------------------------------------------------------- continuation


def _cubic(x, p):
    return x**3 - x + p


def test_continuation_finds_the_folds_of_the_cubic():
    res = continuation(_cubic, [1.5], -1.875, p_range=(-2.0, 2.0))
    assert isinstance(res, ContinuationResult)
    fold = 2.0 / (3.0 * math.sqrt(3.0))
    np.testing.assert_allclose(res.folds, [fold, -fold], atol=1e-8)
    np.testing.assert_allclose(res.x[res.fold_index, 0], [1.0, -1.0] / np.sqrt(3.0), atol=1e-6)
    assert res.reason == "parameter_range" and res.converged
    # every point is on the curve, and the branch leaves the range at p > 2
    np.testing.assert_allclose(_cubic(res.x[:, 0], res.parameter), 0.0, atol=1e-8)
    assert res.parameter[-1] > 2.0
    assert res.points.shape == (len(res.parameter), 2)
    # the parameter's tangent component changes sign exactly at the folds
    assert np.all(np.abs(res.tangents) <= 1.0 + 1e-12)


def test_continuation_around_the_circle():
    # x^2 + p^2 = 1 from (x, p) = (-1, 0)... in direction +p: folds at p = 1 and p = -1
    res = continuation(
        lambda x, p: x**2 + p**2 - 1.0,
        [-math.sqrt(0.75)],
        0.5,
        stop=lambda x, p: x[0] < -0.9 and p < 0.0,
        max_step=0.1,
    )
    np.testing.assert_allclose(res.folds, [1.0, -1.0], atol=1e-8)
    assert res.reason == "stop"


def test_continuation_without_refinement_reports_the_nearest_point():
    res = continuation(_cubic, [1.5], -1.875, p_range=(-2.0, 2.0), refine_folds=False)
    fold = 2.0 / (3.0 * math.sqrt(3.0))
    np.testing.assert_allclose(res.folds, [fold, -fold], atol=0.02)


def test_continuation_direction_and_analytic_jacobian():
    res = continuation(
        _cubic,
        [1.5],
        -1.875,
        direction=-1,
        p_range=(-3.0, 2.0),
        jacobian=lambda x, p: np.array([[3.0 * x[0] ** 2 - 1.0, 1.0]]),
    )
    # going down in p from x = 1.5 the branch only grows: no fold
    assert res.fold_index.size == 0 and res.parameter[-1] < -3.0


def test_refine_fold_closed_form():
    res = refine_fold(_cubic, [0.55, 0.38])
    assert res.converged
    np.testing.assert_allclose(
        res.x, [1.0 / math.sqrt(3.0), 2.0 / (3.0 * math.sqrt(3.0))], atol=1e-8
    )


def test_continuation_failure_modes():
    with pytest.raises(ConvergenceError, match="not a solution"):
        continuation(lambda x, p: x**2 + 1.0 + p * 0.0, [0.5], 0.0)

    # the branch x = sqrt(p) ends at p = 0 where the residual becomes NaN: a stall
    def sqrt_branch(x, p):
        return np.array([x[0] ** 2 - p]) if x[0] > 0 else np.array([np.nan])

    with pytest.raises(ConvergenceError, match="stalled") as info:
        continuation(sqrt_branch, [1.0], 1.0, direction=-1)
    assert "p" in info.value.diagnostics
    res = continuation(sqrt_branch, [1.0], 1.0, direction=-1, accept_stall=lambda x, p: p < 1e-2)
    assert res.reason == "stalled" and res.parameter[-1] < 1e-2
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        with pytest.raises(ConvergenceWarning, match="max_steps"):
            continuation(_cubic, [1.5], -1.875, max_steps=3)


# ----------------------------------------------------------------------------- validation


_NON_FINITE = (math.nan, math.inf, -math.inf)
_NOT_POSITIVE = (*_NON_FINITE, -1.0, 0.0)
_REAL_CASES = [
    (lambda v: damped_fixed_point(np.cos, 1.0, damping=v), "damping", (*_NOT_POSITIVE, 1.5)),
    (lambda v: damped_fixed_point(np.cos, 1.0, tol=v), "tol", _NOT_POSITIVE),
    (lambda v: damped_fixed_point(np.cos, 1.0, rtol=v), "rtol", (*_NON_FINITE, -1.0)),
    (lambda v: damped_fixed_point(np.cos, v), "x0", _NON_FINITE),
    (lambda v: newton(np.sin, 1.0, tol=v), "tol", _NOT_POSITIVE),
    (lambda v: newton(np.sin, 1.0, fd_step=v), "fd_step", _NOT_POSITIVE),
    (lambda v: newton(np.sin, 1.0, min_step_scale=v), "min_step_scale", (*_NOT_POSITIVE, 2.0)),
    (lambda v: newton(np.sin, v), "x0", _NON_FINITE),
    (lambda v: continuation(_cubic, [1.5], -1.875, step=v), "step", _NOT_POSITIVE),
    (lambda v: continuation(_cubic, [1.5], -1.875, min_step=v), "min_step", _NOT_POSITIVE),
    (lambda v: continuation(_cubic, [1.5], -1.875, tol=v), "tol", _NOT_POSITIVE),
    (lambda v: continuation(_cubic, [1.5], v), "p0", _NON_FINITE),
    (lambda v: continuation(_cubic, [v], -1.875), "x0", _NON_FINITE),
    (lambda v: continuation(_cubic, [1.5], -1.875, growth=v), "growth", (*_NOT_POSITIVE, 0.5)),
    (lambda v: refine_fold(_cubic, [0.5, v]), "u", _NON_FINITE),
    (lambda v: refine_fold(_cubic, [0.5, 0.3], tol=v), "tol", _NOT_POSITIVE),
]


@pytest.mark.parametrize(
    ("call", "name", "value"),
    [(call, name, v) for call, name, values in _REAL_CASES for v in values],
)
def test_real_arguments_are_validated(call, name, value):
    with pytest.raises(ValueError, match=name):
        call(value)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda v: damped_fixed_point(np.cos, 1.0, max_iter=v), "max_iter"),
        (lambda v: newton(np.sin, 1.0, max_iter=v), "max_iter"),
        (lambda v: continuation(_cubic, [1.5], -1.875, max_steps=v), "max_steps"),
        (lambda v: continuation(_cubic, [1.5], -1.875, corrector_max_iter=v), "corrector_max_iter"),
    ],
)
def test_integer_arguments_are_validated(call, name):
    for bad in (0, -3):
        with pytest.raises(ValueError, match=name):
            call(bad)
    with pytest.raises(TypeError, match=name):
        call(2.5)


def test_other_arguments_are_validated():
    with pytest.raises(ValueError, match="direction"):
        continuation(_cubic, [1.5], -1.875, direction=0)
    with pytest.raises(ValueError, match="p_range"):
        continuation(_cubic, [1.5], -1.875, p_range=(0.0, 1.0))
    with pytest.raises(ValueError, match="max_step"):
        continuation(_cubic, [1.5], -1.875, step=0.5, max_step=0.1)
    with pytest.raises(ValueError, match="min_alignment"):
        continuation(_cubic, [1.5], -1.875, min_alignment=1.0)
