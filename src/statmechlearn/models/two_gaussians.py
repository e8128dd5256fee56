"""Barkai & Sompolinsky's source: two orthogonal Gaussian centres in high dimension.

``P_0(S) = (1/2) N(S | U_1^0, sigma_0 I) + (1/2) N(S | U_2^0, sigma_0 I)`` with
``U_1^0 . U_2^0 = 0`` and ``|U_l^0|^2 = u0^2 sigma_0`` (eq. 1), so the centres
are ``sqrt(2 sigma_0) u0`` apart while each cloud has radius ``sqrt(N sigma_0)``.
"""

import math
from dataclasses import dataclass

import numpy as np

from statmechlearn._core.gauss import H
from statmechlearn._core.rng import check_random_state
from statmechlearn._core.validation import check_array_finite, check_int, check_real

__all__ = ["MixtureOrderParameters", "TwoGaussians"]


@dataclass(frozen=True)
class MixtureOrderParameters:
    """Order parameters of an estimated splitting vector (eqs. 9-10).

    Attributes
    ----------
    Q : float or ndarray
        ``sigma_0 |dU|^2`` (the paper's q).
    R : float or ndarray
        ``u0^-1 dU . dU0`` (with ``sigma_0 = 1`` units; the paper's r).
    theta : float or ndarray
        Angle between ``dU`` and ``dU0``, ``arccos(sqrt(2 R^2 / Q))``.
    eps_c : float or ndarray
        ``H(u0 cos(theta) / sqrt(2))``.
    """

    Q: object
    R: object
    theta: object
    eps_c: object


class TwoGaussians:
    """The two-Gaussian source of eq. (1).

    Parameters
    ----------
    n_features : int
        Dimension ``N``.
    u0 : float, default=1.0
        Normalised separation ``u0 = |U_l^0| / sqrt(sigma_0)``.
    sigma0 : float, default=1.0
        Per-coordinate variance of each component.

    Attributes
    ----------
    centers : ndarray of shape (2, n_features)
        ``U_1^0 = sqrt(sigma0) u0 e_1`` and ``U_2^0 = sqrt(sigma0) u0 e_2``.
    splitting_vector : ndarray of shape (n_features,)
        ``dU0 = (U_1^0 - U_2^0) / 2``.

    Examples
    --------
    >>> from statmechlearn.models import TwoGaussians
    >>> S, labels = TwoGaussians(100, u0=2.0).sample(50, random_state=0)
    >>> S.shape
    (50, 100)
    """

    def __init__(self, n_features, *, u0=1.0, sigma0=1.0):
        self.n_features = check_int(n_features, "n_features", minimum=2)
        self.u0 = check_real(u0, "u0", minimum=0.0, include_min=False)
        self.sigma0 = check_real(sigma0, "sigma0", minimum=0.0, include_min=False)
        self.centers = np.zeros((2, self.n_features))
        self.centers[0, 0] = self.centers[1, 1] = math.sqrt(self.sigma0) * self.u0
        self.splitting_vector = (self.centers[0] - self.centers[1]) / 2.0

    def sample(self, n_samples, random_state=None, *, batch_shape=()):
        """Draw points and the (hidden) component labels.

        Parameters
        ----------
        n_samples : int
            Number of points ``P``.
        random_state : int, Generator or None
        batch_shape : tuple of int, default=()
            Leading shape for independent data sets.

        Returns
        -------
        S : ndarray of shape (*batch_shape, n_samples, n_features)
        component : ndarray of int8, shape (*batch_shape, n_samples)
            0 or 1, the generating component.
        """
        n_samples = check_int(n_samples, "n_samples", minimum=1)
        rng = check_random_state(random_state)
        shape = (*tuple(batch_shape), n_samples)
        component = rng.integers(0, 2, size=shape).astype(np.int8)
        noise = rng.standard_normal((*shape, self.n_features))
        return self.centers[component] + math.sqrt(self.sigma0) * noise, component

    def order_parameters(self, splitting_vector):
        """``Q, R, theta, eps_c`` of estimated splitting vectors (eqs. 9-10).

        Parameters
        ----------
        splitting_vector : array-like of shape (..., n_features)
            ``dU = (U_1 - U_2) / 2`` of one or many estimates.

        Returns
        -------
        MixtureOrderParameters
            ``R`` is signed; ``theta`` uses ``|R|`` (the labels of the two
            estimated centres are arbitrary) and is NaN where ``Q = 0``.
        """
        dU = check_array_finite(np.asarray(splitting_vector, dtype=float), "splitting_vector")
        if dU.shape[-1] != self.n_features:
            raise ValueError(
                f"splitting_vector must end in n_features={self.n_features}, got {dU.shape}"
            )
        q = self.sigma0 * np.sum(dU * dU, axis=-1)
        r = (dU @ self.splitting_vector) / (self.u0 * self.sigma0)
        with np.errstate(divide="ignore", invalid="ignore"):
            cos = np.where(q > 0, np.sqrt(2.0 * r * r / np.where(q > 0, q, 1.0)), np.nan)
        cos = np.minimum(cos, 1.0)
        return MixtureOrderParameters(
            Q=q, R=r, theta=np.arccos(cos), eps_c=H(self.u0 * cos / math.sqrt(2.0))
        )
