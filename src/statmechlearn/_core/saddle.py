"""Saddle-point solvers shared by the theory modules: fixed point, Newton, continuation.

Replica saddle points are roots ``F(x) = 0`` of a few order-parameter
equations, often written as a self-consistency ``x = G(x)``, and often
wanted along a whole branch in one control parameter ``p`` (a load, a
temperature, a chemical potential) whose S-shape has turning points. This
module knows no paper; a theory module supplies ``G`` or ``F`` and keeps its
physics.

One convention for all three solvers: each returns a frozen result with
``converged``, ``n_iter`` and ``residual``. A solve that does not converge
raises :class:`~statmechlearn._core.exceptions.ConvergenceError` (with the
diagnostics in its ``diagnostics`` dict) unless ``raise_on_failure=False``,
in which case the unconverged result is returned for the caller to handle
(a continuation's corrector, for instance, shortens its step instead).

Residual norms are maximum norms, and a residual with a NaN or an infinite
entry has norm ``inf``: a model function may return NaN to reject a trial
point outside its domain.
"""

import math
from dataclasses import dataclass

import numpy as np

from statmechlearn._core.exceptions import ConvergenceError, ConvergenceWarning
from statmechlearn._core.validation import check_array_finite, check_int, check_real
from statmechlearn._core.warn import warn

__all__ = [
    "ContinuationResult",
    "FixedPointResult",
    "NewtonResult",
    "continuation",
    "damped_fixed_point",
    "finite_difference_jacobian",
    "newton",
    "refine_fold",
]


# ----------------------------------------------------------------------------- results


@dataclass(frozen=True)
class FixedPointResult:
    """Outcome of :func:`damped_fixed_point`.

    Attributes
    ----------
    x : ndarray of shape (n,)
        The last iterate.
    converged : bool
        Whether the last change met the tolerance.
    n_iter : int
        Number of updates performed.
    residual : float
        Maximum norm of the last change ``x_k - x_{k-1}``.
    path : ndarray of shape (n_iter + 1, n) or None
        Every iterate, the start included, when ``return_path=True``.
    """

    x: np.ndarray
    converged: bool
    n_iter: int
    residual: float
    path: np.ndarray = None


@dataclass(frozen=True)
class NewtonResult:
    """Outcome of :func:`newton` (and :func:`refine_fold`).

    Attributes
    ----------
    x : ndarray of shape (n,)
        The last accepted iterate.
    converged : bool
        Whether ``max |F(x)| <= tol``.
    n_iter : int
        Number of Newton steps taken.
    residual : float
        ``max |F(x)|`` at ``x`` (``inf`` if F is not finite there).
    """

    x: np.ndarray
    converged: bool
    n_iter: int
    residual: float


@dataclass(frozen=True)
class ContinuationResult:
    """A branch of solutions of ``F(x, p) = 0`` traced by :func:`continuation`.

    Attributes
    ----------
    x : ndarray of shape (n_points, n)
        The solutions along the branch, in arclength order.
    parameter : ndarray of shape (n_points,)
        The parameter ``p`` of each point (not monotone across folds).
    tangents : ndarray of shape (n_points, n + 1)
        Unit tangents ``d(x, p)/ds``, oriented along the direction of travel.
    fold_index : ndarray of int
        Indices into the branch of its turning points (folds), where the
        tangent's parameter component changes sign. With
        ``refine_folds=True`` these are extra points inserted on the fold.
    reason : str
        Why the continuation ended: ``"parameter_range"`` (``p`` left
        ``p_range``), ``"stop"`` (the ``stop`` callback), ``"stalled"`` (the
        step fell below ``min_step`` and ``accept_stall`` accepted it) or
        ``"max_steps"``.
    n_steps : int
        Number of predictor-corrector attempts, accepted or not.
    converged : bool
        True unless ``reason == "max_steps"``.
    n_iter : int
        Same as ``n_steps`` (the common result vocabulary).
    residual : float
        ``max |F|`` at the last point.
    """

    x: np.ndarray
    parameter: np.ndarray
    tangents: np.ndarray
    fold_index: np.ndarray
    reason: str
    n_steps: int
    residual: float

    @property
    def converged(self):
        """True unless the step budget ran out before the branch ended."""
        return self.reason != "max_steps"

    @property
    def n_iter(self):
        """Number of predictor-corrector attempts (alias of ``n_steps``)."""
        return self.n_steps

    @property
    def points(self):
        """``(x, p)`` stacked: an array of shape (n_points, n + 1)."""
        return np.column_stack([self.x, self.parameter])

    @property
    def folds(self):
        """Parameter values at the folds, in branch order."""
        return self.parameter[self.fold_index]


