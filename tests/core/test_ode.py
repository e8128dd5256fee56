import numpy as np
import pytest

from statmechlearn._core import ConvergenceError
from statmechlearn._core.ode import integrate_order_parameters


def test_linear_system_matches_closed_form():
    # dy/dt = A y with rotation + decay: y(t) = exp(-t) (cos t, -sin t) from (1, 0)
    A = np.array([[-1.0, 1.0], [-1.0, -1.0]])
    t = np.linspace(0, 5, 11)
    traj = integrate_order_parameters(lambda _t, y: A @ y, [1.0, 0.0], t)
    expected = np.exp(-t)[:, None] * np.stack([np.cos(t), -np.sin(t)], axis=1)
    np.testing.assert_allclose(traj.y, expected, atol=1e-8)
    # dense output between report times
    np.testing.assert_allclose(
        traj.sol(1.25), np.exp(-1.25) * np.array([np.cos(1.25), -np.sin(1.25)]), atol=1e-7
    )


def test_events_are_located():
    event = lambda _t, y: y[0] - 0.5  # noqa: E731
    traj = integrate_order_parameters(lambda _t, y: -y, [1.0], [0.0, 2.0], events=event)
    assert traj.t_events[0][0] == pytest.approx(np.log(2.0), rel=1e-6)


def test_non_finite_derivative_raises_with_diagnostics():
    with (
        pytest.raises(ConvergenceError, match="non-finite derivative") as info,
        np.errstate(invalid="ignore"),
    ):
        integrate_order_parameters(lambda t, y: np.sqrt(y - 2.0), [1.0], [0.0, 2.0], method="RK45")
    assert "y0" in info.value.diagnostics


def test_blow_up_reports_failure():
    with pytest.raises(ConvergenceError):
        integrate_order_parameters(lambda _t, y: y**2, [1.0], [0.0, 2.0], method="RK45")


@pytest.mark.parametrize(
    ("y0", "t_eval", "match"),
    [
        ([np.nan], [0.0, 1.0], "y0 must contain only finite"),
        ([1.0], [1.0, 0.5], "non-decreasing"),
        ([1.0], [], "at least one"),
        ([1.0], [-1.0, 0.0], "t_eval must be >= t0"),
    ],
)
def test_bad_input_is_named(y0, t_eval, match):
    with pytest.raises(ValueError, match=match):
        integrate_order_parameters(lambda _t, y: -y, y0, t_eval)


def test_zero_length_interval_returns_initial_state():
    traj = integrate_order_parameters(lambda _t, y: -y, [2.0], [0.0, 0.0])
    np.testing.assert_array_equal(traj.y, [[2.0], [2.0]])
