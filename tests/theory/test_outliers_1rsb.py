"""Hard selection with one step of replica-symmetry breaking (1RSB) at zero temperature.

See docs/derivations/outliers_1rsb.md. The checks: the functional's RS limits against the
RS code's own free energy, the closed inner average against quadrature, stationarity by
finite differences, the Legendre structure (Sigma = y^2 df/dy, dSigma/de = y), the
ordering of the RS and 1RSB ground-state energies, and argument validation.
"""

import math
import warnings

import mpmath as mp
import numpy as np
import pytest
from scipy.integrate import trapezoid

from statmechlearn._core.exceptions import ConvergenceWarning
from statmechlearn._core.saddle import newton
from statmechlearn.theory import outliers as th
from statmechlearn.theory._outlier_rsb import (
    _Hard1RSB,
    _rs_learning_x,
    _static_from_rs,
    _y_path,
    inner_average,
)
from statmechlearn.theory._outlier_saddle import _HardProblem

G = 10.0


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        yield


def _rs_f(alpha, gamma, eta, R, Q, z, lam):
    """The RS code's own f at arbitrary (R, Q, z, lambda)."""
    u = np.log([R, Q, z, lam])
    return _HardProblem(alpha, gamma, gamma).observables(np.append(u, eta))[3]


# ----------------------------------------------------------------------------- (a) RS limits


@pytest.mark.parametrize(
    ("alpha", "gamma", "eta", "params"),
    [
        (100.0, 10.0, 3.0, (1.0, 1.2, 0.05, 0.1)),
        (100.0, 10.0, 3.0, (0.5, 2.0, 0.3, 0.7)),
        (1000.0, 0.1, 1.0, (4.0, 30.0, 0.5, 0.005)),
    ],
)
def test_functional_at_zero_delta_is_rs_at_q0(alpha, gamma, eta, params):
    R, q0, z, lam = params
    problem = _Hard1RSB(alpha, gamma, gamma)
    f_rs = _rs_f(alpha, gamma, eta, R, q0, z, lam)
    for y in (0.3, 5.0, 80.0):
        f1 = problem.functional(np.array([R, q0, 0.0, z, lam]), eta, y)
        # both are the same Gaussian averages of max(0, c): the RS code's error functions and
        # Gauss-Legendre split at the kink agree to rounding
        assert f1 == pytest.approx(f_rs, rel=1e-13, abs=1e-13)
        # delta -> 0 continuously: f1 - f_RS = O(delta) (its slope, ~ y (q0 - R^2) / z^2, is
        # large, so the difference is compared at delta and 10 delta: linear to 1e-3)
        d1, d2 = (
            problem.functional(np.array([R, q0, d, z, lam]), eta, y) - f_rs for d in (1e-12, 1e-11)
        )
        assert abs(d1) < 1e-6
        assert d2 == pytest.approx(10.0 * d1, rel=1e-3)


@pytest.mark.parametrize(
    ("alpha", "gamma", "eta", "params"),
    [
        (10.0, 1.0, 1.0, (1.0, 1.0, 0.02, 0.2, 0.3)),
        (10.0, 10.0, 3.0, (1.0, 1.2, 0.01, 0.1, 0.3)),
    ],
)
def test_functional_as_y_goes_to_zero_is_rs_at_total_q(alpha, gamma, eta, params):
    """y -> 0 at fixed order parameters gives f_RS at Q = q0 + delta.

    f1(y) is analytic at y = 0; Lagrange extrapolation from y = h ... 6h (h = 0.01) leaves
    O(h^6) (below 1e-14 here: the series in y has ratio y delta/z = 0.01) and amplifies
    the rounding of alpha ln Z1 / y (alpha 1e-16 / h = 1e-13) by the weights' sum, 63.
    """
    R, q0, delta, z, lam = params
    problem = _Hard1RSB(alpha, gamma, gamma)
    ys = 0.01 * np.arange(1, 7)
    f = np.array([problem.functional(np.array(params), eta, y) for y in ys])
    weights = np.array([np.prod([yj / (yj - yi) for yj in ys if yj != yi]) for yi in ys])
    assert weights @ f == pytest.approx(_rs_f(alpha, gamma, eta, R, q0 + delta, z, lam), abs=1e-11)


