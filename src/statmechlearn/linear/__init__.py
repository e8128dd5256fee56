"""Linear classifiers.

Learning in the presence of outliers (Dietrich & Opper):
:class:`OutlierRobustClassifier` (soft- and hard-selection EM) and
:class:`HebbClassifier` (eq. 25); the EM iterations, batched over runs for
the simulations: :func:`soft_selection_em`, :func:`hard_selection_em` (both
returning an :class:`EMResult`), :func:`hard_selection_energy` (the energy
(10) of a selection) and :func:`hebb_vector`.

The sparse Bayesian classifier (Uda & Kabashima):
:class:`SparseBayesClassifier` (O(NM) message passing, leave-one-out error
from the cavity fields), :class:`SparseBayesClassifierCV` (``C`` and
``kappa`` by leave-one-out error), the kernels :func:`sparse_bayes_amp` and
the naive reference :func:`sparse_bayes_bp`, and
:class:`SmoothedStepActivation` (the output channel ``f``).
"""

from typing import TYPE_CHECKING

from statmechlearn._core.lazy import attach

# Imported on first use (see statmechlearn._core.lazy): importing the package imports
# none of its estimators, and importing one imports only what it needs.
if TYPE_CHECKING:
    from statmechlearn.linear._outliers import HebbClassifier, OutlierRobustClassifier
    from statmechlearn.linear._rvm import RVMClassifier
    from statmechlearn.linear._selection_em import (
        EMResult,
        hard_selection_em,
        hard_selection_energy,
        hebb_vector,
        soft_selection_em,
    )
    from statmechlearn.linear._sparse_bayes import (
        PAPER_C_GRID,
        PAPER_KAPPA_GRID,
        SparseBayesClassifier,
        sphere_rows,
    )
    from statmechlearn.linear._sparse_bayes_cv import SparseBayesClassifierCV
    from statmechlearn.linear._sparse_bayes_mp import sparse_bayes_amp, sparse_bayes_bp
    from statmechlearn.theory.sparse_bayes import SmoothedStepActivation

__all__ = [
    "PAPER_C_GRID",
    "PAPER_KAPPA_GRID",
    "EMResult",
    "HebbClassifier",
    "OutlierRobustClassifier",
    "RVMClassifier",
    "SmoothedStepActivation",
    "SparseBayesClassifier",
    "SparseBayesClassifierCV",
    "hard_selection_em",
    "hard_selection_energy",
    "hebb_vector",
    "soft_selection_em",
    "sparse_bayes_amp",
    "sparse_bayes_bp",
    "sphere_rows",
]

__getattr__, __dir__ = attach(__name__, __file__)
