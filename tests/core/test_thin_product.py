"""The thin product ``A @ Z`` against exact sums, and independent of the thread count."""

from fractions import Fraction

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from statmechlearn._core.thin_product import MAX_COLUMNS, thin_product


def _exact(A, Z):
    """``A @ Z`` with each entry the correctly rounded exact sum (rational arithmetic)."""
    Z2 = Z.reshape(Z.shape[0], -1)
    Af = [[Fraction(float(a)) for a in row] for row in A]
    Zf = [[Fraction(float(z)) for z in col] for col in Z2.T]
    out = np.array(
        [[float(sum(a * z for a, z in zip(row, col, strict=True))) for col in Zf] for row in Af]
    )
    return out.reshape((A.shape[0], *Z.shape[1:]))


def _bound(A, Z):
    """The textbook error bound of a dot product summed in any order: ``n u |A| |Z|``."""
    n = A.shape[1]
    return n * np.finfo(float).eps * (np.abs(A) @ np.abs(Z)) + np.finfo(float).tiny


@pytest.mark.parametrize(
    ("m", "n", "k"),
    [(4, 3, 2), (5, 7, 3), (9, 33, 4), (130, 61, 5), (67, 200, 8), (6, 5, MAX_COLUMNS + 3)],
)
def test_entries_are_within_the_rounding_bound_of_the_exact_sums(m, n, k):
    rng = np.random.default_rng(m * n * k)
    A = rng.standard_normal((m, n)) * np.exp(rng.uniform(-5, 5, (m, n)))
    Z = rng.standard_normal((n, k))
    got = thin_product(A, Z)
    assert got.shape == (m, k) and got.flags.c_contiguous
    assert np.all(np.abs(got - _exact(A, Z)) <= _bound(A, Z))


@settings(max_examples=40, deadline=None)
@given(
    m=st.integers(1, 40),
    n=st.integers(1, 40),
    k=st.integers(1, 12),
    seed=st.integers(0, 2**32 - 1),
)
def test_any_shape_agrees_with_the_exact_sums(m, n, k, seed):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((m, n))
    Z = rng.standard_normal((n, k))
    got = thin_product(A, Z)
    assert got.shape == (m, k)
    assert np.all(np.abs(got - _exact(A, Z)) <= _bound(A, Z))


def test_a_vector_and_a_single_column_keep_their_shapes():
    rng = np.random.default_rng(1)
    A = rng.standard_normal((10, 6))
    z = rng.standard_normal(6)
    assert thin_product(A, z).shape == (10,)
    assert thin_product(A, z[:, None]).shape == (10, 1)
    assert np.all(np.abs(thin_product(A, z) - _exact(A, z)) <= _bound(A, z))


def test_a_non_contiguous_matrix_gives_the_same_product():
    rng = np.random.default_rng(2)
    A = rng.standard_normal((40, 30))
    Z = rng.standard_normal((30, 3))
    np.testing.assert_array_equal(thin_product(np.asfortranarray(A), Z), thin_product(A, Z))


def test_result_is_bit_identical_for_any_thread_count():
    rng = np.random.default_rng(3)
    A = rng.standard_normal((1001, 517))  # rows not a multiple of the chunks or of four
    Z = rng.standard_normal((517, 6))
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = thin_product(A, Z)
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        many = thin_product(A, Z)
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(one, many)