@pytest.mark.parametrize(
    ("alpha", "gamma", "eta"), [(100.0, 10.0, 3.0), (1000.0, 10.0, 6.0), (100.0, 0.1, 0.5)]
)
def test_saddle_equations_with_delta_pinned_to_zero_give_the_rs_branch(alpha, gamma, eta):
    problem = _Hard1RSB(alpha, gamma, gamma)

    def residual(x4):
        R, q0, z, lam = np.exp(x4)
        return problem.stationarity(np.array([R, q0, 0.0, z, lam]), eta, 7.0)[[0, 1, 3, 4]]

    rs_x = _rs_learning_x(alpha, eta, gamma, gamma)
    x = newton(residual, rs_x + 0.02, tol=1e-14).x
    res = th.hard_selection(alpha, eta, gamma=gamma)
    k = int(np.argmax(res.R))  # branches are sorted by R: the learning one has the largest
    R, Q, z, lam = np.exp(x)
    assert (R, Q, z) == pytest.approx((res.R[k], res.Q[k], res.z[k]), rel=1e-10)
    assert lam == pytest.approx(math.exp(rs_x[3]), rel=1e-10)


# ----------------------------------------------------------------------------- (b) inner average


@pytest.mark.parametrize(
    ("c", "s", "y"),
    [(0.3, 0.5, 2.0), (-1.0, 0.2, 10.0), (2.0, 1.0, 0.3), (-0.05, 0.01, 50.0), (3.0, 0.4, 8.0)],
)
def test_inner_average_against_quadrature(c, s, y):
    mp.mp.dps = 20
    c_, s_, y_ = mp.mpf(c), mp.mpf(s), mp.mpf(y)

    def z1(c_, s_, y_):
        def integrand(u):
            return mp.exp(y_ * max(0, c_ + s_ * u)) * mp.npdf(u)

        # the selected part peaks at u = y s (far out for large y s)
        cuts = sorted({-c_ / s_, y_ * s_ - 8, y_ * s_, y_ * s_ + 8})
        return mp.quad(integrand, [-mp.inf, *cuts, mp.inf])

    lnz, p, q, r = (float(v[0]) for v in inner_average(np.array([c]), s, y))
    ref = z1(c_, s_, y_)
    # ln Z1 reaches 29 at the last point: compared relative to 1 + |ln Z1|
    assert lnz == pytest.approx(float(mp.log(ref)), rel=1e-13, abs=1e-13)
    b = mp.exp(y_ * c_ + y_**2 * s_**2 / 2) * mp.ncdf(c_ / s_ + y_ * s_)
    assert p == pytest.approx(float(b / ref), rel=1e-12, abs=1e-15)
    assert p + q == pytest.approx(1.0, rel=1e-14)
    assert r == pytest.approx(float(mp.npdf(c_ / s_) / (s_ * ref)), rel=1e-12)
    # the derivative identities, against mpmath's numerical derivatives of the quadrature
    phi = mp.npdf(c_ / s_)
    assert mp.diff(lambda v: z1(v, s_, y_), c_) / ref == pytest.approx(
        float(y_ * b / ref), rel=1e-12
    )
    ds = (y_**2 * s_ * b + y_ * phi) / ref
    assert mp.diff(lambda v: z1(c_, v, y_), s_) / ref == pytest.approx(float(ds), rel=1e-12)
    dy = ((c_ + y_ * s_**2) * b + s_ * phi) / ref
    assert mp.diff(lambda v: z1(c_, s_, v), y_) / ref == pytest.approx(float(dy), rel=1e-12)


def test_inner_average_does_not_overflow():
    # y c + y^2 s^2 / 2 = 8100: Z1 = e^8100 (1 + Phi_N(-127.5) ...) is far beyond double range
    lnz, p, q, r = (float(v[0]) for v in inner_average(np.array([3.0]), 0.4, 300.0))
    assert lnz == pytest.approx(8100.0, rel=1e-15)
    assert p == 1.0 and q == 0.0 and r == 0.0
    # and deep below the threshold Z1 -> 1
    lnz, p, q, r = (float(v[0]) for v in inner_average(np.array([-30.0]), 0.4, 300.0))
    assert lnz == pytest.approx(0.0, abs=1e-300) and p < 1e-300 and q == 1.0


# ----------------------------------------------------------------------------- (c) stationarity


@pytest.fixture(scope="module")
def static_state():
    alpha, gamma, eta = 100.0, G, 3.0
    problem = _Hard1RSB(alpha, gamma, gamma)
    rs_x = _rs_learning_x(alpha, eta, gamma, gamma)
    return problem, eta, rs_x, _static_from_rs(problem, eta, rs_x)


