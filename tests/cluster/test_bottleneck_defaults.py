"""InformationBottleneck at its defaults: how many clusters, and what that costs."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from statmechlearn.cluster import InformationBottleneck

JOINT = np.zeros((3, 3))
for _x, _y in [(0, 0), (0, 2), (1, 2), (2, 1), (2, 2)]:
    JOINT[_x, _y] = 0.2


def _fit(est, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X)


def test_default_caps_the_clusters_at_eight():
    assert InformationBottleneck().n_clusters == 8
    table = np.random.default_rng(0).random((200, 30))
    ib = _fit(InformationBottleneck(normalize=True, random_state=0), table)
    assert 1 < ib.conditional_.shape[1] <= 8
    assert ib.n_effective_.max() <= 8
    # one cluster per row split every row off by beta_max = 100, a split attempt per cluster
    # and per beta: over 10^6 fixed-point iterations for this table, some 10^4 now
    assert ib.n_iter_ < 50_000


def test_more_clusters_than_rows_is_one_per_row_as_none_is():
    """A table with fewer rows than n_clusters is fitted with one cluster per row at most: the
    published three-row example is the same fit at the default as with n_clusters=None."""
    default = InformationBottleneck(min_temperature=0.01, random_state=3).fit(JOINT)
    per_row = InformationBottleneck(None, min_temperature=0.01, random_state=3).fit(JOINT)
    explicit = InformationBottleneck(3, min_temperature=0.01, random_state=3).fit(JOINT)
    for other in (per_row, explicit):
        np.testing.assert_array_equal(default.conditional_, other.conditional_)
        np.testing.assert_array_equal(default.information_ty_, other.information_ty_)
    assert default.conditional_.shape == (3, 3)


@pytest.mark.parametrize("n_clusters", [2, 4])
def test_n_clusters_caps_the_separated_clusters(n_clusters):
    rng = np.random.default_rng(n_clusters)
    table = rng.integers(0, 5, (40, 12)) + 1
    ib = _fit(InformationBottleneck(n_clusters, random_state=0), table)
    assert ib.conditional_.shape == (40, n_clusters)
    assert set(np.unique(ib.labels_)) <= set(range(n_clusters))
