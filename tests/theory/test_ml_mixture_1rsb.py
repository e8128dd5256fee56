"""Checks of the zero-temperature 1RSB solution of the ML two-Gaussian mixture.

References are independent of the 1RSB code: the RS functional and solver of
``ml_mixture`` (their own quadrature), central finite differences of the
functional, and the Legendre structure of the complexity.
"""

import math

import numpy as np
import pytest

from statmechlearn._core.exceptions import ConvergenceError
from statmechlearn.theory import _mixture_rs as mixture_rs
from statmechlearn.theory import _mixture_rsb as rsb
from statmechlearn.theory import _mixture_rsb2 as rsb2
from statmechlearn.theory import ml_mixture as mm

ALPHA, U0 = 1.0, 2.0
KW = {"alpha": ALPHA, "u0": U0}


def _rs_energy(q, m, x, sigma):
    """The RS functional per N at an arbitrary point (its own quadrature)."""
    c = U0 / math.sqrt(2.0)
    return ALPHA * mixture_rs._energy(q, m, x / sigma**2, ALPHA, sigma, c)


def _fd_gradient(point, sigma, h=1e-5):
    g = []
    for i in range(5):
        e = np.zeros(5)
        e[i] = h * max(1.0, abs(point[i]))
        up = rsb.functional(*(point + e), sigma=sigma, **KW)
        down = rsb.functional(*(point - e), sigma=sigma, **KW)
        g.append((up - down) / (2 * e[i]))
    return np.array(g)


@pytest.fixture(scope="module")
def static():
    """The static 1RSB ground states at sigma = 1.0 (field jump) and 0.6, and the RS ones."""
    out = {}
    for sigma in (1.0, 0.6):
        state, v = rsb.solve_at(ALPHA, sigma, U0)
        out[sigma] = (state, np.exp(v), mm.solve(ALPHA, sigma, u0=U0).branch("split-ordered"))
    return out


# points (q0, delta, m, x) away from and inside the field-jump regime (x > sigma^2)
POINTS = [(2.0, (2.6, 0.2, 1.2, 3.0)), (1.0, (3.3, 0.1, 1.29, 1.2)), (0.6, (3.4, 0.09, 1.3, 0.66))]


@pytest.mark.parametrize(("sigma", "point"), POINTS)
def test_functional_at_delta_to_zero_is_rs_at_q0(sigma, point):
    q0, _, m, x = point
    for y in (0.5, 4.0):
        one_step = rsb.functional(q0, 1e-24, m, x, y, sigma=sigma, **KW)
        # O(delta) = 1e-24 from the limit; the rest is the two codes' quadratures
        assert one_step == pytest.approx(_rs_energy(q0, m, x, sigma), abs=1e-10)


@pytest.mark.parametrize(("sigma", "point"), POINTS)
def test_functional_at_y_to_zero_is_rs_at_q1(sigma, point):
    q0, delta, m, x = point
    # f(y) = f_RS(q1) + a y + b y^2 + O(y^3): Richardson on y = h, 2h, 4h removes a and b;
    # the rounding of ln Z1 ~ -y <Phi> (1e-16 absolute) costs ~1e-16 / h
    h = 2e-4
    f = [rsb.functional(q0, delta, m, x, t * h, sigma=sigma, **KW) for t in (1, 2, 4)]
    limit = (8 * f[0] - 6 * f[1] + f[2]) / 3
    assert limit == pytest.approx(_rs_energy(q0 + delta, m, x, sigma), abs=1e-10)
    # and the limit is not trivially reached: the 1RSB functional depends on y
    assert abs(rsb.functional(q0, delta, m, x, 0.5, sigma=sigma, **KW) - limit) > 1e-4


@pytest.mark.parametrize("sigma", [2.0, 1.0])
def test_rs_saddle_is_stationary_in_q0_m_x_at_delta_zero(sigma):
    rs = mm.solve(ALPHA, sigma, u0=U0).branch("split-ordered")
    m = rs.R * math.sqrt(2.0)
    g = rsb.gradient(rs.Q, 1e-24, m, rs.susceptibility, 2.0, sigma=sigma, **KW)
    scale = np.array([rs.Q, m, rs.susceptibility]) / ALPHA
    assert np.max(np.abs(g[[0, 2, 3]] * scale)) < 1e-9


