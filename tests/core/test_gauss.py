import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import integrate, stats

from statmechlearn._core.gauss import (
    H,
    Phi,
    gauss_hermite,
    gaussian_expectation,
    log_cosh,
    log_H,
    log_Phi,
    logsumexp,
    normal_pdf,
)


@pytest.mark.parametrize("x", [-6.0, -2.5, -0.3, 0.0, 0.7, 3.0, 5.5])
def test_Phi_and_H_match_quadrature(x):
    pdf = lambda z: np.exp(-0.5 * z * z) / np.sqrt(2 * np.pi)  # noqa: E731
    below, _ = integrate.quad(pdf, -np.inf, x, epsabs=1e-14, epsrel=1e-12)
    above, _ = integrate.quad(pdf, x, np.inf, epsabs=1e-14, epsrel=1e-12)
    assert Phi(x) == pytest.approx(below, rel=1e-9, abs=1e-15)
    assert H(x) == pytest.approx(above, rel=1e-9, abs=1e-15)


def test_tails_keep_relative_accuracy():
    # H(x) ~ pdf(x)/x * (1 - 1/x^2 + 3/x^4 - 15/x^6) for large x
    for x in (10.0, 20.0, 37.0):
        series = normal_pdf(x) / x * (1 - 1 / x**2 + 3 / x**4 - 15 / x**6 + 105 / x**8)
        assert H(x) == pytest.approx(series, rel=1e-7)
        assert Phi(-x) == pytest.approx(series, rel=1e-7)
    # known value: H(10) = 7.61985302416047e-24
    assert H(10.0) == pytest.approx(7.619853024160527e-24, rel=1e-12)


def test_log_tails_stay_finite_where_Phi_underflows():
    x = -1e4
    assert Phi(x) == 0.0
    expected = -0.5 * x * x - np.log(-x) - 0.5 * np.log(2 * np.pi)
    assert log_Phi(x) == pytest.approx(expected, rel=1e-8)
    assert log_H(-x) == pytest.approx(expected, rel=1e-8)
    assert log_H(0.0) == pytest.approx(np.log(0.5))


@given(st.floats(-30, 30))
def test_Phi_plus_H_is_one(x):
    assert Phi(x) + H(x) == pytest.approx(1.0, abs=1e-15)
    assert Phi(x) == pytest.approx(stats.norm.cdf(x), rel=1e-12, abs=1e-300)


def _log_cosh_exact(x):
    """40-digit log cosh x, written without cancellation (log1p of 2 sinh^2(x/2))."""
    with mpmath.workdps(40):
        x = mpmath.mpf(float(x))
        if abs(x) > 30:
            return float(abs(x) - mpmath.log(2) + mpmath.log1p(mpmath.exp(-2 * abs(x))))
        return float(mpmath.log1p(2 * mpmath.sinh(x / 2) ** 2))


def test_log_cosh_within_a_few_ulp_of_mpmath():
    # the whole line: tiny |x| (where log(cosh(x)) loses every digit), the branch
    # switch at |x| = 1, and |x| beyond cosh's overflow
    x = np.concatenate(
        [
            -np.geomspace(1e-300, 1e-9, 30),
            np.geomspace(1e-9, 40.0, 600),
            np.linspace(0.95, 1.05, 41),
            [-1e-3, 0.0, 700.0, 711.0, -1e6, 1e300],
        ]
    )
    exact = np.array([_log_cosh_exact(v) for v in x])
    got = log_cosh(x)
    assert np.all(np.isfinite(got))
    ulp = np.spacing(np.abs(exact))
    ulp[exact == 0] = np.finfo(float).tiny
    # measured: 2 ulp with NumPy's SIMD functions, 4 with glibc's; 8 leaves room for any libm
    assert np.max(np.abs(got - exact) / ulp) <= 8
    assert log_cosh(0.0) == 0.0 and log_cosh(-2.5) == log_cosh(2.5)


def test_logsumexp_stable():
    a = np.array([1000.0, 1000.0])
    assert logsumexp(a) == pytest.approx(1000.0 + np.log(2.0))
    assert logsumexp([0.0, 0.0], b=[0.25, 0.75]) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize(
    "f",
    [
        lambda z: np.cos(z),
        lambda z: z**4,
        lambda z: np.logaddexp(0.0, 2 * z),
        lambda z: Phi(1.3 * z + 0.2),
    ],
)
def test_gauss_hermite_matches_quadrature(f):
    expected, _ = integrate.quad(
        lambda z: f(z) * np.exp(-0.5 * z * z) / np.sqrt(2 * np.pi),
        -np.inf,
        np.inf,
        epsabs=1e-13,
    )
    assert gaussian_expectation(f, n_nodes=80) == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_gauss_hermite_exact_for_polynomials_and_normalised():
    z, w = gauss_hermite(5)
    assert w.sum() == pytest.approx(1.0, abs=1e-14)
    # E z^8 = 105 needs degree 8 <= 2*5-1 = 9
    assert np.sum(w * z**8) == pytest.approx(105.0, rel=1e-12)
    assert not z.flags.writeable
    assert gaussian_expectation(lambda t: t, loc=2.0, scale=3.0) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="n must be an integer in"):
        gauss_hermite(0)
