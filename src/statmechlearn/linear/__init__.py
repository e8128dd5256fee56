"""Linear classifiers.

Learning in the presence of outliers (Dietrich & Opper):
:class:`OutlierRobustClassifier` (soft- and hard-selection EM) and
:class:`HebbClassifier` (eq. 25); the EM iterations, batched over runs for
the simulations, are in :mod:`statmechlearn.linear._selection_em`.

The sparse Bayesian classifier (Uda & Kabashima):
:class:`SparseBayesClassifier` (O(NM) message passing, leave-one-out error
from the cavity fields), :class:`SparseBayesClassifierCV` (``C`` and
``kappa`` by leave-one-out error), the kernels :func:`sparse_bayes_amp` and
the naive reference :func:`sparse_bayes_bp`, and
:class:`SmoothedStepActivation` (the output channel ``f``).
"""

from statmechlearn._core.channels import SmoothedStepActivation
from statmechlearn.linear._outliers import HebbClassifier, OutlierRobustClassifier
from statmechlearn.linear._rvm import RVMClassifier
from statmechlearn.linear._selection_em import (
    hard_selection_em,
    hebb_vector,
    soft_selection_em,
)
from statmechlearn.linear._sparse_bayes import (
    PAPER_C_GRID,
    PAPER_KAPPA_GRID,
    SparseBayesClassifier,
    SparseBayesClassifierCV,
    sphere_rows,
)
from statmechlearn.linear._sparse_bayes_mp import sparse_bayes_amp, sparse_bayes_bp

__all__ = [
    "PAPER_C_GRID",
    "PAPER_KAPPA_GRID",
    "HebbClassifier",
    "OutlierRobustClassifier",
    "RVMClassifier",
    "SmoothedStepActivation",
    "SparseBayesClassifier",
    "SparseBayesClassifierCV",
    "hard_selection_em",
    "hebb_vector",
    "soft_selection_em",
    "sparse_bayes_amp",
    "sparse_bayes_bp",
    "sphere_rows",
]
