import math

import numpy as np
import pytest

from statmechlearn.papers.maxent.finite_size import (
    FSS_GAMMA,
    TW1_MEAN,
    _edge_correction,
    critical_temperature_limit,
    edge_mean,
    edge_slope,
)


def _mean_tc(n_features, n_draws, seed):
    rng = np.random.default_rng(seed)
    n_samples = round(n_features / FSS_GAMMA)
    tc = np.empty(n_draws)
    for i in range(n_draws):
        X = rng.standard_normal((n_samples, n_features))
        tc[i] = 2.0 * np.linalg.eigvalsh(np.cov(X, rowvar=False, bias=True))[-1]
    return tc.mean(), tc.std(ddof=1) / math.sqrt(n_draws)


@pytest.mark.parametrize("seed", [0, 1])
def test_finite_size_law_and_not_its_leading_terms_gives_the_mean_at_small_n(seed):
    # N = 50, P = 100: the leading terms miss the mean by 0.07, some 15 standard errors of
    # 1500 draws; the centred law is within its O(N^-4/3) remainder of it
    mean, se = _mean_tc(50, 1500, seed)
    leading = critical_temperature_limit(0.0, FSS_GAMMA) + edge_slope(FSS_GAMMA) * 50 ** (-2 / 3)
    assert abs(mean - edge_mean(50, 100)) < 4.0 * se + 0.01
    assert abs(mean - leading) > 8.0 * se


def test_law_reduces_to_its_leading_terms_as_n_grows():
    # the correction is O(1/N): N times it tends to a constant
    # c = -2 gamma (1 + sqrt(gamma)) (3/2 + 1/(2 sqrt(gamma))), derived in
    # docs/derivations/tracy_widom_edge.md; the rest is O(N^-5/3)
    g = FSS_GAMMA
    c = -2 * g * (1 + math.sqrt(g)) * (1.5 + 0.5 / math.sqrt(g))
    scaled = [n * _edge_correction([n])[0] for n in (10**4, 10**6)]
    assert scaled[0] == pytest.approx(c, rel=1e-3) and scaled[1] == pytest.approx(c, rel=1e-4)
    assert abs(_edge_correction([10**6])[0]) < 1e-5

    # and its leading terms are the limit and Johnstone's scale times E[TW1]
    def slope_error(n):
        shift = edge_mean(n, 2 * n) - critical_temperature_limit(0.0, FSS_GAMMA)
        return shift * n ** (2 / 3) - edge_slope(FSS_GAMMA)

    # what is left of the coefficient is the O(1/N) term seen on the N^-2/3 scale: O(N^-1/3)
    errors = [abs(slope_error(n)) for n in (10**6, 10**9)]
    assert errors[1] < 0.02 * abs(edge_slope(FSS_GAMMA))
    assert errors[1] / errors[0] == pytest.approx(10**-1, rel=0.05)
    assert edge_slope(FSS_GAMMA) / TW1_MEAN > 0
