"""Two labelled Gaussian clusters mixed with unlabelled outliers (Dietrich & Opper, eqs. 1-2).

With probability ``1 / (1 + e^eta)`` an example is informative (V = 1): its
label S = +-1 is a fair coin and ``xi ~ N(S B / sqrt(N), I / gamma)``.
Otherwise it is an outlier (V = 0): ``xi ~ N(0, I / gamma)`` and S is a fair
coin independent of xi. ``B`` has ``B . B / N = 1``. An estimate ``J`` of
``B`` is measured by R = J.B/N, Q = J.J/N, the angle Phi = arccos(R/sqrt Q)/pi
(eq. 14) and the squared deviation Delta = Q - 2R + 1 (eq. 12).
"""

from dataclasses import dataclass, field

import numpy as np

from statmechlearn._core.rng import check_random_state
from statmechlearn._core.validation import check_array_finite, check_int, check_real

__all__ = ["OutlierMixture", "OutlierOrderParameters", "informative_fraction"]


def informative_fraction(eta):
    """Fraction ``1 / (1 + e^eta)`` of informative examples for the chemical potential eta.

    Parameters
    ----------
    eta : float or array_like
        May be +-inf (no / only outliers).

    Returns
    -------
    float or ndarray
    """
    if np.iscomplexobj(eta):
        raise TypeError("eta must be real, got complex values")
    eta = np.asarray(eta, dtype=float)
    if np.any(np.isnan(eta)):
        raise ValueError("eta must not be NaN (+-inf are allowed)")
    out = 0.5 * (1.0 - np.tanh(0.5 * eta))  # 1/(1+e^eta) without overflow
    return float(out) if out.ndim == 0 else out


@dataclass(frozen=True)
class OutlierOrderParameters:
    """Order parameters of an estimate J (eqs. 12-14).

    Attributes
    ----------
    R, Q : float or ndarray
        ``J.B / N`` and ``J.J / N``.
    Phi : float or ndarray
        Angle between J and B divided by pi, eq. (14).
    Delta : float or ndarray
        ``(J - B)^2 / N = Q - 2R + 1``, eq. (12).
    """

    R: np.ndarray
    Q: np.ndarray
    Phi: np.ndarray
    Delta: np.ndarray


@dataclass(frozen=True, eq=False)
class OutlierMixture:
    """The outliers paper's data model.

    Parameters
    ----------
    n_features : int
        Dimension N, >= 1.
    eta : float
        Chemical potential; the informative fraction is ``1 / (1 + e^eta)``
        (eta = 0: half the examples are outliers). May be -inf (no outliers).
    gamma : float
        Inverse variance per component of every cluster, > 0.
    teacher : ndarray of shape (n_features,), optional
        The structure vector B, rescaled to ``B.B = N``. Default: all ones
        (the model is rotation invariant).

    Attributes
    ----------
    B : ndarray of shape (n_features,)
        The structure vector, ``B.B = N``.

    Examples
    --------
    >>> m = OutlierMixture(n_features=100, eta=0.0, gamma=10.0)
    >>> X, S, V = m.sample(500, random_state=0)
    >>> X.shape, S.shape, V.shape
    ((500, 100), (500,), (500,))
    """

    n_features: int
    eta: float
    gamma: float
    teacher: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self):
        n = check_int(self.n_features, "n_features", minimum=1)
        eta = float(self.eta)
        if np.isnan(eta) or eta == np.inf:
            raise ValueError(f"eta must be a number or -inf (no outliers), got {self.eta!r}")
        check_real(self.gamma, "gamma", minimum=0.0, include_min=False)
        if self.teacher is None:
            B = np.ones(n)
        else:
            B = check_array_finite(self.teacher, "teacher", shape=(n,))
            norm = np.linalg.norm(B)
            if norm == 0:
                raise ValueError("teacher must not be the zero vector")
            B = B * np.sqrt(n) / norm
        object.__setattr__(self, "B", B)

    @property
    def informative_fraction(self):
        """Probability ``1 / (1 + e^eta)`` that an example is informative."""
        return informative_fraction(self.eta)

    def sample(self, n_samples, random_state=None, *, batch_shape=()):
        """Draw examples with their hidden selection variables.

        Parameters
        ----------
        n_samples : int
            Number of examples per batch, >= 0.
        random_state : None, int or numpy.random.Generator, optional
        batch_shape : tuple of int, default=()
            Leading axes for independent batches (e.g. ``(n_runs,)``).

        Returns
        -------
        X : ndarray of shape (*batch_shape, n_samples, n_features)
        S : ndarray of shape (*batch_shape, n_samples), values +-1
        V : ndarray of shape (*batch_shape, n_samples), 1 informative, 0 outlier
        """
        n_samples = check_int(n_samples, "n_samples", minimum=0)
        rng = check_random_state(random_state)
        shape = (*tuple(batch_shape), n_samples)
        V = (rng.random(shape) < self.informative_fraction).astype(np.int8)
        S = np.where(rng.random(shape) < 0.5, 1, -1).astype(np.int8)
        X = rng.standard_normal((*shape, self.n_features))
        X /= np.sqrt(self.gamma)
        X += (V * S)[..., None] * (self.B / np.sqrt(self.n_features))
        return X, S, V

    def order_parameters(self, J):
        """R, Q, Phi and Delta of estimates J (eqs. 12-14).

        Parameters
        ----------
        J : array_like of shape (..., n_features)

        Returns
        -------
        OutlierOrderParameters
            Arrays of shape ``J.shape[:-1]`` (floats for one J).
        """
        J = np.asarray(J, dtype=float)
        if J.shape[-1] != self.n_features:
            raise ValueError(f"J must have {self.n_features} components, got {J.shape[-1]}")
        R = J @ self.B / self.n_features
        Q = np.einsum("...i,...i->...", J, J) / self.n_features
        with np.errstate(invalid="ignore", divide="ignore"):
            cos = np.where(Q > 0, R / np.sqrt(Q), 0.0)
        Phi = np.arccos(np.clip(cos, -1.0, 1.0)) / np.pi
        Delta = Q - 2.0 * R + 1.0
        if np.ndim(R) == 0:
            return OutlierOrderParameters(float(R), float(Q), float(Phi), float(Delta))
        return OutlierOrderParameters(R, Q, Phi, Delta)