def test_static_state_is_a_stationary_point_of_f1(static_state):
    """Central differences in ln(R, q0, delta, z, lambda), Richardson-extrapolated.

    With steps 2h and h (h = 1e-4) the extrapolation leaves O(h^4) f^(5) (below 1e-13 for
    these O(10) terms) and rounding ~ 1e-16 |f| / h = 1e-11 per difference: the gradient
    must vanish to 1e-9 of the size of its terms (R^2 / Z = 36 here).
    """
    problem, eta, _rs_x, u = static_state
    x, y = u[:5], math.exp(u[5])

    def grad(h):
        out = []
        for i in range(5):
            e = np.zeros(5)
            e[i] = h
            fp = problem.functional(np.exp(x + e), eta, y)
            fm = problem.functional(np.exp(x - e), eta, y)
            out.append((fp - fm) / (2.0 * h))
        return np.array(out)

    g1, g2 = grad(2e-4), grad(1e-4)
    extrapolated = (4.0 * g2 - g1) / 3.0
    R, _q0, delta, z, _lam = np.exp(x)
    scale = R * R / (z + y * delta)
    assert np.max(np.abs(extrapolated)) < 1e-9 * scale
    # not trivially zero: the individual differences do see the curvature
    assert np.max(np.abs(g1)) > 1e-9 * scale


def test_complexity_is_y_squared_df_dy(static_state):
    """Sigma(y) = y^2 df/dy along the saddle (envelope theorem); Sigma(y*) = 0 iff f'(y*) = 0."""
    problem, eta, rs_x, u = static_state
    y_star = math.exp(u[5])
    points = _y_path(problem, eta, rs_x, log_y_target=math.log(3.0 * y_star))
    from statmechlearn.theory._outlier_rsb import _at_log_y

    def f_of(log_y):
        x = _at_log_y(problem, eta, points, log_y)
        return problem.functional(np.exp(x), eta, math.exp(log_y)), x

    h = 1e-3
    for y in (y_star / 3.0, 2.0 * y_star):
        (fp, _), (fm, _) = f_of(math.log(y) + h), f_of(math.log(y) - h)
        _f, x = f_of(math.log(y))
        sigma = problem.sigma(np.exp(x), eta, y)
        # y^2 f' = y (f(y e^h) - f(y e^-h)) / 2h: truncation h^2/6 of the third derivative,
        # rounding y 1e-13 |f| / h (the quadrature's 1e-14 relative noise): 1e-6 of Sigma here
        assert y * (fp - fm) / (2.0 * h) == pytest.approx(sigma, rel=1e-5)
        assert abs(sigma) > 1e-5
    # at y* Sigma vanishes and f is stationary: f(y* e^{+-h}) - f(y*) is the curvature term
    # (h^2 f''/2) with no first-order part (the asymmetry, h^3 f'''/3, is ~ h times smaller)
    assert problem.sigma(np.exp(u[:5]), eta, y_star) == pytest.approx(0.0, abs=1e-13)
    h = 0.05
    (fp, _), (fm, _), (f0, _) = (f_of(u[5] + d) for d in (h, -h, 0.0))
    curvature = fp + fm - 2.0 * f0
    assert curvature < 0.0  # a maximum of f(y)
    assert abs(fp - fm) < 0.1 * abs(curvature)


# ------------------------------------------------------------------------ (d) complexity, order


def test_complexity_curve_and_legendre_structure():
    c = th.hard_complexity(100.0, 3.0, gamma=G)
    assert c.y[-1] == pytest.approx(c.y_static, rel=1e-12)
    assert np.all(c.complexity[:-1] > 0.0)
    assert c.complexity[-1] == pytest.approx(0.0, abs=1e-12)
    assert c.complexity == pytest.approx(c.y * (c.energy - c.free_energy), abs=1e-12)
    # dSigma/de = y: dSigma = y de on triples y e^{-h}, y, y e^{h} (h = 1e-3; centred
    # differences err by h^2 ~ 1e-6 relative)
    y_star, h = c.y_static, 1e-3
    triples = np.outer([y_star / 30.0, y_star / 3.0, 0.9 * y_star], np.exp([-h, 0.0, h]))
    local = th.hard_complexity(100.0, 3.0, gamma=G, y_grid=triples.ravel())
    d_sigma = local.complexity[2::3] - local.complexity[0::3]
    d_energy = local.energy[2::3] - local.energy[0::3]
    assert d_sigma == pytest.approx(local.y[1::3] * d_energy, rel=1e-5)
    # f(y*) - f(y_min) = int Sigma / y^2 dy (trapezoid in ln y on 40 points: 1 %)
    integral = trapezoid(c.complexity / c.y, np.log(c.y))
    assert c.free_energy[-1] - c.free_energy[0] == pytest.approx(integral, rel=0.01)
    # the concave part (y_turn <= y <= y*) counts states between the ground state and the
    # turning point of e(y); below y_turn the curve runs back towards the RS energy, below the
    # ground state: not a count of states
    phys = c.physical
    assert phys[-1] and not phys[0] and 2 <= phys.sum() < c.y.size
    assert c.y_turn < c.y_static and c.energy_static < c.energy_max
    assert np.all(c.energy[phys] >= c.energy_static - 1e-12)
    assert np.all(c.energy <= c.energy_max + 1e-12)
    assert np.all(np.diff(c.energy[phys]) < 0.0) and np.all(np.diff(c.complexity[phys]) < 0.0)
    assert c.energy[0] < c.energy_static  # the convex branch near y = 0 ...
    assert c.energy[0] == pytest.approx(
        th.hard_selection_1rsb(100.0, 3.0, gamma=G).rs.free_energy, abs=1e-6
    )


