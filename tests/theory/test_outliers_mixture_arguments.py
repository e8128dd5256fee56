"""Every public function of theory.outliers and theory.ml_mixture validates its arguments.

The functions are discovered from the modules' ``__all__``; each needs an entry
in ``SPECS`` (a valid call and the domain of each numeric argument), so a new
public function without one fails ``test_every_public_function_has_a_spec``.
"""

import inspect
import math

import numpy as np
import pytest

from statmechlearn.theory import ml_mixture, outliers

REAL = (-math.inf, math.inf, False, False)
POSITIVE = (0.0, math.inf, False, False)
NONNEG = (0.0, math.inf, True, False)
NONPOS = (-math.inf, 0.0, False, True)
ALPHA_OUTLIERS = (1e-6, 1e8, True, True)
GAMMA = (1e-2, 1e3, True, True)
ALPHA_MIXTURE = (0.1, 1e4, True, True)

_SELECTION = {"alpha": ALPHA_OUTLIERS, "eta": REAL, "gamma": GAMMA, "gamma_student": GAMMA}
_CURVE = {"alpha": ALPHA_OUTLIERS, "gamma": GAMMA, "gamma_student": GAMMA}
_HAT = {"R_hat": NONNEG, "Q_hat": NONNEG, "z_hat": NONPOS, "gamma": GAMMA, "gamma_student": GAMMA}

#: function -> (valid keyword arguments, {numeric argument: (lo, hi, lo closed, hi closed)})
SPECS = {
    outliers.soft_selection: ({"alpha": 5.0, "eta": 0.0, "gamma": 10.0}, _SELECTION),
    outliers.hard_selection: ({"alpha": 5.0, "eta": 0.0, "gamma": 10.0}, _SELECTION),
    outliers.hebb: ({"alpha": 5.0, "eta": 0.0, "gamma": 10.0}, _SELECTION),
    outliers.hard_hat_parameters: ({"alpha": 5.0, "eta": 0.0, "gamma": 10.0}, _SELECTION),
    outliers.hard_trivial_threshold: ({"gamma": 10.0}, {"gamma": GAMMA, "gamma_student": GAMMA}),
    outliers.soft_selection_curve: ({"alpha": 5.0, "gamma": 10.0}, _CURVE),
    outliers.hard_selection_curve: ({"alpha": 5.0, "gamma": 10.0}, _CURVE),
    outliers.soft_transition: ({"alpha": 5.0, "gamma": 10.0}, _CURVE),
    outliers.hard_transition: (
        {"alpha": 5.0, "gamma": 10.0},
        {**_CURVE, "phi_learn": (0.0, 0.5, True, True)},
    ),
    outliers.soft_selection_asymptotics: (
        {"eta": 0.0, "gamma": 10.0},
        {"eta": REAL, "gamma": GAMMA, "gamma_student": GAMMA},
    ),
    outliers.hard_b3_free_energy: (
        {"R_hat": 1.0, "Q_hat": 2.0, "z_hat": -0.5, "eta": 1.0, "gamma": 10.0},
        {**_HAT, "eta": REAL, "rho": NONNEG},
    ),
    outliers.hard_b4_order_parameters: (
        {"R_hat": 1.0, "Q_hat": 2.0, "z_hat": -0.5, "gamma": 10.0},
        _HAT,
    ),
    outliers.hard_b5: ({"eta": 1.0, "gamma": 10.0}, {"eta": POSITIVE, "gamma": POSITIVE}),
    outliers.hard_b5_roots: (
        {"gamma": 10.0, "eta_max": 2.0, "n_grid": 50},
        {
            "gamma": POSITIVE,
            "eta_max": (1e-6, math.inf, False, False),
            "n_grid": (2, 10**7, True, True),
        },
    ),
    outliers.hard_selection_1rsb: (
        {"alpha": 100.0, "eta": 3.0, "gamma": 10.0},
        {**_SELECTION, "y": (0.0, 1e8, False, True)},
    ),
    outliers.hard_complexity: ({"alpha": 100.0, "eta": 3.0, "gamma": 10.0}, _SELECTION),
    outliers.hard_selection_1rsb_curve: ({"alpha": 100.0, "gamma": 10.0}, _CURVE),
    outliers.hard_transition_1rsb: (
        {"alpha": 100.0, "gamma": 10.0},
        {**_CURVE, "phi_learn": (0.0, 0.5, True, True)},
    ),
    ml_mixture.alpha_critical: ({"u0": 1.0}, {"u0": POSITIVE}),
    ml_mixture.sigma_ordered: ({"alpha": 5.0, "u0": 1.0}, {"alpha": POSITIVE, "u0": POSITIVE}),
    ml_mixture.sigma_random: ({"alpha": 5.0}, {"alpha": POSITIVE}),
    ml_mixture.ordered_gain: (
        {"alpha": 5.0, "sigma": 1.5},
        {
            "alpha": ALPHA_MIXTURE,
            "sigma": (0.01, math.inf, True, False),
            "u0": (0.0, 100.0, False, True),
        },
    ),
    ml_mixture.field_optimum: ({"u0": 0.5, "k": 2.0}, {"u0": REAL, "k": POSITIVE}),
    ml_mixture.solve: (
        {"alpha": 5.0, "sigma": 1.5},
        {
            "alpha": ALPHA_MIXTURE,
            "sigma": (0.01, math.inf, True, False),
            "u0": (0.0, 100.0, False, True),
        },
    ),
    ml_mixture.solve_1rsb: (
        {"alpha": 1.0, "sigma": 1.0, "u0": 2.0},
        {
            "alpha": ALPHA_MIXTURE,
            "sigma": (0.01, math.inf, True, False),
            "u0": (0.0, 100.0, False, True),
            "y": (0.0, 1e3, False, True),
        },
    ),
    ml_mixture.solve_2rsb: (
        {"alpha": 1.0, "sigma": 1.0, "u0": 2.0, "y": (2.0, 5.0)},
        {
            "alpha": ALPHA_MIXTURE,
            "sigma": (0.01, math.inf, True, False),
            "u0": (0.0, 100.0, False, True),
        },
    ),
    ml_mixture.complexity_curve: (
        {"alpha": 1.0, "sigma": 1.0, "u0": 2.0},
        {
            "alpha": ALPHA_MIXTURE,
            "sigma": (0.01, math.inf, True, False),
            "u0": (0.0, 100.0, False, True),
        },
    ),
    ml_mixture.branch_1rsb: (
        {"alpha": 1.0, "u0": 2.0},
        {
            "alpha": ALPHA_MIXTURE,
            "u0": (0.0, 100.0, False, True),
            "sigma_min": (0.05, math.inf, True, False),
        },
    ),
    ml_mixture.phase_boundaries: (
        {"alpha": 5.0, "rs_lines": False},
        {
            "alpha": ALPHA_MIXTURE,
            "u0": (0.0, 100.0, False, True),
            "sigma_min": (0.01, math.inf, True, False),
        },
    ),
}

