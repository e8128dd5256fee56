"""Learning vector quantization.

The on-line winner-takes-all kernel of Biehl, Ghosh & Hammer eq. (1)
(numba, with a NumPy twin) drives both the simulations and the estimators.
"""

from statmechlearn.lvq._wta import (
    WTA_RULES,
    wta_online_updates,
    wta_online_updates_numpy,
    wta_rule,
)

__all__ = ["WTA_RULES", "wta_online_updates", "wta_online_updates_numpy", "wta_rule"]