@pytest.mark.parametrize(
    ("alpha", "gamma", "eta"),
    [(100.0, 10.0, 3.0), (100.0, 10.0, 4.5), (1000.0, 1.0, 2.0), (1000.0, 0.1, 1.5)],
)
def test_1rsb_ground_state_lies_above_rs(alpha, gamma, eta):
    """f(y*) = f_RS + int_0^y* Sigma / y^2 dy with Sigma > 0 on (0, y*): 1RSB lies above RS."""
    s = th.hard_selection_1rsb(alpha, eta, gamma=gamma)
    assert s.static and s.y > 0.0
    assert s.complexity == pytest.approx(0.0, abs=1e-12)
    assert s.energy == pytest.approx(s.free_energy, abs=1e-12)
    assert s.free_energy > s.rs.free_energy
    assert s.delta > 0.0 and s.Q == pytest.approx(s.q0 + s.delta, rel=1e-15)
    # the states do not see the selection threshold's delta function as one: lambda_1 = inf
    assert s.replicon_within == math.inf
    assert math.isfinite(s.replicon_between) and s.replicon_between > 0.0
    assert s.Phi == pytest.approx(math.acos(s.R / math.sqrt(s.Q)) / math.pi, rel=1e-12)


def test_fixed_y_state_counts_states_above_the_ground_state():
    # y between the turning point of e(y) (about y*/2 here) and y*: exp(N Sigma) states of
    # energy e(y) above the ground state
    static = th.hard_selection_1rsb(100.0, 3.0, gamma=G)
    fixed = th.hard_selection_1rsb(100.0, 3.0, gamma=G, y=0.75 * static.y)
    assert not fixed.static and fixed.y == 0.75 * static.y
    assert fixed.complexity > 0.0
    assert fixed.energy > static.energy
    assert fixed.free_energy < static.free_energy  # f(y) rises to its maximum at y*
    assert fixed.complexity == pytest.approx(fixed.y * (fixed.energy - fixed.free_energy))


# ------------------------------------------------------------------------ branch and thresholds


def test_curve_and_transition_against_rs():
    t = th.hard_transition_1rsb(100.0, gamma=G)
    rs = t.rs
    assert rs.eta_c == th.hard_transition(100.0, gamma=G).eta_c
    # raising every non-trivial energy moves the trivial state's takeover down ...
    assert t.eta_c < rs.eta_c
    # ... and the learning branch reaches further than in RS before it folds
    assert t.eta_learn_spinodal > rs.eta_learn_spinodal
    assert t.eta_learn > rs.eta_learn and t.learn_jump
    assert t.eta_learn < t.eta_learn_spinodal < t.eta_c
    # at eta_c the state it leaves has f = 0
    curve = th.hard_selection_1rsb_curve(100.0, gamma=G)
    assert curve.rs is not None and len(curve.folds) == len(t.spinodals)
    # the fixed-eta solver and the continued branch give the same state (past the RS fold too)
    for eta in (3.0, 0.5 * (rs.eta_learn_spinodal + t.eta_learn_spinodal)):
        s = th.hard_selection_1rsb(100.0, eta, gamma=G)
        first = np.flatnonzero(curve.eta >= eta)[0]
        assert s.Phi == pytest.approx(curve.Phi[first], abs=0.02)
        assert s.free_energy > curve.free_energy[first - 1] - 1.0
    with pytest.raises(ValueError, match="eta"):
        th.hard_selection_1rsb(100.0, t.spinodals[0] + 0.2, gamma=G)