# ----------------------------------------------------------------------------- validation


def _check_x0(x0, name="x0"):
    return np.atleast_1d(check_array_finite(x0, name)).astype(float, copy=True).ravel()


def _check_tol(tol, name="tol"):
    return check_real(tol, name, minimum=0.0, include_min=False)


def _check_max_iter(max_iter, name="max_iter"):
    return check_int(max_iter, name, minimum=1)


def _norm(f):
    f = np.asarray(f, dtype=float)
    return float(np.max(np.abs(f))) if f.size and np.all(np.isfinite(f)) else math.inf


def _fail(message, diagnostics, raise_on_failure):
    if raise_on_failure:
        raise ConvergenceError(message, diagnostics)


# ----------------------------------------------------------------------------- fixed point


def damped_fixed_point(
    update,
    x0,
    *,
    damping=1.0,
    tol=1e-10,
    rtol=0.0,
    max_iter=1000,
    raise_on_failure=True,
    return_path=False,
):
    """Solve ``x = G(x)`` by the damped iteration ``x <- (1 - d) x + d G(x)``.

    Parameters
    ----------
    update : callable
        ``G(x) -> array`` of the shape of ``x``.
    x0 : array_like
        Starting point (a scalar is treated as a 1-vector); finite.
    damping : float, default=1.0
        Weight ``d`` of the update, in ``(0, 1]``; 1 is the plain iteration,
        smaller values stabilise an oscillating map.
    tol : float, default=1e-10
        Absolute tolerance on the change, > 0.
    rtol : float, default=0.0
        Relative tolerance, >= 0: the iteration stops when
        ``max |x_k - x_{k-1}| <= tol + rtol * max |x_k|``.
    max_iter : int, default=1000
        Maximum number of updates, >= 1.
    raise_on_failure : bool, default=True
        Raise :class:`ConvergenceError` if the tolerance is not met (or the
        map returns a non-finite value); otherwise return the unconverged
        result.
    return_path : bool, default=False
        Keep every iterate in ``FixedPointResult.path``.

    Returns
    -------
    FixedPointResult

    Raises
    ------
    ConvergenceError
        On non-convergence (``raise_on_failure=True``); ``diagnostics`` holds
        ``n_iter``, ``residual`` and the last ``x``.

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn._core.saddle import damped_fixed_point
    >>> res = damped_fixed_point(np.cos, 1.0, damping=0.7, tol=1e-12)
    >>> round(float(res.x[0]), 10)
    0.7390851332
    """
    damping = check_real(damping, "damping", minimum=0.0, maximum=1.0, include_min=False)
    tol = _check_tol(tol)
    rtol = check_real(rtol, "rtol", minimum=0.0)
    max_iter = _check_max_iter(max_iter)
    x = _check_x0(x0)
    path = [x.copy()] if return_path else None
    change = math.inf
    for n in range(1, max_iter + 1):
        g = np.asarray(update(x), dtype=float).reshape(x.shape)
        x_new = x + damping * (g - x) if damping < 1.0 else g
        if not np.all(np.isfinite(x_new)):
            _fail(
                f"fixed-point map returned a non-finite value after {n} iterations",
                {"n_iter": n, "residual": math.inf, "x": x.tolist()},
                raise_on_failure,
            )
            return FixedPointResult(x, False, n, math.inf, _stack(path))
        change = float(np.max(np.abs(x_new - x)))
        x = x_new
        if path is not None:
            path.append(x.copy())
        if change <= tol + rtol * float(np.max(np.abs(x))):
            return FixedPointResult(x, True, n, change, _stack(path))
    _fail(
        f"fixed-point iteration did not converge in max_iter={max_iter} iterations "
        f"(last change {change:.3e}, tol={tol:g}, rtol={rtol:g}, damping={damping:g}); "
        "decrease damping or increase max_iter",
        {"n_iter": max_iter, "residual": change, "x": x.tolist()},
        raise_on_failure,
    )
    return FixedPointResult(x, False, max_iter, change, _stack(path))


