import math

import numpy as np
import pytest

from statmechlearn.cluster import InformationBottleneck
from statmechlearn.papers.maxent.rate_distortion import _ib_optimum_by_direct_search, _joint


def _entropy_bits(p):
    p = p[p > 0]
    return float(-np.sum(p * np.log2(p)))


def test_direct_search_reference_is_the_same_optimum_from_other_starts():
    ixt, ity = _ib_optimum_by_direct_search()
    other = _ib_optimum_by_direct_search(seed=1)
    np.testing.assert_allclose(other, (ixt, ity), atol=1e-5)
    J = _joint()
    px, py = J.sum(axis=1), J.sum(axis=0)
    mutual = _entropy_bits(px) + _entropy_bits(py) - _entropy_bits(J.ravel())
    # the data-processing bounds, with room: the optimum is inside, not on them
    assert 0 < ity < mutual and 0 < ixt < _entropy_bits(px)
    assert mutual - ity < 1e-2 and _entropy_bits(px) - ixt > 1e-3


@pytest.mark.parametrize("seed", [0, 1])
def test_annealed_bottleneck_reaches_the_directly_searched_optimum(seed):
    # two routes to one minimum: the annealed self-consistent iteration and BFGS on the
    # Lagrangian over every encoder; compared in the Lagrangian, the quantity both minimise
    beta = 10.0
    ib = InformationBottleneck(min_temperature=1.0 / beta, random_state=seed).fit(_joint())
    ixt, ity = ib.information_xt_[-1], ib.information_ty_[-1]
    ref_xt, ref_ty = _ib_optimum_by_direct_search(beta)
    assert ixt - beta * ity == pytest.approx(ref_xt - beta * ref_ty, abs=1e-6 * beta)
    assert (ixt, ity) == pytest.approx((ref_xt, ref_ty), abs=1e-4)
    assert math.isfinite(ixt)