@pytest.mark.parametrize(("sigma", "point"), POINTS)
def test_analytic_gradient_matches_finite_differences(sigma, point):
    p = np.array([*point, 2.5])
    analytic = rsb.gradient(*p, sigma=sigma, **KW)
    # measured: 1e-11 where Phi is smooth; 1e-9 next to x = sigma^2, where the quadrature
    # nodes that follow the kink move with the arguments
    assert np.max(np.abs(analytic - _fd_gradient(p, sigma))) < 1e-7


@pytest.mark.parametrize("sigma", [1.0, 0.6])
def test_static_solution_is_a_stationary_point(static, sigma):
    state, v, _ = static[sigma]
    p = np.append(v[:4], state.y)
    assert state.delta > 0.01 and 0.5 < state.y < 20.0
    # every direction, the Parisi parameter included (zero complexity = df/dy = 0)
    assert np.max(np.abs(_fd_gradient(p, sigma))) < 1e-7
    assert abs(state.complexity) < 1e-8
    assert state.energy == pytest.approx(state.free_energy, abs=1e-9)


def test_complexity_is_the_legendre_transform(static):
    """Sigma(y) = y^2 df/dy and e(y) = d(y f)/dy, with f(y) re-solved at y +- h."""
    state, v, _ = static[1.0]
    y, h = 1.0, 1e-4
    at = {}
    for t in (y - h, y, y + h):
        at[t] = rsb.solve_at(ALPHA, 1.0, U0, y=t, start=np.log(v[:4]))[0]
    df = (at[y + h].free_energy - at[y - h].free_energy) / (2 * h)  # per pattern
    d_yf = ((y + h) * at[y + h].free_energy - (y - h) * at[y - h].free_energy) / (2 * h)
    assert at[y].complexity == pytest.approx(ALPHA * y * y * df, rel=1e-5)
    assert at[y].energy == pytest.approx(d_yf, abs=1e-8)
    # below the static y the states are more numerous and higher
    assert at[y].complexity > 0 and at[y].energy > state.energy


@pytest.mark.slow
def test_complexity_curve_slope_is_y_and_nonnegative_on_the_used_part():
    curve = mm.complexity_curve(ALPHA, 1.0, u0=U0, y=np.geomspace(2.0, 4.5, 9))
    static = curve.static
    used = curve.y <= static.y
    assert np.all(curve.complexity[used] >= -1e-10)
    assert np.all(curve.complexity[~used] < 0)
    # on the physical branch e decreases with y and dSigma/de = y (per N and per pattern)
    e, s, y = curve.energy, curve.complexity, curve.y
    assert np.all(np.diff(e) < 0)
    slope = np.diff(s) / np.diff(ALPHA * e)
    mid = np.sqrt(y[1:] * y[:-1])
    assert slope == pytest.approx(mid, rel=0.02)


def test_rsb_moves_energy_up_and_r_by_a_few_thousandths(static):
    for state, _, rs in static.values():
        # f(y) rises from the RS energy at y -> 0 to its maximum at the static y
        assert state.energy > rs.energy + 1e-4
        assert 1e-3 < state.R - rs.R < 2e-2
        assert state.Q > rs.Q - 0.1
        assert state.field_jump  # x > sigma^2 inside a state: 1RSB is itself unstable
        assert math.isinf(state.replicon_within) and not state.stable
        assert state.replicon_between > 1.0
        assert state.eps_c == pytest.approx(0.5 * math.erfc(U0 * state.cos_theta / 2.0), rel=1e-12)


@pytest.mark.slow
def test_branch_leaves_rs_at_the_de_almeida_thouless_width():
    branch = mm.branch_1rsb(ALPHA, u0=U0, sigma_min=1.35)
    s_at = mm.phase_boundaries(ALPHA, u0=U0, sigma_min=0.3).sigma_at
    sigma, delta = branch.sigma, branch.delta
    assert np.all(np.diff(sigma) < 0) and sigma[-1] <= 1.36
    # delta grows linearly below the onset: its zero, from the points next to it
    near = sigma > sigma[0] - 0.03
    slope, intercept = np.polyfit(sigma[near], delta[near], 1)
    assert -intercept / slope == pytest.approx(s_at, abs=2e-3)
    assert branch.sigma_onset == pytest.approx(s_at, abs=2e-3)
    # one continuous branch: R and y move smoothly
    assert np.max(np.abs(np.diff(branch.R))) < 5e-3