def _stack(path):
    return None if path is None else np.array(path)


# ----------------------------------------------------------------------------- Newton


def finite_difference_jacobian(fun, x, *, step=1e-7):
    """Central-difference Jacobian of ``fun`` at ``x``.

    Parameters
    ----------
    fun : callable
        ``fun(x) -> array`` of shape (m,).
    x : ndarray of shape (n,)
    step : float, default=1e-7
        Relative step: component ``i`` moves by ``step * max(1, |x_i|)``.

    Returns
    -------
    f0 : ndarray of shape (m,)
        ``fun(x)``.
    jac : ndarray of shape (m, n)
    """
    x = np.asarray(x, dtype=float)
    f0 = np.asarray(fun(x), dtype=float)
    jac = np.empty((f0.size, x.size))
    for i in range(x.size):
        dx = np.zeros_like(x)
        dx[i] = step * max(1.0, abs(x[i]))
        jac[:, i] = (np.asarray(fun(x + dx)) - np.asarray(fun(x - dx))) / (2.0 * dx[i])
    return f0, jac


def _evaluate(residual, jacobian, x, fd_step):
    if jacobian is None:
        return finite_difference_jacobian(residual, x, step=fd_step)
    return np.asarray(residual(x), dtype=float), np.asarray(jacobian(x), dtype=float)


def newton(
    residual,
    x0,
    *,
    jacobian=None,
    tol=1e-10,
    max_iter=30,
    fd_step=1e-7,
    min_step_scale=1e-4,
    raise_on_failure=True,
):
    """Solve ``F(x) = 0`` by Newton's method with step halving.

    Each Newton step ``dx = -J^{-1} F`` is halved until the maximum norm of
    the residual decreases (or meets ``tol``); if even ``min_step_scale * dx``
    does not, or ``J`` is singular, the solve fails.

    Parameters
    ----------
    residual : callable
        ``F(x) -> array`` of shape (n,); may return NaN to reject ``x``.
    x0 : array_like of shape (n,)
        Starting point; finite.
    jacobian : callable, optional
        ``J(x) -> array`` of shape (n, n). Default: central differences
        (:func:`finite_difference_jacobian`).
    tol : float, default=1e-10
        Converged when ``max |F(x)| <= tol``; > 0.
    max_iter : int, default=30
        Maximum number of Newton steps, >= 1.
    fd_step : float, default=1e-7
        Relative step of the finite-difference Jacobian, > 0.
    min_step_scale : float, default=1e-4
        Smallest fraction of a Newton step tried, in (0, 1].
    raise_on_failure : bool, default=True
        Raise :class:`ConvergenceError` on failure; otherwise return the last
        accepted iterate with ``converged=False``.

    Returns
    -------
    NewtonResult

    Raises
    ------
    ConvergenceError
        On failure (``raise_on_failure=True``); ``diagnostics`` holds
        ``n_iter``, ``residual``, ``x`` and ``reason`` (``"max_iter"``,
        ``"singular_jacobian"`` or ``"line_search"``).

    Examples
    --------
    >>> import numpy as np
    >>> from statmechlearn._core.saddle import newton
    >>> res = newton(lambda x: x - np.cos(x), 1.0, tol=1e-14)
    >>> round(float(res.x[0]), 12)
    0.739085133215
    """
    tol = _check_tol(tol)
    max_iter = _check_max_iter(max_iter)
    fd_step = check_real(fd_step, "fd_step", minimum=0.0, include_min=False)
    min_step_scale = check_real(
        min_step_scale, "min_step_scale", minimum=0.0, maximum=1.0, include_min=False
    )
    x = _check_x0(x0)
    return _newton(residual, x, jacobian, tol, max_iter, fd_step, min_step_scale, raise_on_failure)


