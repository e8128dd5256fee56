import numpy as np
import pytest

from statmechlearn._core.rng import cell_generator, check_random_state, spawn_generators
from statmechlearn._core.validation import (
    check_array_finite,
    check_choice,
    check_int,
    check_probability,
    check_real,
)


def test_check_random_state_accepts_all_forms():
    g = np.random.default_rng(3)
    assert check_random_state(g) is g
    a = check_random_state(5).random(3)
    np.testing.assert_array_equal(a, np.random.default_rng(5).random(3))
    legacy = check_random_state(np.random.RandomState(1))
    assert isinstance(legacy, np.random.Generator)
    with pytest.raises(ValueError, match="non-negative"):
        check_random_state(-1)
    with pytest.raises(TypeError, match="random_state must be"):
        check_random_state("seed")


def test_cell_streams_are_reproducible_and_independent():
    a = cell_generator(7, 0, 3).random(1000)
    b = cell_generator(7, 0, 3).random(1000)
    c = cell_generator(7, 0, 4).random(1000)
    np.testing.assert_array_equal(a, b)
    assert abs(np.corrcoef(a, c)[0, 1]) < 5 / np.sqrt(1000)
    # same stream as SeedSequence.spawn would hand out
    child = np.random.SeedSequence(7).spawn(1)[0]
    np.testing.assert_array_equal(
        cell_generator(7, 0).random(5), np.random.default_rng(child).random(5)
    )
    with pytest.raises(ValueError, match="non-negative"):
        cell_generator(1, -2)


def test_spawn_generators_independent():
    gens = spawn_generators(11, 3)
    draws = [g.random(4) for g in gens]
    assert not np.allclose(draws[0], draws[1])
    again = [g.random(4) for g in spawn_generators(11, 3)]
    np.testing.assert_array_equal(draws[2], again[2])


def test_validation_messages_name_parameter_and_range():
    with pytest.raises(ValueError, match=r"eta must be in \(0, inf\), got -1.0"):
        check_real(-1.0, "eta", minimum=0.0, include_min=False)
    with pytest.raises(ValueError, match=r"lam must be finite"):
        check_real(float("nan"), "lam", minimum=0.0)
    with pytest.raises(ValueError, match=r"p_plus must be in \(0, 1\)"):
        check_probability(1.0, "p_plus", open_interval=True)
    with pytest.raises(TypeError, match="n_features must be an integer"):
        check_int(2.5, "n_features")
    with pytest.raises(TypeError, match="must be a real number"):
        check_real(True, "eta")
    with pytest.raises(ValueError, match=r"n_seeds must be an integer in \[1, inf\]"):
        check_int(0, "n_seeds", minimum=1)
    with pytest.raises(ValueError, match="algorithm must be one of 'a', 'b'"):
        check_choice("c", "algorithm", ["a", "b"])
    with pytest.raises(ValueError, match=r"X must have shape \(any, 3\)"):
        check_array_finite(np.zeros((2, 2)), "X", shape=(None, 3))
    with pytest.raises(ValueError, match="X must contain only finite"):
        check_array_finite([1.0, np.inf], "X")
