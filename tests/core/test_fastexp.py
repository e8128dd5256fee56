"""The kernels' vectorised exponential and logistic against exact values (mpmath, 30 digits)."""

import mpmath
import numpy as np
import pytest

from statmechlearn._core.fastexp import MIN_FLOOR, exp_nonpositive


def _exact(f, x):
    with mpmath.workdps(30):
        return np.array([float(f(mpmath.mpf(float(v)))) for v in x])


@pytest.mark.parametrize("floor", [-40.0, MIN_FLOOR])
def test_exponential_is_within_two_ulp_above_its_floor_and_zero_at_or_below(floor):
    rng = np.random.default_rng(0)
    u = np.concatenate(
        [
            -rng.uniform(0, -floor, 5000),
            -rng.exponential(1.0, 2000),
            [0.0, -1e-300, floor + 1e-3, floor, floor - 1.0, -1e5, -np.inf],
        ]
    )
    got = u.copy()
    exp_nonpositive(got, np.empty(u.size, dtype=np.int64), u.size, floor)
    kept = u > floor
    exact = _exact(mpmath.exp, u[kept])
    assert np.max(np.abs(got[kept] - exact) / np.spacing(exact)) <= 2.0
    assert got[u == 0.0][0] == 1.0  # a row's top term is exactly one
    assert np.all(got[~kept] == 0.0)


def test_only_the_leading_entries_change():
    a = np.array([-1.0, -2.0, -3.0, -4.0])
    exp_nonpositive(a, np.empty(4, dtype=np.int64), 2, -40.0)
    assert a[2:].tolist() == [-3.0, -4.0]


def test_logistic_is_within_a_few_ulp_over_the_whole_line():
    from statmechlearn.linear._sparse_bayes_kernels import _logistic

    rng = np.random.default_rng(1)
    z = np.concatenate([rng.uniform(-40, 40, 4000), [0.0, -707.0, -750.0, 750.0, 1e6, -1e6]])
    rho, slope = np.empty(z.size), np.empty(z.size)
    _logistic(z, rho, slope, np.empty(z.size, dtype=np.int64))
    exact = _exact(lambda v: 1 / (1 + mpmath.exp(-v)), z)
    normal = exact > np.finfo(float).tiny
    assert np.max(np.abs(rho[normal] - exact[normal]) / np.spacing(exact[normal])) <= 4.0
    assert np.all(rho[~normal] == 0.0)  # below e^-708: the limit, exactly
    exact_slope = _exact(lambda v: mpmath.exp(-abs(v)) / (1 + mpmath.exp(-abs(v))) ** 2, z)
    kept = exact_slope > np.finfo(float).tiny
    assert np.max(np.abs(slope[kept] - exact_slope[kept]) / np.spacing(exact_slope[kept])) <= 8.0
    assert np.all(slope[~kept] == 0.0)
    assert np.all(np.diff(rho[np.argsort(z)]) >= 0.0)