# ----------------------------------------------------------------------------- (e) arguments


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"alpha": -1.0}, "alpha"),
        ({"alpha": 0.0}, "alpha"),
        ({"eta": math.nan}, "eta"),
        ({"gamma": 0.0}, "gamma"),
        ({"gamma_student": 1e5}, "gamma_student"),
        ({"y": 0.0}, "y"),
        ({"y": -2.0}, "y"),
        ({"y": math.inf}, "y"),
    ],
)
def test_argument_validation(kwargs, name):
    args = {"alpha": 100.0, "eta": 3.0, "gamma": G} | kwargs
    with pytest.raises(ValueError, match=name):
        th.hard_selection_1rsb(args.pop("alpha"), args.pop("eta"), **args)


def test_argument_validation_of_the_other_functions():
    with pytest.raises(ValueError, match="y_grid"):
        th.hard_complexity(100.0, 3.0, gamma=G, y_grid=[0.0, 1.0])
    with pytest.raises(ValueError, match="alpha"):
        th.hard_transition_1rsb(-1.0, gamma=G)
    with pytest.raises(ValueError, match="eta_range"):
        th.hard_selection_1rsb_curve(100.0, gamma=G, eta_range=(1.0, 0.0))
    with pytest.raises(TypeError, match="y"):
        th.hard_selection_1rsb(100.0, 3.0, gamma=G, y="1")


def test_hebb_side_is_the_rs_limit():
    # far below the learning branch's end the states' spread vanishes (delta ~ z^4 rho^2):
    # reported as the RS limit, y* = inf
    s = th.hard_selection_1rsb(100.0, -20.0, gamma=G)
    assert s.y == math.inf and s.delta == 0.0 and s.q0 == s.Q
    assert s.free_energy == s.rs.free_energy and s.R == s.rs.R
    # just above the cut the correction is tiny but resolved, and positive
    s = th.hard_selection_1rsb(100.0, 0.0, gamma=G)
    assert 1e3 < s.y < 1e5 and 0.0 < s.delta / s.Q < 1e-6
    assert 0.0 < s.free_energy - s.rs.free_energy < 1e-5


# ------------------------------------------------------------------------ 2RSB


def test_2rsb_functional_reduces_to_1rsb_and_its_gradient_is_exact():
    from statmechlearn.theory._outlier_rsb2 import Hard2RSB

    alpha, gamma, eta, y = 100.0, G, 4.5, 4.6
    one = _Hard1RSB(alpha, gamma, gamma)
    two = Hard2RSB(alpha, gamma, gamma, eta)
    R, q0, delta, z, lam = 1.012, 1.284, 0.0115, 0.154, 0.6726
    f1 = one.functional(np.array([R, q0, delta, z, lam]), eta, y)
    # an empty inner level, an empty outer level, or equal Parisi parameters: 1RSB
    # (the middle quadrature of a delta -> 0 level is exact to 1e-14, see the 1RSB test above)
    assert two.functional(np.array([R, q0, delta, 1e-15, z, lam]), y, 2.0 * y) == pytest.approx(
        f1, abs=1e-12
    )
    assert two.functional(np.array([R, q0, 1e-15, delta, z, lam]), 0.5 * y, y) == pytest.approx(
        f1, abs=1e-12
    )
    split = np.array([R, q0, delta / 3.0, 2.0 * delta / 3.0, z, lam])
    assert two.functional(split, y, y) == pytest.approx(f1, abs=1e-12)
    # the analytic gradient against central differences (relative steps 1e-5: error 1e-9)
    y0, y1 = 2.0, 6.0
    grad = two.gradient(split, y0, y1)
    for i in range(6):
        e = np.zeros(6)
        e[i] = 1e-5 * split[i]
        fd = (two.functional(split + e, y0, y1) - two.functional(split - e, y0, y1)) / (2 * e[i])
        assert grad[i] == pytest.approx(fd, rel=1e-6, abs=1e-8)
    # the fixed-point equations vanish where the gradient does
    params, ok = two.solve(split, y0, y1)
    assert ok
    assert np.max(np.abs(two.gradient(params, y0, y1))) < 1e-8


def test_transition_when_the_1rsb_curve_starts_above_eta0():
    # at alpha = 1e4 the static branch is RS to 1e-10 up to eta ~ 1.4 > eta0 = 0: the
    # learning state must not be lost to the trivial one where the curve starts
    t = th.hard_transition_1rsb(1e4, gamma=10.0)
    assert t.transitions[0] > 7.0
    assert t.eta_learn == pytest.approx(t.transitions[0])
    assert t.rs.eta_learn < t.eta_learn < t.eta_c < t.rs.eta_c
