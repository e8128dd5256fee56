"""Learning vector quantization.

Estimators (scikit-learn compatible, with ``partial_fit``): :class:`LVQ1`,
:class:`LVQPlus`, :class:`LVQ21`, :class:`GLVQ` and the quantizer
:class:`VQ`. The on-line winner-takes-all kernel of Biehl, Ghosh & Hammer
eq. (1) (numba, with a NumPy twin) drives both the simulations and the
estimators.
"""

from typing import TYPE_CHECKING

from statmechlearn._core.lazy import attach

# Imported on first use (see statmechlearn._core.lazy): importing the package imports
# none of its estimators, and importing one imports only what it needs.
if TYPE_CHECKING:
    from statmechlearn.lvq._classifiers import GLVQ, LVQ1, LVQ21, LVQPlus
    from statmechlearn.lvq._overlaps import wta_overlap_updates, wta_overlap_updates_numpy
    from statmechlearn.lvq._vq import VQ
    from statmechlearn.lvq._wta import (
        WTA_RULES,
        wta_online_updates,
        wta_online_updates_numpy,
        wta_rule,
    )

__all__ = [
    "GLVQ",
    "LVQ1",
    "LVQ21",
    "VQ",
    "WTA_RULES",
    "LVQPlus",
    "wta_online_updates",
    "wta_online_updates_numpy",
    "wta_overlap_updates",
    "wta_overlap_updates_numpy",
    "wta_rule",
]

__getattr__, __dir__ = attach(__name__, __file__)