def _newton(residual, x, jacobian, tol, max_iter, fd_step, min_scale, raise_on_failure):
    f, jac = _evaluate(residual, jacobian, x, fd_step)
    norm = _norm(f)
    reason = "max_iter"
    n = 0
    for n in range(max_iter):
        if norm <= tol:
            return NewtonResult(x, True, n, norm)
        try:
            dx = np.linalg.solve(jac, -f)
        except np.linalg.LinAlgError:
            reason = "singular_jacobian"
            break
        scale = 1.0
        while scale > min_scale:
            x_new = x + scale * dx
            norm_new = _norm(residual(x_new))
            if norm_new < norm or norm_new <= tol:
                break
            scale *= 0.5
        else:
            reason = "line_search"
            break
        x, norm = x_new, norm_new
        if norm > tol:
            f, jac = _evaluate(residual, jacobian, x, fd_step)
    else:
        n = max_iter
        if norm <= tol:
            return NewtonResult(x, True, n, norm)
    _fail(
        f"Newton's method did not converge ({reason.replace('_', ' ')}) after {n} steps: "
        f"residual {norm:.3e} > tol={tol:g}",
        {"n_iter": n, "residual": norm, "x": x.tolist(), "reason": reason},
        raise_on_failure,
    )
    return NewtonResult(x, False, n, norm)


# ----------------------------------------------------------------------------- continuation


def _tangent(jac, previous=None, direction=1.0):
    """Unit null vector of the (n, n + 1) Jacobian, oriented along ``previous``."""
    t = np.linalg.svd(jac)[2][-1]
    if previous is None:
        return t if t[-1] * direction > 0 else -t
    return t if t @ previous > 0 else -t


def refine_fold(residual, u, *, tol=1e-9, max_iter=15, fd_step=1e-6, raise_on_failure=False):
    """Locate a fold of ``F(x, p) = 0`` near ``u = (x, p)``.

    Solves the augmented system ``F(x, p) = 0``, ``det dF/dx = 0`` by
    :func:`newton`, with ``dF/dx`` by central differences.

    Parameters
    ----------
    residual : callable
        ``F(x, p) -> array`` of shape (n,).
    u : array_like of shape (n + 1,)
        A branch point near the fold, ``(x, p)`` stacked.
    tol : float, default=1e-9
        Tolerance of the augmented residual, > 0.
    max_iter : int, default=15
        Newton steps, >= 1.
    fd_step : float, default=1e-6
        Relative step of the ``dF/dx`` differences inside the determinant.
    raise_on_failure : bool, default=False
        Raise :class:`ConvergenceError` if the fold is not found.

    Returns
    -------
    NewtonResult
        ``x`` is the refined ``(x, p)``.
    """
    tol = _check_tol(tol)
    max_iter = _check_max_iter(max_iter)
    u = _check_x0(u, "u")

    def full(v):
        return np.asarray(residual(v[:-1], v[-1]), dtype=float)

    def augmented(v):
        jac = finite_difference_jacobian(full, v, step=fd_step)[1][:, :-1]
        return np.append(full(v), np.linalg.det(jac))

    return _newton(augmented, u, None, tol, max_iter, 1e-7, 1e-4, raise_on_failure)