def test_a_scan_that_falls_back_onto_rs_is_not_followed():
    # at sigma = 0.8 the smallest Parisi parameters' fixed-y solutions collapse onto RS
    # (delta/Q ~ 3e-5); starting the next y from them lost the branch
    s = mm.solve_1rsb(ALPHA, 0.8, u0=U0)
    assert s.delta / s.Q > 1e-2 and abs(s.complexity) < 1e-8
    assert mm.solve(ALPHA, 0.8, u0=U0).branch("split-ordered").R < s.R


@pytest.mark.slow
def test_next_to_the_onset_the_solution_is_walked_from_below():
    # every fixed-y delta/Q is below 1e-3 at sigma = 1.53 (sigma_AT = 1.5515): no scan
    # bracket, so the static solution is followed from 0.8 sigma_AT
    s = mm.solve_1rsb(ALPHA, 1.53, u0=U0)
    assert 1e-4 < s.delta / s.Q < 1e-3
    assert abs(s.complexity) < 1e-8


def test_rs_stable_width_returns_the_rs_state():
    s = mm.solve_1rsb(ALPHA, 2.0, u0=U0)
    rs = mm.solve(ALPHA, 2.0, u0=U0).branch("split-ordered")
    assert s.delta == 0.0 and math.isnan(s.y) and s.stable
    assert (s.R, s.Q, s.energy) == (rs.R, rs.Q, rs.energy)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"alpha": 1.0, "sigma": 1.0, "u0": 2.0, "y": 0.0}, "y"),
        ({"alpha": 1.0, "sigma": 1.0, "u0": 2.0, "y": math.nan}, "y"),
        ({"alpha": 1.0, "sigma": 5.0, "u0": 2.0}, "split-ordered"),
        ({"alpha": 0.01, "sigma": 1.0, "u0": 2.0}, "alpha"),
        ({"alpha": 1.0, "sigma": -1.0, "u0": 2.0}, "sigma"),
    ],
)
def test_bad_arguments_are_refused(kwargs, match):
    args = (kwargs.pop("alpha"), kwargs.pop("sigma"))
    with pytest.raises(ValueError, match=match):
        mm.solve_1rsb(*args, **kwargs)


def test_complexity_curve_refuses_rs_stable_width_and_bad_y():
    with pytest.raises(ValueError, match="stable"):
        mm.complexity_curve(ALPHA, 2.0, u0=U0)
    with pytest.raises(ValueError, match="y must be"):
        mm.complexity_curve(ALPHA, 1.0, u0=U0, y=[-1.0])


def test_no_solution_is_reported_not_returned(monkeypatch):
    monkeypatch.setattr(rsb, "_Y_SCAN", np.array([0.25, 0.3]))
    with pytest.raises(ConvergenceError, match="Sigma"):
        rsb.solve_at(ALPHA, 1.0, U0)


@pytest.mark.parametrize(("sigma", "point"), POINTS[1:])
def test_2rsb_functional_reduces_to_1rsb_at_either_level(sigma, point):
    q0, delta, m, x = point
    kw = {"sigma": sigma, **KW}
    y = 2.5
    one_step = rsb.functional(q0, delta, m, x, y, **kw)
    # the outer level empty: 1RSB at y = y1; the inner level empty: 1RSB at y = y0
    assert rsb2.functional_2rsb(q0, 1e-24, delta, m, x, 0.7, y, **kw) == pytest.approx(
        one_step, abs=1e-10
    )
    assert rsb2.functional_2rsb(q0, delta, 1e-24, m, x, y, 9.0, **kw) == pytest.approx(
        one_step, abs=1e-10
    )
    # a real second level changes the value
    split = rsb2.functional_2rsb(q0, delta / 2, delta / 2, m, x, 1.5, 4.0, **kw)
    assert abs(split - one_step) > 1e-4


@pytest.mark.slow
def test_2rsb_solution_at_fixed_parisi_parameters_is_stationary():
    nodes = (24, 24, 24)
    y = (2.0, 5.0)
    s = rsb2.solve_2rsb(ALPHA, 1.0, u0=U0, y=y, nodes=nodes)
    p = np.array([s.q0, s.delta0, s.delta1, math.sqrt(2.0) * s.R, s.x])
    assert min(s.delta0, s.delta1) > 1e-3
    grad = []
    for i in range(5):
        e = np.zeros(5)
        e[i] = 1e-5
        f = [rsb2.functional_2rsb(*(p + t * e), *y, sigma=1.0, nodes=nodes, **KW) for t in (1, -1)]
        grad.append((f[0] - f[1]) / 2e-5)
    assert np.max(np.abs(grad)) < 1e-7
    assert s.Q == pytest.approx(s.q0 + s.delta0 + s.delta1)
