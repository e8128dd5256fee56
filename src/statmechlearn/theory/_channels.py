"""Binary output channels ``P(y | u) = f(y u)`` smoothed by Gaussian noise.

A perceptron-type classifier with label noise is specified by an activation
``f(u)`` with ``f(u) >= 0`` and ``f(u) + f(-u) = 1``. Message passing,
state evolution and replica theory all need the Gaussian-smoothed channel

    Z(h, V) = int Du f(sqrt(V) u + h),

its log and the first two derivatives of ``ln Z`` in ``h``. For the family

    f(u) = kappa + (1 - 2 kappa) Phi(u / width)     (width = 0: a step)

the smoothing is closed-form, ``Z = kappa + (1 - 2 kappa) Phi(h / sqrt(V +
width**2))``; ``width = 0`` is the Heaviside activation of Uda & Kabashima,
eq. (17), a positive width is the probit. Everything is evaluated through
``log_ndtr`` so that ``kappa = 0`` far in the wrong tail stays finite.

Any object with the same three methods (``__call__``, ``log_partition``,
``probability``) and a ``name`` can be plugged into the estimators and the
theory in their place.
"""

import numpy as np
from scipy import special

from statmechlearn._core.validation import check_real

__all__ = ["SmoothedStepActivation"]

_LOG_SQRT_2PI = 0.5 * np.log(2.0 * np.pi)


class SmoothedStepActivation:
    """Activation ``f(u) = kappa + (1 - 2 kappa) Phi(u / width)``.

    Parameters
    ----------
    kappa : float, default=0.0
        Label-flip probability far from the boundary, in ``[0, 1/2)``.
    width : float, default=0.0
        Width of the probit ramp; ``0`` gives the step ``kappa + (1 - 2
        kappa) Theta(u)`` (Uda & Kabashima, eq. 17).
    """

    def __init__(self, kappa=0.0, width=0.0):
        self.kappa = check_real(kappa, "kappa", minimum=0.0, maximum=0.5, include_max=False)
        self.width = check_real(width, "width", minimum=0.0)
        self._log_kappa = np.log(self.kappa) if self.kappa > 0 else -np.inf
        self._log_slope = np.log1p(-2.0 * self.kappa)

    @property
    def name(self):
        """A short label, e.g. ``"step(kappa=0.05)"``."""
        if self.width == 0:
            return f"step(kappa={self.kappa:g})"
        return f"probit(kappa={self.kappa:g}, width={self.width:g})"

    def __repr__(self):
        return f"SmoothedStepActivation(kappa={self.kappa!r}, width={self.width!r})"

    def __eq__(self, other):
        return (
            isinstance(other, SmoothedStepActivation)
            and other.kappa == self.kappa
            and other.width == self.width
        )

    def __hash__(self):
        return hash((self.kappa, self.width))

    def __call__(self, u):
        """The activation ``f(u)`` itself (``Z(u, 0)``), i.e. ``P(y=+1 | u)``."""
        return self.probability(u, 0.0)

    def _scaled(self, h, variance):
        s2 = np.asarray(variance, dtype=float) + self.width**2
        h = np.asarray(h, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            x = np.where(s2 > 0, h / np.sqrt(np.where(s2 > 0, s2, 1.0)), np.sign(h) * np.inf)
        return x, s2

    def probability(self, h, variance):
        """``Z(h, V) = int Du f(sqrt(V) u + h)``, the predictive probability of ``y = +1``.

        Parameters
        ----------
        h : array_like
            Mean of the Gaussian field.
        variance : array_like
            Its variance ``V >= 0``; broadcasts against ``h``.

        Returns
        -------
        ndarray
        """
        x, _ = self._scaled(h, variance)
        return self.kappa + (1.0 - 2.0 * self.kappa) * special.ndtr(x)

    def sign_error(self, overlap, variance, teacher_variance):
        """Error rate of predicting ``sign(s)`` for labels drawn through this channel.

        ``s`` (the student's field) and ``t`` (the teacher's, which emits
        ``y = +1`` with probability ``f(t)``) are centred jointly Gaussian; the
        label disagrees with ``sign(s)`` with probability
        ``kappa + (1 - 2 kappa) arccos(overlap / sqrt(variance (teacher_variance
        + width^2))) / pi``, and with probability 1/2 where ``variance = 0``.

        Parameters
        ----------
        overlap : array_like
            ``E[s t]``.
        variance : array_like
            ``E[s^2]``.
        teacher_variance : float
            ``E[t^2]``.

        Returns
        -------
        float or ndarray
        """
        overlap = np.asarray(overlap, dtype=float)
        variance = np.asarray(variance, dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            cos = np.clip(overlap / np.sqrt(variance * (teacher_variance + self.width**2)), -1, 1)
        angle = np.arccos(cos) / np.pi
        out = np.where(variance > 0, self.kappa + (1.0 - 2.0 * self.kappa) * angle, 0.5)
        return out[()] if out.ndim == 0 else out

    def log_partition(self, h, variance):
        """``ln Z(h, V)`` and its first two derivatives in ``h``.

        Parameters
        ----------
        h : array_like
            Mean of the Gaussian field (cavity stability).
        variance : array_like
            Its variance ``V >= 0``.

        Returns
        -------
        log_z, d1, d2 : ndarray
            ``ln Z``, ``d ln Z / dh`` (the message ``a`` of Uda & Kabashima,
            eq. 28) and ``d^2 ln Z / dh^2`` (``b``, eq. 29).
        """
        x, s2 = self._scaled(h, variance)
        log_phi = special.log_ndtr(x)
        log_z = np.logaddexp(self._log_kappa, self._log_slope + log_phi)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            # r = (1 - 2 kappa) phi(x) / Z, formed in logs: phi/Phi overflows for x << 0.
            r = np.exp(self._log_slope - 0.5 * x * x - _LOG_SQRT_2PI - log_z)
            r = np.where(np.isfinite(x), r, 0.0)
            s = np.sqrt(s2)
            d1 = np.where(s2 > 0, r / np.where(s2 > 0, s, 1.0), 0.0)
            d2 = np.where(s2 > 0, -(r / np.where(s2 > 0, s2, 1.0)) * (np.nan_to_num(x) + r), 0.0)
        return log_z, d1, d2