_TRIAL_VALUES = (math.nan, math.inf, -math.inf, -1.0, 0.0, 1e300, -1e300)


def _public_functions():
    for module in (outliers, ml_mixture):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                yield obj


def _inside(value, domain):
    lo, hi, lo_closed, hi_closed = domain
    if not math.isfinite(value):
        return False
    above = value > lo or (lo_closed and value == lo)
    below = value < hi or (hi_closed and value == hi)
    return above and below


def _bad_cases():
    for func, (valid, domains) in SPECS.items():
        for arg, domain in domains.items():
            for value in _TRIAL_VALUES:
                if not _inside(value, domain):
                    yield pytest.param(func, valid, arg, value, id=f"{func.__name__}-{arg}-{value}")


def test_every_public_function_has_a_spec():
    assert set(_public_functions()) == set(SPECS)
    for func, (valid, domains) in SPECS.items():
        params = inspect.signature(func).parameters
        assert set(valid) | set(domains) <= set(params), func.__name__
        numeric = {
            name
            for name, p in params.items()
            if isinstance(p.default, int | float) and not isinstance(p.default, bool)
        }
        assert numeric <= set(domains), (func.__name__, numeric - set(domains))


@pytest.mark.parametrize(("func", "valid", "arg", "value"), list(_bad_cases()))
def test_out_of_range_arguments_raise_naming_the_argument(func, valid, arg, value):
    kwargs = {**valid, arg: value}
    if arg == "n_grid" and math.isfinite(value):
        kwargs[arg] = int(value)
    with pytest.raises((ValueError, TypeError), match=arg):
        func(**kwargs)


@pytest.mark.parametrize(
    "call",
    [
        lambda: outliers.soft_selection_curve(5.0, gamma=10.0, eta_range=(-1e6, 14.0)),
        lambda: outliers.soft_selection_curve(5.0, gamma=10.0, eta_range=(3.0, 2.0)),
        lambda: outliers.hard_selection_curve(5.0, gamma=10.0, eta_range=(0.0, math.nan)),
        lambda: outliers.hard_selection_curve(5.0, gamma=10.0, eta_range=1.0),
    ],
)
def test_eta_range_is_validated(call):
    with pytest.raises((ValueError, TypeError), match="eta_range"):
        call()


def test_extreme_eta_of_soft_selection():
    # far above the branch's end (R, Q < e^-60) a clear error says where it ends
    with pytest.raises(ValueError, match=r"eta=1e\+06 is beyond the end"):
        outliers.soft_selection(5.0, 1e6, gamma=10.0)
    # far below: every example is informative, the Hebb state (and quickly)
    res = outliers.soft_selection(5.0, -1e6, gamma=10.0)
    hebb = outliers.hebb(5.0, -1e6, gamma=10.0)
    assert res.R[0] == pytest.approx(hebb.R, rel=1e-9)
    assert res.Q[0] == pytest.approx(hebb.Q, rel=1e-9)
    assert np.isfinite(res.free_energy).all()


def test_extreme_eta_of_hard_selection():
    above = outliers.hard_selection(5.0, 1e6, gamma=10.0)
    assert above.trivial[above.global_minimum]
    below = outliers.hard_selection(5.0, -1e300, gamma=10.0)
    assert below.n_branches == 1 and np.isfinite(below.free_energy).all()


def test_b5_overflow_is_a_clear_error():
    with pytest.raises(ValueError, match="overflows"):
        outliers.hard_b5(400.0, gamma=10.0)
    with pytest.raises(ValueError, match="eta_max"):
        outliers.hard_b5_roots(gamma=10.0, eta_max=1e6)


def test_branch_index_is_validated():
    res = outliers.soft_selection(5.0, 0.0, gamma=10.0)
    with pytest.raises(ValueError, match="index"):
        res.branch(res.n_branches)
    with pytest.raises(TypeError, match="index"):
        res.branch(0.5)


def test_closed_forms_at_extreme_separations():
    assert ml_mixture.alpha_critical(1e-300) == math.inf
    assert ml_mixture.alpha_critical(1e300) == 0.0
    assert math.isnan(ml_mixture.sigma_ordered(1.0, 1e-300))  # below alpha_c: no ordered split
    u = ml_mixture.field_optimum([1e300, -1e300, 0.0, 1e-300], 1e300)
    assert np.all(np.isfinite(u))
    assert ml_mixture.field_optimum(3.0, 1e-300) == pytest.approx(3.0)