def continuation(
    residual,
    x0,
    p0,
    *,
    step=0.02,
    max_step=0.2,
    min_step=1e-7,
    growth=1.3,
    direction=1,
    p_range=None,
    stop=None,
    accept_stall=None,
    tol=1e-9,
    corrector_max_iter=8,
    min_alignment=0.9,
    max_steps=20000,
    refine_folds=True,
    jacobian=None,
):
    """Follow the solutions of ``F(x, p) = 0`` in one parameter, through its folds.

    Pseudo-arclength continuation: from a point ``u = (x, p)`` with unit
    tangent ``t`` (the null vector of ``dF/du``), predict ``u + ds t`` and
    correct by :func:`newton` on ``F = 0`` together with
    ``t . (v - u - ds t) = 0``. A failed corrector, or a tangent that turns
    by more than ``arccos(min_alignment)``, halves ``ds``; an accepted step
    grows it by ``growth`` up to ``max_step``. Folds (turning points in
    ``p``) are where the tangent's ``p`` component changes sign.

    Parameters
    ----------
    residual : callable
        ``F(x, p) -> array`` of shape (n,); may return NaN to reject a point.
    x0 : array_like of shape (n,)
        A solution at ``p0`` (to ``tol``; it is corrected once by Newton).
    p0 : float
        Starting value of the parameter.
    step : float, default=0.02
        First arclength step, > 0.
    max_step : float, default=0.2
        Largest arclength step, >= step.
    min_step : float, default=1e-7
        The continuation stalls when the step falls below it, > 0.
    growth : float, default=1.3
        Step growth factor after an accepted step, >= 1.
    direction : {1, -1}, default=1
        Initial direction of travel in ``p``.
    p_range : (float, float), optional
        The continuation ends when ``p`` leaves ``[p_lo, p_hi]``.
    stop : callable, optional
        ``stop(x, p) -> bool`` on each accepted point; True ends the branch.
    accept_stall : callable, optional
        ``accept_stall(x, p) -> bool`` at the last accepted point when the
        step falls below ``min_step``: True ends the branch there (a known
        end point, e.g. a singular limit); otherwise, or when not given,
        :class:`ConvergenceError` is raised.
    tol : float, default=1e-9
        Corrector tolerance on ``max |F|``, > 0.
    corrector_max_iter : int, default=8
        Newton steps per corrector, >= 1.
    min_alignment : float, default=0.9
        Smallest cosine between consecutive tangents, in (-1, 1).
    max_steps : int, default=20000
        Predictor-corrector attempts; when exhausted a
        :class:`ConvergenceWarning` is issued and the branch so far returned.
    refine_folds : bool, default=True
        Insert a point on each fold, located by :func:`refine_fold` (the
        nearer branch point when that fails).
    jacobian : callable, optional
        ``J(x, p) -> array`` of shape (n, n + 1), ``dF/d(x, p)``. Default:
        central differences.

    Returns
    -------
    ContinuationResult

    Raises
    ------
    ConvergenceError
        If ``x0`` is not a solution at ``p0`` to ``tol`` after Newton's
        correction, or if the continuation stalls and ``accept_stall`` does
        not accept it.

    Examples
    --------
    The cubic ``x^3 - x + p = 0`` has folds at ``p = +-2 / (3 sqrt 3)``:

    >>> import numpy as np
    >>> from statmechlearn._core.saddle import continuation
    >>> res = continuation(lambda x, p: x**3 - x + p, [1.5], -1.875, p_range=(-2.0, 2.0))
    >>> np.round(res.folds, 6)
    array([ 0.3849, -0.3849])
    """
    step = check_real(step, "step", minimum=0.0, include_min=False)
    max_step = check_real(max_step, "max_step", minimum=step)
    min_step = check_real(min_step, "min_step", minimum=0.0, include_min=False)
    growth = check_real(growth, "growth", minimum=1.0)
    if direction not in (1, -1):
        raise ValueError(f"direction must be 1 or -1, got {direction!r}")
    tol = _check_tol(tol)
    corrector_max_iter = _check_max_iter(corrector_max_iter, "corrector_max_iter")
    min_alignment = check_real(
        min_alignment,
        "min_alignment",
        minimum=-1.0,
        maximum=1.0,
        include_min=False,
        include_max=False,
    )
    max_steps = _check_max_iter(max_steps, "max_steps")
    x0 = _check_x0(x0)
    p0 = check_real(p0, "p0")
    if p_range is not None:
        p_lo, p_hi = (check_real(v, "p_range") for v in p_range)
        if not p_lo <= p0 <= p_hi:
            raise ValueError(f"p_range must contain p0={p0:g}, got ({p_lo:g}, {p_hi:g})")

    def full(u):
        return np.asarray(residual(u[:-1], u[-1]), dtype=float)

    def full_jacobian(u):
        if jacobian is None:
            return finite_difference_jacobian(full, u)[1]
        return np.asarray(jacobian(u[:-1], u[-1]), dtype=float)

    start = _newton(lambda x: full(np.append(x, p0)), x0, None, tol, 30, 1e-7, 1e-4, False)
    if not start.converged:
        raise ConvergenceError(
            f"continuation: x0 is not a solution at p0={p0:g} (residual {start.residual:.2e} "
            f"> tol={tol:g} after Newton's correction)",
            {"p": p0, "residual": start.residual, "x": start.x.tolist()},
        )
    u = np.append(start.x, p0)
    points = [u]
    tangent = _tangent(full_jacobian(u), direction=direction)
    tangents = [tangent]
    ds = step
    reason = "max_steps"
    n_steps = 0
    for n_steps in range(1, max_steps + 1):  # noqa: B007 - the count is reported
        predicted = u + ds * tangent

        def corrector(v, predicted=predicted, tangent=tangent):
            return np.append(full(v), tangent @ (v - predicted))

        corrected = _newton(corrector, predicted, None, tol, corrector_max_iter, 1e-7, 1e-4, False)
        jac = full_jacobian(corrected.x) if corrected.converged else None
        if not corrected.converged or not np.all(np.isfinite(jac)):
            ds *= 0.5
            if ds < min_step:
                if accept_stall is not None and accept_stall(u[:-1], u[-1]):
                    reason = "stalled"
                    break
                raise ConvergenceError(
                    f"continuation stalled at p={u[-1]:.4g} (step {ds:.1e} < min_step="
                    f"{min_step:g}); the branch may end in a singular point",
                    {"p": float(u[-1]), "x": u[:-1].tolist(), "step": ds, "n_points": len(points)},
                )
            continue
        new_tangent = _tangent(jac, tangent)
        if new_tangent @ tangent < min_alignment:  # turned too fast: retry with a shorter step
            ds *= 0.5
            continue
        u, tangent = corrected.x, new_tangent
        points.append(u)
        tangents.append(tangent)
        ds = min(ds * growth, max_step)
        if p_range is not None and (u[-1] > p_hi or u[-1] < p_lo):
            reason = "parameter_range"
            break
        if stop is not None and stop(u[:-1], u[-1]):
            reason = "stop"
            break
    else:
        warn(
            f"continuation stopped after max_steps={max_steps} attempts at p={u[-1]:.4g} "
            "before the branch ended; increase max_steps",
            ConvergenceWarning,
        )
    points, tangents = np.array(points), np.array(tangents)
    turning = np.nonzero(np.sign(tangents[1:, -1]) != np.sign(tangents[:-1, -1]))[0]
    fold_index = []
    if refine_folds and len(turning):
        rows, rows_t, begin = [], [], 0
        for i in turning:
            best = i if abs(tangents[i, -1]) < abs(tangents[i + 1, -1]) else i + 1
            rows.extend(points[begin : i + 1])
            rows_t.extend(tangents[begin : i + 1])
            fold_index.append(len(rows))
            fold = refine_fold(residual, points[best])
            rows.append(fold.x if fold.converged else points[best])
            # at the fold the tangent is (almost) orthogonal to p: keep the branch's orientation
            rows_t.append(tangents[best])
            begin = i + 1
        rows.extend(points[begin:])
        rows_t.extend(tangents[begin:])
        points, tangents = np.array(rows), np.array(rows_t)
    else:
        fold_index = [
            i if abs(tangents[i, -1]) < abs(tangents[i + 1, -1]) else i + 1 for i in turning
        ]
    return ContinuationResult(
        x=points[:, :-1],
        parameter=points[:, -1],
        tangents=tangents,
        fold_index=np.array(fold_index, dtype=int),
        reason=reason,
        n_steps=n_steps,
        residual=_norm(full(points[-1])),
    )
