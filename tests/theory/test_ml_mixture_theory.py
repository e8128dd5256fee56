"""Checks of the zero-temperature RS theory of the ML two-Gaussian mixture."""

import math

import numpy as np
import pytest

from statmechlearn.theory import _mixture_rs as mixture_rs
from statmechlearn.theory import ml_mixture as mm


def _e(q, m, x, alpha, sigma, u0):
    """The RS energy e(q, m, x) per N, evaluated at arbitrary (not stationary) points."""
    c = u0 / math.sqrt(2.0)
    k = x / sigma**2
    return alpha * mixture_rs._energy(q, m, k, alpha, sigma, c)


@pytest.mark.parametrize(("alpha", "u0"), [(5.0, 1.0), (1.0, 2.0), (20.0, 1.0), (2.0, 1.5)])
def test_ordered_branch_bifurcates_at_sigma_1(alpha, u0):
    s1 = mm.sigma_ordered(alpha, u0)
    assert s1 == pytest.approx((1 + u0**2 / 2) * (1 + 2 / (alpha * u0**2)))
    above = mm.solve(alpha, s1 * (1 + 1e-3), u0=u0)
    assert above.branch("split-ordered") is None
    assert above.phase == "unsplit"
    m2 = []
    for delta in (2e-3, 4e-3):
        b = mm.solve(alpha, s1 * (1 - delta), u0=u0).branch("split-ordered")
        assert b is not None and b.R > 0
        m2.append(2 * b.R**2)
    # a pitchfork: m^2 grows linearly in sigma_1 - sigma, so it vanishes exactly at sigma_1
    assert m2[1] / m2[0] == pytest.approx(2.0, rel=0.03)


@pytest.mark.parametrize(("alpha", "u0"), [(5.0, 1.0), (1.0, 1.0), (0.5, 2.0)])
def test_random_branch_starts_at_sigma_2(alpha, u0):
    s2 = mm.sigma_random(alpha)
    assert mm.solve(alpha, s2 * (1 + 1e-3), u0=u0).branch("split-random") is None
    q = [mm.solve(alpha, s2 * (1 - d), u0=u0).branch("split-random").Q for d in (1e-3, 2e-3)]
    assert q[1] / q[0] == pytest.approx(2.0, rel=0.03)
    # the replicon is marginal (=1) where the split appears continuously
    b = mm.solve(alpha, s2 * (1 - 1e-4), u0=u0).branch("split-random")
    assert b.replicon == pytest.approx(1.0, abs=0.02)


@pytest.mark.parametrize("u0", [1.0, 2.0])
def test_no_ordered_branch_below_alpha_c(u0):
    ac = mm.alpha_critical(u0)
    assert ac == pytest.approx(4 / u0**4)
    below = 0.8 * ac
    assert math.isnan(mm.sigma_ordered(below, u0))
    for sigma in np.linspace(0.3, 0.9, 4) * mm.sigma_random(below):
        sol = mm.solve(below, sigma, u0=u0)
        assert sol.branch("split-ordered") is None
        assert sol.phase == "split-random"
    above = 1.5 * ac
    sol = mm.solve(above, 0.98 * mm.sigma_ordered(above, u0), u0=u0)
    assert sol.phase == "split-ordered"


def test_figure_2_transitions():
    """alpha=5, u0=1: ordered at sigma = 2.1, merges into the random phase near 0.90."""
    pb = mm.phase_boundaries(5.0, u0=1.0, rs_lines=False)
    assert pb.sigma_1 == pytest.approx(2.1)
    assert pb.sigma_3 == pytest.approx(0.90, abs=0.01)
    above, below = mm.solve(5.0, pb.sigma_3 + 0.02), mm.solve(5.0, pb.sigma_3 - 0.02)
    assert above.phase == "split-ordered" and below.phase == "split-random"
    assert above.branches[above.ground].eps_c < 0.5
    assert below.branches[below.ground].eps_c == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("alpha", "sigma", "u0"), [(5.0, 1.5, 1.0), (1.0, 2.0, 2.0), (1.0, 0.5, 2.0)]
)
def test_solutions_are_stationary_points_of_the_rs_energy(alpha, sigma, u0):
    sol = mm.solve(alpha, sigma, u0=u0)
    for b in sol.branches[1:]:
        m = math.sqrt(2) * b.R
        point = np.array([b.Q, m, b.susceptibility])
        h = 1e-5
        for i in range(3):
            step = np.zeros(3)
            step[i] = h * max(1.0, abs(point[i]))
            up, down = _e(*(point + step), alpha, sigma, u0), _e(*(point - step), alpha, sigma, u0)
            assert (up - down) / (2 * step[i]) == pytest.approx(0.0, abs=1e-6)
        assert b.energy == pytest.approx(_e(*point, alpha, sigma, u0) / alpha)


def test_ordered_beats_random_and_ground_is_lowest():
    sol = mm.solve(1.0, 2.0, u0=2.0)
    ordered, random = sol.branch("split-ordered"), sol.branch("split-random")
    assert ordered.energy < random.energy < 0.0
    assert sol.branches[sol.ground] is ordered
    assert ordered.eps_c == pytest.approx(0.5 * math.erfc(2.0 * ordered.cos_theta / 2.0))


def test_field_optimum_solves_the_stationarity_and_jumps():
    u0 = np.linspace(-3, 3, 61)
    for k in (0.5, 1.0, 3.0):
        u = mm.field_optimum(u0, k)
        np.testing.assert_allclose(u - u0, k * np.tanh(u), atol=1e-12)
        # it is the global minimiser: compare with a fine grid
        grid = np.linspace(-10, 10, 40001)
        obj = -np.log(np.cosh(grid))[None, :] + (grid[None, :] - u0[:, None]) ** 2 / (2 * k)
        best = obj.min(axis=1)
        val = -np.log(np.cosh(u)) + (u - u0) ** 2 / (2 * k)
        assert np.all(val <= best + 1e-9)
    jump = mm.field_optimum(np.array([-1e-9, 1e-9]), 3.0)
    assert jump[1] - jump[0] > 5.0


def test_rs_instability_is_marked():
    pb = mm.phase_boundaries(1.0, u0=2.0)
    assert 0.05 < pb.sigma_jump < pb.sigma_1
    low = mm.solve(1.0, 0.5 * pb.sigma_jump, u0=2.0)
    assert low.branches[low.ground].field_jump
    assert not low.branches[low.ground].rs_stable


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"alpha": -1.0, "sigma": 1.0}, "alpha"),
        ({"alpha": 1.0, "sigma": 0.0}, "sigma"),
        ({"alpha": 1.0, "sigma": float("nan")}, "sigma"),
        ({"alpha": 1.0, "sigma": 1.0, "u0": -2.0}, "u0"),
    ],
)
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        mm.solve(**kwargs)
