"""The ML mixture's single-field optimiser, shared by its RS and 1RSB saddle points."""

import numpy as np

__all__ = ["_field_optimum"]


def _field_optimum(u0, k):
    # unchecked: the saddle-point solvers probe trial points whose fields may overflow
    u0 = np.asarray(u0, dtype=float)
    sign = np.where(u0 >= 0.0, 1.0, -1.0)
    a = np.abs(u0)
    u = a + k
    for _ in range(100):
        th = np.tanh(u)
        g = u - k * th - a
        gp = 1.0 - k * (1.0 - th * th)
        # g = gp = 0 only at the degenerate root u = 0 of k = 1, u0 = 0
        step = np.divide(g, gp, out=np.zeros_like(g), where=g != 0.0)
        u = u - step
        if np.all(np.abs(step) <= 1e-14 * (1.0 + u)):
            break
    return sign * u
