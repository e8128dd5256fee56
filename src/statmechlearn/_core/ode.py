"""Integration of order-parameter ODEs with :func:`scipy.integrate.solve_ivp`."""

from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from statmechlearn._core.exceptions import ConvergenceError
from statmechlearn._core.validation import check_array_finite, check_real

__all__ = ["OrderParameterTrajectory", "integrate_order_parameters"]


@dataclass(frozen=True)
class OrderParameterTrajectory:
    """Solution of an order-parameter ODE.

    Attributes
    ----------
    t : ndarray of shape (n_times,)
        Times (``alpha``) at which the state is reported.
    y : ndarray of shape (n_times, n_state)
        State at those times.
    sol : callable or None
        Dense output: ``sol(t)`` returns the state of shape ``(n_state,)`` or
        ``(n_state, len(t))`` for any ``t`` inside the integrated range.
    t_events : list of ndarray
        Times at which each event function crossed zero.
    n_evaluations : int
        Number of right-hand-side evaluations.
    """

    t: np.ndarray
    y: np.ndarray
    sol: object
    t_events: list
    n_evaluations: int


def integrate_order_parameters(
    rhs,
    y0,
    t_eval,
    *,
    t0=0.0,
    method="LSODA",
    rtol=1e-8,
    atol=1e-10,
    events=None,
    max_step=np.inf,
):
    """Integrate ``dy/dt = rhs(t, y)`` from ``t0`` and report it at ``t_eval``.

    Parameters
    ----------
    rhs : callable
        ``rhs(t, y) -> dy/dt`` with ``y`` of shape ``(n_state,)``. It must return
        finite values; a non-finite derivative aborts with ``ConvergenceError``.
    y0 : array_like of shape (n_state,)
        Initial state at ``t0``.
    t_eval : array_like of shape (n_times,)
        Non-decreasing report times, all ``>= t0``.
    t0 : float, default=0.0
        Initial time.
    method : str, default="LSODA"
        Any :func:`scipy.integrate.solve_ivp` method. LSODA switches to a
        stiff solver automatically, which on-line learning ODEs need near
        their fixed points for small learning rates.
    rtol, atol : float, default=1e-8, 1e-10
        Tolerances passed to the solver.
    events : callable or list of callable, optional
        Event functions, as in :func:`scipy.integrate.solve_ivp`.
    max_step : float, default=inf
        Largest step the solver may take.

    Returns
    -------
    OrderParameterTrajectory

    Raises
    ------
    ConvergenceError
        If the solver fails or produces non-finite values; the diagnostics
        hold the solver message, the last time reached and the last state.
    """
    y0 = check_array_finite(y0, "y0", ndim=1)
    t_eval = check_array_finite(t_eval, "t_eval", ndim=1)
    t0 = check_real(t0, "t0")
    if t_eval.size == 0:
        raise ValueError("t_eval must contain at least one time")
    if np.any(np.diff(t_eval) < 0):
        raise ValueError("t_eval must be non-decreasing")
    if t_eval[0] < t0:
        raise ValueError(f"t_eval must be >= t0 = {t0}, got t_eval[0] = {t_eval[0]}")

    def guarded(t, y):
        dy = np.asarray(rhs(t, y), dtype=float)
        if not np.all(np.isfinite(dy)):
            raise FloatingPointError(f"non-finite derivative at t={t:.6g}")
        return dy

    t_end = float(t_eval[-1])
    if t_end == t0:
        y = np.repeat(y0[None, :], t_eval.size, axis=0)
        return OrderParameterTrajectory(t_eval.copy(), y, None, [], 0)
    try:
        res = solve_ivp(
            guarded,
            (t0, t_end),
            y0,
            method=method,
            t_eval=t_eval,
            dense_output=True,
            rtol=rtol,
            atol=atol,
            events=events,
            max_step=max_step,
        )
    except FloatingPointError as exc:
        raise ConvergenceError(
            f"order-parameter ODE failed: {exc}", {"y0": y0, "method": method}
        ) from exc
    if not res.success or not np.all(np.isfinite(res.y)):
        last_t = float(res.t[-1]) if res.t.size else t0
        raise ConvergenceError(
            f"order-parameter ODE failed at t={last_t:.6g}: {res.message}",
            {
                "message": res.message,
                "t_last": last_t,
                "y_last": res.y[:, -1] if res.y.size else y0,
                "n_evaluations": res.nfev,
            },
        )
    return OrderParameterTrajectory(
        t=res.t,
        y=res.y.T.copy(),
        sol=res.sol,
        t_events=list(res.t_events) if res.t_events is not None else [],
        n_evaluations=int(res.nfev),
    )
