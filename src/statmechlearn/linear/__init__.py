"""Linear classifiers: learning in the presence of outliers (Dietrich & Opper).

:class:`OutlierRobustClassifier` (soft- and hard-selection EM) and
:class:`HebbClassifier` (eq. 25). The EM iterations, batched over runs for
the simulations, are in :mod:`statmechlearn.linear._selection_em`.
"""

from statmechlearn.linear._outliers import HebbClassifier, OutlierRobustClassifier
from statmechlearn.linear._selection_em import (
    hard_selection_em,
    hebb_vector,
    soft_selection_em,
)

__all__ = [
    "HebbClassifier",
    "OutlierRobustClassifier",
    "hard_selection_em",
    "hebb_vector",
    "soft_selection_em",
]
